//! Stage S8, entity graph lookup: find the first known entity the query mentions and return
//! its relations (abmind's recall pipeline, `docs/design-sources.md` §1).
//!
//! Algorithm:
//!
//! 1. Tokenise the query with [`crate::text::tokens`] (folded: case and diacritics removed,
//!    split on non-alphanumerics, so "Alice's" gives `alice`, `s`).
//! 2. Scan start positions left to right. At each, try spans of 1 up to `W` tokens, where `W`
//!    is the most words of any known name or alias, looking each span's normal form (tokens
//!    joined by a space) up in the name index. The longest span naming a *visible* entity
//!    wins at that position; the first position with a match ends the scan. So the leftmost
//!    mention wins, and "new york" beats "new" when both are entities.
//! 3. The matched entity's edges, outgoing and incoming, that are visible and whose other
//!    endpoint is visible, ordered by strength descending, then `lastSeenAt` descending, then
//!    id ascending; the first `max` become hits with score [`S8_SCORE`] and the text
//!    `from —[relation]→ to` in display names.
//!
//! Visibility is [`Scope::sees`]: a record with `userId` `Some(u)` is visible only to a recall
//! for user `u` (or for no user); a record without one is shared and visible to every recall
//! (unlike memories, whose `userId` filter also hides unowned ones: stores written before
//! records had owners hold only shared ones). A record whose `classification` exceeds
//! `maxClassification` is hidden. Hidden entities are never matched, so a recall cannot learn
//! that they exist; hidden edges are dropped before the cut to `max`. The hits carry edge ids
//! only: the engine strips an edge's `memoryIds` to the memories the recall may return before
//! it shows the edge.
//!
//! Cost: O(query tokens × W) hash lookups until the first match (`W ≤`
//! [`MAX_NAME_WORDS`](super::graph_records::MAX_NAME_WORDS)), plus a sort of one entity's edges.

use std::cmp::Ordering;

use crate::graph::graph_records::Edge;
use crate::graph::graph_store::Graph;
use crate::sort;
use crate::store::Scope;
use crate::text;

/// The fixed score of every S8 hit (abmind's).
pub const S8_SCORE: f64 = 0.6;
/// The stage label S8 hits carry.
pub const S8_LABEL: &str = "S8";

/// What stage S8 found: the matched entity, if any, and its edges as hits.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphMatch {
    /// Display name of the entity the query mentions first; `None` when no visible entity is
    /// mentioned. It may be `Some` with no hits when none of its edges is visible.
    pub entity: Option<String>,
    /// With [`Graph::personalized`], the display names of every seed the query named or the
    /// hints gave (empty for [`Graph::search`]).
    pub seeds: Vec<String>,
    /// Its edges, best first.
    pub hits: Vec<EdgeHit>,
}

/// One S8 hit: an edge of the matched entity.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeHit {
    /// The edge's id (`from|relation|to`).
    pub edge_id: String,
    /// `from —[relation]→ to`, with the entities' display names, for example
    /// `Alice —[works_with]→ Bob`.
    pub text: String,
    /// Always [`S8_SCORE`].
    pub score: f64,
    /// The edge's strength.
    pub strength: f64,
    /// With [`Graph::personalized`], the PageRank mass of its endpoints (0 for
    /// [`Graph::search`]).
    pub ppr: f64,
}

impl Graph {
    /// Stage S8: the edges of the first entity `query` mentions that `scope` sees, at most
    /// `max` (see the module doc).
    ///
    /// ```
    /// use recallkit::graph::{Graph, Relation};
    /// use recallkit::store::Scope;
    /// let mut g = Graph::new();
    /// let works_with = Relation { strength: Some(0.8), ..Relation::new("Alice", "works with", "Bob") };
    /// g.relate(&works_with, 0.0).unwrap();
    /// let found = g.search("what is alice's team doing?", Scope::ALL, 5);
    /// assert_eq!(found.entity.as_deref(), Some("Alice"));
    /// assert_eq!(found.hits[0].text, "Alice —[works_with]→ Bob");
    /// assert_eq!((found.hits[0].score, found.hits[0].strength), (0.6, 0.8));
    /// ```
    pub fn search(&self, query: &str, scope: Scope<'_>, max: usize) -> GraphMatch {
        let Some(key) = self.first_mention(query, scope) else {
            return GraphMatch::default();
        };
        let Some(node) = self.entities.get(key) else {
            return GraphMatch::default();
        };
        let mut edges: Vec<&Edge> = node
            .edges
            .iter()
            .filter_map(|id| self.edges.get(id))
            .filter(|e| self.is_visible(e, scope))
            .collect();
        // `rank` ends on the unique id, so the order is the same as an unstable sort's.
        sort::sort_by(&mut edges, |a, b| rank(a, b));
        let hits = edges.into_iter().take(max).map(|e| self.hit(e)).collect();
        GraphMatch {
            entity: Some(node.entity.name.clone()),
            seeds: Vec::new(),
            hits,
        }
    }

    /// The key of the first entity `scope` sees mentioned in `query` (leftmost, then longest).
    fn first_mention(&self, query: &str, scope: Scope<'_>) -> Option<&str> {
        self.mentions(query, scope, 1).into_iter().next()
    }

    /// The display names of the entities `scope` sees mentioned in `query`, in query order
    /// (leftmost, then longest, as stage S8 matches; a mention's words are not read again),
    /// each once, at most `max`.
    ///
    /// ```
    /// use recallkit::graph::{Graph, Relation};
    /// use recallkit::store::Scope;
    /// let mut g = Graph::new();
    /// g.relate(&Relation::new("Sarah", "sister of", "Rachel"), 0.0).unwrap();
    /// assert_eq!(g.mentioned("Is Rachel Sarah's sister?", Scope::ALL, 5), ["Rachel", "Sarah"]);
    /// ```
    pub fn mentioned(&self, query: &str, scope: Scope<'_>, max: usize) -> Vec<String> {
        let keys = self.mentions(query, scope, max);
        (keys.into_iter())
            .filter_map(|k| self.entities.get(k).map(|n| n.entity.name.clone()))
            .collect()
    }

    /// The keys of the entities `scope` sees mentioned in `query` ([`Graph::mentioned`]).
    pub(super) fn mentions(&self, query: &str, scope: Scope<'_>, max: usize) -> Vec<&str> {
        let max_words = self.words.len().saturating_sub(1);
        let tokens = text::tokens(query);
        let mut span = String::new();
        let mut found: Vec<&str> = Vec::new();
        let mut start = 0;
        while start < tokens.len() && found.len() < max {
            span.clear();
            let mut best = None;
            for (words, token) in tokens[start..].iter().take(max_words).enumerate() {
                if !span.is_empty() {
                    span.push(' ');
                }
                span.push_str(token);
                if let Some(key) = self.lookup.get(&span) {
                    if self.entities.get(key).is_some_and(|n| {
                        scope.sees(n.entity.user_id.as_deref(), n.entity.classification)
                    }) {
                        best = Some((key.as_str(), words + 1));
                    }
                }
            }
            match best {
                Some((key, words)) => {
                    if !found.contains(&key) {
                        found.push(key);
                    }
                    start += words;
                }
                None => start += 1,
            }
        }
        found
    }

    pub(super) fn hit(&self, e: &Edge) -> EdgeHit {
        let name = |key: &str| {
            self.entities
                .get(key)
                .map_or(key, |n| n.entity.name.as_str())
                .to_owned()
        };
        EdgeHit {
            edge_id: e.id.clone(),
            text: format!("{} —[{}]→ {}", name(&e.from), e.relation, name(&e.to)),
            score: S8_SCORE,
            strength: e.strength,
            ppr: 0.0,
        }
    }
}

/// Strength descending, then last seen descending, then id ascending.
pub(super) fn rank(a: &Edge, b: &Edge) -> Ordering {
    b.strength
        .total_cmp(&a.strength)
        .then(b.last_seen_at.total_cmp(&a.last_seen_at))
        .then_with(|| a.id.cmp(&b.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::graph_records::{Entity, MAX_NAME_WORDS};
    use crate::graph::Relation;

    fn graph(edges: &[(&str, &str, &str, f64, f64)]) -> Graph {
        let mut g = Graph::new();
        for &(from, relation, to, strength, now) in edges {
            let r = Relation {
                strength: Some(strength),
                ..Relation::new(from, relation, to)
            };
            g.relate(&r, now).unwrap();
        }
        g
    }

    fn add(g: &mut Graph, name: &str, aliases: &[&str]) {
        let e = Entity {
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            ..Entity::new(name, 0.0)
        };
        g.add_entity(e).unwrap();
    }

    fn texts(m: &GraphMatch) -> Vec<&str> {
        m.hits.iter().map(|h| h.text.as_str()).collect()
    }

    #[test]
    fn multi_word_names_match_across_query_words() {
        let mut g = graph(&[("Alice", "visited", "New York", 0.5, 0.0)]);
        add(&mut g, "New", &[]);
        let m = g.search("what happened in new york?", Scope::ALL, 10);
        assert_eq!(m.entity.as_deref(), Some("New York"));
        assert_eq!(texts(&m), ["Alice —[visited]→ New York"]);
        assert_eq!(m.hits[0].edge_id, "alice|visited|new york");
        assert_eq!(m.hits[0].score, S8_SCORE);
    }

    #[test]
    fn aliases_find_their_entity() {
        let mut g = graph(&[("Robert", "works_with", "Carol", 0.5, 0.0)]);
        add(&mut g, "Robert", &["Bob", "Bobby T"]);
        assert_eq!(
            g.search("did bob call?", Scope::ALL, 10).entity.as_deref(),
            Some("Robert")
        );
        assert_eq!(
            texts(&g.search("BOBBY   t", Scope::ALL, 10)),
            ["Robert —[works_with]→ Carol"]
        );
    }

    #[test]
    fn possessives_and_diacritics_do_not_hide_a_name() {
        let g = graph(&[("José", "manages", "Zoë", 0.5, 0.0)]);
        assert_eq!(
            g.search("what is Jose's role", Scope::ALL, 10)
                .entity
                .as_deref(),
            Some("José")
        );
        assert_eq!(g.search("JOSÉ", Scope::ALL, 10).hits.len(), 1);
        assert_eq!(
            g.search("zoe", Scope::ALL, 10).entity.as_deref(),
            Some("Zoë")
        );
    }

    #[test]
    fn the_leftmost_mention_wins_then_the_longest() {
        let mut g = graph(&[
            ("bob", "knows", "x", 0.5, 0.0),
            ("alice", "knows", "y", 0.5, 0.0),
            ("alice smith", "knows", "z", 0.5, 0.0),
        ]);
        add(&mut g, "smith", &[]);
        assert_eq!(
            g.search("bob and alice", Scope::ALL, 10).entity.as_deref(),
            Some("bob")
        );
        assert_eq!(
            g.search("alice and bob", Scope::ALL, 10).entity.as_deref(),
            Some("alice")
        );
        assert_eq!(
            g.search("alice smith and bob", Scope::ALL, 10)
                .entity
                .as_deref(),
            Some("alice smith")
        );
        assert_eq!(
            texts(&g.search("Alice Smith", Scope::ALL, 10)),
            ["alice smith —[knows]→ z"]
        );
    }

    #[test]
    fn no_mention_gives_no_entity_and_no_hits() {
        let g = graph(&[("alice", "knows", "bob", 0.5, 0.0)]);
        assert_eq!(
            g.search("nothing relevant here", Scope::ALL, 10),
            GraphMatch::default()
        );
        assert_eq!(g.search("", Scope::ALL, 10), GraphMatch::default());
        assert_eq!(
            Graph::new().search("alice", Scope::ALL, 10),
            GraphMatch::default()
        );
    }

    #[test]
    fn hits_include_incoming_edges_ordered_by_strength_then_recency() {
        let g = graph(&[
            ("alice", "knows", "bob", 0.5, 10.0),
            ("carol", "manages", "alice", 0.9, 5.0),
            ("alice", "likes", "dave", 0.5, 20.0),
            ("bob", "knows", "carol", 1.0, 30.0),
        ]);
        let m = g.search("alice", Scope::ALL, 10);
        assert_eq!(
            texts(&m),
            [
                "carol —[manages]→ alice",
                "alice —[likes]→ dave",
                "alice —[knows]→ bob"
            ]
        );
        assert_eq!(m.hits[0].strength, 0.9);
        assert_eq!(g.search("alice", Scope::ALL, 2).hits.len(), 2);
        assert_eq!(g.search("alice", Scope::ALL, 0).hits.len(), 0);
    }

    #[test]
    fn user_scoped_edges_are_seen_by_their_user_and_by_reads_for_no_user() {
        let mut g = graph(&[("alice", "knows", "bob", 0.5, 0.0)]);
        let scoped = Edge {
            id: String::new(),
            from: "alice".into(),
            relation: "dates".into(),
            to: "carol".into(),
            strength: 0.9,
            created_at: 0.0,
            last_seen_at: 0.0,
            memory_ids: vec![],
            user_id: Some("u1".into()),
            classification: 0,
            valid_from: None,
            valid_to: None,
        };
        g.upsert_edge(scoped).unwrap();
        assert_eq!(g.search("alice", Scope::ALL, 10).hits.len(), 2);
        assert_eq!(
            g.search("alice", Scope::new(Some("u2"), None), 10)
                .hits
                .len(),
            1
        );
        assert_eq!(
            texts(&g.search("alice", Scope::new(Some("u1"), None), 10)),
            ["alice —[dates]→ carol", "alice —[knows]→ bob"]
        );
    }

    #[test]
    fn hidden_entities_are_not_matched_and_hide_their_edges() {
        let mut g = Graph::new();
        let secret = Entity {
            user_id: Some("u1".into()),
            ..Entity::new("Bob", 0.0)
        };
        g.add_entity(secret).unwrap();
        // Written for the whole store, these may use u1's entity.
        g.relate(&Relation::new("alice", "knows", "bob"), 0.0)
            .unwrap();
        g.relate(&Relation::new("bob", "knows", "carol"), 0.0)
            .unwrap();
        let m = g.search("bob and alice", Scope::new(Some("u2"), None), 10);
        assert_eq!(m.entity.as_deref(), Some("alice"));
        assert!(m.hits.is_empty());
        assert_eq!(
            g.search("bob and alice", Scope::new(Some("u1"), None), 10)
                .entity
                .as_deref(),
            Some("Bob")
        );
    }

    #[test]
    fn classification_above_the_ceiling_is_hidden() {
        let mut g = graph(&[("alice", "knows", "bob", 0.5, 0.0)]);
        let classified = Edge {
            classification: 3,
            ..g.edges().next().unwrap().clone()
        };
        g.upsert_edge(classified).unwrap();
        assert_eq!(
            g.search("alice", Scope::new(None, Some(2)), 10).hits.len(),
            0
        );
        assert_eq!(
            g.search("alice", Scope::new(None, Some(3)), 10).hits.len(),
            1
        );
        assert_eq!(g.search("alice", Scope::ALL, 10).hits.len(), 1);
        g.add_entity(Entity {
            classification: 5,
            ..Entity::new("alice", 0.0)
        })
        .unwrap();
        assert_eq!(
            g.search("alice", Scope::new(None, Some(4)), 10).entity,
            None
        );
    }

    #[test]
    fn a_longer_hidden_name_falls_back_to_a_shorter_visible_one() {
        let mut g = graph(&[("new", "rhymes_with", "few", 0.5, 0.0)]);
        g.add_entity(Entity {
            classification: 9,
            ..Entity::new("New York", 0.0)
        })
        .unwrap();
        assert_eq!(
            g.search("new york", Scope::new(None, Some(0)), 10)
                .entity
                .as_deref(),
            Some("new")
        );
    }

    #[test]
    fn the_scan_bound_follows_removals() {
        let mut g = Graph::new();
        let long = ["w"; MAX_NAME_WORDS].join(" ");
        add(&mut g, &long, &[]);
        add(&mut g, "a", &[]);
        assert_eq!(g.words.len() - 1, MAX_NAME_WORDS);
        g.remove_entity(&long, None).unwrap();
        assert_eq!(g.words.len() - 1, 1);
        assert_eq!(
            g.search(&format!("{long} a"), Scope::ALL, 1)
                .entity
                .as_deref(),
            Some("a")
        );
    }

    use crate::test_support::SplitMix64;

    #[test]
    fn the_scan_agrees_with_a_brute_force_oracle() {
        const WORDS: [&str; 6] = ["ann", "bo", "cy", "di", "ed", "fa"];
        for seed in 0..200u64 {
            let mut rng = SplitMix64(seed);
            let mut pick = |n: usize| rng.index(n);
            let mut g = Graph::new();
            for _ in 0..6 {
                let len = 1 + pick(3);
                let name: Vec<_> = (0..len).map(|_| WORDS[pick(6)]).collect();
                let _ = g.add_entity(Entity::new(name.join(" "), 0.0));
            }
            let query: Vec<_> = (0..8).map(|_| WORDS[pick(6)]).collect();
            // Oracle: every (start, length) with a known name, leftmost then longest.
            let mut expected = None;
            'outer: for start in 0..query.len() {
                for len in (1..=query.len() - start).rev() {
                    let span = query[start..start + len].join(" ");
                    if let Some(e) = g.entity(&span) {
                        expected = Some(e.name.clone());
                        break 'outer;
                    }
                }
            }
            let got = g.search(&query.join(" "), Scope::ALL, 10).entity;
            assert_eq!(got, expected, "seed {seed}, query {query:?}");
        }
    }
}
