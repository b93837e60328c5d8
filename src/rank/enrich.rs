//! Enrichment of the final results (abmind's post-processing, step 6): timelines of results that
//! share a topic, and conflict warnings between results that contradict each other. Nothing here
//! changes a score or the order of the results.
//!
//! # Timeline
//!
//! Results are grouped by topic, compared as in the context boost (trimmed, case-insensitive;
//! empty topics and the catch-all `general` form no group). A group becomes a [`Timeline`]
//! when at least two of its results have a valid `created_at`; its entries are those results
//! in time order (ties by result position), each with its local ISO date `YYYY-MM-DD` at the
//! host's UTC offset. Timelines come in the order their topic first appears in the results.
//!
//! # Conflicts
//!
//! `conflicts[i]` lists, ascending, the positions of the other results that contradict result
//! `i` by the test of [`super::contradiction`] (the same statement with opposite polarity, or
//! with a different value). The relation is symmetric; a result never conflicts with itself.
//! A result with a non-empty list carries [`CONFLICT_WARNING`]. Each text is analysed once
//! (reusing one set of buffers), then every pair is compared: `n (n − 1) / 2` cheap
//! comparisons for `n` results, most of which stop at a length test or at the first word's
//! hash.

use super::boost::topic_key;
use super::civil::iso_date;
use super::contradiction::{Scratch, Statement};
use super::Candidate;
use crate::sort;

/// The warning attached to a result that conflicts with another one (abmind's).
pub const CONFLICT_WARNING: &str = "⚠️ Conflicts with another result";

/// One result in a topic's timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineEntry {
    /// Position of the result in the result list.
    pub index: usize,
    /// Its creation time, ms since the Unix epoch.
    pub created_at: f64,
    /// Its local creation date, `YYYY-MM-DD`.
    pub date: String,
}

/// The results of one topic in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// The topic as the first result of the group spells it (trimmed).
    pub topic: String,
    /// At least two entries, oldest first.
    pub entries: Vec<TimelineEntry>,
}

/// The timelines of the results (module doc). `utc_offset_minutes` is the host's offset from
/// UTC, positive east, used for the dates.
pub fn timeline(results: &[Candidate], utc_offset_minutes: i32) -> Vec<Timeline> {
    // (key, display topic, entries), in order of first appearance.
    let mut groups: Vec<(String, String, Vec<TimelineEntry>)> = Vec::new();
    for (index, result) in results.iter().enumerate() {
        let Some(topic) = result.topic.as_deref() else {
            continue;
        };
        let Some(key) = topic_key(topic) else {
            continue;
        };
        let group = match groups.iter().position(|g| g.0 == key) {
            Some(g) => g,
            None => {
                groups.push((key, topic.trim().to_owned(), Vec::new()));
                groups.len() - 1
            }
        };
        let dated = result
            .created_at
            .and_then(|ms| Some((ms, iso_date(ms, utc_offset_minutes)?)));
        if let Some((created_at, date)) = dated {
            groups[group].2.push(TimelineEntry {
                index,
                created_at,
                date,
            });
        }
    }
    groups
        .into_iter()
        .filter(|g| g.2.len() >= 2)
        .map(|(_, topic, mut entries)| {
            // Stable: equal times keep result order.
            let mut order = sort::order_by_key(entries.iter().map(|e| sort::asc_key(e.created_at)));
            sort::permute(&mut entries, &mut order);
            Timeline { topic, entries }
        })
        .collect()
}

/// For each result, the ascending positions of the results it contradicts (module doc).
pub fn conflicts(results: &[Candidate]) -> Vec<Vec<usize>> {
    let mut scratch = Scratch::default();
    let statements: Vec<Statement> = results
        .iter()
        .map(|r| Statement::parse_with(&r.text, &mut scratch))
        .collect();
    conflicts_among(&statements.iter().collect::<Vec<_>>())
}

/// [`conflicts`] of results already parsed, in result order (the engine keeps the statements
/// of memories it has recalled: `engine/statements.rs`).
pub fn conflicts_among(statements: &[&Statement]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); statements.len()];
    for i in 0..statements.len() {
        for j in i + 1..statements.len() {
            if statements[i].contradiction(statements[j]).is_some() {
                out[i].push(j);
                out[j].push(i);
            }
        }
    }
    out
}

/// The warning for a result given its entry of [`conflicts`]: [`CONFLICT_WARNING`] when it
/// conflicts with at least one other result.
pub fn conflict_warning(conflicts_with: &[usize]) -> Option<&'static str> {
    (!conflicts_with.is_empty()).then_some(CONFLICT_WARNING)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::civil::MS_PER_DAY;
    use crate::rank::CandidateKey;
    use crate::store::DocId;

    /// 2024-03-01T00:00Z.
    const MARCH_1: f64 = 1_709_251_200_000.0;

    fn result(id: u32, text: &str, topic: Option<&str>, created_at: Option<f64>) -> Candidate {
        let mut c = Candidate::new(CandidateKey::Memory(DocId(id)), "Se", 0.5, text);
        c.topic = topic.map(str::to_owned);
        c.created_at = created_at;
        c
    }

    fn indices(t: &Timeline) -> Vec<usize> {
        t.entries.iter().map(|e| e.index).collect()
    }

    #[test]
    fn builds_a_timeline_per_shared_topic_in_time_order() {
        let results = vec![
            result(0, "b", Some("work"), Some(MARCH_1 + 10.0 * MS_PER_DAY)),
            result(1, "x", Some("health"), Some(MARCH_1)),
            result(2, "a", Some("Work"), Some(MARCH_1)),
            result(3, "c", Some(" work "), Some(MARCH_1 + 40.0 * MS_PER_DAY)),
            result(4, "y", Some("travel"), Some(MARCH_1)),
        ];
        let timelines = timeline(&results, 0);
        assert_eq!(timelines.len(), 1);
        assert_eq!(timelines[0].topic, "work");
        assert_eq!(indices(&timelines[0]), [2, 0, 3]);
        let dates: Vec<&str> = timelines[0]
            .entries
            .iter()
            .map(|e| e.date.as_str())
            .collect();
        assert_eq!(dates, ["2024-03-01", "2024-03-11", "2024-04-10"]);
    }

    #[test]
    fn dates_entries_at_the_hosts_offset() {
        let late = MARCH_1 - 3_600_000.0; // 2024-02-29T23:00Z
        let results = vec![
            result(0, "a", Some("t"), Some(late)),
            result(1, "b", Some("t"), Some(MARCH_1 + 3_600_000.0)),
        ];
        let utc = timeline(&results, 0);
        assert_eq!(utc[0].entries[0].date, "2024-02-29");
        let east = timeline(&results, 120);
        assert_eq!(east[0].entries[0].date, "2024-03-01");
    }

    #[test]
    fn leaves_out_general_topics_undated_results_and_lone_results() {
        let results = vec![
            result(0, "a", Some("general"), Some(MARCH_1)),
            result(1, "b", Some("General"), Some(MARCH_1)),
            result(2, "c", Some("work"), None),
            result(3, "d", Some("work"), Some(f64::NAN)),
            result(4, "e", Some("work"), Some(MARCH_1)),
            result(5, "f", None, Some(MARCH_1)),
            result(6, "g", Some(""), Some(MARCH_1)),
            result(7, "h", Some(""), Some(MARCH_1)),
        ];
        assert!(timeline(&results, 0).is_empty());
        assert!(timeline(&[], 0).is_empty());
    }

    #[test]
    fn keeps_result_order_for_equal_times_and_topic_order_by_first_appearance() {
        let results = vec![
            result(0, "a", Some("b-topic"), Some(MARCH_1)),
            result(1, "b", Some("a-topic"), Some(MARCH_1)),
            result(2, "c", Some("b-topic"), Some(MARCH_1)),
            result(3, "d", Some("a-topic"), Some(MARCH_1)),
        ];
        let timelines = timeline(&results, 0);
        let topics: Vec<&str> = timelines.iter().map(|t| t.topic.as_str()).collect();
        assert_eq!(topics, ["b-topic", "a-topic"]);
        assert_eq!(indices(&timelines[0]), [0, 2]);
        assert_eq!(indices(&timelines[1]), [1, 3]);
    }

    #[test]
    fn lists_conflicts_symmetrically_with_the_seed_warning() {
        let results = vec![
            result(0, "The project uses Postgres", None, None),
            result(1, "The deadline is March 3", None, None),
            result(2, "The project does not use Postgres", None, None),
            result(3, "The deadline is April 10", None, None),
            result(4, "We no longer use Postgres in the project", None, None),
            result(5, "Alice likes hiking", None, None),
        ];
        let found = conflicts(&results);
        assert_eq!(found, [vec![2], vec![3], vec![0], vec![1], vec![], vec![]]);
        assert_eq!(
            conflict_warning(&found[0]),
            Some("⚠️ Conflicts with another result")
        );
        assert_eq!(conflict_warning(&found[5]), None);
        assert!(conflicts(&[]).is_empty());
    }

    #[test]
    fn finds_several_conflicts_for_one_result() {
        let results = vec![
            result(0, "Dark mode is enabled", None, None),
            result(1, "Dark mode is disabled", None, None),
            result(2, "Dark mode is not enabled", None, None),
        ];
        assert_eq!(conflicts(&results), [vec![1, 2], vec![0], vec![0]]);
    }
}
