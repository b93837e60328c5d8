//! # recallkit
//!
//! A local-first memory recall engine. The core is plain, deterministic Rust: it owns the
//! records, the indexes and every ranking rule, and reads no clock and no ambient randomness
//! (callers pass `now` and seeds). `wasm.rs` is the only module that knows about JavaScript.
//! `DESIGN.md` has the whole map, a glossary of the designs recallkit follows is in
//! `docs/design-sources.md`.
//!
//! Module map (dependencies point downwards in this list):
//!
//! | module | the question it answers |
//! |---|---|
//! | [`error`] | what went wrong: one [`Error`] variant per stable code |
//! | [`sort`] | how the crate sorts and keeps the best k (one copy of std's sort per key type) |
//! | [`text`] | what the words of a text are: FTS5-exact tokenisation, folding, Porter stemming |
//! | [`store`] | what a memory is: its record, validation and compact stored form |
//! | [`index`] | which memories hold a word: inverted index, FTS5-exact BM25, trigram vocabulary |
//! | [`signature`] | which memories read alike without embeddings: 256-bit LSH signatures |
//! | [`vector`] | which memories mean the same, by the host's embeddings: exact cosine scan |
//! | [`notes`] | what the consolidation notes say: daily, weekly and quarterly paragraphs |
//! | [`graph`] | who and what is related: entities, aliases and edges citing memories |
//! | [`recall`] | what a recall reads and keeps: filters, query caps, stage Sf and its formula |
//! | [`rank`] | in which order candidates come back: the ranking models, boosts, MMR, reranking |
//! | [`engine`] | the [`Engine`]: records, indexes, writes and the recall pipeline |
//! | [`image`] | how an engine is saved and read back without a rebuild: the image format |
//! | [`wire`] | how values cross the boundary: serde views and readers of records, options and results, and the binary batch of memories |
//!
//! Stage map (the labels are public identifiers; the plain names are used in the docs):
//!
//! | stage | plain name | matches | code | raw score | to 0..1 |
//! |---|---|---|---|---|---|
//! | `Sf` | lexical | words: porter stems, then trigram typo and substring expansions | [`recall::sf`] | FTS5 BM25 ([`index::bm25`]) | [`rank::evidence`] (share of the query) |
//! | `Se` | embedding | the host's query vector | [`vector::VectorStore`] | cosine | [`rank::evidence::SemanticScale`] |
//! | `Ss` | signature | a text's terms, without embeddings | [`signature`] | Hamming similarity | [`rank::evidence::signature_evidence`] |
//! | `S6` | notes | consolidation note paragraphs | [`notes`] | matched words | coverage of the question |
//! | `S8` | graph | entity names and aliases in the question | [`graph`] | edge strength | strength × coverage |
//!
//! The `abmind` ranking maps raw scores with [`rank::calibrate()`] instead, abmind's
//! calibration (raw BM25, cosines and fixed scores mapped to 0..1).
#![warn(missing_docs)]

/// The crate's one float assertion for tests: `|a − b| ≤ eps` (default 1e-12).
#[cfg(test)]
macro_rules! assert_close {
    ($a:expr, $b:expr) => {
        assert_close!($a, $b, 1e-12)
    };
    ($a:expr, $b:expr, $eps:expr) => {{
        let (a, b, eps): (f64, f64, f64) = ($a, $b, $eps);
        assert!((a - b).abs() <= eps, "{a} is not within {eps} of {b}");
    }};
}

#[cfg(test)]
mod test_support;

pub mod engine;
pub mod error;
pub mod graph;
pub mod hash;
pub mod image;
pub mod index;
pub mod notes;
pub mod rank;
pub mod recall;
pub mod signature;
pub mod sort;
pub mod store;
pub mod text;
mod varint;
pub mod vector;
pub mod wire;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use engine::Engine;
pub use error::{Error, Result};
