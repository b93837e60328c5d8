//! Trivial messages (Engram's query decision, stage 1): an agent that recalls on every user
//! message should not search, embed or rank for "ok", "thanks" or a lone emoji. A message is
//! trivial when, after folding as the tokenizer does (lowercase, diacritics removed) and
//! trimming punctuation and symbols from both ends, it is
//!
//! - one of [`TRIVIAL_PHRASES`] (acknowledgements, greetings, yes / no, in English and
//!   Vietnamese, with or without diacritics), or
//! - made of fewer than [`MIN_ALNUM`] letters and digits in all ("ừ", "dạ", "k", "?!", "👍",
//!   "   "), so "sql?", "Ana" and "k8s" are not.
//!
//! The empty string and `*` are not trivial: they ask for the trending memories (AutoMem's
//! recall without a query, `engine/answer.rs`). The recall option `skipTrivial: false` turns
//! the check off.

use crate::text::normalize::{fold, is_token_char};

/// Letters and digits a message needs to be worth a search.
pub const MIN_ALNUM: usize = 3;

/// Whole messages that are trivial, folded as [`is_trivial`] compares them (so "cảm ơn" is
/// "cam on", "vâng" is "vang", "chào" is "chao").
pub const TRIVIAL_PHRASES: [&str; 34] = [
    // English
    "ok",
    "okay",
    "okey",
    "kk",
    "thanks",
    "thank you",
    "thank you very much",
    "thanks a lot",
    "thx",
    "yes",
    "yeah",
    "yep",
    "yup",
    "no",
    "nope",
    "nah",
    "sure",
    "hi",
    "hello",
    "hey",
    "bye",
    "goodbye",
    "cool",
    "nice",
    "great",
    "got it",
    "alright",
    "all right",
    "lol",
    // Vietnamese (ừ and dạ are under three letters)
    "cam on",
    "vang",
    "chao",
    "ok a",
    "cam on nhieu",
];

/// Whether `query` is a trivial message (module doc).
pub fn is_trivial(query: &str) -> bool {
    if matches!(query, "" | "*") {
        return false;
    }
    let alnum = query.chars().filter(|&c| is_token_char(c)).count();
    if alnum < MIN_ALNUM {
        return true;
    }
    let core = query.trim_matches(|c: char| !is_token_char(c));
    let folded: String = core.chars().filter_map(fold).collect();
    let phrase = folded.split_whitespace().collect::<Vec<_>>().join(" ");
    TRIVIAL_PHRASES.contains(&phrase.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acknowledgements_greetings_emoji_and_punctuation_are_trivial() {
        for q in [
            "ok",
            "OK",
            "Okay!",
            "thanks",
            "Thanks!!",
            "thank you",
            "Thank you.",
            "yes",
            "no",
            "sure",
            "hi",
            "bye",
            "👍",
            "🙂",
            "?!",
            "...",
            "   ",
            "\t\n",
            "k",
            "ừ",
            "dạ",
            "Dạ!",
            "cảm ơn",
            "Cảm ơn!",
            "cam on",
            "vâng",
            "Vâng.",
            "  ok  ",
            "thanks a lot",
        ] {
            assert!(is_trivial(q), "{q:?} should be trivial");
        }
    }

    #[test]
    fn short_real_questions_and_trending_are_not_trivial() {
        for q in [
            "sql?",
            "Ana",
            "k8s",
            "ok google what is the wifi password",
            "thanks for the sql tip, where was it",
            "no sugar in my coffee?",
            "hi-fi",
            "",
            "*",
            "what did I do yesterday?",
            "vâng lời",
        ] {
            assert!(!is_trivial(q), "{q:?} should not be trivial");
        }
    }
}
