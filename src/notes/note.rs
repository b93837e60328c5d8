//! The [`Note`] record: one consolidation summary (markdown) covering a period of time.
//!
//! Times are milliseconds since the Unix epoch as `f64`. A note covers the closed interval
//! `[start, end]`; [`Period::default_end`] gives the usual end for a period that starts at
//! `start`: one day, seven days, or three calendar months (UTC, the day of month clamped to the
//! target month's length, so 30 November + 3 months is 28 or 29 February).
//!
//! Calendar arithmetic uses Howard Hinnant's `days_from_civil` / `civil_from_days`
//! (<https://howardhinnant.github.io/date_algorithms.html>, public domain), exact on the
//! proleptic Gregorian calendar over JavaScript's whole `Date` range.
//!
//! A note may have an owner (`userId`) and a classification level, as memories do; a note
//! without an owner is shared. Stage S6 shows a note only to the recalls whose
//! [`Scope`](crate::store::Scope) sees it.

use crate::error::{check_size, Error, Num, Result};
use crate::graph::graph_records::check_optional_bytes;
use crate::store::records::MAX_NAME_BYTES;

/// Largest accepted note text, in UTF-8 bytes (1 MiB).
pub const MAX_NOTE_BYTES: usize = 1024 * 1024;

/// One day in milliseconds.
pub const DAY_MS: f64 = 86_400_000.0;

/// Quarterly notes whose start lies outside JavaScript's `Date` range (±8.64e15 ms,
/// ECMA-262 §21.4.1.22) end this many days later instead of three calendar months.
const QUARTER_FALLBACK_DAYS: f64 = 91.0;
/// ECMA-262's time value limit, in ms.
const MAX_DATE_MS: f64 = 8.64e15;

/// The span a consolidation note summarises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Period {
    /// One day.
    Daily,
    /// One week.
    Weekly,
    /// One quarter (three calendar months).
    Quarterly,
}

impl Period {
    /// The wire name: `"daily"`, `"weekly"` or `"quarterly"`.
    pub fn label(self) -> &'static str {
        match self {
            Period::Daily => "daily",
            Period::Weekly => "weekly",
            Period::Quarterly => "quarterly",
        }
    }

    /// The label S6 hits carry: `"S6:daily"`, `"S6:weekly"` or `"S6:quarterly"`.
    pub fn stage_label(self) -> &'static str {
        match self {
            Period::Daily => "S6:daily",
            Period::Weekly => "S6:weekly",
            Period::Quarterly => "S6:quarterly",
        }
    }

    /// The usual end of a period starting at `start` (ms): `start` + 1 day, + 7 days, or
    /// + 3 calendar months in UTC (day of month clamped; time of day kept).
    ///
    /// ```
    /// use recallkit::notes::Period;
    /// let jan_1_2024 = 1_704_067_200_000.0;
    /// let apr_1_2024 = 1_711_929_600_000.0;
    /// assert_eq!(Period::Quarterly.default_end(jan_1_2024), apr_1_2024);
    /// assert_eq!(Period::Weekly.default_end(0.0), 7.0 * 86_400_000.0);
    /// ```
    pub fn default_end(self, start: f64) -> f64 {
        match self {
            Period::Daily => start + DAY_MS,
            Period::Weekly => start + 7.0 * DAY_MS,
            Period::Quarterly => add_months(start, 3),
        }
    }
}

/// A consolidation note: a markdown summary of a day, week or quarter (DESIGN.md, Glossary: note).
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// Public id, unique within a store.
    pub id: String,
    /// The span it summarises.
    pub period: Period,
    /// Start of the span (ms, inclusive).
    pub start: f64,
    /// End of the span (ms, inclusive); see [`Period::default_end`].
    pub end: f64,
    /// Markdown text.
    pub text: String,
    /// Creation time (ms).
    pub created_at: f64,
    /// Last update time (ms).
    pub updated_at: f64,
    /// Owner; `None` means shared (every recall sees it).
    pub user_id: Option<String>,
    /// Classification level; recalls with a lower `maxClassification` do not see it.
    pub classification: i64,
}

impl Note {
    /// A shared, unclassified note whose `end` is [`Period::default_end`] of `start` and whose
    /// `createdAt` and `updatedAt` are `now`.
    pub fn new(
        id: impl Into<String>,
        period: Period,
        start: f64,
        text: impl Into<String>,
        now: f64,
    ) -> Self {
        Note {
            id: id.into(),
            period,
            start,
            end: period.default_end(start),
            text: text.into(),
            created_at: now,
            updated_at: now,
            user_id: None,
            classification: 0,
        }
    }

    /// Checks the record: non-empty id (at most 1 KiB) and text (at most [`MAX_NOTE_BYTES`]),
    /// finite times, `start ≤ end`, a `userId` of at most 1 KiB. Returns `invalid_argument`
    /// or `too_large` naming the value.
    pub fn validate(&self) -> Result<()> {
        if self.id.is_empty() {
            return Err(Error::InvalidArgument("note id must not be empty".into()));
        }
        check_size("note id", self.id.len(), MAX_NAME_BYTES)?;
        check_optional_bytes("userId", self.user_id.as_deref())?;
        if self.text.len() > MAX_NOTE_BYTES {
            return Err(Error::TooLarge(format!(
                "text of note \"{}\" is {} bytes, more than {MAX_NOTE_BYTES}",
                self.id,
                self.text.len()
            )));
        }
        // Without the id, as for memories (`Memory::validate`).
        if self.text.trim().is_empty() {
            return Err(Error::InvalidArgument("text must not be empty".into()));
        }
        for (field, t) in [
            ("start", self.start),
            ("end", self.end),
            ("createdAt", self.created_at),
            ("updatedAt", self.updated_at),
        ] {
            if !t.is_finite() {
                return Err(Error::InvalidArgument(format!(
                    "{field} of note \"{}\" must be a finite number, got {}",
                    self.id,
                    Num(t)
                )));
            }
        }
        if self.start > self.end {
            return Err(Error::InvalidArgument(format!(
                "start ({}) of note \"{}\" is after its end ({})",
                Num(self.start),
                self.id,
                Num(self.end)
            )));
        }
        Ok(())
    }

    /// Whether the note's `[start, end]` overlaps the window; a `None` side is unbounded.
    /// A NaN bound overlaps nothing.
    pub fn overlaps(&self, window: (Option<f64>, Option<f64>)) -> bool {
        let after_start = window.0.map_or(true, |s| self.end >= s);
        let before_end = window.1.map_or(true, |e| self.start <= e);
        after_start && before_end
    }
}

/// `t` (ms) plus `months` calendar months in UTC, the day of month clamped to the target
/// month. Outside the `Date` range (or for NaN) falls back to [`QUARTER_FALLBACK_DAYS`] per
/// quarter.
fn add_months(t: f64, months: i64) -> f64 {
    if t.is_nan() || t.abs() > MAX_DATE_MS {
        return t + QUARTER_FALLBACK_DAYS * DAY_MS * months as f64 / 3.0;
    }
    let days = (t / DAY_MS).floor();
    let time_of_day = t - days * DAY_MS;
    // |days| ≤ 1e8, so the integer arithmetic below cannot overflow.
    let (year, month, day) = civil_from_days(days as i64);
    let month_index = year * 12 + (month - 1) + months;
    let (year, month) = (month_index.div_euclid(12), month_index.rem_euclid(12) + 1);
    let day = day.min(days_in_month(year, month));
    days_from_civil(year, month, day) as f64 * DAY_MS + time_of_day
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days in `month` (1..=12) of `year`, proleptic Gregorian.
pub(crate) fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1..=12).
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date `(year, month 1..=12, day 1..=31)` of a day count since
/// 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2024-01-01T00:00:00Z.
    const JAN_1_2024: f64 = 1_704_067_200_000.0;

    fn note(text: &str) -> Note {
        Note::new("n1", Period::Weekly, JAN_1_2024, text, JAN_1_2024)
    }

    #[test]
    fn labels_name_the_period_and_the_stage() {
        assert_eq!(Period::Daily.label(), "daily");
        assert_eq!(Period::Quarterly.label(), "quarterly");
        assert_eq!(Period::Weekly.stage_label(), "S6:weekly");
        assert_eq!(Period::Daily.stage_label(), "S6:daily");
    }

    #[test]
    fn daily_and_weekly_notes_end_one_and_seven_days_later() {
        assert_eq!(Period::Daily.default_end(JAN_1_2024), JAN_1_2024 + DAY_MS);
        assert_eq!(
            Note::new("n", Period::Weekly, 5.0, "x", 0.0).end,
            5.0 + 7.0 * DAY_MS
        );
    }

    #[test]
    fn quarters_end_three_calendar_months_later() {
        // 2024-01-01 → 2024-04-01 is 91 days (leap year); 2023-01-01 → 2023-04-01 is 90.
        assert_eq!(
            Period::Quarterly.default_end(JAN_1_2024),
            JAN_1_2024 + 91.0 * DAY_MS
        );
        let jan_1_2023 = JAN_1_2024 - 365.0 * DAY_MS;
        assert_eq!(
            Period::Quarterly.default_end(jan_1_2023),
            jan_1_2023 + 90.0 * DAY_MS
        );
        // 2023-11-30T12:00Z → 2024-02-29T12:00Z (clamped to the leap day).
        let nov_30_noon = days_from_civil(2023, 11, 30) as f64 * DAY_MS + DAY_MS / 2.0;
        let feb_29_noon = days_from_civil(2024, 2, 29) as f64 * DAY_MS + DAY_MS / 2.0;
        assert_eq!(Period::Quarterly.default_end(nov_30_noon), feb_29_noon);
    }

    #[test]
    fn quarters_before_the_epoch_and_outside_the_date_range_do_not_panic() {
        let oct_1_1969 = days_from_civil(1969, 10, 1) as f64 * DAY_MS;
        assert_eq!(Period::Quarterly.default_end(oct_1_1969), 0.0);
        assert_eq!(Period::Quarterly.default_end(1e300), 1e300);
        assert!(Period::Quarterly.default_end(f64::NAN).is_nan());
        assert_eq!(Period::Quarterly.default_end(-1e16), -1e16 + 91.0 * DAY_MS);
    }

    #[test]
    fn civil_conversions_round_trip() {
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
    }

    #[test]
    fn accepts_a_plain_note() {
        assert_eq!(note("# Week 1\n\nShipped it.").validate(), Ok(()));
    }

    #[test]
    fn rejects_empty_id_and_text() {
        let mut n = note("text");
        n.id.clear();
        assert_eq!(n.validate().unwrap_err().code(), "invalid_argument");
        let e = note(" \n ").validate().unwrap_err();
        assert_eq!(e.to_string(), "invalid_argument: text must not be empty");
    }

    #[test]
    fn rejects_non_finite_times_and_reversed_spans() {
        let mut n = note("text");
        n.updated_at = f64::NAN;
        assert_eq!(
            n.validate().unwrap_err().to_string(),
            "invalid_argument: updatedAt of note \"n1\" must be a finite number, got NaN"
        );
        let mut n = note("text");
        n.end = n.start - 1.0;
        assert_eq!(n.validate().unwrap_err().code(), "invalid_argument");
    }

    #[test]
    fn rejects_text_over_one_mebibyte() {
        assert_eq!(
            note(&"a".repeat(MAX_NOTE_BYTES + 1))
                .validate()
                .unwrap_err()
                .code(),
            "too_large"
        );
        assert_eq!(note(&"a".repeat(MAX_NOTE_BYTES)).validate(), Ok(()));
    }

    #[test]
    fn rejects_a_user_id_over_one_kibibyte() {
        let mut n = note("text");
        n.user_id = Some("u".repeat(MAX_NAME_BYTES + 1));
        assert_eq!(n.validate().unwrap_err().code(), "too_large");
        n.user_id = Some("u".repeat(MAX_NAME_BYTES));
        assert_eq!(n.validate(), Ok(()));
    }

    #[test]
    fn overlap_is_closed_and_open_sides_are_unbounded() {
        let n = Note {
            end: 200.0,
            start: 100.0,
            ..note("x")
        };
        assert!(n.overlaps((None, None)));
        assert!(n.overlaps((Some(200.0), None)));
        assert!(n.overlaps((None, Some(100.0))));
        assert!(n.overlaps((Some(120.0), Some(150.0))));
        assert!(!n.overlaps((Some(200.5), None)));
        assert!(!n.overlaps((None, Some(99.0))));
        assert!(!n.overlaps((Some(f64::NAN), None)));
    }
}
