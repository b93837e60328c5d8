//! [`Engine`]: owns the records and every index, and answers recalls. This is the core API
//! the WebAssembly boundary wraps; it is plain Rust and deterministic (callers pass `now` and a
//! clock for stage timings).
//!
//! Writes are all-or-nothing: a record is validated completely before any index changes, and a
//! batch is validated completely (including duplicate ids inside it) before its first insert.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::graph::{Edge, Entity, Graph};
use crate::index::fuzzy::{FuzzyIndex, Scratch};
use crate::index::postings::InvertedIndex;
use crate::notes::{Note, NoteStore};
use crate::recall::filter::Filter;
use crate::recall::score::{ScoreParams, SfComponents};
use crate::recall::sf::{self, push_term, SfIndexes, SfQuery};
use crate::store::records::MAX_RECALL_TIMESTAMPS;
use crate::store::{DocId, Memory};
use crate::text;

/// Largest `limit` a recall accepts; larger values are clamped (seed 004: `RECALL_MAX_LIMIT`).
pub const MAX_LIMIT: usize = 100;
/// Default number of results.
pub const DEFAULT_LIMIT: usize = 10;

/// Options fixed when an engine is created.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EngineConfig {
    /// Recency and emotion parameters of the Sf formula.
    pub score: ScoreParams,
}

/// Options of one recall.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallOptions {
    /// Most results returned (1..=100; larger values are clamped to 100).
    pub limit: usize,
    /// Filters, including `now`.
    pub filter: Filter,
    /// Whether returned memories get their recall count and timestamps updated.
    pub track_recalls: bool,
}

impl Default for RecallOptions {
    fn default() -> Self {
        RecallOptions {
            limit: DEFAULT_LIMIT,
            filter: Filter::default(),
            track_recalls: true,
        }
    }
}

/// One recall result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecallHit {
    /// The memory's public id.
    pub id: String,
    /// The stage (and sub-query) that found it, e.g. `Sf:porter`.
    pub stage: &'static str,
    /// Final score.
    pub score: f64,
    /// Score breakdown.
    pub components: SfComponents,
    /// The memory as stored after this recall (tracking included).
    pub memory: Memory,
}

/// What one stage did during a recall.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StageReport {
    /// Stage name: `Sf`, `Se`, `Ss`, `S6`, `S8`.
    pub name: &'static str,
    /// Hits the stage contributed.
    pub hits: usize,
    /// Time spent, in milliseconds, by the clock the caller passed.
    pub ms: f64,
    /// Whether the stage was skipped.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// Why it was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

/// The answer to a recall.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecallOutput {
    /// Results, best first.
    pub results: Vec<RecallHit>,
    /// One report per stage, in pipeline order.
    pub stages: Vec<StageReport>,
}

/// Store statistics.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// Live memories.
    pub memories: usize,
    /// Distinct stemmed terms (porter index).
    pub porter_terms: usize,
    /// Distinct unstemmed terms of `textEn` + `keywords`.
    pub fuzzy_terms: usize,
}

/// The recall engine: records plus indexes.
#[derive(Debug, Default)]
pub struct Engine {
    config: EngineConfig,
    records: Vec<Option<Memory>>,
    ids: HashMap<String, DocId>,
    porter: InvertedIndex,
    trigram_en: FuzzyIndex,
    trigram_orig: FuzzyIndex,
    scratch: Scratch,
    terms: String,
    notes: NoteStore,
    graph: Graph,
}

impl Engine {
    /// A new, empty engine. Fails with `invalid_argument` on bad parameters.
    pub fn new(config: EngineConfig) -> Result<Self> {
        config.score.validate()?;
        Ok(Engine {
            config,
            ..Engine::default()
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
        self.ids.is_empty()
    }

    /// Counts of memories and index terms.
    pub fn stats(&self) -> Stats {
        Stats {
            memories: self.len(),
            porter_terms: self.porter.vocabulary_len(),
            fuzzy_terms: self.trigram_en.vocabulary_len(),
        }
    }

    /// The memory with this id.
    pub fn get(&self, id: &str) -> Option<&Memory> {
        self.ids.get(id).and_then(|&d| self.memory(d))
    }

    /// Every live memory id, in insertion order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.records.iter().flatten().map(|m| m.id.as_str())
    }

    /// Adds a new memory. Fails with `already_exists` if the id is taken, or with the
    /// validation error; nothing changes on failure.
    pub fn insert(&mut self, memory: Memory) -> Result<()> {
        memory.validate()?;
        if self.ids.contains_key(&memory.id) {
            return Err(already_exists(&memory.id));
        }
        self.insert_valid(memory)
    }

    /// Adds every memory or none. The error names the index of the first bad item.
    pub fn insert_many(&mut self, memories: Vec<Memory>) -> Result<()> {
        let mut batch_ids: HashMap<&str, usize> = HashMap::with_capacity(memories.len());
        for (i, m) in memories.iter().enumerate() {
            m.validate().map_err(|e| at_item(i, e))?;
            if self.ids.contains_key(&m.id) {
                return Err(at_item(i, already_exists(&m.id)));
            }
            if let Some(first) = batch_ids.insert(&m.id, i) {
                return Err(at_item(
                    i,
                    Error::AlreadyExists(format!("id \"{}\" repeats item {first}", m.id)),
                ));
            }
        }
        self.records.reserve(memories.len());
        for m in memories {
            self.insert_valid(m)?;
        }
        Ok(())
    }

    /// Replaces the stored memory that has `memory.id` (all fields), re-indexing its text.
    /// Fails with `not_found` or a validation error; nothing changes on failure.
    pub fn replace(&mut self, memory: Memory) -> Result<()> {
        memory.validate()?;
        let doc = *self
            .ids
            .get(&memory.id)
            .ok_or_else(|| not_found(&memory.id))?;
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
        Ok(())
    }

    /// Removes a memory and returns it. Fails with `not_found`.
    pub fn remove(&mut self, id: &str) -> Result<Memory> {
        let doc = self.ids.remove(id).ok_or_else(|| not_found(id))?;
        let memory = self.records[doc.0 as usize]
            .take()
            .ok_or_else(|| not_found(id))?;
        self.unindex(doc, &memory);
        Ok(memory)
    }

    /// Runs a recall. `clock` returns milliseconds and is only used for stage timings.
    pub fn recall(
        &mut self,
        query: &str,
        options: &RecallOptions,
        clock: &dyn Fn() -> f64,
    ) -> Result<RecallOutput> {
        options.filter.validate()?;
        if options.limit == 0 {
            return Err(Error::InvalidArgument(
                "limit must be at least 1, got 0".into(),
            ));
        }
        let limit = options.limit.min(MAX_LIMIT);
        let started = clock();
        let indexes = SfIndexes {
            porter: &self.porter,
            trigram_en: &self.trigram_en,
            trigram_orig: &self.trigram_orig,
        };
        let sf_query = SfQuery {
            text: query,
            limit,
            filter: &options.filter,
            params: &self.config.score,
        };
        let records = &self.records;
        let hits = sf::run(
            indexes,
            sf_query,
            |d| records.get(d.0 as usize).and_then(Option::as_ref),
            &mut self.scratch,
        );
        let sf_report = StageReport {
            name: "Sf",
            hits: hits.len(),
            ms: clock() - started,
            skipped: false,
            reason: None,
        };
        let now = options.filter.now;
        let mut results = Vec::with_capacity(hits.len());
        for hit in hits {
            let Some(Some(m)) = self.records.get_mut(hit.doc.0 as usize) else {
                continue;
            };
            if options.track_recalls {
                track_recall(m, now);
            }
            results.push(RecallHit {
                id: m.id.clone(),
                stage: hit.source.label(),
                score: hit.score,
                components: hit.components,
                memory: m.clone(),
            });
        }
        Ok(RecallOutput {
            results,
            stages: vec![sf_report],
        })
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

    /// Every note.
    pub fn notes(&self) -> impl Iterator<Item = &Note> {
        self.notes.iter()
    }

    /// The entity graph (read-only).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Adds an entity, or merges it into the one with the same name.
    pub fn add_entity(&mut self, entity: Entity) -> Result<()> {
        self.graph.add_entity(entity)
    }

    /// Removes an entity and its edges.
    pub fn remove_entity(&mut self, name: &str) -> Result<Entity> {
        self.graph.remove_entity(name)
    }

    /// Relates two entities (created if unknown); relating again updates the edge.
    pub fn relate(
        &mut self,
        from: &str,
        relation: &str,
        to: &str,
        strength: Option<f64>,
        memory_ids: &[String],
        now: f64,
    ) -> Result<Edge> {
        self.graph
            .relate(from, relation, to, strength, memory_ids, now)
            .cloned()
    }

    /// Stores a whole edge record (used when loading persisted edges).
    pub fn upsert_edge(&mut self, edge: Edge) -> Result<Edge> {
        self.graph.upsert_edge(edge).cloned()
    }

    /// Removes the edges `from —[relation]→ to` (any relation when `None`); returns how many.
    pub fn unrelate(&mut self, from: &str, relation: Option<&str>, to: &str) -> Result<usize> {
        self.graph.unrelate(from, relation, to)
    }

    fn memory(&self, doc: DocId) -> Option<&Memory> {
        self.records.get(doc.0 as usize).and_then(Option::as_ref)
    }

    /// Indexes and stores a validated memory under the next `DocId`.
    fn insert_valid(&mut self, memory: Memory) -> Result<()> {
        let doc = u32::try_from(self.records.len())
            .map(DocId)
            .map_err(|_| Error::TooLarge("a store holds at most 2^32 memories".into()))?;
        self.index(doc, &memory)?;
        self.ids.insert(memory.id.clone(), doc);
        self.records.push(Some(memory));
        Ok(())
    }

    /// Adds `m`'s terms to every index. `self.terms` is a reusable NUL-separated buffer.
    ///
    /// `doc` is always fresh (or just unindexed) and validated texts stay far below the
    /// indexes' `u32` limits, so this cannot fail in practice; if it ever did, the partial
    /// entries are removed again so no index is left half-written.
    fn index(&mut self, doc: DocId, m: &Memory) -> Result<()> {
        let mut buffer = std::mem::take(&mut self.terms);
        let result = self.index_with(&mut buffer, doc, m);
        if result.is_err() {
            self.unindex_with(&mut buffer, doc, m);
        }
        self.terms = buffer;
        result
    }

    fn index_with(&mut self, buffer: &mut String, doc: DocId, m: &Memory) -> Result<()> {
        fill_porter_terms(buffer, m);
        self.porter.insert(doc, buffer.split_terminator('\0'))?;
        fill_en_words(buffer, m);
        self.trigram_en.insert(doc, buffer.split_terminator('\0'))?;
        if m.has_distinct_original() {
            fill_words(buffer, &m.text);
            self.trigram_orig
                .insert(doc, buffer.split_terminator('\0'))?;
        }
        Ok(())
    }

    fn unindex(&mut self, doc: DocId, m: &Memory) {
        let mut buffer = std::mem::take(&mut self.terms);
        self.unindex_with(&mut buffer, doc, m);
        self.terms = buffer;
    }

    fn unindex_with(&mut self, buffer: &mut String, doc: DocId, m: &Memory) {
        fill_porter_terms(buffer, m);
        self.porter.remove(doc, buffer.split_terminator('\0'));
        fill_en_words(buffer, m);
        self.trigram_en.remove(doc, buffer.split_terminator('\0'));
        if m.has_distinct_original() {
            fill_words(buffer, &m.text);
            self.trigram_orig.remove(doc, buffer.split_terminator('\0'));
        }
    }
}

fn fill_porter_terms(buffer: &mut String, m: &Memory) {
    buffer.clear();
    text::for_each_term(m.text_en(), |t| push_term(buffer, t));
}

fn fill_en_words(buffer: &mut String, m: &Memory) {
    fill_words(buffer, m.text_en());
    for keyword in &m.keywords {
        text::tokenize::for_each_token(keyword, |t| push_term(buffer, t));
    }
}

fn fill_words(buffer: &mut String, text: &str) {
    buffer.clear();
    text::tokenize::for_each_token(text, |t| push_term(buffer, t));
}

/// Seed 000 recall tracking: count, last time, and the last 20 timestamps.
fn track_recall(m: &mut Memory, now: f64) {
    m.recall_count = m.recall_count.saturating_add(1);
    m.last_recalled_at = Some(now);
    m.recall_timestamps.push(now);
    if m.recall_timestamps.len() > MAX_RECALL_TIMESTAMPS {
        let excess = m.recall_timestamps.len() - MAX_RECALL_TIMESTAMPS;
        m.recall_timestamps.drain(..excess);
    }
}

fn already_exists(id: &str) -> Error {
    Error::AlreadyExists(format!("a memory with id \"{id}\" already exists"))
}

fn not_found(id: &str) -> Error {
    Error::NotFound(format!("no memory with id \"{id}\""))
}

/// Prefixes an error's detail with the batch item it concerns, keeping its code.
fn at_item(index: usize, e: Error) -> Error {
    let detail = e.to_string();
    let detail = detail.split_once(": ").map_or(detail.as_str(), |(_, d)| d);
    let message = format!("item {index}: {detail}");
    match e {
        Error::InvalidArgument(_) => Error::InvalidArgument(message),
        Error::NotFound(_) => Error::NotFound(message),
        Error::AlreadyExists(_) => Error::AlreadyExists(message),
        Error::TooLarge(_) => Error::TooLarge(message),
        Error::InvalidEmbedding(_) => Error::InvalidEmbedding(message),
        Error::Corrupt(_) => Error::Corrupt(message),
        Error::DimensionMismatch { .. } => Error::InvalidArgument(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        engine.insert_many(memories).unwrap();
        engine
    }

    fn recall_ids(engine: &mut Engine, query: &str, options: &RecallOptions) -> Vec<String> {
        let out = engine.recall(query, options, &|| 0.0).unwrap();
        out.results.into_iter().map(|r| r.id).collect()
    }

    fn no_tracking() -> RecallOptions {
        RecallOptions {
            track_recalls: false,
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
            .recall("migrating databases", &no_tracking(), &|| 0.0)
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
        let out = e.recall("deploy", &no_tracking(), &|| 0.0).unwrap();
        assert_eq!(out.results[0].stage, "Sf:trigram_en");
    }

    #[test]
    fn original_text_is_searched_only_when_it_differs() {
        let mut e = engine_with(vec![Memory {
            text_en: Some("We chose PostgreSQL for the warehouse".into()),
            ..memory("fr", "Nous avons choisi PostgreSQL pour l'entrepôt")
        }]);
        let out = e.recall("entrepot", &no_tracking(), &|| 0.0).unwrap();
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
            .recall("deployment deploy", &no_tracking(), &|| 0.0)
            .unwrap();
        assert_eq!(out.results.len(), 1);
        let porter_only = e.recall("deployment", &no_tracking(), &|| 0.0).unwrap();
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
        };
        assert_eq!(recall_ids(&mut e, "shared", &options), ["rare"]);
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
        let err = e.insert_many(bad).unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
        assert!(err
            .to_string()
            .starts_with("invalid_argument: item 1: emotion"));
        let dup = vec![memory("a", "one"), memory("a", "two")];
        assert_eq!(e.insert_many(dup).unwrap_err().code(), "already_exists");
        let taken = vec![memory("x", "again")];
        assert_eq!(e.insert_many(taken).unwrap_err().code(), "already_exists");
        assert_eq!(e.len(), 1);
        assert!(recall_ids(&mut e, "fine", &no_tracking()).is_empty());
    }

    #[test]
    fn replace_reindexes_and_remove_forgets() {
        let mut e = engine_with(vec![memory("a", "apples"), memory("b", "apples too")]);
        e.replace(memory("a", "bananas")).unwrap();
        assert_eq!(recall_ids(&mut e, "apples", &no_tracking()), ["b"]);
        assert_eq!(recall_ids(&mut e, "bananas", &no_tracking()), ["a"]);
        assert_eq!(
            e.replace(memory("zz", "x")).unwrap_err().code(),
            "not_found"
        );
        let bad = Memory {
            trust: Some(9.0),
            ..memory("a", "cherries")
        };
        assert_eq!(e.replace(bad).unwrap_err().code(), "invalid_argument");
        assert_eq!(e.get("a").unwrap().text, "bananas");
        assert_eq!(e.remove("a").unwrap().text, "bananas");
        assert!(recall_ids(&mut e, "bananas", &no_tracking()).is_empty());
        assert_eq!(e.remove("a").unwrap_err().code(), "not_found");
        assert_eq!(e.ids().collect::<Vec<_>>(), ["b"]);
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
            e.recall("delta", &options, &|| 0.0).unwrap();
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
            e.recall("tea", &zero, &|| 0.0).unwrap_err().code(),
            "invalid_argument"
        );
        let big = RecallOptions {
            limit: 5000,
            ..no_tracking()
        };
        assert_eq!(
            e.recall("tea", &big, &|| 0.0).unwrap().results.len(),
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
            e.recall("tea", &bad, &|| 0.0).unwrap_err().code(),
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
        let out = e.recall("x", &no_tracking(), &clock).unwrap();
        assert_eq!(out.stages[0].ms, 2.5);
    }

    #[test]
    fn an_empty_query_finds_nothing() {
        let mut e = engine_with(vec![memory("a", "x")]);
        assert!(recall_ids(&mut e, "", &no_tracking()).is_empty());
        assert!(recall_ids(&mut e, " ?! ", &no_tracking()).is_empty());
    }
}
