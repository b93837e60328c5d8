//! Golden tests: this crate's text analysis against fixtures produced by real SQLite FTS5.
//!
//! The fixtures live in `tests/fixtures/text/` and are written by `gen_tokens.py` there
//! (formats are described in that script):
//!
//! - `codepoints.txt`: the class and fold of every Unicode scalar value;
//! - `strings.txt`: tokens and porter terms of a few hundred realistic strings;
//! - `limits.txt`: the length at which FTS5 cuts long terms.

use super::normalize::{continues_token, fold, is_token_char};
use super::{for_each_term, term_from_bytes, tokens, MAX_TERM_BYTES};

/// Directory of the golden fixtures.
const FIXTURE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/text/");

/// Reads one fixture file, failing the test with its path if it is missing.
fn read_fixture(name: &str) -> String {
    let path = format!("{FIXTURE_DIR}{name}");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// Lines of a fixture without comments.
fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line))
        .filter(|(_, line)| !line.starts_with('#'))
}

/// Reads the hexadecimal or decimal number inside `{...}` at the start of `rest`; returns it
/// and the text after the closing brace.
fn braced(rest: &str, radix: u32) -> (u32, &str) {
    let inner = rest
        .strip_prefix('{')
        .and_then(|r| r.split_once('}'))
        .unwrap_or_else(|| panic!("bad escape near {rest:?}"));
    let value = u32::from_str_radix(inner.0, radix)
        .unwrap_or_else(|e| panic!("bad number {:?}: {e}", inner.0));
    (value, inner.1)
}

/// Decodes one escaped fixture field (`\\`, `\u{HEX}`, `\x{HH}`, `\r{N}`) into bytes.
fn unescape(field: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut last: Vec<u8> = Vec::new();
    let mut rest = field;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        if c != '\\' {
            last = c.to_string().into_bytes();
            out.extend_from_slice(&last);
            continue;
        }
        let kind = rest
            .chars()
            .next()
            .unwrap_or_else(|| panic!("dangling \\ in {field:?}"));
        rest = &rest[kind.len_utf8()..];
        match kind {
            '\\' => last = vec![b'\\'],
            'u' => {
                let (code, after) = braced(rest, 16);
                rest = after;
                let c = char::from_u32(code).unwrap_or_else(|| panic!("bad code point {code:#x}"));
                last = c.to_string().into_bytes();
            }
            'x' => {
                let (byte, after) = braced(rest, 16);
                rest = after;
                last = vec![u8::try_from(byte).unwrap_or_else(|_| panic!("bad byte {byte:#x}"))];
            }
            'r' => {
                let (count, after) = braced(rest, 10);
                rest = after;
                for _ in 0..count {
                    out.extend_from_slice(&last);
                }
                continue;
            }
            other => panic!("unknown escape \\{other} in {field:?}"),
        }
        out.extend_from_slice(&last);
    }
    out
}

/// Decodes a field that must be text.
fn unescape_text(field: &str) -> String {
    String::from_utf8(unescape(field)).unwrap_or_else(|e| panic!("field {field:?}: {e}"))
}

/// Decodes a line of stored FTS5 terms (after its tag) into this crate's term strings.
fn expected_terms(fields: &str) -> Vec<String> {
    if fields.is_empty() {
        return Vec::new();
    }
    fields
        .split('\t')
        .map(|field| term_from_bytes(&unescape(field)).into_owned())
        .collect()
}

/// All terms of `text` as `for_each_term` produces them.
fn collect_terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |term| out.push(term.to_owned()));
    out
}

/// Splits a line into its one-letter tag and the rest.
fn tagged(line: &str) -> (&str, &str) {
    match line.split_once('\t') {
        Some(split) => split,
        None => (line, ""),
    }
}

#[test]
fn realistic_strings_tokenize_and_stem_exactly_like_fts5() {
    let data = read_fixture("strings.txt");
    let mut lines = data_lines(&data);
    let mut cases = 0;
    let mut failures = Vec::new();
    while let Some((number, line)) = lines.next() {
        let (tag, text) = tagged(line);
        assert_eq!(tag, "D", "line {number}");
        let text = unescape_text(text);
        let (_, plain) = lines
            .next()
            .unwrap_or_else(|| panic!("no U line after {number}"));
        let (_, stemmed) = lines
            .next()
            .unwrap_or_else(|| panic!("no P line after {number}"));
        let (plain_tag, plain) = tagged(plain);
        let (stemmed_tag, stemmed) = tagged(stemmed);
        assert_eq!((plain_tag, stemmed_tag), ("U", "P"), "line {number}");
        let want_tokens = expected_terms(plain);
        let got_tokens = tokens(&text);
        if got_tokens != want_tokens {
            failures.push(format!(
                "line {number} {text:?}: tokens {got_tokens:?}, want {want_tokens:?}"
            ));
        }
        let want_terms = expected_terms(stemmed);
        let got_terms = collect_terms(&text);
        if got_terms != want_terms {
            failures.push(format!(
                "line {number} {text:?}: terms {got_terms:?}, want {want_terms:?}"
            ));
        }
        cases += 1;
    }
    assert!(cases >= 300, "only {cases} strings in the fixture");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// What FTS5 does with one code point, as recorded in `codepoints.txt`.
#[derive(Clone, Copy, Debug)]
enum Class {
    /// Separator.
    Separator,
    /// Starts and continues tokens.
    Token,
    /// Only continues tokens.
    Continuation,
}

/// The tokens FTS5 produced for "a{c}b x{c} {c}y {c}" given the class and fold of `c`.
fn probe_tokens(class: Class, folded: &str) -> Vec<String> {
    match class {
        Class::Separator => ["a", "b", "x", "y"].map(String::from).to_vec(),
        Class::Token => vec![
            format!("a{folded}b"),
            format!("x{folded}"),
            format!("{folded}y"),
            folded.to_owned(),
        ],
        Class::Continuation => vec![format!("a{folded}b"), format!("x{folded}"), "y".to_owned()],
    }
}

#[test]
fn every_code_point_is_classified_and_folded_like_fts5() {
    let data = read_fixture("codepoints.txt");
    let mut failures = Vec::new();
    let mut covered = 0u32;
    let mut next_expected = 0u32;
    for (number, line) in data_lines(&data) {
        let fields: Vec<&str> = line.split(' ').collect();
        let [first, last, class, delta] = fields[..] else {
            panic!("line {number}: {line:?}");
        };
        let parse_hex =
            |s: &str| u32::from_str_radix(s, 16).unwrap_or_else(|e| panic!("line {number}: {e}"));
        let (first, last) = (parse_hex(first), parse_hex(last));
        assert!(
            first == next_expected || (next_expected == 0xD800 && first == 0xE000),
            "line {number}: gap"
        );
        next_expected = last + 1;
        let class = match class {
            "S" => Class::Separator,
            "T" => Class::Token,
            "C" => Class::Continuation,
            other => panic!("line {number}: class {other:?}"),
        };
        let delta: Option<i64> = match delta {
            "-" => None,
            d => Some(d.parse().unwrap_or_else(|e| panic!("line {number}: {e}"))),
        };
        for code in first..=last {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            covered += 1;
            let want_fold = delta
                .and_then(|d| u32::try_from(i64::from(code) + d).ok())
                .and_then(char::from_u32);
            let ok_class = match class {
                Class::Separator => !continues_token(c),
                Class::Token => is_token_char(c) && continues_token(c),
                Class::Continuation => !is_token_char(c) && continues_token(c),
            };
            let ok_fold = matches!(class, Class::Separator) || fold(c) == want_fold;
            let folded = want_fold.map(String::from).unwrap_or_default();
            let text = format!("a{c}b x{c} {c}y {c}");
            let ok_tokens = tokens(&text) == probe_tokens(class, &folded);
            if !(ok_class && ok_fold && ok_tokens) && failures.len() < 50 {
                failures.push(format!(
                    "U+{code:04X}: class {class:?} fold {want_fold:?}; got token {} cont {} fold {:?} tokens {:?}",
                    is_token_char(c),
                    continues_token(c),
                    fold(c),
                    tokens(&text)
                ));
            }
        }
    }
    assert_eq!(next_expected, 0x11_0000, "fixture does not reach U+10FFFF");
    assert_eq!(covered, 0x11_0000 - 0x800);
    assert!(
        failures.is_empty(),
        "failures (first 50):\n{}",
        failures.join("\n")
    );
}

#[test]
fn max_term_bytes_matches_the_limit_fts5_applied() {
    let data = read_fixture("limits.txt");
    let limit = data_lines(&data)
        .find_map(|(_, line)| line.strip_prefix("max_term_bytes "))
        .and_then(|n| n.parse::<usize>().ok());
    assert_eq!(limit, Some(MAX_TERM_BYTES));
}

#[test]
fn unescape_handles_every_escape() {
    assert_eq!(unescape(r"a\\b"), b"a\\b");
    assert_eq!(unescape(r"\u{301}x"), "\u{301}x".as_bytes());
    assert_eq!(unescape(r"a\x{E1}\x{81}"), b"a\xE1\x81");
    assert_eq!(unescape(r"é\r{3}"), "éééé".as_bytes());
}
