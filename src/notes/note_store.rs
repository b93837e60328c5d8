//! [`NoteStore`]: consolidation notes by id, each paragraph pre-analysed, and stage S6.
//!
//! Stage S6 ([`NoteStore::search`]), step by step:
//!
//! 1. The query's non-trivial terms ([`query_terms`]: porter stems minus stopwords). None → no
//!    hits.
//! 2. Every note the recall's [`Scope`] sees (its user's notes and shared ones, none
//!    classified above the ceiling) whose closed `[start, end]` overlaps the window (a `None`
//!    side is unbounded); every paragraph ([`paragraphs`]) of it that holds at least one of the terms is a hit with
//!    score [`S6_SCORE`] and `matched_terms` = the number of distinct terms it holds.
//! 3. Hits are ordered by `matched_terms` descending, then note `start` descending (recent
//!    notes first), then note id and paragraph index ascending.
//! 4. Deduplication keeps the first hit of each key
//!    `fnv1a64(first 80 chars of the paragraph ‖ 0xFF ‖ start as little-endian f64 bits)`
//!    (abmind: "first 80 chars + timestamp"; chars are Unicode scalar values, the `0xFF`
//!    byte, which never occurs in UTF-8, separates the two parts).
//! 5. The first `max` remain.
//!
//! Hidden notes are dropped in step 2, before deduplication and the cut, so a note a recall
//! cannot see never takes the place of one it can.
//!
//! Cost: a scan over the paragraphs of the notes in the window with a binary search per query
//! term in each paragraph's sorted term list; notes are few (one per day, week or quarter), so
//! no inverted index is kept. The hit order is total, so results never depend on hashing.

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::graph::keyed::Keyed;
use crate::notes::fnv::Fnv1a64;
use crate::notes::keywords::{paragraph_terms, query_terms};
use crate::notes::note::{Note, Period};
use crate::notes::paragraph::paragraphs;
use crate::sort;
use crate::store::Scope;

/// The fixed score of every S6 hit (abmind's).
pub const S6_SCORE: f64 = 0.5;
/// Characters of a paragraph that enter its deduplication key (abmind's).
pub const DEDUP_PREFIX_CHARS: usize = 80;

/// One S6 hit: a paragraph of a note.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteHit {
    /// The note's id.
    pub note_id: String,
    /// Index of the paragraph among the note's paragraphs (from 0).
    pub paragraph: u32,
    /// The note's period; the stage label is [`Period::stage_label`].
    pub period: Period,
    /// The paragraph's plain text.
    pub text: String,
    /// The note's start (ms).
    pub start: f64,
    /// Always [`S6_SCORE`].
    pub score: f64,
    /// How many distinct non-trivial query terms the paragraph holds (≥ 1).
    pub matched_terms: u32,
}

/// A paragraph and its sorted distinct terms.
#[derive(Debug, Clone)]
struct Paragraph {
    text: String,
    terms: Vec<String>,
}

impl Paragraph {
    fn matched(&self, query: &[String]) -> usize {
        query
            .iter()
            .filter(|t| self.terms.binary_search(t).is_ok())
            .count()
    }
}

/// A stored note with its analysed paragraphs.
#[derive(Debug, Clone)]
struct Entry {
    note: Note,
    paragraphs: Vec<Paragraph>,
}

impl Entry {
    fn new(note: Note) -> Self {
        let paragraphs = paragraphs(&note.text)
            .into_iter()
            .map(|text| Paragraph {
                terms: paragraph_terms(&text),
                text,
            })
            .collect();
        Entry { note, paragraphs }
    }
}

/// Consolidation notes by id, each paragraph pre-analysed for stage S6. Writes validate the
/// note first and change nothing on error.
#[derive(Debug, Clone, Default)]
pub struct NoteStore {
    notes: Keyed<Entry>,
}

impl NoteStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a new note. Errors: the note's validation error, or `already_exists`.
    pub fn insert(&mut self, note: Note) -> Result<()> {
        note.validate()?;
        if self.notes.contains_key(&note.id) {
            return Err(Error::AlreadyExists(format!(
                "a note with id \"{}\" already exists",
                note.id
            )));
        }
        self.notes.insert(note.id.clone(), Entry::new(note));
        Ok(())
    }

    /// Replaces the note with the same id. Errors: the note's validation error, or `not_found`.
    pub fn replace(&mut self, note: Note) -> Result<()> {
        note.validate()?;
        match self.notes.get_mut(&note.id) {
            Some(slot) => {
                *slot = Entry::new(note);
                Ok(())
            }
            None => Err(not_found(&note.id)),
        }
    }

    /// Removes and returns a note. Errors: `not_found`.
    pub fn remove(&mut self, id: &str) -> Result<Note> {
        self.notes
            .remove(id)
            .map(|e| e.note)
            .ok_or_else(|| not_found(id))
    }

    /// The note with this id.
    pub fn get(&self, id: &str) -> Option<&Note> {
        self.notes.get(id).map(|e| &e.note)
    }

    /// Every note, in ascending id order.
    pub fn iter(&self) -> impl Iterator<Item = &Note> {
        self.notes.values_sorted().map(|e| &e.note)
    }

    /// Number of notes.
    pub fn len(&self) -> usize {
        self.notes.len()
    }

    /// Whether the store holds no note.
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// Every note `scope` sees, in ascending id order.
    pub fn visible<'a>(&'a self, scope: Scope<'a>) -> impl Iterator<Item = &'a Note> {
        self.iter()
            .filter(move |n| scope.sees(n.user_id.as_deref(), n.classification))
    }

    /// Stage S6: paragraphs of the notes `scope` sees that overlap `window` (ms, inclusive;
    /// `None` = unbounded) and hold at least one non-trivial term of `query`, ranked,
    /// deduplicated and cut to `max` as the module doc describes. A NaN bound matches no note.
    ///
    /// ```
    /// use recallkit::notes::{Note, NoteStore, Period};
    /// use recallkit::store::Scope;
    /// let mut store = NoteStore::new();
    /// let text = "# Week 12\n\nWe migrated the project database to SQLite.";
    /// store.insert(Note::new("w12", Period::Weekly, 0.0, text, 0.0)).unwrap();
    /// let hits = store.search("what database does the project use?", (None, None), Scope::ALL, 5);
    /// assert_eq!(hits[0].text, "We migrated the project database to SQLite.");
    /// assert_eq!((hits[0].score, hits[0].matched_terms), (0.5, 2));
    /// ```
    pub fn search(
        &self,
        query: &str,
        window: (Option<f64>, Option<f64>),
        scope: Scope<'_>,
        max: usize,
    ) -> Vec<NoteHit> {
        let terms = query_terms(query);
        if terms.is_empty() || max == 0 {
            return Vec::new();
        }
        let mut hits = Vec::new();
        let searched = self.notes.values().filter(|e| {
            e.note.overlaps(window) && scope.sees(e.note.user_id.as_deref(), e.note.classification)
        });
        for entry in searched {
            for (index, paragraph) in entry.paragraphs.iter().enumerate() {
                let matched = paragraph.matched(&terms);
                if matched > 0 {
                    hits.push(hit(&entry.note, index, paragraph, matched));
                }
            }
        }
        // The order ends on (note id, paragraph), unique, so it is total and deterministic.
        sort::sort_by(&mut hits, |a, b| {
            b.matched_terms
                .cmp(&a.matched_terms)
                .then(b.start.total_cmp(&a.start))
                .then_with(|| a.note_id.cmp(&b.note_id))
                .then(a.paragraph.cmp(&b.paragraph))
        });
        let mut seen = HashSet::new();
        hits.retain(|h| seen.insert(dedup_key(&h.text, h.start)));
        hits.truncate(max);
        hits
    }
}

fn hit(note: &Note, index: usize, paragraph: &Paragraph, matched: usize) -> NoteHit {
    NoteHit {
        note_id: note.id.clone(),
        paragraph: u32::try_from(index).unwrap_or(u32::MAX),
        period: note.period,
        text: paragraph.text.clone(),
        start: note.start,
        score: S6_SCORE,
        matched_terms: u32::try_from(matched).unwrap_or(u32::MAX),
    }
}

/// The S6 deduplication key of a paragraph of a note starting at `start` (see the module doc).
pub fn dedup_key(paragraph: &str, start: f64) -> u64 {
    let prefix_end = paragraph
        .char_indices()
        .nth(DEDUP_PREFIX_CHARS)
        .map_or(paragraph.len(), |(i, _)| i);
    let mut h = Fnv1a64::new();
    h.write(&paragraph.as_bytes()[..prefix_end]);
    h.write(&[0xFF]);
    h.write(&start.to_bits().to_le_bytes());
    h.finish()
}

fn not_found(id: &str) -> Error {
    Error::NotFound(format!("no note with id \"{id}\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notes::note::DAY_MS;

    const WEEK_12: f64 = 1_710_720_000_000.0; // 2024-03-18T00:00:00Z

    fn note(id: &str, period: Period, start: f64, text: &str) -> Note {
        Note::new(id, period, start, text, start)
    }

    fn store(notes: &[Note]) -> NoteStore {
        let mut s = NoteStore::new();
        for n in notes {
            s.insert(n.clone()).unwrap();
        }
        s
    }

    fn texts(hits: &[NoteHit]) -> Vec<&str> {
        hits.iter().map(|h| h.text.as_str()).collect()
    }

    const ALL: (Option<f64>, Option<f64>) = (None, None);

    #[test]
    fn the_seed_query_finds_the_weekly_consolidation_that_mentions_the_database() {
        let s = store(&[
            note(
                "w1",
                Period::Weekly,
                WEEK_12,
                "## Week 12\n\nWe migrated the project database to SQLite.\n\nLunch was good.",
            ),
            note("d1", Period::Daily, WEEK_12, "Migrated to SQLite today."),
        ]);
        let hits = s.search("what database does the project use?", ALL, Scope::ALL, 10);
        assert_eq!(
            texts(&hits),
            ["We migrated the project database to SQLite."]
        );
        let h = &hits[0];
        assert_eq!(
            (h.note_id.as_str(), h.paragraph, h.period),
            ("w1", 0, Period::Weekly)
        );
        assert_eq!((h.score, h.start, h.matched_terms), (S6_SCORE, WEEK_12, 2));
        assert_eq!(h.period.stage_label(), "S6:weekly");
    }

    #[test]
    fn only_notes_overlapping_the_window_are_searched() {
        let s = store(&[
            note("a", Period::Daily, 0.0, "sqlite alpha"),
            note("b", Period::Daily, 10.0 * DAY_MS, "sqlite beta"),
        ]);
        let found = |w| texts(&s.search("sqlite", w, Scope::ALL, 10)).join(",");
        assert_eq!(found(ALL), "sqlite beta,sqlite alpha");
        // Closed intervals: the daily note "a" ends exactly where this window starts.
        assert_eq!(found((Some(DAY_MS), None)), "sqlite beta,sqlite alpha");
        assert_eq!(found((Some(DAY_MS + 1.0), None)), "sqlite beta");
        assert_eq!(found((None, Some(5.0 * DAY_MS))), "sqlite alpha");
        assert_eq!(found((Some(2.0 * DAY_MS), Some(3.0 * DAY_MS))), "");
        assert_eq!(found((Some(f64::NAN), None)), "");
    }

    #[test]
    fn identical_paragraphs_with_the_same_start_are_reported_once() {
        let s = store(&[
            note(
                "a",
                Period::Daily,
                WEEK_12,
                "Chose SQLite.\n\nChose SQLite.",
            ),
            note("b", Period::Weekly, WEEK_12, "Chose SQLite."),
            note("c", Period::Weekly, WEEK_12 + DAY_MS, "Chose SQLite."),
        ]);
        let hits = s.search("sqlite", ALL, Scope::ALL, 10);
        let ids: Vec<_> = hits
            .iter()
            .map(|h| (h.note_id.as_str(), h.paragraph))
            .collect();
        assert_eq!(ids, [("c", 0), ("a", 0)]);
    }

    #[test]
    fn dedup_looks_at_the_first_80_characters_only() {
        let head = "é".repeat(DEDUP_PREFIX_CHARS);
        assert_eq!(
            dedup_key(&format!("{head} one"), 1.0),
            dedup_key(&format!("{head} two"), 1.0)
        );
        assert_ne!(dedup_key(&head, 1.0), dedup_key(&head, 2.0));
        assert_ne!(dedup_key("ab", 0.0), dedup_key("a", 0.0));
    }

    #[test]
    fn stopword_only_queries_match_nothing() {
        let s = store(&[note(
            "a",
            Period::Daily,
            0.0,
            "What does the fox say? It is what it is.",
        )]);
        assert!(s.search("what does the", ALL, Scope::ALL, 10).is_empty());
        assert!(s.search("it's", ALL, Scope::ALL, 10).is_empty());
        assert!(s.search("?!", ALL, Scope::ALL, 10).is_empty());
        assert_eq!(s.search("fox", ALL, Scope::ALL, 10).len(), 1);
    }

    #[test]
    fn matching_ignores_case_and_diacritics_and_uses_stems() {
        let s = store(&[note(
            "a",
            Period::Daily,
            0.0,
            "Le CAFÉ a déménagé; deploying Tuesday",
        )]);
        assert_eq!(s.search("cafe", ALL, Scope::ALL, 10).len(), 1);
        assert_eq!(s.search("DEMENAGÉ", ALL, Scope::ALL, 10).len(), 1);
        assert_eq!(s.search("deployed", ALL, Scope::ALL, 10).len(), 1);
    }

    #[test]
    fn hits_rank_by_matched_terms_then_recency_then_paragraph_order() {
        let s = store(&[
            note(
                "old",
                Period::Daily,
                0.0,
                "sqlite\n\nsqlite database\n\nsqlite again",
            ),
            note("new", Period::Daily, DAY_MS, "database"),
        ]);
        let hits = s.search("sqlite database", ALL, Scope::ALL, 10);
        let order: Vec<_> = hits
            .iter()
            .map(|h| (h.note_id.as_str(), h.paragraph, h.matched_terms))
            .collect();
        assert_eq!(
            order,
            [("old", 1, 2), ("new", 0, 1), ("old", 0, 1), ("old", 2, 1)]
        );
        assert_eq!(s.search("sqlite database", ALL, Scope::ALL, 2).len(), 2);
        assert!(s.search("sqlite database", ALL, Scope::ALL, 0).is_empty());
    }

    #[test]
    fn insert_replace_and_remove_keep_ids_unique() {
        let mut s = NoteStore::new();
        assert!(s.is_empty());
        s.insert(note("a", Period::Daily, 0.0, "alpha")).unwrap();
        let e = s.insert(note("a", Period::Daily, 0.0, "beta")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "already_exists: a note with id \"a\" already exists"
        );
        s.replace(note("a", Period::Daily, 0.0, "gamma")).unwrap();
        assert_eq!(s.get("a").map(|n| n.text.as_str()), Some("gamma"));
        assert_eq!(s.search("alpha", ALL, Scope::ALL, 10).len(), 0);
        assert_eq!(s.search("gamma", ALL, Scope::ALL, 10).len(), 1);
        let e = s.replace(note("b", Period::Daily, 0.0, "x")).unwrap_err();
        assert_eq!(e.to_string(), "not_found: no note with id \"b\"");
        assert_eq!(s.remove("a").unwrap().text, "gamma");
        assert_eq!(s.remove("a").unwrap_err().code(), "not_found");
        assert_eq!(s.len(), 0);
    }

    #[test]
    fn invalid_notes_change_nothing() {
        let mut s = store(&[note("a", Period::Daily, 0.0, "alpha")]);
        let mut bad = note("a", Period::Daily, 0.0, "beta");
        bad.end = -1.0;
        assert_eq!(s.replace(bad).unwrap_err().code(), "invalid_argument");
        assert_eq!(s.get("a").map(|n| n.text.as_str()), Some("alpha"));
        assert_eq!(
            s.insert(note("b", Period::Daily, 0.0, ""))
                .unwrap_err()
                .code(),
            "invalid_argument"
        );
        assert_eq!(s.iter().map(|n| n.id.as_str()).collect::<Vec<_>>(), ["a"]);
    }

    fn owned(id: &str, user: Option<&str>, classification: i64, text: &str) -> Note {
        Note {
            user_id: user.map(str::to_owned),
            classification,
            ..note(id, Period::Daily, 0.0, text)
        }
    }

    #[test]
    fn a_note_of_one_user_never_reaches_another_users_search() {
        let s = store(&[
            owned("a", Some("alice"), 0, "sqlite alice"),
            owned("b", Some("bob"), 0, "sqlite bob"),
            owned("shared", None, 0, "sqlite shared"),
        ]);
        let found = |scope| texts(&s.search("sqlite", ALL, scope, 10)).join(",");
        assert_eq!(
            found(Scope::new(Some("alice"), None)),
            "sqlite alice,sqlite shared"
        );
        assert_eq!(
            found(Scope::new(Some("bob"), None)),
            "sqlite bob,sqlite shared"
        );
        assert_eq!(found(Scope::new(Some("carol"), None)), "sqlite shared");
        assert_eq!(found(Scope::ALL), "sqlite alice,sqlite bob,sqlite shared");
    }

    #[test]
    fn a_note_classified_above_the_ceiling_is_hidden() {
        let s = store(&[
            owned("low", None, 1, "sqlite low"),
            owned("high", None, 3, "sqlite high"),
        ]);
        let found = |max| texts(&s.search("sqlite", ALL, Scope::new(None, max), 10)).join(",");
        assert_eq!(found(Some(0)), "");
        assert_eq!(found(Some(2)), "sqlite low");
        assert_eq!(found(None), "sqlite high,sqlite low");
    }

    #[test]
    fn a_hidden_duplicate_never_takes_the_place_of_a_visible_paragraph() {
        // Same paragraph, same start: deduplication would keep only note "a" (first by id)
        // if hidden notes were deduplicated before being dropped.
        let s = store(&[
            owned("a", Some("alice"), 0, "Chose SQLite."),
            owned("b", Some("bob"), 0, "Chose SQLite."),
        ]);
        let hits = s.search("sqlite", ALL, Scope::new(Some("bob"), None), 1);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].note_id, "b");
        let ids: Vec<_> = s
            .visible(Scope::new(Some("bob"), None))
            .map(|n| n.id.as_str())
            .collect();
        assert_eq!(ids, ["b"]);
    }

    #[test]
    fn headings_alone_never_match() {
        let s = store(&[note(
            "a",
            Period::Daily,
            0.0,
            "# Database\n\nNothing else here.",
        )]);
        assert!(s.search("database", ALL, Scope::ALL, 10).is_empty());
    }
}
