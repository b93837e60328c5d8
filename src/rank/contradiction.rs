//! A contradiction test between two short texts, for seed 000's interference warnings
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
//!   least one pair of slots that differ and where neither slot's tokens are a subsequence of
//!   the other's (so `[march 3]` refines, not contradicts, `[march 3 10am]`). "The deadline is
//!   March 3" / "The deadline is April 10".
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
//! Analysis is linear in the text. Only the first [`MAX_CLAUSES`] clauses of a text are kept,
//! and clauses longer than [`MAX_CLAUSE_WORDS`] words are skipped (a run-on clause is not a
//! crisp fact), so comparing two statements costs at most `32 · 32` linear clause checks.

use std::sync::OnceLock;

use crate::text::porter::stem;
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
static NEGATIONS: WordList = WordList::new(
    "\
    not no never cannot without neither none nothing nobody nowhere stopped quit ceased",
);
/// Tokens that, followed by the token `t`, spell an `n't` contraction.
static CONTRACTIONS: WordList = WordList::new(
    "\
    don doesn didn isn aren wasn weren won wouldn can couldn shouldn haven hasn hadn mustn \
    needn ain shan mightn",
);
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
static CONTRASTS: WordList = WordList::new("but however although though whereas instead");
/// Words that carry no subject, predicate or value.
static STOPWORDS: WordList = WordList::new(
    "\
    a an the is are was were be been being am do does did doing has have had having will would \
    shall should can could may might must i me my mine we us our ours you your he him his she \
    her it its they them their this that these those to of in on at for with by from as and or \
    nor so than then there here s t d ll re ve m any anymore longer still also just really \
    very now currently actually already too yet every each about into onto over up out what \
    which who whom whose when where how all some more most much many only even ever again if",
);
/// Month names and abbreviations (`may` is handled apart: it is also a verb).
static MONTHS: WordList = WordList::new(
    "\
    january february march april june july august september october november december jan feb \
    mar apr jun jul aug sep sept oct nov dec",
);
/// Weekday names.
static WEEKDAYS: WordList =
    WordList::new("monday tuesday wednesday thursday friday saturday sunday");

/// A content word (stemmed) or a value slot (its tokens).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Word {
    Content(String),
    Value(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Clause {
    negated: bool,
    words: Vec<Word>,
}

/// A text analysed into clauses, ready to be compared (module doc). Parse each text once and
/// compare the statements pairwise.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Statement {
    clauses: Vec<Clause>,
}

impl Statement {
    /// Analyses `text` (module doc, "Analysis of one text").
    pub fn parse(text: &str) -> Statement {
        let mut clauses = Vec::new();
        let mut tokens: Vec<String> = Vec::new();
        'sentences: for sentence in sentences(text) {
            for (i, part) in sentence.split(',').enumerate() {
                let mut part_tokens = Vec::new();
                for_each_token(part, |t| part_tokens.push(t.to_owned()));
                if i > 0 && opens_clause(&part_tokens) {
                    push_clause(&mut clauses, &mut tokens);
                }
                for token in part_tokens {
                    if listed(&CONTRASTS, &token) {
                        push_clause(&mut clauses, &mut tokens);
                    } else {
                        tokens.push(token);
                    }
                }
                if clauses.len() >= MAX_CLAUSES {
                    break 'sentences;
                }
            }
            push_clause(&mut clauses, &mut tokens);
        }
        clauses.truncate(MAX_CLAUSES);
        Statement { clauses }
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
                .find_map(|y| clause_contradiction(x, y))
        })
    }
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
    Statement::parse(a).contradiction(&Statement::parse(b))
}

/// Splits at `. ! ? ;` and line breaks, except a `.` between two ASCII digits.
fn sentences(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let boundary = match b {
            b'!' | b'?' | b';' | b'\n' | b'\r' => true,
            b'.' => {
                let digit_before = i > 0 && bytes[i - 1].is_ascii_digit();
                let digit_after = bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
                !(digit_before && digit_after)
            }
            _ => false,
        };
        if boundary {
            // ASCII bytes are always char boundaries, so the slices are valid.
            out.push(&text[start..i]);
            start = i + 1;
        }
    }
    out.push(&text[start..]);
    out
}

/// Whether a comma-separated part starts a new clause: it opens with a negation or contrast.
fn opens_clause(tokens: &[String]) -> bool {
    let first = tokens.first().map(String::as_str);
    let second = tokens.get(1).map(String::as_str);
    match first {
        Some(t) if listed(&NEGATIONS, t) || listed(&CONTRASTS, t) => true,
        Some(t) => second == Some("t") && listed(&CONTRACTIONS, t),
        None => false,
    }
}

/// Analyses the pending tokens into a clause (if it has words and is not too long) and clears
/// them.
fn push_clause(clauses: &mut Vec<Clause>, tokens: &mut Vec<String>) {
    if let Some(clause) = analyse(tokens) {
        if clauses.len() < MAX_CLAUSES {
            clauses.push(clause);
        }
    }
    tokens.clear();
}

fn analyse(tokens: &[String]) -> Option<Clause> {
    let mut negations = 0usize;
    let mut words: Vec<Word> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i].as_str();
        let prev = i.checked_sub(1).map(|p| tokens[p].as_str());
        let next = tokens.get(i + 1).map(String::as_str);
        i += 1;
        if next == Some("t") && listed(&CONTRACTIONS, token) {
            negations += 1;
            i += 1;
            continue;
        }
        if listed(&NEGATIONS, token) {
            negations += 1;
            continue;
        }
        if is_value(token, prev, next) {
            match words.last_mut() {
                Some(Word::Value(slot)) => slot.push(token.to_owned()),
                _ => words.push(Word::Value(vec![token.to_owned()])),
            }
            continue;
        }
        if listed(&STOPWORDS, token) {
            continue;
        }
        let positive = match ANTONYMS.iter().find(|(neg, _)| *neg == token) {
            Some((_, positive)) => {
                negations += 1;
                positive
            }
            None => token,
        };
        words.push(Word::Content(stem(positive).into_owned()));
    }
    let usable = !words.is_empty() && words.len() <= MAX_CLAUSE_WORDS;
    usable.then_some(Clause {
        negated: negations % 2 == 1,
        words,
    })
}

/// A list of words written as one whitespace-separated string (compact in the binary),
/// split and sorted once on first use so membership is a binary search.
struct WordList {
    text: &'static str,
    sorted: OnceLock<Vec<&'static str>>,
}

impl WordList {
    const fn new(text: &'static str) -> Self {
        WordList {
            text,
            sorted: OnceLock::new(),
        }
    }

    fn contains(&self, word: &str) -> bool {
        let sorted = self.sorted.get_or_init(|| {
            let mut words: Vec<&'static str> = self.text.split_ascii_whitespace().collect();
            words.sort_unstable();
            words
        });
        sorted.binary_search(&word).is_ok()
    }
}

/// Whether `word` is one of the words of `list`.
fn listed(list: &WordList, word: &str) -> bool {
    list.contains(word)
}

fn has_digit(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_digit())
}

fn is_value(token: &str, prev: Option<&str>, next: Option<&str>) -> bool {
    let near_number = prev.is_some_and(has_digit) || next.is_some_and(has_digit);
    has_digit(token)
        || listed(&MONTHS, token)
        || listed(&WEEKDAYS, token)
        || (token == "may" && near_number)
        || ((token == "am" || token == "pm") && prev.is_some_and(has_digit))
}

fn clause_contradiction(x: &Clause, y: &Clause) -> Option<ConflictKind> {
    if x.negated != y.negated {
        negates(&x.words, &y.words).then_some(ConflictKind::Negation)
    } else {
        differs_in_value(&x.words, &y.words).then_some(ConflictKind::Value)
    }
}

/// Equal, or equal up to one inserted word with at least two words in the shorter; at least
/// one content word.
fn negates(a: &[Word], b: &[Word]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if !short.iter().any(|w| matches!(w, Word::Content(_))) {
        return false;
    }
    match long.len() - short.len() {
        0 => short == long,
        1 if short.len() >= 2 => {
            let i = short
                .iter()
                .zip(long)
                .position(|(s, l)| s != l)
                .unwrap_or(short.len());
            short[i..] == long[i + 1..]
        }
        _ => false,
    }
}

/// Same content words at the same positions (at least one), value slots at the same
/// positions, and some pair of slots that conflict.
fn differs_in_value(a: &[Word], b: &[Word]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut content, mut conflicting) = (false, false);
    for pair in a.iter().zip(b) {
        match pair {
            (Word::Content(x), Word::Content(y)) if x == y => content = true,
            (Word::Value(x), Word::Value(y)) => {
                conflicting |= !is_subsequence(x, y) && !is_subsequence(y, x);
            }
            _ => return false,
        }
    }
    content && conflicting
}

fn is_subsequence(short: &[String], long: &[String]) -> bool {
    let mut rest = long.iter();
    short.iter().all(|s| rest.any(|l| l == s))
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
        let negated: Vec<bool> = s.clauses.iter().map(|c| c.negated).collect();
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
            s.clauses[0].words,
            [
                Word::Content("meet".into()),
                Word::Value(vec!["march".into(), "3".into(), "10am".into()]),
            ]
        );
        let s = Statement::parse("We may ship it");
        assert_eq!(s.clauses[0].words, [Word::Content("ship".into())]);
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
