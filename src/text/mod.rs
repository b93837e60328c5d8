//! Text analysis equal to SQLite FTS5's `porter unicode61 remove_diacritics 2` tokenizer.
//!
//! The pipeline, stage by stage:
//!
//! | stage | module | FTS5 source |
//! |---|---|---|
//! | classify and fold each code point | [`normalize`] | `fts5_unicode2.c` |
//! | split into folded tokens | [`tokenize`] | `fts5UnicodeTokenize` |
//! | stem each token | [`porter`] | `fts5PorterCb` |
//! | cut terms at [`MAX_TERM_BYTES`] | [`for_each_term`] | `FTS5_MAX_TOKEN_SIZE` |
//!
//! [`analyse`] runs the pipeline once and keeps both the folded tokens and the terms, in
//! reusable [`TermList`]s, for callers that need both.
//!
//! ```
//! let mut terms = Vec::new();
//! recallkit::text::for_each_term("The Crème Brûlée was RUNNING away", |t| terms.push(t.to_owned()));
//! assert_eq!(terms, ["the", "creme", "brule", "wa", "run", "awai"]);
//! ```
//!
//! Invariants, all shared with FTS5 and checked against SQLite 3.51 by the fixtures in
//! `tests/fixtures/text/`:
//!
//! - Tokens and terms are never empty.
//! - The same text always gives the same terms; the query side must use the same function.
//! - Every term is made of folded token characters (plus, in one corner, the stand-ins of
//!   [`term_from_bytes`]), so it never contains whitespace, punctuation or symbols.
//!
//! Byte strings that are not UTF-8: FTS5 works on bytes, and two of its rules can leave a
//! term that ends inside a UTF-8 sequence (the porter corner in [`porter`] and the 32 KiB cut
//! in [`for_each_term`]). Such terms are represented by [`term_from_bytes`], which is
//! injective, so term equality is exactly FTS5's byte equality.
//!
//! Reference: SQLite `ext/fts5/fts5_tokenize.c`, `ext/fts5/fts5_unicode2.c`,
//! `ext/fts5/fts5Int.h` (public domain).

pub mod normalize;
pub mod porter;
pub mod term_list;
pub mod tokenize;
mod unicode_tables;

#[cfg(test)]
mod golden_tests;

use std::borrow::Cow;

pub use normalize::{continues_token, fold, is_token_char};
pub use porter::{stem, Stemmer};
pub use term_list::{analyse, TermList};
pub use tokenize::{for_each_token, tokens};

/// `&text[range]`, or `""` where std's indexing would panic (a bound off a char boundary or
/// past the end). The crate slices text only at bounds it found in that text, so the `""`
/// never shows; what it saves is std's slicing panic, whose message prints the text with
/// `char`'s `Debug` and so links the Unicode printable and grapheme tables (about 3 KB of
/// the gzipped wasm, by `node scripts/size.mjs`). Same checks, same speed as indexing.
#[inline]
pub fn slice<R: std::slice::SliceIndex<str, Output = str>>(text: &str, range: R) -> &str {
    text.get(range).unwrap_or_default()
}

/// `haystack.find(needle)`, by comparing bytes at each position: on valid UTF-8 a byte match
/// always starts on a char boundary, so the answer is the same. The crate's needles are
/// words and separators a few bytes long, where this is as fast as std's two-way searcher;
/// that searcher's setup and its empty-needle branch (std's slicing panic, [`slice()`]) are
/// about 8 KB of wasm.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (hay, needle) = (haystack.as_bytes(), needle.as_bytes());
    let Some(&first) = needle.first() else {
        return Some(0);
    };
    hay.windows(needle.len())
        .position(|w| w[0] == first && w == needle)
}

/// FTS5 stores at most this many bytes of a term and cuts longer ones there, possibly inside
/// a character (`FTS5_MAX_TOKEN_SIZE` in `fts5Int.h`). Queries are cut the same way.
pub const MAX_TERM_BYTES: usize = 32_768;

/// First code point of the stand-ins for stray bytes (U+2500 BOX DRAWINGS LIGHT HORIZONTAL).
/// The 128 code points from here are symbols (So), which are never part of a token.
const STRAY_BYTE_BASE: u32 = 0x2500;

/// Full FTS5 'porter unicode61 remove_diacritics 2' pipeline: calls f with each stemmed token.
///
/// Terms longer than [`MAX_TERM_BYTES`] are cut as FTS5 cuts them. Does not allocate per
/// token, except in the rare cases that need [`term_from_bytes`].
///
/// ```
/// let mut terms = Vec::new();
/// recallkit::text::for_each_term("Connections, connected; CONNECTING!", |t| terms.push(t.to_owned()));
/// assert_eq!(terms, ["connect", "connect", "connect"]);
/// ```
pub fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    let mut stemmer = porter::Stemmer::new();
    tokenize::for_each_token(text, |token| f(&term_of_token(token, &mut stemmer)));
}

/// The term of one folded token ([`for_each_token`]): its stem, or its first
/// [`MAX_TERM_BYTES`] bytes if it is longer. A pure function of the token, so callers may
/// remember it per distinct token.
///
/// ```
/// use recallkit::text::{term_of_token, Stemmer};
/// assert_eq!(term_of_token("running", &mut Stemmer::new()), "run");
/// ```
pub fn term_of_token<'a>(token: &'a str, stemmer: &'a mut Stemmer) -> Cow<'a, str> {
    if token.len() > MAX_TERM_BYTES {
        cut_term(token)
    } else {
        Cow::Borrowed(stemmer.stem(token))
    }
}

/// Convenience: all terms of `text`, as [`for_each_term`] produces them.
///
/// ```
/// assert_eq!(recallkit::text::terms("Running dogs"), ["run", "dog"]);
/// ```
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |term| out.push(term.to_owned()));
    out
}

/// Turns the bytes FTS5 would store for a term into the `str` this crate uses for it.
///
/// Valid UTF-8 is returned as is (borrowed). Each byte that is not part of a valid UTF-8
/// sequence (always `0x80..=0xFF`) becomes the character `U+2500 + (byte - 0x80)`, a box
/// drawing symbol that can never occur in a token, so distinct byte strings stay distinct.
/// Use it to compare raw terms read from SQLite (for example `fts5vocab` with bytes) against
/// this crate's output.
///
/// ```
/// use recallkit::text::term_from_bytes;
/// assert_eq!(term_from_bytes(b"caf\xC3\xA9"), "café");
/// assert_eq!(term_from_bytes(b"a\xE1\x81"), "a\u{2561}\u{2501}");
/// ```
pub fn term_from_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(valid) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(valid);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for &byte in chunk.invalid() {
            let stand_in = STRAY_BYTE_BASE + u32::from(byte & 0x7F);
            out.push(char::from_u32(stand_in).unwrap_or(char::REPLACEMENT_CHARACTER));
        }
    }
    Cow::Owned(out)
}

/// The first [`MAX_TERM_BYTES`] bytes of an over-long token (which the stemmer passes
/// through unchanged), mapped by [`term_from_bytes`] if the cut splits a character.
fn cut_term(token: &str) -> Cow<'_, str> {
    term_from_bytes(&token.as_bytes()[..MAX_TERM_BYTES.min(token.len())])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lengths(terms: &[String]) -> Vec<usize> {
        terms.iter().map(String::len).collect()
    }

    #[test]
    fn find_and_slice_read_as_std() {
        let texts = [
            "",
            "a",
            "**bold** and **",
            "x: y: z",
            "crème brûlée",
            "aaab",
            "日本語の本",
        ];
        let needles = ["", "a", "**", ": ", "è", "ab", "aab", "本", "brûlée", "zz"];
        for t in texts {
            for n in needles {
                assert_eq!(find(t, n), t.find(n), "{t} / {n}");
            }
        }
        assert_eq!(slice("crème", 0..4), "cr\u{e8}");
        assert_eq!(slice("crème", 0..2), "cr");
        assert_eq!(slice("crème", 0..3), "");
        assert_eq!(slice("crème", 3..), "");
        assert_eq!(slice("crème", ..9), "");
    }

    #[test]
    fn pipeline_folds_then_stems() {
        assert_eq!(terms("Crème Brûlée"), ["creme", "brule"]);
        assert_eq!(terms("CAFÉS, cafe\u{301}s"), ["cafe", "cafe"]);
        assert_eq!(terms("it's"), ["it", "s"]);
    }

    #[test]
    fn long_terms_are_cut_at_the_fts5_limit() {
        let long = "x".repeat(MAX_TERM_BYTES + 100);
        let got = terms(&long);
        assert!(
            got == ["x".repeat(MAX_TERM_BYTES)],
            "lengths {:?}",
            lengths(&got)
        );
    }

    #[test]
    fn a_cut_inside_a_character_keeps_the_stray_bytes_apart() {
        // 'ж' is D0 B6; the cut keeps D0, which stands in as U+2550.
        let long = format!("{}ж", "x".repeat(MAX_TERM_BYTES - 1));
        let expected = format!("{}\u{2550}", "x".repeat(MAX_TERM_BYTES - 1));
        let got = terms(&long);
        assert!(got == [expected], "lengths {:?}", lengths(&got));
    }

    #[test]
    fn term_from_bytes_borrows_valid_text() {
        assert!(matches!(term_from_bytes(b"plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn term_from_bytes_keeps_different_stray_bytes_different() {
        assert_ne!(term_from_bytes(b"a\xE1\x81"), term_from_bytes(b"a\xE1\x82"));
        assert_ne!(term_from_bytes(b"a\xE1"), term_from_bytes(b"a\xE1\x81"));
    }
}
