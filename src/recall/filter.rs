//! Recall filters, applied inside every sub-query of every stage (before top-k, so a filter
//! never starves a stage of hits).
//!
//! | option | keeps a memory when |
//! |---|---|
//! | `userId` | its `userId` equals the option (memories without one are hidden) |
//! | `maxClassification` | its `classification ≤` the option |
//! | `start` / `end` | `start ≤ createdAt ≤ end` (both inclusive) |
//! | time words in the question (a window with `source: "query"`) | as `start` / `end`, or, when the question has words left to search and names a date, a month of a year or a year, its text states that time in the question's words ([`Filter::stated`]) |
//! | `topic` / `tier` | equal (case-sensitive) |
//! | `includeExpired` | false (default): `expiresAt` is absent or later than `now` |
//! | `asOf` | the fact held then (`validFrom ≤ asOf < validTo`, open ends allowed) and was already recorded (`createdAt ≤ asOf`): Memoria's bi-temporal reading ([`Moment`]) |
//! | `includeInvalid` | without `asOf`, false (default) hides a fact whose `validTo` has passed (`validTo ≤ now`) |
//! | `tags`, `tagMode`, `tagMatch`, `excludeTags` | its tags pass the tag rule ([`super::tags`]) |
//!
//! **Conversation turns are kept apart.** A memory whose topic starts with
//! [`CONVERSATION_TOPIC_PREFIX`] is a turn of Neo's conversation lane (`store.conversation(id)`
//! in the package): a recall sees it only when its `topic` filter names that conversation
//! exactly, and such a recall reads memories only (no notes, no graph: see
//! [`Filter::reads_conversation`]). Every other recall hides turns, so a store without turns
//! recalls exactly as before.
//!
//! Notes, entities and edges are filtered by [`Filter::scope`] (`userId` and
//! `maxClassification` only, and a record without `userId` is shared: see [`Scope`]); edges
//! also by its [`Moment`] (`asOf`, `includeInvalid`: the memories' rule, one implementation);
//! an edge's `memoryIds` in a result keep only the memories [`Filter::accepts`].

use super::tags::TagFilter;
use crate::error::{Error, Num, Result};
use crate::store::{DocId, Moment, Scope, StoredMemory};

/// The topic prefix of conversation turns (`recallkit:conversation:<conversation id>`),
/// hidden from every recall whose `topic` does not name their conversation.
pub const CONVERSATION_TOPIC_PREFIX: &str = "recallkit:conversation:";

/// Whether `topic` is a conversation's (starts with [`CONVERSATION_TOPIC_PREFIX`]).
pub fn is_conversation_topic(topic: &str) -> bool {
    topic.starts_with(CONVERSATION_TOPIC_PREFIX)
}

/// The filters of one recall; check it with [`Filter::validate`]. `Default` keeps every
/// memory unexpired at `now = 0`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Only this user's memories.
    pub user_id: Option<String>,
    /// Hide memories classified above this level.
    pub max_classification: Option<i64>,
    /// Earliest `createdAt` (ms, inclusive).
    pub start: Option<f64>,
    /// Latest `createdAt` (ms, inclusive).
    pub end: Option<f64>,
    /// Documents kept though recorded outside `start ..= end`, sorted: those whose text
    /// states the window's time in the words the question used ("2024", "March 2024",
    /// "2024-08-08"), when the window was read from the question and the question has other
    /// words to search (`Engine::plan`). "The appointment with Dr Turner on 2024-08-08" asks
    /// about the day the memory states as often as about the day it was written down. Found
    /// in the word index once per recall, never by reading texts.
    pub stated: Option<Vec<u32>>,
    /// Only this topic.
    pub topic: Option<String>,
    /// Only this tier.
    pub tier: Option<String>,
    /// Also return expired memories.
    pub include_expired: bool,
    /// Only facts valid and recorded at this time (ms).
    pub as_of: Option<f64>,
    /// Without `as_of`, also return facts whose validity has ended.
    pub include_invalid: bool,
    /// The tag filter (empty: none).
    pub tags: TagFilter,
    /// The documents the tag index lists for `tags`, as a bit set over document ids (a
    /// superset of those the tag rule keeps: `Engine::plan` sets it once per recall from
    /// [`crate::index::tags::TagIndex::candidate_bits`]). A document not listed fails the
    /// filter without its tags being read; a listed one is still checked by the rule. `None`:
    /// every document is checked by the rule.
    pub tag_docs: Option<Vec<u64>>,
    /// The time expiry is judged against (ms).
    pub now: f64,
}

impl Filter {
    /// Checks the filter: finite times, `start ≤ end`.
    pub fn validate(&self) -> Result<()> {
        for (name, t) in [
            ("start", self.start),
            ("end", self.end),
            ("asOf", self.as_of),
            ("now", Some(self.now)),
        ] {
            if let Some(t) = t {
                if !t.is_finite() {
                    return Err(Error::InvalidArgument(format!(
                        "{name} must be a finite time, got {}",
                        Num(t)
                    )));
                }
            }
        }
        if let (Some(s), Some(e)) = (self.start, self.end) {
            if s > e {
                return Err(Error::InvalidArgument(format!(
                    "start ({}) is after end ({})",
                    Num(s),
                    Num(e)
                )));
            }
        }
        Ok(())
    }

    /// The filter that keeps what `scope` sees of memories, expired ones included: the
    /// memory side of a listing such as `edges({ userId })`.
    pub fn for_scope(scope: Scope<'_>) -> Filter {
        Filter {
            user_id: scope.user_id.map(str::to_owned),
            max_classification: scope.max_classification,
            include_expired: true,
            as_of: scope.moment.as_of,
            include_invalid: scope.moment.include_invalid,
            now: scope.moment.now,
            ..Filter::default()
        }
    }

    /// The user, classification and validity part, which notes, entities and edges are
    /// filtered by.
    pub fn scope(&self) -> Scope<'_> {
        Scope {
            moment: self.moment(),
            ..Scope::new(self.user_id.as_deref(), self.max_classification)
        }
    }

    /// The time facts are judged at: `asOf`, `includeInvalid` and `now`.
    pub fn moment(&self) -> Moment {
        Moment {
            as_of: self.as_of,
            include_invalid: self.include_invalid,
            now: self.now,
        }
    }

    /// Whether this recall reads a conversation's turns (its `topic` names one): stages S6
    /// (notes) and S8 (graph) then find nothing, since turns are the whole answer. Not
    /// inlined into those two stages: 194 B less gzipped wasm (measured), and it runs twice a
    /// recall.
    #[inline(never)]
    pub fn reads_conversation(&self) -> bool {
        self.topic.as_deref().is_some_and(is_conversation_topic)
    }

    /// Whether `doc` is among the documents stating the window's time ([`Filter::stated`]).
    /// Not inlined, as [`Filter::topic_passes`]: `accepts` is inlined into every stage.
    #[inline(never)]
    fn states(&self, doc: DocId) -> bool {
        (self.stated.as_deref()).is_some_and(|s| s.binary_search(&doc.0).is_ok())
    }

    /// The topic rule: equal to the filter's topic, or, without one, not a conversation's.
    /// Not inlined: `accepts` is inlined into every stage's filter, and one copy of this
    /// instead of one per caller is 75 B less gzipped wasm (measured); the stages ask
    /// `accepts` only about documents that could enter their top k.
    #[inline(never)]
    fn topic_passes(&self, m: &StoredMemory) -> bool {
        let topic = m.topic_bytes();
        match self.topic.as_deref() {
            Some(wanted) => topic == Some(wanted.as_bytes()),
            None => !topic.is_some_and(|t| t.starts_with(CONVERSATION_TOPIC_PREFIX.as_bytes())),
        }
    }

    /// Whether `m` passes every filter.
    pub fn accepts(&self, doc: DocId, m: &StoredMemory) -> bool {
        if let Some(bits) = &self.tag_docs {
            let word = bits.get((doc.0 / 64) as usize).copied().unwrap_or(0);
            if word >> (doc.0 % 64) & 1 == 0 {
                return false;
            }
        }
        if let Some(u) = &self.user_id {
            if m.user_id() != Some(u.as_str()) {
                return false;
            }
        }
        if self
            .max_classification
            .is_some_and(|max| m.classification() > max)
        {
            return false;
        }
        if (self.start.is_some_and(|s| m.created_at() < s)
            || self.end.is_some_and(|e| m.created_at() > e))
            && !self.states(doc)
        {
            return false;
        }
        if !self.topic_passes(m) {
            return false;
        }
        if self.tier.is_some() && m.tier() != self.tier.as_deref() {
            return false;
        }
        let (valid_from, valid_to) = m.validity();
        if !self.moment().keeps(m.created_at(), valid_from, valid_to) {
            return false;
        }
        if !self.tags.is_empty() && !self.tags.accepts(&m.tag_list()) {
            return false;
        }
        self.include_expired || !m.is_expired(self.now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::tags::TagMatch;
    use crate::store::Memory;

    fn memory() -> Memory {
        Memory {
            id: "m".into(),
            text: "t".into(),
            user_id: Some("alice".into()),
            topic: Some("work".into()),
            tier: Some("core".into()),
            classification: 2,
            created_at: 1_000.0,
            expires_at: Some(5_000.0),
            ..Memory::default()
        }
    }

    #[test]
    fn default_filter_keeps_unexpired_memories() {
        assert!(Filter::default().accepts(DocId(0), &memory().into()));
    }

    #[test]
    fn each_filter_rejects_what_it_should() {
        let m = memory();
        let check = |f: Filter| f.accepts(DocId(0), &m.clone().into());
        assert!(check(Filter {
            user_id: Some("alice".into()),
            ..Filter::default()
        }));
        assert!(!check(Filter {
            user_id: Some("bob".into()),
            ..Filter::default()
        }));
        assert!(check(Filter {
            max_classification: Some(2),
            ..Filter::default()
        }));
        assert!(!check(Filter {
            max_classification: Some(1),
            ..Filter::default()
        }));
        assert!(check(Filter {
            start: Some(1_000.0),
            end: Some(1_000.0),
            ..Filter::default()
        }));
        assert!(!check(Filter {
            start: Some(1_001.0),
            ..Filter::default()
        }));
        assert!(!check(Filter {
            end: Some(999.0),
            ..Filter::default()
        }));
        assert!(check(Filter {
            topic: Some("work".into()),
            ..Filter::default()
        }));
        assert!(!check(Filter {
            topic: Some("home".into()),
            ..Filter::default()
        }));
        assert!(!check(Filter {
            tier: Some("archive".into()),
            ..Filter::default()
        }));
    }

    #[test]
    fn tag_docs_reject_unlisted_documents_and_leave_listed_ones_to_the_rule() {
        let m = Memory {
            tags: vec!["work:report".into()],
            ..memory()
        };
        let check = |doc: u32, f: Filter| f.accepts(DocId(doc), &m.clone().into());
        let listed = |tags: &[&str], matching: TagMatch| Filter {
            tags: TagFilter {
                tags: tags.iter().map(|t| t.to_string()).collect(),
                matching,
                ..TagFilter::default()
            },
            tag_docs: Some(vec![1 << 3 | 1 << 7]),
            ..Filter::default()
        };
        assert!(check(7, listed(&["work"], TagMatch::Prefix)));
        assert!(!check(5, listed(&["work"], TagMatch::Prefix)), "not listed");
        assert!(
            !check(700, listed(&["work"], TagMatch::Prefix)),
            "past the set"
        );
        // Listed (the index lists an exact filter's superset), but the rule drops it.
        assert!(!check(7, listed(&["work"], TagMatch::Exact)));
    }

    #[test]
    fn expired_memories_are_hidden_unless_included() {
        let m = memory();
        assert!(!Filter {
            now: 5_000.0,
            ..Filter::default()
        }
        .accepts(DocId(0), &m.clone().into()));
        assert!(Filter {
            now: 5_000.0,
            include_expired: true,
            ..Filter::default()
        }
        .accepts(DocId(0), &m.clone().into()));
    }

    #[test]
    fn as_of_keeps_facts_valid_and_recorded_then_and_now_hides_ended_ones() {
        // Memoria's example: Stefan lived in Berlin from 2019 until 2021, recorded in 2020;
        // the move to Stockholm, valid from 2021, was recorded in 2021 (times in years).
        let berlin = Memory {
            created_at: 2020.0,
            valid_from: Some(2019.0),
            valid_to: Some(2021.0),
            expires_at: None,
            ..memory()
        };
        let stockholm = Memory {
            created_at: 2021.0,
            valid_from: Some(2021.0),
            valid_to: None,
            expires_at: None,
            ..memory()
        };
        let at = |as_of: Option<f64>, now: f64, include_invalid: bool| {
            let f = Filter {
                as_of,
                now,
                include_invalid,
                ..Filter::default()
            };
            [&berlin, &stockholm].map(|m| f.accepts(DocId(0), &m.clone().into()))
        };
        assert_eq!(at(Some(2020.5), 2024.0, false), [true, false]); // Stockholm not yet true nor recorded
        assert_eq!(at(Some(2021.0), 2024.0, false), [false, true]); // validTo is exclusive
        assert_eq!(at(Some(2019.5), 2024.0, false), [false, false]); // Berlin true, but not recorded yet
        assert_eq!(at(None, 2024.0, false), [false, true]); // now: the ended fact is hidden
        assert_eq!(at(None, 2024.0, true), [true, true]); // … unless asked for
        assert_eq!(at(None, 2020.5, false), [true, true]); // a now before it ended
        let f = Filter {
            as_of: Some(f64::INFINITY),
            ..Filter::default()
        };
        assert_eq!(f.validate().unwrap_err().code(), "invalid_argument");
    }

    #[test]
    fn memories_without_a_user_are_hidden_from_a_user_filter() {
        let m = Memory {
            user_id: None,
            ..memory()
        };
        assert!(!Filter {
            user_id: Some("alice".into()),
            ..Filter::default()
        }
        .accepts(DocId(0), &m.clone().into()));
    }

    #[test]
    fn conversation_turns_are_seen_only_by_a_recall_naming_their_conversation() {
        let turn = Memory {
            topic: Some(format!("{CONVERSATION_TOPIC_PREFIX}c1")),
            ..memory()
        };
        let check = |f: Filter| f.accepts(DocId(0), &turn.clone().into());
        assert!(!check(Filter::default()));
        assert!(!check(Filter {
            user_id: Some("alice".into()),
            ..Filter::default()
        }));
        assert!(!check(Filter {
            topic: Some(format!("{CONVERSATION_TOPIC_PREFIX}c2")),
            ..Filter::default()
        }));
        let lane = Filter {
            topic: Some(format!("{CONVERSATION_TOPIC_PREFIX}c1")),
            ..Filter::default()
        };
        assert!(lane.reads_conversation());
        assert!(check(lane));
        // Ordinary memories are untouched, and a topic filter on them reads no conversation.
        assert!(Filter::default().accepts(DocId(0), &memory().into()));
        assert!(!Filter {
            topic: Some("work".into()),
            ..Filter::default()
        }
        .reads_conversation());
    }

    #[test]
    fn rejects_start_after_end_and_non_finite_times() {
        let f = Filter {
            start: Some(2.0),
            end: Some(1.0),
            ..Filter::default()
        };
        assert_eq!(f.validate().unwrap_err().code(), "invalid_argument");
        let f = Filter {
            now: f64::NAN,
            ..Filter::default()
        };
        assert_eq!(f.validate().unwrap_err().code(), "invalid_argument");
    }
}
