//! The tag index: for every folded tag prefix of whole `:`-separated segments, the sorted
//! documents holding a tag equal to it or continuing it (AutoMem's precomputed
//! `tag_prefixes`). A memory tagged `slack:channel:general` is listed under `slack`,
//! `slack:channel` and `slack:channel:general`.
//!
//! This is what keeps a tag filter from scanning: a recall with no query to find memories
//! by (trending, or filters only) reads the posting lists of its tags
//! ([`TagIndex::candidates`]: their union for `tagMode: "any"`, their intersection for
//! `"all"`), so a filter on a tag held by 1 % of 100,000 memories reads those 1,000 entries;
//! a recall with a query reads the same lists once (`Filter::tag_docs`), so that what its
//! stages find through their own indexes outside them is refused without its tags being
//! decoded, and checks the tags ([`crate::recall::tags`]) only on the rest. An exact match (`tagMatch: "exact"`) reads the
//! same lists (a superset) and the rule then drops the longer tags.
//!
//! Cost: one list entry per distinct prefix per memory (a two-segment tag: two); the index
//! is derived, rebuilt from the records when an engine image is read.

use crate::recall::tags::{fold_tag, TagFilter, TagMode};
use crate::store::DocId;

/// Folded tag prefix → ascending documents, sorted by prefix (a store holds few distinct
/// tags; a sorted table is less code in the wasm than a hash map of strings).
#[derive(Debug, Default)]
pub struct TagIndex {
    postings: Vec<(Box<str>, Vec<u32>)>,
}

impl TagIndex {
    /// An empty index.
    pub fn new() -> Self {
        TagIndex::default()
    }

    /// Lists `doc` under every prefix of each of `tags`.
    pub fn insert<'a>(&mut self, doc: DocId, tags: impl IntoIterator<Item = &'a str>) {
        for tag in tags {
            for prefix in prefixes(&fold_tag(tag)) {
                let at = match self.find(prefix) {
                    Ok(at) => at,
                    Err(at) => {
                        self.postings.insert(at, (prefix.into(), Vec::new()));
                        at
                    }
                };
                let list = &mut self.postings[at].1;
                if let Err(i) = list.binary_search(&doc.0) {
                    list.insert(i, doc.0);
                }
            }
        }
    }

    /// Removes `doc` from the lists of each of `tags` (the tags it was inserted with).
    pub fn remove<'a>(&mut self, doc: DocId, tags: impl IntoIterator<Item = &'a str>) {
        for tag in tags {
            for prefix in prefixes(&fold_tag(tag)) {
                let Ok(at) = self.find(prefix) else {
                    continue;
                };
                let list = &mut self.postings[at].1;
                if let Ok(i) = list.binary_search(&doc.0) {
                    list.remove(i);
                }
                if list.is_empty() {
                    self.postings.remove(at);
                }
            }
        }
    }

    /// The documents that may pass `filter`'s `tags`, ascending (a superset for exact
    /// matching; `excludeTags` is left to the rule); `None` when it names no tags.
    pub fn candidates(&self, filter: &TagFilter) -> Option<Vec<DocId>> {
        if filter.tags.is_empty() {
            return None;
        }
        let lists: Vec<&[u32]> = (filter.tags.iter()).map(|t| self.list(t)).collect();
        let docs = match filter.mode {
            TagMode::Any => {
                let mut all: Vec<u32> = lists.concat();
                crate::sort::sort_u32(&mut all);
                all.dedup();
                all
            }
            TagMode::All => {
                let shortest = lists.iter().min_by_key(|l| l.len()).copied().unwrap_or(&[]);
                (shortest.iter().copied())
                    .filter(|d| lists.iter().all(|l| l.binary_search(d).is_ok()))
                    .collect()
            }
        };
        Some(docs.into_iter().map(DocId).collect())
    }

    /// [`TagIndex::candidates`] as a bit set over document ids (bit `d % 64` of word `d / 64`):
    /// a recall with a query asks it about each candidate its stages find
    /// (`Filter::tag_docs`). Built from the lists without sorting them.
    pub fn candidate_bits(&self, filter: &TagFilter) -> Option<Vec<u64>> {
        if filter.tags.is_empty() {
            return None;
        }
        let mut bits: Vec<u64> = Vec::new();
        let mut set = |d: u32| {
            let word = (d / 64) as usize;
            if bits.len() <= word {
                bits.resize(word + 1, 0);
            }
            bits[word] |= 1 << (d % 64);
        };
        match filter.mode {
            TagMode::Any => {
                for tag in &filter.tags {
                    self.list(tag).iter().for_each(|&d| set(d));
                }
            }
            TagMode::All => (self.candidates(filter).into_iter().flatten()).for_each(|d| set(d.0)),
        }
        Some(bits)
    }

    /// Heap bytes (the table, keys and list capacities).
    pub fn heap_bytes(&self) -> usize {
        let table = self.postings.capacity() * std::mem::size_of::<(Box<str>, Vec<u32>)>();
        (self.postings.iter())
            .map(|(k, v)| k.len() + v.capacity() * 4)
            .sum::<usize>()
            + table
    }

    /// The position of `prefix` in the table, or where it would go.
    /// The documents listed under `prefix` (none when it is not a tag prefix).
    fn list(&self, prefix: &str) -> &[u32] {
        self.find(prefix).map_or(&[], |at| &self.postings[at].1)
    }

    fn find(&self, prefix: &str) -> Result<usize, usize> {
        self.postings.binary_search_by(|(k, _)| (**k).cmp(prefix))
    }
}

/// `a`, `a:b`, `a:b:c` for `a:b:c`.
fn prefixes(tag: &str) -> impl Iterator<Item = &str> {
    (tag.match_indices(':')
        .map(|(i, _)| crate::text::slice(tag, ..i)))
    .chain(std::iter::once(tag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::tags::TagMatch;

    fn filter(tags: &[&str], mode: TagMode) -> TagFilter {
        TagFilter {
            tags: tags.iter().map(|t| t.to_string()).collect(),
            mode,
            matching: TagMatch::Prefix,
            exclude: vec![],
        }
    }

    fn docs(index: &TagIndex, tags: &[&str], mode: TagMode) -> Vec<u32> {
        let found = index.candidates(&filter(tags, mode)).unwrap();
        found.into_iter().map(|d| d.0).collect()
    }

    #[test]
    fn candidate_bits_hold_exactly_the_candidates() {
        let mut index = TagIndex::new();
        let tags = ["a", "a:x", "b", "c:y:z"];
        for d in 0..300u32 {
            let held: Vec<&str> = (0..4)
                .filter(|t| (d * 7 + t * 3) % (t + 2) == 0)
                .map(|t| tags[t as usize])
                .collect();
            index.insert(DocId(d), held);
        }
        for wanted in [&["a"][..], &["a:x", "b"], &["c"], &["b", "c:y"], &["none"]] {
            for mode in [TagMode::Any, TagMode::All] {
                let bits = index.candidate_bits(&filter(wanted, mode)).unwrap();
                let from_bits: Vec<u32> = (0..bits.len() as u32 * 64)
                    .filter(|d| bits[(d / 64) as usize] >> (d % 64) & 1 == 1)
                    .collect();
                assert_eq!(from_bits, docs(&index, wanted, mode), "{wanted:?} {mode:?}");
            }
        }
        assert_eq!(index.candidate_bits(&filter(&[], TagMode::Any)), None);
    }

    #[test]
    fn lists_every_segment_prefix_once_per_document() {
        let mut index = TagIndex::new();
        index.insert(DocId(2), ["Slack:channel:general", "slack:user"]);
        index.insert(DocId(0), ["slacker"]);
        index.insert(DocId(1), ["slack"]);
        assert_eq!(docs(&index, &["slack"], TagMode::Any), [1, 2]);
        assert_eq!(docs(&index, &["slack:channel"], TagMode::Any), [2]);
        assert_eq!(
            docs(&index, &["slacker", "slack:user"], TagMode::Any),
            [0, 2]
        );
        assert_eq!(docs(&index, &["slack", "slack:user"], TagMode::All), [2]);
        assert_eq!(docs(&index, &["nope"], TagMode::Any), Vec::<u32>::new());
        assert!(index.candidates(&TagFilter::default()).is_none());
        index.remove(DocId(2), ["Slack:channel:general", "slack:user"]);
        assert_eq!(docs(&index, &["slack"], TagMode::Any), [1]);
        assert!(index.find("slack:channel").is_err());
    }

    #[test]
    fn candidates_hold_every_document_the_rule_accepts() {
        // Oracle: the rule over every document, against the index's candidates.
        let mut rng = crate::test_support::SplitMix64(23);
        let pool = ["a", "a:b", "a:b:c", "b", "B:x", "ab", "c:a"];
        let mut held: Vec<Vec<&str>> = Vec::new();
        let mut index = TagIndex::new();
        for doc in 0..200u32 {
            let tags: Vec<&str> = (0..rng.index(3))
                .map(|_| pool[rng.index(pool.len())])
                .collect();
            index.insert(DocId(doc), tags.iter().copied());
            held.push(tags);
        }
        for want in [&["a"][..], &["b", "c"], &["a:b", "b"], &["ab"]] {
            for mode in [TagMode::Any, TagMode::All] {
                for matching in [TagMatch::Prefix, TagMatch::Exact] {
                    let f = TagFilter {
                        matching,
                        ..filter(want, mode)
                    };
                    let found = index.candidates(&f).unwrap();
                    let passing = (0..200u32).filter(|&d| f.accepts(&held[d as usize]));
                    for d in passing {
                        assert!(
                            found.contains(&DocId(d)),
                            "{want:?} {mode:?} {matching:?} {d}"
                        );
                    }
                    if matching == TagMatch::Prefix {
                        assert!(found.iter().all(|d| f.accepts(&held[d.0 as usize])));
                    }
                }
            }
        }
    }
}
