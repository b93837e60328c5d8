//! Time expressions in words ("last week", "3 days ago", "since Monday", "March 2024"), read
//! into a window of time: AutoMem's `time_query` (`_parse_time_expression`), for the recall
//! option `timeQuery`. The same parser is meant for words found inside a question (issue 24:
//! Engram's time words): [`parse_words`] reads the longest expression at the start of a word
//! list and says how many words it took, so a caller can slide it along a question.
//!
//! Reading happens in two steps, so the grammar needs no clock: [`parse`] turns words into a
//! [`TimeExpr`], and [`TimeExpr::window`] resolves it against `now` and the caller's offset
//! from UTC in minutes (positive east; the days, weeks, months and years are local ones).
//!
//! | expression | window (local time; the end is inclusive, 1 ms before the next unit) |
//! |---|---|
//! | `today`, `yesterday`, `N days ago` | that day |
//! | `this week`, `last week`, `N weeks ago` | that week, Monday to Sunday |
//! | `this weekend`, `last weekend`, `N weekends ago` | that week's Saturday and Sunday (`this weekend` on a weekday is the coming one, as `this week` holds days to come) |
//! | `the weekend`, `over the weekend` | the latest weekend begun: the current one on a Saturday or Sunday, else last week's |
//! | `this month`, `last month`, `N months ago` | that calendar month |
//! | `this year`, `last year`, `N years ago` | that calendar year |
//! | `last N hours / days / weeks / months / years`, `past …` (N may be a word up to twelve, `few` (3), `couple of` (2), or absent: 1) | `now` minus that span (months and years on the calendar) to `now` |
//! | `monday` … `sunday`, `last monday`, `on monday` | the latest such day before today |
//! | `since X` (X any expression above, a weekday, a month) | the start of X to `now` |
//! | `march`, `in march` | the latest March not after the current month |
//! | `2024`, `in 2024`, `march 2024`, `in march 2024` | that year, that month |
//! | `2024-03-15`, `march 15 2024`, `march 15th, 2024`, `15 march 2024`, `the 15th of march 2024` | that day |
//! | `march 15`, `15th of march` | that day in the latest year where it is not after today |
//! | `before X`, `until X`, `after X` (X any expression above; `before the 2020 …` / `after the 2020 …` hold that year) | up to the start of X; up to its end; from its end to `now` (`now` alone if X ends later) |
//! | `last weekend before D`, `the week before D`, `the last 3 days before D`, `3 days after D` (D a date) | the span read as if today were D, [`TimeExpr::Anchored`] |
//! | `the weekend after D`, `the monday after D` | D to the first such weekend or day after it |
//!
//! Words are matched case-insensitively, ASCII only; commas and a leading `in` / `on` /
//! `during` / `over` are ignored. Anything else is not a time expression ([`parse`] gives `None`).

use crate::error::{Error, Result};
use crate::notes::note::{civil_from_days, days_from_civil, days_in_month};
use crate::text::normalize::{is_token_char, is_upper};
use crate::text::slice;

const MS_PER_MINUTE: f64 = 60_000.0;
const MS_PER_HOUR: f64 = 3_600_000.0;
const MS_PER_DAY: f64 = 86_400_000.0;
/// Largest `N` of "last N days", "N years ago" (about 27 years of days): larger counts are
/// not read as time words.
const MAX_COUNT: i64 = 10_000;
/// Longest expression in words (`in the week before 16 november 2024`).
const MAX_WORDS: usize = 8;
/// The earliest time a window starts at: JavaScript's earliest `Date`, for `before X`.
const EARLIEST: f64 = -8.64e15;

/// A calendar unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// An hour: only in a span ending now ("last 24 hours"); [`TimeExpr::window`] reads no
    /// whole hour.
    Hour,
    /// A local day.
    Day,
    /// A week, Monday to Sunday.
    Week,
    /// A week's Saturday and Sunday; never a span ending now.
    Weekend,
    /// A calendar month.
    Month,
    /// A calendar year.
    Year,
}

/// A time expression, before it is resolved against a clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeExpr {
    /// The whole unit `back` units before the current one (`0`: the current one).
    Unit {
        /// Which unit.
        unit: Unit,
        /// How many units back.
        back: i64,
    },
    /// From `count` units before `now` up to `now` ("last 7 days").
    Rolling {
        /// Which unit.
        unit: Unit,
        /// How many.
        count: i64,
    },
    /// The latest such weekday before today (`0` = Sunday).
    Weekday(u8),
    /// The latest weekend begun: the current one on a Saturday or Sunday, else last week's.
    Weekend,
    /// A month (1..=12) of a year, or of the latest year where it is not in the future.
    Month {
        /// The month, 1..=12.
        month: i64,
        /// The year, if given.
        year: Option<i64>,
    },
    /// A calendar year.
    Year(i64),
    /// One date.
    Date {
        /// Year.
        year: i64,
        /// Month, 1..=12.
        month: i64,
        /// Day, 1..=31.
        day: i64,
    },
    /// A day of a month in the latest year where it is not after today ("March 3").
    MonthDay {
        /// The month, 1..=12.
        month: i64,
        /// The day, 1..=31 (29 for February: a leap year's).
        day: i64,
    },
    /// From the start of the inner expression up to `now` ("since Monday").
    Since(Box<TimeExpr>),
    /// Before the inner expression begins ("before March 2024").
    Before(Box<TimeExpr>),
    /// Up to the end of the inner expression ("until March 3").
    Until(Box<TimeExpr>),
    /// From the end of the inner expression up to `now` ("after last week").
    After(Box<TimeExpr>),
    /// `what` read as if today were the day `anchor` names ("last weekend before April 10,
    /// 2023"; "the week before" is the 7 days before it, "3 days after" the 3 days after it,
    /// "the weekend after" / "the monday after" up to the first one after it),
    /// and that day too: a memory is dated when it was written, and what is written on a day
    /// often tells of the days just before it ("last weekend I ran a 5K").
    Anchored {
        /// The span: a unit back from the anchor's day, or a count of units before or after it.
        what: Box<TimeExpr>,
        /// The day: a [`TimeExpr::Date`] or [`TimeExpr::MonthDay`].
        anchor: Box<TimeExpr>,
        /// After the anchor ("3 days after", "the weekend after"), not before it.
        after: bool,
    },
}

/// A resolved window: `start ≤ createdAt ≤ end`, in ms since the epoch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// First millisecond in the window.
    pub start: f64,
    /// Last millisecond in the window.
    pub end: f64,
}

/// Reads a whole expression; `None` when any word is left over or it is not one.
///
/// ```
/// use recallkit::recall::time::{parse, TimeExpr, Unit};
/// assert_eq!(parse("Last week"), Some(TimeExpr::Unit { unit: Unit::Week, back: 1 }));
/// assert_eq!(parse("last 7 days"), Some(TimeExpr::Rolling { unit: Unit::Day, count: 7 }));
/// assert_eq!(parse("the moon"), None);
/// ```
pub fn parse(expr: &str) -> Option<TimeExpr> {
    let words = words(expr);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match parse_words(&words) {
        Some((e, n)) if n == words.len() => Some(e),
        _ => None,
    }
}

/// Reads `expr` and resolves it ([`TimeExpr::window`]), or fails with `invalid_argument`
/// naming `option` and the expression.
pub fn window_of(option: &str, expr: &str, now: f64, utc_offset_minutes: i32) -> Result<Window> {
    parse(expr)
        .and_then(|e| e.window(now, utc_offset_minutes))
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{option} is not a time expression recallkit reads (\"today\", \"last week\", \"last 7 days\", \"3 days ago\", \"since monday\", \"march 2024\", …), got \"{expr}\""
            ))
        })
}

/// The lowercase ASCII words of `text`, split at spaces and commas.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Reads the longest time expression at the start of `words` (lowercase, as [`words`] gives
/// them): the expression and how many words it took.
pub fn parse_words(words: &[&str]) -> Option<(TimeExpr, usize)> {
    let mut i = 0;
    if matches!(words.first(), Some(&("in" | "on" | "during" | "over"))) {
        i = 1;
    }
    let bound: Option<fn(Box<TimeExpr>) -> TimeExpr> = match words.get(i) {
        Some(&"since") => Some(TimeExpr::Since),
        Some(&"before") => Some(TimeExpr::Before),
        Some(&"until" | &"till") => Some(TimeExpr::Until),
        Some(&"after") => Some(TimeExpr::After),
        _ => None,
    };
    if let Some(bound) = bound {
        let (inner, n) = parse_plain(&words[i + 1..])?;
        // "before the 2020 election": the year is when the event was, some time in it, so
        // the bound holds the year (up to its end; from its start).
        let bound = match (words[i], words[i + 1], &inner) {
            ("before", "the", TimeExpr::Year(_)) => TimeExpr::Until,
            ("after", "the", TimeExpr::Year(_)) => TimeExpr::Since,
            _ => bound,
        };
        return Some((bound(Box::new(inner)), i + 1 + n));
    }
    if let Some((e, n)) = anchored(&words[i..]) {
        return Some((e, i + n));
    }
    let (e, n) = parse_plain(&words[i..])?;
    Some((e, i + n))
}

/// A span read at a date ([`TimeExpr::Anchored`]) at the start of `w`: "last weekend before
/// D", "the week before D", "3 days before D", "the last 3 days before D", "the day after D",
/// "the weekend after D", and how many words it took.
fn anchored(w: &[&str]) -> Option<(TimeExpr, usize)> {
    let the = usize::from(w.first() == Some(&"the"));
    let at = |i: usize| w.get(i).copied().unwrap_or("");
    // Whether the span may also come after D: a count of units, "the weekend", a weekday
    // ("the monday after D"); not "last weekend", "the past week".
    let (what, n, ahead) = match (counted(&w[the..]), unit_word(at(the))) {
        (Some((count, unit, k)), _) if !matches!(unit, Unit::Hour | Unit::Weekend) => {
            (TimeExpr::Rolling { unit, count }, the + k, true)
        }
        // "the weekend before D": the last one before D's week, as "last weekend" at D.
        (None, Some(Unit::Weekend)) if the == 1 => (unit(Unit::Weekend, 1), 2, true),
        (None, Some(unit)) if the == 1 && unit != Unit::Hour => {
            (TimeExpr::Rolling { unit, count: 1 }, 2, true)
        }
        _ => match parse_plain(w)? {
            (e @ TimeExpr::Weekday(_), n) => (e, n, n == the + 1),
            (e @ (TimeExpr::Unit { .. } | TimeExpr::Weekend), n) => (e, n, false),
            // "the last 3 days before D", "the past week before D": as "3 days before D".
            (e @ TimeExpr::Rolling { unit, .. }, n) if unit != Unit::Hour => (e, n, false),
            _ => return None,
        },
    };
    let after = match at(n) {
        "before" => false,
        "after" if ahead => true,
        _ => return None,
    };
    let (anchor, m) = parse_plain(&w[n + 1..])?;
    if !matches!(anchor, TimeExpr::Date { .. } | TimeExpr::MonthDay { .. }) {
        return None;
    }
    let expr = TimeExpr::Anchored {
        what: Box::new(what),
        anchor: Box::new(anchor),
        after,
    };
    Some((expr, n + 1 + m))
}

/// Every form but `since`, longest first.
fn parse_plain(w: &[&str]) -> Option<(TimeExpr, usize)> {
    let w = &w[..w.len().min(MAX_WORDS)];
    let at = |i: usize| w.get(i).copied().unwrap_or("");
    let (w0, w1) = (at(0), at(1));
    if w0 == "the" {
        // "the weekend" alone: a bare "weekend" is content ("weekend plans").
        if w1 == "weekend" {
            return Some((TimeExpr::Weekend, 2));
        }
        // "the last 7 days", "the past week"
        let (e, n) = parse_plain(&w[1..])?;
        return Some((e, n + 1));
    }
    // A part of the day after the day words is read with them: "this morning", "yesterday
    // evening", "last night" (yesterday's), "tonight".
    let part = usize::from(matches!(w1, "morning" | "afternoon" | "evening" | "night"));
    match w0 {
        "today" | "tonight" => return Some((unit(Unit::Day, 0), 1)),
        "yesterday" => return Some((unit(Unit::Day, 1), 1 + part)),
        "this" if part == 1 => return Some((unit(Unit::Day, 0), 2)),
        "last" if w1 == "night" => return Some((unit(Unit::Day, 1), 2)),
        "this" | "current" => {
            return unit_word(w1)
                .filter(|&u| u != Unit::Hour)
                .map(|u| (unit(u, 0), 2))
        }
        "last" | "past" | "previous" => {
            if let Some((n, u, k)) = counted(&w[1..]) {
                return (u != Unit::Weekend)
                    .then_some((TimeExpr::Rolling { unit: u, count: n }, 1 + k));
            }
            if let Some(d) = weekday(w1) {
                return Some((TimeExpr::Weekday(d), 2));
            }
            // "past week" spans the 7 days to now, "last week" is the calendar week; an hour
            // is always the span ("the last hour"), a weekend always the calendar one.
            let u = unit_word(w1)?;
            return Some(match (w0, u) {
                (_, Unit::Hour) | ("past", Unit::Week | Unit::Month | Unit::Year) => {
                    (TimeExpr::Rolling { unit: u, count: 1 }, 2)
                }
                _ => (unit(u, 1), 2),
            });
        }
        _ => {}
    }
    if let Some((n, u, k)) = counted(w) {
        if u != Unit::Hour && at(k) == "ago" {
            return Some((unit(u, n), k + 1));
        }
    }
    if let Some(d) = weekday(w0) {
        return Some((TimeExpr::Weekday(d), 1));
    }
    // "march 3", "march 3rd 2024" (the comma is gone), "3 march", "3rd of march 2024".
    if let (Some(m), Some(d)) = (month(w0), day_number(w1)) {
        return month_day(m, d, at(2), 2);
    }
    if let Some(d) = day_number(w0) {
        let of = usize::from(w1 == "of");
        if let Some(m) = month(at(1 + of)) {
            return month_day(m, d, at(2 + of), 2 + of);
        }
    }
    if let Some(m) = month(w0) {
        return Some(match year(w1) {
            Some(y) => (
                TimeExpr::Month {
                    month: m,
                    year: Some(y),
                },
                2,
            ),
            None => (
                TimeExpr::Month {
                    month: m,
                    year: None,
                },
                1,
            ),
        });
    }
    if let Some(y) = year(w0) {
        return Some((TimeExpr::Year(y), 1));
    }
    date(w0).map(|(year, month, day)| (TimeExpr::Date { year, month, day }, 1))
}

/// Day `d` of month `m`, of the year `next` names if it is one (then `n + 1` words), else of
/// the latest year ([`TimeExpr::MonthDay`]); `None` for a day the month never has.
fn month_day(m: i64, d: i64, next: &str, n: usize) -> Option<(TimeExpr, usize)> {
    if let Some(y) = year(next) {
        return (d <= days_in_month(y, m)).then_some((
            TimeExpr::Date {
                year: y,
                month: m,
                day: d,
            },
            n + 1,
        ));
    }
    (d <= days_in_month(2000, m)).then_some((TimeExpr::MonthDay { month: m, day: d }, n))
}

/// A day of the month: 1..=31, bare or as an ordinal ("3rd", "21st").
fn day_number(w: &str) -> Option<i64> {
    let n = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| w.strip_suffix(s))
        .unwrap_or(w);
    (n.len() <= 2)
        .then(|| digits(n))
        .flatten()
        .filter(|d| (1..=31).contains(d))
}

fn unit(unit: Unit, back: i64) -> TimeExpr {
    TimeExpr::Unit { unit, back }
}

fn unit_word(w: &str) -> Option<Unit> {
    Some(match w {
        "hour" | "hours" => Unit::Hour,
        "day" | "days" => Unit::Day,
        "week" | "weeks" => Unit::Week,
        "weekend" | "weekends" => Unit::Weekend,
        "month" | "months" => Unit::Month,
        "year" | "years" => Unit::Year,
        _ => return None,
    })
}

/// A count and its unit at the start of `w` ("3 days", "a few weeks", "couple of hours"),
/// and how many words they took.
fn counted(w: &[&str]) -> Option<(i64, Unit, usize)> {
    let at = |i: usize| w.get(i).copied().unwrap_or("");
    // "a few", "a couple of": the count is the second word.
    let a = usize::from(at(0) == "a" && matches!(at(1), "few" | "couple"));
    let n = count(at(a))?;
    let of = usize::from(at(a + 1) == "of");
    let u = unit_word(at(a + 1 + of))?;
    Some((n, u, a + 2 + of))
}

/// A count: digits (1..=[`MAX_COUNT`]), a number word up to twelve, "a" / "an" (1),
/// "couple" (2) or "few" (3).
fn count(w: &str) -> Option<i64> {
    const WORDS: [&str; 12] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
        "twelve",
    ];
    if let Some(i) = WORDS.iter().position(|&x| x == w) {
        return Some(i as i64 + 1);
    }
    match w {
        "a" | "an" => return Some(1),
        "couple" => return Some(2),
        "few" => return Some(3),
        _ => {}
    }
    digits(w).filter(|n| (1..=MAX_COUNT).contains(n))
}

fn digits(w: &str) -> Option<i64> {
    if w.is_empty() || w.len() > 6 || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse().ok()
}

/// `0` = Sunday.
fn weekday(w: &str) -> Option<u8> {
    const DAYS: [&str; 7] = [
        "sunday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
    ];
    DAYS.iter()
        .position(|&d| d == w || (w.len() == 3 && d.starts_with(w)))
        .map(|i| i as u8)
}

fn month(w: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    MONTHS
        .iter()
        .position(|&m| {
            m == w || (w.len() == 3 && m.starts_with(w)) || (w == "sept" && m == "september")
        })
        .map(|i| i as i64 + 1)
}

/// A four-digit year, 1000..=9999.
fn year(w: &str) -> Option<i64> {
    (w.len() == 4)
        .then(|| digits(w))
        .flatten()
        .filter(|y| *y >= 1000)
}

/// `YYYY-MM-DD`.
fn date(w: &str) -> Option<(i64, i64, i64)> {
    let mut parts = w.split('-');
    let y = year(parts.next()?)?;
    let (m, d) = (parts.next()?, parts.next()?);
    if parts.next().is_some() || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (m, d) = (digits(m)?, digits(d)?);
    ((1..=12).contains(&m) && (1..=days_in_month(y, m)).contains(&d)).then_some((y, m, d))
}

/// A span of local days `[first, last]`.
type Days = (i64, i64);

impl TimeExpr {
    /// Whether the expression names its time without a clock (a year, a month of a year, a
    /// date), so that a text stating it in the same words means the same time whenever it was
    /// written; "yesterday" or "in March" do not.
    ///
    /// ```
    /// use recallkit::recall::time::parse;
    /// assert!(parse("March 2024").unwrap().is_absolute());
    /// assert!(!parse("in March").unwrap().is_absolute());
    /// ```
    pub fn is_absolute(&self) -> bool {
        matches!(
            self,
            TimeExpr::Year(_) | TimeExpr::Date { .. } | TimeExpr::Month { year: Some(_), .. }
        )
    }

    /// The window this expression names at `now` (ms) for a caller `utc_offset_minutes` east
    /// of UTC; `None` when `now` is not a valid time, or for a whole hour (never read).
    ///
    /// ```
    /// use recallkit::recall::time::parse;
    /// // 2024-03-15 (a Friday) 12:00 UTC.
    /// let now = 1_710_504_000_000.0;
    /// let w = parse("yesterday").unwrap().window(now, 0).unwrap();
    /// assert_eq!((w.start, w.end), (1_710_374_400_000.0, 1_710_460_799_999.0));
    /// ```
    pub fn window(&self, now: f64, utc_offset_minutes: i32) -> Option<Window> {
        if !(now.is_finite() && now.abs() <= 8.64e15) {
            return None;
        }
        let offset = f64::from(utc_offset_minutes) * MS_PER_MINUTE;
        let local = now + offset;
        let today = (local / MS_PER_DAY).floor() as i64;
        let to_utc = |day: i64| day as f64 * MS_PER_DAY - offset;
        let days = |(first, last): Days| Window {
            start: to_utc(first),
            end: to_utc(last + 1) - 1.0,
        };
        let up_to_now = |start: f64| Window {
            start: start.min(now),
            end: now,
        };
        // The compound forms read their inner expression's window once.
        let inner = |e: &TimeExpr, at: f64| e.window(at, utc_offset_minutes);
        Some(match *self {
            TimeExpr::Rolling { unit, count } => {
                up_to_now(rolling_start(local, today, unit, count) - offset)
            }
            TimeExpr::Unit {
                unit: Unit::Hour, ..
            } => return None,
            TimeExpr::Unit { unit, back } => days(unit_days(today, unit, back)),
            TimeExpr::Weekday(d) => days(weekday_days(today, d)),
            TimeExpr::Weekend => days(weekend_days(today)),
            TimeExpr::Month { month, year } => days(month_days(today, month, year)),
            TimeExpr::Year(y) => days(year_days(y)),
            TimeExpr::Date { year, month, day } => {
                let d = days_from_civil(year, month, day);
                days((d, d))
            }
            TimeExpr::MonthDay { month, day } => {
                let d = month_day_days(today, month, day);
                days((d, d))
            }
            TimeExpr::Since(ref e) => up_to_now(inner(e, now)?.start),
            TimeExpr::Before(ref e) => Window {
                start: EARLIEST,
                end: inner(e, now)?.start - 1.0,
            },
            TimeExpr::Until(ref e) => Window {
                start: EARLIEST,
                end: inner(e, now)?.end,
            },
            // A time not over yet ("after today") leaves nothing but `now`, as `since` a time
            // to come does: a window whose start is after its end is refused by the filter.
            TimeExpr::After(ref e) => up_to_now(inner(e, now)?.end + 1.0),
            TimeExpr::Anchored {
                ref what,
                ref anchor,
                after,
            } => {
                let day = inner(anchor, now)?;
                // The anchor's local day number.
                let d = ((day.start + offset) / MS_PER_DAY).round() as i64;
                match **what {
                    TimeExpr::Rolling { unit, count } if after => {
                        // The span after the day: a rolling span forward from its end.
                        let next = day.end + 1.0 + offset;
                        let next_day = (next / MS_PER_DAY).floor() as i64;
                        Window {
                            start: day.start,
                            end: rolling_start(next, next_day, unit, -count) - offset - 1.0,
                        }
                    }
                    // The first weekend begun after the day: its own week's, or from a
                    // Saturday or Sunday the next week's.
                    TimeExpr::Unit {
                        unit: Unit::Weekend,
                        ..
                    } if after => {
                        let weekday = (d + 3).rem_euclid(7); // 0 = Monday
                        let (_, sunday) = unit_days(d, Unit::Weekend, -i64::from(weekday >= 5));
                        Window {
                            start: day.start,
                            end: days((sunday, sunday)).end,
                        }
                    }
                    // The first such weekday after the day.
                    TimeExpr::Weekday(wd) if after => {
                        let current = (d + 4).rem_euclid(7); // 0 = Sunday
                        let next = d + (i64::from(wd) - current - 1).rem_euclid(7) + 1;
                        Window {
                            start: day.start,
                            end: days((next, next)).end,
                        }
                    }
                    _ => Window {
                        start: inner(what, day.start)?.start,
                        end: day.end,
                    },
                }
            }
        })
    }
}

/// The days of the unit `back` units before the one holding `today` (a weekend: of the week
/// `back` weeks before; an hour is never asked for, [`TimeExpr::window`] reads none).
fn unit_days(today: i64, unit: Unit, back: i64) -> Days {
    // Monday-based weeks: 1970-01-01 was a Thursday, so Monday is (days + 3) mod 7 = 0.
    let monday = today - (today + 3).rem_euclid(7) - 7 * back;
    match unit {
        Unit::Day | Unit::Hour => (today - back, today - back),
        Unit::Week => (monday, monday + 6),
        Unit::Weekend => (monday + 5, monday + 6),
        Unit::Month => {
            let (y, m, _) = civil_from_days(today);
            let index = y * 12 + (m - 1) - back;
            let (y, m) = (index.div_euclid(12), index.rem_euclid(12) + 1);
            let first = days_from_civil(y, m, 1);
            (first, first + days_in_month(y, m) - 1)
        }
        Unit::Year => year_days(civil_from_days(today).0 - back),
    }
}

/// The latest day before `today` that is weekday `d` (0 = Sunday).
fn weekday_days(today: i64, d: u8) -> Days {
    let current = (today + 4).rem_euclid(7);
    let back = (current - i64::from(d) - 1).rem_euclid(7) + 1;
    (today - back, today - back)
}

/// The latest weekend begun at `today`: this week's on a Saturday or Sunday, else last week's.
fn weekend_days(today: i64) -> Days {
    let weekday = (today + 3).rem_euclid(7); // 0 = Monday
    unit_days(today, Unit::Weekend, i64::from(weekday < 5))
}

/// Month `m` of `year`, or of the latest year where it has begun.
fn month_days(today: i64, m: i64, year: Option<i64>) -> Days {
    let (y, current, _) = civil_from_days(today);
    let y = year.unwrap_or(if m <= current { y } else { y - 1 });
    let first = days_from_civil(y, m, 1);
    (first, first + days_in_month(y, m) - 1)
}

/// The day `d` of month `m` in the latest year where it is not after `today` (February 29th:
/// in the latest leap year).
fn month_day_days(today: i64, m: i64, d: i64) -> i64 {
    let (mut y, current, day) = civil_from_days(today);
    if (m, d) > (current, day) {
        y -= 1;
    }
    while d > days_in_month(y, m) {
        y -= 1;
    }
    days_from_civil(y, m, d)
}

fn year_days(y: i64) -> Days {
    (days_from_civil(y, 1, 1), days_from_civil(y, 12, 31))
}

/// `local` minus `count` units (plus, for a negative count; months and years on the calendar, the day clamped to the
/// month's length; a weekend counts as a week, though [`parse`] reads no span of weekends),
/// in local ms.
fn rolling_start(local: f64, today: i64, unit: Unit, count: i64) -> f64 {
    let months = match unit {
        Unit::Hour => return local - count as f64 * MS_PER_HOUR,
        Unit::Day => return local - count as f64 * MS_PER_DAY,
        Unit::Week | Unit::Weekend => return local - 7.0 * count as f64 * MS_PER_DAY,
        Unit::Month => count,
        Unit::Year => 12 * count,
    };
    let time_of_day = local - today as f64 * MS_PER_DAY;
    let (y, m, d) = civil_from_days(today);
    let index = y * 12 + (m - 1) - months;
    let (y, m) = (index.div_euclid(12), index.rem_euclid(12) + 1);
    days_from_civil(y, m, d.min(days_in_month(y, m))) as f64 * MS_PER_DAY + time_of_day
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2024-03-15T12:00:00Z, a Friday.
    const NOW: f64 = 1_710_504_000_000.0;

    fn day(y: i64, m: i64, d: i64) -> f64 {
        days_from_civil(y, m, d) as f64 * MS_PER_DAY
    }

    fn window(expr: &str) -> (f64, f64) {
        let w = window_of("timeQuery", expr, NOW, 0).unwrap();
        (w.start, w.end)
    }

    #[test]
    fn whole_units_cover_their_days_and_end_a_millisecond_before_the_next() {
        assert_eq!(window("today"), (day(2024, 3, 15), day(2024, 3, 16) - 1.0));
        assert_eq!(
            window("Yesterday"),
            (day(2024, 3, 14), day(2024, 3, 15) - 1.0)
        );
        assert_eq!(
            window("this week"),
            (day(2024, 3, 11), day(2024, 3, 18) - 1.0)
        );
        assert_eq!(
            window("last week"),
            (day(2024, 3, 4), day(2024, 3, 11) - 1.0)
        );
        assert_eq!(
            window("this month"),
            (day(2024, 3, 1), day(2024, 4, 1) - 1.0)
        );
        assert_eq!(
            window("last month"),
            (day(2024, 2, 1), day(2024, 3, 1) - 1.0)
        );
        assert_eq!(
            window("last year"),
            (day(2023, 1, 1), day(2024, 1, 1) - 1.0)
        );
        assert_eq!(
            window("3 days ago"),
            (day(2024, 3, 12), day(2024, 3, 13) - 1.0)
        );
        assert_eq!(
            window("two weeks ago"),
            (day(2024, 2, 26), day(2024, 3, 4) - 1.0)
        );
        assert_eq!(
            window("13 months ago"),
            (day(2023, 2, 1), day(2023, 3, 1) - 1.0)
        );
    }

    #[test]
    fn parts_of_the_day_are_read_with_their_day() {
        let today = (day(2024, 3, 15), day(2024, 3, 16) - 1.0);
        let yesterday = (day(2024, 3, 14), day(2024, 3, 15) - 1.0);
        for (words, want) in [
            ("this morning", today),
            ("this evening", today),
            ("tonight", today),
            ("yesterday evening", yesterday),
            ("last night", yesterday),
        ] {
            assert_eq!(window(words), want, "{words}");
            let found = find_in(&format!("what did I say {words}?")).expect(words);
            assert_eq!(
                found.rest, "what did I say",
                "{words}: every word of it is taken"
            );
        }
    }

    #[test]
    fn rolling_spans_end_now() {
        assert_eq!(window("last 7 days"), (NOW - 7.0 * MS_PER_DAY, NOW));
        assert_eq!(window("the past 2 weeks"), (NOW - 14.0 * MS_PER_DAY, NOW));
        assert_eq!(
            window("last 3 months"),
            (day(2023, 12, 15) + 12.0 * 3_600_000.0, NOW)
        );
        assert_eq!(
            window("past month"),
            (day(2024, 2, 15) + 12.0 * 3_600_000.0, NOW)
        );
    }

    #[test]
    fn weekends_run_from_saturday_to_monday_in_the_callers_week() {
        let weekend = |sat: i64| (day(2024, 3, sat), day(2024, 3, sat + 2) - 1.0);
        let at = |now: f64, expr: &str| {
            let w = window_of("timeQuery", expr, now, 0).unwrap();
            (w.start, w.end)
        };
        // (now, this weekend, last weekend, the weekend): a Friday, a Saturday, a Sunday and a
        // Monday around the weekend of 16–17 March 2024.
        for (now, this, last, latest) in [
            (NOW, 16, 9, 9),
            (NOW + MS_PER_DAY, 16, 9, 16),
            (NOW + 2.0 * MS_PER_DAY, 16, 9, 16),
            (NOW + 3.0 * MS_PER_DAY, 23, 16, 16),
        ] {
            assert_eq!(at(now, "this weekend"), weekend(this), "{now}");
            assert_eq!(at(now, "last weekend"), weekend(last), "{now}");
            assert_eq!(at(now, "the weekend"), weekend(latest), "{now}");
            assert_eq!(at(now, "over the weekend"), weekend(latest), "{now}");
        }
        assert_eq!(window("2 weekends ago"), weekend(2));
        assert_eq!(window("the past weekend"), weekend(9));
        assert_eq!(window("since last weekend"), (day(2024, 3, 9), NOW));
        // At UTC+13 it is already Saturday the 16th.
        let w = window_of("timeQuery", "the weekend", NOW, 13 * 60).unwrap();
        assert_eq!(w.start, day(2024, 3, 16) - 13.0 * 3_600_000.0);
    }

    #[test]
    fn spans_of_hours_and_of_a_few_units_end_now() {
        let hour = 3_600_000.0;
        for (expr, span) in [
            ("last 24 hours", 24.0 * hour),
            ("past 24 hours", 24.0 * hour),
            ("in the last hour", hour),
            ("the past hour", hour),
            ("the last 3 days", 3.0 * MS_PER_DAY),
            ("past two weeks", 14.0 * MS_PER_DAY),
            ("last few days", 3.0 * MS_PER_DAY),
            ("the past couple of weeks", 14.0 * MS_PER_DAY),
            ("last couple days", 2.0 * MS_PER_DAY),
            ("over the last few hours", 3.0 * hour),
            ("since the last couple of weeks", 14.0 * MS_PER_DAY),
        ] {
            assert_eq!(window(expr), (NOW - span, NOW), "{expr}");
        }
        assert_eq!(
            window("a few days ago"),
            (day(2024, 3, 12), day(2024, 3, 13) - 1.0)
        );
        assert_eq!(
            window("a couple of weeks ago"),
            (day(2024, 2, 26), day(2024, 3, 4) - 1.0)
        );
    }

    #[test]
    fn no_whole_hour_nor_span_of_weekends_is_read() {
        for expr in [
            "this hour",
            "3 hours ago",
            "last 2 weekends",
            "weekend",
            "few",
        ] {
            assert!(parse(expr).is_none(), "{expr}");
        }
        let hour = TimeExpr::Unit {
            unit: Unit::Hour,
            back: 1,
        };
        assert_eq!(hour.window(NOW, 0), None);
    }

    #[test]
    fn weekdays_months_years_and_dates() {
        // Friday the 15th: "monday" is the 11th, "friday" the 8th (before today).
        assert_eq!(window("monday"), (day(2024, 3, 11), day(2024, 3, 12) - 1.0));
        assert_eq!(
            window("last friday"),
            (day(2024, 3, 8), day(2024, 3, 9) - 1.0)
        );
        assert_eq!(window("since Monday"), (day(2024, 3, 11), NOW));
        assert_eq!(window("in March"), (day(2024, 3, 1), day(2024, 4, 1) - 1.0));
        assert_eq!(window("april"), (day(2023, 4, 1), day(2023, 5, 1) - 1.0));
        assert_eq!(
            window("March 2023"),
            (day(2023, 3, 1), day(2023, 4, 1) - 1.0)
        );
        assert_eq!(window("in 2022"), (day(2022, 1, 1), day(2023, 1, 1) - 1.0));
        assert_eq!(
            window("2024-02-29"),
            (day(2024, 2, 29), day(2024, 3, 1) - 1.0)
        );
        assert_eq!(window("since last week"), (day(2024, 3, 4), NOW));
    }

    #[test]
    fn dates_in_words_are_their_days() {
        let on = |y, m, d| (day(y, m, d), day(y, m, d) + MS_PER_DAY - 1.0);
        for expr in [
            "march 15 2024",
            "March 15th, 2024",
            "15 march 2024",
            "the 15th of March 2024",
            "on mar 15, 2024",
            "March 15",
        ] {
            assert_eq!(window(expr), on(2024, 3, 15), "{expr}");
        }
        // Without a year, the latest such day not after today (2024-03-15).
        assert_eq!(window("march 20"), on(2023, 3, 20));
        assert_eq!(window("the 1st of january"), on(2024, 1, 1));
        assert_eq!(window("feb 29"), on(2024, 2, 29));
        assert_eq!(window("march 1"), on(2024, 3, 1));
        for bad in [
            "february 30 2024",
            "february 30",
            "march 32",
            "april 31 2024",
            "3 days",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn before_until_and_after_bound_the_window() {
        assert_eq!(
            window("before March 2024"),
            (EARLIEST, day(2024, 3, 1) - 1.0)
        );
        assert_eq!(window("until march 3"), (EARLIEST, day(2024, 3, 4) - 1.0));
        assert_eq!(window("till 2023"), (EARLIEST, day(2024, 1, 1) - 1.0));
        assert_eq!(window("after last week"), (day(2024, 3, 11), NOW));
        assert_eq!(window("after march 10 2024"), (day(2024, 3, 11), NOW));
        assert_eq!(parse("before"), None);
        assert_eq!(parse("since before monday"), None);
    }

    #[test]
    fn spans_read_at_a_date_hold_that_day_too() {
        // 2023-04-10 is a Monday: its last weekend is the 8th and 9th.
        assert_eq!(
            window("last weekend before April 10, 2023"),
            (day(2023, 4, 8), day(2023, 4, 11) - 1.0)
        );
        assert_eq!(
            window("the week before march 10 2024"),
            (day(2024, 3, 3), day(2024, 3, 11) - 1.0)
        );
        // 2024-03-10 is a Sunday: the weekend before it is the 2nd and 3rd.
        assert_eq!(
            window("the weekend before march 10 2024"),
            (day(2024, 3, 2), day(2024, 3, 11) - 1.0)
        );
        assert_eq!(
            window("3 days before 2024-03-10"),
            (day(2024, 3, 7), day(2024, 3, 11) - 1.0)
        );
        assert_eq!(
            window("last friday before march 10 2024"),
            (day(2024, 3, 8), day(2024, 3, 11) - 1.0)
        );
        assert_eq!(
            window("3 days after march 3 2024"),
            (day(2024, 3, 3), day(2024, 3, 7) - 1.0)
        );
        assert_eq!(
            window("the month after january 31 2024"),
            (day(2024, 1, 31), day(2024, 3, 1) - 1.0)
        );
        // Only a span before or after a date: not a date before a date, nor a span after a weekday.
        for bad in [
            "march 3 before april 10 2024",
            "last week after march 3 2024",
            "the week before monday",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn last_and_past_spans_before_a_date_are_read_at_that_date() {
        for expr in [
            "the last 3 days before march 10 2024",
            "past 3 days before 2024-03-10",
        ] {
            assert_eq!(
                window(expr),
                (day(2024, 3, 7), day(2024, 3, 11) - 1.0),
                "{expr}"
            );
        }
        assert_eq!(
            window("the past week before august 3 2023"),
            (day(2023, 7, 27), day(2023, 8, 4) - 1.0)
        );
        assert_eq!(parse("the last 3 days after march 10 2024"), None);
        assert_eq!(parse("the last 3 hours before march 10 2024"), None);
    }

    #[test]
    fn the_weekend_or_weekday_after_a_date_is_the_first_one_after_it() {
        // 2024-03-06 is a Wednesday, 2024-03-09 a Saturday.
        assert_eq!(
            window("the weekend after march 6 2024"),
            (day(2024, 3, 6), day(2024, 3, 11) - 1.0)
        );
        assert_eq!(
            window("the weekend after march 9 2024"),
            (day(2024, 3, 9), day(2024, 3, 18) - 1.0)
        );
        assert_eq!(
            window("the monday after march 3 2024"),
            (day(2024, 3, 3), day(2024, 3, 5) - 1.0)
        );
        assert_eq!(
            window("the wednesday after march 6 2024"),
            (day(2024, 3, 6), day(2024, 3, 14) - 1.0)
        );
        assert_eq!(parse("last weekend after march 6 2024"), None);
        assert_eq!(parse("last monday after march 6 2024"), None);
    }

    #[test]
    fn after_a_time_not_yet_over_is_an_empty_window_at_now() {
        for expr in [
            "after today",
            "after this week",
            "after last 7 days",
            "after 2024",
        ] {
            let w = window_of("timeQuery", expr, NOW, 0).unwrap();
            assert_eq!((w.start, w.end), (NOW, NOW), "{expr}");
        }
    }

    #[test]
    fn local_days_follow_the_callers_offset() {
        // 12:00 UTC is already 01:00 on the 16th at UTC+13.
        let w = window_of("timeQuery", "today", NOW, 13 * 60).unwrap();
        assert_eq!(w.start, day(2024, 3, 16) - 13.0 * 3_600_000.0);
        let w = window_of("timeQuery", "today", NOW, -13 * 60).unwrap();
        assert_eq!(w.start, day(2024, 3, 14) + 13.0 * 3_600_000.0);
    }

    #[test]
    fn anything_else_is_an_error_naming_the_option_and_the_words() {
        for bad in [
            "",
            "soon",
            "last",
            "last 0 days",
            "7 days",
            "2024-02-30",
            "today please",
            "since since monday",
        ] {
            let e = window_of("timeQuery", bad, NOW, 0).unwrap_err();
            assert_eq!(e.code(), "invalid_argument", "{bad}");
            assert!(e.to_string().contains("timeQuery"), "{bad}");
        }
    }

    #[test]
    fn parse_words_reads_the_longest_expression_at_the_start() {
        let w = ["last", "week", "about", "the", "launch"];
        assert_eq!(parse_words(&w), Some((unit(Unit::Week, 1), 2)));
        assert_eq!(parse_words(&["in", "march", "we"]).map(|(_, n)| n), Some(2));
        assert_eq!(parse_words(&["what", "happened"]), None);
    }
}

/// A time expression found inside a question ([`find_in`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The expression.
    pub expr: TimeExpr,
    /// Its words as they were written ("last week", "hôm qua").
    pub words: String,
    /// The question without them, spaces collapsed: what the stages search.
    pub rest: String,
}

/// Phrases read as the English ones the grammar knows before parsing (folded, so with or
/// without diacritics): Engram's Vietnamese forms and a few English ones.
const REWRITES: [(&[&str], &[&str]); 12] = [
    (&["hom", "nay"], &["today"]),
    (&["hom", "qua"], &["yesterday"]),
    (&["hom", "kia"], &["2", "days", "ago"]),
    (&["tuan", "nay"], &["this", "week"]),
    // Before "tuan truoc": the first phrase that matches is taken.
    (&["tuan", "truoc", "nua"], &["2", "weeks", "ago"]),
    (&["tuan", "truoc"], &["last", "week"]),
    (&["thang", "nay"], &["this", "month"]),
    (&["thang", "truoc"], &["last", "month"]),
    (&["nam", "nay"], &["this", "year"]),
    (&["nam", "ngoai"], &["last", "year"]),
    (&["ngay", "truoc"], &["days", "ago"]),
    (&["day", "before", "yesterday"], &["2", "days", "ago"]),
];

/// Month and weekday spellings that are also common words ("may", "march", "sun", "sat"):
/// inside a question they count only when capitalised or followed by a year.
fn ambiguous(word: &str) -> bool {
    word.len() <= 3 || matches!(word, "may" | "march")
}

/// Years a question's bare number is read as (a code like 1234 is not a year).
const QUESTION_YEARS: std::ops::RangeInclusive<i64> = 1900..=2199;

/// The first time expression in `question` (Engram's time words: "what did I do yesterday?",
/// "hôm qua", "in March 2024", "3 days ago", "the day before yesterday"), with the question
/// left when its words are taken out. Words are matched folded (lowercase, without
/// diacritics, surrounding punctuation and a trailing "'s" dropped). A day or month name
/// counts only after "on", "in", "during", "since", "before", "after", "until", "last", "past"
/// or "this" (a month also with a day or a year), one that is also a common word ("may",
/// "march", "sun") only when capitalised or with a year, and a bare number only as a year from
/// 1900 to 2199.
pub fn find_in(question: &str) -> Option<Found> {
    // Each word with its byte span in `question`.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, c) in question.char_indices() {
        match (c.is_whitespace() || c == ',', start) {
            (true, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, question.len()));
    }
    let clean: Vec<String> = spans
        .iter()
        .map(|&(s, e)| {
            let w = slice(question, s..e).trim_matches(|c: char| !is_token_char(c) && c != '-');
            let w = strip_all(strip_all(w, "'s"), "’s");
            w.chars()
                .filter_map(crate::text::normalize::fold)
                .collect::<String>()
                .trim_end_matches(|c: char| !is_token_char(c))
                .to_string()
        })
        .collect();
    for i in 0..clean.len() {
        // Rewrite a known phrase starting here (it may also follow a count: "3 ngày trước").
        let mut words: Vec<&str> = Vec::new();
        let mut taken = Vec::new(); // how many question words each parser word stands for
        let mut j = i;
        while j < clean.len() && words.len() < MAX_WORDS {
            if let Some((from, to)) = REWRITES
                .iter()
                .find(|(from, _)| clean[j..].starts_with_str(from))
            {
                for (k, w) in to.iter().enumerate() {
                    words.push(w);
                    taken.push(if k + 1 == to.len() { from.len() } else { 0 });
                }
                j += from.len();
            } else {
                words.push(&clean[j]);
                taken.push(1);
                j += 1;
            }
        }
        let Some((expr, n)) = parse_words(&words) else {
            continue;
        };
        if !plausible(&expr, &words[..n], question, &spans[i..]) {
            continue;
        }
        let used: usize = taken[..n].iter().sum();
        let (first, last) = (spans[i].0, spans[i + used - 1].1);
        let mut rest = String::with_capacity(question.len());
        rest.push_str(slice(question, ..first));
        rest.push(' ');
        rest.push_str(slice(question, last..));
        return Some(Found {
            expr,
            words: slice(question, first..last).to_string(),
            rest: rest.split_whitespace().collect::<Vec<_>>().join(" "),
        });
    }
    None
}

/// `word.trim_end_matches(suffix)` for a `suffix` that cannot overlap itself, without the
/// `&str` searcher, whose empty-needle branch links std's slicing panic
/// ([`crate::text::slice()`]).
fn strip_all<'a>(mut word: &'a str, suffix: &str) -> &'a str {
    while let Some(rest) = word.strip_suffix(suffix) {
        word = rest;
    }
    word
}

/// Whether `original.to_lowercase() == word` for an ASCII `word` (the day and month names
/// that [`plausible`] checks), without `str::to_lowercase`: its case tables are 15 KB of the
/// wasm and this is their only use. The one non-ASCII character whose lowercase is ASCII is
/// the Kelvin sign (U+212A → 'k'); every other one lowercases to something non-ASCII, so it
/// never equals an ASCII word (tested against `to_lowercase` over every `char`).
fn lowercase_is(original: &str, word: &str) -> bool {
    debug_assert!(word.is_ascii());
    let lower = |c: char| match c {
        '\u{212A}' => 'k',
        _ => c.to_ascii_lowercase(),
    };
    original.chars().map(lower).eq(word.chars())
}

/// Whether `expr`, read from `words` (as parsed) at the question words `spans`, is a time
/// expression rather than a common word or a number ([`find_in`]): a day or month name only
/// after "on", "in", "during", "since", "last", "past" or "this".
fn plausible(expr: &TimeExpr, words: &[&str], question: &str, spans: &[(usize, usize)]) -> bool {
    let capitalised = |word: &str| {
        spans.iter().any(|&(s, e)| {
            let original = slice(question, s..e).trim_matches(|c: char| !is_token_char(c));
            lowercase_is(original, word) && original.starts_with(is_upper)
        })
    };
    let bounds = |w: &str| matches!(w, "since" | "before" | "after" | "until" | "till");
    let name = words.iter().copied().find(|w| {
        !bounds(w)
            && !matches!(
                *w,
                "in" | "on" | "during" | "over" | "last" | "past" | "the"
            )
    });
    // A bare day or month name is usually content ("runs every Friday", "the March
    // release"): it counts only after a word that makes it a time ("on", "in", "last", …).
    let introduced = words.first().is_some_and(|w| {
        bounds(w) || matches!(*w, "in" | "on" | "during" | "last" | "past" | "this")
    });
    // A month with a day but no year ("may 3", "3 march") is a date only when the month's
    // name is not also a common word, or is capitalised.
    let dated = words.iter().any(|w| year(w).is_some())
        || words
            .iter()
            .all(|&w| month(w).is_none() || !ambiguous(w) || capitalised(w));
    match expr {
        TimeExpr::Month { year: None, .. } | TimeExpr::Weekday(_) => {
            introduced && name.is_some_and(|w| !ambiguous(w) || capitalised(w))
        }
        TimeExpr::Year(y) => QUESTION_YEARS.contains(y),
        // A bound's number is a year only as a bare one is ("after 1234 users" is not).
        TimeExpr::Since(e) | TimeExpr::Before(e) | TimeExpr::Until(e) | TimeExpr::After(e) => {
            words.len() > 1
                && dated
                && !matches!(**e, TimeExpr::Year(y) if !QUESTION_YEARS.contains(&y))
        }
        _ => dated,
    }
}

trait StartsWithStr {
    fn starts_with_str(&self, prefix: &[&str]) -> bool;
}

impl StartsWithStr for [String] {
    fn starts_with_str(&self, prefix: &[&str]) -> bool {
        self.len() >= prefix.len() && self.iter().zip(prefix).all(|(a, b)| a == b)
    }
}

#[cfg(test)]
mod question_tests {
    use super::*;

    /// 2024-03-15 (a Friday) 12:00 UTC.
    const NOW: f64 = 1_710_504_000_000.0;
    const DAY: f64 = 86_400_000.0;

    fn day(y: i64, m: i64, d: i64) -> f64 {
        days_from_civil(y, m, d) as f64 * DAY
    }

    fn window(q: &str) -> Option<(f64, f64, String, String)> {
        let f = find_in(q)?;
        let w = f.expr.window(NOW, 0)?;
        Some((w.start, w.end, f.words, f.rest))
    }

    #[test]
    fn engrams_patterns_and_more_resolve_to_their_windows() {
        let today = day(2024, 3, 15);
        let cases: [(&str, f64, f64); 31] = [
            ("what did I do today?", today, today + DAY - 1.0),
            ("what did I do yesterday?", today - DAY, today - 1.0),
            (
                "what did I do the day before yesterday",
                today - 2.0 * DAY,
                today - DAY - 1.0,
            ),
            (
                "meetings 3 days ago",
                today - 3.0 * DAY,
                today - 2.0 * DAY - 1.0,
            ),
            (
                "what happened a week ago",
                day(2024, 3, 4),
                day(2024, 3, 11) - 1.0,
            ),
            (
                "notes from last week",
                day(2024, 3, 4),
                day(2024, 3, 11) - 1.0,
            ),
            (
                "notes from this week",
                day(2024, 3, 11),
                day(2024, 3, 18) - 1.0,
            ),
            ("bills this month", day(2024, 3, 1), day(2024, 4, 1) - 1.0),
            ("bills last month", day(2024, 2, 1), day(2024, 3, 1) - 1.0),
            ("trips this year", day(2024, 1, 1), day(2025, 1, 1) - 1.0),
            ("trips last year", day(2023, 1, 1), day(2024, 1, 1) - 1.0),
            ("runs in the last 7 days", NOW - 7.0 * DAY, NOW),
            ("runs in the past two weeks", NOW - 14.0 * DAY, NOW),
            (
                "what did Ana say on Monday",
                day(2024, 3, 11),
                day(2024, 3, 12) - 1.0,
            ),
            (
                "what did Ana say last Tuesday",
                day(2024, 3, 12),
                day(2024, 3, 13) - 1.0,
            ),
            (
                "what happened in March",
                day(2024, 3, 1),
                day(2024, 4, 1) - 1.0,
            ),
            (
                "what happened in May?",
                day(2023, 5, 1),
                day(2023, 6, 1) - 1.0,
            ),
            (
                "trips in March 2023",
                day(2023, 3, 1),
                day(2023, 4, 1) - 1.0,
            ),
            ("trips in mar 2023", day(2023, 3, 1), day(2023, 4, 1) - 1.0),
            (
                "what did Caroline paint in 2022?",
                day(2022, 1, 1),
                day(2023, 1, 1) - 1.0,
            ),
            (
                "the invoice of 2024-02-29",
                day(2024, 2, 29),
                day(2024, 3, 1) - 1.0,
            ),
            ("since Monday", day(2024, 3, 11), NOW),
            ("hôm nay tôi làm gì", today, today + DAY - 1.0),
            ("hom nay toi lam gi", today, today + DAY - 1.0),
            ("hôm qua", today - DAY, today - 1.0),
            ("hom qua", today - DAY, today - 1.0),
            ("tuần trước", day(2024, 3, 4), day(2024, 3, 11) - 1.0),
            ("tuan truoc", day(2024, 3, 4), day(2024, 3, 11) - 1.0),
            ("tuần trước nữa", day(2024, 2, 26), day(2024, 3, 4) - 1.0),
            ("tháng này", day(2024, 3, 1), day(2024, 4, 1) - 1.0),
            ("3 ngày trước", today - 3.0 * DAY, today - 2.0 * DAY - 1.0),
        ];
        for (q, start, end) in cases {
            let got = window(q).unwrap_or_else(|| panic!("{q:?}: no time expression"));
            assert_eq!((got.0, got.1), (start, end), "{q:?} read as {:?}", got.2);
        }
    }

    #[test]
    fn the_words_come_out_of_the_search_text() {
        let (_, _, words, rest) = window("What did Ana decide last week about the DB?").unwrap();
        assert_eq!(
            (words.as_str(), rest.as_str()),
            ("last week", "What did Ana decide about the DB?")
        );
        let (_, _, words, rest) = window("where was I, hôm qua?").unwrap();
        assert_eq!(
            (words.as_str(), rest.as_str()),
            ("hôm qua?", "where was I,")
        );
        let (_, _, words, _) = window("trips in March 2023").unwrap();
        assert_eq!(words, "in March 2023");
    }

    #[test]
    fn dates_and_spans_at_a_date_in_a_question() {
        for (q, words, rest, start, end) in [
            (
                "What did Ana fix the week before August 3, 2023 in the billing code?",
                "the week before August 3, 2023",
                "What did Ana fix in the billing code?",
                day(2023, 7, 27),
                day(2023, 8, 4) - 1.0,
            ),
            (
                "Where did Lee run last weekend before April 10, 2023?",
                "last weekend before April 10, 2023?",
                "Where did Lee run",
                day(2023, 4, 8),
                day(2023, 4, 11) - 1.0,
            ),
            (
                "Which city was Omar visiting in the week before 16 November 2023?",
                "in the week before 16 November 2023?",
                "Which city was Omar visiting",
                day(2023, 11, 9),
                day(2023, 11, 17) - 1.0,
            ),
            (
                "what did I order on March 3?",
                "on March 3?",
                "what did I order",
                day(2024, 3, 3),
                day(2024, 3, 4) - 1.0,
            ),
            (
                "which bills did I pay before March 2024",
                "before March 2024",
                "which bills did I pay",
                EARLIEST,
                day(2024, 3, 1) - 1.0,
            ),
        ] {
            let got = window(q).unwrap_or_else(|| panic!("{q:?}: no time expression"));
            assert_eq!(
                got,
                (start, end, words.to_string(), rest.to_string()),
                "{q:?}"
            );
        }
        // A month that is also a common word needs its capital or a year to be a date.
        assert_eq!(window("I may 3 times a day forget it"), None);
        assert_eq!(
            window("the march 3 demo").map(|w| w.2),
            None,
            "lowercase march with a day and no year"
        );
        assert_eq!(window("what happened before the launch"), None);
    }

    #[test]
    fn weekends_and_spans_in_a_question_leave_the_rest_to_search() {
        for (q, words, rest) in [
            (
                "what did I cook over the weekend?",
                "over the weekend?",
                "what did I cook",
            ),
            ("hikes last weekend", "last weekend", "hikes"),
            (
                "what did I fix in the last couple of days",
                "in the last couple of days",
                "what did I fix",
            ),
            (
                "errors in the past 24 hours",
                "in the past 24 hours",
                "errors",
            ),
        ] {
            let (_, _, w, r) = window(q).unwrap_or_else(|| panic!("{q:?}"));
            assert_eq!((w.as_str(), r.as_str()), (words, rest), "{q:?}");
        }
    }

    #[test]
    fn a_span_at_a_date_in_a_question_is_not_read_at_today() {
        for (q, words, start, end) in [
            (
                "what did I read the last 3 days before August 3, 2023",
                "the last 3 days before August 3, 2023",
                day(2023, 7, 31),
                day(2023, 8, 4) - 1.0,
            ),
            (
                "where did we hike the weekend after August 3, 2023",
                "the weekend after August 3, 2023",
                day(2023, 8, 3),
                day(2023, 8, 7) - 1.0,
            ),
            (
                "what did I do on the Monday after March 3, 2024",
                "on the Monday after March 3, 2024",
                day(2024, 3, 3),
                day(2024, 3, 5) - 1.0,
            ),
        ] {
            let got = window(q).unwrap_or_else(|| panic!("{q:?}: no time expression"));
            assert_eq!((got.0, got.1, got.2.as_str()), (start, end, words), "{q:?}");
        }
    }

    #[test]
    fn a_number_after_before_or_after_is_a_year_only_as_a_bare_one_is() {
        for q in [
            "what did we ship after 1234 users",
            "the plan before 1000 signups",
        ] {
            assert_eq!(find_in(q), None, "{q:?}");
        }
        assert!(find_in("what did we ship after 2023").is_some());
    }

    #[test]
    fn a_bound_at_the_year_of_an_event_holds_that_year() {
        // "the 2020 election" happened some time in 2020: before it is up to 2020's end, after
        // it from 2020's start.
        let (start, end, words, _) = window("what did I post before the 2020 election").unwrap();
        assert_eq!((start, end), (EARLIEST, day(2021, 1, 1) - 1.0), "{words}");
        let (start, end, words, _) = window("what did I post after the 2020 election").unwrap();
        assert_eq!((start, end), (day(2020, 1, 1), NOW), "{words}");
    }

    #[test]
    fn strip_all_reads_as_trim_end_matches() {
        for w in [
            "", "'s", "x's", "x's's", "x’s's", "x's’s", "s'", "Emma's", "x'ss",
        ] {
            for suffix in ["'s", "’s"] {
                assert_eq!(strip_all(w, suffix), w.trim_end_matches(suffix), "{w}");
            }
        }
    }

    #[test]
    fn lowercase_is_reads_as_to_lowercase() {
        // Only the Kelvin sign lowercases to ASCII among the non-ASCII characters.
        for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
            if !c.is_ascii() && c.to_lowercase().all(|l| l.is_ascii()) {
                assert_eq!(c, '\u{212A}');
            }
        }
        for (original, word) in [
            ("Sun", "sun"),
            ("MAY", "may"),
            ("May", "mar"),
            ("Ma", "may"),
            ("Mayo", "may"),
            ("\u{212A}ey", "key"),
            ("İs", "is"),
            ("Sün", "sun"),
        ] {
            assert_eq!(
                lowercase_is(original, word),
                original.to_lowercase() == word,
                "{original}"
            );
        }
    }

    #[test]
    fn common_words_and_codes_are_not_time() {
        for q in [
            "may I see the sql notes",
            "what marches are planned",
            "the sun was out",
            "sat on the couch",
            "the pin is 1234",
            "a week without coffee",
            "last name of Ana",
            "since when do we use kafka",
            "the pipeline runs every Friday",
            "the March release notes",
            "deployment friday",
            "my weekend plans",
            "handed over the weekly report",
            "a few notes on kafka",
            "k8s",
            "",
        ] {
            assert_eq!(find_in(q), None, "{q:?}");
        }
    }
}
