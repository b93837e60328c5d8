//! Consolidation notes (daily, weekly and quarterly markdown summaries) and stage S6, which
//! searches their paragraphs by keyword (abmind's recall pipeline, `docs/design-sources.md` §1).
//!
//! | file | role |
//! |---|---|
//! | [`note`] | the [`Note`] record, its [`Period`] and validation |
//! | [`paragraph`] | splitting markdown into plain-text paragraphs |
//! | [`keywords`] | the query's non-trivial terms: porter stems minus stopwords |
//! | [`fnv`] | FNV-1a 64, the platform-independent hash S6 deduplicates with |
//! | [`note_store`] | [`NoteStore`]: notes by id, paragraphs pre-analysed, and [`NoteStore::search`] |
//!
//! Stage S6 in one line: every paragraph of every note whose `[start, end]` overlaps the recall
//! window and that contains at least one non-trivial query term is a hit with score
//! [`S6_SCORE`], deduplicated by `fnv1a64(first 80 chars ‖ start)`.

pub mod fnv;
pub mod keywords;
pub mod note;
pub mod note_store;
pub mod paragraph;

pub use note::{Note, Period, MAX_NOTE_BYTES};
pub use note_store::{NoteHit, NoteStore, S6_SCORE};
