//! FNV-1a, 64-bit: a tiny, platform-independent hash for deduplication keys.
//!
//! `hash = 0xcbf29ce484222325; for each byte: hash ^= byte; hash *= 0x100000001b3 (mod 2^64)`.
//! Unlike `std`'s `DefaultHasher` its output is fixed by the algorithm, so the same bytes hash
//! the same on every platform, build and Rust version. Not collision-resistant against an
//! adversary; S6 only uses it to spot repeated paragraphs.
//!
//! Reference: Fowler, Noll, Vo, <http://www.isthe.com/chongo/tech/comp/fnv/> (public domain).

/// The 64-bit FNV offset basis.
pub const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// The 64-bit FNV prime, 2^40 + 2^8 + 0xb3.
pub const PRIME: u64 = 0x0000_0100_0000_01b3;

/// An FNV-1a 64 state; feed it with [`Fnv1a64::write`] and read it with [`Fnv1a64::finish`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Self {
        Self::new()
    }
}

impl Fnv1a64 {
    /// A fresh state (the offset basis).
    pub fn new() -> Self {
        Fnv1a64(OFFSET_BASIS)
    }

    /// Mixes in `bytes`.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(PRIME);
        }
    }

    /// The hash of everything written so far.
    pub fn finish(self) -> u64 {
        self.0
    }
}

/// FNV-1a 64 of `bytes`.
///
/// ```
/// assert_eq!(recallkit::notes::fnv::fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
/// ```
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a64::new();
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_test_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn writing_in_pieces_equals_writing_at_once() {
        let mut h = Fnv1a64::default();
        h.write(b"foo");
        h.write(b"bar");
        assert_eq!(h.finish(), fnv1a64(b"foobar"));
    }
}
