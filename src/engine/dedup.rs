//! Content-hash dedup (Engram's query pipeline, stage 5): two memories with the same
//! normalised text are returned once. The text is normalised as the lexical stage reads it
//! ([`crate::text`]: case and diacritics folded, punctuation and spacing dropped, so "Deploy
//! on  Friday." and "deploy on friday" are one text, "deploy on Friday 12" another), and hashed
//! with FNV-1a 64 ([`crate::notes::fnv`]).
//!
//! The best-ranked memory of each text stays; the others leave the answer, their ids in its
//! `duplicateIds`, counted in `dedupRemoved` (with the duplicates of a `queries` merge). The
//! ranking keeps as many more candidates as the pool holds repeated texts
//! (`Engine::repeated_texts`), so `limit` distinct results remain when the pool has them
//! (with several query texts, each is ranked so, but the merged list may hold fewer). The
//! `abmind` ranking reproduces abmind's pipeline, which keeps repeats, and is left as it is.
//!
//! Cost: one pass over a memory's text the first time a recall ranks it; the key is then kept
//! beside the engine's records (`Engine::text_keys`) until the memory is re-indexed or removed.
//! Measured at 10k bench memories: keying every candidate on every recall was 11 % of a
//! lexical recall's instructions (callgrind).

use super::Engine;
use crate::notes::fnv::Fnv1a64;
use crate::rank::{Candidate, CandidateKey};
use crate::store::DocId;

/// The content key of `text`: FNV-1a 64 of its folded tokens, each followed by a space.
pub fn content_key(text: &str) -> u64 {
    let mut h = Fnv1a64::new();
    // The tokenizer's one `dyn` instantiation, not a copy of its loop for this closure.
    crate::text::tokenize::for_each_token_dyn(text, &mut String::new(), &mut |t| {
        h.write(t.as_bytes());
        h.write(b" ");
    });
    h.finish()
}

impl Engine {
    /// The content key of memory `doc`'s text, `None` if it is gone: the kept one, or
    /// computed and kept.
    pub(super) fn key_of(&self, doc: DocId) -> Option<u64> {
        let m = self.memory(doc)?;
        let i = doc.0 as usize;
        let mut keys = self.text_keys.borrow_mut();
        match keys.get(i) {
            Some(&key) if key != 0 => Some(key),
            _ => {
                let key = content_key(m.text());
                if keys.len() <= i {
                    // `doc` is a document of `records`, so this stays within its length.
                    keys.resize(self.records.len().max(i + 1), 0);
                }
                keys[i] = key;
                Some(key)
            }
        }
    }

    /// Forgets the kept content key of `doc` (its text is changing or it is removed).
    pub(super) fn forget_text_key(&mut self, doc: DocId) {
        if let Some(key) = self.text_keys.get_mut().get_mut(doc.0 as usize) {
            *key = 0;
        }
    }

    /// How many memory candidates of `cands` repeat the text of an earlier one: the extra
    /// candidates a ranking keeps so that its best `limit` distinct texts survive the dedup.
    pub(super) fn repeated_texts(&self, cands: &[Candidate]) -> usize {
        let mut keys: Vec<u64> = (cands.iter())
            .filter_map(|c| match c.key {
                CandidateKey::Memory(doc) => self.key_of(doc),
                _ => None,
            })
            .collect();
        let all = keys.len();
        crate::sort::sort_u64(&mut keys);
        keys.dedup();
        all - keys.len()
    }

    /// Drops from `ranked` (best first) every memory whose text a better-ranked one has, keeps
    /// the first `depth`, and returns each kept memory with the documents it stands for.
    pub(super) fn dedupe_texts(
        &self,
        ranked: &mut Vec<Candidate>,
        depth: usize,
    ) -> Vec<(DocId, Vec<DocId>)> {
        let mut seen: Vec<(u64, DocId)> = Vec::new();
        let mut same: Vec<(DocId, Vec<DocId>)> = Vec::new();
        ranked.retain(|c| {
            let CandidateKey::Memory(doc) = c.key else {
                return true;
            };
            let Some(key) = self.key_of(doc) else {
                return true;
            };
            let Some(&(_, kept)) = seen.iter().find(|(k, _)| *k == key) else {
                seen.push((key, doc));
                return true;
            };
            match same.iter_mut().find(|(d, _)| *d == kept) {
                Some((_, list)) => list.push(doc),
                None => same.push((kept, vec![doc])),
            }
            false
        });
        ranked.truncate(depth);
        same.retain(|(kept, _)| (ranked.iter()).any(|c| c.key == CandidateKey::Memory(*kept)));
        same
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EngineConfig, RecallOptions};
    use crate::store::Memory;
    use crate::test_support::recall_untracked as recall;

    fn engine(memories: &[(&str, &str)]) -> Engine {
        let mut e = Engine::new(EngineConfig::default()).unwrap();
        let memories = (memories.iter())
            .map(|&(id, text)| Memory {
                id: id.into(),
                text: text.into(),
                ..Memory::default()
            })
            .collect();
        e.insert_many(memories, &[]).unwrap();
        e
    }

    use crate::test_support::ids;

    #[test]
    fn keys_fold_case_spacing_and_punctuation_but_not_words() {
        let key = content_key("Deploy on Friday.");
        assert_eq!(key, content_key("  deploy ON\tfriday"));
        assert_ne!(key, content_key("deploy on friday 12"));
        assert_ne!(key, content_key("deploy on fridays"));
        assert_ne!(content_key("ab c"), content_key("a bc"));
    }

    #[test]
    fn same_texts_are_returned_once_and_limit_distinct_results_remain() {
        let mut e = engine(&[
            ("a", "The deploy moved to Friday"),
            ("b", "the  DEPLOY moved to friday."),
            ("c", "The deploy moved to Friday"),
            ("d", "The deploy moved to Thursday"),
            ("f", "The deploy moved to Friday night"),
        ]);
        let o = RecallOptions {
            limit: 3,
            ..RecallOptions::default()
        };
        let out = recall(&mut e, "deploy moved", o);
        assert_eq!(out.results.len(), 3, "{:?}", ids(&out));
        let kept = &out.results[(out.results.iter())
            .position(|r| !r.duplicate_ids.is_empty())
            .expect("one result stands for the repeats")];
        let mut group: Vec<&str> = kept.duplicate_ids.iter().map(String::as_str).collect();
        group.push(&kept.id);
        group.sort();
        assert_eq!(group, ["a", "b", "c"]);
        // The near-duplicates stay: one more word is another text.
        let mut rest: Vec<&str> = ids(&out).into_iter().filter(|i| *i != kept.id).collect();
        rest.sort();
        assert_eq!(rest, ["d", "f"]);
        assert_eq!(out.dedup_removed, 2);
    }

    #[test]
    fn a_kept_key_follows_its_memory_when_the_text_changes() {
        let mut e = engine(&[("a", "deploy on friday"), ("b", "Deploy on Friday")]);
        let found = |e: &mut Engine| {
            let mut found = ids(&recall(e, "deploy", RecallOptions::default()))
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>();
            found.sort();
            found
        };
        assert_eq!(found(&mut e).len(), 1, "one text: the keys are kept now");
        let changed = Memory {
            id: "b".into(),
            text: "Deploy on Monday".into(),
            ..Memory::default()
        };
        e.replace(changed, crate::engine::EmbeddingUpdate::Keep)
            .unwrap();
        assert_eq!(found(&mut e), ["a", "b"], "b's kept key was forgotten");
        e.remove("a").unwrap();
        let same = Memory {
            id: "c".into(),
            text: "deploy on monday".into(),
            ..Memory::default()
        };
        e.insert(same, None).unwrap();
        assert_eq!(found(&mut e).len(), 1, "c, new, is keyed as b's new text");
    }

    #[test]
    fn the_abmind_ranking_keeps_repeats() {
        let mut e = engine(&[("a", "deploy friday"), ("b", "Deploy Friday")]);
        let o = RecallOptions {
            ranking: Some(crate::rank::Ranking::Abmind),
            ..RecallOptions::default()
        };
        let out = recall(&mut e, "deploy", o);
        assert_eq!(out.results.len(), 2);
        assert!(out.results.iter().all(|r| r.duplicate_ids.is_empty()));
    }
}
