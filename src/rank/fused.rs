//! The fused rankings: the order of operations of the models that weigh every stage's
//! evidence (`recallkit`, `rrf`, `composite`, `weighted`; the `abmind` ranking goes through
//! [`super::post_process`] instead).
//!
//! # Order of operations
//!
//! | step | effect on `score` | components recorded |
//! |---|---|---|
//! | 1. evidence | none | `bm25` (FTS5, `Sf:porter`), `trigramBm25`, `lexical`, `cosine`, `semantic`, `similarity`, `signature`, `graph`, `exact` (those present) |
//! | 2. model | `score` = the model's score ([`super::model`]) | `recallkit`: `relevance`, `recency`, `prior`; `rrf`: `rrf`; `composite` and `weighted`: one per component |
//! | 2b. adjacent (`recallkit`) | `+ adjacentWeight · max(0, best − own)`, `best = max own(n) / distance(n)` over the adjacent candidates ([`super::model`]) | `adjacent` |
//! | 3. context (`recallkit`) | `+` abmind's context boost | `contextBoost` |
//! | 4. emotion (`recallkit`) | `+ min(0.02·\|emotion\|, 0.1)` | `emotionTiebreak` |
//! | 5. floor | drops candidates below `minScore` and every score ≤ 0 | |
//! | 6. MMR (only when the recall gives `mmrLambda`) | reorders | `rankBeforeMmr`, `rankAfterMmr` |
//! | 7. truncate | keeps the first `limit` | |
//! | 8. cap (`recallkit`) | at most 1 | |
//!
//! Every model's score lies in `[0, 1]`, after the boosts too: `recallkit`'s boosts may take a
//! score past 1 until step 8, so that they order two results the model scored at 1 (the model
//! caps its own score at 1 in step 2; a context boost then still tells them apart).

use super::boost::{self, Context};
use super::mmr;
use super::model::{self, FusionParams, Ranking, Weights};
use super::{take_in_order, Candidate, CandidateKey};
use crate::store::DocId;

/// Everything [`rank`] needs besides the candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct FusedOptions {
    /// The model (not [`Ranking::Abmind`], which [`super::post_process`] handles).
    pub ranking: Ranking,
    /// `recallkit`'s parameters.
    pub fusion: FusionParams,
    /// `weighted`'s weights.
    pub weights: Weights,
    /// Whether the query had a vector and stage Se ran (memories with vectors then have a
    /// cosine).
    pub semantic: bool,
    /// Stage lists that ran (for `rrf`'s scale).
    pub lists: u32,
    /// Whether the query asks for the latest state ([`model::asks_for_latest`]).
    pub latest: bool,
    /// Query words the lexical stage read only through a correction
    /// (`recall::sf::SfRun::corrected`): the query's vector was made from them as typed.
    pub corrected: u32,
    /// The caller's context (`recallkit`'s context boost).
    pub context: Option<Context>,
    /// MMR λ; `None`: no MMR.
    pub lambda: Option<f64>,
    /// Candidates scoring below this are dropped.
    pub min_score: f64,
    /// Results to keep.
    pub limit: usize,
    /// Memories kept past the cut (the recall's `priorityIds`; [`take_in_order`]).
    pub keep: Vec<DocId>,
    /// Adjacent memories among the candidates (`recallkit`): positions `(a, b, distance)`
    /// in the candidate list [`rank`] receives, each pair once.
    pub adjacent: Vec<(u32, u32, u32)>,
}

/// Runs steps 1–7 of the module doc and returns at most `limit` candidates, best first.
pub fn rank(mut cands: Vec<Candidate>, o: &FusedOptions) -> Vec<Candidate> {
    for c in &mut cands {
        record_evidence(c);
        score(c, o);
    }
    if o.ranking == Ranking::Recallkit {
        adjacent_bonus(&mut cands, &o.adjacent, o.fusion.adjacent_weight);
        if let Some(context) = &o.context {
            boost::context_boost(&mut cands, context);
        }
        boost::emotion_tiebreak(&mut cands);
    }
    cands.retain(|c| c.score > 0.0 && c.score >= o.min_score);
    let order = match o.lambda {
        Some(lambda) => mmr::mmr_top(&cands, lambda, o.limit),
        None => mmr::score_order(&cands),
    };
    mmr::record_ranks(&mut cands, &order);
    let mut ranked = take_in_order(cands, &order, o.limit, &o.keep);
    // Step 8: the order is taken before the cap, so boosts still order results the model
    // already scored at 1 (a context hint between two exact answers).
    for c in &mut ranked {
        c.score = c.score.min(1.0);
    }
    ranked
}

/// Step 2b: each candidate in `pairs` closes `weight` of the gap between its own score and the
/// best own score of the candidates adjacent to it, divided by their distance (when that is
/// higher); read from the scores of step 2, so gains do not chain, and with `weight ≤ 1` no
/// candidate rises above the neighbour it borrows from.
fn adjacent_bonus(cands: &mut [Candidate], pairs: &[(u32, u32, u32)], weight: f64) {
    if weight <= 0.0 || pairs.is_empty() {
        return;
    }
    let own: Vec<f64> = cands.iter().map(|c| c.score).collect();
    let mut best = vec![0.0f64; cands.len()];
    for &(a, b, distance) in pairs {
        let (a, b, d) = (a as usize, b as usize, f64::from(distance.max(1)));
        if a < own.len() && b < own.len() {
            best[a] = best[a].max(own[b] / d);
            best[b] = best[b].max(own[a] / d);
        }
    }
    for ((c, b), o) in cands.iter_mut().zip(best).zip(own) {
        if b > o {
            let w = if c.evidence.cosine.is_some() {
                weight + (1.0 - weight) * c.evidence.semantic
            } else {
                weight
            };
            let gain = w * (b - o);
            c.score += gain;
            c.components.push(("adjacent", gain));
        }
    }
}

/// Step 1: the evidence present, as components.
fn record_evidence(c: &mut Candidate) {
    let e = c.evidence;
    let memory = matches!(c.key, CandidateKey::Memory(_));
    let mut push = |name, v: Option<f64>| {
        if let Some(v) = v {
            c.components.push((name, v));
        }
    };
    push("bm25", e.porter);
    push("trigramBm25", e.trigram);
    push("lexical", (e.lexical > 0.0 || !memory).then_some(e.lexical));
    push("cosine", e.cosine);
    push("semantic", e.cosine.map(|_| e.semantic));
    push("similarity", e.similarity);
    push("signature", e.similarity.map(|_| e.signature));
    push("graph", (e.graph > 0.0).then_some(e.graph));
}

/// Step 2: the model's score.
fn score(c: &mut Candidate, o: &FusedOptions) {
    let e = c.evidence;
    let memory = matches!(c.key, CandidateKey::Memory(_));
    c.score = match o.ranking {
        Ranking::Recallkit | Ranking::Abmind if !memory => {
            let s = o.fusion.note_weight * e.lexical;
            c.components.push(("relevance", s));
            s
        }
        Ranking::Recallkit | Ranking::Abmind => {
            let semantic = o.semantic && e.cosine.is_some();
            let relevance = o.fusion.relevance(&e, semantic, o.corrected > 0);
            if semantic && o.corrected > 0 {
                c.components
                    .push(("correctedWords", f64::from(o.corrected)));
            }
            let (recency, prior) = o.fusion.preference(c.facts.fresh, c.facts.prior, o.latest);
            c.components.push(("relevance", relevance));
            c.components.push(("recency", recency));
            c.components.push(("prior", prior));
            (relevance * recency * prior).min(1.0)
        }
        Ranking::Rrf => {
            let s = model::rrf_score(&e, o.lists);
            c.components.push(("rrf", s));
            s
        }
        Ranking::Composite => {
            let parts = model::composite(&e, &c.facts);
            c.components.extend(parts);
            parts.iter().map(|p| p.1).sum()
        }
        Ranking::Weighted => {
            c.components.push(("exact", e.exact));
            let parts = o.weights.components(&e, &c.facts);
            c.components.extend(parts);
            let total = o.weights.total();
            if total > 0.0 {
                parts.iter().map(|p| p.1).sum::<f64>() / total
            } else {
                0.0
            }
        }
    };
    if c.score.is_nan() {
        c.score = 0.0;
    }
    c.calibrated = c.score;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::Evidence;
    use crate::store::DocId;

    fn options(ranking: Ranking) -> FusedOptions {
        FusedOptions {
            ranking,
            fusion: FusionParams::default(),
            weights: Weights::default(),
            semantic: true,
            lists: 2,
            latest: false,
            corrected: 0,
            context: None,
            lambda: None,
            min_score: 0.0,
            limit: 10,
            keep: Vec::new(),
            adjacent: Vec::new(),
        }
    }

    fn memory(id: u32, e: Evidence) -> Candidate {
        let mut c = Candidate::new(CandidateKey::Memory(DocId(id)), "Sf:porter", 0.0, "");
        c.evidence = e;
        c.facts.fresh = 1.0;
        c.facts.prior = 1.0;
        c
    }

    #[test]
    fn a_context_hint_orders_two_results_the_model_scores_at_one() {
        // Both hold every query word with boosting factors: the model caps each at 1.
        let full = Evidence {
            lexical: 1.0,
            ..Evidence::default()
        };
        let (mut first, mut hinted) = (memory(0, full), memory(1, full));
        first.facts.prior = 1.5;
        hinted.facts.prior = 1.5;
        hinted.hint = 0.05;
        let o = FusedOptions {
            context: Some(Context::default()),
            ..options(Ranking::Recallkit)
        };
        let ranked = rank(vec![first, hinted], &o);
        let docs: Vec<_> = ranked.iter().map(|c| c.key).collect();
        assert_eq!(
            docs,
            [
                CandidateKey::Memory(DocId(1)),
                CandidateKey::Memory(DocId(0))
            ]
        );
        // Scores stay in [0, 1].
        assert!(ranked.iter().all(|c| c.score == 1.0));
    }

    #[test]
    fn a_memory_next_to_a_better_match_closes_part_of_the_gap_without_chaining_or_overtaking() {
        let lexical = |x| Evidence {
            lexical: x,
            ..Evidence::default()
        };
        // 0 matches well; 1 is the turn after it (distance 1), 2 the one after that (distance
        // 2 from 0, 1 from 1); 3 matches a little and has no neighbour; 4 matches half as well
        // as 0 and is next to it too.
        let cands = vec![
            memory(0, lexical(0.9)),
            memory(1, lexical(0.0)),
            memory(2, lexical(0.0)),
            memory(3, lexical(0.1)),
            memory(4, lexical(0.5)),
        ];
        let o = FusedOptions {
            adjacent: vec![(0, 1, 1), (0, 2, 2), (1, 2, 1), (4, 0, 1)],
            ..options(Ranking::Recallkit)
        };
        let out = rank(cands, &o);
        let score = |doc| {
            out.iter()
                .find(|c| c.key == CandidateKey::Memory(DocId(doc)))
                .map(|c| c.score)
                .unwrap()
        };
        let w = FusionParams::default().adjacent_weight;
        assert!(w > 0.0 && w <= 1.0);
        // 0 has no better neighbour: it keeps its score.
        assert_close!(score(0), 0.9);
        assert_eq!(out[0].component("adjacent"), None);
        // 1 closes w of its gap to 0; 2 gains from 0 at distance 2, not from 1's gain.
        assert_close!(score(1), w * 0.9);
        assert_close!(score(2), w * 0.9 / 2.0);
        assert_close!(score(3), 0.1);
        assert_close!(score(4), 0.5 + w * (0.9 - 0.5));
        let one = out
            .iter()
            .find(|c| c.key == CandidateKey::Memory(DocId(1)))
            .unwrap();
        assert_close!(one.component("adjacent").unwrap(), w * 0.9);
        // No memory rises above the neighbour it borrows from.
        assert_eq!(out[0].key, CandidateKey::Memory(DocId(0)));
        assert!(score(4) <= score(0) && score(1) <= score(0));
        // Other models ignore adjacency; so does a weight of 0.
        for o in [
            FusedOptions {
                ranking: Ranking::Rrf,
                ..o.clone()
            },
            FusedOptions {
                fusion: FusionParams {
                    adjacent_weight: 0.0,
                    ..FusionParams::default()
                },
                ..o.clone()
            },
        ] {
            let cands = vec![memory(0, lexical(0.9)), memory(1, lexical(0.0))];
            assert!(rank(cands, &o)
                .iter()
                .all(|c| c.component("adjacent").is_none()));
        }
    }

    #[test]
    fn a_neighbour_related_to_the_query_closes_more_of_the_gap() {
        // Two neighbours of one match, with vectors: each closes w + (1 − w)·semantic of its gap
        // (its own semantic evidence, 0.1 and 0.6); neither passes the match.
        let with = |semantic| Evidence {
            cosine: Some(0.5),
            semantic,
            ..Evidence::default()
        };
        let cands = || {
            vec![
                memory(
                    0,
                    Evidence {
                        lexical: 0.9,
                        ..with(0.0)
                    },
                ),
                memory(1, with(0.1)),
                memory(2, with(0.6)),
            ]
        };
        let o = FusedOptions {
            adjacent: vec![(0, 1, 1), (0, 2, 1)],
            ..options(Ranking::Recallkit)
        };
        let off = FusedOptions {
            fusion: FusionParams {
                adjacent_weight: 0.0,
                ..FusionParams::default()
            },
            ..o.clone()
        };
        let scores = |o: &FusedOptions| -> Vec<f64> {
            let out = rank(cands(), o);
            (0..3)
                .map(|doc| {
                    (out.iter())
                        .find(|c| c.key == CandidateKey::Memory(DocId(doc)))
                        .map_or(f64::NAN, |c| c.score)
                })
                .collect()
        };
        let (own, with_gain) = (scores(&off), scores(&o));
        let w = FusionParams::default().adjacent_weight;
        assert_close!(
            with_gain[1],
            own[1] + (w + (1.0 - w) * 0.1) * (own[0] - own[1])
        );
        assert_close!(
            with_gain[2],
            own[2] + (w + (1.0 - w) * 0.6) * (own[0] - own[2])
        );
        assert!(with_gain[2] < with_gain[0] && with_gain[1] < with_gain[0]);
    }

    #[test]
    fn the_memory_that_is_the_query_outranks_an_unrelated_one() {
        // Two memories: the query's own text (cosine 1, every word) and one found only by Se.
        let same = memory(
            0,
            Evidence {
                lexical: 1.0,
                cosine: Some(1.0),
                semantic: 1.0,
                ..Evidence::default()
            },
        );
        let other = memory(
            1,
            Evidence {
                cosine: Some(0.2),
                semantic: 0.1,
                ..Evidence::default()
            },
        );
        let out = rank(vec![other, same], &options(Ranking::Recallkit));
        assert_eq!(out[0].key, CandidateKey::Memory(DocId(0)));
        assert!(out[0].score >= 0.99, "{}", out[0].score);
    }

    #[test]
    fn zero_scores_never_fill_the_limit_and_min_score_applies() {
        let hit = memory(
            0,
            Evidence {
                lexical: 0.5,
                ..Evidence::default()
            },
        );
        let nothing = memory(1, Evidence::default());
        let out = rank(vec![hit.clone(), nothing], &options(Ranking::Recallkit));
        assert_eq!(out.len(), 1);
        let strict = FusedOptions {
            min_score: 0.6,
            ..options(Ranking::Recallkit)
        };
        assert!(rank(vec![hit], &strict).is_empty());
    }

    #[test]
    fn a_full_match_outranks_a_note_sharing_one_word() {
        let full = memory(
            0,
            Evidence {
                lexical: 1.0,
                ..Evidence::default()
            },
        );
        let mut note = Candidate::new(
            CandidateKey::Note {
                note: 0,
                paragraph: 0,
            },
            "S6:weekly",
            0.5,
            "",
        );
        note.evidence.lexical = 0.5;
        let out = rank(vec![note, full], &options(Ranking::Recallkit));
        assert_eq!(out[0].key, CandidateKey::Memory(DocId(0)));
        assert_close!(out[1].score, 0.4);
    }

    #[test]
    fn every_model_scores_in_the_unit_interval_and_explains_itself() {
        let e = Evidence {
            porter: Some(3.0),
            lexical: 0.9,
            cosine: Some(0.7),
            semantic: 0.8,
            sf_rank: Some(1),
            se_rank: Some(2),
            graph: 0.5,
            exact: 1.0,
            ..Evidence::default()
        };
        for ranking in [
            Ranking::Recallkit,
            Ranking::Rrf,
            Ranking::Composite,
            Ranking::Weighted,
        ] {
            let out = rank(vec![memory(0, e)], &options(ranking));
            let c = &out[0];
            assert!((0.0..=1.0).contains(&c.score), "{ranking:?} {}", c.score);
            assert_eq!(c.component("bm25"), Some(3.0));
            assert_eq!(c.component("cosine"), Some(0.7));
        }
    }
}
