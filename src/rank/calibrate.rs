//! Calibration: each stage's raw score mapped to `[0, 1]` so that scores from different stages can
//! be merged, boosted and compared by MMR. abmind's pipeline mixes the raw scales; recallkit adds
//! this step to it (`docs/design-sources.md` §1, "Calibration").
//!
//! Stage scores live on different scales: Sf is BM25 times abmind's factors (unbounded;
//! mostly 1–20, and the recency factor alone spans ×0.3–×1), Se a cosine, Ss a Hamming
//! similarity above its 0.65 threshold, S6 and S8 fixed values (0.5, 0.6). Each stage gets its
//! own [`Mapping`]:
//!
//! | stage | default mapping | formula | examples |
//! |---|---|---|---|
//! | `Sf…` | [`Mapping::Hyperbolic`], `half = 1` | `raw / (raw + 1)` | 0.5 → 0.33, 1 → 0.5, 1.5 → 0.6, 4 → 0.8, 9 → 0.9 |
//! | `Se` | [`Mapping::Linear`], `zero = 0.3` | `(raw − 0.3) / 0.7` | 0.5 → 0.29, 0.65 → 0.5, 0.86 → 0.8, 1 → 1 |
//! | `Ss` | [`Mapping::Linear`], `zero = 0.65` | `(raw − 0.65) / 0.35` | 0.65 → 0, 0.8 → 0.43, 1 → 1 |
//! | `S6…`, `S8`, others | [`Mapping::Identity`] | `raw` | 0.5 → 0.5, 0.6 → 0.6 |
//!
//! and every result is clamped to `[0, 1]`; NaN maps to 0.
//!
//! # Invariants
//!
//! - **Per hit, never per query.** A mapping looks at one raw score and fixed parameters,
//!   never at the other hits of the query (no max-normalisation, no softmax). So a weak best
//!   hit stays weak and a relevance floor on calibrated scores (the short-circuit's
//!   `EngineConfig::short_circuit_floor`) means the same thing for every query.
//! - **Monotone.** Each mapping is non-decreasing in `raw`, so calibration never reorders the
//!   hits of one stage.
//!
//! # How the defaults were chosen
//!
//! By measurement on the labelled set of `bench/labelled/` (5 526 memories of fictional
//! people's work and life over two years, 352 consolidation notes, 181 graph edges, host-style
//! embeddings from a word-vector model, 386 graded queries in five classes: exact, typo,
//! paraphrase, temporal, entity; `node bench/labelled/eval.mjs`, docs/quality.md).
//!
//! **Reliability** (`node bench/labelled/reliability.mjs`): the share of a stage's hits (limit
//! 10) that are labelled relevant, by raw score.
//!
//! | stage | raw | relevant |
//! |---|---|---:|
//! | Sf | < 1 / 1–2 / 2–4 / 4–8 / 8–12 / ≥ 12 | 0 % / 0.7 % / 11 % / 10 % / 8 % / 15 % |
//! | Se | < 0.65 / 0.65–0.7 / 0.7–0.8 / 0.8–0.9 / ≥ 0.9 | 2.5 % / 10 % / 26 % / 56 % / 100 % |
//! | Ss | 0.65–0.7 / 0.7–0.8 / ≥ 0.8 | 16 % / 33 % / 68 % |
//! | S6 (0.5) / S8 (0.6) | fixed | 3.5 % / 5.2 % (24 % on entity questions) |
//!
//! S6 and S8 keep abmind's fixed scores, so they are the yardsticks: a hit more reliable than
//! a note paragraph or an edge should score above 0.5 and 0.6. Sf hits under raw 1 are never
//! relevant, and from raw 2 on they beat S6 and S8. Reliability is nearly flat above raw 2:
//! the recency factor (×0.3 for a memory a year old) puts strong matches in old memories
//! level with weak matches in new ones.
//!
//! **End to end**: mean nDCG@10 over the three modes (lexical, hybrid with embeddings, hybrid
//! without), one parameter varied at a time:
//!
//! | parameter (the others at their defaults) | mean nDCG@10 |
//! |---|---|
//! | Sf hyperbolic `half` 0.5 / 0.75 / **1** / 1.5 / 2 / 3 / 4.5 (former default) / 9 | 0.421 / 0.437 / **0.435** / 0.427 / 0.407 / 0.338 / 0.260 / 0.174 |
//! | Sf exponential `scale` 1 / 1.5 / 2 / 3 | 0.386 / 0.413 / 0.430 / 0.425 |
//! | Sf identity (no calibration) | 0.310 |
//! | Se `zero` 0 (former default) / 0.2 / **0.3** / 0.4 / 0.5 | 0.425 / 0.434 / **0.435** / 0.432 / 0.431 |
//! | Ss `zero` 0 / 0.3 / 0.5 / **0.65** / 0.8 | 0.428 / 0.434 / 0.435 / **0.435** / 0.435 |
//!
//! - **Sf: hyperbolic, `half = 1`** ([`DEFAULT_SF_HALF`]). A hit of raw 1 maps to 0.5, level
//!   with a note paragraph; raw 1.5 to 0.6, level with an edge; raw ≥ 2, where hits become
//!   reliable, above both. `half` 0.75 ties (0.437 here; on two other seeds of the set it
//!   loses, 0.446 vs 0.449 and 0.440 vs 0.442), and 1 is the simpler number. The
//!   hyperbolic form beats the exponential at every scale tried: its heavy tail keeps strong
//!   hits apart (4 vs 9 → 0.8 vs 0.9; `1 − exp(−raw / 2)` gives 0.86 vs 0.99), which matters
//!   because MMR trades score differences against similarity. The former default, `half` 4.5,
//!   put most relevant Sf hits (raw 2–6) under S6 and S8 noise.
//! - **Se: linear from `zero = 0.3`** ([`DEFAULT_SE_ZERO`]): about the cosine of unrelated
//!   texts for an embedder like the benchmark's (anisotropic, as sentence embedders are), so
//!   an unrelated text maps to 0 and cosine 0.65, where Se hits start to beat S6 and S8 in
//!   reliability, maps to 0.5. Keeping the raw cosine (`zero = 0`) let weak Se hits (0.55–0.65,
//!   2–4 % relevant) crowd out edges and Sf hits. A host whose model gives unrelated texts a
//!   very different cosine may want another `zero`.
//! - **Ss: linear from its threshold, `zero = 0.65`** ([`DEFAULT_SS_ZERO`]): similarity just
//!   at the threshold carries the least evidence and maps to 0, a perfect match to 1. Lower
//!   zeros (which the reliability table would suggest) do not help end to end: Ss only adds
//!   memories that Sf and Se missed, and those are rarely relevant.
//! - **S6 and S8** are already fixed scores in `[0, 1]` chosen by abmind (0.5 and 0.6); they
//!   map to themselves.
//!
//! This calibration belongs to the `abmind` ranking (abmind's recall pipeline); the other rankings
//! put evidence on common scales instead (`rank::evidence`), measured on real conversations.
//!
//! Invalid parameters (NaN, `half ≤ 0`, `scale ≤ 0`, `zero ≥ 1`) never panic: the mapping then
//! behaves as [`Mapping::Identity`], and [`Calibration::validate`] reports them.

use super::{Candidate, StageKind};
use crate::error::{Error, Num, Result};

/// Default `half` of the Sf mapping: raw 1 maps to 0.5, level with an S6 paragraph; chosen on
/// the labelled set (module doc, "How the defaults were chosen").
pub const DEFAULT_SF_HALF: f64 = 1.0;
/// Default `zero` of the Se mapping: about the cosine of unrelated texts; chosen on the
/// labelled set (module doc).
pub const DEFAULT_SE_ZERO: f64 = 0.3;
/// Default `zero` of the Ss mapping: the stage's similarity threshold (abmind: 0.65).
pub const DEFAULT_SS_ZERO: f64 = 0.65;
/// Component name under which [`apply_calibration`] records the calibrated score.
pub const CALIBRATED: &str = "calibrated";

/// A monotone map from a raw stage score to `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mapping {
    /// `raw`, clamped to `[0, 1]`.
    Identity,
    /// `(raw − zero) / (1 − zero)`, clamped to `[0, 1]`; requires `zero < 1`.
    Linear {
        /// The raw score that maps to 0.
        zero: f64,
    },
    /// `1 − exp(−raw / scale)` for `raw ≥ 0` (0 below); requires `scale > 0`.
    Exponential {
        /// The raw score that maps to `1 − 1/e ≈ 0.63`.
        scale: f64,
    },
    /// `raw / (raw + half)` for `raw ≥ 0` (0 below); requires `half > 0`.
    Hyperbolic {
        /// The raw score that maps to 0.5.
        half: f64,
    },
}

impl Mapping {
    /// The mapping as messages show it, e.g. `Hyperbolic { half: -1 }`.
    pub fn describe(&self) -> String {
        match *self {
            Mapping::Identity => "Identity".to_owned(),
            Mapping::Linear { zero } => format!("Linear {{ zero: {} }}", Num(zero)),
            Mapping::Exponential { scale } => format!("Exponential {{ scale: {} }}", Num(scale)),
            Mapping::Hyperbolic { half } => format!("Hyperbolic {{ half: {} }}", Num(half)),
        }
    }

    /// Maps `raw` to `[0, 1]`. NaN gives 0; an invalid parameter makes this [`Mapping::Identity`].
    ///
    /// ```
    /// use recallkit::rank::calibrate::Mapping;
    /// assert_eq!(Mapping::Hyperbolic { half: 4.5 }.apply(4.5), 0.5);
    /// assert_eq!(Mapping::Linear { zero: 0.65 }.apply(0.6), 0.0);
    /// assert_eq!(Mapping::Identity.apply(f64::NAN), 0.0);
    /// ```
    pub fn apply(&self, raw: f64) -> f64 {
        if raw.is_nan() {
            return 0.0;
        }
        if !self.is_valid() {
            return Mapping::Identity.apply(raw);
        }
        let mapped = match *self {
            Mapping::Identity => raw,
            Mapping::Linear { zero } => (raw - zero) / (1.0 - zero),
            Mapping::Exponential { scale } => -(-raw.max(0.0) / scale).exp_m1(),
            // Written as `1 − half / (raw + half)` so that rounding cannot break monotonicity:
            // each operation is monotone in `raw`, and `raw = ∞` gives exactly 1.
            Mapping::Hyperbolic { half } => 1.0 - half / (raw.max(0.0) + half),
        };
        if mapped.is_nan() {
            0.0
        } else {
            mapped.clamp(0.0, 1.0)
        }
    }

    /// Whether the parameter is in range (see each variant).
    pub fn is_valid(&self) -> bool {
        match *self {
            Mapping::Identity => true,
            Mapping::Linear { zero } => zero.is_finite() && zero < 1.0,
            Mapping::Exponential { scale } => scale.is_finite() && scale > 0.0,
            Mapping::Hyperbolic { half } => half.is_finite() && half > 0.0,
        }
    }
}

/// The mapping of every stage. `Default` gives the table of the module doc.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Stage Sf (`Sf:porter`, `Sf:trigram_en`, `Sf:trigram_orig`): BM25-based, unbounded.
    pub sf: Mapping,
    /// Stage Se: cosine similarity.
    pub se: Mapping,
    /// Stage Ss: Hamming similarity of signatures, `1 − distance / bits`.
    pub ss: Mapping,
    /// Stage S6 (`S6:daily`, `S6:weekly`, …): fixed 0.5.
    pub s6: Mapping,
    /// Stage S8: fixed 0.6.
    pub s8: Mapping,
    /// Any other stage label.
    pub other: Mapping,
}

impl Default for Calibration {
    fn default() -> Self {
        Calibration {
            sf: Mapping::Hyperbolic {
                half: DEFAULT_SF_HALF,
            },
            se: Mapping::Linear {
                zero: DEFAULT_SE_ZERO,
            },
            ss: Mapping::Linear {
                zero: DEFAULT_SS_ZERO,
            },
            s6: Mapping::Identity,
            s8: Mapping::Identity,
            other: Mapping::Identity,
        }
    }
}

impl Calibration {
    /// The mapping used for a stage label.
    pub fn mapping(&self, stage: &str) -> &Mapping {
        match StageKind::of(stage) {
            Some(StageKind::Sf) => &self.sf,
            Some(StageKind::Se) => &self.se,
            Some(StageKind::Ss) => &self.ss,
            Some(StageKind::S6) => &self.s6,
            Some(StageKind::S8) => &self.s8,
            None => &self.other,
        }
    }

    /// Checks every parameter; the error names the stage and the bad value.
    pub fn validate(&self) -> Result<()> {
        let stages = [
            ("sf", &self.sf),
            ("se", &self.se),
            ("ss", &self.ss),
            ("s6", &self.s6),
            ("s8", &self.s8),
            ("other", &self.other),
        ];
        match stages.iter().find(|(_, m)| !m.is_valid()) {
            None => Ok(()),
            Some((name, m)) => Err(Error::InvalidArgument(format!(
                "calibration of stage {name} has an out-of-range parameter: {}",
                m.describe()
            ))),
        }
    }
}

/// Maps the raw score of a hit from `stage` to `[0, 1]` (see the module doc).
///
/// ```
/// use recallkit::rank::calibrate::{calibrate, Calibration};
/// let c = Calibration::default();
/// assert_eq!(calibrate("Sf:porter", 1.0, &c), 0.5);
/// assert_eq!(calibrate("Se", 0.3, &c), 0.0);
/// assert!((calibrate("Se", 0.65, &c) - 0.5).abs() < 1e-12);
/// assert_eq!(calibrate("S6:weekly", 0.5, &c), 0.5);
/// ```
pub fn calibrate(stage: &str, raw: f64, c: &Calibration) -> f64 {
    c.mapping(stage).apply(raw)
}

/// Calibrates every candidate in place: sets `calibrated`, starts the running `score` from it
/// and records `("calibrated", value)` in `components`. The first step of post-processing.
pub fn apply_calibration(cands: &mut [Candidate], c: &Calibration) {
    for cand in cands {
        cand.calibrated = calibrate(cand.stage, cand.raw, c);
        cand.score = cand.calibrated;
        cand.components.push((CALIBRATED, cand.calibrated));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::CandidateKey;
    use crate::store::DocId;
    use crate::test_support::SplitMix64;

    #[test]
    fn maps_sf_scores_with_the_documented_default() {
        let c = Calibration::default();
        assert_close!(calibrate("Sf:porter", 0.0, &c), 0.0);
        assert_close!(calibrate("Sf:porter", 0.5, &c), 1.0 / 3.0);
        assert_close!(calibrate("Sf:trigram_en", 1.0, &c), 0.5);
        assert_close!(calibrate("Sf:porter", 1.5, &c), 0.6);
        assert_close!(calibrate("Sf:porter", 4.0, &c), 0.8);
        assert_close!(calibrate("Sf:trigram_orig", 9.0, &c), 0.9);
        assert_close!(calibrate("Sf:porter", f64::INFINITY, &c), 1.0);
        assert_close!(calibrate("Sf:porter", -3.0, &c), 0.0);
    }

    #[test]
    fn maps_the_exponential_alternative() {
        let m = Mapping::Exponential { scale: 4.5 };
        assert_close!(m.apply(4.5), 1.0 - (-1.0f64).exp());
        assert_close!(m.apply(9.0), 1.0 - (-2.0f64).exp());
        assert_close!(m.apply(f64::INFINITY), 1.0);
        assert_close!(m.apply(-1.0), 0.0);
    }

    #[test]
    fn maps_se_and_ss_from_their_zero_points() {
        let c = Calibration::default();
        assert_close!(calibrate("Se", 0.3, &c), 0.0);
        assert_close!(calibrate("Se", 0.5, &c), 0.2 / 0.7);
        assert_close!(calibrate("Se", 0.86, &c), 0.8);
        assert_close!(calibrate("Se", 1.0, &c), 1.0);
        assert_close!(calibrate("Se", -0.3, &c), 0.0);
        assert_close!(calibrate("Ss", 0.65, &c), 0.0);
        assert_close!(calibrate("Ss", 0.8, &c), 0.15 / 0.35);
        assert_close!(calibrate("Ss", 1.0, &c), 1.0);
        let raised = Mapping::Linear { zero: 0.5 };
        assert_close!(raised.apply(0.75), 0.5);
    }

    #[test]
    fn keeps_the_fixed_scores_of_s6_and_s8() {
        let c = Calibration::default();
        assert_close!(calibrate("S6:weekly", 0.5, &c), 0.5);
        assert_close!(calibrate("S6:daily", 0.5, &c), 0.5);
        assert_close!(calibrate("S8", 0.6, &c), 0.6);
        assert_close!(calibrate("unknown", 1.7, &c), 1.0);
    }

    #[test]
    fn gives_a_weak_best_hit_a_weak_score_whatever_the_other_hits() {
        // The mapping sees one hit at a time: a lone 0.6 is as weak as a 0.6 among 30s, and
        // ranks under a consolidation paragraph (S6, 0.5), as the labelled set says it should.
        let c = Calibration::default();
        let alone = calibrate("Sf:porter", 0.6, &c);
        assert!(alone < calibrate("S6:weekly", 0.5, &c), "{alone}");
        assert!(calibrate("Sf:porter", 2.0, &c) > calibrate("S8", 0.6, &c));
    }

    #[test]
    fn never_returns_nan_or_leaves_the_unit_interval() {
        let mappings = [
            Mapping::Identity,
            Mapping::Linear { zero: 0.65 },
            Mapping::Linear { zero: -2.0 },
            Mapping::Exponential { scale: 0.1 },
            Mapping::Hyperbolic { half: 1e-300 },
            Mapping::Hyperbolic { half: f64::NAN },
            Mapping::Linear { zero: 1.0 },
            Mapping::Exponential { scale: -1.0 },
        ];
        let raws = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            -0.0,
            1e-300,
            0.65,
        ];
        for m in mappings {
            for raw in raws {
                let y = m.apply(raw);
                assert!((0.0..=1.0).contains(&y), "{m:?}({raw}) = {y}");
            }
        }
    }

    #[test]
    fn treats_invalid_parameters_as_identity_and_reports_them() {
        assert_close!(Mapping::Linear { zero: 1.0 }.apply(0.4), 0.4);
        assert_close!(Mapping::Hyperbolic { half: 0.0 }.apply(0.4), 0.4);
        assert!(Calibration::default().validate().is_ok());
        let bad = Calibration {
            ss: Mapping::Exponential { scale: f64::NAN },
            ..Calibration::default()
        };
        let err = bad.validate().unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
        assert!(err.to_string().contains("stage ss"), "{err}");
    }

    #[test]
    fn is_monotone_within_every_stage() {
        let seed = 0xca11_b8a7;
        let mut rng = SplitMix64(seed);
        let c = Calibration {
            other: Mapping::Exponential { scale: 3.0 },
            ..Calibration::default()
        };
        for case in 0..2_000 {
            let stage = ["Sf:porter", "Se", "Ss", "S6:weekly", "S8", "x"][rng.below(6) as usize];
            let spread = [1.0, 30.0][rng.below(2) as usize];
            let a = (rng.below(1 << 20) as f64 / f64::from(1 << 20) - 0.2) * spread;
            let b = (rng.below(1 << 20) as f64 / f64::from(1 << 20) - 0.2) * spread;
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            assert!(
                calibrate(stage, lo, &c) <= calibrate(stage, hi, &c),
                "seed {seed:#x}, case {case}: {stage} {lo} {hi}"
            );
        }
    }

    #[test]
    fn calibrates_candidates_and_starts_their_running_score() {
        let mut cands = vec![
            Candidate::new(CandidateKey::Memory(DocId(0)), "Sf:porter", 9.0, "a"),
            Candidate::new(CandidateKey::Edge(3), "S8", 0.6, "b"),
        ];
        apply_calibration(&mut cands, &Calibration::default());
        assert_close!(cands[0].calibrated, 0.9);
        assert_close!(cands[0].score, 0.9);
        assert_eq!(cands[0].components.len(), 1);
        assert_eq!(cands[0].components[0].0, "calibrated");
        assert_close!(cands[1].score, 0.6);
    }
}
