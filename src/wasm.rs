//! The WebAssembly boundary: the only module that names `wasm_bindgen`. Each export delegates
//! to [`crate::engine::Engine`] in a few lines.
//!
//! Records and options cross as JSON text (`serde_json` here, `JSON.stringify`/`JSON.parse` in
//! `js/src/engine.ts`), embeddings as `Float32Array`s. One string per call is cheaper than
//! building a JS object field by field through imported setters: on a recall of ten results
//! over 1,000 memories (≈15 KB of output) the share of time spent converting the output fell
//! from ≈37 % (serde-wasm-bindgen) to ≈20 % (serde_json plus the host's native `JSON.parse`),
//! in a CPU profile of the same workload.
//!
//! Invariants:
//! - Every fallible export returns `Result<_, JsError>` whose message starts with a stable
//!   code (`invalid_argument: …`); `js/src/errors.ts` parses it into `RecallError`.
//! - No `unwrap`/`expect` here: a panic would abort the whole module.
//! - Shapes crossing the boundary are declared once, in the `TYPES` section below; the
//!   exports take and return them as JSON strings (`js/src/engine.ts` types them).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::engine::{self, EmbeddingUpdate, EngineConfig, RecallOptions, SearchMode};
use crate::graph::{Edge, Entity};
use crate::notes::{Note, Period};
use crate::rank::calibrate::DEFAULT_SF_HALF;
use crate::rank::{Calibration, Context, Mapping};
use crate::recall::{Filter, ScoreParams};
use crate::store::Memory;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Engine parameters (all optional; defaults from seed 000). */
export interface EngineConfigJs {
  decayDays?: number; decayFloor?: number; emotionBoost?: number; dimensions?: number;
  similarityThreshold?: number; signatureSeed?: bigint; shortCircuitFloor?: number; mmrLambda?: number;
  calibration?: CalibrationJs;
}
/**
 * Per-stage calibration (defaults and their measurement in `src/rank/calibrate.rs`): Sf maps
 * its raw score by `sfKind` ("hyperbolic", the default: raw / (raw + sfHalf); "exponential":
 * 1 − exp(−raw / sfScale), sfScale defaulting to the default sfHalf; "identity": raw clamped to
 * [0, 1]); Se and Ss map linearly, (raw − zero) / (1 − zero), from `seZero` and `ssZero`.
 */
export interface CalibrationJs {
  sfKind?: "hyperbolic" | "exponential" | "identity"; sfHalf?: number; sfScale?: number; seZero?: number; ssZero?: number;
}
/** A memory as the engine stores it; times are ms since the epoch. */
export interface MemoryRecord {
  id: string; text: string; textEn?: string; keywords?: string[]; userId?: string; topic?: string;
  tags?: string[]; type?: string; tier?: string; emotion?: number; emotionTags?: string[];
  importance?: number; confidence?: number; trust?: number; credibility?: number; relevance?: number;
  classification?: number; createdAt: number; updatedAt: number; validFrom?: number; validTo?: number;
  expiresAt?: number; entities?: string[]; recallCount?: number; lastRecalledAt?: number;
  recallTimestamps?: number[];
}
/** Options of one recall, already validated and defaulted by the wrapper. */
export interface RecallOptionsJs {
  limit: number; now: number; trackRecalls: boolean; includeExpired: boolean; userId?: string;
  maxClassification?: number; start?: number; end?: number; topic?: string; tier?: string;
  searchMode: "hybrid" | "lexical" | "semantic"; mmrLambda?: number;
  context?: { hour?: number; dayOfWeek?: number; topic?: string; utcOffsetMinutes?: number };
}
/** Every factor of a stage Sf score. */
export interface SfComponentsJs {
  bm25: number; emotionBoost: number; recallBoost: number; relevanceBoost: number; trustFactor: number;
  credibilityFactor: number; tierBoost: number; recency: number;
}
/** One result row. */
export interface RecallHitJs {
  id: string; kind: "memory" | "note" | "edge"; stage: string; score: number; text: string;
  components: Record<string, number>; memory?: MemoryRecord;
  metadata?: { topic?: string; type?: string; tags: string[]; emotionTags: string[]; importance?: number; confidence?: number; createdAt: number };
  note?: { id: string; period: "daily" | "weekly" | "quarterly"; start: number; paragraph: number };
  edge?: EdgeRecord; timeline?: { id: string; createdAt: number; date: string }[]; conflicts?: string[]; warning?: string;
}
/** What one stage did. */
export interface StageReportJs { name: string; hits: number; ms: number; skipped?: boolean; reason?: string }
/** The engine's answer to a recall. */
export interface RecallOutputJs { results: RecallHitJs[]; stages: StageReportJs[] }
/** A consolidation note; `end` defaults from the period (daily 1 day, weekly 7, quarterly 3 months). */
export interface NoteRecord {
  id: string; period: "daily" | "weekly" | "quarterly"; start: number; end?: number; text: string;
  createdAt: number; updatedAt: number;
}
/** A named entity of the graph. */
export interface EntityRecord { name: string; type?: string; aliases?: string[]; userId?: string; classification?: number; createdAt?: number }
/** A directed, labelled edge between two entities (names are normalised). */
export interface EdgeRecord {
  id: string; from: string; relation: string; to: string; strength: number; createdAt: number; lastSeenAt: number;
  memoryIds?: string[]; userId?: string; classification?: number;
}
/** Store statistics. */
export interface EngineStatsJs { memories: number; porterTerms: number; fuzzyTerms: number }
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct ConfigShape {
    decay_days: Option<f64>,
    decay_floor: Option<f64>,
    emotion_boost: Option<f64>,
    dimensions: Option<usize>,
    similarity_threshold: Option<f64>,
    /// Decimal text: a `bigint` on the JS side, beyond JSON numbers.
    signature_seed: Option<String>,
    short_circuit_floor: Option<f64>,
    mmr_lambda: Option<f64>,
    calibration: Option<CalibrationShape>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct CalibrationShape {
    sf_kind: Option<String>,
    sf_half: Option<f64>,
    sf_scale: Option<f64>,
    se_zero: Option<f64>,
    ss_zero: Option<f64>,
}

impl CalibrationShape {
    /// The default calibration with the given parameters replaced; the engine validates ranges.
    fn into_calibration(self) -> Result<Calibration, JsError> {
        let d = Calibration::default();
        let sf = match self.sf_kind.as_deref() {
            None | Some("hyperbolic") => Mapping::Hyperbolic {
                half: self.sf_half.unwrap_or(DEFAULT_SF_HALF),
            },
            Some("exponential") => Mapping::Exponential {
                scale: self.sf_scale.unwrap_or(DEFAULT_SF_HALF),
            },
            Some("identity") => Mapping::Identity,
            Some(other) => {
                return Err(JsError::new(&format!(
                    "invalid_argument: calibration.sfKind must be \"hyperbolic\", \"exponential\" or \"identity\", got \"{other}\""
                )))
            }
        };
        Ok(Calibration {
            sf,
            se: self.se_zero.map_or(d.se, |zero| Mapping::Linear { zero }),
            ss: self.ss_zero.map_or(d.ss, |zero| Mapping::Linear { zero }),
            ..d
        })
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct ContextShape {
    hour: Option<u8>,
    day_of_week: Option<u8>,
    topic: Option<String>,
    utc_offset_minutes: Option<i32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RecallOptionsShape {
    limit: usize,
    now: f64,
    track_recalls: bool,
    include_expired: bool,
    user_id: Option<String>,
    max_classification: Option<i64>,
    start: Option<f64>,
    end: Option<f64>,
    topic: Option<String>,
    tier: Option<String>,
    search_mode: String,
    mmr_lambda: Option<f64>,
    context: Option<ContextShape>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct NoteShape {
    id: String,
    period: Period,
    start: f64,
    end: Option<f64>,
    text: String,
    created_at: f64,
    updated_at: f64,
}

impl NoteShape {
    fn into_note(self) -> Note {
        Note {
            end: self
                .end
                .unwrap_or_else(|| self.period.default_end(self.start)),
            id: self.id,
            period: self.period,
            start: self.start,
            text: self.text,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

/// A recall engine living in wasm memory. The JavaScript wrapper owns it and calls `free()`.
#[wasm_bindgen]
pub struct Engine {
    inner: engine::Engine,
}

#[wasm_bindgen]
impl Engine {
    /// Creates an empty engine.
    #[wasm_bindgen(constructor)]
    pub fn new(config: &str) -> Result<Engine, JsError> {
        let shape: ConfigShape = from_json(config)?;
        let d = EngineConfig::default();
        let signature_seed = match shape.signature_seed.as_deref() {
            None => d.signature_seed,
            Some(text) => text.parse::<u64>().map_err(|_| {
                JsError::new("invalid_argument: signatureSeed must be an integer in [0, 2^64)")
            })?,
        };
        let calibration = match shape.calibration {
            Some(c) => c.into_calibration()?,
            None => d.calibration,
        };
        let score = ScoreParams {
            decay_days: shape.decay_days.unwrap_or(d.score.decay_days),
            decay_floor: shape.decay_floor.unwrap_or(d.score.decay_floor),
            emotion_boost: shape.emotion_boost.unwrap_or(d.score.emotion_boost),
        };
        let config = EngineConfig {
            score,
            dims: shape.dimensions,
            se_threshold: shape.similarity_threshold.unwrap_or(d.se_threshold),
            signature_seed,
            short_circuit_floor: shape.short_circuit_floor.unwrap_or(d.short_circuit_floor),
            mmr_lambda: shape.mmr_lambda.unwrap_or(d.mmr_lambda),
            calibration,
            ..d
        };
        let inner = engine::Engine::new(config).map_err(to_js)?;
        Ok(Engine { inner })
    }

    /// Number of live memories.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.inner.len()
    }

    /// The embedding dimension, once known.
    #[wasm_bindgen(getter)]
    pub fn dimensions(&self) -> Option<usize> {
        self.inner.dims()
    }

    /// Adds one memory, with its embedding if any.
    pub fn insert(&mut self, memory: &str, embedding: Option<Vec<f32>>) -> Result<(), JsError> {
        let memory: Memory = from_json(memory)?;
        self.inner
            .insert(memory, embedding.as_deref())
            .map_err(to_js)
    }

    /// Adds every memory of the array, or none. `vectors` holds, row after row, the
    /// embeddings of the items whose `has_embedding` byte is 1.
    #[wasm_bindgen(js_name = insertMany)]
    pub fn insert_many(
        &mut self,
        memories: &str,
        vectors: &[f32],
        has_embedding: &[u8],
    ) -> Result<(), JsError> {
        let memories: Vec<Memory> = from_json(memories)?;
        let rows = has_embedding.iter().filter(|&&b| b != 0).count();
        if rows == 0 {
            return self.inner.insert_many(memories, &[]).map_err(to_js);
        }
        if has_embedding.len() != memories.len() || vectors.len() % rows != 0 {
            return Err(JsError::new(
                "invalid_argument: embeddings do not match the memories",
            ));
        }
        let dims = vectors.len() / rows;
        let mut chunks = vectors.chunks_exact(dims.max(1));
        let embeddings: Vec<Option<&[f32]>> = has_embedding
            .iter()
            .map(|&b| if b != 0 { chunks.next() } else { None })
            .collect();
        self.inner.insert_many(memories, &embeddings).map_err(to_js)
    }

    /// The stored embedding of a memory.
    pub fn embedding(&self, id: &str) -> Option<Vec<f32>> {
        self.inner.embedding(id).map(<[f32]>::to_vec)
    }

    /// The 32-byte signature of a memory.
    pub fn signature(&self, id: &str) -> Option<Vec<u8>> {
        self.inner.signature(id).map(|s| s.to_bytes().to_vec())
    }

    /// The memory with this id, or undefined.
    pub fn get(&self, id: &str) -> Result<Option<String>, JsError> {
        match self.inner.get(id) {
            Some(m) => to_json(m).map(Some),
            None => Ok(None),
        }
    }

    /// Every live id, in insertion order.
    pub fn ids(&self) -> Result<String, JsError> {
        let ids: Vec<&str> = self.inner.ids().collect();
        to_json(&ids)
    }

    /// Replaces the stored memory with the same id. `embedding` is stored when given;
    /// otherwise `remove_embedding` says whether the old one is dropped.
    pub fn replace(
        &mut self,
        memory: &str,
        embedding: Option<Vec<f32>>,
        remove_embedding: bool,
    ) -> Result<(), JsError> {
        let memory: Memory = from_json(memory)?;
        let update = match (&embedding, remove_embedding) {
            (Some(e), _) => EmbeddingUpdate::Set(e),
            (None, true) => EmbeddingUpdate::Remove,
            (None, false) => EmbeddingUpdate::Keep,
        };
        self.inner.replace(memory, update).map_err(to_js)
    }

    /// Removes a memory and returns it.
    pub fn remove(&mut self, id: &str) -> Result<String, JsError> {
        let memory = self.inner.remove(id).map_err(to_js)?;
        to_json(&memory)
    }

    /// Phase 1 of a recall: validates options and runs stage Sf.
    #[wasm_bindgen(js_name = beginRecall)]
    pub fn begin_recall(&mut self, query: &str, options: &str) -> Result<PendingRecall, JsError> {
        let o: RecallOptionsShape = from_json(options)?;
        let options = RecallOptions {
            limit: o.limit,
            track_recalls: o.track_recalls,
            mode: SearchMode::parse(&o.search_mode).map_err(to_js)?,
            mmr_lambda: o.mmr_lambda,
            context: o.context.map(|c| Context {
                hour: c.hour,
                day_of_week: c.day_of_week,
                topic: c.topic,
                utc_offset_minutes: c.utc_offset_minutes.unwrap_or(0),
            }),
            filter: Filter {
                user_id: o.user_id,
                max_classification: o.max_classification,
                start: o.start,
                end: o.end,
                topic: o.topic,
                tier: o.tier,
                include_expired: o.include_expired,
                now: o.now,
            },
        };
        let inner = self
            .inner
            .begin_recall(query, options, &performance_now)
            .map_err(to_js)?;
        Ok(PendingRecall { inner })
    }

    /// Phase 2: the other stages, post-processing and tracking. Consumes `pending`.
    #[wasm_bindgen(js_name = finishRecall)]
    pub fn finish_recall(
        &mut self,
        pending: PendingRecall,
        embedding: Option<Vec<f32>>,
        se_skip_reason: Option<String>,
    ) -> Result<String, JsError> {
        let output = self
            .inner
            .finish_recall(
                pending.inner,
                embedding.as_deref(),
                se_skip_reason.as_deref(),
                &performance_now,
            )
            .map_err(to_js)?;
        to_json(&output)
    }

    /// Adds a note.
    #[wasm_bindgen(js_name = addNote)]
    pub fn add_note(&mut self, note: &str) -> Result<(), JsError> {
        let note: NoteShape = from_json(note)?;
        self.inner.add_note(note.into_note()).map_err(to_js)
    }

    /// Replaces the note with the same id.
    #[wasm_bindgen(js_name = replaceNote)]
    pub fn replace_note(&mut self, note: &str) -> Result<(), JsError> {
        let note: NoteShape = from_json(note)?;
        self.inner.replace_note(note.into_note()).map_err(to_js)
    }

    /// Removes a note and returns it.
    #[wasm_bindgen(js_name = removeNote)]
    pub fn remove_note(&mut self, id: &str) -> Result<String, JsError> {
        let note = self.inner.remove_note(id).map_err(to_js)?;
        to_json(&note)
    }

    /// The note with this id, or undefined.
    pub fn note(&self, id: &str) -> Result<Option<String>, JsError> {
        match self.inner.note(id) {
            Some(n) => to_json(n).map(Some),
            None => Ok(None),
        }
    }

    /// Every note.
    pub fn notes(&self) -> Result<String, JsError> {
        let notes: Vec<&Note> = self.inner.notes().collect();
        to_json(&notes)
    }

    /// Adds an entity or merges it into the one with the same name.
    #[wasm_bindgen(js_name = addEntity)]
    pub fn add_entity(&mut self, entity: &str) -> Result<(), JsError> {
        let entity: Entity = from_json(entity)?;
        self.inner.add_entity(entity).map_err(to_js)
    }

    /// Removes an entity and its edges; returns it.
    #[wasm_bindgen(js_name = removeEntity)]
    pub fn remove_entity(&mut self, name: &str) -> Result<String, JsError> {
        let entity = self.inner.remove_entity(name).map_err(to_js)?;
        to_json(&entity)
    }

    /// Every entity.
    pub fn entities(&self) -> Result<String, JsError> {
        let all: Vec<&Entity> = self.inner.graph().entities().collect();
        to_json(&all)
    }

    /// Every edge.
    pub fn edges(&self) -> Result<String, JsError> {
        let all: Vec<&Edge> = self.inner.graph().edges().collect();
        to_json(&all)
    }

    /// Relates two entities; returns the edge.
    #[allow(clippy::too_many_arguments)]
    pub fn relate(
        &mut self,
        from: &str,
        relation: &str,
        to: &str,
        strength: Option<f64>,
        memory_ids: Vec<String>,
        now: f64,
    ) -> Result<String, JsError> {
        let edge = self
            .inner
            .relate(from, relation, to, strength, &memory_ids, now)
            .map_err(to_js)?;
        to_json(&edge)
    }

    /// Stores a whole edge record.
    #[wasm_bindgen(js_name = upsertEdge)]
    pub fn upsert_edge(&mut self, edge: &str) -> Result<String, JsError> {
        let edge: Edge = from_json(edge)?;
        let edge = self.inner.upsert_edge(edge).map_err(to_js)?;
        to_json(&edge)
    }

    /// Removes edges; returns how many.
    pub fn unrelate(
        &mut self,
        from: &str,
        relation: Option<String>,
        to: &str,
    ) -> Result<usize, JsError> {
        self.inner
            .unrelate(from, relation.as_deref(), to)
            .map_err(to_js)
    }

    /// Counts of memories and index terms.
    pub fn stats(&self) -> Result<String, JsError> {
        to_json(&self.inner.stats())
    }
}

/// A recall between its two phases (see `Engine.beginRecall`).
#[wasm_bindgen]
pub struct PendingRecall {
    inner: engine::PendingRecall,
}

#[wasm_bindgen]
impl PendingRecall {
    /// Whether Se and Ss will be skipped because Sf filled the limit.
    #[wasm_bindgen(getter, js_name = shortCircuit)]
    pub fn short_circuit(&self) -> bool {
        self.inner.short_circuit()
    }

    /// Whether stage Se will use a query embedding.
    #[wasm_bindgen(getter, js_name = wantsEmbedding)]
    pub fn wants_embedding(&self) -> bool {
        self.inner.wants_embedding()
    }
}

fn to_js(e: crate::Error) -> JsError {
    JsError::new(&e.to_string())
}

/// Parses a JSON argument; errors name the problem without JSON positions.
fn from_json<T: DeserializeOwned>(json: &str) -> Result<T, JsError> {
    serde_json::from_str(json).map_err(|e| {
        let text = e.to_string();
        let text = text.rfind(" at line ").map_or(&text[..], |at| &text[..at]);
        JsError::new(&format!("invalid_argument: {text}"))
    })
}

/// A result as JSON text.
fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, JsError> {
    serde_json::to_string(value)
        .map_err(|e| JsError::new(&format!("internal: cannot convert a result: {e}")))
}
