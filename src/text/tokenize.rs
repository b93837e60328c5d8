//! Splits text into folded tokens exactly like FTS5's `unicode61 remove_diacritics 2`.
//!
//! Algorithm (port of `fts5UnicodeTokenize`):
//!
//! 1. Skip code points until one that [`is_token_char`](super::normalize::is_token_char)
//!    (letters, digits, private use, unassigned; see [`normalize`](super::normalize)).
//! 2. Take code points while they continue the token
//!    ([`continues_token`](super::normalize::continues_token)): token characters plus the
//!    combining marks in U+0300–U+0331 that FTS5 treats as diacritics.
//! 3. Fold each taken code point with [`fold`](super::normalize::fold) and drop the ones that
//!    fold to nothing; the result is one token.
//!
//! Consequences worth knowing: apostrophes, hyphens, underscores, dots and every other
//! punctuation or symbol split tokens (`don't` → `don`, `t`; `e-mail` → `e`, `mail`); digits
//! are tokens (`3.14` → `3`, `14`); emoji are separators; a CJK run without spaces is a single
//! token; combining marks outside U+0300–U+0331, such as Thai or Devanagari vowel signs and
//! Arabic or Hebrew points, split words (`हिन्दी` → `ह`, `न`, `द`); tokens are never empty,
//! because every token character folds to something. There is
//! no length limit here: FTS5 only cuts stored terms at 32 KiB (see [`super::MAX_TERM_BYTES`]).
//!
//! Speed: text is scanned as bytes. ASCII is classified with one table lookup and copied in
//! runs; an all-lowercase ASCII token is passed to the callback as a slice of the input with
//! no copy at all. Other tokens are folded into one reused `String`.
//!
//! Reference: SQLite `ext/fts5/fts5_tokenize.c` (public domain).

use super::normalize::{ascii_token_bytes, char_info, ASCII_TOKEN_BYTES};

/// Calls f once per token, in order, with the folded token text (exactly as FTS5 unicode61
/// remove_diacritics 2 would store it, before stemming). Must not allocate per token (reuse one
/// String buffer); ASCII fast path.
///
/// ```
/// let mut seen = Vec::new();
/// recallkit::text::tokenize::for_each_token("Don't PANIC, Zoë!", |t| seen.push(t.to_owned()));
/// assert_eq!(seen, ["don", "t", "panic", "zoe"]);
/// ```
pub fn for_each_token(text: &str, mut f: impl FnMut(&str)) {
    for_each_token_dyn(text, &mut String::new(), &mut f);
}

/// The one copy of the tokenizer loop behind [`for_each_token`], with the caller's buffer for
/// folded tokens. Each closure type passed to the generic loop is another copy of it in the
/// wasm; the callers of [`for_each_token`] (queries, coverage, MMR, names, contradictions) and
/// the engine's keyword and original-text tokens sharing this one saved 4.2 KB gzipped. They
/// tokenise a few short texts per call, where an indirect call per token is not measurable
/// (10k recall p50 and build within noise); the indexing of `textEn`, which tokenises every
/// stored text, calls [`for_each_token_in`] with its own closure.
#[inline(never)]
pub fn for_each_token_dyn(text: &str, buf: &mut String, f: &mut dyn FnMut(&str)) {
    for_each_token_in(text, buf, f);
}

/// [`for_each_token`] with the caller's buffer for folded tokens, for callers that tokenise
/// many texts: a text with a token to fold then costs no allocation.
pub fn for_each_token_in(text: &str, buf: &mut String, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if byte < 0x80 {
            if ASCII_CLASS[byte as usize] == 0 {
                i += 1;
                continue;
            }
            // Fast path: a run of ASCII token bytes.
            let start = i;
            let mut classes = 0;
            while i < bytes.len() {
                let class = ASCII_CLASS[bytes[i] as usize];
                if class == 0 {
                    break;
                }
                classes |= class;
                i += 1;
            }
            if i == bytes.len() || bytes[i] < 0x80 {
                if classes & CLASS_UPPER != 0 {
                    buf.clear();
                    buf.push_str(super::slice(text, start..i));
                    buf.make_ascii_lowercase();
                    f(buf);
                } else {
                    f(super::slice(text, start..i));
                }
                continue;
            }
            buf.clear();
            buf.push_str(super::slice(text, start..i));
            buf.make_ascii_lowercase();
        } else {
            let (code, width) = decode(bytes, i);
            i += width;
            let info = char_info(code);
            if !info.starts_token() {
                continue;
            }
            buf.clear();
            if let Some(c) = info.folded() {
                buf.push(c);
            }
        }
        i = extend_token(bytes, i, buf);
        f(buf);
    }
}

/// [`ASCII_CLASS`] value of ASCII token bytes that are already folded (`a-z`, `0-9`).
const CLASS_FOLDED: u8 = 1;
/// [`ASCII_CLASS`] value of `A-Z`.
const CLASS_UPPER: u8 = 2;

/// For each byte: [`CLASS_FOLDED`], [`CLASS_UPPER`], or 0 for ASCII separators and for every
/// byte of a non-ASCII character.
static ASCII_CLASS: [u8; 256] = ascii_classes();

/// Builds [`ASCII_CLASS`] from FTS5's ASCII token characters.
const fn ascii_classes() -> [u8; 256] {
    let token_bytes = ascii_token_bytes();
    let mut out = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        if token_bytes[b] {
            out[b] = if (b as u8).is_ascii_uppercase() {
                CLASS_UPPER
            } else {
                CLASS_FOLDED
            };
        }
        b += 1;
    }
    out
}

/// Convenience: all folded tokens.
///
/// ```
/// assert_eq!(recallkit::text::tokenize::tokens("Crème Brûlée"), ["creme", "brulee"]);
/// ```
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |token| out.push(token.to_owned()));
    out
}

/// Appends the folded rest of a token that started before byte `i` to `buf`; returns the
/// byte index just past the token.
fn extend_token(bytes: &[u8], mut i: usize, buf: &mut String) -> usize {
    while i < bytes.len() {
        let byte = bytes[i];
        if byte < 0x80 {
            if !ASCII_TOKEN_BYTES[byte as usize] {
                break;
            }
            buf.push(byte.to_ascii_lowercase() as char);
            i += 1;
        } else {
            let (code, width) = decode(bytes, i);
            let info = char_info(code);
            if !info.continues_token() {
                break;
            }
            if let Some(c) = info.folded() {
                buf.push(c);
            }
            i += width;
        }
    }
    i
}

/// Decodes the non-ASCII UTF-8 sequence starting at `bytes[i]` (from a `&str`, so valid);
/// returns the code point and its length in bytes.
#[inline]
fn decode(bytes: &[u8], i: usize) -> (u32, usize) {
    let lead = bytes[i] as u32;
    let tail = |k: usize| bytes.get(i + k).map_or(0, |b| (b & 0x3F) as u32);
    if lead < 0xE0 {
        (((lead & 0x1F) << 6) | tail(1), 2)
    } else if lead < 0xF0 {
        (((lead & 0x0F) << 12) | (tail(1) << 6) | tail(2), 3)
    } else {
        (
            ((lead & 0x07) << 18) | (tail(1) << 12) | (tail(2) << 6) | tail(3),
            4,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apostrophes_and_hyphens_split_tokens() {
        assert_eq!(tokens("don't"), ["don", "t"]);
        assert_eq!(tokens("l’homme"), ["l", "homme"]);
        assert_eq!(
            tokens("e-mail state-of-the-art"),
            ["e", "mail", "state", "of", "the", "art"]
        );
        assert_eq!(tokens("snake_case"), ["snake", "case"]);
    }

    #[test]
    fn precomposed_accents_are_removed() {
        assert_eq!(tokens("Crème Brûlée"), ["creme", "brulee"]);
        assert_eq!(tokens("Straße GRÜẞE"), ["straße", "gruße"]);
        assert_eq!(tokens("Tiếng Việt"), ["tieng", "viet"]);
    }

    #[test]
    fn decomposed_accents_fold_into_the_base_letter() {
        assert_eq!(tokens("e\u{301}"), ["e"]);
        assert_eq!(tokens("Cre\u{300}me"), ["creme"]);
        assert_eq!(tokens("n\u{303}\u{301}x"), ["nx"]);
    }

    #[test]
    fn a_leading_combining_mark_is_a_separator() {
        assert_eq!(tokens("\u{301}e"), ["e"]);
        assert_eq!(tokens("a \u{301}\u{301} b"), ["a", "b"]);
    }

    #[test]
    fn unlisted_combining_marks_split_tokens() {
        assert_eq!(tokens("a\u{332}b"), ["a", "b"]);
        assert_eq!(tokens("a\u{345}b"), ["a", "b"]);
    }

    #[test]
    fn digits_are_tokens() {
        assert_eq!(
            tokens("v2.0.1 route66 ١٢٣"),
            ["v2", "0", "1", "route66", "١٢٣"]
        );
        assert_eq!(tokens("3.14"), ["3", "14"]);
    }

    #[test]
    fn uppercase_non_ascii_is_lower_cased() {
        assert_eq!(tokens("ΣΟΦΊΑ МОСКВА ÆØÅ"), ["σοφία", "москва", "æøa"]);
        assert_eq!(tokens("İstanbul"), ["istanbul"]);
    }

    #[test]
    fn emoji_and_symbols_are_separators() {
        assert_eq!(tokens("hi👋there ©2024 €5"), ["hi", "there", "2024", "5"]);
    }

    #[test]
    fn cjk_runs_form_one_token() {
        assert_eq!(
            tokens("東京タワー 中文,测试"),
            ["東京タワー", "中文", "测试"]
        );
    }

    #[test]
    fn empty_and_separator_only_text_has_no_tokens() {
        assert!(tokens("").is_empty());
        assert!(tokens(" \t\n--!!?? \u{0}\u{FFFE}").is_empty());
    }

    #[test]
    fn long_tokens_are_kept_whole() {
        let long = "Ab".repeat(50_000);
        let got = tokens(&long);
        assert!(got == [long.to_lowercase()], "got {} tokens", got.len());
    }

    #[test]
    fn lowercase_ascii_tokens_borrow_the_input() {
        let text = "plain words";
        let mut pointers = Vec::new();
        for_each_token(text, |t| pointers.push(t.as_ptr()));
        assert_eq!(pointers, [text.as_ptr(), text[6..].as_ptr()]);
    }

    #[test]
    fn ascii_run_followed_by_non_ascii_continues_the_token() {
        assert_eq!(tokens("CAFÉ café cafe\u{301}s"), ["cafe", "cafe", "cafes"]);
        assert_eq!(tokens("abc€def"), ["abc", "def"]);
    }
}
