//! The binary form of notes, entities and edges inside the engine image (`engine::image`,
//! persisted by the wrapper): read and written in the tagged encoding of [`super::value`],
//! which is how they crossed the boundary before serde-wasm-bindgen did. Stored images are
//! read back with these, so the bytes must not change.
//!
//! Entities and edges ignore fields they do not know; notes reject them, naming the field.

use crate::error::{Error, Result};
use crate::graph::{Edge, Entity, DEFAULT_STRENGTH};
use crate::notes::{Note, Period};

use super::batch::MAX_LEVEL;
use super::value::{Reader, Writer};

/// (shared) and `classification` to 0, as in notes written before they had owners. Unknown
/// fields are an error.
pub fn note_from(bytes: &[u8]) -> Result<Note> {
    const W: &str = "note";
    let mut r = Reader::new(bytes);
    r.begin_obj(W)?;
    let (mut id, mut period, mut start, mut end, mut text) = (None, None, None, None, None);
    let (mut created_at, mut updated_at) = (None, None);
    let (mut user_id, mut classification) = (None, None);
    while let Some(key) = r.next_key()? {
        match key {
            "id" => id = r.opt_str(W, key)?,
            "period" => {
                period = match r.opt_str(W, key)? {
                    Some(label) => Some(period_from(&label)?),
                    None => None,
                }
            }
            "start" => start = r.opt_num(W, key)?,
            "end" => end = r.opt_num(W, key)?,
            "text" => text = r.opt_str(W, key)?,
            "createdAt" => created_at = r.opt_num(W, key)?,
            "updatedAt" => updated_at = r.opt_num(W, key)?,
            "userId" => user_id = r.opt_str(W, key)?,
            "classification" => classification = r.opt_int(W, key, -MAX_LEVEL, MAX_LEVEL)?,
            _ => return Err(unknown(W, key)),
        }
    }
    r.finish()?;
    let period = required(W, "period", period)?;
    let start = required(W, "start", start)?;
    Ok(Note {
        id: required(W, "id", id)?,
        period,
        start,
        end: end.unwrap_or_else(|| period.default_end(start)),
        text: required(W, "text", text)?,
        created_at: required(W, "createdAt", created_at)?,
        updated_at: required(W, "updatedAt", updated_at)?,
        user_id,
        classification: classification.unwrap_or(0),
    })
}

/// `value`, or the error that names the missing field `what.key`.
fn required<T>(what: &str, key: &str, value: Option<T>) -> Result<T> {
    value.ok_or_else(|| Error::InvalidArgument(format!("{what} is missing field `{key}`")))
}

/// The error for a field a shape does not know.
fn unknown(what: &str, key: &str) -> Error {
    Error::InvalidArgument(format!("unknown field `{key}` in {what}"))
}

fn period_from(label: &str) -> Result<Period> {
    [Period::Daily, Period::Weekly, Period::Quarterly]
        .into_iter()
        .find(|p| p.label() == label)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "note.period must be \"daily\", \"weekly\" or \"quarterly\", got \"{label}\""
            ))
        })
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

/// Reads an entity (fields it does not know are skipped).
pub fn entity_from(bytes: &[u8]) -> Result<Entity> {
    const W: &str = "entity";
    let mut r = Reader::new(bytes);
    r.begin_obj(W)?;
    let mut name = None;
    let mut e = Entity::default();
    while let Some(key) = r.next_key()? {
        match key {
            "name" => name = r.opt_str(W, key)?,
            "type" => e.kind = r.opt_str(W, key)?,
            "aliases" => e.aliases = r.strs(W, key)?,
            "userId" => e.user_id = r.opt_str(W, key)?,
            "classification" => {
                e.classification = r.opt_int(W, key, -MAX_LEVEL, MAX_LEVEL)?.unwrap_or(0)
            }
            "createdAt" => e.created_at = r.opt_num(W, key)?.unwrap_or(0.0),
            _ => r.skip()?,
        }
    }
    r.finish()?;
    e.name = required(W, "name", name)?;
    Ok(e)
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

/// Reads an edge (`id` may be left out: the graph derives it; fields it does not know are
/// skipped).
pub fn edge_from(bytes: &[u8]) -> Result<Edge> {
    const W: &str = "edge";
    let mut r = Reader::new(bytes);
    r.begin_obj(W)?;
    let (mut id, mut from, mut relation, mut to, mut strength) = (None, None, None, None, None);
    let (mut created_at, mut last_seen_at, mut memory_ids) = (None, None, Vec::new());
    let (mut user_id, mut classification) = (None, None);
    let (mut valid_from, mut valid_to) = (None, None);
    while let Some(key) = r.next_key()? {
        match key {
            "id" => id = r.opt_str(W, key)?,
            "from" => from = r.opt_str(W, key)?,
            "relation" => relation = r.opt_str(W, key)?,
            "to" => to = r.opt_str(W, key)?,
            "strength" => strength = r.opt_num(W, key)?,
            "createdAt" => created_at = r.opt_num(W, key)?,
            "lastSeenAt" => last_seen_at = r.opt_num(W, key)?,
            "memoryIds" => memory_ids = r.strs(W, key)?,
            "userId" => user_id = r.opt_str(W, key)?,
            "classification" => classification = r.opt_int(W, key, -MAX_LEVEL, MAX_LEVEL)?,
            "validFrom" => valid_from = r.opt_num(W, key)?,
            "validTo" => valid_to = r.opt_num(W, key)?,
            _ => r.skip()?,
        }
    }
    r.finish()?;
    Ok(Edge {
        id: id.unwrap_or_default(),
        from: required(W, "from", from)?,
        relation: required(W, "relation", relation)?,
        to: required(W, "to", to)?,
        strength: strength.unwrap_or(DEFAULT_STRENGTH),
        created_at: required(W, "createdAt", created_at)?,
        last_seen_at: required(W, "lastSeenAt", last_seen_at)?,
        memory_ids,
        user_id,
        classification: classification.unwrap_or(0),
        valid_from,
        valid_to,
    })
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
