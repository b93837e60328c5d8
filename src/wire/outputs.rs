//! The records and results the engine gives out, as `Serialize` views of its own types (no
//! copy): serde-wasm-bindgen (`src/wasm.rs`) makes JavaScript objects of them. Field names
//! are camelCase (`textEn`, `createdAt`; a record's `kind` is `type`), written in the order the
//! TypeScript types in `src/wasm.rs` list them; optional fields are left out when unset (not
//! set to `undefined`), so a record has exactly the fields its type declares
//! (`js/test/types.test.mjs`). Numbers cross as `f64`; no count the engine gives out comes
//! near 2^53. Errors cross as [`ErrorOut`] (`EngineErrorJs`).

use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use crate::engine::expand::Origin;
use crate::engine::{HitKind, RecallHit, RecallOutput, StageReport, Stats};
use crate::error::Error;
use crate::graph::graph_store::GraphChange;
use crate::graph::{Edge, Entity};
use crate::notes::Note;
use crate::store::Memory;

/// A memory as the engine gives it out (`MemoryRecord`).
pub struct MemoryOut<'a>(pub &'a Memory);

/// Writes field `key` when `value` is set, else nothing (`skip_field`).
fn opt<S: SerializeStruct, T: Serialize>(
    s: &mut S,
    key: &'static str,
    value: Option<T>,
) -> std::result::Result<(), S::Error> {
    match value {
        Some(v) => s.serialize_field(key, &v),
        None => s.skip_field(key),
    }
}

/// `items` when not empty.
fn some_items<T>(items: &[T]) -> Option<&[T]> {
    (!items.is_empty()).then_some(items)
}

impl Serialize for MemoryOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let m = self.0;
        let mut o = s.serialize_struct("MemoryRecord", 26)?;
        o.serialize_field("id", &m.id)?;
        o.serialize_field("text", &m.text)?;
        opt(&mut o, "textEn", m.text_en.as_deref())?;
        opt(&mut o, "keywords", some_items(&m.keywords))?;
        opt(&mut o, "userId", m.user_id.as_deref())?;
        opt(&mut o, "topic", m.topic.as_deref())?;
        opt(&mut o, "tags", some_items(&m.tags))?;
        opt(&mut o, "type", m.kind.as_deref())?;
        opt(&mut o, "tier", m.tier.as_deref())?;
        o.serialize_field("emotion", &m.emotion)?;
        opt(&mut o, "emotionTags", some_items(&m.emotion_tags))?;
        opt(&mut o, "importance", m.importance)?;
        opt(&mut o, "confidence", m.confidence)?;
        opt(&mut o, "trust", m.trust)?;
        opt(&mut o, "credibility", m.credibility.map(|c| c as f64))?;
        o.serialize_field("relevance", &m.relevance)?;
        o.serialize_field("classification", &(m.classification as f64))?;
        o.serialize_field("createdAt", &m.created_at)?;
        o.serialize_field("updatedAt", &m.updated_at)?;
        opt(&mut o, "validFrom", m.valid_from)?;
        opt(&mut o, "validTo", m.valid_to)?;
        opt(&mut o, "expiresAt", m.expires_at)?;
        opt(&mut o, "entities", some_items(&m.entities))?;
        o.serialize_field("recallCount", &f64::from(m.recall_count))?;
        opt(&mut o, "lastRecalledAt", m.last_recalled_at)?;
        opt(&mut o, "recallTimestamps", some_items(&m.recall_timestamps))?;
        o.end()
    }
}

/// A note as the engine gives it out: `userId` only when set and `classification` only when
/// not 0, so a shared, unclassified note has exactly the fields of a note from before notes
/// had owners.
pub struct NoteOut<'a>(pub &'a Note);

impl Serialize for NoteOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let n = self.0;
        let mut o = s.serialize_struct("NoteRecord", 9)?;
        o.serialize_field("id", &n.id)?;
        o.serialize_field("period", n.period.label())?;
        o.serialize_field("start", &n.start)?;
        o.serialize_field("end", &n.end)?;
        o.serialize_field("text", &n.text)?;
        o.serialize_field("createdAt", &n.created_at)?;
        o.serialize_field("updatedAt", &n.updated_at)?;
        opt(&mut o, "userId", n.user_id.as_deref())?;
        opt(
            &mut o,
            "classification",
            (n.classification != 0).then_some(n.classification as f64),
        )?;
        o.end()
    }
}

/// An entity as the engine gives it out.
pub struct EntityOut<'a>(pub &'a Entity);

impl Serialize for EntityOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let e = self.0;
        let mut o = s.serialize_struct("EntityRecord", 6)?;
        o.serialize_field("name", &e.name)?;
        opt(&mut o, "type", e.kind.as_deref())?;
        opt(&mut o, "aliases", some_items(&e.aliases))?;
        opt(&mut o, "userId", e.user_id.as_deref())?;
        o.serialize_field("classification", &(e.classification as f64))?;
        o.serialize_field("createdAt", &e.created_at)?;
        o.end()
    }
}

/// An edge as the engine gives it out; without a validity, its fields are those of an edge
/// from before edges had one.
pub struct EdgeOut<'a>(pub &'a Edge);

impl Serialize for EdgeOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let e = self.0;
        let mut o = s.serialize_struct("EdgeRecord", 12)?;
        o.serialize_field("id", &e.id)?;
        o.serialize_field("from", &e.from)?;
        o.serialize_field("relation", &e.relation)?;
        o.serialize_field("to", &e.to)?;
        o.serialize_field("strength", &e.strength)?;
        o.serialize_field("createdAt", &e.created_at)?;
        o.serialize_field("lastSeenAt", &e.last_seen_at)?;
        opt(&mut o, "memoryIds", some_items(&e.memory_ids))?;
        opt(&mut o, "userId", e.user_id.as_deref())?;
        o.serialize_field("classification", &(e.classification as f64))?;
        opt(&mut o, "validFrom", e.valid_from)?;
        opt(&mut o, "validTo", e.valid_to)?;
        o.end()
    }
}

/// Some of the graph's records (`GraphRecordsJs`).
struct GraphRecordsOut<'a>(&'a [Entity], &'a [Edge]);

impl Serialize for GraphRecordsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut o = s.serialize_struct("GraphRecordsJs", 2)?;
        o.serialize_field("entities", &ListOut(self.0, EntityOut))?;
        o.serialize_field("edges", &ListOut(self.1, EdgeOut))?;
        o.end()
    }
}

/// The records graph writes touched, before and now (`GraphChangesJs`).
pub struct GraphChangeOut<'a>(pub &'a GraphChange);

impl Serialize for GraphChangeOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let c = self.0;
        let mut o = s.serialize_struct("GraphChangesJs", 2)?;
        o.serialize_field(
            "before",
            &GraphRecordsOut(&c.entities_before, &c.edges_before),
        )?;
        o.serialize_field("after", &GraphRecordsOut(&c.entities_after, &c.edges_after))?;
        o.end()
    }
}

/// Every item of a list, each through the view `view` (`NoteOut`, …).
pub struct ListOut<'a, T, V>(pub &'a [T], pub fn(&'a T) -> V);

impl<'a, T, V: Serialize> Serialize for ListOut<'a, T, V> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for item in self.0 {
            seq.serialize_element(&(self.1)(item))?;
        }
        seq.end()
    }
}

/// The answer to a recall (`RecallOutputJs`).
pub struct OutputOut<'a>(pub &'a RecallOutput);

impl Serialize for OutputOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let out = self.0;
        let mut o = s.serialize_struct("RecallOutputJs", 9)?;
        o.serialize_field("results", &ListOut(&out.results, HitOut))?;
        o.serialize_field("stages", &ListOut(&out.stages, StageOut))?;
        o.serialize_field("count", &(out.results.len() as f64))?;
        opt(
            &mut o,
            "timeWindow",
            out.time_window.as_ref().map(WindowOut),
        )?;
        opt(&mut o, "query", out.query.as_ref().map(QueryOut))?;
        opt(&mut o, "tags", some_items(&out.tags))?;
        o.serialize_field("dedupRemoved", &(out.dedup_removed as f64))?;
        opt(
            &mut o,
            "expansion",
            out.expansion.map(|(seeds, expanded)| ExpansionOut {
                seed_count: seeds as f64,
                expanded_count: expanded as f64,
            }),
        )?;
        opt(
            &mut o,
            "entityExpansion",
            out.entity_expansion
                .as_ref()
                .map(|(entities, expanded)| EntityExpansionOut {
                    entities_found: entities,
                    expanded_count: *expanded as f64,
                }),
        )?;
        o.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExpansionOut {
    seed_count: f64,
    expanded_count: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntityExpansionOut<'a> {
    entities_found: &'a [String],
    expanded_count: f64,
}

struct WindowOut<'a>(&'a crate::engine::output::TimeWindow);

impl Serialize for WindowOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut o = s.serialize_struct("TimeWindow", 3)?;
        opt(&mut o, "start", self.0.start)?;
        opt(&mut o, "end", self.0.end)?;
        o.serialize_field("source", self.0.source)?;
        o.end()
    }
}

struct QueryOut<'a>(&'a crate::engine::output::QueryReport);

impl Serialize for QueryOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let q = self.0;
        let mut o = s.serialize_struct("QueryReport", 5)?;
        o.serialize_field("text", &q.text)?;
        o.serialize_field("searchText", &q.search_text)?;
        opt(
            &mut o,
            "resolvedFrom",
            (!q.resolved_from.is_empty()).then_some(&q.resolved_from),
        )?;
        opt(&mut o, "windowDropped", q.window_dropped.then_some(true))?;
        opt(
            &mut o,
            "pronouns",
            some_items(&q.pronouns).map(|p| ListOut(p, PronounOut)),
        )?;
        o.end()
    }
}

struct PronounOut<'a>(&'a crate::recall::pronoun::Resolution);

impl Serialize for PronounOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let p = self.0;
        let mut o = s.serialize_struct("Pronoun", 3)?;
        o.serialize_field("pronoun", &p.pronoun)?;
        opt(&mut o, "entity", p.entity.as_deref())?;
        opt(&mut o, "ambiguous", some_items(&p.ambiguous))?;
        o.end()
    }
}

struct StageOut<'a>(&'a StageReport);

impl Serialize for StageOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let stage = self.0;
        let mut o = s.serialize_struct("StageReportJs", 5)?;
        o.serialize_field("name", stage.name)?;
        o.serialize_field("hits", &(stage.hits as f64))?;
        o.serialize_field("ms", &stage.ms)?;
        opt(&mut o, "skipped", stage.skipped.then_some(true))?;
        opt(&mut o, "reason", stage.reason.as_deref())?;
        o.end()
    }
}

/// A hit's `components`: its factors as an object, in order (their names are static, so
/// serde-wasm-bindgen makes each name's JavaScript string once).
struct ComponentsOut<'a>(&'a [(&'static str, f64)]);

impl Serialize for ComponentsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut o = s.serialize_struct("Components", self.0.len())?;
        for (name, value) in self.0 {
            o.serialize_field(name, value)?;
        }
        o.end()
    }
}

struct HitOut<'a>(&'a RecallHit);

impl Serialize for HitOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let hit = self.0;
        let mut o = s.serialize_struct("RecallHitJs", 20)?;
        o.serialize_field("id", &hit.id)?;
        let kind = match hit.kind {
            HitKind::Memory => "memory",
            HitKind::Note => "note",
            HitKind::Edge => "edge",
        };
        o.serialize_field("kind", kind)?;
        o.serialize_field("stage", hit.stage)?;
        o.serialize_field("matchType", hit.match_type)?;
        o.serialize_field("score", &hit.score)?;
        o.serialize_field("text", &hit.text)?;
        o.serialize_field("components", &ComponentsOut(&hit.components.0))?;
        opt(&mut o, "memory", hit.memory.as_ref().map(MemoryOut))?;
        opt(&mut o, "metadata", hit.metadata.as_ref().map(MetadataOut))?;
        opt(&mut o, "note", hit.note.as_ref().map(NoteRefOut))?;
        opt(&mut o, "edge", hit.edge.as_ref().map(EdgeOut))?;
        opt(
            &mut o,
            "timeline",
            hit.timeline.as_deref().map(|t| ListOut(t, TimelineOut)),
        )?;
        opt(&mut o, "conflicts", hit.conflicts.as_deref())?;
        opt(&mut o, "warning", hit.warning)?;
        opt(&mut o, "dedupedFrom", hit.deduped_from.as_deref())?;
        opt(&mut o, "duplicateIds", some_items(&hit.duplicate_ids))?;
        match &hit.expanded_from {
            Some(Origin::Relation { id, edge }) => {
                o.serialize_field("expandedFrom", &ExpandedFromOut { id, edge })?
            }
            Some(Origin::Entity(name)) => o.serialize_field("expandedFromEntity", name)?,
            None => {}
        }
        opt(&mut o, "relations", hit.relations.as_deref())?;
        o.end()
    }
}

#[derive(Serialize)]
struct ExpandedFromOut<'a> {
    id: &'a str,
    edge: &'a str,
}

struct MetadataOut<'a>(&'a crate::engine::output::Metadata);

impl Serialize for MetadataOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let m = self.0;
        let mut o = s.serialize_struct("Metadata", 7)?;
        opt(&mut o, "topic", m.topic.as_deref())?;
        opt(&mut o, "type", m.kind.as_deref())?;
        o.serialize_field("tags", &m.tags)?;
        o.serialize_field("emotionTags", &m.emotion_tags)?;
        opt(&mut o, "importance", m.importance)?;
        opt(&mut o, "confidence", m.confidence)?;
        o.serialize_field("createdAt", &m.created_at)?;
        o.end()
    }
}

struct NoteRefOut<'a>(&'a crate::engine::output::NoteRef);

impl Serialize for NoteRefOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let n = self.0;
        let mut o = s.serialize_struct("NoteRef", 4)?;
        o.serialize_field("id", &n.id)?;
        o.serialize_field("period", n.period.label())?;
        o.serialize_field("start", &n.start)?;
        o.serialize_field("paragraph", &f64::from(n.paragraph))?;
        o.end()
    }
}

struct TimelineOut<'a>(&'a crate::engine::output::TimelineItem);

impl Serialize for TimelineOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let t = self.0;
        let mut o = s.serialize_struct("TimelineItem", 3)?;
        o.serialize_field("id", &t.id)?;
        o.serialize_field("createdAt", &t.created_at)?;
        o.serialize_field("date", &t.date)?;
        o.end()
    }
}

/// Store statistics (`EngineStatsJs`).
pub struct StatsOut(pub Stats);

impl Serialize for StatsOut {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut o = s.serialize_struct("EngineStatsJs", 3)?;
        o.serialize_field("memories", &(self.0.memories as f64))?;
        o.serialize_field("porterTerms", &(self.0.porter_terms as f64))?;
        o.serialize_field("fuzzyTerms", &(self.0.fuzzy_terms as f64))?;
        o.end()
    }
}

/// An engine error as it crosses (`EngineErrorJs`): its stable code and the message after it.
#[derive(Debug, Serialize)]
pub struct ErrorOut {
    /// `invalid_argument`, `not_found`, … ([`Error::code`]).
    pub code: &'static str,
    /// The message, without the code.
    pub message: String,
}

impl From<&Error> for ErrorOut {
    fn from(e: &Error) -> Self {
        let text = e.to_string();
        // `strip_prefix`, which cannot panic, rather than `split_once`, whose slicing brings
        // core's char escaping and Unicode tables into the package.
        let message = match text
            .strip_prefix(e.code())
            .and_then(|r| r.strip_prefix(": "))
        {
            Some(rest) => rest.to_string(),
            None => text,
        };
        ErrorOut {
            code: e.code(),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_crosses_as_its_code_and_the_message_after_it() {
        let e = Error::InvalidArgument("emotion must be between -5 and 5, got NaN".into());
        let out = ErrorOut::from(&e);
        assert_eq!(out.code, "invalid_argument");
        assert_eq!(out.message, "emotion must be between -5 and 5, got NaN");
        let e = Error::NotFound("no memory with id \"x\"".into());
        assert_eq!(ErrorOut::from(&e).code, "not_found");
    }
}
