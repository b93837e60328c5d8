//! The notes, entities and edges of the engine image (`engine::image`, persisted by the
//! wrapper), in the tagged encoding of [`super::value`]: written as objects, read back as
//! [`Value`](super::Value) trees by the readers the boundary uses ([`super::inputs`]), so a
//! stored record is checked as a new one is. This is how they crossed the boundary before
//! serde-wasm-bindgen did, and stored images hold these bytes, so they must not change.

use crate::error::Result;
use crate::graph::{Edge, Entity};
use crate::notes::Note;

use super::inputs;
use super::value::{decode, Writer};

/// Reads a note ([`inputs::note_from`]: unknown fields are an error).
pub fn note_from(bytes: &[u8]) -> Result<Note> {
    inputs::note_from(decode(bytes)?)
}

/// Reads an entity ([`inputs::entity_from`]: fields it does not know are skipped).
pub fn entity_from(bytes: &[u8]) -> Result<Entity> {
    inputs::entity_from(decode(bytes)?)
}

/// Reads an edge ([`inputs::edge_from`]: `id` may be left out; fields it does not know are
/// skipped).
pub fn edge_from(bytes: &[u8]) -> Result<Edge> {
    inputs::edge_from(decode(bytes)?)
}

/// Writes a note; `userId` only when set and `classification` only when not 0, so a shared,
/// unclassified note is written exactly as before notes had owners (module doc).
pub fn write_note(w: &mut Writer, n: &Note) {
    w.begin_obj();
    w.field_str("id", &n.id);
    w.field_str("period", n.period.label());
    w.field_num("start", n.start);
    w.field_num("end", n.end);
    w.field_str("text", &n.text);
    w.field_num("createdAt", n.created_at);
    w.field_num("updatedAt", n.updated_at);
    w.opt_str("userId", n.user_id.as_deref());
    if n.classification != 0 {
        w.field_num("classification", n.classification as f64);
    }
    w.end();
}

/// Writes an entity.
pub fn write_entity(w: &mut Writer, e: &Entity) {
    w.begin_obj();
    w.field_str("name", &e.name);
    w.opt_str("type", e.kind.as_deref());
    w.opt_strs("aliases", &e.aliases);
    w.opt_str("userId", e.user_id.as_deref());
    w.field_num("classification", e.classification as f64);
    w.field_num("createdAt", e.created_at);
    w.end();
}

/// Writes an edge.
pub fn write_edge(w: &mut Writer, e: &Edge) {
    w.begin_obj();
    w.field_str("id", &e.id);
    w.field_str("from", &e.from);
    w.field_str("relation", &e.relation);
    w.field_str("to", &e.to);
    w.field_num("strength", e.strength);
    w.field_num("createdAt", e.created_at);
    w.field_num("lastSeenAt", e.last_seen_at);
    w.opt_strs("memoryIds", &e.memory_ids);
    w.opt_str("userId", e.user_id.as_deref());
    w.field_num("classification", e.classification as f64);
    w.opt_num("validFrom", e.valid_from);
    w.opt_num("validTo", e.valid_to);
    w.end();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notes::Period;

    fn raw(write: impl FnOnce(&mut Writer)) -> Vec<u8> {
        let mut w = Writer::new();
        write(&mut w);
        w.into_bytes()
    }

    #[test]
    fn note_entity_and_edge_round_trip() {
        let note = Note::new("n1", Period::Weekly, 0.0, "# week\n\ntext", 5.0);
        assert_eq!(note_from(&raw(|w| write_note(w, &note))).unwrap(), note);
        let entity = Entity {
            name: "Ana Lima".into(),
            kind: Some("person".into()),
            aliases: vec!["Ana".into()],
            user_id: None,
            classification: 1,
            created_at: 9.0,
        };
        assert_eq!(
            entity_from(&raw(|w| write_entity(w, &entity))).unwrap(),
            entity
        );
        let edge = Edge {
            id: "ana|knows|bo".into(),
            from: "ana".into(),
            relation: "knows".into(),
            to: "bo".into(),
            strength: 0.75,
            created_at: 1.0,
            last_seen_at: 2.0,
            memory_ids: vec!["m1".into()],
            user_id: Some("u".into()),
            classification: 0,
            valid_from: None,
            valid_to: None,
        };
        assert_eq!(edge_from(&raw(|w| write_edge(w, &edge))).unwrap(), edge);
        let valid = Edge {
            valid_from: Some(-5.0),
            valid_to: Some(1e12),
            ..edge.clone()
        };
        assert_eq!(edge_from(&raw(|w| write_edge(w, &valid))).unwrap(), valid);
        // An edge without a validity is written as before edges had one.
        assert!(!String::from_utf8_lossy(&raw(|w| write_edge(w, &edge))).contains("valid"));
    }

    #[test]
    fn an_owned_classified_note_round_trips_and_a_shared_one_is_written_as_before() {
        let owned = Note {
            user_id: Some("u1".into()),
            classification: 3,
            ..Note::new("n1", Period::Daily, 0.0, "text", 5.0)
        };
        assert_eq!(note_from(&raw(|w| write_note(w, &owned))).unwrap(), owned);
        // A note written before notes had owners: exactly these fields, read as shared.
        let old = raw(|w| {
            w.begin_obj();
            w.field_str("id", "n1");
            w.field_str("period", "daily");
            w.field_num("start", 0.0);
            w.field_num("end", 86_400_000.0);
            w.field_str("text", "text");
            w.field_num("createdAt", 5.0);
            w.field_num("updatedAt", 5.0);
            w.end();
        });
        let shared = Note::new("n1", Period::Daily, 0.0, "text", 5.0);
        assert_eq!(note_from(&old).unwrap(), shared);
        assert_eq!(raw(|w| write_note(w, &shared)), old);
    }

    #[test]
    fn a_note_without_end_gets_the_period_default_and_rejects_unknown_fields() {
        let value = raw(|w| {
            w.begin_obj();
            w.field_str("id", "n1");
            w.field_str("period", "daily");
            w.field_num("start", 0.0);
            w.field_str("text", "x");
            w.field_num("createdAt", 1.0);
            w.field_num("updatedAt", 1.0);
            w.end();
        });
        assert_eq!(
            note_from(&value).unwrap().end,
            Period::Daily.default_end(0.0)
        );
        let value = raw(|w| {
            w.begin_obj();
            w.field_str("period", "monthly");
            w.end();
        });
        assert_eq!(note_from(&value).unwrap_err().code(), "invalid_argument");
    }
}
