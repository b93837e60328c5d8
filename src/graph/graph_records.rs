//! The graph's persisted records, [`Entity`] and [`Edge`], and their validation.
//!
//! Times are milliseconds since the Unix epoch as `f64`. Both records cross the boundary in
//! the wire format of [`crate::wire`] with camelCase field names (`userId`, `lastSeenAt`, …;
//! an entity's `kind` is `type` on the wire); optional fields may be left out. An edge's `from` and `to` hold the normal forms of
//! its endpoints' names (see [`names`](super::names)) and its `id` is derived from them, so
//! [`Graph`](super::Graph) recomputes both when it stores an edge.
//!
//! Visibility (stage S8 and the listings): [`Scope::sees`](crate::store::Scope::sees). A record
//! with `userId` set is seen only by its user (and by reads for no user); a record without one
//! is shared. A record classified above the reader's `maxClassification` is hidden. An edge
//! may hold for a time (`validFrom`, `validTo`, Memoria's bi-temporal facts): a recall keeps
//! it by the memories' rule ([`Moment`](crate::store::Moment)).

pub(crate) use crate::error::check_finite;
use crate::error::{check_unit, Error, Num, Result};
use crate::graph::names::{normalize_name, word_count};
// A name-sized field is checked as memories check theirs (one copy of the message).
use crate::store::records::check_name as check_bytes;

/// Strength of an edge created without one.
pub const DEFAULT_STRENGTH: f64 = 0.5;
/// Most words in an entity name or alias; it bounds the span the S8 query scan tries at each
/// position (the longest names of people, places and works fit easily).
pub const MAX_NAME_WORDS: usize = 16;
/// Most aliases of one entity.
pub const MAX_ALIASES: usize = 64;

/// A named thing: a person, place, project, … (DESIGN.md, Glossary: entity).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Entity {
    /// Display name. Its normal form identifies the entity.
    pub name: String,
    /// Kind: person, place, project, … (free string).
    pub kind: Option<String>,
    /// Other names that find it; normal forms are unique across the graph.
    pub aliases: Vec<String>,
    /// Owner; `None` means shared.
    pub user_id: Option<String>,
    /// Classification level.
    pub classification: i64,
    /// Creation time (ms).
    pub created_at: f64,
}

impl Entity {
    /// A shared, unclassified entity with no kind or aliases.
    pub fn new(name: impl Into<String>, created_at: f64) -> Self {
        Entity {
            name: name.into(),
            created_at,
            ..Entity::default()
        }
    }

    /// Checks the record: a name and aliases with letters or digits, at most
    /// [`MAX_NAME_WORDS`] words and 1 KiB each; at most [`MAX_ALIASES`] aliases; a finite
    /// `createdAt`. Errors: `invalid_argument` or `too_large`, naming the value.
    pub fn validate(&self) -> Result<()> {
        check_name("entity name", &self.name)?;
        if self.aliases.len() > MAX_ALIASES {
            return Err(Error::TooLarge(format!(
                "entity \"{}\" has {} aliases, more than {MAX_ALIASES}",
                self.name,
                self.aliases.len()
            )));
        }
        for alias in &self.aliases {
            check_name("alias", alias)?;
        }
        check_optional_bytes("type", self.kind.as_deref())?;
        check_optional_bytes("userId", self.user_id.as_deref())?;
        check_finite("createdAt", self.created_at)
    }
}

/// A relation between two entities: `from —[relation]→ to`.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    /// `from|relation|to`, derived (see [`edge_id`](super::names::edge_id)).
    pub id: String,
    /// Normal form of the source entity's name.
    pub from: String,
    /// Relation in lower snake_case, for example `works_with`.
    pub relation: String,
    /// Normal form of the target entity's name.
    pub to: String,
    /// Strength in 0..=1.
    pub strength: f64,
    /// When the relation was first recorded (ms).
    pub created_at: f64,
    /// When it was last recorded (ms).
    pub last_seen_at: f64,
    /// Memories that state it.
    pub memory_ids: Vec<String>,
    /// Owner; `None` means shared.
    pub user_id: Option<String>,
    /// Classification level.
    pub classification: i64,
    /// When the relation started to hold (event time, ms); `None`: always did.
    pub valid_from: Option<f64>,
    /// When it stopped holding (ms, exclusive); `None`: it still holds.
    pub valid_to: Option<f64>,
}

impl Edge {
    /// Checks the record: endpoint names and relation with letters or digits, strength in
    /// 0..=1, finite times, `validFrom < validTo`, non-empty memory ids, sizes within 1 KiB.
    /// Errors: `invalid_argument` or `too_large`, naming the value.
    pub fn validate(&self) -> Result<()> {
        check_name("entity name", &self.from)?;
        check_name("entity name", &self.to)?;
        check_relation(&self.relation)?;
        check_strength(self.strength)?;
        check_finite("createdAt", self.created_at)?;
        check_finite("lastSeenAt", self.last_seen_at)?;
        check_validity(self.valid_from, self.valid_to)?;
        check_memory_ids(&self.memory_ids)?;
        check_optional_bytes("userId", self.user_id.as_deref())
    }
}

/// Checks a validity: finite ends, `validFrom < validTo` when both are given. Errors:
/// `invalid_argument`, naming the values.
pub(crate) fn check_validity(valid_from: Option<f64>, valid_to: Option<f64>) -> Result<()> {
    for (field, t) in [("validFrom", valid_from), ("validTo", valid_to)] {
        t.map_or(Ok(()), |t| check_finite(field, t))?;
    }
    match (valid_from, valid_to) {
        (Some(from), Some(to)) if to <= from => Err(Error::InvalidArgument(format!(
            "validTo ({}) must be after validFrom ({})",
            Num(to),
            Num(from)
        ))),
        _ => Ok(()),
    }
}

/// Checks an entity name or alias (`field` names it in the message).
pub(crate) fn check_name(field: &str, name: &str) -> Result<()> {
    check_bytes(field, name)?;
    let words = word_count(&normalize_name(name));
    if words == 0 {
        return Err(Error::InvalidArgument(format!(
            "{field} \"{name}\" has no letters or digits"
        )));
    }
    if words > MAX_NAME_WORDS {
        return Err(Error::InvalidArgument(format!(
            "{field} \"{name}\" has {words} words, more than {MAX_NAME_WORDS}"
        )));
    }
    Ok(())
}

/// Checks a relation as given (before normalisation).
pub(crate) fn check_relation(relation: &str) -> Result<()> {
    check_bytes("relation", relation)?;
    if normalize_name(relation).is_empty() {
        return Err(Error::InvalidArgument(format!(
            "relation \"{relation}\" has no letters or digits"
        )));
    }
    Ok(())
}

pub(crate) fn check_strength(strength: f64) -> Result<()> {
    check_unit("strength", strength)
}

pub(crate) fn check_memory_ids(ids: &[String]) -> Result<()> {
    for id in ids {
        if id.is_empty() {
            return Err(Error::InvalidArgument("memory id must not be empty".into()));
        }
        check_bytes("memory id", id)?;
    }
    Ok(())
}

pub(crate) fn check_optional_bytes(field: &str, value: Option<&str>) -> Result<()> {
    value.map_or(Ok(()), |v| check_bytes(field, v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::records::MAX_NAME_BYTES;

    fn edge() -> Edge {
        Edge {
            id: String::new(),
            from: "alice".into(),
            relation: "works_with".into(),
            to: "bob".into(),
            strength: DEFAULT_STRENGTH,
            created_at: 1.0,
            last_seen_at: 2.0,
            memory_ids: vec!["m1".into()],
            user_id: None,
            classification: 0,
            valid_from: None,
            valid_to: None,
        }
    }

    #[test]
    fn accepts_plain_records() {
        let mut e = Entity::new("New York", 0.0);
        e.aliases = vec!["NYC".into(), "the Big Apple".into()];
        assert_eq!(e.validate(), Ok(()));
        assert_eq!(edge().validate(), Ok(()));
    }

    #[test]
    fn rejects_names_without_letters_or_digits() {
        let e = Entity::new("—!", 0.0).validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid_argument: entity name \"—!\" has no letters or digits"
        );
        let mut e = Entity::new("ok", 0.0);
        e.aliases = vec![" ".into()];
        assert_eq!(e.validate().unwrap_err().code(), "invalid_argument");
    }

    #[test]
    fn rejects_overlong_names_and_too_many_aliases() {
        let long = ["w"; MAX_NAME_WORDS + 1].join(" ");
        assert_eq!(
            Entity::new(long, 0.0).validate().unwrap_err().code(),
            "invalid_argument"
        );
        let big = "x".repeat(MAX_NAME_BYTES + 1);
        assert_eq!(
            Entity::new(big, 0.0).validate().unwrap_err().code(),
            "too_large"
        );
        let mut e = Entity::new("ok", 0.0);
        e.aliases = (0..=MAX_ALIASES).map(|i| format!("a{i}")).collect();
        assert_eq!(e.validate().unwrap_err().code(), "too_large");
    }

    #[test]
    fn rejects_bad_numbers_on_edges() {
        for strength in [-0.1, 1.5, f64::NAN] {
            let e = Edge { strength, ..edge() };
            assert_eq!(
                e.validate().unwrap_err().code(),
                "invalid_argument",
                "{strength}"
            );
        }
        let e = Edge {
            last_seen_at: f64::INFINITY,
            ..edge()
        };
        assert_eq!(
            e.validate().unwrap_err().to_string(),
            "invalid_argument: lastSeenAt must be a finite number, got inf"
        );
        let e = Edge {
            memory_ids: vec![String::new()],
            ..edge()
        };
        assert_eq!(e.validate().unwrap_err().code(), "invalid_argument");
        let e = Edge {
            relation: "->".into(),
            ..edge()
        };
        assert_eq!(e.validate().unwrap_err().code(), "invalid_argument");
    }

    #[test]
    fn a_validity_must_end_after_it_starts() {
        let valid = |from: Option<f64>, to: Option<f64>| Edge {
            valid_from: from,
            valid_to: to,
            ..edge()
        };
        for (from, to) in [
            (None, None),
            (Some(1.0), None),
            (None, Some(1.0)),
            (Some(1.0), Some(2.0)),
        ] {
            assert_eq!(valid(from, to).validate(), Ok(()), "{from:?} {to:?}");
        }
        assert_eq!(
            valid(Some(2.0), Some(2.0))
                .validate()
                .unwrap_err()
                .to_string(),
            "invalid_argument: validTo (2) must be after validFrom (2)"
        );
        assert_eq!(
            valid(Some(3.0), Some(2.0)).validate().unwrap_err().code(),
            "invalid_argument"
        );
        assert_eq!(
            valid(Some(f64::NAN), None)
                .validate()
                .unwrap_err()
                .to_string(),
            "invalid_argument: validFrom must be a finite number, got NaN"
        );
    }
}
