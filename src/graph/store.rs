//! [`Graph`]: entities by normalised name, edges by id, and the indexes S8 and the writes use.
//!
//! Layout:
//!
//! | field | maps | used by |
//! |---|---|---|
//! | `entities` | name normal form → entity and the ids of its edges (both directions) | everything |
//! | `lookup` | normal form of every name and alias → the entity's key | resolving names, S8 |
//! | `words` | word count (index) → how many `lookup` keys have it | the S8 scan bound |
//! | `edges` | edge id → edge | everything |
//!
//! Invariants: every `lookup` value is a key of `entities`; every edge's `from` and `to` are
//! keys of `entities`, and an edge id is in the edge set of exactly its endpoints; `words`
//! counts exactly the `lookup` keys and has no trailing zero. Listings sort by key, so they are
//! deterministic.
//!
//! Writes validate everything first and change nothing on error. Names passed to any method
//! may be the entity's name or one of its aliases, in any case and with or without diacritics.
//! [`Graph::relate`] and [`Graph::upsert_edge`] create missing endpoint entities implicitly:
//! shared (`userId` none), classification 0, no kind or aliases, `createdAt` = the edge's time,
//! display name as spelled in the call.

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::graph::keyed::Keyed;
use crate::graph::names::{edge_id, normalize_name, normalize_relation, word_count};
use crate::graph::records::{
    check_finite, check_memory_ids, check_name, check_relation, check_strength, Edge, Entity,
    DEFAULT_STRENGTH, MAX_ALIASES,
};

/// An entity and the ids of the edges that touch it.
#[derive(Debug, Clone)]
pub(super) struct Node {
    pub(super) entity: Entity,
    /// Sorted, without repeats.
    pub(super) edges: Vec<String>,
}

/// The entity graph: entities, directed labelled edges between them, and stage S8
/// ([`Graph::search`]).
#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub(super) entities: Keyed<Node>,
    pub(super) lookup: HashMap<String, String>,
    pub(super) words: Vec<usize>,
    pub(super) edges: Keyed<Edge>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an entity, or merges it into the entity with the same normalised name: aliases
    /// are unioned (by normal form; aliases equal to the name are dropped), the display name,
    /// `classification` and a given `type` or `userId` replace the stored ones, and the
    /// earlier `createdAt` is kept. Errors: validation errors; `invalid_argument` when the
    /// name or an alias already names another entity (the message names both); `too_large`
    /// when the merged aliases exceed the limit.
    pub fn add_entity(&mut self, entity: Entity) -> Result<()> {
        entity.validate()?;
        let key = normalize_name(&entity.name);
        if let Some(other) = self.owner_other_than(&key, &key) {
            return Err(Error::InvalidArgument(format!(
                "entity name \"{}\" is already an alias of entity \"{other}\"",
                entity.name
            )));
        }
        for alias in &entity.aliases {
            if let Some(other) = self.owner_other_than(&normalize_name(alias), &key) {
                return Err(Error::InvalidArgument(format!(
                    "alias \"{alias}\" of entity \"{}\" already names entity \"{other}\"",
                    entity.name
                )));
            }
        }
        let merged = match self.entities.get(&key) {
            Some(node) => merge(&node.entity, entity),
            None => {
                let mut entity = entity;
                let aliases = std::mem::take(&mut entity.aliases);
                merge_aliases(entity, &key, aliases)
            }
        };
        if merged.aliases.len() > MAX_ALIASES {
            return Err(Error::TooLarge(format!(
                "entity \"{}\" would have {} aliases, more than {MAX_ALIASES}",
                merged.name,
                merged.aliases.len()
            )));
        }
        self.index_name(&key, &key);
        for alias in &merged.aliases {
            self.index_name(&normalize_name(alias), &key);
        }
        match self.entities.get_mut(&key) {
            Some(node) => node.entity = merged,
            None => {
                let node = Node {
                    entity: merged,
                    edges: Vec::new(),
                };
                self.entities.insert(key, node);
            }
        }
        Ok(())
    }

    /// Removes an entity (by name or alias) and every edge that touches it. Errors:
    /// `not_found`.
    pub fn remove_entity(&mut self, name: &str) -> Result<Entity> {
        let key = self.resolve(name).ok_or_else(|| no_entity(name))?;
        let Some(node) = self.entities.remove(&key) else {
            return Err(no_entity(name));
        };
        self.unindex_name(&key);
        for alias in &node.entity.aliases {
            self.unindex_name(&normalize_name(alias));
        }
        for id in &node.edges {
            self.remove_edge(id);
        }
        Ok(node.entity)
    }

    /// The entity with this name or alias.
    pub fn entity(&self, name_or_alias: &str) -> Option<&Entity> {
        let key = self.resolve(name_or_alias)?;
        self.entities.get(&key).map(|n| &n.entity)
    }

    /// Every entity, ordered by normalised name.
    pub fn entities(&self) -> impl Iterator<Item = &Entity> {
        self.entities.values_sorted().map(|n| &n.entity)
    }

    /// Number of entities.
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    /// Records `from —[relation]→ to`. A new edge gets `strength` (default
    /// [`DEFAULT_STRENGTH`]), `createdAt = lastSeenAt = now`, the given memory ids, and is
    /// shared and unclassified (use [`Graph::upsert_edge`] for scoped edges). Relating an
    /// existing edge again sets its strength when one is given, moves `lastSeenAt` to `now`
    /// (never backwards) and unions the memory ids. The relation is normalised to lower
    /// snake_case; missing endpoints are created (see the module doc). Errors:
    /// `invalid_argument` or `too_large` for a bad name, relation, strength, memory id or
    /// `now`.
    pub fn relate(
        &mut self,
        from: &str,
        relation: &str,
        to: &str,
        strength: Option<f64>,
        memory_ids: &[String],
        now: f64,
    ) -> Result<&Edge> {
        check_name("entity name", from)?;
        check_name("entity name", to)?;
        check_relation(relation)?;
        strength.map_or(Ok(()), check_strength)?;
        check_memory_ids(memory_ids)?;
        check_finite("now", now)?;
        let from_key = self.resolve_or_create(from, now);
        let to_key = self.resolve_or_create(to, now);
        let relation = normalize_relation(relation);
        let id = edge_id(&from_key, &relation, &to_key);
        self.link(&id, &from_key, &to_key);
        let edge = self.edges.get_or_insert_with(id, |id| Edge {
            id: id.to_owned(),
            from: from_key,
            relation,
            to: to_key,
            strength: strength.unwrap_or(DEFAULT_STRENGTH),
            created_at: now,
            last_seen_at: now,
            memory_ids: Vec::new(),
            user_id: None,
            classification: 0,
        });
        if let Some(s) = strength {
            edge.strength = s;
        }
        edge.last_seen_at = edge.last_seen_at.max(now);
        union_into(&mut edge.memory_ids, memory_ids);
        Ok(edge)
    }

    /// Stores a whole edge record, replacing any edge with the same endpoints and relation:
    /// the path for scoped or classified edges and for loading persisted edges. `from` and
    /// `to` are resolved like names (missing endpoints are created at `createdAt`), the
    /// relation is normalised, the id recomputed and repeated memory ids dropped. Errors:
    /// [`Edge::validate`]'s.
    pub fn upsert_edge(&mut self, edge: Edge) -> Result<&Edge> {
        edge.validate()?;
        let from = self.resolve_or_create(&edge.from, edge.created_at);
        let to = self.resolve_or_create(&edge.to, edge.created_at);
        let relation = normalize_relation(&edge.relation);
        let id = edge_id(&from, &relation, &to);
        let mut memory_ids = Vec::new();
        union_into(&mut memory_ids, &edge.memory_ids);
        self.link(&id, &from, &to);
        let edge = Edge {
            id: id.clone(),
            from,
            relation,
            to,
            memory_ids,
            ..edge
        };
        Ok(self.edges.put(id, edge))
    }

    /// Removes the edges `from —[relation]→ to` (every relation when `relation` is `None`)
    /// and returns how many. Direction matters. Errors: `not_found` when an endpoint is
    /// unknown or no edge matched.
    pub fn unrelate(&mut self, from: &str, relation: Option<&str>, to: &str) -> Result<usize> {
        let from_key = self.resolve(from).ok_or_else(|| no_entity(from))?;
        let to_key = self.resolve(to).ok_or_else(|| no_entity(to))?;
        let relation = relation.map(normalize_relation);
        let doomed: Vec<String> = self
            .edges_of(from)
            .into_iter()
            .filter(|e| {
                e.from == from_key
                    && e.to == to_key
                    && relation.as_ref().map_or(true, |r| *r == e.relation)
            })
            .map(|e| e.id.clone())
            .collect();
        if doomed.is_empty() {
            let message = match relation {
                Some(r) => format!("no edge \"{from}\" —[{r}]→ \"{to}\""),
                None => format!("no edge from \"{from}\" to \"{to}\""),
            };
            return Err(Error::NotFound(message));
        }
        for id in &doomed {
            self.remove_edge(id);
        }
        Ok(doomed.len())
    }

    /// Every edge, ordered by id.
    pub fn edges(&self) -> impl Iterator<Item = &Edge> {
        self.edges.values_sorted()
    }

    /// The edge with this id.
    pub fn edge(&self, id: &str) -> Option<&Edge> {
        self.edges.get(id)
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// The edges touching an entity (by name or alias), outgoing and incoming, ordered by id;
    /// empty for an unknown entity.
    pub fn edges_of(&self, entity: &str) -> Vec<&Edge> {
        let Some(node) = self.resolve(entity).and_then(|k| self.entities.get(&k)) else {
            return Vec::new();
        };
        node.edges
            .iter()
            .filter_map(|id| self.edges.get(id))
            .collect()
    }

    /// The key (normalised name) of the entity a name or alias refers to.
    pub(super) fn resolve(&self, name: &str) -> Option<String> {
        self.lookup.get(&normalize_name(name)).cloned()
    }

    /// Resolves a validated name, creating a shared entity for it when unknown.
    fn resolve_or_create(&mut self, name: &str, now: f64) -> String {
        if let Some(key) = self.resolve(name) {
            return key;
        }
        let key = normalize_name(name);
        self.index_name(&key, &key);
        let node = Node {
            entity: Entity::new(name.trim(), now),
            edges: Vec::new(),
        };
        self.entities.insert(key.clone(), node);
        key
    }

    /// Adds an edge id to the edge sets of its endpoints.
    fn link(&mut self, id: &str, from: &str, to: &str) {
        for end in [from, to] {
            if let Some(node) = self.entities.get_mut(end) {
                if let Err(at) = node.edges.binary_search_by(|e| e.as_str().cmp(id)) {
                    node.edges.insert(at, id.to_owned());
                }
            }
        }
    }

    /// The display name of the entity that owns `normal` (a name or alias normal form), when
    /// that is not the entity `key`.
    fn owner_other_than(&self, normal: &str, key: &str) -> Option<&str> {
        let owner = self.lookup.get(normal).filter(|k| *k != key)?;
        Some(
            self.entities
                .get(owner)
                .map_or(owner.as_str(), |n| n.entity.name.as_str()),
        )
    }

    /// Removes an edge and its entries in its endpoints' edge sets.
    fn remove_edge(&mut self, id: &str) {
        if let Some(edge) = self.edges.remove(id) {
            for end in [&edge.from, &edge.to] {
                if let Some(node) = self.entities.get_mut(end) {
                    if let Ok(at) = node.edges.binary_search_by(|e| e.as_str().cmp(id)) {
                        node.edges.remove(at);
                    }
                }
            }
        }
    }

    fn index_name(&mut self, normal: &str, key: &str) {
        if self
            .lookup
            .insert(normal.to_owned(), key.to_owned())
            .is_none()
        {
            let n = word_count(normal);
            if self.words.len() <= n {
                self.words.resize(n + 1, 0);
            }
            self.words[n] += 1;
        }
    }

    fn unindex_name(&mut self, normal: &str) {
        if self.lookup.remove(normal).is_some() {
            let n = word_count(normal);
            if let Some(count) = self.words.get_mut(n) {
                *count = count.saturating_sub(1);
            }
            while self.words.last() == Some(&0) {
                self.words.pop();
            }
        }
    }
}

/// `stored` updated by `new` as [`Graph::add_entity`] describes.
fn merge(stored: &Entity, new: Entity) -> Entity {
    let key = normalize_name(&new.name);
    let base = Entity {
        name: new.name,
        kind: new.kind.or_else(|| stored.kind.clone()),
        aliases: Vec::new(),
        user_id: new.user_id.or_else(|| stored.user_id.clone()),
        classification: new.classification,
        created_at: stored.created_at.min(new.created_at),
    };
    let aliases = stored.aliases.iter().cloned().chain(new.aliases).collect();
    merge_aliases(base, &key, aliases)
}

/// `entity` with `aliases` added, skipping any whose normal form is the name's (`key`) or an
/// earlier alias's.
fn merge_aliases(mut entity: Entity, key: &str, aliases: Vec<String>) -> Entity {
    let mut seen: HashSet<String> = HashSet::from([key.to_owned()]);
    for alias in aliases {
        if seen.insert(normalize_name(&alias)) {
            entity.aliases.push(alias);
        }
    }
    entity
}

/// Appends the ids of `new` that `ids` lacks, in order.
fn union_into(ids: &mut Vec<String>, new: &[String]) {
    let mut seen: HashSet<String> = ids.iter().cloned().collect();
    for id in new {
        if seen.insert(id.clone()) {
            ids.push(id.clone());
        }
    }
}

fn no_entity(name: &str) -> Error {
    Error::NotFound(format!("no entity named \"{name}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(name: &str, aliases: &[&str]) -> Entity {
        Entity {
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            ..Entity::new(name, 1.0)
        }
    }

    fn ids(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    /// Checks the documented invariants between the maps.
    fn assert_consistent(g: &Graph) {
        for key in g.lookup.values() {
            assert!(g.entities.contains_key(key), "dangling lookup {key}");
        }
        let mut expected_words = Vec::new();
        for normal in g.lookup.keys() {
            let n = word_count(normal);
            expected_words.resize(expected_words.len().max(n + 1), 0);
            expected_words[n] += 1;
        }
        assert_eq!(g.words, expected_words);
        for (key, node) in g.entities.iter_sorted() {
            assert_eq!(g.lookup.get(key).map(String::as_str), Some(key));
            assert!(
                node.edges.windows(2).all(|w| w[0] < w[1]),
                "unsorted edge set"
            );
            for id in &node.edges {
                let e = g.edges.get(id).unwrap();
                assert!(e.from == key || e.to == key);
            }
        }
        for e in g.edges.values() {
            assert_eq!(e.id, edge_id(&e.from, &e.relation, &e.to));
            assert!(g.entities.get(&e.from).unwrap().edges.contains(&e.id));
            assert!(g.entities.get(&e.to).unwrap().edges.contains(&e.id));
        }
    }

    #[test]
    fn entities_are_found_by_name_or_alias_in_any_spelling() {
        let mut g = Graph::new();
        g.add_entity(entity("José Álvarez", &["Pepe"])).unwrap();
        assert_eq!(
            g.entity("jose alvarez").map(|e| e.name.as_str()),
            Some("José Álvarez")
        );
        assert_eq!(
            g.entity("PEPE").map(|e| e.name.as_str()),
            Some("José Álvarez")
        );
        assert!(g.entity("jose").is_none());
        assert!(g.entity("").is_none());
        assert_consistent(&g);
    }

    #[test]
    fn adding_again_merges_aliases_and_keeps_the_first_creation_time() {
        let mut g = Graph::new();
        g.add_entity(Entity {
            kind: Some("person".into()),
            ..entity("Robert", &["Bob"])
        })
        .unwrap();
        let again = Entity {
            created_at: 0.5,
            classification: 2,
            ..entity("ROBERT", &["bob", "Rob", "robert"])
        };
        g.add_entity(again).unwrap();
        let e = g.entity("rob").unwrap();
        assert_eq!(e.name, "ROBERT");
        assert_eq!(e.aliases, ["Bob", "Rob"]);
        assert_eq!(e.kind.as_deref(), Some("person"));
        assert_eq!((e.classification, e.created_at), (2, 0.5));
        assert_eq!(g.entity_count(), 1);
        assert_consistent(&g);
    }

    #[test]
    fn alias_collisions_name_both_entities_and_change_nothing() {
        let mut g = Graph::new();
        g.add_entity(entity("Robert", &["Bob"])).unwrap();
        let e = g
            .add_entity(entity("Bobby", &["Bobster", "bob"]))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: alias \"bob\" of entity \"Bobby\" already names entity \"Robert\""
        );
        assert!(g.entity("bobster").is_none());
        let e = g.add_entity(entity("BOB", &[])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: entity name \"BOB\" is already an alias of entity \"Robert\""
        );
        let e = g.add_entity(entity("Alice", &["Robert"])).unwrap_err();
        assert_eq!(e.code(), "invalid_argument");
        assert_eq!(g.entity_count(), 1);
        assert_consistent(&g);
    }

    #[test]
    fn merged_aliases_are_limited() {
        let mut g = Graph::new();
        let first: Vec<String> = (0..MAX_ALIASES).map(|i| format!("a{i}")).collect();
        g.add_entity(Entity {
            aliases: first,
            ..Entity::new("x", 0.0)
        })
        .unwrap();
        let e = g.add_entity(entity("x", &["one more"])).unwrap_err();
        assert_eq!(e.code(), "too_large");
        assert!(g.entity("one more").is_none());
    }

    #[test]
    fn relate_creates_missing_entities_and_normalises_the_relation() {
        let mut g = Graph::new();
        let e = g
            .relate("Alice", "Works With", "Bob", None, &ids(&["m1"]), 100.0)
            .unwrap()
            .clone();
        assert_eq!(e.id, "alice|works_with|bob");
        assert_eq!(
            (e.from.as_str(), e.relation.as_str(), e.to.as_str()),
            ("alice", "works_with", "bob")
        );
        assert_eq!(
            (e.strength, e.created_at, e.last_seen_at),
            (DEFAULT_STRENGTH, 100.0, 100.0)
        );
        assert_eq!((e.user_id, e.classification), (None, 0));
        let alice = g.entity("alice").unwrap();
        assert_eq!((alice.name.as_str(), alice.created_at), ("Alice", 100.0));
        assert_eq!(g.entity_count(), 2);
        assert_consistent(&g);
    }

    #[test]
    fn relating_twice_updates_one_edge() {
        let mut g = Graph::new();
        g.relate(
            "alice",
            "worksWith",
            "bob",
            Some(0.3),
            &ids(&["m1", "m2"]),
            100.0,
        )
        .unwrap();
        g.relate(
            "ALICE",
            "works_with",
            "Bob",
            None,
            &ids(&["m2", "m3"]),
            200.0,
        )
        .unwrap();
        let e = g
            .relate("alice", "works with", "bob", Some(0.9), &[], 150.0)
            .unwrap();
        assert_eq!(e.strength, 0.9);
        assert_eq!((e.created_at, e.last_seen_at), (100.0, 200.0));
        assert_eq!(e.memory_ids, ids(&["m1", "m2", "m3"]));
        assert_eq!(g.edge_count(), 1);
        assert_consistent(&g);
    }

    #[test]
    fn relate_resolves_aliases_to_their_entity() {
        let mut g = Graph::new();
        g.add_entity(entity("New York", &["NYC"])).unwrap();
        let e = g
            .relate("Alice", "lives in", "nyc", None, &[], 0.0)
            .unwrap();
        assert_eq!(e.to, "new york");
        assert_eq!(g.entity_count(), 2);
    }

    #[test]
    fn relate_rejects_bad_input_and_changes_nothing() {
        let mut g = Graph::new();
        let bad = [
            g.clone()
                .relate("!", "knows", "bob", None, &[], 0.0)
                .map(|_| ()),
            g.clone()
                .relate("a", "--", "bob", None, &[], 0.0)
                .map(|_| ()),
            g.clone()
                .relate("a", "knows", "b", Some(2.0), &[], 0.0)
                .map(|_| ()),
            g.clone()
                .relate("a", "knows", "b", Some(f64::NAN), &[], 0.0)
                .map(|_| ()),
            g.clone()
                .relate("a", "knows", "b", None, &ids(&[""]), 0.0)
                .map(|_| ()),
            g.relate("a", "knows", "b", None, &[], f64::NAN).map(|_| ()),
        ];
        for r in bad {
            assert_eq!(r.unwrap_err().code(), "invalid_argument");
        }
        assert_eq!((g.entity_count(), g.edge_count()), (0, 0));
    }

    #[test]
    fn self_relations_are_one_edge() {
        let mut g = Graph::new();
        g.relate("Ann", "mentors", "ann", None, &[], 0.0).unwrap();
        assert_eq!(g.entity_count(), 1);
        assert_eq!(g.edges_of("ann").len(), 1);
        assert_consistent(&g);
    }

    #[test]
    fn upsert_edge_stores_scoped_records_and_recomputes_the_id() {
        let mut g = Graph::new();
        let record = Edge {
            id: "stale".into(),
            from: "Alice".into(),
            relation: "ManagerOf".into(),
            to: "Bob".into(),
            strength: 0.7,
            created_at: 5.0,
            last_seen_at: 9.0,
            memory_ids: ids(&["m1", "m1"]),
            user_id: Some("u1".into()),
            classification: 3,
        };
        let e = g.upsert_edge(record.clone()).unwrap();
        assert_eq!(e.id, "alice|manager_of|bob");
        assert_eq!(e.memory_ids, ids(&["m1"]));
        assert_eq!((e.user_id.as_deref(), e.classification), (Some("u1"), 3));
        let e = g
            .upsert_edge(Edge {
                strength: 0.1,
                memory_ids: vec![],
                ..record
            })
            .unwrap();
        assert_eq!((e.strength, e.memory_ids.len()), (0.1, 0));
        assert_eq!(g.edge_count(), 1);
        assert_eq!(g.entity("alice").map(|e| e.created_at), Some(5.0));
        assert_consistent(&g);
    }

    #[test]
    fn unrelate_removes_one_relation_or_all_in_one_direction() {
        let mut g = Graph::new();
        g.relate("a", "knows", "b", None, &[], 0.0).unwrap();
        g.relate("a", "likes", "b", None, &[], 0.0).unwrap();
        g.relate("b", "knows", "a", None, &[], 0.0).unwrap();
        assert_eq!(g.unrelate("A", Some("Knows"), "B"), Ok(1));
        let e = g.unrelate("a", Some("knows"), "b").unwrap_err();
        assert_eq!(e.to_string(), "not_found: no edge \"a\" —[knows]→ \"b\"");
        assert_eq!(g.unrelate("a", None, "b"), Ok(1));
        assert_eq!(
            g.unrelate("a", None, "b").unwrap_err().to_string(),
            "not_found: no edge from \"a\" to \"b\""
        );
        assert_eq!(
            g.unrelate("zed", None, "b").unwrap_err().to_string(),
            "not_found: no entity named \"zed\""
        );
        assert_eq!(
            g.edges().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["b|knows|a"]
        );
        assert_consistent(&g);
    }

    #[test]
    fn removing_an_entity_removes_its_names_and_edges() {
        let mut g = Graph::new();
        g.add_entity(entity("Robert", &["Bob"])).unwrap();
        g.relate("alice", "knows", "bob", None, &[], 0.0).unwrap();
        g.relate("bob", "knows", "carol", None, &[], 0.0).unwrap();
        g.relate("alice", "knows", "carol", None, &[], 0.0).unwrap();
        let removed = g.remove_entity("BOB").unwrap();
        assert_eq!(removed.name, "Robert");
        assert!(g.entity("bob").is_none() && g.entity("robert").is_none());
        assert_eq!(
            g.edges().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["alice|knows|carol"]
        );
        assert_eq!(g.edges_of("alice").len(), 1);
        assert_eq!(g.remove_entity("bob").unwrap_err().code(), "not_found");
        assert_consistent(&g);
        // The alias is free again.
        g.add_entity(entity("Bobby", &["Bob"])).unwrap();
        assert_consistent(&g);
    }

    #[test]
    fn edges_of_lists_both_directions_by_id() {
        let mut g = Graph::new();
        g.relate("b", "knows", "c", None, &[], 0.0).unwrap();
        g.relate("a", "knows", "b", None, &[], 0.0).unwrap();
        g.relate("c", "knows", "d", None, &[], 0.0).unwrap();
        let of_b: Vec<_> = g.edges_of("B").iter().map(|e| e.id.as_str()).collect();
        assert_eq!(of_b, ["a|knows|b", "b|knows|c"]);
        assert!(g.edges_of("nobody").is_empty());
    }

    #[test]
    fn entities_are_listed_by_normalised_name() {
        let mut g = Graph::new();
        for name in ["carol", "Alice", "bob"] {
            g.add_entity(entity(name, &[])).unwrap();
        }
        let names: Vec<_> = g.entities().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["Alice", "bob", "carol"]);
    }
}
