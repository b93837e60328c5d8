//! BM25 scoring equal to SQLite FTS5's `bm25()` function, with the sign flipped so that a
//! higher score is a better match.
//!
//! For a query of phrases `q_1 … q_m` (here: one phrase per analysed query term, in query
//! order, so a term repeated in the query counts twice, as in `"a" OR "a"`) and a document
//! `D`:
//!
//! ```text
//! idf(q_i)   = ln((N − n(q_i) + 0.5) / (n(q_i) + 0.5)),  replaced by 1e-6 when ≤ 0
//! K(D)       = k1 · (1 − b + b · |D| / avgdl)
//! score(D)   = Σ_i idf(q_i) · (f(q_i, D) · (k1 + 1)) / (f(q_i, D) + K(D))
//! ```
//!
//! with `N` the number of documents, `n(q_i)` the number of documents containing `q_i`,
//! `f(q_i, D)` its frequency in `D`, `|D|` the number of terms of `D`, `avgdl = Σ|D| / N`,
//! `k1 = 1.2` and `b = 0.75`.
//!
//! # Invariants
//!
//! - With [`Bm25Params::default`], scores are bit-for-bit those of FTS5 (negated): every
//!   floating-point operation is done in the same order as `fts5Bm25Function`, including the
//!   sum over phrases in query order. Phrases absent from a document add exactly `+0.0` in
//!   FTS5, so skipping them changes nothing.
//! - Statistics (`N`, `avgdl`, `n(q_i)`) are over the whole index, whatever the filter: FTS5
//!   computes them on the table before any `WHERE` clause other than `MATCH` applies.
//! - Ranking is by score descending, ties by ascending [`DocId`] (SQLite:
//!   `ORDER BY bm25(t), rowid`).
//!
//! # Evaluation
//!
//! [`search`] is term-at-a-time: for each query phrase in order, each posting adds its term
//! score into a dense per-document slot of a [`SearchBuffer`] and sets the document's bit
//! in a bitset. Each slot thus receives its additions in phrase order, starting from 0.0,
//! exactly like FTS5's loop. Scanning the bitset then visits the matching documents in
//! ascending order, clears their slots, applies the filter and keeps the best `k` in a
//! bounded heap (O(matches · log k), not a full sort). Time is linear in the query terms'
//! postings plus `largest DocId / 64` for the bitset scan; memory is about 8.1 bytes per
//! `DocId`, allocated once when the caller reuses the buffer through [`search_with`].
//!
//! Reference: SQLite `ext/fts5/fts5_aux.c` (`fts5Bm25GetData`, `fts5Bm25Function`);
//! <https://sqlite.org/fts5.html#the_bm25_function>.

use std::cmp::Ordering;

use crate::sort;
use std::fmt;

use super::postings::{InvertedIndex, PhraseList, Posting, Postings, SKIP};
use crate::error::check_unit;
use crate::store::DocId;
use crate::{Error, Result};

/// FTS5's `k1`, the term-frequency saturation constant (`fts5_aux.c`, `fts5Bm25Function`).
pub const DEFAULT_K1: f64 = 1.2;
/// FTS5's `b`, the document-length normalisation constant (`fts5_aux.c`).
pub const DEFAULT_B: f64 = 0.75;
/// The idf that FTS5 substitutes for a non-positive one, i.e. for a term in at least half
/// of the documents (`fts5Bm25GetData`).
pub const MIN_IDF: f64 = 1e-6;

/// The BM25 constants. [`Default`] gives FTS5's values, the only ones FTS5 itself uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25Params {
    /// Term-frequency saturation, `k1 ≥ 0`.
    pub k1: f64,
    /// Document-length normalisation, `0 ≤ b ≤ 1`.
    pub b: f64,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Self {
            k1: DEFAULT_K1,
            b: DEFAULT_B,
        }
    }
}

impl Bm25Params {
    /// Checked constructor.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if `k1` is not a finite non-negative number or `b` is not in
    /// `[0, 1]`.
    pub fn new(k1: f64, b: f64) -> Result<Self> {
        if !(k1.is_finite() && k1 >= 0.0) {
            return Err(Error::InvalidArgument(format!(
                "bm25 k1 must be finite and non-negative, got {k1}"
            )));
        }
        check_unit("bm25 b", b)?;
        Ok(Self { k1, b })
    }
}

/// A document and its BM25 score (positive; higher is better).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredDoc {
    /// The document.
    pub doc: DocId,
    /// Its score.
    pub score: f64,
    /// The union of the `bits` of the query terms the document holds, for a search that
    /// passed some ([`search_marking_terms`]); 0 otherwise.
    pub terms: u32,
}

/// The corpus statistics BM25 needs, over the whole index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CorpusStats {
    /// Number of documents, `N`.
    pub doc_count: u32,
    /// Average number of terms per document, `Σ|D| / N` (NaN when `N = 0`).
    pub avgdl: f64,
}

impl CorpusStats {
    /// Reads `N` and `avgdl` from `index`.
    pub fn from_index(index: &InvertedIndex) -> Self {
        let doc_count = index.doc_count();
        Self {
            doc_count,
            // Same conversions as FTS5: (double)nToken / (double)nRow.
            avgdl: index.total_terms() as f64 / f64::from(doc_count),
        }
    }
}

/// What a BM25 search reads: the corpus statistics, document lengths and the postings of
/// each query term. [`InvertedIndex`] is one; `index::porter_index` derives another from an
/// index of unstemmed tokens.
pub trait Bm25Source {
    /// `N` and `avgdl`.
    fn stats(&self) -> CorpusStats;
    /// One more than the largest `DocId` a posting may name (the score buffer's length).
    fn doc_id_bound(&self) -> usize;
    /// `|D|` of `doc`, or `None` if it is not indexed (its postings are then stale and
    /// skipped).
    fn doc_len(&self, doc: DocId) -> Option<u32>;
    /// The postings of an analysed query term; `None` or an empty list when no document
    /// holds it.
    fn phrase(&self, term: &str) -> Option<PhraseList<'_>>;
}

impl Bm25Source for InvertedIndex {
    fn stats(&self) -> CorpusStats {
        CorpusStats::from_index(self)
    }

    fn doc_id_bound(&self) -> usize {
        InvertedIndex::doc_id_bound(self)
    }

    #[inline]
    fn doc_len(&self, doc: DocId) -> Option<u32> {
        self.try_doc_len(doc)
    }

    fn phrase(&self, term: &str) -> Option<PhraseList<'_>> {
        self.term_id(term).map(|id| PhraseList::of_term(self, id))
    }
}

/// FTS5's idf of a term found in `doc_freq` of `doc_count` documents:
/// `ln((N − n + 0.5) / (n + 0.5))`, or [`MIN_IDF`] when that is not positive.
pub fn idf(doc_count: u32, doc_freq: u32) -> f64 {
    let (n, hits) = (i64::from(doc_count), i64::from(doc_freq));
    // FTS5 subtracts in 64-bit integers and then adds 0.5 in double.
    let idf = (((n - hits) as f64 + 0.5) / (hits as f64 + 0.5)).ln();
    if idf <= 0.0 {
        MIN_IDF
    } else {
        idf
    }
}

/// The length term `K(D) = k1 · (1 − b + b · |D| / avgdl)`, shared by every query term of a
/// document.
pub fn length_norm(doc_len: u32, avgdl: f64, params: &Bm25Params) -> f64 {
    // Operation order as in FTS5: (1 - b) + ((b * D) / avgdl).
    params.k1 * (1.0 - params.b + params.b * f64::from(doc_len) / avgdl)
}

/// One query term's contribution `idf · (f · (k1 + 1)) / (f + K(D))`, with `length_norm` the
/// value of [`length_norm`] for the document. `tf` is a float because FTS5 accumulates
/// weighted frequencies: a caller may pass a match-quality weight times the raw count.
pub fn term_score(idf: f64, tf: f64, length_norm: f64, params: &Bm25Params) -> f64 {
    idf * ((tf * (params.k1 + 1.0)) / (tf + length_norm))
}

/// The BM25 score a document would get for holding each query term marked in `admits` once,
/// at the average length: `Σ idf(q_i)` over those terms that some document holds (`tf = 1`
/// and `|D| = avgdl` make each term's factor `(k1 + 1) / (1 + k1) = 1`; a term no document
/// holds adds nothing to any score, as in FTS5, and nothing here). Dividing a score by this
/// weight gives the share of the query's known idf a document matches, comparable across
/// queries and index sizes (`rank::evidence`); 0 when no term is admitted or the index is
/// empty.
pub fn query_weight(index: &impl Bm25Source, query_terms: &[&str], admits: &[bool]) -> f64 {
    let doc_count = index.stats().doc_count;
    if doc_count == 0 {
        return 0.0;
    }
    query_terms
        .iter()
        .enumerate()
        .filter(|(i, _)| admits.get(*i).copied().unwrap_or(true))
        .map(|(_, &term)| {
            let doc_freq = index.phrase(term).map_or(0, |list| {
                u32::try_from(list.postings().doc_freq()).unwrap_or(u32::MAX)
            });
            if doc_freq == 0 {
                0.0
            } else {
                idf(doc_count, doc_freq)
            }
        })
        .sum()
}

/// OR-query: every indexed document containing at least one of `query_terms` (analysed
/// terms, one FTS5 phrase each, repeats included), scored as FTS5 `bm25()` (positive).
///
/// `accept` filters matching documents, in ascending `DocId` order; it is asked only about
/// documents whose score would enter the current top `k` (so at most once per match, often
/// far less). Rejected documents are dropped before the top-k selection, while `N`, `avgdl`
/// and the document frequencies stay those of the whole index, as in FTS5. Returns the best `k` (any `k`,
/// including `usize::MAX`) by score descending, ties by ascending `DocId`.
///
/// Allocates a [`SearchBuffer`] for the call; use [`search_with`] to reuse one.
pub fn search(
    index: &InvertedIndex,
    query_terms: &[&str],
    params: &Bm25Params,
    k: usize,
    accept: impl FnMut(DocId) -> bool,
) -> Vec<ScoredDoc> {
    search_with(
        &mut SearchBuffer::new(),
        index,
        query_terms,
        params,
        k,
        accept,
    )
}

/// [`search`] with a caller-owned buffer, which grows to the index's
/// [`doc_id_bound`](InvertedIndex::doc_id_bound) once and is then reused without
/// allocating or clearing.
pub fn search_with(
    buffer: &mut SearchBuffer,
    index: &InvertedIndex,
    query_terms: &[&str],
    params: &Bm25Params,
    k: usize,
    accept: impl FnMut(DocId) -> bool,
) -> Vec<ScoredDoc> {
    search_gated(buffer, index, query_terms, &[], params, k, accept)
}

/// [`search_with`] restricted to documents that contain at least one query term marked in
/// `admits` (`admits[i]` is about `query_terms[i]`; a missing entry counts as `true`, so an
/// empty slice admits every match). Scores are unchanged: every query term still adds its
/// FTS5 contribution, in query order, to the documents that qualify.
///
/// Recall uses this to ignore documents that match only stopwords while still scoring
/// stopwords as FTS5 does. It is also faster than filtering afterwards: the admitting terms
/// are read first and only mark their documents; the posting lists of the other terms, often
/// the longest (`the`, `and`), are then merged against those marks (seeking each marked
/// document through the list's skip entries when there are far fewer marked documents than
/// postings), so their other documents cost neither a score nor a filter call.
pub fn search_gated(
    buffer: &mut SearchBuffer,
    index: &impl Bm25Source,
    query_terms: &[&str],
    admits: &[bool],
    params: &Bm25Params,
    k: usize,
    accept: impl FnMut(DocId) -> bool,
) -> Vec<ScoredDoc> {
    search_marking_terms(buffer, index, query_terms, admits, &[], params, k, accept)
}

/// [`search_gated`] that also tells which query terms each result holds: `bits[i]` (0 beyond
/// its end) is or-ed into [`ScoredDoc::terms`] of every document holding `query_terms[i]`.
/// Scores and order are those of [`search_gated`]. Recall gives each distinct content word a
/// bit, and so learns what share of the question a memory holds without reading its text.
#[allow(clippy::too_many_arguments)]
pub fn search_marking_terms(
    buffer: &mut SearchBuffer,
    index: &impl Bm25Source,
    query_terms: &[&str],
    admits: &[bool],
    bits: &[u32],
    params: &Bm25Params,
    k: usize,
    mut accept: impl FnMut(DocId) -> bool,
) -> Vec<ScoredDoc> {
    let stats = index.stats();
    let phrases = resolve(index, query_terms, admits, bits, stats.doc_count);
    if k == 0 || !phrases.iter().any(|p| p.admits) {
        return Vec::new();
    }
    buffer.fit(index.doc_id_bound());
    if bits.iter().any(|&b| b != 0) {
        buffer.fit_terms();
    }
    let gated = phrases.iter().any(|p| !p.admits);
    // Marks first, so that a non-admitting phrase earlier in the query already knows which
    // documents qualify; the scores are then added phrase by phrase, in query order.
    let mut marked = 0;
    if gated {
        for phrase in phrases.iter().filter(|p| p.admits) {
            for posting in phrase.list.postings() {
                if index.doc_len(posting.doc()).is_some() {
                    marked += usize::from(buffer.mark(posting.doc()));
                }
            }
        }
    }
    let add = |buffer: &mut SearchBuffer, phrase: &Phrase, posting: Posting| {
        let doc = posting.doc();
        let Some(doc_len) = index.doc_len(doc) else {
            return; // a posting left by an incomplete remove
        };
        let norm = length_norm(doc_len, stats.avgdl, params);
        let tf = f64::from(posting.tf());
        buffer.add(doc, term_score(phrase.idf, tf, norm, params));
        if phrase.bit != 0 {
            buffer.add_term(doc, phrase.bit);
        }
    };
    for phrase in &phrases {
        let postings = phrase.list.postings();
        let every = phrase.admits || !gated;
        if !every && marked.saturating_mul(SEEK_RATIO) < postings.doc_freq() {
            // Few marked documents: seek each one in the long list.
            let mut rest = postings;
            let mut ahead: Option<Posting> = None;
            buffer.for_each_marked(|buffer, doc| {
                let next = match ahead {
                    Some(p) if p.doc() >= doc => ahead,
                    _ => rest.seek(doc),
                };
                ahead = next;
                match next {
                    Some(p) if p.doc() == doc => add(buffer, phrase, p),
                    Some(_) => {}
                    None => return false,
                }
                true
            });
        } else {
            for posting in postings {
                if every || buffer.is_marked(posting.doc()) {
                    add(buffer, phrase, posting);
                }
            }
        }
    }
    let mut top = sort::TopK::new(k);
    buffer.drain(|doc, score, terms| {
        // `accept` only for documents that would enter the top k: most matches of a common
        // term never get that far, and the filter is the costlier test.
        let scored = ScoredDoc { doc, score, terms };
        if top.admits(&ByRank(scored)) && accept(doc) {
            top.push(ByRank(scored));
        }
    });
    top.into_sorted_vec().into_iter().map(|r| r.0).collect()
}

/// Number of indexed documents that contain at least one of `query_terms` and pass
/// `accept` (called once per matching document, in ascending order): the length of
/// [`search`] with `k = usize::MAX`, without scoring. Allocates one bit per `DocId`.
pub fn count_matches(
    index: &InvertedIndex,
    query_terms: &[&str],
    mut accept: impl FnMut(DocId) -> bool,
) -> usize {
    let mut seen = vec![0u64; index.doc_id_bound().div_ceil(64)];
    for phrase in resolve(index, query_terms, &[], &[], index.doc_count()) {
        for posting in phrase.list.postings().filter(|p| index.contains(p.doc())) {
            let doc = posting.doc().0 as usize;
            seen[doc / 64] |= 1 << (doc % 64);
        }
    }
    let mut count = 0;
    for_each_set_bit(&mut seen, |doc| {
        count += usize::from(accept(DocId(doc as u32)))
    });
    count
}

/// Reusable scratch space for [`search_with`]: a score slot per `DocId` and a bitset of the
/// documents the current query touched. Outside a search every slot is 0.0 and every bit
/// clear, so a buffer can serve any number of searches, on any index, without clearing.
#[derive(Debug, Clone, Default)]
pub struct SearchBuffer {
    scores: Vec<f64>,
    seen: Vec<u64>,
    /// Query-term bits per document ([`search_marking_terms`]); empty until a search asks.
    terms: Vec<u32>,
}

impl SearchBuffer {
    /// An empty buffer; it grows on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// Grows the buffer to hold `doc_id_bound` documents.
    fn fit(&mut self, doc_id_bound: usize) {
        if self.scores.len() < doc_id_bound {
            self.scores.resize(doc_id_bound, 0.0);
            self.seen.resize(doc_id_bound.div_ceil(64), 0);
        }
    }

    /// Grows the term bits to the scores' length.
    fn fit_terms(&mut self) {
        if self.terms.len() < self.scores.len() {
            self.terms.resize(self.scores.len(), 0);
        }
    }

    /// Ors `bit` into `doc`'s term bits (after [`fit_terms`](Self::fit_terms)).
    fn add_term(&mut self, doc: DocId, bit: u32) {
        if let Some(t) = self.terms.get_mut(doc.0 as usize) {
            *t |= bit;
        }
    }

    fn add(&mut self, doc: DocId, term_score: f64) {
        let slot = doc.0 as usize;
        self.seen[slot / 64] |= 1 << (slot % 64);
        self.scores[slot] += term_score;
    }

    /// Sets `doc`'s bit without a score; whether it was clear.
    fn mark(&mut self, doc: DocId) -> bool {
        let slot = doc.0 as usize;
        let word = &mut self.seen[slot / 64];
        let bit = 1 << (slot % 64);
        let was_clear = *word & bit == 0;
        *word |= bit;
        was_clear
    }

    fn is_marked(&self, doc: DocId) -> bool {
        let slot = doc.0 as usize;
        self.seen
            .get(slot / 64)
            .is_some_and(|word| word & (1 << (slot % 64)) != 0)
    }

    /// Visits the set bits in ascending order (leaving them set) while `visit` returns true.
    fn for_each_marked(&mut self, mut visit: impl FnMut(&mut Self, DocId) -> bool) {
        for i in 0..self.seen.len() {
            let mut rest = self.seen[i];
            while rest != 0 {
                if !visit(self, DocId((i * 64) as u32 + rest.trailing_zeros())) {
                    return;
                }
                rest &= rest - 1;
            }
        }
    }

    /// Visits every touched document in ascending order with its score, resetting the
    /// buffer to its idle state (all slots 0.0, all bits clear) as it goes.
    fn drain(&mut self, mut visit: impl FnMut(DocId, f64, u32)) {
        let (scores, terms) = (&mut self.scores, &mut self.terms);
        for_each_set_bit(&mut self.seen, |slot| {
            let t = terms.get_mut(slot).map_or(0, std::mem::take);
            visit(DocId(slot as u32), std::mem::take(&mut scores[slot]), t);
        });
    }
}

/// Calls `visit` with the position of every set bit of `bits` in ascending order, clearing
/// the bits.
fn for_each_set_bit(bits: &mut [u64], mut visit: impl FnMut(usize)) {
    for (i, word) in bits.iter_mut().enumerate() {
        let mut rest = std::mem::take(word);
        while rest != 0 {
            visit(i * 64 + rest.trailing_zeros() as usize);
            rest &= rest - 1;
        }
    }
}

/// One query term's part in a document's score.
#[derive(Debug, Clone, PartialEq)]
pub struct TermExplanation {
    /// The analysed query term.
    pub term: String,
    /// Number of documents containing it, `n`.
    pub doc_freq: u32,
    /// Its idf.
    pub idf: f64,
    /// Its frequency in the document, `f`.
    pub tf: u32,
    /// Its contribution to the score (0 when `tf = 0`).
    pub score: f64,
}

/// Why a document has its score: the statistics and each query term's contribution.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// The document.
    pub doc: DocId,
    /// Its number of terms, `|D|`.
    pub doc_len: u32,
    /// The corpus statistics used.
    pub stats: CorpusStats,
    /// `K(D)`, see [`length_norm`].
    pub length_norm: f64,
    /// One entry per query term, in query order.
    pub terms: Vec<TermExplanation>,
    /// The total, equal to the score [`search`] gives the document.
    pub score: f64,
}

/// The score breakdown of `doc` for `query_terms`, or `None` if `doc` is not indexed. A
/// document that matches no term is explained with a score of 0.
pub fn explain(
    index: &InvertedIndex,
    query_terms: &[&str],
    doc: DocId,
    params: &Bm25Params,
) -> Option<Explanation> {
    let doc_len = index.try_doc_len(doc)?;
    let stats = CorpusStats::from_index(index);
    let norm = length_norm(doc_len, stats.avgdl, params);
    let mut score = 0.0;
    let terms = query_terms
        .iter()
        .map(|&term| {
            let id = index.term_id(term);
            let postings = id.map_or(Postings::EMPTY, |id| index.postings(id));
            let doc_freq = postings.doc_freq() as u32;
            let idf = idf(stats.doc_count, doc_freq);
            let tf = postings
                .clone()
                .seek(doc)
                .filter(|p| p.doc() == doc)
                .map_or(0, Posting::tf);
            let part = if tf == 0 {
                0.0
            } else {
                term_score(idf, f64::from(tf), norm, params)
            };
            score += part;
            TermExplanation {
                term: term.to_owned(),
                doc_freq,
                idf,
                tf,
                score: part,
            }
        })
        .collect();
    Some(Explanation {
        doc,
        doc_len,
        stats,
        length_norm: norm,
        terms,
        score,
    })
}

impl fmt::Display for Explanation {
    /// A small table, one line per query term.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "doc {} score {:.6} (|D| {}, N {}, avgdl {:.3}, K {:.6})",
            self.doc.0,
            self.score,
            self.doc_len,
            self.stats.doc_count,
            self.stats.avgdl,
            self.length_norm
        )?;
        for t in &self.terms {
            writeln!(
                f,
                "  {:<16} n {:>6}  idf {:>9.6}  tf {:>4}  score {:.6}",
                t.term, t.doc_freq, t.idf, t.tf, t.score
            )?;
        }
        Ok(())
    }
}

/// A query phrase present in the index: its idf and posting list.
struct Phrase<'a> {
    list: PhraseList<'a>,
    idf: f64,
    /// Whether a document containing this phrase qualifies (see [`search_gated`]).
    admits: bool,
    /// Or-ed into the term bits of every document holding it ([`search_marking_terms`]).
    bit: u32,
}

/// The query terms that occur in the index, in query order, with whether they admit a
/// document (see [`search_gated`]; `true` beyond the end of `admits`). Absent terms are
/// dropped: in FTS5 they add `+0.0` to every document.
fn resolve<'a>(
    index: &'a impl Bm25Source,
    query_terms: &[&str],
    admits: &[bool],
    bits: &[u32],
    doc_count: u32,
) -> Vec<Phrase<'a>> {
    query_terms
        .iter()
        .enumerate()
        .filter_map(|(i, &term)| {
            let list = index.phrase(term)?;
            let doc_freq = u32::try_from(list.postings().doc_freq()).unwrap_or(u32::MAX);
            (doc_freq > 0).then(|| Phrase {
                idf: idf(doc_count, doc_freq),
                list,
                admits: admits.get(i).copied().unwrap_or(true),
                bit: bits.get(i).copied().unwrap_or(0),
            })
        })
        .collect()
}

/// A non-admitting posting list is searched (instead of scanned) when it is longer than this
/// many times the number of marked documents: a seek decodes up to [`SKIP`] postings per
/// marked document, a scan decodes every posting and tests its bit.
const SEEK_RATIO: usize = SKIP as usize / 2;

/// A result in ranking order: [`sort::Ranked`]'s (higher score first, then lower `DocId`),
/// carrying the rest of the [`ScoredDoc`].
#[derive(Debug, Clone, Copy)]
struct ByRank(ScoredDoc);

impl ByRank {
    fn key(&self) -> sort::Ranked<f64> {
        sort::Ranked {
            score: self.0.score,
            id: self.0.doc.0,
        }
    }
}

impl Ord for ByRank {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for ByRank {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for ByRank {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for ByRank {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::SplitMix64;

    #[test]
    fn a_frequency_above_a_postings_byte_scores_exactly() {
        let mut index = InvertedIndex::new();
        let text: Vec<&str> = std::iter::repeat_n("echo", 300).chain(["x"]).collect();
        index.insert(DocId(0), text.iter().copied()).unwrap();
        index.insert(DocId(1), ["echo", "y"]).unwrap();
        index.insert(DocId(2), ["z"]).unwrap();
        let params = Bm25Params::default();
        let stats = CorpusStats::from_index(&index);
        let norm = length_norm(301, stats.avgdl, &params);
        let want = term_score(idf(3, 2), 300.0, norm, &params);
        let found = search(&index, &["echo"], &params, 10, |_| true);
        assert_eq!(found[0].doc, DocId(0));
        assert_close!(found[0].score, want, 1e-12 * want.abs().max(1.0));
        let explained = explain(&index, &["echo"], DocId(0), &params).unwrap();
        assert_eq!(explained.terms[0].tf, 300);
        assert_close!(explained.score, want, 1e-12 * want.abs().max(1.0));
    }

    fn index_of(docs: &[&str]) -> InvertedIndex {
        let mut index = InvertedIndex::new();
        for (i, text) in docs.iter().enumerate() {
            index
                .insert(DocId(i as u32), text.split_whitespace())
                .unwrap();
        }
        index
    }

    fn all(_: DocId) -> bool {
        true
    }

    /// Scores from SQLite 3.51.1: `CREATE VIRTUAL TABLE docs USING fts5(body)`, the
    /// documents below with rowid 0..=5, then
    /// `SELECT rowid, -bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid`.
    const FTS5_DOCS: [&str; 6] = [
        "connect connect connect the cafe",
        "",
        "",
        "the the the run",
        "cafe strass nguyen đuong σίσυφοσ москва 東京タワー",
        "et naiv",
    ];

    #[test]
    fn equals_fts5_on_a_small_table() {
        let index = index_of(&FTS5_DOCS);
        type Case<'a> = (&'a [&'a str], &'a [(u32, f64)]);
        let cases: [Case; 4] = [
            (
                &["connect", "the"],
                &[(0, 2.2483464827450597), (3, 0.862087108523108)],
            ),
            (
                &["the", "the"],
                &[(3, 1.724174217046216), (0, 0.9236647591319015)],
            ),
            (
                &["cafe"],
                &[(0, 0.46183237956595075), (4, 0.38033254787784176)],
            ),
            (
                &["zzz", "the"],
                &[(3, 0.862087108523108), (0, 0.46183237956595075)],
            ),
        ];
        for (query, expected) in cases {
            let got = search(&index, query, &Bm25Params::default(), 10, all);
            let got: Vec<(u32, f64)> = got.iter().map(|s| (s.doc.0, s.score)).collect();
            assert_eq!(got, expected, "query {query:?}");
        }
    }

    #[test]
    fn clamps_the_idf_of_terms_in_half_the_documents_or_more() {
        assert_eq!(idf(10, 5), MIN_IDF);
        assert_eq!(idf(10, 10), MIN_IDF);
        assert_close!(idf(10, 4), (6.5f64 / 4.5).ln(), 1e-15);
        assert_close!(idf(1, 0), 3f64.ln(), 1e-15);
    }

    #[test]
    fn filters_before_top_k_but_keeps_whole_index_statistics() {
        let index = index_of(&["a b", "a", "a c", "b", "a a"]);
        let unfiltered = search(&index, &["a"], &Bm25Params::default(), 10, all);
        let odd = search(&index, &["a"], &Bm25Params::default(), 2, |d| d.0 % 2 == 1);
        assert_eq!(odd.len(), 1, "only doc 1 is odd and contains a");
        let same = unfiltered.iter().find(|s| s.doc == DocId(1)).unwrap();
        assert_eq!(odd[0], *same);
    }

    #[test]
    fn breaks_ties_by_ascending_doc_id() {
        let index = index_of(&["x y", "y x", "x", "y x", "z"]);
        let got = search(&index, &["x"], &Bm25Params::default(), 3, all);
        let docs: Vec<u32> = got.iter().map(|s| s.doc.0).collect();
        assert_eq!(docs, [2, 0, 1]);
        assert_eq!(got[1].score, got[2].score);
    }

    #[test]
    fn returns_nothing_for_an_empty_index_query_or_k() {
        let empty = InvertedIndex::new();
        assert!(search(&empty, &["a"], &Bm25Params::default(), 5, all).is_empty());
        let index = index_of(&["a"]);
        assert!(search(&index, &[], &Bm25Params::default(), 5, all).is_empty());
        assert!(search(&index, &["b"], &Bm25Params::default(), 5, all).is_empty());
        assert!(search(&index, &["a"], &Bm25Params::default(), 0, all).is_empty());
        assert_eq!(count_matches(&index, &["a", "b"], all), 1);
    }

    #[test]
    fn skips_documents_removed_with_incomplete_terms() {
        let mut index = index_of(&["a b", "b"]);
        index.remove(DocId(0), ["a"]);
        let got = search(&index, &["b"], &Bm25Params::default(), 10, all);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].doc, DocId(1));
        assert_eq!(count_matches(&index, &["b"], all), 1);
    }

    #[test]
    fn explains_the_score_that_search_returns() {
        let index = index_of(&["a b a", "b c", "c c c a", "d"]);
        let query = ["c", "a", "zzz", "a"];
        let params = Bm25Params::default();
        for hit in search(&index, &query, &params, 10, all) {
            let e = explain(&index, &query, hit.doc, &params).unwrap();
            assert_eq!(e.score, hit.score);
            assert_eq!(e.terms.len(), 4);
            assert_eq!(e.terms[2].score, 0.0);
            assert!(e.to_string().starts_with(&format!("doc {}", hit.doc.0)));
        }
        assert!(explain(&index, &query, DocId(9), &params).is_none());
    }

    #[test]
    fn validates_params() {
        assert_eq!(Bm25Params::new(1.2, 0.75).unwrap(), Bm25Params::default());
        let err = Bm25Params::new(-1.0, 0.75).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid_argument: bm25 k1 must be finite and non-negative, got -1"
        );
        assert!(Bm25Params::new(f64::NAN, 0.5).is_err());
        assert!(Bm25Params::new(1.2, 1.5).is_err());
    }

    /// The oracle: FTS5's formula evaluated naively over every document, then a full sort.
    fn oracle(
        docs: &[Option<Vec<String>>],
        query: &[&str],
        k: usize,
        accept: impl Fn(DocId) -> bool,
    ) -> Vec<ScoredDoc> {
        let present: Vec<(u32, &Vec<String>)> = docs
            .iter()
            .enumerate()
            .filter_map(|(i, d)| Some((i as u32, d.as_ref()?)))
            .collect();
        let n = present.len() as u32;
        let total: usize = present.iter().map(|(_, d)| d.len()).sum();
        let avgdl = total as f64 / f64::from(n);
        let tf = |d: &Vec<String>, t: &str| d.iter().filter(|x| *x == t).count() as u32;
        let dfs: Vec<u32> = query
            .iter()
            .map(|t| present.iter().filter(|(_, d)| tf(d, t) > 0).count() as u32)
            .collect();
        let mut scored: Vec<ScoredDoc> = present
            .iter()
            .filter(|&&(doc, d)| accept(DocId(doc)) && query.iter().any(|t| tf(d, t) > 0))
            .map(|&(doc, d)| {
                let mut score = 0.0;
                for (t, &df) in query.iter().zip(&dfs) {
                    let f = f64::from(tf(d, t));
                    let kd = 1.2 * (1.0 - 0.75 + 0.75 * d.len() as f64 / avgdl);
                    score += idf(n, df) * ((f * (1.2 + 1.0)) / (f + kd));
                }
                ScoredDoc {
                    doc: DocId(doc),
                    score,
                    terms: 0,
                }
            })
            .collect();
        scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        scored.truncate(k);
        scored
    }

    #[test]
    fn top_k_equals_a_full_sort_of_all_matches() {
        const CASES: u64 = 300;
        // One buffer for every case: it must come back clean after each search.
        let mut buffer = SearchBuffer::new();
        for case in 0..CASES {
            let seed = 0xb325_0000 + case;
            let mut rng = SplitMix64(seed);
            let vocabulary = 1 + rng.below(12);
            let mut docs: Vec<Option<Vec<String>>> = vec![None; 1 + rng.below(60) as usize];
            let mut index = InvertedIndex::new();
            // Insert in random order, then update a few documents.
            for _ in 0..docs.len() * 2 {
                let doc = rng.below(docs.len() as u64) as usize;
                if let Some(old) = docs[doc].take() {
                    index.remove(DocId(doc as u32), old.iter().map(String::as_str));
                }
                let len = rng.below(9) as usize;
                let terms: Vec<String> = (0..len)
                    .map(|_| format!("t{}", rng.below(vocabulary)))
                    .collect();
                index
                    .insert(DocId(doc as u32), terms.iter().map(String::as_str))
                    .unwrap();
                docs[doc] = Some(terms);
            }
            let query: Vec<String> = (0..1 + rng.below(6))
                .map(|_| format!("t{}", rng.below(vocabulary + 2)))
                .collect();
            let query: Vec<&str> = query.iter().map(String::as_str).collect();
            let k = [0, 1, 3, 10, usize::MAX][rng.below(5) as usize];
            let modulus = 1 + rng.below(3) as u32;
            let accept = |d: DocId| d.0 % modulus == 0;
            let got = search(&index, &query, &Bm25Params::default(), k, accept);
            let expected = oracle(&docs, &query, k, accept);
            assert_eq!(got, expected, "seed {seed:#x}, query {query:?}, k {k}");
            let params = Bm25Params::default();
            let reused = search_with(&mut buffer, &index, &query, &params, k, accept);
            assert_eq!(reused, expected, "seed {seed:#x}: reused buffer");
            let all_matches = oracle(&docs, &query, usize::MAX, accept).len();
            assert_eq!(
                count_matches(&index, &query, accept),
                all_matches,
                "seed {seed:#x}"
            );
        }
    }

    #[test]
    fn gated_search_equals_filtering_by_an_admitting_term() {
        let mut buffer = SearchBuffer::new();
        for case in 0..300u64 {
            let seed = 0x6a7e_0000 + case;
            let mut rng = SplitMix64(seed);
            // Large stores with a few rare terms and very common ones, so that both the
            // scan and the seeks into the non-admitting lists run.
            let n = 1 + rng.below(if case % 3 == 0 { 3000 } else { 60 }) as usize;
            let vocabulary = 1 + rng.below(12);
            let mut docs: Vec<Option<Vec<String>>> = vec![None; n];
            let mut index = InvertedIndex::new();
            for (doc, slot) in docs.iter_mut().enumerate() {
                if rng.below(10) == 0 {
                    continue; // a gap in the DocIds
                }
                let len = rng.below(9) as usize;
                let mut terms: Vec<String> = (0..len)
                    .map(|_| {
                        // t0 is in most documents, higher terms ever rarer.
                        let t = rng.below(vocabulary).min(rng.below(vocabulary + 1));
                        format!("t{t}")
                    })
                    .collect();
                if rng.below(3) > 0 {
                    terms.push("t0".into());
                }
                // A rare admitting term, so that few documents are marked and the long lists
                // are searched through their skip entries.
                if rng.below(150) == 0 {
                    terms.push("rare".into());
                }
                index
                    .insert(DocId(doc as u32), terms.iter().map(String::as_str))
                    .unwrap();
                *slot = Some(terms);
            }
            let query: Vec<String> = (0..1 + rng.below(6))
                .map(|_| format!("t{}", rng.below(vocabulary + 1)))
                .collect();
            let mut query: Vec<&str> = query.iter().map(String::as_str).collect();
            let mut admits: Vec<bool> = query.iter().map(|_| rng.below(3) == 0).collect();
            if rng.below(2) == 0 {
                let at = rng.below(query.len() as u64 + 1) as usize;
                query.insert(at, "rare");
                admits.insert(at, true);
            }
            let k = [1, 3, 10, 50, usize::MAX][rng.below(5) as usize];
            let modulus = 1 + rng.below(3) as u32;
            let has_admitting = |d: DocId| {
                docs[d.0 as usize].as_ref().is_some_and(|terms| {
                    query
                        .iter()
                        .zip(&admits)
                        .any(|(q, &a)| a && terms.iter().any(|t| t == q))
                })
            };
            let accept = |d: DocId| d.0 % modulus == 0;
            let expected = oracle(&docs, &query, k, |d| accept(d) && has_admitting(d));
            let params = Bm25Params::default();
            let got = search_gated(&mut buffer, &index, &query, &admits, &params, k, accept);
            assert_eq!(got, expected, "seed {seed:#x}, query {query:?} {admits:?}");
        }
    }

    #[test]
    fn gated_search_skips_documents_removed_with_incomplete_terms() {
        let mut index = index_of(&["a b", "b", "a"]);
        index.remove(DocId(0), ["a"]);
        let mut buffer = SearchBuffer::new();
        let params = Bm25Params::default();
        let got = search_gated(
            &mut buffer,
            &index,
            &["b", "a"],
            &[true, false],
            &params,
            10,
            all,
        );
        assert_eq!(got.iter().map(|h| h.doc).collect::<Vec<_>>(), [DocId(1)]);
        // The buffer is clean again: an ungated search sees only its own matches.
        let got = search_with(&mut buffer, &index, &["a"], &params, 10, all);
        assert_eq!(got.iter().map(|h| h.doc).collect::<Vec<_>>(), [DocId(2)]);
    }
}
