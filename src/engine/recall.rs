//! The recall pipeline: Sf → Se → Ss → S6 → S8, deduplicated across stages (first stage wins),
//! then calibrated, boosted, reordered by MMR, truncated and enriched: abmind's recall pipeline
//! (`docs/design-sources.md` §1), the `abmind` ranking. The other rankings share phase 1 and
//! run their own phase 2 (`gather.rs`); what the two phase 2 pipelines share is in `stages.rs`.
//!
//! A recall runs in two phases so the host can overlap its query embedding with stage Sf:
//! [`Engine::begin_recall`] runs Sf and decides the short-circuit; the host then awaits its
//! embedding only when Se will run, and [`Engine::finish_recall`] runs the rest.
//! [`Engine::recall`] does both at once for callers with a ready vector (or none).
//!
//! Short-circuit: Se and Ss are skipped when Sf found at least `limit` hits whose calibrated
//! score reaches `short_circuit_floor` (`0` counts every hit: abmind's rule exactly). Ss, the
//! fallback for meaning without embeddings, is also skipped when Sf and Se together hold
//! `limit` such hits (as in abmind's worked example, where Se runs and Ss is skipped).

use crate::engine::answer::match_type;
use crate::engine::output::{
    Components, HitKind, Metadata, NoteRef, QueryReport, RecallHit, RecallOutput, StageReport,
    TimeWindow, TimelineItem,
};
use crate::engine::stages::{
    accepts, edge_candidate, meaning_skip, note_candidate, se_vector, Found, Pool, StageQuery,
};
use crate::engine::Engine;
use crate::engine::{DEFAULT_MIN_SCORE, DEFAULT_SE_THRESHOLD};
use crate::error::{check_unit, Error, Result};
use crate::notes::NoteHit;
use crate::rank::host::RERANK_DEPTH;
use crate::rank::order::Sort;
use crate::rank::{self, Candidate, CandidateKey, Context, PostProcessOptions, Ranking, Weights};
use crate::recall::filter::Filter;
use crate::recall::sf::{self, SfHit, SfIndexes, SfQuery};
use crate::store::StoredMemory;

/// Largest `limit` a recall accepts; larger values are clamped (AutoMem's `RECALL_MAX_LIMIT`).
pub const MAX_LIMIT: usize = 100;
/// Default number of results.
pub const DEFAULT_LIMIT: usize = 10;
/// Se returns up to `limit ×` this many candidates (abmind: "over-fetches for MMR").
pub const SE_OVERFETCH: usize = 3;

/// Which stages run (abmind's `MEMORY_SEARCH_MODE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchMode {
    /// Every stage.
    #[default]
    Hybrid,
    /// Sf, S6 and S8; no Se or Ss.
    Lexical,
    /// Se and Ss (plus S6 and S8, which always run); no Sf.
    Semantic,
}

impl SearchMode {
    /// Parses `hybrid`, `lexical` or `semantic`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "hybrid" => Ok(SearchMode::Hybrid),
            "lexical" => Ok(SearchMode::Lexical),
            "semantic" => Ok(SearchMode::Semantic),
            other => Err(Error::InvalidArgument(format!(
                "searchMode must be \"hybrid\", \"lexical\" or \"semantic\", got \"{other}\""
            ))),
        }
    }
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
    /// Which stages run.
    pub mode: SearchMode,
    /// The caller's context for the context boost.
    pub context: Option<Context>,
    /// MMR λ for this recall (default: the engine's for `abmind`, the model's for the others).
    pub mmr_lambda: Option<f64>,
    /// The ranking model (default: the engine's).
    pub ranking: Option<Ranking>,
    /// Results scoring below this are dropped (default: the engine's).
    pub min_score: Option<f64>,
    /// Weights of the `weighted` model to change for this recall, by name.
    pub weights: Vec<(String, f64)>,
    /// `timeQuery`: a time expression in words ([`crate::recall::time`]), resolved against
    /// `filter.as_of` when set, else `filter.now`, and the context's UTC offset into
    /// `filter.start` / `filter.end`; a bound the caller gave explicitly wins.
    pub time_query: Option<String>,
    /// Read a time expression in the query's own words ("what did I do yesterday?") into the
    /// window and search the rest (Engram's time words, [`crate::recall::time::find_in`]);
    /// explicit `start` / `end` / `timeQuery` win. Default true.
    pub resolve_time: bool,
    /// Resolve the question's pronouns to entities ("what did she decide?" → "what did Alice
    /// decide?"; [`crate::recall::pronoun`], `engine/mentions.rs`): from `context.entities`,
    /// else from the entities the reader's newest memories name. Default true.
    pub resolve_pronouns: bool,
    /// How results are ordered (default: by score; `time_desc` for a recall with no query and
    /// a time window).
    pub sort: Option<Sort>,
    /// More queries run in the same recall and merged (`engine/multi.rs`).
    pub queries: Vec<String>,
    /// Also run a sub-query per entity and content word of the query (`engine/multi.rs`).
    pub auto_decompose: bool,
    /// Memories always in the answer if the reader may see them (`engine/multi.rs`).
    pub priority_ids: Vec<String>,
    /// Follow the graph from the results to related memories (`engine/expand.rs`).
    pub expand_relations: bool,
    /// Multi-hop through the entities the question names (`engine/expand.rs`).
    pub expand_entities: bool,
    /// Edges followed per result, 1..=200 (default 5).
    pub relation_limit: usize,
    /// Memories the expansions add in all, 1..=500 (default 25).
    pub expansion_limit: usize,
    /// Weakest edge followed, 0..=1 (default 0).
    pub expand_min_strength: f64,
    /// Least importance of an expanded memory (absent: 0), 0..=1 (default 0).
    pub expand_min_importance: f64,
    /// Entities stage S8's PageRank starts from besides those the query names (Memoria's
    /// `entityHints`; names or aliases, at most [`crate::graph::ppr::MAX_SEEDS`], unknown ones
    /// ignored; not read by the `abmind` ranking, whose S8 matches the query only).
    pub entity_hints: Vec<String>,
}

impl Default for RecallOptions {
    fn default() -> Self {
        RecallOptions {
            limit: DEFAULT_LIMIT,
            filter: Filter::default(),
            track_recalls: true,
            mode: SearchMode::Hybrid,
            context: None,
            mmr_lambda: None,
            ranking: None,
            min_score: None,
            weights: Vec::new(),
            time_query: None,
            resolve_time: true,
            resolve_pronouns: true,
            sort: None,
            queries: Vec::new(),
            auto_decompose: false,
            priority_ids: Vec::new(),
            expand_relations: false,
            expand_entities: false,
            relation_limit: super::expand::DEFAULT_RELATION_LIMIT,
            expansion_limit: super::expand::DEFAULT_EXPANSION_LIMIT,
            expand_min_strength: 0.0,
            expand_min_importance: 0.0,
            entity_hints: Vec::new(),
        }
    }
}

/// A recall ranked and waiting for the host's reranker (see [`Engine::rank_for_rerank`]).
pub struct Ranked {
    pub(super) ranked: Vec<Candidate>,
    pub(super) found: Found,
    pub(super) stages: Vec<StageReport>,
    pub(super) options: RecallOptions,
    pub(super) limit: usize,
    /// Carried to [`Engine::finish_rerank`] (set by [`Engine::rank_for_rerank`]).
    pub(super) plan: Plan,
}

/// What a recall carries from phase 1 to its answer besides its options: the window it
/// applied and whether it had no query.
#[derive(Debug, Clone, Default)]
pub(super) struct Plan {
    /// The time window applied ([`Engine::plan`]).
    pub(super) window: Option<TimeWindow>,
    /// No query (empty or `*`) and, once phase 2 knows, no query vector either: trending
    /// ([`Engine::rank_trending`]).
    pub(super) trending: bool,
    /// Duplicates dropped when several query texts' results were merged.
    pub(super) dedup_removed: usize,
    /// Memories several query texts found, with those texts.
    pub(super) deduped_from: Vec<(crate::store::DocId, Vec<String>)>,
    /// The question as asked and the text searched, when time words were taken out of it.
    pub(super) question: Option<super::output::QueryReport>,
    /// The (main) query text, for entity expansion.
    pub(super) query: String,
    /// The text the host's query vector should be made from: the question as asked, with its
    /// pronouns resolved (time words kept); `None` before [`Engine::plan`].
    pub(super) embed_text: Option<String>,
    /// Memories kept for their text, with the repeats dropped ([`super::dedup`]).
    pub(super) same_text: Vec<(crate::store::DocId, Vec<crate::store::DocId>)>,
    /// The `start` / `end` the caller gave, which stay when a window from the question's
    /// words is dropped.
    pub(super) explicit: (Option<f64>, Option<f64>),
}

impl Ranked {
    /// The candidates' texts, in fused order, for the reranker (none for a trending recall,
    /// which has no query to rerank by).
    pub fn texts(&self) -> Vec<String> {
        if self.plan.trending {
            return Vec::new();
        }
        self.ranked.iter().map(|c| c.text.clone()).collect()
    }

    /// The number of candidates.
    pub fn len(&self) -> usize {
        self.ranked.len()
    }

    /// Whether there is nothing to rerank.
    pub fn is_empty(&self) -> bool {
        self.ranked.is_empty()
    }
}

/// A recall between its two phases: stage Sf's hits and the short-circuit decision.
#[derive(Debug, Clone)]
pub struct PendingRecall {
    pub(super) query: String,
    pub(super) options: RecallOptions,
    pub(super) limit: usize,
    pub(super) sf: Vec<SfHit>,
    /// Query words stage Sf read only through a correction ([`sf::SfRun::corrected`]).
    pub(super) corrected: u32,
    pub(super) sf_report: StageReport,
    pub(super) short_circuit: bool,
    pub(super) ranking: Ranking,
    pub(super) weights: Weights,
    pub(super) min_score: f64,
    pub(super) plan: Plan,
    /// The recall's other query texts, each run on its own and merged (`engine/multi.rs`).
    pub(super) more: Vec<PendingRecall>,
    /// Every query text this recall runs, this one first.
    pub(super) texts: Vec<String>,
}

/// A query text's options once checked, with what they resolve to ([`Engine::check_recall`]).
struct Validated {
    plan: Plan,
    options: RecallOptions,
    ranking: Ranking,
    weights: Weights,
    min_score: f64,
}

impl PendingRecall {
    /// Whether Se and Ss will be skipped, so the host need not wait for its embedding.
    pub fn short_circuit(&self) -> bool {
        self.short_circuit
    }

    /// Whether Se can run at all (hybrid or semantic mode, no short-circuit).
    pub fn wants_embedding(&self) -> bool {
        let me = self.options.mode != SearchMode::Lexical && !self.short_circuit;
        me || self.more.iter().any(PendingRecall::wants_embedding)
    }

    /// The query texts this recall runs that want a vector from the host, in the order their
    /// vectors go to phase 2: the query (unless empty or `*`; as asked, with its pronouns
    /// resolved), `queries`, `autoDecompose`'s sub-queries. Empty for a recall with no query (trending) or a lexical one.
    pub fn texts(&self) -> Vec<&str> {
        if self.options.mode == SearchMode::Lexical {
            return Vec::new();
        }
        match self.texts.len() {
            0 if self.plan.trending => Vec::new(),
            0 => vec![self.plan.embed_text.as_deref().unwrap_or(&self.query)],
            _ => self.texts.iter().map(String::as_str).collect(),
        }
    }

    /// Number of Sf hits.
    pub fn sf_hits(&self) -> usize {
        self.sf.len()
    }
}

impl Engine {
    /// Phase 1: validates the options and runs stage Sf, for each of the recall's query
    /// texts (`engine/multi.rs`: the query, `queries`, `autoDecompose`'s). The host's
    /// query vectors, one per text in that order (the texts it knows: the query, then
    /// `queries`), go to phase 2 end to end in one slice.
    pub fn begin_recall(
        &mut self,
        query: &str,
        options: RecallOptions,
        clock: &dyn Fn() -> f64,
    ) -> Result<PendingRecall> {
        let texts = self.query_texts(query, &options)?;
        if texts.len() <= 1 {
            let text = texts.first().map_or(query, String::as_str);
            return self.begin_one(text, options, clock);
        }
        let sub = RecallOptions {
            queries: Vec::new(),
            auto_decompose: false,
            priority_ids: Vec::new(),
            ..options.clone()
        };
        let mut main = self.begin_one(&texts[0], options, clock)?;
        for text in &texts[1..] {
            let run = self.begin_one(text, sub.clone(), clock)?;
            main.more.push(run);
        }
        main.texts = texts;
        Ok(main)
    }

    /// Checks a recall's query and options as [`Engine::begin_recall`] would, and runs
    /// nothing: for a trivial message ([`crate::recall::trivial`]), which is answered without
    /// any stage but must still refuse bad options.
    pub fn check_recall(&self, query: &str, options: RecallOptions) -> Result<()> {
        let texts = self.query_texts(query, &options)?;
        for text in texts.iter().map(String::as_str).chain([query]) {
            self.validated(text, options.clone())?;
        }
        Ok(())
    }

    /// The checks and the plan of one query text, before any stage runs.
    fn validated(&self, query: &str, mut options: RecallOptions) -> Result<Validated> {
        let plan = self.plan(query, &mut options)?;
        options.filter.validate()?;
        if options.limit == 0 {
            return Err(Error::InvalidArgument(
                "limit must be at least 1, got 0".into(),
            ));
        }
        if let Some(l) = options.mmr_lambda {
            check_lambda(l)?;
        }
        check_entity_hints(&options.entity_hints)?;
        let ranking = options.ranking.unwrap_or(self.config.ranking);
        let mut weights = self.config.weights;
        for (name, value) in &options.weights {
            weights.set(name, *value)?;
        }
        weights.validate()?;
        let min_score = match (options.min_score, self.config.min_score) {
            (Some(m), _) | (None, Some(m)) => m,
            (None, None) if ranking == Ranking::Recallkit => DEFAULT_MIN_SCORE,
            (None, None) => 0.0,
        };
        check_unit("minScore", min_score)?;
        Ok(Validated {
            plan,
            options,
            ranking,
            weights,
            min_score,
        })
    }

    /// Phase 1 of one query text.
    fn begin_one(
        &mut self,
        query: &str,
        options: RecallOptions,
        clock: &dyn Fn() -> f64,
    ) -> Result<PendingRecall> {
        let Validated {
            plan,
            options,
            ranking,
            weights,
            min_score,
        } = self.validated(query, options)?;
        // Time words taken out of the question: the stages search the rest.
        let query = plan
            .question
            .as_ref()
            .map_or(query, |q| q.search_text.as_str());
        let query = &*crate::recall::query::capped(query);
        let limit = options.limit.min(MAX_LIMIT);
        if options.mode == SearchMode::Semantic {
            return Ok(PendingRecall {
                query: query.to_string(),
                options,
                limit,
                sf: Vec::new(),
                corrected: 0,
                sf_report: StageReport::skipped("Sf", "semantic_mode"),
                short_circuit: false,
                ranking,
                weights,
                min_score,
                plan,
                more: Vec::new(),
                texts: Vec::new(),
            });
        }
        let fused = ranking != Ranking::Abmind;
        let started = clock();
        let keep = if fused { usize::MAX } else { limit };
        let sf = self.run_sf(query, limit, keep, &options.filter);
        let sf::SfRun {
            hits: sf,
            corrected,
        } = sf;
        let sf_report = StageReport::ran("Sf", sf.len(), clock() - started);
        let strong = match (fused, self.config.short_circuit_floor) {
            (true, None) => 0,
            (true, Some(floor)) => sf.iter().filter(|h| h.lexical >= floor).count(),
            (false, floor) => {
                let floor = floor.unwrap_or(0.0);
                let calibration = &self.config.calibration;
                sf.iter()
                    .filter(|h| rank::calibrate(h.source.label(), h.score, calibration) >= floor)
                    .count()
            }
        };
        let short_circuit = options.mode == SearchMode::Hybrid && strong >= limit;
        Ok(PendingRecall {
            query: query.to_string(),
            options,
            limit,
            sf,
            corrected,
            sf_report,
            short_circuit,
            ranking,
            weights,
            min_score,
            plan,
            more: Vec::new(),
            texts: Vec::new(),
        })
    }

    /// Stage Sf's search of `text` (the one instantiation of [`sf::run`], which phase 1 and
    /// entity expansion share: each closure type would copy it).
    pub(super) fn run_sf(
        &mut self,
        text: &str,
        limit: usize,
        keep: usize,
        filter: &Filter,
    ) -> sf::SfRun {
        let records = &self.records;
        sf::run(
            SfIndexes {
                porter: &self.porter,
                fuzzy_en: &self.fuzzy_en,
                fuzzy_orig: &self.fuzzy_orig,
            },
            SfQuery {
                text,
                limit,
                keep,
                filter,
                params: &self.config.score,
            },
            |d| records.get(d.0 as usize).and_then(Option::as_ref),
            &mut self.scratch,
        )
    }

    /// Phase 2: stages Se (with the host's query vector, or skipped for `se_skip_reason`), Ss,
    /// S6 and S8, then post-processing, enrichment and recall tracking.
    pub fn finish_recall(
        &mut self,
        pending: PendingRecall,
        query_embedding: Option<&[f32]>,
        se_skip_reason: Option<&str>,
        clock: &dyn Fn() -> f64,
    ) -> Result<RecallOutput> {
        let depth = pending.limit;
        let mut ranked =
            self.rank_answer(pending, query_embedding, se_skip_reason, clock, depth)?;
        let plan = std::mem::take(&mut ranked.plan);
        Ok(self.deliver(ranked, &plan))
    }

    /// [`Engine::rank_recall`], then what the answer as a whole needs: a window read from the
    /// question's words that holds nothing is dropped and the whole question searched again
    /// (the words may not have meant a time: "is the office open on Saturday?"; the answer's
    /// `query.windowDropped` says so), and memories of the same text are returned once
    /// ([`super::dedup`]; not for the `abmind` ranking).
    fn rank_answer(
        &mut self,
        pending: PendingRecall,
        query_embedding: Option<&[f32]>,
        se_skip_reason: Option<&str>,
        clock: &dyn Fn() -> f64,
        depth: usize,
    ) -> Result<Ranked> {
        // What the ranking keeps: `depth`; with `priorityIds`, all it returned (their own
        // candidates past the depth included), which delivery cuts to the limit.
        let keep = if pending.options.priority_ids.is_empty() {
            depth
        } else {
            usize::MAX
        };
        let from_words = pending
            .plan
            .window
            .as_ref()
            .is_some_and(|w| w.source == "query");
        let retry = (pending.plan.question.as_ref())
            .filter(|_| from_words)
            .map(|q| {
                let mut options = pending.options.clone();
                (options.filter.start, options.filter.end) = pending.plan.explicit;
                (q.text.clone(), q.resolved_from.clone(), options)
            });
        let mut ranked =
            self.rank_recall(pending, query_embedding, se_skip_reason, clock, depth)?;
        // The question's words found no memory in the window its time words give. When the
        // window holds memories, they answer a question about that time ("what did I say
        // last Tuesday?", whose "say" matches none of them): newest first. When it holds none,
        // the window is dropped and the question searched without it (below); an edge or a
        // note found in an empty window does not keep it.
        let retry = match retry {
            Some(retry) if !has_memory(&ranked.ranked) => {
                match self.window_memories(&ranked.options, clock, depth)? {
                    Some(within) if ranked.ranked.is_empty() => {
                        let (question, window) =
                            (ranked.plan.question.take(), ranked.plan.window.take());
                        ranked = within;
                        ranked.plan.window = window;
                        ranked.plan.question = question.map(|mut q| {
                            q.search_text.clear();
                            q
                        });
                        None
                    }
                    Some(_) => None,
                    None => Some(retry),
                }
            }
            _ => None,
        };
        if let Some((text, words, mut options)) = retry {
            // The caller's own bounds stay (`plan.explicit`, set in `retry`).
            options.resolve_time = false;
            let again = self.begin_recall(&text, options, clock)?;
            ranked = self.rank_recall(again, query_embedding, se_skip_reason, clock, depth)?;
            let q = ranked
                .plan
                .question
                .get_or_insert_with(QueryReport::default);
            if q.text.is_empty() {
                q.search_text.clone_from(&text);
                q.text = text;
            }
            q.resolved_from = words;
            q.window_dropped = true;
        }
        let ranking = ranked.options.ranking.unwrap_or(self.config.ranking);
        if ranking != Ranking::Abmind {
            let same = self.dedupe_texts(&mut ranked.ranked, keep);
            ranked.plan.dedup_removed += same.iter().map(|(_, d)| d.len()).sum::<usize>();
            ranked.plan.same_text = same;
        } else {
            ranked.ranked.truncate(keep);
        }
        Ok(ranked)
    }

    /// Phase 2 for a host with a reranker: like [`Engine::finish_recall`] but keeps the best
    /// [`RERANK_DEPTH`] candidates (or `limit`, if more) and stops before tracking; the host
    /// scores [`Ranked::texts`] and hands them to [`Engine::finish_rerank`].
    pub fn rank_for_rerank(
        &mut self,
        pending: PendingRecall,
        query_embedding: Option<&[f32]>,
        se_skip_reason: Option<&str>,
        clock: &dyn Fn() -> f64,
    ) -> Result<Ranked> {
        let depth = pending.limit.max(RERANK_DEPTH);
        self.rank_answer(pending, query_embedding, se_skip_reason, clock, depth)
    }

    /// Phase 3 with a reranker: orders `ranked` by the host's `scores` (one finite number per
    /// text of [`Ranked::texts`]; [`rank::host::apply`]) and returns the first `limit`, with a
    /// `rerank` stage report that took `ms`. Without scores (the reranker failed, for
    /// `skip_reason`), the fused order stands and the report says why. Either way the returned
    /// memories are tracked as by [`Engine::finish_recall`].
    pub fn finish_rerank(
        &mut self,
        mut ranked: Ranked,
        scores: Option<&[f64]>,
        skip_reason: Option<&str>,
        ms: f64,
    ) -> Result<RecallOutput> {
        let report = match scores {
            _ if ranked.plan.trending => {
                ranked.ranked.truncate(ranked.limit);
                StageReport::skipped("rerank", "no_query")
            }
            Some(scores) => {
                let n = ranked.ranked.len();
                rank::host::apply(&mut ranked.ranked, scores, ranked.limit).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "rerank scores must be {n} finite numbers, got {}",
                        scores.len()
                    ))
                })?;
                StageReport::ran("rerank", n, ms)
            }
            None => {
                ranked.ranked.truncate(ranked.limit);
                StageReport::skipped("rerank", skip_reason.unwrap_or("rerank_failed"))
            }
        };
        ranked.stages.push(report);
        let plan = std::mem::take(&mut ranked.plan);
        Ok(self.deliver(ranked, &plan))
    }

    /// A recall with no query in the window `options`' filter holds (its memories, newest
    /// first), or `None` when that window holds no memory.
    fn window_memories(
        &mut self,
        options: &RecallOptions,
        clock: &dyn Fn() -> f64,
        depth: usize,
    ) -> Result<Option<Ranked>> {
        let within = RecallOptions {
            resolve_time: false,
            resolve_pronouns: false,
            queries: Vec::new(),
            auto_decompose: false,
            ..options.clone()
        };
        let pending = self.begin_one("", within, clock)?;
        let ranked = self.rank_trending(pending, depth);
        Ok(has_memory(&ranked.ranked).then_some(ranked))
    }

    /// Every stage and the ranking, keeping the best `depth` candidates: abmind's pipeline
    /// ([`Engine::rank_abmind`]) for the `abmind` ranking, every stage's evidence
    /// ([`Engine::rank_fused`], `gather.rs`) for the others.
    fn rank_recall(
        &mut self,
        mut pending: PendingRecall,
        query_embedding: Option<&[f32]>,
        se_skip_reason: Option<&str>,
        clock: &dyn Fn() -> f64,
        depth: usize,
    ) -> Result<Ranked> {
        let depth = depth + pending.options.priority_ids.len();
        if !pending.more.is_empty() {
            return self.rank_texts(pending, query_embedding, se_skip_reason, clock, depth);
        }
        // A query vector is a query: only a recall with neither is trending.
        pending.plan.trending &= query_embedding.is_none();
        pending.plan.query.clone_from(&pending.query);
        let plan = pending.plan.clone();
        let mut ranked = if plan.trending {
            self.rank_trending(pending, depth)
        } else if pending.ranking == Ranking::Abmind {
            self.rank_abmind(pending, query_embedding, se_skip_reason, clock, depth)?
        } else {
            self.rank_fused(pending, query_embedding, se_skip_reason, clock, depth)?
        };
        ranked.plan = plan;
        Ok(ranked)
    }

    /// Phase 2 of a recall of several query texts: each ranked with its own vector (the
    /// host's vectors end to end, one per text it knows; the others run without), then
    /// merged ([`super::multi::merge`]).
    fn rank_texts(
        &mut self,
        mut pending: PendingRecall,
        vectors: Option<&[f32]>,
        se_skip_reason: Option<&str>,
        clock: &dyn Fn() -> f64,
        depth: usize,
    ) -> Result<Ranked> {
        let more = std::mem::take(&mut pending.more);
        let texts = std::mem::take(&mut pending.texts);
        let dims = self.vectors.dims().unwrap_or(0);
        let split = match vectors {
            Some(v) if dims > 0 && v.len() > dims && v.len() % dims == 0 => Some(v),
            _ => None,
        };
        let vector = |i: usize| match split {
            Some(v) => v.chunks(dims).nth(i),
            None if i == 0 => vectors,
            None => None,
        };
        let first = self.rank_recall(pending, vector(0), se_skip_reason, clock, depth)?;
        let mut runs = Vec::new();
        for (i, run) in more.into_iter().enumerate() {
            let v = vector(i + 1);
            let reason = if v.is_none() {
                Some("no_embedder")
            } else {
                None
            };
            runs.push(self.rank_recall(run, v, reason.or(se_skip_reason), clock, depth)?);
        }
        // Priority memories past the depth stay for delivery, which cuts to the limit.
        let cut = if first.options.priority_ids.is_empty() {
            depth
        } else {
            usize::MAX
        };
        Ok(super::multi::merge(first, runs, &texts, cut))
    }

    /// Phase 2 of abmind's pipeline: stages Se, Ss, S6 and S8 add the records no earlier stage
    /// found (first stage wins), then post-processing ranks them (module doc).
    fn rank_abmind(
        &mut self,
        pending: PendingRecall,
        query_embedding: Option<&[f32]>,
        se_skip_reason: Option<&str>,
        clock: &dyn Fn() -> f64,
        depth: usize,
    ) -> Result<Ranked> {
        let PendingRecall {
            query,
            options,
            limit,
            sf,
            sf_report,
            short_circuit,
            min_score,
            ..
        } = pending;
        let q = StageQuery::new(&query, &options, limit, clock);
        let skip = meaning_skip(options.mode, short_circuit);
        let mut pool = Pool::default();
        let mut found = Found::default();
        self.abmind_sf(&sf, &mut pool);
        let mut stages = vec![sf_report];
        stages.push(match se_vector(skip, query_embedding, se_skip_reason) {
            Ok(vector) => self.abmind_se(&q, vector, &mut pool, &mut found)?,
            Err(skipped) => skipped,
        });
        stages.push(self.abmind_ss(&q, skip, &mut pool));
        stages.push(self.abmind_s6(&q, &mut pool, &mut found));
        stages.push(self.abmind_s8(&q, &mut pool, &mut found));
        self.apply_hints(&mut pool.cands, &options);
        let ranked = self.abmind_rank(pool, &found, &options, min_score, depth);
        Ok(Ranked {
            ranked,
            found,
            stages,
            options,
            limit,
            plan: Plan::default(),
        })
    }

    /// Stage Sf's hits (run in phase 1) as abmind's first candidates, with the Sf formula's
    /// breakdown.
    fn abmind_sf(&self, sf: &[SfHit], pool: &mut Pool) {
        for hit in sf {
            if let Some(c) = pool.insert(self, hit.doc, hit.source.label(), hit.score) {
                c.components = Components::from_sf(&hit.components, hit.score).0;
            }
        }
    }

    /// Stage Se (embedding) for abmind: memories within [`DEFAULT_SE_THRESHOLD`] (or the
    /// store's `similarityThreshold`) of `vector`, up to `limit × SE_OVERFETCH`. A memory Sf
    /// already found is only marked as confirmed (for the cross-stage penalty).
    fn abmind_se(
        &self,
        q: &StageQuery,
        vector: &[f32],
        pool: &mut Pool,
        found: &mut Found,
    ) -> Result<StageReport> {
        let started = q.time();
        let records = &self.records;
        let hits = self.vectors.search(
            vector,
            q.limit * SE_OVERFETCH,
            self.config.se_threshold.unwrap_or(DEFAULT_SE_THRESHOLD) as f32,
            |d| accepts(records, q.filter, d),
        )?;
        found.se_hits = hits.len();
        for (doc, cosine) in hits {
            if let Some(i) = pool.position(doc) {
                pool.cands[i].confirmed_by_se = true;
                continue;
            }
            let Some(c) = pool.insert(self, doc, "Se", f64::from(cosine)) else {
                continue;
            };
            c.confirmed_by_se = true;
            c.components = vec![("cosine", f64::from(cosine)), ("raw", f64::from(cosine))];
        }
        Ok(StageReport::ran("Se", found.se_hits, q.time() - started))
    }

    /// Stage Ss (signature) for abmind: the fallback for meaning without embeddings, skipped
    /// for `skip` or when Sf and Se together already hold `limit` strong hits (abmind's
    /// worked example: Sf 4 + Se 2 ≥ 5, Ss skipped).
    fn abmind_ss(&mut self, q: &StageQuery, skip: Option<&str>, pool: &mut Pool) -> StageReport {
        let floor = self.config.short_circuit_floor.unwrap_or(0.0);
        let strong = (pool.cands.iter())
            .filter(|c| rank::calibrate(c.stage, c.raw, &self.config.calibration) >= floor)
            .count();
        let skip = skip.or(match q.mode {
            SearchMode::Hybrid if strong >= q.limit => Some("short_circuit"),
            _ => None,
        });
        if let Some(reason) = skip {
            return StageReport::skipped("Ss", reason);
        }
        let started = q.time();
        let (_, hits) = self.ss_search(q.text, q.filter);
        for &(doc, similarity) in &hits {
            if let Some(c) = pool.insert(self, doc, "Ss", similarity) {
                c.components = vec![("signatureSimilarity", similarity), ("raw", similarity)];
            }
        }
        StageReport::ran("Ss", hits.len(), q.time() - started)
    }

    /// Stage S6 (notes) for abmind: every paragraph found is a candidate with its fixed score.
    fn abmind_s6(&self, q: &StageQuery, pool: &mut Pool, found: &mut Found) -> StageReport {
        let started = q.time();
        found.notes = self.s6_search(q);
        for (i, hit) in found.notes.iter().enumerate() {
            let mut c = note_candidate(i, hit);
            c.components = vec![
                ("matchedTerms", f64::from(hit.matched_terms)),
                ("raw", hit.score),
            ];
            pool.push(c);
        }
        StageReport::ran("S6", found.notes.len(), q.time() - started)
    }

    /// Stage S8 (graph) for abmind: every edge found is a candidate with its fixed score.
    fn abmind_s8(&self, q: &StageQuery, pool: &mut Pool, found: &mut Found) -> StageReport {
        let started = q.time();
        found.edges = self.s8_search(q).hits;
        for (i, hit) in found.edges.iter().enumerate() {
            let mut c = edge_candidate(i, hit);
            c.components = vec![("strength", hit.strength), ("raw", hit.score)];
            pool.push(c);
        }
        StageReport::ran("S8", found.edges.len(), q.time() - started)
    }

    /// The `abmind` ranking: post-processing ([`rank::post_process`]: calibration, the
    /// cross-stage penalty, boosts, MMR, the best `depth`), then `minScore` and no zero score.
    fn abmind_rank(
        &self,
        pool: Pool,
        found: &Found,
        options: &RecallOptions,
        min_score: f64,
        depth: usize,
    ) -> Vec<Candidate> {
        let post_process_options = PostProcessOptions {
            calibration: self.config.calibration,
            se_ran_with_hits: found.se_hits > 0,
            context: options.context.clone(),
            lambda: options.mmr_lambda.unwrap_or(self.config.mmr_lambda),
            limit: depth,
            keep: self.priority_docs(options),
        };
        let mut ranked = rank::post_process(pool.cands, &post_process_options);
        ranked.retain(|c| c.score > 0.0 && c.score >= min_score);
        ranked
    }

    /// Results of a ranked recall in the order asked for ([`rank::order`]): tracking,
    /// metadata, timelines, conflicts, how each was matched, and what the recall applied.
    pub(super) fn deliver(&mut self, mut r: Ranked, plan: &Plan) -> RecallOutput {
        let utc_offset = r
            .options
            .context
            .as_ref()
            .map_or(0, |c| c.utc_offset_minutes);
        if !r.options.priority_ids.is_empty() {
            self.apply_priority(&mut r.ranked, &r.options, r.limit);
        }
        let seed_count = r.ranked.len();
        let expansion = self.expand(&mut r.ranked, &plan.query, &r.options);
        rank::order::sort(&mut r.ranked, plan.sort(&r.options));
        let deduped: Vec<(String, &Vec<String>)> = (plan.deduped_from.iter())
            .filter_map(|(doc, texts)| Some((self.memory(*doc)?.id().to_owned(), texts)))
            .collect();
        let mut results = self.build_hits(r.ranked, &r.found, utc_offset, &r.options);
        for hit in &mut results {
            hit.match_type = match_type(hit.stage, &r.options);
            if let Some((_, texts)) = deduped.iter().find(|(id, _)| *id == hit.id) {
                hit.deduped_from = Some(texts.to_vec());
            }
        }
        for (kept, repeats) in &plan.same_text {
            let Some(id) = self.memory(*kept).map(|m| m.id().to_owned()) else {
                continue;
            };
            let ids = repeats
                .iter()
                .filter_map(|d| Some(self.memory(*d)?.id().to_owned()));
            if let Some(hit) = results.iter_mut().find(|h| h.id == id) {
                hit.duplicate_ids = ids.collect();
            }
        }
        self.annotate_expansion(&mut results, &expansion, &r.options);
        RecallOutput {
            results,
            stages: r.stages,
            time_window: plan.window.clone(),
            query: plan.question.clone(),
            tags: r.options.filter.tags.tags.clone(),
            dedup_removed: plan.dedup_removed,
            expansion: (r.options.expand_relations)
                .then_some((seed_count, expansion.relation_count)),
            entity_expansion: (r.options.expand_entities)
                .then_some((expansion.entities, expansion.entity_count)),
        }
    }

    /// Both phases at once, with a ready query vector or none.
    pub fn recall(
        &mut self,
        query: &str,
        options: &RecallOptions,
        query_embedding: Option<&[f32]>,
        clock: &dyn Fn() -> f64,
    ) -> Result<RecallOutput> {
        let pending = self.begin_recall(query, options.clone(), clock)?;
        self.finish_recall(pending, query_embedding, None, clock)
    }

    /// Turns ranked candidates into results: tracking, metadata, timelines and conflicts.
    pub(super) fn build_hits(
        &mut self,
        ranked: Vec<Candidate>,
        found: &Found,
        utc_offset: i32,
        options: &RecallOptions,
    ) -> Vec<RecallHit> {
        let timelines = rank::enrich::timeline(&ranked, utc_offset);
        let conflicts = self.conflicts(&ranked);
        let mut hits: Vec<RecallHit> = Vec::with_capacity(ranked.len());
        for c in &ranked {
            let components = Components(c.components.clone());
            let hit = match c.key {
                CandidateKey::Memory(doc) => {
                    let Some(Some(m)) = self.records.get_mut(doc.0 as usize) else {
                        continue;
                    };
                    if options.track_recalls {
                        m.track_recall(options.filter.now);
                    }
                    memory_hit(m, c, components)
                }
                CandidateKey::Note { note, .. } => {
                    let Some(n) = found.notes.get(note as usize) else {
                        continue;
                    };
                    note_hit(n, c, components)
                }
                CandidateKey::Edge(i) => {
                    let Some(e) = found.edges.get(i as usize) else {
                        continue;
                    };
                    RecallHit {
                        id: e.edge_id.clone(),
                        kind: HitKind::Edge,
                        stage: c.stage,
                        score: c.score,
                        text: e.text.clone(),
                        components,
                        memory: None,
                        metadata: None,
                        note: None,
                        edge: (self.graph.edge(&e.edge_id))
                            .map(|edge| self.edge_for(edge, &options.filter)),
                        timeline: None,
                        conflicts: None,
                        warning: None,
                        match_type: "",
                        deduped_from: None,
                        duplicate_ids: Vec::new(),
                        expanded_from: None,
                        relations: None,
                    }
                }
            };
            hits.push(hit);
        }
        if hits.len() == ranked.len() {
            for t in &timelines {
                let items: Vec<TimelineItem> = t
                    .entries
                    .iter()
                    .map(|e| TimelineItem {
                        id: hits[e.index].id.clone(),
                        created_at: e.created_at,
                        date: e.date.clone(),
                    })
                    .collect();
                for e in &t.entries {
                    hits[e.index].timeline = Some(items.clone());
                }
            }
            for (i, with) in conflicts.iter().enumerate() {
                if let Some(warning) = rank::enrich::conflict_warning(with) {
                    let ids = with.iter().map(|&j| hits[j].id.clone()).collect();
                    hits[i].conflicts = Some(ids);
                    hits[i].warning = Some(warning);
                }
            }
        }
        hits
    }
}

impl Components {
    /// The Sf breakdown followed by the raw Sf score.
    fn from_sf(c: &crate::recall::SfComponents, raw: f64) -> Self {
        Components(vec![
            ("bm25", c.bm25),
            ("emotionBoost", c.emotion_boost),
            ("recallBoost", c.recall_boost),
            ("relevanceBoost", c.relevance_boost),
            ("trustFactor", c.trust_factor),
            ("credibilityFactor", c.credibility_factor),
            ("tierBoost", c.tier_boost),
            ("recency", c.recency),
            ("raw", raw),
        ])
    }
}

/// Checks an MMR λ: a number in `0..=1`.
pub fn check_lambda(lambda: f64) -> Result<()> {
    check_unit("mmrLambda", lambda)
}

/// Checks `entityHints`: at most [`MAX_SEEDS`](crate::graph::ppr::MAX_SEEDS) entity names,
/// each with letters or digits and at most 1 KiB. Errors: `invalid_argument` or `too_large`.
fn check_entity_hints(hints: &[String]) -> Result<()> {
    use crate::graph::ppr::MAX_SEEDS;
    if hints.len() > MAX_SEEDS {
        return Err(Error::InvalidArgument(format!(
            "entityHints must hold at most {MAX_SEEDS} names, got {}",
            hints.len()
        )));
    }
    hints
        .iter()
        .try_for_each(|h| crate::graph::graph_records::check_name("entityHints", h))
}

fn memory_hit(m: &StoredMemory, c: &Candidate, components: Components) -> RecallHit {
    let m = m.to_memory();
    RecallHit {
        id: m.id.clone(),
        kind: HitKind::Memory,
        stage: c.stage,
        score: c.score,
        text: m.text.clone(),
        components,
        metadata: Some(Metadata {
            topic: m.topic.clone(),
            kind: m.kind.clone(),
            tags: m.tags.clone(),
            emotion_tags: m.emotion_tags.clone(),
            importance: m.importance,
            confidence: m.confidence,
            created_at: m.created_at,
        }),
        memory: Some(m),
        note: None,
        edge: None,
        timeline: None,
        conflicts: None,
        warning: None,
        match_type: "",
        deduped_from: None,
        duplicate_ids: Vec::new(),
        expanded_from: None,
        relations: None,
    }
}

fn note_hit(n: &NoteHit, c: &Candidate, components: Components) -> RecallHit {
    RecallHit {
        id: format!("note:{}#{}", n.note_id, n.paragraph),
        kind: HitKind::Note,
        stage: c.stage,
        score: c.score,
        text: n.text.clone(),
        components,
        memory: None,
        metadata: None,
        note: Some(NoteRef {
            id: n.note_id.clone(),
            period: n.period,
            start: n.start,
            paragraph: n.paragraph,
        }),
        edge: None,
        timeline: None,
        conflicts: None,
        warning: None,
        match_type: "",
        deduped_from: None,
        duplicate_ids: Vec::new(),
        expanded_from: None,
        relations: None,
    }
}

/// Whether `ranked` holds a memory (not only notes and edges).
fn has_memory(ranked: &[Candidate]) -> bool {
    ranked
        .iter()
        .any(|c| matches!(c.key, CandidateKey::Memory(_)))
}
