//! Indexes: an inverted index with FTS5-exact BM25 scoring, and a trigram index over the
//! vocabulary of distinct terms for substring and typo-tolerant lookups. Indexes build and
//! answer queries; ranking policy lives in `recall` and `rank`.

pub mod bm25;
pub mod fuzzy;
pub mod postings;
pub mod trigram;

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
    use super::gallop;
    use crate::index::postings::test_support::SplitMix64;

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
