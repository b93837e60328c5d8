//! SimHash text signatures, format v1: 256 random hyperplanes over hashed sparse features.
//!
//! ## Construction (stable: [`SIGNATURE_FORMAT_VERSION`] = 1)
//!
//! For a text `T` and a seed `S` (a `u64` the caller stores with the signatures):
//!
//! 1. **Feature occurrences**, each a byte string `key`:
//!    - every porter term `t` of [`for_each_term`]`(T)` (the FTS5 pipeline: folding,
//!      diacritics, stemming) gives `key = 0x01 ‖ utf8(t)`;
//!    - every folded token `w` of [`for_each_token`]`(T)` with at least
//!      [`TRIGRAM_MIN_CHARS`] = 4 characters (Unicode scalar values) is padded to
//!      `c = ' ' ‖ w ‖ ' '`, and each window of 3 consecutive characters of `c` gives
//!      `key = 0x02 ‖ utf8(c[i] c[i+1] c[i+2])` (a token of n chars gives n trigrams).
//! 2. **Feature hash** `h = mix64(fnv1a64(key) ^ S)`, where `fnv1a64` is 64-bit FNV-1a
//!    (offset `0xcbf29ce484222325`, prime `0x100000001b3`) over the key bytes and `mix64` is
//!    the splitmix64 output function (`z ^= z >> 30; z *= 0xbf58476d1ce4e5b9; z ^= z >> 27;
//!    z *= 0x94d049bb133111eb; z ^= z >> 31`, wrapping). Occurrences with equal `h` form one
//!    feature; `tf` is their count.
//! 3. **Weight** `w = 1 + ⌊log₂ tf⌋` (an integer: 1, 2, 2, 3, 3, 3, 3, 4, …).
//! 4. **Hyperplane signs**: `r_i = mix64(h + (i + 1)·γ)` for `i = 0..4`, with
//!    `γ = 0x9e3779b97f4a7c15` (the first four outputs of splitmix64 seeded with `h`). The
//!    feature's sign on hyperplane `b` (0..256) is `+1` if bit `b % 64` of `r_{b / 64}` is
//!    set, else `−1`.
//! 5. **Signature bit** `b` is 1 iff `Σ_features w · sign_b > 0` (a tie gives 0). It is
//!    computed exactly in integers: with `P_b` the total weight of features whose sign is
//!    `+1` and `W` the total weight, the bit is `2·P_b > W`.
//!
//! A text without features (empty, or only punctuation and symbols) has the all-zero signature;
//! see [`Signature::is_empty`]. Bit `b` of a [`Signature`] is bit `b % 64` of word `b / 64`,
//! and [`Signature::to_bytes`] writes the words in order, little-endian.
//!
//! Everything is integer arithmetic on fixed-width types, and the sums commute, so the
//! signature is the same on every platform and independent of feature order.
//!
//! ## Why these features
//!
//! `similarity = 1 − hamming/256` estimates `1 − θ/π`, θ the angle between the weighted
//! feature vectors (Charikar 2002), so stage Ss's threshold 0.65 means cos θ ≳ 0.45. Terms
//! make inflected forms agree; character trigrams make a misspelt word keep most of its
//! weight (an edit changes about 3 of a word's n trigrams instead of its one term); skipping
//! trigrams of tokens under 4 characters keeps short function words ("the", "and") from
//! dominating. Measured on 3,000 labelled queries of the benchmark corpus (`bench/corpus.mjs`,
//! 5,000 memories), terms only vs v1: queries reaching 0.65 against their source memory,
//! exact keywords 53 % → 73 %, misspelt keywords 23 % → 45 %, half-the-words paraphrases
//! 99.9 % → 99.2 %; source ranked above a random memory 95.2 % → 98.5 % for misspelt
//! queries; random memory pairs at ≥ 0.65: 7.3 % → 1.8 %. Word bigrams lowered every
//! query class and were dropped.
//!
//! References: M. Charikar, "Similarity estimation techniques from rounding algorithms",
//! STOC 2002; G. S. Manku et al., "Detecting near-duplicates for web crawling", WWW 2007;
//! splitmix64: G. Steele, D. Lea, C. Flood, OOPSLA 2014.
//!
//! [`for_each_term`]: crate::text::for_each_term
//! [`for_each_token`]: crate::text::for_each_token

use crate::error::{Error, Result};
use crate::hash::mix64;
use crate::sort;
use crate::text::{analyse, Stemmer, TermList};

/// Re-exported here because the index scans signatures of this format.
pub use super::index::SignatureIndex;

/// Bits per signature.
pub const SIGNATURE_BITS: usize = 256;

/// Version of the construction in the module doc. Signatures are only comparable with
/// signatures of the same version and seed; any change to features, weights or hashing bumps
/// it (and `tests/fixtures/signature/golden_v1.txt` catches an accidental change).
pub const SIGNATURE_FORMAT_VERSION: u32 = 1;

/// Stage Ss threshold on [`similarity`] (abmind's).
pub const DEFAULT_THRESHOLD: f64 = 0.65;

/// Stage Ss keeps at most this many hits (abmind's cap).
pub const DEFAULT_MAX_HITS: usize = 5;

/// Tokens shorter than this many characters contribute no trigrams (measured; see the
/// module doc).
pub const TRIGRAM_MIN_CHARS: usize = 4;

/// 64-bit words per signature.
const WORDS: usize = SIGNATURE_BITS / 64;

/// FNV-1a 64-bit offset basis and prime (Fowler, Noll, Vo).
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// splitmix64 increment γ (the golden ratio in 0.64 fixed point).
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// Leading key byte of a porter term feature.
const TAG_TERM: u8 = 1;
/// Leading key byte of a character trigram feature.
const TAG_TRIGRAM: u8 = 2;
/// Token padding; never part of a token, so it marks word boundaries.
const PAD: char = ' ';

/// A 256-bit signature: bit `b` is bit `b % 64` of word `b / 64`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Signature(pub [u64; 4]);

impl Signature {
    /// The 32 bytes of the signature: word 0 first, each word little-endian, so bit `b` is
    /// bit `b % 8` of byte `b / 8`.
    ///
    /// ```
    /// use recallkit::signature::Signature;
    /// let s = Signature([0x0102, 0, 0, 1 << 63]);
    /// let bytes = s.to_bytes();
    /// assert_eq!((bytes[0], bytes[1], bytes[31]), (0x02, 0x01, 0x80));
    /// assert_eq!(Signature::from_bytes(&bytes).unwrap(), s);
    /// ```
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, word) in out.chunks_exact_mut(8).zip(self.0) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        out
    }

    /// Reads the layout of [`to_bytes`](Self::to_bytes); `invalid_argument` unless `b` has
    /// exactly 32 bytes.
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        if b.len() != SIGNATURE_BITS / 8 {
            return Err(Error::InvalidArgument(format!(
                "a signature has {} bytes, got {}",
                SIGNATURE_BITS / 8,
                b.len()
            )));
        }
        let mut words = [0u64; WORDS];
        for (word, chunk) in words.iter_mut().zip(b.chunks_exact(8)) {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(chunk);
            *word = u64::from_le_bytes(bytes);
        }
        Ok(Self(words))
    }

    /// Whether every bit is zero: the signature of a text without features. (A text with
    /// features gives all zeros only with negligible probability.)
    pub fn is_empty(&self) -> bool {
        self.0 == [0; WORDS]
    }
}

/// The v1 signature of `text` under `seed` (see the module doc for the construction).
///
/// ```
/// use recallkit::signature::{signature, similarity};
/// let a = signature("deploy the billing service on Friday", 7);
/// let b = signature("deploy the biling service on friday", 7);
/// let c = signature("my sister likes green tea", 7);
/// assert!(similarity(&a, &b) > similarity(&a, &c));
/// assert!(signature("", 7).is_empty());
/// ```
pub fn signature(text: &str, seed: u64) -> Signature {
    let (mut tokens, mut terms) = (TermList::new(), TermList::new());
    analyse(text, &mut Stemmer::new(), &mut tokens, &mut terms);
    Signer::new().sign(&terms, &tokens, seed)
}

/// [`signature`] from a text already analysed: its porter `terms`
/// (`crate::text::for_each_term`) and folded `tokens` (`crate::text::tokenize::for_each_token`),
/// each in text order. Equal to `signature(text, seed)` for the same text; lets the engine
/// sign a memory without tokenising it a second time.
pub fn signature_of_analysed<'a>(
    terms: impl IntoIterator<Item = &'a str>,
    tokens: impl IntoIterator<Item = &'a str>,
    seed: u64,
) -> Signature {
    Signer::new().sign(terms, tokens, seed)
}

/// Computes signatures in reusable buffers: after the first few texts, signing allocates
/// nothing. [`Signer::sign`] equals [`signature_of_analysed`].
#[derive(Debug, Clone, Default)]
pub struct Signer {
    /// Feature hashes `h` of the text being signed, one per occurrence.
    hashes: Vec<u64>,
    /// A non-ASCII token padded with [`PAD`] on both sides.
    padded: Vec<u8>,
    /// Byte offset of each char of `padded`, then its length.
    char_starts: Vec<usize>,
    /// Counting table of [`Signer::finish`]: `(hash, occurrences)`, 0 occurrences when free.
    counts: Vec<(u64, u32)>,
    /// Slots of `counts` whose feature occurs more than once.
    repeated: Vec<u32>,
}

impl Signer {
    /// A signer with empty buffers (allocates nothing).
    pub fn new() -> Self {
        Self::default()
    }

    /// The signature of a text given its porter `terms` and folded `tokens`, each in text
    /// order; equal to [`signature_of_analysed`]`(terms, tokens, seed)`.
    pub fn sign<'a>(
        &mut self,
        terms: impl IntoIterator<Item = &'a str>,
        tokens: impl IntoIterator<Item = &'a str>,
        seed: u64,
    ) -> Signature {
        let features = terms.into_iter().map(|term| term_feature(term, seed));
        self.sign_features(features, tokens, seed)
    }

    /// [`sign`](Self::sign) with each porter term occurrence given by its feature hash
    /// ([`term_feature`] under the same `seed`), for a caller that remembers it per distinct
    /// term.
    pub fn sign_features<'a>(
        &mut self,
        term_features: impl IntoIterator<Item = u64>,
        tokens: impl IntoIterator<Item = &'a str>,
        seed: u64,
    ) -> Signature {
        self.hashes.clear();
        self.hashes.extend(term_features);
        for token in tokens {
            self.push_trigrams(token, seed);
        }
        self.finish()
    }

    /// Pushes the hash of each padded trigram of `token`, if it has at least
    /// [`TRIGRAM_MIN_CHARS`] characters: the key `TAG_TRIGRAM ‖ utf8(window)` of step 1,
    /// hashed straight from the token's bytes.
    fn push_trigrams(&mut self, token: &str, seed: u64) {
        let bytes = token.as_bytes();
        if bytes.len() < TRIGRAM_MIN_CHARS {
            return; // fewer bytes than chars needed, whatever the script
        }
        if bytes.is_ascii() {
            let pad = PAD as u8;
            let (first, last) = (bytes[0], bytes[bytes.len() - 1]);
            let hashes = &mut self.hashes;
            let mut push = |window: [u8; 3]| {
                let h = fnv1a64_from(TRIGRAM_KEY_STATE, &window);
                hashes.push(mix64(h ^ seed));
            };
            push([pad, first, bytes[1]]);
            for window in bytes.windows(3) {
                push([window[0], window[1], window[2]]);
            }
            push([bytes[bytes.len() - 2], last, pad]);
            return;
        }
        self.padded.clear();
        self.char_starts.clear();
        self.padded.push(PAD as u8);
        self.char_starts.push(0);
        for (offset, _) in token.char_indices() {
            self.char_starts.push(1 + offset);
        }
        self.padded.extend_from_slice(bytes);
        self.char_starts.push(self.padded.len());
        self.padded.push(PAD as u8);
        self.char_starts.push(self.padded.len());
        // `char_starts` holds n + 3 offsets for the n + 2 padded chars.
        if self.char_starts.len() < TRIGRAM_MIN_CHARS + 3 {
            return;
        }
        for bounds in self.char_starts.windows(4) {
            let window = &self.padded[bounds[0]..bounds[3]];
            let h = fnv1a64_from(TRIGRAM_KEY_STATE, window);
            self.hashes.push(mix64(h ^ seed));
        }
    }
}

/// The feature hash `h` of step 2 for an occurrence of porter term `term` under `seed`
/// (key `0x01 ‖ utf8(term)`).
pub fn term_feature(term: &str, seed: u64) -> u64 {
    mix64(fnv1a64_from(TERM_KEY_STATE, term.as_bytes()) ^ seed)
}

/// Steps 2–5 of the module doc over the feature hashes of one text (sorted in place).
fn signature_of_hashes(hashes: &mut [u64]) -> Signature {
    sort::sort_u64(hashes);
    let mut tally = Tally::default();
    for run in hashes.chunk_by(|a, b| a == b) {
        tally.add_feature(run[0], 1 + run.len().ilog2());
    }
    tally.signature()
}

/// Texts with more feature occurrences than this are counted by sorting, so the counting
/// table of [`Signer`] stays small.
const MAX_TABLE_HASHES: usize = 4096;

impl Signer {
    /// Steps 2–5 of the module doc over `self.hashes`: equal hashes are counted in an
    /// open-addressing table indexed by their low bits (the hashes are already mixed).
    ///
    /// A feature goes into the tally with weight 1 when it is first seen, and features seen
    /// again get the rest of their weight, `⌊log₂ tf⌋`, at the end: the same sums (they
    /// commute), without a pass over the whole table, and most features occur once.
    fn finish(&mut self) -> Signature {
        let n = self.hashes.len();
        if n > MAX_TABLE_HASHES {
            let signature = signature_of_hashes(&mut self.hashes);
            // Do not keep a huge buffer for the next, usually short, text.
            self.hashes = Vec::new();
            return signature;
        }
        let size = (2 * n).next_power_of_two().max(16);
        let mask = size - 1;
        let Self {
            hashes,
            counts,
            repeated,
            ..
        } = self;
        counts.clear();
        counts.resize(size, (0, 0));
        repeated.clear();
        let mut tally = Tally::default();
        for &h in hashes.iter() {
            let mut slot = h as usize & mask;
            loop {
                let entry = &mut counts[slot];
                if entry.1 == 0 {
                    *entry = (h, 1);
                    tally.add_feature(h, 1);
                    break;
                }
                if entry.0 == h {
                    entry.1 += 1;
                    if entry.1 == 2 {
                        // `slot < size <= 2 * MAX_TABLE_HASHES`, far below `u32::MAX`.
                        repeated.push(slot as u32);
                    }
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        for &slot in repeated.iter() {
            let (h, tf) = counts[slot as usize];
            tally.add_feature(h, tf.ilog2());
        }
        tally.signature()
    }
}

/// Largest weight [`Tally::add`] counts; heavier features count as this (a text never has
/// one: weights are `1 + ⌊log₂ tf⌋ ≤ 64`).
const MAX_WEIGHT: u32 = 255;
/// Bit planes of a [`Tally`]: each per-bit counter holds up to `2^PLANES − 1`.
const PLANES: usize = 16;
/// Most weight a [`Tally`] adds to its bit planes before flushing them.
const BATCH_MAX: u64 = (1 << PLANES) - 1;
/// Sign vectors a [`Tally`] gathers before adding them through its carry-save adders.
const BLOCK: usize = 16;

/// One bit per hyperplane.
type Bits = [u64; WORDS];

/// Exact integer sums of step 5: `P_b` = total weight of features whose sign bit `b` is set,
/// and `total` = total weight.
///
/// Bit-sliced counters (a positional popcount): plane `k` holds bit `k` of each of the 256
/// counters. A feature of weight `w` is added `w` times (`w ≤ tf`, so at most once per
/// occurrence). Sign vectors are gathered in blocks of [`BLOCK`] and summed by a tree of
/// carry-save adders into four running partial planes, `ones`, `twos`, `fours` and `eights`
/// (Harley–Seal); what overflows them, `sixteens`, is ripple-carried into the planes from
/// plane 4. That costs about five word operations per sign word, where a ripple-carry add of
/// each vector would travel about eight planes before the carries of all 256 bits die out.
/// The planes hold at most [`BATCH_MAX`] weight; beyond that they are flushed into plain
/// per-bit sums (only texts with tens of thousands of feature occurrences get there). The
/// result equals the per-bit sums exactly.
///
/// Reference: W. Muła, N. Kurz, D. Lemire, "Faster population counts using AVX2
/// instructions", The Computer Journal 61 (2018), for the Harley–Seal adder tree.
struct Tally {
    block: [Bits; BLOCK],
    block_len: usize,
    ones: Bits,
    twos: Bits,
    fours: Bits,
    eights: Bits,
    planes: [Bits; PLANES],
    /// Weight added to the partial planes and `planes` since they were last flushed.
    batch: u64,
    /// Per-bit sums of the flushed batches; empty until the first flush.
    flushed: Vec<u64>,
    total: u64,
}

impl Default for Tally {
    fn default() -> Self {
        Self {
            block: [[0; WORDS]; BLOCK],
            block_len: 0,
            ones: [0; WORDS],
            twos: [0; WORDS],
            fours: [0; WORDS],
            eights: [0; WORDS],
            planes: [[0; WORDS]; PLANES],
            batch: 0,
            flushed: Vec::new(),
            total: 0,
        }
    }
}

/// Carry-save adder: bitwise `a + b + c` as `(carry, sum)`, both one bit per position.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline]
fn csa(a: &Bits, b: &Bits, c: &Bits) -> (Bits, Bits) {
    let carry = std::array::from_fn(|w| (a[w] & b[w]) | ((a[w] ^ b[w]) & c[w]));
    let sum = std::array::from_fn(|w| a[w] ^ b[w] ^ c[w]);
    (carry, sum)
}

/// [`csa`] on two `v128` halves: LLVM kept the `u64` form scalar on wasm (and spilled). The
/// lane conversions cancel out once [`Tally::add_block`] is inlined, leaving vector loads,
/// stores and bitwise operations (measured: half the time of the scalar `add_block`).
/// `js/test/boundary.test.mjs` checks the wasm build against the signature golden file.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline]
fn csa(a: &Bits, b: &Bits, c: &Bits) -> (Bits, Bits) {
    use core::arch::wasm32::{u64x2, u64x2_extract_lane, v128, v128_and, v128_or, v128_xor};
    let halves = |x: &Bits| [u64x2(x[0], x[1]), u64x2(x[2], x[3])];
    let words = |x: [v128; 2]| {
        [
            u64x2_extract_lane::<0>(x[0]),
            u64x2_extract_lane::<1>(x[0]),
            u64x2_extract_lane::<0>(x[1]),
            u64x2_extract_lane::<1>(x[1]),
        ]
    };
    let (a, b, c) = (halves(a), halves(b), halves(c));
    let half: [v128; 2] = std::array::from_fn(|i| v128_xor(a[i], b[i]));
    let carry = std::array::from_fn(|i| v128_or(v128_and(a[i], b[i]), v128_and(half[i], c[i])));
    let sum = std::array::from_fn(|i| v128_xor(half[i], c[i]));
    (words(carry), words(sum))
}

impl Tally {
    /// Adds `weight` to the feature of hash `h` (step 4; nothing when `weight` is 0).
    #[inline]
    fn add_feature(&mut self, h: u64, weight: u32) {
        let mut state = h;
        let signs: Bits = std::array::from_fn(|_| {
            state = state.wrapping_add(GAMMA);
            mix64(state)
        });
        self.add(&signs, weight);
    }

    /// Adds a feature with sign bits `signs` and weight `weight` (at most [`MAX_WEIGHT`]).
    fn add(&mut self, signs: &Bits, weight: u32) {
        let weight = weight.min(MAX_WEIGHT);
        for _ in 0..weight {
            self.block[self.block_len] = *signs;
            self.block_len += 1;
            if self.block_len == BLOCK {
                self.add_block();
            }
        }
        self.total += u64::from(weight);
    }

    /// Adds the gathered sign vectors to the counters and empties the block.
    fn add_block(&mut self) {
        if self.batch + BLOCK as u64 > BATCH_MAX {
            self.flush();
        }
        self.block[self.block_len..].fill([0; WORDS]);
        let d = &self.block;
        let (twos_a, ones) = csa(&self.ones, &d[0], &d[1]);
        let (twos_b, ones) = csa(&ones, &d[2], &d[3]);
        let (fours_a, twos) = csa(&self.twos, &twos_a, &twos_b);
        let (twos_a, ones) = csa(&ones, &d[4], &d[5]);
        let (twos_b, ones) = csa(&ones, &d[6], &d[7]);
        let (fours_b, twos) = csa(&twos, &twos_a, &twos_b);
        let (eights_a, fours) = csa(&self.fours, &fours_a, &fours_b);
        let (twos_a, ones) = csa(&ones, &d[8], &d[9]);
        let (twos_b, ones) = csa(&ones, &d[10], &d[11]);
        let (fours_a, twos) = csa(&twos, &twos_a, &twos_b);
        let (twos_a, ones) = csa(&ones, &d[12], &d[13]);
        let (twos_b, ones) = csa(&ones, &d[14], &d[15]);
        let (fours_b, twos) = csa(&twos, &twos_a, &twos_b);
        let (eights_b, fours) = csa(&fours, &fours_a, &fours_b);
        let (sixteens, eights) = csa(&self.eights, &eights_a, &eights_b);
        (self.ones, self.twos, self.fours, self.eights) = (ones, twos, fours, eights);
        self.ripple(&sixteens, 4);
        self.batch += self.block_len as u64;
        self.block_len = 0;
    }

    /// Adds `2^first` to the counter of every bit set in `bits`.
    #[inline]
    fn ripple(&mut self, bits: &Bits, first: usize) {
        let mut carry = *bits;
        // The batch bound keeps every counter below 2^PLANES, so no carry leaves the last plane.
        for plane in &mut self.planes[first..] {
            let mut any = 0;
            for (bits, c) in plane.iter_mut().zip(&mut carry) {
                let next = *bits & *c;
                *bits ^= *c;
                *c = next;
                any |= next;
            }
            if any == 0 {
                break;
            }
        }
    }

    /// Moves the partial planes into the planes.
    fn settle(&mut self) {
        let partial = [self.ones, self.twos, self.fours, self.eights];
        for (k, bits) in partial.iter().enumerate() {
            self.ripple(bits, k);
        }
        self.ones = [0; WORDS];
        self.twos = [0; WORDS];
        self.fours = [0; WORDS];
        self.eights = [0; WORDS];
    }

    /// Moves every count into `flushed`.
    fn flush(&mut self) {
        self.settle();
        if self.flushed.is_empty() {
            self.flushed = vec![0; SIGNATURE_BITS];
        }
        for (k, plane) in self.planes.iter_mut().enumerate() {
            for (w, bits) in plane.iter_mut().enumerate() {
                for b in 0..64 {
                    self.flushed[64 * w + b] += ((*bits >> b) & 1) << k;
                }
                *bits = 0;
            }
        }
        self.batch = 0;
    }

    /// Bit `b` set iff `2·P_b > total`.
    fn signature(mut self) -> Signature {
        if self.block_len > 0 {
            self.add_block();
        }
        self.settle();
        let mut words = [0u64; WORDS];
        if self.flushed.is_empty() {
            // Every count is in the planes: compare them with ⌊total / 2⌋ (`2·P > total` iff
            // `P > ⌊total / 2⌋`) bit-sliced, from the top plane down.
            let half = self.total / 2;
            // Every counter is at most `total`, so the planes above its top bit are zero and
            // change neither `greater` nor `equal`.
            let used = (u64::BITS - self.total.leading_zeros()) as usize;
            let planes = &self.planes[..used.min(PLANES)];
            for (w, word) in words.iter_mut().enumerate() {
                let (mut greater, mut equal) = (0u64, u64::MAX);
                for (k, plane) in planes.iter().enumerate().rev() {
                    let bits = plane[w];
                    if (half >> k) & 1 == 1 {
                        equal &= bits;
                    } else {
                        greater |= equal & bits;
                        equal &= !bits;
                    }
                }
                *word = greater;
            }
            return Signature(words);
        }
        self.flush();
        for (b, &p) in self.flushed.iter().enumerate() {
            if 2 * p > self.total {
                words[b / 64] |= 1 << (b % 64);
            }
        }
        Signature(words)
    }
}

/// FNV-1a state after hashing the tag byte of a porter term key.
const TERM_KEY_STATE: u64 = (FNV_OFFSET ^ TAG_TERM as u64).wrapping_mul(FNV_PRIME);
/// FNV-1a state after hashing the tag byte of a trigram key.
const TRIGRAM_KEY_STATE: u64 = (FNV_OFFSET ^ TAG_TRIGRAM as u64).wrapping_mul(FNV_PRIME);

/// 64-bit FNV-1a.
#[cfg(test)]
fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_from(FNV_OFFSET, bytes)
}

/// 64-bit FNV-1a continued from `state` over `bytes`.
#[inline]
fn fnv1a64_from(state: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(state, |h, &b| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME))
}

/// Number of differing bits: the popcount of the XOR, word by word.
pub fn hamming_distance(a: &Signature, b: &Signature) -> u32 {
    a.0.iter()
        .zip(&b.0)
        .map(|(x, y)| (x ^ y).count_ones())
        .sum()
}

/// `1 − hamming_distance / 256`, in `[0, 1]`.
pub fn similarity(a: &Signature, b: &Signature) -> f64 {
    similarity_of_distance(hamming_distance(a, b))
}

/// `1 − distance / 256`; exact in `f64` for every distance.
pub(crate) fn similarity_of_distance(distance: u32) -> f64 {
    1.0 - f64::from(distance) / SIGNATURE_BITS as f64
}

#[cfg(test)]
pub(crate) mod test_support {
    use crate::test_support::SplitMix64;

    const ONSETS: [&str; 24] = [
        "b", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "t", "v", "w", "z", "br", "st",
        "pl", "tr", "gr", "ch", "sh", "kl",
    ];
    const NUCLEI: [&str; 8] = ["a", "e", "i", "o", "u", "ai", "ou", "ea"];
    const CODAS: [&str; 7] = ["", "n", "r", "t", "l", "m", "k"];

    /// `n` pronounceable synthetic words of 2–3 syllables, each a single porter term, with
    /// pairwise distinct terms, so substituting a word always changes exactly one term.
    pub(crate) fn vocabulary(n: usize, seed: u64) -> Vec<String> {
        let mut rng = SplitMix64(seed);
        let mut words = Vec::with_capacity(n);
        let mut stems = std::collections::BTreeSet::new();
        while words.len() < n {
            let syllables = 2 + rng.below(2);
            let mut word = String::new();
            for i in 0..syllables {
                word.push_str(pick(&mut rng, &ONSETS));
                word.push_str(pick(&mut rng, &NUCLEI));
                if i + 1 == syllables {
                    word.push_str(pick(&mut rng, &CODAS));
                }
            }
            let terms = crate::text::terms(&word);
            if terms.len() == 1 && stems.insert(terms[0].clone()) {
                words.push(word);
            }
        }
        words
    }

    fn pick<'a>(rng: &mut SplitMix64, items: &[&'a str]) -> &'a str {
        items[rng.below(items.len() as u64) as usize]
    }

    /// `len` words drawn uniformly from `vocabulary`.
    pub(crate) fn random_words(
        rng: &mut SplitMix64,
        vocabulary: &[String],
        len: usize,
    ) -> Vec<String> {
        (0..len)
            .map(|_| vocabulary[rng.below(vocabulary.len() as u64) as usize].clone())
            .collect()
    }

    /// A vocabulary word different from `word`.
    pub(crate) fn other_word(rng: &mut SplitMix64, vocabulary: &[String], word: &str) -> String {
        loop {
            let candidate = &vocabulary[rng.below(vocabulary.len() as u64) as usize];
            if candidate != word {
                return candidate.clone();
            }
        }
    }

    /// One character edit (substitute, delete, insert or swap) after the first letter; the
    /// result always differs from `word`, which must have at least 3 letters.
    pub(crate) fn misspell(rng: &mut SplitMix64, word: &str) -> String {
        let mut chars: Vec<char> = word.chars().collect();
        let pos = 1 + rng.below(chars.len() as u64 - 1) as usize;
        let letter = char::from(b'a' + rng.below(26) as u8);
        match rng.below(4) {
            0 => chars[pos] = if chars[pos] == letter { '0' } else { letter },
            1 => {
                chars.remove(pos);
            }
            2 => chars.insert(pos, letter),
            _ => {
                let p = pos.min(chars.len() - 2);
                if chars[p] == chars[p + 1] {
                    chars.remove(p);
                } else {
                    chars.swap(p, p + 1);
                }
            }
        }
        chars.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{misspell, other_word, random_words, vocabulary};
    use super::*;
    use crate::test_support::SplitMix64;

    fn random_signature(rng: &mut SplitMix64) -> Signature {
        let mut words = [0u64; WORDS];
        for w in &mut words {
            // Sparse and dense words both occur, so distances cover the whole range.
            *w = match rng.below(4) {
                0 => 0,
                1 => u64::MAX,
                2 => rng.next_u64() & rng.next_u64(),
                _ => rng.next_u64(),
            };
        }
        Signature(words)
    }

    fn hamming_by_bits(a: &Signature, b: &Signature) -> u32 {
        let bit = |s: &Signature, i: usize| (s.0[i / 64] >> (i % 64)) & 1;
        (0..SIGNATURE_BITS)
            .filter(|&i| bit(a, i) != bit(b, i))
            .count() as u32
    }

    #[test]
    fn hashes_with_the_published_fnv_and_splitmix_constants() {
        // FNV-1a test vectors (Fowler/Noll/Vo) and the first splitmix64 output for seed 0.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(mix64(GAMMA), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn bytes_round_trip_and_reject_wrong_lengths() {
        let mut rng = SplitMix64(11);
        for _ in 0..100 {
            let s = random_signature(&mut rng);
            assert_eq!(Signature::from_bytes(&s.to_bytes()).unwrap(), s);
        }
        for len in [0, 31, 33, 64] {
            let err = Signature::from_bytes(&vec![0; len]).unwrap_err();
            assert_eq!(err.code(), "invalid_argument");
            assert!(err.to_string().contains(&format!("got {len}")));
        }
    }

    #[test]
    fn bit_b_is_bit_b_mod_8_of_byte_b_div_8() {
        for b in [0usize, 7, 8, 63, 64, 200, 255] {
            let mut words = [0u64; WORDS];
            words[b / 64] = 1 << (b % 64);
            let bytes = Signature(words).to_bytes();
            for (i, &byte) in bytes.iter().enumerate() {
                let want = if i == b / 8 { 1u8 << (b % 8) } else { 0 };
                assert_eq!(byte, want, "bit {b}, byte {i}");
            }
        }
    }

    #[test]
    fn tally_matches_per_bit_sums() {
        let mut rng = SplitMix64(0x7a11);
        for case in 0..200 {
            let mut tally = Tally::default();
            let mut positive = [0u64; SIGNATURE_BITS];
            let mut total = 0u64;
            // Up to 600 features of weight up to 64 cross the 255-per-batch flush many times.
            for _ in 0..rng.below(600) {
                let signs: [u64; WORDS] = std::array::from_fn(|_| rng.next_u64());
                let weight = 1 + rng.below(64) as u32;
                tally.add(&signs, weight);
                for (b, p) in positive.iter_mut().enumerate() {
                    *p += u64::from(weight) * ((signs[b / 64] >> (b % 64)) & 1);
                }
                total += u64::from(weight);
            }
            let mut want = [0u64; WORDS];
            for (b, &p) in positive.iter().enumerate() {
                if 2 * p > total {
                    want[b / 64] |= 1 << (b % 64);
                }
            }
            assert_eq!(tally.signature(), Signature(want), "case {case}");
        }
    }

    #[test]
    fn hamming_distance_matches_a_bit_loop() {
        let mut rng = SplitMix64(0xa11ce);
        for case in 0..2000 {
            let a = random_signature(&mut rng);
            let b = random_signature(&mut rng);
            let d = hamming_distance(&a, &b);
            assert_eq!(d, hamming_by_bits(&a, &b), "case {case}: {a:?} {b:?}");
            assert_eq!(d, hamming_distance(&b, &a));
            assert_eq!(similarity(&a, &b), 1.0 - f64::from(d) / 256.0);
        }
    }

    #[test]
    fn similarity_spans_zero_to_one() {
        let zero = Signature::default();
        let ones = Signature([u64::MAX; 4]);
        assert_eq!(similarity(&zero, &zero), 1.0);
        assert_eq!(similarity(&zero, &ones), 0.0);
        assert_eq!(
            similarity(&zero, &Signature([u64::MAX, u64::MAX, 0, 0])),
            0.5
        );
    }

    #[test]
    fn texts_without_features_have_the_empty_signature() {
        for text in ["", "   ", "?!… — 🚀", "\u{0}\t\n"] {
            assert!(signature(text, 42).is_empty(), "{text:?}");
        }
        assert!(!signature("a", 42).is_empty());
        assert!(!signature("日本語", 42).is_empty());
    }

    #[test]
    fn folding_and_word_order_do_not_change_the_signature() {
        let seed = 9;
        let base = signature("Crème brûlée recipe from Zoë", seed);
        assert_eq!(base, signature("CREME BRULEE RECIPE FROM ZOE", seed));
        assert_eq!(base, signature("zoe, from: recipe brulee creme!", seed));
        assert_ne!(base, signature("Crème brûlée recipe from Zoë", seed + 1));
    }

    #[test]
    fn repeated_features_weigh_one_plus_log2_of_tf() {
        // One distinct term and no trigrams: every weight is positive, so the signature is
        // the term's sign bits whatever the count.
        let once = signature("ab", 5);
        assert_eq!(once, signature("ab ab ab ab ab", 5));
        // Two features of equal weight cancel where their signs differ (ties give 0); a second
        // occurrence of one of them (weight 1 + log2 2 = 2) breaks every tie in its favour.
        let a = signature("ab", 5);
        let c = signature("cd", 5);
        assert_eq!(
            signature("ab cd", 5),
            Signature(std::array::from_fn(|i| a.0[i] & c.0[i]))
        );
        assert_eq!(signature("ab ab cd", 5), a);
    }

    #[test]
    fn identical_texts_give_identical_signatures() {
        let vocabulary = vocabulary(3000, 1);
        for case in 0..1000u64 {
            let mut rng = SplitMix64(case);
            let seed = rng.next_u64();
            let len = 1 + rng.below(40) as usize;
            let text = random_words(&mut rng, &vocabulary, len).join(" ");
            let copy = text.clone();
            assert_eq!(
                signature(&text, seed),
                signature(&copy, seed),
                "case {case}"
            );
        }
    }

    const LSH_CASES: u64 = 2000;

    /// Similarities of one LSH case: a random 20-word text against a one-word substitution,
    /// a one-letter typo in the same word, and an unrelated text over the same vocabulary.
    #[derive(Debug, Clone, Copy)]
    struct Measured {
        substituted: u32,
        misspelt: u32,
        unrelated: u32,
    }

    /// Hamming distances of the seeded LSH cases, computed once for all tests that use them.
    fn lsh_cases() -> &'static [Measured] {
        static CASES: std::sync::OnceLock<Vec<Measured>> = std::sync::OnceLock::new();
        CASES.get_or_init(|| {
            let vocabulary = vocabulary(3000, 1);
            (0..LSH_CASES)
                .map(|case| {
                    let mut rng = SplitMix64(0x5151_0000 + case);
                    let seed = rng.next_u64();
                    let words = random_words(&mut rng, &vocabulary, 20);
                    let at = rng.below(20) as usize;
                    let mut substituted = words.clone();
                    substituted[at] = other_word(&mut rng, &vocabulary, &words[at]);
                    let mut misspelt = words.clone();
                    misspelt[at] = misspell(&mut rng, &words[at]);
                    let unrelated = random_words(&mut rng, &vocabulary, 20);
                    let base = signature(&words.join(" "), seed);
                    let distance =
                        |w: &[String]| hamming_distance(&base, &signature(&w.join(" "), seed));
                    Measured {
                        substituted: distance(&substituted),
                        misspelt: distance(&misspelt),
                        unrelated: distance(&unrelated),
                    }
                })
                .collect()
        })
    }

    #[test]
    fn a_one_word_edit_is_closer_than_an_unrelated_text() {
        let cases = lsh_cases();
        let failures: Vec<(usize, &Measured)> = cases
            .iter()
            .enumerate()
            .filter(|(_, m)| m.substituted >= m.unrelated || m.misspelt >= m.unrelated)
            .collect();
        assert!(
            failures.is_empty(),
            "{} of {} cases failed (seed 0x5151_0000 + case), first: {:?}",
            failures.len(),
            cases.len(),
            failures.first()
        );
    }

    #[test]
    fn similar_texts_reach_the_threshold_and_unrelated_ones_mostly_do_not() {
        let cases = lsh_cases();
        for (case, m) in cases.iter().enumerate() {
            for distance in [m.substituted, m.misspelt] {
                let s = similarity_of_distance(distance);
                assert!(
                    s >= DEFAULT_THRESHOLD,
                    "case {case}: similarity {s} for {m:?}"
                );
            }
        }
        let unrelated_above = cases
            .iter()
            .filter(|m| similarity_of_distance(m.unrelated) >= DEFAULT_THRESHOLD)
            .count();
        // Measured: 1.1 % (the synthetic vocabulary shares many syllables, hence trigrams).
        assert!(
            unrelated_above * 100 <= 3 * cases.len(),
            "{unrelated_above} of {} unrelated pairs reach the threshold",
            cases.len()
        );
    }

    /// `cargo test --release -- --ignored --nocapture similarity_distributions`
    #[test]
    #[ignore = "report, not a check"]
    fn similarity_distributions() {
        let cases = lsh_cases();
        let column = |f: fn(&Measured) -> u32| -> Vec<f64> {
            cases.iter().map(|m| similarity_of_distance(f(m))).collect()
        };
        let rows = [
            ("one word substituted", column(|m| m.substituted)),
            ("one letter misspelt", column(|m| m.misspelt)),
            ("unrelated", column(|m| m.unrelated)),
        ];
        for (name, mut values) in rows {
            values.sort_by(f64::total_cmp);
            let q = |p: f64| values[((values.len() - 1) as f64 * p).round() as usize];
            let above = values.iter().filter(|&&v| v >= DEFAULT_THRESHOLD).count();
            println!(
                "{name:22} min {:.3} p05 {:.3} p50 {:.3} p95 {:.3} max {:.3}  ≥ 0.65: {:.1} %",
                q(0.0),
                q(0.05),
                q(0.5),
                q(0.95),
                q(1.0),
                100.0 * above as f64 / values.len() as f64
            );
        }
    }

    /// `cargo test --release -- --ignored --nocapture signature_speed`
    #[test]
    #[ignore = "benchmark; run in release"]
    fn signature_speed() {
        let text = "Met Elena Smith at the client in Brussels on Tuesday; we talked about the \
                    plastic list and the price. Follow up with Yara Flores about the email.";
        let reps = 20_000u64;
        let start = std::time::Instant::now();
        let mut empty = 0;
        for seed in 0..reps {
            empty += usize::from(signature(text, seed).is_empty());
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / reps as f64;
        assert_eq!(empty, 0);
        println!("signature of a {}-byte memory: {us:.2} µs", text.len());
    }

    #[test]
    fn signature_of_analysed_text_equals_signature_of_text() {
        let texts = [
            "The quarterly budget review moved to Thursday, room 4B.",
            "Crème brûlée at the café; naïve coöperation!",
            "",
            "a bb ccc dddd eeeee",
        ];
        for text in texts {
            let terms = crate::text::terms(text);
            let tokens = crate::text::tokenize::tokens(text);
            let analysed = signature_of_analysed(
                terms.iter().map(String::as_str),
                tokens.iter().map(String::as_str),
                42,
            );
            assert_eq!(analysed, signature(text, 42), "{text}");
        }
    }

    /// Step 1–5 of the module doc written out directly: keys as byte strings, per-bit sums.
    fn reference_signature(text: &str, seed: u64) -> Signature {
        let mut hashes = Vec::new();
        crate::text::for_each_term(text, |term| {
            let mut key = vec![TAG_TERM];
            key.extend_from_slice(term.as_bytes());
            hashes.push(mix64(fnv1a64(&key) ^ seed));
        });
        crate::text::for_each_token(text, |token| {
            let padded: Vec<char> = std::iter::once(PAD)
                .chain(token.chars())
                .chain(std::iter::once(PAD))
                .collect();
            if padded.len() < TRIGRAM_MIN_CHARS + 2 {
                return;
            }
            for window in padded.windows(3) {
                let mut key = vec![TAG_TRIGRAM];
                key.extend(window.iter().collect::<String>().bytes());
                hashes.push(mix64(fnv1a64(&key) ^ seed));
            }
        });
        hashes.sort_unstable();
        let mut positive = [0u64; SIGNATURE_BITS];
        let mut total = 0u64;
        for run in hashes.chunk_by(|a, b| a == b) {
            let weight = u64::from(1 + run.len().ilog2());
            for (b, p) in positive.iter_mut().enumerate() {
                let sign = mix64(run[0].wrapping_add((b as u64 / 64 + 1).wrapping_mul(GAMMA)));
                *p += weight * ((sign >> (b % 64)) & 1);
            }
            total += weight;
        }
        let mut words = [0u64; WORDS];
        for (b, &p) in positive.iter().enumerate() {
            if 2 * p > total {
                words[b / 64] |= 1 << (b % 64);
            }
        }
        Signature(words)
    }

    #[test]
    fn signatures_equal_the_construction_written_out() {
        let mut rng = SplitMix64(0x51_6e);
        let pieces = [
            "deploy",
            "Crème",
            "brûlée",
            "Zoë's",
            "東京タワー",
            "Встреча",
            "a",
            "bb",
            "ccc",
            "dddd",
            "e-mail",
            "3.14",
            "naïve",
            "coöperation",
            "Straße",
            "ภาษาไทย",
            "ok",
            "the",
            "connections",
            "INV-48213",
            "a\u{1041}\u{1041}ed",
            "🚀",
            "\u{301}e",
        ];
        let mut signer = Signer::new();
        let (mut tokens, mut terms) = (TermList::new(), TermList::new());
        for case in 0..300 {
            // Up to 3,000 words: long texts cross the tally's flush.
            let len = if case % 50 == 0 {
                3000
            } else {
                rng.below(40) as usize
            };
            let words: Vec<&str> = (0..len)
                .map(|_| pieces[rng.below(pieces.len() as u64) as usize])
                .collect();
            let text = words.join(" ");
            let seed = rng.next_u64();
            let want = reference_signature(&text, seed);
            assert_eq!(signature(&text, seed), want, "case {case}");
            analyse(&text, &mut Stemmer::new(), &mut tokens, &mut terms);
            assert_eq!(signer.sign(&terms, &tokens, seed), want, "case {case}");
        }
    }

    #[test]
    fn tally_matches_per_bit_sums_across_flushes() {
        let mut rng = SplitMix64(0xf1_0511);
        let mut tally = Tally::default();
        let mut positive = [0u64; SIGNATURE_BITS];
        let mut total = 0u64;
        for _ in 0..5000 {
            let signs: [u64; WORDS] = std::array::from_fn(|_| rng.next_u64());
            let weight = 1 + rng.below(64) as u32;
            tally.add(&signs, weight);
            for (b, p) in positive.iter_mut().enumerate() {
                *p += u64::from(weight) * ((signs[b / 64] >> (b % 64)) & 1);
            }
            total += u64::from(weight);
        }
        assert!(total > 2 * BATCH_MAX);
        let mut want = [0u64; WORDS];
        for (b, &p) in positive.iter().enumerate() {
            if 2 * p > total {
                want[b / 64] |= 1 << (b % 64);
            }
        }
        assert_eq!(tally.signature(), Signature(want));
    }
}
