//! The WebAssembly boundary: the only module that names `wasm_bindgen`. Each export delegates
//! to [`crate::engine::Engine`] in a few lines.
//!
//! Records, options and results cross as bytes in the wire format of [`crate::wire`]
//! (`js/src/wire.ts` writes and reads them on the other side), embeddings as `Float32Array`s.
//! Numbers travel as their bits, so neither side converts them to or from decimal text, and
//! the wasm carries neither serde nor float formatting tables.
//!
//! Invariants:
//! - Every fallible export returns `Result<_, JsError>` whose message starts with a stable
//!   code (`invalid_argument: …`); `js/src/errors.ts` parses it into `RecallError`.
//! - No `unwrap`/`expect` here: a panic would abort the whole module.
//! - Shapes crossing the boundary are declared once, in the `TYPES` section below; the
//!   exports take and return them as wire bytes (`js/src/engine.ts` types them).
//! - `stageMany` holds memories only until the next `insertMany`, which takes them whether it
//!   adds them (`staged`) or not.

use wasm_bindgen::prelude::*;

use crate::engine::{self, Batch, EmbeddingUpdate};
use crate::graph::Relation;
use crate::recall::filter::Filter;
use crate::store::Scope;
use crate::wire::{shapes, Writer};

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
/** Store statistics. */
export interface EngineStatsJs { memories: number; porterTerms: number; fuzzyTerms: number }
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

#[wasm_bindgen]
extern "C" {
    /// The host's end of an engine image transfer (`writeImage`, `readImage`): `put` takes
    /// each piece written (a view of wasm memory, to copy before returning), `next` returns
    /// the next piece to read, or `undefined` at the end.
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
    pub fn new(config: &[u8]) -> Result<Engine, JsError> {
        let config = shapes::config_from(config).map_err(to_js)?;
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
    pub fn read_image(config: &[u8], host: &ImageHost) -> Result<Engine, JsError> {
        let config = shapes::config_from(config).map_err(to_js)?;
        let inner = engine::Engine::read_image(config, &mut { host }).map_err(to_js)?;
        Ok(Engine {
            inner,
            staged: Batch::default(),
        })
    }

    /// Writes the engine's image (`Engine::write_image`), piece by piece to `host.put()`.
    #[wasm_bindgen(js_name = writeImage)]
    pub fn write_image(&self, host: &ImageHost) -> Result<(), JsError> {
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
    pub fn reset_dimensions(&mut self, dims: Option<usize>) -> Result<(), JsError> {
        self.inner.reset_dims(dims).map_err(to_js)
    }

    /// Adds one memory, with its embedding if any.
    pub fn insert(&mut self, memory: &[u8], embedding: Option<Vec<f32>>) -> Result<(), JsError> {
        let memory = shapes::memory_from(memory).map_err(to_js)?;
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
    ) -> Result<(), JsError> {
        if first {
            self.staged = Batch::with_capacity(total);
        }
        shapes::memories_into(memories, &mut self.staged).map_err(|e| {
            self.staged = Batch::default();
            to_js(e)
        })
    }

    /// Adds every memory of the array (after the staged ones when `staged`), or none.
    /// `vectors` holds, row after row, the embeddings of the items whose `has_embedding`
    /// byte is 1.
    #[wasm_bindgen(js_name = insertMany)]
    pub fn insert_many(
        &mut self,
        memories: &[u8],
        vectors: &[f32],
        has_embedding: &[u8],
        staged: bool,
    ) -> Result<(), JsError> {
        // Staged memories are taken either way, so none outlive this call.
        let mut batch = std::mem::take(&mut self.staged);
        if !staged {
            batch = Batch::default();
        }
        shapes::memories_into(memories, &mut batch).map_err(to_js)?;
        let memories = batch;
        let rows = has_embedding.iter().filter(|&&b| b != 0).count();
        if rows == 0 {
            return self.inner.insert_batch(memories, &[]).map_err(to_js);
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
        self.inner
            .insert_batch(memories, &embeddings)
            .map_err(to_js)
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
    pub fn get(&self, id: &str) -> Option<Vec<u8>> {
        self.inner
            .get(id)
            .map(|m| write(|w| shapes::write_memory(w, &m)))
    }

    /// Every live id, in insertion order.
    pub fn ids(&self) -> Vec<u8> {
        let ids: Vec<&str> = self.inner.ids().collect();
        write(|w| w.strs(&ids))
    }

    /// Replaces the stored memory with the same id. `embedding` is stored when given;
    /// otherwise `remove_embedding` says whether the old one is dropped.
    pub fn replace(
        &mut self,
        memory: &[u8],
        embedding: Option<Vec<f32>>,
        remove_embedding: bool,
    ) -> Result<(), JsError> {
        let memory = shapes::memory_from(memory).map_err(to_js)?;
        let update = match (&embedding, remove_embedding) {
            (Some(e), _) => EmbeddingUpdate::Set(e),
            (None, true) => EmbeddingUpdate::Remove,
            (None, false) => EmbeddingUpdate::Keep,
        };
        self.inner.replace(memory, update).map_err(to_js)
    }

    /// Removes a memory and returns it.
    pub fn remove(&mut self, id: &str) -> Result<Vec<u8>, JsError> {
        let memory = self.inner.remove(id).map_err(to_js)?;
        Ok(write(|w| shapes::write_memory(w, &memory)))
    }

    /// Phase 1 of a recall: validates options and runs stage Sf.
    /// Checks a recall's query and `RecallOptionsJs` as `beginRecall` would, running no stage
    /// (for a trivial message, answered without any).
    #[wasm_bindgen(js_name = checkRecall)]
    pub fn check_recall(&self, query: &str, options: &[u8]) -> Result<(), JsError> {
        let options = shapes::recall_options_from(options).map_err(to_js)?;
        self.inner.check_recall(query, options).map_err(to_js)
    }

    #[wasm_bindgen(js_name = beginRecall)]
    pub fn begin_recall(&mut self, query: &str, options: &[u8]) -> Result<PendingRecall, JsError> {
        let options = shapes::recall_options_from(options).map_err(to_js)?;
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
    ) -> Result<Vec<u8>, JsError> {
        let output = self
            .inner
            .finish_recall(
                pending.inner,
                embedding.as_deref(),
                se_skip_reason.as_deref(),
                &performance_now,
            )
            .map_err(to_js)?;
        Ok(write(|w| shapes::write_output(w, &output)))
    }

    /// Phase 2 for a host with a reranker: the other stages and the ranking, keeping the best
    /// 30 candidates (or `limit`) for `finishRerank`. Consumes `pending`.
    #[wasm_bindgen(js_name = rankForRerank)]
    pub fn rank_for_rerank(
        &mut self,
        pending: PendingRecall,
        embedding: Option<Vec<f32>>,
        se_skip_reason: Option<String>,
    ) -> Result<PendingRerank, JsError> {
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
    ) -> Result<Vec<u8>, JsError> {
        let output = self
            .inner
            .finish_rerank(pending.inner, scores.as_deref(), reason.as_deref(), ms)
            .map_err(to_js)?;
        Ok(write(|w| shapes::write_output(w, &output)))
    }

    /// Adds a note.
    #[wasm_bindgen(js_name = addNote)]
    pub fn add_note(&mut self, note: &[u8]) -> Result<(), JsError> {
        let note = shapes::note_from(note).map_err(to_js)?;
        self.inner.add_note(note).map_err(to_js)
    }

    /// Replaces the note with the same id.
    #[wasm_bindgen(js_name = replaceNote)]
    pub fn replace_note(&mut self, note: &[u8]) -> Result<(), JsError> {
        let note = shapes::note_from(note).map_err(to_js)?;
        self.inner.replace_note(note).map_err(to_js)
    }

    /// Removes a note and returns it.
    #[wasm_bindgen(js_name = removeNote)]
    pub fn remove_note(&mut self, id: &str) -> Result<Vec<u8>, JsError> {
        let note = self.inner.remove_note(id).map_err(to_js)?;
        Ok(write(|w| shapes::write_note(w, &note)))
    }

    /// The note with this id, or undefined.
    pub fn note(&self, id: &str) -> Option<Vec<u8>> {
        self.inner
            .note(id)
            .map(|n| write(|w| shapes::write_note(w, n)))
    }

    /// Every note; with a user or a ceiling, the notes that scope sees.
    pub fn notes(&self, user_id: Option<String>, max_classification: Option<f64>) -> Vec<u8> {
        let filter = scope(&user_id, max_classification);
        write_list(self.inner.visible_notes(&filter), shapes::write_note)
    }

    /// Adds an entity or merges it into the one with the same name.
    #[wasm_bindgen(js_name = addEntity)]
    pub fn add_entity(&mut self, entity: &[u8]) -> Result<(), JsError> {
        let entity = shapes::entity_from(entity).map_err(to_js)?;
        self.inner.add_entity(entity).map_err(to_js)
    }

    /// Removes an entity and its edges (only `user_id`'s entity, when given); returns it.
    #[wasm_bindgen(js_name = removeEntity)]
    pub fn remove_entity(
        &mut self,
        name: &str,
        user_id: Option<String>,
    ) -> Result<Vec<u8>, JsError> {
        let entity = self
            .inner
            .remove_entity(name, user_id.as_deref())
            .map_err(to_js)?;
        Ok(write(|w| shapes::write_entity(w, &entity)))
    }

    /// Every entity; with a user or a ceiling, the entities that scope sees.
    pub fn entities(&self, user_id: Option<String>, max_classification: Option<f64>) -> Vec<u8> {
        let filter = scope(&user_id, max_classification);
        write_list(self.inner.visible_entities(&filter), shapes::write_entity)
    }

    /// Every edge as stored; with a user or a ceiling, the edges that scope sees, their
    /// `memoryIds` cut to the memories it sees.
    pub fn edges(&self, user_id: Option<String>, max_classification: Option<f64>) -> Vec<u8> {
        let filter = scope(&user_id, max_classification);
        let as_stored = filter.scope() == Scope::ALL;
        write(|w| {
            w.begin_arr();
            for e in self.inner.graph().visible_edges(filter.scope()) {
                if as_stored {
                    shapes::write_edge(w, e);
                } else {
                    shapes::write_edge(w, &self.inner.edge_for(e, &filter));
                }
            }
            w.end();
        })
    }

    /// Relates two entities; returns the edge. `relation` is an `EdgeRecord` naming the
    /// endpoints, the relation, the memory ids and the writer (`userId`); `strength` and
    /// `classification` come apart, since leaving them out keeps an existing edge's.
    pub fn relate(
        &mut self,
        relation: &[u8],
        strength: Option<f64>,
        classification: Option<f64>,
        now: f64,
    ) -> Result<Vec<u8>, JsError> {
        let e = shapes::edge_from(relation).map_err(to_js)?;
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
        Ok(write(|w| shapes::write_edge(w, &edge)))
    }

    /// Stores a whole edge record.
    #[wasm_bindgen(js_name = upsertEdge)]
    pub fn upsert_edge(&mut self, edge: &[u8]) -> Result<Vec<u8>, JsError> {
        let edge = shapes::edge_from(edge).map_err(to_js)?;
        let edge = self.inner.upsert_edge(edge).map_err(to_js)?;
        Ok(write(|w| shapes::write_edge(w, &edge)))
    }

    /// Removes edges (only `user_id`'s, when given); returns how many.
    pub fn unrelate(
        &mut self,
        from: &str,
        relation: Option<String>,
        to: &str,
        user_id: Option<String>,
    ) -> Result<usize, JsError> {
        self.inner
            .unrelate(from, relation.as_deref(), to, user_id.as_deref())
            .map_err(to_js)
    }

    /// Counts of memories and index terms (`EngineStatsJs`).
    pub fn stats(&self) -> Vec<u8> {
        let s = self.inner.stats();
        write(|w| {
            w.begin_obj();
            w.field_num("memories", s.memories as f64);
            w.field_num("porterTerms", s.porter_terms as f64);
            w.field_num("fuzzyTerms", s.fuzzy_terms as f64);
            w.end();
        })
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

    /// The query texts that want the host's vectors, in order, encoded as one array of strings.
    pub fn texts(&self) -> Vec<u8> {
        write_list(self.inner.texts().into_iter(), |w, t| w.str(t))
    }
}

/// A ranked recall waiting for the host's reranker (see `Engine.rankForRerank`).
#[wasm_bindgen]
pub struct PendingRerank {
    inner: engine::Ranked,
}

#[wasm_bindgen]
impl PendingRerank {
    /// The candidates' texts in fused order, encoded as one array of strings.
    pub fn texts(&self) -> Vec<u8> {
        write_list(self.inner.texts().iter(), |w, t| w.str(t))
    }
}

fn to_js(e: crate::Error) -> JsError {
    JsError::new(&e.to_string())
}

/// The filter of a listing for `user_id` below `max_classification` (an integer the wrapper
/// checked; a ceiling beyond `i64` saturates, which keeps its meaning); with neither, the
/// whole store.
fn scope(user_id: &Option<String>, max_classification: Option<f64>) -> Filter {
    let max_classification = max_classification.map(|m| m as i64);
    Filter::for_scope(Scope::new(user_id.as_deref(), max_classification))
}

/// Encodes every item of `items` as one array.
fn write_list<T>(items: impl Iterator<Item = T>, item: fn(&mut Writer, T)) -> Vec<u8> {
    write(|w| {
        w.begin_arr();
        for x in items {
            item(w, x);
        }
        w.end();
    })
}

/// Encodes a result.
fn write(f: impl FnOnce(&mut Writer)) -> Vec<u8> {
    let mut w = Writer::new();
    f(&mut w);
    w.into_bytes()
}
