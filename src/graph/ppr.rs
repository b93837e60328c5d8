//! Stage S8 of the evidence-weighing rankings: Personalized PageRank over the entity graph
//! (Memoria's graph signal). abmind's first-match lookup ([`Graph::search`]) stays the `abmind`
//! ranking's S8.
//!
//! Algorithm ([`Graph::personalized`]):
//!
//! 1. **Seeds**: every entity the query names that the reader sees ([`Graph::mentioned`]'s scan:
//!    leftmost, then longest, each once), then the first visible entity each of the
//!    `entityHints` names, read the same way (a hint naming none is ignored), at most
//!    [`MAX_SEEDS`]. A query that names none grounds on
//!    its relation words instead: the endpoints of the [`MAX_SEEDS`] best visible edges whose
//!    relation the query names (the caller decides, reading `acquired_by` as "acquired by").
//!    The restart distribution `s` shares the seeds' mass in inverse proportion to their total
//!    strength, as IDF weighs words: an entity with many edges (a person the store mentions
//!    everywhere) says less about the question than a rarer one beside it, and would
//!    otherwise spread the walk over its whole neighbourhood. A seed with no edge to walk gets
//!    none. With one seed, `s` is that seed.
//! 2. **PageRank** from `s` over the visible edges, walked both ways, an edge's strength its
//!    weight: `p = α·s + (1 − α)·p·W`, where `W[u][v] = strength(u, v) / Σ strength(u, ·)`
//!    and α = [`RESTART`]. It is computed by forward push (Andersen, Chung & Lang, "Local graph
//!    partitioning using PageRank vectors", FOCS 2006): every entity holds an estimate `p` and
//!    a residual `r` (the seeds start with `s`); pushing `u` moves `α·r[u]` into `p[u]` and
//!    spreads `(1 − α)·r[u]` over its neighbours by weight. Entities are pushed first in,
//!    first out while some residual is at least [`TOLERANCE`] per edge the entity has
//!    (`r[u] ≥ TOLERANCE·deg(u)`, ACL's test; the seeds are pushed first whatever their
//!    share). That is the convergence test: no estimate is then off by more than the
//!    residual mass left, and a push of `u` settles at least `α·TOLERANCE·deg(u)` of it, so
//!    the pushes visit at most `1 / (α·TOLERANCE)` ≈ 66,700 edges in all, whatever the
//!    graph's size; [`MAX_WORK`] caps the visits all the same (the iteration cap). The walk
//!    reads only the edges and entities the reader sees, so it never reaches another user's.
//!    An entity with no visible edge keeps its residual.
//! 3. **Edges**: the edges of the top-ranked entities. Entities rank seeds first, alike (so
//!    two named entities share the answer, strongest edges first), then by mass (a neighbour
//!    of a seed with one edge may gather more mass than the seed). The
//!    visible edges of the entities the walk pushed (those that gathered enough residual)
//!    each take the rank of their better-ranked end and its mass
//!    (`ppr`); best first, then as [`Graph::search`] orders one entity's edges (strength, last
//!    seen, id), at most `max`. So the seeds' own edges come first, strongest first, as
//!    abmind's S8 gives them, then their neighbours' (two hops from a seed), and so on.
//!    Summing the ends' mass instead ranked a seed's edges by their other end, which cut its
//!    strong edges to small entities (the labelled set's "where does Chloe live?" lost its
//!    `lives_in` edge: entity nDCG@10 0.356 → 0.333).
//!
//! Cost: the pushes touch only the seeds' neighbourhood (at most 66,700 edge visits, each a
//! lookup of the edge and its other end) plus a sort of the edges of the entities pushed.
//! A tolerance per entity instead of per edge pushed every neighbour of a hub and sorted a
//! hundred thousand edges: 325 ms a recall at 10,000 entities and 100,000 edges. `bench/ppr-cost.mjs` measures it at 10,000 entities and
//! 100,000 edges (DESIGN.md, "Stage S8").

use crate::graph::graph_records::Edge;
use crate::graph::graph_store::Graph;
use crate::graph::search::{rank, EdgeHit, GraphMatch};
use crate::sort;
use crate::store::Scope;

/// α, the probability that the walk jumps back to the seeds at each step: PageRank's classic
/// damping of 0.85 (Brin & Page, 1998), so a walk takes about 1/α ≈ 7 steps, far enough for
/// two hops to carry mass while the seeds' own neighbourhood keeps most of it.
pub const RESTART: f64 = 0.15;
/// The residual per edge below which an entity is not pushed (the convergence tolerance):
/// a neighbour of a seed with 20 edges gets about 0.04, well above it, and its own
/// neighbours' share (0.002) is pushed only where several paths meet.
pub const TOLERANCE: f64 = 1e-4;
/// Most edge visits of one run (the iteration cap), above the `1 / (α·TOLERANCE)` ≈ 66,700
/// the tolerance allows, so it stops a run only if that reasoning is wrong.
pub const MAX_WORK: usize = 100_000;
/// Most seeds, named and hinted (and most relation-named edges grounding a query).
pub const MAX_SEEDS: usize = 16;

/// An entity's visible edges with the other end's position, and their total strength.
type Neighbours<'g> = (f64, Vec<(&'g Edge, u32)>);

impl Graph {
    /// Stage S8 by Personalized PageRank (module doc): the edges of the entities the walk from
    /// the entities `query` and `hints` name (or, naming none, from the endpoints of the edges
    /// whose relation `names_relation` accepts) ranks highest, at most `max`.
    ///
    /// ```
    /// use recallkit::graph::{Graph, Relation};
    /// use recallkit::store::Scope;
    /// let mut g = Graph::new();
    /// g.relate(&Relation::new("Tuesday project", "depends on", "Auth service"), 0.0).unwrap();
    /// g.relate(&Relation::new("Auth service", "depends on", "Postgres"), 0.0).unwrap();
    /// let found = g.personalized("what does my tuesday project depend on?", &[], &|_| false, Scope::ALL, 5);
    /// let texts: Vec<_> = found.hits.iter().map(|h| h.text.as_str()).collect();
    /// assert_eq!(texts, ["Tuesday project —[depends_on]→ Auth service", "Auth service —[depends_on]→ Postgres"]);
    /// // The project's own edge first (it is the seed), with the project's mass.
    /// assert!(found.hits.iter().all(|h| h.ppr > 0.0));
    /// ```
    pub fn personalized(
        &self,
        query: &str,
        hints: &[String],
        names_relation: &dyn Fn(&str) -> bool,
        scope: Scope<'_>,
        max: usize,
    ) -> GraphMatch {
        let mut seeds = self.mentions(query, scope, MAX_SEEDS);
        for hint in hints {
            for key in self.mentions(hint, scope, 1) {
                if !seeds.contains(&key) {
                    seeds.push(key);
                }
            }
        }
        seeds.truncate(MAX_SEEDS);
        let named: Vec<String> = (seeds.iter())
            .filter_map(|k| self.entities.get(k).map(|n| n.entity.name.clone()))
            .collect();
        if seeds.is_empty() {
            seeds = self.relation_seeds(names_relation, scope);
        }
        let seeds: Vec<usize> = seeds
            .iter()
            .filter_map(|k| self.entities.position(k))
            .collect();
        let mut edges = self.walk(&seeds, scope);
        // Best entity first; `rank` ends on the unique id, so a repeat is next to its twin.
        sort::sort_by(&mut edges, |a, b| {
            b.0.total_cmp(&a.0).then_with(|| rank(a.2, b.2))
        });
        edges.dedup_by(|a, b| a.2.id == b.2.id);
        let hits = (edges.into_iter().take(max))
            .map(|(_, ppr, e)| EdgeHit { ppr, ..self.hit(e) })
            .collect();
        GraphMatch {
            entity: named.first().cloned(),
            seeds: named,
            hits,
        }
    }

    /// The endpoints of the best [`MAX_SEEDS`] visible edges whose relation `names_relation`
    /// accepts (ordered as [`Graph::search`] orders edges).
    fn relation_seeds(&self, names_relation: &dyn Fn(&str) -> bool, scope: Scope<'_>) -> Vec<&str> {
        let named: Vec<&String> = self
            .relations
            .keys()
            .filter(|r| names_relation(r))
            .collect();
        let mut edges: Vec<&Edge> = Vec::new();
        if !named.is_empty() {
            for e in self.edges.values() {
                if named.contains(&&e.relation) && self.is_visible(e, scope) {
                    edges.push(e);
                }
            }
        }
        sort::sort_by(&mut edges, |a, b| rank(a, b));
        let mut seeds: Vec<&str> = Vec::new();
        for e in edges.into_iter().take(MAX_SEEDS) {
            for end in [e.from.as_str(), e.to.as_str()] {
                if !seeds.contains(&end) {
                    seeds.push(end);
                }
            }
        }
        seeds
    }

    /// Personalized PageRank from `seeds` (entity positions) by forward push (module
    /// doc): the visible edges of the entities it pushed, each with the rank (seeds first,
    /// then by mass) and the mass of its better-ranked end.
    fn walk(&self, seeds: &[usize], scope: Scope<'_>) -> Vec<(f64, f64, &Edge)> {
        let (mass, adjacency) = self.push(seeds, scope);
        // Seeds rank alike, above every other entity (a mass is at most 1).
        let rank = |i: usize| if seeds.contains(&i) { 2.0 } else { mass[i] };
        let mut out = Vec::new();
        for (u, next) in adjacency.iter().enumerate() {
            for &(e, v) in next.iter().flat_map(|n| &n.1) {
                // Symmetric in its ends, so the positions of entities never show.
                let key = |i: usize| (rank(i), mass[i]);
                let best = if key(u) >= key(v as usize) {
                    u
                } else {
                    v as usize
                };
                out.push((rank(best), mass[best], e));
            }
        }
        out
    }

    /// The push itself: every entity's mass by position, and the neighbours of those pushed.
    fn push(&self, seeds: &[usize], scope: Scope<'_>) -> (Vec<f64>, Vec<Option<Neighbours<'_>>>) {
        let n = self.entities.len();
        let mut mass = vec![0.0; n];
        let mut residual = vec![0.0; n];
        let mut adjacency: Vec<Option<Neighbours<'_>>> = Vec::new();
        adjacency.resize_with(n, || None);
        let mut queue: Vec<u32> = Vec::new();
        // Each seed's share of the restart ∝ 1 / its total strength (module doc).
        let mut sum = 0.0;
        for &s in seeds {
            let (total, _) = adjacency[s].get_or_insert_with(|| self.neighbours(s, scope));
            if *total > 0.0 {
                residual[s] = 1.0 / *total;
                sum += residual[s];
                queue.push(s as u32);
            }
        }
        for &s in &queue {
            residual[s as usize] /= sum;
        }
        let (mut head, mut work) = (0, 0);
        while let Some(&u) = queue.get(head) {
            head += 1;
            let u = u as usize;
            let (total, next) = adjacency[u].get_or_insert_with(|| self.neighbours(u, scope));
            if *total <= 0.0 || work + next.len() > MAX_WORK {
                continue;
            }
            work += next.len();
            let r = std::mem::take(&mut residual[u]);
            mass[u] += RESTART * r;
            let spread = (1.0 - RESTART) * r / *total;
            for &(e, v) in next.iter() {
                let threshold = TOLERANCE * self.entities.at(v as usize).1.edges.len() as f64;
                let rv = &mut residual[v as usize];
                let queued = *rv >= threshold;
                *rv += spread * e.strength;
                if !queued && *rv >= threshold {
                    queue.push(v);
                }
            }
        }
        // What no push settled stays where it is: an entity's residual is mass it holds.
        for (m, r) in mass.iter_mut().zip(residual) {
            *m += r;
        }
        (mass, adjacency)
    }

    /// The visible edges of the entity at position `u` with the other end's position, and
    /// their total strength; an edge of strength 0 is not walked.
    fn neighbours(&self, u: usize, scope: Scope<'_>) -> Neighbours<'_> {
        let (key, node) = self.entities.at(u);
        let mut total = 0.0;
        let mut out = Vec::new();
        for id in &node.edges {
            let Some(e) = self.edges.get(id) else {
                continue;
            };
            let other = if e.from == key { &e.to } else { &e.from };
            if let Some(v) = self.entities.position(other) {
                if e.strength > 0.0 && self.is_visible(e, scope) {
                    total += e.strength;
                    out.push((e, v as u32));
                }
            }
        }
        (total, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Relation;
    use crate::store::Moment;
    use crate::test_support::SplitMix64;

    fn relate(g: &mut Graph, from: &str, relation: &str, to: &str, strength: f64) {
        let r = Relation {
            strength: Some(strength),
            ..Relation::new(from, relation, to)
        };
        g.relate(&r, 0.0).unwrap();
    }

    fn none(_: &str) -> bool {
        false
    }

    fn texts(m: &GraphMatch) -> Vec<&str> {
        m.hits.iter().map(|h| h.text.as_str()).collect()
    }

    /// The Tuesday project's graph: its dependency chain and the people around it.
    fn project() -> Graph {
        let mut g = Graph::new();
        relate(&mut g, "Tuesday project", "depends on", "Auth service", 0.9);
        relate(&mut g, "Auth service", "depends on", "Postgres", 0.9);
        relate(&mut g, "Tuesday project", "owned by", "Alice", 0.5);
        relate(&mut g, "Alice", "lives in", "Berlin", 0.5);
        relate(&mut g, "Berlin", "part of", "Germany", 0.5);
        g
    }

    #[test]
    fn the_dependency_two_hops_away_comes_with_the_direct_edge() {
        let g = project();
        let m = g.personalized(
            "what does my tuesday project depend on?",
            &[],
            &none,
            Scope::ALL,
            3,
        );
        assert_eq!(m.seeds, ["Tuesday project"]);
        assert_eq!(
            texts(&m),
            [
                "Tuesday project —[depends_on]→ Auth service",
                "Tuesday project —[owned_by]→ Alice",
                "Auth service —[depends_on]→ Postgres",
            ]
        );
        assert!(m.hits.windows(2).all(|w| w[0].ppr >= w[1].ppr));
        // abmind's lookup, for comparison, stops at the project's own edges.
        let first = g.search("what does my tuesday project depend on?", Scope::ALL, 3);
        assert!(!texts(&first).contains(&"Auth service —[depends_on]→ Postgres"));
    }

    #[test]
    fn every_named_entity_and_hint_is_a_seed_and_unknown_hints_are_ignored() {
        let g = project();
        let m = g.personalized("postgres and germany", &[], &none, Scope::ALL, 10);
        assert_eq!(m.seeds, ["Postgres", "Germany"]);
        assert_eq!(m.entity.as_deref(), Some("Postgres"));
        let found = texts(&m);
        assert!(
            found.contains(&"Auth service —[depends_on]→ Postgres"),
            "{found:?}"
        );
        assert!(found.contains(&"Berlin —[part_of]→ Germany"), "{found:?}");
        // abmind's lookup reads only the first.
        let first = g.search("postgres and germany", Scope::ALL, 10);
        assert_eq!(texts(&first), ["Auth service —[depends_on]→ Postgres"]);
        let hinted = g.personalized(
            "what is new?",
            &["germany".into(), "Nobody".into()],
            &none,
            Scope::ALL,
            1,
        );
        assert_eq!(hinted.seeds, ["Germany"]);
        assert_eq!(texts(&hinted), ["Berlin —[part_of]→ Germany"]);
        assert_eq!(
            g.personalized("what is new?", &[], &none, Scope::ALL, 5),
            GraphMatch::default()
        );
        assert!(g
            .personalized("postgres", &[], &none, Scope::ALL, 0)
            .hits
            .is_empty());
    }

    #[test]
    fn a_query_naming_no_entity_grounds_on_the_relations_it_names() {
        let mut g = project();
        relate(&mut g, "Acme", "acquired by", "Globex", 0.8);
        let acquired = |r: &str| r == "acquired_by";
        let m = g.personalized("who was acquired?", &[], &acquired, Scope::ALL, 1);
        assert_eq!(texts(&m), ["Acme —[acquired_by]→ Globex"]);
        assert!(m.seeds.is_empty() && m.entity.is_none());
        // A named entity wins over relation words.
        let m = g.personalized("was alice acquired?", &[], &acquired, Scope::ALL, 1);
        assert_eq!(m.seeds, ["Alice"]);
    }

    #[test]
    fn pagerank_never_walks_into_what_the_reader_may_not_see() {
        let mut g = project();
        // u1's private edges from a shared entity to u1's entity.
        for (relation, to) in [("mentors", "Secret Sam"), ("dates", "Secret Sue")] {
            let r = Relation {
                user_id: Some("u1".into()),
                strength: Some(1.0),
                ..Relation::new("Alice", relation, to)
            };
            g.relate(&r, 0.0).unwrap();
        }
        let u2 = Scope::new(Some("u2"), None);
        let (mass, _) = g.push(&[g.entities.position("alice").unwrap()], u2);
        for (i, m) in mass.iter().enumerate() {
            let key = g.entities.at(i).0;
            assert!(!key.starts_with("secret") || *m == 0.0, "{key} {m}");
        }
        let m = g.personalized("alice", &["Secret Sam".into()], &none, u2, 20);
        assert!(
            m.hits.iter().all(|h| !h.text.contains("Secret")),
            "{:?}",
            texts(&m)
        );
        assert_eq!(m.seeds, ["Alice"]);
        let u1 = g.personalized("alice", &[], &none, Scope::new(Some("u1"), None), 20);
        assert!(texts(&u1).contains(&"Alice —[mentors]→ Secret Sam"));
    }

    #[test]
    fn an_edge_outside_the_readers_moment_is_neither_walked_nor_returned() {
        let mut g = Graph::new();
        let lived = Relation {
            valid_to: Some(2021.0),
            ..Relation::new("Stefan", "lives in", "Berlin")
        };
        g.relate(&lived, 2015.0).unwrap();
        let lives = Relation {
            valid_from: Some(2021.0),
            ..Relation::new("Stefan", "lives in", "Stockholm")
        };
        g.relate(&lives, 2021.0).unwrap();
        let at = |as_of: Option<f64>, include_invalid: bool| Scope {
            moment: Moment {
                as_of,
                include_invalid,
                now: 2024.0,
            },
            ..Scope::ALL
        };
        let read = |scope| {
            texts(&g.personalized("where does stefan live?", &[], &none, scope, 5)).join("; ")
        };
        assert_eq!(read(at(Some(2020.0), false)), "Stefan —[lives_in]→ Berlin");
        assert_eq!(read(at(None, false)), "Stefan —[lives_in]→ Stockholm");
        assert_eq!(read(at(None, true)).matches("Stefan").count(), 2);
        assert_eq!(read(at(Some(2014.0), false)), "", "not recorded yet");
    }

    /// Dense power iteration of the module doc's formula, the oracle of the push: an entity
    /// with no edge to walk keeps its mass.
    fn power_iteration(g: &Graph, seeds: &[usize]) -> Vec<f64> {
        let n = g.entity_count();
        let mut restart = vec![0.0; n];
        for &s in seeds {
            restart[s] = 1.0 / g.neighbours(s, Scope::ALL).0;
        }
        let sum: f64 = restart.iter().sum();
        for r in &mut restart {
            *r /= sum;
        }
        let mut p = restart.clone();
        for _ in 0..500 {
            let mut next: Vec<f64> = restart.iter().map(|s| RESTART * s).collect();
            for (u, &pu) in p.iter().enumerate() {
                let (total, out) = g.neighbours(u, Scope::ALL);
                if total <= 0.0 {
                    next[u] += (1.0 - RESTART) * pu;
                }
                for (e, v) in out {
                    next[v as usize] += (1.0 - RESTART) * pu * e.strength / total;
                }
            }
            p = next;
        }
        p
    }

    #[test]
    fn the_push_agrees_with_power_iteration() {
        for seed in 0..40u64 {
            let mut rng = SplitMix64(seed);
            let mut g = Graph::new();
            for _ in 0..30 {
                let (a, b) = (rng.below(12), rng.below(12));
                let strength = (1 + rng.below(10)) as f64 / 10.0;
                relate(
                    &mut g,
                    &format!("e{a}"),
                    "links",
                    &format!("e{b}"),
                    strength,
                );
            }
            let seeds: Vec<usize> = ["e0", "e1"]
                .iter()
                .filter_map(|s| g.entities.position(s))
                .collect();
            if seeds.is_empty() {
                continue;
            }
            let (pushed, _) = g.push(&seeds, Scope::ALL);
            let exact = power_iteration(&g, &seeds);
            // Every residual left is below TOLERANCE per edge, and it moves at most its own mass.
            let bound = TOLERANCE * 2.0 * g.edge_count() as f64 * 2.0;
            for (i, (got, p)) in pushed.iter().zip(&exact).enumerate() {
                assert!(
                    (got - p).abs() <= bound,
                    "seed {seed}: entity {i} {got} vs {p}"
                );
            }
            assert_close!(pushed.iter().sum::<f64>(), 1.0, 1e-9);
        }
    }
}
