//! What the memories' `entities` field answers during a recall ([`MentionIndex`]), for
//! Engram's query pipeline:
//!
//! - **Pronouns** ([`crate::recall::pronoun`]): with `context.entities`, a pronoun stands for
//!   the most recent entity of a fitting type in that list (which is ordered, so never
//!   ambiguous); without it, for the entity named by the newest memory the reader sees that
//!   names a fitting one (at most [`MAX_WALK`] memories are read, newest first). Two fitting
//!   entities named by that memory, or by memories created at the same instant, have no
//!   recency order between them: the pronoun stays, reported as ambiguous. "A person" is an
//!   entity whose type is `person`: the session's `type`, or the graph entity of that name
//!   the reader sees. The reader's user, classification ceiling, expiry and validity apply;
//!   its time window, topic and tags do not (a pronoun refers to the conversation, not to the
//!   memories asked for).
//! - **Entity → memories**: an entity the query names (a name some memory's `entities` holds,
//!   compared in normal form) brings the memories naming it in `entities` that the recall's
//!   filter accepts (the [`MAX_PER_ENTITY`] newest), not only those whose text holds its name.
//!   Each gets graph evidence: the share of the query's content words the name covers (as an
//!   edge citing the memory with strength 1), times the share of the name's words its text
//!   lacks (a name the text holds is the lexical stage's evidence already: counted twice, it
//!   lifted every memory of a common entity over better matches, measured on the labelled set),
//!   fused by the ranking model like any graph evidence, and the component `entityMention`;
//!   one no other stage found joins with stage label `S8:entity` (`matchType` `entity`).
//!   The `abmind` ranking keeps its own pipeline and does not read this.
//!
//! [`MentionIndex`]: crate::index::mentions::MentionIndex

use super::recall::RecallOptions;
use super::stages::{Pool, StageQuery};
use super::Engine;
use crate::rank::evidence;
use crate::recall::filter::Filter;
use crate::recall::pronoun::{self, is_person, Fit, Referent, Resolution};
use crate::store::DocId;

/// Memories read, newest first, to resolve a pronoun without session context.
pub const MAX_WALK: usize = 100;
/// Memories one entity of the query brings, its newest.
pub const MAX_PER_ENTITY: usize = 50;
/// Entities of the query read.
const MAX_QUERY_ENTITIES: usize = 5;
/// Longest entity name looked up in the mention index, in words.
const MAX_NAME_WORDS: usize = 4;
/// The stage label of a memory only the entity → memories link found.
pub const ENTITY_MENTION_STAGE: &str = "S8:entity";

impl Engine {
    /// `text` with its pronouns resolved (module doc), and what became of each; `None` when
    /// no pronoun had a candidate.
    #[inline(never)]
    pub(super) fn resolve_pronouns(
        &self,
        text: &str,
        options: &RecallOptions,
    ) -> Option<(String, Vec<Resolution>)> {
        let session = (options.context.as_ref())
            .map(|c| c.entities.as_slice())
            .filter(|e| !e.is_empty());
        pronoun::resolve(text, |fit| match session {
            Some(list) => (list.iter().rev())
                .find(|(_, kind)| fit == Fit::Any || is_person(kind.as_deref()))
                .map_or(Referent::Nobody, |(name, _)| Referent::One(name.clone())),
            None => self.referent_in_memories(fit, &options.filter),
        })
    }

    /// The entity the reader's newest memories name that fits (module doc).
    #[inline(never)]
    fn referent_in_memories(&self, fit: Fit, filter: &Filter) -> Referent {
        let reader = Filter {
            user_id: filter.user_id.clone(),
            max_classification: filter.max_classification,
            include_expired: filter.include_expired,
            as_of: filter.as_of,
            include_invalid: filter.include_invalid,
            now: filter.now,
            ..Filter::default()
        };
        let scope = filter.scope();
        let mut names: Vec<String> = Vec::new();
        let mut found_at = None;
        let newest = self.mentions.by_time(filter.user_id.as_deref());
        for &(created_at, doc) in newest.iter().rev().take(MAX_WALK) {
            if found_at.is_some_and(|t| t != created_at) {
                break;
            }
            let Some(m) = self
                .memory(DocId(doc))
                .filter(|m| reader.accepts(DocId(doc), m))
            else {
                continue;
            };
            for name in m.entities() {
                let entity = (self.graph.entity(name))
                    .filter(|e| scope.sees(e.user_id.as_deref(), e.classification));
                if fit == Fit::Person && !is_person(entity.and_then(|e| e.kind.as_deref())) {
                    continue;
                }
                let shown = entity.map_or(name.as_str(), |e| e.name.as_str());
                if !names.iter().any(|n| n == shown) {
                    names.push(shown.to_owned());
                }
            }
            if !names.is_empty() {
                found_at = Some(created_at);
            }
        }
        match names.len() {
            0 => Referent::Nobody,
            1 => Referent::One(names.remove(0)),
            _ => Referent::Ambiguous(names),
        }
    }

    /// The normal forms of the entities `query` names that some memory names in its
    /// `entities` (spans of up to [`MAX_NAME_WORDS`] of its words; at each word the longest),
    /// at most [`MAX_QUERY_ENTITIES`]. Nothing is read when no memory names an entity.
    fn query_mentions(&self, query: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if self.mentions.is_empty() {
            return out;
        }
        let tokens = crate::text::tokens(query);
        let mut key = String::new();
        for start in 0..tokens.len() {
            if out.len() == MAX_QUERY_ENTITIES {
                break;
            }
            // The longest name starting at this word that memories hold.
            key.clear();
            let mut found = None;
            for token in tokens[start..].iter().take(MAX_NAME_WORDS) {
                if !key.is_empty() {
                    key.push(' ');
                }
                key.push_str(token);
                if !self.mentions.naming(&key).is_empty() {
                    found = Some(key.clone());
                }
            }
            out.extend(found.filter(|k| !out.contains(k)));
        }
        out
    }

    /// Entity → memories (module doc): graph evidence for the memories naming an entity of
    /// the query in their `entities`, for the part of the name their text does not hold.
    /// Returns how many memories got it.
    pub(super) fn fused_mentions(
        &self,
        q: &StageQuery,
        terms: &[String],
        pool: &mut Pool,
    ) -> usize {
        let mut count = 0;
        for key in self.query_mentions(q.text) {
            let coverage = evidence::coverage(terms, &key);
            let name_terms = evidence::query_terms(&key);
            let docs = self.mentions.naming(&key);
            let mut taken = 0;
            for &doc in docs.iter().rev() {
                let doc = DocId(doc);
                let Some(m) = self.memory(doc).filter(|m| q.filter.accepts(doc, m)) else {
                    continue;
                };
                if taken == MAX_PER_ENTITY {
                    break;
                }
                taken += 1;
                // A name the text holds is the lexical stage's evidence already.
                let graph = coverage * (1.0 - evidence::coverage(&name_terms, m.text_en()));
                if graph <= 0.0 {
                    continue;
                }
                let Some(i) = pool.slot(self, doc, ENTITY_MENTION_STAGE, graph) else {
                    continue;
                };
                let c = &mut pool.cands[i];
                if c.evidence.graph < graph {
                    c.evidence.graph = graph;
                }
                if c.components.iter().all(|(n, _)| *n != "entityMention") {
                    c.components.push(("entityMention", graph));
                    count += 1;
                }
            }
        }
        count
    }
}
