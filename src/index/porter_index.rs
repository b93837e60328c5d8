//! [`PorterIndex`]: the stemmed (FTS5 `porter`) index of `textEn`, derived from the index of
//! its unstemmed tokens instead of kept as a second set of postings.
//!
//! FTS5's porter tokenizer wraps unicode61: every unicode61 token becomes one porter term,
//! its stem. So the porter statistics of a document follow from its token statistics:
//!
//! - the frequency of stem `s` in `d` is the sum of the frequencies in `d` of the tokens
//!   whose stem is `s`;
//! - `|D|` is the number of tokens, and `N` the number of documents.
//!
//! The engine's token index (`fuzzy_en`) also holds each memory's `keywords`, which the
//! porter index of abmind does not see. Their occurrences are kept apart, in a small
//! [`InvertedIndex`] of keyword tokens (only memories with keywords enter it), and
//! subtracted: frequencies, lengths and the token total. A document whose only occurrences
//! of a token are keywords does not contain its stem.
//!
//! Each distinct token is stemmed once, when it first occurs in a `textEn`; the tokens of a
//! stem are chained (`first_token`, then each token's next), so a query stem reads its tokens' posting
//! lists, added up when there are several or when keywords must be subtracted, and used as
//! they are otherwise (the usual case: no copy). Scores are exactly those of a porter
//! [`InvertedIndex`] built from the same texts (tested against one, and against SQLite FTS5
//! through the engine's golden tests).
//!
//! Memory: the stem vocabulary, 4 bytes per stem and 8 per token (stem and chain link),
//! instead of a second set of postings (the token index's take about 27 bytes per memory at
//! 100k, delta-coded).

use super::bm25::{Bm25Source, CorpusStats};
use super::grow_by_quarter;
use super::postings::{InvertedIndex, PhraseList, Postings, TermId};
use crate::error::Result;
use crate::image::{self, Persist, Reader, Writer};
use crate::store::DocId;
use crate::text::{self, Stemmer};

/// End of a token chain, and the stem of a token not stemmed yet.
const NONE: u32 = u32::MAX;

/// Porter terms derived from a token index. See the module documentation.
#[derive(Debug, Default)]
pub struct PorterIndex {
    /// The stems, as a vocabulary: no document is ever inserted.
    stems: InvertedIndex,
    /// By token id: its stem ([`NONE`] until the token first occurs in a `textEn`) and the
    /// next token with the same stem (or [`NONE`]).
    tokens: Vec<(u32, u32)>,
    /// By stem id: its first token.
    first_token: Vec<u32>,
    /// Keyword token occurrences, subtracted from the token index's.
    keywords: InvertedIndex,
}

impl PorterIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// No posting of the index names a document at or above this (its keyword index's
    /// [`InvertedIndex::doc_bound_ever`]; the stems index holds no documents).
    pub fn doc_bound(&self) -> u64 {
        self.stems
            .doc_bound_ever()
            .max(self.keywords.doc_bound_ever())
    }

    /// Number of distinct stems.
    pub fn stem_count(&self) -> usize {
        self.stems.vocabulary_len()
    }

    /// The stem of `token`, whose id in the token index is `token_id`: remembered from its
    /// first occurrence, or stemmed and interned now. Fails with `too_large` when the stem
    /// vocabulary outgrows `u32` ids or offsets.
    pub fn stem_token(
        &mut self,
        token_id: TermId,
        token: &str,
        stemmer: &mut Stemmer,
    ) -> Result<TermId> {
        let slot = token_id.0 as usize;
        if let Some(&(stem, _)) = self.tokens.get(slot).filter(|t| t.0 != NONE) {
            return Ok(TermId(stem));
        }
        let stem = self.stems.intern(&text::term_of_token(token, stemmer))?;
        grow_to(&mut self.tokens, slot, (NONE, NONE));
        grow_to(&mut self.first_token, stem.0 as usize, NONE);
        let first = &mut self.first_token[stem.0 as usize];
        self.tokens[slot] = (stem.0, *first);
        *first = token_id.0;
        Ok(stem)
    }

    /// Records the keyword tokens of `doc` (its `keywords`, tokenised), which the token
    /// index holds besides its `textEn`. Fails as [`InvertedIndex::insert`] does.
    pub fn add_keywords<'a>(
        &mut self,
        doc: DocId,
        tokens: impl IntoIterator<Item = &'a str>,
    ) -> Result<()> {
        let mut tokens = tokens.into_iter().peekable();
        if tokens.peek().is_none() {
            return Ok(());
        }
        self.keywords.insert(doc, tokens)
    }

    /// Forgets the keyword tokens of `doc`, the same ones [`add_keywords`](Self::add_keywords)
    /// was given.
    pub fn remove_keywords<'a>(&mut self, doc: DocId, tokens: impl IntoIterator<Item = &'a str>) {
        self.keywords.remove(doc, tokens);
    }

    /// The text of stem `id` (`""` for an id this index did not return).
    pub fn term(&self, id: TermId) -> &str {
        self.stems.term(id)
    }

    /// Number of distinct stems.
    pub fn vocabulary_len(&self) -> usize {
        self.stems.vocabulary_len()
    }

    /// The porter index over `tokens`, the token index this one was built along with.
    pub fn view<'a>(&'a self, tokens: &'a InvertedIndex) -> PorterView<'a> {
        PorterView {
            porter: self,
            tokens,
        }
    }

    /// Heap memory held, in bytes (capacities).
    pub fn heap_bytes(&self) -> usize {
        self.stems.heap_bytes()
            + self.tokens.capacity() * 8
            + self.first_token.capacity() * 4
            + self.keywords.heap_bytes()
    }

    /// The part of [`heap_bytes`](Self::heap_bytes) held by the stem vocabulary.
    pub fn vocabulary_heap_bytes(&self) -> usize {
        self.stems.vocabulary_heap_bytes()
    }

    /// The tokens whose stem is the text `stem` (none when no token has it).
    pub fn tokens_of_stem(&self, stem: &str) -> impl Iterator<Item = TermId> + '_ {
        self.stems
            .term_id(stem)
            .into_iter()
            .flat_map(|id| self.tokens_of(id))
    }

    /// The tokens whose stem is `stem`.
    fn tokens_of(&self, stem: TermId) -> impl Iterator<Item = TermId> + '_ {
        let first = self
            .first_token
            .get(stem.0 as usize)
            .copied()
            .unwrap_or(NONE);
        std::iter::successors(Some(first).filter(|&t| t != NONE), |&t| {
            Some(self.tokens[t as usize].1).filter(|&n| n != NONE)
        })
        .map(TermId)
    }
}

/// Grows `table` with `fill` so that it has an entry `at` (by a quarter of its capacity at
/// least, see [`grow_by_quarter`]).
fn grow_to<T: Copy>(table: &mut Vec<T>, at: usize, fill: T) {
    if table.len() <= at {
        let _ = grow_by_quarter(table, at + 1 - table.len());
        table.resize(at + 1, fill);
    }
}

/// A [`PorterIndex`] with its token index: what BM25 searches ([`Bm25Source`]).
#[derive(Debug, Clone, Copy)]
pub struct PorterView<'a> {
    porter: &'a PorterIndex,
    tokens: &'a InvertedIndex,
}

impl PorterView<'_> {
    /// The postings of `stem`: its tokens' `textEn` occurrences added up by document, their
    /// keyword occurrences subtracted.
    fn text_counts(&self, stem: TermId) -> PhraseList<'_> {
        let keywords = &self.porter.keywords;
        let mut counts: Vec<(DocId, u32)> = Vec::new();
        for token in self.porter.tokens_of(stem) {
            let keyword_id = keywords.term_id(self.tokens.term(token));
            let mut keyword_rest = keyword_id
                .map_or(Postings::EMPTY, |id| keywords.postings(id))
                .peekable();
            let postings = self.tokens.postings(token);
            let mut merged = Vec::with_capacity(counts.len() + postings.doc_freq());
            let mut earlier = counts.iter().copied().peekable();
            for p in postings {
                let doc = p.doc();
                let mut tf = p.tf();
                // Both lists ascend: skip the keyword postings before `doc`.
                while keyword_rest.next_if(|k| k.doc() < doc).is_some() {}
                if let Some(k) = keyword_rest.next_if(|k| k.doc() == doc) {
                    tf = tf.saturating_sub(k.tf());
                }
                while let Some(e) = earlier.next_if(|e| e.0 < doc) {
                    merged.push(e);
                }
                if let Some(e) = earlier.next_if(|e| e.0 == doc) {
                    tf = tf.saturating_add(e.1);
                }
                if tf > 0 {
                    merged.push((doc, tf));
                }
            }
            merged.extend(earlier);
            counts = merged;
        }
        PhraseList::from_counts(counts)
    }
}

impl Bm25Source for PorterView<'_> {
    fn stats(&self) -> CorpusStats {
        let doc_count = self.tokens.doc_count();
        let total = self.tokens.total_terms() - self.porter.keywords.total_terms();
        CorpusStats {
            doc_count,
            // As CorpusStats::from_index: (double)nToken / (double)nRow.
            avgdl: total as f64 / f64::from(doc_count),
        }
    }

    fn doc_id_bound(&self) -> usize {
        self.tokens.doc_id_bound()
    }

    #[inline]
    fn doc_len(&self, doc: DocId) -> Option<u32> {
        let len = self.tokens.try_doc_len(doc)?;
        Some(match self.porter.keywords.try_doc_len(doc) {
            // The token index counts the keyword tokens too, so this never saturates.
            Some(keywords) => len.saturating_sub(keywords),
            None => len,
        })
    }

    fn phrase(&self, term: &str) -> Option<PhraseList<'_>> {
        let stem = self.porter.stems.term_id(term)?;
        let mut tokens = self.porter.tokens_of(stem);
        let first = tokens.next()?;
        let keywords = &self.porter.keywords;
        let has_keywords = |t: TermId| {
            keywords
                .term_id(self.tokens.term(t))
                .is_some_and(|id| !keywords.postings(id).is_empty())
        };
        if tokens.next().is_none() && (keywords.doc_count() == 0 || !has_keywords(first)) {
            // One token, never a keyword: its own list, as it is.
            return Some(PhraseList::of_term(self.tokens, first));
        }
        Some(self.text_counts(stem))
    }
}

/// Saved as its parts; a load checks that every token and stem link points inside its table
/// and that no token is linked twice (so a stem's token chain ends).
impl Persist for PorterIndex {
    fn save(&self, w: &mut Writer) -> Result<()> {
        self.stems.save(w)?;
        self.tokens.save(w)?;
        w.u32s(&self.first_token)?;
        self.keywords.save(w)
    }

    fn load(r: &mut Reader) -> Result<Self> {
        let index = PorterIndex {
            stems: InvertedIndex::load(r)?,
            tokens: Vec::load(r)?,
            first_token: r.u32s()?,
            keywords: InvertedIndex::load(r)?,
        };
        let stems = index.stems.vocabulary_len();
        let mut linked = vec![false; index.tokens.len()];
        let mut link = |t: u32| -> bool {
            t == NONE
                || linked
                    .get_mut(t as usize)
                    .is_some_and(|seen| !std::mem::replace(seen, true))
        };
        let ok = index.first_token.len() == stems
            && index.first_token.iter().all(|&t| link(t))
            && index
                .tokens
                .iter()
                .all(|&(stem, next)| (stem == NONE || (stem as usize) < stems) && link(next));
        if !ok {
            return Err(image::corrupt("porter links out of range"));
        }
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::bm25::{self, Bm25Params, SearchBuffer};
    use crate::test_support::SplitMix64;

    /// Tokens whose stems collide ("run", "runs", "running" → "run"), and others.
    const WORDS: [&str; 10] = [
        "run", "runs", "running", "dog", "dogs", "walk", "walked", "walking", "tea", "the",
    ];

    /// Built as the engine builds them: a token index of text and keyword tokens, the
    /// porter index from the text tokens, and the porter index a second table would hold.
    struct Model {
        tokens: InvertedIndex,
        porter: PorterIndex,
        expected: InvertedIndex,
        docs: Vec<Option<(Vec<&'static str>, Vec<&'static str>)>>,
        stemmer: Stemmer,
    }

    impl Model {
        fn new() -> Self {
            Model {
                tokens: InvertedIndex::new(),
                porter: PorterIndex::new(),
                expected: InvertedIndex::new(),
                docs: Vec::new(),
                stemmer: Stemmer::new(),
            }
        }

        fn add(&mut self, doc: DocId, text: Vec<&'static str>, keywords: Vec<&'static str>) {
            let mut ids = Vec::new();
            for &t in &text {
                let id = self.tokens.intern(t).unwrap();
                self.porter.stem_token(id, t, &mut self.stemmer).unwrap();
                ids.push(id);
            }
            for &k in &keywords {
                ids.push(self.tokens.intern(k).unwrap());
            }
            self.tokens.insert_ids(doc, &ids).unwrap();
            self.porter
                .add_keywords(doc, keywords.iter().copied())
                .unwrap();
            let stems: Vec<String> = text.iter().map(|t| text::terms(t).remove(0)).collect();
            self.expected
                .insert(doc, stems.iter().map(String::as_str))
                .unwrap();
            let slot = doc.0 as usize;
            if self.docs.len() <= slot {
                self.docs.resize(slot + 1, None);
            }
            self.docs[slot] = Some((text, keywords));
        }

        fn remove(&mut self, doc: DocId) {
            let Some((text, keywords)) = self.docs[doc.0 as usize].take() else {
                return;
            };
            let all: Vec<&str> = text.iter().chain(&keywords).copied().collect();
            self.tokens.remove(doc, all);
            self.porter.remove_keywords(doc, keywords);
            let stems: Vec<String> = text.iter().map(|t| text::terms(t).remove(0)).collect();
            self.expected.remove(doc, stems.iter().map(String::as_str));
        }

        /// Every stem alone and every pair: scores bit for bit those of `expected`.
        fn check(&self, seed: u64) {
            let view = self.porter.view(&self.tokens);
            assert_eq!(view.stats().doc_count, self.expected.stats().doc_count);
            assert_eq!(
                view.stats().avgdl.to_bits(),
                self.expected.stats().avgdl.to_bits(),
                "seed {seed}"
            );
            let stems = ["run", "dog", "walk", "tea", "the", "absent"];
            let params = Bm25Params::default();
            let mut queries: Vec<Vec<&str>> = stems.iter().map(|&s| vec![s]).collect();
            for a in stems {
                for b in stems {
                    queries.push(vec![a, b]);
                }
            }
            for query in queries {
                let got = bm25::search_gated(
                    &mut SearchBuffer::new(),
                    &view,
                    &query,
                    &[],
                    &params,
                    usize::MAX,
                    |_| true,
                );
                let want = bm25::search(&self.expected, &query, &params, usize::MAX, |_| true);
                let bits = |r: &[bm25::ScoredDoc]| {
                    r.iter()
                        .map(|s| (s.doc, s.score.to_bits()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(&got), bits(&want), "seed {seed}, query {query:?}");
            }
        }
    }

    #[test]
    fn scores_equal_a_porter_index_of_the_same_texts() {
        for case in 0..40 {
            let seed = 0x9047_0000 + case;
            let mut rng = SplitMix64(seed);
            let mut model = Model::new();
            let mut next = 0u32;
            for _ in 0..60 {
                if rng.below(4) == 0 && next > 0 {
                    model.remove(DocId(rng.below(u64::from(next)) as u32));
                } else {
                    let word = |rng: &mut SplitMix64| WORDS[rng.below(WORDS.len() as u64) as usize];
                    let text: Vec<&str> = (0..rng.below(8)).map(|_| word(&mut rng)).collect();
                    let keywords: Vec<&str> = if rng.below(3) == 0 {
                        (0..1 + rng.below(3)).map(|_| word(&mut rng)).collect()
                    } else {
                        Vec::new()
                    };
                    model.add(DocId(next), text, keywords);
                    next += 1;
                }
                model.check(seed);
            }
        }
    }

    #[test]
    fn frequencies_of_255_and_more_add_up_exactly() {
        let mut model = Model::new();
        // 200 + 100 occurrences of two tokens of one stem, and keywords to subtract.
        let mut text = vec!["running"; 200];
        text.extend(vec!["runs"; 100]);
        text.push("tea");
        model.add(DocId(0), text, vec!["runs"; 7]);
        model.add(DocId(1), vec!["run"; 300], Vec::new());
        model.add(DocId(2), vec!["tea", "the"], vec!["run"]);
        let view = model.porter.view(&model.tokens);
        let list = view.phrase("run").unwrap();
        let tfs: Vec<(u32, u32)> = list.postings().map(|p| (p.doc().0, p.tf())).collect();
        assert_eq!(tfs, [(0, 300), (1, 300)]);
        assert_eq!(view.doc_len(DocId(0)), Some(301));
        assert_eq!(view.doc_len(DocId(2)), Some(2));
        model.check(0);
    }

    #[test]
    fn a_stem_known_only_from_keywords_or_removed_documents_matches_nothing() {
        let mut model = Model::new();
        model.add(DocId(0), vec!["tea"], vec!["dogs"]);
        model.add(DocId(1), vec!["dogs"], Vec::new());
        model.remove(DocId(1));
        let view = model.porter.view(&model.tokens);
        assert!(view.phrase("dog").is_none_or(|l| l.postings().is_empty()));
        model.check(0);
    }
}
