//! The records, options and results that cross the boundary, read straight from the wire
//! bytes with a [`Reader`] (no [`Value`](super::Value) tree) and written with a [`Writer`]. Field names are camelCase (`textEn`, `createdAt`; a record's `kind` is
//! `type`), written in the order the TypeScript types in `src/wasm.rs` list them, optional
//! fields left out when unset. The TypeScript shapes are declared once, in `src/wasm.rs`.
//!
//! Records (memories, entities, edges) ignore fields they do not know, so a newer writer's
//! extra fields never make an older engine fail; option bags and notes reject them, naming
//! the field, because there a typo would silently change a result. (For notes that also means
//! an engine from before notes had owners refuses a note with `userId` or `classification`
//! instead of showing it to everyone; a note without them is written exactly as before, so
//! such an engine still reads it.)

use crate::engine::expand::Origin;
use crate::engine::{
    Batch, EngineConfig, HitKind, RecallHit, RecallOptions, RecallOutput, SearchMode, StageReport,
};
use crate::error::{check_unit, Error, Result};
use crate::graph::{Edge, Entity, DEFAULT_STRENGTH};
use crate::notes::{Note, Period};
use crate::rank::calibrate::DEFAULT_SF_HALF;
use crate::rank::hints::Hints;
use crate::rank::order::Sort;
use crate::rank::{Calibration, Context, FusionParams, Mapping, Ranking};
use crate::recall::tags::{TagFilter, TagMatch, TagMode};
use crate::store::Memory;

use super::value::{Reader, Writer};

/// Largest classification or credibility level accepted (any i64 JavaScript can carry exactly).
const MAX_LEVEL: i64 = 1 << 53;

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

/// Reads a note; `end` defaults from the period ([`Period::default_end`]), `userId` to none
/// (shared) and `classification` to 0, as in notes written before they had owners. Unknown
/// fields are an error.
pub fn note_from(bytes: &[u8]) -> Result<Note> {
    const W: &str = "note";
    let mut r = Reader::new(bytes);
    r.begin_obj(W)?;
    let (mut id, mut period, mut start, mut end, mut text) = (None, None, None, None, None);
    let (mut created_at, mut updated_at) = (None, None);
    let (mut user_id, mut classification) = (None, None);
    while let Some(key) = r.next_key()? {
        match key {
            "id" => id = r.opt_str(W, key)?,
            "period" => {
                period = match r.opt_str(W, key)? {
                    Some(label) => Some(period_from(&label)?),
                    None => None,
                }
            }
            "start" => start = r.opt_num(W, key)?,
            "end" => end = r.opt_num(W, key)?,
            "text" => text = r.opt_str(W, key)?,
            "createdAt" => created_at = r.opt_num(W, key)?,
            "updatedAt" => updated_at = r.opt_num(W, key)?,
            "userId" => user_id = r.opt_str(W, key)?,
            "classification" => classification = r.opt_int(W, key, -MAX_LEVEL, MAX_LEVEL)?,
            _ => return Err(unknown(W, key)),
        }
    }
    r.finish()?;
    let period = required(W, "period", period)?;
    let start = required(W, "start", start)?;
    Ok(Note {
        id: required(W, "id", id)?,
        period,
        start,
        end: end.unwrap_or_else(|| period.default_end(start)),
        text: required(W, "text", text)?,
        created_at: required(W, "createdAt", created_at)?,
        updated_at: required(W, "updatedAt", updated_at)?,
        user_id,
        classification: classification.unwrap_or(0),
    })
}

/// `value`, or the error that names the missing field `what.key`.
fn required<T>(what: &str, key: &str, value: Option<T>) -> Result<T> {
    value.ok_or_else(|| Error::InvalidArgument(format!("{what} is missing field `{key}`")))
}

/// The error for a field a shape does not know.
fn unknown(what: &str, key: &str) -> Error {
    Error::InvalidArgument(format!("unknown field `{key}` in {what}"))
}

fn period_from(label: &str) -> Result<Period> {
    [Period::Daily, Period::Weekly, Period::Quarterly]
        .into_iter()
        .find(|p| p.label() == label)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "note.period must be \"daily\", \"weekly\" or \"quarterly\", got \"{label}\""
            ))
        })
}

/// Writes a note; `userId` only when set and `classification` only when not 0, so a shared,
/// unclassified note is written exactly as before notes had owners (module doc).
pub fn write_note(w: &mut Writer, n: &Note) {
    w.begin_obj();
    w.field_str("id", &n.id);
    w.field_str("period", n.period.label());
    w.field_num("start", n.start);
    w.field_num("end", n.end);
    w.field_str("text", &n.text);
    w.field_num("createdAt", n.created_at);
    w.field_num("updatedAt", n.updated_at);
    w.opt_str("userId", n.user_id.as_deref());
    if n.classification != 0 {
        w.field_num("classification", n.classification as f64);
    }
    w.end();
}

/// Reads an entity (fields it does not know are skipped).
pub fn entity_from(bytes: &[u8]) -> Result<Entity> {
    const W: &str = "entity";
    let mut r = Reader::new(bytes);
    r.begin_obj(W)?;
    let mut name = None;
    let mut e = Entity::default();
    while let Some(key) = r.next_key()? {
        match key {
            "name" => name = r.opt_str(W, key)?,
            "type" => e.kind = r.opt_str(W, key)?,
            "aliases" => e.aliases = r.strs(W, key)?,
            "userId" => e.user_id = r.opt_str(W, key)?,
            "classification" => {
                e.classification = r.opt_int(W, key, -MAX_LEVEL, MAX_LEVEL)?.unwrap_or(0)
            }
            "createdAt" => e.created_at = r.opt_num(W, key)?.unwrap_or(0.0),
            _ => r.skip()?,
        }
    }
    r.finish()?;
    e.name = required(W, "name", name)?;
    Ok(e)
}

/// Writes an entity.
pub fn write_entity(w: &mut Writer, e: &Entity) {
    w.begin_obj();
    w.field_str("name", &e.name);
    w.opt_str("type", e.kind.as_deref());
    w.opt_strs("aliases", &e.aliases);
    w.opt_str("userId", e.user_id.as_deref());
    w.field_num("classification", e.classification as f64);
    w.field_num("createdAt", e.created_at);
    w.end();
}

/// Reads an edge (`id` may be left out: the graph derives it; fields it does not know are
/// skipped).
pub fn edge_from(bytes: &[u8]) -> Result<Edge> {
    const W: &str = "edge";
    let mut r = Reader::new(bytes);
    r.begin_obj(W)?;
    let (mut id, mut from, mut relation, mut to, mut strength) = (None, None, None, None, None);
    let (mut created_at, mut last_seen_at, mut memory_ids) = (None, None, Vec::new());
    let (mut user_id, mut classification) = (None, None);
    let (mut valid_from, mut valid_to) = (None, None);
    while let Some(key) = r.next_key()? {
        match key {
            "id" => id = r.opt_str(W, key)?,
            "from" => from = r.opt_str(W, key)?,
            "relation" => relation = r.opt_str(W, key)?,
            "to" => to = r.opt_str(W, key)?,
            "strength" => strength = r.opt_num(W, key)?,
            "createdAt" => created_at = r.opt_num(W, key)?,
            "lastSeenAt" => last_seen_at = r.opt_num(W, key)?,
            "memoryIds" => memory_ids = r.strs(W, key)?,
            "userId" => user_id = r.opt_str(W, key)?,
            "classification" => classification = r.opt_int(W, key, -MAX_LEVEL, MAX_LEVEL)?,
            "validFrom" => valid_from = r.opt_num(W, key)?,
            "validTo" => valid_to = r.opt_num(W, key)?,
            _ => r.skip()?,
        }
    }
    r.finish()?;
    Ok(Edge {
        id: id.unwrap_or_default(),
        from: required(W, "from", from)?,
        relation: required(W, "relation", relation)?,
        to: required(W, "to", to)?,
        strength: strength.unwrap_or(DEFAULT_STRENGTH),
        created_at: required(W, "createdAt", created_at)?,
        last_seen_at: required(W, "lastSeenAt", last_seen_at)?,
        memory_ids,
        user_id,
        classification: classification.unwrap_or(0),
        valid_from,
        valid_to,
    })
}

/// Writes an edge.
pub fn write_edge(w: &mut Writer, e: &Edge) {
    w.begin_obj();
    w.field_str("id", &e.id);
    w.field_str("from", &e.from);
    w.field_str("relation", &e.relation);
    w.field_str("to", &e.to);
    w.field_num("strength", e.strength);
    w.field_num("createdAt", e.created_at);
    w.field_num("lastSeenAt", e.last_seen_at);
    w.opt_strs("memoryIds", &e.memory_ids);
    w.opt_str("userId", e.user_id.as_deref());
    w.field_num("classification", e.classification as f64);
    w.opt_num("validFrom", e.valid_from);
    w.opt_num("validTo", e.valid_to);
    w.end();
}

/// Reads the engine configuration (`EngineConfigJs`); unset parameters keep their defaults,
/// unknown ones are an error. `signatureSeed` is decimal text (a `bigint` on the JavaScript
/// side). Ranges are checked by the engine.
pub fn config_from(bytes: &[u8]) -> Result<EngineConfig> {
    const W: &str = "config";
    let mut r = Reader::new(bytes);
    r.begin_obj(W)?;
    let mut c = EngineConfig::default();
    while let Some(key) = r.next_key()? {
        match key {
            "decayDays" => set(&mut c.score.decay_days, r.opt_num(W, key)?),
            "decayFloor" => set(&mut c.score.decay_floor, r.opt_num(W, key)?),
            "emotionBoost" => set(&mut c.score.emotion_boost, r.opt_num(W, key)?),
            "dimensions" => {
                c.dims = r
                    .opt_int(W, key, 0, i64::from(u32::MAX))?
                    .map(|n| n as usize)
            }
            "similarityThreshold" => c.se_threshold = r.opt_num(W, key)?.or(c.se_threshold),
            "shortCircuitFloor" => {
                c.short_circuit_floor = r.opt_num(W, key)?.or(c.short_circuit_floor)
            }
            "minScore" => c.min_score = r.opt_num(W, key)?.or(c.min_score),
            "ranking" => {
                if let Some(name) = r.opt_str(W, key)? {
                    c.ranking = Ranking::parse(&name)?;
                }
            }
            "weights" => {
                if !r.skip_null()? {
                    for (name, v) in read_weights(&mut r)? {
                        c.weights.set(&name, v)?;
                    }
                }
            }
            "fusion" => {
                if !r.skip_null()? {
                    read_fusion(&mut r, &mut c.fusion)?;
                }
            }
            "mmrLambda" => set(&mut c.mmr_lambda, r.opt_num(W, key)?),
            "lazySignatures" => {
                c.lazy_signatures = r.opt_bool(W, key)?.unwrap_or(c.lazy_signatures)
            }
            "signatureSeed" => {
                if let Some(text) = r.opt_str(W, key)? {
                    c.signature_seed = text.parse::<u64>().map_err(|_| {
                        Error::InvalidArgument(
                            "signatureSeed must be an integer in [0, 2^64)".into(),
                        )
                    })?;
                }
            }
            "calibration" => {
                if !r.skip_null()? {
                    c.calibration = read_calibration(&mut r)?;
                }
            }
            _ => return Err(unknown(W, key)),
        }
    }
    r.finish()?;
    Ok(c)
}

/// Replaces `slot` when `value` is set.
fn set(slot: &mut f64, value: Option<f64>) {
    if let Some(v) = value {
        *slot = v;
    }
}

/// The default calibration with the given parameters replaced; the engine validates ranges.
fn read_calibration(r: &mut Reader<'_>) -> Result<Calibration> {
    const W: &str = "calibration";
    r.begin_obj(W)?;
    let d = Calibration::default();
    let (mut kind, mut half, mut scale) = (None, None, None);
    let (mut se, mut ss) = (d.se, d.ss);
    while let Some(key) = r.next_key()? {
        match key {
            "sfKind" => kind = r.opt_str(W, key)?,
            "sfHalf" => half = r.opt_num(W, key)?,
            "sfScale" => scale = r.opt_num(W, key)?,
            "seZero" => {
                se = r
                    .opt_num(W, key)?
                    .map_or(se, |zero| Mapping::Linear { zero })
            }
            "ssZero" => {
                ss = r
                    .opt_num(W, key)?
                    .map_or(ss, |zero| Mapping::Linear { zero })
            }
            _ => return Err(unknown(W, key)),
        }
    }
    let sf = match kind.as_deref() {
        None | Some("hyperbolic") => Mapping::Hyperbolic {
            half: half.unwrap_or(DEFAULT_SF_HALF),
        },
        Some("exponential") => Mapping::Exponential {
            scale: scale.unwrap_or(DEFAULT_SF_HALF),
        },
        Some("identity") => Mapping::Identity,
        Some(other) => {
            return Err(Error::InvalidArgument(format!(
                "calibration.sfKind must be \"hyperbolic\", \"exponential\" or \"identity\", got \"{other}\""
            )))
        }
    };
    Ok(Calibration { sf, se, ss, ..d })
}

/// Reads `weights: { vector, keyword, … }` as (name, weight) pairs, null ones left out; the
/// engine checks names and values (`Weights::set`).
fn read_weights(r: &mut Reader<'_>) -> Result<Vec<(String, f64)>> {
    const W: &str = "weights";
    r.begin_obj(W)?;
    let mut pairs = Vec::new();
    while let Some(key) = r.next_key()? {
        if let Some(v) = r.opt_num(W, key)? {
            pairs.push((key.to_string(), v));
        }
    }
    Ok(pairs)
}

/// Reads `fusion: { lexicalWeight, … }` over `f` (parameters of the `recallkit` ranking, for
/// measurement); the engine validates ranges.
fn read_fusion(r: &mut Reader<'_>, f: &mut FusionParams) -> Result<()> {
    const W: &str = "fusion";
    r.begin_obj(W)?;
    while let Some(key) = r.next_key()? {
        let slot = match key {
            "lexicalWeight" => &mut f.lexical_weight,
            "signatureWeight" => &mut f.signature_weight,
            "graphWeight" => &mut f.graph_weight,
            "noteWeight" => &mut f.note_weight,
            "recencyWeight" => &mut f.recency_weight,
            "latestRecencyWeight" => &mut f.latest_recency_weight,
            "priorExponent" => &mut f.prior_exponent,
            "coverageWeight" => &mut f.coverage_weight,
            "semanticFrom" => &mut f.semantic_from,
            "semanticFull" => &mut f.semantic_full,
            _ => return Err(unknown(W, key)),
        };
        set(slot, r.opt_num(W, key)?);
    }
    Ok(())
}

/// Reads the options of one recall (`RecallOptionsJs`, validated and defaulted by the
/// wrapper); unknown fields are an error.
pub fn recall_options_from(bytes: &[u8]) -> Result<RecallOptions> {
    const W: &str = "recall options";
    let mut r = Reader::new(bytes);
    r.begin_obj(W)?;
    let (mut limit, mut track, mut mode, mut include_expired, mut now) =
        (None, None, None, None, None);
    let mut o = RecallOptions::default();
    while let Some(key) = r.next_key()? {
        match key {
            "limit" => limit = r.opt_int(W, key, 0, i64::from(u32::MAX))?,
            "trackRecalls" => track = r.opt_bool(W, key)?,
            "searchMode" => mode = r.opt_str(W, key)?,
            "mmrLambda" => o.mmr_lambda = r.opt_num(W, key)?,
            "minScore" => o.min_score = r.opt_num(W, key)?,
            "ranking" => {
                if let Some(name) = r.opt_str(W, key)? {
                    o.ranking = Some(Ranking::parse(&name)?);
                }
            }
            "weights" => {
                if !r.skip_null()? {
                    o.weights = read_weights(&mut r)?;
                }
            }
            "userId" => o.filter.user_id = r.opt_str(W, key)?,
            "maxClassification" => {
                o.filter.max_classification = r.opt_int(W, key, -MAX_LEVEL, MAX_LEVEL)?
            }
            "start" => o.filter.start = r.opt_num(W, key)?,
            "end" => o.filter.end = r.opt_num(W, key)?,
            "topic" => o.filter.topic = r.opt_str(W, key)?,
            "tier" => o.filter.tier = r.opt_str(W, key)?,
            "includeExpired" => include_expired = r.opt_bool(W, key)?,
            "asOf" => o.filter.as_of = r.opt_num(W, key)?,
            "includeInvalid" => o.filter.include_invalid = r.opt_bool(W, key)?.unwrap_or(false),
            "now" => now = r.opt_num(W, key)?,
            "context" => {
                if !r.skip_null()? {
                    o.context = Some(read_context(&mut r)?);
                }
            }
            "tags" => o.filter.tags.tags = TagFilter::read(key, r.strs(W, key)?)?,
            "excludeTags" => o.filter.tags.exclude = TagFilter::read(key, r.strs(W, key)?)?,
            "tagMode" => {
                if let Some(mode) = r.opt_str(W, key)? {
                    o.filter.tags.mode = TagMode::parse(&mode)?;
                }
            }
            "tagMatch" => {
                if let Some(matching) = r.opt_str(W, key)? {
                    o.filter.tags.matching = TagMatch::parse(&matching)?;
                }
            }
            "timeQuery" => o.time_query = r.opt_str(W, key)?,
            "resolveTime" => o.resolve_time = r.opt_bool(W, key)?.unwrap_or(true),
            "resolvePronouns" => o.resolve_pronouns = r.opt_bool(W, key)?.unwrap_or(true),
            "queries" => o.queries = r.strs(W, key)?,
            "autoDecompose" => o.auto_decompose = r.opt_bool(W, key)?.unwrap_or(false),
            "priorityIds" => o.priority_ids = r.strs(W, key)?,
            "expandRelations" => o.expand_relations = r.opt_bool(W, key)?.unwrap_or(false),
            "expandEntities" => o.expand_entities = r.opt_bool(W, key)?.unwrap_or(false),
            "entityHints" => o.entity_hints = r.strs(W, key)?,
            "relationLimit" => {
                if let Some(n) = r.opt_int(W, key, 1, 200)? {
                    o.relation_limit = n as usize;
                }
            }
            "expansionLimit" => {
                if let Some(n) = r.opt_int(W, key, 1, 500)? {
                    o.expansion_limit = n as usize;
                }
            }
            "expandMinStrength" | "expandMinImportance" => {
                let v = r.opt_num(W, key)?.unwrap_or(0.0);
                check_unit(key, v)?;
                if key == "expandMinStrength" {
                    o.expand_min_strength = v;
                } else {
                    o.expand_min_importance = v;
                }
            }
            "sort" => {
                if let Some(sort) = r.opt_str(W, key)? {
                    o.sort = Some(Sort::parse(&sort)?);
                }
            }
            _ => return Err(unknown(W, key)),
        }
    }
    r.finish()?;
    o.limit = required(W, "limit", limit)? as usize;
    o.track_recalls = required(W, "trackRecalls", track)?;
    o.mode = SearchMode::parse(&required(W, "searchMode", mode)?)?;
    o.filter.include_expired = required(W, "includeExpired", include_expired)?;
    o.filter.now = required(W, "now", now)?;
    Ok(o)
}

fn read_context(r: &mut Reader<'_>) -> Result<Context> {
    const W: &str = "context";
    r.begin_obj(W)?;
    let mut c = Context::default();
    let (mut label, mut language, mut path) = (None, None, None);
    let (mut tags, mut types) = (Vec::new(), Vec::new());
    while let Some(key) = r.next_key()? {
        match key {
            "label" => label = r.opt_str(W, key)?,
            "language" => language = r.opt_str(W, key)?,
            "activePath" => path = r.opt_str(W, key)?,
            "tags" => tags = r.strs(W, key)?,
            "types" => types = r.strs(W, key)?,
            "hour" => c.hour = r.opt_int(W, key, 0, 255)?.map(|n| n as u8),
            "dayOfWeek" => c.day_of_week = r.opt_int(W, key, 0, 255)?.map(|n| n as u8),
            "topic" => c.topic = r.opt_str(W, key)?,
            "entities" => c.entities = read_context_entities(r)?,
            "utcOffsetMinutes" => {
                c.utc_offset_minutes = r
                    .opt_int(W, key, i64::from(i32::MIN), i64::from(i32::MAX))?
                    .map_or(0, |n| n as i32)
            }
            _ => return Err(unknown(W, key)),
        }
    }
    c.hints = Hints::new(
        label.as_deref(),
        language.as_deref(),
        path.as_deref(),
        &tags,
        &types,
    );
    Ok(c)
}

/// Most entities `context.entities` holds.
pub const MAX_CONTEXT_ENTITIES: usize = 100;

/// Reads `context.entities`: `{ name, type? }` objects, most recent last (`null`: none). A
/// name with no letter or digit, or more than [`MAX_CONTEXT_ENTITIES`] entities, is refused.
fn read_context_entities(r: &mut Reader<'_>) -> Result<Vec<(String, Option<String>)>> {
    const W: &str = "context.entities";
    let mut out = Vec::new();
    if r.skip_null()? {
        return Ok(out);
    }
    r.begin_arr(W)?;
    while r.next_item()? {
        r.begin_obj(W)?;
        let (mut name, mut kind) = (None, None);
        while let Some(key) = r.next_key()? {
            match key {
                "name" => name = r.opt_str(W, key)?,
                "type" => kind = r.opt_str(W, key)?,
                _ => return Err(unknown(W, key)),
            }
        }
        let named = name.filter(|n| !crate::graph::names::normalize_name(n).is_empty());
        let Some(name) = named else {
            return Err(Error::InvalidArgument(
                "context.entities: each needs a name with a letter or digit".into(),
            ));
        };
        out.push((name, kind));
    }
    if out.len() > MAX_CONTEXT_ENTITIES {
        return Err(Error::InvalidArgument(
            "context.entities holds at most 100 entities".into(),
        ));
    }
    Ok(out)
}

/// Writes the answer to a recall (`RecallOutputJs`).
pub fn write_output(w: &mut Writer, out: &RecallOutput) {
    w.begin_obj();
    w.key("results");
    w.begin_arr();
    for hit in &out.results {
        write_hit(w, hit);
    }
    w.end();
    w.key("stages");
    w.begin_arr();
    for stage in &out.stages {
        write_stage(w, stage);
    }
    w.end();
    w.field_num("count", out.results.len() as f64);
    if let Some(window) = &out.time_window {
        w.key("timeWindow");
        w.begin_obj();
        w.opt_num("start", window.start);
        w.opt_num("end", window.end);
        w.field_str("source", window.source);
        w.end();
    }
    if let Some(q) = &out.query {
        w.key("query");
        w.begin_obj();
        w.field_str("text", &q.text);
        w.field_str("searchText", &q.search_text);
        if !q.resolved_from.is_empty() {
            w.field_str("resolvedFrom", &q.resolved_from);
        }
        if q.window_dropped {
            w.key("windowDropped");
            w.bool(true);
        }
        if !q.pronouns.is_empty() {
            w.key("pronouns");
            w.begin_arr();
            for p in &q.pronouns {
                w.begin_obj();
                w.field_str("pronoun", &p.pronoun);
                w.opt_str("entity", p.entity.as_deref());
                w.opt_strs("ambiguous", &p.ambiguous);
                w.end();
            }
            w.end();
        }
        w.end();
    }
    w.opt_strs("tags", &out.tags);
    w.field_num("dedupRemoved", out.dedup_removed as f64);
    if let Some((seeds, expanded)) = out.expansion {
        w.key("expansion");
        w.begin_obj();
        w.field_num("seedCount", seeds as f64);
        w.field_num("expandedCount", expanded as f64);
        w.end();
    }
    if let Some((entities, expanded)) = &out.entity_expansion {
        w.key("entityExpansion");
        w.begin_obj();
        w.key("entitiesFound");
        w.strs(entities);
        w.field_num("expandedCount", *expanded as f64);
        w.end();
    }
    w.end();
}

fn write_hit(w: &mut Writer, hit: &RecallHit) {
    w.begin_obj();
    w.field_str("id", &hit.id);
    w.field_str(
        "kind",
        match hit.kind {
            HitKind::Memory => "memory",
            HitKind::Note => "note",
            HitKind::Edge => "edge",
        },
    );
    w.field_str("stage", hit.stage);
    w.field_str("matchType", hit.match_type);
    w.field_num("score", hit.score);
    w.field_str("text", &hit.text);
    w.key("components");
    w.begin_obj();
    for &(name, value) in &hit.components.0 {
        w.field_num(name, value);
    }
    w.end();
    if let Some(m) = &hit.memory {
        w.key("memory");
        write_memory(w, m);
    }
    if let Some(meta) = &hit.metadata {
        w.key("metadata");
        w.begin_obj();
        w.opt_str("topic", meta.topic.as_deref());
        w.opt_str("type", meta.kind.as_deref());
        w.key("tags");
        w.strs(&meta.tags);
        w.key("emotionTags");
        w.strs(&meta.emotion_tags);
        w.opt_num("importance", meta.importance);
        w.opt_num("confidence", meta.confidence);
        w.field_num("createdAt", meta.created_at);
        w.end();
    }
    if let Some(note) = &hit.note {
        w.key("note");
        w.begin_obj();
        w.field_str("id", &note.id);
        w.field_str("period", note.period.label());
        w.field_num("start", note.start);
        w.field_num("paragraph", f64::from(note.paragraph));
        w.end();
    }
    if let Some(edge) = &hit.edge {
        w.key("edge");
        write_edge(w, edge);
    }
    if let Some(timeline) = &hit.timeline {
        w.key("timeline");
        w.begin_arr();
        for item in timeline {
            w.begin_obj();
            w.field_str("id", &item.id);
            w.field_num("createdAt", item.created_at);
            w.field_str("date", &item.date);
            w.end();
        }
        w.end();
    }
    if let Some(conflicts) = &hit.conflicts {
        w.key("conflicts");
        w.strs(conflicts);
    }
    w.opt_str("warning", hit.warning);
    if let Some(texts) = &hit.deduped_from {
        w.key("dedupedFrom");
        w.strs(texts);
    }
    w.opt_strs("duplicateIds", &hit.duplicate_ids);
    match &hit.expanded_from {
        Some(Origin::Relation { id, edge }) => {
            w.key("expandedFrom");
            w.begin_obj();
            w.field_str("id", id);
            w.field_str("edge", edge);
            w.end();
        }
        Some(Origin::Entity(name)) => w.field_str("expandedFromEntity", name),
        None => {}
    }
    if let Some(edges) = &hit.relations {
        w.key("relations");
        w.strs(edges);
    }
    w.end();
}

fn write_stage(w: &mut Writer, stage: &StageReport) {
    w.begin_obj();
    w.field_str("name", stage.name);
    w.field_num("hits", stage.hits as f64);
    w.field_num("ms", stage.ms);
    if stage.skipped {
        w.key("skipped");
        w.bool(true);
    }
    w.opt_str("reason", stage.reason.as_deref());
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
                Value::Obj(_) => unreachable!("no memory field is an object"),
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
        let mut engine = crate::engine::Engine::new(EngineConfig::default()).unwrap();
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

    #[test]
    fn note_entity_and_edge_round_trip() {
        let note = Note::new("n1", Period::Weekly, 0.0, "# week\n\ntext", 5.0);
        assert_eq!(note_from(&raw(|w| write_note(w, &note))).unwrap(), note);
        let entity = Entity {
            name: "Ana Lima".into(),
            kind: Some("person".into()),
            aliases: vec!["Ana".into()],
            user_id: None,
            classification: 1,
            created_at: 9.0,
        };
        assert_eq!(
            entity_from(&raw(|w| write_entity(w, &entity))).unwrap(),
            entity
        );
        let edge = Edge {
            id: "ana|knows|bo".into(),
            from: "ana".into(),
            relation: "knows".into(),
            to: "bo".into(),
            strength: 0.75,
            created_at: 1.0,
            last_seen_at: 2.0,
            memory_ids: vec!["m1".into()],
            user_id: Some("u".into()),
            classification: 0,
            valid_from: None,
            valid_to: None,
        };
        assert_eq!(edge_from(&raw(|w| write_edge(w, &edge))).unwrap(), edge);
        let valid = Edge {
            valid_from: Some(-5.0),
            valid_to: Some(1e12),
            ..edge.clone()
        };
        assert_eq!(edge_from(&raw(|w| write_edge(w, &valid))).unwrap(), valid);
        // An edge without a validity is written as before edges had one.
        assert!(!String::from_utf8_lossy(&raw(|w| write_edge(w, &edge))).contains("valid"));
    }

    #[test]
    fn an_owned_classified_note_round_trips_and_a_shared_one_is_written_as_before() {
        let owned = Note {
            user_id: Some("u1".into()),
            classification: 3,
            ..Note::new("n1", Period::Daily, 0.0, "text", 5.0)
        };
        assert_eq!(note_from(&raw(|w| write_note(w, &owned))).unwrap(), owned);
        // A note written before notes had owners: exactly these fields, read as shared.
        let old = raw(|w| {
            w.begin_obj();
            w.field_str("id", "n1");
            w.field_str("period", "daily");
            w.field_num("start", 0.0);
            w.field_num("end", 86_400_000.0);
            w.field_str("text", "text");
            w.field_num("createdAt", 5.0);
            w.field_num("updatedAt", 5.0);
            w.end();
        });
        let shared = Note::new("n1", Period::Daily, 0.0, "text", 5.0);
        assert_eq!(note_from(&old).unwrap(), shared);
        assert_eq!(raw(|w| write_note(w, &shared)), old);
    }

    #[test]
    fn a_note_without_end_gets_the_period_default_and_rejects_unknown_fields() {
        let value = raw(|w| {
            w.begin_obj();
            w.field_str("id", "n1");
            w.field_str("period", "daily");
            w.field_num("start", 0.0);
            w.field_str("text", "x");
            w.field_num("createdAt", 1.0);
            w.field_num("updatedAt", 1.0);
            w.end();
        });
        assert_eq!(
            note_from(&value).unwrap().end,
            Period::Daily.default_end(0.0)
        );
        let value = raw(|w| {
            w.begin_obj();
            w.field_str("period", "monthly");
            w.end();
        });
        assert_eq!(note_from(&value).unwrap_err().code(), "invalid_argument");
    }

    #[test]
    fn config_reads_parameters_and_rejects_unknown_ones() {
        let value = raw(|w| {
            w.begin_obj();
            w.field_num("decayDays", 30.0);
            w.field_str("signatureSeed", "18446744073709551615");
            w.key("lazySignatures");
            w.bool(true);
            w.key("calibration");
            w.begin_obj();
            w.field_str("sfKind", "exponential");
            w.field_num("sfScale", 2.0);
            w.end();
            w.end();
        });
        let config = config_from(&value).unwrap();
        assert_eq!(config.score.decay_days, 30.0);
        assert_eq!(config.signature_seed, u64::MAX);
        assert!(config.lazy_signatures && !EngineConfig::default().lazy_signatures);
        assert_eq!(config.calibration.sf, Mapping::Exponential { scale: 2.0 });
        let value = raw(|w| {
            w.begin_obj();
            w.field_num("bogus", 1.0);
            w.end();
        });
        assert_eq!(
            config_from(&value).unwrap_err().to_string(),
            "invalid_argument: unknown field `bogus` in config"
        );
        let value = raw(|w| {
            w.begin_obj();
            w.field_str("signatureSeed", "0x12");
            w.end();
        });
        assert!(config_from(&value)
            .unwrap_err()
            .to_string()
            .starts_with("invalid_argument: signatureSeed must be an integer"));
    }

    #[test]
    fn recall_options_are_read_whole() {
        let value = raw(|w| {
            w.begin_obj();
            w.field_num("limit", 5.0);
            w.field_num("now", 1e12);
            w.key("trackRecalls");
            w.bool(false);
            w.key("includeExpired");
            w.bool(true);
            w.field_str("searchMode", "lexical");
            w.field_str("topic", "work");
            w.key("context");
            w.begin_obj();
            w.field_num("hour", 9.0);
            w.field_num("utcOffsetMinutes", -120.0);
            w.end();
            w.end();
        });
        let o = recall_options_from(&value).unwrap();
        assert_eq!(o.limit, 5);
        assert!(!o.track_recalls);
        assert_eq!(o.mode, SearchMode::Lexical);
        assert_eq!(o.filter.topic.as_deref(), Some("work"));
        assert!(o.filter.include_expired);
        let c = o.context.unwrap();
        assert_eq!((c.hour, c.utc_offset_minutes), (Some(9), -120));
        let value = raw(|w| {
            w.begin_obj();
            w.field_num("limit", 5.0);
            w.end();
        });
        assert!(recall_options_from(&value)
            .unwrap_err()
            .to_string()
            .contains("missing field"));
        let value = raw(|w| {
            w.begin_obj();
            w.field_num("trackRecalls", 1.0);
            w.end();
        });
        assert_eq!(
            recall_options_from(&value).unwrap_err().to_string(),
            "invalid_argument: recall options.trackRecalls must be a boolean, got a number"
        );
        let value = raw(|w| {
            w.begin_obj();
            w.key("context");
            w.begin_obj();
            w.field_num("hours", 9.0);
            w.end();
            w.end();
        });
        assert_eq!(
            recall_options_from(&value).unwrap_err().to_string(),
            "invalid_argument: unknown field `hours` in context"
        );
        let value = raw(|w| {
            w.begin_obj();
            w.field_str("type", "person");
            w.end();
        });
        assert_eq!(
            entity_from(&value).unwrap_err().to_string(),
            "invalid_argument: entity is missing field `name`"
        );
    }
}
