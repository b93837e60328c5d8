//! [`Engine`]: owns the records and every index, and answers recalls. This is the core API
//! the WebAssembly boundary wraps; it is plain Rust and deterministic (callers pass `now` and a
//! clock for stage timings).
//!
//! | file | role |
//! |---|---|
//! | `mod.rs` | the engine, its configuration, and writes (memories, embeddings, notes, graph) |
//! | [`recall`] | the recall in two phases, and phase 2 of abmind's pipeline (the `abmind` ranking: the first stage to find a record keeps it) |
//! | `gather.rs` | phase 2 of the fused rankings: every stage adds its evidence to a candidate |
//! | `stages.rs` | what both phase 2 pipelines share: the candidate pool, the Se/Ss skip rule, the Ss, S6 and S8 searches |
//! | `visible.rs` | what a reader sees of notes and the graph; an edge's `memoryIds` cut to the memories a filter accepts |
//! | [`output`] | result and stage report shapes |
//! | `ids.rs` | public id → `DocId`, keyed by the records' own ids |
//!
//! Writes are all-or-nothing: a record is validated completely before any index changes, and a
//! batch is validated completely (including duplicate ids inside it) before its first insert.

use std::collections::HashMap;

use crate::error::{check_unit, Error, Result};
use crate::graph::graph_store::GraphChange;
use crate::graph::{Edge, Entity, Graph, Relation};
use crate::index::fuzzy::{FuzzyIndex, Scratch};
use crate::index::grow_by_quarter;
use crate::index::mentions::MentionIndex;
use crate::index::porter_index::PorterIndex;
use crate::index::postings::{TermId, MAX_DOC};
use crate::index::tags::TagIndex;
use crate::notes::{Note, NoteStore};
use crate::rank::{Calibration, FusionParams, Ranking, Weights};
use crate::recall::score::ScoreParams;
use crate::signature::{self as lsh, Signature, SignatureIndex, Signer};
use crate::store::{DocId, Memory, Records, StoredMemory};
use crate::text::{self, Stemmer, TermList};
use crate::vector::VectorStore;
use ids::IdTable;

mod answer;
pub mod dedup;
pub mod expand;
mod gather;
mod ids;
mod image;
pub mod mentions;
mod multi;
pub mod output;
pub mod recall;
mod stages;
mod statements;
mod visible;

pub use output::{Components, HitKind, RecallHit, RecallOutput, StageReport};
pub use recall::{PendingRecall, Ranked, RecallOptions, SearchMode, DEFAULT_LIMIT, MAX_LIMIT};

/// Seed of the LSH hyperplanes when the host passes none. Fixed, so signatures of the same
/// text agree across stores and survive export and import.
pub const DEFAULT_SIGNATURE_SEED: u64 = 0x7265_6361_6c6c_6b69; // "recallki"
/// abmind's `EMBEDDING_SIMILARITY_THRESHOLD`.
pub const DEFAULT_SE_THRESHOLD: f64 = 0.5;
/// Default [`EngineConfig::min_score`] of the `recallkit` ranking: a result must match at
/// least this much of the question. Chosen on the LoCoMo dev half (docs/quality.md, "minScore":
/// the share of questions answered and how often their first result is right, per floor).
pub const DEFAULT_MIN_SCORE: f64 = 0.1;

/// Options fixed when an engine is created.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineConfig {
    /// Recency and emotion parameters of the Sf formula.
    pub score: ScoreParams,
    /// Embedding dimension; `None`: fixed by the first vector stored.
    pub dims: Option<usize>,
    /// Minimum cosine for stage Se. `None`: abmind's [`DEFAULT_SE_THRESHOLD`] for the
    /// `abmind` ranking, none for the others (they measure each cosine against the query's
    /// background instead, `rank::evidence`).
    pub se_threshold: Option<f64>,
    /// Minimum signature similarity for stage Ss.
    pub ss_threshold: f64,
    /// Most Ss hits.
    pub ss_max_hits: usize,
    /// Seed of the LSH signatures.
    pub signature_seed: u64,
    /// Calibrated score an Sf hit needs to count toward the short-circuit (0 counts every hit,
    /// as abmind does). `None`: abmind's 0 for the `abmind` ranking, and no short-circuit
    /// for the others, which weigh every stage's evidence (set, they skip Se and Ss when Sf
    /// holds `limit` hits whose lexical evidence reaches it).
    pub short_circuit_floor: Option<f64>,
    /// MMR λ for the `abmind` ranking (and for the others when set per recall).
    pub mmr_lambda: f64,
    /// Per-stage score calibration (the `abmind` ranking).
    pub calibration: Calibration,
    /// The ranking model of recalls that name none.
    pub ranking: Ranking,
    /// The `recallkit` model's parameters.
    pub fusion: FusionParams,
    /// The `weighted` model's weights.
    pub weights: Weights,
    /// Results scoring below this are dropped. `None`: [`DEFAULT_MIN_SCORE`] for the
    /// `recallkit` ranking, 0 for the others (only zero scores are dropped).
    pub min_score: Option<f64>,
    /// Signs memories only when something reads their signatures (stage Ss,
    /// [`Engine::signature`]) rather than as they are written: for stores that recall
    /// lexically and persist nothing, where a signature costs a third of a write and is never
    /// read. The first Ss stage then signs every memory still unsigned.
    pub lazy_signatures: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            score: ScoreParams::default(),
            dims: None,
            se_threshold: None,
            ss_threshold: lsh::DEFAULT_THRESHOLD,
            ss_max_hits: lsh::DEFAULT_MAX_HITS,
            signature_seed: DEFAULT_SIGNATURE_SEED,
            short_circuit_floor: None,
            mmr_lambda: crate::rank::mmr::DEFAULT_LAMBDA,
            calibration: Calibration::default(),
            ranking: Ranking::default(),
            fusion: FusionParams::default(),
            weights: Weights::default(),
            min_score: None,
            lazy_signatures: false,
        }
    }
}

impl EngineConfig {
    /// Checks every parameter.
    pub fn validate(&self) -> Result<()> {
        self.score.validate()?;
        self.calibration.validate()?;
        self.fusion.validate()?;
        self.weights.validate()?;
        recall::check_lambda(self.mmr_lambda)?;
        for (name, v) in [
            ("similarityThreshold", self.se_threshold.unwrap_or(0.0)),
            ("signatureThreshold", self.ss_threshold),
            ("shortCircuitFloor", self.short_circuit_floor.unwrap_or(0.0)),
            ("minScore", self.min_score.unwrap_or(0.0)),
        ] {
            check_unit(name, v)?;
        }
        Ok(())
    }
}

/// Store statistics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Live memories.
    pub memories: usize,
    /// Distinct stemmed terms (the porter vocabulary).
    pub porter_terms: usize,
    /// Distinct unstemmed terms of `textEn` + `keywords`.
    pub fuzzy_terms: usize,
}

/// How [`Engine::replace`] treats the stored embedding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EmbeddingUpdate<'a> {
    /// Leave it as it is.
    Keep,
    /// Delete it (e.g. the text changed and no new vector is known).
    Remove,
    /// Store this vector.
    Set(&'a [f32]),
}

/// The recall engine: records plus indexes.
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    records: Records,
    ids: IdTable,
    /// The porter terms of `textEn`, derived from `fuzzy_en`'s postings of its tokens.
    porter: PorterIndex,
    /// The fuzzy (trigram) index of `textEn` + `keywords` ([`SfIndexes::fuzzy_en`](crate::recall::sf::SfIndexes::fuzzy_en)).
    fuzzy_en: FuzzyIndex,
    /// The fuzzy (trigram) index of `text` where it differs from `textEn`.
    fuzzy_orig: FuzzyIndex,
    /// The signature feature hash of each porter term ([`lsh::term_feature`] under the
    /// configured seed), by porter term id, for every id `porter_term` has returned: hashed
    /// once per distinct term. 8 bytes per porter term.
    term_features: Vec<u64>,
    scratch: Scratch,
    analysis: Analysis,
    notes: NoteStore,
    graph: Graph,
    vectors: VectorStore,
    signatures: SignatureIndex,
    /// Folded tag prefixes → documents ([`TagIndex`]), for tag filters without a scan.
    tags: TagIndex,
    /// Entities named by memories' `entities` field → documents, and those documents by
    /// time ([`MentionIndex`]): entity → memories, and pronouns without session context.
    mentions: MentionIndex,
    /// Whether a live memory may lack its signature ([`EngineConfig::lazy_signatures`]).
    unsigned: bool,
    /// Each memory's content key ([`dedup::content_key`]) by document, 0 where not yet
    /// computed: filled by the first recall that needs it, cleared when the memory is
    /// re-indexed or removed (`dedup.rs`). Documents are never reused, so a key stays its
    /// memory's until then. 8 bytes per memory a recall has ranked.
    text_keys: std::cell::RefCell<Vec<u64>>,
    /// The contradiction rule's statements of recalled memories (`statements.rs`).
    statements: statements::Statements,
}

impl Engine {
    /// A new, empty engine. Fails with `invalid_argument` on bad parameters.
    pub fn new(config: EngineConfig) -> Result<Self> {
        config.validate()?;
        Ok(Engine {
            vectors: VectorStore::new(config.dims)?,
            config,
            records: Records::new(),
            ids: IdTable::default(),
            porter: PorterIndex::new(),
            fuzzy_en: FuzzyIndex::new(),
            fuzzy_orig: FuzzyIndex::new(),
            term_features: Vec::new(),
            scratch: Scratch::default(),
            analysis: Analysis::default(),
            notes: NoteStore::new(),
            graph: Graph::new(),
            signatures: SignatureIndex::new(),
            tags: TagIndex::new(),
            mentions: MentionIndex::default(),
            unsigned: false,
            text_keys: Default::default(),
            statements: Default::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Number of live memories.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the engine holds no memory.
    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
    }

    /// Heap bytes by part (capacities, allocator overhead excluded), for profiling:
    /// `examples/profile.rs memory`. Graph, notes and scratch buffers are not counted.
    #[doc(hidden)]
    pub fn heap_breakdown(&self) -> Vec<(&'static str, usize)> {
        let records = self.records.heap_bytes();
        let strings: usize = self
            .records
            .iter()
            .flatten()
            .map(StoredMemory::heap_bytes)
            .sum();
        vec![
            ("records", records),
            ("record strings", strings),
            ("id table", self.ids.heap_bytes()),
            ("porter", self.porter.heap_bytes()),
            ("  its vocabulary", self.porter.vocabulary_heap_bytes()),
            ("fuzzy_en", self.fuzzy_en.heap_bytes()),
            ("  its trigrams", self.fuzzy_en.trigram_heap_bytes()),
            ("fuzzy_orig", self.fuzzy_orig.heap_bytes()),
            ("term features", self.term_features.capacity() * 8),
            ("vectors", self.vectors.heap_bytes()),
            ("signatures", self.signatures.heap_bytes()),
            ("tags", self.tags.heap_bytes()),
            ("text keys", self.text_keys.borrow().capacity() * 8),
            ("statements", self.statements.heap_bytes()),
        ]
    }

    /// Counts of memories and index terms.
    pub fn stats(&self) -> Stats {
        Stats {
            memories: self.len(),
            porter_terms: self.porter.vocabulary_len(),
            fuzzy_terms: self.fuzzy_en.vocabulary_len(),
        }
    }

    /// The memory with this id (rebuilt from the compact record the engine keeps).
    pub fn get(&self, id: &str) -> Option<Memory> {
        self.ids
            .get(id, &self.records)
            .and_then(|d| self.memory(d))
            .map(StoredMemory::to_memory)
    }

    /// Every live memory id, in insertion order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.records.iter().flatten().map(StoredMemory::id)
    }

    /// Adds a new memory, with its embedding if the host has one. Fails with
    /// `already_exists`, `dimension_mismatch`, `invalid_embedding` or the validation error;
    /// nothing changes on failure.
    pub fn insert(&mut self, memory: Memory, embedding: Option<&[f32]>) -> Result<()> {
        memory.validate()?;
        if let Some(e) = embedding {
            self.vectors.check(e)?;
        }
        if self.ids.contains(&memory.id, &self.records) {
            return Err(already_exists(&memory.id));
        }
        self.insert_valid(memory.into(), embedding)
    }

    /// Adds every memory or none. `embeddings` is empty (no vectors) or holds one optional
    /// vector per memory. The error names the index of the first bad item.
    pub fn insert_many(
        &mut self,
        memories: Vec<Memory>,
        embeddings: &[Option<&[f32]>],
    ) -> Result<()> {
        self.insert_batch(memories.into_iter().collect(), embeddings)
    }

    /// [`insert_many`](Self::insert_many) of a [`Batch`]: the same checks in the same order,
    /// from records already in the engine's compact layout.
    pub fn insert_batch(&mut self, batch: Batch, embeddings: &[Option<&[f32]>]) -> Result<()> {
        let Batch {
            memories,
            mut invalid,
        } = batch;
        if !embeddings.is_empty() && embeddings.len() != memories.len() {
            return Err(Error::InvalidArgument(format!(
                "{} embeddings for {} memories",
                embeddings.len(),
                memories.len()
            )));
        }
        let mut batch_ids: HashMap<&str, usize> = HashMap::with_capacity(memories.len());
        let mut batch_dims = self.vectors.dims();
        for (i, m) in memories.iter().enumerate() {
            if let Some((_, e)) = invalid.take_if(|(at, _)| *at == i) {
                return Err(e.at_item(i));
            }
            if self.ids.contains(m.id(), &self.records) {
                return Err(already_exists(m.id()).at_item(i));
            }
            if let Some(first) = batch_ids.insert(m.id(), i) {
                return Err(Error::AlreadyExists(format!(
                    "id \"{}\" repeats item {first}",
                    m.id()
                ))
                .at_item(i));
            }
            if let Some(Some(e)) = embeddings.get(i) {
                self.vectors.check(e).map_err(|err| err.at_item(i))?;
                match batch_dims {
                    Some(d) if d != e.len() => {
                        let err = Error::DimensionMismatch {
                            expected: d,
                            got: e.len(),
                        };
                        return Err(err.at_item(i));
                    }
                    _ => batch_dims = Some(e.len()),
                }
            }
        }
        self.check_room(memories.len())?;
        for (i, m) in memories.into_iter().enumerate() {
            let embedding = embeddings.get(i).copied().flatten();
            self.insert_valid(m, embedding)?;
        }
        Ok(())
    }

    /// Replaces the stored memory that has `memory.id` (all fields), re-indexing its text, and
    /// updates its embedding as `embedding` says. Fails with `not_found` or a validation
    /// error; nothing changes on failure.
    pub fn replace(&mut self, memory: Memory, embedding: EmbeddingUpdate<'_>) -> Result<()> {
        memory.validate()?;
        if let EmbeddingUpdate::Set(e) = embedding {
            self.vectors.check(e)?;
        }
        let doc = self
            .ids
            .get(&memory.id, &self.records)
            .ok_or_else(|| not_found(&memory.id))?;
        let memory = StoredMemory::from(memory);
        let old = self.records[doc.0 as usize].take();
        if let Some(old) = &old {
            self.unindex(doc, old);
        }
        if let Err(e) = self.index(doc, &memory) {
            if let Some(old) = old {
                // Re-indexing what was indexed a moment ago cannot fail.
                let _ = self.index(doc, &old);
                self.records[doc.0 as usize] = Some(old);
            }
            return Err(e);
        }
        self.records[doc.0 as usize] = Some(memory);
        match embedding {
            EmbeddingUpdate::Keep => {}
            EmbeddingUpdate::Remove => {
                self.vectors.remove(doc);
            }
            EmbeddingUpdate::Set(e) => self.vectors.set(doc, e)?,
        }
        Ok(())
    }

    /// The stored embedding of a memory.
    pub fn embedding(&self, id: &str) -> Option<&[f32]> {
        self.ids
            .get(id, &self.records)
            .and_then(|d| self.vectors.get(d))
    }

    /// The signature of a memory: computed from `textEn` at write time, or now if the engine
    /// signs lazily and has not signed it yet.
    pub fn signature(&self, id: &str) -> Option<Signature> {
        let doc = self.ids.get(id, &self.records)?;
        let seed = self.config.signature_seed;
        (self.signatures.get(doc))
            .or_else(|| Some(lsh::signature(self.memory(doc)?.text_en(), seed)))
    }

    /// Signs every live memory still unsigned (lazy signatures), before stage Ss reads them.
    fn sign_unsigned(&mut self) {
        if !std::mem::take(&mut self.unsigned) {
            return;
        }
        let seed = self.config.signature_seed;
        for (doc, m) in self.records.iter().enumerate() {
            let doc = DocId(doc as u32);
            if let (Some(m), None) = (m, self.signatures.get(doc)) {
                self.signatures.set(doc, lsh::signature(m.text_en(), seed));
            }
        }
    }

    /// The embedding dimension, once known.
    pub fn dims(&self) -> Option<usize> {
        self.vectors.dims()
    }

    /// Sets the embedding dimension back to `dims` after an undone write fixed it; only
    /// while no memory has a vector (see [`VectorStore::reset_dims`]).
    pub fn reset_dims(&mut self, dims: Option<usize>) -> Result<()> {
        self.vectors.reset_dims(dims)
    }

    /// Removes a memory and returns it. Fails with `not_found`.
    pub fn remove(&mut self, id: &str) -> Result<Memory> {
        let doc = self
            .ids
            .remove(id, &self.records)
            .ok_or_else(|| not_found(id))?;
        let memory = self.records[doc.0 as usize]
            .take()
            .ok_or_else(|| not_found(id))?;
        self.unindex(doc, &memory);
        self.vectors.remove(doc);
        Ok(memory.to_memory())
    }

    /// Adds a consolidation note. Fails with `already_exists` or a validation error.
    pub fn add_note(&mut self, note: Note) -> Result<()> {
        self.notes.insert(note)
    }

    /// Replaces the note with the same id. Fails with `not_found` or a validation error.
    pub fn replace_note(&mut self, note: Note) -> Result<()> {
        self.notes.replace(note)
    }

    /// Removes a note and returns it. Fails with `not_found`.
    pub fn remove_note(&mut self, id: &str) -> Result<Note> {
        self.notes.remove(id)
    }

    /// The note with this id.
    pub fn note(&self, id: &str) -> Option<&Note> {
        self.notes.get(id)
    }

    /// Every note, whoever owns it (see [`Engine::visible_notes`] for one reader's).
    pub fn notes(&self) -> impl Iterator<Item = &Note> {
        self.notes.iter()
    }

    /// The entity graph (read-only).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Starts noting the graph records that writes touch ([`Graph::track_changes`]).
    pub fn track_graph_changes(&mut self) {
        self.graph.track_changes();
    }

    /// What the graph writes since [`Engine::track_graph_changes`] did, and stops noting
    /// ([`Graph::take_changes`]).
    pub fn graph_changes(&mut self) -> GraphChange {
        self.graph.take_changes()
    }

    /// Adds an entity, or merges it into the one with the same name.
    pub fn add_entity(&mut self, entity: Entity) -> Result<()> {
        self.graph.add_entity(entity)
    }

    /// Stores a whole entity record, replacing the one with its name and keeping its edges
    /// ([`Graph::put_entity`]).
    pub fn put_entity(&mut self, entity: Entity) -> Result<()> {
        self.graph.put_entity(entity)
    }

    /// Removes the entity named `name` (not by alias) and its edges; returns whether there was
    /// one ([`Graph::drop_entity`]).
    pub fn drop_entity(&mut self, name: &str) -> bool {
        self.graph.drop_entity(name)
    }

    /// Removes the edge with this id; returns whether there was one ([`Graph::remove_edge`]).
    pub fn remove_edge(&mut self, id: &str) -> bool {
        self.graph.remove_edge(id)
    }

    /// Removes an entity and its edges; with `user_id`, only that user's entity
    /// ([`Graph::remove_entity`]).
    pub fn remove_entity(&mut self, name: &str, user_id: Option<&str>) -> Result<Entity> {
        self.graph.remove_entity(name, user_id)
    }

    /// Relates two entities (created if unknown); relating again updates the edge
    /// ([`Graph::relate`], which says what a relation with a `userId` may change).
    pub fn relate(&mut self, relation: &Relation, now: f64) -> Result<Edge> {
        self.graph.relate(relation, now).cloned()
    }

    /// Stores a whole edge record (used when loading persisted edges).
    pub fn upsert_edge(&mut self, edge: Edge) -> Result<Edge> {
        self.graph.upsert_edge(edge).cloned()
    }

    /// Removes the edges `from —[relation]→ to` (any relation when `None`; with `user_id`,
    /// only that user's); returns how many.
    pub fn unrelate(
        &mut self,
        from: &str,
        relation: Option<&str>,
        to: &str,
        user_id: Option<&str>,
    ) -> Result<usize> {
        self.graph.unrelate(from, relation, to, user_id)
    }

    fn memory(&self, doc: DocId) -> Option<&StoredMemory> {
        self.records.get(doc.0 as usize).and_then(Option::as_ref)
    }

    /// Fails with `too_large` unless `additional` more memories get a `DocId`: every memory
    /// added since the engine was created takes one (a removed memory's is not reused; a
    /// store reopened from its records numbers them afresh), and the indexes hold ids up to
    /// [`MAX_DOC`].
    fn check_room(&self, additional: usize) -> Result<()> {
        if self.records.len().saturating_add(additional) > MAX_DOC as usize + 1 {
            return Err(Error::TooLarge(format!(
                "a store holds at most {} memories added since it was opened, removed ones \
                 included (reopen it to renumber them)",
                MAX_DOC as usize + 1
            )));
        }
        Ok(())
    }

    /// Indexes and stores a validated memory under the next `DocId`.
    fn insert_valid(&mut self, memory: StoredMemory, embedding: Option<&[f32]>) -> Result<()> {
        self.check_room(1)?;
        // `check_room`: `records.len() <= MAX_DOC < u32::MAX`.
        let doc = DocId(self.records.len() as u32);
        if let Some(e) = embedding {
            self.vectors.set(doc, e)?;
        }
        if let Err(e) = self.index(doc, &memory) {
            self.vectors.remove(doc);
            return Err(e);
        }
        self.ids.insert(memory.id(), doc);
        self.records.push(Some(memory));
        Ok(())
    }

    /// Adds `m`'s terms to every index.
    ///
    /// `doc` is always fresh (or just unindexed) and validated texts stay far below the
    /// indexes' `u32` limits, so this cannot fail in practice; if it ever did, the partial
    /// entries are removed again so no index is left half-written.
    fn index(&mut self, doc: DocId, m: &StoredMemory) -> Result<()> {
        let mut analysis = std::mem::take(&mut self.analysis);
        let result = self.index_with(&mut analysis, doc, m);
        if result.is_err() {
            self.unindex_with(&mut analysis, doc, m);
        } else {
            self.tags.insert(doc, m.tag_list());
            self.index_mentions(doc, m, true);
        }
        self.analysis = analysis;
        result
    }

    /// Lists `m`'s `entities` in the mention index (`add`), or takes them out.
    fn index_mentions(&mut self, doc: DocId, m: &StoredMemory, add: bool) {
        if m.entities().is_empty() {
            return;
        }
        let names: Vec<String> = (m.entities().iter())
            .map(|n| crate::graph::names::normalize_name(n))
            .collect();
        (self.mentions).update(doc, m.created_at(), m.user_id(), &names, add);
    }

    /// Tokenises `m`'s `textEn` once and feeds every index and the signature from it: each
    /// token gets its `fuzzy_en` id, and through [`stems`](Self::porter_term) its porter
    /// term.
    fn index_with(&mut self, a: &mut Analysis, doc: DocId, m: &StoredMemory) -> Result<()> {
        a.tokens.clear();
        a.token_ids.clear();
        a.term_ids.clear();
        // The tokens go to the indexes as the tokenizer finds them; they are kept only for
        // an eager signature (measured: copying each into `tokens` first cost a tenth of a
        // lexical build).
        let keep_tokens = !self.config.lazy_signatures;
        let mut failed = Ok(());
        let Analysis {
            stemmer,
            tokens,
            token_ids,
            term_ids,
            folded,
            ..
        } = a;
        text::tokenize::for_each_token_in(m.text_en(), folded, |token| {
            if failed.is_err() {
                return;
            }
            if keep_tokens {
                tokens.push(token);
            }
            match self.fuzzy_en.intern(token).and_then(|token_id| {
                let term_id = self.porter_term(token_id, token, stemmer)?;
                Ok((token_id, term_id))
            }) {
                Ok((token_id, term_id)) => {
                    token_ids.push(token_id);
                    term_ids.push(term_id);
                }
                Err(e) => failed = Err(e),
            }
        });
        failed?;
        let seed = self.config.signature_seed;
        let (porter, features) = (&self.porter, &self.term_features);
        let term_features = a.term_ids.iter().map(|&id| {
            // Always present (see `term_features`); hashing the text is the same value.
            features
                .get(id.0 as usize)
                .copied()
                .unwrap_or_else(|| lsh::term_feature(porter.term(id), seed))
        });
        let signature = if self.config.lazy_signatures {
            self.unsigned = true;
            None
        } else {
            Some(a.signer.sign_features(term_features, &a.tokens, seed))
        };
        a.tokens.clear();
        a.push_keywords(m);
        self.porter.add_keywords(doc, &a.tokens)?;
        for token in &a.tokens {
            a.token_ids.push(self.fuzzy_en.intern(token)?);
        }
        self.fuzzy_en.insert_ids(doc, &a.token_ids)?;
        if m.has_distinct_original() {
            a.fill_tokens(m.text());
            self.fuzzy_orig.insert(doc, &a.tokens)?;
        }
        if let Some(signature) = signature {
            self.signatures.set(doc, signature);
        }
        Ok(())
    }

    /// The porter term of a `textEn` token whose `fuzzy_en` id is `token_id`
    /// ([`PorterIndex::stem_token`]), with its feature hash remembered in `term_features` if
    /// the term is new.
    fn porter_term(
        &mut self,
        token_id: TermId,
        token: &str,
        stemmer: &mut Stemmer,
    ) -> Result<TermId> {
        let id = self.porter.stem_token(token_id, token, stemmer)?;
        let seed = self.config.signature_seed;
        while !self.config.lazy_signatures && self.term_features.len() <= id.0 as usize {
            // `len() <= id.0 < u32::MAX`: porter term ids are u32.
            let term = self.porter.term(TermId(self.term_features.len() as u32));
            let _ = grow_by_quarter(&mut self.term_features, 1);
            self.term_features.push(lsh::term_feature(term, seed));
        }
        Ok(id)
    }

    fn unindex(&mut self, doc: DocId, m: &StoredMemory) {
        self.forget_text_key(doc);
        self.statements.forget(doc);
        let mut analysis = std::mem::take(&mut self.analysis);
        self.unindex_with(&mut analysis, doc, m);
        self.analysis = analysis;
        self.tags.remove(doc, m.tag_list());
        self.index_mentions(doc, m, false);
    }

    fn unindex_with(&mut self, a: &mut Analysis, doc: DocId, m: &StoredMemory) {
        self.signatures.remove(doc);
        a.tokens.clear();
        a.push_keywords(m);
        self.porter.remove_keywords(doc, &a.tokens);
        // `fuzzy_en` holds the keyword and `textEn` tokens; removal takes them in any order.
        a.push_tokens(m.text_en());
        self.fuzzy_en.remove(doc, &a.tokens);
        if m.has_distinct_original() {
            a.fill_tokens(m.text());
            self.fuzzy_orig.remove(doc, &a.tokens);
        }
    }
}

/// Memories on their way into [`Engine::insert_batch`], each validated as it is added and
/// kept in the engine's compact layout ([`StoredMemory`]), so a large batch costs its
/// records once rather than as full [`Memory`] values and then again as stored ones.
#[derive(Debug, Default)]
pub struct Batch {
    memories: Vec<StoredMemory>,
    /// The first memory that failed validation: its position and the error.
    invalid: Option<(usize, Error)>,
}

impl Batch {
    /// An empty batch with room for `capacity` memories if memory allows (a hint: the batch
    /// grows as needed either way).
    pub fn with_capacity(capacity: usize) -> Self {
        let mut memories = Vec::new();
        // Failing to reserve is not an error: the pushes will grow the vector or fail alike.
        let _ = memories.try_reserve_exact(capacity);
        Batch {
            memories,
            invalid: None,
        }
    }

    /// Number of memories.
    pub fn len(&self) -> usize {
        self.memories.len()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.memories.is_empty()
    }

    /// Validates `m` (the first failure is kept, for [`Engine::insert_batch`] to report) and
    /// adds it in the compact layout, copying its inline strings so that `m`'s buffers stay
    /// for reuse by a reader that decodes many memories into one value.
    pub fn push(&mut self, m: &mut Memory) {
        if self.invalid.is_none() {
            if let Err(e) = m.validate() {
                self.invalid = Some((self.memories.len(), e));
            }
        }
        self.memories.push(StoredMemory::pack(m));
    }
}

impl Extend<Memory> for Batch {
    fn extend<I: IntoIterator<Item = Memory>>(&mut self, memories: I) {
        for mut m in memories {
            self.push(&mut m);
        }
    }
}

impl FromIterator<Memory> for Batch {
    fn from_iter<I: IntoIterator<Item = Memory>>(memories: I) -> Self {
        let mut batch = Batch::default();
        batch.extend(memories);
        batch
    }
}

/// Reusable buffers of the write path: one memory's analysis and its signature's features.
#[derive(Debug, Default)]
struct Analysis {
    stemmer: Stemmer,
    /// Folded tokens (for the trigram indexes and the signature's trigrams).
    tokens: TermList,
    /// `fuzzy_en` ids of the tokens, then of the keywords' tokens.
    token_ids: Vec<TermId>,
    /// Porter term ids of the tokens.
    term_ids: Vec<TermId>,
    signer: Signer,
    /// The tokenizer's buffer for tokens it folds, kept between texts.
    folded: String,
}

impl Analysis {
    /// Tokens of `text` only.
    fn fill_tokens(&mut self, text: &str) {
        self.tokens.clear();
        self.push_tokens(text);
    }

    /// Appends the tokens of `text` to the tokens (through the shared copy of the tokenizer
    /// loop, `for_each_token_dyn`: it is large, and each caller that inlines it costs wasm
    /// bytes).
    #[inline(never)]
    fn push_tokens(&mut self, text: &str) {
        let tokens = &mut self.tokens;
        text::tokenize::for_each_token_dyn(text, &mut self.folded, &mut |t| tokens.push(t));
    }

    /// Appends the tokens of `m`'s keywords to the tokens.
    fn push_keywords(&mut self, m: &StoredMemory) {
        for keyword in m.keywords() {
            self.push_tokens(keyword);
        }
    }
}

fn already_exists(id: &str) -> Error {
    Error::AlreadyExists(format!("a memory with id \"{id}\" already exists"))
}

fn not_found(id: &str) -> Error {
    Error::NotFound(format!("no memory with id \"{id}\""))
}

#[cfg(test)]
mod fused_tests;

#[cfg(test)]
mod graph_tests;

#[cfg(test)]
mod isolation_tests;

#[cfg(test)]
mod query_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::bm25::Bm25Source;
    use crate::index::postings::{InvertedIndex, Postings};
    use crate::recall::filter::Filter;
    use crate::recall::tags::{TagFilter, TagMatch};
    use crate::store::records::MAX_RECALL_TIMESTAMPS;

    const DAY: f64 = 86_400_000.0;

    fn memory(id: &str, text: &str) -> Memory {
        Memory {
            id: id.into(),
            text: text.into(),
            ..Memory::default()
        }
    }

    fn engine_with(memories: Vec<Memory>) -> Engine {
        let mut engine = Engine::new(EngineConfig::default()).unwrap();
        engine.insert_many(memories, &[]).unwrap();
        engine
    }

    fn recall_ids(engine: &mut Engine, query: &str, options: &RecallOptions) -> Vec<String> {
        let out = engine.recall(query, options, None, &|| 0.0).unwrap();
        out.results.into_iter().map(|r| r.id).collect()
    }

    /// abmind's pipeline without tracking: these tests hold its rules (the `abmind`
    /// ranking); the default ranking's are in `fused_tests`.
    fn no_tracking() -> RecallOptions {
        RecallOptions {
            track_recalls: false,
            ranking: Some(Ranking::Abmind),
            ..RecallOptions::default()
        }
    }

    #[test]
    fn porter_finds_inflected_forms_and_labels_the_stage() {
        let mut e = engine_with(vec![
            memory("db", "We migrated the project database to SQLite"),
            memory("cat", "The cat sleeps"),
        ]);
        let out = e
            .recall("migrating databases", &no_tracking(), None, &|| 0.0)
            .unwrap();
        assert_eq!(out.results[0].id, "db");
        assert_eq!(out.results[0].stage, "Sf:porter");
        assert_eq!(out.stages[0].name, "Sf");
        assert_eq!(out.stages[0].hits, 1);
    }

    #[test]
    fn trigram_finds_substrings_typos_and_keywords() {
        let mut e = engine_with(vec![
            memory("d", "The deployment pipeline runs on Fridays"),
            Memory {
                keywords: vec!["kubernetes".into()],
                ..memory("k", "cluster notes")
            },
        ]);
        assert_eq!(recall_ids(&mut e, "deploy", &no_tracking()), ["d"]);
        assert_eq!(recall_ids(&mut e, "pipelnie", &no_tracking()), ["d"]);
        assert_eq!(recall_ids(&mut e, "kubernetse", &no_tracking()), ["k"]);
        let out = e.recall("deploy", &no_tracking(), None, &|| 0.0).unwrap();
        assert_eq!(out.results[0].stage, "Sf:trigram_en");
    }

    #[test]
    fn original_text_is_searched_only_when_it_differs() {
        let mut e = engine_with(vec![Memory {
            text_en: Some("We chose PostgreSQL for the warehouse".into()),
            ..memory("fr", "Nous avons choisi PostgreSQL pour l'entrepôt")
        }]);
        let out = e.recall("entrepot", &no_tracking(), None, &|| 0.0).unwrap();
        assert_eq!(out.results[0].stage, "Sf:trigram_orig");
        assert_eq!(e.stats().memories, 1);
    }

    #[test]
    fn a_memory_found_by_two_sub_queries_appears_once_with_its_best_score() {
        let mut e = engine_with(vec![
            memory("a", "deployment deployment"),
            memory("b", "other"),
        ]);
        let out = e
            .recall("deployment deploy", &no_tracking(), None, &|| 0.0)
            .unwrap();
        assert_eq!(out.results.len(), 1);
        let porter_only = e
            .recall("deployment", &no_tracking(), None, &|| 0.0)
            .unwrap();
        assert!(out.results[0].score >= porter_only.results[0].score);
    }

    #[test]
    fn results_are_ordered_by_score_then_insertion() {
        let mut e = engine_with(vec![
            memory("first", "alpha"),
            memory("second", "alpha"),
            Memory {
                tier: Some("core".into()),
                ..memory("core", "alpha")
            },
        ]);
        assert_eq!(
            recall_ids(&mut e, "alpha", &no_tracking()),
            ["core", "first", "second"]
        );
    }

    #[test]
    fn filters_apply_inside_the_stage_before_the_limit() {
        let mut memories: Vec<Memory> = (0..200)
            .map(|i| memory(&format!("m{i}"), "shared words here"))
            .collect();
        memories.push(Memory {
            topic: Some("rare".into()),
            ..memory("rare", "shared words")
        });
        let mut e = engine_with(memories);
        let options = RecallOptions {
            limit: 3,
            filter: Filter {
                topic: Some("rare".into()),
                ..Filter::default()
            },
            track_recalls: false,
            ..RecallOptions::default()
        };
        assert_eq!(recall_ids(&mut e, "shared", &options), ["rare"]);
    }

    #[test]
    fn a_tag_few_memories_hold_filters_a_query_recall_through_the_tag_index() {
        // 300 memories share the words; every 40th is tagged, with weaker matches (longer
        // texts, each its own: the same text is returned once) so that the tagged ones rank
        // below the first rounds of untagged hits.
        let memories: Vec<Memory> = (0..300)
            .map(|i| match i % 40 {
                7 => Memory {
                    tags: vec![format!("project:{i}")],
                    ..memory(
                        &format!("t{i}"),
                        &format!("shared words in longer tagged text {i}"),
                    )
                },
                _ => memory(&format!("m{i}"), "shared words"),
            })
            .collect();
        let mut e = engine_with(memories);
        let mut options = RecallOptions {
            limit: 20,
            track_recalls: false,
            ..RecallOptions::default()
        };
        options.filter.tags = TagFilter {
            tags: vec!["project".into()],
            ..TagFilter::default()
        };
        let mut got = recall_ids(&mut e, "shared words", &options);
        got.sort();
        let mut want: Vec<String> = (0..300)
            .filter(|i| i % 40 == 7)
            .map(|i| format!("t{i}"))
            .collect();
        want.sort();
        assert_eq!(got, want);
        options.filter.tags.matching = TagMatch::Exact;
        assert!(
            recall_ids(&mut e, "shared words", &options).is_empty(),
            "project:N is not project"
        );
    }

    #[test]
    fn a_batch_past_the_last_document_id_is_refused_before_anything_is_stored() {
        let engine = Engine::new(EngineConfig::default()).unwrap();
        assert!(engine.check_room(MAX_DOC as usize + 1).is_ok());
        let err = engine.check_room(MAX_DOC as usize + 2).unwrap_err();
        assert_eq!(err.code(), "too_large");
        assert!(engine.check_room(usize::MAX).is_err());
    }

    #[test]
    fn insert_many_is_all_or_nothing() {
        let mut e = engine_with(vec![memory("x", "existing")]);
        let bad = vec![
            memory("a", "fine"),
            Memory {
                emotion: 9.0,
                ..memory("b", "bad")
            },
        ];
        let err = e.insert_many(bad, &[]).unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
        assert!(err
            .to_string()
            .starts_with("invalid_argument: item 1: emotion"));
        let dup = vec![memory("a", "one"), memory("a", "two")];
        assert_eq!(
            e.insert_many(dup, &[]).unwrap_err().code(),
            "already_exists"
        );
        let taken = vec![memory("x", "again")];
        assert_eq!(
            e.insert_many(taken, &[]).unwrap_err().code(),
            "already_exists"
        );
        assert_eq!(e.len(), 1);
        assert!(recall_ids(&mut e, "fine", &no_tracking()).is_empty());
    }

    #[test]
    fn a_batch_reports_the_first_bad_item_whatever_is_wrong_with_it() {
        let mut e = engine_with(vec![memory("x", "existing")]);
        let invalid = || Memory {
            emotion: 9.0,
            ..memory("bad", "bad")
        };
        let batch = vec![memory("a", "one"), memory("x", "taken"), invalid()];
        let err = e.insert_many(batch, &[]).unwrap_err();
        assert!(err.to_string().starts_with("already_exists: item 1:"));
        let batch = vec![memory("a", "one"), invalid(), memory("x", "taken")];
        let err = e.insert_many(batch, &[]).unwrap_err();
        assert!(err
            .to_string()
            .starts_with("invalid_argument: item 1: emotion"));
        let batch: Batch = vec![invalid(), memory("c", "fine")].into_iter().collect();
        assert_eq!(batch.len(), 2);
        let err = e.insert_batch(batch, &[]).unwrap_err();
        assert!(err
            .to_string()
            .starts_with("invalid_argument: item 0: emotion"));
        assert_eq!(e.len(), 1);
        // A capacity hint beyond memory is ignored, not a crash.
        let mut batch = Batch::with_capacity(usize::MAX);
        batch.extend([memory("c", "fine")]);
        e.insert_batch(batch, &[]).unwrap();
        assert_eq!(e.len(), 2);
    }

    #[test]
    fn replace_reindexes_and_remove_forgets() {
        let mut e = engine_with(vec![memory("a", "apples"), memory("b", "apples too")]);
        e.replace(memory("a", "bananas"), EmbeddingUpdate::Keep)
            .unwrap();
        assert_eq!(recall_ids(&mut e, "apples", &no_tracking()), ["b"]);
        assert_eq!(recall_ids(&mut e, "bananas", &no_tracking()), ["a"]);
        assert_eq!(
            e.replace(memory("zz", "x"), EmbeddingUpdate::Keep)
                .unwrap_err()
                .code(),
            "not_found"
        );
        let bad = Memory {
            trust: Some(9.0),
            ..memory("a", "cherries")
        };
        assert_eq!(
            e.replace(bad, EmbeddingUpdate::Keep).unwrap_err().code(),
            "invalid_argument"
        );
        assert_eq!(e.get("a").unwrap().text, "bananas");
        assert_eq!(e.remove("a").unwrap().text, "bananas");
        assert!(recall_ids(&mut e, "bananas", &no_tracking()).is_empty());
        assert_eq!(e.remove("a").unwrap_err().code(), "not_found");
        assert_eq!(e.ids().collect::<Vec<_>>(), ["b"]);
    }

    #[test]
    fn lazy_signatures_are_signed_when_read_and_equal_eager_ones() {
        let texts = [
            ("a", "deploy the billing service on Friday"),
            ("b", "my sister likes green tea"),
            ("c", "the billing service was deployed late"),
            ("d", "green tea with my sister on Sunday"),
        ];
        let memories = || {
            texts
                .iter()
                .map(|(id, t)| memory(id, t))
                .collect::<Vec<_>>()
        };
        let mut eager = engine_with(memories());
        let config = EngineConfig {
            lazy_signatures: true,
            ..EngineConfig::default()
        };
        let mut lazy = Engine::new(config).unwrap();
        lazy.insert_many(memories(), &[]).unwrap();
        for e in [&mut eager, &mut lazy] {
            e.replace(
                memory("b", "my brother likes black tea"),
                EmbeddingUpdate::Keep,
            )
            .unwrap();
            e.remove("d").unwrap();
        }
        assert!(lazy.signatures.is_empty() && lazy.term_features.is_empty());
        let seed = lazy.config.signature_seed;
        for id in ["a", "b", "c"] {
            let text = lazy.get(id).unwrap().text;
            assert_eq!(
                lazy.signature(id),
                Some(lsh::signature(&text, seed)),
                "{id}"
            );
            assert_eq!(lazy.signature(id), eager.signature(id), "{id}");
        }
        assert_eq!(lazy.signature("d"), None);
        assert!(
            lazy.signatures.is_empty(),
            "reading one signs nothing in place"
        );

        // Lexical recalls never sign; the first Ss stage signs the live memories.
        let lexical = RecallOptions {
            mode: SearchMode::Lexical,
            ..no_tracking()
        };
        lazy.recall("billing tea", &lexical, None, &|| 0.0).unwrap();
        assert!(lazy.signatures.is_empty());
        let query = "deploy the biling service every friday";
        let got = lazy.recall(query, &no_tracking(), None, &|| 0.0).unwrap();
        let want = eager.recall(query, &no_tracking(), None, &|| 0.0).unwrap();
        let ss = got.stages.iter().find(|s| s.name == "Ss").unwrap();
        assert!(!ss.skipped && ss.hits > 0, "{:?}", got.stages);
        assert_eq!(format!("{:?}", got.results), format!("{:?}", want.results));
        assert_eq!(lazy.signatures.len(), 3);
        assert_eq!(lazy.signatures.get(DocId(3)), None, "d was removed");

        // Memories added later wait for the next Ss stage.
        lazy.insert_many(
            vec![memory("e", "deploy the billing service on Monday")],
            &[],
        )
        .unwrap();
        assert_eq!(lazy.signatures.len(), 3);
        lazy.recall(query, &no_tracking(), None, &|| 0.0).unwrap();
        assert_eq!(lazy.signatures.len(), 4);
    }

    #[test]
    fn tracking_counts_recalls_and_keeps_twenty_timestamps() {
        let mut e = engine_with(vec![memory("a", "delta")]);
        for i in 0..25 {
            let options = RecallOptions {
                filter: Filter {
                    now: f64::from(i) * DAY,
                    ..Filter::default()
                },
                ..RecallOptions::default()
            };
            e.recall("delta", &options, None, &|| 0.0).unwrap();
        }
        let m = e.get("a").unwrap();
        assert_eq!(m.recall_count, 25);
        assert_eq!(m.recall_timestamps.len(), MAX_RECALL_TIMESTAMPS);
        assert_eq!(m.recall_timestamps[0], 5.0 * DAY);
        assert_eq!(m.last_recalled_at, Some(24.0 * DAY));
    }

    #[test]
    fn limit_zero_and_bad_filters_are_errors_and_large_limits_are_clamped() {
        let mut e = engine_with((0..150).map(|i| memory(&format!("m{i}"), "tea")).collect());
        let zero = RecallOptions {
            limit: 0,
            ..no_tracking()
        };
        assert_eq!(
            e.recall("tea", &zero, None, &|| 0.0).unwrap_err().code(),
            "invalid_argument"
        );
        let big = RecallOptions {
            limit: 5000,
            ..no_tracking()
        };
        assert_eq!(
            e.recall("tea", &big, None, &|| 0.0).unwrap().results.len(),
            MAX_LIMIT
        );
        let bad = RecallOptions {
            filter: Filter {
                start: Some(2.0),
                end: Some(1.0),
                ..Filter::default()
            },
            ..no_tracking()
        };
        assert_eq!(
            e.recall("tea", &bad, None, &|| 0.0).unwrap_err().code(),
            "invalid_argument"
        );
    }

    #[test]
    fn stage_time_comes_from_the_callers_clock() {
        let mut e = engine_with(vec![memory("a", "x")]);
        let ticks = std::cell::Cell::new(0.0);
        let clock = || {
            ticks.set(ticks.get() + 2.5);
            ticks.get()
        };
        let out = e.recall("x", &no_tracking(), None, &clock).unwrap();
        assert_eq!(out.stages[0].ms, 2.5);
    }

    /// The indexes and signatures built through `stems` equal those built from each memory's
    /// own analysis, also after replacing and removing memories and with tokens that first
    /// occur as keywords or exceed the term length limit.
    #[test]
    fn remembered_stems_index_exactly_what_analysing_each_memory_gives() {
        let long = format!("{}s tail", "z".repeat(text::MAX_TERM_BYTES + 3));
        let mut e = engine_with(vec![
            Memory {
                keywords: vec!["Running dogs".into()],
                ..memory("k", "kubernetes clusters")
            },
            memory("a", "The dogs were running; the dog runs"),
            memory("b", &long),
            Memory {
                text_en: Some("running late again".into()),
                ..memory("fr", "en retard encore")
            },
            memory("c", "Crème brûlée, CRÈME BRULEE and creme"),
        ]);
        e.replace(
            memory("a", "running dogs, kubernetes"),
            EmbeddingUpdate::Keep,
        )
        .unwrap();
        e.remove("c").unwrap();
        e.insert(memory("d", "dogs run; creme"), None).unwrap();
        // Keywords that are also in the text, and a keyword-only token that is a stem's.
        e.insert(
            Memory {
                keywords: vec!["dogs".into(), "runner dogs".into()],
                ..memory("e", "Dogs bark at the runner")
            },
            None,
        )
        .unwrap();
        e.insert(
            Memory {
                keywords: vec!["dogged".into()],
                ..memory("f", "the dog")
            },
            None,
        )
        .unwrap();
        let mut porter = InvertedIndex::new();
        let mut fuzzy = InvertedIndex::new();
        for (doc, m) in e.records.iter().enumerate() {
            let Some(m) = m else { continue };
            let doc = DocId(doc as u32);
            let terms = text::terms(m.text_en());
            porter
                .insert(doc, terms.iter().map(String::as_str))
                .unwrap();
            let mut tokens = text::tokens(m.text_en());
            for k in m.keywords() {
                tokens.extend(text::tokens(k));
            }
            fuzzy
                .insert(doc, tokens.iter().map(String::as_str))
                .unwrap();
            let seed = e.config.signature_seed;
            assert_eq!(
                e.signatures.get(doc),
                Some(lsh::signature(m.text_en(), seed))
            );
        }
        assert_same_index(e.fuzzy_en.terms(), &fuzzy);
        let view = e.porter.view(e.fuzzy_en.terms());
        assert_eq!(view.stats(), porter.stats());
        for doc in 0..e.records.len() as u32 {
            assert_eq!(view.doc_len(DocId(doc)), porter.try_doc_len(DocId(doc)));
        }
        for id in 0..porter.vocabulary_len() as u32 {
            let stem = porter.term(TermId(id));
            let want: Vec<_> = porter.postings(TermId(id)).collect();
            let got = view.phrase(stem).expect(stem);
            assert_eq!(got.postings().collect::<Vec<_>>(), want, "stem {stem:?}");
        }
        assert!(e.porter.vocabulary_len() >= porter.vocabulary_len());
    }

    /// Same documents, lengths and postings of every term (term ids may differ).
    fn assert_same_index(got: &InvertedIndex, expected: &InvertedIndex) {
        assert_eq!(got.doc_lens(), expected.doc_lens());
        assert_eq!(got.total_terms(), expected.total_terms());
        for id in 0..got.vocabulary_len() as u32 {
            let term = got.term(TermId(id));
            let want: Vec<_> = expected
                .term_id(term)
                .map_or(Postings::EMPTY, |t| expected.postings(t))
                .collect();
            let postings: Vec<_> = got.postings(TermId(id)).collect();
            assert_eq!(postings, want, "term {term:?}");
        }
        for id in 0..expected.vocabulary_len() as u32 {
            let term = expected.term(TermId(id));
            assert!(got.term_id(term).is_some(), "term {term:?}");
        }
    }

    #[test]
    fn an_empty_query_is_trending_and_a_query_of_no_words_finds_nothing() {
        let mut e = engine_with(vec![memory("a", "x")]);
        assert_eq!(recall_ids(&mut e, "", &no_tracking()), ["a"]);
        assert_eq!(recall_ids(&mut e, " * ", &no_tracking()), ["a"]);
        assert!(recall_ids(&mut e, " ?! ", &no_tracking()).is_empty());
    }
}
