//! Indexes: an inverted index with FTS5-exact BM25 scoring, and a trigram index over the
//! vocabulary of distinct terms for substring and typo-tolerant lookups. Indexes build and
//! answer queries; ranking policy lives in `recall` and `rank`.

pub mod bm25;
pub mod fuzzy;
pub mod porter;
pub mod postings;
pub mod trigram;

use std::collections::TryReserveError;

/// Makes room for `additional` more items, growing the vector by a quarter of its capacity
/// (at least 2) where `Vec` would double it: still amortised O(1) per push, with at most a
/// fifth of the capacity unused (a tenth on average) instead of up to half (a quarter).
/// Posting lists, trigram lists and the tables that grow with the vocabulary or with the
/// documents use it (the vocabulary's `String` arena through [`quarter_growth`]); their spare
/// room was a tenth of a store's memory. On failure the vector is unchanged (a later push
/// then grows it the usual way, or fails as it would have).
pub(crate) fn grow_by_quarter<T>(
    table: &mut Vec<T>,
    additional: usize,
) -> Result<(), TryReserveError> {
    match quarter_growth(table.len(), table.capacity(), additional) {
        Some(reserve) => table.try_reserve_exact(reserve),
        None => Ok(()),
    }
}

/// The `try_reserve_exact` argument of [`grow_by_quarter`] for a table of `len` items and
/// `capacity` that must take `additional` more (`None` when it has room): for tables that
/// are not a `Vec`, such as a `String` arena.
pub(crate) fn quarter_growth(len: usize, capacity: usize, additional: usize) -> Option<usize> {
    let needed = len.saturating_add(additional);
    (needed > capacity).then(|| needed.max(capacity.saturating_add((capacity / 4).max(2))) - len)
}

/// The first position of `items` whose item is not `below`, where `items` holds every item
/// that is `below` before every one that is not (as `partition_point`): an exponential probe
/// from the front, then a binary search, so a lookup costs `O(log position)` and a merge of
/// ascending lookups into a long sorted list stays linear in the shorter side.
pub(crate) fn gallop<T>(items: &[T], below: impl Fn(&T) -> bool) -> usize {
    let mut bound = 1;
    while bound < items.len() && below(&items[bound - 1]) {
        bound *= 2;
    }
    let low = bound / 2;
    let high = bound.min(items.len());
    low + items[low..high].partition_point(below)
}

#[cfg(test)]
mod tests {
    use super::{gallop, grow_by_quarter, quarter_growth};
    use crate::index::postings::test_support::SplitMix64;

    #[test]
    fn growing_by_a_quarter_leaves_at_most_a_fifth_unused() {
        let mut v: Vec<u32> = Vec::new();
        let mut text = String::new();
        let mut reallocations = 0;
        for i in 0..100_000u32 {
            let before = v.capacity();
            grow_by_quarter(&mut v, 1).unwrap();
            if let Some(reserve) = quarter_growth(text.len(), text.capacity(), 3) {
                text.try_reserve_exact(reserve).unwrap();
            }
            reallocations += usize::from(v.capacity() != before);
            v.push(i);
            text.push_str("abc");
            assert!(
                v.capacity() <= (v.len() * 5 / 4).max(8),
                "{} of {}",
                v.capacity(),
                v.len()
            );
            assert!(text.capacity() <= (text.len() * 5 / 4).max(8));
        }
        assert!(v.iter().copied().eq(0..100_000));
        // Amortised O(1): about log(100,000 / 8) / log(1.25) ≈ 42 reallocations.
        assert!(reallocations < 60, "{reallocations}");
        // Room that is already there is not grown again.
        let capacity = v.capacity();
        v.truncate(10);
        grow_by_quarter(&mut v, 100).unwrap();
        assert_eq!(v.capacity(), capacity);
    }

    #[test]
    fn gallop_finds_the_first_item_not_below_the_target() {
        let mut rng = SplitMix64(7);
        for case in 0..500 {
            let mut list: Vec<u32> = (0..rng.below(40)).map(|_| rng.below(100) as u32).collect();
            list.sort_unstable();
            let x = rng.below(110) as u32;
            let expected = list.iter().position(|&v| v >= x).unwrap_or(list.len());
            assert_eq!(gallop(&list, |&v| v < x), expected, "case {case}");
        }
    }
}
