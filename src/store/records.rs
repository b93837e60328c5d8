//! Record types: [`Memory`] and its dense internal id [`DocId`].
//!
//! Timestamps are milliseconds since the Unix epoch as `f64` (what JavaScript's `Date.now()`
//! returns). Records cross the boundary in the wire format of [`crate::wire`], with camelCase
//! field names (`textEn`, `createdAt`, …).

use crate::error::{check_finite, check_range, check_size, Error, Result};
use crate::hash::IntHasher;

/// Dense internal id of a stored memory: an index into the engine's record table.
/// Ids are assigned in insertion order, so ascending `DocId` is insertion order; it is the
/// tie-breaker everywhere a ranking needs one (the analogue of SQLite's ascending rowid).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocId(pub u32);

/// A hash map keyed by [`DocId`], for the maps a recall fills per candidate (Sf's best hit per
/// memory, the candidate pool's positions), hashed by [`IntHasher`] rather than SipHash.
pub type DocMap<V> = std::collections::HashMap<DocId, V, std::hash::BuildHasherDefault<IntHasher>>;

/// Largest accepted `text`, `textEn` or `keywords`, in UTF-8 bytes.
pub const MAX_TEXT_BYTES: usize = 256 * 1024;
/// Largest accepted id, topic, tier, type, user id or tag, in UTF-8 bytes.
pub const MAX_NAME_BYTES: usize = 1024;
/// Most recall timestamps kept per memory (abmind: "capped at 20 entries").
pub const MAX_RECALL_TIMESTAMPS: usize = 20;
/// Emotion scores range over `-MAX_EMOTION..=MAX_EMOTION` (abmind's scale).
pub const MAX_EMOTION: f64 = 5.0;
/// Trust ranges over `0..=MAX_TRUST` (abmind: `trust_factor = 0.5 + 0.5 × trust/3`).
pub const MAX_TRUST: f64 = 3.0;

/// A memory: a short text with metadata (DESIGN.md, Glossary: memory).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Memory {
    /// Public id, unique within a store.
    pub id: String,
    /// Text in its original language (`content_original`).
    pub text: String,
    /// English or translated text (`content_en`); `None` means "same as `text`".
    pub text_en: Option<String>,
    /// Preserved keywords, searched by the trigram sub-query together with `textEn`.
    pub keywords: Vec<String>,
    /// Namespace: recall with a `userId` only sees memories of that user.
    pub user_id: Option<String>,
    /// Topic, for filters, context boosts and timelines.
    pub topic: Option<String>,
    /// Free tags.
    pub tags: Vec<String>,
    /// Kind of memory: fact, preference, decision, lesson, event, … (free string).
    pub kind: Option<String>,
    /// Tier; `"core"` memories get the tier boost.
    pub tier: Option<String>,
    /// Emotion score in −5..5.
    pub emotion: f64,
    /// Emotion labels.
    pub emotion_tags: Vec<String>,
    /// Importance in 0..1.
    pub importance: Option<f64>,
    /// Confidence in 0..1.
    pub confidence: Option<f64>,
    /// Trust in 0..3; `None` counts as fully trusted (3).
    pub trust: Option<f64>,
    /// Credibility level (integer); `≤ 2` gets the credibility boost, `None` gets none.
    pub credibility: Option<i64>,
    /// Relevance score (`relevance_score`); `> 0` gets the relevance boost.
    pub relevance: f64,
    /// Classification level; recall's `maxClassification` hides higher levels.
    pub classification: i64,
    /// Creation time (ms since epoch).
    pub created_at: f64,
    /// Last update time (ms since epoch).
    pub updated_at: f64,
    /// Start of event-time validity (ms), if known.
    pub valid_from: Option<f64>,
    /// End of event-time validity (ms), if known.
    pub valid_to: Option<f64>,
    /// Expiry time (ms); expired memories are hidden from recall unless asked for.
    pub expires_at: Option<f64>,
    /// Names of entities this memory mentions.
    pub entities: Vec<String>,
    /// How many times recall returned this memory (engine-maintained).
    pub recall_count: u32,
    /// When recall last returned this memory (engine-maintained).
    pub last_recalled_at: Option<f64>,
    /// The last [`MAX_RECALL_TIMESTAMPS`] recall times (engine-maintained).
    pub recall_timestamps: Vec<f64>,
}

impl Memory {
    /// The English (or translated) text: `textEn`, or `text` when absent.
    pub fn text_en(&self) -> &str {
        self.text_en.as_deref().unwrap_or(&self.text)
    }

    /// Whether the original text differs from the English text, so the original-language
    /// trigram index must hold it separately.
    pub fn has_distinct_original(&self) -> bool {
        self.text_en.as_deref().is_some_and(|en| en != self.text)
    }

    /// Whether the memory has expired at `now` (ms).
    pub fn is_expired(&self, now: f64) -> bool {
        self.expires_at.is_some_and(|t| t <= now)
    }

    /// Checks every field's range and size. Returns `invalid_argument` or `too_large`
    /// naming the field and the bad value.
    pub fn validate(&self) -> Result<()> {
        check_name("id", &self.id)?;
        if self.id.is_empty() {
            return Err(Error::InvalidArgument("id must not be empty".into()));
        }
        // Without the id: it may be one the caller never saw (generated), and every caller
        // names the item, line or key the memory came from.
        if self.text.trim().is_empty() {
            return Err(Error::InvalidArgument("text must not be empty".into()));
        }
        check_text("text", &self.text)?;
        if let Some(en) = &self.text_en {
            check_text("textEn", en)?;
        }
        let keyword_bytes: usize = self.keywords.iter().map(|k| k.len() + 1).sum();
        if keyword_bytes > MAX_TEXT_BYTES {
            return Err(Error::TooLarge(format!(
                "keywords take {keyword_bytes} bytes, more than {MAX_TEXT_BYTES}"
            )));
        }
        for (field, value) in [
            ("userId", &self.user_id),
            ("topic", &self.topic),
            ("type", &self.kind),
            ("tier", &self.tier),
        ] {
            if let Some(v) = value {
                check_name(field, v)?;
            }
        }
        for tag in self
            .tags
            .iter()
            .chain(&self.emotion_tags)
            .chain(&self.entities)
        {
            check_name("tag", tag)?;
        }
        check_range("emotion", self.emotion, -MAX_EMOTION, MAX_EMOTION)?;
        check_optional_range("importance", self.importance, 0.0, 1.0)?;
        check_optional_range("confidence", self.confidence, 0.0, 1.0)?;
        check_optional_range("trust", self.trust, 0.0, MAX_TRUST)?;
        check_finite("relevance", self.relevance)?;
        for (field, t) in [
            ("createdAt", self.created_at),
            ("updatedAt", self.updated_at),
        ] {
            check_finite(field, t)?;
        }
        for (field, t) in [
            ("validFrom", self.valid_from),
            ("validTo", self.valid_to),
            ("expiresAt", self.expires_at),
            ("lastRecalledAt", self.last_recalled_at),
        ] {
            if let Some(t) = t {
                check_finite(field, t)?;
            }
        }
        if self.recall_timestamps.len() > MAX_RECALL_TIMESTAMPS {
            return Err(Error::InvalidArgument(format!(
                "recallTimestamps holds {} entries, at most {MAX_RECALL_TIMESTAMPS} are kept",
                self.recall_timestamps.len()
            )));
        }
        Ok(())
    }
}

fn check_text(field: &str, value: &str) -> Result<()> {
    check_size(field, value.len(), MAX_TEXT_BYTES)
}

/// Checks that a name-sized field (`field`, for the message) holds at most
/// [`MAX_NAME_BYTES`]. Errors: `too_large`.
pub(crate) fn check_name(field: &str, value: &str) -> Result<()> {
    check_size(field, value.len(), MAX_NAME_BYTES)
}

fn check_optional_range(field: &str, value: Option<f64>, min: f64, max: f64) -> Result<()> {
    value.map_or(Ok(()), |v| check_range(field, v, min, max))
}

impl crate::image::Persist for DocId {
    fn save(&self, w: &mut crate::image::Writer) -> Result<()> {
        self.0.save(w)
    }
    fn load(r: &mut crate::image::Reader) -> Result<Self> {
        Ok(DocId(u32::load(r)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doc_map_finds_what_it_holds() {
        let mut map: DocMap<u32> = DocMap::default();
        map.extend((0..1000).map(|id| (DocId(id), id * 2)));
        assert!((0..1000).all(|id| map[&DocId(id)] == id * 2));
        assert_eq!(map.get(&DocId(1000)), None);
    }

    fn memory(text: &str) -> Memory {
        Memory {
            id: "m1".into(),
            text: text.into(),
            ..Memory::default()
        }
    }

    #[test]
    fn text_en_defaults_to_text() {
        let mut m = memory("bonjour");
        assert_eq!(m.text_en(), "bonjour");
        assert!(!m.has_distinct_original());
        m.text_en = Some("hello".into());
        assert_eq!(m.text_en(), "hello");
        assert!(m.has_distinct_original());
    }

    #[test]
    fn rejects_empty_text_and_out_of_range_fields() {
        assert_eq!(
            memory("  ").validate().unwrap_err().code(),
            "invalid_argument"
        );
        let mut m = memory("ok");
        m.emotion = 6.0;
        let e = m.validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: emotion must be between -5 and 5, got 6"
        );
        let mut m = memory("ok");
        m.trust = Some(f64::NAN);
        assert_eq!(m.validate().unwrap_err().code(), "invalid_argument");
        let mut m = memory("ok");
        m.created_at = f64::INFINITY;
        assert_eq!(m.validate().unwrap_err().code(), "invalid_argument");
    }

    #[test]
    fn rejects_oversize_text() {
        let m = memory(&"a".repeat(MAX_TEXT_BYTES + 1));
        assert_eq!(m.validate().unwrap_err().code(), "too_large");
    }

    #[test]
    fn expiry_is_inclusive_of_now() {
        let mut m = memory("x");
        m.expires_at = Some(100.0);
        assert!(m.is_expired(100.0));
        assert!(!m.is_expired(99.0));
    }
}
