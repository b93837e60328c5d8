//! The WebAssembly boundary: the only module that names `wasm_bindgen`, `js_sys`,
//! `serde_wasm_bindgen` and `getrandom`. Each export delegates to [`crate::engine::Engine`]
//! in a few lines.
//!
//! How things cross:
//! - configuration, option bags, single records (memories, notes, entities, edges), listings,
//!   recall answers and errors: serde, into the [`Value`] trees that [`crate::wire::inputs`]
//!   reads (through `from_js`, serde-wasm-bindgen's way of reading a value without its float
//!   printing) and from the `Serialize` views of [`crate::wire::outputs`] (serde-wasm-bindgen);
//! - embeddings, signatures and reranker scores: typed arrays, one bulk copy each, never an
//!   element at a time (`js_sys::Float32Array` / `Uint8Array` coming in; going out, a `Vec`
//!   that the glue copies into one, because no export may return a lone `externref`, see
//!   [`Engine::embedding`]);
//! - a batch of memories (`stageMany` / `insertMany`): the binary record batch of
//!   [`crate::wire::batch`], measured faster than serde-wasm-bindgen there (DESIGN.md);
//! - ids the wrapper needs (`randomId`): drawn here, from `crypto.getRandomValues` through
//!   getrandom's `js` backend, so the core stays free of ambient randomness.
//!
//! Invariants:
//! - Every fallible export returns `Result<_, JsValue>` whose error is an `EngineErrorJs`
//!   (`{ code, message }`, the code stable); `js/src/engine.ts` turns it into `RecallError`.
//! - No `unwrap`/`expect` here: a panic would abort the whole module.
//! - Shapes crossing the boundary are declared once, in the `TYPES` section below, and the
//!   exports name them (`typescript_type`), so `pkg/recallkit.d.ts` has no `any` in the API.
//! - `stageMany` holds memories only until the next `insertMany`, which takes them whether it
//!   adds them (`staged`) or not.

use std::cell::RefCell;

use js_sys::{Float32Array, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::engine::{self, Batch, EmbeddingUpdate};
use crate::graph::Relation;
use crate::recall::filter::Filter;
use crate::store::Scope;
use crate::wire::outputs::{
    EdgeOut, EntityOut, ErrorOut, GraphChangeOut, ListOut, MemoryOut, NoteOut, OutputOut, StatsOut,
};
use crate::wire::{batch, inputs, Value};

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Engine parameters (all optional; defaults from abmind's recall pipeline). */
export interface EngineConfigJs {
  decayDays?: number; decayFloor?: number; emotionBoost?: number; dimensions?: number;
  similarityThreshold?: number; signatureSeed?: bigint; shortCircuitFloor?: number; mmrLambda?: number;
  calibration?: CalibrationJs; lazySignatures?: boolean;
  ranking?: "recallkit" | "abmind" | "rrf" | "composite" | "weighted"; minScore?: number;
  weights?: Record<string, number>; fusion?: Record<string, number>;
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
  asOf?: number; includeInvalid?: boolean;
  searchMode: "hybrid" | "lexical" | "semantic"; mmrLambda?: number;
  ranking?: "recallkit" | "abmind" | "rrf" | "composite" | "weighted"; minScore?: number; weights?: Record<string, number>;
  context?: {
    hour?: number; dayOfWeek?: number; topic?: string; utcOffsetMinutes?: number; label?: string; language?: string;
    activePath?: string; tags?: string[]; types?: string[]; entities?: { name: string; type?: string }[];
  };
  tags?: string[]; tagMode?: string; tagMatch?: string; excludeTags?: string[]; timeQuery?: string; sort?: string;
  queries?: string[]; autoDecompose?: boolean; priorityIds?: string[]; expandRelations?: boolean; entityHints?: string[];
  expandEntities?: boolean; relationLimit?: number; expansionLimit?: number; expandMinStrength?: number;
  expandMinImportance?: number; resolveTime?: boolean; resolvePronouns?: boolean;
}
/** Every factor of a stage Sf score. */
export interface SfComponentsJs {
  bm25: number; emotionBoost: number; recallBoost: number; relevanceBoost: number; trustFactor: number;
  credibilityFactor: number; tierBoost: number; recency: number;
}
/** One result row. */
export interface RecallHitJs {
  id: string; kind: "memory" | "note" | "edge"; stage: string; matchType: string; score: number; text: string;
  components: Record<string, number>; memory?: MemoryRecord;
  metadata?: { topic?: string; type?: string; tags: string[]; emotionTags: string[]; importance?: number; confidence?: number; createdAt: number };
  note?: { id: string; period: "daily" | "weekly" | "quarterly"; start: number; paragraph: number };
  edge?: EdgeRecord; timeline?: { id: string; createdAt: number; date: string }[]; conflicts?: string[]; warning?: string;
  dedupedFrom?: string[]; duplicateIds?: string[]; expandedFrom?: { id: string; edge: string }; expandedFromEntity?: string; relations?: string[];
}
/** What one stage did. */
export interface StageReportJs { name: string; hits: number; ms: number; skipped?: boolean; reason?: string }
/** The engine's answer to a recall. */
export interface RecallOutputJs {
  results: RecallHitJs[]; stages: StageReportJs[]; count: number; dedupRemoved: number;
  expansion?: { seedCount: number; expandedCount: number };
  entityExpansion?: { entitiesFound: string[]; expandedCount: number };
  timeWindow?: { start?: number; end?: number; source: "timeQuery" | "query" | "options" }; tags?: string[];
  query?: {
    text: string; searchText: string; resolvedFrom?: string; windowDropped?: true;
    pronouns?: { pronoun: string; entity?: string; ambiguous?: string[] }[];
  };
}
/**
 * A consolidation note; `end` defaults from the period (daily 1 day, weekly 7, quarterly 3 months).
 * `userId` absent: shared; `classification` absent: 0 (and left out when 0).
 */
export interface NoteRecord {
  id: string; period: "daily" | "weekly" | "quarterly"; start: number; end?: number; text: string;
  createdAt: number; updatedAt: number; userId?: string; classification?: number;
}
/** A named entity of the graph. */
export interface EntityRecord { name: string; type?: string; aliases?: string[]; userId?: string; classification?: number; createdAt?: number }
/** A directed, labelled edge between two entities (names are normalised). */
export interface EdgeRecord {
  id: string; from: string; relation: string; to: string; strength: number; createdAt: number; lastSeenAt: number;
  memoryIds?: string[]; userId?: string; classification?: number; validFrom?: number; validTo?: number;
}
/** An edge as `relate` takes it: the graph derives `id`; `strength` comes apart. */
export type EdgeInput = Omit<EdgeRecord, "id" | "strength"> & { id?: string; strength?: number };
/** Some of the graph's records. */
export interface GraphRecordsJs { entities: EntityRecord[]; edges: EdgeRecord[] }
/** The records graph writes touched: as they were (`before`: absent when created) and are (`after`: absent when removed). */
export interface GraphChangesJs { before: GraphRecordsJs; after: GraphRecordsJs }
/** Store statistics. */
export interface EngineStatsJs { memories: number; porterTerms: number; fuzzyTerms: number }
/**
 * What every engine call throws on bad input: its stable code (an `ErrorCode`) and the message
 * after it (`js/src/engine.ts` turns it into a `RecallError`).
 */
export interface EngineErrorJs { code: string; message: string }
/**
 * The host's end of an engine image transfer (`writeImage`, `readImage`): `put` takes each
 * piece written (a view of wasm memory, to copy before returning), `next` returns the next
 * piece to read, or `undefined` at the end.
 */
export interface ImageHost { put?(bytes: Uint8Array): void; next?(): Uint8Array | undefined }
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;

    /// An `EngineConfigJs`.
    #[wasm_bindgen(typescript_type = "EngineConfigJs")]
    pub type JsEngineConfig;
    /// A `MemoryRecord`.
    #[wasm_bindgen(typescript_type = "MemoryRecord")]
    pub type JsMemory;
    /// A `NoteRecord`.
    #[wasm_bindgen(typescript_type = "NoteRecord")]
    pub type JsNote;
    /// A `NoteRecord[]`.
    #[wasm_bindgen(typescript_type = "NoteRecord[]")]
    pub type JsNotes;
    /// An `EntityRecord`.
    #[wasm_bindgen(typescript_type = "EntityRecord")]
    pub type JsEntity;
    /// An `EntityRecord[]`.
    #[wasm_bindgen(typescript_type = "EntityRecord[]")]
    pub type JsEntities;
    /// An `EdgeRecord`.
    #[wasm_bindgen(typescript_type = "EdgeRecord")]
    pub type JsEdge;
    /// An `EdgeInput`.
    #[wasm_bindgen(typescript_type = "EdgeInput")]
    pub type JsEdgeInput;
    /// An `EdgeRecord[]`.
    #[wasm_bindgen(typescript_type = "EdgeRecord[]")]
    pub type JsEdges;
    /// A `RecallOptionsJs`.
    #[wasm_bindgen(typescript_type = "RecallOptionsJs")]
    pub type JsRecallOptions;
    /// A `RecallOutputJs`.
    #[wasm_bindgen(typescript_type = "RecallOutputJs")]
    pub type JsRecallOutput;
    /// An `EngineStatsJs`.
    #[wasm_bindgen(typescript_type = "EngineStatsJs")]
    pub type JsStats;
    /// A `GraphChangesJs`.
    #[wasm_bindgen(typescript_type = "GraphChangesJs")]
    pub type JsGraphChanges;
}

#[wasm_bindgen]
extern "C" {
    /// The host's end of an engine image transfer (`ImageHost` in `TYPES`).
    #[wasm_bindgen(typescript_type = "ImageHost")]
    pub type ImageHost;
    #[wasm_bindgen(method, catch)]
    fn put(this: &ImageHost, bytes: &[u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn next(this: &ImageHost) -> Result<Option<Vec<u8>>, JsValue>;
}

impl crate::image::Sink for &ImageHost {
    fn put(&mut self, bytes: &[u8]) -> crate::error::Result<()> {
        ImageHost::put(self, bytes)
            .map_err(|_| crate::image::corrupt("the host failed to take a piece"))
    }
}

impl crate::image::Source for &ImageHost {
    fn fill(&mut self, out: &mut Vec<u8>) -> crate::error::Result<bool> {
        match self.next() {
            Ok(Some(piece)) => {
                out.extend_from_slice(&piece);
                Ok(true)
            }
            Ok(None) => Ok(false),
            Err(_) => Err(crate::image::corrupt("the host failed to give a piece")),
        }
    }
}

/// Whether a recall's query is a trivial message ("ok", "thanks", a lone emoji: Engram's query
/// decision, [`crate::recall::trivial`]); the wrapper then answers before any stage runs and
/// before the host's `embed` is called.
#[wasm_bindgen(js_name = isTrivial)]
pub fn is_trivial(query: &str) -> bool {
    crate::recall::trivial::is_trivial(query)
}

/// Random bytes drawn at once and handed out 16 at a time: one `crypto.getRandomValues` call
/// serves 256 ids (a call per id cost about as much as the rest of a small write).
const RANDOM_POOL_BYTES: usize = 4096;

thread_local! {
    /// Bytes drawn by getrandom and not handed out yet (taken from the end).
    static RANDOM_POOL: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A fresh random id for a memory or a note: a version 4 UUID (RFC 9562, lowercase), from
/// `crypto.getRandomValues` (getrandom's `js` backend).
#[wasm_bindgen(js_name = randomId)]
pub fn random_id() -> Result<String, JsValue> {
    let mut b = [0u8; 16];
    RANDOM_POOL.with(|pool| -> Result<(), JsValue> {
        let mut pool = pool.borrow_mut();
        if pool.len() < b.len() {
            pool.resize(RANDOM_POOL_BYTES, 0);
            getrandom::getrandom(&mut pool).map_err(|e| {
                // getrandom's own messages cover every platform (its `Display` would bring them
                // all into the package); these are the two of its `js` backend.
                let why = match e {
                    getrandom::Error::WEB_CRYPTO => "crypto.getRandomValues is unavailable".into(),
                    getrandom::Error::WEB_GET_RANDOM_VALUES => {
                        "crypto.getRandomValues failed".into()
                    }
                    _ => format!("getrandom error {}", e.code()),
                };
                let error = ErrorOut {
                    code: "internal",
                    message: format!("no source of randomness: {why}"),
                };
                serde_wasm_bindgen::to_value(&error).unwrap_or_else(|e| e.into())
            })?;
        }
        let at = pool.len() - b.len();
        b.copy_from_slice(&pool[at..]);
        pool.truncate(at);
        Ok(())
    })?;
    b[6] = (b[6] & 0x0f) | 0x40; // version 4
    b[8] = (b[8] & 0x3f) | 0x80; // variant 10
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            id.push('-');
        }
        id.push(HEX[usize::from(byte >> 4)] as char);
        id.push(HEX[usize::from(byte & 0xf)] as char);
    }
    Ok(id)
}

/// A recall engine living in wasm memory. The JavaScript wrapper owns it and calls `free()`.
#[wasm_bindgen]
pub struct Engine {
    inner: engine::Engine,
    /// Memories read by `stageMany`, which the next `insertMany` with `staged` adds.
    staged: Batch,
}

#[wasm_bindgen]
impl Engine {
    /// Creates an empty engine from an `EngineConfigJs`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsEngineConfig) -> Result<Engine, JsValue> {
        let config = config_from(config)?;
        let inner = engine::Engine::new(config).map_err(to_js)?;
        Ok(Engine {
            inner,
            staged: Batch::default(),
        })
    }

    /// An engine from an `EngineConfigJs` whose records and indexes are read from an image
    /// (`Engine::read_image`), piece by piece from `host.next()`; `corrupt` when the image
    /// cannot be used.
    #[wasm_bindgen(js_name = readImage)]
    pub fn read_image(config: JsEngineConfig, host: &ImageHost) -> Result<Engine, JsValue> {
        let config = config_from(config)?;
        let inner = engine::Engine::read_image(config, &mut { host }).map_err(to_js)?;
        Ok(Engine {
            inner,
            staged: Batch::default(),
        })
    }

    /// Writes the engine's image (`Engine::write_image`), piece by piece to `host.put()`.
    #[wasm_bindgen(js_name = writeImage)]
    pub fn write_image(&self, host: &ImageHost) -> Result<(), JsValue> {
        self.inner.write_image(&mut { host }).map_err(to_js)
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

    /// Sets the embedding dimension back (after an undone write); only while no vector is stored.
    #[wasm_bindgen(js_name = resetDimensions)]
    pub fn reset_dimensions(&mut self, dims: Option<usize>) -> Result<(), JsValue> {
        self.inner.reset_dims(dims).map_err(to_js)
    }

    /// Adds one memory, with its embedding if any.
    pub fn insert(
        &mut self,
        memory: JsMemory,
        embedding: Option<Float32Array>,
    ) -> Result<(), JsValue> {
        let memory = memory_from(memory)?;
        let embedding = embedding.map(|e| e.to_vec());
        self.inner
            .insert(memory, embedding.as_deref())
            .map_err(to_js)
    }

    /// Reads memories for the next `insertMany`, which adds them before its own when called
    /// with `staged`; `first` drops what an interrupted sequence left and makes room for `total`
    /// memories, the size of the whole batch. Sending a large batch in
    /// chunks this way keeps one chunk's wire bytes in wasm memory at a time instead of the
    /// whole batch's (wasm memory never shrinks, so that peak stays). Validation waits for
    /// `insertMany`, so errors name the item's position in the whole batch.
    #[wasm_bindgen(js_name = stageMany)]
    pub fn stage_many(
        &mut self,
        memories: &[u8],
        first: bool,
        total: usize,
    ) -> Result<(), JsValue> {
        if first {
            self.staged = Batch::with_capacity(total);
        }
        batch::memories_into(memories, &mut self.staged).map_err(|e| {
            self.staged = Batch::default();
            to_js(e)
        })
    }

    /// Adds every memory of the batch (after the staged ones when `staged`), or none.
    /// `vectors` holds, row after row, the embeddings of the items whose `has_embedding`
    /// byte is 1.
    #[wasm_bindgen(js_name = insertMany)]
    pub fn insert_many(
        &mut self,
        memories: &[u8],
        vectors: &Float32Array,
        has_embedding: &Uint8Array,
        staged: bool,
    ) -> Result<(), JsValue> {
        // Staged memories are taken either way, so none outlive this call.
        let mut batch = std::mem::take(&mut self.staged);
        if !staged {
            batch = Batch::default();
        }
        batch::memories_into(memories, &mut batch).map_err(to_js)?;
        let memories = batch;
        let has_embedding = has_embedding.to_vec();
        let rows = has_embedding.iter().filter(|&&b| b != 0).count();
        if rows == 0 {
            return self.inner.insert_batch(memories, &[]).map_err(to_js);
        }
        let vectors = vectors.to_vec();
        if has_embedding.len() != memories.len() || vectors.len() % rows != 0 {
            return Err(to_js(crate::Error::InvalidArgument(
                "embeddings do not match the memories".into(),
            )));
        }
        let dims = vectors.len() / rows;
        let mut chunks = vectors.chunks_exact(dims.max(1));
        let embeddings: Vec<Option<&[f32]>> = has_embedding
            .iter()
            .map(|&b| if b != 0 { chunks.next() } else { None })
            .collect();
        self.inner
            .insert_batch(memories, &embeddings)
            .map_err(to_js)
    }

    /// The stored embedding of a memory.
    ///
    /// Returned as a `Vec`, which crosses as a pointer and a length that the glue copies into a
    /// `Float32Array`, not as a `Float32Array` built here: an export returning one `externref`
    /// crashes Node 20 (V8 11.3 inlines the call into optimised JavaScript, and a lazy
    /// deoptimisation while it runs, such as a collection changing an allocation site, hits
    /// an unreachable case of the deoptimiser). A test keeps every export off that shape.
    pub fn embedding(&self, id: &str) -> Option<Vec<f32>> {
        self.inner.embedding(id).map(<[f32]>::to_vec)
    }

    /// The 32-byte signature of a memory (a `Vec` for the reason given at [`Engine::embedding`]).
    pub fn signature(&self, id: &str) -> Option<Vec<u8>> {
        self.inner.signature(id).map(|s| s.to_bytes().to_vec())
    }

    /// The memory with this id, or undefined.
    pub fn get(&self, id: &str) -> Result<Option<JsMemory>, JsValue> {
        match self.inner.get(id) {
            Some(m) => out(&MemoryOut(&m)).map(Some),
            None => Ok(None),
        }
    }

    /// Every live id, in insertion order.
    pub fn ids(&self) -> Vec<String> {
        self.inner.ids().map(str::to_owned).collect()
    }

    /// Replaces the stored memory with the same id. `embedding` is stored when given;
    /// otherwise `remove_embedding` says whether the old one is dropped.
    pub fn replace(
        &mut self,
        memory: JsMemory,
        embedding: Option<Float32Array>,
        remove_embedding: bool,
    ) -> Result<(), JsValue> {
        let memory = memory_from(memory)?;
        let embedding = embedding.map(|e| e.to_vec());
        let update = match (&embedding, remove_embedding) {
            (Some(e), _) => EmbeddingUpdate::Set(e),
            (None, true) => EmbeddingUpdate::Remove,
            (None, false) => EmbeddingUpdate::Keep,
        };
        self.inner.replace(memory, update).map_err(to_js)
    }

    /// Removes a memory and returns it.
    pub fn remove(&mut self, id: &str) -> Result<JsMemory, JsValue> {
        let memory = self.inner.remove(id).map_err(to_js)?;
        out(&MemoryOut(&memory))
    }

    /// Checks a recall's query and `RecallOptionsJs` as `beginRecall` would, running no stage
    /// (for a trivial message, answered without any).
    #[wasm_bindgen(js_name = checkRecall)]
    pub fn check_recall(&self, query: &str, options: JsRecallOptions) -> Result<(), JsValue> {
        let options = recall_options_from(options)?;
        self.inner.check_recall(query, options).map_err(to_js)
    }

    /// Phase 1 of a recall: validates options and runs stage Sf.
    #[wasm_bindgen(js_name = beginRecall)]
    pub fn begin_recall(
        &mut self,
        query: &str,
        options: JsRecallOptions,
    ) -> Result<PendingRecall, JsValue> {
        let options = recall_options_from(options)?;
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
        embedding: Option<Float32Array>,
        se_skip_reason: Option<String>,
    ) -> Result<JsRecallOutput, JsValue> {
        let embedding = embedding.map(|e| e.to_vec());
        let output = self
            .inner
            .finish_recall(
                pending.inner,
                embedding.as_deref(),
                se_skip_reason.as_deref(),
                &performance_now,
            )
            .map_err(to_js)?;
        out(&OutputOut(&output))
    }

    /// Phase 2 for a host with a reranker: the other stages and the ranking, keeping the best
    /// 30 candidates (or `limit`) for `finishRerank`. Consumes `pending`.
    #[wasm_bindgen(js_name = rankForRerank)]
    pub fn rank_for_rerank(
        &mut self,
        pending: PendingRecall,
        embedding: Option<Float32Array>,
        se_skip_reason: Option<String>,
    ) -> Result<PendingRerank, JsValue> {
        let embedding = embedding.map(|e| e.to_vec());
        let inner = self
            .inner
            .rank_for_rerank(
                pending.inner,
                embedding.as_deref(),
                se_skip_reason.as_deref(),
                &performance_now,
            )
            .map_err(to_js)?;
        Ok(PendingRerank { inner })
    }

    /// Phase 3: orders `pending` by the reranker's `scores` (or keeps the fused order for
    /// `reason` when there are none), cuts to the limit and tracks. Consumes `pending`.
    #[wasm_bindgen(js_name = finishRerank)]
    pub fn finish_rerank(
        &mut self,
        pending: PendingRerank,
        scores: Option<Vec<f64>>,
        reason: Option<String>,
        ms: f64,
    ) -> Result<JsRecallOutput, JsValue> {
        let output = self
            .inner
            .finish_rerank(pending.inner, scores.as_deref(), reason.as_deref(), ms)
            .map_err(to_js)?;
        out(&OutputOut(&output))
    }

    /// Adds a note.
    #[wasm_bindgen(js_name = addNote)]
    pub fn add_note(&mut self, note: JsNote) -> Result<(), JsValue> {
        let note = note_from(note)?;
        self.inner.add_note(note).map_err(to_js)
    }

    /// Replaces the note with the same id.
    #[wasm_bindgen(js_name = replaceNote)]
    pub fn replace_note(&mut self, note: JsNote) -> Result<(), JsValue> {
        let note = note_from(note)?;
        self.inner.replace_note(note).map_err(to_js)
    }

    /// Removes a note and returns it.
    #[wasm_bindgen(js_name = removeNote)]
    pub fn remove_note(&mut self, id: &str) -> Result<JsNote, JsValue> {
        let note = self.inner.remove_note(id).map_err(to_js)?;
        out(&NoteOut(&note))
    }

    /// The note with this id, or undefined.
    pub fn note(&self, id: &str) -> Result<Option<JsNote>, JsValue> {
        match self.inner.note(id) {
            Some(n) => out(&NoteOut(n)).map(Some),
            None => Ok(None),
        }
    }

    /// Every note; with a user or a ceiling, the notes that scope sees.
    pub fn notes(
        &self,
        user_id: Option<String>,
        max_classification: Option<f64>,
    ) -> Result<JsNotes, JsValue> {
        let filter = scope(&user_id, max_classification);
        let notes: Vec<_> = self.inner.visible_notes(&filter).collect();
        out(&ListOut(&notes, |n| NoteOut(n)))
    }

    /// Adds an entity or merges it into the one with the same name.
    #[wasm_bindgen(js_name = addEntity)]
    pub fn add_entity(&mut self, entity: JsEntity) -> Result<(), JsValue> {
        let entity = inputs::entity_from(value(entity.into())?).map_err(to_js)?;
        self.inner.add_entity(entity).map_err(to_js)
    }

    /// Stores a whole entity record, replacing the one with its name and keeping its edges.
    #[wasm_bindgen(js_name = putEntity)]
    pub fn put_entity(&mut self, entity: JsEntity) -> Result<(), JsValue> {
        let entity = inputs::entity_from(value(entity.into())?).map_err(to_js)?;
        self.inner.put_entity(entity).map_err(to_js)
    }

    /// Removes the entity named `name` (not by alias) and its edges; returns whether there
    /// was one.
    #[wasm_bindgen(js_name = dropEntity)]
    pub fn drop_entity(&mut self, name: &str) -> bool {
        self.inner.drop_entity(name)
    }

    /// Removes the edge with this id; returns whether there was one.
    #[wasm_bindgen(js_name = removeEdge)]
    pub fn remove_edge(&mut self, id: &str) -> bool {
        self.inner.remove_edge(id)
    }

    /// Removes an entity and its edges (only `user_id`'s entity, when given); returns it.
    #[wasm_bindgen(js_name = removeEntity)]
    pub fn remove_entity(
        &mut self,
        name: &str,
        user_id: Option<String>,
    ) -> Result<JsEntity, JsValue> {
        let entity = self
            .inner
            .remove_entity(name, user_id.as_deref())
            .map_err(to_js)?;
        out(&EntityOut(&entity))
    }

    /// Starts noting the graph records that writes touch (`graphChanges` ends it), so that a
    /// store persists a graph write as what it changed.
    #[wasm_bindgen(js_name = trackGraphChanges)]
    pub fn track_graph_changes(&mut self) {
        self.inner.track_graph_changes();
    }

    /// The entities and edges the graph writes since `trackGraphChanges` touched, as they were
    /// before and as they are now (`GraphChangesJs`); stops noting.
    #[wasm_bindgen(js_name = graphChanges)]
    pub fn graph_changes(&mut self) -> Result<JsGraphChanges, JsValue> {
        out(&GraphChangeOut(&self.inner.graph_changes()))
    }

    /// Every entity; with a user or a ceiling, the entities that scope sees.
    pub fn entities(
        &self,
        user_id: Option<String>,
        max_classification: Option<f64>,
    ) -> Result<JsEntities, JsValue> {
        let filter = scope(&user_id, max_classification);
        let entities: Vec<_> = self.inner.visible_entities(&filter).collect();
        out(&ListOut(&entities, |e| EntityOut(e)))
    }

    /// Every edge as stored; with a user or a ceiling, the edges that scope sees, their
    /// `memoryIds` cut to the memories it sees.
    pub fn edges(
        &self,
        user_id: Option<String>,
        max_classification: Option<f64>,
    ) -> Result<JsEdges, JsValue> {
        let filter = scope(&user_id, max_classification);
        let edges: Vec<_> = self
            .inner
            .graph()
            .visible_edges(filter.scope())
            .cloned()
            .collect();
        let edges: Vec<_> = if filter.scope() == Scope::ALL {
            edges
        } else {
            edges
                .iter()
                .map(|e| self.inner.edge_for(e, &filter))
                .collect()
        };
        out(&ListOut(&edges, EdgeOut))
    }

    /// Relates two entities; returns the edge. `relation` is an `EdgeRecord` naming the
    /// endpoints, the relation, the memory ids and the writer (`userId`); `strength` and
    /// `classification` come apart, since leaving them out keeps an existing edge's.
    pub fn relate(
        &mut self,
        relation: JsEdgeInput,
        strength: Option<f64>,
        classification: Option<f64>,
        now: f64,
    ) -> Result<JsEdge, JsValue> {
        let e = edge_from(relation.unchecked_into())?;
        let relation = Relation {
            from: e.from,
            relation: e.relation,
            to: e.to,
            strength,
            memory_ids: e.memory_ids,
            user_id: e.user_id,
            // An integer the wrapper checked.
            classification: classification.map(|c| c as i64),
            valid_from: e.valid_from,
            valid_to: e.valid_to,
        };
        let edge = self.inner.relate(&relation, now).map_err(to_js)?;
        out(&EdgeOut(&edge))
    }

    /// Stores a whole edge record.
    #[wasm_bindgen(js_name = upsertEdge)]
    pub fn upsert_edge(&mut self, edge: JsEdge) -> Result<JsEdge, JsValue> {
        let edge = edge_from(edge)?;
        let edge = self.inner.upsert_edge(edge).map_err(to_js)?;
        out(&EdgeOut(&edge))
    }

    /// Removes edges (only `user_id`'s, when given); returns how many.
    pub fn unrelate(
        &mut self,
        from: &str,
        relation: Option<String>,
        to: &str,
        user_id: Option<String>,
    ) -> Result<usize, JsValue> {
        self.inner
            .unrelate(from, relation.as_deref(), to, user_id.as_deref())
            .map_err(to_js)
    }

    /// Counts of memories and index terms (`EngineStatsJs`).
    pub fn stats(&self) -> Result<JsStats, JsValue> {
        out(&StatsOut(self.inner.stats()))
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

    /// The query texts that want the host's vectors, in order.
    pub fn texts(&self) -> Vec<String> {
        self.inner.texts().iter().map(ToString::to_string).collect()
    }
}

/// A ranked recall waiting for the host's reranker (see `Engine.rankForRerank`).
#[wasm_bindgen]
pub struct PendingRerank {
    inner: engine::Ranked,
}

#[wasm_bindgen]
impl PendingRerank {
    /// The candidates' texts in fused order.
    pub fn texts(&self) -> Vec<String> {
        self.inner.texts().iter().map(ToString::to_string).collect()
    }
}

/// An engine error as the `EngineErrorJs` the wrapper reads.
fn to_js(e: crate::Error) -> JsValue {
    serde_wasm_bindgen::to_value(&ErrorOut::from(&e))
        .unwrap_or_else(|_| JsError::new(&e.to_string()).into())
}

/// The [`Value`] tree of a JavaScript value (read by `from_js`); one too deeply nested (or
/// cyclic), or not JSON-like, is `invalid_argument`.
fn value(js: JsValue) -> Result<Value, JsValue> {
    <Value as serde::Deserialize>::deserialize(from_js::JsDe(js)).map_err(|e| {
        let reason = e.to_string();
        let reason = reason.strip_prefix("Error: ").unwrap_or(&reason);
        to_js(crate::Error::InvalidArgument(reason.to_string()))
    })
}

/// `value` as a JavaScript value of the TypeScript type `T` declares.
fn out<T: JsCast>(value: &impl Serialize) -> Result<T, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::new())
        .map(JsCast::unchecked_into)
        .map_err(JsValue::from)
}

fn config_from(config: JsEngineConfig) -> Result<crate::engine::EngineConfig, JsValue> {
    inputs::config_from(value(config.into())?).map_err(to_js)
}

fn memory_from(memory: JsMemory) -> Result<crate::store::Memory, JsValue> {
    inputs::memory_from(value(memory.into())?).map_err(to_js)
}

fn note_from(note: JsNote) -> Result<crate::notes::Note, JsValue> {
    inputs::note_from(value(note.into())?).map_err(to_js)
}

fn edge_from(edge: JsEdge) -> Result<crate::graph::Edge, JsValue> {
    inputs::edge_from(value(edge.into())?).map_err(to_js)
}

fn recall_options_from(options: JsRecallOptions) -> Result<engine::RecallOptions, JsValue> {
    inputs::recall_options_from(value(options.into())?).map_err(to_js)
}

/// The filter of a listing for `user_id` below `max_classification` (an integer the wrapper
/// checked; a ceiling beyond `i64` saturates, which keeps its meaning); with neither, the
/// whole store.
fn scope(user_id: &Option<String>, max_classification: Option<f64>) -> Filter {
    let max_classification = max_classification.map(|m| m as i64);
    Filter::for_scope(Scope::new(user_id.as_deref(), max_classification))
}

/// A JavaScript value as a serde `Deserializer` for [`Value`], read the way
/// `serde_wasm_bindgen::Deserializer::deserialize_any` reads one, with its messages.
///
/// Why not that deserializer itself: every one of its type-checking methods, `deserialize_any`
/// included, ends in an `invalid_type` whose `Unexpected` can be a float, which links Rust's
/// float printing (Grisu and Dragon, about 19 KB of wasm) for a message no JSON-like value
/// reaches. Here nothing formats an `f64` with Rust: a number that is not a JSON-like value
/// (a `Map` key) is printed by JavaScript, in the digits Rust would print.
mod from_js {
    use js_sys::{Array, ArrayBuffer, Map, Number, Object, Symbol, Uint8Array};
    use serde::de::{self, Expected};
    use serde_wasm_bindgen::Error;
    use wasm_bindgen::{JsCast, JsValue};

    /// One JavaScript value to deserialize.
    pub struct JsDe(pub JsValue);

    type Result<T> = std::result::Result<T, Error>;

    /// serde's `invalid type: …, expected …`, with `unexpected` already worded.
    fn invalid_type(unexpected: &str, expected: &dyn Expected) -> Error {
        Error::new(format_args!(
            "invalid type: {unexpected}, expected {expected}"
        ))
    }

    /// How serde's `Unexpected` words a value that is not a string (for a `Map` key), as
    /// serde-wasm-bindgen picks it.
    fn unexpected(v: &JsValue) -> String {
        if v.loose_eq(&JsValue::NULL) {
            "unit value".to_owned()
        } else if let Some(b) = v.as_bool() {
            format!("boolean `{b}`")
        } else if let Some(f) = v.as_f64() {
            format!("floating point `{}`", float(f))
        } else if v.is_instance_of::<Uint8Array>() || v.is_instance_of::<ArrayBuffer>() {
            "byte array".to_owned()
        } else {
            format!("{v:?}")
        }
    }

    /// `f64` as serde's `WithDecimalPoint` prints it (Rust's shortest round-trip digits, never
    /// an exponent, `.0` when there is no point), from JavaScript's digits.
    fn float(f: f64) -> String {
        if f.is_nan() {
            return "NaN".to_owned();
        }
        if f.is_infinite() {
            return if f > 0.0 { "inf" } else { "-inf" }.to_owned();
        }
        if f == 0.0 {
            return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
        }
        let js: String = Number::from(f)
            .to_string_with_radix(10)
            .map(String::from)
            .unwrap_or_default();
        // One pass over JavaScript's digits ("-1.25e-7"): the sign, the digits without the
        // point, where the point sits in them (`point`) and the exponent, which moves it.
        let mut out = String::new();
        let mut digits = Vec::new();
        let (mut point, mut exp, mut seen_point, mut in_exp, mut exp_sign) =
            (0, 0, false, false, 1);
        for c in js.bytes() {
            match c {
                b'-' if in_exp => exp_sign = -1,
                b'-' => out.push('-'),
                b'e' => in_exp = true,
                b'.' => seen_point = true,
                b'+' => {}
                d if in_exp => exp = exp * 10 + i32::from(d - b'0'),
                d => {
                    digits.push(d);
                    point += i32::from(!seen_point);
                }
            }
        }
        point += exp_sign * exp;
        let n = digits.len() as i32;
        if point <= 0 {
            out.push('0');
        }
        // Zeros before the digits (`point` < 0) or after them (`point` > n), the point in
        // between or before them; `.0` when it falls after them.
        for i in point.min(0)..point.max(n) {
            if i == point {
                out.push('.');
            }
            out.push(if (0..n).contains(&i) {
                char::from(digits[i as usize])
            } else {
                '0'
            });
        }
        if point >= n {
            out.push_str(".0");
        }
        out
    }

    impl<'de> de::Deserializer<'de> for JsDe {
        type Error = Error;

        fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            let v = self.0;
            if v.loose_eq(&JsValue::NULL) {
                visitor.visit_unit()
            } else if let Some(b) = v.as_bool() {
                visitor.visit_bool(b)
            } else if v.is_bigint() {
                match i64::try_from(v) {
                    Ok(i) => visitor.visit_i64(i),
                    Err(v) => match u64::try_from(v) {
                        Ok(u) => visitor.visit_u64(u),
                        Err(_) => Err(de::Error::custom(
                            "Couldn't deserialize i64 or u64 from a BigInt outside i64::MIN..u64::MAX bounds",
                        )),
                    },
                }
            } else if let Some(f) = v.as_f64() {
                if Number::is_safe_integer(&v) {
                    visitor.visit_i64(f as i64)
                } else {
                    visitor.visit_f64(f)
                }
            } else if let Some(s) = v.as_string() {
                visitor.visit_string(s)
            } else if let Some(array) = v.dyn_ref::<Array>() {
                visitor.visit_seq(Items { array, at: 0 })
            } else if v.is_instance_of::<Uint8Array>() || v.is_instance_of::<ArrayBuffer>() {
                Err(invalid_type("byte array", &visitor))
            } else if v.is_object() && (!Symbol::iterator().js_in(&v) || v.has_type::<Map>()) {
                match js_sys::try_iter(&v)? {
                    Some(iter) => visitor.visit_map(Entries::Iter { iter, value: None }),
                    None => {
                        let entries = Object::entries(v.unchecked_ref());
                        visitor.visit_map(Entries::Object {
                            entries,
                            at: 0,
                            value: None,
                        })
                    }
                }
            } else {
                Err(invalid_type(&format!("{v:?}"), &visitor))
            }
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map struct enum identifier ignored_any
        }
    }

    /// An array's items, in order.
    struct Items<'a> {
        array: &'a Array,
        at: u32,
    }

    impl<'de> de::SeqAccess<'de> for Items<'_> {
        type Error = Error;

        fn next_element_seed<T: de::DeserializeSeed<'de>>(
            &mut self,
            seed: T,
        ) -> Result<Option<T::Value>> {
            if self.at >= self.array.length() {
                return Ok(None);
            }
            let item = self.array.get(self.at);
            self.at += 1;
            seed.deserialize(JsDe(item)).map(Some)
        }
    }

    /// An object's entries (`Object.entries`), or a `Map`'s `[key, value]` pairs.
    enum Entries {
        Object {
            entries: Array,
            at: u32,
            value: Option<JsValue>,
        },
        Iter {
            iter: js_sys::IntoIter,
            value: Option<JsValue>,
        },
    }

    impl<'de> de::MapAccess<'de> for Entries {
        type Error = Error;

        fn next_key_seed<K: de::DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>> {
            let (pair, value) = match self {
                Entries::Object { entries, at, value } => {
                    if *at >= entries.length() {
                        return Ok(None);
                    }
                    *at += 1;
                    (entries.get(*at - 1), value)
                }
                Entries::Iter { iter, value } => match iter.next().transpose()? {
                    Some(pair) => (pair, value),
                    None => return Ok(None),
                },
            };
            let pair = pair.unchecked_into::<Array>();
            *value = Some(pair.get(1));
            let key = pair.get(0);
            match key.as_string() {
                Some(key) => seed
                    .deserialize(de::IntoDeserializer::into_deserializer(key))
                    .map(Some),
                None => Err(invalid_type(&unexpected(&key), &"a string")),
            }
        }

        fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
            let (Entries::Object { value, .. } | Entries::Iter { value, .. }) = self;
            seed.deserialize(JsDe(value.take().unwrap_or(JsValue::UNDEFINED)))
        }
    }
}
