//! What the stages found out about one candidate, each piece on a scale that means the same
//! in every query and every store size, so that the ranking models of [`super::model`] can
//! weigh them against each other.
//!
//! | evidence | from | value in `[0, 1]` |
//! |---|---|---|
//! | `lexical` | Sf | the share of the query the memory matches: the sub-query's raw BM25 divided by the query's weight, `Σ idf` of its content words (the score of a memory holding each once at the average length), the better of porter and trigram, at most 1; the `recallkit` model mixes in `exact` |
//! | `semantic` | Se | the cosine against the query's own background ([`SemanticScale`]): `clamp((z − 1) / 7)` with `z = (cos − mean) / sd` over every stored vector |
//! | `signature` | Ss | `(similarity − 0.5) / 0.5`: a random pair of signatures agrees on half of the bits |
//! | `graph` | S8 | `strength × coverage` of the best edge citing the memory in its `memoryIds` |
//! | `exact` | text | the share of the query's content words found in the text as words (AutoMem's "exact" component) |
//!
//! Raw values (`porter`, `trigram`, `cosine`, `similarity`) and each stage's 1-based rank
//! are kept beside them, for explanations and for rank fusion.
//!
//! # Why these scales
//!
//! - **Lexical.** FTS5's absolute BM25 depends on the store: in a store of three memories a
//!   word in two of them has the token idf 1e-6, and `raw / (raw + 1)` is then ~0 for a memory
//!   that holds the whole query. Dividing by the query's own weight cancels the store's idf
//!   scale: holding every content word once gives ~1 whatever the store, holding the words
//!   that carry half the idf gives ~0.5.
//! - **Semantic.** Raw cosines are model-specific (MiniLM's related pairs sit at 0.3–0.6,
//!   nomic's higher) and query-specific. Stage Se scans every stored vector anyway, so it
//!   measures what "unrelated" looks like for this query in this store, the mean and standard
//!   deviation of all cosines, at the cost of two additions per row. A memory one standard
//!   deviation above the background counts for nothing, eight or more above counts fully
//!   (LoCoMo dev, hybrid R@10: full at 4 sd 0.624, at 6 sd 0.661, at 8 sd 0.667, with the
//!   other defaults; starting at 0, 1 or 2 sd changes it by 0.003).
//!   The store sees its own vectors; no threshold fits one model.
//!   Chosen on the LoCoMo dev half (`bench/locomo/sweep.mjs`, docs/quality.md).

use crate::text;

/// A random pair of 256-bit signatures agrees on half of the bits.
pub const SIGNATURE_CHANCE: f64 = 0.5;
/// Standard deviations above the query's background at which semantic evidence starts.
pub const SEMANTIC_Z_START: f64 = 2.0;
/// … and at which it is full.
pub const SEMANTIC_Z_FULL: f64 = 8.0;
/// Vectors of background a store needs before its own statistics are trusted: below, they
/// are blended with [`PRIOR_MEAN`] and [`PRIOR_SD`] (weights `n` and this).
pub const PRIOR_WEIGHT: f64 = 32.0;
/// Background cosine assumed before a store has vectors to measure: unrelated texts.
pub const PRIOR_MEAN: f64 = 0.0;
/// Spread assumed before a store has vectors to measure.
pub const PRIOR_SD: f64 = 0.15;

/// Every piece of evidence about one candidate (module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Evidence {
    /// FTS5 bm25 of `Sf:porter`, when it found the memory.
    pub porter: Option<f64>,
    /// Trigram BM25 of `Sf:trigram_en` / `Sf:trigram_orig`, when one found the memory.
    pub trigram: Option<f64>,
    /// Share of the query matched, `[0, 1]`.
    pub lexical: f64,
    /// 1-based rank in stage Sf's list (by `lexical`).
    pub sf_rank: Option<u32>,
    /// Cosine with the query, when both have vectors.
    pub cosine: Option<f64>,
    /// The cosine against the query's background, `[0, 1]`.
    pub semantic: f64,
    /// 1-based rank in stage Se's list.
    pub se_rank: Option<u32>,
    /// Hamming similarity of the signatures, when stage Ss found the memory.
    pub similarity: Option<f64>,
    /// `(similarity − 0.5) / 0.5`, `[0, 1]`.
    pub signature: f64,
    /// 1-based rank in stage Ss's list.
    pub ss_rank: Option<u32>,
    /// `strength × coverage` of the best matching edge citing the memory, `[0, 1]`.
    pub graph: f64,
    /// 1-based rank in stage S8's list (memories: of the best edge citing them).
    pub s8_rank: Option<u32>,
    /// 1-based rank in stage S6's list (note paragraphs).
    pub s6_rank: Option<u32>,
    /// Share of the query's content words present in the text, `[0, 1]`.
    pub exact: f64,
}

/// The background of one query's cosines: mean and standard deviation over every stored
/// vector (module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SemanticScale {
    /// Mean cosine, blended with [`PRIOR_MEAN`].
    pub mean: f64,
    /// Standard deviation, blended with [`PRIOR_SD`], at least 1e-3.
    pub sd: f64,
}

impl SemanticScale {
    /// From the count, sum and sum of squares of the cosines of a scan.
    pub fn from_moments(count: usize, sum: f64, sum_sq: f64) -> Self {
        let n = count as f64;
        let (mean, var) = if count > 0 {
            let mean = sum / n;
            (mean, (sum_sq / n - mean * mean).max(0.0))
        } else {
            (PRIOR_MEAN, 0.0)
        };
        let w = n / (n + PRIOR_WEIGHT);
        let mean = w * mean + (1.0 - w) * PRIOR_MEAN;
        let sd = (w * var + (1.0 - w) * PRIOR_SD * PRIOR_SD).sqrt().max(1e-3);
        SemanticScale { mean, sd }
    }

    /// A cosine as semantic evidence in `[0, 1]`, from [`SEMANTIC_Z_START`] to
    /// [`SEMANTIC_Z_FULL`] standard deviations above the mean; NaN gives 0.
    pub fn evidence(&self, cosine: f64) -> f64 {
        self.evidence_between(cosine, SEMANTIC_Z_START, SEMANTIC_Z_FULL)
    }

    /// [`evidence`](Self::evidence) from `from` to `full` standard deviations.
    pub fn evidence_between(&self, cosine: f64, from: f64, full: f64) -> f64 {
        let z = (cosine - self.mean) / self.sd;
        let e = (z - from) / (full - from);
        if e.is_nan() {
            0.0
        } else {
            e.clamp(0.0, 1.0)
        }
    }
}

/// A signature similarity as evidence in `[0, 1]`: `(similarity − 0.5) / 0.5`.
pub fn signature_evidence(similarity: f64) -> f64 {
    let e = (similarity - SIGNATURE_CHANCE) / (1.0 - SIGNATURE_CHANCE);
    if e.is_nan() {
        0.0
    } else {
        e.clamp(0.0, 1.0)
    }
}

/// The query's distinct content terms (porter stems of the words that are not stopwords), for
/// [`coverage`]. Empty for a query of stopwords.
pub fn query_terms(query: &str) -> Vec<String> {
    // The same terms as stage S6 looks up: one tokenizer and stemmer loop in the wasm.
    crate::notes::keywords::query_terms(query)
}

/// The share of `terms` (from [`query_terms`]) that `text` holds as words (after the same
/// folding and stemming), in `[0, 1]`; 0 when `terms` is empty.
///
/// Only tokens whose first byte starts some query term are stemmed: the Porter stemmer never
/// changes a word's first letter, so the others cannot match (most of a memory's words).
pub fn coverage(terms: &[String], text: &str) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let mut stemmer = text::Stemmer::new();
    let mut found = vec![false; terms.len()];
    text::tokenize::for_each_token(text, |token| {
        let first = token.as_bytes().first();
        if !terms.iter().any(|t| t.as_bytes().first() == first) {
            return;
        }
        let term = text::term_of_token(token, &mut stemmer);
        if let Some(i) = terms.iter().position(|t| *t == *term) {
            found[i] = true;
        }
    });
    found.iter().filter(|&&f| f).count() as f64 / terms.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantic_evidence_is_measured_against_the_query_background() {
        // Cosines around 0.1 with sd 0.05: 0.2 is two sd above (nothing), 0.5 eight (full).
        let scale = SemanticScale {
            mean: 0.1,
            sd: 0.05,
        };
        assert_close!(scale.evidence(0.2), 0.0, 1e-9);
        assert_close!(scale.evidence(0.3), 2.0 / 6.0, 1e-9);
        assert_close!(scale.evidence(0.5), 1.0, 1e-9);
        assert_close!(scale.evidence(0.05), 0.0);
        assert_close!(scale.evidence(f64::NAN), 0.0);
        // A model whose unrelated pairs sit at 0.5 gets the same evidence from its own scale.
        let high = SemanticScale {
            mean: 0.5,
            sd: 0.05,
        };
        assert_close!(high.evidence(0.9), 1.0, 1e-9);
        assert_close!(high.evidence(0.6), 0.0, 1e-9);
    }

    #[test]
    fn small_stores_lean_on_the_prior() {
        let empty = SemanticScale::from_moments(0, 0.0, 0.0);
        assert_close!(empty.mean, PRIOR_MEAN);
        assert_close!(empty.sd, PRIOR_SD);
        // Two cosines say little about the spread: the prior keeps it wide, so the memory
        // whose text is the query (cosine 1) is strong evidence and the other (0.2) weak.
        let two = SemanticScale::from_moments(2, 0.2 + 1.0, 0.04 + 1.0);
        // (z ≈ 5.5 against the blended background: evidence 0.59.)
        assert!(two.evidence(1.0) > 0.5, "{two:?}");
        assert!(two.evidence(0.2) < 0.05, "{two:?}");
        let many = SemanticScale::from_moments(10_000, 1_000.0, 10_000.0 * (0.01 + 0.0025));
        assert_close!(many.mean, 0.1 * 10_000.0 / 10_032.0, 1e-9);
    }

    #[test]
    fn signature_evidence_starts_above_chance() {
        assert_close!(signature_evidence(0.5), 0.0);
        assert_close!(signature_evidence(0.75), 0.5);
        assert_close!(signature_evidence(1.0), 1.0);
        assert_close!(signature_evidence(0.2), 0.0);
    }

    #[test]
    fn coverage_counts_distinct_content_words_after_stemming() {
        let terms = query_terms("What database does the project use?");
        assert!(terms.contains(&"databas".to_string()), "{terms:?}");
        assert!(!terms.iter().any(|t| t == "the"));
        assert_close!(
            coverage(&terms, "The projects' databases"),
            2.0 / terms.len() as f64
        );
        assert_close!(coverage(&[], "anything"), 0.0);
        // The same as stemming every word.
        let text = "Yesterday's deployments; rebuilding databases, happily agreed";
        let every = |terms: &[String]| {
            let mut n = 0;
            for t in terms {
                n += usize::from(text::terms(text).contains(t));
            }
            n as f64 / terms.len() as f64
        };
        for q in [
            "yesterday deploy",
            "databases agreeing happy",
            "rebuild zebra",
        ] {
            let terms = query_terms(q);
            assert_close!(coverage(&terms, text), every(&terms));
        }
        assert_close!(coverage(&terms, ""), 0.0);
    }
}
