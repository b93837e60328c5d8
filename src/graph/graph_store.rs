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
//! | `relations` | every relation normal form an edge had (the value is unused) | S8's relation names |
//! | `touched` | while changes are tracked: entity key / edge id → its record before the first change | the store's graph writes |
//!
//! Invariants: every `lookup` value is a key of `entities`; every edge's `from` and `to` are
//! keys of `entities`, and an edge id is in the edge set of exactly its endpoints; `words`
//! counts exactly the `lookup` keys and has no trailing zero; `relations` holds every edge's
//! relation. Listings sort by key, so they are
//! deterministic.
//!
//! Writes validate everything first and change nothing on error. Names passed to any method
//! may be the entity's name or one of its aliases, in any case and with or without diacritics.
//! [`Graph::relate`] and [`Graph::upsert_edge`] create missing endpoint entities implicitly,
//! with the edge's owner and classification (so a private or classified relation publishes no
//! name), no kind or aliases, `createdAt` = the edge's time, display name as spelled in the
//! call.
//!
//! Owners. Names, aliases and relation triples are one namespace per store; each record has an
//! owner (`userId`, or none: shared). A write *as user `u`* (an entity or relation with
//! `userId = u`, a removal given `u`) creates `u`'s records, may use `u`'s and shared entities
//! as endpoints, and changes or removes only `u`'s entities and edges: using another user's
//! entity, or merging into or relating onto a record that is shared or another user's, is
//! `already_exists` (the message names only what the caller passed, never the other record),
//! and removing one is `not_found`, as if it did not exist. A write without `userId` acts for
//! the whole store, as before owners existed: it creates shared records and may change or
//! remove any record, keeping its owner. [`Graph::upsert_edge`] (loading, import) stores the
//! record as given.
//!
//! Tracked changes. A store persists a graph write as the records it changed: between
//! [`Graph::track_changes`] and [`Graph::take_changes`], every entity and edge a write touches
//! is noted with its record as it was before, so the write costs what it touches, not the size
//! of the graph.

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::graph::graph_records::{
    check_finite, check_validity, Edge, Entity, DEFAULT_STRENGTH, MAX_ALIASES,
};
use crate::graph::keyed::Keyed;
use crate::graph::names::{edge_id, normalize_name, normalize_relation, word_count};
use crate::graph::relation::Relation;
use crate::store::Scope;

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
    pub(super) relations: HashMap<String, u32>,
    touched: Option<Touched>,
}

/// The records touched since [`Graph::track_changes`], each as it was before (`None`: absent).
#[derive(Debug, Clone, Default)]
struct Touched {
    entities: Keyed<Option<Entity>>,
    edges: Keyed<Option<Edge>>,
}

/// What the writes since [`Graph::track_changes`] did: the entities and edges they touched,
/// as they were before and as they are now. A record created is only in `after`, a removed one
/// only in `before`; records no write touched are in neither (a touched record may be
/// unchanged).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphChange {
    /// Touched entities that existed before.
    pub entities_before: Vec<Entity>,
    /// Touched edges that existed before.
    pub edges_before: Vec<Edge>,
    /// Touched entities that exist now.
    pub entities_after: Vec<Entity>,
    /// Touched edges that exist now.
    pub edges_after: Vec<Edge>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts noting the records that writes touch (module doc), forgetting any earlier notes.
    pub fn track_changes(&mut self) {
        self.touched = Some(Touched::default());
    }

    /// Stops noting and returns what the writes since [`Graph::track_changes`] did (nothing
    /// when changes were not tracked).
    pub fn take_changes(&mut self) -> GraphChange {
        let mut change = GraphChange::default();
        let Some(touched) = self.touched.take() else {
            return change;
        };
        for (key, before) in touched.entities.iter_sorted() {
            change.entities_before.extend(before.clone());
            let now = self.entities.get(key).map(|n| n.entity.clone());
            change.entities_after.extend(now);
        }
        for (id, before) in touched.edges.iter_sorted() {
            change.edges_before.extend(before.clone());
            change.edges_after.extend(self.edges.get(id).cloned());
        }
        change
    }

    /// Notes entity `key`'s record as it is, before a write changes it (module doc).
    fn note_entity(&mut self, key: &str) {
        if let Some(t) = &mut self.touched {
            if !t.entities.contains_key(key) {
                let before = self.entities.get(key).map(|n| n.entity.clone());
                t.entities.insert(key.to_owned(), before);
            }
        }
    }

    /// Notes edge `id`'s record as it is, before a write changes it (module doc).
    fn note_edge(&mut self, id: &str) {
        if let Some(t) = &mut self.touched {
            if !t.edges.contains_key(id) {
                t.edges.insert(id.to_owned(), self.edges.get(id).cloned());
            }
        }
    }

    /// Adds an entity, or merges it into the entity with the same normalised name: aliases
    /// are unioned (by normal form; aliases equal to the name are dropped), the display name,
    /// `classification` and a given `type` replace the stored ones, the owner stays, and the
    /// earlier `createdAt` is kept. An entity with `userId = u` is a write as `u` (module
    /// doc): it may only merge into `u`'s entity. Errors: validation errors;
    /// `invalid_argument` when the name or an alias already names another entity (the
    /// message names both when the writer may see the other one); `already_exists` when the
    /// name is held by a shared entity or another user's, for a write as a user; `too_large`
    /// when the merged aliases exceed the limit.
    pub fn add_entity(&mut self, entity: Entity) -> Result<()> {
        entity.validate()?;
        let key = normalize_name(&entity.name);
        let writer = entity.user_id.as_deref();
        self.check_names_free(&entity, &key, writer)?;
        if let (Some(user), Some(node)) = (writer, self.entities.get(&key)) {
            let what = format!("entity \"{}\"", entity.name);
            check_owner(node.entity.user_id.as_deref(), user, what)?;
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
        self.note_entity(&key);
        self.store_entity(key, merged);
        Ok(())
    }

    /// Indexes `entity`'s name (`key`, its normal form) and aliases and stores it under
    /// `key`, keeping the edges of the entity it replaces: the end of
    /// [`add_entity`](Self::add_entity) and [`put_entity`](Self::put_entity).
    fn store_entity(&mut self, key: String, entity: Entity) {
        self.index_name(&key, &key);
        for alias in &entity.aliases {
            self.index_name(&normalize_name(alias), &key);
        }
        match self.entities.get_mut(&key) {
            Some(node) => node.entity = entity,
            None => {
                let node = Node {
                    entity,
                    edges: Vec::new(),
                };
                self.entities.insert(key, node);
            }
        }
    }

    /// Removes an entity (by name or alias) and every edge that touches it. With `user_id`,
    /// a removal as that user: only the user's own entity. Errors: `not_found` (also for a
    /// shared or another user's entity, for a removal as a user).
    pub fn remove_entity(&mut self, name: &str, user_id: Option<&str>) -> Result<Entity> {
        let key = self.resolve(name).ok_or_else(|| no_entity(name))?;
        if let (Some(user), Some(node)) = (user_id, self.entities.get(&key)) {
            if node.entity.user_id.as_deref() != Some(user) {
                return Err(no_entity(name));
            }
        }
        self.note_entity(&key);
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

    /// Stores a whole entity record as given (its aliases deduplicated as on
    /// [`add_entity`](Self::add_entity)), replacing the entity with the same normalised name
    /// without merging and keeping its edges: the path for applying an entity record another
    /// handle stored. Owners are not checked. Errors: [`Entity::validate`]'s;
    /// `invalid_argument` when the name or an alias names another entity.
    pub fn put_entity(&mut self, entity: Entity) -> Result<()> {
        entity.validate()?;
        let key = normalize_name(&entity.name);
        let mut entity = entity;
        let aliases = std::mem::take(&mut entity.aliases);
        let entity = merge_aliases(entity, &key, aliases);
        self.check_names_free(&entity, &key, None)?;
        self.note_entity(&key);
        let old_aliases = match self.entities.get(&key) {
            Some(node) => node.entity.aliases.clone(),
            None => Vec::new(),
        };
        for alias in &old_aliases {
            self.unindex_name(&normalize_name(alias));
        }
        self.store_entity(key, entity);
        Ok(())
    }

    /// Removes the entity whose normalised name is `name`'s (not one that has it as an alias)
    /// and every edge that touches it; returns whether there was one. Owners are not
    /// checked: the path for applying an entity removal another handle stored.
    pub fn drop_entity(&mut self, name: &str) -> bool {
        let key = normalize_name(name);
        self.entities.contains_key(&key) && self.remove_entity(&key, None).is_ok()
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

    /// Records `from —[relation]→ to`. A new edge gets the relation's strength (default
    /// [`DEFAULT_STRENGTH`]), `createdAt = lastSeenAt = now`, its memory ids, owner,
    /// classification (default 0) and validity. Relating an existing edge again sets its
    /// strength, classification and each end of its validity when given, moves `lastSeenAt`
    /// to `now` (never backwards) and unions the memory ids; its owner stays. The relation is normalised to lower snake_case;
    /// missing endpoints are created (module doc). A relation with `userId = u` is a write as
    /// `u` (module doc). Errors: `invalid_argument` or `too_large` for a bad name, relation,
    /// strength, memory id or `now`, or a validity that would not end after it starts;
    /// `already_exists` for a write as a user through an entity or onto an edge it may not
    /// change.
    pub fn relate(&mut self, r: &Relation, now: f64) -> Result<&Edge> {
        r.validate()?;
        check_finite("now", now)?;
        let writer = r.user_id.as_deref();
        let from = self.resolve_as(&r.from, writer)?;
        let to = self.resolve_as(&r.to, writer)?;
        let relation = normalize_relation(&r.relation);
        if let (Some(from), Some(to)) = (&from, &to) {
            if let Some(edge) = self.edges.get(&edge_id(from, &relation, to)) {
                if let Some(user) = writer {
                    let what = format!("the relation \"{}\" —[{relation}]→ \"{}\"", r.from, r.to);
                    check_owner(edge.user_id.as_deref(), user, what)?;
                }
                check_validity(
                    r.valid_from.or(edge.valid_from),
                    r.valid_to.or(edge.valid_to),
                )?;
            }
        }
        let classification = r.classification.unwrap_or(0);
        let (id, from_key, to_key) =
            self.place_edge(&r.from, &relation, &r.to, now, writer, classification);
        let edge = self.edges.get_or_insert_with(id, |id| Edge {
            id: id.to_owned(),
            from: from_key,
            relation,
            to: to_key,
            strength: r.strength.unwrap_or(DEFAULT_STRENGTH),
            created_at: now,
            last_seen_at: now,
            memory_ids: Vec::new(),
            user_id: r.user_id.clone(),
            classification,
            valid_from: None,
            valid_to: None,
        });
        if let Some(s) = r.strength {
            edge.strength = s;
        }
        edge.valid_from = r.valid_from.or(edge.valid_from);
        edge.valid_to = r.valid_to.or(edge.valid_to);
        if let Some(c) = r.classification {
            edge.classification = c;
        }
        edge.last_seen_at = edge.last_seen_at.max(now);
        union_into(&mut edge.memory_ids, &r.memory_ids);
        Ok(edge)
    }

    /// Stores a whole edge record, replacing any edge with the same endpoints and relation:
    /// the path for loading persisted edges and importing them. `from` and `to` are resolved
    /// like names (missing endpoints are created at `createdAt`, with the edge's owner and
    /// classification), the relation is normalised, the id recomputed and repeated memory ids
    /// dropped. Owners are not checked: the record is stored as given. Errors:
    /// [`Edge::validate`]'s.
    pub fn upsert_edge(&mut self, edge: Edge) -> Result<&Edge> {
        edge.validate()?;
        let (owner, level, at) = (
            edge.user_id.as_deref(),
            edge.classification,
            edge.created_at,
        );
        let relation = normalize_relation(&edge.relation);
        let (id, from, to) = self.place_edge(&edge.from, &relation, &edge.to, at, owner, level);
        let mut memory_ids = Vec::new();
        union_into(&mut memory_ids, &edge.memory_ids);
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

    /// The endpoints of an edge `from —[relation]→ to` (`relation` normalised) resolved,
    /// missing ones created at `at` for `owner` at `level`; the edge's id linked to both and
    /// its relation counted, its record noted before the write (module doc). Returns the id
    /// and the two endpoints' keys: the part [`relate`](Self::relate) and
    /// [`upsert_edge`](Self::upsert_edge) share.
    fn place_edge(
        &mut self,
        from: &str,
        relation: &str,
        to: &str,
        at: f64,
        owner: Option<&str>,
        level: i64,
    ) -> (String, String, String) {
        let from = self.resolve_or_create(from, at, owner, level);
        let to = self.resolve_or_create(to, at, owner, level);
        let id = edge_id(&from, relation, &to);
        self.link(&id, &from, &to);
        self.count_relation(relation);
        self.note_edge(&id);
        (id, from, to)
    }

    /// Removes the edges `from —[relation]→ to` (every relation when `relation` is `None`)
    /// and returns how many. Direction matters. With `user_id`, a removal as that user: only
    /// the user's edges, between entities the user may use. Errors: `not_found` when an
    /// endpoint is unknown (or another user's, for a removal as a user) or no edge matched.
    pub fn unrelate(
        &mut self,
        from: &str,
        relation: Option<&str>,
        to: &str,
        user_id: Option<&str>,
    ) -> Result<usize> {
        let usable = |key: &String| self.usable_by(key, user_id);
        let from_key = (self.resolve(from).filter(usable)).ok_or_else(|| no_entity(from))?;
        let to_key = (self.resolve(to).filter(usable)).ok_or_else(|| no_entity(to))?;
        let relation = relation.map(normalize_relation);
        let doomed: Vec<String> = self
            .edges_of(from)
            .into_iter()
            .filter(|e| {
                e.from == from_key
                    && e.to == to_key
                    && relation.as_ref().map_or(true, |r| *r == e.relation)
                    && user_id.map_or(true, |u| e.user_id.as_deref() == Some(u))
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

    /// The entities `scope` sees, ordered by normalised name.
    pub fn visible_entities<'a>(&'a self, scope: Scope<'a>) -> impl Iterator<Item = &'a Entity> {
        self.entities()
            .filter(move |e| scope.sees(e.user_id.as_deref(), e.classification))
    }

    /// The edges `scope` sees, with both endpoints (whose names they hold), ordered by id
    /// (with [`Scope::new`], whatever their validity).
    pub fn visible_edges<'a>(&'a self, scope: Scope<'a>) -> impl Iterator<Item = &'a Edge> {
        self.edges().filter(move |e| self.is_visible(e, scope))
    }

    /// Whether `scope` sees the edge and both its endpoints (stage S8's rule), and its
    /// moment keeps the edge's validity ([`Moment`](crate::store::Moment)).
    pub fn is_visible(&self, e: &Edge, scope: Scope<'_>) -> bool {
        scope.sees(e.user_id.as_deref(), e.classification)
            && (scope.moment).keeps(e.created_at, e.valid_from, e.valid_to)
            && [&e.from, &e.to].iter().all(|end| {
                self.entities.get(end).is_some_and(|n| {
                    scope.sees(n.entity.user_id.as_deref(), n.entity.classification)
                })
            })
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

    /// The key of the entity `name` refers to, if any, for a write as `writer` (module doc).
    /// Errors: `already_exists` when it is another user's.
    fn resolve_as(&self, name: &str, writer: Option<&str>) -> Result<Option<String>> {
        match self.resolve(name) {
            Some(key) if !self.usable_by(&key, writer) => Err(Error::AlreadyExists(format!(
                "entity \"{name}\" is another user's"
            ))),
            found => Ok(found),
        }
    }

    /// Whether a write as `writer` may use the entity `key`: its own or a shared one (any,
    /// for a write without a user).
    fn usable_by(&self, key: &str, writer: Option<&str>) -> bool {
        let Some(user) = writer else { return true };
        self.entities
            .get(key)
            .is_some_and(|n| n.entity.user_id.as_deref().map_or(true, |o| o == user))
    }

    /// Resolves a validated name, creating an entity for it when unknown, owned by `owner`
    /// (`None`: shared) at `classification`.
    fn resolve_or_create(
        &mut self,
        name: &str,
        now: f64,
        owner: Option<&str>,
        classification: i64,
    ) -> String {
        if let Some(key) = self.resolve(name) {
            return key;
        }
        let key = normalize_name(name);
        self.index_name(&key, &key);
        self.note_entity(&key);
        let node = Node {
            entity: Entity {
                user_id: owner.map(str::to_owned),
                classification,
                ..Entity::new(name.trim(), now)
            },
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

    /// Fails with `invalid_argument` when `entity`'s name or an alias names an entity other
    /// than `key` (named as [`describe`](Self::describe) shows it to `writer`).
    fn check_names_free(&self, entity: &Entity, key: &str, writer: Option<&str>) -> Result<()> {
        if let Some(other) = self.owner_other_than(key, key) {
            return Err(Error::InvalidArgument(format!(
                "entity name \"{}\" is already an alias of {}",
                entity.name,
                self.describe(other, writer)
            )));
        }
        for alias in &entity.aliases {
            if let Some(other) = self.owner_other_than(&normalize_name(alias), key) {
                return Err(Error::InvalidArgument(format!(
                    "alias \"{alias}\" of entity \"{}\" already names {}",
                    entity.name,
                    self.describe(other, writer)
                )));
            }
        }
        Ok(())
    }

    /// The key of the entity that owns `normal` (a name or alias normal form), when that is
    /// not the entity `key`.
    fn owner_other_than(&self, normal: &str, key: &str) -> Option<&str> {
        self.lookup
            .get(normal)
            .filter(|k| *k != key)
            .map(String::as_str)
    }

    /// How an error shown to `writer` names the entity `key`: by its display name when the
    /// writer may use it, else without a name.
    fn describe(&self, key: &str, writer: Option<&str>) -> String {
        match self.entities.get(key) {
            Some(n) if self.usable_by(key, writer) => format!("entity \"{}\"", n.entity.name),
            _ => "another user's entity".to_owned(),
        }
    }

    /// Records a relation name (never forgotten: a name with no edge left costs an S8 that
    /// names it one scan of the edges, and nothing else).
    fn count_relation(&mut self, relation: &str) {
        if !self.relations.contains_key(relation) {
            self.relations.insert(relation.to_owned(), 0);
        }
    }

    /// Removes an edge and its entries in its endpoints' edge sets.
    /// Removes the edge with this id; returns whether there was one. Owners are not checked:
    /// the path for applying an edge removal another handle stored.
    pub fn remove_edge(&mut self, id: &str) -> bool {
        self.note_edge(id);
        let Some(edge) = self.edges.remove(id) else {
            return false;
        };
        for end in [&edge.from, &edge.to] {
            if let Some(node) = self.entities.get_mut(end) {
                if let Ok(at) = node.edges.binary_search_by(|e| e.as_str().cmp(id)) {
                    node.edges.remove(at);
                }
            }
        }
        true
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
        // The higher level: a merge (an alias added, with no classification given, reads as
        // 0) must not declassify the entity for every reader.
        classification: new.classification.max(stored.classification),
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

/// Checks that a write as `user` may change a record owned by `owner`, which the error calls
/// `what`.
fn check_owner(owner: Option<&str>, user: &str, what: String) -> Result<()> {
    if owner == Some(user) {
        return Ok(());
    }
    Err(Error::AlreadyExists(format!(
        "{what} is shared or another user's"
    )))
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

    #[test]
    fn merging_an_alias_into_a_classified_entity_keeps_its_level() {
        let mut g = Graph::new();
        g.add_entity(Entity {
            classification: 3,
            ..entity("Project Nightfall", &[])
        })
        .unwrap();
        // A merge that gives no level (read as 0) must not show it to every reader.
        g.add_entity(entity("project nightfall", &["PN"])).unwrap();
        let e = g.entity("PN").unwrap();
        assert_eq!((e.classification, e.aliases.len()), (3, 1));
    }

    /// `relate` for the whole store, returning a copy of the edge.
    fn rel(
        g: &mut Graph,
        from: &str,
        relation: &str,
        to: &str,
        strength: Option<f64>,
        memory_ids: &[String],
        now: f64,
    ) -> Result<Edge> {
        let r = Relation {
            strength,
            memory_ids: memory_ids.to_vec(),
            ..Relation::new(from, relation, to)
        };
        g.relate(&r, now).cloned()
    }

    fn ids(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    /// The graph's records: entities by display name, edges by id.
    fn records(g: &Graph) -> (Vec<Entity>, Vec<Edge>) {
        (
            g.entities().cloned().collect(),
            g.edges().cloned().collect(),
        )
    }

    /// One random graph write among six entities: every kind of write, refused ones included.
    fn random_write(g: &mut Graph, rng: &mut crate::test_support::SplitMix64, step: usize) {
        let names = ["Ada", "Bob", "Cy", "Dee", "Eve", "Fay"];
        let a = names[rng.below(6) as usize];
        let b = names[rng.below(6) as usize];
        let relation = ["knows", "likes"][rng.below(2) as usize];
        let _ = match rng.below(9) {
            0..=2 => rel(g, a, relation, b, Some(0.5), &ids(&["m1"]), step as f64).map(drop),
            3 => g.add_entity(entity(a, &[&format!("{b} {step}")])),
            4 => g.remove_entity(a, None).map(drop),
            5 => g.unrelate(a, None, b, None).map(drop),
            6 => g.put_entity(entity(a, &[&format!("{a} {}", step % 3)])),
            7 => {
                g.drop_entity(b);
                Ok(())
            }
            _ => g
                .upsert_edge(Edge {
                    id: String::new(),
                    from: a.into(),
                    relation: relation.into(),
                    to: b.into(),
                    strength: 0.3,
                    created_at: step as f64,
                    last_seen_at: step as f64,
                    memory_ids: Vec::new(),
                    user_id: None,
                    classification: 0,
                    valid_from: None,
                    valid_to: None,
                })
                .map(drop),
        };
    }

    #[test]
    fn tracked_changes_turn_the_records_before_into_the_records_after() {
        for seed in 0..200u64 {
            let mut rng = crate::test_support::SplitMix64(seed);
            let mut g = Graph::new();
            for step in 0..30 {
                let (entities, edges) = records(&g);
                g.track_changes();
                random_write(&mut g, &mut rng, step);
                let change = g.take_changes();
                // Before, less what the change held before, plus what it holds now: after.
                let mut want_entities: Vec<Entity> = entities
                    .into_iter()
                    .filter(|e| !change.entities_before.contains(e))
                    .chain(change.entities_after.iter().cloned())
                    .collect();
                want_entities.sort_by_key(|x| normalize_name(&x.name));
                let mut want_edges: Vec<Edge> = edges
                    .into_iter()
                    .filter(|e| !change.edges_before.contains(e))
                    .chain(change.edges_after.iter().cloned())
                    .collect();
                want_edges.sort_by(|x, y| x.id.cmp(&y.id));
                assert_eq!(
                    records(&g),
                    (want_entities, want_edges),
                    "seed {seed} step {step}"
                );
            }
            assert_eq!(g.take_changes(), GraphChange::default(), "not tracked");
        }
    }

    /// Applies a graph's tracked change to a replica the way a store applies another handle's
    /// graph records (`js/src/records.ts`, `reloadGraph`): entities stored now, then edges,
    /// then the entities removed.
    fn apply_change(replica: &mut Graph, change: &GraphChange) {
        for e in &change.entities_after {
            replica.put_entity(e.clone()).unwrap();
        }
        let now: HashSet<&str> = change.edges_after.iter().map(|e| e.id.as_str()).collect();
        for e in &change.edges_before {
            if !now.contains(e.id.as_str()) {
                assert!(
                    replica.remove_edge(&e.id),
                    "edge {} was in the replica",
                    e.id
                );
            }
        }
        for e in &change.edges_after {
            replica.upsert_edge(e.clone()).unwrap();
        }
        let kept: HashSet<String> = change
            .entities_after
            .iter()
            .map(|e| normalize_name(&e.name))
            .collect();
        for e in &change.entities_before {
            if !kept.contains(&normalize_name(&e.name)) {
                assert!(
                    replica.drop_entity(&e.name),
                    "entity {} was in the replica",
                    e.name
                );
            }
        }
    }

    #[test]
    fn a_replica_applying_only_the_touched_records_stays_equal_to_the_graph() {
        for seed in 0..200u64 {
            let mut rng = crate::test_support::SplitMix64(seed);
            let mut g = Graph::new();
            let mut replica = Graph::new();
            for step in 0..40 {
                g.track_changes();
                random_write(&mut g, &mut rng, step);
                let change = g.take_changes();
                apply_change(&mut replica, &change);
                assert_eq!(records(&replica), records(&g), "seed {seed} step {step}");
                assert_consistent(&replica);
                assert_consistent(&g);
            }
        }
    }

    #[test]
    fn put_entity_replaces_the_record_without_merging_and_keeps_its_edges() {
        let mut g = Graph::new();
        g.add_entity(entity("Robert", &["Bob", "Rob"])).unwrap();
        rel(&mut g, "Robert", "knows", "Ada", None, &[], 1.0).unwrap();
        g.put_entity(entity("robert", &["Bobby", "robert"]))
            .unwrap();
        let stored = g.entity("Bobby").unwrap();
        assert_eq!(
            (stored.name.as_str(), stored.aliases.clone()),
            ("robert", ids(&["Bobby"]))
        );
        assert!(
            g.entity("Bob").is_none() && g.entity("Rob").is_none(),
            "old aliases are gone"
        );
        assert_eq!(g.edges_of("Bobby").len(), 1, "the edge stays");
        let err = g.put_entity(entity("Ada", &["bobby"])).unwrap_err();
        assert!(
            err.to_string().contains("already names entity \"robert\""),
            "{err}"
        );
        assert_eq!(
            g.entity("Ada").unwrap().aliases,
            Vec::<String>::new(),
            "refused: unchanged"
        );
        assert_consistent(&g);
    }

    #[test]
    fn drop_entity_removes_only_the_entity_of_that_name_and_remove_edge_only_that_edge() {
        let mut g = Graph::new();
        g.add_entity(entity("Robert", &["Bob"])).unwrap();
        rel(&mut g, "Robert", "knows", "Ada", None, &[], 1.0).unwrap();
        rel(&mut g, "Robert", "likes", "Ada", None, &[], 1.0).unwrap();
        assert!(!g.drop_entity("Bob"), "an alias is not a name");
        assert!(!g.remove_edge("robert|knows|nobody"));
        assert!(g.remove_edge("robert|knows|ada"));
        assert_eq!(
            g.edges().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["robert|likes|ada"]
        );
        assert!(g.drop_entity("ROBERT"));
        assert_eq!((g.entity_count(), g.edge_count()), (1, 0));
        assert_consistent(&g);
    }

    #[test]
    fn tracked_changes_hold_only_what_a_write_touched() {
        let mut g = Graph::new();
        rel(&mut g, "Ada", "knows", "Bob", None, &[], 1.0).unwrap();
        rel(&mut g, "Cy", "knows", "Dee", None, &[], 1.0).unwrap();
        g.track_changes();
        let old = g.edges().next().cloned().unwrap();
        rel(&mut g, "Ada", "knows", "Bob", Some(0.9), &[], 2.0).unwrap();
        let change = g.take_changes();
        assert!(change.entities_before.is_empty() && change.entities_after.is_empty());
        assert_eq!(change.edges_before, [old]);
        assert_eq!(change.edges_after[0].strength, 0.9);
        g.track_changes();
        g.remove_entity("Cy", None).unwrap();
        let change = g.take_changes();
        assert_eq!(change.entities_before.len(), 1);
        assert_eq!(change.edges_before.len(), 1);
        assert!(change.entities_after.is_empty() && change.edges_after.is_empty());
        g.track_changes();
        assert!(g.relate(&Relation::new("", "knows", "Bob"), 3.0).is_err());
        assert_eq!(g.take_changes(), GraphChange::default(), "a refused write");
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
            assert!(g.relations.contains_key(&e.relation));
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
        let e = rel(
            &mut g,
            "Alice",
            "Works With",
            "Bob",
            None,
            &ids(&["m1"]),
            100.0,
        )
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
        rel(
            &mut g,
            "alice",
            "worksWith",
            "bob",
            Some(0.3),
            &ids(&["m1", "m2"]),
            100.0,
        )
        .unwrap();
        rel(
            &mut g,
            "ALICE",
            "works_with",
            "Bob",
            None,
            &ids(&["m2", "m3"]),
            200.0,
        )
        .unwrap();
        let e = rel(&mut g, "alice", "works with", "bob", Some(0.9), &[], 150.0).unwrap();
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
        let e = rel(&mut g, "Alice", "lives in", "nyc", None, &[], 0.0).unwrap();
        assert_eq!(e.to, "new york");
        assert_eq!(g.entity_count(), 2);
    }

    #[test]
    fn relate_rejects_bad_input_and_changes_nothing() {
        let mut g = Graph::new();
        let bad = [
            rel(&mut g.clone(), "!", "knows", "bob", None, &[], 0.0).map(|_| ()),
            rel(&mut g.clone(), "a", "--", "bob", None, &[], 0.0).map(|_| ()),
            rel(&mut g.clone(), "a", "knows", "b", Some(2.0), &[], 0.0).map(|_| ()),
            rel(&mut g.clone(), "a", "knows", "b", Some(f64::NAN), &[], 0.0).map(|_| ()),
            rel(&mut g.clone(), "a", "knows", "b", None, &ids(&[""]), 0.0).map(|_| ()),
            rel(&mut g, "a", "knows", "b", None, &[], f64::NAN).map(|_| ()),
        ];
        for r in bad {
            assert_eq!(r.unwrap_err().code(), "invalid_argument");
        }
        assert_eq!((g.entity_count(), g.edge_count()), (0, 0));
    }

    #[test]
    fn self_relations_are_one_edge() {
        let mut g = Graph::new();
        rel(&mut g, "Ann", "mentors", "ann", None, &[], 0.0).unwrap();
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
            valid_from: None,
            valid_to: None,
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
        rel(&mut g, "a", "knows", "b", None, &[], 0.0).unwrap();
        rel(&mut g, "a", "likes", "b", None, &[], 0.0).unwrap();
        rel(&mut g, "b", "knows", "a", None, &[], 0.0).unwrap();
        assert_eq!(g.unrelate("A", Some("Knows"), "B", None), Ok(1));
        let e = g.unrelate("a", Some("knows"), "b", None).unwrap_err();
        assert_eq!(e.to_string(), "not_found: no edge \"a\" —[knows]→ \"b\"");
        assert_eq!(g.unrelate("a", None, "b", None), Ok(1));
        assert_eq!(
            g.unrelate("a", None, "b", None).unwrap_err().to_string(),
            "not_found: no edge from \"a\" to \"b\""
        );
        assert_eq!(
            g.unrelate("zed", None, "b", None).unwrap_err().to_string(),
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
        rel(&mut g, "alice", "knows", "bob", None, &[], 0.0).unwrap();
        rel(&mut g, "bob", "knows", "carol", None, &[], 0.0).unwrap();
        rel(&mut g, "alice", "knows", "carol", None, &[], 0.0).unwrap();
        let removed = g.remove_entity("BOB", None).unwrap();
        assert_eq!(removed.name, "Robert");
        assert!(g.entity("bob").is_none() && g.entity("robert").is_none());
        assert_eq!(
            g.edges().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["alice|knows|carol"]
        );
        assert_eq!(g.edges_of("alice").len(), 1);
        assert_eq!(
            g.remove_entity("bob", None).unwrap_err().code(),
            "not_found"
        );
        assert_consistent(&g);
        // The alias is free again.
        g.add_entity(entity("Bobby", &["Bob"])).unwrap();
        assert_consistent(&g);
    }

    #[test]
    fn edges_of_lists_both_directions_by_id() {
        let mut g = Graph::new();
        rel(&mut g, "b", "knows", "c", None, &[], 0.0).unwrap();
        rel(&mut g, "a", "knows", "b", None, &[], 0.0).unwrap();
        rel(&mut g, "c", "knows", "d", None, &[], 0.0).unwrap();
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
    fn as_user(from: &str, relation: &str, to: &str, user: &str) -> Relation {
        Relation {
            user_id: Some(user.into()),
            ..Relation::new(from, relation, to)
        }
    }

    #[test]
    fn a_relation_as_a_user_creates_that_users_edge_and_entities() {
        let mut g = Graph::new();
        let r = Relation {
            classification: Some(2),
            memory_ids: ids(&["m1"]),
            ..as_user("Alice", "dates", "Carol", "u1")
        };
        let e = g.relate(&r, 5.0).unwrap().clone();
        assert_eq!((e.user_id.as_deref(), e.classification), (Some("u1"), 2));
        for name in ["alice", "carol"] {
            let entity = g.entity(name).unwrap();
            assert_eq!(
                (entity.user_id.as_deref(), entity.classification),
                (Some("u1"), 2),
                "{name}: a private, classified relation publishes no name"
            );
        }
        // Relating again as the same user updates the edge; the classification only when given.
        let again = Relation {
            memory_ids: ids(&["m2"]),
            ..as_user("alice", "dates", "carol", "u1")
        };
        let e = g.relate(&again, 6.0).unwrap();
        assert_eq!((e.classification, e.memory_ids.len()), (2, 2));
        assert_consistent(&g);
    }

    #[test]
    fn a_user_may_relate_shared_entities_but_never_another_users() {
        let mut g = Graph::new();
        rel(&mut g, "Alice", "knows", "Bob", None, &[], 0.0).unwrap();
        g.relate(&as_user("alice", "likes", "Bob", "u1"), 1.0)
            .unwrap();
        assert_eq!(g.entity("alice").unwrap().user_id, None, "still shared");
        g.relate(&as_user("Dora", "knows", "Alice", "u2"), 1.0)
            .unwrap();
        let e = g
            .relate(&as_user("Alice", "knows", "dora", "u1"), 2.0)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "already_exists: entity \"dora\" is another user's"
        );
        assert_eq!(g.edge_count(), 3, "nothing changed");
        assert_consistent(&g);
    }

    #[test]
    fn a_user_never_changes_or_reads_another_users_or_a_shared_edge() {
        let mut g = Graph::new();
        rel(&mut g, "a", "knows", "b", None, &ids(&["shared-m"]), 0.0).unwrap();
        let private = Relation {
            memory_ids: ids(&["secret-m"]),
            ..as_user("a", "likes", "b", "u1")
        };
        g.relate(&private, 0.0).unwrap();
        let e = g
            .relate(&as_user("A", "likes", "B", "u2"), 1.0)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "already_exists: the relation \"A\" —[likes]→ \"B\" is shared or another user's"
        );
        let e = g
            .relate(&as_user("a", "knows", "b", "u2"), 1.0)
            .unwrap_err();
        assert_eq!(e.code(), "already_exists");
        assert!(e.to_string().contains("is shared"), "{e}");
        assert_eq!(g.edge("a|likes|b").unwrap().memory_ids, ids(&["secret-m"]));
        assert_eq!(g.edge("a|likes|b").unwrap().last_seen_at, 0.0);
        // The whole store's writes keep the owner.
        rel(&mut g, "a", "likes", "b", None, &ids(&["m3"]), 2.0).unwrap();
        assert_eq!(g.edge("a|likes|b").unwrap().user_id.as_deref(), Some("u1"));
        assert_consistent(&g);
    }

    #[test]
    fn entities_merge_only_with_their_owner_and_errors_never_name_another_users_entity() {
        let mut g = Graph::new();
        let mine = |name: &str, aliases: &[&str], user: &str| Entity {
            user_id: Some(user.into()),
            ..entity(name, aliases)
        };
        g.add_entity(mine("Robert", &["Secret Bob"], "u1")).unwrap();
        g.add_entity(entity("Shared", &[])).unwrap();
        let e = g.add_entity(mine("robert", &[], "u2")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "already_exists: entity \"robert\" is shared or another user's"
        );
        let e = g.add_entity(mine("Shared", &["x"], "u2")).unwrap_err();
        assert_eq!(e.code(), "already_exists");
        let e = g
            .add_entity(mine("Bobby", &["secret bob"], "u2"))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: alias \"secret bob\" of entity \"Bobby\" already names another user's entity"
        );
        let e = g.add_entity(mine("Bobby", &["shared"], "u2")).unwrap_err();
        assert!(
            e.to_string().ends_with("already names entity \"Shared\""),
            "{e}"
        );
        // Its owner merges; the whole store merges and keeps the owner.
        g.add_entity(mine("ROBERT", &["Rob"], "u1")).unwrap();
        g.add_entity(entity("robert", &["Bert"])).unwrap();
        let r = g.entity("rob").unwrap();
        assert_eq!(r.user_id.as_deref(), Some("u1"));
        assert_eq!(r.aliases, ["Secret Bob", "Rob", "Bert"]);
        assert_eq!(g.entity("shared").unwrap().user_id, None);
        assert_consistent(&g);
    }

    #[test]
    fn removals_as_a_user_reach_only_that_users_records() {
        let mut g = Graph::new();
        g.relate(&as_user("Ann", "knows", "Ben", "u1"), 0.0)
            .unwrap();
        rel(&mut g, "Cy", "knows", "Di", None, &[], 0.0).unwrap();
        rel(&mut g, "Cy", "likes", "Di", None, &[], 0.0).unwrap();
        g.relate(&as_user("cy", "dates", "di", "u1"), 0.0).unwrap();
        // Another user's entity is not found, exactly as a missing one.
        let missing = g.remove_entity("nobody", Some("u2")).unwrap_err();
        let hidden = g.remove_entity("ann", Some("u2")).unwrap_err();
        assert_eq!(hidden.code(), "not_found");
        assert_eq!(
            hidden.to_string().replace("ann", "nobody"),
            missing.to_string()
        );
        assert_eq!(
            g.unrelate("ann", None, "ben", Some("u2"))
                .unwrap_err()
                .to_string(),
            "not_found: no entity named \"ann\""
        );
        assert_eq!(
            g.remove_entity("cy", Some("u1")).unwrap_err().to_string(),
            "not_found: no entity named \"cy\"",
            "a shared entity is removed without userId"
        );
        // u1 removes its own edge between shared entities, not the shared ones.
        assert_eq!(g.unrelate("cy", None, "di", Some("u1")), Ok(1));
        assert_eq!(
            g.unrelate("cy", None, "di", Some("u1")).unwrap_err().code(),
            "not_found"
        );
        assert_eq!(g.remove_entity("ann", Some("u1")).unwrap().name, "Ann");
        assert_eq!(
            g.edges().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["cy|knows|di", "cy|likes|di"]
        );
        assert_consistent(&g);
    }

    #[test]
    fn listings_show_what_a_scope_sees() {
        let mut g = Graph::new();
        g.relate(&as_user("Ann", "knows", "Ben", "u1"), 0.0)
            .unwrap();
        rel(&mut g, "Cy", "knows", "Di", None, &[], 0.0).unwrap();
        let classified = Relation {
            classification: Some(3),
            ..Relation::new("Cy", "likes", "Eve")
        };
        g.relate(&classified, 0.0).unwrap();
        let names = |scope| {
            g.visible_entities(scope)
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(",")
        };
        let edges = |scope| {
            g.visible_edges(scope)
                .map(|e| e.id.as_str())
                .collect::<Vec<_>>()
                .join(",")
        };
        assert_eq!(names(Scope::ALL), "Ann,Ben,Cy,Di,Eve");
        assert_eq!(names(Scope::new(Some("u2"), None)), "Cy,Di,Eve");
        assert_eq!(names(Scope::new(Some("u1"), Some(0))), "Ann,Ben,Cy,Di");
        assert_eq!(
            edges(Scope::new(Some("u2"), None)),
            "cy|knows|di,cy|likes|eve"
        );
        assert_eq!(edges(Scope::new(Some("u2"), Some(2))), "cy|knows|di");
        assert_eq!(edges(Scope::ALL), "ann|knows|ben,cy|knows|di,cy|likes|eve");
    }
}
