//! Hashing of the engine's own integer keys: the splitmix64 finalizer and a [`Hasher`] built
//! on it for hash maps keyed by integers the engine makes (packed grams, document ids).
//!
//! Those keys are not input an attacker picks, so SipHash's resistance to flooding buys
//! nothing there, and it costs a call and about 20 instructions per lookup. No ambient
//! randomness either: the core stays reproducible.

use std::hash::Hasher;

/// The splitmix64 output function, a bijective 64-bit finalizer (G. Steele, D. Lea and
/// C. Flood, OOPSLA 2014). Every output bit depends on every input bit, so both the low bits a
/// hash table indexes with and the top bits it keeps as tags are mixed.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A deterministic hasher for integer keys: each integer written is mixed in with [`mix64`].
#[derive(Default)]
pub struct IntHasher(u64);

impl Hasher for IntHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix64(self.0 ^ u64::from(b));
        }
    }

    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.0 = mix64(self.0 ^ u64::from(x));
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = mix64(self.0 ^ x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, BuildHasherDefault};

    #[test]
    fn consecutive_keys_get_distinct_slots_and_spread_tags() {
        let hash = |id: u32| BuildHasherDefault::<IntHasher>::default().hash_one(id);
        // A table of 4,096 slots indexes with the low 12 bits: 4,096 consecutive keys fill as many
        // slots as random keys would (1 − 1/e ≈ 63 %), not a handful.
        let slots: std::collections::HashSet<u64> = (0..4096).map(|id| hash(id) & 4095).collect();
        assert!(slots.len() > 2500, "{}", slots.len());
        // Its tag is the top 7 bits: every value is used, none by more than twice its share.
        let mut tags = [0u32; 128];
        for id in 0..4096 {
            tags[(hash(id) >> 57) as usize] += 1;
        }
        assert!(tags.iter().all(|&n| n > 0 && n <= 64), "{tags:?}");
    }
}
