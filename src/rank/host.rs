//! The host's reranker (Memoria's fusion, `docs/design-sources.md` §4): the top [`RERANK_DEPTH`]
//! fused candidates, re-scored by a model the host runs (a cross-encoder reading the query and each
//! text together), then cut to the recall's limit.
//!
//! # Rule
//!
//! - The candidates arrive in fused order, at most [`RERANK_DEPTH`] of them (or the recall's
//!   limit, if larger), after every boost, `minScore` and MMR.
//! - Each gets the host's score as component `rerank`; they are reordered by it, highest
//!   first; equal scores keep the fused order (the sort is stable).
//! - `score` stays the fused score: it is calibrated (`[0, 1]` for the default ranking) and
//!   `minScore` was judged on it, while a reranker's scale is its own (logits, probabilities).
//!   So with a reranker, results are in the reranker's order, not necessarily by `score`.
//! - The first `limit` are kept.
//!
//! When the reranker fails, times out or answers badly, the host passes no scores and the
//! fused order stands ([`apply`] is not called; the stage report says why).

use super::Candidate;
use crate::sort;

/// Fused candidates handed to the host's reranker (Memoria: "the top 30 fused candidates").
pub const RERANK_DEPTH: usize = 30;

/// Orders `cands` by the host's `scores` (one per candidate, same order; finite), highest
/// first, ties in the fused order, records each as component `rerank` and keeps the first
/// `limit`. Returns `None`, changing nothing, when `scores` does not have one finite number
/// per candidate.
pub fn apply(cands: &mut Vec<Candidate>, scores: &[f64], limit: usize) -> Option<()> {
    if scores.len() != cands.len() || scores.iter().any(|s| !s.is_finite()) {
        return None;
    }
    for (c, &s) in cands.iter_mut().zip(scores) {
        c.components.push(("rerank", s));
    }
    let mut order = sort::order_by_key(scores.iter().map(|&s| sort::desc_key(s)));
    sort::permute(cands, &mut order);
    cands.truncate(limit);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::CandidateKey;
    use crate::store::DocId;

    fn cands(n: u32) -> Vec<Candidate> {
        (0..n)
            .map(|i| {
                let mut c = Candidate::new(CandidateKey::Memory(DocId(i)), "Sf", 1.0, "t");
                c.score = 1.0 - f64::from(i) / 100.0;
                c
            })
            .collect()
    }

    fn docs(cands: &[Candidate]) -> Vec<u32> {
        cands
            .iter()
            .map(|c| match c.key {
                CandidateKey::Memory(d) => d.0,
                _ => u32::MAX,
            })
            .collect()
    }

    #[test]
    fn the_reranker_decides_the_order_and_the_limit_cuts_after_it() {
        let mut c = cands(4);
        apply(&mut c, &[0.1, 0.9, -3.0, 0.5], 3).unwrap();
        assert_eq!(docs(&c), [1, 3, 0]);
        assert_eq!(c[0].components.last(), Some(&("rerank", 0.9)));
        assert!(
            (c[0].score - 0.99).abs() < 1e-12,
            "score stays the fused score"
        );
    }

    #[test]
    fn equal_reranker_scores_keep_the_fused_order() {
        let mut c = cands(3);
        apply(&mut c, &[0.5, 0.5, 0.7], 10).unwrap();
        assert_eq!(docs(&c), [2, 0, 1]);
    }

    #[test]
    fn scores_of_the_wrong_length_or_not_finite_change_nothing() {
        let mut c = cands(3);
        assert!(apply(&mut c, &[0.5, 0.5], 10).is_none());
        assert!(apply(&mut c, &[0.5, f64::NAN, 1.0], 10).is_none());
        assert_eq!(docs(&c), [0, 1, 2]);
        assert!(c.iter().all(|c| c.components.is_empty()));
    }
}
