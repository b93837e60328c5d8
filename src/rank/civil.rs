//! Civil calendar arithmetic for timestamps, with a fixed UTC offset and no timezone database.
//!
//! The core reads no clock and carries no tz data, so the host passes its offset from UTC in
//! minutes, positive east of Greenwich (UTC+2 is `120`; in JavaScript that is
//! `-new Date().getTimezoneOffset()`). A timestamp `ms` (milliseconds since the Unix epoch, as
//! `Date.now()` returns) is read in local time as
//!
//! ```text
//! local = ms + offset · 60 000
//! days  = ⌊local / 86 400 000⌋                 days since 1970-01-01 (local)
//! hour  = ⌊(local − days · 86 400 000) / 3 600 000⌋
//! weekday = (days + 4) mod 7                   0 = Sunday … 6 = Saturday (1970-01-01: Thursday)
//! ```
//!
//! and `days` becomes a proleptic Gregorian date with Howard Hinnant's `civil_from_days`
//! (exact for every `i64` day count used here; eras of 400 years = 146 097 days).
//!
//! Invariants: only timestamps within ECMAScript's time-value range (`|ms| ≤ 8.64e15`, about
//! ±273 790 years) give a [`LocalTime`]; anything else (NaN, infinities, larger values) gives
//! `None`, never a panic or a wrapped-around date.
//!
//! Reference: H. Hinnant, "chrono-Compatible Low-Level Date Algorithms",
//! <https://howardhinnant.github.io/date_algorithms.html#civil_from_days>.

/// Milliseconds in a minute.
pub const MS_PER_MINUTE: f64 = 60_000.0;
/// Milliseconds in an hour.
pub const MS_PER_HOUR: f64 = 3_600_000.0;
/// Milliseconds in a day.
pub const MS_PER_DAY: f64 = 86_400_000.0;
/// Largest `|ms|` accepted: the ECMAScript time-value range (ECMA-262 §21.4.1.1, ±10⁸ days).
pub const MAX_TIME_MS: f64 = 8.64e15;

/// A timestamp read in local time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    /// Local days since 1970-01-01 (negative before it).
    pub days: i64,
    /// Local hour of the day, `0..=23`.
    pub hour: u8,
    /// Local day of the week, `0` = Sunday … `6` = Saturday.
    pub weekday: u8,
}

/// Reads `ms` in local time at `utc_offset_minutes` (positive east of UTC). `None` when `ms`
/// is not finite or outside [`MAX_TIME_MS`].
///
/// ```
/// use recallkit::rank::civil::local_time;
/// // 2024-03-01T23:30Z is a Friday; at UTC+2 it is already Saturday 01:30.
/// let t = local_time(1_709_335_800_000.0, 120).unwrap();
/// assert_eq!((t.hour, t.weekday), (1, 6));
/// ```
pub fn local_time(ms: f64, utc_offset_minutes: i32) -> Option<LocalTime> {
    if !(ms.is_finite() && ms.abs() <= MAX_TIME_MS) {
        return None;
    }
    let local = ms + f64::from(utc_offset_minutes) * MS_PER_MINUTE;
    let days = (local / MS_PER_DAY).floor();
    let in_day = local - days * MS_PER_DAY;
    // `in_day` is in [0, MS_PER_DAY); the clamp only guards against rounding at the edge.
    let hour = (in_day / MS_PER_HOUR).floor().clamp(0.0, 23.0) as u8;
    let days = days as i64;
    let weekday = (days + 4).rem_euclid(7) as u8;
    Some(LocalTime {
        days,
        hour,
        weekday,
    })
}

/// The proleptic Gregorian `(year, month 1..=12, day 1..=31)` of a day count since
/// 1970-01-01.
///
/// ```
/// use recallkit::rank::civil::civil_from_days;
/// assert_eq!(civil_from_days(0), (1970, 1, 1));
/// assert_eq!(civil_from_days(-1), (1969, 12, 31));
/// assert_eq!(civil_from_days(11_016), (2000, 2, 29));
/// ```
pub fn civil_from_days(days: i64) -> (i64, u8, u8) {
    // Shift the epoch to 0000-03-01 so that leap days fall at the end of each year.
    let z = days.saturating_add(719_468);
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March = 0
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The local calendar date of `ms` as ISO 8601 `YYYY-MM-DD`; years outside 0000–9999 use the
/// expanded form `±YYYYYY-MM-DD`, as JavaScript's `toISOString` does. `None` when `ms` is not
/// a valid time (see [`local_time`]).
///
/// ```
/// use recallkit::rank::civil::iso_date;
/// assert_eq!(iso_date(1_709_335_800_000.0, 0).as_deref(), Some("2024-03-01"));
/// assert_eq!(iso_date(1_709_335_800_000.0, 120).as_deref(), Some("2024-03-02"));
/// ```
pub fn iso_date(ms: f64, utc_offset_minutes: i32) -> Option<String> {
    let local = local_time(ms, utc_offset_minutes)?;
    let (year, month, day) = civil_from_days(local.days);
    Some(if (0..=9_999).contains(&year) {
        format!("{year:04}-{month:02}-{day:02}")
    } else {
        let sign = if year < 0 { '-' } else { '+' };
        format!("{sign}{:06}-{month:02}-{day:02}", year.unsigned_abs())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::SplitMix64;

    /// Days since 1970-01-01 of a civil date, by counting (the slow oracle).
    fn days_by_counting(year: i64, month: u8, day: u8) -> i64 {
        let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let year_len = |y: i64| if leap(y) { 366 } else { 365 };
        let mut days = 0;
        if year >= 1970 {
            for y in 1970..year {
                days += year_len(y);
            }
        } else {
            for y in year..1970 {
                days -= year_len(y);
            }
        }
        let february = if leap(year) { 29 } else { 28 };
        let month_len = [31, february, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        days + month_len[..usize::from(month) - 1].iter().sum::<i64>() + i64::from(day) - 1
    }

    #[test]
    fn converts_known_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        assert_eq!(civil_from_days(10_956), (1999, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_783), (2024, 3, 1));
        assert_eq!(civil_from_days(-719_468), (0, 3, 1));
    }

    #[test]
    fn agrees_with_day_counting_on_random_dates() {
        let seed = 0x5eed_c1f1;
        let mut rng = SplitMix64(seed);
        for case in 0..300 {
            let year = 1_600 + rng.below(800) as i64;
            let month = 1 + rng.below(12) as u8;
            let day = 1 + rng.below(28) as u8;
            let days = days_by_counting(year, month, day);
            assert_eq!(
                civil_from_days(days),
                (year, month, day),
                "seed {seed:#x}, case {case}"
            );
        }
    }

    #[test]
    fn survives_extreme_day_counts() {
        for days in [i64::MIN, i64::MIN + 1, i64::MAX - 1, i64::MAX] {
            let (_, month, day) = civil_from_days(days);
            assert!(
                (1..=12).contains(&month) && (1..=31).contains(&day),
                "{days}"
            );
        }
    }

    #[test]
    fn reads_hour_and_weekday_in_local_time() {
        // 1970-01-01T00:00Z was a Thursday.
        let t = local_time(0.0, 0).unwrap();
        assert_eq!((t.days, t.hour, t.weekday), (0, 0, 4));
        // One minute before the epoch, in UTC: Wednesday 23:00 hour.
        let t = local_time(-60_000.0, 0).unwrap();
        assert_eq!((t.days, t.hour, t.weekday), (-1, 23, 3));
        // 2024-03-03T02:00Z is a Sunday; at UTC−5 it is Saturday 21:00.
        let t = local_time(1_709_431_200_000.0, -300).unwrap();
        assert_eq!((t.hour, t.weekday), (21, 6));
    }

    #[test]
    fn rejects_invalid_timestamps() {
        for ms in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            8.64e15 + 1.0,
            -1e300,
        ] {
            assert_eq!(local_time(ms, 0), None, "{ms}");
            assert_eq!(iso_date(ms, 0), None, "{ms}");
        }
        assert!(local_time(8.64e15, i32::MAX).is_some());
        assert!(local_time(-8.64e15, i32::MIN).is_some());
    }

    #[test]
    fn formats_iso_dates_including_expanded_years() {
        assert_eq!(iso_date(0.0, 0).as_deref(), Some("1970-01-01"));
        assert_eq!(iso_date(-1.0, 0).as_deref(), Some("1969-12-31"));
        assert_eq!(
            iso_date(951_782_400_000.0, 0).as_deref(),
            Some("2000-02-29")
        );
        // JavaScript: new Date(8.64e15).toISOString() = "+275760-09-13T00:00:00.000Z".
        assert_eq!(iso_date(8.64e15, 0).as_deref(), Some("+275760-09-13"));
        // new Date(-8.64e15).toISOString() = "-271821-04-20T00:00:00.000Z".
        assert_eq!(iso_date(-8.64e15, 0).as_deref(), Some("-271821-04-20"));
        // new Date(-62198755200000).toISOString() = "-000001-01-01T00:00:00.000Z".
        assert_eq!(
            iso_date(-62_198_755_200_000.0, 0).as_deref(),
            Some("-000001-01-01")
        );
    }
}
