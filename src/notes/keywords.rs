//! The non-trivial terms of a query, which stage S6 matches against note paragraphs.
//!
//! A query is analysed exactly like Sf's porter sub-query (FTS5 `porter unicode61
//! remove_diacritics 2`: folded tokens, then porter stems, see [`crate::text`]), and then each
//! token that is an English stopword is dropped, judged on the folded token before stemming.
//! The remaining stems, deduplicated in query order, are the non-trivial terms. Without the
//! stopword list, "what does the project use?" would match every paragraph containing "the".
//!
//! [`STOPWORDS`] is NLTK's English list (179 words) without the 26 forms with an apostrophe:
//! the tokenizer already splits those into fragments that the list holds (`don't` → `don`,
//! `t`; `alice's` → `alice`, `s`). Numbers are never stopwords.
//!
//! ```
//! use recallkit::notes::keywords::query_terms;
//! assert_eq!(query_terms("What database does the project use?"), ["databas", "project", "us"]);
//! assert!(query_terms("what does the").is_empty());
//! ```

use crate::sort;
use crate::text;

/// English stopwords, folded, sorted for binary search. Source: NLTK `corpora/stopwords/english`
/// (from Porter's list), forms with an apostrophe removed.
pub const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "ain",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "couldn",
    "d",
    "did",
    "didn",
    "do",
    "does",
    "doesn",
    "doing",
    "don",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn",
    "has",
    "hasn",
    "have",
    "haven",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "itself",
    "just",
    "ll",
    "m",
    "ma",
    "me",
    "mightn",
    "more",
    "most",
    "mustn",
    "my",
    "myself",
    "needn",
    "no",
    "nor",
    "not",
    "now",
    "o",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "re",
    "s",
    "same",
    "shan",
    "she",
    "should",
    "shouldn",
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "ve",
    "very",
    "was",
    "wasn",
    "we",
    "were",
    "weren",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "won",
    "wouldn",
    "y",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// The commonest function words of Portuguese, Spanish, French, Italian and German, folded and
/// sorted: memories often mix languages ("pão de queijo"), and "de" must not match every
/// Romance-language memory. Words that are also frequent English content words (`die`, `den`)
/// are left out.
pub const OTHER_STOPWORDS: &[&str] = &[
    "al", "das", "de", "del", "der", "des", "do", "dos", "du", "e", "el", "em", "en", "et", "il",
    "la", "las", "le", "les", "lo", "los", "na", "nas", "nos", "os", "por", "que", "uma", "una",
    "und", "une", "y",
];

/// Whether a folded token is a stopword ([`STOPWORDS`] or [`OTHER_STOPWORDS`]).
pub fn is_stopword(folded: &str) -> bool {
    STOPWORDS.binary_search(&folded).is_ok() || OTHER_STOPWORDS.binary_search(&folded).is_ok()
}

/// The non-trivial terms of `query`: porter stems of its tokens that are not stopwords,
/// deduplicated, in query order.
pub fn query_terms(query: &str) -> Vec<String> {
    // for_each_term emits exactly one term per token, in order, so the two lists zip.
    let tokens = text::tokens(query);
    let terms = text::terms(query);
    debug_assert_eq!(tokens.len(), terms.len());
    let mut out: Vec<String> = Vec::new();
    for (token, term) in tokens.iter().zip(terms) {
        if !is_stopword(token) && !out.contains(&term) {
            out.push(term);
        }
    }
    out
}

/// The distinct terms of a paragraph, sorted: what [`query_terms`] are looked up in.
pub fn paragraph_terms(paragraph: &str) -> Vec<String> {
    let mut terms = text::terms(paragraph);
    sort::sort_by(&mut terms, String::cmp);
    terms.dedup();
    terms
}

#[cfg(test)]
mod tests {

    #[test]
    fn stopword_lists_are_sorted_and_cover_romance_function_words() {
        for list in [STOPWORDS, OTHER_STOPWORDS] {
            assert!(
                list.windows(2).all(|w| w[0] < w[1]),
                "sorted for binary search"
            );
        }
        assert!(is_stopword("de") && is_stopword("the") && !is_stopword("queijo"));
    }
    use super::*;

    #[test]
    fn stopword_list_is_sorted_unique_and_folded() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(STOPWORDS.len(), 179 - 26);
        for w in STOPWORDS {
            assert_eq!(text::tokens(w), [*w]);
        }
    }

    #[test]
    fn stopwords_are_judged_case_and_diacritic_insensitively() {
        assert!(query_terms("THE Thé ThE").is_empty());
    }

    #[test]
    fn possessive_and_contraction_fragments_are_stopwords() {
        assert_eq!(
            query_terms("Alice's plan isn't done"),
            ["alic", "plan", "done"]
        );
    }

    #[test]
    fn terms_are_stemmed_and_deduplicated() {
        assert_eq!(
            query_terms("migrating migrated migration 2024"),
            ["migrat", "2024"]
        );
    }

    #[test]
    fn paragraph_terms_are_sorted_and_distinct() {
        assert_eq!(paragraph_terms("b a B á"), ["a", "b"]);
    }
}
