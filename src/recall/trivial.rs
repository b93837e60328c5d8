//! Trivial messages (Engram's query decision, stage 1): an agent that recalls on every user
//! message should not search, embed or rank for "ok", "thanks" or a lone emoji. A message is
//! trivial when, after folding as the tokenizer does (lowercase, diacritics removed) and
//! trimming punctuation and symbols from both ends, it is
//!
//! - without a letter or digit ("?!", "👍", "   "),
//! - one of [`TRIVIAL_PHRASES`] (acknowledgements, greetings, yes / no, in English and
//!   Vietnamese, with or without diacritics: "ok", "dạ", "cảm ơn"), or
//! - a lone letter or digit of an alphabet ("k", "ừ"),
//!
//! so "Go", "AI", "UI", "k8s" and "sql?" are searched, and so is one character of a script
//! whose words are that short (Chinese, Japanese, Korean: "猫", "東京").
//!
//! The empty string and `*` are not trivial: they ask for the trending memories (AutoMem's
//! recall without a query, `engine/answer.rs`). The recall option `skipTrivial: false` turns
//! the check off.

use crate::text::normalize::{fold, is_token_char};

/// Whether `c` is of an East Asian script (CJK radicals and ideographs, kana, Hangul), in which
/// one character can be a word.
fn east_asian(c: char) -> bool {
    matches!(c, '\u{2E80}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7AF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3FFFF}')
}

/// Whole messages that are trivial, folded as [`is_trivial`] compares them (so "cảm ơn" is
/// "cam on", "vâng" is "vang", "chào" is "chao").
pub const TRIVIAL_PHRASES: [&str; 43] = [
    // English
    "ok",
    "k",
    "ty",
    "np",
    "ya",
    "oh",
    "ah",
    "hm",
    "mm",
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
    // Vietnamese (ừ is a lone letter)
    "da",
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
    let mut letters = query.chars().filter(|&c| is_token_char(c));
    match (letters.next(), letters.next()) {
        (None, _) => return true,
        (Some(c), None) if !east_asian(c) => return true,
        _ => {}
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
            "ty!",
            "Hm.",
            "7",
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

    #[test]
    fn two_letter_words_and_one_east_asian_character_are_searched() {
        for q in ["Go", "AI", "UI?", "R2", "東京", "猫", "한국", "ね"] {
            assert!(!is_trivial(q), "{q:?} should not be trivial");
        }
    }
}
