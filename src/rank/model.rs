//! The ranking models: how a candidate's [`Evidence`] and its memory's facts become one score.
//! Every model sees the same candidates (the union of every stage's hits); they differ in how
//! they weigh what the stages found. Chosen per store (`ranking` when opening) or per recall.
//!
//! | model | from | score |
//! |---|---|---|
//! | `recallkit` (default) | this crate, measured on LoCoMo | `relevance × preference`, see below |
//! | `abmind` | abmind's recall pipeline | first stage wins, its calibrated score, cross-stage ×0.5, boosts, MMR λ 0.7 ([`super::post_process`]) |
//! | `rrf` | Memoria's fusion | `Σ 1 / (60 + rank)` over the stages' lists, divided by its largest possible value (every list that ran ranking the candidate first) |
//! | `composite` | Engram's query pipeline | `0.6·vector + 0.2·importance + 0.1·confidence + 0.1·recency` |
//! | `weighted` | AutoMem's recall API | `Σ wᵢ·cᵢ / Σ wᵢ` over nine components, weights overridable |
//!
//! # `recallkit`
//!
//! ```text
//! lexical    = 0.5·bm25Share + 0.5·coverage
//! relevance  = 1 − (1 − base) · (1 − 0·signature) · (1 − 0.5·graph)
//! base       = 0.65·lexical + 0.35·semantic  when the query and the memory have vectors
//!            = max(lexical, that)             … and stage Sf corrected a word of the query
//!            = lexical                        otherwise
//! note, edge = 0.8 · coverage
//! preference = (1 − r·(1 − fresh)) · prior^¼
//! fresh      = max(0, 1 − ageDays / decayDays)
//! r          = 0.1, or 0.5 when the query asks for the latest state ("current", "latest", "now", …)
//! prior      = abmind's factors: (1 + recallBoost)(1 + relevanceBoost)·trust·credibility·tier
//!              ·(1 + |emotion|·emotionBoost)·spacing
//! own        = min(1, relevance · preference)
//! adjacent   = 0.5 · max(0, best − own), best = max over the memories adjacent to it of own(n) / distance(n)
//! score      = own + adjacent + context boost + emotion tie-break
//! ```
//!
//! `bm25Share` is the BM25 divided by the query's weight and `coverage` the share of the
//! query's distinct content words the memory holds ([`super::evidence`]): BM25 ranks by how
//! rare the matched words are, coverage by how much of the question is there, and together
//! they beat either (LoCoMo dev, no vectors: R@10 0.589 with BM25 alone, 0.577 with coverage
//! alone, 0.627 with half of each). Evidence adds up: a memory found by Sf and Se scores
//! above what either would give it alone, and graph evidence closes part of the remaining
//! gap (a noisy-or). Signature evidence (stage Ss) has weight 0: on real conversations it
//! only added noise (no vectors: 0.621 with weight 0.5, 0.627 without), so this model does
//! not run Ss. A query word the store knows only as a one-edit neighbour ("postgress" for
//! "postgres", and no stem of it is indexed) is read by the trigram index, but the query's
//! vector was made from the misspelt word, which means nothing to the model: semantic
//! evidence may then lift a memory above its lexical evidence, never hold it below
//! (the benchmark's typo queries with vectors: hit@10 0.947 → 0.973 at 10k, as without
//! vectors; LoCoMo dev hybrid, where 21 of 1,018 questions hold such a word, "educaton",
//! "funraiser", "tennesee" among them: R@10 0.668 → 0.666). Age is a preference: a year-old memory keeps 90 % of its relevance, so it
//! stays above a recent one that matches less of the question (LoCoMo, whose questions are
//! about the past, pays 0.008 R@10 for it with no vectors). abmind's multiplicative
//! factors (trust, tier, recall count, spacing) count with a fourth root, so a core memory
//! (×1.3) gains 7 %, not 30 %. Weights are round numbers chosen by the sweep in
//! `bench/locomo/sweep.mjs` (docs/quality.md has the grid); none is fitted to single
//! questions.
//!
//! # Adjacent memories
//!
//! Two memories are adjacent when they are at most [`ADJACENT_SPAN`] apart in insertion order
//! (`distance` 1 or 2), belong to the same user, have the same topic (or none), and were
//! written within [`ADJACENT_WITHIN_MS`] of each other but not at the same instant
//! ([`written_in_one_sitting`]): turns of one conversation, or notes taken one after another,
//! not a batch of facts imported at once. A memory closes half the gap between its own score
//! and its best adjacent memory's (divided by their distance), and with vectors also that
//! share of the rest of the gap its own semantic evidence gives (`w + (1 − w)·semantic`: a
//! neighbour that is itself about the question is likelier its answer): the answer to a question often
//! sits in the turn after the one that names its subject ("what did you paint?" – "a sunset"),
//! which shares no word with the question. A memory already as good as its neighbours gains
//! nothing, and with a weight of at most 1 none rises above the neighbour it borrows from, so
//! the first result never changes. Only candidates count (a memory some stage found), and the
//! gain is read from the scores before any gain, so it does not chain.
//!
//! The weight is a round number at the sweep's plateau (`sweep.mjs`, docs/quality.md). LoCoMo
//! dev, `adjacentWeight` 0 → 0.5 → 0.6 → 0.8 → 1: no vectors R@10 / nDCG@10 0.650 / 0.513 →
//! 0.697 / 0.537 → 0.702 / 0.540 → 0.698 / 0.538 → 0.696 / 0.522, hybrid 0.682 / 0.531 → 0.741
//! / 0.560 → 0.748 / 0.564 → 0.756 / 0.565 → 0.756 / 0.550. A first rule, a flat share of the
//! best neighbour's score (`0.2 · best`), reached 0.683 / 0.533 and 0.715 / 0.547 at its best
//! and let neighbours overtake the match (the first result right less often). The semantic
//! share, which adds no constant, took hybrid from 0.739 / 0.558 to 0.747 / 0.562 (no vectors
//! unchanged; the first result as often right, 0.386).
//!
//! # `composite` and `weighted` without vectors
//!
//! A memory without a vector (or a query without one) has no cosine. `composite` then puts the
//! memory's lexical evidence in the vector's place (Engram's keyword fallback); `weighted`
//! scores the vector component 0, as AutoMem does when Qdrant is unavailable.

use super::evidence::Evidence;
use super::fusion::DEFAULT_RRF_K;
use crate::error::{check_unit, Error, Num, Result};

/// The models (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ranking {
    /// Evidence fusion with preferences (the default).
    #[default]
    Recallkit,
    /// abmind's recall pipeline, exactly.
    Abmind,
    /// Reciprocal Rank Fusion over the stages (Memoria's fusion).
    Rrf,
    /// Engram's composite score.
    Composite,
    /// AutoMem's weighted components.
    Weighted,
}

impl Ranking {
    /// Every model, the default first.
    pub const ALL: [Ranking; 5] = [
        Ranking::Recallkit,
        Ranking::Abmind,
        Ranking::Rrf,
        Ranking::Composite,
        Ranking::Weighted,
    ];
}

impl Ranking {
    /// Parses `recallkit`, `abmind`, `rrf`, `composite` or `weighted`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "recallkit" => Ok(Ranking::Recallkit),
            "abmind" => Ok(Ranking::Abmind),
            "rrf" => Ok(Ranking::Rrf),
            "composite" => Ok(Ranking::Composite),
            "weighted" => Ok(Ranking::Weighted),
            other => Err(Error::InvalidArgument(format!(
                "ranking must be \"recallkit\", \"abmind\", \"rrf\", \"composite\" or \"weighted\", got \"{other}\""
            ))),
        }
    }
}

/// The parameters of the `recallkit` model (module doc); [`Default`] is the measured choice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FusionParams {
    /// Weight of lexical evidence against semantic evidence, when both can be had.
    pub lexical_weight: f64,
    /// Weight of signature evidence in the noisy-or.
    pub signature_weight: f64,
    /// Weight of graph evidence in the noisy-or.
    pub graph_weight: f64,
    /// Weight of a note paragraph's or an edge's coverage.
    pub note_weight: f64,
    /// Share of the relevance age can take away (`r`).
    pub recency_weight: f64,
    /// `r` for a query asking for the latest state.
    pub latest_recency_weight: f64,
    /// Exponent of abmind's prior factors.
    pub prior_exponent: f64,
    /// Share of lexical evidence that is coverage (the share of the query's content words the
    /// text holds) rather than the normalised BM25.
    pub coverage_weight: f64,
    /// Standard deviations above the query's background where semantic evidence starts.
    pub semantic_from: f64,
    /// … and where it is full.
    pub semantic_full: f64,
    /// Share of the gap to its best adjacent memory's score a memory closes: a memory written
    /// just before or after a better match, in the same sitting (module doc, "Adjacent
    /// memories"); at most 1, so that none overtakes the match.
    pub adjacent_weight: f64,
}

impl Default for FusionParams {
    fn default() -> Self {
        FusionParams {
            lexical_weight: 0.65,
            signature_weight: 0.0,
            graph_weight: 0.5,
            note_weight: 0.8,
            recency_weight: 0.1,
            latest_recency_weight: 0.5,
            prior_exponent: 0.25,
            coverage_weight: 0.5,
            semantic_from: super::evidence::SEMANTIC_Z_START,
            semantic_full: super::evidence::SEMANTIC_Z_FULL,
            adjacent_weight: 0.5,
        }
    }
}

impl FusionParams {
    /// Checks that every parameter is a number in `[0, 1]`.
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [
            ("fusion.lexicalWeight", self.lexical_weight),
            ("fusion.signatureWeight", self.signature_weight),
            ("fusion.graphWeight", self.graph_weight),
            ("fusion.noteWeight", self.note_weight),
            ("fusion.recencyWeight", self.recency_weight),
            ("fusion.latestRecencyWeight", self.latest_recency_weight),
            ("fusion.priorExponent", self.prior_exponent),
            ("fusion.coverageWeight", self.coverage_weight),
            ("fusion.adjacentWeight", self.adjacent_weight),
        ] {
            check_unit(name, v)?;
        }
        if !(self.semantic_from.is_finite()
            && self.semantic_full.is_finite()
            && self.semantic_from < self.semantic_full)
        {
            return Err(Error::InvalidArgument(format!(
                "fusion.semanticFrom must be below fusion.semanticFull, got {} and {}",
                Num(self.semantic_from),
                Num(self.semantic_full)
            )));
        }
        Ok(())
    }

    /// Lexical evidence from the normalised BM25 and the coverage.
    pub fn lexical(&self, bm25_share: f64, coverage: f64) -> f64 {
        (1.0 - self.coverage_weight) * bm25_share + self.coverage_weight * coverage
    }

    /// The `recallkit` relevance of a memory (module doc). `semantic_available`: the query
    /// and this memory both have vectors; `corrected`: the lexical stage corrected a word of
    /// the query, so semantic evidence may add to the lexical but not hold it back.
    pub fn relevance(&self, e: &Evidence, semantic_available: bool, corrected: bool) -> f64 {
        let base = if semantic_available {
            let mixed = self.lexical_weight * e.lexical + (1.0 - self.lexical_weight) * e.semantic;
            if corrected {
                mixed.max(e.lexical)
            } else {
                mixed
            }
        } else {
            e.lexical
        };
        noisy_or(
            base,
            &[
                self.signature_weight * e.signature,
                self.graph_weight * e.graph,
            ],
        )
    }

    /// The preference factor: `(1 − r·(1 − fresh)) · prior^exponent`.
    pub fn preference(&self, fresh: f64, prior: f64, latest: bool) -> (f64, f64) {
        let r = if latest {
            self.latest_recency_weight
        } else {
            self.recency_weight
        };
        let recency = 1.0 - r * (1.0 - fresh.clamp(0.0, 1.0));
        let prior = if prior.is_finite() && prior > 0.0 {
            power(prior, self.prior_exponent)
        } else {
            1.0
        };
        (recency, prior)
    }
}

/// `x^y` for a finite `x > 0`, without libm's `pow` (2 KB of wasm, 1.2 KB gzipped, used
/// nowhere else): `sqrt(sqrt(x))` for the default exponent ¼, else `e^(y ln x)` from the
/// `ln` and `expm1` the crate already links (it links no `exp`). Both agree with `powf` to
/// the last bits (the test allows a relative 1e-14 for priors in 1e-3..1e3), which no
/// ranking reads.
fn power(x: f64, y: f64) -> f64 {
    if y == 0.25 {
        return x.sqrt().sqrt();
    }
    // `expm1(t) + 1` cancels for `t < 0`; `1 / (expm1(−t) + 1)` does not.
    let t = y * x.ln();
    if t < 0.0 {
        1.0 / ((-t).exp_m1() + 1.0)
    } else {
        t.exp_m1() + 1.0
    }
}

/// Largest insertion-order distance between two adjacent memories (module doc).
pub const ADJACENT_SPAN: u32 = 2;
/// Longest time between two adjacent memories, in milliseconds: one sitting (30 minutes).
pub const ADJACENT_WITHIN_MS: f64 = 30.0 * 60_000.0;

/// Whether memories written at `a` and `b` (ms) may be adjacent: apart, and at most
/// [`ADJACENT_WITHIN_MS`] apart. Memories written at one instant are a batch, not a
/// conversation.
pub fn written_in_one_sitting(a: f64, b: f64) -> bool {
    let gap = (a - b).abs();
    gap > 0.0 && gap <= ADJACENT_WITHIN_MS
}

/// `1 − (1 − a)·Π(1 − bᵢ)`: each piece of evidence closes part of the remaining gap.
pub fn noisy_or(a: f64, more: &[f64]) -> f64 {
    let mut miss = 1.0 - a.clamp(0.0, 1.0);
    for &b in more {
        miss *= 1.0 - b.clamp(0.0, 1.0);
    }
    1.0 - miss
}

/// Words of a query that ask for the latest state of something (folded).
pub const LATEST_WORDS: [&str; 9] = [
    "current",
    "currently",
    "latest",
    "now",
    "nowadays",
    "newest",
    "recent",
    "recently",
    "today",
];

/// Whether the query asks for the latest state: one of [`LATEST_WORDS`] as a word.
pub fn asks_for_latest(query: &str) -> bool {
    // `tokens` rather than a `for_each_token` closure: one tokenizer loop fewer in the wasm.
    crate::text::tokens(query)
        .iter()
        .any(|w| LATEST_WORDS.contains(&w.as_str()))
}

/// Memoria's RRF score over the stage ranks of `e`, divided by the best possible score when
/// `lists` lists ran (each ranking the candidate first), so it lies in `[0, 1]`.
pub fn rrf_score(e: &Evidence, lists: u32) -> f64 {
    let k = DEFAULT_RRF_K;
    let sum: f64 = [e.sf_rank, e.se_rank, e.ss_rank, e.s6_rank, e.s8_rank]
        .into_iter()
        .flatten()
        .map(|r| super::fusion::contribution(f64::from(r), k))
        .sum();
    let best = f64::from(lists.max(1)) * super::fusion::contribution(1.0, k);
    (sum / best).clamp(0.0, 1.0)
}

/// The memory facts the metadata-weighing models read.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Facts {
    /// `importance` (0..1), 0.5 when unset.
    pub importance: f64,
    /// `confidence` (0..1), 0.5 when unset.
    pub confidence: f64,
    /// abmind's linear recency, `max(0, 1 − ageDays / decayDays)`.
    pub fresh: f64,
    /// AutoMem's recency: `max(0, 1 − days since last access / 180)`.
    pub accessed: f64,
    /// Share of the query's words found among the memory's tags.
    pub tags: f64,
    /// 1 when a time window was asked for and the memory lies in it, else 0.
    pub temporal: f64,
    /// Product of abmind's multiplicative factors other than recency.
    pub prior: f64,
}

/// Engram: `0.6·vector + 0.2·importance + 0.1·confidence + 0.1·recency`; `vector` is the
/// cosine (clamped to `[0, 1]`), or the lexical evidence when there is no cosine.
pub fn composite(e: &Evidence, f: &Facts) -> [(&'static str, f64); 4] {
    let vector = e.cosine.map_or(e.lexical, |c| c.clamp(0.0, 1.0));
    [
        ("vector", 0.6 * vector),
        ("priority", 0.2 * f.importance),
        ("confidence", 0.1 * f.confidence),
        ("recency", 0.1 * f.fresh),
    ]
}

/// AutoMem's weights (`SEARCH_WEIGHT_*`), each overridable per store or per recall.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Cosine (0.25).
    pub vector: f64,
    /// Lexical evidence (0.15).
    pub keyword: f64,
    /// Share of the query's words in the text (0.25).
    pub exact: f64,
    /// `importance` (0.05).
    pub importance: f64,
    /// `confidence` (0.05).
    pub confidence: f64,
    /// `max(0, 1 − days since last access / 180)` (0.10).
    pub recency: f64,
    /// Share of the query's words among the tags (0.10).
    pub tag: f64,
    /// Graph evidence (0.10; AutoMem adds its relation score unweighted).
    pub relation: f64,
    /// In the recall's time window (0.10; AutoMem adds its temporal score unweighted).
    pub temporal: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            vector: 0.25,
            keyword: 0.15,
            exact: 0.25,
            importance: 0.05,
            confidence: 0.05,
            recency: 0.10,
            tag: 0.10,
            relation: 0.10,
            temporal: 0.10,
        }
    }
}

impl Weights {
    /// The weights by name, in the order components are reported.
    pub fn named(&self) -> [(&'static str, f64); 9] {
        [
            ("vector", self.vector),
            ("keyword", self.keyword),
            ("exact", self.exact),
            ("importance", self.importance),
            ("confidence", self.confidence),
            ("recency", self.recency),
            ("tag", self.tag),
            ("relation", self.relation),
            ("temporal", self.temporal),
        ]
    }

    /// Sets one weight by name; `invalid_argument` for an unknown name or a weight that is not
    /// a finite number ≥ 0.
    pub fn set(&mut self, name: &str, value: f64) -> Result<()> {
        if !(value.is_finite() && value >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "weights.{name} must be a non-negative number, got {}",
                Num(value)
            )));
        }
        let slot = match name {
            "vector" => &mut self.vector,
            "keyword" => &mut self.keyword,
            "exact" => &mut self.exact,
            "importance" => &mut self.importance,
            "confidence" => &mut self.confidence,
            "recency" => &mut self.recency,
            "tag" => &mut self.tag,
            "relation" => &mut self.relation,
            "temporal" => &mut self.temporal,
            other => {
                return Err(Error::InvalidArgument(format!(
                    "unknown weight \"{other}\": vector, keyword, exact, importance, confidence, recency, tag, relation or temporal"
                )))
            }
        };
        *slot = value;
        Ok(())
    }

    /// Each component times its weight, in [`named`](Self::named) order; their sum divided
    /// by the sum of the weights is the score.
    pub fn components(&self, e: &Evidence, f: &Facts) -> [(&'static str, f64); 9] {
        let values = [
            e.cosine.map_or(0.0, |c| c.clamp(0.0, 1.0)),
            e.lexical,
            e.exact,
            f.importance,
            f.confidence,
            f.accessed,
            f.tags,
            e.graph,
            f.temporal,
        ];
        let mut out = self.named();
        for (slot, v) in out.iter_mut().zip(values) {
            slot.1 *= v;
        }
        out
    }

    /// The sum of the weights (0 when all are 0).
    pub fn total(&self) -> f64 {
        self.named().iter().map(|w| w.1).sum()
    }

    /// `invalid_argument` when the weights cannot make a score: all 0 (every score would be 0,
    /// so no result), or a sum that is not finite (every score would be NaN or 0).
    pub fn validate(&self) -> Result<()> {
        let total = self.total();
        if total > 0.0 && total.is_finite() {
            return Ok(());
        }
        Err(Error::InvalidArgument(
            "weights must have a finite sum above 0 (not all 0, not too large)".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::SplitMix64;

    #[test]
    fn power_agrees_with_powf_to_the_last_bits() {
        let mut rng = SplitMix64(5);
        for case in 0..10_000 {
            let x = 10f64.powf(rng.below(6001) as f64 / 1000.0 - 3.0);
            for y in [0.25, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0, -0.5] {
                let (got, want) = (power(x, y), x.powf(y));
                assert!(
                    (got - want).abs() <= 1e-14 * want,
                    "case {case}: {x}^{y} = {got}, powf {want}"
                );
            }
        }
        assert_eq!(power(1.0, 0.25), 1.0);
        assert_eq!(power(1.0, 0.7), 1.0);
    }

    #[test]
    fn parses_every_model_and_rejects_others() {
        for (s, m) in [
            ("recallkit", Ranking::Recallkit),
            ("abmind", Ranking::Abmind),
            ("rrf", Ranking::Rrf),
            ("composite", Ranking::Composite),
            ("weighted", Ranking::Weighted),
        ] {
            assert_eq!(Ranking::parse(s).unwrap(), m);
        }
        assert_eq!(
            Ranking::parse("bm25").unwrap_err().code(),
            "invalid_argument"
        );
    }

    #[test]
    fn evidence_from_two_stages_scores_above_either_alone() {
        let p = FusionParams::default();
        let lexical = Evidence {
            lexical: 0.6,
            ..Evidence::default()
        };
        let semantic = Evidence {
            semantic: 0.6,
            ..Evidence::default()
        };
        let both = Evidence {
            lexical: 0.6,
            semantic: 0.6,
            ..Evidence::default()
        };
        let alone = p
            .relevance(&lexical, true, false)
            .max(p.relevance(&semantic, true, false));
        assert!(p.relevance(&both, true, false) > alone);
        let with_graph = Evidence { graph: 0.5, ..both };
        assert!(p.relevance(&with_graph, true, false) > p.relevance(&both, true, false));
        // Without vectors the lexical evidence is the whole base.
        assert_close!(p.relevance(&lexical, false, false), 0.6);
    }

    #[test]
    fn age_is_a_preference_not_a_filter() {
        let p = FusionParams::default();
        let (old, _) = p.preference(0.0, 1.0, false);
        let (new, _) = p.preference(1.0, 1.0, false);
        assert_close!(old, 0.9);
        assert_close!(new, 1.0);
        // A year-old full match stays above a fresh memory matching a third of the query.
        assert!(1.0 * old > (1.0 / 3.0) * new);
        let (old_latest, _) = p.preference(0.0, 1.0, true);
        assert_close!(old_latest, 0.5);
        let (_, core) = p.preference(1.0, 1.3, false);
        assert_close!(core, 1.3f64.powf(0.25));
    }

    #[test]
    fn recognises_questions_about_the_latest_state() {
        assert!(asks_for_latest("What is my current employer?"));
        assert!(asks_for_latest("latest build status"));
        assert!(!asks_for_latest("what did I do last spring"));
    }

    #[test]
    fn rrf_is_scaled_by_the_lists_that_ran() {
        let e = Evidence {
            sf_rank: Some(1),
            se_rank: Some(1),
            ..Evidence::default()
        };
        assert_close!(rrf_score(&e, 2), 1.0);
        let half = Evidence {
            sf_rank: Some(1),
            ..Evidence::default()
        };
        assert_close!(rrf_score(&half, 2), 0.5);
        assert_close!(rrf_score(&Evidence::default(), 0), 0.0);
    }

    #[test]
    fn weighted_components_follow_the_weights() {
        let mut w = Weights::default();
        let e = Evidence {
            cosine: Some(0.8),
            lexical: 0.5,
            exact: 1.0,
            ..Evidence::default()
        };
        let f = Facts {
            importance: 1.0,
            ..Facts::default()
        };
        let c = w.components(&e, &f);
        assert_close!(c[0].1, 0.2);
        assert_close!(c[1].1, 0.075);
        assert_close!(c[2].1, 0.25);
        assert_close!(c[3].1, 0.05);
        assert_close!(w.total(), 1.15);
        w.set("vector", 1.0).unwrap();
        assert_close!(w.vector, 1.0);
        assert_eq!(w.set("nope", 1.0).unwrap_err().code(), "invalid_argument");
        assert_eq!(w.set("tag", -1.0).unwrap_err().code(), "invalid_argument");
    }

    #[test]
    fn weights_that_cannot_make_a_score_are_refused() {
        let mut w = Weights::default();
        assert!(w.validate().is_ok());
        for (name, _) in Weights::default().named() {
            w.set(name, 0.0).unwrap();
        }
        assert_eq!(w.validate().unwrap_err().code(), "invalid_argument");
        w.set("tag", 1e-9).unwrap();
        assert!(w.validate().is_ok(), "one weight above 0 is enough");
        w.set("vector", f64::MAX).unwrap();
        w.set("keyword", f64::MAX).unwrap();
        let e = w.validate().unwrap_err();
        assert!(e.to_string().contains("finite sum above 0"), "{e}");
    }

    #[test]
    fn composite_falls_back_to_lexical_without_a_cosine() {
        let f = Facts::default();
        let lexical = composite(
            &Evidence {
                lexical: 0.5,
                ..Evidence::default()
            },
            &f,
        );
        assert_close!(lexical[0].1, 0.3);
        let vector = composite(
            &Evidence {
                lexical: 0.5,
                cosine: Some(1.0),
                ..Evidence::default()
            },
            &f,
        );
        assert_close!(vector[0].1, 0.6);
    }
}
