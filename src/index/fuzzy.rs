//! Fuzzy text index: the documents' unstemmed, folded terms in an [`InvertedIndex`], plus a
//! [`TrigramIndex`] over the vocabulary of distinct terms.
//!
//! A query word is expanded through the vocabulary to the terms it matches exactly, as a
//! substring (prefix included) or within one typo (see `trigram.rs` for the match kinds and
//! their weights `w ∈ (0, 1]`). Candidates are then scored with BM25 over those terms:
//!
//! ```text
//! score(d) = Σ_word  max_{term ∈ expand(word)}  w(word, term) · bm25_term(term, d)
//! ```
//!
//! where `bm25_term` is the FTS5 BM25 contribution of one term (the same length
//! normalisation as the porter sub-query, over this index's own statistics). Every term a word
//! expands to gets the same `idf`: the lowest of their idfs, that of the most common
//! expansion (Lucene's "blended" fuzzy scoring does the same with document frequencies). The
//! terms are readings of one query word, so a document should not score higher for holding a
//! rarer one: with each term's own idf, "new" found as a substring of the rare "renewed"
//! (weight 0.51, idf 9) outscored "new" itself (weight 1, idf 2.5), and at 100k memories such
//! matches pushed exact-keyword sources out of the top 10 (`bench/`: exact hit@10 0.96 ->
//! 0.98, typo 0.91 -> 0.92 over 100 queries each; unchanged at 10k). Taking the
//! maximum per query word keeps a document that contains both "deploy" and "deployment" from
//! counting the word twice; summing over words rewards documents that match more of the
//! query, just as the porter sub-query does. So a document matching every word, one of them
//! through a typo, outranks documents matching only some words exactly.
//!
//! Indexing the vocabulary instead of every document keeps lookups fast as the corpus grows:
//! the vocabulary grows far slower than the number of documents.

use crate::error::Result;
use crate::image::{self, Persist, Reader, Writer};
use crate::index::bm25::{self, Bm25Params, ScoredDoc};
use crate::index::postings::{InvertedIndex, Posting, TermId};
use crate::index::trigram::{LookupScratch, MatchKind, TermMatch, Terms, TrigramIndex, VocabId};
use crate::sort;
use crate::store::DocId;
use crate::text;

/// Most vocabulary terms one query word expands to (the best-weighted are kept).
pub const MAX_EXPANSIONS: usize = 16;
/// A query word whose idf is FTS5's minimum is skipped once its most common expansion's posting
/// list is longer than this.
pub const SKIP_COMMON_MIN_POSTINGS: usize = 1024;

/// Unstemmed inverted index plus a trigram index over its vocabulary.
#[derive(Debug, Default)]
pub struct FuzzyIndex {
    terms: InvertedIndex,
    vocab: TrigramIndex,
    /// Terms of `terms`' vocabulary (by `TermId`, from 0) already added to `vocab`.
    synced: usize,
}

/// The trigram index reads its terms' texts from the inverted index's vocabulary, which
/// assigned their ids.
impl Terms for InvertedIndex {
    fn text(&self, id: VocabId) -> &str {
        self.term(TermId(id.0))
    }

    fn id(&self, term: &str) -> Option<VocabId> {
        self.term_id(term).map(|id| VocabId(id.0))
    }
}

/// Reusable per-query buffers: dense score arrays indexed by `DocId` plus the list of
/// touched entries, so a query costs time proportional to the postings it reads.
#[derive(Debug, Default)]
pub struct Scratch {
    total: Vec<f64>,
    word: Vec<f64>,
    touched_total: Vec<u32>,
    touched_word: Vec<u32>,
    matches: Vec<TermMatch>,
    /// The documents holding both parts of a split word, with the lesser of their counts.
    split: Vec<(u32, u32)>,
    lookup: LookupScratch,
    /// Buffer of the porter sub-query's [`bm25::search_with`].
    pub bm25: bm25::SearchBuffer,
}

impl FuzzyIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Heap memory held by the index, in bytes: the postings' and the trigram vocabulary's
    /// capacities.
    pub fn heap_bytes(&self) -> usize {
        self.terms.heap_bytes() + self.vocab.heap_bytes()
    }

    /// The part of [`heap_bytes`](Self::heap_bytes) held by the trigram vocabulary.
    pub fn trigram_heap_bytes(&self) -> usize {
        self.vocab.heap_bytes()
    }

    /// Adds document `doc` with its folded terms, in order. Fails as
    /// [`InvertedIndex::insert`] does (a `doc` already present, or sizes beyond `u32`).
    ///
    /// Only terms new to the vocabulary reach the trigram index: the inverted index assigns
    /// term ids in order of first appearance, so those are the ids from the last synced one
    /// on (also after a failed insert, whose terms may have joined the vocabulary).
    pub fn insert<'a>(
        &mut self,
        doc: DocId,
        terms: impl IntoIterator<Item = &'a str>,
    ) -> Result<()> {
        let result = self.terms.insert(doc, terms);
        self.sync();
        result
    }

    /// The id of `term` in this index's vocabulary, added if it is new (it then joins the
    /// trigram index too). With [`insert_ids`](Self::insert_ids), the two halves of
    /// [`insert`](Self::insert), for a caller that keeps data per term id. Fails as
    /// [`InvertedIndex::intern`] does.
    pub fn intern(&mut self, term: &str) -> Result<TermId> {
        let id = self.terms.intern(term);
        if self.terms.vocabulary_len() > self.synced {
            self.sync();
        }
        id
    }

    /// Adds document `doc` from the ids of its terms ([`intern`](Self::intern)), one per
    /// occurrence; fails as [`InvertedIndex::insert_ids`] does.
    pub fn insert_ids(&mut self, doc: DocId, ids: &[TermId]) -> Result<()> {
        self.terms.insert_ids(doc, ids)
    }

    /// The inverted index of the terms (the engine derives its porter index from it).
    pub fn terms(&self) -> &InvertedIndex {
        &self.terms
    }

    /// Adds the vocabulary's new terms to the trigram index: the inverted index assigns term
    /// ids in order of first appearance, so those are the ids from the last synced one on.
    fn sync(&mut self) {
        let known = self.terms.vocabulary_len();
        for id in self.synced..known {
            // `id < vocabulary_len() <= u32::MAX`: the vocabulary's ids are u32.
            self.vocab.push(self.terms.term(TermId(id as u32)));
        }
        self.synced = known;
    }

    /// Removes document `doc`, given the same terms it was inserted with. Vocabulary terms
    /// stay (an unused term only costs a lookup).
    pub fn remove<'a>(&mut self, doc: DocId, terms: impl IntoIterator<Item = &'a str>) -> bool {
        self.terms.remove(doc, terms)
    }

    /// No posting of the index names a document at or above this
    /// ([`InvertedIndex::doc_bound_ever`]).
    pub fn doc_bound(&self) -> u64 {
        self.terms.doc_bound_ever()
    }

    /// Number of documents.
    pub fn doc_count(&self) -> u32 {
        self.terms.doc_count()
    }

    /// Number of distinct terms in the vocabulary.
    pub fn vocabulary_len(&self) -> usize {
        self.vocab.len()
    }

    /// The documents holding both terms `word` joins, with the lesser of their counts, into
    /// `out`: the split into two vocabulary terms (at least 2 chars each, or 1 before at least
    /// 4: "email" as "e" "mail") whose shorter part is longest. A word typed as one that the
    /// memories write as two ("healthcare", "checkin") is read that way; the index keeps no
    /// positions, so the two need not be adjacent.
    #[inline(never)]
    fn split_holders(&self, word: &str, out: &mut Vec<(u32, u32)>) {
        let chars = word.chars().count();
        let mut best: Option<(usize, TermId, TermId)> = None;
        let mut left = 0;
        for (at, _) in word.char_indices() {
            left += 1;
            if at == 0 {
                continue;
            }
            let left = left - 1;
            let shorter = left.min(chars - left);
            if !(shorter >= 2 || chars - left >= 4) || best.is_some_and(|(s, ..)| s >= shorter) {
                continue;
            }
            let (a, b) = (text::slice(word, ..at), text::slice(word, at..));
            if let (Some(a), Some(b)) = (self.terms.term_id(a), self.terms.term_id(b)) {
                best = Some((shorter, a, b));
            }
        }
        let Some((_, a, b)) = best else { return };
        let (a, b) = (self.terms.postings(a), self.terms.postings(b));
        let (outer, mut inner) = if a.doc_freq() <= b.doc_freq() {
            (a, b)
        } else {
            (b, a)
        };
        let mut reached = None;
        for p in outer {
            if reached.map_or(true, |q: Posting| q.doc() < p.doc()) {
                reached = inner.seek(p.doc());
            }
            match reached {
                None => break,
                Some(q) if q.doc() == p.doc() => out.push((p.doc().0, p.tf().min(q.tf()))),
                Some(_) => {}
            }
        }
    }

    /// The top `k` documents for the query `words` (folded, unstemmed) that `accept` keeps,
    /// by score descending, ties by ascending `DocId`.
    pub fn search(
        &self,
        words: &[&str],
        params: &Bm25Params,
        k: usize,
        scratch: &mut Scratch,
        accept: impl FnMut(DocId) -> bool,
    ) -> Vec<ScoredDoc> {
        self.search_weighted(words, &[], params, k, scratch, accept)
            .hits
    }

    /// [`search`](Self::search), also returning the query's weight: `Σ idf(word)` over the
    /// words that expand to some term, each word's idf as scored (that of its most common
    /// expansion). It is the score of a document holding every such word exactly once at the
    /// average length, as [`bm25::query_weight`] is for the porter sub-query. Also says which
    /// words were read only as other terms ([`FuzzySearch::inexact`]). `variants` are
    /// `(i, term)`: more terms word `i` reads as, weighted [`READING_WEIGHT`] (other forms of
    /// its stem, `recall::sf`).
    pub fn search_weighted(
        &self,
        words: &[&str],
        variants: &[(usize, TermId)],
        params: &Bm25Params,
        k: usize,
        scratch: &mut Scratch,
        accept: impl FnMut(DocId) -> bool,
    ) -> FuzzySearch {
        let n_docs = self.terms.doc_count();
        if n_docs == 0 || k == 0 || words.is_empty() {
            return FuzzySearch::default();
        }
        let mut weight = 0.0;
        let mut inexact = 0u64;
        let avgdl = self.terms.total_terms() as f64 / f64::from(n_docs);
        // K(D) = k1·(1 − b) + (k1·b / avgdl)·|D|: the BM25 length term without a division per
        // posting (the same value as `bm25::length_norm` up to rounding).
        let norm_base = params.k1 * (1.0 - params.b);
        let norm_per_term = params.k1 * params.b / avgdl;
        let bound = self.terms.doc_id_bound();
        if scratch.word.len() < bound {
            scratch.word.resize(bound, 0.0);
            scratch.total.resize(bound, 0.0);
        }
        for (i, word) in words.iter().enumerate() {
            self.vocab.lookup_with(
                &self.terms,
                word,
                MAX_EXPANSIONS,
                &mut scratch.lookup,
                &mut scratch.matches,
            );
            for &(_, term) in variants.iter().filter(|&&(w, _)| w == i) {
                if !scratch.matches.iter().any(|m| m.term.0 == term.0) {
                    scratch.matches.push(TermMatch {
                        term: VocabId(term.0),
                        kind: MatchKind::Typo,
                        weight: READING_WEIGHT,
                    });
                }
            }
            // The word's idf: that of its most common expansion (see the module docs).
            let most_common = (scratch.matches.iter())
                .map(|m| self.terms.postings(TermId(m.term.0)).doc_freq())
                .max()
                .unwrap_or(0);
            let exact = scratch.matches.iter().any(|m| m.kind == MatchKind::Exact);
            let typo = scratch.matches.iter().any(|m| m.kind == MatchKind::Typo);
            scratch.split.clear();
            if !exact {
                self.split_holders(word, &mut scratch.split);
            }
            let most_common = most_common.max(scratch.split.len());
            let idf = bm25::idf(n_docs, most_common as u32);
            if !exact && (typo || !scratch.split.is_empty()) && i < 64 {
                inexact |= 1 << i;
            }
            if most_common > 0 {
                weight += idf;
            }
            // In a large index, a word whose reading is in half the documents or more gets
            // FTS5's token idf (1e-6) for every expansion: it cannot change a ranking, and
            // skipping it saves reading the long posting list. (In a small index every word may
            // be that common, so it stays.)
            if most_common > SKIP_COMMON_MIN_POSTINGS && idf <= bm25::MIN_IDF {
                continue;
            }
            let lengths = self.terms.doc_lens();
            let norm = |len: u32| norm_base + norm_per_term * f64::from(len);
            for m in &scratch.matches {
                // The trigram index has the vocabulary's ids (see `sync`).
                let postings = self.terms.postings(TermId(m.term.0));
                let scale = m.weight * idf * (params.k1 + 1.0);
                let postings = postings.map(|p| (p.doc().0, p.tf()));
                best_per_doc(
                    &mut scratch.word,
                    &mut scratch.touched_word,
                    lengths,
                    scale,
                    norm,
                    postings,
                );
            }
            let scale = READING_WEIGHT * idf * (params.k1 + 1.0);
            let split = scratch.split.iter().copied();
            best_per_doc(
                &mut scratch.word,
                &mut scratch.touched_word,
                lengths,
                scale,
                norm,
                split,
            );
            for &d in &scratch.touched_word {
                let d = d as usize;
                if scratch.total[d] == 0.0 {
                    scratch.touched_total.push(d as u32);
                }
                scratch.total[d] += scratch.word[d];
                scratch.word[d] = 0.0;
            }
            scratch.touched_word.clear();
        }
        // Hits as (descending score key, doc) pairs: their ascending order is best first.
        let mut hits: Vec<(u64, u32)> = Vec::with_capacity(scratch.touched_total.len());
        for &d in &scratch.touched_total {
            let score = scratch.total[d as usize];
            scratch.total[d as usize] = 0.0;
            if score > 0.0 {
                hits.push((sort::desc_key(score), d));
            }
        }
        scratch.touched_total.clear();
        FuzzySearch {
            hits: top_accepted_keys(hits, k, accept),
            weight,
            inexact,
        }
    }
}

/// The weight of a word read as other words: two terms it joins ("healthcare" as "health"
/// and "care"), or a variant the caller gives ([`FuzzyIndex::search_weighted`]); the best a
/// one-edit reading gets, since the two joined need not be adjacent and a variant is another
/// word.
pub const READING_WEIGHT: f64 = 0.8;

/// Keeps, for each document of `postings` (`(doc, tf)`), the best BM25 contribution of one
/// word's readings in `word`, listing documents scored for the first time in `touched`.
fn best_per_doc(
    word: &mut [f64],
    touched: &mut Vec<u32>,
    lengths: &[u32],
    scale: f64,
    norm: impl Fn(u32) -> f64,
    postings: impl Iterator<Item = (u32, u32)>,
) {
    for (d, tf) in postings {
        let (Some(word_score), Some(&len)) = (word.get_mut(d as usize), lengths.get(d as usize))
        else {
            continue;
        };
        let tf = f64::from(tf);
        let s = scale * tf / (tf + norm(len));
        if *word_score == 0.0 {
            touched.push(d);
        }
        if s > *word_score {
            *word_score = s;
        }
    }
}

/// What [`FuzzyIndex::search_weighted`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FuzzySearch {
    /// The top documents, by score descending, ties by ascending `DocId`.
    pub hits: Vec<ScoredDoc>,
    /// The query's weight: `Σ idf(word)` over the words that expand to some term.
    pub weight: f64,
    /// Bit `i` is set when word `i` (of the first 64) is not a vocabulary term but expands to
    /// some: read only as a prefix, a substring or a one-edit neighbour of what the index holds.
    pub inexact: u64,
}

/// Saved as its term index, its trigram index and how far they are in step.
impl Persist for FuzzyIndex {
    fn save(&self, w: &mut Writer) -> Result<()> {
        self.terms.save(w)?;
        self.vocab.save(w)?;
        self.synced.save(w)
    }

    fn load(r: &mut Reader) -> Result<Self> {
        let index = FuzzyIndex {
            terms: InvertedIndex::load(r)?,
            vocab: TrigramIndex::load(r)?,
            synced: usize::load(r)?,
        };
        if index.synced != index.vocab.len() || index.synced > index.terms.vocabulary_len() {
            return Err(image::corrupt("a fuzzy index whose parts disagree"));
        }
        Ok(index)
    }
}

/// `top_accepted_keys` of [`ScoredDoc`] hits (the tests' form).
#[cfg(test)]
fn top_accepted(
    hits: Vec<ScoredDoc>,
    k: usize,
    accept: impl FnMut(DocId) -> bool,
) -> Vec<ScoredDoc> {
    let keys = hits
        .iter()
        .map(|h| (sort::desc_key(h.score), h.doc.0))
        .collect();
    top_accepted_keys(keys, k, accept)
}

/// The best `k` hits that `accept` keeps, by score descending, ties by ascending `DocId`.
/// `accept` is asked about the best candidates first, in growing rounds, so a common word
/// that touches most documents does not run the filter on all of them; once it refuses most
/// of a round, it is asked about the rest in one pass.
///
/// Hits come as `(desc_key(score), doc)` pairs, whose ascending order is that order, so the
/// selection and the sorts are the crate's shared integer ones ([`sort::select_pairs`],
/// [`sort::sort_pairs`]) rather than copies of std's for [`ScoredDoc`].
fn top_accepted_keys(
    mut hits: Vec<(u64, u32)>,
    k: usize,
    mut accept: impl FnMut(DocId) -> bool,
) -> Vec<ScoredDoc> {
    let mut kept = Vec::with_capacity(k.min(hits.len()));
    let mut start = 0;
    let mut window = k.saturating_mul(2).max(16);
    while kept.len() < k && start < hits.len() {
        let rest = &mut hits[start..];
        let take = window.min(rest.len());
        if take < rest.len() {
            // The best `take` hits move to the front, in no particular order.
            sort::select_pairs(rest, take - 1);
        }
        sort::sort_pairs(&mut rest[..take]);
        let before = kept.len();
        let mut asked = 0;
        for &(key, doc) in &rest[..take] {
            if kept.len() == k {
                break;
            }
            asked += 1;
            if accept(DocId(doc)) {
                kept.push(scored(key, doc));
            }
        }
        start += take;
        // A filter that kept under a quarter of what it was asked about (a tag held by a few
        // memories): the rest goes through it in one pass, and only what it keeps is
        // selected, instead of selecting ever larger windows of hits it mostly refuses. Each
        // hit is still asked about once at most.
        if kept.len() < k && (kept.len() - before) * 4 < asked {
            let mut rest: Vec<(u64, u32)> = (hits[start..].iter().copied())
                .filter(|&(_, doc)| accept(DocId(doc)))
                .collect();
            let want = k - kept.len();
            if want < rest.len() {
                sort::select_pairs(&mut rest, want - 1);
                rest.truncate(want);
            }
            sort::sort_pairs(&mut rest);
            kept.extend(rest.iter().map(|&(key, doc)| scored(key, doc)));
            break;
        }
        window = window.saturating_mul(4);
    }
    kept
}

fn scored(key: u64, doc: u32) -> ScoredDoc {
    ScoredDoc {
        doc: DocId(doc),
        score: sort::from_desc_key(key),
        terms: 0,
    }
}

#[cfg(test)]
fn better_first(a: &ScoredDoc, b: &ScoredDoc) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::SplitMix64;

    #[test]
    fn top_accepted_equals_filtering_everything_then_sorting() {
        for seed in 0..300u64 {
            let mut rng = SplitMix64(seed);
            let n = rng.below(400) as usize;
            let hits: Vec<ScoredDoc> = (0..n)
                .map(|i| ScoredDoc {
                    doc: DocId(i as u32),
                    score: f64::from(rng.below(50) as u32),
                    terms: 0,
                })
                .collect();
            // Up to 1 in 30 kept: filters that refuse most hits take the one-pass path.
            let modulus = 1 + rng.below(30);
            let keep = |d: DocId| u64::from(d.0) % modulus == 0;
            let k = rng.below(60) as usize;
            let mut oracle: Vec<ScoredDoc> = hits.iter().copied().filter(|h| keep(h.doc)).collect();
            oracle.sort_by(better_first);
            oracle.truncate(k);
            let mut calls = 0;
            let got = top_accepted(hits, k, |d| {
                calls += 1;
                keep(d)
            });
            assert_eq!(got, oracle, "seed {seed}");
            assert!(calls <= n, "seed {seed}");
        }
    }

    #[test]
    fn finds_typos_and_substrings_with_bm25_weights() {
        let mut index = FuzzyIndex::new();
        index
            .insert(DocId(0), ["the", "deployment", "pipeline"])
            .unwrap();
        index.insert(DocId(1), ["the", "cat"]).unwrap();
        let mut scratch = Scratch::default();
        let params = Bm25Params::default();
        let found = index.search(&["pipelnie"], &params, 10, &mut scratch, |_| true);
        assert_eq!(found.iter().map(|h| h.doc).collect::<Vec<_>>(), [DocId(0)]);
        let found = index.search(&["deploy", "cat"], &params, 10, &mut scratch, |_| true);
        assert_eq!(found.len(), 2);
        let none = index.search(&["deploy"], &params, 10, &mut scratch, |d| d != DocId(0));
        assert!(none.is_empty());
    }

    #[test]
    fn a_word_typed_as_one_finds_the_memories_that_write_it_as_two() {
        let mut index = FuzzyIndex::new();
        index.insert(DocId(0), ["health", "care", "plan"]).unwrap();
        index.insert(DocId(1), ["health", "insurance"]).unwrap();
        index
            .insert(DocId(2), ["check", "in", "at", "six"])
            .unwrap();
        index
            .insert(DocId(3), ["send", "it", "by", "e", "mail"])
            .unwrap();
        index.insert(DocId(4), ["the", "mail", "came"]).unwrap();
        let mut scratch = Scratch::default();
        let params = Bm25Params::default();
        let mut search = |words: &[&str]| {
            let found = index.search_weighted(words, &[], &params, 10, &mut scratch, |_| true);
            let docs: Vec<DocId> = found.hits.iter().map(|h| h.doc).collect();
            (docs, found.inexact)
        };
        // Both parts, in one memory; read as a correction, like a typo.
        assert_eq!(search(&["healthcare"]), (vec![DocId(0)], 1));
        assert_eq!(search(&["checkin"]), (vec![DocId(2)], 1));
        // A one-letter first part before a part of four letters or more ("mail" alone is
        // also a one-edit reading).
        assert!(search(&["email"]).0.contains(&DocId(3)));
        // A word the vocabulary holds is not split; nor is one whose parts are not terms.
        assert_eq!(search(&["health"]).1, 0);
        assert_eq!(search(&["carehealthx"]), (vec![], 0));
    }

    #[test]
    fn a_rare_expansion_scores_with_the_idf_of_the_words_common_reading() {
        // "new" in 8 of 20 two-word documents, "renewed" (a substring match) in one: with
        // each term's own idf the rare "renewed" (idf 2.56 x weight 0.51) outscored "new"
        // itself (idf 0.39), and such matches pushed exact sources out of the top 10.
        let mut index = FuzzyIndex::new();
        for d in 0..20u32 {
            let text = match d {
                0..8 => ["new", "plan"],
                8 => ["renewed", "plan"],
                _ => ["old", "plan"],
            };
            index.insert(DocId(d), text).unwrap();
        }
        let mut scratch = Scratch::default();
        let found = index.search(&["new"], &Bm25Params::default(), 20, &mut scratch, |_| true);
        let docs: Vec<u32> = found.iter().map(|h| h.doc.0).collect();
        assert_eq!(docs, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
        // Same length and tf, so the substring's score is its weight times the exact one's.
        let weight = 0.3 + 0.5 * 3.0 / 7.0;
        assert!(
            (found[8].score / found[0].score - weight).abs() < 1e-12,
            "{found:?}"
        );
    }
}
