//! The Sf (lexical) scoring formula of abmind's recall pipeline, with its components kept for
//! explanations:
//!
//! ```text
//! score = (bm25 + emotion_boost) × (1 + recall_boost) × (1 + relevance_boost)
//!         × trust_factor × credibility_factor × tier_boost × recency
//! emotion_boost      = 0.5 · ln(1 + |emotion|)
//! recall_boost       = 0.1 · recallCount
//! relevance_boost    = 0.2 if relevance > 0, else 0
//! trust_factor       = 0.5 + 0.5 · trust / 3          (trust absent counts as 3)
//! credibility_factor = 1.25 if credibility ≤ 2, else 1 (credibility absent: 1)
//! tier_boost         = 1.3 if tier = "core", else 1
//! recency            = max(decayFloor, 1 − ageDays / decayDays) · (1 + |emotion| · emotionBoost)
//! ```
//!
//! `ageDays` is `(now − createdAt) / 86 400 000`, clamped at 0 so a memory dated in the future
//! is not boosted above a fresh one.

use crate::error::{check_unit, Error, Num, Result};
use crate::store::records::MAX_TRUST;
use crate::store::StoredMemory;

/// Milliseconds in a day.
pub const MS_PER_DAY: f64 = 86_400_000.0;
/// abmind's `RECALL_DECAY_DAYS`.
pub const DEFAULT_DECAY_DAYS: f64 = 365.0;
/// abmind's `RECALL_DECAY_FLOOR`.
pub const DEFAULT_DECAY_FLOOR: f64 = 0.3;
/// abmind's `RECALL_EMOTION_BOOST`.
pub const DEFAULT_EMOTION_BOOST: f64 = 0.1;
/// abmind: `emotion_boost = 0.5 × log(1 + |emotion|)`.
const EMOTION_LOG_WEIGHT: f64 = 0.5;
/// abmind: `recall_boost = 0.1 × recall_count`.
const RECALL_WEIGHT: f64 = 0.1;
/// abmind: `relevance_boost = 0.2 if relevance_score > 0`.
const RELEVANCE_BOOST: f64 = 0.2;
/// abmind: `credibility_factor = 1.25 if credibility ≤ 2`.
const CREDIBILITY_BOOST: f64 = 1.25;
/// abmind: the credibility level at or below which the boost applies.
const CREDIBILITY_BOOST_MAX_LEVEL: i64 = 2;
/// abmind: `tier_boost = 1.3 if tier = "core"`.
const CORE_TIER_BOOST: f64 = 1.3;

/// Recency parameters, configurable when a store is opened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreParams {
    /// Days until the recency factor reaches the floor.
    pub decay_days: f64,
    /// Minimum recency multiplier.
    pub decay_floor: f64,
    /// `|emotion| ×` this is added to the recency multiplier.
    pub emotion_boost: f64,
}

impl Default for ScoreParams {
    fn default() -> Self {
        ScoreParams {
            decay_days: DEFAULT_DECAY_DAYS,
            decay_floor: DEFAULT_DECAY_FLOOR,
            emotion_boost: DEFAULT_EMOTION_BOOST,
        }
    }
}

impl ScoreParams {
    /// Checks the parameters: `decayDays > 0`, `decayFloor` in 0..1, `emotionBoost ≥ 0`.
    pub fn validate(&self) -> Result<()> {
        if !(self.decay_days.is_finite() && self.decay_days > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "decayDays must be a positive number, got {}",
                Num(self.decay_days)
            )));
        }
        check_unit("decayFloor", self.decay_floor)?;
        if !(self.emotion_boost.is_finite() && self.emotion_boost >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "emotionBoost must be a non-negative number, got {}",
                Num(self.emotion_boost)
            )));
        }
        Ok(())
    }
}

/// Every factor of the Sf formula for one hit; `score` is their combination.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SfComponents {
    /// Raw text score: FTS5 bm25 (porter) or the trigram BM25 (fuzzy sub-queries).
    pub bm25: f64,
    /// `0.5 · ln(1 + |emotion|)`, added to `bm25`.
    pub emotion_boost: f64,
    /// `0.1 · recallCount`; the score is multiplied by `1 + recallBoost`.
    pub recall_boost: f64,
    /// `0.2` or `0`; the score is multiplied by `1 + relevanceBoost`.
    pub relevance_boost: f64,
    /// `0.5 + 0.5 · trust / 3`.
    pub trust_factor: f64,
    /// `1.25` or `1`.
    pub credibility_factor: f64,
    /// `1.3` or `1`.
    pub tier_boost: f64,
    /// `max(floor, 1 − age/decayDays) · (1 + |emotion| · emotionBoost)`.
    pub recency: f64,
}

impl SfComponents {
    /// Computes every factor for memory `m` with raw text score `bm25` at time `now` (ms).
    pub fn new(bm25: f64, m: &StoredMemory, now: f64, params: &ScoreParams) -> Self {
        let emotion = m.emotion().abs();
        let age_days = ((now - m.created_at()) / MS_PER_DAY).max(0.0);
        let decay = (1.0 - age_days / params.decay_days).max(params.decay_floor);
        SfComponents {
            bm25,
            emotion_boost: EMOTION_LOG_WEIGHT * emotion.ln_1p(),
            recall_boost: RECALL_WEIGHT * f64::from(m.recall_count()),
            relevance_boost: if m.relevance() > 0.0 {
                RELEVANCE_BOOST
            } else {
                0.0
            },
            trust_factor: 0.5 + 0.5 * m.trust().unwrap_or(MAX_TRUST) / MAX_TRUST,
            credibility_factor: match m.credibility() {
                Some(c) if c <= CREDIBILITY_BOOST_MAX_LEVEL => CREDIBILITY_BOOST,
                _ => 1.0,
            },
            tier_boost: if m.tier() == Some("core") {
                CORE_TIER_BOOST
            } else {
                1.0
            },
            recency: decay * (1.0 + emotion * params.emotion_boost),
        }
    }

    /// The combined score.
    pub fn score(&self) -> f64 {
        (self.bm25 + self.emotion_boost)
            * (1.0 + self.recall_boost)
            * (1.0 + self.relevance_boost)
            * self.trust_factor
            * self.credibility_factor
            * self.tier_boost
            * self.recency
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Memory;

    fn components(bm25: f64, m: &Memory, now: f64, p: &ScoreParams) -> SfComponents {
        SfComponents::new(bm25, &StoredMemory::from(m.clone()), now, p)
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    #[test]
    fn a_plain_fresh_memory_scores_its_bm25() {
        let m = Memory {
            created_at: 0.0,
            ..Memory::default()
        };
        let c = components(2.5, &m, 0.0, &ScoreParams::default());
        close(c.score(), 2.5);
    }

    #[test]
    fn every_factor_follows_the_seed_formula() {
        let m = Memory {
            emotion: -3.0,
            recall_count: 4,
            relevance: 0.7,
            trust: Some(1.5),
            credibility: Some(2),
            tier: Some("core".into()),
            created_at: 0.0,
            ..Memory::default()
        };
        let now = 73.0 * MS_PER_DAY; // 0.2 of a year
        let c = components(2.0, &m, now, &ScoreParams::default());
        close(c.emotion_boost, 0.5 * 4f64.ln());
        close(c.recall_boost, 0.4);
        close(c.relevance_boost, 0.2);
        close(c.trust_factor, 0.75);
        close(c.credibility_factor, 1.25);
        close(c.tier_boost, 1.3);
        close(c.recency, 0.8 * 1.3);
        let expected = (2.0 + 0.5 * 4f64.ln()) * 1.4 * 1.2 * 0.75 * 1.25 * 1.3 * (0.8 * 1.3);
        close(c.score(), expected);
    }

    #[test]
    fn recency_stops_at_the_floor_and_ignores_future_dates() {
        let p = ScoreParams::default();
        let old = Memory {
            created_at: 0.0,
            ..Memory::default()
        };
        close(components(1.0, &old, 3000.0 * MS_PER_DAY, &p).recency, 0.3);
        let future = Memory {
            created_at: 10.0 * MS_PER_DAY,
            ..Memory::default()
        };
        close(components(1.0, &future, 0.0, &p).recency, 1.0);
    }

    #[test]
    fn credibility_above_two_and_absent_get_no_boost() {
        let p = ScoreParams::default();
        let m = Memory {
            credibility: Some(3),
            ..Memory::default()
        };
        close(components(1.0, &m, 0.0, &p).credibility_factor, 1.0);
        close(
            components(1.0, &Memory::default(), 0.0, &p).credibility_factor,
            1.0,
        );
    }

    #[test]
    fn rejects_bad_params() {
        let bad = ScoreParams {
            decay_days: 0.0,
            ..ScoreParams::default()
        };
        assert_eq!(bad.validate().unwrap_err().code(), "invalid_argument");
        let bad = ScoreParams {
            decay_floor: 1.5,
            ..ScoreParams::default()
        };
        assert!(bad.validate().is_err());
        let bad = ScoreParams {
            emotion_boost: f64::NAN,
            ..ScoreParams::default()
        };
        assert!(bad.validate().is_err());
    }
}
