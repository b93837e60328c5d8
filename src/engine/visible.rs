//! What one reader sees of the notes and the graph, and the rule that keeps an edge from
//! naming memories its reader may not see.
//!
//! A reader is a [`Filter`]: a recall's own, or [`Filter::for_scope`] for a listing
//! (`notes({ userId, maxClassification })` and the like). Notes, entities and edges are shown
//! when the filter's [`Scope`](crate::store::Scope) sees them (shared records to everyone,
//! owned ones to their user; nothing above the ceiling).
//!
//! **An edge's `memoryIds`, as a reader sees it, keeps only the ids of memories the reader's
//! filter accepts** ([`Engine::edge_for`]): a visible edge (shared, or the reader's own) that
//! cites another user's memory, a memory classified above the ceiling, or one outside the
//! recall's window, topic, tier or expiry shows the edge without that id; an id that names no
//! stored memory is dropped too, since it may name a memory another user will store. The edge
//! itself stays: dropping it would tell the reader that it cites something hidden. Recall
//! results, and listings for a user or below a ceiling, show edges this way; the listing for
//! the whole store (which persistence and export read) shows the stored ids.

use super::Engine;
use crate::graph::{Edge, Entity};
use crate::notes::Note;
use crate::recall::filter::Filter;

impl Engine {
    /// The notes `filter`'s scope sees, in id order.
    pub fn visible_notes<'a>(&'a self, filter: &'a Filter) -> impl Iterator<Item = &'a Note> {
        self.notes.visible(filter.scope())
    }

    /// The entities `filter`'s scope sees, in normalised-name order.
    pub fn visible_entities<'a>(&'a self, filter: &'a Filter) -> impl Iterator<Item = &'a Entity> {
        self.graph.visible_entities(filter.scope())
    }

    /// The edges `filter`'s scope sees (with both endpoints), in id order, each as
    /// [`Engine::edge_for`] shows it.
    pub fn visible_edges(&self, filter: &Filter) -> Vec<Edge> {
        (self.graph.visible_edges(filter.scope()))
            .map(|e| self.edge_for(e, filter))
            .collect()
    }

    /// `edge` as a reader with `filter` sees it: its `memoryIds` cut to the stored memories
    /// the filter accepts (module doc).
    pub fn edge_for(&self, edge: &Edge, filter: &Filter) -> Edge {
        let memory_ids = edge
            .memory_ids
            .iter()
            .filter(|id| {
                (self.ids.get(id, &self.records))
                    .is_some_and(|doc| self.memory(doc).is_some_and(|m| filter.accepts(doc, m)))
            })
            .cloned()
            .collect();
        Edge {
            memory_ids,
            ..edge.clone()
        }
    }
}
