//! The shapes a recall returns: results with their score breakdowns, and per-stage reports.
//! [`crate::wire::outputs`] writes them for the boundary.

use crate::graph::Edge;
use crate::notes::Period;
use crate::store::Memory;

/// An ordered list of named score factors, written as a map in that order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Components(pub Vec<(&'static str, f64)>);

impl Components {
    /// The value of a named factor (the last one recorded under that name).
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }
}

/// What kind of record a result is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitKind {
    /// A memory (stages Sf, Se, Ss).
    Memory,
    /// A paragraph of a consolidation note (stage S6).
    Note,
    /// A relation of the entity graph (stage S8).
    Edge,
}

/// The note paragraph a stage S6 result comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteRef {
    /// The note's id.
    pub id: String,
    /// Its period.
    pub period: Period,
    /// Its start (ms).
    pub start: f64,
    /// The paragraph's position in the note (0-based).
    pub paragraph: u32,
}

/// Metadata shown with every memory result (abmind's enrichment).
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata {
    /// Topic.
    pub topic: Option<String>,
    /// Type (fact, preference, …).
    pub kind: Option<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// Emotion labels.
    pub emotion_tags: Vec<String>,
    /// Importance, 0..1.
    pub importance: Option<f64>,
    /// Confidence, 0..1.
    pub confidence: Option<f64>,
    /// Creation time (ms).
    pub created_at: f64,
}

/// One entry of a topic timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineItem {
    /// The result's id.
    pub id: String,
    /// Its creation time (ms).
    pub created_at: f64,
    /// Its local date, `YYYY-MM-DD`.
    pub date: String,
}

/// One recall result.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallHit {
    /// The memory id, `note:<id>#<paragraph>` for notes, or the edge id.
    pub id: String,
    /// What the result is.
    pub kind: HitKind,
    /// The stage (and sub-query) that found it, e.g. `Sf:porter`, `Se`, `S6:weekly`.
    pub stage: &'static str,
    /// Final score.
    pub score: f64,
    /// The memory text, note paragraph or `alice —[works_with]→ bob`.
    pub text: String,
    /// Every factor applied, in order: the stage's own breakdown, `raw`, `calibrated`, each
    /// boost or penalty, `rankBeforeMmr` and `rankAfterMmr`.
    pub components: Components,
    /// The memory, as stored after this recall (memory results only).
    pub memory: Option<Memory>,
    /// Metadata (memory results only).
    pub metadata: Option<Metadata>,
    /// The note paragraph (S6 results only).
    pub note: Option<NoteRef>,
    /// The edge (S8 results only).
    pub edge: Option<Edge>,
    /// When other results share this result's topic: that topic's results in time order.
    pub timeline: Option<Vec<TimelineItem>>,
    /// Ids of results this one contradicts.
    pub conflicts: Option<Vec<String>>,
    /// `"⚠️ Conflicts with another result"` when `conflicts` is set.
    pub warning: Option<&'static str>,
    /// How it was matched (AutoMem's `match_type`): `keyword` (stage Sf), `semantic` (Se),
    /// `signature` (Ss), `note` (S6), `entity` (S8), `trending` or `tag` (a recall with no
    /// query, without or with a tag filter), `priority` (a `priorityIds` memory no stage
    /// found).
    pub match_type: &'static str,
    /// The query texts that found this memory, when several did (`queries`).
    pub deduped_from: Option<Vec<String>>,
    /// The ids of memories with the same normalised text that this result stands for
    /// (Engram's content-hash dedup, [`crate::engine::dedup`]); empty when none.
    pub duplicate_ids: Vec<String>,
    /// Where an expanded memory came from (`expandRelations`, `expandEntities`).
    pub expanded_from: Option<super::expand::Origin>,
    /// With `expandRelations`, the ids of the memory's edges the reader sees.
    pub relations: Option<Vec<String>>,
}

/// What a question became before the stages searched it (Engram's query pipeline): the time
/// words read into the window ([`TimeWindow`] with source `query`) and taken out, and the
/// pronouns resolved to entities.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueryReport {
    /// The question as asked.
    pub text: String,
    /// What the stages searched.
    pub search_text: String,
    /// The words read as the time window ("last week"); empty when none were.
    pub resolved_from: String,
    /// The window read from `resolved_from` held nothing, so it was dropped and the whole
    /// question searched instead ("is the office open on Saturday?").
    pub window_dropped: bool,
    /// The pronouns resolved (or found ambiguous), in the question's order.
    pub pronouns: Vec<crate::recall::pronoun::Resolution>,
}

/// The time window a recall applied (AutoMem's `time_window`).
#[derive(Debug, Clone, PartialEq)]
pub struct TimeWindow {
    /// Earliest `createdAt` kept (ms), if bounded.
    pub start: Option<f64>,
    /// Latest `createdAt` kept (ms), if bounded.
    pub end: Option<f64>,
    /// `timeQuery` when the window came from that option's words, `query` when from words of
    /// the question, `options` when only from `start` / `end`.
    pub source: &'static str,
}

/// What one stage did during a recall.
#[derive(Debug, Clone, PartialEq)]
pub struct StageReport {
    /// Stage name: `Sf`, `Se`, `Ss`, `S6`, `S8`, and `rerank` when the host reranks.
    pub name: &'static str,
    /// Hits the stage found (before cross-stage dedup).
    pub hits: usize,
    /// Time spent, in milliseconds, by the clock the caller passed.
    pub ms: f64,
    /// Whether the stage was skipped.
    pub skipped: bool,
    /// Why it was skipped: `short_circuit`, `lexical_mode`, `semantic_mode`, `no_embedder`,
    /// `embed_failed`, `embed_timeout`, `not_ranked`, `semantic_evidence`, `no_query` (a
    /// trending recall); the reranker's:
    /// `rerank_failed`, `rerank_timeout`.
    pub reason: Option<String>,
}

impl StageReport {
    /// A stage that ran.
    pub fn ran(name: &'static str, hits: usize, ms: f64) -> Self {
        StageReport {
            name,
            hits,
            ms,
            skipped: false,
            reason: None,
        }
    }

    /// A stage that was skipped, and why.
    pub fn skipped(name: &'static str, reason: &str) -> Self {
        StageReport {
            name,
            hits: 0,
            ms: 0.0,
            skipped: true,
            reason: Some(reason.to_string()),
        }
    }
}

/// The answer to a recall.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallOutput {
    /// Results, best first.
    pub results: Vec<RecallHit>,
    /// One report per stage, in pipeline order (Sf, Se, Ss, S6, S8, then `rerank` if any).
    pub stages: Vec<StageReport>,
    /// The time window applied, if any.
    pub time_window: Option<TimeWindow>,
    /// What the question became, when time words were read out of it or pronouns resolved.
    pub query: Option<QueryReport>,
    /// The tag filter applied (`tags`, folded), empty when none.
    pub tags: Vec<String>,
    /// Results dropped as duplicates when several query texts' results were merged.
    pub dedup_removed: usize,
    /// With `expandRelations`: the seed results, and the memories relations added.
    pub expansion: Option<(usize, usize)>,
    /// With `expandEntities`: the entities expanded through, and the memories added.
    pub entity_expansion: Option<(Vec<String>, usize)>,
}
