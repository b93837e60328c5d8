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
//!
//! Every shape is read by one loop (`read`): a table of the shape's fields gives each key's
//! kind, the loop checks the value against it (with the messages above), and the shape's
//! closure stores what it got, by the field's position in the table. A `match` on the key per
//! shape, each arm with its own checks and errors, made these readers 43.7 KB of wasm.

use crate::engine::{EngineConfig, RecallOptions, SearchMode};
use crate::error::{check_unit, Error, Result};
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
use super::value::{check_int, Value};

use Kind::{Any, Bool, Int, Num as Number, Nums, Str, Strs};

/// What a field holds; [`read`] checks a value against it before the shape sees it.
#[derive(Clone, Copy)]
enum Kind {
    /// A string.
    Str,
    /// A boolean.
    Bool,
    /// A number.
    Num,
    /// An integer in `min..=max`.
    Int(i64, i64),
    /// An array of strings.
    Strs,
    /// An array of numbers.
    Nums,
    /// Any value, null included, which the shape reads itself.
    Any,
}

/// A classification or credibility level.
const LEVEL: Kind = Int(-MAX_LEVEL, MAX_LEVEL);
/// A count or a size (a `u32`).
const COUNT: Kind = Int(0, u32::MAX as i64);

/// A field's value, of its [`Kind`]; `Null` when it is null (but for [`Kind::Any`]).
enum Got {
    Null,
    Str(String),
    Bool(bool),
    Num(f64),
    Int(i64),
    Strs(Vec<String>),
    Nums(Vec<f64>),
    Any(Value),
}

// The accessors are never inlined: each inlined copy carried a drop of the other variants
// (0.4 KB gzipped over the readers' 130 uses).
impl Got {
    #[inline(never)]
    fn str(self) -> Option<String> {
        match self {
            Got::Str(s) => Some(s),
            _ => None,
        }
    }

    #[inline(never)]
    fn bool(self) -> Option<bool> {
        match self {
            Got::Bool(b) => Some(b),
            _ => None,
        }
    }

    #[inline(never)]
    fn num(self) -> Option<f64> {
        match self {
            Got::Num(n) => Some(n),
            _ => None,
        }
    }

    #[inline(never)]
    fn int(self) -> Option<i64> {
        match self {
            Got::Int(n) => Some(n),
            _ => None,
        }
    }

    /// The strings; none for null.
    #[inline(never)]
    fn strs(self) -> Vec<String> {
        match self {
            Got::Strs(s) => s,
            _ => Vec::new(),
        }
    }

    /// The numbers; none for null.
    #[inline(never)]
    fn nums(self) -> Vec<f64> {
        match self {
            Got::Nums(n) => n,
            _ => Vec::new(),
        }
    }

    /// The value of a [`Kind::Any`] field.
    #[inline(never)]
    fn value(self) -> Value {
        match self {
            Got::Any(v) => v,
            _ => Value::Null,
        }
    }
}

/// Reads the object `v` (`what` names it in messages) entry by entry, in its order: a key of
/// `fields` has its value checked against the field's kind and given to `take` with the
/// field's position in `fields`; any other key is skipped, or an error when `strict`.
fn read(
    what: &str,
    v: Value,
    fields: &[(&str, Kind)],
    strict: bool,
    take: &mut dyn FnMut(usize, Got) -> Result<()>,
) -> Result<()> {
    for (key, v) in object(what, v)? {
        match fields.iter().position(|&(name, _)| name == key) {
            Some(at) => take(at, checked(what, fields[at], v)?)?,
            None if strict => return Err(unknown(what, &key)),
            None => {}
        }
    }
    Ok(())
}

/// `v` as the field `key` of `what` holds it, or the error saying what it must be.
fn checked(what: &str, (key, kind): (&str, Kind), v: Value) -> Result<Got> {
    match (kind, v) {
        (Any, v) => Ok(Got::Any(v)),
        (_, Value::Null) => Ok(Got::Null),
        (Str, Value::Str(s)) => Ok(Got::Str(s)),
        (Bool, Value::Bool(b)) => Ok(Got::Bool(b)),
        (Number, Value::Num(n)) => Ok(Got::Num(n)),
        (Int(min, max), Value::Num(n)) => check_int(what, key, n, min, max).map(Got::Int),
        (Strs, v) => strs(what, key, v).map(Got::Strs),
        (Nums, v) => nums(what, key, v).map(Got::Nums),
        (kind, v) => {
            let want = match kind {
                Str => "a string",
                Bool => "a boolean",
                _ => "a number",
            };
            Err(wrong(what, key, want, &v))
        }
    }
}

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

/// The error for a field of the wrong kind (not inlined: its formatting is the same at every
/// use).
#[inline(never)]
fn wrong(what: &str, key: &str, want: &str, v: &Value) -> Error {
    Error::InvalidArgument(format!("{what}.{key} must be {want}, got {}", v.kind()))
}

/// An array whose items `item` takes (`None` for an item of the wrong kind, reported as
/// `what.key` not being `want`).
fn items<T>(
    what: &str,
    key: &str,
    want: &str,
    v: Value,
    item: fn(Value) -> std::result::Result<T, Value>,
) -> Result<Vec<T>> {
    match v {
        Value::Arr(values) => values
            .into_iter()
            .map(|value| item(value).map_err(|other| wrong(what, key, want, &other)))
            .collect(),
        other => Err(wrong(what, key, want, &other)),
    }
}

/// An array of strings.
fn strs(what: &str, key: &str, v: Value) -> Result<Vec<String>> {
    items(what, key, "an array of strings", v, |item| match item {
        Value::Str(s) => Ok(s),
        other => Err(other),
    })
}

/// An array of numbers.
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

/// The fields of a memory record, in the order [`memory_from`]'s arms take them.
const MEMORY: [(&str, Kind); 26] = [
    ("id", Str),
    ("text", Str),
    ("textEn", Str),
    ("keywords", Strs),
    ("userId", Str),
    ("topic", Str),
    ("tags", Strs),
    ("type", Str),
    ("tier", Str),
    ("emotion", Number),
    ("emotionTags", Strs),
    ("importance", Number),
    ("confidence", Number),
    ("trust", Number),
    ("credibility", LEVEL),
    ("relevance", Number),
    ("classification", LEVEL),
    ("createdAt", Number),
    ("updatedAt", Number),
    ("validFrom", Number),
    ("validTo", Number),
    ("expiresAt", Number),
    ("entities", Strs),
    ("recallCount", COUNT),
    ("lastRecalledAt", Number),
    ("recallTimestamps", Nums),
];

/// Reads a memory record (`MemoryRecord`; fields it does not know are skipped).
pub fn memory_from(v: Value) -> Result<Memory> {
    let mut m = Memory::default();
    read("memory", v, &MEMORY, false, &mut |at, got| {
        match at {
            0 => m.id = got.str().unwrap_or_default(),
            1 => m.text = got.str().unwrap_or_default(),
            2 => m.text_en = got.str(),
            3 => m.keywords = got.strs(),
            4 => m.user_id = got.str(),
            5 => m.topic = got.str(),
            6 => m.tags = got.strs(),
            7 => m.kind = got.str(),
            8 => m.tier = got.str(),
            9 => m.emotion = got.num().unwrap_or(0.0),
            10 => m.emotion_tags = got.strs(),
            11 => m.importance = got.num(),
            12 => m.confidence = got.num(),
            13 => m.trust = got.num(),
            14 => m.credibility = got.int(),
            15 => m.relevance = got.num().unwrap_or(0.0),
            16 => m.classification = got.int().unwrap_or(0),
            17 => m.created_at = got.num().unwrap_or(0.0),
            18 => m.updated_at = got.num().unwrap_or(0.0),
            19 => m.valid_from = got.num(),
            20 => m.valid_to = got.num(),
            21 => m.expires_at = got.num(),
            22 => m.entities = got.strs(),
            23 => m.recall_count = got.int().map_or(0, |n| n as u32),
            24 => m.last_recalled_at = got.num(),
            _ => m.recall_timestamps = got.nums(),
        }
        Ok(())
    })?;
    Ok(m)
}

/// The fields of a note, in the order [`note_from`]'s arms take them.
const NOTE: [(&str, Kind); 9] = [
    ("id", Str),
    ("period", Str),
    ("start", Number),
    ("end", Number),
    ("text", Str),
    ("createdAt", Number),
    ("updatedAt", Number),
    ("userId", Str),
    ("classification", LEVEL),
];

/// Reads a note (`NoteRecord`); `end` defaults from the period ([`Period::default_end`]),
/// `userId` to none (shared) and `classification` to 0, as in notes written before they had
/// owners. Unknown fields are an error.
pub fn note_from(v: Value) -> Result<Note> {
    const W: &str = "note";
    let (mut id, mut period, mut start, mut end, mut text) = (None, None, None, None, None);
    let (mut created_at, mut updated_at) = (None, None);
    let (mut user_id, mut classification) = (None, None);
    read(W, v, &NOTE, true, &mut |at, got| {
        match at {
            0 => id = got.str(),
            1 => period = got.str().map(|label| period_from(&label)).transpose()?,
            2 => start = got.num(),
            3 => end = got.num(),
            4 => text = got.str(),
            5 => created_at = got.num(),
            6 => updated_at = got.num(),
            7 => user_id = got.str(),
            _ => classification = got.int(),
        }
        Ok(())
    })?;
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

/// The fields of an entity, in the order [`entity_from`]'s arms take them.
const ENTITY: [(&str, Kind); 6] = [
    ("name", Str),
    ("type", Str),
    ("aliases", Strs),
    ("userId", Str),
    ("classification", LEVEL),
    ("createdAt", Number),
];

/// Reads an entity (`EntityRecord`; fields it does not know are skipped).
pub fn entity_from(v: Value) -> Result<Entity> {
    const W: &str = "entity";
    let mut name = None;
    let mut e = Entity::default();
    read(W, v, &ENTITY, false, &mut |at, got| {
        match at {
            0 => name = got.str(),
            1 => e.kind = got.str(),
            2 => e.aliases = got.strs(),
            3 => e.user_id = got.str(),
            4 => e.classification = got.int().unwrap_or(0),
            _ => e.created_at = got.num().unwrap_or(0.0),
        }
        Ok(())
    })?;
    e.name = required(W, "name", name)?;
    Ok(e)
}

/// The fields of an edge, in the order [`edge_from`]'s arms take them.
const EDGE: [(&str, Kind); 12] = [
    ("id", Str),
    ("from", Str),
    ("relation", Str),
    ("to", Str),
    ("strength", Number),
    ("createdAt", Number),
    ("lastSeenAt", Number),
    ("memoryIds", Strs),
    ("userId", Str),
    ("classification", LEVEL),
    ("validFrom", Number),
    ("validTo", Number),
];

/// Reads an edge (`EdgeRecord`; `id` may be left out: the graph derives it; fields it does
/// not know are skipped).
pub fn edge_from(v: Value) -> Result<Edge> {
    const W: &str = "edge";
    let (mut id, mut from, mut relation, mut to, mut strength) = (None, None, None, None, None);
    let (mut created_at, mut last_seen_at, mut memory_ids) = (None, None, Vec::new());
    let (mut user_id, mut classification) = (None, None);
    let (mut valid_from, mut valid_to) = (None, None);
    read(W, v, &EDGE, false, &mut |at, got| {
        match at {
            0 => id = got.str(),
            1 => from = got.str(),
            2 => relation = got.str(),
            3 => to = got.str(),
            4 => strength = got.num(),
            5 => created_at = got.num(),
            6 => last_seen_at = got.num(),
            7 => memory_ids = got.strs(),
            8 => user_id = got.str(),
            9 => classification = got.int(),
            10 => valid_from = got.num(),
            _ => valid_to = got.num(),
        }
        Ok(())
    })?;
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

/// The parameters of the engine configuration, in the order [`config_from`]'s arms take them.
const CONFIG: [(&str, Kind); 14] = [
    ("decayDays", Number),
    ("decayFloor", Number),
    ("emotionBoost", Number),
    ("dimensions", COUNT),
    ("similarityThreshold", Number),
    ("shortCircuitFloor", Number),
    ("minScore", Number),
    ("ranking", Str),
    ("weights", Any),
    ("fusion", Any),
    ("mmrLambda", Number),
    ("lazySignatures", Bool),
    ("signatureSeed", Any),
    ("calibration", Any),
];

/// Reads the engine configuration (`EngineConfigJs`); unset parameters keep their defaults,
/// unknown ones are an error. `signatureSeed` is a `bigint` (or a safe integer) on the
/// JavaScript side. Ranges are checked by the engine.
pub fn config_from(v: Value) -> Result<EngineConfig> {
    let mut c = EngineConfig::default();
    read("config", v, &CONFIG, true, &mut |at, got| {
        match at {
            0 => set(&mut c.score.decay_days, got.num()),
            1 => set(&mut c.score.decay_floor, got.num()),
            2 => set(&mut c.score.emotion_boost, got.num()),
            3 => c.dims = got.int().map(|n| n as usize),
            4 => c.se_threshold = got.num().or(c.se_threshold),
            5 => c.short_circuit_floor = got.num().or(c.short_circuit_floor),
            6 => c.min_score = got.num().or(c.min_score),
            7 => {
                if let Some(name) = got.str() {
                    c.ranking = Ranking::parse(&name)?;
                }
            }
            8 => {
                for (name, v) in weights(got.value())? {
                    c.weights.set(&name, v)?;
                }
            }
            9 => fusion(got.value(), &mut c.fusion)?,
            10 => set(&mut c.mmr_lambda, got.num()),
            11 => c.lazy_signatures = got.bool().unwrap_or(c.lazy_signatures),
            12 => {
                if let Some(seed) = seed(got.value())? {
                    c.signature_seed = seed;
                }
            }
            _ => {
                let v = got.value();
                if v != Value::Null {
                    c.calibration = calibration(v)?;
                }
            }
        }
        Ok(())
    })?;
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

/// The calibration parameters, in the order [`calibration`]'s arms take them.
const CALIBRATION: [(&str, Kind); 5] = [
    ("sfKind", Str),
    ("sfHalf", Number),
    ("sfScale", Number),
    ("seZero", Number),
    ("ssZero", Number),
];

/// The default calibration with the given parameters replaced; the engine validates ranges.
fn calibration(v: Value) -> Result<Calibration> {
    let d = Calibration::default();
    let (mut kind, mut half, mut scale) = (None, None, None);
    let (mut se, mut ss) = (d.se, d.ss);
    read("calibration", v, &CALIBRATION, true, &mut |at, got| {
        match at {
            0 => kind = got.str(),
            1 => half = got.num(),
            2 => scale = got.num(),
            3 => se = got.num().map_or(se, |zero| Mapping::Linear { zero }),
            _ => ss = got.num().map_or(ss, |zero| Mapping::Linear { zero }),
        }
        Ok(())
    })?;
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
        if let Some(n) = checked(W, (&key, Number), v)?.num() {
            pairs.push((key, n));
        }
    }
    Ok(pairs)
}

/// The parameters of the `recallkit` ranking, in the order of [`fusion`]'s slots.
const FUSION: [(&str, Kind); 11] = [
    ("lexicalWeight", Number),
    ("signatureWeight", Number),
    ("graphWeight", Number),
    ("noteWeight", Number),
    ("recencyWeight", Number),
    ("latestRecencyWeight", Number),
    ("priorExponent", Number),
    ("coverageWeight", Number),
    ("semanticFrom", Number),
    ("semanticFull", Number),
    ("adjacentWeight", Number),
];

/// `fusion: { lexicalWeight, … }` over `f` (parameters of the `recallkit` ranking, for
/// measurement; null: none); the engine validates ranges.
fn fusion(v: Value, f: &mut FusionParams) -> Result<()> {
    if v == Value::Null {
        return Ok(());
    }
    let slots = [
        &mut f.lexical_weight,
        &mut f.signature_weight,
        &mut f.graph_weight,
        &mut f.note_weight,
        &mut f.recency_weight,
        &mut f.latest_recency_weight,
        &mut f.prior_exponent,
        &mut f.coverage_weight,
        &mut f.semantic_from,
        &mut f.semantic_full,
        &mut f.adjacent_weight,
    ];
    read("fusion", v, &FUSION, true, &mut |at, got| {
        set(slots[at], got.num());
        Ok(())
    })
}

/// The fields of a recall's options, in the order [`recall_options_from`]'s arms take them.
const RECALL_OPTIONS: [(&str, Kind); 36] = [
    ("limit", COUNT),
    ("trackRecalls", Bool),
    ("searchMode", Str),
    ("mmrLambda", Number),
    ("minScore", Number),
    ("ranking", Str),
    ("weights", Any),
    ("userId", Str),
    ("maxClassification", LEVEL),
    ("start", Number),
    ("end", Number),
    ("topic", Str),
    ("tier", Str),
    ("includeExpired", Bool),
    ("asOf", Number),
    ("includeInvalid", Bool),
    ("now", Number),
    ("context", Any),
    ("tags", Strs),
    ("excludeTags", Strs),
    ("tagMode", Str),
    ("tagMatch", Str),
    ("timeQuery", Str),
    ("resolveTime", Bool),
    ("resolvePronouns", Bool),
    ("queries", Strs),
    ("autoDecompose", Bool),
    ("priorityIds", Strs),
    ("expandRelations", Bool),
    ("expandEntities", Bool),
    ("entityHints", Strs),
    ("relationLimit", Int(1, 200)),
    ("expansionLimit", Int(1, 500)),
    ("expandMinStrength", Number),
    ("expandMinImportance", Number),
    ("sort", Str),
];

/// Reads the options of one recall (`RecallOptionsJs`, validated and defaulted by the
/// wrapper); unknown fields are an error.
pub fn recall_options_from(v: Value) -> Result<RecallOptions> {
    const W: &str = "recall options";
    let (mut limit, mut track, mut mode, mut include_expired, mut now) =
        (None, None, None, None, None);
    let mut o = RecallOptions::default();
    read(W, v, &RECALL_OPTIONS, true, &mut |at, got| {
        let f = &mut o.filter;
        match at {
            0 => limit = got.int(),
            1 => track = got.bool(),
            2 => mode = got.str(),
            3 => o.mmr_lambda = got.num(),
            4 => o.min_score = got.num(),
            5 => {
                if let Some(name) = got.str() {
                    o.ranking = Some(Ranking::parse(&name)?);
                }
            }
            6 => o.weights = weights(got.value())?,
            7 => f.user_id = got.str(),
            8 => f.max_classification = got.int(),
            9 => f.start = got.num(),
            10 => f.end = got.num(),
            11 => f.topic = got.str(),
            12 => f.tier = got.str(),
            13 => include_expired = got.bool(),
            14 => f.as_of = got.num(),
            15 => f.include_invalid = got.bool().unwrap_or(false),
            16 => now = got.num(),
            17 => {
                let v = got.value();
                if v != Value::Null {
                    o.context = Some(context(v)?);
                }
            }
            18 => f.tags.tags = TagFilter::read("tags", got.strs())?,
            19 => f.tags.exclude = TagFilter::read("excludeTags", got.strs())?,
            20 => {
                if let Some(mode) = got.str() {
                    f.tags.mode = TagMode::parse(&mode)?;
                }
            }
            21 => {
                if let Some(matching) = got.str() {
                    f.tags.matching = TagMatch::parse(&matching)?;
                }
            }
            22 => o.time_query = got.str(),
            23 => o.resolve_time = got.bool().unwrap_or(true),
            24 => o.resolve_pronouns = got.bool().unwrap_or(true),
            25 => o.queries = got.strs(),
            26 => o.auto_decompose = got.bool().unwrap_or(false),
            27 => o.priority_ids = got.strs(),
            28 => o.expand_relations = got.bool().unwrap_or(false),
            29 => o.expand_entities = got.bool().unwrap_or(false),
            30 => o.entity_hints = got.strs(),
            31 => {
                if let Some(n) = got.int() {
                    o.relation_limit = n as usize;
                }
            }
            32 => {
                if let Some(n) = got.int() {
                    o.expansion_limit = n as usize;
                }
            }
            33 => o.expand_min_strength = unit("expandMinStrength", got)?,
            34 => o.expand_min_importance = unit("expandMinImportance", got)?,
            _ => {
                if let Some(sort) = got.str() {
                    o.sort = Some(Sort::parse(&sort)?);
                }
            }
        }
        Ok(())
    })?;
    o.limit = required(W, "limit", limit)? as usize;
    o.track_recalls = required(W, "trackRecalls", track)?;
    o.mode = SearchMode::parse(&required(W, "searchMode", mode)?)?;
    o.filter.include_expired = required(W, "includeExpired", include_expired)?;
    o.filter.now = required(W, "now", now)?;
    Ok(o)
}

/// A number in [0, 1] (null: 0), named `key` in the error.
fn unit(key: &str, got: Got) -> Result<f64> {
    let n = got.num().unwrap_or(0.0);
    check_unit(key, n)?;
    Ok(n)
}

/// The fields of a recall's context, in the order [`context`]'s arms take them.
const CONTEXT: [(&str, Kind); 10] = [
    ("label", Str),
    ("language", Str),
    ("activePath", Str),
    ("tags", Strs),
    ("types", Strs),
    ("hour", Int(0, 255)),
    ("dayOfWeek", Int(0, 255)),
    ("topic", Str),
    ("entities", Any),
    (
        "utcOffsetMinutes",
        Int(-MAX_UTC_OFFSET_MINUTES, MAX_UTC_OFFSET_MINUTES),
    ),
];

fn context(v: Value) -> Result<Context> {
    let mut c = Context::default();
    let (mut label, mut language, mut path) = (None, None, None);
    let (mut tags, mut types) = (Vec::new(), Vec::new());
    read("context", v, &CONTEXT, true, &mut |at, got| {
        match at {
            0 => label = got.str(),
            1 => language = got.str(),
            2 => path = got.str(),
            3 => tags = got.strs(),
            4 => types = got.strs(),
            5 => c.hour = got.int().map(|n| n as u8),
            6 => c.day_of_week = got.int().map(|n| n as u8),
            7 => c.topic = got.str(),
            8 => c.entities = context_entities(got.value())?,
            _ => c.utc_offset_minutes = got.int().map_or(0, |n| n as i32),
        }
        Ok(())
    })?;
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

/// The fields of an entity in `context.entities`.
const CONTEXT_ENTITY: [(&str, Kind); 2] = [("name", Str), ("type", Str)];

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
        read(W, item, &CONTEXT_ENTITY, true, &mut |at, got| {
            match at {
                0 => name = got.str(),
                _ => kind = got.str(),
            }
            Ok(())
        })?;
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
