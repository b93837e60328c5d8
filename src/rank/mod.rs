//! Post-processing of recall candidates: pure functions that turn the stages' hits into the
//! ranked, enriched result list. [`post_process`] is abmind's "Post-processing" (the `abmind`
//! ranking, `docs/design-sources.md` §1); [`fused`] ranks for the other models ([`model`]);
//! [`host`] applies the host's reranker; [`fusion::rrf`] is Memoria's fusion.
//!
//! The pipeline hands over a `Vec<`[`Candidate`]`>`, already deduplicated across stages (the
//! first stage that found a record keeps it) and in pipeline order: stages in the order
//! Sf → Se → Ss → S6 → S8, each stage's hits by score descending, ties by ascending id.
//! "Earlier" in every tie rule below means earlier in that order.
//!
//! # Order of operations
//!
//! | step | function | effect on `score` | component recorded |
//! |---|---|---|---|
//! | 1. calibrate | [`calibrate::apply_calibration`] | `score = calibrate(stage, raw) ∈ [0, 1]` | `calibrated` |
//! | 2. cross-stage penalty | [`boost::cross_stage_penalty`] | `× 0.5` for Sf hits not confirmed by Se, when Se ran and returned hits | `crossStagePenalty` |
//! | 3. context | [`boost::context_boost`] | `+ 0.02` same hour bucket, `+ 0.015` same weekday (else `+ 0.0075` same weekday/weekend class), `+ 0.03` same topic (not "general") | `contextBoost` |
//! | 4. emotion | [`boost::emotion_tiebreak`] | `+ min(0.02 · \|emotion\|, 0.10)` | `emotionTiebreak` |
//! | 5. spacing | [`boost::spacing_boost`] | `× 1.3` if the mean interval of the last 20 recalls is ≥ 7 days, `× 1.15` if ≥ 1 day | `spacingBoost` |
//! | 6. MMR | [`mmr::mmr`] (first `limit` only: [`mmr::mmr_top`]) | reorders: `λ · score − (1 − λ) · max Jaccard`, λ = 0.7 | `rankBeforeMmr`, `rankAfterMmr` |
//! | 7. truncate | [`take_in_order`] | keeps the first `limit` | |
//! | 8. enrich | [`enrich::timeline`], [`enrich::conflicts`] | none: adds timelines and conflict warnings | |
//!
//! [`post_process`] runs steps 1–7 in this order; enrichment runs on its output. With a host
//! reranker, step 7 keeps [`host::RERANK_DEPTH`] candidates and [`host::apply`] reorders and cuts
//! them before enrichment. [`fusion::rrf`] (Reciprocal Rank Fusion, k = 60) is the alternative way
//! to merge ranked lists (Memoria's fusion).
//!
//! # Invariants
//!
//! - Every function is pure and deterministic: no clock (the host passes its hour, weekday
//!   and UTC offset in [`boost::Context`]), no randomness, no hash-map iteration order in any
//!   output.
//! - A function that takes `&mut [Candidate]` changes only `score` (and, for calibration,
//!   `calibrated`) and appends to `components`; nothing else is reordered or removed.
//! - No input panics: NaN, infinities, empty texts, empty lists, huge timestamps.
//! - Every factor applied to a score is recorded, in order, in `components`, so a result can
//!   explain itself (e.g. `calibrated 0.71, crossStagePenalty 0.5, contextBoost 0.035,
//!   emotionTiebreak 0.06, spacingBoost 1.15, rankBeforeMmr 3, rankAfterMmr 1`).

pub mod boost;
pub mod calibrate;
pub mod civil;
pub mod contradiction;
pub mod enrich;
pub mod evidence;
pub mod fused;
pub mod fusion;
pub mod hints;
pub mod host;
pub mod mmr;
pub mod model;
pub mod order;

pub use boost::Context;
pub use calibrate::{calibrate, Calibration, Mapping};
pub use evidence::Evidence;
pub use fusion::rrf;
pub use mmr::mmr;
pub use model::{FusionParams, Ranking, Weights};

use crate::store::DocId;

/// What a candidate points at: the record the result stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CandidateKey {
    /// A stored memory (stages Sf, Se, Ss).
    Memory(DocId),
    /// A paragraph of a consolidation note (stage S6).
    Note {
        /// The note's index.
        note: u32,
        /// The paragraph's index within the note.
        paragraph: u32,
    },
    /// An entity-graph edge (stage S8).
    Edge(u32),
}

/// The recall stages, as named by the prefix of a stage label before any `:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageKind {
    /// Lexical: `Sf:porter`, `Sf:trigram_en`, `Sf:trigram_orig`.
    Sf,
    /// Embedding (cosine of the host's vectors): `Se`.
    Se,
    /// Signature (Hamming similarity of 256-bit signatures): `Ss`.
    Ss,
    /// Notes (consolidation note paragraphs): `S6:daily`, `S6:weekly`, `S6:quarterly`.
    S6,
    /// Graph (entity edges): `S8`.
    S8,
}

impl StageKind {
    /// The stage of a label: the part before the first `:` must be exactly `Sf`, `Se`, `Ss`,
    /// `S6` or `S8`; anything else is `None`.
    ///
    /// ```
    /// use recallkit::rank::StageKind;
    /// assert_eq!(StageKind::of("Sf:trigram_en"), Some(StageKind::Sf));
    /// assert_eq!(StageKind::of("S6:weekly"), Some(StageKind::S6));
    /// assert_eq!(StageKind::of("Sfx"), None);
    /// ```
    pub fn of(stage: &str) -> Option<StageKind> {
        let prefix = stage.split(':').next().unwrap_or(stage);
        match prefix {
            "Sf" => Some(StageKind::Sf),
            "Se" => Some(StageKind::Se),
            "Ss" => Some(StageKind::Ss),
            "S6" => Some(StageKind::S6),
            "S8" => Some(StageKind::S8),
            _ => None,
        }
    }
}

/// One hit on its way through post-processing.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The record this hit stands for.
    pub key: CandidateKey,
    /// The stage label: `Sf:porter`, `Sf:trigram_en`, `Sf:trigram_orig`, `Se`, `Ss`,
    /// `S6:weekly`, `S8`, …
    pub stage: &'static str,
    /// The stage's raw score: the Sf formula (BM25-based), a cosine, a Hamming similarity, 0.5
    /// for S6, 0.6 for S8.
    pub raw: f64,
    /// `raw` mapped to `[0, 1]` by [`calibrate()`].
    pub calibrated: f64,
    /// The running score: starts at `calibrated`, then goes through the boosts.
    pub score: f64,
    /// The text used for MMR similarity and conflict detection.
    pub text: String,
    /// Creation time, in milliseconds since the Unix epoch.
    pub created_at: Option<f64>,
    /// Last update time (memories), for `sort: "updated_*"` ([`order`]).
    pub updated_at: Option<f64>,
    /// The context hints' boost for this memory ([`hints`]), added by the context boost.
    pub hint: f64,
    /// The record's topic, if any.
    pub topic: Option<String>,
    /// Emotion score, −5..5 (0 when unknown).
    pub emotion: f64,
    /// Times the record was returned by earlier recalls, in ms since the epoch, oldest first
    /// (the store keeps the last 20).
    pub recall_timestamps: Vec<f64>,
    /// Whether stage Se also found this record (for the cross-stage penalty).
    pub confirmed_by_se: bool,
    /// Every factor applied, in order: `("calibrated", 0.71)`, `("crossStagePenalty", 0.5)`, …
    pub components: Vec<(&'static str, f64)>,
    /// What every stage found about this record (read by the models other than `abmind`).
    pub evidence: Evidence,
    /// The memory's facts (the metadata models; default for notes and edges).
    pub facts: model::Facts,
}

impl Candidate {
    /// A candidate with the given key, stage, raw score and text; every other field empty
    /// (`calibrated` and `score` 0, no time, topic, emotion or recalls, not confirmed by Se).
    pub fn new(key: CandidateKey, stage: &'static str, raw: f64, text: impl Into<String>) -> Self {
        Candidate {
            key,
            stage,
            raw,
            calibrated: 0.0,
            score: 0.0,
            text: text.into(),
            created_at: None,
            updated_at: None,
            hint: 0.0,
            topic: None,
            emotion: 0.0,
            recall_timestamps: Vec::new(),
            confirmed_by_se: false,
            components: Vec::new(),
            evidence: Evidence::default(),
            facts: model::Facts::default(),
        }
    }

    /// The last value recorded under `name` in `components`, if any.
    pub fn component(&self, name: &str) -> Option<f64> {
        self.components
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }
}

/// Everything [`post_process`] needs besides the candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct PostProcessOptions {
    /// Per-stage calibration.
    pub calibration: Calibration,
    /// Whether stage Se ran and returned at least one hit (enables the cross-stage penalty).
    pub se_ran_with_hits: bool,
    /// The caller's context, if it gave one (enables the context boost).
    pub context: Option<Context>,
    /// MMR trade-off λ (abmind's: [`mmr::DEFAULT_LAMBDA`] = 0.7).
    pub lambda: f64,
    /// Results to keep after MMR.
    pub limit: usize,
    /// Memories kept past the cut (the recall's `priorityIds`; [`take_in_order`]).
    pub keep: Vec<DocId>,
}

impl Default for PostProcessOptions {
    fn default() -> Self {
        PostProcessOptions {
            calibration: Calibration::default(),
            se_ran_with_hits: false,
            context: None,
            lambda: mmr::DEFAULT_LAMBDA,
            limit: usize::MAX,
            keep: Vec::new(),
        }
    }
}

/// Runs post-processing steps 1–7 of the module doc (calibrate, cross-stage penalty, context,
/// emotion, spacing, MMR, truncate) and returns the first `limit` candidates in MMR order,
/// each with its full list of components.
pub fn post_process(mut cands: Vec<Candidate>, options: &PostProcessOptions) -> Vec<Candidate> {
    calibrate::apply_calibration(&mut cands, &options.calibration);
    boost::cross_stage_penalty(&mut cands, options.se_ran_with_hits);
    if let Some(context) = &options.context {
        boost::context_boost(&mut cands, context);
    }
    boost::emotion_tiebreak(&mut cands);
    boost::spacing_boost(&mut cands);
    // Only the first `limit` of the MMR order survive truncation: O(n · limit), not O(n²).
    let order = mmr::mmr_top(&cands, options.lambda, options.limit);
    mmr::record_ranks(&mut cands, &order);
    take_in_order(cands, &order, options.limit, &options.keep)
}

/// The candidates at the positions `order` lists, in that order, at most `limit` of them,
/// then the memories `keep` names (a recall's `priorityIds`, which no cut drops: delivery
/// makes room for them and orders them by score) that did not make it. Positions out of
/// range or repeated are skipped, so any `order` is safe.
pub fn take_in_order(
    cands: Vec<Candidate>,
    order: &[usize],
    limit: usize,
    keep: &[DocId],
) -> Vec<Candidate> {
    let mut slots: Vec<Option<Candidate>> = cands.into_iter().map(Some).collect();
    let mut out: Vec<Candidate> = order
        .iter()
        .filter_map(|&i| slots.get_mut(i).and_then(Option::take))
        .take(limit)
        .collect();
    if !keep.is_empty() {
        out.extend(slots.into_iter().flatten().filter(|c| is_kept(c, keep)));
    }
    out
}

/// Whether `c` is one of the memories `keep` names.
fn is_kept(c: &Candidate, keep: &[DocId]) -> bool {
    matches!(c.key, CandidateKey::Memory(doc) if keep.contains(&doc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(id: u32, stage: &'static str, raw: f64, text: &str) -> Candidate {
        Candidate::new(CandidateKey::Memory(DocId(id)), stage, raw, text)
    }

    /// The calibration these tests' arithmetic is written for (Sf `half` 4.5, Se kept as it
    /// is), pinned so that re-tuning the defaults leaves them valid.
    fn fixed_calibration() -> Calibration {
        Calibration {
            sf: Mapping::Hyperbolic { half: 4.5 },
            se: Mapping::Linear { zero: 0.0 },
            ..Calibration::default()
        }
    }

    #[test]
    fn names_stages_by_their_prefix() {
        assert_eq!(StageKind::of("Sf:porter"), Some(StageKind::Sf));
        assert_eq!(StageKind::of("Sf"), Some(StageKind::Sf));
        assert_eq!(StageKind::of("Se"), Some(StageKind::Se));
        assert_eq!(StageKind::of("Ss"), Some(StageKind::Ss));
        assert_eq!(StageKind::of("S6:quarterly"), Some(StageKind::S6));
        assert_eq!(StageKind::of("S8"), Some(StageKind::S8));
        assert_eq!(StageKind::of(""), None);
        assert_eq!(StageKind::of("Se2"), None);
    }

    #[test]
    fn takes_candidates_in_order_skipping_bad_positions() {
        let cands = vec![memory(0, "Se", 0.9, "a"), memory(1, "Se", 0.8, "b")];
        let out = take_in_order(cands.clone(), &[1, 7, 1, 0], 10, &[]);
        assert_eq!(out, [cands[1].clone(), cands[0].clone()]);
        assert_eq!(take_in_order(cands, &[1, 0], 1, &[]).len(), 1);
    }

    #[test]
    fn post_processes_with_every_step_in_the_documented_order() {
        let day = civil::MS_PER_DAY;
        let mut porter = memory(0, "Sf:porter", 9.0, "alpha beta gamma");
        porter.emotion = -3.0;
        porter.recall_timestamps = vec![0.0, 2.0 * day, 4.0 * day];
        let mut se = memory(1, "Se", 0.8, "delta epsilon");
        se.topic = Some("work".into());
        let s8 = memory(2, "S8", 0.6, "alice works_with bob");
        let options = PostProcessOptions {
            calibration: fixed_calibration(),
            se_ran_with_hits: true,
            context: Some(Context {
                topic: Some("work".into()),
                ..Context::default()
            }),
            limit: 2,
            ..PostProcessOptions::default()
        };
        let out = post_process(vec![porter, se, s8], &options);
        assert_eq!(out.len(), 2);
        // Se: 0.8 + 0.03 topic = 0.83, first.
        assert_eq!(out[0].key, CandidateKey::Memory(DocId(1)));
        assert_close!(out[0].score, 0.83);
        // S8: 0.6 beats porter: (2/3 · 0.5 + 0.06) · 1.15 = 0.452.
        assert_eq!(out[1].key, CandidateKey::Memory(DocId(2)));
        let names: Vec<&str> = out[1].components.iter().map(|c| c.0).collect();
        assert_eq!(names, ["calibrated", "rankBeforeMmr", "rankAfterMmr"]);

        let all = post_process(
            vec![
                memory(0, "Sf:porter", 9.0, "alpha beta gamma"),
                memory(1, "Se", 0.8, "delta epsilon"),
            ],
            &PostProcessOptions {
                calibration: fixed_calibration(),
                se_ran_with_hits: true,
                ..PostProcessOptions::default()
            },
        );
        let names: Vec<&str> = all[1].components.iter().map(|c| c.0).collect();
        assert_eq!(
            names,
            [
                "calibrated",
                "crossStagePenalty",
                "rankBeforeMmr",
                "rankAfterMmr"
            ]
        );
        assert_close!(all[1].score, 1.0 / 3.0);
    }

    #[test]
    fn property_components_reproduce_every_score_and_nothing_is_lost() {
        use crate::test_support::SplitMix64;
        let seed = 0x00e4_91a1;
        let mut rng = SplitMix64(seed);
        let stages = ["Sf:porter", "Sf:trigram_en", "Se", "Ss", "S6:weekly", "S8"];
        let day = civil::MS_PER_DAY;
        for case in 0..300 {
            let n = rng.below(20) as usize;
            let cands: Vec<Candidate> = (0..n)
                .map(|i| {
                    let stage = stages[rng.below(stages.len() as u64) as usize];
                    let raw = rng.below(2_000) as f64 / 100.0;
                    let mut c = memory(i as u32, stage, raw, &format!("w{} x", rng.below(5)));
                    c.confirmed_by_se = rng.below(2) == 0;
                    c.emotion = rng.below(11) as f64 - 5.0;
                    c.created_at = Some(1.7e12 + rng.below(1_000) as f64 * day / 7.0);
                    c.topic = Some(["work", "home", "general"][rng.below(3) as usize].into());
                    c.recall_timestamps = (0..rng.below(4)).map(|k| k as f64 * day).collect();
                    c
                })
                .collect();
            let options = PostProcessOptions {
                se_ran_with_hits: rng.below(2) == 0,
                context: Some(Context {
                    hour: Some(rng.below(24) as u8),
                    day_of_week: Some(rng.below(7) as u8),
                    topic: Some("work".into()),
                    utc_offset_minutes: rng.below(1_440) as i32 - 720,
                    ..Context::default()
                }),
                limit: rng.below(25) as usize,
                ..PostProcessOptions::default()
            };
            let out = post_process(cands.clone(), &options);
            let ctx = format!("seed {seed:#x}, case {case}");
            assert_eq!(out.len(), n.min(options.limit), "{ctx}");
            for (rank, c) in out.iter().enumerate() {
                let get = |name: &str| c.component(name);
                let mut score = get("calibrated").unwrap();
                score *= get("crossStagePenalty").unwrap_or(1.0);
                score += get("contextBoost").unwrap_or(0.0);
                score += get("emotionTiebreak").unwrap_or(0.0);
                score *= get("spacingBoost").unwrap_or(1.0);
                assert_close!(c.score, score);
                assert_eq!(get("rankAfterMmr"), Some((rank + 1) as f64), "{ctx}");
                assert!(cands.iter().any(|x| x.key == c.key), "{ctx}");
            }
        }
    }

    #[test]
    fn records_the_components_of_the_seed_example_in_order() {
        let day = civil::MS_PER_DAY;
        // Created Monday 2024-03-04 09:00 UTC; the caller is on a Monday morning.
        let mut c = memory(0, "Sf:porter", 4.5, "deploy on mondays");
        c.created_at = Some(1_709_542_800_000.0);
        c.emotion = 3.0;
        c.recall_timestamps = vec![0.0, 1.5 * day, 3.0 * day];
        let options = PostProcessOptions {
            calibration: fixed_calibration(),
            se_ran_with_hits: true,
            context: Some(Context {
                hour: Some(10),
                day_of_week: Some(1),
                ..Context::default()
            }),
            ..PostProcessOptions::default()
        };
        let out = post_process(vec![c], &options);
        let expected = [
            ("calibrated", 0.5),
            ("crossStagePenalty", 0.5),
            ("contextBoost", 0.035),
            ("emotionTiebreak", 0.06),
            ("spacingBoost", 1.15),
            ("rankBeforeMmr", 1.0),
            ("rankAfterMmr", 1.0),
        ];
        assert_eq!(out[0].components.len(), expected.len());
        for (got, want) in out[0].components.iter().zip(expected) {
            assert_eq!(got.0, want.0);
            assert_close!(got.1, want.1);
        }
        assert_close!(out[0].score, (0.25 + 0.035 + 0.06) * 1.15);
        assert_eq!(out[0].component("spacingBoost"), Some(1.15));
    }
}
