//! The bulk path of the boundary: a batch of memories (`rememberMany`, `import`) read straight
//! from the wire bytes with a [`Reader`] (no [`Value`](super::Value) tree), each memory an
//! object with keys or a record with a field mask ([`MEMORY_FIELDS`]); `encodeRecordsView` in
//! `js/src/wire.ts` writes it. Everything else crosses with serde-wasm-bindgen
//! ([`super::inputs`], [`super::outputs`]); this path stays binary because it is measured faster for 1,000 memories
//! and more (DESIGN.md, "The boundary").
//!
//! Field names are camelCase (`textEn`, `createdAt`; a memory's `kind` is `type`). A memory
//! ignores fields it does not know, so a newer writer's extra fields never make an older
//! engine fail. [`write_memory`] writes one memory in the same format, for the tests and the
//! fuzzer that read it back.

use crate::engine::Batch;
use crate::error::{Error, Result};
use crate::store::Memory;

use super::value::{Reader, Writer};

/// Largest classification or credibility level accepted (any i64 JavaScript can carry exactly).
pub const MAX_LEVEL: i64 = 1 << 53;

/// Reads a memory record (fields it does not know are skipped).
pub fn memory_from(bytes: &[u8]) -> Result<Memory> {
    let mut r = Reader::new(bytes);
    let mut m = Memory::default();
    read_memory(&mut r, &mut m)?;
    r.finish()?;
    Ok(m)
}

/// Takes each memory [`memories_into`] reads.
pub trait MemorySink {
    /// Takes what it keeps of `m`, the reader's one scratch record: the next record is read
    /// into the same value, reusing the buffers of the id, text, topic and tags left in it.
    fn take_memory(&mut self, m: &mut Memory);
    /// How many memories it holds: the batch position of the next one.
    fn taken(&self) -> usize;
}

impl MemorySink for Vec<Memory> {
    fn take_memory(&mut self, m: &mut Memory) {
        self.push(std::mem::take(m));
    }

    fn taken(&self) -> usize {
        self.len()
    }
}

impl MemorySink for Batch {
    fn take_memory(&mut self, m: &mut Memory) {
        self.push(m);
    }

    fn taken(&self) -> usize {
        self.len()
    }
}

/// Reads an array of memories, each an object (fields it does not know are skipped) or a
/// record with a field mask ([`MEMORY_FIELDS`]), handing each to `out` as soon as it is read
/// (a `Vec`, or an engine [`Batch`] that keeps it in its compact layout). An error in a
/// memory names its position in `out` (`item 1300: …`, counting what `out` held before, so a
/// batch read in chunks counts over the whole batch), as the engine's checks do. On an error,
/// `out` may hold the memories read before it.
pub fn memories_into(bytes: &[u8], out: &mut impl MemorySink) -> Result<()> {
    let mut r = Reader::new(bytes);
    r.begin_arr("memories")?;
    let mut m = Memory::default();
    while r.next_item()? {
        let index = out.taken();
        read_memory(&mut r, &mut m).map_err(|e| e.at_item(index))?;
        out.take_memory(&mut m);
    }
    r.finish()
}

/// The fields of a memory record, in the order of a record's field mask (bit `i` is field
/// `i`): `RECORD_KEY_NAMES` in `js/src/wire.ts`, which writes them.
pub const MEMORY_FIELDS: [&str; 26] = [
    "id",
    "text",
    "textEn",
    "keywords",
    "userId",
    "topic",
    "tags",
    "type",
    "tier",
    "emotion",
    "emotionTags",
    "importance",
    "confidence",
    "trust",
    "credibility",
    "relevance",
    "classification",
    "createdAt",
    "updatedAt",
    "validFrom",
    "validTo",
    "expiresAt",
    "entities",
    "recallCount",
    "lastRecalledAt",
    "recallTimestamps",
];

/// Reads one memory straight from the bytes into `m`, as an object (fields it does not know
/// are skipped) or as a record with a field mask (no keys: [`MEMORY_FIELDS`]); no
/// [`Value`](super::Value) tree. The id, text, topic and tags go into the buffers `m`
/// already has (measured: a batch read into fresh strings spent a tenth of its decoding
/// allocating and freeing them); every other field of `m` is reset first.
fn read_memory(r: &mut Reader<'_>, m: &mut Memory) -> Result<()> {
    let mask = r.record_mask()?;
    if mask.is_none() {
        r.begin_obj(MEMORY)?;
    }
    let mut fields = ScratchMemory::new(m);
    match mask {
        Some(mask) => {
            if mask >> MEMORY_FIELDS.len() != 0 {
                return Err(Error::InvalidArgument(format!(
                    "a memory record has fields the engine does not know (mask {mask})"
                )));
            }
            for (field, name) in MEMORY_FIELDS.iter().enumerate() {
                if mask & 1 << field != 0 {
                    fields.read(r, field, name)?;
                }
            }
        }
        None => {
            while let Some(key) = r.next_key()? {
                match MEMORY_FIELDS.iter().position(|&name| name == key) {
                    Some(field) => fields.read(r, field, key)?,
                    None => r.skip()?,
                }
            }
        }
    }
    fields.finish();
    Ok(())
}

/// What errors call a memory.
const MEMORY: &str = "memory";

/// A memory being read into a value that held the one before: which of the reused fields
/// the record has set so far.
struct ScratchMemory<'m> {
    m: &'m mut Memory,
    has_topic: bool,
    has_tags: bool,
}

impl<'m> ScratchMemory<'m> {
    /// Resets every field of `m` but the buffers of its id, text, topic and tags.
    fn new(m: &'m mut Memory) -> Self {
        let mut id = std::mem::take(&mut m.id);
        let mut text = std::mem::take(&mut m.text);
        let topic = m.topic.take();
        let tags = std::mem::take(&mut m.tags);
        // Buffers of the previous record: a record without the field has none of its text.
        id.clear();
        text.clear();
        *m = Memory {
            id,
            text,
            topic,
            tags,
            ..Memory::default()
        };
        ScratchMemory {
            m,
            has_topic: false,
            has_tags: false,
        }
    }

    /// Reads the value of field `field` of [`MEMORY_FIELDS`]; `key` names it in errors.
    fn read(&mut self, r: &mut Reader<'_>, field: usize, key: &str) -> Result<()> {
        const W: &str = MEMORY;
        const LEVEL: (i64, i64) = (-MAX_LEVEL, MAX_LEVEL);
        let m = &mut *self.m;
        // A string or null into a reused buffer; whether it was a string.
        let into = |r: &mut Reader<'_>, buffer: &mut String| -> Result<bool> {
            buffer.clear();
            let value = r.opt_str_ref(W, key)?;
            buffer.push_str(value.unwrap_or_default());
            Ok(value.is_some())
        };
        match field {
            0 => drop(into(r, &mut m.id)?),
            1 => drop(into(r, &mut m.text)?),
            2 => m.text_en = r.opt_str(W, key)?,
            3 => m.keywords = r.strs(W, key)?,
            4 => m.user_id = r.opt_str(W, key)?,
            5 => self.has_topic = into(r, m.topic.get_or_insert_with(String::new))?,
            6 => {
                r.strs_into(W, key, &mut m.tags)?;
                self.has_tags = true;
            }
            7 => m.kind = r.opt_str(W, key)?,
            8 => m.tier = r.opt_str(W, key)?,
            9 => m.emotion = r.opt_num(W, key)?.unwrap_or(0.0),
            10 => m.emotion_tags = r.strs(W, key)?,
            11 => m.importance = r.opt_num(W, key)?,
            12 => m.confidence = r.opt_num(W, key)?,
            13 => m.trust = r.opt_num(W, key)?,
            14 => m.credibility = r.opt_int(W, key, LEVEL.0, LEVEL.1)?,
            15 => m.relevance = r.opt_num(W, key)?.unwrap_or(0.0),
            16 => m.classification = r.opt_int(W, key, LEVEL.0, LEVEL.1)?.unwrap_or(0),
            17 => m.created_at = r.opt_num(W, key)?.unwrap_or(0.0),
            18 => m.updated_at = r.opt_num(W, key)?.unwrap_or(0.0),
            19 => m.valid_from = r.opt_num(W, key)?,
            20 => m.valid_to = r.opt_num(W, key)?,
            21 => m.expires_at = r.opt_num(W, key)?,
            22 => m.entities = r.strs(W, key)?,
            23 => {
                m.recall_count = r
                    .opt_int(W, key, 0, i64::from(u32::MAX))?
                    .map_or(0, |n| n as u32)
            }
            24 => m.last_recalled_at = r.opt_num(W, key)?,
            _ => m.recall_timestamps = r.nums(W, key)?,
        }
        Ok(())
    }

    /// Drops what the previous record left in the topic and tags unless this one set them.
    fn finish(self) {
        if !self.has_topic {
            self.m.topic = None;
        }
        if !self.has_tags {
            self.m.tags.clear();
        }
    }
}

/// Writes a memory record.
pub fn write_memory(w: &mut Writer, m: &Memory) {
    w.begin_obj();
    w.field_str("id", &m.id);
    w.field_str("text", &m.text);
    w.opt_str("textEn", m.text_en.as_deref());
    w.opt_strs("keywords", &m.keywords);
    w.opt_str("userId", m.user_id.as_deref());
    w.opt_str("topic", m.topic.as_deref());
    w.opt_strs("tags", &m.tags);
    w.opt_str("type", m.kind.as_deref());
    w.opt_str("tier", m.tier.as_deref());
    w.field_num("emotion", m.emotion);
    w.opt_strs("emotionTags", &m.emotion_tags);
    w.opt_num("importance", m.importance);
    w.opt_num("confidence", m.confidence);
    w.opt_num("trust", m.trust);
    w.opt_num("credibility", m.credibility.map(|c| c as f64));
    w.field_num("relevance", m.relevance);
    w.field_num("classification", m.classification as f64);
    w.field_num("createdAt", m.created_at);
    w.field_num("updatedAt", m.updated_at);
    w.opt_num("validFrom", m.valid_from);
    w.opt_num("validTo", m.valid_to);
    w.opt_num("expiresAt", m.expires_at);
    w.opt_strs("entities", &m.entities);
    w.field_num("recallCount", f64::from(m.recall_count));
    w.opt_num("lastRecalledAt", m.last_recalled_at);
    if !m.recall_timestamps.is_empty() {
        w.key("recallTimestamps");
        w.begin_arr();
        for &t in &m.recall_timestamps {
            w.num(t);
        }
        w.end();
    }
    w.end();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memories(bytes: &[u8]) -> Result<Vec<Memory>> {
        let mut out = Vec::new();
        memories_into(bytes, &mut out).map(|()| out)
    }

    fn raw(write: impl FnOnce(&mut Writer)) -> Vec<u8> {
        let mut w = Writer::new();
        write(&mut w);
        w.into_bytes()
    }

    /// A memory with every field set to something other than its default.
    fn every_field() -> Memory {
        Memory {
            id: "m1".into(),
            text: "Olá mundo".into(),
            text_en: Some("Hello world".into()),
            keywords: vec!["greeting".into()],
            user_id: Some("u".into()),
            topic: Some("t".into()),
            tags: vec!["a".into(), "b".into()],
            kind: Some("fact".into()),
            tier: Some("core".into()),
            emotion: -2.5,
            emotion_tags: vec!["joy".into()],
            importance: Some(0.1),
            confidence: Some(1.0),
            trust: Some(2.0),
            credibility: Some(-3),
            relevance: 0.3,
            classification: 2,
            created_at: 1_750_000_000_123.0,
            updated_at: 1_750_000_000_456.5,
            valid_from: Some(-1.0),
            valid_to: Some(1e15),
            expires_at: Some(2e12),
            entities: vec!["Ana".into()],
            recall_count: 7,
            last_recalled_at: Some(3.0),
            recall_timestamps: vec![1.0, 2.5],
        }
    }

    #[test]
    fn memory_round_trips_with_every_field() {
        let m = every_field();
        assert_eq!(memory_from(&raw(|w| write_memory(w, &m))).unwrap(), m);
        let bare = Memory {
            id: "m2".into(),
            text: "x".into(),
            ..Memory::default()
        };
        assert_eq!(memory_from(&raw(|w| write_memory(w, &bare))).unwrap(), bare);
        let both = raw(|w| {
            w.begin_arr();
            write_memory(w, &m);
            write_memory(w, &bare);
            w.end();
        });
        assert_eq!(memories(&both).unwrap(), vec![m.clone(), bare.clone()]);
        assert!(memories(&both[..both.len() - 1]).is_err());
    }

    /// `m` as a record with a field mask: its object's fields, keys left out.
    fn write_record(w: &mut Writer, m: &Memory) {
        use super::super::value::{decode, Value};
        fn value(w: &mut Writer, v: &Value) {
            match v {
                Value::Null => w.null(),
                Value::Bool(b) => w.bool(*b),
                Value::Num(n) => w.num(*n),
                Value::Str(s) => w.str(s),
                Value::Arr(items) => {
                    w.begin_arr();
                    items.iter().for_each(|item| value(w, item));
                    w.end();
                }
                Value::Obj(_) | Value::Big(_) => unreachable!("not in a written memory"),
            }
        }
        let Ok(Value::Obj(entries)) = decode(&raw(|w| write_memory(w, m))) else {
            unreachable!("a memory is written as an object");
        };
        let field = |name: &str| entries.iter().find(|(k, _)| k == name).map(|(_, v)| v);
        let mask = MEMORY_FIELDS
            .iter()
            .enumerate()
            .filter(|(_, name)| field(name).is_some())
            .fold(0, |mask, (i, _)| mask | 1 << i);
        w.record(mask);
        for name in MEMORY_FIELDS {
            if let Some(v) = field(name) {
                value(w, v);
            }
        }
    }

    #[test]
    fn records_with_a_field_mask_read_as_the_objects_do() {
        let full = every_field();
        let sparse = Memory {
            id: "m2".into(),
            text: "only a text".into(),
            ..Memory::default()
        };
        let bytes = raw(|w| {
            w.begin_arr();
            write_record(w, &full);
            write_record(w, &sparse);
            // Objects and records mix.
            write_memory(w, &full);
            write_record(w, &full);
            w.end();
        });
        assert_eq!(
            memories(&bytes).unwrap(),
            [full.clone(), sparse, full.clone(), full]
        );
        // Every field of the mask, in order.
        let all = raw(|w| {
            w.begin_arr();
            w.record((1 << MEMORY_FIELDS.len()) - 1);
            for _ in MEMORY_FIELDS {
                w.null();
            }
            w.end();
        });
        assert_eq!(memories(&all).unwrap()[0].id, "");
        // A bit past the known fields, a value missing, a value of the wrong type.
        let string: fn(&mut Writer) = |w| w.str("x");
        let number: fn(&mut Writer) = |w| w.num(1.0);
        for (mask, value, error) in [
            (1 << 26 | 1, string, "fields the engine does not know"),
            (0b11, string, "truncated"),
            (0b10, number, "memory.text must be a string"),
        ] {
            let bytes = raw(|w| {
                w.begin_arr();
                w.record(mask);
                value(w);
                w.end();
            });
            // The array's end cut off: the record ends after its first value.
            let bytes = &bytes[..bytes.len() - usize::from(error == "truncated")];
            let e = memories(bytes).unwrap_err();
            assert_eq!(e.code(), "invalid_argument");
            assert!(e.to_string().contains(error), "{e}");
        }
    }

    /// A batch is read into one scratch memory whose buffers each record reuses: no record
    /// may keep a field of the one before it, whichever fields it leaves out or sets to null.
    #[test]
    fn a_batch_read_into_one_value_keeps_nothing_of_the_record_before() {
        let full = Memory {
            id: "a-long-first-id".into(),
            text: "The first memory has a longer text than the others".into(),
            topic: Some("first topic".into()),
            tags: vec!["x".into(), "second tag".into(), "z".into()],
            importance: Some(0.5),
            created_at: 5.0,
            updated_at: 6.0,
            recall_count: 2,
            ..Memory::default()
        };
        let bare = Memory {
            id: "b".into(),
            text: "short".into(),
            ..Memory::default()
        };
        let one_tag = Memory {
            id: "c".into(),
            text: "third".into(),
            tags: vec!["t".into()],
            ..Memory::default()
        };
        let again = Memory {
            id: "e".into(),
            ..full.clone()
        };
        let bytes = raw(|w| {
            w.begin_arr();
            write_memory(w, &full);
            write_memory(w, &bare);
            write_memory(w, &again);
            // Nulls instead of absent fields, and an explicitly empty tag list.
            w.begin_obj();
            w.field_str("id", "d");
            w.field_str("text", "fourth");
            w.key("topic");
            w.null();
            w.key("tags");
            w.begin_arr();
            w.end();
            w.end();
            write_memory(w, &one_tag);
            w.end();
        });
        let fourth = Memory {
            id: "d".into(),
            text: "fourth".into(),
            ..Memory::default()
        };
        let expected = [full, bare, again, fourth, one_tag];
        let mut batch = Batch::default();
        memories_into(&bytes, &mut batch).unwrap();
        let mut engine =
            crate::engine::Engine::new(crate::engine::EngineConfig::default()).unwrap();
        engine.insert_batch(batch, &[]).unwrap();
        for want in expected {
            assert_eq!(engine.get(&want.id), Some(want));
        }
        // A record without an id after one with an id has none.
        let no_id = raw(|w| {
            w.begin_arr();
            write_memory(
                w,
                &Memory {
                    id: "f".into(),
                    text: "sixth".into(),
                    ..Memory::default()
                },
            );
            w.begin_obj();
            w.field_str("text", "no id");
            w.end();
            w.end();
        });
        let mut batch = Batch::default();
        memories_into(&no_id, &mut batch).unwrap();
        let e = engine.insert_batch(batch, &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: item 1: id must not be empty"
        );
    }

    #[test]
    fn a_batch_names_the_item_whose_fields_are_the_wrong_type() {
        let bytes = raw(|w| {
            w.begin_arr();
            w.begin_obj();
            w.field_str("id", "a");
            w.field_str("text", "first");
            w.end();
            w.begin_obj();
            w.field_str("id", "b");
            w.field_num("text", 5.0);
            w.end();
            w.end();
        });
        let mut batch = Batch::default();
        let e = memories_into(&bytes, &mut batch).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: item 1: memory.text must be a string, got a number"
        );
        // Positions count what the sink held before: a batch read in chunks.
        let mut held = vec![Memory::default(); 3];
        let e = memories_into(&bytes, &mut held).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: item 4: memory.text must be a string, got a number"
        );
    }

    #[test]
    fn memory_ignores_unknown_fields_and_checks_types() {
        let value = raw(|w| {
            w.begin_obj();
            w.field_str("id", "m1");
            w.key("futureField");
            w.begin_obj();
            w.key("deep");
            w.strs(&["x"]);
            w.end();
            w.field_str("text", "x");
            w.key("topic");
            w.null();
            w.end();
        });
        let m = memory_from(&value).unwrap();
        assert_eq!((m.id.as_str(), m.text.as_str(), m.topic), ("m1", "x", None));
        let value = raw(|w| {
            w.begin_obj();
            w.field_num("text", 5.0);
            w.end();
        });
        assert_eq!(
            memory_from(&value).unwrap_err().to_string(),
            "invalid_argument: memory.text must be a string, got a number"
        );
        let value = raw(|w| {
            w.begin_obj();
            w.key("tags");
            w.begin_arr();
            w.str("a");
            w.num(1.0);
            w.end();
            w.end();
        });
        assert_eq!(
            memory_from(&value).unwrap_err().to_string(),
            "invalid_argument: memory.tags must be an array of strings, got a number"
        );
        let value = raw(|w| {
            w.begin_obj();
            w.field_num("classification", 1.5);
            w.end();
        });
        assert_eq!(memory_from(&value).unwrap_err().code(), "invalid_argument");
        assert_eq!(
            memories(&raw(|w| w.str("x"))).unwrap_err().to_string(),
            "invalid_argument: memories must be an array, got a string"
        );
    }
}
