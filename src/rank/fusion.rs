//! Reciprocal Rank Fusion (Memoria's fusion, `docs/design-sources.md` §4): several ranked lists
//! merged by rank alone, so the lists' score scales never need to agree.
//!
//! ```text
//! score(d) = Σ over lists containing d:  1 / (k + rank(d))      rank 1-based, k = 60
//! ```
//!
//! # Invariants
//!
//! - The output holds every distinct key of the input once, by descending fused score.
//! - Ties keep the order of first appearance: reading list 0 from top to bottom, then list 1,
//!   and so on. The output is thus deterministic whatever the hash of `K`.
//! - A key repeated within one list counts once, at its best (first) rank there.
//! - `k` must be finite and ≥ 0; any other value (NaN, negative, infinite) means
//!   [`DEFAULT_RRF_K`], so that no rank can divide by zero.
//!
//! Reference: G. Cormack, C. Clarke, S. Büttcher, "Reciprocal Rank Fusion outperforms
//! Condorcet and individual Rank Learning Methods", SIGIR 2009 (k = 60).

use crate::sort;
use std::collections::HashMap;
use std::hash::Hash;

/// The standard RRF constant (Cormack et al. 2009; Memoria's).
pub const DEFAULT_RRF_K: f64 = 60.0;

/// One list's share of a candidate's RRF score: `1 / (k + rank)`, `rank` 1-based.
pub fn contribution(rank: f64, k: f64) -> f64 {
    1.0 / (k + rank)
}

/// Fuses ranked `lists` (best first) into one list of `(key, fused score)`, best first (see
/// the module doc).
///
/// ```
/// use recallkit::rank::fusion::rrf;
/// let fused = rrf(&[vec!["a", "b"], vec!["b", "c"]], 60.0);
/// let keys: Vec<&str> = fused.iter().map(|(k, _)| *k).collect();
/// assert_eq!(keys, ["b", "a", "c"]);
/// assert_eq!(fused[0].1, 1.0 / 62.0 + 1.0 / 61.0);
/// ```
pub fn rrf<K: Eq + Hash + Clone>(lists: &[Vec<K>], k: f64) -> Vec<(K, f64)> {
    let k = if k.is_finite() && k >= 0.0 {
        k
    } else {
        DEFAULT_RRF_K
    };
    // Keys in order of first appearance, with their fused score and the last list that
    // scored them (to count a key once per list).
    let mut fused: Vec<(K, f64, usize)> = Vec::new();
    let mut slot: HashMap<K, usize> = HashMap::new();
    for (list_index, list) in lists.iter().enumerate() {
        for (position, key) in list.iter().enumerate() {
            let contribution = contribution((position + 1) as f64, k);
            match slot.get(key) {
                Some(&i) => {
                    let entry = &mut fused[i];
                    if entry.2 != list_index {
                        entry.1 += contribution;
                        entry.2 = list_index;
                    }
                }
                None => {
                    slot.insert(key.clone(), fused.len());
                    fused.push((key.clone(), contribution, list_index));
                }
            }
        }
    }
    // Stable: equal scores keep first-appearance order. Through the shared key sort, so each
    // `K` adds no copy of std's sort.
    let mut order = sort::order_by_key(fused.iter().map(|f| sort::desc_key(f.1)));
    sort::permute(&mut fused, &mut order);
    fused
        .into_iter()
        .map(|(key, score, _)| (key, score))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::SplitMix64;

    #[test]
    fn fuses_three_lists_with_hand_computed_scores() {
        // dense: a b c; sparse: c a d; graph: d.
        let lists = vec![vec!['a', 'b', 'c'], vec!['c', 'a', 'd'], vec!['d']];
        let fused = rrf(&lists, DEFAULT_RRF_K);
        let a = 1.0 / 61.0 + 1.0 / 62.0; // 0.032522…
        let c = 1.0 / 63.0 + 1.0 / 61.0; // 0.032266…
        let d = 1.0 / 63.0 + 1.0 / 61.0; // same as c: c appeared first
        let b = 1.0 / 62.0; // 0.016129…
        let keys: Vec<char> = fused.iter().map(|e| e.0).collect();
        assert_eq!(keys, ['a', 'c', 'd', 'b']);
        for ((_, got), want) in fused.iter().zip([a, c, d, b]) {
            assert_close!(*got, want);
        }
        assert_close!(fused[0].1, 0.032_522_474_881_015_34, 1e-15);
    }

    #[test]
    fn uses_the_given_k() {
        let fused = rrf(&[vec![1, 2], vec![2]], 0.0);
        assert_eq!(fused, [(2, 1.5), (1, 1.0)]);
        let fused = rrf(&[vec![1, 2], vec![2]], 1.0);
        assert_eq!(fused, [(2, 1.0 / 3.0 + 0.5), (1, 0.5)]);
    }

    #[test]
    fn breaks_ties_by_first_appearance() {
        let fused = rrf(&[vec!["x", "y"], vec!["y", "x"]], 60.0);
        assert_eq!(fused[0].0, "x");
        assert_eq!(fused[1].0, "y");
        assert_eq!(fused[0].1, fused[1].1);
        let fused = rrf(&[vec!["p"], vec!["q"], vec!["r"]], 60.0);
        let keys: Vec<&str> = fused.iter().map(|e| e.0).collect();
        assert_eq!(keys, ["p", "q", "r"]);
    }

    #[test]
    fn counts_a_repeated_key_once_per_list_at_its_first_rank() {
        let fused = rrf(&[vec![7, 7, 8]], 60.0);
        assert_eq!(fused, [(7, 1.0 / 61.0), (8, 1.0 / 63.0)]);
    }

    #[test]
    fn falls_back_to_the_default_k_for_invalid_values() {
        let lists = vec![vec![1, 2]];
        let expected = rrf(&lists, DEFAULT_RRF_K);
        for k in [f64::NAN, -1.0, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(rrf(&lists, k), expected, "k = {k}");
        }
        assert!(rrf::<u8>(&[], 60.0).is_empty());
        assert!(rrf::<u8>(&[vec![], vec![]], 60.0).is_empty());
    }

    #[test]
    fn property_agrees_with_a_quadratic_oracle() {
        let seed = 0x0000_4ff0;
        let mut rng = SplitMix64(seed);
        for case in 0..300 {
            let lists: Vec<Vec<u32>> = (0..rng.below(5))
                .map(|_| (0..rng.below(12)).map(|_| rng.below(15) as u32).collect())
                .collect();
            // Oracle: keys in first-appearance order, each scored list by list.
            let mut keys: Vec<u32> = Vec::new();
            for &key in lists.iter().flatten() {
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
            let score = |key: u32| -> f64 {
                lists
                    .iter()
                    .filter_map(|l| l.iter().position(|&x| x == key))
                    .map(|p| 1.0 / (60.0 + (p + 1) as f64))
                    .sum()
            };
            let mut oracle: Vec<(u32, f64)> = keys.iter().map(|&k| (k, score(k))).collect();
            oracle.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
            let fused = rrf(&lists, 60.0);
            assert_eq!(fused.len(), oracle.len(), "seed {seed:#x}, case {case}");
            for (got, want) in fused.iter().zip(&oracle) {
                assert_eq!(got.0, want.0, "seed {seed:#x}, case {case}");
                assert_close!(got.1, want.1);
            }
        }
    }
}
