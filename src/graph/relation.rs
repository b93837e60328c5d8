//! [`Relation`]: what [`Graph::relate`](super::Graph::relate) records, as the caller spells it
//! (names and relation before normalisation), and who records it.

use crate::error::Result;
use crate::graph::graph_records::{
    check_memory_ids, check_name, check_optional_bytes, check_relation, check_strength,
    check_validity,
};

/// `from —[relation]→ to`, recorded by [`Graph::relate`](super::Graph::relate).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Relation {
    /// The source entity's name or alias.
    pub from: String,
    /// The relation in any spelling (`worksWith`, `works with`, …).
    pub relation: String,
    /// The target entity's name or alias.
    pub to: String,
    /// Strength in 0..=1 (`None`: [`DEFAULT_STRENGTH`](super::DEFAULT_STRENGTH) for a new
    /// edge, unchanged for an existing one).
    pub strength: Option<f64>,
    /// Memories that state it (added to the edge's).
    pub memory_ids: Vec<String>,
    /// Who records it: `Some(u)` writes as user `u` (the edge and the entities it creates are
    /// `u`'s, and it may only use `u`'s and shared entities and change `u`'s edges); `None`
    /// writes for the whole store (new records are shared).
    pub user_id: Option<String>,
    /// Classification of a new edge and of the entities it creates (`None`: 0); for an
    /// existing edge, its new classification (`None`: unchanged).
    pub classification: Option<i64>,
    /// When the relation started to hold (ms); for an existing edge, given ends replace its
    /// own (`None`: unchanged).
    pub valid_from: Option<f64>,
    /// When it stopped holding (ms, exclusive; `None`: unchanged, open for a new edge).
    pub valid_to: Option<f64>,
}

impl Relation {
    /// A shared, unclassified relation with no strength or memory ids.
    pub fn new(
        from: impl Into<String>,
        relation: impl Into<String>,
        to: impl Into<String>,
    ) -> Self {
        Relation {
            from: from.into(),
            relation: relation.into(),
            to: to.into(),
            ..Relation::default()
        }
    }

    /// Checks names, relation, strength, validity and memory ids. Errors: `invalid_argument`
    /// or `too_large`, naming the value.
    pub fn validate(&self) -> Result<()> {
        check_name("entity name", &self.from)?;
        check_name("entity name", &self.to)?;
        check_relation(&self.relation)?;
        self.strength.map_or(Ok(()), check_strength)?;
        check_validity(self.valid_from, self.valid_to)?;
        check_memory_ids(&self.memory_ids)?;
        check_optional_bytes("userId", self.user_id.as_deref())
    }
}
