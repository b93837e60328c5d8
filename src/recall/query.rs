//! Query caps: what a recall reads of a very long question, so that no query costs more than
//! a bounded amount of work in any stage (issue 27: `"aaaa ".repeat(3276)` held the thread for
//! seconds at 20k memories, every stage reading every repetition).
//!
//! # Rule
//!
//! A question is read word by word (the folded tokens every stage uses) up to its
//! [`MAX_CONTENT_WORDS`]th distinct content word (a word that is not a stopword); a later new
//! content word ends it. Any word after its [`MAX_REPEATS`]th occurrence is skipped, and so
//! is a word longer than [`MAX_WORD_BYTES`] (after folding: no memory word a person would
//! look for is that long, and the trigram reading of one costs its length in lookups). A
//! question within both caps, every question a person types, is used exactly as given; a
//! longer one is replaced by its kept words joined by spaces, which every stage reads the
//! same way (they all tokenise with [`crate::text::tokenize`]).
//!
//! So a recall reads at most `(MAX_CONTENT_WORDS + stopwords) × MAX_REPEATS` words, whatever
//! the query's length ([`MAX_QUERY_LENGTH`](crate::engine) code units at the boundary).

use std::borrow::Cow;
use std::collections::HashMap;

use crate::notes::keywords::is_stopword;
use crate::text::tokenize;

/// Distinct content words a recall reads; also the width of the coverage bit mask of stage Sf.
pub const MAX_CONTENT_WORDS: usize = 32;

/// Occurrences of one word a recall reads (FTS5 scores a repeated query word once per
/// occurrence; a fourth adds little, a thousandth only costs).
pub const MAX_REPEATS: u32 = 4;

/// Longest word a recall reads, in bytes of its folded UTF-8 (64 to 128 characters).
pub const MAX_WORD_BYTES: usize = 256;

/// The part of `query` a recall reads (see the module docs): `query` itself when it is
/// within the caps.
pub fn capped(query: &str) -> Cow<'_, str> {
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut content = 0;
    let mut kept: Vec<String> = Vec::new();
    let mut dropped = false;
    let mut ended = false;
    tokenize::for_each_token(query, |word| {
        if ended {
            return;
        }
        if word.len() > MAX_WORD_BYTES {
            dropped = true;
            return;
        }
        let count = seen.get(word).copied().unwrap_or(0);
        if count == 0 && !is_stopword(word) {
            if content == MAX_CONTENT_WORDS {
                ended = true;
                dropped = true;
                return;
            }
            content += 1;
        }
        if count >= MAX_REPEATS {
            dropped = true;
            return;
        }
        seen.insert(word.to_owned(), count + 1);
        kept.push(word.to_owned());
    });
    if dropped {
        Cow::Owned(kept.join(" "))
    } else {
        Cow::Borrowed(query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_within_the_caps_is_read_as_given() {
        let q = "What did Emma say about the garden, the GARDEN and the garden's gate?";
        assert!(matches!(capped(q), Cow::Borrowed(_)));
    }

    #[test]
    fn a_word_is_read_at_most_four_times() {
        assert_eq!(capped(&"aaaa ".repeat(3276)), "aaaa aaaa aaaa aaaa");
        assert_eq!(capped("Run run RUN run run, walk"), "run run run run walk");
    }

    #[test]
    fn reading_stops_at_the_thirty_third_distinct_content_word() {
        let words: Vec<String> = (0..100).map(|i| format!("w{i}")).collect();
        let q = format!("the {} and", words.join(" the "));
        let got = capped(&q);
        let kept = tokenize::tokens(&got);
        let content: Vec<&String> = kept.iter().filter(|w| !is_stopword(w)).collect();
        assert_eq!(content.len(), MAX_CONTENT_WORDS);
        assert_eq!(content.last().map(|s| s.as_str()), Some("w31"));
        assert_eq!(
            kept.iter().filter(|w| *w == "the").count(),
            MAX_REPEATS as usize
        );
    }

    #[test]
    fn a_word_longer_than_the_cap_is_not_read() {
        let long = "記".repeat(200);
        assert_eq!(capped(&format!("find {long} now")), "find now");
        let fits = "a".repeat(MAX_WORD_BYTES);
        assert!(matches!(capped(&format!("find {fits}")), Cow::Borrowed(_)));
    }

    #[test]
    fn the_kept_words_are_tokenised_as_they_were() {
        let q = format!("Crème Brûlée {}", "x ".repeat(10));
        assert_eq!(
            tokenize::tokens(&capped(&q)),
            ["creme", "brulee", "x", "x", "x", "x"]
        );
    }
}
