//! The entity graph: named entities with aliases, directed labelled edges between them, and
//! stage S8, which answers a query with the relations of the first entity it mentions
//! (abmind's recall pipeline, `docs/design-sources.md` §1) for the `abmind` ranking, and with
//! the edges Personalized PageRank ranks from every entity it names for the others (Memoria's
//! design).
//!
//! | file | role |
//! |---|---|
//! | [`keyed`] | [`keyed::Keyed`]: records by key in key order, shared with the notes |
//! | [`names`] | normal forms of names and relations; edge ids |
//! | [`graph_records`] | the persisted [`Entity`] and [`Edge`] records and their validation |
//! | [`relation`] | [`Relation`]: what [`Graph::relate`] records, and who records it |
//! | [`graph_store`] | [`Graph`]: entities, edges, the name index, and the writes |
//! | [`search`] | stage S8 for `abmind`: [`Graph::search`], [`GraphMatch`], [`EdgeHit`] |
//! | [`ppr`] | stage S8 for the other rankings: [`Graph::personalized`], Personalized PageRank (Memoria's design) |
//!
//! ```
//! use recallkit::graph::{Entity, Graph, Relation};
//! use recallkit::store::Scope;
//! let mut g = Graph::new();
//! let mut ny = Entity::new("New York", 0.0);
//! ny.aliases = vec!["NYC".into()];
//! g.add_entity(ny).unwrap();
//! let lives_in = Relation {
//!     memory_ids: vec!["m1".into()],
//!     ..Relation::new("Alice", "lives_in", "nyc")
//! };
//! g.relate(&lives_in, 10.0).unwrap();
//! let found = g.search("What happened in New York?", Scope::ALL, 5);
//! assert_eq!(found.hits[0].text, "Alice —[lives_in]→ New York");
//! ```

pub mod graph_records;
pub mod graph_store;
pub mod keyed;
pub mod names;
pub mod ppr;
pub mod relation;
pub mod search;

pub use graph_records::{Edge, Entity, DEFAULT_STRENGTH, MAX_ALIASES, MAX_NAME_WORDS};
pub use graph_store::Graph;
pub use relation::Relation;
pub use search::{EdgeHit, GraphMatch, S8_LABEL, S8_SCORE};
