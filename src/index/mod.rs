//! Indexes: an inverted index with FTS5-exact BM25 scoring, and a trigram index over the
//! vocabulary of distinct terms for substring and typo-tolerant lookups. Indexes build and
//! answer queries; ranking policy lives in `recall` and `rank`.

pub mod bm25;
pub mod fuzzy;
pub mod postings;
pub mod trigram;
