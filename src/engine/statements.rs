//! The contradiction rule's parsed statements of recalled memories, kept between recalls.
//!
//! Every recall checks its results for contradictions (`rank::enrich::conflicts`), which parses
//! each result's text into a [`Statement`]: tokens, stop words, Porter stems, clauses. That was
//! about 8 % of a hybrid recall's CPU at 1,000 memories, and the same memories come back
//! recall after recall. The engine keeps the statement of each memory it has checked, keyed by
//! document, until the memory is re-indexed or removed (`Engine::unindex`), like the content
//! keys of `dedup.rs`. At most [`KEPT_STATEMENTS`] are kept (a statement is about 0.3–1 KB):
//! when a recall would pass that, the kept ones are dropped and the recall starts over. Notes
//! and edges are parsed each time (their texts are built per recall).

use std::cell::RefCell;

use super::Engine;
use crate::rank::contradiction::{Scratch, Statement};
use crate::rank::{enrich, Candidate, CandidateKey};
use crate::store::DocMap;

/// Most statements kept: the results of the last few hundred recalls.
pub const KEPT_STATEMENTS: usize = 2048;

/// The kept statements (see the module doc).
#[derive(Default, Debug)]
pub(super) struct Statements(RefCell<DocMap<Statement>>);

impl Statements {
    /// Forgets the statement of `doc` (its text is changing or it is removed).
    pub(super) fn forget(&mut self, doc: crate::store::DocId) {
        self.0.get_mut().remove(&doc);
    }

    /// How many are kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.borrow().len()
    }

    /// Bytes they hold on the heap.
    pub(super) fn heap_bytes(&self) -> usize {
        let kept = self.0.borrow();
        kept.capacity() * (std::mem::size_of::<Statement>() + 8)
            + kept.values().map(Statement::heap_bytes).sum::<usize>()
    }
}

impl Engine {
    /// For each result, the ascending positions of the results it contradicts: the same
    /// answer as [`enrich::conflicts`], from kept statements where there are some.
    pub(super) fn conflicts(&self, ranked: &[Candidate]) -> Vec<Vec<usize>> {
        let mut kept = self.statements.0.borrow_mut();
        if kept.len() + ranked.len() > KEPT_STATEMENTS {
            kept.clear();
        }
        let mut scratch = Scratch::default();
        let mut fresh: Vec<Option<Statement>> = Vec::with_capacity(ranked.len());
        for c in ranked {
            fresh.push(match c.key {
                CandidateKey::Memory(doc) => {
                    kept.entry(doc)
                        .or_insert_with(|| Statement::parse_with(&c.text, &mut scratch));
                    None
                }
                _ => Some(Statement::parse_with(&c.text, &mut scratch)),
            });
        }
        let statements: Vec<&Statement> = ranked
            .iter()
            .zip(&fresh)
            .filter_map(|(c, fresh)| match (c.key, fresh) {
                (CandidateKey::Memory(doc), _) => kept.get(&doc),
                (_, fresh) => fresh.as_ref(),
            })
            .collect();
        enrich::conflicts_among(&statements)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::recall::RecallOptions;
    use crate::engine::{EmbeddingUpdate, EngineConfig};
    use crate::store::Memory;

    fn memory(id: &str, text: &str) -> Memory {
        Memory {
            id: id.into(),
            text: text.into(),
            ..Memory::default()
        }
    }

    /// The ids of the results of `query` that carry a conflict warning.
    fn conflicting(e: &mut Engine, query: &str) -> Vec<String> {
        let options = RecallOptions {
            track_recalls: false,
            ..RecallOptions::default()
        };
        let out = e.recall(query, &options, None, &|| 0.0).unwrap();
        let mut ids: Vec<String> = (out.results.into_iter())
            .filter(|r| r.warning.is_some())
            .map(|r| r.id)
            .collect();
        ids.sort();
        ids
    }

    #[test]
    fn a_kept_statement_is_forgotten_when_its_memory_changes_or_goes() {
        let mut e = Engine::new(EngineConfig::default()).unwrap();
        let deadline = |id: &str, date: &str| memory(id, &format!("The deadline is {date}"));
        let (a, b) = (deadline("a", "March 3"), deadline("b", "April 10"));
        e.insert_many(vec![a, b], &[]).unwrap();
        assert_eq!(conflicting(&mut e, "deadline"), ["a", "b"]);
        assert_eq!(e.statements.len(), 2);
        // Same recall again: the kept statements give the same answer.
        assert_eq!(conflicting(&mut e, "deadline"), ["a", "b"]);
        // b now agrees with a: a stale statement of b would still flag both.
        e.replace(deadline("b", "March 3 at 10am"), EmbeddingUpdate::Keep)
            .unwrap();
        assert_eq!(e.statements.len(), 1);
        assert!(conflicting(&mut e, "deadline").is_empty());
        e.replace(deadline("b", "May 5"), EmbeddingUpdate::Keep)
            .unwrap();
        assert_eq!(conflicting(&mut e, "deadline"), ["a", "b"]);
        e.remove("b").unwrap();
        assert_eq!(e.statements.len(), 1);
        assert!(conflicting(&mut e, "deadline").is_empty());
    }

    #[test]
    fn kept_statements_give_the_conflicts_of_fresh_ones_and_stay_bounded() {
        // 3,000 distinct deadlines, each project's teams over a few dates, so that many result
        // sets hold conflicts.
        let dates = ["March 3", "April 10", "March 3 at 10am", "May 5", "June 1"];
        const TEAMS: [&str; 8] = [
            "red", "blue", "green", "amber", "teal", "grey", "pink", "gold",
        ];
        let mut e = Engine::new(EngineConfig::default()).unwrap();
        let memories = (0..3000)
            .map(|i| {
                let (project, team, date) = (i % 80, TEAMS[i / 80 % 8], dates[i / 640]);
                let text = format!("The {team} deadline of project {project} is {date}");
                memory(&format!("m{i}"), &text)
            })
            .collect();
        e.insert_many(memories, &[]).unwrap();
        let options = RecallOptions {
            track_recalls: false,
            ..RecallOptions::default()
        };
        let (mut flagged, mut most) = (0, 0);
        for round in 0..2 {
            for p in 0..80 {
                let query = format!("deadline of project {p}");
                let pending = e.begin_recall(&query, options.clone(), &|| 0.0).unwrap();
                // The reranker's depth: 30 candidates to compare, not 10.
                let ranked = e
                    .rank_for_rerank(pending, None, None, &|| 0.0)
                    .unwrap()
                    .ranked;
                let kept = e.conflicts(&ranked);
                assert_eq!(kept, enrich::conflicts(&ranked), "round {round}, {query}");
                flagged += kept.iter().filter(|c| !c.is_empty()).count();
                assert!(e.statements.len() <= KEPT_STATEMENTS);
                most = most.max(e.statements.len());
            }
        }
        assert!(flagged > 0);
        // 80 queries of 30 candidates: the kept ones filled up and were dropped on the way.
        assert!(most > KEPT_STATEMENTS - 30, "{most}");
    }
}
