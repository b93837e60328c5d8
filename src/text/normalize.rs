//! Per-character rules of FTS5's `unicode61` tokenizer with `remove_diacritics 2`.
//!
//! Three questions are answered for every code point, exactly as SQLite answers them
//! (port of `fts5_unicode2.c` and of `fts5UnicodeTokenize` in `fts5_tokenize.c`):
//!
//! 1. **Does it start a token?** ([`is_token_char`]) A code point is a token character when its
//!    FTS5 general category is enabled. The default category list is `"L* N* Co"`, and
//!    `sqlite3Fts5UnicodeCatParse` always enables category 0 as well, which FTS5 uses for
//!    unassigned code points and for everything from U+100000 up. In ASCII that is exactly
//!    `[0-9A-Za-z]`.
//! 2. **Does it continue a token?** ([`continues_token`]) Token characters do, and so do the
//!    combining marks that `sqlite3Fts5UnicodeIsdiacritic` lists (a subset of U+0300–U+0331),
//!    whatever `remove_diacritics` says. Those marks are category Mn, so they cannot *start* a
//!    token: a leading `U+0301` is a separator, but `e U+0301` is one token. Every other
//!    combining mark (U+0332–U+036F, U+0345, ...) ends the token it follows.
//! 3. **What does it fold to?** ([`fold`]) ASCII `A-Z` become `a-z` and other ASCII is kept.
//!    Code points in U+0080–U+FFFF are lower-cased with the `CaseFolding.txt`-derived rule table
//!    and then mapped to their base letter by `fts5_remove_diacritic(.., bComplex = 1)` (for
//!    example `ǘ` → `u`, `ø` → `o`, `ḍ` → `d`). The listed combining marks fold to nothing and
//!    are dropped from the token. Above U+FFFF only Deseret (U+10400–U+10427) is lower-cased.
//!
//! SQLite decodes U+FFFE and U+FFFF as U+FFFD (`READ_UTF8`), so both are separators here too.
//!
//! The tables live in `unicode_tables.rs`, copied from SQLite. ASCII is answered by a few
//! operations; U+0080–U+036F (Latin-1, Latin Extended-A/B, IPA, combining marks) by one array
//! built from the tables on first use; other code points run the same binary searches as
//! SQLite, over category tables that the package holds packed and decodes on first use.
//!
//! Reference: SQLite `ext/fts5/fts5_unicode2.c`, `ext/fts5/fts5_tokenize.c` (public domain).

use super::unicode_tables as tables;

/// FTS5 category numbers (`aCategory` indexes) enabled by the default `"L* N* Co"` list,
/// as a bit set: 0 (always set by `sqlite3Fts5UnicodeCatParse`), L* = 5, 6, 7, 8, 9, 30,
/// N* = 13, 14, 15 and Co = 31.
const TOKEN_CATEGORIES: u32 = (1 << 0)
    | (1 << 5)
    | (1 << 6)
    | (1 << 7)
    | (1 << 8)
    | (1 << 9)
    | (1 << 30)
    | (1 << 13)
    | (1 << 14)
    | (1 << 15)
    | (1 << 31);

/// FTS5 category number of "Ll"; the odd members of a category-30 ("LC") run.
const CATEGORY_LL: u32 = 5;
/// FTS5 category number of "Lu"; the even members of a category-30 ("LC") run.
const CATEGORY_LU: u32 = 9;
/// FTS5 category number of runs that alternate upper and lower case letters.
const CATEGORY_LC: u32 = 30;

/// Non-ASCII code points below this limit are classified by one lookup in [`low_chars`]; the
/// limit covers Latin-1, Latin Extended-A/B, IPA, spacing modifiers and combining marks.
const LOW_LIMIT: u32 = 0x370;

/// [`CharInfo`] bit: the code point starts (and continues) a token.
const INFO_STARTS: u32 = 1 << 30;
/// [`CharInfo`] bit: the code point continues a token.
const INFO_CONTINUES: u32 = 1 << 29;
/// [`CharInfo`] mask of the folded code point (0 = dropped).
const INFO_FOLD_MASK: u32 = 0x1F_FFFF;

/// Everything the tokenizer needs to know about one code point, packed in a `u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CharInfo(u32);

impl CharInfo {
    /// True if the code point may start a token.
    #[inline]
    pub(crate) fn starts_token(self) -> bool {
        self.0 & INFO_STARTS != 0
    }

    /// True if the code point continues a token that has already started.
    #[inline]
    pub(crate) fn continues_token(self) -> bool {
        self.0 & INFO_CONTINUES != 0
    }

    /// The folded character, or `None` when folding drops it.
    #[inline]
    pub(crate) fn folded(self) -> Option<char> {
        match self.0 & INFO_FOLD_MASK {
            0 => None,
            code => char::from_u32(code),
        }
    }
}

/// FTS5 unicode61 fold with remove_diacritics=2: lower-case, strip diacritics. None = char is
/// dropped from the token.
///
/// Only meaningful for characters that [`continues_token`]; separators are returned folded by
/// the same rules, but the tokenizer never stores them.
///
/// | input | output |
/// |---|---|
/// | `'A'` | `Some('a')` |
/// | `'É'` | `Some('e')` |
/// | `'ǖ'` | `Some('u')` |
/// | `'ß'` | `Some('ß')` |
/// | `'Σ'` | `Some('σ')` |
/// | `'\u{301}'` (combining acute) | `None` |
///
/// ```
/// use recallkit::text::normalize::fold;
/// assert_eq!(fold('Ö'), Some('o'));
/// assert_eq!(fold('\u{0301}'), None);
/// ```
pub fn fold(c: char) -> Option<char> {
    char_info(c as u32).folded()
}

/// true if FTS5 unicode61 (default categories "L* N* Co", plus whatever remove_diacritics
/// changes) treats c as part of a token
///
/// This is the "may start a token" test. `remove_diacritics` changes nothing here: the
/// combining marks that FTS5 glues onto a preceding token are not token characters on their
/// own, see [`continues_token`].
///
/// ```
/// use recallkit::text::normalize::is_token_char;
/// assert!(is_token_char('x') && is_token_char('7') && is_token_char('é') && is_token_char('中'));
/// assert!(!is_token_char('\'') && !is_token_char('-') && !is_token_char('\u{0301}'));
/// ```
pub fn is_token_char(c: char) -> bool {
    char_info(c as u32).starts_token()
}

/// true if c extends a token that has already started: every [`is_token_char`] character plus
/// the combining marks of `sqlite3Fts5UnicodeIsdiacritic` (U+0300–U+0331 minus a few).
///
/// ```
/// use recallkit::text::normalize::continues_token;
/// assert!(continues_token('\u{0301}'));
/// assert!(!continues_token('\u{0332}'));
/// ```
pub fn continues_token(c: char) -> bool {
    char_info(c as u32).continues_token()
}

/// FTS5 category numbers of the numbers (Nd, Nl, No: "N*").
const NUMBER_CATEGORIES: u32 = (1 << 13) | (1 << 14) | (1 << 15);

/// The FTS5 category number of `c` (SQLite's `sqlite3Fts5UnicodeCategory`, with the runs that
/// alternate Lu and Ll resolved).
fn category_of(c: char) -> u32 {
    let runs = category_runs();
    category(
        c as u32,
        &tables::CATEGORY_BLOCKS_STATIC,
        &runs.starts,
        &runs.runs,
    )
}

/// Whether `c` is an upper-case letter (general category Lu) by SQLite's tables, the ones the
/// tokenizer reads (`char::is_uppercase` reads Unicode's `Uppercase` property, which also holds
/// Ⓐ and Ⅳ, and brings the standard library's case tables into the package).
///
/// ```
/// use recallkit::text::normalize::is_upper;
/// assert!(is_upper('M') && is_upper('Ä') && is_upper('Σ') && !is_upper('m') && !is_upper('1'));
/// ```
pub fn is_upper(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_uppercase();
    }
    category_of(c) == CATEGORY_LU
}

/// Whether `c` is a lower-case letter (general category Ll) by SQLite's tables.
pub fn is_lower(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_lowercase();
    }
    category_of(c) == CATEGORY_LL
}

/// Whether `c` is a number (general categories Nd, Nl and No) by SQLite's tables.
pub fn is_number(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    NUMBER_CATEGORIES & (1 << category_of(c)) != 0
}

/// Looks up the tokenizer's view of one code point (any `u32`; invalid ones are separators).
#[inline]
pub(crate) fn char_info(code: u32) -> CharInfo {
    if code < 0x80 {
        CharInfo(ascii_info(code))
    } else if code < LOW_LIMIT {
        CharInfo(low_chars()[(code - 0x80) as usize])
    } else {
        CharInfo(general_info(code))
    }
}

/// [`CharInfo`] bits of an ASCII code point: `A-Z` fold to `a-z`, the rest to themselves, and
/// the token characters of [`ascii_token_bytes`] start and continue tokens.
const fn ascii_info(code: u32) -> u32 {
    let lower = (code as u8).to_ascii_lowercase() as u32;
    if ASCII_TOKEN_BYTES[code as usize] {
        lower | INFO_STARTS | INFO_CONTINUES
    } else {
        lower
    }
}

/// [`CharInfo`] bits of the non-ASCII code points below [`LOW_LIMIT`], from
/// [`general_info`], built on first use (3.5 KB that the package need not carry).
fn low_chars() -> &'static [u32] {
    static LOW: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    LOW.get_or_init(|| (0x80..LOW_LIMIT).map(general_info).collect())
}

/// [`CharInfo`] bits of any code point from SQLite's tables (their run-time copies).
fn general_info(code: u32) -> u32 {
    let runs = category_runs();
    compute_info(
        code,
        &tables::CATEGORY_BLOCKS_STATIC,
        &runs.starts,
        &runs.runs,
        &tables::FOLD_RULES_STATIC,
        &tables::FOLD_OFFSETS_STATIC,
        &tables::DIACRITIC_KEYS_STATIC,
        &tables::DIACRITIC_BASES_STATIC,
    )
}

/// [`tables::CATEGORY_STARTS`] and [`tables::CATEGORY_RUNS`] as [`compute_info`] reads them
/// at run time, decoded on first use from their packed copies ([`PACKED_STARTS`],
/// [`RUN_CATEGORIES`], [`PACKED_RUN_LENGTHS`]). Only code points from U+0370 up need them.
struct CategoryRuns {
    starts: Vec<u16>,
    runs: Vec<u16>,
}

/// The decoded category tables (built on first use, then shared).
fn category_runs() -> &'static CategoryRuns {
    static DECODED: std::sync::OnceLock<CategoryRuns> = std::sync::OnceLock::new();
    DECODED.get_or_init(|| {
        let mut start = 0u16;
        let starts = (read_varints(&PACKED_STARTS).into_iter())
            .map(|delta| {
                start = start.wrapping_add(delta);
                start
            })
            .collect();
        let runs = (read_varints(&PACKED_RUN_LENGTHS).into_iter())
            .zip(RUN_CATEGORIES)
            .map(|(length, category)| length << 5 | u16::from(category))
            .collect();
        CategoryRuns { starts, runs }
    })
}

/// [`tables::CATEGORY_STARTS`] as LEB128 varints of each start's difference from the one before
/// (wrapping: each plane starts again from 0). A run mostly starts where the one before it
/// ends, so the differences are small: the two `u16` tables (3.5 KB each) gzip to 5.5 KB, their
/// packed form ([`PACKED_STARTS`], [`PACKED_RUN_LENGTHS`], [`RUN_CATEGORIES`]) to 2.6 KB.
static PACKED_STARTS: [u8; STARTS_BYTES] = varints(&tables::CATEGORY_STARTS, true);
const STARTS_BYTES: usize = varints_len(&tables::CATEGORY_STARTS, true);
/// The length of each run of [`tables::CATEGORY_RUNS`] (`run >> 5`) as LEB128 varints.
static PACKED_RUN_LENGTHS: [u8; RUN_LENGTH_BYTES] = varints(&tables::CATEGORY_RUNS, false);
const RUN_LENGTH_BYTES: usize = varints_len(&tables::CATEGORY_RUNS, false);
/// The category of each run of [`tables::CATEGORY_RUNS`] (`run & 0x1F`).
static RUN_CATEGORIES: [u8; tables::CATEGORY_RUNS.len()] = run_categories();

/// The `i`th value [`varints`] writes: the difference from the value before it (wrapping) when
/// `delta`, else a run's length.
const fn packed_value(values: &[u16], i: usize, delta: bool) -> u16 {
    if !delta {
        values[i] >> 5
    } else if i == 0 {
        values[0]
    } else {
        values[i].wrapping_sub(values[i - 1])
    }
}

/// Bytes [`varints`] writes for `values`.
const fn varints_len(values: &[u16], delta: bool) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < values.len() {
        let v = packed_value(values, i, delta);
        n += if v < 1 << 7 {
            1
        } else if v < 1 << 14 {
            2
        } else {
            3
        };
        i += 1;
    }
    n
}

/// LEB128 varints of [`packed_value`] for each of `values` (`N` from [`varints_len`]): the
/// encoding of [`crate::varint`], written here by a `const fn` so that only the packed bytes
/// are in the package.
const fn varints<const N: usize>(values: &[u16], delta: bool) -> [u8; N] {
    let mut out = [0u8; N];
    let (mut i, mut at) = (0, 0);
    while i < values.len() {
        let mut v = packed_value(values, i, delta);
        while v >= 0x80 {
            out[at] = (v as u8 & 0x7F) | 0x80;
            v >>= 7;
            at += 1;
        }
        out[at] = v as u8;
        at += 1;
        i += 1;
    }
    assert!(at == N, "varints_len disagrees with varints");
    out
}

/// Reads the values of [`varints`] ([`crate::varint::read`]).
fn read_varints(mut bytes: &[u8]) -> Vec<u16> {
    let mut out = Vec::with_capacity(bytes.len());
    while !bytes.is_empty() {
        out.push(crate::varint::read(&mut bytes) as u16);
    }
    out
}

/// The low 5 bits of every [`tables::CATEGORY_RUNS`] entry.
const fn run_categories() -> [u8; tables::CATEGORY_RUNS.len()] {
    let mut out = [0u8; tables::CATEGORY_RUNS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = (tables::CATEGORY_RUNS[i] & 0x1F) as u8;
        i += 1;
    }
    out
}

/// True for the ASCII bytes that are token characters (`aTokenChar` of the tokenizer).
pub(crate) static ASCII_TOKEN_BYTES: [bool; 128] = ascii_token_bytes();

/// Port of `sqlite3Fts5UnicodeAscii` with the default categories: walks the first category
/// runs and marks the ASCII code points whose category is enabled; NUL is never a token char.
pub(crate) const fn ascii_token_bytes() -> [bool; 128] {
    let mut out = [false; 128];
    let mut i = 0;
    let mut row = 0;
    while i < 128 {
        let run = tables::CATEGORY_RUNS[row] as usize;
        let enabled = is_token_category((run & 0x1F) as u32);
        let end = (run >> 5) + i;
        while i < 128 && i < end {
            out[i] = enabled;
            i += 1;
        }
        row += 1;
    }
    out[0] = false;
    out
}

/// Classifies and folds a non-ASCII code point from the given tables (the `const` tables in
/// tests, their run-time copies otherwise).
#[allow(clippy::too_many_arguments)]
const fn compute_info(
    code: u32,
    blocks: &[u16],
    starts: &[u16],
    runs: &[u16],
    rules: &[(u16, u8, u8)],
    offsets: &[u16],
    keys: &[u16],
    bases: &[u8],
) -> u32 {
    // READ_UTF8 turns the non-characters U+FFFE and U+FFFF into U+FFFD (a symbol, So).
    let code = if code & !1 == 0xFFFE { 0xFFFD } else { code };
    if code > char::MAX as u32 || (code >= 0xD800 && code < 0xE000) {
        return 0;
    }
    let starts_token = is_token_category(category(code, blocks, starts, runs));
    let flags = if starts_token {
        INFO_STARTS | INFO_CONTINUES
    } else if is_diacritic(code) {
        INFO_CONTINUES
    } else {
        0
    };
    let mut folded = fold_code(code, rules, offsets, keys, bases);
    // Never happens with SQLite's tables (a test checks every code point); keeps the bits valid.
    if folded > char::MAX as u32 || (folded >= 0xD800 && folded < 0xE000) {
        folded = code;
    }
    flags | folded
}

/// True if FTS5 category number `category` is enabled by the default category list.
const fn is_token_category(category: u32) -> bool {
    category < 32 && TOKEN_CATEGORIES & (1 << category) != 0
}

/// Port of `sqlite3Fts5UnicodeCategory`: the FTS5 category number of a code point
/// (0 for unassigned code points and for everything at or above U+100000).
const fn category(code: u32, blocks: &[u16], starts: &[u16], runs: &[u16]) -> u32 {
    if code >= 1 << 20 {
        return 0;
    }
    let plane = (code >> 16) as usize;
    let mut lo = blocks[plane] as usize;
    let mut hi = blocks[plane + 1] as usize;
    let key = code & 0xFFFF;
    let mut found = usize::MAX;
    while hi > lo {
        let mid = (hi + lo) / 2;
        if key >= starts[mid] as u32 {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if found == usize::MAX {
        return 0;
    }
    let first = starts[found] as u32;
    let run = runs[found] as u32;
    if key >= first + (run >> 5) {
        return 0;
    }
    let category = run & 0x1F;
    if category != CATEGORY_LC {
        category
    } else if (key - first) & 1 == 1 {
        CATEGORY_LL
    } else {
        CATEGORY_LU
    }
}

/// Port of `sqlite3Fts5UnicodeIsdiacritic`: the combining marks that continue a token.
const fn is_diacritic(code: u32) -> bool {
    // Bit i of the first mask is U+0300 + i; bit i of the second is U+0320 + i.
    const MASK_LOW: u32 = 0x0802_9FDF;
    const MASK_HIGH: u32 = 0x0003_61F8;
    if code < 768 || code > 817 {
        false
    } else if code < 768 + 32 {
        MASK_LOW & (1 << (code - 768)) != 0
    } else {
        MASK_HIGH & (1 << (code - 768 - 32)) != 0
    }
}

/// Port of `sqlite3Fts5UnicodeFold(code, 2)` for non-ASCII code points; 0 means "drop".
const fn fold_code(
    code: u32,
    rules: &[(u16, u8, u8)],
    offsets: &[u16],
    keys: &[u16],
    bases: &[u8],
) -> u32 {
    if code < 128 {
        return if code >= b'A' as u32 && code <= b'Z' as u32 {
            code + 32
        } else {
            code
        };
    }
    if code >= 65536 {
        // Deseret capitals are the only supplementary-plane case mapping FTS5 knows.
        return if code >= 66560 && code < 66600 {
            code + 40
        } else {
            code
        };
    }
    // Binary search for the last rule starting at or before `code`; rule 0 starts at 65.
    let mut lo = 0usize;
    let mut hi = rules.len();
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if code >= rules[mid].0 as u32 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (first, flags, length) = rules[lo];
    let (first, flags, length) = (first as u32, flags as u32, length as u32);
    let mut lower = code;
    if code < first + length && (1 & flags & (first ^ code)) == 0 {
        lower = (code + offsets[(flags >> 1) as usize] as u32) & 0xFFFF;
    }
    remove_diacritic(lower, keys, bases)
}

/// Port of `fts5_remove_diacritic(code, bComplex = 1)` for code points below 65536.
const fn remove_diacritic(code: u32, keys: &[u16], bases: &[u8]) -> u32 {
    let key = (code << 3) | 7;
    let mut lo = 0usize;
    let mut hi = keys.len();
    // Last entry whose key is <= `key`; entry 0 is 0, so one always exists.
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if key >= keys[mid] as u32 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let entry = keys[lo] as u32;
    if code > (entry >> 3) + (entry & 0x07) {
        code
    } else {
        (bases[lo] & !tables::HIBIT) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code point that `char` can hold.
    fn all_chars() -> impl Iterator<Item = char> {
        (0..=char::MAX as u32).filter_map(char::from_u32)
    }

    #[test]
    fn ascii_token_chars_are_exactly_letters_and_digits() {
        for b in 0u8..128 {
            assert_eq!(
                ASCII_TOKEN_BYTES[b as usize],
                b.is_ascii_alphanumeric(),
                "byte {b}"
            );
            assert_eq!(is_token_char(b as char), b.is_ascii_alphanumeric());
        }
    }

    #[test]
    fn ascii_folds_only_upper_case_letters() {
        assert_eq!(fold('Q'), Some('q'));
        assert_eq!(fold('q'), Some('q'));
        assert_eq!(fold('7'), Some('7'));
    }

    #[test]
    fn latin_letters_lose_case_and_diacritics() {
        let cases = [
            ('É', 'e'),
            ('é', 'e'),
            ('Ç', 'c'),
            ('ñ', 'n'),
            ('Å', 'a'),
            ('ǖ', 'u'),
            ('Ǻ', 'a'),
            ('ẞ', 'ß'),
            ('Ệ', 'e'),
            ('ư', 'u'),
        ];
        for (input, expected) in cases {
            assert_eq!(fold(input), Some(expected), "{input}");
        }
    }

    #[test]
    fn letters_without_a_base_letter_are_only_lower_cased() {
        assert_eq!(fold('ß'), Some('ß'));
        assert_eq!(fold('Æ'), Some('æ'));
        assert_eq!(fold('Ø'), Some('ø'));
        assert_eq!(fold('Ł'), Some('ł'));
        assert_eq!(fold('Σ'), Some('σ'));
        assert_eq!(fold('ς'), Some('σ'));
        assert_eq!(fold('Ж'), Some('ж'));
        assert_eq!(fold('Ά'), Some('ά'));
        assert_eq!(fold('\u{10400}'), Some('\u{10428}'));
    }

    #[test]
    fn listed_combining_marks_continue_tokens_and_fold_to_nothing() {
        for mark in ['\u{300}', '\u{301}', '\u{308}', '\u{327}'] {
            assert!(!is_token_char(mark));
            assert!(continues_token(mark));
            assert_eq!(fold(mark), None);
        }
    }

    #[test]
    fn unlisted_combining_marks_are_separators() {
        for mark in ['\u{332}', '\u{345}', '\u{36F}', '\u{20DD}'] {
            assert!(!is_token_char(mark));
            assert!(!continues_token(mark));
        }
    }

    #[test]
    fn non_characters_fffe_and_ffff_are_separators() {
        assert!(!continues_token('\u{FFFE}'));
        assert!(!continues_token('\u{FFFF}'));
        assert!(!continues_token('\u{FFFD}'));
    }

    #[test]
    fn unassigned_and_private_use_code_points_are_token_chars() {
        assert!(is_token_char('\u{E000}'));
        assert!(is_token_char('\u{10FFFD}'));
        assert!(is_token_char('\u{0378}'));
    }

    #[test]
    fn fold_of_every_code_point_is_a_valid_char_and_starts_never_vanish() {
        for c in all_chars() {
            let code = c as u32;
            if code & !1 == 0xFFFE {
                continue;
            }
            let expected = fold_code(
                code,
                &tables::FOLD_RULES,
                &tables::FOLD_OFFSETS,
                &tables::DIACRITIC_KEYS,
                &tables::DIACRITIC_BASES,
            );
            assert!(
                char::from_u32(expected).is_some() || expected == 0,
                "{code:#x}"
            );
            assert_eq!(fold(c).map_or(0, |f| f as u32), expected, "{code:#x}");
            if is_token_char(c) {
                assert!(fold(c).is_some(), "token char {code:#x} folds to nothing");
            }
        }
    }

    #[test]
    fn run_time_lookups_agree_with_sqlites_tables() {
        // Through the lazily built table below U+0370, and the decoded category runs above.
        for code in (0x80..0x3000).chain(0x1_0000..0x1_0500) {
            let expected = compute_info(
                code,
                &tables::CATEGORY_BLOCKS,
                &tables::CATEGORY_STARTS,
                &tables::CATEGORY_RUNS,
                &tables::FOLD_RULES,
                &tables::FOLD_OFFSETS,
                &tables::DIACRITIC_KEYS,
                &tables::DIACRITIC_BASES,
            );
            assert_eq!(char_info(code).0, expected, "{code:#x}");
        }
        assert_eq!(fold('Q'), Some('q'));
        assert_eq!(fold(' '), Some(' '));
        assert!(is_token_char('7') && !is_token_char('_') && !continues_token('\0'));
    }

    #[test]
    fn packed_category_tables_decode_to_sqlites_tables() {
        let runs = category_runs();
        assert_eq!(runs.starts, tables::CATEGORY_STARTS);
        assert_eq!(runs.runs, tables::CATEGORY_RUNS);
    }

    #[test]
    fn case_and_number_classes_are_within_the_standard_librarys() {
        // Unicode's Uppercase, Lowercase and Numeric properties hold the categories Lu, Ll and
        // N* and more (ª and º, modifier letters, Ⓐ, Ⅳ); SQLite's tables are of an older Unicode,
        // in which ʕ (U+0295) was still a lower-case letter.
        for code in 0..=char::MAX as u32 {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            assert!(!is_upper(c) || c.is_uppercase(), "{code:#x}");
            assert!(
                !is_lower(c) || c.is_lowercase() || code == 0x295,
                "{code:#x}"
            );
            assert!(!is_number(c) || c.is_numeric(), "{code:#x}");
            if c.is_ascii() || matches!(code, 0xC0..=0xFF | 0x391..=0x3C9 | 0x410..=0x44F) {
                assert_eq!(is_upper(c), c.is_uppercase(), "{code:#x}");
                assert_eq!(is_lower(c), c.is_lowercase(), "{code:#x}");
                assert_eq!(is_number(c), c.is_numeric(), "{code:#x}");
            }
        }
    }

    #[test]
    fn box_drawing_block_is_never_part_of_a_token() {
        // `text::term_from_bytes` relies on this to stand in for stray bytes.
        for code in 0x2500..0x2580 {
            let c = char::from_u32(code).unwrap_or('\u{2500}');
            assert!(!continues_token(c), "{code:#x}");
        }
    }
}
