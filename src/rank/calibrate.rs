//! Calibration: each stage's raw score mapped to `[0, 1]` so that scores from different stages
//! can be merged, boosted and compared by MMR (SPEC §4).
//!
//! Stage scores live on different scales: Sf is BM25 times the seed's factors (unbounded,
//! typically 1–20), Se a cosine, Ss a Hamming similarity above its 0.65 threshold, S6 and S8
//! fixed values (0.5, 0.6). Each stage gets its own [`Mapping`]:
//!
//! | stage | default mapping | formula | examples |
//! |---|---|---|---|
//! | `Sf…` | [`Mapping::Hyperbolic`], `half = 4.5` | `raw / (raw + half)` | 1 → 0.18, 4.5 → 0.5, 9 → 0.67, 18 → 0.8 |
//! | `Se` | [`Mapping::Linear`], `zero = 0` | `(raw − zero) / (1 − zero)` | 0.5 → 0.5, 0.8 → 0.8 |
//! | `Ss` | [`Mapping::Linear`], `zero = 0.65` | `(raw − 0.65) / 0.35` | 0.65 → 0, 0.8 → 0.43, 1 → 1 |
//! | `S6…`, `S8`, others | [`Mapping::Identity`] | `raw` | 0.5 → 0.5, 0.6 → 0.6 |
//!
//! and every result is clamped to `[0, 1]`; NaN maps to 0.
//!
//! # Why these shapes
//!
//! - **Per hit, never per query.** A mapping looks at one raw score and fixed parameters,
//!   never at the other hits of the query (no max-normalisation, no softmax). So a weak best
//!   hit stays weak and a relevance floor on calibrated scores means the same thing for every
//!   query.
//! - **Monotone.** Each mapping is non-decreasing in `raw`, so calibration never reorders the
//!   hits of one stage.
//! - **Sf saturates.** BM25 has no upper bound. `raw / (raw + half)` is the standard saturating
//!   form (the same shape as BM25's own tf term); its tail is heavy, so strong hits stay apart
//!   (9 vs 18 → 0.67 vs 0.80; `1 − exp(−raw / 4.5)` would give 0.86 vs 0.98), which matters
//!   because MMR trades score differences against similarity. [`Mapping::Exponential`] is
//!   there for the measurement to compare.
//! - **`half = 4.5`** ([`DEFAULT_SF_HALF`]) is the BM25 score of one distinctive query word
//!   matched once in a memory of average length: `idf = ln((1000 − 10 + 0.5)/(10 + 0.5)) ≈ 4.5`
//!   for a word found in 1 % of a 1 000-memory store, times a tf factor of 1. Such a hit maps
//!   to 0.5, level with an Se hit at the default embedding threshold (cosine 0.5); matching
//!   two or three such words gives 0.67 or 0.75. The labelled-set measurement will tune it.
//! - **Se is already in `[0, 1]`** for relevant hits (the stage drops cosines under 0.5), so the
//!   default keeps it (`zero = 0`). Raising `zero` to the embedding threshold would spread the
//!   Se hits over the whole interval instead.
//! - **Ss starts at its threshold.** Hamming similarity of random-hyperplane signatures of
//!   unrelated texts sits around 0.5, and the stage keeps only hits ≥ 0.65, so similarity just
//!   at the threshold carries almost no evidence and maps to 0; a perfect match maps to 1.
//! - **S6 and S8** are already fixed scores in `[0, 1]` chosen by the seed (0.5 and 0.6); they
//!   map to themselves.
//!
//! Invalid parameters (NaN, `half ≤ 0`, `scale ≤ 0`, `zero ≥ 1`) never panic: the mapping then
//! behaves as [`Mapping::Identity`], and [`Calibration::validate`] reports them.

use super::{Candidate, StageKind};
use crate::error::{Error, Result};

/// Default `half` of the Sf mapping: the BM25 score of one distinctive word (see the module doc).
pub const DEFAULT_SF_HALF: f64 = 4.5;
/// Default `zero` of the Se mapping: cosine similarity is kept as it is.
pub const DEFAULT_SE_ZERO: f64 = 0.0;
/// Default `zero` of the Ss mapping: the stage's similarity threshold (seed 000: 0.65).
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
                "calibration of stage {name} has an out-of-range parameter: {m:?}"
            ))),
        }
    }
}

/// Maps the raw score of a hit from `stage` to `[0, 1]` (see the module doc).
///
/// ```
/// use recallkit::rank::calibrate::{calibrate, Calibration};
/// let c = Calibration::default();
/// assert_eq!(calibrate("Sf:porter", 4.5, &c), 0.5);
/// assert_eq!(calibrate("Se", 0.82, &c), 0.82);
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
    use crate::index::postings::test_support::SplitMix64;
    use crate::rank::CandidateKey;
    use crate::store::DocId;

    #[test]
    fn maps_sf_scores_with_the_documented_default() {
        let c = Calibration::default();
        assert_close!(calibrate("Sf:porter", 0.0, &c), 0.0);
        assert_close!(calibrate("Sf:porter", 1.0, &c), 1.0 / 5.5);
        assert_close!(calibrate("Sf:trigram_en", 4.5, &c), 0.5);
        assert_close!(calibrate("Sf:trigram_orig", 9.0, &c), 2.0 / 3.0);
        assert_close!(calibrate("Sf:porter", 18.0, &c), 0.8);
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
        assert_close!(calibrate("Se", 0.5, &c), 0.5);
        assert_close!(calibrate("Se", 0.82, &c), 0.82);
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
        // The mapping sees one hit at a time: a lone 1.2 is as weak as a 1.2 among 30s.
        let c = Calibration::default();
        let alone = calibrate("Sf:porter", 1.2, &c);
        assert!(alone < 0.25, "{alone}");
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
        assert_close!(cands[0].calibrated, 2.0 / 3.0);
        assert_close!(cands[0].score, 2.0 / 3.0);
        assert_eq!(cands[0].components.len(), 1);
        assert_eq!(cands[0].components[0].0, "calibrated");
        assert_close!(cands[1].score, 0.6);
    }
}
