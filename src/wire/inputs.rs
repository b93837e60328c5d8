//! The records and options the host sends, read from the [`Value`] tree serde gives
//! (`src/wasm.rs`): a memory, a note, an entity, an edge, the engine configuration and a
//! recall's options. Field names are camelCase (`textEn`, `createdAt`; a record's `kind` is
//! `type`); `null` and `undefined` fields are unset. The TypeScript shapes are declared once,
//! in the `TYPES` section of `src/wasm.rs`.
//!
//! A value crosses as a tree rather than through a serde derive per shape because the tree
//! keeps each shape's checks and messages (`note.text must be a string, got a number`, `unknown
//! field `bogus` in config`), which a derived `Deserialize` loses (serde-wasm-bindgen reads a
//! struct's fields by name, never sees unknown ones and names no field in a type error), and
//! because one tree reader made the package 8.8 KiB smaller (gzip) than six derives did.
//!
//! Records (memories, entities, edges) ignore fields they do not know, so a newer writer's
//! extra fields never make an older engine fail; option bags and notes reject them, naming
//! the field, because there a typo would silently change a result.

use crate::engine::{EngineConfig, RecallOptions, SearchMode};
use crate::error::{check_unit, Error, Num, Result};
use crate::graph::{Edge, Entity, DEFAULT_STRENGTH};
use crate::notes::{Note, Period};
use crate::rank::boost::MAX_UTC_OFFSET_MINUTES;
use crate::rank::calibrate::DEFAULT_SF_HALF;
use crate::rank::hints::Hints;
use crate::rank::order::Sort;
use crate::rank::{Calibration, Context, FusionParams, Mapping, Ranking};
use crate::recall::tags::{TagFilter, TagMatch, TagMode};
use crate::store::Memory;

use super::batch::MAX_LEVEL;
use super::value::Value;

/// The entries of an object; `what` names it in the error.
fn object(what: &str, v: Value) -> Result<Vec<(String, Value)>> {
    match v {
        Value::Obj(entries) => Ok(entries),
        other => Err(Error::InvalidArgument(format!(
            "{what} must be an object, got {}",
            other.kind()
        ))),
    }
}

fn wrong(what: &str, key: &str, want: &str, v: &Value) -> Error {
    Error::InvalidArgument(format!("{what}.{key} must be {want}, got {}", v.kind()))
}

/// A string or null (`None`).
fn opt_str(what: &str, key: &str, v: Value) -> Result<Option<String>> {
    match v {
        Value::Null => Ok(None),
        Value::Str(s) => Ok(Some(s)),
        other => Err(wrong(what, key, "a string", &other)),
    }
}

/// A boolean or null (`None`).
fn opt_bool(what: &str, key: &str, v: Value) -> Result<Option<bool>> {
    match v {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(b)),
        other => Err(wrong(what, key, "a boolean", &other)),
    }
}

/// A number or null (`None`).
fn opt_num(what: &str, key: &str, v: Value) -> Result<Option<f64>> {
    match v {
        Value::Null => Ok(None),
        Value::Num(n) => Ok(Some(n)),
        other => Err(wrong(what, key, "a number", &other)),
    }
}

/// An integer in `min..=max` or null (`None`).
fn opt_int(what: &str, key: &str, v: Value, min: i64, max: i64) -> Result<Option<i64>> {
    let Some(n) = opt_num(what, key, v)? else {
        return Ok(None);
    };
    // The cast is exact: n is integral and within ±2^63 when it passes.
    if n.fract() != 0.0 || !(min as f64..=max as f64).contains(&n) {
        return Err(Error::InvalidArgument(format!(
            "{what}.{key} must be an integer between {min} and {max}, got {}",
            Num(n)
        )));
    }
    Ok(Some(n as i64))
}

/// A classification or credibility level, or null.
fn opt_level(what: &str, key: &str, v: Value) -> Result<Option<i64>> {
    opt_int(what, key, v, -MAX_LEVEL, MAX_LEVEL)
}

/// An array whose items `item` takes (`None` for an item of the wrong kind, reported as
/// `what.key` not being `want`); null gives an empty one.
fn items<T>(
    what: &str,
    key: &str,
    want: &str,
    v: Value,
    item: fn(Value) -> std::result::Result<T, Value>,
) -> Result<Vec<T>> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Arr(values) => values
            .into_iter()
            .map(|value| item(value).map_err(|other| wrong(what, key, want, &other)))
            .collect(),
        other => Err(wrong(what, key, want, &other)),
    }
}

/// An array of strings; null gives an empty one.
fn strs(what: &str, key: &str, v: Value) -> Result<Vec<String>> {
    items(what, key, "an array of strings", v, |item| match item {
        Value::Str(s) => Ok(s),
        other => Err(other),
    })
}

/// An array of numbers; null gives an empty one.
fn nums(what: &str, key: &str, v: Value) -> Result<Vec<f64>> {
    items(what, key, "an array of numbers", v, |item| match item {
        Value::Num(n) => Ok(n),
        other => Err(other),
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

/// Reads a memory record (`MemoryRecord`; fields it does not know are skipped).
pub fn memory_from(v: Value) -> Result<Memory> {
    const W: &str = "memory";
    const LEVEL: (i64, i64) = (-MAX_LEVEL, MAX_LEVEL);
    let mut m = Memory::default();
    for (key, v) in object(W, v)? {
        let k = key.as_str();
        match k {
            "id" => m.id = opt_str(W, k, v)?.unwrap_or_default(),
            "text" => m.text = opt_str(W, k, v)?.unwrap_or_default(),
            "textEn" => m.text_en = opt_str(W, k, v)?,
            "keywords" => m.keywords = strs(W, k, v)?,
            "userId" => m.user_id = opt_str(W, k, v)?,
            "topic" => m.topic = opt_str(W, k, v)?,
            "tags" => m.tags = strs(W, k, v)?,
            "type" => m.kind = opt_str(W, k, v)?,
            "tier" => m.tier = opt_str(W, k, v)?,
            "emotion" => m.emotion = opt_num(W, k, v)?.unwrap_or(0.0),
            "emotionTags" => m.emotion_tags = strs(W, k, v)?,
            "importance" => m.importance = opt_num(W, k, v)?,
            "confidence" => m.confidence = opt_num(W, k, v)?,
            "trust" => m.trust = opt_num(W, k, v)?,
            "credibility" => m.credibility = opt_int(W, k, v, LEVEL.0, LEVEL.1)?,
            "relevance" => m.relevance = opt_num(W, k, v)?.unwrap_or(0.0),
            "classification" => m.classification = opt_int(W, k, v, LEVEL.0, LEVEL.1)?.unwrap_or(0),
            "createdAt" => m.created_at = opt_num(W, k, v)?.unwrap_or(0.0),
            "updatedAt" => m.updated_at = opt_num(W, k, v)?.unwrap_or(0.0),
            "validFrom" => m.valid_from = opt_num(W, k, v)?,
            "validTo" => m.valid_to = opt_num(W, k, v)?,
            "expiresAt" => m.expires_at = opt_num(W, k, v)?,
            "entities" => m.entities = strs(W, k, v)?,
            "recallCount" => {
                m.recall_count = opt_int(W, k, v, 0, i64::from(u32::MAX))?.map_or(0, |n| n as u32)
            }
            "lastRecalledAt" => m.last_recalled_at = opt_num(W, k, v)?,
            "recallTimestamps" => m.recall_timestamps = nums(W, k, v)?,
            _ => {}
        }
    }
    Ok(m)
}

/// Reads a note (`NoteRecord`); `end` defaults from the period ([`Period::default_end`]),
/// `userId` to none (shared) and `classification` to 0, as in notes written before they had
/// owners. Unknown fields are an error.
pub fn note_from(v: Value) -> Result<Note> {
    const W: &str = "note";
    let (mut id, mut period, mut start, mut end, mut text) = (None, None, None, None, None);
    let (mut created_at, mut updated_at) = (None, None);
    let (mut user_id, mut classification) = (None, None);
    for (key, v) in object(W, v)? {
        let k = key.as_str();
        match k {
            "id" => id = opt_str(W, k, v)?,
            "period" => {
                period = match opt_str(W, k, v)? {
                    Some(label) => Some(period_from(&label)?),
                    None => None,
                }
            }
            "start" => start = opt_num(W, k, v)?,
            "end" => end = opt_num(W, k, v)?,
            "text" => text = opt_str(W, k, v)?,
            "createdAt" => created_at = opt_num(W, k, v)?,
            "updatedAt" => updated_at = opt_num(W, k, v)?,
            "userId" => user_id = opt_str(W, k, v)?,
            "classification" => classification = opt_level(W, k, v)?,
            _ => return Err(unknown(W, k)),
        }
    }
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

/// Reads an entity (`EntityRecord`; fields it does not know are skipped).
pub fn entity_from(v: Value) -> Result<Entity> {
    const W: &str = "entity";
    let mut name = None;
    let mut e = Entity::default();
    for (key, v) in object(W, v)? {
        let k = key.as_str();
        match k {
            "name" => name = opt_str(W, k, v)?,
            "type" => e.kind = opt_str(W, k, v)?,
            "aliases" => e.aliases = strs(W, k, v)?,
            "userId" => e.user_id = opt_str(W, k, v)?,
            "classification" => e.classification = opt_level(W, k, v)?.unwrap_or(0),
            "createdAt" => e.created_at = opt_num(W, k, v)?.unwrap_or(0.0),
            _ => {}
        }
    }
    e.name = required(W, "name", name)?;
    Ok(e)
}

/// Reads an edge (`EdgeRecord`; `id` may be left out: the graph derives it; fields it does
/// not know are skipped).
pub fn edge_from(v: Value) -> Result<Edge> {
    const W: &str = "edge";
    let (mut id, mut from, mut relation, mut to, mut strength) = (None, None, None, None, None);
    let (mut created_at, mut last_seen_at, mut memory_ids) = (None, None, Vec::new());
    let (mut user_id, mut classification) = (None, None);
    let (mut valid_from, mut valid_to) = (None, None);
    for (key, v) in object(W, v)? {
        let k = key.as_str();
        match k {
            "id" => id = opt_str(W, k, v)?,
            "from" => from = opt_str(W, k, v)?,
            "relation" => relation = opt_str(W, k, v)?,
            "to" => to = opt_str(W, k, v)?,
            "strength" => strength = opt_num(W, k, v)?,
            "createdAt" => created_at = opt_num(W, k, v)?,
            "lastSeenAt" => last_seen_at = opt_num(W, k, v)?,
            "memoryIds" => memory_ids = strs(W, k, v)?,
            "userId" => user_id = opt_str(W, k, v)?,
            "classification" => classification = opt_level(W, k, v)?,
            "validFrom" => valid_from = opt_num(W, k, v)?,
            "validTo" => valid_to = opt_num(W, k, v)?,
            _ => {}
        }
    }
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

/// Replaces `slot` when `value` is set.
fn set(slot: &mut f64, value: Option<f64>) {
    if let Some(v) = value {
        *slot = v;
    }
}

/// Reads the engine configuration (`EngineConfigJs`); unset parameters keep their defaults,
/// unknown ones are an error. `signatureSeed` is a `bigint` (or a safe integer) on the
/// JavaScript side. Ranges are checked by the engine.
pub fn config_from(v: Value) -> Result<EngineConfig> {
    const W: &str = "config";
    let mut c = EngineConfig::default();
    for (key, v) in object(W, v)? {
        let k = key.as_str();
        match k {
            "decayDays" => set(&mut c.score.decay_days, opt_num(W, k, v)?),
            "decayFloor" => set(&mut c.score.decay_floor, opt_num(W, k, v)?),
            "emotionBoost" => set(&mut c.score.emotion_boost, opt_num(W, k, v)?),
            "dimensions" => c.dims = opt_int(W, k, v, 0, i64::from(u32::MAX))?.map(|n| n as usize),
            "similarityThreshold" => c.se_threshold = opt_num(W, k, v)?.or(c.se_threshold),
            "shortCircuitFloor" => {
                c.short_circuit_floor = opt_num(W, k, v)?.or(c.short_circuit_floor)
            }
            "minScore" => c.min_score = opt_num(W, k, v)?.or(c.min_score),
            "ranking" => {
                if let Some(name) = opt_str(W, k, v)? {
                    c.ranking = Ranking::parse(&name)?;
                }
            }
            "weights" => {
                for (name, v) in weights(v)? {
                    c.weights.set(&name, v)?;
                }
            }
            "fusion" => fusion(v, &mut c.fusion)?,
            "mmrLambda" => set(&mut c.mmr_lambda, opt_num(W, k, v)?),
            "lazySignatures" => c.lazy_signatures = opt_bool(W, k, v)?.unwrap_or(c.lazy_signatures),
            "signatureSeed" => {
                if let Some(seed) = seed(v)? {
                    c.signature_seed = seed;
                }
            }
            "calibration" => {
                if v != Value::Null {
                    c.calibration = calibration(v)?;
                }
            }
            _ => return Err(unknown(W, k)),
        }
    }
    Ok(c)
}

/// `signatureSeed`: an integer in [0, 2^64), from a `bigint` (a [`Value::Big`] beyond 2^53,
/// else a number) or its decimal text.
fn seed(v: Value) -> Result<Option<u64>> {
    let bad = || Error::InvalidArgument("signatureSeed must be an integer in [0, 2^64)".into());
    match v {
        Value::Null => Ok(None),
        Value::Big(n) => Ok(Some(n)),
        // Exact: a safe integer.
        Value::Num(n) if n.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&n) => {
            Ok(Some(n as u64))
        }
        Value::Str(text) => text.parse::<u64>().map(Some).map_err(|_| bad()),
        _ => Err(bad()),
    }
}

/// The default calibration with the given parameters replaced; the engine validates ranges.
fn calibration(v: Value) -> Result<Calibration> {
    const W: &str = "calibration";
    let d = Calibration::default();
    let (mut kind, mut half, mut scale) = (None, None, None);
    let (mut se, mut ss) = (d.se, d.ss);
    for (key, v) in object(W, v)? {
        let k = key.as_str();
        match k {
            "sfKind" => kind = opt_str(W, k, v)?,
            "sfHalf" => half = opt_num(W, k, v)?,
            "sfScale" => scale = opt_num(W, k, v)?,
            "seZero" => se = opt_num(W, k, v)?.map_or(se, |zero| Mapping::Linear { zero }),
            "ssZero" => ss = opt_num(W, k, v)?.map_or(ss, |zero| Mapping::Linear { zero }),
            _ => return Err(unknown(W, k)),
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

/// `weights: { vector, keyword, … }` as (name, weight) pairs, null ones left out (a null
/// `weights` is none); the engine checks names and values (`Weights::set`).
fn weights(v: Value) -> Result<Vec<(String, f64)>> {
    const W: &str = "weights";
    if v == Value::Null {
        return Ok(Vec::new());
    }
    let mut pairs = Vec::new();
    for (key, v) in object(W, v)? {
        if let Some(n) = opt_num(W, &key, v)? {
            pairs.push((key, n));
        }
    }
    Ok(pairs)
}

/// `fusion: { lexicalWeight, … }` over `f` (parameters of the `recallkit` ranking, for
/// measurement; null: none); the engine validates ranges.
fn fusion(v: Value, f: &mut FusionParams) -> Result<()> {
    const W: &str = "fusion";
    if v == Value::Null {
        return Ok(());
    }
    for (key, v) in object(W, v)? {
        let k = key.as_str();
        let slot = match k {
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
            "adjacentWeight" => &mut f.adjacent_weight,
            _ => return Err(unknown(W, k)),
        };
        set(slot, opt_num(W, k, v)?);
    }
    Ok(())
}

/// Reads the options of one recall (`RecallOptionsJs`, validated and defaulted by the
/// wrapper); unknown fields are an error.
pub fn recall_options_from(v: Value) -> Result<RecallOptions> {
    const W: &str = "recall options";
    let (mut limit, mut track, mut mode, mut include_expired, mut now) =
        (None, None, None, None, None);
    let mut o = RecallOptions::default();
    for (key, v) in object(W, v)? {
        let k = key.as_str();
        match k {
            "limit" => limit = opt_int(W, k, v, 0, i64::from(u32::MAX))?,
            "trackRecalls" => track = opt_bool(W, k, v)?,
            "searchMode" => mode = opt_str(W, k, v)?,
            "mmrLambda" => o.mmr_lambda = opt_num(W, k, v)?,
            "minScore" => o.min_score = opt_num(W, k, v)?,
            "ranking" => {
                if let Some(name) = opt_str(W, k, v)? {
                    o.ranking = Some(Ranking::parse(&name)?);
                }
            }
            "weights" => o.weights = weights(v)?,
            "userId" => o.filter.user_id = opt_str(W, k, v)?,
            "maxClassification" => o.filter.max_classification = opt_level(W, k, v)?,
            "start" => o.filter.start = opt_num(W, k, v)?,
            "end" => o.filter.end = opt_num(W, k, v)?,
            "topic" => o.filter.topic = opt_str(W, k, v)?,
            "tier" => o.filter.tier = opt_str(W, k, v)?,
            "includeExpired" => include_expired = opt_bool(W, k, v)?,
            "asOf" => o.filter.as_of = opt_num(W, k, v)?,
            "includeInvalid" => o.filter.include_invalid = opt_bool(W, k, v)?.unwrap_or(false),
            "now" => now = opt_num(W, k, v)?,
            "context" => {
                if v != Value::Null {
                    o.context = Some(context(v)?);
                }
            }
            "tags" => o.filter.tags.tags = TagFilter::read(k, strs(W, k, v)?)?,
            "excludeTags" => o.filter.tags.exclude = TagFilter::read(k, strs(W, k, v)?)?,
            "tagMode" => {
                if let Some(mode) = opt_str(W, k, v)? {
                    o.filter.tags.mode = TagMode::parse(&mode)?;
                }
            }
            "tagMatch" => {
                if let Some(matching) = opt_str(W, k, v)? {
                    o.filter.tags.matching = TagMatch::parse(&matching)?;
                }
            }
            "timeQuery" => o.time_query = opt_str(W, k, v)?,
            "resolveTime" => o.resolve_time = opt_bool(W, k, v)?.unwrap_or(true),
            "resolvePronouns" => o.resolve_pronouns = opt_bool(W, k, v)?.unwrap_or(true),
            "queries" => o.queries = strs(W, k, v)?,
            "autoDecompose" => o.auto_decompose = opt_bool(W, k, v)?.unwrap_or(false),
            "priorityIds" => o.priority_ids = strs(W, k, v)?,
            "expandRelations" => o.expand_relations = opt_bool(W, k, v)?.unwrap_or(false),
            "expandEntities" => o.expand_entities = opt_bool(W, k, v)?.unwrap_or(false),
            "entityHints" => o.entity_hints = strs(W, k, v)?,
            "relationLimit" => {
                if let Some(n) = opt_int(W, k, v, 1, 200)? {
                    o.relation_limit = n as usize;
                }
            }
            "expansionLimit" => {
                if let Some(n) = opt_int(W, k, v, 1, 500)? {
                    o.expansion_limit = n as usize;
                }
            }
            "expandMinStrength" | "expandMinImportance" => {
                let n = opt_num(W, k, v)?.unwrap_or(0.0);
                check_unit(k, n)?;
                if k == "expandMinStrength" {
                    o.expand_min_strength = n;
                } else {
                    o.expand_min_importance = n;
                }
            }
            "sort" => {
                if let Some(sort) = opt_str(W, k, v)? {
                    o.sort = Some(Sort::parse(&sort)?);
                }
            }
            _ => return Err(unknown(W, k)),
        }
    }
    o.limit = required(W, "limit", limit)? as usize;
    o.track_recalls = required(W, "trackRecalls", track)?;
    o.mode = SearchMode::parse(&required(W, "searchMode", mode)?)?;
    o.filter.include_expired = required(W, "includeExpired", include_expired)?;
    o.filter.now = required(W, "now", now)?;
    Ok(o)
}

fn context(v: Value) -> Result<Context> {
    const W: &str = "context";
    let mut c = Context::default();
    let (mut label, mut language, mut path) = (None, None, None);
    let (mut tags, mut types) = (Vec::new(), Vec::new());
    for (key, v) in object(W, v)? {
        let k = key.as_str();
        match k {
            "label" => label = opt_str(W, k, v)?,
            "language" => language = opt_str(W, k, v)?,
            "activePath" => path = opt_str(W, k, v)?,
            "tags" => tags = strs(W, k, v)?,
            "types" => types = strs(W, k, v)?,
            "hour" => c.hour = opt_int(W, k, v, 0, 255)?.map(|n| n as u8),
            "dayOfWeek" => c.day_of_week = opt_int(W, k, v, 0, 255)?.map(|n| n as u8),
            "topic" => c.topic = opt_str(W, k, v)?,
            "entities" => c.entities = context_entities(v)?,
            "utcOffsetMinutes" => {
                c.utc_offset_minutes =
                    opt_int(W, k, v, -MAX_UTC_OFFSET_MINUTES, MAX_UTC_OFFSET_MINUTES)?
                        .map_or(0, |n| n as i32)
            }
            _ => return Err(unknown(W, k)),
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
fn context_entities(v: Value) -> Result<Vec<(String, Option<String>)>> {
    const W: &str = "context.entities";
    let items = match v {
        Value::Null => return Ok(Vec::new()),
        Value::Arr(items) => items,
        other => {
            return Err(Error::InvalidArgument(format!(
                "{W} must be an array, got {}",
                other.kind()
            )))
        }
    };
    let mut out = Vec::new();
    for item in items {
        let (mut name, mut kind) = (None, None);
        for (key, v) in object(W, item)? {
            let k = key.as_str();
            match k {
                "name" => name = opt_str(W, k, v)?,
                "type" => kind = opt_str(W, k, v)?,
                _ => return Err(unknown(W, k)),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(entries: &[(&str, Value)]) -> Value {
        Value::Obj(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn s(text: &str) -> Value {
        Value::Str(text.into())
    }

    #[test]
    fn memory_ignores_unknown_fields_and_names_a_field_of_the_wrong_type() {
        let m = memory_from(obj(&[
            ("id", s("m1")),
            ("futureField", obj(&[("deep", Value::Arr(vec![s("x")]))])),
            ("text", s("x")),
            ("topic", Value::Null),
            ("recallTimestamps", Value::Arr(vec![Value::Num(1.5)])),
        ]))
        .unwrap();
        assert_eq!((m.id.as_str(), m.text.as_str(), m.topic), ("m1", "x", None));
        assert_eq!(m.recall_timestamps, [1.5]);
        let e = memory_from(obj(&[("text", Value::Num(5.0))])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: memory.text must be a string, got a number"
        );
        let e = memory_from(obj(&[("tags", Value::Arr(vec![s("a"), Value::Num(1.0)]))]));
        assert_eq!(
            e.unwrap_err().to_string(),
            "invalid_argument: memory.tags must be an array of strings, got a number"
        );
        let e = memory_from(obj(&[("classification", Value::Num(1.5))])).unwrap_err();
        assert!(e.to_string().contains("must be an integer between"), "{e}");
        let e = memory_from(s("x")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: memory must be an object, got a string"
        );
    }

    #[test]
    fn a_note_gets_its_period_default_and_rejects_unknown_fields() {
        let fields = [
            ("id", s("n1")),
            ("period", s("daily")),
            ("start", Value::Num(0.0)),
            ("text", s("x")),
            ("createdAt", Value::Num(1.0)),
            ("updatedAt", Value::Num(1.0)),
        ];
        let note = note_from(obj(&fields)).unwrap();
        assert_eq!(note.end, Period::Daily.default_end(0.0));
        let e = note_from(obj(&[("bogus", Value::Null)])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: unknown field `bogus` in note"
        );
        let e = note_from(obj(&fields[1..])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: note is missing field `id`"
        );
        let e = entity_from(obj(&[("type", s("person"))])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: entity is missing field `name`"
        );
    }

    #[test]
    fn config_reads_parameters_and_seeds_and_rejects_unknown_ones() {
        let config = config_from(obj(&[
            ("decayDays", Value::Num(30.0)),
            ("signatureSeed", Value::Big(u64::MAX)),
            ("lazySignatures", Value::Bool(true)),
            (
                "calibration",
                obj(&[("sfKind", s("exponential")), ("sfScale", Value::Num(2.0))]),
            ),
        ]))
        .unwrap();
        assert_eq!(config.score.decay_days, 30.0);
        assert_eq!(config.signature_seed, u64::MAX);
        assert!(config.lazy_signatures && !EngineConfig::default().lazy_signatures);
        assert_eq!(config.calibration.sf, Mapping::Exponential { scale: 2.0 });
        for (seed, want) in [
            (Value::Num(7.0), Some(7)),
            (s("18446744073709551615"), Some(u64::MAX)),
        ] {
            assert_eq!(self::seed(seed).unwrap(), want);
        }
        for bad in [Value::Num(-1.0), Value::Num(0.5), s("0x12")] {
            assert!(self::seed(bad).is_err());
        }
        let e = config_from(obj(&[("bogus", Value::Num(1.0))])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: unknown field `bogus` in config"
        );
    }

    #[test]
    fn recall_options_are_read_whole() {
        let base = [
            ("limit", Value::Num(5.0)),
            ("now", Value::Num(1e12)),
            ("trackRecalls", Value::Bool(false)),
            ("includeExpired", Value::Bool(true)),
            ("searchMode", s("lexical")),
            ("topic", s("work")),
            (
                "context",
                obj(&[
                    ("hour", Value::Num(9.0)),
                    ("utcOffsetMinutes", Value::Num(-120.0)),
                ]),
            ),
        ];
        let o = recall_options_from(obj(&base)).unwrap();
        assert_eq!(o.limit, 5);
        assert!(!o.track_recalls && o.filter.include_expired);
        assert_eq!(o.mode, SearchMode::Lexical);
        assert_eq!(o.filter.topic.as_deref(), Some("work"));
        let c = o.context.unwrap();
        assert_eq!((c.hour, c.utc_offset_minutes), (Some(9), -120));
        // An offset past 18 hours is no zone's.
        let far = [(
            "context",
            obj(&[("utcOffsetMinutes", Value::Num(100_000.0))]),
        )];
        let e = recall_options_from(obj(&far)).unwrap_err();
        assert!(e.to_string().contains("utcOffsetMinutes"), "{e}");
        let e = recall_options_from(obj(&base[..1])).unwrap_err();
        assert!(e.to_string().contains("missing field"), "{e}");
        let e = recall_options_from(obj(&[("trackRecalls", Value::Num(1.0))])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: recall options.trackRecalls must be a boolean, got a number"
        );
        let e = recall_options_from(obj(&[("context", obj(&[("hours", Value::Num(9.0))]))]));
        assert_eq!(
            e.unwrap_err().to_string(),
            "invalid_argument: unknown field `hours` in context"
        );
    }
}
