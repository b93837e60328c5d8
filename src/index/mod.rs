//! Indexes: an inverted index with FTS5-exact BM25 scoring, and a trigram index over the
//! vocabulary of distinct terms for substring and typo-tolerant lookups. Indexes build and
//! answer queries; ranking policy lives in `recall` and `rank`.

pub mod bm25;
pub mod fuzzy;
pub mod porter;
pub mod postings;
pub mod trigram;

use std::collections::TryReserveError;

/// A table that [`grow_by_quarter`] can grow: `Vec` and `String`.
pub(crate) trait Table {
    /// Items (bytes for a string) held.
    fn len(&self) -> usize;
    /// Items it can hold without reallocating.
    fn capacity(&self) -> usize;
    /// `Vec::try_reserve_exact`.
    fn try_reserve_exact(&mut self, additional: usize) -> Result<(), TryReserveError>;
}

impl<T> Table for Vec<T> {
    fn len(&self) -> usize {
        self.len()
    }
    fn capacity(&self) -> usize {
        self.capacity()
    }
    fn try_reserve_exact(&mut self, additional: usize) -> Result<(), TryReserveError> {
        self.try_reserve_exact(additional)
    }
}

impl Table for String {
    fn len(&self) -> usize {
        self.len()
    }
    fn capacity(&self) -> usize {
        self.capacity()
    }
    fn try_reserve_exact(&mut self, additional: usize) -> Result<(), TryReserveError> {
        self.try_reserve_exact(additional)
    }
}

/// Makes room for `additional` more items, growing the table by a quarter of its capacity
/// (at least 2) where `Vec` and `String` would double it: still amortised O(1) per push, with
/// at most a fifth of the capacity unused (a tenth on average) instead of up to half (a
/// quarter). Posting lists, trigram lists and the tables that grow with the vocabulary or
/// with the documents use it; their spare room was a tenth of a store's memory. On failure the table is unchanged (a later push then grows
/// it the usual way, or fails as it would have).
pub(crate) fn grow_by_quarter(
    table: &mut impl Table,
    additional: usize,
) -> Result<(), TryReserveError> {
    let needed = table.len().saturating_add(additional);
    let capacity = table.capacity();
    if needed <= capacity {
        return Ok(());
    }
    let target = needed.max(capacity.saturating_add((capacity / 4).max(2)));
    table.try_reserve_exact(target - table.len())
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
    use super::{gallop, grow_by_quarter};
    use crate::index::postings::test_support::SplitMix64;

    #[test]
    fn growing_by_a_quarter_leaves_at_most_a_fifth_unused() {
        let mut v: Vec<u32> = Vec::new();
        let mut text = String::new();
        let mut reallocations = 0;
        for i in 0..100_000u32 {
            let before = v.capacity();
            grow_by_quarter(&mut v, 1).unwrap();
            grow_by_quarter(&mut text, 3).unwrap();
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
