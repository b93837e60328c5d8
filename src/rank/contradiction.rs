//! A contradiction test between two short texts, for abmind's interference warnings
//! ("⚠️ Conflicts with another result"). A lexical heuristic, not inference: it flags two
//! statements that say the same thing with opposite polarity, or the same thing with a
//! different value, and stays silent otherwise.
//!
//! # Analysis of one text
//!
//! 1. **Clauses.** The text is split into sentences at `. ! ? ;` and line breaks (a `.` between
//!    two digits, as in `3.14`, does not split). A sentence is split further before a
//!    contrast word (`but`, `however`, `although`, `though`, `whereas`, `instead`) and at a
//!    comma directly followed by a negation (`…, not tea`), so that "Alice likes coffee but not
//!    tea" holds two clauses and its `not` does not reach `coffee`.
//! 2. **Tokens** are the folded FTS5 `unicode61` tokens (lower case, no diacritics; see
//!    `text::tokenize`).
//! 3. **Polarity.** A clause is negated when it holds an odd number of negation cues: `not`,
//!    `no` (so `no longer`), `never`, `cannot`, `without`, `neither`, `none`, `nothing`,
//!    `nobody`, `nowhere`, `stopped`, `quit`, `ceased`, a contraction in `n't` (`doesn't`,
//!    `won't`, `can't`, … which tokenise as `doesn` + `t`), or a negated antonym
//!    (`disabled` = not `enabled`, `dislikes` = not `likes`, `false` = not `true`, …, which
//!    count as a cue and stand for their positive form).
//! 4. **Words.** Stop words (articles, auxiliaries, pronouns, prepositions, `anymore`,
//!    `longer`, `still`, …) are dropped. A *value* is a token with a digit (`3`, `10am`,
//!    `v2`), a month or weekday name, `am`/`pm` after a number, or `may` next to a number;
//!    consecutive values (stop words aside) form one value slot (`March 3 at 10am` →
//!    `[march 3 10am]`). Every other token is a *content* word, Porter-stemmed (`uses` and
//!    `use` → `us`). A clause is its polarity plus its sequence of content words and value
//!    slots.
//!
//! # The test
//!
//! Two texts contradict each other when some clause `x` of one and clause `y` of the other
//! satisfy one of:
//!
//! - **Negation** ([`ConflictKind::Negation`]): opposite polarity, and the word sequences are
//!   equal, or equal up to one inserted word with at least two words in the shorter one; at
//!   least one content word. "The project uses Postgres" / "The project no longer uses
//!   Postgres"; "We deploy on Fridays" / "We never deploy on Fridays anymore".
//! - **Value** ([`ConflictKind::Value`]): same polarity, sequences of the same length that agree
//!   on every content word (at least one) and hold value slots at the same positions, with at
//!   least one pair of slots where neither slot's atoms are all among the other's (so
//!   `[march 3]` refines, not contradicts, `[march 3 10am]`). A slot's *atoms* are what its
//!   formatting does not change: each token split into runs of digits (read as a number) and
//!   of letters, an ordinal ending after a number dropped, and three digits after a number
//!   joined to it as a thousands group, in any order: `March 3rd` and `3 March`, `3pm` and
//!   `3 pm`, `1,200` and `1200` are one value. "The deadline is March 3" / "The deadline is
//!   April 10".
//!
//! What it deliberately does not flag: paraphrases and reorderings with the same polarity,
//! different objects under opposite polarity ("uses Postgres" / "does not use MySQL": two
//! different words, not one), facts that differ in a content word ("Alice likes tea" /
//! "Alice likes coffee": a person can like both), and duplicates. Known misses: negation by
//! paraphrase ("gave up", "switched from"), and value updates phrased differently ("moved the
//! deadline to April 10"); known false alarms: two true counts of different events ("paid 30
//! dollars" / "paid 40 dollars").
//!
//! # Cost
//!
//! Analysis is one pass over the text (ASCII text is split into sentences, parts and tokens
//! in the same pass; other text goes through `text::tokenize` part by part). Each token costs
//! one lookup in a static open-addressing table built at compile time, which gives every list
//! it is in at once, and only possible content words are stemmed. Nothing is allocated per
//! token: a word is one 128-bit term, its bytes packed with its length when it has at most 15
//! bytes (so equal terms are equal words, exactly), otherwise a 64-bit FNV-1a hash with its
//! bytes kept apart; a value slot is a hash of its tokens' terms. Equal hashes are confirmed
//! on the bytes or tokens, so a collision (about 2⁻⁶⁴ per pair of different long words) costs
//! one extra comparison and never changes a decision. A [`Statement`] is at most four
//! allocations, made at their final size.
//!
//! Only the first [`MAX_CLAUSES`] clauses of a text are kept, and clauses longer than
//! [`MAX_CLAUSE_WORDS`] words are skipped (a run-on clause is not a crisp fact), so comparing
//! two statements costs at most `32 · 32` clause checks, each linear in integer comparisons
//! and most of them stopped by a length test or at the first word. On 10-result sets of the
//! bench corpus (`conflicts`, native, callgrind) this is about 4.5 times fewer instructions
//! than parsing into strings and sorted word lists, a third of which is now Porter stemming.

use std::fmt;

use crate::notes::fnv::fnv1a64;
use crate::text::normalize::ASCII_TOKEN_BYTES;
use crate::text::porter::Stemmer;
use crate::text::slice;
use crate::text::tokenize::for_each_token;

/// Clauses kept per text.
pub const MAX_CLAUSES: usize = 32;
/// Longest clause considered, in words (content words and value slots).
pub const MAX_CLAUSE_WORDS: usize = 64;

/// Which rule found a contradiction (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictKind {
    /// The same statement with opposite polarity.
    Negation,
    /// The same statement with a different value.
    Value,
}

/// Negation cues (see the module doc). `nor` is not one: "neither … nor" negates once.
const NEGATIONS: &str =
    "not no never cannot without neither none nothing nobody nowhere stopped quit ceased";
/// Tokens that, followed by the token `t`, spell an `n't` contraction.
const CONTRACTIONS: &str = "\
    don doesn didn isn aren wasn weren won wouldn can couldn shouldn haven hasn hadn mustn \
    needn ain shan mightn";
/// Negated antonyms and the positive form they stand for.
const ANTONYMS: &[(&str, &str)] = &[
    ("disabled", "enabled"),
    ("disable", "enable"),
    ("disables", "enables"),
    ("false", "true"),
    ("incorrect", "correct"),
    ("invalid", "valid"),
    ("unavailable", "available"),
    ("impossible", "possible"),
    ("disallowed", "allowed"),
    ("forbidden", "allowed"),
    ("dislike", "like"),
    ("dislikes", "likes"),
    ("disliked", "liked"),
    ("inactive", "active"),
    ("unsupported", "supported"),
    ("unable", "able"),
    ("disagree", "agree"),
    ("disagrees", "agrees"),
    ("unsafe", "safe"),
    ("unhappy", "happy"),
];
/// Words that start a new clause and are dropped.
const CONTRASTS: &str = "but however although though whereas instead";
/// Words that carry no subject, predicate or value.
const STOPWORDS: &str = "\
    a an the is are was were be been being am do does did doing has have had having will would \
    shall should can could may might must i me my mine we us our ours you your he him his she \
    her it its they them their this that these those to of in on at for with by from as and or \
    nor so than then there here s t d ll re ve m any anymore longer still also just really \
    very now currently actually already too yet every each about into onto over up out what \
    which who whom whose when where how all some more most much many only even ever again if";
/// Month names and abbreviations (`may` is handled apart: it is also a verb).
const MONTHS: &str = "\
    january february march april june july august september october november december jan feb \
    mar apr jun jul aug sep sept oct nov dec";
/// Weekday names.
const WEEKDAYS: &str = "monday tuesday wednesday thursday friday saturday sunday";

// Token flags: the lists a token is in, from one lookup in [`table`], plus `DIGIT`.
const NEGATION: u32 = 1;
const CONTRACTION: u32 = 1 << 1;
const CONTRAST: u32 = 1 << 2;
const STOP: u32 = 1 << 3;
const MONTH: u32 = 1 << 4;
const WEEKDAY: u32 = 1 << 5;
/// The token `may`.
const MAY: u32 = 1 << 6;
/// The tokens `am` and `pm`.
const AM_PM: u32 = 1 << 7;
/// The token `t`, which ends an `n't` contraction after a `CONTRACTION` token (`don` `t`).
const CONTRACTION_T: u32 = 1 << 8;
/// The token holds an ASCII digit.
const DIGIT: u32 = 1 << 9;
/// Bits from here on: 1 + the index of the token in `ANTONYMS`, or 0.
const ANTONYM_SHIFT: u32 = 16;
/// Tokens that can be part of a value slot, kept as they are.
const VALUE_LIKE: u32 = DIGIT | MONTH | WEEKDAY | MAY | AM_PM;
/// Tokens that are never content words (the others are stemmed when read). `pm` is the one
/// value-like token that can also be a content word; it is kept as is, which is its stem.
const NOT_CONTENT: u32 = NEGATION | CONTRAST | STOP | VALUE_LIKE;

/// The (sorted) word lists and their flags.
const LISTS: &[(&str, u32)] = &[
    (NEGATIONS, NEGATION),
    (CONTRACTIONS, CONTRACTION),
    (CONTRASTS, CONTRAST),
    (STOPWORDS, STOP),
    (MONTHS, MONTH),
    (WEEKDAYS, WEEKDAY),
    ("may", MAY),
    ("am pm", AM_PM),
    ("t", CONTRACTION_T),
];

/// Longest listed word, in bytes; also the longest word kept as a packed [`Term`].
const MAX_KEY_BYTES: usize = 15;
const TABLE_BITS: u32 = 10;
const TABLE_SIZE: usize = 1 << TABLE_BITS;

/// A word as one integer. A word of at most [`MAX_KEY_BYTES`] bytes is packed: its bytes in
/// the low bytes (little-endian) and its length in the top byte, so two short words are equal
/// exactly when their terms are. A longer word is [`LONG`] in the top byte and its 64-bit
/// FNV-1a hash, its bytes kept apart; a value slot is [`SLOT`] in the top byte and a hash of
/// its tokens' terms. Equal long or slot terms are confirmed on the bytes or tokens, so a hash
/// collision costs one more comparison and never changes a decision.
type Term = u128;
/// Top byte of the term of a word longer than [`MAX_KEY_BYTES`].
const LONG: u8 = 0xff;
/// Top byte of the term of a value slot.
const SLOT: u8 = 0xfe;

fn top(term: Term) -> u8 {
    (term >> 120) as u8
}

/// One slot of [`table`]: a packed word (`hi` is 0 when empty: a key's top byte is its
/// length) and the flags of its lists.
#[derive(Clone, Copy)]
struct Entry {
    /// The low and high halves of the key (`Term` would align the entry to 16 bytes).
    lo: u64,
    hi: u64,
    flags: u32,
}

impl Entry {
    const fn key(&self) -> Term {
        ((self.hi as Term) << 64) | self.lo as Term
    }
}

/// Every listed word and its flags, by open addressing with linear probing (at most a
/// quarter full, so a miss mostly stops at the first slot). Built on first use rather than
/// kept as a static: its 24 KB of packed keys repeat the word lists and cost about 6 KB of the
/// gzipped package, where building it takes microseconds.
fn table() -> &'static [Entry; TABLE_SIZE] {
    static TABLE: std::sync::OnceLock<Box<[Entry; TABLE_SIZE]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| Box::new(build_table()))
}

/// The flags of a packed word: the lists it is in.
fn flags_of(key: Term) -> u32 {
    let table = table();
    table[probe(table, key)].flags
}

// The lists are checked when the crate compiles (a word too long, a table too full), though the
// table itself is built at run time.
const _: () = {
    build_table();
};

/// The packed term of bytes `start..end` of `bytes` (at most [`MAX_KEY_BYTES`]).
const fn const_key(bytes: &[u8], start: usize, end: usize) -> Term {
    let mut key = ((end - start) as Term) << 120;
    let mut i = start;
    while i < end {
        key |= (bytes[i] as Term) << (8 * (i - start));
        i += 1;
    }
    key
}

/// [`const_key`] of a whole word, or `None` when it is longer than [`MAX_KEY_BYTES`]. Reads
/// the word as two overlapping little-endian integers: the overlapping bytes land at the same
/// positions, so or-ing them gives the plain packing.
#[inline(always)]
fn key(b: &[u8]) -> Option<Term> {
    let n = b.len();
    let half = |i: usize| u64::from(u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]));
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
    let packed = match n {
        0 => 0,
        1..=3 => {
            let mut k = Term::from(b[0]);
            if n > 1 {
                k |= Term::from(b[1]) << 8;
            }
            if n > 2 {
                k |= Term::from(b[2]) << 16;
            }
            k
        }
        4..=7 => Term::from(half(0) | (half(n - 4) << (8 * (n - 4)))),
        8..=MAX_KEY_BYTES => Term::from(word(0)) | (Term::from(word(n - 8)) << (8 * (n - 8))),
        _ => return None,
    };
    Some(packed | ((n as Term) << 120))
}

/// A 64-bit hash of a term.
const fn mix(term: Term) -> u64 {
    let x = (term as u64) ^ ((term >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^ (x >> 32)
}

/// The slot of `key` in `table`, or the empty slot where it would go.
const fn probe(table: &[Entry; TABLE_SIZE], key: Term) -> usize {
    let mut i = (mix(key) >> (64 - TABLE_BITS)) as usize;
    while table[i].hi != 0 && table[i].key() != key {
        i = (i + 1) % TABLE_SIZE;
    }
    i
}

const fn build_table() -> [Entry; TABLE_SIZE] {
    let mut table = [Entry {
        lo: 0,
        hi: 0,
        flags: 0,
    }; TABLE_SIZE];
    let mut count = 0;
    let mut l = 0;
    while l < LISTS.len() + ANTONYMS.len() {
        let (list, flags) = if l < LISTS.len() {
            LISTS[l]
        } else {
            let a = l - LISTS.len();
            (ANTONYMS[a].0, ((a + 1) as u32) << ANTONYM_SHIFT)
        };
        let bytes = list.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let start = i;
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i > start {
                assert!(i - start <= MAX_KEY_BYTES, "listed word too long");
                let key = const_key(bytes, start, i);
                let slot = probe(&table, key);
                if table[slot].hi == 0 {
                    count += 1;
                }
                table[slot].lo = key as u64;
                table[slot].hi = (key >> 64) as u64;
                table[slot].flags |= flags;
            }
        }
        l += 1;
    }
    assert!(4 * count <= TABLE_SIZE, "word table too full");
    table
}

/// A content word (stemmed) or a value slot, as a [`Term`]. For a long content word,
/// `start..end` are its bytes in [`Statement::bytes`]; for a value slot, its tokens in
/// [`Statement::values`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WordRef {
    term: Term,
    start: usize,
    end: usize,
}

/// A token of a value slot; for a long token, `start..end` are its bytes in
/// [`Statement::bytes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ValueToken {
    term: Term,
    start: usize,
    end: usize,
}

/// A clause: its polarity, whether it has a content word, and its words at `start..end` of
/// [`Statement::words`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Clause {
    negated: bool,
    content: bool,
    start: usize,
    end: usize,
}

impl Clause {
    fn len(&self) -> usize {
        self.end - self.start
    }
}

/// A text analysed into clauses, ready to be compared (module doc). Parse each text once and
/// compare the statements pairwise.
///
/// Two statements are equal when they hold the same clauses (the layout of the buffers is a
/// function of the clauses alone).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Statement {
    clauses: Vec<Clause>,
    words: Vec<WordRef>,
    values: Vec<ValueToken>,
    /// The bytes of the words and value tokens longer than [`MAX_KEY_BYTES`].
    bytes: Vec<u8>,
}

/// A token of the current sentence: its flags and the term of what it can be, its bytes for a
/// value-like token, its stem for a possible content word (0 for neither); for a long term,
/// `start..end` are its bytes in [`Pending::bytes`].
#[derive(Clone, Copy)]
struct Token {
    flags: u32,
    term: Term,
    start: usize,
    end: usize,
}

/// The tokens of the current sentence.
#[derive(Default)]
struct Pending {
    tokens: Vec<Token>,
    bytes: Vec<u8>,
    stemmer: Stemmer,
}

/// The term of `word`, and where its bytes were kept in `long` if it is long.
fn term_of(word: &[u8], long: &mut Vec<u8>) -> (Term, usize, usize) {
    match key(word) {
        Some(key) => (key, 0, 0),
        None => {
            let start = long.len();
            long.extend_from_slice(word);
            let term = (Term::from(LONG) << 120) | Term::from(fnv1a64(word));
            (term, start, long.len())
        }
    }
}

impl Pending {
    /// Classifies a token; `digit` tells whether it holds an ASCII digit.
    fn push(&mut self, token: &str, digit: bool) {
        let bytes = token.as_bytes();
        let raw = key(bytes);
        // No listed word is longer than a key.
        let mut flags = raw.map_or(0, flags_of);
        if digit {
            flags |= DIGIT;
        }
        let (term, start, end) = if flags & VALUE_LIKE != 0 {
            match raw {
                Some(key) => (key, 0, 0),
                None => term_of(bytes, &mut self.bytes),
            }
        } else if flags & NOT_CONTENT == 0 {
            let positive = match (flags >> ANTONYM_SHIFT) as usize {
                0 => token,
                a => ANTONYMS[a - 1].1,
            };
            term_of(self.stemmer.stem(positive).as_bytes(), &mut self.bytes)
        } else {
            (0, 0, 0)
        };
        self.tokens.push(Token {
            flags,
            term,
            start,
            end,
        });
    }

    fn clear(&mut self) {
        self.tokens.clear();
        self.bytes.clear();
    }
}

/// Buffers reused across [`Statement::parse_with`] calls.
#[derive(Default)]
pub struct Scratch {
    pending: Pending,
    /// Where the current clause starts in `pending.tokens`.
    clause_start: usize,
    /// A lower-cased token.
    lower: String,
    /// The statement being built (copied out at the end, so the result is allocated once at
    /// its final size).
    out: Statement,
}

// For each byte: the class bits of an ASCII token byte (a lower-case letter, an upper-case
// letter, a digit), or 0 (separators, breaks and every byte of a non-ASCII character).
const ASCII_LOWER: u8 = 1;
const ASCII_UPPER: u8 = 2;
const ASCII_DIGIT: u8 = 4;
static ASCII_CLASS: [u8; 256] = ascii_classes();

const fn ascii_classes() -> [u8; 256] {
    let mut out = [0; 256];
    let mut b = 0;
    while b < 128 {
        if ASCII_TOKEN_BYTES[b] {
            out[b] = if (b as u8).is_ascii_uppercase() {
                ASCII_UPPER
            } else if (b as u8).is_ascii_digit() {
                ASCII_DIGIT
            } else {
                ASCII_LOWER
            };
        }
        b += 1;
    }
    out
}

/// Whether the `.` at byte `i` ends a sentence: unless it is between two ASCII digits.
fn dot_ends_sentence(bytes: &[u8], i: usize) -> bool {
    let digit_before = i > 0 && bytes[i - 1].is_ascii_digit();
    let digit_after = bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
    !(digit_before && digit_after)
}

impl Scratch {
    /// Splits `text` into sentences and comma-separated parts (module doc) and reads them.
    fn read(&mut self, text: &str) {
        if text.is_ascii() {
            return self.read_ascii(text);
        }
        let bytes = text.as_bytes();
        let (mut part_start, mut after_comma) = (0, false);
        for i in 0..=bytes.len() {
            let sentence_end = match bytes.get(i) {
                None | Some(b'!' | b'?' | b';' | b'\n' | b'\r') => true,
                Some(b'.') => dot_ends_sentence(bytes, i),
                Some(b',') => false,
                Some(_) => continue,
            };
            let first = self.pending.tokens.len();
            // ASCII bytes are always char boundaries, so the slice is valid.
            for_each_token(slice(text, part_start..i), |t| {
                let digit = t.bytes().any(|b| b.is_ascii_digit());
                self.pending.push(t, digit);
            });
            if !self.end_part(first, after_comma, sentence_end) {
                return;
            }
            after_comma = !sentence_end;
            part_start = i + 1;
        }
    }

    /// [`Scratch::read`] of an ASCII text, where tokens are the runs of ASCII letters and
    /// digits, lower-cased (as `for_each_token` reads them), found in the same pass.
    fn read_ascii(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let (mut i, mut first, mut after_comma) = (0, 0, false);
        loop {
            let Some(&b) = bytes.get(i) else {
                self.end_part(first, after_comma, true);
                return;
            };
            if ASCII_CLASS[usize::from(b)] != 0 {
                let start = i;
                let mut classes = 0;
                while let Some(&b) = bytes.get(i) {
                    let class = ASCII_CLASS[usize::from(b)];
                    if class == 0 {
                        break;
                    }
                    classes |= class;
                    i += 1;
                }
                let digit = classes & ASCII_DIGIT != 0;
                if classes & ASCII_UPPER != 0 {
                    self.lower.clear();
                    self.lower.push_str(slice(text, start..i));
                    self.lower.make_ascii_lowercase();
                    self.pending.push(&self.lower, digit);
                } else {
                    self.pending.push(slice(text, start..i), digit);
                }
                continue;
            }
            let sentence_end = match b {
                b'!' | b'?' | b';' | b'\n' | b'\r' => true,
                b'.' => dot_ends_sentence(bytes, i),
                b',' => false,
                _ => {
                    i += 1;
                    continue;
                }
            };
            i += 1;
            if b == b'.' && !sentence_end {
                continue;
            }
            if !self.end_part(first, after_comma, sentence_end) {
                return;
            }
            after_comma = !sentence_end;
            first = self.pending.tokens.len();
        }
    }

    /// Ends a comma-separated part whose tokens start at `first`: ends the pending clause
    /// before it when it opens one and at each contrast word, and at its end when it ends a
    /// sentence. Returns false when no more clauses can be kept.
    fn end_part(&mut self, first: usize, after_comma: bool, sentence_end: bool) -> bool {
        let tokens = &self.pending.tokens;
        let bytes = &self.pending.bytes;
        if after_comma && opens_clause(&tokens[first..]) {
            self.out
                .push_clause(&tokens[self.clause_start..first], bytes);
            self.clause_start = first;
        }
        for k in first..tokens.len() {
            if tokens[k].flags & CONTRAST != 0 {
                self.out.push_clause(&tokens[self.clause_start..k], bytes);
                self.clause_start = k + 1;
            }
        }
        if self.out.clauses.len() >= MAX_CLAUSES {
            return false;
        }
        if sentence_end {
            self.out.push_clause(&tokens[self.clause_start..], bytes);
            self.pending.clear();
            self.clause_start = 0;
        }
        true
    }
}

/// The term of a value slot after appending a token of term `term`.
fn extend_slot(slot: Term, term: Term) -> Term {
    let hash = ((slot as u64) ^ mix(term)).wrapping_mul(0x0000_0100_0000_01b3);
    (Term::from(SLOT) << 120) | Term::from(hash)
}

/// Copies the bytes `start..end` of `from` to the end of `to` and returns where they are.
fn copy_bytes(from: &[u8], start: usize, end: usize, to: &mut Vec<u8>) -> (usize, usize) {
    if start == end {
        return (0, 0);
    }
    let at = to.len();
    to.extend_from_slice(&from[start..end]);
    (at, to.len())
}

impl Statement {
    /// Analyses `text` (module doc, "Analysis of one text").
    pub fn parse(text: &str) -> Statement {
        Statement::parse_with(text, &mut Scratch::default())
    }

    /// Bytes this statement holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.clauses.capacity() * std::mem::size_of::<Clause>()
            + self.words.capacity() * std::mem::size_of::<WordRef>()
            + self.values.capacity() * std::mem::size_of::<ValueToken>()
            + self.bytes.capacity()
    }

    /// [`Statement::parse`] with buffers reused from earlier calls.
    pub fn parse_with(text: &str, scratch: &mut Scratch) -> Statement {
        scratch.pending.clear();
        scratch.pending.tokens.reserve(64);
        scratch.out.words.reserve(32);
        scratch.out.clauses.reserve(8);
        scratch.clause_start = 0;
        scratch.read(text);
        let out = &mut scratch.out;
        let statement = Statement {
            clauses: out.clauses.as_slice().into(),
            words: out.words.as_slice().into(),
            values: out.values.as_slice().into(),
            bytes: out.bytes.as_slice().into(),
        };
        out.clauses.clear();
        out.words.clear();
        out.values.clear();
        out.bytes.clear();
        statement
    }

    /// Analyses the tokens of a clause and keeps it if it has words, is not too long and
    /// there is room for it.
    fn push_clause(&mut self, tokens: &[Token], token_bytes: &[u8]) {
        if tokens.is_empty() || self.clauses.len() >= MAX_CLAUSES {
            return;
        }
        let (words, values, bytes) = (self.words.len(), self.values.len(), self.bytes.len());
        let (mut negations, mut content) = (0usize, false);
        let mut i = 0;
        while i < tokens.len() {
            let token = tokens[i];
            let prev = i.checked_sub(1).map_or(0, |p| tokens[p].flags);
            let next = tokens.get(i + 1).map_or(0, |t| t.flags);
            i += 1;
            if next & CONTRACTION_T != 0 && token.flags & CONTRACTION != 0 {
                negations += 1;
                i += 1;
                continue;
            }
            if token.flags & NEGATION != 0 {
                negations += 1;
                continue;
            }
            if is_value(token.flags, prev, next) {
                let (start, end) = copy_bytes(token_bytes, token.start, token.end, &mut self.bytes);
                let value = self.values.len();
                self.values.push(ValueToken {
                    term: token.term,
                    start,
                    end,
                });
                match self.words[words..].last_mut() {
                    Some(slot) if top(slot.term) == SLOT => {
                        slot.term = extend_slot(slot.term, token.term);
                        slot.end += 1;
                    }
                    _ => self.words.push(WordRef {
                        term: extend_slot(0, token.term),
                        start: value,
                        end: value + 1,
                    }),
                }
                continue;
            }
            if token.flags & STOP != 0 {
                continue;
            }
            if token.flags >> ANTONYM_SHIFT != 0 {
                negations += 1;
            }
            let (start, end) = copy_bytes(token_bytes, token.start, token.end, &mut self.bytes);
            self.words.push(WordRef {
                term: token.term,
                start,
                end,
            });
            content = true;
            if self.words.len() - words > MAX_CLAUSE_WORDS {
                break;
            }
        }
        let len = self.words.len() - words;
        if len == 0 || len > MAX_CLAUSE_WORDS {
            self.words.truncate(words);
            self.values.truncate(values);
            self.bytes.truncate(bytes);
            return;
        }
        self.clauses.push(Clause {
            negated: negations % 2 == 1,
            content,
            start: words,
            end: self.words.len(),
        });
    }

    /// Whether the text held no clause with a word (nothing to contradict).
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty()
    }

    /// How `self` and `other` contradict each other, if they do (module doc, "The test").
    /// Symmetric in whether it returns `Some`.
    pub fn contradiction(&self, other: &Statement) -> Option<ConflictKind> {
        self.clauses.iter().find_map(|x| {
            other
                .clauses
                .iter()
                .find_map(|y| clause_contradiction(self, x, other, y))
        })
    }

    fn clause_words(&self, clause: &Clause) -> &[WordRef] {
        &self.words[clause.start..clause.end]
    }

    /// The bytes of a term kept at `start..end` of `self.bytes` if it is long.
    fn text(&self, term: Term, start: usize, end: usize) -> String {
        let len = usize::from(top(term));
        if len <= MAX_KEY_BYTES {
            String::from_utf8_lossy(&term.to_le_bytes()[..len]).into_owned()
        } else {
            String::from_utf8_lossy(&self.bytes[start..end]).into_owned()
        }
    }

    /// The clauses as words, for debugging and tests.
    fn clause_views(&self) -> Vec<ClauseView> {
        self.clauses
            .iter()
            .map(|clause| ClauseView {
                negated: clause.negated,
                words: self
                    .clause_words(clause)
                    .iter()
                    .map(|w| match top(w.term) {
                        SLOT => Word::Value(
                            self.values[w.start..w.end]
                                .iter()
                                .map(|v| self.text(v.term, v.start, v.end))
                                .collect(),
                        ),
                        _ => Word::Content(self.text(w.term, w.start, w.end)),
                    })
                    .collect(),
            })
            .collect()
    }
}

impl fmt::Debug for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Statement")
            .field("clauses", &self.clause_views())
            .finish()
    }
}

/// A clause spelled out (see [`Statement::clause_views`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct ClauseView {
    negated: bool,
    words: Vec<Word>,
}

/// A content word (stemmed) or a value slot (its tokens), spelled out.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Word {
    Content(String),
    Value(Vec<String>),
}

/// How two texts contradict each other, if they do (see the module doc).
///
/// ```
/// use recallkit::rank::contradiction::{contradiction, ConflictKind};
/// assert_eq!(
///     contradiction("The project uses Postgres", "The project does not use Postgres"),
///     Some(ConflictKind::Negation)
/// );
/// assert_eq!(
///     contradiction("The deadline is March 3", "The deadline is April 10"),
///     Some(ConflictKind::Value)
/// );
/// assert_eq!(contradiction("Alice likes tea", "Alice likes coffee"), None);
/// ```
pub fn contradiction(a: &str, b: &str) -> Option<ConflictKind> {
    let mut scratch = Scratch::default();
    Statement::parse_with(a, &mut scratch).contradiction(&Statement::parse_with(b, &mut scratch))
}

/// Whether a comma-separated part starts a new clause: it opens with a negation or contrast.
fn opens_clause(tokens: &[Token]) -> bool {
    match tokens {
        [first, ..] if first.flags & (NEGATION | CONTRAST) != 0 => true,
        [first, second, ..] => first.flags & CONTRACTION != 0 && second.flags & CONTRACTION_T != 0,
        _ => false,
    }
}

/// Whether a token is a value, given its flags and those of its neighbours (0 for none).
fn is_value(flags: u32, prev: u32, next: u32) -> bool {
    let near_number = (prev | next) & DIGIT != 0;
    flags & (DIGIT | MONTH | WEEKDAY) != 0
        || (flags & MAY != 0 && near_number)
        || (flags & AM_PM != 0 && prev & DIGIT != 0)
}

fn clause_contradiction(
    a: &Statement,
    x: &Clause,
    b: &Statement,
    y: &Clause,
) -> Option<ConflictKind> {
    if x.negated != y.negated {
        negates(a, x, b, y).then_some(ConflictKind::Negation)
    } else {
        differs_in_value(a, x, b, y).then_some(ConflictKind::Value)
    }
}

/// Whether word `x` of `a` equals word `y` of `b`: equal terms, confirmed on the bytes or
/// tokens when they are hashes.
fn same_word(a: &Statement, x: &WordRef, b: &Statement, y: &WordRef) -> bool {
    if x.term != y.term {
        return false;
    }
    match top(x.term) {
        LONG => a.bytes[x.start..x.end] == b.bytes[y.start..y.end],
        SLOT => {
            let (xs, ys) = (&a.values[x.start..x.end], &b.values[y.start..y.end]);
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(s, t)| same_value(a, s, b, t))
        }
        _ => true,
    }
}

/// Whether value token `s` of `a` equals value token `t` of `b`.
fn same_value(a: &Statement, s: &ValueToken, b: &Statement, t: &ValueToken) -> bool {
    s.term == t.term && (top(s.term) != LONG || a.bytes[s.start..s.end] == b.bytes[t.start..t.end])
}

/// Equal, or equal up to one inserted word with at least two words in the shorter; at least
/// one content word.
fn negates(a: &Statement, x: &Clause, b: &Statement, y: &Clause) -> bool {
    let (a, x, b, y) = if x.len() <= y.len() {
        (a, x, b, y)
    } else {
        (b, y, a, x)
    };
    if !x.content {
        return false;
    }
    let (short, long) = (a.clause_words(x), b.clause_words(y));
    let same = |i: usize, j: usize| same_word(a, &short[i], b, &long[j]);
    match long.len() - short.len() {
        0 => (0..short.len()).all(|i| same(i, i)),
        1 if short.len() >= 2 => {
            let i = (0..short.len())
                .position(|i| !same(i, i))
                .unwrap_or(short.len());
            (i..short.len()).all(|i| same(i, i + 1))
        }
        _ => false,
    }
}

/// Same content words at the same positions (at least one), value slots at the same
/// positions, and some pair of slots that conflict.
fn differs_in_value(a: &Statement, x: &Clause, b: &Statement, y: &Clause) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let (mut content, mut conflicting) = (false, false);
    for (p, q) in a.clause_words(x).iter().zip(b.clause_words(y)) {
        match (top(p.term) == SLOT, top(q.term) == SLOT) {
            (false, false) if same_word(a, p, b, q) => content = true,
            (true, true) => {
                if !conflicting {
                    let pa = atoms(a, &a.values[p.start..p.end]);
                    let qa = atoms(b, &b.values[q.start..q.end]);
                    conflicting = !within(&pa, &qa) && !within(&qa, &pa);
                }
            }
            _ => return false,
        }
    }
    content && conflicting
}

/// The bit of an atom that is a number ([`atoms`]).
const NUMBER: u64 = 1 << 63;

/// The atoms of the value tokens `slot` of `s` (module doc, "The test"): a number is its
/// value with [`NUMBER`] set, a run of letters its hash without it.
#[inline(never)]
fn atoms(s: &Statement, slot: &[ValueToken]) -> Vec<u64> {
    let mut out = Vec::new();
    // Whether the previous token was one number, which a group of three digits extends.
    let mut after_number = false;
    for t in slot {
        let n = usize::from(top(t.term));
        let bytes: Vec<u8> = if top(t.term) == LONG {
            s.bytes[t.start..t.end].to_vec()
        } else {
            (0..n).map(|i| (t.term >> (8 * i)) as u8).collect()
        };
        let (mut i, mut number) = (0, false);
        while i < bytes.len() {
            let (start, digit) = (i, bytes[i].is_ascii_digit());
            while i < bytes.len() && bytes[i].is_ascii_digit() == digit {
                i += 1;
            }
            let run = &bytes[start..i];
            if digit {
                let value = run.iter().fold(0u64, |v, d| {
                    v.wrapping_mul(10).wrapping_add(u64::from(d - b'0'))
                });
                out.push(value | NUMBER);
            } else if !(number && matches!(run, b"st" | b"nd" | b"rd" | b"th")) {
                out.push(fnv1a64(run) & !NUMBER);
            }
            number = digit;
        }
        if number && is_thousands_group(&bytes, after_number) && out.len() >= 2 {
            let group = out.pop().unwrap_or(0) & !NUMBER;
            let thousands = out.pop().unwrap_or(0) & !NUMBER;
            out.push(thousands.wrapping_mul(1000).wrapping_add(group) | NUMBER);
        }
        after_number = number && bytes.iter().all(u8::is_ascii_digit);
    }
    out
}

/// Whether a token of `bytes` is a group of three digits after a number.
fn is_thousands_group(bytes: &[u8], after_number: bool) -> bool {
    after_number && bytes.len() == 3 && bytes.iter().all(u8::is_ascii_digit)
}

/// Whether every atom of `short` is among those of `long`, as many times.
fn within(short: &[u64], long: &[u64]) -> bool {
    let mut rest = long.to_vec();
    short
        .iter()
        .all(|a| match rest.iter().position(|b| b == a) {
            Some(i) => {
                rest.swap_remove(i);
                true
            }
            None => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs that contradict, with the rule expected to fire.
    const TRUE_CASES: &[(&str, &str, ConflictKind)] = &[
        (
            "The project uses PostgreSQL.",
            "The project does not use PostgreSQL.",
            ConflictKind::Negation,
        ),
        (
            "Alice works at Acme",
            "Alice no longer works at Acme",
            ConflictKind::Negation,
        ),
        (
            "Bob likes sushi",
            "Bob doesn’t like sushi",
            ConflictKind::Negation,
        ),
        (
            "I never drink coffee",
            "I drink coffee every morning",
            ConflictKind::Negation,
        ),
        (
            "Dark mode is enabled in the app",
            "Dark mode is disabled in the app",
            ConflictKind::Negation,
        ),
        (
            "We stopped using Jira",
            "We use Jira for tracking",
            ConflictKind::Negation,
        ),
        (
            "I am vegetarian",
            "I'm not vegetarian",
            ConflictKind::Negation,
        ),
        (
            "The deadline is March 3",
            "The deadline is April 10",
            ConflictKind::Value,
        ),
        (
            "Standup is at 9:30",
            "Standup is at 10:00",
            ConflictKind::Value,
        ),
        (
            "The budget is $5,000",
            "The budget is $7,500",
            ConflictKind::Value,
        ),
        (
            "The release ships on 2024-05-01",
            "The release ships on June 12",
            ConflictKind::Value,
        ),
        (
            "The deadline is March 3rd",
            "The deadline is March 4th",
            ConflictKind::Value,
        ),
        (
            "The meeting is at 3pm",
            "The meeting is at 4 pm",
            ConflictKind::Value,
        ),
        (
            "Rent is 1,200 per month",
            "Rent is 1,500 per month",
            ConflictKind::Value,
        ),
        (
            "Notes from Monday. The meeting is on Tuesday",
            "The meeting is on Thursday",
            ConflictKind::Value,
        ),
    ];

    /// Pairs that do not contradict: paraphrases, unrelated texts, compatible facts.
    const FALSE_CASES: &[(&str, &str)] = &[
        // paraphrase
        (
            "The project uses PostgreSQL",
            "PostgreSQL is the database the project uses",
        ),
        // paraphrase, both negated
        ("Alice does not drink coffee", "Alice never drinks coffee"),
        // unrelated
        ("Alice likes hiking", "The deadline is April 10"),
        // same subject, compatible facts
        ("Alice lives in Paris", "Alice works in Berlin"),
        ("Alice likes tea", "Alice likes coffee"),
        // the negation is about something else
        ("Alice likes coffee but not tea", "Alice likes coffee"),
        ("Alice likes coffee, not tea", "Alice likes coffee"),
        // different objects under opposite polarity
        (
            "The project uses Postgres",
            "The project does not use MySQL",
        ),
        // a refinement of the value, not another value
        (
            "The meeting is on March 3",
            "The meeting is on March 3 at 10am",
        ),
        // different versions, different facts
        (
            "Version 2 does not support dark mode",
            "Version 3 supports dark mode",
        ),
        // duplicates
        ("The deadline is March 3", "The deadline is March 3"),
        // different predicates
        (
            "Bob does not like meetings",
            "Bob likes coffee in the morning before meetings",
        ),
        // more detail, same polarity
        ("Alice moved to Berlin", "Alice moved to Berlin in 2020"),
    ];

    #[test]
    fn flags_every_true_case_with_its_rule_in_both_directions() {
        for &(a, b, kind) in TRUE_CASES {
            assert_eq!(contradiction(a, b), Some(kind), "{a:?} vs {b:?}");
            assert_eq!(contradiction(b, a), Some(kind), "{b:?} vs {a:?}");
        }
    }

    #[test]
    fn one_value_written_two_ways_is_no_conflict() {
        for (a, b) in [
            ("The deadline is March 3.", "The deadline is March 3rd."),
            ("The deadline is March 3", "The deadline is 3 March"),
            ("The meeting is at 3pm.", "The meeting is at 3 pm."),
            ("Rent is 1200 per month", "Rent is 1,200 per month"),
            ("Call mom on May 5", "Call mom on 5 May"),
            ("The standup is at 9:30am", "The standup is at 9:30 am"),
        ] {
            assert_eq!(contradiction(a, b), None, "{a:?} vs {b:?}");
            assert_eq!(contradiction(b, a), None, "{b:?} vs {a:?}");
        }
    }

    #[test]
    fn flags_no_false_case_in_either_direction() {
        for &(a, b) in FALSE_CASES {
            assert_eq!(contradiction(a, b), None, "{a:?} vs {b:?}");
            assert_eq!(contradiction(b, a), None, "{b:?} vs {a:?}");
        }
    }

    #[test]
    fn reads_double_negation_as_positive() {
        assert_eq!(
            contradiction("Dark mode is not disabled", "Dark mode is enabled"),
            None
        );
        assert_eq!(
            contradiction("Dark mode is not disabled", "Dark mode is disabled"),
            Some(ConflictKind::Negation)
        );
    }

    #[test]
    fn splits_clauses_at_sentences_contrasts_and_negated_commas() {
        let s = Statement::parse("Alice likes coffee, not tea. Bob codes; however, Carol tests");
        let negated: Vec<bool> = s.clause_views().iter().map(|c| c.negated).collect();
        assert_eq!(negated, [false, true, false, false]);
        // A plain comma keeps the subject in the clause.
        let s = Statement::parse("Alice, my sister, likes coffee");
        assert_eq!(s.clauses.len(), 1);
        // A decimal point is not a sentence break.
        let s = Statement::parse("Version 3.2 is not installed");
        assert_eq!(s.clauses.len(), 1);
        assert_eq!(
            contradiction("Version 3.2 is installed", "Version 3.2 is not installed"),
            Some(ConflictKind::Negation)
        );
    }

    #[test]
    fn groups_consecutive_values_into_one_slot() {
        let s = Statement::parse("The meeting is on March 3 at 10am");
        assert_eq!(
            s.clause_views()[0].words,
            [
                Word::Content("meet".into()),
                Word::Value(vec!["march".into(), "3".into(), "10am".into()]),
            ]
        );
        let s = Statement::parse("We may ship it");
        assert_eq!(s.clause_views()[0].words, [Word::Content("ship".into())]);
    }

    #[test]
    fn ignores_empty_and_punctuation_only_texts() {
        for text in ["", "...", "?!", "the a an", "😀"] {
            assert!(Statement::parse(text).is_empty(), "{text:?}");
            assert_eq!(contradiction(text, "not"), None);
            assert_eq!(contradiction(text, text), None);
        }
    }

    #[test]
    fn packs_words_like_the_table_and_finds_every_listed_word() {
        let word = b"abcdefghijklmnopq";
        for n in 1..=MAX_KEY_BYTES {
            assert_eq!(key(&word[..n]), Some(const_key(word, 0, n)), "{n}");
        }
        assert_eq!(key(word), None);
        let flags = |w: &str| key(w.as_bytes()).map_or(0, flags_of);
        for &(list, flag) in LISTS {
            for w in list.split_ascii_whitespace() {
                assert_ne!(flags(w) & flag, 0, "{w}");
            }
        }
        for (a, (negative, _)) in ANTONYMS.iter().enumerate() {
            assert_eq!(flags(negative) >> ANTONYM_SHIFT, a as u32 + 1, "{negative}");
        }
        assert_eq!(flags("can"), CONTRACTION | STOP);
        assert_eq!(flags("coffee"), 0);
        // `pm` is kept unstemmed when it is a content word: that is its stem.
        assert_eq!(crate::text::porter::stem("pm"), "pm");
    }

    #[test]
    fn compares_long_words_on_their_bytes() {
        let a = "The internationalizations subsystem is enabled";
        assert_eq!(
            contradiction(a, "The internationalizations subsystem is disabled"),
            Some(ConflictKind::Negation)
        );
        assert_eq!(
            contradiction(a, "The internationalizationz subsystem is disabled"),
            None
        );
        assert_eq!(
            contradiction(
                "Ticket ABCDEFGHIJKLMNOPQRSTU1 is open",
                "Ticket ABCDEFGHIJKLMNOPQRSTU2 is open"
            ),
            Some(ConflictKind::Value)
        );
    }

    #[test]
    fn bounds_the_work_on_long_texts() {
        let long = "the cache is warm. ".repeat(10_000);
        let s = Statement::parse(&long);
        assert_eq!(s.clauses.len(), MAX_CLAUSES);
        let run_on = "word ".repeat(MAX_CLAUSE_WORDS + 1);
        assert!(Statement::parse(&run_on).is_empty());
        assert_eq!(
            Statement::parse(&long).contradiction(&Statement::parse("the cache is not warm")),
            Some(ConflictKind::Negation)
        );
    }
}
