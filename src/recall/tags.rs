//! The tag filter of a recall (AutoMem's `tags`, `tag_mode`, `tag_match`, `exclude_tags`):
//! the one rule that says whether a memory's tags pass, used by every stage through
//! [`Filter::accepts`](super::Filter::accepts).
//!
//! | option | keeps a memory when |
//! |---|---|
//! | `tags`, `tagMode: "any"` (default) | one of its tags matches one of `tags` |
//! | `tags`, `tagMode: "all"` | every one of `tags` matches one of its tags |
//! | `excludeTags` | none of its tags matches one of `excludeTags` (always by prefix) |
//!
//! A filter tag *matches* a memory tag when they are equal after folding (ASCII case, and
//! the search's case and diacritic folding for other letters), or, with `tagMatch: "prefix"`
//! (the default), when the memory tag continues it with whole `:`-separated segments:
//! `slack` matches `slack` and `slack:channel:general`, not `slacker`.
//!
//! The rule is checked on the memories a stage finds; a recall that has no query to find
//! them with enumerates the tag index instead ([`crate::index::tags`]), so a filter never
//! costs a scan of every memory's tags.

use crate::error::{Error, Result};
use crate::text::normalize::fold;

/// How several filter tags combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TagMode {
    /// A memory holding any of them passes.
    #[default]
    Any,
    /// A memory must hold all of them.
    All,
}

/// How a filter tag matches a memory's tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TagMatch {
    /// Equal, or followed by `:` and more segments.
    #[default]
    Prefix,
    /// Equal.
    Exact,
}

/// A recall's tag filter; the tags are kept folded ([`fold_tag`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TagFilter {
    /// Tags a memory must hold (any or all, by `mode`); empty: no condition.
    pub tags: Vec<String>,
    /// How `tags` combine.
    pub mode: TagMode,
    /// How a tag of `tags` matches.
    pub matching: TagMatch,
    /// Tags a memory must not hold (prefix rule).
    pub exclude: Vec<String>,
}

impl TagMode {
    /// Parses `any` or `all`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "any" => Ok(TagMode::Any),
            "all" => Ok(TagMode::All),
            other => Err(Error::InvalidArgument(format!(
                "tagMode must be \"any\" or \"all\", got \"{other}\""
            ))),
        }
    }
}

impl TagMatch {
    /// Parses `prefix` or `exact`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "prefix" => Ok(TagMatch::Prefix),
            "exact" => Ok(TagMatch::Exact),
            other => Err(Error::InvalidArgument(format!(
                "tagMatch must be \"prefix\" or \"exact\", got \"{other}\""
            ))),
        }
    }
}

impl TagFilter {
    /// Whether it filters nothing.
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.exclude.is_empty()
    }

    /// Folds and checks `tags` (for the option `name`): each must be non-empty.
    pub fn read(name: &str, tags: Vec<String>) -> Result<Vec<String>> {
        tags.iter()
            .enumerate()
            .map(|(i, t)| match fold_tag(t) {
                f if f.is_empty() || f.split(':').any(str::is_empty) => {
                    Err(Error::InvalidArgument(format!(
                        "{name}[{i}] must be a tag of non-empty `:`-separated segments, got \"{t}\""
                    )))
                }
                f => Ok(f),
            })
            .collect()
    }

    /// Whether a memory holding `held` passes (module doc).
    ///
    /// ```
    /// use recallkit::recall::tags::{TagFilter, TagMode};
    /// let f = TagFilter { tags: vec!["slack".into()], ..TagFilter::default() };
    /// assert!(f.accepts(&["Slack:channel:general"]));
    /// assert!(!f.accepts(&["slacker"]));
    /// ```
    pub fn accepts(&self, held: &[&str]) -> bool {
        let holds = |want: &str, exact: bool| held.iter().any(|t| tag_matches(want, t, exact));
        let exact = self.matching == TagMatch::Exact;
        let wanted = self.tags.is_empty()
            || match self.mode {
                TagMode::Any => self.tags.iter().any(|w| holds(w, exact)),
                TagMode::All => self.tags.iter().all(|w| holds(w, exact)),
            };
        wanted && !self.exclude.iter().any(|w| holds(w, false))
    }
}

/// A tag as the filter compares it: ASCII letters lowercased, other letters folded as the
/// search folds them (case and diacritics), other characters kept.
pub fn fold_tag(tag: &str) -> String {
    tag.chars().map(fold_char).collect()
}

fn fold_char(c: char) -> char {
    if c.is_ascii() {
        c.to_ascii_lowercase()
    } else {
        fold(c).unwrap_or(c)
    }
}

/// Whether memory tag `tag` matches the folded filter tag `want`: equal once folded, or,
/// unless `exact`, `want` followed by `:`.
pub fn tag_matches(want: &str, tag: &str, exact: bool) -> bool {
    let mut held = tag.chars().map(fold_char);
    if !want.chars().all(|w| held.next() == Some(w)) {
        return false;
    }
    match held.next() {
        None => true,
        Some(':') => !exact,
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(tags: &[&str], mode: TagMode, matching: TagMatch, exclude: &[&str]) -> TagFilter {
        TagFilter {
            tags: tags.iter().map(|t| fold_tag(t)).collect(),
            mode,
            matching,
            exclude: exclude.iter().map(|t| fold_tag(t)).collect(),
        }
    }

    #[test]
    fn prefix_matches_whole_segments_only_and_ignores_case() {
        assert!(tag_matches("slack", "slack", false));
        assert!(tag_matches("slack", "SLACK:channel:general", false));
        assert!(tag_matches("slack:channel", "slack:channel:general", false));
        assert!(!tag_matches("slack", "slacker", false));
        assert!(!tag_matches("slack:chan", "slack:channel", false));
        assert!(!tag_matches("slack", "slack:channel", true));
        assert!(tag_matches(&fold_tag("Café"), "CAFE", true));
    }

    #[test]
    fn any_all_and_exclude_combine_as_documented() {
        let held = ["project-alpha", "db:postgres", "temp"];
        let any = filter(&["db", "nope"], TagMode::Any, TagMatch::Prefix, &[]);
        assert!(any.accepts(&held));
        let all = filter(&["db", "nope"], TagMode::All, TagMatch::Prefix, &[]);
        assert!(!all.accepts(&held));
        let all = filter(
            &["db", "project-alpha"],
            TagMode::All,
            TagMatch::Prefix,
            &[],
        );
        assert!(all.accepts(&held));
        let exact = filter(&["db"], TagMode::Any, TagMatch::Exact, &[]);
        assert!(!exact.accepts(&held));
        let excluded = filter(&["db"], TagMode::Any, TagMatch::Exact, &["TEMP"]);
        assert!(!excluded.accepts(&["db", "temp:scratch"]));
        assert!(filter(&[], TagMode::Any, TagMatch::Prefix, &["x"]).accepts(&[]));
        assert!(!filter(&["x"], TagMode::Any, TagMatch::Prefix, &[]).accepts(&[]));
    }

    #[test]
    fn empty_tags_and_segments_are_refused_naming_the_option() {
        let e = TagFilter::read("excludeTags", vec!["ok".into(), "a::b".into()]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: excludeTags[1] must be a tag of non-empty `:`-separated segments, got \"a::b\""
        );
        assert!(TagFilter::read("tags", vec![String::new()]).is_err());
        assert_eq!(
            TagFilter::read("tags", vec!["A:B".into()]).unwrap(),
            ["a:b"]
        );
    }

    #[test]
    fn mode_and_match_names_are_checked() {
        assert_eq!(TagMode::parse("all").unwrap(), TagMode::All);
        assert!(TagMode::parse("every")
            .unwrap_err()
            .to_string()
            .contains("tagMode"));
        assert_eq!(TagMatch::parse("exact").unwrap(), TagMatch::Exact);
        assert!(TagMatch::parse("fuzzy")
            .unwrap_err()
            .to_string()
            .contains("tagMatch"));
    }
}
