//! The WebAssembly boundary: the only module that names `wasm_bindgen`, `js_sys` or
//! `serde_wasm_bindgen`. Each export delegates to [`crate::engine::Engine`] in a few lines.
//!
//! Invariants:
//! - Every fallible export returns `Result<_, JsError>` whose message starts with a stable
//!   code (`invalid_argument: …`); `js/src/errors.ts` parses it into `RecallError`.
//! - No `unwrap`/`expect` here: a panic would abort the whole module.
//! - Shapes crossing the boundary are declared once, in the `TYPES` section below.

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::engine::{self, EngineConfig, RecallOptions};
use crate::recall::{Filter, ScoreParams};
use crate::store::Memory;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Engine parameters (all optional; defaults from seed 000). */
export interface EngineConfigJs { decayDays?: number; decayFloor?: number; emotionBoost?: number }
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
}
/** Every factor of a stage Sf score. */
export interface SfComponentsJs {
  bm25: number; emotionBoost: number; recallBoost: number; relevanceBoost: number; trustFactor: number;
  credibilityFactor: number; tierBoost: number; recency: number;
}
/** One result row. */
export interface RecallHitJs { id: string; stage: string; score: number; components: SfComponentsJs; memory: MemoryRecord }
/** What one stage did. */
export interface StageReportJs { name: string; hits: number; ms: number; skipped?: boolean; reason?: string }
/** The engine's answer to a recall. */
export interface RecallOutputJs { results: RecallHitJs[]; stages: StageReportJs[] }
/** Store statistics. */
export interface EngineStatsJs { memories: number; porterTerms: number; fuzzyTerms: number }
"#;

#[wasm_bindgen]
extern "C" {
    /// Engine parameters.
    #[wasm_bindgen(typescript_type = "EngineConfigJs")]
    pub type JsEngineConfig;
    /// One memory record.
    #[wasm_bindgen(typescript_type = "MemoryRecord")]
    pub type JsMemory;
    /// An array of memory records.
    #[wasm_bindgen(typescript_type = "MemoryRecord[]")]
    pub type JsMemoryArray;
    /// A memory record or undefined.
    #[wasm_bindgen(typescript_type = "MemoryRecord | undefined")]
    pub type JsMaybeMemory;
    /// Recall options.
    #[wasm_bindgen(typescript_type = "RecallOptionsJs")]
    pub type JsRecallOptions;
    /// Recall output.
    #[wasm_bindgen(typescript_type = "RecallOutputJs")]
    pub type JsRecallOutput;
    /// Statistics.
    #[wasm_bindgen(typescript_type = "EngineStatsJs")]
    pub type JsEngineStats;
    /// An array of ids.
    #[wasm_bindgen(typescript_type = "string[]")]
    pub type JsStringArray;

    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct ConfigShape {
    decay_days: Option<f64>,
    decay_floor: Option<f64>,
    emotion_boost: Option<f64>,
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
    pub fn new(config: JsEngineConfig) -> Result<Engine, JsError> {
        let shape: ConfigShape = from_js(config.into())?;
        let defaults = ScoreParams::default();
        let score = ScoreParams {
            decay_days: shape.decay_days.unwrap_or(defaults.decay_days),
            decay_floor: shape.decay_floor.unwrap_or(defaults.decay_floor),
            emotion_boost: shape.emotion_boost.unwrap_or(defaults.emotion_boost),
        };
        let inner = engine::Engine::new(EngineConfig { score }).map_err(to_js)?;
        Ok(Engine { inner })
    }

    /// Number of live memories.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.inner.len()
    }

    /// Adds one memory.
    pub fn insert(&mut self, memory: JsMemory) -> Result<(), JsError> {
        let memory: Memory = from_js(memory.into())?;
        self.inner.insert(memory).map_err(to_js)
    }

    /// Adds every memory of the array, or none.
    #[wasm_bindgen(js_name = insertMany)]
    pub fn insert_many(&mut self, memories: JsMemoryArray) -> Result<(), JsError> {
        let memories: Vec<Memory> = from_js(memories.into())?;
        self.inner.insert_many(memories).map_err(to_js)
    }

    /// The memory with this id, or undefined.
    pub fn get(&self, id: &str) -> Result<JsMaybeMemory, JsError> {
        match self.inner.get(id) {
            Some(m) => Ok(to_value(m)?.unchecked_into()),
            None => Ok(JsValue::UNDEFINED.unchecked_into()),
        }
    }

    /// Every live id, in insertion order.
    pub fn ids(&self) -> Result<JsStringArray, JsError> {
        let ids: Vec<&str> = self.inner.ids().collect();
        Ok(to_value(&ids)?.unchecked_into())
    }

    /// Replaces the stored memory with the same id.
    pub fn replace(&mut self, memory: JsMemory) -> Result<(), JsError> {
        let memory: Memory = from_js(memory.into())?;
        self.inner.replace(memory).map_err(to_js)
    }

    /// Removes a memory and returns it.
    pub fn remove(&mut self, id: &str) -> Result<JsMemory, JsError> {
        let memory = self.inner.remove(id).map_err(to_js)?;
        Ok(to_value(&memory)?.unchecked_into())
    }

    /// Runs a recall.
    pub fn recall(
        &mut self,
        query: &str,
        options: JsRecallOptions,
    ) -> Result<JsRecallOutput, JsError> {
        let o: RecallOptionsShape = from_js(options.into())?;
        let options = RecallOptions {
            limit: o.limit,
            track_recalls: o.track_recalls,
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
        let output = self
            .inner
            .recall(query, &options, &performance_now)
            .map_err(to_js)?;
        Ok(to_value(&output)?.unchecked_into())
    }

    /// Counts of memories and index terms.
    pub fn stats(&self) -> Result<JsEngineStats, JsError> {
        Ok(to_value(&self.inner.stats())?.unchecked_into())
    }
}

fn to_js(e: crate::Error) -> JsError {
    JsError::new(&e.to_string())
}

fn from_js<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| JsError::new(&format!("invalid_argument: {e}")))
}

fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    value
        .serialize(&serializer)
        .map_err(|e| JsError::new(&format!("internal: cannot convert a result: {e}")))
}
