//! The mention index: which memories name which entities in their `entities` field, and the
//! memories that name any, by creation time. Engram's query pipeline reads it twice: an entity
//! the question names brings back the memories naming it (not only those whose text holds its
//! name), and a pronoun with no session context resolves to the entity named by the reader's
//! newest memory.
//!
//! Keys are the callers' normal forms (the engine passes
//! [`normalize_name`](crate::graph::names::normalize_name)'s), so "Alice" and "alice" are one
//! key. Cost: one entry per distinct name per memory, plus two `(createdAt, doc)` entries per
//! memory naming any entity (its owner's list and the list of all); derived, rebuilt from the
//! records when an engine image is read.

use crate::sort::asc_key;
use crate::store::DocId;

/// A document in a list by time: [`asc_key`] of its `createdAt`, then the document.
pub type TimeKey = (u64, u32);

/// Entity normal form → ascending documents, and per owner the documents naming any entity,
/// by ascending [`TimeKey`] (sorted tables, as the tag index: less wasm than hash maps).
#[derive(Debug, Default)]
pub struct MentionIndex {
    by_name: Vec<(Box<str>, Vec<u32>)>,
    /// Owner (`None`: shared memories) → its documents by time.
    by_owner: Vec<(Option<Box<str>>, Vec<TimeKey>)>,
    /// Every owner's documents by time: for a reader with no `userId`.
    all: Vec<TimeKey>,
}

/// Adds `x` to the sorted `list` (`add`), or removes it; whether the list is now empty.
fn put<T: Ord>(list: &mut Vec<T>, x: T, add: bool) -> bool {
    match (list.binary_search(&x), add) {
        (Err(i), true) => list.insert(i, x),
        (Ok(i), false) => {
            list.remove(i);
        }
        _ => {}
    }
    list.is_empty()
}

impl MentionIndex {
    /// Lists `doc`, created at `created_at` and owned by `owner`, under each of `names`
    /// (normal forms; empty ones are skipped), or takes it out (`add` false; same arguments).
    /// A memory with no name left is not listed by time either.
    pub fn update(
        &mut self,
        doc: DocId,
        created_at: f64,
        owner: Option<&str>,
        names: &[String],
        add: bool,
    ) {
        let mut any = false;
        for name in names.iter().filter(|n| !n.is_empty()) {
            any = true;
            let at = match self.find(name) {
                Ok(at) => at,
                Err(_) if !add => continue,
                Err(at) => {
                    self.by_name.insert(at, (name.as_str().into(), Vec::new()));
                    at
                }
            };
            if put(&mut self.by_name[at].1, doc.0, add) {
                self.by_name.remove(at);
            }
        }
        if !any {
            return;
        }
        let key = (asc_key(created_at), doc.0);
        put(&mut self.all, key, add);
        let at = match self
            .by_owner
            .binary_search_by(|(k, _)| k.as_deref().cmp(&owner))
        {
            Ok(at) => at,
            Err(_) if !add => return,
            Err(at) => {
                self.by_owner
                    .insert(at, (owner.map(Into::into), Vec::new()));
                at
            }
        };
        if put(&mut self.by_owner[at].1, key, add) {
            self.by_owner.remove(at);
        }
    }

    /// Whether no memory names an entity.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// The documents listed under normal form `name`, ascending.
    pub fn naming(&self, name: &str) -> &[u32] {
        self.find(name).map_or(&[], |at| &self.by_name[at].1)
    }

    /// The documents naming any entity, by ascending time (read it from the end for the
    /// newest): those of `owner` only, or every owner's for `None` (a reader with no
    /// `userId`, who sees every memory).
    pub fn by_time(&self, owner: Option<&str>) -> &[TimeKey] {
        match owner {
            None => &self.all,
            Some(_) => (self
                .by_owner
                .binary_search_by(|(k, _)| k.as_deref().cmp(&owner)))
            .map_or(&[], |at| &self.by_owner[at].1),
        }
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.by_name.binary_search_by(|(k, _)| (**k).cmp(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn docs(list: &[TimeKey]) -> Vec<u32> {
        list.iter().map(|&(_, d)| d).collect()
    }

    #[test]
    fn lists_by_name_and_by_owner_in_time_order_and_removes_exactly() {
        let mut m = MentionIndex::default();
        m.update(DocId(0), 10.0, Some("ann"), &names(&["alice", "bob"]), true);
        m.update(DocId(1), 30.0, Some("ann"), &names(&["bob"]), true);
        m.update(DocId(2), 20.0, Some("ben"), &names(&["carol"]), true);
        m.update(DocId(3), 40.0, None, &names(&[""]), true);
        assert_eq!(m.naming("bob"), [0, 1]);
        assert_eq!(m.naming("dave"), [] as [u32; 0]);
        assert_eq!(docs(m.by_time(Some("ann"))), [0, 1]);
        assert_eq!(docs(m.by_time(Some("carl"))), [] as [u32; 0]);
        assert_eq!(docs(m.by_time(None)), [0, 2, 1]);
        m.update(DocId(1), 30.0, Some("ann"), &names(&["bob"]), false);
        assert_eq!(m.naming("bob"), [0]);
        assert_eq!(docs(m.by_time(Some("ann"))), [0]);
        m.update(DocId(2), 20.0, Some("ben"), &names(&["carol"]), false);
        assert_eq!((m.by_name.len(), m.by_owner.len(), m.all.len()), (2, 1, 1));
    }
}
