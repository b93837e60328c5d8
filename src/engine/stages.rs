//! What the two pipelines of phase 2 share: `recall.rs` runs abmind's (the `abmind` ranking:
//! the first stage that finds a record keeps it) and `gather.rs` the fused rankings' (every
//! stage adds its evidence). Both run the stages in the same order, Se (embedding), Ss
//! (signature), S6 (notes), S8 (graph), over the same searches, into one [`Pool`] of
//! candidates; they differ in what they record about each hit.
//!
//! Shared here: the query a stage reads ([`StageQuery`]), the pool, the hits kept for the
//! results ([`Found`]), the rule that skips Se and Ss ([`meaning_skip`], [`se_vector`]), the
//! searches of Ss, S6 and S8, and the candidates every stage starts from
//! ([`memory_candidate`], [`note_candidate`], [`edge_candidate`]).

use super::output::StageReport;
use super::recall::{RecallOptions, SearchMode};
use super::Engine;
use crate::graph::{EdgeHit, GraphMatch};
use crate::notes::NoteHit;
use crate::rank::{Candidate, CandidateKey};
use crate::recall::filter::Filter;
use crate::signature as lsh;
use crate::store::{DocId, DocMap, Records, StoredMemory};

/// What every stage of phase 2 reads of the recall: its (capped) query, filter, mode and
/// limit, and the caller's clock for the stage timings.
#[derive(Clone, Copy)]
pub(super) struct StageQuery<'a> {
    /// The query text.
    pub(super) text: &'a str,
    /// The recall's filter.
    pub(super) filter: &'a Filter,
    /// Which stages run.
    pub(super) mode: SearchMode,
    /// The recall's limit (already clamped).
    pub(super) limit: usize,
    /// `entityHints`: seeds of stage S8's PageRank besides the entities the query names.
    pub(super) entity_hints: &'a [String],
    clock: &'a dyn Fn() -> f64,
}

impl<'a> StageQuery<'a> {
    /// The stage query of a recall of `text` with `options`, cut to `limit`.
    pub(super) fn new(
        text: &'a str,
        options: &'a RecallOptions,
        limit: usize,
        clock: &'a dyn Fn() -> f64,
    ) -> Self {
        StageQuery {
            text,
            filter: &options.filter,
            mode: options.mode,
            limit,
            entity_hints: &options.entity_hints,
            clock,
        }
    }

    /// The caller's clock, in milliseconds.
    pub(super) fn time(&self) -> f64 {
        (self.clock)()
    }
}

/// Hits of the later stages, kept beside the candidates that point into them.
#[derive(Default)]
pub(super) struct Found {
    /// Stage S6's paragraphs; a note candidate's key indexes them.
    pub(super) notes: Vec<NoteHit>,
    /// Stage S8's edges; an edge candidate's key indexes them.
    pub(super) edges: Vec<EdgeHit>,
    /// How many memories stage Se returned.
    pub(super) se_hits: usize,
}

/// The candidates so far: one per memory, in the order the stages found them, and the note
/// paragraphs and edges after them in stage order.
#[derive(Default)]
pub(super) struct Pool {
    /// The candidates.
    pub(super) cands: Vec<Candidate>,
    by_doc: DocMap<usize>,
}

impl Pool {
    /// The position of `doc`'s candidate, if it has one.
    pub(super) fn position(&self, doc: DocId) -> Option<usize> {
        self.by_doc.get(&doc).copied()
    }

    /// The position of `doc`'s candidate, adding one labelled `stage` (the first stage that
    /// found it) when there is none; `None` for a memory that is gone.
    pub(super) fn slot(
        &mut self,
        engine: &Engine,
        doc: DocId,
        stage: &'static str,
        raw: f64,
    ) -> Option<usize> {
        if let Some(i) = self.position(doc) {
            return Some(i);
        }
        let m = engine.memory(doc)?;
        self.by_doc.insert(doc, self.cands.len());
        self.cands.push(memory_candidate(doc, stage, raw, m));
        Some(self.cands.len() - 1)
    }

    /// A new candidate for `doc`, labelled `stage` with raw score `raw`; `None` when `doc`
    /// already has one (an earlier stage found it first) or its memory is gone.
    pub(super) fn insert(
        &mut self,
        engine: &Engine,
        doc: DocId,
        stage: &'static str,
        raw: f64,
    ) -> Option<&mut Candidate> {
        if self.position(doc).is_some() {
            return None;
        }
        let i = self.slot(engine, doc, stage, raw)?;
        Some(&mut self.cands[i])
    }

    /// Adds a candidate that is not a memory (a note paragraph or an edge).
    pub(super) fn push(&mut self, c: Candidate) {
        self.cands.push(c);
    }
}

/// Why the meaning stages, Se and Ss, do not run whatever the ranking: a lexical recall, or
/// the short-circuit (stage Sf already holds `limit` strong hits).
pub(super) fn meaning_skip(mode: SearchMode, short_circuit: bool) -> Option<&'static str> {
    match mode {
        SearchMode::Lexical => Some("lexical_mode"),
        _ if short_circuit => Some("short_circuit"),
        _ => None,
    }
}

/// The query vector stage Se runs with, or the report of a skipped Se: for `skip`, or for
/// want of a vector (`reason` from the host, else `no_embedder`).
pub(super) fn se_vector<'v>(
    skip: Option<&str>,
    vector: Option<&'v [f32]>,
    reason: Option<&str>,
) -> Result<&'v [f32], StageReport> {
    match (skip, vector) {
        (Some(skip), _) => Err(StageReport::skipped("Se", skip)),
        (None, None) => Err(StageReport::skipped("Se", reason.unwrap_or("no_embedder"))),
        (None, Some(vector)) => Ok(vector),
    }
}

impl Engine {
    /// Stage Ss's search: signs what is unsigned, then the memories passing `filter` whose
    /// signature is within the threshold of the query's (at most `ss_max_hits`); also returns
    /// the query's signature.
    pub(super) fn ss_search(
        &mut self,
        query: &str,
        filter: &Filter,
    ) -> (lsh::Signature, Vec<(DocId, f64)>) {
        self.sign_unsigned();
        let signature = lsh::signature(query, self.config.signature_seed);
        let records = &self.records;
        let hits = self.signatures.search(
            &signature,
            self.config.ss_threshold,
            self.config.ss_max_hits,
            |d| accepts(records, filter, d),
        );
        (signature, hits)
    }

    /// Stage S6's search (nothing for a conversation's recall): the paragraphs of the notes the reader sees in the recall's window
    /// that hold a keyword of the query, at most `limit` ([`crate::notes::NoteStore::search`]).
    pub(super) fn s6_search(&self, q: &StageQuery) -> Vec<NoteHit> {
        if q.filter.reads_conversation() {
            return Vec::new();
        }
        let window = (q.filter.start, q.filter.end);
        self.notes.search(q.text, window, q.filter.scope(), q.limit)
    }

    /// Stage S8's search for `abmind` (nothing for a conversation's recall): the first entity the query names and its edges the reader sees, at
    /// most `limit` ([`crate::graph::Graph::search`]).
    pub(super) fn s8_search(&self, q: &StageQuery) -> GraphMatch {
        if q.filter.reads_conversation() {
            return GraphMatch::default();
        }
        self.graph.search(q.text, q.filter.scope(), q.limit)
    }

    /// Stage S8's search for the other rankings (nothing for a conversation's recall): the
    /// edges Personalized PageRank ranks from the entities the query names and the
    /// `entityHints`, at most `limit` ([`crate::graph::Graph::personalized`]). A relation is
    /// named when the query holds every content word of it (`terms`, stemmed: "acquired by"
    /// names `acquired_by`).
    pub(super) fn s8_personalized(&self, q: &StageQuery, terms: &[String]) -> GraphMatch {
        if q.filter.reads_conversation() {
            return GraphMatch::default();
        }
        let names_relation = |relation: &str| {
            let words = crate::rank::evidence::query_terms(relation);
            !words.is_empty() && words.iter().all(|w| terms.contains(w))
        };
        let scope = q.filter.scope();
        (self.graph).personalized(q.text, q.entity_hints, &names_relation, scope, q.limit)
    }
}

/// Whether `doc`'s memory exists and passes `filter`.
pub(super) fn accepts(records: &Records, filter: &Filter, doc: DocId) -> bool {
    records
        .get(doc.0 as usize)
        .and_then(Option::as_ref)
        .is_some_and(|m| filter.accepts(doc, m))
}

/// The candidate of memory `m` (document `doc`) as stage `stage` found it with raw score
/// `raw`: its text, time, topic, emotion and recalls.
pub(super) fn memory_candidate(
    doc: DocId,
    stage: &'static str,
    raw: f64,
    m: &StoredMemory,
) -> Candidate {
    let mut c = Candidate::new(CandidateKey::Memory(doc), stage, raw, m.text_en());
    c.created_at = Some(m.created_at());
    c.updated_at = Some(m.updated_at());
    c.topic = m.topic().map(str::to_owned);
    c.emotion = m.emotion();
    c.recall_timestamps = m.recall_timestamps().to_vec();
    c
}

/// The candidate of stage S6's `i`-th hit: labelled by its note's period, with the note's
/// start as its time.
pub(super) fn note_candidate(i: usize, hit: &NoteHit) -> Candidate {
    let key = CandidateKey::Note {
        note: i as u32,
        paragraph: hit.paragraph,
    };
    let mut c = Candidate::new(key, hit.period.stage_label(), hit.score, hit.text.clone());
    c.created_at = Some(hit.start);
    c
}

/// The candidate of stage S8's `i`-th hit, the edge's text (`alice —[works_with]→ bob`).
pub(super) fn edge_candidate(i: usize, hit: &EdgeHit) -> Candidate {
    Candidate::new(
        CandidateKey::Edge(i as u32),
        "S8",
        hit.score,
        hit.text.clone(),
    )
}
