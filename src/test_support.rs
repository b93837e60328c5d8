//! What the crate's unit tests share: one seeded generator, [`SplitMix64`], one float
//! assertion, `assert_close!(a, b)` (within 1e-12) or `assert_close!(a, b, eps)`, defined in
//! `lib.rs` so that every module sees it, [`recall_untracked`] and [`ids`].

use crate::engine::{Engine, RecallOptions, RecallOutput};

/// A recall with `options` and no recall tracking, no query vector and a clock at 0.
pub(crate) fn recall_untracked(
    e: &mut Engine,
    query: &str,
    options: RecallOptions,
) -> RecallOutput {
    let options = RecallOptions {
        track_recalls: false,
        ..options
    };
    e.recall(query, &options, None, &|| 0.0).unwrap()
}

/// The ids of a recall's results, in rank order.
pub(crate) fn ids(out: &RecallOutput) -> Vec<&str> {
    out.results.iter().map(|r| r.id.as_str()).collect()
}

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014): a tiny seeded generator for property tests.
pub(crate) struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        crate::hash::mix64(self.0)
    }

    /// A value in `0..n`; `n` must be positive.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// An index in `0..n`; `n` must be positive.
    pub(crate) fn index(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}
