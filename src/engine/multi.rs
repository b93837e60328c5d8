//! Several queries in one recall, and memories a recall must return (AutoMem's `queries`,
//! `auto_decompose`, `dedup_removed` and `priority_ids`).
//!
//! - **Query texts** ([`Engine::query_texts`]): the query (unless it is empty or `*`), then
//!   `queries` (at most [`MAX_QUERIES`]), then with `autoDecompose` one sub-query per entity
//!   the query names and per content word of it, at most [`MAX_DECOMPOSED`]; each text once.
//!   Each runs the whole pipeline with the recall's options.
//! - **Merge** ([`merge`]): the runs' candidates by record (a memory by its document, a note
//!   paragraph by note and paragraph, an edge by id), each keeping its best score; the
//!   duplicates dropped are counted (`dedupRemoved`) and a memory found by several texts
//!   lists the others (`dedupedFrom`). Then by score, ties in the order found, cut to the
//!   depth.
//! - **Priority** ([`Engine::apply_priority`]): each `priorityIds` memory that exists and
//!   that the recall's user, classification ceiling and expiry let it see is in the answer:
//!   with its own score when a stage found it, else at 0 with the stage `priority`; the other
//!   results make room, lowest score first, so the answer still holds at most `limit`.

use super::output::StageReport;
use super::recall::{Ranked, RecallOptions};
use super::stages::memory_candidate;
use super::Engine;
use crate::error::{Error, Result};
use crate::notes::keywords::is_stopword;
use crate::rank::{Candidate, CandidateKey};
use crate::recall::Filter;
use crate::sort::{desc_key, order_by_key, permute};
use crate::store::DocId;

/// Most `queries` in one recall (AutoMem's MCP tool's limit).
pub const MAX_QUERIES: usize = 10;
/// Most sub-queries `autoDecompose` adds.
pub const MAX_DECOMPOSED: usize = 5;
/// The stage label of a priority memory no stage found.
pub const PRIORITY_STAGE: &str = "priority";

impl Engine {
    /// The texts a recall runs (module doc); empty for a recall with no query at all.
    pub(super) fn query_texts(&self, query: &str, options: &RecallOptions) -> Result<Vec<String>> {
        if options.queries.len() > MAX_QUERIES {
            return Err(Error::InvalidArgument(format!(
                "queries must hold at most {MAX_QUERIES} queries, got {}",
                options.queries.len()
            )));
        }
        let mut texts: Vec<String> = Vec::new();
        let mut add = |t: &str| {
            if !texts.iter().any(|x| x == t) {
                texts.push(t.to_owned());
            }
        };
        if !super::answer::is_trending(query) {
            add(query);
        }
        for (i, q) in options.queries.iter().enumerate() {
            if super::answer::is_trending(q) {
                return Err(Error::InvalidArgument(format!(
                    "queries[{i}] must be a query, got \"{q}\""
                )));
            }
            add(q);
        }
        if options.auto_decompose {
            for part in self.decompose(query, &options.filter) {
                add(&part);
            }
        }
        Ok(texts)
    }

    /// `autoDecompose`'s sub-queries of `query`: the entities it names, then its content
    /// words (not stopwords, two letters or more), at most [`MAX_DECOMPOSED`], none equal to
    /// the query.
    fn decompose(&self, query: &str, filter: &Filter) -> Vec<String> {
        let mut parts = self.graph.mentioned(query, filter.scope(), MAX_DECOMPOSED);
        let folded: Vec<String> = parts.iter().flat_map(|p| crate::text::tokens(p)).collect();
        for token in crate::text::tokens(query) {
            if parts.len() >= MAX_DECOMPOSED {
                break;
            }
            let new = !folded.contains(&token) && !parts.contains(&token);
            if new && token.chars().count() >= 2 && !is_stopword(&token) {
                parts.push(token);
            }
        }
        parts.retain(|p| p.trim() != query.trim());
        parts
    }

    /// The documents of the recall's `priorityIds` that exist: every cut before delivery keeps
    /// them ([`crate::rank::take_in_order`]), so a stage's score for them is not lost.
    pub(super) fn priority_docs(&self, options: &RecallOptions) -> Vec<DocId> {
        (options.priority_ids.iter())
            .filter_map(|id| self.ids.get(id, &self.records))
            .collect()
    }

    /// Puts the recall's `priorityIds` memories into `ranked` and cuts it to `limit` (module
    /// doc); returns nothing: `ranked` stays in score order.
    pub(super) fn apply_priority(
        &self,
        ranked: &mut Vec<Candidate>,
        options: &RecallOptions,
        limit: usize,
    ) {
        let sees = Filter {
            user_id: options.filter.user_id.clone(),
            max_classification: options.filter.max_classification,
            include_expired: options.filter.include_expired,
            now: options.filter.now,
            ..Filter::default()
        };
        let mut priority = Vec::new();
        for id in &options.priority_ids {
            let Some(doc) = self.ids.get(id, &self.records) else {
                continue;
            };
            let Some(m) = self.memory(doc).filter(|m| sees.accepts(doc, m)) else {
                continue;
            };
            if !priority.contains(&doc) {
                priority.push(doc);
            }
            if !ranked.iter().any(|c| c.key == CandidateKey::Memory(doc)) {
                ranked.push(memory_candidate(doc, PRIORITY_STAGE, 0.0, m));
            }
        }
        let is_priority =
            |c: &Candidate| matches!(c.key, CandidateKey::Memory(d) if priority.contains(&d));
        // Lowest-scoring others go first: walk from the end.
        let mut excess = ranked.len().saturating_sub(limit);
        let mut i = ranked.len();
        while excess > 0 && i > 0 {
            i -= 1;
            if !is_priority(&ranked[i]) {
                ranked.remove(i);
                excess -= 1;
            }
        }
        ranked.truncate(limit);
        by_score(ranked);
    }
}

/// Orders candidates by score, descending; ties keep their order.
fn by_score(cands: &mut [Candidate]) {
    let mut order = order_by_key(cands.iter().map(|c| desc_key(c.score)));
    permute(cands, &mut order);
}

/// Merges the runs of several query texts into the first, `out` (`out` ran `texts[0]`,
/// `runs[i]` ran `texts[i + 1]`; module doc), keeping the best `depth`. The merged run's
/// plan holds the count of duplicates dropped and, per memory found by several texts, those
/// texts.
pub(super) fn merge(mut out: Ranked, runs: Vec<Ranked>, texts: &[String], depth: usize) -> Ranked {
    let mut found_by: Vec<Vec<&String>> = vec![texts.iter().take(1).collect(); out.ranked.len()];
    let runs = runs.into_iter().zip(texts.iter().skip(1));
    let mut dropped = 0;
    for (run, text) in runs {
        let (notes, edges) = (out.found.notes.len() as u32, out.found.edges.len() as u32);
        out.found.notes.extend(run.found.notes);
        out.found.edges.extend(run.found.edges);
        out.found.se_hits += run.found.se_hits;
        out.stages = merge_stages(std::mem::take(&mut out.stages), run.stages);
        for mut c in run.ranked {
            c.key = match c.key {
                CandidateKey::Note { note, paragraph } => CandidateKey::Note {
                    note: note + notes,
                    paragraph,
                },
                CandidateKey::Edge(e) => CandidateKey::Edge(e + edges),
                key => key,
            };
            match (out.ranked.iter()).position(|o| same_record(&out.found, o, &c)) {
                Some(i) => {
                    dropped += 1;
                    found_by[i].push(text);
                    if c.score > out.ranked[i].score {
                        out.ranked[i] = c;
                    }
                }
                None => {
                    out.ranked.push(c);
                    found_by.push(vec![text]);
                }
            }
        }
    }
    let mut order = order_by_key(out.ranked.iter().map(|c| desc_key(c.score)));
    permute(&mut out.ranked, &mut order.clone());
    permute(&mut found_by, &mut order);
    out.ranked.truncate(depth);
    found_by.truncate(depth);
    out.plan.dedup_removed = dropped;
    out.plan.deduped_from = (out.ranked.iter().zip(found_by))
        .filter(|(_, by)| by.len() > 1)
        .filter_map(|(c, by)| match c.key {
            CandidateKey::Memory(doc) => Some((doc, by.into_iter().cloned().collect())),
            _ => None,
        })
        .collect();
    out
}

/// Whether two candidates of one merged run stand for the same record.
fn same_record(found: &super::stages::Found, a: &Candidate, b: &Candidate) -> bool {
    match (a.key, b.key) {
        (CandidateKey::Memory(x), CandidateKey::Memory(y)) => x == y,
        (
            CandidateKey::Note {
                note: x,
                paragraph: p,
            },
            CandidateKey::Note {
                note: y,
                paragraph: q,
            },
        ) => {
            p == q
                && found.notes.get(x as usize).map(|n| &n.note_id)
                    == found.notes.get(y as usize).map(|n| &n.note_id)
        }
        (CandidateKey::Edge(x), CandidateKey::Edge(y)) => {
            found.edges.get(x as usize).map(|e| &e.edge_id)
                == found.edges.get(y as usize).map(|e| &e.edge_id)
        }
        _ => false,
    }
}

/// One report per stage of several runs: hits and time added up; skipped only when every
/// run skipped it (with the first run's reason).
fn merge_stages(mut into: Vec<StageReport>, other: Vec<StageReport>) -> Vec<StageReport> {
    for o in other {
        match into.iter_mut().find(|s| s.name == o.name) {
            Some(s) => {
                s.hits += o.hits;
                s.ms += o.ms;
                if !o.skipped {
                    s.skipped = false;
                    s.reason = None;
                }
            }
            None => into.push(o),
        }
    }
    into
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EngineConfig, RecallOutput};
    use crate::graph::Entity;
    use crate::store::Memory;

    fn engine() -> Engine {
        let memory = |id: &str, text: &str| Memory {
            id: id.into(),
            text: text.into(),
            ..Memory::default()
        };
        let mut e = Engine::new(EngineConfig::default()).unwrap();
        let memories = vec![
            memory("pg", "postgres orders database"),
            memory("both", "postgres backs the react dashboard"),
            memory("react", "react dashboard hooks"),
            memory("cat", "the cat sleeps"),
        ];
        e.insert_many(memories, &[]).unwrap();
        e
    }

    use crate::test_support::recall_untracked as recall;

    #[test]
    fn query_texts_are_the_query_the_queries_and_the_decomposed_parts_once_each() {
        let mut e = engine();
        e.add_entity(Entity {
            name: "React Native".into(),
            ..Entity::default()
        })
        .unwrap();
        let o = RecallOptions {
            queries: vec!["cats".into(), "postgres".into()],
            auto_decompose: true,
            ..RecallOptions::default()
        };
        let texts = e.query_texts("postgres for React Native apps", &o).unwrap();
        assert_eq!(
            texts,
            [
                "postgres for React Native apps",
                "cats",
                "postgres",
                "React Native",
                "apps"
            ]
        );
        let o = RecallOptions {
            queries: vec!["*".into()],
            ..RecallOptions::default()
        };
        assert!(e.query_texts("x", &o).is_err());
        assert!(e
            .query_texts("*", &RecallOptions::default())
            .unwrap()
            .is_empty());
    }

    #[test]
    fn merged_results_keep_each_records_best_score_and_count_the_duplicates() {
        let mut e = engine();
        let one = recall(&mut e, "postgres", RecallOptions::default());
        let two = recall(&mut e, "react dashboard", RecallOptions::default());
        let o = RecallOptions {
            queries: vec!["react dashboard".into()],
            ..RecallOptions::default()
        };
        let out = recall(&mut e, "postgres", o);
        let score =
            |out: &RecallOutput, id: &str| out.results.iter().find(|r| r.id == id).map(|r| r.score);
        assert_eq!(out.results.len(), 3);
        assert_eq!(out.dedup_removed, 1);
        assert_eq!(
            score(&out, "both"),
            Some(
                score(&one, "both")
                    .unwrap()
                    .max(score(&two, "both").unwrap())
            )
        );
        let both = out.results.iter().find(|r| r.id == "both").unwrap();
        assert_eq!(
            both.deduped_from.as_deref().unwrap(),
            ["postgres", "react dashboard"]
        );
        assert!(out.results.windows(2).all(|w| w[0].score >= w[1].score));
    }

    #[test]
    fn priority_memories_take_the_place_of_the_lowest_results() {
        let mut e = engine();
        let o = RecallOptions {
            priority_ids: vec!["cat".into(), "gone".into()],
            limit: 2,
            ..RecallOptions::default()
        };
        let out = recall(&mut e, "postgres react", o);
        let ids: Vec<&str> = out.results.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), 2);
        assert_eq!(ids[1], "cat");
        assert_eq!(out.results[1].match_type, "priority");
        assert_eq!(out.results[1].score, 0.0);
    }
}
