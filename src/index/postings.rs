//! Inverted index: for each distinct term, the documents that contain it and how often.
//!
//! A document enters as the sequence of its analysed terms (the output of
//! `crate::text::for_each_term`). The index keeps exactly the statistics SQLite FTS5 keeps for
//! `bm25()` with a single column:
//!
//! - `N`, the number of indexed documents, counting documents with no terms at all
//!   (FTS5's `xRowCount`);
//! - `|D|`, the number of terms of each document, duplicates included (`xColumnSize`);
//! - `Σ|D|`, the total over all documents (`xColumnTotalSize`);
//! - for each term `t`, the postings `(doc, tf)` with `tf ≥ 1` the number of occurrences of
//!   `t` in `doc`, so that `n(t)`, the number of documents containing `t`, is the length of
//!   its posting list.
//!
//! # Invariants
//!
//! - Every posting list is sorted by strictly ascending [`DocId`] and holds no `tf = 0`.
//! - `doc_count()` is the number of present documents and `total_terms()` the sum of their
//!   `doc_len`s.
//! - A [`TermId`] is never reused or reassigned: a term keeps its id, and its text stays in the
//!   vocabulary, even after its posting list becomes empty.
//!
//! # Memory layout
//!
//! The index is meant to hold 100,000+ documents in a wasm32 heap, so it stores no forward
//! index (removal takes the document's terms again) and avoids one heap allocation per term:
//!
//! - term text lives in one string arena with a `u32` end offset per term, and the
//!   term → id map is an open-addressing table of `u32` ids (triangular probing, load ≤ 3/4)
//!   that re-hashes the arena text instead of storing keys or hashes: about
//!   `len + 4 + 4/load` bytes per distinct term;
//! - a posting list is delta-coded: each posting is a LEB128 varint of the document's gap
//!   from the one before (minus one), shifted left by one bit that says whether the term
//!   frequency is above 1, followed by the frequency minus 2 as a second varint when it is.
//!   Most postings of a frequent term take one byte, a rare term's about three, where a
//!   fixed-width posting takes four (measured on the 100,000-memory bench corpus: 1.35 bytes
//!   per posting instead of 4.5 with spare capacity). A list keeps its length and its last
//!   document in a 12-byte header, so appending a later document and reading `n(t)` are
//!   `O(1)`. Every [`SKIP`]-th posting appended to a list gets a skip entry (its document
//!   and the offset after it, in a side table the header points to), so [`Postings::seek`]
//!   jumps close to a document instead of decoding every posting before it, and inserting or
//!   removing a posting elsewhere decodes from the skip entry before it, moves the bytes
//!   after it and shifts the later entries' offsets (a removed posting's entry goes, so
//!   after updates entries lie about, not exactly, [`SKIP`] postings apart). A list with a
//!   single posting (about half of a natural vocabulary occurs in one document only) is
//!   stored inline, in the space of the vector header (3 words: 24 bytes, 12 on wasm32);
//!   longer lists grow by 1.25× rather than 2× to bound spare capacity;
//! - document lengths are a dense `Vec<u32>` indexed by `DocId`, so memory is 4 bytes ×
//!   (largest `DocId` + 1). Ids are dense by design (see [`DocId`]).
//!
//! [`InvertedIndex::heap_bytes`] reports the total, and [`InvertedIndex::shrink_to_fit`]
//! releases spare capacity after a bulk load.
//!
//! Reference: SQLite FTS5 `fts5_aux.c` (`fts5Bm25Function`, `fts5Bm25GetData`) for which
//! statistics are needed.

use super::{grow_by_quarter, quarter_growth};
use crate::image::{self, Persist, Reader, Writer};
use crate::sort;
use crate::store::DocId;
use crate::varint;
use crate::{Error, Result};

/// Dense id of a distinct term in an [`InvertedIndex`]'s vocabulary, assigned in order of first
/// appearance. Only meaningful for the index that returned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TermId(pub u32);

/// Largest [`DocId`] an [`InvertedIndex`] holds, so that a posting's gap and flag fit a
/// `u32` varint. (A wasm32 heap fills up well before: every id below it costs each index 4
/// bytes of document lengths, and the engine a record slot and a signature.)
pub const MAX_DOC: u32 = (1 << 24) - 1;

/// One entry of a posting list: a document that contains the term, and how many times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    doc: DocId,
    tf: u32,
}

impl Posting {
    /// `doc` with frequency `tf` (at least 1).
    pub fn new(doc: DocId, tf: u32) -> Self {
        debug_assert!(doc.0 <= MAX_DOC && tf > 0);
        Posting { doc, tf }
    }

    /// The document.
    #[inline]
    pub fn doc(self) -> DocId {
        self.doc
    }

    /// The number of occurrences of the term in the document (at least 1).
    #[inline]
    pub fn tf(self) -> u32 {
        self.tf
    }
}

/// `doc_lens` value of a `DocId` that is not in the index.
const ABSENT: u32 = u32::MAX;

/// An inverted index over analysed terms, with the per-document and corpus statistics that
/// FTS5's `bm25()` uses. See the module documentation for its invariants and memory layout.
#[derive(Debug, Clone, Default)]
pub struct InvertedIndex {
    vocabulary: Vocabulary,
    /// Posting lists, indexed by `TermId`.
    lists: Vec<PostingList>,
    /// Skip entries of the lists of [`SKIP`] postings or more, at the slot their header
    /// names.
    skips: Skips,
    /// Term count of each document, indexed by `DocId`; [`ABSENT`] when not indexed.
    doc_lens: Vec<u32>,
    doc_count: u32,
    total_terms: u64,
    /// Reused by [`insert`](Self::insert) for the document's term ids (empty between calls).
    ids: Vec<u32>,
    /// One more than the largest `DocId` ever inserted (0 when none): no posting list, not
    /// even a stale posting left by an incomplete [`remove`](Self::remove), holds a document
    /// at or above it.
    fresh_from: u64,
}

impl InvertedIndex {
    /// Creates an empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds document `doc` from its analysed terms in text order. Each occurrence counts: a
    /// term repeated three times has `tf = 3`, and the document's length is the number of
    /// items of `terms` (an empty sequence is a valid document of length 0, counted in
    /// [`doc_count`](Self::doc_count) as FTS5 counts an empty row).
    ///
    /// Documents are usually added in ascending `DocId` order (an append to each posting
    /// list), but any order is accepted, for instance re-inserting an updated document after
    /// [`remove`](Self::remove).
    ///
    /// # Errors
    ///
    /// - [`Error::AlreadyExists`] if `doc` is already indexed; the index is unchanged.
    /// - [`Error::TooLarge`] if the document has `u32::MAX` terms or more, or the vocabulary
    ///   or the document table outgrows memory or `u32` offsets. The statistics and postings
    ///   are then unchanged, though terms met before the failure may have joined the
    ///   vocabulary (with empty posting lists).
    pub fn insert<'a>(
        &mut self,
        doc: DocId,
        terms: impl IntoIterator<Item = &'a str>,
    ) -> Result<()> {
        if self.contains(doc) {
            return Err(Error::AlreadyExists(format!(
                "document {} is already indexed",
                doc.0
            )));
        }
        let mut ids = std::mem::take(&mut self.ids);
        ids.clear();
        let result = terms
            .into_iter()
            .try_for_each(|term| {
                ids.push(self.vocabulary.intern(term)?);
                Ok(())
            })
            .and_then(|()| self.add_postings(doc, &mut ids));
        ids.clear();
        self.ids = ids;
        result
    }

    /// The id of `term`, added to the vocabulary (with an empty posting list) if it is new:
    /// the first half of [`insert`](Self::insert), for callers that keep their own map from
    /// texts to terms and then call [`insert_ids`](Self::insert_ids).
    ///
    /// # Errors
    ///
    /// [`Error::TooLarge`] if the vocabulary outgrows `u32` ids or offsets.
    pub fn intern(&mut self, term: &str) -> Result<TermId> {
        self.vocabulary.intern(term).map(TermId)
    }

    /// [`insert`](Self::insert) from the ids of the document's terms ([`intern`](Self::intern)),
    /// one per occurrence, in any order: the same postings and statistics as inserting the
    /// terms themselves.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert), and [`Error::InvalidArgument`] for an id that is not in
    /// the vocabulary; the index is then unchanged.
    pub fn insert_ids(&mut self, doc: DocId, ids: &[TermId]) -> Result<()> {
        if self.contains(doc) {
            return Err(Error::AlreadyExists(format!(
                "document {} is already indexed",
                doc.0
            )));
        }
        if let Some(bad) = ids.iter().find(|id| id.0 as usize >= self.vocabulary.len()) {
            return Err(Error::InvalidArgument(format!(
                "term id {} is not in the vocabulary",
                bad.0
            )));
        }
        let mut buffer = std::mem::take(&mut self.ids);
        buffer.clear();
        buffer.extend(ids.iter().map(|id| id.0));
        let result = self.add_postings(doc, &mut buffer);
        buffer.clear();
        self.ids = buffer;
        result
    }

    /// The second half of [`insert`](Self::insert): postings and statistics of `doc` from its
    /// term ids, all in the vocabulary (sorted in place).
    fn add_postings(&mut self, doc: DocId, ids: &mut [u32]) -> Result<()> {
        let doc_len = u32::try_from(ids.len())
            .ok()
            .filter(|&len| len != ABSENT)
            .ok_or_else(|| {
                Error::TooLarge(format!(
                    "document {} has {} terms, more than {}",
                    doc.0,
                    ids.len(),
                    ABSENT - 1
                ))
            })?;
        let slot = self.reserve_doc_slot(doc)?;
        let new_terms = self.vocabulary.len().saturating_sub(self.lists.len());
        let _ = grow_by_quarter(&mut self.lists, new_terms);
        self.lists
            .resize_with(self.vocabulary.len(), PostingList::default);
        // The usual case is a document past every other: each term's posting is appended.
        let fresh = u64::from(doc.0) >= self.fresh_from;
        sort::sort_u32(ids);
        for run in ids.chunk_by(|a, b| a == b) {
            // `run.len() <= doc_len < u32::MAX`, checked above.
            let posting = Posting::new(doc, run.len() as u32);
            let list = &mut self.lists[run[0] as usize];
            if fresh {
                list.push(posting, &mut self.skips);
            } else {
                list.set(doc, Some(posting), &mut self.skips);
            }
        }
        self.fresh_from = self.fresh_from.max(u64::from(doc.0) + 1);
        self.doc_lens[slot] = doc_len;
        self.doc_count += 1;
        self.total_terms += u64::from(doc_len);
        Ok(())
    }

    /// Removes document `doc`, given the same terms it was inserted with (the caller
    /// re-analyses the document's text: no forward index is kept, to save memory). Returns
    /// whether the document was present; removing an absent document changes nothing.
    ///
    /// The statistics (`doc_count`, `total_terms`) are always updated from the stored length.
    /// If `terms` misses some of the inserted terms, their postings for `doc` stay behind:
    /// they are skipped by scoring (the document is absent) and replaced if `doc` is inserted
    /// again, but until then they count in those terms' document frequency.
    pub fn remove<'a>(&mut self, doc: DocId, terms: impl IntoIterator<Item = &'a str>) -> bool {
        let Some(doc_len) = self.stored_len(doc) else {
            return false;
        };
        for term in terms {
            let Some(id) = self.vocabulary.get(term) else {
                continue;
            };
            if let Some(list) = self.lists.get_mut(id as usize) {
                list.set(doc, None, &mut self.skips);
            }
        }
        self.doc_lens[doc.0 as usize] = ABSENT;
        while self.doc_lens.last() == Some(&ABSENT) {
            self.doc_lens.pop();
        }
        self.doc_count -= 1;
        self.total_terms -= u64::from(doc_len);
        true
    }

    /// Whether `doc` is indexed.
    pub fn contains(&self, doc: DocId) -> bool {
        self.stored_len(doc).is_some()
    }

    /// Number of indexed documents (FTS5's `N`), including documents with no terms.
    pub fn doc_count(&self) -> u32 {
        self.doc_count
    }

    /// Total number of terms over all indexed documents, duplicates included.
    pub fn total_terms(&self) -> u64 {
        self.total_terms
    }

    /// Number of terms of `doc` (its `|D|`), or 0 if `doc` is not indexed.
    pub fn doc_len(&self, doc: DocId) -> u32 {
        self.stored_len(doc).unwrap_or(0)
    }

    /// Number of terms of `doc`, or `None` if `doc` is not indexed.
    pub fn try_doc_len(&self, doc: DocId) -> Option<u32> {
        self.stored_len(doc)
    }

    /// One more than the largest indexed `DocId` (0 when empty): the length of a dense
    /// per-document array such as BM25's score buffer.
    pub fn doc_id_bound(&self) -> usize {
        self.doc_lens.len()
    }

    /// One more than the largest `DocId` ever inserted (0 when none): no posting, not even a
    /// stale one, names a document at or above it.
    pub fn doc_bound_ever(&self) -> u64 {
        self.fresh_from
    }

    /// Every document's length by `DocId`, for scoring loops that want no per-posting call;
    /// `u32::MAX` marks a `DocId` that is not indexed. Its length is [`doc_id_bound`](Self::doc_id_bound).
    pub fn doc_lens(&self) -> &[u32] {
        &self.doc_lens
    }

    /// The id of `term`, if it has ever been indexed. The term must be analysed already
    /// (folded and stemmed); no normalisation happens here.
    pub fn term_id(&self, term: &str) -> Option<TermId> {
        self.vocabulary.get(term).map(TermId)
    }

    /// The text of term `id`, or `""` if `id` does not come from this index.
    pub fn term(&self, id: TermId) -> &str {
        self.vocabulary.text(id.0).unwrap_or("")
    }

    /// The postings of term `id`, sorted by ascending document; empty if no indexed
    /// document contains the term or `id` does not come from this index.
    pub fn postings(&self, id: TermId) -> Postings<'_> {
        self.lists
            .get(id.0 as usize)
            .map_or(Postings::EMPTY, |list| list.postings(&self.skips))
    }

    /// Number of distinct terms ever indexed, including terms whose postings are now empty.
    pub fn vocabulary_len(&self) -> usize {
        self.vocabulary.len()
    }

    /// Releases spare capacity in every table, for instance after a bulk load.
    pub fn shrink_to_fit(&mut self) {
        self.vocabulary.shrink_to_fit();
        self.lists.shrink_to_fit();
        self.lists.iter_mut().for_each(PostingList::shrink_to_fit);
        self.skips.shrink_to_fit();
        self.doc_lens.shrink_to_fit();
        self.ids.shrink_to_fit();
    }

    /// Heap memory held by the index, in bytes: the capacity of every table (allocator
    /// overhead excluded).
    pub fn heap_bytes(&self) -> usize {
        let lists: usize = self.lists.iter().map(PostingList::heap_bytes).sum();
        self.vocabulary.heap_bytes()
            + self.lists.capacity() * std::mem::size_of::<PostingList>()
            + lists
            + self.skips.heap_bytes()
            + self.doc_lens.capacity() * std::mem::size_of::<u32>()
            + self.ids.capacity() * std::mem::size_of::<u32>()
    }

    /// The part of [`heap_bytes`](Self::heap_bytes) held by the vocabulary.
    pub fn vocabulary_heap_bytes(&self) -> usize {
        self.vocabulary.heap_bytes()
    }

    fn stored_len(&self, doc: DocId) -> Option<u32> {
        match self.doc_lens.get(doc.0 as usize) {
            Some(&len) if len != ABSENT => Some(len),
            _ => None,
        }
    }

    /// Grows `doc_lens` so that `doc` has a slot, reporting allocation failure as an error.
    fn reserve_doc_slot(&mut self, doc: DocId) -> Result<usize> {
        let slot = doc.0 as usize;
        let too_large = || Error::TooLarge(format!("document id {} is too large", doc.0));
        if doc.0 > MAX_DOC {
            return Err(too_large());
        }
        let needed = slot.checked_add(1).ok_or_else(too_large)?;
        if needed > self.doc_lens.len() {
            let missing = needed - self.doc_lens.len();
            grow_by_quarter(&mut self.doc_lens, missing).map_err(|_| too_large())?;
            self.doc_lens.resize(needed, ABSENT);
        }
        Ok(slot)
    }
}

/// The postings of one query phrase: a term's own list in an index, or the postings of
/// several terms added up (a stem's tokens, see `index::porter_index`), built by
/// [`PhraseList::from_counts`].
#[derive(Debug, Clone)]
pub struct PhraseList<'a>(PhraseSource<'a>);

#[derive(Debug, Clone)]
enum PhraseSource<'a> {
    Index(Postings<'a>),
    Built(Vec<Posting>),
}

impl<'a> PhraseList<'a> {
    /// The list of term `id` of `index`.
    pub fn of_term(index: &'a InvertedIndex, id: TermId) -> Self {
        PhraseList(PhraseSource::Index(index.postings(id)))
    }

    /// A list from `(document, frequency)` pairs in strictly ascending document order, each
    /// document at most [`MAX_DOC`] and each frequency at least 1.
    pub fn from_counts(counts: impl IntoIterator<Item = (DocId, u32)>) -> Self {
        let list = counts
            .into_iter()
            .map(|(doc, tf)| Posting::new(doc, tf))
            .collect();
        PhraseList(PhraseSource::Built(list))
    }

    /// The postings, by ascending document.
    pub fn postings(&self) -> Postings<'_> {
        match &self.0 {
            PhraseSource::Index(postings) => postings.clone(),
            PhraseSource::Built(list) => Postings::decoded(list),
        }
    }
}

/// The postings of a list in ascending document order, decoded as they are read (see the
/// module documentation for the encoding). The list's length, the term's `n(t)`, is known up
/// front: [`doc_freq`](Self::doc_freq).
#[derive(Debug, Clone)]
pub struct Postings<'a> {
    /// Postings not read yet that are not encoded (a list's only posting, kept inline, or a
    /// list built for a query); read before `bytes`.
    decoded: &'a [Posting],
    /// The encoded postings not read yet.
    bytes: &'a [u8],
    /// All the encoded postings, and the list's skip entries into them.
    stream: &'a [u8],
    skips: &'a [(u32, u32)],
    /// Postings in the list.
    count: u32,
    /// The smallest document the next encoded posting can name: one past the previous one.
    next_doc: u32,
}

/// Whether documents, asked in ascending order, are in a posting list: seeks, with the
/// document the last seek reached kept (a seek reads past the posting it returns).
#[derive(Debug, Clone)]
pub struct Membership<'a> {
    list: Postings<'a>,
    reached: Option<u32>,
}

impl<'a> Membership<'a> {
    /// Membership in `list`.
    pub fn new(list: Postings<'a>) -> Self {
        Membership {
            list,
            reached: None,
        }
    }

    /// Whether `doc` is in the list; `doc` is at least every document asked before.
    pub fn holds(&mut self, doc: DocId) -> bool {
        if self.reached.map_or(true, |r| r < doc.0) {
            self.reached = Some(self.list.seek(doc).map_or(u32::MAX, |p| p.doc().0));
        }
        self.reached == Some(doc.0)
    }
}

impl<'a> Postings<'a> {
    /// No postings.
    pub const EMPTY: Postings<'static> = Postings {
        decoded: &[],
        bytes: &[],
        stream: &[],
        skips: &[],
        count: 0,
        next_doc: 0,
    };

    /// The postings of `list`, in ascending document order.
    fn decoded(list: &'a [Posting]) -> Self {
        Postings {
            decoded: list,
            count: list.len() as u32,
            ..Postings::EMPTY
        }
    }

    /// Reads on to the first posting whose document is at least `doc` and returns it, or
    /// `None` if there is none. The list's skip entries jump close to it first, so a seek
    /// decodes the postings between two skip entries (about [`SKIP`]) at most, plus those up
    /// to the first entry when it starts there.
    #[inline(never)]
    pub fn seek(&mut self, doc: DocId) -> Option<Posting> {
        let passed = self.skips.partition_point(|s| s.0 < doc.0);
        if let Some(&(skip_doc, offset)) = passed.checked_sub(1).and_then(|i| self.skips.get(i)) {
            // Only forward: every posting up to the entry's is before `doc`.
            if offset as usize > self.stream.len() - self.bytes.len() {
                self.bytes = self.stream.get(offset as usize..).unwrap_or_default();
                self.next_doc = skip_doc.wrapping_add(1);
            }
        }
        self.find(|p| p.doc >= doc)
    }

    /// The number of postings of the whole list (the term's `n(t)`), read or not.
    pub fn doc_freq(&self) -> usize {
        self.count as usize
    }

    /// Whether the list has no postings.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl Iterator for Postings<'_> {
    type Item = Posting;

    #[inline]
    fn next(&mut self) -> Option<Posting> {
        if let Some((&posting, rest)) = self.decoded.split_first() {
            self.decoded = rest;
            return Some(posting);
        }
        let posting = match self.bytes.split_first() {
            None => return None,
            // The usual posting: a gap below 64 and a frequency of 1, in one byte.
            Some((&byte, rest)) if byte < 0x80 && byte & 1 == 0 => {
                self.bytes = rest;
                Posting {
                    doc: DocId(self.next_doc.wrapping_add(u32::from(byte >> 1))),
                    tf: 1,
                }
            }
            _ => decode(&mut self.bytes, self.next_doc),
        };
        self.next_doc = posting.doc.0.wrapping_add(1);
        Some(posting)
    }
}

/// The posting encoded at the front of `bytes`, whose document is at least `next_doc`; the
/// bytes are advanced past it.
#[inline(never)]
fn decode(bytes: &mut &[u8], next_doc: u32) -> Posting {
    let head = varint::read(bytes);
    let tf = if head & 1 == 0 {
        1
    } else {
        varint::read(bytes).wrapping_add(2)
    };
    Posting {
        doc: DocId(next_doc.wrapping_add(head >> 1)),
        tf,
    }
}

/// Up to two encoded postings, built on the stack before they enter a list.
struct Encoded {
    bytes: [u8; 20],
    len: usize,
}

impl Encoded {
    fn new() -> Self {
        Encoded {
            bytes: [0; 20],
            len: 0,
        }
    }

    /// Appends `posting`, whose document is at least `next_doc`.
    #[inline(never)]
    fn put(&mut self, posting: Posting, next_doc: u32) {
        encode_posting(posting, next_doc, |b| {
            self.bytes[self.len] = b;
            self.len += 1;
        });
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Gives `out` the bytes of `posting`, whose document is at least `next_doc`: a varint of its
/// document's gap from `next_doc` with one bit for "frequency above 1", then the frequency
/// less 2 as a second varint when it is.
fn encode_posting(posting: Posting, next_doc: u32, mut out: impl FnMut(u8)) {
    let many = posting.tf > 1;
    varint::put((posting.doc.0 - next_doc) << 1 | u32::from(many), &mut out);
    if many {
        varint::put(posting.tf - 2, &mut out);
    }
}

/// Skip entries of the posting lists, by slot: for every [`SKIP`]-th posting, its document and
/// the offset of the byte after it in the list's encoded postings. A list's header names its
/// slot (0: none).
#[derive(Debug, Clone, Default)]
struct Skips {
    /// The entries of slot `s` are `tables[s - 1]`.
    tables: Vec<Vec<(u32, u32)>>,
    /// Slots whose list gave them up (it shrank to one posting or none), empty, for the next
    /// list that needs one: churn reuses slots instead of adding new ones.
    free: Vec<u32>,
}

impl Skips {
    /// The entries of `slot` (none for slot 0 or a slot out of range).
    fn get(&self, slot: usize) -> &[(u32, u32)] {
        slot.checked_sub(1)
            .and_then(|i| self.tables.get(i))
            .map_or(&[], Vec::as_slice)
    }

    /// The entries of `slot`, to change (none for slot 0 or a slot out of range).
    fn get_mut(&mut self, slot: usize) -> Option<&mut Vec<(u32, u32)>> {
        slot.checked_sub(1).and_then(|i| self.tables.get_mut(i))
    }

    /// A slot for a list that has none: a free one, else a new one.
    fn take(&mut self) -> usize {
        match self.free.pop() {
            Some(slot) => slot as usize,
            None => {
                self.tables.push(Vec::new());
                self.tables.len()
            }
        }
    }

    /// Frees `slot` (nothing for 0 or a slot out of range) and its entries.
    fn release(&mut self, slot: usize) {
        if let Some(table) = self.get_mut(slot) {
            *table = Vec::new();
            // `slot <= tables.len()`, and slots are written to u32 list headers.
            self.free.push(slot as u32);
        }
    }

    fn shrink_to_fit(&mut self) {
        self.tables.iter_mut().for_each(Vec::shrink_to_fit);
        self.free.shrink_to_fit();
    }

    /// Bytes of the tables, a 12-byte vector header for each slot (as on wasm32).
    fn heap_bytes(&self) -> usize {
        let entries: usize = self.tables.iter().map(|t| t.capacity() * 8).sum();
        self.tables.capacity() * 12 + entries + self.free.capacity() * 4
    }
}

/// A list gets a skip entry every this many postings.
pub const SKIP: u32 = 64;

/// A posting list: empty, one posting inline, or more encoded after a 12-byte header (the
/// number of postings, the last document and one more than its slot in [`Skips`], or 0 if it
/// has none; little-endian `u32`s).
#[derive(Debug, Clone, Default)]
enum PostingList {
    #[default]
    Empty,
    One(Posting),
    Many(Vec<u8>),
}

// The memory layout promised in the module docs: the inline variant is free.
const _: () = assert!(std::mem::size_of::<PostingList>() == std::mem::size_of::<Vec<u8>>());

/// Bytes of a [`PostingList::Many`] header.
const HEADER: usize = 12;

/// The `u32` at byte `at` of a list header (0 past its end, which a list never is).
fn header_word(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .and_then(|word| word.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

/// Writes a list header: `count` postings, the last in document `last`.
fn set_header(bytes: &mut [u8], count: u32, last: u32) {
    if let Some(header) = bytes.get_mut(..8) {
        header[..4].copy_from_slice(&count.to_le_bytes());
        header[4..].copy_from_slice(&last.to_le_bytes());
    }
}

/// The skip entries of the list whose bytes are `bytes`, given a slot if it has none.
fn skip_table<'s>(bytes: &mut [u8], skips: &'s mut Skips) -> &'s mut Vec<(u32, u32)> {
    let mut slot = header_word(bytes, 8) as usize;
    if slot == 0 || slot > skips.tables.len() {
        slot = skips.take();
        if let Some(word) = bytes.get_mut(8..HEADER) {
            word.copy_from_slice(&(slot as u32).to_le_bytes());
        }
    }
    &mut skips.tables[slot - 1]
}

impl PostingList {
    fn postings<'a>(&'a self, skips: &'a Skips) -> Postings<'a> {
        match self {
            PostingList::Empty => Postings::EMPTY,
            PostingList::One(posting) => Postings::decoded(std::slice::from_ref(posting)),
            PostingList::Many(bytes) => {
                let stream = bytes.get(HEADER..).unwrap_or_default();
                let count = header_word(bytes, 0);
                let slot = header_word(bytes, 8) as usize;
                Postings {
                    decoded: &[],
                    bytes: stream,
                    stream,
                    skips: skips.get(slot),
                    count,
                    next_doc: 0,
                }
            }
        }
    }

    /// The last document of the list, if any.
    fn last_doc(&self) -> Option<u32> {
        match self {
            PostingList::Empty => None,
            PostingList::One(posting) => Some(posting.doc.0),
            PostingList::Many(bytes) => Some(header_word(bytes, 4)),
        }
    }

    /// Appends `posting`, whose document comes after every document of the list.
    fn push(&mut self, posting: Posting, skips: &mut Skips) {
        match self {
            PostingList::Empty => *self = PostingList::One(posting),
            PostingList::One(first) => {
                let first = *first;
                self.encode_one(first, skips);
                self.push(posting, skips);
            }
            PostingList::Many(bytes) => {
                let count = header_word(bytes, 0) + 1;
                let next_doc = header_word(bytes, 4).wrapping_add(1);
                let mut len = 0;
                encode_posting(posting, next_doc, |_| len += 1);
                // Grow by 1.25× instead of Vec's 2× (measured: 6% less memory per document
                // on a 100,000-document Zipf corpus, same insert speed).
                let _ = grow_by_quarter(bytes, len);
                // Byte by byte, not a copy from an `Encoded`: a copy of a few bytes is a
                // `memcpy` call (in wasm a `memory.copy`), dearer than the bytes themselves.
                encode_posting(posting, next_doc, |b| bytes.push(b));
                set_header(bytes, count, posting.doc.0);
                if count % SKIP == 0 {
                    let offset = (bytes.len() - HEADER) as u32;
                    skip_table(bytes, skips).push((posting.doc.0, offset));
                }
            }
        }
    }

    /// Turns the list into an encoded one of the single posting `only` (a transient state
    /// for [`push`](Self::push) and [`set`](Self::set), which never leave a list so).
    fn encode_one(&mut self, only: Posting, skips: &mut Skips) {
        // No postings yet, the last "before document 0".
        let mut bytes = vec![0; HEADER];
        set_header(&mut bytes, 0, u32::MAX);
        *self = PostingList::Many(bytes);
        self.push(only, skips);
    }

    /// Gives document `doc` the posting `new` (at its sorted place, replacing any posting of
    /// `doc`), or removes the posting of `doc` when `new` is `None`.
    fn set(&mut self, doc: DocId, new: Option<Posting>, skips: &mut Skips) {
        match self.last_doc() {
            Some(last) if doc.0 <= last => {}
            _ => {
                if let Some(posting) = new {
                    self.push(posting, skips);
                }
                return;
            }
        }
        if let PostingList::One(only) = *self {
            if new.is_none() && only.doc != doc {
                return; // nothing to remove
            }
            self.encode_one(only, skips);
        }
        let PostingList::Many(bytes) = self else {
            return;
        };
        let mut count = header_word(bytes, 0);
        let mut last = header_word(bytes, 4);
        let slot = header_word(bytes, 8) as usize;
        let mut no_entries = Vec::new();
        let entries = skips.get_mut(slot).unwrap_or(&mut no_entries);
        // Find the first posting at or after `doc` (there is one: `doc <= last`), from the
        // last skip entry before it.
        let passed = entries.partition_point(|s| s.0 < doc.0);
        let (mut next_doc, from) = match passed.checked_sub(1).and_then(|i| entries.get(i)) {
            Some(&(skip_doc, offset)) => (skip_doc + 1, HEADER + offset as usize),
            None => (0, HEADER),
        };
        let mut rest = bytes.get(from..).unwrap_or_default();
        let (start, found) = loop {
            let start = bytes.len() - rest.len();
            let posting = decode(&mut rest, next_doc);
            if posting.doc >= doc || rest.is_empty() {
                break (start, posting);
            }
            next_doc = posting.doc.0 + 1;
        };
        let mut end = bytes.len() - rest.len();
        let mut encoded = Encoded::new();
        match new {
            // Replace the posting of `doc`; the next one's gap is unchanged.
            Some(posting) if found.doc == doc => encoded.put(posting, next_doc),
            // Insert before `found`, whose gap shrinks.
            Some(posting) => {
                encoded.put(posting, next_doc);
                encoded.put(found, doc.0 + 1);
                count += 1;
            }
            None if found.doc != doc => return,
            // Remove the posting of `doc`: the next one's gap grows.
            None => {
                if rest.is_empty() {
                    // The previous posting's (none when this was the only one).
                    last = next_doc.wrapping_sub(1);
                } else {
                    let following = decode(&mut rest, doc.0 + 1);
                    end = bytes.len() - rest.len();
                    encoded.put(following, next_doc);
                }
                count -= 1;
            }
        }
        // The skip entries after the change move with the bytes; one for a removed posting
        // goes (the others then lie fewer than `SKIP` postings apart, which seeks allow).
        if new.is_none() && entries.get(passed).is_some_and(|s| s.0 == doc.0) {
            entries.remove(passed);
        }
        let moved = start + encoded.len;
        for skip in entries.iter_mut().skip(passed) {
            skip.1 = (skip.1 as usize + moved - end) as u32;
        }
        // Replace `start..end` with the encoded postings.
        let tail = bytes.len() - end;
        let new_end = start + encoded.len;
        if new_end > end {
            let _ = grow_by_quarter(bytes, new_end - end);
            bytes.resize(new_end + tail, 0);
        }
        bytes.copy_within(end..end + tail, new_end);
        bytes.truncate(new_end + tail);
        if let Some(slot) = bytes.get_mut(start..new_end) {
            slot.copy_from_slice(encoded.as_slice());
        }
        set_header(bytes, count, last);
        if bytes.len() * 4 <= bytes.capacity() {
            bytes.shrink_to(bytes.len() + bytes.len() / 2);
        }
        if count <= 1 {
            skips.release(slot);
            let only = decode(&mut bytes.get(HEADER..).unwrap_or_default(), 0);
            *self = match count {
                0 => PostingList::Empty,
                _ => PostingList::One(only),
            };
        }
    }

    fn shrink_to_fit(&mut self) {
        if let PostingList::Many(bytes) = self {
            bytes.shrink_to_fit();
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            PostingList::Many(bytes) => bytes.capacity(),
            _ => 0,
        }
    }
}

/// Interned term texts: a string arena plus an open-addressing hash table of term ids.
#[derive(Debug, Clone, Default)]
struct Vocabulary {
    /// All term texts, concatenated in id order.
    arena: String,
    /// `ends[i]` is the end offset of term `i` in `arena`; it starts at `ends[i - 1]` (or 0).
    ends: Vec<u32>,
    /// Hash slots: 0 is empty, otherwise `id + 1`. Length is 0 or a power of two.
    slots: Vec<u32>,
}

/// Smallest non-empty hash table.
const MIN_SLOTS: usize = 16;

impl Vocabulary {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn text(&self, id: u32) -> Option<&str> {
        let i = id as usize;
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.arena.get(start..end)
    }

    /// The bytes of term `id` (empty if `id` names no term): [`text`](Self::text) without
    /// the checks of a `str` slice, for comparisons.
    fn bytes(&self, id: u32) -> &[u8] {
        let i = id as usize;
        let end = self.ends.get(i).map_or(0, |&end| end as usize);
        let start = match i.checked_sub(1) {
            Some(before) => self.ends.get(before).map_or(0, |&start| start as usize),
            None => 0,
        };
        self.arena.as_bytes().get(start..end).unwrap_or_default()
    }

    fn get(&self, term: &str) -> Option<u32> {
        self.find(term).ok()
    }

    /// The id of `term`, adding it if new.
    fn intern(&mut self, term: &str) -> Result<u32> {
        let slot = match self.find(term) {
            Ok(id) => return Ok(id),
            Err(slot) => slot,
        };
        let id = u32::try_from(self.ends.len())
            .ok()
            .filter(|&id| id < u32::MAX - 1)
            .ok_or_else(|| Error::TooLarge("vocabulary has too many terms".into()))?;
        let end = u32::try_from(self.arena.len() + term.len())
            .map_err(|_| Error::TooLarge(format!("vocabulary text exceeds {} bytes", u32::MAX)))?;
        if let Some(reserve) = quarter_growth(self.arena.len(), self.arena.capacity(), term.len()) {
            let _ = self.arena.try_reserve_exact(reserve);
        }
        let _ = grow_by_quarter(&mut self.ends, 1);
        self.arena.push_str(term);
        self.ends.push(end);
        match slot {
            Some(slot) if self.ends.len() * 4 <= self.slots.len() * 3 => {
                self.slots[slot] = id + 1;
            }
            _ => self.grow(),
        }
        Ok(id)
    }

    /// `Ok(id)` if `term` is present, else `Err` with the empty slot where it would go (`None`
    /// when the table has no slots yet).
    fn find(&self, term: &str) -> std::result::Result<u32, Option<usize>> {
        if self.slots.is_empty() {
            return Err(None);
        }
        let mask = self.slots.len() - 1;
        let mut slot = hash(term) as usize & mask;
        let mut step = 0;
        loop {
            match self.slots[slot] {
                0 => return Err(Some(slot)),
                stored if self.bytes(stored - 1) == term.as_bytes() => return Ok(stored - 1),
                _ => {
                    // Triangular probing visits every slot of a power-of-two table.
                    step += 1;
                    slot = (slot + step) & mask;
                }
            }
        }
    }

    /// Doubles the table (or creates it) and re-inserts every term.
    fn grow(&mut self) {
        let mut size = self.slots.len().max(MIN_SLOTS);
        while self.ends.len() * 4 > size * 3 {
            size *= 2;
        }
        self.slots = vec![0; size];
        let mask = size - 1;
        for id in 0..self.ends.len() as u32 {
            let text = self.text(id).unwrap_or("");
            let mut slot = hash(text) as usize & mask;
            let mut step = 0;
            while self.slots[slot] != 0 {
                step += 1;
                slot = (slot + step) & mask;
            }
            self.slots[slot] = id + 1;
        }
    }

    fn shrink_to_fit(&mut self) {
        self.arena.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    fn heap_bytes(&self) -> usize {
        self.arena.capacity() + (self.ends.capacity() + self.slots.capacity()) * 4
    }
}

/// The term's bytes eight at a time (little-endian words; a shorter last word read from
/// overlapping fixed-size loads), each mixed into a state that starts as the length by a
/// xor, a multiply by an odd constant and a rotation; then the MurmurHash3 finaliser, so that
/// the low bits used by the table mix every byte. One multiply per word instead of FNV-1a's
/// one per byte (terms average about 6 bytes); two terms of the same length of at most 8
/// bytes never collide, as every step is a bijection. Deterministic: the same terms always
/// produce the same table.
fn hash(term: &str) -> u64 {
    /// 2^64 / φ, odd.
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let bytes = term.as_bytes();
    let n = bytes.len();
    let mut h = n as u64;
    let mut at = 0;
    while at + 8 <= n {
        h = (h ^ word(bytes, at)).wrapping_mul(K).rotate_left(29);
        at += 8;
    }
    if at < n {
        // The last bytes as one word, from fixed-size reads (a copy of the remainder into a
        // zeroed word is a `memcpy` call): the last eight bytes, overlapping the words
        // before, or for a shorter term two overlapping halves, or its first, middle and
        // last bytes. With the length, each determines the bytes it covers.
        let last = if n >= 8 {
            word(bytes, n - 8)
        } else if n >= 4 {
            u64::from(half(bytes, 0)) | u64::from(half(bytes, n - 4)) << 32
        } else {
            u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16
        };
        h = (h ^ last).wrapping_mul(K);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The little-endian `u64` at byte `at` of `bytes` (0 past the end, which callers never ask).
fn word(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..at + 8)
        .and_then(|w| w.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// The little-endian `u32` at byte `at` of `bytes` (0 past the end).
fn half(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .and_then(|w| w.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

impl Persist for InvertedIndex {
    fn save(&self, w: &mut Writer) -> Result<()> {
        let v = &self.vocabulary;
        v.arena.save(w)?;
        w.u32s(&v.ends)?;
        w.u32s(&v.slots)?;
        w.len(self.lists.len())?;
        for list in &self.lists {
            match list {
                PostingList::Empty => 0u8.save(w)?,
                PostingList::One(p) => {
                    1u8.save(w)?;
                    p.doc.0.save(w)?;
                    p.tf.save(w)?;
                }
                PostingList::Many(bytes) => {
                    2u8.save(w)?;
                    w.blob(bytes)?;
                }
            }
        }
        w.len(self.skips.tables.len())?;
        for table in &self.skips.tables {
            table.save(w)?;
        }
        w.u32s(&self.skips.free)?;
        w.u32s(&self.doc_lens)?;
        self.doc_count.save(w)?;
        self.total_terms.save(w)?;
        self.fresh_from.save(w)
    }

    /// Reads an index and checks what its readers rely on: term offsets inside the arena on
    /// character boundaries, a hash table with free slots naming each term once, and every
    /// posting list decoding to ascending documents below `fresh_from`, as many as its header
    /// says, with skip entries inside it.
    fn load(r: &mut Reader) -> Result<Self> {
        let vocabulary = Vocabulary {
            arena: String::load(r)?,
            ends: r.u32s()?,
            slots: r.u32s()?,
        };
        let lists = r.seq(|r| {
            Ok(match u8::load(r)? {
                0 => PostingList::Empty,
                1 => PostingList::One(Posting::new(DocId(u32::load(r)?), u32::load(r)?)),
                2 => PostingList::Many(r.blob()?),
                _ => return Err(image::corrupt("a posting list of an unknown kind")),
            })
        })?;
        let tables = Vec::<Vec<(u32, u32)>>::load(r)?;
        let index = InvertedIndex {
            vocabulary,
            lists,
            skips: Skips {
                tables,
                free: r.u32s()?,
            },
            doc_lens: r.u32s()?,
            doc_count: u32::load(r)?,
            total_terms: u64::load(r)?,
            ids: Vec::new(),
            fresh_from: u64::load(r)?,
        };
        index.check()?;
        Ok(index)
    }
}

impl InvertedIndex {
    /// The checks of [`Persist::load`].
    fn check(&self) -> Result<()> {
        let bad = |what: &str| Err(image::corrupt(what));
        let v = &self.vocabulary;
        let mut start = 0;
        for &end in &v.ends {
            let end = end as usize;
            if end < start || !v.arena.is_char_boundary(end) {
                return bad("a term outside the vocabulary's text");
            }
            start = end;
        }
        if start != v.arena.len() || self.lists.len() > v.len() {
            return bad("a vocabulary whose parts disagree");
        }
        let used = v.slots.iter().filter(|&&s| s != 0).count();
        if !(v.slots.is_empty() || v.slots.len().is_power_of_two())
            || used != v.len()
            || used * 4 > v.slots.len() * 3
            || v.slots.iter().any(|&s| s as usize > v.len())
        {
            return bad("a vocabulary hash table that does not hold its terms");
        }
        let (live, total) = self
            .doc_lens
            .iter()
            .filter(|&&len| len != ABSENT)
            .fold((0u32, 0u64), |(n, t), &len| (n + 1, t + u64::from(len)));
        if live != self.doc_count
            || total != self.total_terms
            || self.doc_lens.len() as u64 > self.fresh_from
            || self.fresh_from > u64::from(MAX_DOC) + 1
            || self
                .skips
                .free
                .iter()
                .any(|&s| s == 0 || s as usize > self.skips.tables.len())
        {
            return bad("document statistics that disagree");
        }
        for list in &self.lists {
            let PostingList::Many(bytes) = list else {
                if let PostingList::One(p) = list {
                    if u64::from(p.doc.0) >= self.fresh_from {
                        return bad("a posting past the last document");
                    }
                }
                continue;
            };
            if bytes.len() < HEADER || header_word(bytes, 8) as usize > self.skips.tables.len() {
                return bad("a posting list with a bad header");
            }
            let stream = bytes.len() - HEADER;
            let (mut count, mut last) = (0u32, None::<u32>);
            for posting in list.postings(&self.skips) {
                if last.is_some_and(|l| posting.doc.0 <= l)
                    || u64::from(posting.doc.0) >= self.fresh_from
                {
                    return bad("a posting list out of order");
                }
                last = Some(posting.doc.0);
                count += 1;
            }
            let skips = self.skips.get(header_word(bytes, 8) as usize);
            if count != header_word(bytes, 0)
                || last != Some(header_word(bytes, 4))
                || skips.iter().any(|&(_, at)| at as usize > stream)
            {
                return bad("a posting list whose header disagrees");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::SplitMix64;
    use std::collections::BTreeMap;

    fn docs(index: &InvertedIndex, term: &str) -> Vec<(u32, u32)> {
        let id = index.term_id(term).expect("term is in the vocabulary");
        index.postings(id).map(|p| (p.doc().0, p.tf())).collect()
    }

    #[test]
    fn counts_duplicate_terms_toward_tf_and_length() {
        let mut index = InvertedIndex::new();
        index.insert(DocId(0), ["a", "b", "a", "a"]).unwrap();
        index.insert(DocId(1), ["b"]).unwrap();
        assert_eq!(docs(&index, "a"), [(0, 3)]);
        assert_eq!(docs(&index, "b"), [(0, 1), (1, 1)]);
        assert_eq!(index.doc_len(DocId(0)), 4);
        assert_eq!(index.doc_len(DocId(1)), 1);
        assert_eq!(index.doc_count(), 2);
        assert_eq!(index.total_terms(), 5);
        assert_eq!(index.vocabulary_len(), 2);
    }

    #[test]
    fn counts_a_document_without_terms() {
        let mut index = InvertedIndex::new();
        index.insert(DocId(3), []).unwrap();
        assert!(index.contains(DocId(3)));
        assert_eq!(index.doc_id_bound(), 4);
        assert_eq!(index.doc_count(), 1);
        assert_eq!(index.try_doc_len(DocId(3)), Some(0));
        assert_eq!(index.try_doc_len(DocId(2)), None);
    }

    #[test]
    fn rejects_a_document_already_present_and_changes_nothing() {
        let mut index = InvertedIndex::new();
        index.insert(DocId(7), ["x", "y"]).unwrap();
        let err = index.insert(DocId(7), ["z"]).unwrap_err();
        assert_eq!(err.code(), "already_exists");
        assert_eq!(
            err.to_string(),
            "already_exists: document 7 is already indexed"
        );
        assert_eq!(index.term_id("z"), None);
        assert_eq!(index.doc_count(), 1);
        assert_eq!(index.total_terms(), 2);
    }

    #[test]
    fn keeps_postings_sorted_when_documents_arrive_out_of_order() {
        let mut index = InvertedIndex::new();
        for doc in [5, 1, 9, 3, 7, 0] {
            index.insert(DocId(doc), ["t"]).unwrap();
        }
        let order: Vec<u32> = docs(&index, "t").iter().map(|&(d, _)| d).collect();
        assert_eq!(order, [0, 1, 3, 5, 7, 9]);
    }

    #[test]
    fn removes_a_document_and_allows_reinserting_it() {
        let mut index = InvertedIndex::new();
        index.insert(DocId(0), ["a", "b"]).unwrap();
        index.insert(DocId(1), ["a", "a", "c"]).unwrap();
        assert!(index.remove(DocId(0), ["a", "b"]));
        assert!(!index.remove(DocId(0), ["a", "b"]));
        assert_eq!(docs(&index, "a"), [(1, 2)]);
        assert!(docs(&index, "b").is_empty());
        assert_eq!((index.doc_count(), index.total_terms()), (1, 3));
        assert!(index.remove(DocId(1), ["a", "a", "c"]));
        assert_eq!(index.doc_id_bound(), 0);
        index.insert(DocId(1), ["a", "a", "c"]).unwrap();
        index.insert(DocId(0), ["b", "b"]).unwrap();
        assert_eq!(docs(&index, "b"), [(0, 2)]);
        assert_eq!((index.doc_count(), index.total_terms()), (2, 5));
    }

    #[test]
    fn inserting_term_ids_equals_inserting_the_terms() {
        for case in 0..100 {
            let seed = 0x1d5_0000 + case;
            let mut rng = SplitMix64(seed);
            let (mut by_terms, mut by_ids) = (InvertedIndex::new(), InvertedIndex::new());
            for doc in 0..rng.below(30) as u32 {
                let len = rng.below(12) as usize;
                let terms: Vec<String> = (0..len).map(|_| format!("t{}", rng.below(20))).collect();
                by_terms
                    .insert(DocId(doc), terms.iter().map(String::as_str))
                    .unwrap();
                let ids: Vec<TermId> = terms.iter().map(|t| by_ids.intern(t).unwrap()).collect();
                by_ids.insert_ids(DocId(doc), &ids).unwrap();
            }
            assert_eq!(by_terms.doc_lens(), by_ids.doc_lens(), "seed {seed}");
            assert_eq!(by_terms.total_terms(), by_ids.total_terms(), "seed {seed}");
            assert_eq!(
                by_terms.vocabulary_len(),
                by_ids.vocabulary_len(),
                "seed {seed}"
            );
            for id in 0..by_terms.vocabulary_len() as u32 {
                let id = TermId(id);
                assert_eq!(by_terms.term(id), by_ids.term(id), "seed {seed}");
                assert!(by_terms.postings(id).eq(by_ids.postings(id)), "seed {seed}");
            }
        }
    }

    #[test]
    fn term_ids_outside_the_vocabulary_are_rejected_without_a_change() {
        let mut index = InvertedIndex::new();
        let a = index.intern("a").unwrap();
        let err = index.insert_ids(DocId(0), &[a, TermId(1)]).unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
        assert!(!index.contains(DocId(0)));
        assert!(index.postings(a).is_empty());
        index.insert_ids(DocId(0), &[a, a]).unwrap();
        assert_eq!(docs(&index, "a"), [(0, 2)]);
        let again = index.insert_ids(DocId(0), &[a]).unwrap_err();
        assert_eq!(again.code(), "already_exists");
    }

    #[test]
    fn removing_an_absent_document_returns_false() {
        let mut index = InvertedIndex::new();
        assert!(!index.remove(DocId(4), ["a"]));
        index.insert(DocId(1), ["a"]).unwrap();
        assert!(!index.remove(DocId(4), ["a"]));
        assert_eq!(docs(&index, "a"), [(1, 1)]);
    }

    #[test]
    fn removing_a_document_a_single_posting_list_lacks_keeps_it_inline() {
        // Regression: the list was encoded (allocated) before finding nothing to remove.
        let mut index = InvertedIndex::new();
        index.insert(DocId(0), ["b"]).unwrap();
        index.insert(DocId(5), ["a"]).unwrap();
        let before = index.heap_bytes();
        assert!(index.remove(DocId(0), ["a", "b"]));
        let a = index.term_id("a").unwrap();
        assert!(matches!(index.lists[a.0 as usize], PostingList::One(_)));
        assert_eq!(docs(&index, "a"), [(5, 1)]);
        assert_eq!(index.heap_bytes(), before);
    }

    #[test]
    fn lists_that_shrink_and_grow_again_reuse_skip_slots() {
        // Regression: a list that shrank to one posting left its slot behind, empty, and took
        // a new one when it grew again, so churn added a slot per cycle.
        let mut index = InvertedIndex::new();
        let n = 3 * SKIP;
        for round in 0..5 {
            for doc in 0..n {
                index.insert(DocId(doc), ["a", "b"]).unwrap();
            }
            for term in ["a", "b"] {
                let id = index.term_id(term).unwrap();
                assert_eq!(index.postings(id).doc_freq(), n as usize);
            }
            assert_eq!(index.skips.tables.len(), 2, "round {round}");
            let b = index.term_id("b").unwrap();
            let last = index.postings(b).seek(DocId(n - 1)).map(|p| p.doc);
            assert_eq!(last, Some(DocId(n - 1)));
            for doc in 0..n {
                assert!(index.remove(DocId(doc), ["a", "b"]));
            }
            assert_eq!(index.skips.free.len(), 2, "round {round}");
            assert!(index.skips.tables.iter().all(Vec::is_empty));
        }
    }

    #[test]
    fn a_reinserted_document_replaces_postings_left_by_an_incomplete_remove() {
        let mut index = InvertedIndex::new();
        index.insert(DocId(0), ["a", "b"]).unwrap();
        assert!(index.remove(DocId(0), ["a"]));
        assert_eq!(docs(&index, "b"), [(0, 1)]);
        index.insert(DocId(0), ["b", "b", "b"]).unwrap();
        assert_eq!(docs(&index, "b"), [(0, 3)]);
    }

    #[test]
    fn unknown_ids_give_empty_answers_instead_of_panicking() {
        let index = InvertedIndex::new();
        assert_eq!(index.term(TermId(42)), "");
        assert!(index.postings(TermId(42)).is_empty());
        assert_eq!(index.doc_len(DocId(u32::MAX)), 0);
        assert_eq!(index.term_id("nope"), None);
    }

    #[test]
    fn term_ids_round_trip_through_term_text() {
        let mut index = InvertedIndex::new();
        let words: Vec<String> = (0..1000).map(|i| format!("w{i}é")).collect();
        index
            .insert(DocId(0), words.iter().map(String::as_str))
            .unwrap();
        index.insert(DocId(1), [""]).unwrap();
        for (i, w) in words.iter().enumerate() {
            let id = index.term_id(w).unwrap();
            assert_eq!(id, TermId(i as u32));
            assert_eq!(index.term(id), w);
        }
        assert_eq!(index.term(index.term_id("").unwrap()), "");
        assert_eq!(index.vocabulary_len(), 1001);
    }

    #[test]
    fn shrinking_keeps_the_contents() {
        let mut index = InvertedIndex::new();
        for doc in 0..100 {
            index.insert(DocId(doc), ["common", "rare"]).unwrap();
        }
        let before = index.heap_bytes();
        index.shrink_to_fit();
        assert!(index.heap_bytes() <= before);
        assert_eq!(
            index.postings(index.term_id("common").unwrap()).count(),
            100
        );
    }

    /// Random inserts and removes against a `BTreeMap` model of the documents.
    #[test]
    fn matches_a_naive_model_under_random_updates() {
        const CASES: u64 = 200;
        for case in 0..CASES {
            let seed = 0x5eed_0000 + case;
            let mut rng = SplitMix64(seed);
            let mut index = InvertedIndex::new();
            let mut model: BTreeMap<u32, Vec<String>> = BTreeMap::new();
            for _ in 0..rng.below(120) {
                let doc = rng.below(40) as u32;
                if let Some(terms) = model.remove(&doc) {
                    let present = index.remove(DocId(doc), terms.iter().map(String::as_str));
                    assert!(present, "seed {seed}: remove of {doc} returned false");
                } else {
                    // One document in eight repeats a few terms hundreds of times, so that
                    // frequencies take two varint bytes and more.
                    let (len, spread) = if rng.below(8) == 0 {
                        (rng.below(900) as usize, 3)
                    } else {
                        (rng.below(12) as usize, 15)
                    };
                    let terms: Vec<String> = (0..len)
                        .map(|_| format!("t{}", rng.below(spread)))
                        .collect();
                    index
                        .insert(DocId(doc), terms.iter().map(String::as_str))
                        .unwrap();
                    model.insert(doc, terms);
                }
            }
            check_against_model(&index, &model, seed);
        }
    }

    /// The encoded lists against a model: documents spread over the whole id range (gaps
    /// of every varint length), frequencies across the varint boundaries, lists long
    /// enough for several skip entries, documents inserted and removed in any order; and
    /// `seek` to random documents from random positions.
    #[test]
    fn encoded_lists_match_a_model_under_random_updates() {
        const TFS: [u32; 7] = [1, 1, 1, 2, 3, 129, 130];
        for case in 0..40 {
            let seed = 0xc0de_0000 + case;
            let mut rng = SplitMix64(seed);
            let mut index = InvertedIndex::new();
            let mut model: BTreeMap<u32, Vec<String>> = BTreeMap::new();
            // Document ids: dense runs, and far apart (gaps up to MAX_DOC).
            let spread = [64, 8_192, 1 << 20, MAX_DOC as u64 + 1][rng.below(4) as usize];
            for _ in 0..rng.below(600) {
                // One step in four removes a present document.
                let doc = if !model.is_empty() && rng.below(4) == 0 {
                    let at = rng.below(model.len() as u64) as usize;
                    *model.keys().nth(at).unwrap()
                } else {
                    rng.below(spread) as u32
                };
                if let Some(terms) = model.remove(&doc) {
                    assert!(index.remove(DocId(doc), terms.iter().map(String::as_str)));
                    continue;
                }
                let mut terms = Vec::new();
                for t in 0..3 {
                    if rng.below(3) > 0 {
                        let tf = match rng.below(200) {
                            0 => 16_385, // a frequency of three varint bytes
                            _ => TFS[rng.below(TFS.len() as u64) as usize] as usize,
                        };
                        terms.extend(std::iter::repeat_n(format!("t{t}"), tf));
                    }
                }
                index
                    .insert(DocId(doc), terms.iter().map(String::as_str))
                    .unwrap();
                model.insert(doc, terms);
            }
            check_against_model(&index, &model, seed);
            for t in 0..3 {
                let Some(id) = index.term_id(&format!("t{t}")) else {
                    continue;
                };
                let all: Vec<Posting> = index.postings(id).collect();
                assert_eq!(index.postings(id).doc_freq(), all.len(), "seed {seed}");
                // Every skip entry names a posting of the list and the offset just after it.
                let postings = index.postings(id);
                let mut docs = postings.skips.iter().map(|s| s.0).peekable();
                assert!(
                    postings.skips.windows(2).all(|w| w[0].0 < w[1].0),
                    "seed {seed}"
                );
                for (at, p) in all.iter().enumerate() {
                    if docs.next_if_eq(&p.doc().0).is_some() {
                        let skip = postings.skips.iter().find(|s| s.0 == p.doc().0).unwrap();
                        let mut rest = postings.clone();
                        rest.bytes = &postings.stream[skip.1 as usize..];
                        rest.next_doc = p.doc().0 + 1;
                        assert!(rest.eq(all[at + 1..].iter().copied()), "seed {seed}");
                    }
                }
                assert!(
                    docs.next().is_none(),
                    "seed {seed}: a skip entry names no posting"
                );
                for _ in 0..50 {
                    let mut postings = index.postings(id);
                    let start = rng.below(all.len() as u64 + 1) as usize;
                    postings.by_ref().take(start).for_each(drop);
                    let target = DocId(rng.below(spread) as u32);
                    let expected = all[start..].iter().find(|p| p.doc() >= target).copied();
                    assert_eq!(postings.seek(target), expected, "seed {seed}, t{t}");
                    let after = expected
                        .map_or(all.len(), |p| all.iter().position(|q| *q == p).unwrap() + 1);
                    assert!(postings.eq(all[after..].iter().copied()), "seed {seed}");
                }
            }
        }
    }

    #[test]
    fn frequencies_of_255_and_more_are_exact() {
        let many = |term: &'static str, n: usize| std::iter::repeat_n(term, n);
        let mut index = InvertedIndex::new();
        // In document order (each occurrence counted in place), then out of order (sorted).
        index.insert(DocId(5), many("a", 254)).unwrap();
        index.insert(DocId(6), many("a", 255)).unwrap();
        index
            .insert(DocId(7), many("a", 70_000).chain(["b"]))
            .unwrap();
        index.insert(DocId(1), many("a", 300)).unwrap();
        assert_eq!(
            docs(&index, "a"),
            [(1, 300), (5, 254), (6, 255), (7, 70_000)]
        );
        assert_eq!(docs(&index, "b"), [(7, 1)]);
        // A stale posting left by an incomplete remove is replaced, frequency and all.
        assert!(index.remove(DocId(7), ["b"]));
        index.insert(DocId(7), many("a", 2)).unwrap();
        assert_eq!(docs(&index, "a"), [(1, 300), (5, 254), (6, 255), (7, 2)]);
        // Removing forgets the exact frequency, and the document can come back smaller.
        assert!(index.remove(DocId(1), many("a", 1)));
        index.insert(DocId(1), ["a"]).unwrap();
        assert_eq!(docs(&index, "a"), [(1, 1), (5, 254), (6, 255), (7, 2)]);
    }

    #[test]
    fn document_ids_above_max_doc_are_rejected_without_a_change() {
        let mut index = InvertedIndex::new();
        index.insert(DocId(MAX_DOC), ["a"]).unwrap();
        assert_eq!(docs(&index, "a"), [(MAX_DOC, 1)]);
        let err = index.insert(DocId(MAX_DOC + 1), ["a"]).unwrap_err();
        assert_eq!(err.code(), "too_large");
        assert_eq!(index.doc_count(), 1);
        assert_eq!(docs(&index, "a"), [(MAX_DOC, 1)]);
    }

    fn check_against_model(index: &InvertedIndex, model: &BTreeMap<u32, Vec<String>>, seed: u64) {
        assert_eq!(index.doc_count() as usize, model.len(), "seed {seed}");
        let total: usize = model.values().map(Vec::len).sum();
        assert_eq!(index.total_terms(), total as u64, "seed {seed}");
        for t in 0..15 {
            let term = format!("t{t}");
            let expected: Vec<(u32, u32)> = model
                .iter()
                .filter_map(|(&doc, terms)| {
                    let tf = terms.iter().filter(|x| **x == term).count() as u32;
                    (tf > 0).then_some((doc, tf))
                })
                .collect();
            let actual = index.term_id(&term).map_or(vec![], |_| docs(index, &term));
            assert_eq!(actual, expected, "seed {seed}, term {term}");
        }
        for (&doc, terms) in model {
            assert_eq!(
                index.doc_len(DocId(doc)) as usize,
                terms.len(),
                "seed {seed}"
            );
        }
    }
}
