//! Indexes: an inverted index with FTS5-exact BM25 scoring, and a trigram index over the
//! vocabulary of distinct terms for substring and typo-tolerant lookups, and the tag index. Indexes build and
//! answer queries; ranking policy lives in `recall` and `rank`.

pub mod bm25;
pub mod fuzzy;
pub mod mentions;
pub mod porter_index;
pub mod postings;
pub mod tags;
pub mod trigram;

use std::collections::TryReserveError;

/// Makes room for `additional` more items, growing the vector by a quarter of its capacity
/// where `Vec` would double it: still amortised O(1) per push, with at most a fifth of the
/// capacity unused (a tenth on average) instead of up to half (a quarter). Posting lists,
/// trigram lists and the tables that grow with the vocabulary or with the documents use it
/// (the vocabulary's `String` arena through [`quarter_growth`]); their spare room was a
/// tenth of a store's memory. Below [`SMALL_TABLE_BYTES`] a table doubles (to at least 4
/// items) instead: most posting and trigram lists are that small, and growing them a few
/// bytes at a time reallocated them at almost every push (measured on the bench's 1,000
/// memories: a third fewer instructions spent in the allocator and its copies, a build about
/// a tenth faster in wasm, where a reallocation costs more). On failure the vector is
/// unchanged (a later push then grows it the usual way, or fails as it would have).
pub(crate) fn grow_by_quarter<T>(
    table: &mut Vec<T>,
    additional: usize,
) -> Result<(), TryReserveError> {
    let small = SMALL_TABLE_BYTES / std::mem::size_of::<T>().max(1);
    match growth(table.len(), table.capacity(), additional, small) {
        Some(reserve) => table.try_reserve_exact(reserve),
        None => Ok(()),
    }
}

/// The `try_reserve_exact` argument of [`grow_by_quarter`] for a table of `len` items and
/// `capacity` that must take `additional` more (`None` when it has room): for tables that
/// are not a `Vec`, such as a `String` arena.
pub(crate) fn quarter_growth(len: usize, capacity: usize, additional: usize) -> Option<usize> {
    growth(len, capacity, additional, SMALL_TABLE_BYTES)
}

/// Tables of fewer bytes double when they grow ([`grow_by_quarter`]).
const SMALL_TABLE_BYTES: usize = 64;

/// [`quarter_growth`] for items of which `small` fill [`SMALL_TABLE_BYTES`].
fn growth(len: usize, capacity: usize, additional: usize, small: usize) -> Option<usize> {
    let needed = len.saturating_add(additional);
    let step = if capacity < small {
        capacity.max(4)
    } else {
        capacity / 4
    };
    (needed > capacity).then(|| needed.max(capacity.saturating_add(step)) - len)
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
    use super::{gallop, grow_by_quarter, quarter_growth, SMALL_TABLE_BYTES};
    use crate::test_support::SplitMix64;

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
            // Beyond SMALL_TABLE_BYTES, at most a fifth unused; below, doubling.
            assert!(
                v.capacity() <= (v.len() * 5 / 4).max(SMALL_TABLE_BYTES / 4 * 2),
                "{} of {}",
                v.capacity(),
                v.len()
            );
            assert!(text.capacity() <= (text.len() * 5 / 4).max(SMALL_TABLE_BYTES * 2));
        }
        assert!(v.iter().copied().eq(0..100_000));
        // Amortised O(1): 2 doublings to 16 items, then about log(100,000 / 16) / log(1.25)
        // ≈ 39 reallocations.
        assert!(reallocations < 50, "{reallocations}");
        // Room that is already there is not grown again.
        let capacity = v.capacity();
        v.truncate(10);
        grow_by_quarter(&mut v, 100).unwrap();
        assert_eq!(v.capacity(), capacity);
    }

    #[test]
    fn small_tables_double_so_short_lists_are_rarely_reallocated() {
        let mut ids: Vec<u32> = Vec::new();
        let mut capacities = Vec::new();
        for i in 0..20 {
            grow_by_quarter(&mut ids, 1).unwrap();
            ids.push(i);
            if capacities.last() != Some(&ids.capacity()) {
                capacities.push(ids.capacity());
            }
        }
        // 16 u32s fill SMALL_TABLE_BYTES; from there a quarter at a time.
        assert_eq!(capacities, [4, 8, 16, 20]);
        let mut bytes: Vec<u8> = Vec::new();
        let mut reallocations = 0;
        for _ in 0..SMALL_TABLE_BYTES / 3 {
            let before = bytes.capacity();
            grow_by_quarter(&mut bytes, 3).unwrap();
            reallocations += usize::from(bytes.capacity() != before);
            bytes.extend_from_slice(b"abc");
        }
        // 4, 8, 16, 32, 64 bytes: five, not one per push.
        assert_eq!(reallocations, 5);
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
