//! The crate's sorts: a few shared instantiations of the standard library's sort instead of
//! one per call site.
//!
//! Every `sort`, `sort_by`, `sort_unstable_by`, `sort_by_key` or `select_nth_unstable_by` with
//! its own element type or closure is monomorphised into its own copy of std's sort: 4–15 KiB
//! of WebAssembly each. Here one small introsort of the crate's own (`quicksort`) is
//! instantiated once per integer type, each copy behind one `#[inline(never)]` function, and
//! every other order is expressed through them or through one small merge sort with a
//! type-erased comparator:
//!
//! | order | helper | sort behind it |
//! |---|---|---|
//! | ids, hashes | [`sort_u32`], [`sort_u64`] | `quicksort` on `u32`, on `u64` |
//! | `(key, tie-break)`, e.g. best score first then id | [`sort_pairs`], [`select_pairs`] | `quicksort`, a quickselect, on `(u64, u32)` |
//! | items by an integer key, stable | [`order_by_key`], [`PairSorter`] | the two above |
//! | anything else (strings, records) | [`order_by`], [`sort_by`] | merge sort of `u32` positions, `dyn` comparator |
//!
//! Integer sorts run `quicksort`, as fast as std's `sort_unstable` on the bench's recalls
//! and about 3 KiB of gzipped wasm smaller per type; the hot paths (postings, signatures,
//! trigram lookups, top-k) use only those. [`order_by`] pays one
//! dynamic call per comparison and is meant for cold paths; it is a merge sort of its own,
//! about 1 KiB of wasm where a copy of std's stable sort takes about 8 KiB.
//!
//! # Keys
//!
//! [`desc_key`] maps an `f64` to a `u64` whose ascending order is `f64::total_cmp` descending
//! (it is a bijection; [`from_desc_key`] inverts it), and [`asc_key`] to one whose ascending
//! order is `total_cmp` ascending. So "best score first, ties by ascending id" is the
//! ascending order of the pairs `(desc_key(score), id)`.
//!
//! # Invariants
//!
//! - [`order_by_key`], [`order_by`], [`sort_by`] and [`PairSorter`] number positions with
//!   `u32`: they take at most `u32::MAX` items (every list the crate orders is indexed by
//!   `u32` ids or far shorter).
//! - They are stable: items that compare equal keep their relative order, as
//!   `slice::sort_by` would.
//!
//! Reference: O. Peters, "Pattern-defeating Quicksort", arXiv:2106.05123 (2021): std's
//! `sort_unstable`, whose equal-pivot rule, branchless partition and heapsort fallback
//! `quicksort` keeps.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Sign bit of an `f64`.
const SIGN_BIT: u64 = 1 << 63;
/// Low half of a `u64`: where [`PairSorter`] packs positions.
const LOW_32_BITS: u64 = 0xFFFF_FFFF;
/// Runs [`order_by`] sorts by insertion before merging them.
const INSERTION_RUN: usize = 16;

/// A `u64` whose ascending order is `f64::total_cmp` ascending: negative NaNs, `-∞`, …,
/// `-0.0`, `+0.0`, …, `+∞`, positive NaNs.
pub fn asc_key(x: f64) -> u64 {
    let bits = x.to_bits();
    // Flip every bit of a negative, only the sign of a positive.
    if bits & SIGN_BIT != 0 {
        !bits
    } else {
        bits | SIGN_BIT
    }
}

/// A `u64` whose ascending order is `f64::total_cmp` descending: larger scores first, `+0.0`
/// before `-0.0`, NaNs with the sign bit clear before every number and those with it set
/// after.
///
/// ```
/// use recallkit::sort::desc_key;
/// assert!(desc_key(2.0) < desc_key(1.0));
/// assert!(desc_key(f64::NAN) < desc_key(f64::INFINITY));
/// ```
pub fn desc_key(x: f64) -> u64 {
    !asc_key(x)
}

/// The `f64` whose [`desc_key`] is `key`, bit for bit (NaN payloads included).
pub fn from_desc_key(key: u64) -> f64 {
    let ascending = !key;
    let bits = if ascending & SIGN_BIT != 0 {
        ascending & !SIGN_BIT
    } else {
        !ascending
    };
    f64::from_bits(bits)
}

/// Sorts `u32`s ascending (`quicksort` on `u32`).
#[inline(never)]
pub fn sort_u32(v: &mut [u32]) {
    quicksort(v);
}

/// Sorts `u64`s ascending (`quicksort` on `u64`).
#[inline(never)]
pub fn sort_u64(v: &mut [u64]) {
    quicksort(v);
}

/// Sorts `(key, tie-break)` pairs ascending: by key, then tie-break (`quicksort` on
/// `(u64, u32)`).
#[inline(never)]
pub fn sort_pairs(v: &mut [(u64, u32)]) {
    quicksort(v);
}

/// Reorders `v` so that `v[nth]` holds the pair a full sort would put there, with no larger
/// pair before it and no smaller one after it (as `slice::select_nth_unstable`). The crate's
/// one selection: quickselect with `quicksort`'s partition, a heapsort of what is left when
/// the partitions keep coming out lopsided. `nth` must be below `v.len()`.
#[inline(never)]
pub fn select_pairs(mut v: &mut [(u64, u32)], mut nth: usize) {
    debug_assert!(nth < v.len());
    let mut budget = depth_budget(v.len());
    loop {
        if v.len() <= INSERTION_MAX || budget == 0 {
            sort_within(v, budget);
            return;
        }
        budget -= 1;
        let (lo, hi) = partition(v);
        if nth < lo {
            v = &mut v[..lo];
        } else if nth >= hi {
            v = &mut v[hi..];
            nth -= hi;
        } else {
            return;
        }
    }
}

/// Slices this short are sorted by insertion (std's cut-off for small integers is 20; 16
/// measured the same on the bench's trigram and top-k sorts).
const INSERTION_MAX: usize = 16;

/// Sorts `v` ascending, not stably: the crate's one unstable sort, instantiated for `u32`,
/// `u64` and `(u64, u32)` only (behind [`sort_u32`], [`sort_u64`], [`sort_pairs`]). Equal
/// integers are indistinguishable, so its output is that of any other sort.
///
/// An introsort in the manner of std's: quicksort with a median-of-three pivot and a
/// branchless Lomuto partition, short slices by insertion, and a heapsort once the depth
/// exceeds `2 log₂ n` (so `O(n log n)` whatever the input). A pivot that nothing is below
/// takes every item equal to it along, so runs of equal keys cost one pass (pdqsort's rule).
/// About 0.6 KiB of wasm per type where a copy of std's `sort_unstable` took 3–4 KiB.
fn quicksort<T: Copy + Ord>(v: &mut [T]) {
    sort_within(v, depth_budget(v.len()));
}

/// `2 ⌊log₂ n⌋ + 2` partitions before the heapsort takes over.
fn depth_budget(n: usize) -> u32 {
    2 * (usize::BITS - n.leading_zeros())
}

/// `quicksort` with `budget` partitions left on any path.
fn sort_within<T: Copy + Ord>(mut v: &mut [T], mut budget: u32) {
    loop {
        if v.len() <= INSERTION_MAX {
            insertion_sort(v);
            return;
        }
        if budget == 0 {
            heapsort(v);
            return;
        }
        budget -= 1;
        let (lo, hi) = partition(v);
        // Recurse into the shorter side, loop on the longer: the stack stays `O(log n)`.
        let (left, right) = v.split_at_mut(hi);
        let left = &mut left[..lo];
        if left.len() < right.len() {
            sort_within(left, budget);
            v = right;
        } else {
            sort_within(right, budget);
            v = left;
        }
    }
}

/// Partitions `v` (at least 3 items) around a median-of-three pivot and returns `(lo, hi)`:
/// `v[..lo]` is below the pivot, `v[lo..hi]` equals it, `v[hi..]` is not below it.
fn partition<T: Copy + Ord>(v: &mut [T]) -> (usize, usize) {
    let n = v.len();
    let (a, b, c) = (0, n / 2, n - 1);
    let pivot_at = if v[a] < v[b] {
        if v[b] < v[c] {
            b
        } else if v[a] < v[c] {
            c
        } else {
            a
        }
    } else if v[a] < v[c] {
        a
    } else if v[b] < v[c] {
        c
    } else {
        b
    };
    v.swap(0, pivot_at);
    let pivot = v[0];
    let rest = &mut v[1..];
    let below = partition_by(rest, |item| item < pivot);
    if below == 0 {
        // Nothing is below the pivot: gather its equals too, or duplicates would make every
        // partition take off one item.
        let equal = partition_by(rest, |item| item <= pivot);
        return (0, 1 + equal);
    }
    v.swap(0, below);
    (below, below + 1)
}

/// Moves the items `goes_left` accepts to the front, keeping nothing else in order, and
/// returns how many there are. Branchless: each item is swapped into place and the boundary
/// moves by the comparison's outcome (a Lomuto partition, as std's for small types).
fn partition_by<T: Copy>(v: &mut [T], goes_left: impl Fn(T) -> bool) -> usize {
    let mut left = 0;
    for i in 0..v.len() {
        let item = v[i];
        v.swap(i, left);
        left += usize::from(goes_left(item));
    }
    left
}

/// Sorts a short slice by insertion.
fn insertion_sort<T: Copy + Ord>(v: &mut [T]) {
    for i in 1..v.len() {
        let item = v[i];
        let mut j = i;
        while j > 0 && item < v[j - 1] {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = item;
    }
}

/// Sorts `v` by heapsort: `quicksort`'s guarantee against inputs that defeat its pivots.
fn heapsort<T: Copy + Ord>(v: &mut [T]) {
    for node in (0..v.len() / 2).rev() {
        sift_down(v, node);
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        sift_down(&mut v[..end], 0);
    }
}

/// Restores the max-heap order of `v` below `node`.
fn sift_down<T: Copy + Ord>(v: &mut [T], mut node: usize) {
    loop {
        let mut child = 2 * node + 1;
        if child >= v.len() {
            return;
        }
        if child + 1 < v.len() && v[child] < v[child + 1] {
            child += 1;
        }
        if v[node] >= v[child] {
            return;
        }
        v.swap(node, child);
        node = child;
    }
}

/// Positions `0..n` in ascending order of `keys` (one key per position), equal keys in
/// position order.
///
/// ```
/// use recallkit::sort::{desc_key, order_by_key};
/// let scores = [0.5, 2.0, 0.5];
/// assert_eq!(order_by_key(scores.iter().map(|&s| desc_key(s))), [1, 0, 2]);
/// ```
pub fn order_by_key(keys: impl ExactSizeIterator<Item = u64>) -> Vec<u32> {
    let mut pairs: Vec<(u64, u32)> = Vec::with_capacity(keys.len());
    for (position, key) in keys.enumerate() {
        pairs.push((key, to_position(position)));
    }
    sort_pairs(&mut pairs);
    pairs.into_iter().map(|(_, position)| position).collect()
}

/// Sorts items by a `(key, id)` pair each, ascending, equal pairs in their original order
/// (a stable sort), with buffers that are reused from one sort to the next.
///
/// Two integer sorts, least significant first: positions by `(id, position)` packed in one
/// `u64`, then by `(key, rank in that order)`, so equal keys keep the id order; then the
/// items move once ([`permute`]).
///
/// ```
/// use recallkit::sort::{desc_key, PairSorter};
/// let mut hits = vec![(7, 0.5), (3, 0.5), (9, 2.0)];
/// PairSorter::default().sort(&mut hits, |&(id, score)| (desc_key(score), id));
/// assert_eq!(hits, [(9, 2.0), (3, 0.5), (7, 0.5)]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct PairSorter {
    by_id: Vec<u64>,
    by_key: Vec<(u64, u32)>,
    order: Vec<u32>,
}

impl PairSorter {
    /// Sorts `items` ascending by the pair `key` gives each (see the type doc); calls `key`
    /// twice per item.
    pub fn sort<T>(&mut self, items: &mut [T], mut key: impl FnMut(&T) -> (u64, u32)) {
        self.by_id.clear();
        for (position, item) in items.iter().enumerate() {
            let id = key(item).1;
            self.by_id
                .push((u64::from(id) << 32) | u64::from(to_position(position)));
        }
        sort_u64(&mut self.by_id);
        self.by_key.clear();
        for (rank, &packed) in self.by_id.iter().enumerate() {
            let item = &items[(packed & LOW_32_BITS) as usize];
            self.by_key.push((key(item).0, to_position(rank)));
        }
        sort_pairs(&mut self.by_key);
        self.order.clear();
        let by_id = &self.by_id;
        self.order.extend(
            self.by_key
                .iter()
                .map(|&(_, rank)| (by_id[rank as usize] & LOW_32_BITS) as u32),
        );
        permute(items, &mut self.order);
    }
}

/// Positions `0..n` sorted by `cmp`, which compares two positions; positions that compare
/// equal stay in ascending order (a stable sort). The crate's one comparator sort: one
/// dynamic call per comparison, for cold paths. `cmp` should be a total order (if not, the
/// result is still a permutation, in some order).
///
/// A merge sort: runs of 16 positions sorted by insertion, then merged bottom-up
/// between two buffers; `O(n log n)` comparisons and `n` spare `u32`s.
///
/// ```
/// use recallkit::sort::order_by;
/// let words = ["pear", "fig", "apple", "fig"];
/// assert_eq!(order_by(words.len(), &mut |a, b| words[a].cmp(words[b])), [2, 1, 3, 0]);
/// ```
#[inline(never)]
pub fn order_by(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n).map(to_position).collect();
    let mut after = |a: u32, b: u32| cmp(a as usize, b as usize) == Ordering::Greater;
    // Insertion sort of short runs, then bottom-up merges between two buffers.
    for run in order.chunks_mut(INSERTION_RUN) {
        for i in 1..run.len() {
            let item = run[i];
            let mut j = i;
            while j > 0 && after(run[j - 1], item) {
                run[j] = run[j - 1];
                j -= 1;
            }
            run[j] = item;
        }
    }
    if n <= INSERTION_RUN {
        return order;
    }
    let mut spare = vec![0; n];
    let mut width = INSERTION_RUN;
    while width < n {
        for (from, to) in order.chunks(2 * width).zip(spare.chunks_mut(2 * width)) {
            let (left, right) = from.split_at(width.min(from.len()));
            let (mut l, mut r) = (0, 0);
            for slot in to.iter_mut() {
                // Take from the right only when strictly smaller: equal items stay in order.
                if r < right.len() && (l == left.len() || after(left[l], right[r])) {
                    *slot = right[r];
                    r += 1;
                } else {
                    *slot = left[l];
                    l += 1;
                }
            }
        }
        std::mem::swap(&mut order, &mut spare);
        width *= 2;
    }
    order
}

/// Sorts `items` by `cmp`, stably, as `slice::sort_by` does, through [`order_by`]. For cold
/// paths (see [`order_by`]).
///
/// ```
/// let mut words = vec!["pear", "fig", "apple"];
/// recallkit::sort::sort_by(&mut words, |a, b| a.cmp(b));
/// assert_eq!(words, ["apple", "fig", "pear"]);
/// ```
pub fn sort_by<T>(items: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let mut order = {
        let items = &*items;
        order_by(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    permute(items, &mut order);
}

/// Moves `items[order[i]]` to position `i` for every `i`, in place (one swap per item, by
/// following cycles). `order` must be a permutation of `0..items.len()`; it is left as the
/// identity.
pub fn permute<T>(items: &mut [T], order: &mut [u32]) {
    debug_assert_eq!(items.len(), order.len());
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at] as usize;
            order[at] = to_position(at);
            // `from == at` only if `order` is no permutation; stopping keeps that finite.
            if from == start || from == at {
                break;
            }
            // `items[at]` holds the cycle's first item, which belongs where `from` points.
            items.swap(at, from);
            at = from;
        }
    }
}

/// A position as `u32` (see the module invariants).
fn to_position(position: usize) -> u32 {
    debug_assert!(u32::try_from(position).is_ok(), "{position} items or more");
    position as u32
}

/// A score [`Ranked`] compares: `f64`, `f32` (by `total_cmp`, after `+ 0.0` turns `-0.0` into
/// `+0.0` so that the two zeros tie) or an integer.
pub trait Score: Copy {
    /// Total order of two scores, ascending.
    fn order(self, other: Self) -> Ordering;
}

impl Score for f64 {
    fn order(self, other: Self) -> Ordering {
        (self + 0.0).total_cmp(&(other + 0.0))
    }
}

impl Score for f32 {
    fn order(self, other: Self) -> Ordering {
        (self + 0.0).total_cmp(&(other + 0.0))
    }
}

impl Score for u32 {
    fn order(self, other: Self) -> Ordering {
        self.cmp(&other)
    }
}

/// An item id with a score, ordered for ranking: **the higher score is better, and of two equal
/// scores the lower id** (the analogue of SQLite's rowid order; every ranked list of the crate
/// breaks ties this way). `a > b` means `a` ranks before `b`.
#[derive(Debug, Clone, Copy)]
pub struct Ranked<S> {
    /// The score; higher is better.
    pub score: S,
    /// The id (a `DocId`'s number); lower wins a tie.
    pub id: u32,
}

impl<S: Score> Ord for Ranked<S> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .order(other.score)
            .then_with(|| other.id.cmp(&self.id))
    }
}

impl<S: Score> PartialOrd for Ranked<S> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<S: Score> PartialEq for Ranked<S> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<S: Score> Eq for Ranked<S> {}

/// The best `k` of the items offered (the greatest by `Ord`; for [`Ranked`], the highest
/// scores, ties to the lowest id): the one top-k of the crate, used by BM25, the vector scan
/// and the signature scan. A min-heap of the kept items, so offering one costs `O(log k)`
/// and the worst kept one is at hand as the bar a newcomer must clear.
#[derive(Debug, Clone)]
pub struct TopK<T> {
    k: usize,
    heap: BinaryHeap<Reverse<T>>,
}

/// Initial heap capacity cap, so that `k = usize::MAX` does not try to preallocate.
const TOP_K_PREALLOCATED: usize = 1024;

impl<T: Ord> TopK<T> {
    /// Keeps the best `k` (any `k`, `usize::MAX` included).
    pub fn new(k: usize) -> Self {
        Self {
            k,
            heap: BinaryHeap::with_capacity(k.min(TOP_K_PREALLOCATED)),
        }
    }

    /// Whether `item` would be kept if offered now.
    pub fn admits(&self, item: &T) -> bool {
        self.heap.len() < self.k || self.heap.peek().is_some_and(|worst| *item > worst.0)
    }

    /// Offers `item`: kept while fewer than `k` are, or when better than the worst kept one
    /// (which it then replaces).
    pub fn push(&mut self, item: T) {
        if self.heap.len() < self.k {
            self.heap.push(Reverse(item));
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if item > worst.0 {
                *worst = Reverse(item);
            }
        }
    }

    /// The worst kept item once `k` are kept (the bar to clear), else `None`.
    pub fn worst_when_full(&self) -> Option<&T> {
        (self.heap.len() >= self.k)
            .then(|| self.heap.peek().map(|w| &w.0))
            .flatten()
    }

    /// The kept items, best first.
    pub fn into_sorted_vec(self) -> Vec<T> {
        // Ascending `Reverse<T>` is descending `T`: best first.
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|r| r.0)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::SplitMix64;

    /// A length in `0..=MAX_LEN`, often tiny, sometimes past std's small-sort cutoffs.
    fn random_len(rng: &mut SplitMix64) -> usize {
        match rng.below(4) {
            0 => rng.below(4) as usize,
            1 => rng.below(33) as usize,
            _ => rng.below(MAX_LEN + 1) as usize,
        }
    }

    /// A value in a range of `spread` values (small spreads give many ties).
    fn random_value(rng: &mut SplitMix64, spread: u64) -> u64 {
        if spread == 0 {
            rng.next_u64()
        } else {
            rng.below(spread)
        }
    }

    /// Random cases per property test.
    const CASES: u64 = 300;
    /// Longest random input.
    const MAX_LEN: u64 = 600;
    /// Value spreads: few distinct values (ties), some, and the full range (0).
    const SPREADS: [u64; 4] = [2, 7, 1000, 0];

    /// Scores with many ties and every special value `total_cmp` orders.
    fn random_score(rng: &mut SplitMix64) -> f64 {
        const SPECIAL: [f64; 9] = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::MIN_POSITIVE,
        ];
        match rng.below(3) {
            0 => SPECIAL[rng.below(SPECIAL.len() as u64) as usize],
            1 => rng.below(5) as f64 * 0.25,
            _ => f64::from_bits(rng.next_u64()),
        }
    }

    #[test]
    fn desc_key_is_total_cmp_reversed_and_asc_key_is_total_cmp() {
        let values = [
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            -2.25,
        ];
        for a in values {
            for b in values {
                assert_eq!(
                    desc_key(a).cmp(&desc_key(b)),
                    b.total_cmp(&a),
                    "{a:?} vs {b:?}"
                );
                assert_eq!(
                    asc_key(a).cmp(&asc_key(b)),
                    a.total_cmp(&b),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    #[test]
    fn from_desc_key_inverts_desc_key_bit_for_bit() {
        let mut rng = SplitMix64(7);
        for case in 0..10_000 {
            let x = if case < 64 {
                f64::from_bits(1 << case)
            } else {
                random_score(&mut rng)
            };
            assert_eq!(from_desc_key(desc_key(x)).to_bits(), x.to_bits(), "{x:?}");
            let key = rng.next_u64();
            assert_eq!(desc_key(from_desc_key(key)), key, "{key:#x}");
        }
    }

    #[test]
    fn integer_sorts_match_std_sort() {
        for seed in 0..CASES {
            let mut rng = SplitMix64(seed);
            let spread = SPREADS[(seed % 4) as usize];
            let len = random_len(&mut rng);
            let mut small: Vec<u32> = (0..len)
                .map(|_| random_value(&mut rng, spread) as u32)
                .collect();
            let mut large: Vec<u64> = (0..len).map(|_| random_value(&mut rng, spread)).collect();
            let mut pairs: Vec<(u64, u32)> = (0..len)
                .map(|_| {
                    (
                        random_value(&mut rng, spread),
                        random_value(&mut rng, spread) as u32,
                    )
                })
                .collect();
            let (mut want_small, mut want_large, mut want_pairs) =
                (small.clone(), large.clone(), pairs.clone());
            want_small.sort();
            want_large.sort();
            want_pairs.sort();
            sort_u32(&mut small);
            sort_u64(&mut large);
            sort_pairs(&mut pairs);
            assert_eq!(small, want_small, "seed {seed}");
            assert_eq!(large, want_large, "seed {seed}");
            assert_eq!(pairs, want_pairs, "seed {seed}");
        }
    }

    #[test]
    fn integer_sorts_sort_patterns_that_defeat_naive_pivots() {
        let n: u64 = 5000;
        type Pattern = (&'static str, fn(u64, u64) -> u64);
        let patterns: [Pattern; 7] = [
            ("ascending", |i, _| i),
            ("descending", |i, n| n - i),
            ("all equal", |_, _| 7),
            ("organ pipe", |i, n| i.min(n - i)),
            ("sawtooth", |i, _| i % 37),
            ("two values", |i, _| (i * 7919) % 2),
            (
                "median-of-3 killer",
                |i, n| if i % 2 == 0 { i } else { n + i / 2 },
            ),
        ];
        for (name, f) in patterns {
            for len in [0, 1, 2, 3, 17, 100, n] {
                let large: Vec<u64> = (0..len).map(|i| f(i, len)).collect();
                let mut want = large.clone();
                want.sort();
                let mut got = large.clone();
                sort_u64(&mut got);
                assert_eq!(got, want, "{name}, {len}");
                let mut got: Vec<u32> = large.iter().map(|&x| x as u32).collect();
                sort_u32(&mut got);
                assert!(got.windows(2).all(|w| w[0] <= w[1]), "{name}, {len}");
                let mut pairs: Vec<(u64, u32)> = large.iter().map(|&x| (x, 0)).collect();
                let mut heap = pairs.clone();
                heapsort(&mut heap);
                assert_eq!(
                    heap.iter().map(|p| p.0).collect::<Vec<_>>(),
                    want,
                    "{name}, {len}"
                );
                if len > 0 {
                    let nth = (len / 3) as usize;
                    select_pairs(&mut pairs, nth);
                    assert_eq!(pairs[nth].0, want[nth], "{name}, {len}");
                }
            }
        }
    }

    #[test]
    fn select_pairs_partitions_around_the_sorted_nth() {
        for seed in 0..CASES {
            let mut rng = SplitMix64(seed);
            let spread = SPREADS[(seed % 4) as usize];
            let len = random_len(&mut rng).max(1);
            let mut pairs: Vec<(u64, u32)> = (0..len)
                .map(|_| {
                    (
                        random_value(&mut rng, spread),
                        random_value(&mut rng, spread) as u32,
                    )
                })
                .collect();
            let mut sorted = pairs.clone();
            sorted.sort();
            let nth = rng.below(len as u64) as usize;
            select_pairs(&mut pairs, nth);
            assert_eq!(pairs[nth], sorted[nth], "seed {seed}");
            assert!(
                pairs[..nth].iter().all(|p| *p <= sorted[nth]),
                "seed {seed}"
            );
            assert!(
                pairs[nth..].iter().all(|p| *p >= sorted[nth]),
                "seed {seed}"
            );
            pairs.sort();
            assert_eq!(pairs, sorted, "seed {seed}: not a permutation");
        }
    }

    #[test]
    fn order_by_key_is_a_stable_sort_by_key() {
        for seed in 0..CASES {
            let mut rng = SplitMix64(seed);
            let spread = SPREADS[(seed % 4) as usize];
            let keys: Vec<u64> = (0..random_len(&mut rng))
                .map(|_| random_value(&mut rng, spread))
                .collect();
            let mut want: Vec<u32> = (0..keys.len() as u32).collect();
            want.sort_by_key(|&i| keys[i as usize]);
            assert_eq!(order_by_key(keys.iter().copied()), want, "seed {seed}");
        }
    }

    #[test]
    fn order_by_key_of_desc_keys_is_a_stable_descending_score_sort() {
        for seed in 0..CASES {
            let mut rng = SplitMix64(seed);
            let scores: Vec<f64> = (0..random_len(&mut rng))
                .map(|_| random_score(&mut rng))
                .collect();
            let mut want: Vec<u32> = (0..scores.len() as u32).collect();
            want.sort_by(|&a, &b| scores[b as usize].total_cmp(&scores[a as usize]));
            let got = order_by_key(scores.iter().map(|&s| desc_key(s)));
            assert_eq!(got, want, "seed {seed}");
        }
    }

    #[test]
    fn pair_sorter_is_a_stable_sort_by_pair_and_reusable() {
        let mut sorter = PairSorter::default();
        for seed in 0..CASES {
            let mut rng = SplitMix64(seed);
            let spread = SPREADS[(seed % 4) as usize];
            // Items: (pair, original position); the positions show the stability.
            let mut items: Vec<((u64, u32), usize)> = (0..random_len(&mut rng))
                .map(|i| {
                    (
                        (
                            random_value(&mut rng, spread),
                            random_value(&mut rng, spread) as u32,
                        ),
                        i,
                    )
                })
                .collect();
            let mut want = items.clone();
            want.sort_by_key(|item| item.0);
            sorter.sort(&mut items, |item| item.0);
            assert_eq!(items, want, "seed {seed}");
        }
    }

    #[test]
    fn order_by_and_sort_by_are_stable_sorts_by_comparator() {
        for seed in 0..CASES {
            let mut rng = SplitMix64(seed);
            let spread = SPREADS[(seed % 4) as usize];
            let words: Vec<String> = (0..random_len(&mut rng))
                .map(|_| format!("w{}", random_value(&mut rng, spread)))
                .collect();
            let mut want: Vec<u32> = (0..words.len() as u32).collect();
            want.sort_by(|&a, &b| words[a as usize].len().cmp(&words[b as usize].len()));
            let got = order_by(words.len(), &mut |a, b| words[a].len().cmp(&words[b].len()));
            assert_eq!(got, want, "seed {seed}");

            // Owned, non-Copy items, sorted by a key with ties.
            let mut items: Vec<(String, usize)> = words.iter().cloned().zip(0..).collect();
            let mut want_items = items.clone();
            want_items.sort_by_key(|a| a.0.len());
            sort_by(&mut items, |a, b| a.0.len().cmp(&b.0.len()));
            assert_eq!(items, want_items, "seed {seed}");
            sort_by(&mut items, |a, b| a.0.cmp(&b.0));
            want_items.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(items, want_items, "seed {seed}");
        }
    }

    #[test]
    fn order_by_returns_a_permutation_even_for_an_inconsistent_comparator() {
        for seed in 0..CASES {
            let mut rng = SplitMix64(seed);
            let n = random_len(&mut rng);
            let mut order = order_by(n, &mut |_, _| match rng.below(3) {
                0 => Ordering::Less,
                1 => Ordering::Equal,
                _ => Ordering::Greater,
            });
            order.sort_unstable();
            assert!(order.iter().copied().eq(0..n as u32), "seed {seed}");
        }
    }

    #[test]
    fn permute_applies_any_permutation_and_leaves_the_identity() {
        for seed in 0..CASES {
            let mut rng = SplitMix64(seed);
            let len = random_len(&mut rng);
            // A random permutation (Fisher–Yates).
            let mut order: Vec<u32> = (0..len as u32).collect();
            for i in (1..len).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let items: Vec<String> = (0..len).map(|i| i.to_string()).collect();
            let want: Vec<String> = order.iter().map(|&i| items[i as usize].clone()).collect();
            let mut got = items.clone();
            permute(&mut got, &mut order);
            assert_eq!(got, want, "seed {seed}");
            assert!(
                order.iter().enumerate().all(|(i, &o)| o as usize == i),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn permute_stops_on_an_order_that_is_no_permutation() {
        let mut items = ['a', 'b', 'c'];
        permute(&mut items, &mut [1, 2, 1]);
        let mut sorted = items;
        sorted.sort();
        assert_eq!(sorted, ['a', 'b', 'c'], "items are only ever swapped");
    }

    #[test]
    fn top_k_keeps_what_a_full_sort_would_keep_first() {
        for seed in 0..400 {
            let mut rng = SplitMix64(seed);
            let n = rng.below(120) as usize;
            let scores = [0.0, -0.0, 1.0, 1.0, 0.5, f64::INFINITY, -2.0];
            let items: Vec<Ranked<f64>> = (0..n)
                .map(|i| Ranked {
                    score: scores[rng.below(scores.len() as u64) as usize],
                    id: (i as u32).wrapping_mul(7) % 97,
                })
                .collect();
            let k = rng.below(20) as usize;
            let mut top = TopK::new(k);
            for &item in &items {
                let admitted = top.admits(&item);
                let before = top.clone().into_sorted_vec();
                top.push(item);
                let bits = |v: &[Ranked<f64>]| {
                    v.iter()
                        .map(|r| (r.score.to_bits(), r.id))
                        .collect::<Vec<_>>()
                };
                let changed = bits(&top.clone().into_sorted_vec()) != bits(&before);
                assert!(
                    !changed || admitted,
                    "seed {seed}: an item that was not admitted changed the top"
                );
            }
            let mut sorted = items.clone();
            sorted.sort_by(|a, b| b.cmp(a));
            sorted.truncate(k);
            // `+ 0.0`: the two zeros tie, so either may be kept.
            let key = |r: &Ranked<f64>| ((r.score + 0.0).to_bits(), r.id);
            let got: Vec<(u64, u32)> = top.into_sorted_vec().iter().map(key).collect();
            let want: Vec<(u64, u32)> = sorted.iter().map(key).collect();
            assert_eq!(got, want, "seed {seed}, k {k}");
        }
    }

    #[test]
    fn ranked_puts_the_higher_score_first_and_breaks_ties_by_the_lower_id() {
        let a = Ranked {
            score: 1.0f32,
            id: 5,
        };
        let b = Ranked {
            score: 1.0f32,
            id: 2,
        };
        let c = Ranked {
            score: 2.0f32,
            id: 9,
        };
        assert!(c > a && b > a);
        assert_eq!(
            Ranked {
                score: -0.0f64,
                id: 1
            },
            Ranked {
                score: 0.0f64,
                id: 1
            }
        );
        assert!(Ranked { score: 3u32, id: 1 } > Ranked { score: 2u32, id: 0 });
    }
}
