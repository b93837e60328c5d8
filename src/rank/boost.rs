//! The score adjustments of abmind's post-processing, steps 1–4, applied in this order to
//! calibrated scores:
//!
//! ```text
//! 1. cross-stage penalty  score ×= 0.5      Sf hit not confirmed by Se, when Se ran with hits
//! 2. context boost        score += 0.02     same hour bucket (morning 5–11, afternoon 12–16,
//!                                           evening 17–21, night 22–4)
//!                         score += 0.015    same weekday, else += 0.0075 same class
//!                                           (weekend = Saturday, Sunday; weekday = the others)
//!                         score += 0.03     same topic (not "general")
//!                         score += hints    AutoMem's context hints (`super::hints`)
//! 3. emotion tie-breaker  score += min(0.02 · |emotion|, 0.10)
//! 4. spacing boost        score ×= 1.3      mean interval of the last 20 recalls ≥ 7 days
//!                         score ×= 1.15     … ≥ 1 day
//! ```
//!
//! Each function changes only `score` and appends its factor to `components` under a fixed
//! name (`crossStagePenalty`, `contextBoost`, `emotionTiebreak`, `spacingBoost`), and only when
//! it changes the score: a candidate that gets nothing records nothing. The additive boosts
//! are intentionally small next to calibrated scores in `[0, 1]`: enough to break ties, not
//! to override relevance gaps (abmind's rule).
//!
//! The memory's hour and weekday come from `created_at` read at the host's UTC offset
//! ([`Context::utc_offset_minutes`]); the core has no timezone database (see [`super::civil`]).

use super::civil::{self, MS_PER_DAY};
use super::{Candidate, StageKind};
use crate::text::normalize::fold;

/// Factor for Sf-only hits when Se ran and returned hits (abmind's post-processing, numbered #505
/// there).
pub const CROSS_STAGE_PENALTY: f64 = 0.5;
/// Added when the memory was created in the caller's time-of-day bucket (abmind).
pub const HOUR_BUCKET_BOOST: f64 = 0.02;
/// Added when the memory was created on the caller's weekday (abmind).
pub const WEEKDAY_BOOST: f64 = 0.015;
/// Added instead when only the weekend/weekday class matches: half of [`WEEKDAY_BOOST`].
pub const DAY_CLASS_BOOST: f64 = WEEKDAY_BOOST / 2.0;
/// Added when the memory's topic is the conversation's topic (abmind).
pub const TOPIC_BOOST: f64 = 0.03;
/// The catch-all topic: matching it says nothing, so it earns no topic boost.
pub const GENERAL_TOPIC: &str = "general";
/// Emotion tie-breaker per unit of `|emotion|` (abmind).
pub const EMOTION_BOOST_PER_UNIT: f64 = 0.02;
/// Largest emotion tie-breaker (abmind: "max +0.10 at |e| = 5").
pub const MAX_EMOTION_BOOST: f64 = 0.10;
/// Recall timestamps considered by the spacing boost (abmind: "the last 20").
pub const SPACING_WINDOW: usize = 20;
/// Spacing factor when recalls are at least a week apart on average (abmind's post-processing,
/// numbered #244 there).
pub const WEEKLY_SPACING_FACTOR: f64 = 1.3;
/// Spacing factor when recalls are at least a day apart on average (abmind's post-processing,
/// numbered #244 there).
pub const DAILY_SPACING_FACTOR: f64 = 1.15;

/// Component names, as they appear in explanations.
pub const CROSS_STAGE_PENALTY_COMPONENT: &str = "crossStagePenalty";
/// See [`CROSS_STAGE_PENALTY_COMPONENT`].
pub const CONTEXT_BOOST_COMPONENT: &str = "contextBoost";
/// See [`CROSS_STAGE_PENALTY_COMPONENT`].
pub const EMOTION_TIEBREAK_COMPONENT: &str = "emotionTiebreak";
/// See [`CROSS_STAGE_PENALTY_COMPONENT`].
pub const SPACING_BOOST_COMPONENT: &str = "spacingBoost";

/// The largest offset from UTC a context takes, in minutes: 18 hours, the bound of ISO 8601
/// offsets (every zone in use lies within UTC−12 to UTC+14).
pub const MAX_UTC_OFFSET_MINUTES: i64 = 18 * 60;

/// The caller's current context (abmind's `currentContext`). Absent fields give no boost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    /// The caller's local hour, `0..=23` (other values are ignored).
    pub hour: Option<u8>,
    /// The caller's local weekday, `0` = Sunday … `6` = Saturday (other values are ignored).
    pub day_of_week: Option<u8>,
    /// The conversation's topic.
    pub topic: Option<String>,
    /// The host's offset from UTC in minutes, positive east (UTC+2 is `120`; in JavaScript
    /// `-new Date().getTimezoneOffset()`), used to read memories' `created_at` in local time;
    /// at most [`MAX_UTC_OFFSET_MINUTES`] either way.
    pub utc_offset_minutes: i32,
    /// AutoMem's hints (label, language, active path, tags, types): [`super::hints`].
    pub hints: super::hints::Hints,
    /// The session's recently mentioned entities, most recent last, each a name and an
    /// optional type (`person`, …): what the question's pronouns may stand for
    /// ([`crate::recall::pronoun`]). Read by the query's resolution only, never by a boost.
    pub entities: Vec<(String, Option<String>)>,
}

/// Time-of-day buckets of the context boost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HourBucket {
    /// 05:00–11:59.
    Morning,
    /// 12:00–16:59.
    Afternoon,
    /// 17:00–21:59.
    Evening,
    /// 22:00–04:59.
    Night,
}

/// The bucket of an hour `0..=23`; `None` for other values.
pub fn hour_bucket(hour: u8) -> Option<HourBucket> {
    match hour {
        5..=11 => Some(HourBucket::Morning),
        12..=16 => Some(HourBucket::Afternoon),
        17..=21 => Some(HourBucket::Evening),
        22..=23 | 0..=4 => Some(HourBucket::Night),
        _ => None,
    }
}

/// Whether a weekday (`0` = Sunday … `6` = Saturday) is on the weekend.
pub fn is_weekend(weekday: u8) -> bool {
    weekday == 0 || weekday == 6
}

/// Step 1: multiplies the score of every Sf hit not confirmed by Se by [`CROSS_STAGE_PENALTY`],
/// when `se_ran_with_hits` (Se ran and returned at least one hit; otherwise nothing changes).
/// Likely false positives when embeddings are available (abmind's reason).
pub fn cross_stage_penalty(cands: &mut [Candidate], se_ran_with_hits: bool) {
    if !se_ran_with_hits {
        return;
    }
    for cand in cands {
        if StageKind::of(cand.stage) == Some(StageKind::Sf) && !cand.confirmed_by_se {
            cand.score *= CROSS_STAGE_PENALTY;
            cand.components
                .push((CROSS_STAGE_PENALTY_COMPONENT, CROSS_STAGE_PENALTY));
        }
    }
}

/// Step 2: adds the context boost (module doc) and records the total as `contextBoost`.
/// Hour and weekday need the candidate's `created_at`; topics compare trimmed and
/// case-insensitively, and [`GENERAL_TOPIC`] never matches.
pub fn context_boost(cands: &mut [Candidate], ctx: &Context) {
    let bucket = ctx.hour.and_then(hour_bucket);
    let weekday = ctx.day_of_week.filter(|&d| d <= 6);
    let topic = ctx.topic.as_deref().and_then(topic_key);
    for cand in cands {
        let mut boost = 0.0;
        let created = cand
            .created_at
            .and_then(|ms| civil::local_time(ms, ctx.utc_offset_minutes));
        if let Some(local) = created {
            if bucket.is_some() && bucket == hour_bucket(local.hour) {
                boost += HOUR_BUCKET_BOOST;
            }
            if let Some(day) = weekday {
                if day == local.weekday {
                    boost += WEEKDAY_BOOST;
                } else if is_weekend(day) == is_weekend(local.weekday) {
                    boost += DAY_CLASS_BOOST;
                }
            }
        }
        if topic.is_some() && topic == cand.topic.as_deref().and_then(topic_key) {
            boost += TOPIC_BOOST;
        }
        // Set by the engine from the context's hints (`super::hints`), 0 without them.
        boost += cand.hint;
        if boost > 0.0 {
            cand.score += boost;
            cand.components.push((CONTEXT_BOOST_COMPONENT, boost));
        }
    }
}

/// A topic in the form topics are compared in: trimmed, each character folded as FTS5
/// folds it (lower case, diacritics removed: `"Café"` and `"cafe"` are one topic; see
/// [`fold`]); `None` for an empty topic or [`GENERAL_TOPIC`]. Using the text module's fold
/// rather than `str::to_lowercase` keeps the standard library's case tables out of the wasm.
pub fn topic_key(topic: &str) -> Option<String> {
    let key: String = topic
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_ascii_lowercase()
            } else {
                fold(c).unwrap_or(c)
            }
        })
        .collect();
    (!key.is_empty() && key != GENERAL_TOPIC).then_some(key)
}

/// Step 3: adds `min(0.02 · |emotion|, 0.10)` and records it as `emotionTiebreak`. A non-finite
/// emotion counts as 0.
pub fn emotion_tiebreak(cands: &mut [Candidate]) {
    for cand in cands {
        let boost = emotion_boost(cand.emotion);
        if boost > 0.0 {
            cand.score += boost;
            cand.components.push((EMOTION_TIEBREAK_COMPONENT, boost));
        }
    }
}

/// The emotion tie-breaker for one emotion score.
pub fn emotion_boost(emotion: f64) -> f64 {
    if emotion.is_finite() {
        (EMOTION_BOOST_PER_UNIT * emotion.abs()).min(MAX_EMOTION_BOOST)
    } else {
        0.0
    }
}

/// Step 4: multiplies by [`spacing_factor`] and records it as `spacingBoost` when above 1.
pub fn spacing_boost(cands: &mut [Candidate]) {
    for cand in cands {
        let factor = spacing_factor(&cand.recall_timestamps);
        if factor > 1.0 {
            cand.score *= factor;
            cand.components.push((SPACING_BOOST_COMPONENT, factor));
        }
    }
}

/// The spacing factor of a memory's recall timestamps (ms, oldest first): over the last
/// [`SPACING_WINDOW`] entries, ignoring non-finite ones, the mean interval between consecutive
/// timestamps in time order, `(latest − earliest) / (n − 1)`, gives 1.3 when ≥ 7 days, 1.15
/// when ≥ 1 day, else 1. Fewer than 2 timestamps give 1.
///
/// ```
/// use recallkit::rank::boost::spacing_factor;
/// let day = 86_400_000.0;
/// assert_eq!(spacing_factor(&[0.0, 7.0 * day, 14.0 * day]), 1.3);
/// assert_eq!(spacing_factor(&[0.0, 1.0 * day]), 1.15);
/// assert_eq!(spacing_factor(&[0.0, 0.5 * day]), 1.0);
/// ```
pub fn spacing_factor(recall_timestamps: &[f64]) -> f64 {
    let window = &recall_timestamps[recall_timestamps.len().saturating_sub(SPACING_WINDOW)..];
    let mut n = 0usize;
    let (mut earliest, mut latest) = (f64::INFINITY, f64::NEG_INFINITY);
    for &t in window.iter().filter(|t| t.is_finite()) {
        n += 1;
        earliest = earliest.min(t);
        latest = latest.max(t);
    }
    if n < 2 {
        return 1.0;
    }
    let mean_interval_days = (latest - earliest) / (n - 1) as f64 / MS_PER_DAY;
    if mean_interval_days >= 7.0 {
        WEEKLY_SPACING_FACTOR
    } else if mean_interval_days >= 1.0 {
        DAILY_SPACING_FACTOR
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::CandidateKey;
    use crate::store::DocId;

    const DAY: f64 = MS_PER_DAY;
    const HOUR: f64 = civil::MS_PER_HOUR;
    /// 2024-03-04T00:00Z, a Monday.
    const MONDAY: f64 = 1_709_510_400_000.0;

    fn cand(stage: &'static str, score: f64) -> Candidate {
        let mut c = Candidate::new(CandidateKey::Memory(DocId(0)), stage, score, "text");
        c.score = score;
        c
    }

    fn created(ms: f64) -> Candidate {
        let mut c = cand("Se", 0.5);
        c.created_at = Some(ms);
        c
    }

    #[test]
    fn halves_sf_hits_not_confirmed_by_se() {
        let mut cands = vec![
            cand("Sf:porter", 0.8),
            cand("Sf:trigram_en", 0.6),
            cand("Se", 0.7),
            cand("S8", 0.6),
        ];
        cands[1].confirmed_by_se = true;
        cross_stage_penalty(&mut cands, true);
        let scores: Vec<f64> = cands.iter().map(|c| c.score).collect();
        assert_eq!(scores, [0.4, 0.6, 0.7, 0.6]);
        assert_eq!(cands[0].components, [("crossStagePenalty", 0.5)]);
        assert!(cands[1].components.is_empty());
    }

    #[test]
    fn leaves_sf_hits_alone_when_se_found_nothing() {
        let mut cands = vec![cand("Sf:porter", 0.8)];
        cross_stage_penalty(&mut cands, false);
        assert_eq!(cands[0].score, 0.8);
        assert!(cands[0].components.is_empty());
    }

    #[test]
    fn buckets_hours_as_the_seed_does() {
        let buckets: Vec<_> = (0..24).map(|h| hour_bucket(h).unwrap()).collect();
        use HourBucket::*;
        let expected = [
            Night, Night, Night, Night, Night, Morning, Morning, Morning, Morning, Morning,
            Morning, Morning, Afternoon, Afternoon, Afternoon, Afternoon, Afternoon, Evening,
            Evening, Evening, Evening, Evening, Night, Night,
        ];
        assert_eq!(buckets, expected);
        assert_eq!(hour_bucket(24), None);
    }

    #[test]
    fn boosts_same_hour_bucket_and_same_weekday() {
        let mut cands = vec![created(MONDAY + 9.0 * HOUR)];
        let ctx = Context {
            hour: Some(7),
            day_of_week: Some(1),
            ..Context::default()
        };
        context_boost(&mut cands, &ctx);
        assert_close!(cands[0].score, 0.5 + 0.02 + 0.015);
        assert_close!(cands[0].component("contextBoost").unwrap(), 0.035);
    }

    #[test]
    fn gives_half_the_weekday_boost_for_the_same_class_only() {
        // Memory on Monday; caller on Thursday (weekday class) or Saturday (weekend).
        let mut cands = vec![created(MONDAY + 14.0 * HOUR)];
        let thursday = Context {
            day_of_week: Some(4),
            ..Context::default()
        };
        context_boost(&mut cands, &thursday);
        assert_close!(cands[0].score, 0.5075);
        let mut cands = vec![created(MONDAY - DAY + 14.0 * HOUR)]; // a Sunday
        let saturday = Context {
            day_of_week: Some(6),
            ..Context::default()
        };
        context_boost(&mut cands, &saturday);
        assert_close!(cands[0].score, 0.5075);
        let mut cands = vec![created(MONDAY + 14.0 * HOUR)];
        context_boost(&mut cands, &saturday);
        assert_eq!(cands[0].score, 0.5);
        assert!(cands[0].components.is_empty());
    }

    #[test]
    fn reads_created_at_at_the_hosts_utc_offset() {
        // Monday 23:30 UTC is Tuesday 01:30 at UTC+2: night, Tuesday.
        let ms = MONDAY + 23.5 * HOUR;
        let ctx = Context {
            hour: Some(2),
            day_of_week: Some(2),
            utc_offset_minutes: 120,
            ..Context::default()
        };
        let mut cands = vec![created(ms)];
        context_boost(&mut cands, &ctx);
        assert_close!(cands[0].score, 0.535);
        let utc = Context {
            utc_offset_minutes: 0,
            ..ctx
        };
        let mut cands = vec![created(ms)];
        context_boost(&mut cands, &utc);
        // In UTC it is Monday night: same bucket, same class only.
        assert_close!(cands[0].score, 0.5 + 0.02 + 0.0075);
    }

    #[test]
    fn topic_keys_ignore_case_diacritics_and_outer_space() {
        assert_eq!(topic_key(" Café ").as_deref(), Some("cafe"));
        assert_eq!(topic_key("ÉTÉ Plans"), topic_key("ete plans"));
        assert_eq!(topic_key("ΣΧΟΛΉ"), topic_key("σχολή"));
        assert_eq!(topic_key("  "), None);
        assert_eq!(topic_key("GENERAL"), None);
    }

    #[test]
    fn boosts_the_same_topic_but_not_general() {
        let mut cands = vec![cand("Se", 0.5), cand("Se", 0.5), cand("Se", 0.5)];
        cands[0].topic = Some("Work ".into());
        cands[1].topic = Some("general".into());
        let ctx = Context {
            topic: Some("work".into()),
            ..Context::default()
        };
        context_boost(&mut cands, &ctx);
        assert_close!(cands[0].score, 0.53);
        assert_eq!(cands[1].score, 0.5);
        assert_eq!(cands[2].score, 0.5);
        let mut general = vec![cand("Se", 0.5)];
        general[0].topic = Some("General".into());
        let ctx = Context {
            topic: Some("general".into()),
            ..Context::default()
        };
        context_boost(&mut general, &ctx);
        assert_eq!(general[0].score, 0.5);
    }

    #[test]
    fn ignores_missing_or_invalid_times_and_context_values() {
        let mut cands = vec![
            cand("Se", 0.5),
            created(f64::NAN),
            created(1e300),
            created(MONDAY),
        ];
        let ctx = Context {
            hour: Some(99),
            day_of_week: Some(7),
            ..Context::default()
        };
        context_boost(&mut cands, &ctx);
        assert!(cands
            .iter()
            .all(|c| c.score == 0.5 && c.components.is_empty()));
    }

    #[test]
    fn adds_the_emotion_tiebreak_up_to_its_cap() {
        let mut cands: Vec<Candidate> = [0.0, 1.0, -3.0, 5.0, 9.0, f64::NAN, f64::NEG_INFINITY]
            .iter()
            .map(|&e| {
                let mut c = cand("Se", 0.5);
                c.emotion = e;
                c
            })
            .collect();
        emotion_tiebreak(&mut cands);
        let boosts: Vec<f64> = cands.iter().map(|c| c.score - 0.5).collect();
        for (got, want) in boosts.iter().zip([0.0, 0.02, 0.06, 0.1, 0.1, 0.0, 0.0]) {
            assert_close!(*got, want);
        }
        assert_close!(cands[2].component("emotionTiebreak").unwrap(), 0.06);
        assert!(cands[0].components.is_empty());
    }

    #[test]
    fn multiplies_by_the_spacing_factor_at_the_seed_thresholds() {
        assert_eq!(spacing_factor(&[]), 1.0);
        assert_eq!(spacing_factor(&[5.0 * DAY]), 1.0);
        assert_eq!(spacing_factor(&[0.0, 7.0 * DAY]), 1.3);
        assert_eq!(spacing_factor(&[0.0, 7.0 * DAY - 1.0]), 1.15);
        assert_eq!(spacing_factor(&[0.0, DAY]), 1.15);
        assert_eq!(spacing_factor(&[0.0, DAY - 1.0]), 1.0);
        // Mean of consecutive intervals: (1 + 13) / 2 = 7 days.
        assert_eq!(spacing_factor(&[0.0, DAY, 14.0 * DAY]), 1.3);
        // Unordered input is read in time order; non-finite entries are ignored.
        assert_eq!(spacing_factor(&[14.0 * DAY, f64::NAN, 0.0, 7.0 * DAY]), 1.3);
        assert_eq!(spacing_factor(&[0.0, f64::INFINITY]), 1.0);

        let mut cands = vec![cand("Se", 0.5), cand("Se", 0.5)];
        cands[0].recall_timestamps = vec![0.0, 10.0 * DAY];
        spacing_boost(&mut cands);
        assert_close!(cands[0].score, 0.65);
        assert_eq!(cands[0].components, [("spacingBoost", 1.3)]);
        assert!(cands[1].components.is_empty());
    }

    #[test]
    fn reads_only_the_last_twenty_recalls() {
        // 21 timestamps: one a year ago, then 20 an hour apart. Only the last 20 count.
        let mut ts = vec![0.0];
        ts.extend((0..20).map(|i| 365.0 * DAY + f64::from(i) * HOUR));
        assert_eq!(spacing_factor(&ts), 1.0);
        assert_eq!(spacing_factor(&ts[..20]), 1.3);
    }
}
