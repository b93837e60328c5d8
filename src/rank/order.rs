//! The order results come back in, besides the score (AutoMem's `sort`, and its trending
//! order for a recall with no query).
//!
//! | `sort` | order |
//! |---|---|
//! | `score` (default) | the ranking's |
//! | `time_desc` / `time_asc` | `createdAt` newest / oldest first |
//! | `updated_desc` / `updated_asc` | `updatedAt` (else `createdAt`) newest / oldest first |
//!
//! A sort reorders the results the ranking chose (it does not choose others); equal times
//! keep the ranking's order, and results without a time (edges) go last. A recall with no
//! query and a time window sorts by `time_desc` unless told otherwise.
//!
//! Trending ([`trending_order`]): importance first (absent: [`DEFAULT_IMPORTANCE`]), then the
//! newest `createdAt`, then the most recalled, then ascending `DocId`. A recall needs only the
//! head of that order, which [`trending_best`] finds by selection on integer keys, without
//! sorting every memory.

use std::cmp::Ordering;

use super::Candidate;
use crate::error::{Error, Result};
use crate::sort::{asc_key, desc_key, order_by, select_pairs, sort_pairs, sort_u32};

/// The importance of a memory that has none, for trending (AutoMem's default importance).
pub const DEFAULT_IMPORTANCE: f64 = 0.5;

/// How results are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// By score (the ranking's order).
    #[default]
    Score,
    /// Newest `createdAt` first.
    TimeDesc,
    /// Oldest `createdAt` first.
    TimeAsc,
    /// Newest `updatedAt` first.
    UpdatedDesc,
    /// Oldest `updatedAt` first.
    UpdatedAsc,
}

impl Sort {
    /// Parses `score`, `time_desc`, `time_asc`, `updated_desc` or `updated_asc`.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "score" => Sort::Score,
            "time_desc" => Sort::TimeDesc,
            "time_asc" => Sort::TimeAsc,
            "updated_desc" => Sort::UpdatedDesc,
            "updated_asc" => Sort::UpdatedAsc,
            other => {
                return Err(Error::InvalidArgument(format!(
                "sort must be \"score\", \"time_desc\", \"time_asc\", \"updated_desc\" or \"updated_asc\", got \"{other}\""
            )))
            }
        })
    }

    /// The time this sort reads of a candidate, if it sorts by time.
    fn time(self, c: &Candidate) -> Option<f64> {
        match self {
            Sort::Score => None,
            Sort::TimeDesc | Sort::TimeAsc => c.created_at,
            Sort::UpdatedDesc | Sort::UpdatedAsc => c.updated_at.or(c.created_at),
        }
    }

    /// Whether newest comes first.
    fn descending(self) -> bool {
        matches!(self, Sort::TimeDesc | Sort::UpdatedDesc)
    }
}

/// Reorders `cands` by `sort` (module doc); stable.
pub fn sort(cands: &mut Vec<Candidate>, sort: Sort) {
    if sort == Sort::Score {
        return;
    }
    let cmp = |a: &Candidate, b: &Candidate| match (sort.time(a), sort.time(b)) {
        (Some(x), Some(y)) if sort.descending() => y.total_cmp(&x),
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    let order = order_by(cands.len(), &mut |a, b| cmp(&cands[a], &cands[b]));
    let mut slots: Vec<Option<Candidate>> = cands.drain(..).map(Some).collect();
    cands.extend(order.into_iter().filter_map(|i| slots[i as usize].take()));
}

/// What trending reads of a memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrendingFacts {
    /// Importance, if set.
    pub importance: Option<f64>,
    /// Creation time (ms).
    pub created_at: f64,
    /// Recall count.
    pub recall_count: u32,
    /// Last update time (ms).
    pub updated_at: f64,
}

/// Compares two memories in trending order (module doc), or by time for a time `sort`;
/// equal memories compare equal (the callers keep them in `DocId` order).
fn trending_cmp(a: &TrendingFacts, b: &TrendingFacts, sort: Sort) -> Ordering {
    let importance = |f: &TrendingFacts| f.importance.unwrap_or(DEFAULT_IMPORTANCE);
    match sort {
        Sort::Score => importance(b)
            .total_cmp(&importance(a))
            .then(b.created_at.total_cmp(&a.created_at))
            .then(b.recall_count.cmp(&a.recall_count)),
        Sort::TimeDesc => b.created_at.total_cmp(&a.created_at),
        Sort::TimeAsc => a.created_at.total_cmp(&b.created_at),
        Sort::UpdatedDesc => b.updated_at.total_cmp(&a.updated_at),
        Sort::UpdatedAsc => a.updated_at.total_cmp(&b.updated_at),
    }
}

/// Positions of `facts` in trending order (module doc), or by time for a time `sort`;
/// `facts` is in ascending `DocId` order, so equal memories stay in it.
///
/// The full order, one dynamic comparison per step ([`order_by`]): a recall reads only its
/// head, through [`trending_best`]; this is the reference that one is tested against.
pub fn trending_order(facts: &[TrendingFacts], sort: Sort) -> Vec<u32> {
    order_by(facts.len(), &mut |a, b| {
        trending_cmp(&facts[a], &facts[b], sort)
    })
}

/// The `level`-th integer key of `f` in `sort`'s order: ascending keys, level by level, then
/// the position, are [`trending_cmp`]'s order ([`desc_key`] and [`asc_key`] keep
/// `total_cmp`'s). Levels run `0..trending_levels(sort)`.
fn trending_key(f: &TrendingFacts, sort: Sort, level: usize) -> u64 {
    let (value, descending) = match (sort, level) {
        (Sort::Score, 0) => (f.importance.unwrap_or(DEFAULT_IMPORTANCE), true),
        (Sort::Score, 1) | (Sort::TimeDesc | Sort::TimeAsc, _) => {
            (f.created_at, sort != Sort::TimeAsc)
        }
        (Sort::Score, _) => return u64::from(u32::MAX - f.recall_count),
        (Sort::UpdatedDesc | Sort::UpdatedAsc, _) => (f.updated_at, sort == Sort::UpdatedDesc),
    };
    if descending {
        desc_key(value)
    } else {
        asc_key(value)
    }
}

/// How many keys [`trending_key`] gives in `sort`'s order.
fn trending_levels(sort: Sort) -> usize {
    if sort == Sort::Score {
        3
    } else {
        1
    }
}

/// The first `m` positions of [`trending_order`] (all of it when `m` reaches `facts.len()`),
/// in that order, without sorting the rest.
///
/// A selection per key ([`select_pairs`] on `(key, position)`, linear on average): the pairs
/// below the `m`-th key are in, those above it out, and only the ones equal to it go on to
/// the next key (a few, unless many memories share an importance and a `createdAt`); at the
/// last key the position breaks ties, as in the full order. The `m` chosen are then sorted
/// by the same keys ([`sort_pairs`], the last key first, ties kept in the previous order), so
/// they come out exactly as in the full order.
pub fn trending_best(facts: &[TrendingFacts], sort: Sort, m: usize) -> Vec<u32> {
    let mut chosen: Vec<u32> = Vec::new();
    let mut pairs: Vec<(u64, u32)> = Vec::with_capacity(facts.len());
    for position in 0..facts.len() as u32 {
        pairs.push((0, position));
    }
    // `pairs` holds the positions still in question, `m - chosen.len()` of which are in.
    for level in 0..trending_levels(sort) {
        let need = m.saturating_sub(chosen.len());
        for p in &mut pairs {
            p.0 = trending_key(&facts[p.1 as usize], sort, level);
        }
        if need == 0 || pairs.len() <= need {
            break;
        }
        select_pairs(&mut pairs, need - 1);
        if level + 1 == trending_levels(sort) {
            break;
        }
        // Below the bar: in; at it: in question at the next key; above it: out.
        let bar = pairs[need - 1].0;
        let mut tied = 0;
        for i in 0..pairs.len() {
            let (key, position) = pairs[i];
            if key < bar {
                chosen.push(position);
            } else if key == bar {
                pairs[tied] = (key, position);
                tied += 1;
            }
        }
        pairs.truncate(tied);
    }
    pairs.truncate(m.saturating_sub(chosen.len()));
    for &(_, position) in &pairs {
        chosen.push(position);
    }
    // Ordered a key at a time, the last first, each sort keeping the previous order for ties
    // (ascending position to begin with): the full order's, on integers.
    sort_u32(&mut chosen);
    let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(chosen.len());
    let mut previous = Vec::with_capacity(chosen.len());
    for level in (0..trending_levels(sort)).rev() {
        keyed.clear();
        for (rank, &position) in chosen.iter().enumerate() {
            keyed.push((
                trending_key(&facts[position as usize], sort, level),
                rank as u32,
            ));
        }
        sort_pairs(&mut keyed);
        std::mem::swap(&mut chosen, &mut previous);
        chosen.clear();
        for &(_, rank) in &keyed {
            chosen.push(previous[rank as usize]);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::CandidateKey;
    use crate::store::DocId;

    fn cand(doc: u32, created: Option<f64>, updated: Option<f64>) -> Candidate {
        let mut c = Candidate::new(CandidateKey::Memory(DocId(doc)), "Sf:porter", 0.0, "");
        c.created_at = created;
        c.updated_at = updated;
        c
    }

    fn docs(cands: &[Candidate]) -> Vec<u32> {
        (cands.iter())
            .map(|c| match c.key {
                CandidateKey::Memory(d) => d.0,
                _ => u32::MAX,
            })
            .collect()
    }

    #[test]
    fn sorts_by_time_keeping_score_order_for_ties_and_untimed_last() {
        let make = || {
            vec![
                cand(0, Some(2.0), None),
                cand(1, None, None),
                cand(2, Some(3.0), Some(1.0)),
                cand(3, Some(2.0), Some(9.0)),
            ]
        };
        let mut c = make();
        sort(&mut c, Sort::Score);
        assert_eq!(docs(&c), [0, 1, 2, 3]);
        sort(&mut c, Sort::TimeDesc);
        assert_eq!(docs(&c), [2, 0, 3, 1]);
        let mut c = make();
        sort(&mut c, Sort::TimeAsc);
        assert_eq!(docs(&c), [0, 3, 2, 1]);
        let mut c = make();
        sort(&mut c, Sort::UpdatedDesc);
        assert_eq!(docs(&c), [3, 0, 2, 1]);
        let mut c = make();
        sort(&mut c, Sort::UpdatedAsc);
        assert_eq!(docs(&c), [2, 0, 3, 1]);
    }

    #[test]
    fn trending_is_importance_then_recency_then_recalls() {
        let f = |importance, created_at, recall_count| TrendingFacts {
            importance,
            created_at,
            recall_count,
            updated_at: -created_at,
        };
        let facts = [
            f(None, 5.0, 0),
            f(Some(0.9), 1.0, 0),
            f(Some(0.5), 5.0, 3),
            f(Some(0.9), 2.0, 0),
            f(Some(0.9), 2.0, 0),
        ];
        assert_eq!(trending_order(&facts, Sort::Score), [3, 4, 1, 2, 0]);
        assert_eq!(trending_order(&facts, Sort::TimeDesc), [0, 2, 3, 4, 1]);
        assert_eq!(trending_order(&facts, Sort::UpdatedDesc), [1, 3, 4, 0, 2]);
    }

    #[test]
    fn sort_names_are_checked() {
        assert_eq!(Sort::parse("updated_asc").unwrap(), Sort::UpdatedAsc);
        let e = Sort::parse("newest").unwrap_err();
        assert!(e.to_string().starts_with("invalid_argument: sort must be"));
    }

    /// Random facts with many ties: few importances (some absent), few times, few counts.
    fn tied_facts(rng: &mut crate::test_support::SplitMix64, n: usize) -> Vec<TrendingFacts> {
        let importances = [None, Some(0.5), Some(0.9), Some(0.1), Some(-0.0), Some(0.0)];
        (0..n)
            .map(|_| TrendingFacts {
                importance: importances[rng.index(importances.len())],
                created_at: rng.below(6) as f64,
                recall_count: rng.below(3) as u32,
                updated_at: rng.below(4) as f64,
            })
            .collect()
    }

    #[test]
    fn trending_best_is_the_head_of_the_full_trending_order_in_every_sort() {
        let mut rng = crate::test_support::SplitMix64(23);
        let sorts = [
            Sort::Score,
            Sort::TimeDesc,
            Sort::TimeAsc,
            Sort::UpdatedDesc,
            Sort::UpdatedAsc,
        ];
        for n in [0, 1, 2, 5, 17, 40, 130] {
            for _ in 0..4 {
                let facts = tied_facts(&mut rng, n);
                for sort in sorts {
                    let full = trending_order(&facts, sort);
                    for m in (0..=n + 2).chain([usize::MAX]) {
                        let head = &full[..m.min(n)];
                        assert_eq!(trending_best(&facts, sort, m), head, "{sort:?} n {n} m {m}");
                    }
                }
            }
        }
    }
}
