//! Splits a note's markdown into plain-text paragraphs, the unit stage S6 matches and returns.
//!
//! Rules, in order:
//!
//! 1. Blocks are separated by blank lines (lines of only whitespace).
//! 2. Within a block each line loses its leading markers, repeatedly: heading `#`s, quote
//!    `>`s and list bullets (`-`, `*` or `+` followed by whitespace or the end of the line),
//!    with the whitespace after them. `**` emphasis is removed anywhere in the line. Lines left
//!    empty or made only of rule characters (`---`, `***`, `===`, `|---|`) are dropped; the
//!    others are trimmed and joined by `\n`.
//! 3. A block whose lines are all headings (lines starting with `#`, after leading whitespace)
//!    is not a paragraph: a heading alone carries no content. A heading inside a block of
//!    content lines stays, as its first line, so its words can match.
//! 4. A block left with no text is not a paragraph.
//!
//! ```
//! use recallkit::notes::paragraph::paragraphs;
//! let md = "# Week 12\n\n## Decisions\n- **We migrated** to SQLite\n- dropped Redis\n\n---\n";
//! assert_eq!(paragraphs(md), ["Decisions\nWe migrated to SQLite\ndropped Redis"]);
//! ```

use crate::text;

/// The plain-text paragraphs of a markdown text, in order (see the module doc).
pub fn paragraphs(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block = Block::default();
    for line in markdown.lines() {
        if line.trim().is_empty() {
            block.finish_into(&mut out);
        } else {
            block.push(line);
        }
    }
    block.finish_into(&mut out);
    out
}

/// Whether `c` is a character of thematic breaks, setext underlines and table separators: a
/// line of only these (and whitespace) is decoration, not text. (`"-*_=+#>|:`~".contains(c)`
/// would search a non-ASCII `c` as a string, and link std's string searcher.)
fn is_rule_char(c: char) -> bool {
    matches!(
        c,
        '-' | '*' | '_' | '=' | '+' | '#' | '>' | '|' | ':' | '`' | '~'
    )
}

/// The block being collected.
#[derive(Default)]
struct Block {
    text: String,
    has_content_line: bool,
}

impl Block {
    fn push(&mut self, line: &str) {
        let is_heading = line.trim_start().starts_with('#');
        // Bold markers out: `replace("**", "")`.
        let mut stripped = String::with_capacity(line.len());
        let mut rest = strip_markers(line);
        while let Some(i) = text::find(rest, "**") {
            stripped.push_str(text::slice(rest, ..i));
            rest = text::slice(rest, i + 2..);
        }
        stripped.push_str(rest);
        let stripped = stripped.trim();
        if stripped
            .chars()
            .all(|c| is_rule_char(c) || c.is_whitespace())
        {
            return;
        }
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(stripped);
        self.has_content_line |= !is_heading;
    }

    fn finish_into(&mut self, out: &mut Vec<String>) {
        let block = std::mem::take(self);
        if block.has_content_line {
            out.push(block.text);
        }
    }
}

/// `line` without its leading heading, quote and bullet markers.
fn strip_markers(line: &str) -> &str {
    let mut rest = line.trim_start();
    loop {
        let next = if rest.starts_with('#') {
            rest.trim_start_matches('#')
        } else if let Some(after) = rest.strip_prefix('>') {
            after
        } else if let Some(after) = strip_bullet(rest) {
            after
        } else {
            return rest;
        };
        rest = next.trim_start();
    }
}

/// The text after a list bullet (`-`, `*` or `+` then whitespace or nothing), if `s` starts
/// with one. `**bold**` and `-5` are not bullets.
fn strip_bullet(s: &str) -> Option<&str> {
    let after = s
        .strip_prefix('-')
        .or_else(|| s.strip_prefix('*'))
        .or_else(|| s.strip_prefix('+'))?;
    (after.is_empty() || after.starts_with(char::is_whitespace)).then_some(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_blank_lines() {
        assert_eq!(
            paragraphs("one\ntwo\n\n  \nthree\r\n\r\nfour"),
            ["one\ntwo", "three", "four"]
        );
    }

    #[test]
    fn headings_alone_are_not_paragraphs() {
        assert_eq!(
            paragraphs("# Title\n\n## Sub\n### Subsub\n\nBody."),
            ["Body."]
        );
        assert!(paragraphs("# Only a heading").is_empty());
    }

    #[test]
    fn a_heading_inside_a_block_stays_as_its_first_line() {
        assert_eq!(
            paragraphs("## Decisions\n- use SQLite"),
            ["Decisions\nuse SQLite"]
        );
    }

    #[test]
    fn strips_quote_and_bullet_markers_and_bold() {
        assert_eq!(
            paragraphs("> - **Note:** keep *this*\n* item\n+ plus\n  - nested"),
            ["Note: keep *this*\nitem\nplus\nnested"]
        );
    }

    #[test]
    fn keeps_text_that_only_looks_like_a_marker() {
        assert_eq!(
            paragraphs("-5 degrees\n**bold** start"),
            ["-5 degrees\nbold start"]
        );
    }

    #[test]
    fn rules_and_empty_bullets_leave_no_paragraph() {
        assert!(paragraphs("---\n\n- \n\n***\n\n>\n\n| --- | :-: |").is_empty());
        assert_eq!(paragraphs("Title\n=====\ntext"), ["Title\ntext"]);
    }

    #[test]
    fn empty_text_has_no_paragraphs() {
        assert!(paragraphs("").is_empty());
        assert!(paragraphs("\n\n\n").is_empty());
    }
}
