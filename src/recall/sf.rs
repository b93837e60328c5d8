//! Stage Sf (lexical): three sub-queries, deduplicated by memory, as abmind's recall pipeline
//! runs them (`docs/design-sources.md` §1).
//!
//! 1. `Sf:porter`: FTS5-exact BM25 over the stemmed terms of `textEn`, the query's terms OR-ed.
//! 2. `Sf:trigram_en`: the fuzzy index over the unstemmed terms of `textEn` + `keywords`
//!    (substring and one-typo matches, see `index/fuzzy.rs`).
//! 3. `Sf:trigram_orig`: the fuzzy index over `text` (original language), run only when the
//!    first two found fewer than `limit` memories. It holds only memories whose `text` differs
//!    from `textEn`; the others' original text is already covered by sub-query 2.
//!
//! Every sub-query applies the recall's [`Filter`] before taking its top candidates, and takes
//! the top `max(limit × OVERFETCH, MIN_CANDIDATES)` by text score (abmind does the same with
//! SQL `LIMIT` before re-ranking). Each candidate then gets abmind's full Sf score
//! ([`SfComponents`]). A memory found by several sub-queries appears once, labelled with the
//! first sub-query that found it (abmind: "first stage wins") and scored with the best of
//! its sub-query scores. The stage returns up to `limit` hits by score descending, ties by
//! ascending `DocId`.
//!
//! Stopwords (`notes::keywords::STOPWORDS`): porter scores stay FTS5-exact over every query
//! term, but a memory must contain at least one query term that is not a stopword, and the
//! trigram sub-queries only expand non-stopwords. A query of stopwords alone ("what is the")
//! is trivial and finds nothing.

use crate::index::bm25::{self, Bm25Params, Bm25Source, ScoredDoc};
use crate::index::fuzzy::{FuzzyIndex, Scratch};
use crate::index::porter_index::PorterIndex;
use crate::index::postings::TermId;
use crate::notes::keywords::is_stopword;
use crate::recall::filter::Filter;
use crate::recall::score::{ScoreParams, SfComponents};
use crate::sort::{desc_key, sort_pairs};
use crate::store::{DocId, DocMap, StoredMemory};
use crate::text;

/// Each sub-query keeps `limit ×` this many candidates before the Sf formula's factors re-rank
/// them.
pub const OVERFETCH: usize = 4;
/// … and at least this many.
pub const MIN_CANDIDATES: usize = 50;

/// Which Sf sub-query found a hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SfSource {
    /// Porter BM25 over `textEn`.
    Porter,
    /// Trigram over `textEn` + `keywords`.
    TrigramEn,
    /// Trigram over `text`.
    TrigramOrig,
}

impl SfSource {
    /// The stage label results carry: `Sf:porter`, `Sf:trigram_en` or `Sf:trigram_orig`.
    pub fn label(self) -> &'static str {
        match self {
            SfSource::Porter => "Sf:porter",
            SfSource::TrigramEn => "Sf:trigram_en",
            SfSource::TrigramOrig => "Sf:trigram_orig",
        }
    }
}

/// One Sf hit with its score breakdown.
#[derive(Debug, Clone, PartialEq)]
pub struct SfHit {
    /// The memory.
    pub doc: DocId,
    /// The sub-query that gave the best score.
    pub source: SfSource,
    /// The final Sf score (`components.score()`).
    pub score: f64,
    /// Every factor of the score.
    pub components: SfComponents,
    /// FTS5 bm25 of the porter sub-query, when it found the memory.
    pub porter: Option<f64>,
    /// The trigram BM25 (the better of `Sf:trigram_en` and `Sf:trigram_orig`), when one of
    /// them found the memory.
    pub trigram: Option<f64>,
    /// The share of the query the memory matches, in `[0, 1]`: each sub-query's raw score
    /// divided by that sub-query's query weight ([`bm25::query_weight`],
    /// [`FuzzyIndex::search_weighted`]), the better of the two, at most 1.
    pub lexical: f64,
    /// The share of the query's distinct content words the memory's `textEn` holds (as
    /// `rank::evidence::coverage` counts them), read from the porter postings; `None` when
    /// the porter sub-query did not return the memory or the query has more than 32 such words.
    pub coverage: Option<f64>,
}

/// The indexes stage Sf reads.
#[derive(Debug, Clone, Copy)]
pub struct SfIndexes<'a> {
    /// Stemmed terms of `textEn` (derived from `fuzzy_en`'s tokens).
    pub porter: &'a PorterIndex,
    /// The fuzzy (trigram) index of the unstemmed terms of `textEn` + `keywords`: sub-query
    /// `Sf:trigram_en`.
    pub fuzzy_en: &'a FuzzyIndex,
    /// The fuzzy (trigram) index of the unstemmed terms of `text`, for memories whose `text`
    /// differs from `textEn`: sub-query `Sf:trigram_orig`.
    pub fuzzy_orig: &'a FuzzyIndex,
}

/// Everything one Sf run needs besides the indexes.
#[derive(Debug, Clone, Copy)]
pub struct SfQuery<'a> {
    /// The query text.
    pub text: &'a str,
    /// Results the recall asks for (sizes each sub-query's candidate list).
    pub limit: usize,
    /// Hits to return: `limit` for abmind's pipeline, more for a fusion that weighs every
    /// candidate's evidence (the sub-queries keep up to `max(limit × OVERFETCH,
    /// MIN_CANDIDATES)` each).
    pub keep: usize,
    /// Filters applied inside every sub-query.
    pub filter: &'a Filter,
    /// Recency and emotion parameters.
    pub params: &'a ScoreParams,
}

/// What stage Sf found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SfRun {
    /// The hits, by score descending, ties by ascending `DocId`.
    pub hits: Vec<SfHit>,
    /// Content words of the query that neither index knows as written but the trigram index
    /// reads as a prefix, a substring or a one-edit neighbour of a term it holds ("postgress"
    /// for "postgres"): the lexical reading corrected them, and a vector made from the query
    /// as typed did not (see `rank::model`).
    pub corrected: u32,
}

/// Runs stage Sf. `memory` resolves a `DocId` to its live record (`None` for removed ones).
pub fn run<'m>(
    indexes: SfIndexes<'_>,
    query: SfQuery<'_>,
    memory: impl Fn(DocId) -> Option<&'m StoredMemory>,
    scratch: &mut Scratch,
) -> SfRun {
    if query.limit == 0 {
        return SfRun::default();
    }
    let k = (query.limit * OVERFETCH).max(MIN_CANDIDATES);
    let bm25_params = Bm25Params::default();
    let mut stems = String::new();
    text::for_each_term(query.text, |t| push_term(&mut stems, t));
    let stems: Vec<&str> = stems.split_terminator('\0').collect();
    let mut words = String::new();
    text::tokenize::for_each_token(query.text, |t| push_term(&mut words, t));
    let words: Vec<&str> = words.split_terminator('\0').collect();
    // One stem per token, in order (the porter tokenizer wraps unicode61), so they zip.
    let admits: Vec<bool> = words.iter().map(|w| !is_stopword(w)).collect();
    let content: Vec<(&str, &str)> = words
        .iter()
        .zip(&stems)
        .zip(&admits)
        .filter(|(_, &admit)| admit)
        .map(|((&w, &s), _)| (w, s))
        .collect();
    if content.is_empty() {
        return SfRun::default(); // only stopwords (or nothing): a trivial query
    }
    // A bit per distinct content stem, in order: `ScoredDoc::terms` then says which of them a
    // memory holds (`rank::evidence::query_terms` lists the same stems).
    let mut distinct: Vec<&str> = Vec::new();
    let bits: Vec<u32> = stems
        .iter()
        .zip(&admits)
        .map(|(&stem, &admit)| {
            if !admit {
                return 0;
            }
            let at = distinct.iter().position(|&d| d == stem).unwrap_or_else(|| {
                distinct.push(stem);
                distinct.len() - 1
            });
            u32::try_from(at)
                .ok()
                .and_then(|i| 1u32.checked_shl(i))
                .unwrap_or(0)
        })
        .collect();
    let share_of = |terms: u32| {
        (distinct.len() <= 32).then(|| f64::from(terms.count_ones()) / distinct.len() as f64)
    };
    let accept = |doc: DocId| memory(doc).is_some_and(|m| query.filter.accepts(doc, m));
    let mut best: DocMap<SfHit> = DocMap::default();
    let keep = |best: &mut DocMap<SfHit>, source: SfSource, found: Vec<ScoredDoc>, weight: f64| {
        for hit in found {
            let Some(m) = memory(hit.doc) else { continue };
            let components = SfComponents::new(hit.score, m, query.filter.now, query.params);
            let score = components.score();
            let share = if weight > 0.0 {
                (hit.score / weight).min(1.0)
            } else {
                0.0
            };
            let entry = best.entry(hit.doc).or_insert_with(|| SfHit {
                doc: hit.doc,
                source,
                score,
                components,
                porter: None,
                trigram: None,
                lexical: 0.0,
                coverage: None,
            });
            if source == SfSource::Porter {
                entry.coverage = share_of(hit.terms);
            }
            // First sub-query wins the label; the memory keeps its best score.
            if score > entry.score {
                entry.score = score;
                entry.components = components;
            }
            let raw = match source {
                SfSource::Porter => &mut entry.porter,
                SfSource::TrigramEn | SfSource::TrigramOrig => &mut entry.trigram,
            };
            *raw = Some(raw.map_or(hit.score, |r| r.max(hit.score)));
            entry.lexical = entry.lexical.max(share);
        }
    };

    // Porter: FTS5-exact scores over every query term, but a memory must match at least one
    // term that is not a stopword ("the" alone is not a reason to recall anything).
    let porter = indexes.porter.view(indexes.fuzzy_en.terms());
    let found = bm25::search_marking_terms(
        &mut scratch.bm25,
        &porter,
        &stems,
        &admits,
        &bits,
        &bm25_params,
        k,
        accept,
    );
    let porter_weight = bm25::query_weight(&porter, &stems, &admits);

    let words: Vec<&str> = content.iter().map(|(w, _)| *w).collect();
    let variants = stem_variants(indexes.porter, &content);
    let fuzzy =
        indexes
            .fuzzy_en
            .search_weighted(&words, &variants, &bm25_params, k, scratch, accept);
    // A content word is corrected when the trigram index read it only as another term and
    // its stem is not in the porter index either (a stem that is, "kittens" for "kitten", is
    // the same word).
    let mut seen: Vec<&str> = Vec::new();
    let mut corrected = 0u32;
    for (i, &(word, stem)) in content.iter().enumerate() {
        if i < 64 && fuzzy.inexact & (1 << i) != 0 && !seen.contains(&word) {
            seen.push(word);
            let known = porter
                .phrase(stem)
                .is_some_and(|l| l.postings().doc_freq() > 0);
            corrected += u32::from(!known);
        }
    }
    // One measure of the query for both readings: a misspelt word is unknown to the porter
    // index but read by the trigram one, and a memory matching only the query's other words
    // must not get the whole of it.
    let weight = porter_weight.max(fuzzy.weight);
    keep(&mut best, SfSource::Porter, found, weight);
    keep(&mut best, SfSource::TrigramEn, fuzzy.hits, weight);

    if best.len() < query.limit && indexes.fuzzy_orig.doc_count() > 0 {
        let orig =
            indexes
                .fuzzy_orig
                .search_weighted(&words, &[], &bm25_params, k, scratch, accept);
        keep(&mut best, SfSource::TrigramOrig, orig.hits, orig.weight);
    }

    // Score descending, then doc ascending, through the shared pair sort (see crate::sort).
    let mut order: Vec<(u64, u32)> = best
        .values()
        .map(|h| (desc_key(h.score), h.doc.0))
        .collect();
    sort_pairs(&mut order);
    let hits = order
        .into_iter()
        .take(query.keep)
        .filter_map(|(_, doc)| best.remove(&DocId(doc)))
        .collect();
    SfRun { hits, corrected }
}

/// Porter keeps a noun in -y and its adjective in -ic apart ("allergy" → allergi, "allergic"
/// → allerg; so history and historic, economy and economic, biology and biological): the
/// tokens of each content word's stem with a final "i" dropped or added, both stems of at
/// least 5 ASCII letters, as `(word, token)` for the fuzzy sub-query's `variants`.
fn stem_variants(porter: &PorterIndex, content: &[(&str, &str)]) -> Vec<(usize, TermId)> {
    let mut variants = Vec::new();
    let mut other = String::new();
    for (i, &(_, stem)) in content.iter().enumerate() {
        other.clear();
        other.push_str(stem);
        if other.pop() != Some('i') {
            other.clear();
            other.push_str(stem);
            other.push('i');
        }
        if stem.is_ascii() && other.len().min(stem.len()) >= 5 {
            variants.extend(porter.tokens_of_stem(&other).map(|t| (i, t)));
        }
    }
    variants
}

/// Appends `term` and a NUL separator: terms never contain NUL (it is not a token character),
/// so one reusable buffer holds a whole term list without a `String` per term.
pub fn push_term(buffer: &mut String, term: &str) {
    buffer.push_str(term);
    buffer.push('\0');
}
