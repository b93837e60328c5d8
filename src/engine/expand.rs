//! Graph expansion after the seed results (AutoMem's `expand_relations` and
//! `expand_entities`): related memories appended after the results a recall found (the
//! seeds), each saying where it came from. Both read only what the recall's reader may see,
//! and an expanded memory passes every filter of the recall as a seed does; the expansion
//! filters (`expandMinStrength`, `expandMinImportance`) apply to expanded memories only.
//!
//! **Relations** (`expand_relations`), for each seed memory in result order: its
//! edges (those whose `memoryIds` name it, and those of the entities its `entities` field
//! names), strongest first, at least `expandMinStrength`, at most `relationLimit`; each
//! edge's other cited memories join the results with score `seed score × strength` and
//! `expandedFrom { id, edge }`.
//!
//! **Entities** (`expand_entities`), multi-hop: the entities the question names
//! (hop 1) → the memories naming them (their name's words in the text, by the lexical
//! index, or citing one of their edges) → the other entities those memories name (hop 2) →
//! the memories naming those. "What does Sarah's sister do?" reaches "Rachel is a nurse"
//! through "Sarah's sister is Rachel". An expanded memory scores
//! `best seed score × 0.5^hop` and carries `expandedFromEntity`.
//!
//! Together at most `expansionLimit` memories are added, relations first. Cost: a scan of
//! the reader's edges per seed (graphs are small next to the memories) and one lexical
//! lookup per entity.

use super::recall::RecallOptions;
use super::stages::memory_candidate;
use super::Engine;
use crate::graph::Edge;
use crate::rank::{Candidate, CandidateKey};
use crate::store::DocId;

/// Default `relationLimit` (AutoMem's `RECALL_RELATION_LIMIT`).
pub const DEFAULT_RELATION_LIMIT: usize = 5;
/// Default `expansionLimit` (AutoMem's `RECALL_EXPANSION_LIMIT`).
pub const DEFAULT_EXPANSION_LIMIT: usize = 25;
/// Entities read from the question, and per hop.
const MAX_ENTITIES: usize = 5;
/// Memories read per entity.
const MEMORIES_PER_ENTITY: usize = 10;
/// The stage label of a memory added by relation expansion.
pub const RELATION_STAGE: &str = "expand:relation";
/// The stage label of a memory added by entity expansion.
pub const ENTITY_STAGE: &str = "expand:entity";

/// Where an expanded memory came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// From seed `id` through edge `edge`.
    Relation {
        /// The seed memory's id.
        id: String,
        /// The edge's id.
        edge: String,
    },
    /// Through the entity of this display name.
    Entity(String),
}

/// What an expansion added: the memories (candidates appended to the results) and where
/// each came from, and for entity expansion the entities it went through.
#[derive(Debug, Default)]
pub(super) struct Expansion {
    pub(super) origins: Vec<(DocId, Origin)>,
    pub(super) relation_count: usize,
    pub(super) entity_count: usize,
    pub(super) entities: Vec<String>,
}

impl Engine {
    /// Runs the expansions the recall asks for after `seeds` (module doc), appending what
    /// they add.
    pub(super) fn expand(
        &mut self,
        seeds: &mut Vec<Candidate>,
        query: &str,
        options: &RecallOptions,
    ) -> Expansion {
        let mut out = Expansion::default();
        let mut budget = options.expansion_limit;
        if options.expand_relations {
            let added = self.expand_relations(seeds, options, budget, &mut out);
            out.relation_count = added.len();
            budget -= added.len();
            seeds.extend(added);
        }
        if options.expand_entities {
            let added = self.expand_entities(seeds, query, options, budget, &mut out);
            out.entity_count = added.len();
            seeds.extend(added);
        }
        out
    }

    /// Relation expansion (module doc): at most `budget` new candidates.
    fn expand_relations(
        &self,
        seeds: &[Candidate],
        options: &RecallOptions,
        budget: usize,
        out: &mut Expansion,
    ) -> Vec<Candidate> {
        let mut added: Vec<Candidate> = Vec::new();
        for seed in seeds {
            let CandidateKey::Memory(doc) = seed.key else {
                continue;
            };
            let Some(m) = self.memory(doc) else {
                continue;
            };
            let id = m.id().to_owned();
            for edge in self.edges_of_memory(doc, options) {
                for other in &edge.memory_ids {
                    if added.len() >= budget {
                        return added;
                    }
                    let Some(d) = self.expandable(other, seeds, &added, options) else {
                        continue;
                    };
                    let score = seed.score * edge.strength;
                    let Some(m) = self.memory(d) else {
                        continue;
                    };
                    let mut c = memory_candidate(d, RELATION_STAGE, score, m);
                    c.score = score;
                    c.components = vec![("strength", edge.strength)];
                    let origin = Origin::Relation {
                        id: id.clone(),
                        edge: edge.id.clone(),
                    };
                    out.origins.push((d, origin));
                    added.push(c);
                }
            }
        }
        added
    }

    /// The edges of memory `doc` the reader sees (module doc), strongest first, at least
    /// `expandMinStrength`, at most `relationLimit`.
    pub(super) fn edges_of_memory(&self, doc: DocId, options: &RecallOptions) -> Vec<&Edge> {
        let Some(m) = self.memory(doc) else {
            return Vec::new();
        };
        let scope = options.filter.scope();
        let names: Vec<String> = (m.entities().iter())
            .map(|n| crate::graph::names::normalize_name(n))
            .collect();
        let mut edges: Vec<&Edge> = (self.graph.edges())
            .filter(|e| self.graph.is_visible(e, scope))
            .filter(|e| e.strength >= options.expand_min_strength)
            .filter(|e| {
                e.memory_ids.iter().any(|i| i == m.id())
                    || names.iter().any(|n| *n == e.from || *n == e.to)
            })
            .collect();
        crate::sort::sort_by(&mut edges, |a, b| {
            b.strength
                .total_cmp(&a.strength)
                .then_with(|| a.id.cmp(&b.id))
        });
        edges.truncate(options.relation_limit);
        edges
    }

    /// The document of memory `id` when it may be added: it exists, is neither a seed nor
    /// added yet, passes the recall's filters and `expandMinImportance`.
    fn expandable(
        &self,
        id: &str,
        seeds: &[Candidate],
        added: &[Candidate],
        options: &RecallOptions,
    ) -> Option<DocId> {
        let doc = self.ids.get(id, &self.records)?;
        let m = self.memory(doc)?;
        let known = |c: &Candidate| c.key == CandidateKey::Memory(doc);
        let important = m.importance().unwrap_or(0.0) >= options.expand_min_importance;
        let fresh = !seeds.iter().any(known) && !added.iter().any(known);
        (fresh && important && options.filter.accepts(doc, m)).then_some(doc)
    }

    /// Entity expansion (module doc): at most `budget` new candidates.
    fn expand_entities(
        &mut self,
        seeds: &[Candidate],
        query: &str,
        options: &RecallOptions,
        budget: usize,
        out: &mut Expansion,
    ) -> Vec<Candidate> {
        let scope = options.filter.scope();
        let best = seeds.iter().map(|c| c.score).fold(0.0, f64::max);
        let best = if best > 0.0 { best } else { 1.0 };
        let mut seen: Vec<String> = self.graph.mentioned(query, scope, MAX_ENTITIES);
        let mut hop_entities = seen.clone();
        let mut added: Vec<Candidate> = Vec::new();
        for hop in 1..=2 {
            let mut next: Vec<String> = Vec::new();
            for entity in &hop_entities {
                for doc in self.naming(entity, options) {
                    let Some(m) = self.memory(doc) else {
                        continue;
                    };
                    // The entities this memory names lead to the next hop.
                    let text = m.text_en().to_owned();
                    for e in self.graph.mentioned(&text, scope, MAX_ENTITIES) {
                        if !seen.contains(&e) && !next.contains(&e) {
                            next.push(e);
                        }
                    }
                    let id = m.id().to_owned();
                    if added.len() >= budget {
                        continue;
                    }
                    let Some(d) = self.expandable(&id, seeds, &added, options) else {
                        continue;
                    };
                    let Some(m) = self.memory(d) else {
                        continue;
                    };
                    let score = best * 0.5f64.powi(hop);
                    let mut c = memory_candidate(d, ENTITY_STAGE, score, m);
                    c.score = score;
                    c.components = vec![("hop", f64::from(hop))];
                    out.origins.push((d, Origin::Entity(entity.clone())));
                    if !out.entities.contains(entity) {
                        out.entities.push(entity.clone());
                    }
                    added.push(c);
                }
            }
            next.truncate(MAX_ENTITIES);
            seen.extend(next.iter().cloned());
            hop_entities = next;
        }
        added
    }

    /// The memories naming entity `name` that the recall's filters keep: its name's words
    /// in their text (the lexical index's porter sub-query), then the memories its edges
    /// cite; at most [`MEMORIES_PER_ENTITY`], in that order.
    fn naming(&mut self, name: &str, options: &RecallOptions) -> Vec<DocId> {
        let filter = &options.filter;
        let run = self.run_sf(name, MEMORIES_PER_ENTITY, MEMORIES_PER_ENTITY, filter);
        let mut docs: Vec<DocId> = (run.hits.iter())
            .filter(|h| h.porter.is_some())
            .map(|h| h.doc)
            .collect();
        let key = crate::graph::names::normalize_name(name);
        for edge in self.graph.visible_edges(filter.scope()) {
            if edge.from != key && edge.to != key {
                continue;
            }
            for id in &edge.memory_ids {
                if let Some(doc) = self.ids.get(id, &self.records) {
                    if !docs.contains(&doc) {
                        docs.push(doc);
                    }
                }
            }
        }
        docs.truncate(MEMORIES_PER_ENTITY);
        docs
    }
}

impl Engine {
    /// Writes where each expanded result came from and, with `expandRelations`, every memory
    /// result's edges.
    pub(super) fn annotate_expansion(
        &self,
        hits: &mut [super::RecallHit],
        expansion: &Expansion,
        options: &RecallOptions,
    ) {
        for hit in hits.iter_mut() {
            let Some(doc) = self.ids.get(&hit.id, &self.records) else {
                continue;
            };
            if hit.kind != super::HitKind::Memory {
                continue;
            }
            if let Some((_, origin)) = expansion.origins.iter().find(|(d, _)| *d == doc) {
                hit.expanded_from = Some(origin.clone());
            }
            if options.expand_relations {
                let edges = self.edges_of_memory(doc, options);
                hit.relations = Some(edges.iter().map(|e| e.id.clone()).collect());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineConfig;
    use crate::graph::{Entity, Relation};
    use crate::store::Memory;

    fn engine(memories: &[(&str, &str, Option<f64>)]) -> Engine {
        let mut e = Engine::new(EngineConfig::default()).unwrap();
        let memories = (memories.iter())
            .map(|&(id, text, importance)| Memory {
                id: id.into(),
                text: text.into(),
                importance,
                ..Memory::default()
            })
            .collect();
        e.insert_many(memories, &[]).unwrap();
        e
    }

    use crate::test_support::recall_untracked as recall;

    use crate::test_support::ids;

    #[test]
    fn relations_add_the_other_cited_memories_strongest_first_within_the_filters() {
        let mut e = engine(&[
            ("auth", "authentication moved to oauth", None),
            ("keys", "signing keys rotate", Some(0.8)),
            ("weak", "passwords were mentioned", Some(0.1)),
        ]);
        let relate = |from: &str, to: &str, strength: f64, ids: &[&str]| Relation {
            strength: Some(strength),
            memory_ids: ids.iter().map(|s| s.to_string()).collect(),
            ..Relation::new(from, "relates to", to)
        };
        e.relate(&relate("oauth", "passwords", 0.2, &["auth", "weak"]), 0.0)
            .unwrap();
        e.relate(&relate("oauth", "keys", 0.8, &["auth", "keys"]), 0.0)
            .unwrap();
        let o = RecallOptions {
            expand_relations: true,
            ..RecallOptions::default()
        };
        let out = recall(&mut e, "authentication", o.clone());
        assert_eq!(ids(&out), ["auth", "keys", "weak"]);
        assert_eq!(out.expansion, Some((1, 2)));
        assert_close!(out.results[1].score, out.results[0].score * 0.8);
        let strong = RecallOptions {
            expand_min_strength: 0.5,
            ..o.clone()
        };
        assert_eq!(
            ids(&recall(&mut e, "authentication", strong)),
            ["auth", "keys"]
        );
        let important = RecallOptions {
            expand_min_importance: 0.9,
            ..o
        };
        assert_eq!(ids(&recall(&mut e, "authentication", important)), ["auth"]);
    }

    #[test]
    fn entities_reach_a_second_hop() {
        let mut e = engine(&[
            ("sister", "Sarah's sister is Rachel", None),
            ("job", "Rachel works as a nurse", None),
        ]);
        for name in ["Sarah", "Rachel"] {
            let entity = Entity {
                name: name.into(),
                ..Entity::default()
            };
            e.add_entity(entity).unwrap();
        }
        let q = "What does Sarah's sister do?";
        assert_eq!(
            ids(&recall(&mut e, q, RecallOptions::default())),
            ["sister"]
        );
        let o = RecallOptions {
            expand_entities: true,
            ..RecallOptions::default()
        };
        let out = recall(&mut e, q, o);
        assert_eq!(ids(&out), ["sister", "job"]);
        assert_eq!(
            out.results[1].expanded_from,
            Some(Origin::Entity("Rachel".into()))
        );
        assert_eq!(out.entity_expansion, Some((vec!["Rachel".to_string()], 1)));
    }
}
