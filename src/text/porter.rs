//! FTS5's Porter stemmer, byte for byte.
//!
//! The `porter` tokenizer of FTS5 wraps `unicode61` and stems every token it emits. This is a
//! port of `fts5PorterCb` and its helpers, which follow Porter (1980) with these departures:
//!
//! - Tokens shorter than [`PORTER_MIN_TOKEN_BYTES`] or longer than
//!   [`PORTER_MAX_TOKEN_BYTES`] bytes pass through unchanged (so `is`, `as` stay as they are).
//! - Step 2 has the suffixes `-logi` → `-log` and `-bli` → `-ble` of Porter's own C version.
//! - In the `*v*` test ("the stem contains a vowel") `y` counts as a vowel anywhere but at
//!   the first position, whatever precedes it.
//! - Within each step only the rules whose suffix ends in the same second-to-last letter are
//!   tried, in SQLite's order, and the first suffix that matches (with at least one byte
//!   left before it) ends the step whether or not its condition holds.
//!
//! The stemmer works on the UTF-8 bytes of the token: every byte that is not an ASCII vowel
//! is a consonant, so non-ASCII letters act as consonants. All rewrites are ASCII suffixes, so
//! the result is valid UTF-8 except in one corner: step 1b drops the last of two equal
//! consonant *bytes*, and a few characters end in two equal continuation bytes (U+1041 `၁`
//! is `E1 81 81`), so `a၁ed` becomes the bytes `a E1 81`. FTS5 stores those bytes as they
//! are; [`stem`] returns them mapped by [`super::term_from_bytes`].
//!
//! Speed: [`Stemmer`] reuses one buffer, so stemming allocates nothing; a stem that is a
//! prefix of its token (most of them) is returned as a slice of the token. Porter's measure
//! `m`, `*v*` and `*o` are answered with bit masks over the word's consonants and vowels,
//! computed only when a rule's suffix matched and only once per word. A test checks these
//! against a direct port of SQLite's byte-scanning helpers.
//!
//! Reference: SQLite `ext/fts5/fts5_tokenize.c`, `fts5PorterCb` (public domain).

use std::borrow::Cow;

/// Tokens longer than this many bytes are not stemmed (`FTS5_PORTER_MAX_TOKEN`).
pub const PORTER_MAX_TOKEN_BYTES: usize = 64;

/// Tokens shorter than this many bytes are not stemmed (the `nToken<3` test of `fts5PorterCb`).
pub const PORTER_MIN_TOKEN_BYTES: usize = 3;

/// FTS5's porter stemmer applied to one folded token (the porter tokenizer wraps unicode61).
///
/// Borrows the input when the stem is the token itself; allocates only when it changed.
/// [`super::for_each_term`] stems without allocating.
///
/// | token | stem |
/// |---|---|
/// | `caresses` | `caress` |
/// | `ponies` | `poni` |
/// | `relational` | `relat` |
/// | `hopping` | `hop` |
/// | `is` | `is` |
///
/// ```
/// use recallkit::text::porter::stem;
/// assert_eq!(stem("generalizations"), "gener");
/// assert_eq!(stem("running"), "run");
/// ```
pub fn stem(token: &str) -> Cow<'_, str> {
    let mut stemmer = Stemmer::new();
    match stemmer.stem(token) {
        stemmed if stemmed == token => Cow::Borrowed(token),
        stemmed => Cow::Owned(stemmed.to_owned()),
    }
}

/// Zero bytes kept in front of the word so that the last 8 bytes can always be read as one
/// `u64`, whatever the word's length.
const PAD: usize = 8;

/// A reusable FTS5 Porter stemmer that never allocates per word.
///
/// Keep one per indexing loop; [`Stemmer::stem`] returns a `&str` that borrows either the
/// token (when the stem is a prefix of it, the common case) or this stemmer's buffer.
///
/// ```
/// use recallkit::text::porter::Stemmer;
/// let mut stemmer = Stemmer::new();
/// assert_eq!(stemmer.stem("connections"), "connect");
/// assert_eq!(stemmer.stem("happy"), "happi");
/// ```
///
/// Internals: the word is copied into a fixed buffer, and Porter's per-byte flags are kept as
/// bit masks (bit `i` is byte `i`; words have at most 64 bytes). A flag only depends on the
/// bytes before it and every rewrite touches the end of the word, so flags are computed
/// lazily, up to where a condition needs them, and recomputed only from a rewritten byte on.
#[derive(Debug, Clone)]
pub struct Stemmer {
    /// `PAD` zero bytes, then the word.
    bytes: [u8; PAD + PORTER_MAX_TOKEN_BYTES],
    /// Length of the word in bytes.
    len: usize,
    /// Consonants as `fts5PorterGobbleVC` sees them: not `a e i o u`, and `y` only after a
    /// vowel or at the start.
    consonants: u64,
    /// Vowels as `fts5Porter_Vowel` (`*v*`) sees them: `a e i o u`, and `y` except at byte 0.
    vowels: u64,
    /// The flags of bytes `0..flags_len` are up to date.
    flags_len: usize,
    /// The lowest index a rule wrote to since the word was loaded (bytes below it are still
    /// the token's); `usize::MAX` if none.
    written_from: usize,
    /// Where [`Stemmer::stem`] joins the token's prefix and the written bytes.
    joined: String,
}

impl Default for Stemmer {
    fn default() -> Self {
        Self::new()
    }
}

impl Stemmer {
    /// A stemmer with empty buffers (allocates nothing).
    pub fn new() -> Self {
        Stemmer {
            bytes: [0; PAD + PORTER_MAX_TOKEN_BYTES],
            len: 0,
            consonants: 0,
            vowels: 0,
            flags_len: 0,
            written_from: usize::MAX,
            joined: String::new(),
        }
    }

    /// FTS5's porter stemmer applied to one folded token, like [`stem`] but without
    /// allocating (except in the stray-byte corner of the module docs).
    ///
    /// The stem is the token's first `keep` bytes followed by the few ASCII bytes that rules
    /// wrote, so it is assembled from those two `str`s without validating it again.
    pub fn stem<'a>(&'a mut self, token: &'a str) -> &'a str {
        if !self.run(token.as_bytes()) {
            return token;
        }
        let keep = self.written_from.min(self.len);
        // `get` is None only when `keep` splits a character: the stray-byte corner.
        let (Some(prefix), Ok(written)) = (
            token.get(..keep),
            std::str::from_utf8(&self.bytes[PAD + keep..PAD + self.len]),
        ) else {
            self.joined = super::term_from_bytes(&self.bytes[PAD..PAD + self.len]).into_owned();
            return &self.joined;
        };
        if written.is_empty() {
            return prefix;
        }
        self.joined.clear();
        self.joined.push_str(prefix);
        self.joined.push_str(written);
        &self.joined
    }

    /// Port of `fts5PorterCb`: stems `token` into `self.bytes` and returns true, or returns
    /// false when the token is too short or too long to be stemmed.
    fn run(&mut self, token: &[u8]) -> bool {
        if token.len() < PORTER_MIN_TOKEN_BYTES || token.len() > PORTER_MAX_TOKEN_BYTES {
            return false;
        }
        self.len = token.len();
        copy_short(&mut self.bytes[PAD..PAD + token.len()], token);
        self.written_from = usize::MAX;
        self.flags_len = 0;

        self.step_1a();
        if self.apply(rules_1b) == Applied::Flagged && self.apply(rules_1b2) == Applied::No {
            self.step_1b_tidy();
        }
        // Step 1c.
        if self.last() == b'y' && self.has_vowel(self.len - 1) {
            self.write(self.len - 1, b"i");
        }
        self.apply(rules_2);
        self.apply(rules_3);
        self.apply(rules_4);
        // Step 5a.
        let stem = self.len - 1;
        if self.last() == b'e' && (self.m_gt_1(stem) || (self.m_eq_1(stem) && !self.ends_cvc(stem)))
        {
            self.len -= 1;
        }
        // Step 5b.
        if self.len > 1
            && self.last() == b'l'
            && self.byte(self.len - 2) == b'l'
            && self.m_gt_1(self.len - 1)
        {
            self.len -= 1;
        }
        true
    }

    /// Byte `i` of the word.
    #[inline]
    fn byte(&self, i: usize) -> u8 {
        self.bytes[PAD + i]
    }

    /// The last byte of the word.
    #[inline]
    fn last(&self) -> u8 {
        self.bytes[PAD + self.len - 1]
    }

    /// The last 8 bytes of the word (zeros before its start), little-endian: the last byte
    /// is the most significant.
    #[inline]
    fn tail(&self) -> u64 {
        let mut word = [0u8; 8];
        word.copy_from_slice(&self.bytes[self.len..self.len + 8]);
        u64::from_le_bytes(word)
    }

    /// Replaces everything from byte `at` on by `bytes` (at most 4 ASCII letters, and
    /// `at + bytes.len()` never exceeds the token's length) and updates the flags.
    fn write(&mut self, at: usize, bytes: &[u8]) {
        let end = at + bytes.len();
        self.bytes[PAD + at..PAD + end].copy_from_slice(bytes);
        self.len = end;
        self.written_from = self.written_from.min(at);
        self.flags_len = self.flags_len.min(at);
    }

    /// Makes the flags of the first `len` bytes up to date.
    #[inline]
    fn need_flags(&mut self, len: usize) {
        if self.flags_len < len {
            self.update_flags(self.flags_len);
            self.flags_len = self.len;
        }
    }

    /// Recomputes the flags of bytes `from..len`, given those of the bytes before.
    fn update_flags(&mut self, from: usize) {
        let mut plain_vowels = 0u64;
        let mut ys = 0u64;
        for (i, &byte) in self.bytes[PAD + from..PAD + self.len].iter().enumerate() {
            let class = LETTER_CLASS[byte as usize];
            plain_vowels |= u64::from(class & CLASS_VOWEL) << (from + i);
            ys |= u64::from((class & CLASS_Y) >> 1) << (from + i);
        }
        let keep = low_bits(from);
        let fresh = low_bits(self.len) & !keep;
        let mut consonants = (self.consonants & keep) | (fresh & !plain_vowels);
        // A `y` is a vowel exactly when the byte before it is a consonant; go left to right
        // so that the byte before is already final.
        let mut rest = ys;
        while rest != 0 {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            if i > 0 && consonants & (1 << (i - 1)) != 0 {
                consonants &= !(1 << i);
            }
        }
        self.consonants = consonants;
        self.vowels = (self.vowels & keep) | plain_vowels | (ys & !1);
    }

    /// Step 1a: `sses` → `ss`, `ies` → `i`, `ss` → `ss`, `s` → ``.
    fn step_1a(&mut self) {
        let n = self.len;
        if self.byte(n - 1) != b's' {
            return;
        }
        if self.byte(n - 2) == b'e' {
            if (n > 4 && self.byte(n - 4) == b's' && self.byte(n - 3) == b's')
                || (n > 3 && self.byte(n - 3) == b'i')
            {
                self.len = n - 2;
            } else {
                self.len = n - 1;
            }
        } else if self.byte(n - 2) != b's' {
            self.len = n - 1;
        }
    }

    /// The end of step 1b after `-ed`/`-ing` went and no `at bl iz` rule applied: undouble a
    /// final consonant (not `l s z`), or add `e` to a short `cvc` stem.
    fn step_1b_tidy(&mut self) {
        let n = self.len;
        let c = self.last();
        // A one-byte stem here is a vowel (`-ed`/`-ing` need a vowel before them), so the
        // comparison with byte n - 2 (out of bounds in SQLite) is never reached.
        if !is_vowel(c, false)
            && c != b'l'
            && c != b's'
            && c != b'z'
            && n >= 2
            && c == self.byte(n - 2)
        {
            self.len -= 1;
        } else if self.m_eq_1(n) && self.ends_cvc(n) {
            self.write(n, b"e");
        }
    }

    /// Runs one step: `select` picks the rules by the second-to-last byte (`switch` in
    /// SQLite); the first rule whose suffix matches with at least one byte before it decides,
    /// and it rewrites the word if its condition holds on the remaining stem.
    fn apply(&mut self, select: impl Fn(u8) -> &'static [Rule]) -> Applied {
        let n = self.len;
        let key = if n >= 2 { self.byte(n - 2) } else { 0 };
        let tail = self.tail();
        for rule in select(key) {
            let suffix_len = rule.suffix_len as usize;
            if n <= suffix_len || tail >> (64 - 8 * suffix_len) != rule.suffix {
                continue;
            }
            let stem = n - suffix_len;
            let holds = match rule.cond {
                Cond::Always => true,
                Cond::MGt0 => self.m_gt_0(stem),
                Cond::MGt1 => self.m_gt_1(stem),
                Cond::MGt1AndSOrT => {
                    matches!(self.byte(stem - 1), b's' | b't') && self.m_gt_1(stem)
                }
                Cond::HasVowel => self.has_vowel(stem),
            };
            if !holds {
                return Applied::No;
            }
            self.len = stem;
            if !rule.replacement.is_empty() {
                self.write(stem, rule.replacement);
            }
            return if rule.flag {
                Applied::Flagged
            } else {
                Applied::Yes
            };
        }
        Applied::No
    }

    /// `fts5PorterGobbleVC` on bytes `from..len` (byte `from - 1`, if any, is a consonant):
    /// the index just past the first consonant that follows a vowel, if there is one.
    #[inline]
    fn vc_end(&self, from: usize, len: usize) -> Option<usize> {
        let range = low_bits(len) & !low_bits(from);
        let vowels = !self.consonants & range;
        if vowels == 0 {
            return None;
        }
        let first_vowel = vowels.trailing_zeros() as usize;
        let consonants = self.consonants & range & !low_bits(first_vowel + 1);
        if consonants == 0 {
            None
        } else {
            Some(consonants.trailing_zeros() as usize + 1)
        }
    }

    /// Porter's `m > 0` for the first `len` bytes.
    fn m_gt_0(&mut self, len: usize) -> bool {
        self.need_flags(len);
        self.vc_end(0, len).is_some()
    }

    /// Porter's `m > 1` for the first `len` bytes.
    fn m_gt_1(&mut self, len: usize) -> bool {
        self.need_flags(len);
        self.vc_end(0, len)
            .is_some_and(|end| self.vc_end(end, len).is_some())
    }

    /// Porter's `m = 1` for the first `len` bytes.
    fn m_eq_1(&mut self, len: usize) -> bool {
        self.need_flags(len);
        self.vc_end(0, len)
            .is_some_and(|end| self.vc_end(end, len).is_none())
    }

    /// Porter's `*o` for the first `len` bytes: they end consonant-vowel-consonant and the
    /// last one is not `w x y`.
    fn ends_cvc(&mut self, len: usize) -> bool {
        self.need_flags(len);
        len >= 3
            && !matches!(self.byte(len - 1), b'w' | b'x' | b'y')
            && (self.consonants >> (len - 3)) & 0b111 == 0b101
    }

    /// Porter's `*v*` as FTS5 has it, for the first `len` bytes.
    fn has_vowel(&mut self, len: usize) -> bool {
        self.need_flags(len);
        self.vowels & low_bits(len) != 0
    }
}

/// [`LETTER_CLASS`] bit of `a e i o u`.
const CLASS_VOWEL: u8 = 1;
/// [`LETTER_CLASS`] bit of `y`.
const CLASS_Y: u8 = 2;

/// Porter's view of each byte: [`CLASS_VOWEL`], [`CLASS_Y`] or 0 (a consonant).
static LETTER_CLASS: [u8; 256] = letter_classes();

/// Builds [`LETTER_CLASS`].
const fn letter_classes() -> [u8; 256] {
    let mut out = [0u8; 256];
    out[b'a' as usize] = CLASS_VOWEL;
    out[b'e' as usize] = CLASS_VOWEL;
    out[b'i' as usize] = CLASS_VOWEL;
    out[b'o' as usize] = CLASS_VOWEL;
    out[b'u' as usize] = CLASS_VOWEL;
    out[b'y' as usize] = CLASS_Y;
    out
}

/// A mask of the `count` lowest bits (`count` up to 64).
#[inline]
fn low_bits(count: usize) -> u64 {
    // Shifting by 64 is None, which is the right answer for count = 0.
    u64::MAX.checked_shr(64 - count as u32).unwrap_or(0)
}

/// `dst.copy_from_slice(src)` for the short slices of a word, with fixed-size moves instead
/// of a call to `memcpy` (which dominated the cost of stemming short words).
#[inline]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if dst.len() != n {
        return;
    }
    if n >= 16 {
        dst.copy_from_slice(src);
    } else if n >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..].copy_from_slice(&src[n - 4..]);
    } else {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = *s;
        }
    }
}

/// A rule's condition on the stem left after removing the suffix.
#[derive(Clone, Copy)]
enum Cond {
    /// No condition (step 1b2).
    Always,
    /// m > 0.
    MGt0,
    /// m > 1.
    MGt1,
    /// m > 1 and the stem ends in `s` or `t` (step 4 `-ion`).
    MGt1AndSOrT,
    /// The stem contains a vowel (`*v*`).
    HasVowel,
}

/// One suffix rule: replace the suffix by `replacement` if `cond` holds; `flag` marks the
/// rules whose success step 1b reports (`ret = 1` in SQLite).
struct Rule {
    /// The suffix's bytes as a little-endian integer (first byte least significant).
    suffix: u64,
    /// The suffix's length in bytes (1 to 8).
    suffix_len: u8,
    cond: Cond,
    replacement: &'static [u8],
    flag: bool,
}

/// Shorthand constructor for the rule tables.
const fn rule(suffix: &'static str, cond: Cond, replacement: &'static str) -> Rule {
    let bytes = suffix.as_bytes();
    let mut word = 0u64;
    let mut i = bytes.len();
    while i > 0 {
        i -= 1;
        word = (word << 8) | bytes[i] as u64;
    }
    Rule {
        suffix: word,
        suffix_len: bytes.len() as u8,
        cond,
        replacement: replacement.as_bytes(),
        flag: false,
    }
}

/// Like [`rule`], but a successful rewrite is reported as [`Applied::Flagged`].
const fn flagged(suffix: &'static str, cond: Cond, replacement: &'static str) -> Rule {
    let mut rule = rule(suffix, cond, replacement);
    rule.flag = true;
    rule
}

/// What [`Stemmer::apply`] did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Applied {
    /// No rule rewrote the word.
    No,
    /// An unflagged rule rewrote it.
    Yes,
    /// A flagged rule rewrote it.
    Flagged,
}

/// Step 1b rules (`eed`, `ed`, `ing`), selected by the second-to-last byte.
fn rules_1b(key: u8) -> &'static [Rule] {
    use Cond::*;
    static E: [Rule; 2] = [rule("eed", MGt0, "ee"), flagged("ed", HasVowel, "")];
    static N: [Rule; 1] = [flagged("ing", HasVowel, "")];
    match key {
        b'e' => &E,
        b'n' => &N,
        _ => &[],
    }
}

/// Step 1b2 rules (`at` → `ate`, `bl` → `ble`, `iz` → `ize`).
fn rules_1b2(key: u8) -> &'static [Rule] {
    use Cond::*;
    static A: [Rule; 1] = [rule("at", Always, "ate")];
    static B: [Rule; 1] = [rule("bl", Always, "ble")];
    static I: [Rule; 1] = [rule("iz", Always, "ize")];
    match key {
        b'a' => &A,
        b'b' => &B,
        b'i' => &I,
        _ => &[],
    }
}

/// Step 2 rules, selected by the second-to-last byte, in SQLite's order.
fn rules_2(key: u8) -> &'static [Rule] {
    use Cond::*;
    static A: [Rule; 2] = [rule("ational", MGt0, "ate"), rule("tional", MGt0, "tion")];
    static C: [Rule; 2] = [rule("enci", MGt0, "ence"), rule("anci", MGt0, "ance")];
    static E: [Rule; 1] = [rule("izer", MGt0, "ize")];
    static G: [Rule; 1] = [rule("logi", MGt0, "log")];
    static L: [Rule; 5] = [
        rule("bli", MGt0, "ble"),
        rule("alli", MGt0, "al"),
        rule("entli", MGt0, "ent"),
        rule("eli", MGt0, "e"),
        rule("ousli", MGt0, "ous"),
    ];
    static O: [Rule; 3] = [
        rule("ization", MGt0, "ize"),
        rule("ation", MGt0, "ate"),
        rule("ator", MGt0, "ate"),
    ];
    static S: [Rule; 4] = [
        rule("alism", MGt0, "al"),
        rule("iveness", MGt0, "ive"),
        rule("fulness", MGt0, "ful"),
        rule("ousness", MGt0, "ous"),
    ];
    static T: [Rule; 3] = [
        rule("aliti", MGt0, "al"),
        rule("iviti", MGt0, "ive"),
        rule("biliti", MGt0, "ble"),
    ];
    match key {
        b'a' => &A,
        b'c' => &C,
        b'e' => &E,
        b'g' => &G,
        b'l' => &L,
        b'o' => &O,
        b's' => &S,
        b't' => &T,
        _ => &[],
    }
}

/// Step 3 rules, selected by the second-to-last byte, in SQLite's order.
fn rules_3(key: u8) -> &'static [Rule] {
    use Cond::*;
    static A: [Rule; 1] = [rule("ical", MGt0, "ic")];
    static S: [Rule; 1] = [rule("ness", MGt0, "")];
    static T: [Rule; 2] = [rule("icate", MGt0, "ic"), rule("iciti", MGt0, "ic")];
    static U: [Rule; 1] = [rule("ful", MGt0, "")];
    static V: [Rule; 1] = [rule("ative", MGt0, "")];
    static Z: [Rule; 1] = [rule("alize", MGt0, "al")];
    match key {
        b'a' => &A,
        b's' => &S,
        b't' => &T,
        b'u' => &U,
        b'v' => &V,
        b'z' => &Z,
        _ => &[],
    }
}

/// Step 4 rules, selected by the second-to-last byte, in SQLite's order.
fn rules_4(key: u8) -> &'static [Rule] {
    use Cond::*;
    static A: [Rule; 1] = [rule("al", MGt1, "")];
    static C: [Rule; 2] = [rule("ance", MGt1, ""), rule("ence", MGt1, "")];
    static E: [Rule; 1] = [rule("er", MGt1, "")];
    static I: [Rule; 1] = [rule("ic", MGt1, "")];
    static L: [Rule; 2] = [rule("able", MGt1, ""), rule("ible", MGt1, "")];
    static N: [Rule; 4] = [
        rule("ant", MGt1, ""),
        rule("ement", MGt1, ""),
        rule("ment", MGt1, ""),
        rule("ent", MGt1, ""),
    ];
    static O: [Rule; 2] = [rule("ion", MGt1AndSOrT, ""), rule("ou", MGt1, "")];
    static S: [Rule; 1] = [rule("ism", MGt1, "")];
    static T: [Rule; 2] = [rule("ate", MGt1, ""), rule("iti", MGt1, "")];
    static U: [Rule; 1] = [rule("ous", MGt1, "")];
    static V: [Rule; 1] = [rule("ive", MGt1, "")];
    static Z: [Rule; 1] = [rule("ize", MGt1, "")];
    match key {
        b'a' => &A,
        b'c' => &C,
        b'e' => &E,
        b'i' => &I,
        b'l' => &L,
        b'n' => &N,
        b'o' => &O,
        b's' => &S,
        b't' => &T,
        b'u' => &U,
        b'v' => &V,
        b'z' => &Z,
        _ => &[],
    }
}

/// `fts5PorterIsVowel`: `a e i o u`, and `y` when `y_is_vowel`.
#[inline]
fn is_vowel(c: u8, y_is_vowel: bool) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u') || (y_is_vowel && c == b'y')
}

#[cfg(test)]
mod tests {
    use super::*;

    // Direct ports of SQLite's byte-scanning condition helpers, the oracle for `Stemmer`'s
    // bit-mask versions.

    /// `fts5PorterGobbleVC`: skips to the first vowel, then to the next consonant, and returns
    /// the index just past that consonant (0 if there is no such VC sequence). `y` is a vowel
    /// after a consonant; `prev_consonant` says what preceded `stem`.
    fn gobble_vc(stem: &[u8], prev_consonant: bool) -> usize {
        let mut consonant = prev_consonant;
        let mut i = 0;
        while i < stem.len() {
            consonant = !is_vowel(stem[i], consonant);
            if !consonant {
                break;
            }
            i += 1;
        }
        i += 1;
        while i < stem.len() {
            consonant = !is_vowel(stem[i], consonant);
            if consonant {
                return i + 1;
            }
            i += 1;
        }
        0
    }

    /// Porter's `m > 0`.
    fn m_gt_0(stem: &[u8]) -> bool {
        gobble_vc(stem, false) != 0
    }

    /// Porter's `m > 1`.
    fn m_gt_1(stem: &[u8]) -> bool {
        let n = gobble_vc(stem, false);
        n != 0 && gobble_vc(&stem[n..], true) != 0
    }

    /// Porter's `m = 1`.
    fn m_eq_1(stem: &[u8]) -> bool {
        let n = gobble_vc(stem, false);
        n != 0 && gobble_vc(&stem[n..], true) == 0
    }

    /// Porter's `*o`: the stem ends consonant-vowel-consonant and the last one is not `w x y`.
    fn ends_cvc(stem: &[u8]) -> bool {
        match stem.last() {
            None | Some(b'w' | b'x' | b'y') => false,
            Some(_) => {
                let mut mask = 0u32;
                let mut consonant = false;
                for &c in stem {
                    consonant = !is_vowel(c, consonant);
                    mask = ((mask << 1) | consonant as u32) & 0x7;
                }
                mask == 0x5
            }
        }
    }

    /// Porter's `*v*` as FTS5 has it: a vowel, where `y` counts except at position 0.
    fn has_vowel(stem: &[u8]) -> bool {
        stem.iter().enumerate().any(|(i, &c)| is_vowel(c, i > 0))
    }

    use crate::test_support::SplitMix64;

    #[test]
    fn bit_mask_conditions_agree_with_the_byte_scanning_port() {
        const SEED: u64 = 0x5EED_0F05;
        const CASES: usize = 20_000;
        let alphabet = b"aeiouybcdlstwxyz\xc3";
        let mut rng = SplitMix64(SEED);
        for case in 0..CASES {
            let len = 1 + rng.index(64);
            let word: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.index(alphabet.len())])
                .collect();
            let mut work = Stemmer::new();
            work.len = len;
            work.bytes[PAD..PAD + len].copy_from_slice(&word);
            for prefix in 0..=len {
                let stem = &word[..prefix];
                let context = format!("seed {SEED:#x} case {case} word {word:?} prefix {prefix}");
                assert_eq!(work.m_gt_0(prefix), m_gt_0(stem), "m>0 {context}");
                assert_eq!(work.m_gt_1(prefix), m_gt_1(stem), "m>1 {context}");
                assert_eq!(work.m_eq_1(prefix), m_eq_1(stem), "m=1 {context}");
                assert_eq!(work.ends_cvc(prefix), ends_cvc(stem), "*o {context}");
                assert_eq!(work.has_vowel(prefix), has_vowel(stem), "*v* {context}");
            }
        }
    }

    /// Path of the FTS5 reference vocabulary (word TAB stem, from SQLite 3.51), a copy of
    /// `shared/testdata/porter/fts5_porter.tsv` kept in the repository so CI needs nothing else.
    const REFERENCE_TSV: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/porter/fts5_porter.tsv"
    );

    #[test]
    fn stems_every_word_of_the_fts5_reference_vocabulary_identically() {
        let data = std::fs::read_to_string(REFERENCE_TSV)
            .unwrap_or_else(|e| panic!("cannot read {REFERENCE_TSV}: {e}"));
        let mut lines = 0;
        let mut mismatches = Vec::new();
        for line in data.lines() {
            let (word, expected) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("bad line {line:?}"));
            lines += 1;
            let got = stem(word);
            if got != expected {
                mismatches.push(format!("{word}: got {got}, want {expected}"));
            }
        }
        assert_eq!(lines, 42_589, "reference file changed");
        assert!(
            mismatches.is_empty(),
            "{} mismatches, first: {:?}",
            mismatches.len(),
            &mismatches[..mismatches.len().min(20)]
        );
    }

    #[test]
    fn classic_porter_examples_stem_as_in_fts5() {
        let cases = [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("caress", "caress"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("filing", "file"),
            ("happy", "happi"),
            ("relational", "relat"),
            ("hopeful", "hope"),
            ("electrical", "electr"),
            ("adoption", "adopt"),
            ("controll", "control"),
        ];
        for (word, expected) in cases {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    #[test]
    fn short_and_long_tokens_pass_through_borrowed() {
        assert!(matches!(stem("is"), Cow::Borrowed("is")));
        assert!(matches!(stem(""), Cow::Borrowed("")));
        let long = "connections".repeat(6);
        assert_eq!(long.len(), 66);
        assert!(matches!(stem(&long), Cow::Borrowed(_)));
        let at_limit = format!("{}s", "x".repeat(63));
        assert_eq!(stem(&at_limit), "x".repeat(63));
        let over_limit = format!("{}s", "x".repeat(64));
        assert!(matches!(stem(&over_limit), Cow::Borrowed(_)));
    }

    #[test]
    fn three_byte_tokens_can_shrink_to_one_byte() {
        assert_eq!(stem("aed"), "a");
        assert_eq!(stem("xed"), "xed");
        assert_eq!(stem("ies"), "ie");
    }

    #[test]
    fn non_ascii_bytes_count_as_consonants() {
        assert_eq!(stem("naïve"), "naïv");
        assert_eq!(stem("café"), "café");
        assert_eq!(stem("größer"), "größer");
    }

    #[test]
    fn a_stem_cut_inside_a_character_maps_the_stray_bytes() {
        // FTS5 stores the bytes `61 E1 81`: the second 0x81 of U+1041 was dropped as a double
        // consonant.
        assert_eq!(stem("a\u{1041}ed"), "a\u{2561}\u{2501}");
    }

    #[test]
    fn unchanged_stems_are_borrowed() {
        assert!(matches!(stem("sing"), Cow::Borrowed("sing")));
        assert!(matches!(stem("running"), Cow::Owned(_)));
    }
}
