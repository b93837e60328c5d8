//! AutoMem's context hints (`context`, `language`, `active_path`, `context_tags`,
//! `context_types`): what the caller is doing, which raises memories that fit it and never
//! filters. recallkit reads them from the recall's `context` (`label`, `language`,
//! `activePath`, `tags`, `types`, beside abmind's `hour`, `dayOfWeek` and `topic`) and adds
//! their boost to the context boost ([`super::boost::context_boost`], recorded as
//! `contextBoost`), so they act in the rankings that apply it (`recallkit`, `abmind`).
//!
//! | hint | a memory gains |
//! |---|---|
//! | `tags` | [`HINT_TAG_BOOST`] when it holds a matching tag (the tag filter's prefix rule) |
//! | `types` | [`HINT_TYPE_BOOST`] when its `type` is one of them (case-insensitive) |
//! | `label` | [`HINT_LABEL_BOOST`] when a tag matches it or its `type` equals it |
//! | `language`, or the one `activePath`'s extension implies (`src/auth.ts`: typescript) | [`HINT_STYLE_BOOST`] when it is of type `style` or `pattern` and tagged with the language, else [`HINT_LANGUAGE_BOOST`] when only tagged with it |
//!
//! The sizes are recallkit's: of the order of abmind's topic boost (0.03), so a hint breaks
//! ties and lifts a near miss without overriding relevance.

use crate::recall::tags::{fold_tag, tag_matches};

/// Added for a tag of the context's `tags`.
pub const HINT_TAG_BOOST: f64 = 0.03;
/// Added for a type of the context's `types`.
pub const HINT_TYPE_BOOST: f64 = 0.03;
/// Added when the context's `label` is a tag or the type.
pub const HINT_LABEL_BOOST: f64 = 0.03;
/// Added for a style or pattern memory tagged with the context's language (AutoMem:
/// "prioritizes Style type memories for that language").
pub const HINT_STYLE_BOOST: f64 = 0.05;
/// Added for any other memory tagged with the context's language.
pub const HINT_LANGUAGE_BOOST: f64 = 0.02;

/// The hints of one recall, folded ([`Hints::new`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hints {
    /// What the caller is doing ("programming task"), folded.
    pub label: Option<String>,
    /// The programming language, folded; from `activePath` when not given.
    pub language: Option<String>,
    /// Tags to favour, folded.
    pub tags: Vec<String>,
    /// Types to favour, folded.
    pub types: Vec<String>,
}

impl Hints {
    /// The hints as given: `language` wins over the one `active_path` implies.
    pub fn new(
        label: Option<&str>,
        language: Option<&str>,
        active_path: Option<&str>,
        tags: &[String],
        types: &[String],
    ) -> Hints {
        let language = language.or_else(|| active_path.and_then(language_of_path));
        Hints {
            label: label.map(fold_tag).filter(|l| !l.is_empty()),
            language: language.map(fold_tag).filter(|l| !l.is_empty()),
            tags: tags.iter().map(|t| fold_tag(t)).collect(),
            types: types.iter().map(|t| fold_tag(t)).collect(),
        }
    }

    /// Whether there is any hint.
    pub fn is_empty(&self) -> bool {
        self.label.is_none()
            && self.language.is_none()
            && self.tags.is_empty()
            && self.types.is_empty()
    }

    /// The boost of a memory of type `kind` holding `tags` (module doc).
    ///
    /// ```
    /// use recallkit::rank::hints::Hints;
    /// let h = Hints::new(None, None, Some("src/auth.ts"), &[], &[]);
    /// assert_eq!(h.boost(Some("Style"), &["typescript"]), 0.05);
    /// assert_eq!(h.boost(Some("fact"), &["typescript:strict"]), 0.02);
    /// assert_eq!(h.boost(Some("style"), &["python"]), 0.0);
    /// ```
    pub fn boost(&self, kind: Option<&str>, tags: &[&str]) -> f64 {
        let kind = kind.map(fold_tag);
        let holds = |want: &str| tags.iter().any(|t| tag_matches(want, t, false));
        let mut boost = 0.0;
        if self.tags.iter().any(|t| holds(t)) {
            boost += HINT_TAG_BOOST;
        }
        if kind.as_ref().is_some_and(|k| self.types.contains(k)) {
            boost += HINT_TYPE_BOOST;
        }
        if let Some(label) = &self.label {
            if holds(label) || kind.as_deref() == Some(label.as_str()) {
                boost += HINT_LABEL_BOOST;
            }
        }
        if self.language.as_deref().is_some_and(holds) {
            let styled = matches!(kind.as_deref(), Some("style" | "pattern"));
            boost += if styled {
                HINT_STYLE_BOOST
            } else {
                HINT_LANGUAGE_BOOST
            };
        }
        boost
    }
}

/// The programming language a file path's extension implies, as AutoMem detects it.
///
/// ```
/// use recallkit::rank::hints::language_of_path;
/// assert_eq!(language_of_path("src/auth.ts"), Some("typescript"));
/// assert_eq!(language_of_path("README"), None);
/// ```
pub fn language_of_path(path: &str) -> Option<&'static str> {
    let name = path.rsplit(['/', '\\']).next()?;
    let (_, ext) = name.rsplit_once('.')?;
    Some(match ext.to_ascii_lowercase().as_str() {
        "ts" | "tsx" | "mts" | "cts" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "py" => "python",
        "rs" => "rust",
        "go" => "go",
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "rb" => "ruby",
        "swift" => "swift",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" => "cpp",
        "cs" => "csharp",
        "php" => "php",
        "scala" => "scala",
        "sh" | "bash" => "shell",
        "sql" => "sql",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_hint_adds_its_boost_and_none_filters() {
        let tags = ["project:alpha".to_string()];
        let types = ["Decision".to_string()];
        let h = Hints::new(Some("Auth"), Some("Python"), Some("x.ts"), &tags, &types);
        assert_eq!(
            h.language.as_deref(),
            Some("python"),
            "language wins over the path"
        );
        assert_close!(h.boost(None, &["project:alpha:db"]), HINT_TAG_BOOST);
        assert_close!(h.boost(Some("decision"), &[]), HINT_TYPE_BOOST);
        assert_close!(h.boost(Some("auth"), &[]), HINT_LABEL_BOOST);
        assert_close!(h.boost(Some("pattern"), &["python"]), HINT_STYLE_BOOST);
        assert_close!(h.boost(None, &["python"]), HINT_LANGUAGE_BOOST);
        assert_close!(
            h.boost(Some("decision"), &["project:alpha", "auth", "python"]),
            HINT_TAG_BOOST + HINT_TYPE_BOOST + HINT_LABEL_BOOST + HINT_LANGUAGE_BOOST
        );
        assert_eq!(h.boost(Some("fact"), &["other"]), 0.0);
        assert!(Hints::new(None, None, Some("Makefile"), &[], &[]).is_empty());
    }

    #[test]
    fn paths_imply_languages_by_extension() {
        assert_eq!(language_of_path("C:\\code\\main.RS"), Some("rust"));
        assert_eq!(
            language_of_path("web/app.component.tsx"),
            Some("typescript")
        );
        assert_eq!(language_of_path("notes.txt"), None);
        assert_eq!(language_of_path("dir.d/file"), None);
    }
}
