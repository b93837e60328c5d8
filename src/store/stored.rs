//! [`StoredMemory`]: a [`Memory`] as the engine keeps it, in a fraction of the bytes.
//!
//! A `Memory` holds every one of its 26 fields inline: 320 bytes on wasm32 before its strings,
//! though most memories set a handful of them. The engine keeps one record per memory (100,000
//! records: 32 MB of mostly empty fields), so it stores them compactly:
//!
//! - the fields every memory has or most set (id, text, topic, tags, `createdAt`,
//!   `updatedAt`, `recallCount`) are inline, and their strings share one allocation,
//!   `strings`: the id, the text, the topic, then each tag behind its byte length written as
//!   one `char` (so the whole stays a `str`: lengths up to [`MAX_PACKED_TAG_BYTES`] are
//!   scalar values, and validated tags are far shorter; longer ones stay in `rest`);
//! - every other field lives in one boxed `Memory`, `rest`, whose own copies of the inline
//!   fields stay empty; it is allocated only when one of those fields differs from its default
//!   (floats compared by their bits, so `-0` is kept).
//!
//! That is 40 bytes on wasm32 (56 on 64-bit targets) and one allocation for the strings, for
//! a memory without rare fields. Conversion is exact both ways:
//! `StoredMemory::from(m).to_memory() == m`, float bits included.

use super::records::Memory;
use crate::error::Result;
use crate::image::{self, Persist, Reader, Writer};
use crate::wire::{self, batch};

/// The fields of [`StoredMemory::rest`] when it is not allocated.
static EMPTY: Memory = Memory {
    id: String::new(),
    text: String::new(),
    text_en: None,
    keywords: Vec::new(),
    user_id: None,
    topic: None,
    tags: Vec::new(),
    kind: None,
    tier: None,
    emotion: 0.0,
    emotion_tags: Vec::new(),
    importance: None,
    confidence: None,
    trust: None,
    credibility: None,
    relevance: 0.0,
    classification: 0,
    created_at: 0.0,
    updated_at: 0.0,
    valid_from: None,
    valid_to: None,
    expires_at: None,
    entities: Vec::new(),
    recall_count: 0,
    last_recalled_at: None,
    recall_timestamps: Vec::new(),
};

/// A memory in the engine's compact layout; see the module documentation. Built from a
/// validated [`Memory`] and turned back into one with [`to_memory`](Self::to_memory).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMemory {
    /// The id, the text, the topic and the length-prefixed tags, one after the other.
    strings: Box<str>,
    /// Byte length of the text in `strings` (validated texts are far shorter than 4 GiB).
    text_len: u32,
    /// Byte length of the id at the start of `strings`; [`IN_REST`] when it is too long to
    /// say here (never a validated id), and `rest` holds it.
    id_len: u16,
    /// Byte length of the topic after the text; [`NO_TOPIC`] when there is none, [`IN_REST`]
    /// when it is too long to say here (never a validated topic), and `rest` holds it.
    topic_len: u16,
    created_at: f64,
    updated_at: f64,
    recall_count: u32,
    /// The other fields; its id, text, topic, times and recall count are empty, and so are
    /// its tags unless one is too long to pack.
    rest: Option<Box<Memory>>,
}

/// [`StoredMemory::topic_len`] of a memory without a topic.
const NO_TOPIC: u16 = u16::MAX;
/// [`StoredMemory::id_len`] or `topic_len` of a string kept in `rest`.
const IN_REST: u16 = u16::MAX - 1;

/// Longest tag packed into a [`StoredMemory`]'s strings, in bytes: every length up to it is a
/// Unicode scalar value (the surrogates start at U+D800).
pub const MAX_PACKED_TAG_BYTES: usize = 0xD7FF;

impl From<Memory> for StoredMemory {
    fn from(mut m: Memory) -> Self {
        Self::pack(&mut m)
    }
}

impl StoredMemory {
    /// `m` in the compact layout. The inline strings are copied into the new record's one
    /// allocation and their buffers stay in `m` (a reader decoding many memories into one
    /// value reuses them); every other field is moved out, so `m` is left with the id, text,
    /// topic and tags it had, or fewer (those too long to pack move too), and defaults.
    pub fn pack(m: &mut Memory) -> Self {
        // Ids and topics are validated names (at most 1 KiB); one too long for a u16 length
        // stays in `rest`, as do the tags if one of them is too long.
        let packs = |t: &str| t.len() < usize::from(IN_REST);
        let id_packs = packs(&m.id);
        let topic_packs = m.topic.as_deref().map_or(true, packs);
        let tags_pack = m.tags.iter().all(|t| t.len() <= MAX_PACKED_TAG_BYTES);
        let id = if id_packs { m.id.as_str() } else { "" };
        let topic = if topic_packs {
            m.topic.as_deref()
        } else {
            None
        };
        let tags: &[String] = if tags_pack { &m.tags } else { &[] };
        let topic_len = match topic {
            Some(t) => t.len() as u16,
            None if m.topic.is_some() => IN_REST,
            None => NO_TOPIC,
        };
        let tag_bytes: usize = tags.iter().map(|t| t.len() + 4).sum();
        let topic_bytes = topic.map_or(0, str::len);
        let mut strings = String::with_capacity(id.len() + m.text.len() + topic_bytes + tag_bytes);
        strings.push_str(id);
        strings.push_str(&m.text);
        strings.push_str(topic.unwrap_or_default());
        for tag in tags {
            // `tags_pack`: the length is at most MAX_PACKED_TAG_BYTES, a scalar value.
            strings.extend(u32::try_from(tag.len()).ok().and_then(char::from_u32));
            strings.push_str(tag);
        }
        let stored = StoredMemory {
            strings: strings.into_boxed_str(),
            text_len: u32::try_from(m.text.len()).unwrap_or(u32::MAX),
            id_len: if id_packs { id.len() as u16 } else { IN_REST },
            topic_len,
            created_at: std::mem::take(&mut m.created_at),
            updated_at: std::mem::take(&mut m.updated_at),
            recall_count: std::mem::take(&mut m.recall_count),
            rest: None,
        };
        // The packed strings step aside while the other fields are compared with their
        // defaults and, unless all are, moved into `rest`.
        let text = std::mem::take(&mut m.text);
        let id = if id_packs {
            std::mem::take(&mut m.id)
        } else {
            String::new()
        };
        let topic = if topic_packs { m.topic.take() } else { None };
        let tags = if tags_pack {
            std::mem::take(&mut m.tags)
        } else {
            Vec::new()
        };
        // `==` treats -0 as 0, hence the bit comparisons of the two plain floats (the
        // optional ones differ from `None` whatever their value).
        let is_empty = *m == EMPTY && m.emotion.to_bits() == 0 && m.relevance.to_bits() == 0;
        let rest = (!is_empty).then(|| Box::new(std::mem::take(m)));
        m.text = text;
        if id_packs {
            m.id = id;
        }
        if topic_packs {
            m.topic = topic;
        }
        if tags_pack {
            m.tags = tags;
        }
        StoredMemory { rest, ..stored }
    }

    /// Heap memory the record owns, in bytes: its strings and, when some fields do not pack,
    /// the boxed remainder (not counting that remainder's own allocations).
    pub fn heap_bytes(&self) -> usize {
        self.strings.len()
            + self
                .rest
                .as_ref()
                .map_or(0, |_| std::mem::size_of::<Memory>())
    }

    /// The memory with all its fields.
    pub fn to_memory(&self) -> Memory {
        Memory {
            id: self.id().to_owned(),
            text: self.text().to_owned(),
            topic: self.topic().map(str::to_owned),
            // Packed tags, or those `rest` holds when they were too long to pack.
            tags: match self.tags().map(str::to_owned).collect::<Vec<_>>() {
                packed if packed.is_empty() => self.rest().tags.clone(),
                packed => packed,
            },
            created_at: self.created_at,
            updated_at: self.updated_at,
            recall_count: self.recall_count,
            ..self.rest().clone()
        }
    }

    /// The fields that are not inline (with empty inline ones).
    fn rest(&self) -> &Memory {
        self.rest.as_deref().unwrap_or(&EMPTY)
    }

    /// `strings[start..end]`; the offsets are char boundaries by construction, so the empty
    /// fallback is never taken.
    fn part(&self, start: usize, end: usize) -> &str {
        self.strings.get(start..end).unwrap_or_default()
    }

    /// End of the id in `strings` (0 when `rest` holds it).
    fn id_end(&self) -> usize {
        match self.id_len {
            IN_REST => 0,
            len => usize::from(len),
        }
    }

    /// End of the text in `strings`, where the topic starts.
    fn text_end(&self) -> usize {
        self.id_end() + self.text_len as usize
    }

    /// Start of the tags in `strings`.
    fn tags_start(&self) -> usize {
        match self.topic_len {
            NO_TOPIC | IN_REST => self.text_end(),
            len => self.text_end() + usize::from(len),
        }
    }

    /// Public id.
    pub fn id(&self) -> &str {
        match self.id_len {
            IN_REST => &self.rest().id,
            _ => self.part(0, self.id_end()),
        }
    }

    /// Text in its original language.
    pub fn text(&self) -> &str {
        self.part(self.id_end(), self.text_end())
    }

    /// The English (or translated) text: [`Memory::text_en`].
    pub fn text_en(&self) -> &str {
        self.rest().text_en.as_deref().unwrap_or(self.text())
    }

    /// [`Memory::has_distinct_original`].
    pub fn has_distinct_original(&self) -> bool {
        self.rest()
            .text_en
            .as_deref()
            .is_some_and(|en| en != self.text())
    }

    /// Preserved keywords.
    pub fn keywords(&self) -> &[String] {
        &self.rest().keywords
    }

    /// User id.
    pub fn user_id(&self) -> Option<&str> {
        self.rest().user_id.as_deref()
    }

    /// Topic.
    pub fn topic(&self) -> Option<&str> {
        match self.topic_len {
            NO_TOPIC => None,
            IN_REST => self.rest().topic.as_deref(),
            _ => Some(self.part(self.text_end(), self.tags_start())),
        }
    }

    /// The topic's bytes, `None` without a topic: [`StoredMemory::topic`] without the char
    /// boundary checks of slicing a `str`, for the filter every stage asks about each document
    /// that could enter its top k (it was about 3 % of a recall's CPU at 10,000 memories).
    #[inline]
    pub fn topic_bytes(&self) -> Option<&[u8]> {
        match self.topic_len {
            NO_TOPIC => None,
            IN_REST => self.rest().topic.as_deref().map(str::as_bytes),
            len => {
                let start = self.text_end();
                self.strings.as_bytes().get(start..start + usize::from(len))
            }
        }
    }

    /// The packed tags (each behind its length as one `char`).
    fn tags(&self) -> impl Iterator<Item = &str> {
        let mut left = self.part(self.tags_start(), self.strings.len());
        std::iter::from_fn(move || {
            let mut chars = left.chars();
            let len = chars.next()? as usize;
            let (tag, after) = chars.as_str().split_at_checked(len)?;
            left = after;
            Some(tag)
        })
    }

    /// Tier.
    pub fn tier(&self) -> Option<&str> {
        self.rest().tier.as_deref()
    }

    /// Emotion score.
    pub fn emotion(&self) -> f64 {
        self.rest().emotion
    }

    /// Trust.
    pub fn trust(&self) -> Option<f64> {
        self.rest().trust
    }

    /// Credibility level.
    pub fn credibility(&self) -> Option<i64> {
        self.rest().credibility
    }

    /// Relevance score.
    pub fn relevance(&self) -> f64 {
        self.rest().relevance
    }

    /// The tags: the packed ones, or those `rest` holds when they were too long to pack.
    pub fn tag_list(&self) -> Vec<&str> {
        let packed: Vec<&str> = self.tags().collect();
        if packed.is_empty() {
            self.rest().tags.iter().map(String::as_str).collect()
        } else {
            packed
        }
    }

    /// Importance (0..1), if set.
    pub fn importance(&self) -> Option<f64> {
        self.rest().importance
    }

    /// Confidence (0..1), if set.
    pub fn confidence(&self) -> Option<f64> {
        self.rest().confidence
    }

    /// When recall last returned this memory (ms), if it has.
    pub fn last_recalled_at(&self) -> Option<f64> {
        self.rest().last_recalled_at
    }

    /// Classification level.
    pub fn classification(&self) -> i64 {
        self.rest().classification
    }

    /// Creation time (ms).
    pub fn created_at(&self) -> f64 {
        self.created_at
    }

    /// Type (fact, preference, style, …).
    pub fn kind(&self) -> Option<&str> {
        self.rest().kind.as_deref()
    }

    /// The entities it names.
    pub fn entities(&self) -> &[String] {
        &self.rest().entities
    }

    /// Last update time (ms).
    pub fn updated_at(&self) -> f64 {
        self.updated_at
    }

    /// [`Memory::is_expired`].
    pub fn is_expired(&self, now: f64) -> bool {
        self.rest().is_expired(now)
    }

    /// Event-time validity: `validFrom` and `validTo` (ms), each open when `None`.
    pub fn validity(&self) -> (Option<f64>, Option<f64>) {
        let rest = self.rest();
        (rest.valid_from, rest.valid_to)
    }

    /// How many times recall returned this memory.
    pub fn recall_count(&self) -> u32 {
        self.recall_count
    }

    /// The last recall times.
    pub fn recall_timestamps(&self) -> &[f64] {
        &self.rest().recall_timestamps
    }

    /// Counts one recall at `now`: the count, the last time and the last
    /// [`MAX_RECALL_TIMESTAMPS`](super::records::MAX_RECALL_TIMESTAMPS) times (abmind's cap).
    pub fn track_recall(&mut self, now: f64) {
        self.recall_count = self.recall_count.saturating_add(1);
        let rest = self.rest.get_or_insert_with(Box::default);
        rest.last_recalled_at = Some(now);
        rest.recall_timestamps.push(now);
        let excess = rest
            .recall_timestamps
            .len()
            .saturating_sub(super::records::MAX_RECALL_TIMESTAMPS);
        rest.recall_timestamps.drain(..excess);
    }
}

/// Saved as the [`Memory`] it packs, in the binary record of the bulk path (`wire::batch`, one reader
/// and writer for both); a load validates it as a write would and packs it again.
impl Persist for StoredMemory {
    fn save(&self, w: &mut Writer) -> Result<()> {
        let mut out = wire::Writer::new();
        batch::write_memory(&mut out, &self.to_memory());
        w.blob(&out.into_bytes())
    }

    fn load(r: &mut Reader) -> Result<Self> {
        let mut m = batch::memory_from(&r.blob()?).map_err(image::damaged)?;
        m.validate().map_err(image::damaged)?;
        Ok(Self::pack(&mut m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(m: Memory) -> StoredMemory {
        let stored = StoredMemory::from(m.clone());
        let back = stored.to_memory();
        assert_eq!(back, m);
        assert_eq!(back.emotion.to_bits(), m.emotion.to_bits());
        assert_eq!(back.relevance.to_bits(), m.relevance.to_bits());
        assert_eq!(stored.topic_bytes(), m.topic.as_deref().map(str::as_bytes));
        stored
    }

    #[test]
    fn a_plain_memory_needs_no_rest() {
        let stored = round_trip(Memory {
            id: "m1".into(),
            text: "hello".into(),
            topic: Some("work".into()),
            tags: vec!["a".into(), "b".into()],
            created_at: 5.0,
            updated_at: 6.0,
            recall_count: 3,
            ..Memory::default()
        });
        assert!(stored.rest.is_none());
        assert_eq!(stored.text_en(), "hello");
        assert!(!stored.has_distinct_original());
    }

    #[test]
    fn every_field_survives_the_round_trip() {
        let stored = round_trip(Memory {
            id: "m2".into(),
            text: "bonjour".into(),
            text_en: Some("hello".into()),
            keywords: vec!["k".into()],
            user_id: Some("u".into()),
            topic: Some("t".into()),
            tags: vec!["x".into()],
            kind: Some("fact".into()),
            tier: Some("core".into()),
            emotion: -2.5,
            emotion_tags: vec!["joy".into()],
            importance: Some(0.5),
            confidence: Some(0.25),
            trust: Some(1.0),
            credibility: Some(2),
            relevance: 0.75,
            classification: 4,
            created_at: 1.0,
            updated_at: 2.0,
            valid_from: Some(3.0),
            valid_to: Some(4.0),
            expires_at: Some(5.0),
            entities: vec!["Ada".into()],
            recall_count: 7,
            last_recalled_at: Some(6.0),
            recall_timestamps: vec![6.0],
        });
        assert_eq!(stored.text_en(), "hello");
        assert!(stored.has_distinct_original());
        assert_eq!(
            (stored.user_id(), stored.tier(), stored.classification()),
            (Some("u"), Some("core"), 4)
        );
        assert!(stored.is_expired(5.0));
    }

    #[test]
    fn an_empty_topic_differs_from_none() {
        let with = round_trip(Memory {
            id: "é1".into(),
            text: "naïve ünïcode 🦀".into(),
            topic: Some(String::new()),
            ..Memory::default()
        });
        assert_eq!(
            (with.id(), with.text(), with.topic()),
            ("é1", "naïve ünïcode 🦀", Some(""))
        );
        let without = round_trip(Memory {
            id: "é1".into(),
            text: "naïve ünïcode 🦀".into(),
            ..Memory::default()
        });
        assert_eq!(
            (without.text(), without.topic()),
            ("naïve ünïcode 🦀", None)
        );
        round_trip(Memory::default());
    }

    #[test]
    fn tags_of_every_length_round_trip() {
        let long = "x".repeat(MAX_PACKED_TAG_BYTES);
        let tags = vec![String::new(), "é🦀".into(), long.clone(), "a".into()];
        let stored = round_trip(Memory {
            topic: Some("t".into()),
            tags: tags.clone(),
            ..Memory::default()
        });
        assert!(stored.rest.is_none());
        assert_eq!(stored.tags().collect::<Vec<_>>(), tags);
        assert_eq!(stored.topic(), Some("t"));
        // Longer than a length char can say (never a validated tag): kept whole in `rest`.
        let too_long = vec!["a".into(), format!("{long}y")];
        let stored = round_trip(Memory {
            text: "x".into(),
            tags: too_long,
            ..Memory::default()
        });
        assert!(stored.rest.is_some());
        assert_eq!((stored.text(), stored.tags().count()), ("x", 0));
    }

    #[test]
    fn an_id_or_topic_too_long_for_a_length_stays_in_rest() {
        let long = "i".repeat(usize::from(IN_REST));
        let just = "j".repeat(usize::from(IN_REST) - 1);
        for (id, topic) in [(&long, &just), (&just, &long), (&long, &long)] {
            let stored = round_trip(Memory {
                id: id.clone(),
                text: "body".into(),
                topic: Some(topic.clone()),
                tags: vec!["t".into()],
                ..Memory::default()
            });
            assert!(stored.rest.is_some());
            assert_eq!(
                (stored.id(), stored.text(), stored.topic()),
                (id.as_str(), "body", Some(topic.as_str()))
            );
            assert_eq!(stored.tags().collect::<Vec<_>>(), ["t"]);
        }
    }

    #[test]
    fn negative_zero_is_kept() {
        let stored = round_trip(Memory {
            emotion: -0.0,
            ..Memory::default()
        });
        assert!(stored.rest.is_some());
        round_trip(Memory {
            relevance: -0.0,
            ..Memory::default()
        });
    }

    #[test]
    fn tracking_keeps_the_last_timestamps() {
        let mut stored = StoredMemory::from(Memory::default());
        for i in 0..25 {
            stored.track_recall(f64::from(i));
        }
        let m = stored.to_memory();
        assert_eq!(m.recall_count, 25);
        assert_eq!(m.last_recalled_at, Some(24.0));
        assert_eq!(
            m.recall_timestamps.len(),
            super::super::records::MAX_RECALL_TIMESTAMPS
        );
        assert_eq!(m.recall_timestamps[0], 5.0);
    }

    #[test]
    fn is_compact() {
        let words = std::mem::size_of::<usize>();
        assert_eq!(
            std::mem::size_of::<StoredMemory>(),
            (28 + 3 * words).next_multiple_of(8)
        );
        assert_eq!(
            std::mem::size_of::<Option<StoredMemory>>(),
            std::mem::size_of::<StoredMemory>()
        );
    }
}
