//! Normal forms of entity names and relations, and the deterministic edge id built from them.
//!
//! | input | normal form | rule |
//! |---|---|---|
//! | `"  New   York "`, `"new-york"` | `new york` | folded tokens joined by one space |
//! | `"José's"` | `jose s` | the tokenizer splits off the possessive `s` |
//! | `"worksWith"`, `"Works with"`, `"WORKS_WITH"` | `works_with` | camelCase split, folded tokens joined by `_` |
//! | `alice`, `works_with`, `bob` | `alice\|works_with\|bob` | edge id: `from\|relation\|to` |
//!
//! Folding is [`crate::text::for_each_token`] (FTS5 `unicode61 remove_diacritics 2`), the
//! same analysis queries get, so a name matches a query exactly when their tokens are equal.
//! Tokens never contain spaces, `_` or `|`, so the normal forms and the edge id are
//! unambiguous: distinct `(from, relation, to)` triples always give distinct ids.

use crate::text;
use crate::text::normalize::{is_lower, is_number, is_upper};

/// The normal form of an entity name or alias: its folded tokens joined by single spaces.
/// Empty when the name has no letters or digits.
///
/// ```
/// use recallkit::graph::names::normalize_name;
/// assert_eq!(normalize_name("  New-YORK "), "new york");
/// assert_eq!(normalize_name("José"), "jose");
/// assert_eq!(normalize_name("—"), "");
/// ```
pub fn normalize_name(name: &str) -> String {
    join_tokens(name, ' ')
}

/// The number of words (tokens) in a normal form.
pub fn word_count(normal: &str) -> usize {
    if normal.is_empty() {
        0
    } else {
        normal.split(' ').count()
    }
}

/// The normal form of a relation: lower snake_case from any spelling (camelCase words are
/// split, diacritics folded, punctuation and spaces become one `_`). Empty when the relation
/// has no letters or digits.
///
/// ```
/// use recallkit::graph::names::normalize_relation;
/// assert_eq!(normalize_relation("worksWith"), "works_with");
/// assert_eq!(normalize_relation(" Lives in "), "lives_in");
/// assert_eq!(normalize_relation("CO-FOUNDED_by"), "co_founded_by");
/// ```
pub fn normalize_relation(relation: &str) -> String {
    join_tokens(&split_camel_case(relation), '_')
}

/// The id of the edge `from —[relation]→ to`, given normal forms: `from|relation|to`.
pub fn edge_id(from: &str, relation: &str, to: &str) -> String {
    format!("{from}|{relation}|{to}")
}

fn join_tokens(s: &str, separator: char) -> String {
    let mut out = String::with_capacity(s.len());
    text::for_each_token(s, |token| {
        if !out.is_empty() {
            out.push(separator);
        }
        out.push_str(token);
    });
    out
}

/// Inserts a space where a lower-case letter or digit is followed by an upper-case letter.
fn split_camel_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    let mut previous_continues = false;
    for c in s.chars() {
        if previous_continues && is_upper(c) {
            out.push(' ');
        }
        previous_continues = is_lower(c) || is_number(c);
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fold_case_diacritics_and_spacing() {
        assert_eq!(normalize_name("NEW  york"), "new york");
        assert_eq!(normalize_name("Zoë Saldaña"), "zoe saldana");
        assert_eq!(normalize_name("alice's"), "alice s");
        assert_eq!(normalize_name(""), "");
    }

    #[test]
    fn word_counts_follow_the_normal_form() {
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count("alice"), 1);
        assert_eq!(word_count("new york city"), 3);
    }

    #[test]
    fn relations_become_lower_snake_case() {
        assert_eq!(normalize_relation("works_with"), "works_with");
        assert_eq!(normalize_relation("WorksWith"), "works_with");
        assert_eq!(normalize_relation("reportsTo2024"), "reports_to2024");
        assert_eq!(normalize_relation("a-été  élu"), "a_ete_elu");
        assert_eq!(normalize_relation("HTTPServer"), "httpserver");
        assert_eq!(normalize_relation("__"), "");
    }

    #[test]
    fn edge_ids_join_the_normal_forms() {
        assert_eq!(
            edge_id("alice", "works_with", "new york"),
            "alice|works_with|new york"
        );
    }
}
