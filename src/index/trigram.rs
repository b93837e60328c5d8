//! Trigram index over the vocabulary of distinct terms: maps a query word to the terms that
//! equal it, contain it, or are one typo away from it, each with a match-quality weight.
//!
//! The engine keeps document postings per term elsewhere; this index only knows terms
//! (already folded tokens). Indexing the vocabulary instead of every document keeps it
//! small, because the vocabulary grows sub-linearly with the corpus.
//!
//! # Grams
//!
//! Terms are sequences of `char`s. Each term is padded with two boundary markers on each
//! side, `$$deploy$$`, and every distinct window of three `char`s becomes a gram, packed into
//! a `u64` as three 21-bit code points. The marker is `0x1F_FFFF`, above every Unicode scalar
//! value, so it can never collide with a real character. A term of `n` chars has `n + 2`
//! padded grams; its `n − 2` interior grams (no marker) are the ones substring search uses.
//! Padding keeps edits at the ends visible: without it a middle substitution in a 5-letter
//! word destroys all three of its grams.
//!
//! # Lookup
//!
//! Let `m` be the number of chars in the word.
//!
//! * `m < 3`: exact match only. Prefix sets of 1–2 char words are huge and mostly noise
//!   (`to` → `together`, `tomorrow`), and the engine multiplies weights into BM25.
//! * `m ≥ 3`, substring: intersect the postings of the word's interior grams, rarest first
//!   (galloping search), then verify each survivor with `str::contains`. A survivor that
//!   equals the word is [`MatchKind::Exact`], one that starts with it is
//!   [`MatchKind::Prefix`], any other is [`MatchKind::Substring`].
//! * `m ≥ 4`, typo: optimal string alignment (restricted Damerau–Levenshtein) distance 1,
//!   i.e. one insertion, deletion, substitution or adjacent transposition (`emmg` finds
//!   `emma`, as MiniSearch's `fuzzy: 0.2` does; abmind asks it from 5 letters on). Distance
//!   2 is not searched: its candidate sets are far larger and stemming plus substring search
//!   already cover most long-word variation. A 3-letter word has too many one-edit
//!   neighbours to be worth it (`cat`: `car`, `cut`, `at`, `cast`, ...).
//!
//! Typo candidates come from a count filter (Ukkonen's q-gram lemma, applied to distinct
//! grams). One edit touches at most 4 padded windows of the word (a transposition; a
//! substitution or deletion touches 3, an insertion between two chars 2), and every distinct
//! gram that also occurs at an untouched window survives into the term. So a term within one
//! edit misses at most 4 of the word's `D` distinct grams, and at most 3 (term one char
//! shorter) or 2 (term one char longer) when the lengths differ. By pigeonhole such a term
//! appears in at least one of the 5 rarest posting lists (fewer when some of the word's grams
//! occur nowhere: those count as misses for every term), so candidates are gathered from
//! those lists only, through the length filter (`|len(term) − m| ≤ 1`, one stored byte per
//! term), then merged (each list is ascending) to count their hits. Each candidate then passes, cheapest first, the
//! miss count against the remaining lists (binary search, stopping at the first miss over the
//! bound) and a linear-time distance-1 check. With two markers on each side `D ≥ 5` whenever
//! `m ≥ 4` (the four windows with a marker are distinct), so the filter never degenerates into
//! a vocabulary scan. A term that contains the
//! word was already reported by the substring pass and keeps that kind.
//!
//! # Weights
//!
//! With `c = m / len(term)` (coverage, in chars) and `L = max(m, len(term))`:
//!
//! | kind | weight | range |
//! |---|---|---|
//! | Exact | `1.0` | 1.0 |
//! | Prefix | `0.5 + 0.4·c` | (0.5, 0.9) |
//! | Substring | `0.3 + 0.5·c` | (0.3, 0.8) |
//! | Typo | `0.8·(1 − 1/L)` | [0.6, 0.8) |
//!
//! Coverage makes a short word inside a long term count less (`deploy` → `deployment` 0.74,
//! `cat` → `communication` 0.42). A prefix is usually the same word inflected, so it gets a
//! higher floor than an infix. A typo's weight is its edit similarity `1 − 1/L` scaled by 0.8,
//! so one edit in a 5-letter word costs more than one in a 12-letter word, and a typo never
//! reaches Exact. Where a term is both a containment and a typo match (`deploy` → `deploys`),
//! the containment kind wins; its weight is also the higher one (`0.3 + 0.5·c ≥ 0.8·c`).
//!
//! Output is sorted by weight descending, then id ascending, and holds at most `max` matches:
//! the best ones. Results never depend on hash-map iteration order.
//!
//! # Invariants
//!
//! * Ids are dense and assigned in insertion order, the same as in the vocabulary the texts
//!   are read from ([`Terms`]); each term is pushed once.
//! * Every posting list is strictly increasing (ids are appended in increasing order).
//! * `char_lens[id]` is the term's char count, saturated at 255 (longer terms recount).
//!
//! # Cost
//!
//! A lookup reads posting lists, never the whole vocabulary. Substring search walks the
//! rarest list of the word's grams and gallops through the others; typo search reads the 5
//! rarest lists of its padded grams. The slowest words are a 3-char word that is a very
//! common gram (`ing`: one long list, each entry verified) and a 4-char run of one letter
//! (`eeee` has only 5 distinct grams, so sharing one boundary gram makes a candidate).
//! Output memory stays `O(max)`: matches are trimmed to the best `max` as they are found.
//!
//! Memory per term of `n` chars after [`TrigramIndex::shrink_to_fit`]: postings `4·(n + 2)`
//! bytes at most and its length 1; plus the gram table, shared by all terms. The term texts
//! and the text → id map are the vocabulary's, not kept a second time.
//! [`TrigramIndex::heap_bytes`] reports the total.
//!
//! # References
//!
//! * E. Ukkonen, "Approximate string-matching with q-grams and maximal matches",
//!   Theoretical Computer Science 92 (1992): the q-gram count filter.
//! * N. Okazaki and J. Tsujii, "Simple and efficient algorithm for approximate dictionary
//!   matching", COLING 2010: candidates from the rarest lists, then binary-search counting.

use super::grow_by_quarter;
use crate::error::Result;
use crate::image::{self, Persist, Reader, Writer};
use crate::sort;
use crate::text;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::hash::BuildHasherDefault;

use crate::hash::IntHasher;

/// Boundary marker code: above `char::MAX` (0x10FFFF) and fits the 21 bits of a gram slot.
const MARKER: u64 = 0x1F_FFFF;
/// Bits per char in a packed gram; 21 bits hold every Unicode scalar value.
const CHAR_BITS: u32 = 21;
/// Shortest word searched as a substring: one full gram.
const MIN_SUBSTRING_CHARS: usize = 3;
/// Shortest word searched for typos: below this one edit changes too much of the word.
const MIN_TYPO_CHARS: usize = 4;
/// Most distinct grams of the word one edit can remove (an adjacent transposition touches
/// four padded windows).
const MAX_MISSED_GRAMS: usize = 4;
/// Most grams a deletion (term one char shorter) or substitution can remove.
const MAX_MISSED_GRAMS_SHORTER: usize = 3;
/// Most grams an insertion (term one char longer) can remove: the two windows across it.
const MAX_MISSED_GRAMS_LONGER: usize = 2;
/// Weight of an exact match.
const EXACT_WEIGHT: f64 = 1.0;
/// Prefix weight is `PREFIX_BASE + PREFIX_SPAN · coverage`.
const PREFIX_BASE: f64 = 0.5;
/// See [`PREFIX_BASE`].
const PREFIX_SPAN: f64 = 0.4;
/// Substring weight is `SUBSTRING_BASE + SUBSTRING_SPAN · coverage`.
const SUBSTRING_BASE: f64 = 0.3;
/// See [`SUBSTRING_BASE`].
const SUBSTRING_SPAN: f64 = 0.5;
/// Typo weight is `TYPO_SCALE · (1 − 1 / max_len)`: edit similarity, scaled below prefixes.
const TYPO_SCALE: f64 = 0.8;
/// Stored char length meaning "255 or more; count again".
const SATURATED_LEN: u8 = u8::MAX;
/// The id [`TrigramIndex::push`] returns when the index is full: it names no term.
const NO_TERM: u32 = u32::MAX;
/// Extra matches `lookup` buffers beyond `2·max` before trimming to the best `max`.
const TRIM_SLACK: usize = 64;

/// Id of a vocabulary term: dense, in insertion order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VocabId(pub u32);

/// How a vocabulary term matched a query word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatchKind {
    /// The term equals the word.
    Exact,
    /// The term starts with the word (and is longer).
    Prefix,
    /// The term contains the word, not at its start.
    Substring,
    /// The term is one insertion, deletion, substitution or adjacent transposition away.
    Typo,
}

/// One vocabulary term matching a query word.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TermMatch {
    /// The matching term.
    pub term: VocabId,
    /// How it matched.
    pub kind: MatchKind,
    /// Match quality in (0, 1]; 1.0 only for [`MatchKind::Exact`]. See the module doc.
    pub weight: f64,
}

/// Reusable buffers for [`TrigramIndex::lookup_with`]. Holds no results between calls;
/// keep one per thread to avoid small allocations on every lookup.
#[derive(Clone, Debug, Default)]
pub struct LookupScratch {
    word: Vec<char>,
    term: Vec<char>,
    grams: Vec<u64>,
    /// Indexes into `postings`, as `u64` for the shared integer sort.
    lists: Vec<u64>,
    candidates: Vec<u32>,
    /// Where [`merge_runs`] merges `candidates`' runs.
    merged: Vec<u32>,
    /// `(length, position)` pairs that sort `lists` by posting-list length.
    keys: Vec<(u64, u32)>,
    /// The permutation of `lists` read from `keys`.
    order: Vec<u32>,
    /// The best matches so far.
    best: BestMatches,
    /// Buffers of the final sort by rank.
    sorter: sort::PairSorter,
}

/// Keeps the best `max` matches of a lookup as they arrive, so memory stays `O(max)` however
/// many terms match: the buffer is trimmed to the best `max` whenever it reaches about twice
/// that, and after a trim a match ranked after every kept one is not buffered at all.
#[derive(Clone, Debug, Default)]
struct BestMatches {
    /// Rank keys ([`rank_key`]) of the buffered matches, for the selection.
    keys: Vec<(u64, u32)>,
    /// The best rank key a trim dropped: `max` buffered matches rank before it, so no match
    /// ranked at or after it can be among the best `max`.
    cut: Option<(u64, u32)>,
}

impl LookupScratch {
    /// Empty buffers; they grow on first use.
    pub fn new() -> Self {
        Self::default()
    }
}

/// The texts of the terms a [`TrigramIndex`] indexes, by id. The index keeps only their grams
/// and lengths and reads the texts from the vocabulary that assigned the ids (in the engine,
/// the [`InvertedIndex`](crate::index::postings::InvertedIndex) of the terms), so they are
/// stored once.
pub trait Terms {
    /// The text of term `id`; the empty string if `id` names no term.
    fn text(&self, id: VocabId) -> &str;
    /// The id of `term`, if it is in the vocabulary.
    fn id(&self, term: &str) -> Option<VocabId>;
}

/// Trigram index over a vocabulary of distinct terms. See the module doc for the algorithm.
#[derive(Clone, Default)]
pub struct TrigramIndex {
    /// Char count of each term, saturated at [`SATURATED_LEN`]; one entry per term.
    char_lens: Vec<u8>,
    /// Packed gram → index into `postings`.
    gram_ids: HashMap<u64, usize, BuildHasherDefault<IntHasher>>,
    /// Sorted term ids per gram.
    postings: Vec<IdList>,
}

/// The term ids of one gram, ascending: one id inline (many grams occur in a single term),
/// more in a vector that grows by 1.25× (as posting lists do) rather than 2×.
#[derive(Debug, Clone)]
enum IdList {
    One(u32),
    Many(Vec<u32>),
}

// The inline variant is free: the enum is the size of the vector.
const _: () = assert!(std::mem::size_of::<IdList>() == std::mem::size_of::<Vec<u32>>());

impl IdList {
    fn as_slice(&self) -> &[u32] {
        match self {
            IdList::One(id) => std::slice::from_ref(id),
            IdList::Many(ids) => ids,
        }
    }

    /// Appends `id`, which is at least the last id (a term repeating a gram brings its id
    /// again, and is kept once).
    fn push(&mut self, id: u32) {
        match self {
            IdList::One(last) if *last == id => {}
            IdList::One(last) => *self = IdList::Many(vec![*last, id]),
            IdList::Many(ids) => {
                if ids.last() == Some(&id) {
                    return;
                }
                let _ = grow_by_quarter(ids, 1);
                ids.push(id);
            }
        }
    }

    fn shrink_to_fit(&mut self) {
        if let IdList::Many(ids) = self {
            ids.shrink_to_fit();
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            IdList::One(_) => 0,
            IdList::Many(ids) => ids.capacity() * std::mem::size_of::<u32>(),
        }
    }
}

impl fmt::Debug for TrigramIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrigramIndex")
            .field("terms", &self.len())
            .field("grams", &self.postings.len())
            .field("heap_bytes", &self.heap_bytes())
            .finish()
    }
}

impl TrigramIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next term of the vocabulary, whose id is [`len`](Self::len): the same id as
    /// in the [`Terms`] that lookups read its text from. Each term is pushed once.
    ///
    /// An index holds at most `u32::MAX - 1` terms; pushing to a full one stores nothing and
    /// returns `VocabId(u32::MAX)`, which names no term.
    pub fn push(&mut self, term: &str) -> VocabId {
        let id = match u32::try_from(self.char_lens.len()) {
            Ok(id) if id != NO_TERM => id,
            _ => return VocabId(NO_TERM),
        };
        let _ = grow_by_quarter(&mut self.char_lens, 1);
        let chars = term.chars().count();
        self.char_lens
            .push(u8::try_from(chars).unwrap_or(SATURATED_LEN));
        for_each_padded_gram(term.chars(), |gram| self.add_posting(gram, id));
        VocabId(id)
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.char_lens.len()
    }

    /// Whether the index has no terms.
    pub fn is_empty(&self) -> bool {
        self.char_lens.is_empty()
    }

    /// Releases spare capacity, for example after a bulk load.
    pub fn shrink_to_fit(&mut self) {
        self.char_lens.shrink_to_fit();
        self.gram_ids.shrink_to_fit();
        self.postings.shrink_to_fit();
        self.postings.iter_mut().for_each(IdList::shrink_to_fit);
    }

    /// Approximate heap bytes held, from capacities (the gram map is estimated as one
    /// control byte plus key and value per bucket).
    pub fn heap_bytes(&self) -> usize {
        let lists: usize = self.postings.iter().map(IdList::heap_bytes).sum();
        self.char_lens.capacity()
            + self.gram_ids.capacity() * (1 + 8 + std::mem::size_of::<usize>())
            + self.postings.capacity() * std::mem::size_of::<IdList>()
            + lists
    }

    /// All vocabulary terms matching `word`, their texts read from `terms`: exact; substring (word of ≥ 3 chars contained
    /// in the term; prefix is the special case); typo (word of ≥ 5 chars within one edit:
    /// insertion, deletion, substitution, adjacent transposition). Clears `out`, then fills
    /// it sorted by weight descending then id ascending, with at most `max` matches (the
    /// best). Allocates small scratch buffers; use [`TrigramIndex::lookup_with`] to reuse them.
    ///
    /// ```
    /// use recallkit::index::postings::InvertedIndex;
    /// use recallkit::index::trigram::{MatchKind, TrigramIndex};
    /// // The vocabulary that assigns the ids and keeps the texts.
    /// let mut terms = InvertedIndex::new();
    /// let mut index = TrigramIndex::new();
    /// for term in ["redeploy", "deployment"] {
    ///     let id = terms.intern(term).unwrap();
    ///     assert_eq!(index.push(term).0, id.0);
    /// }
    /// let mut out = Vec::new();
    /// index.lookup(&terms, "deploy", 10, &mut out);
    /// assert_eq!((out[0].term.0, out[0].kind), (1, MatchKind::Prefix));
    /// assert_eq!((out[1].term.0, out[1].kind), (0, MatchKind::Substring));
    /// ```
    pub fn lookup(&self, terms: &impl Terms, word: &str, max: usize, out: &mut Vec<TermMatch>) {
        self.lookup_with(terms, word, max, &mut LookupScratch::new(), out);
    }

    /// [`TrigramIndex::lookup`] with caller-owned scratch buffers.
    pub fn lookup_with(
        &self,
        terms: &impl Terms,
        word: &str,
        max: usize,
        scratch: &mut LookupScratch,
        out: &mut Vec<TermMatch>,
    ) {
        out.clear();
        scratch.best.reset();
        if max == 0 {
            return;
        }
        scratch.word.clear();
        scratch.word.extend(word.chars());
        let chars = scratch.word.len();
        if chars < MIN_SUBSTRING_CHARS {
            if let Some(id) = terms.id(word).filter(|id| (id.0 as usize) < self.len()) {
                out.push(exact(id));
            }
            return;
        }
        self.collect_substrings(terms, word, max, scratch, out);
        if chars >= MIN_TYPO_CHARS {
            self.collect_typos(terms, word, max, scratch, out);
        }
        scratch.best.trim(out, max);
        scratch.sorter.sort(out, rank_key);
    }

    fn char_len(&self, terms: &impl Terms, id: u32) -> usize {
        match self.char_lens.get(id as usize) {
            Some(&len) if len != SATURATED_LEN => usize::from(len),
            _ => terms.text(VocabId(id)).chars().count(),
        }
    }

    fn add_posting(&mut self, gram: u64, id: u32) {
        let postings = &mut self.postings;
        let mut new = false;
        let index = *self.gram_ids.entry(gram).or_insert_with(|| {
            new = true;
            let _ = grow_by_quarter(postings, 1);
            postings.push(IdList::One(id));
            postings.len() - 1
        });
        if !new {
            postings[index].push(id);
        }
    }

    fn list(&self, index: usize) -> &[u32] {
        self.postings.get(index).map_or(&[], IdList::as_slice)
    }

    /// Pushes every term containing `word` (exact, prefix or substring).
    fn collect_substrings(
        &self,
        terms: &impl Terms,
        word: &str,
        max: usize,
        scratch: &mut LookupScratch,
        out: &mut Vec<TermMatch>,
    ) {
        let LookupScratch {
            word: chars,
            lists,
            candidates,
            keys,
            order,
            best,
            ..
        } = scratch;
        lists.clear();
        for w in chars.windows(3) {
            match self
                .gram_ids
                .get(&pack(w[0] as u64, w[1] as u64, w[2] as u64))
            {
                Some(&index) => lists.push(index as u64),
                None => return,
            }
        }
        // Distinct lists, rarest first, equal lengths by index.
        sort::sort_u64(lists);
        lists.dedup();
        self.sort_by_list_len(lists, keys, order);
        let ids: &[u32] = match lists.as_slice() {
            [] => return,
            [only] => self.list(*only as usize),
            [first, second, rest @ ..] => {
                intersect_into(
                    self.list(*first as usize),
                    self.list(*second as usize),
                    candidates,
                );
                for &index in rest {
                    if candidates.is_empty() {
                        break;
                    }
                    retain_present(candidates, self.list(index as usize));
                }
                candidates.as_slice()
            }
        };
        let word_chars = chars.len();
        for &id in ids {
            let term = terms.text(VocabId(id));
            if text::find(term, word).is_none() {
                continue;
            }
            let found = if term.len() == word.len() {
                exact(VocabId(id))
            } else {
                let coverage = word_chars as f64 / self.char_len(terms, id) as f64;
                let (kind, weight) = if term.starts_with(word) {
                    (MatchKind::Prefix, PREFIX_BASE + PREFIX_SPAN * coverage)
                } else {
                    (
                        MatchKind::Substring,
                        SUBSTRING_BASE + SUBSTRING_SPAN * coverage,
                    )
                };
                TermMatch {
                    term: VocabId(id),
                    kind,
                    weight,
                }
            };
            best.push(out, max, found);
        }
    }

    /// Pushes every term within one edit of `word` that does not contain it.
    fn collect_typos(
        &self,
        terms: &impl Terms,
        word: &str,
        max: usize,
        scratch: &mut LookupScratch,
        out: &mut Vec<TermMatch>,
    ) {
        let LookupScratch {
            word: chars,
            term: term_chars,
            grams,
            lists,
            candidates,
            merged,
            keys,
            order,
            best,
            ..
        } = scratch;
        grams.clear();
        for_each_padded_gram(chars.iter().copied(), |gram| grams.push(gram));
        sort::sort_u64(grams);
        grams.dedup();
        lists.clear();
        lists.extend(
            grams
                .iter()
                .filter_map(|gram| self.gram_ids.get(gram).map(|&index| index as u64)),
        );
        let absent = grams.len() - lists.len();
        // Pigeonhole: a term missing at most `MAX_MISSED_GRAMS` grams, `absent` of them
        // everywhere, appears in at least one of any `MAX_MISSED_GRAMS + 1 − absent` lists.
        let Some(rare) = (MAX_MISSED_GRAMS + 1).checked_sub(absent) else {
            return;
        };
        debug_assert!(
            lists.len() >= rare,
            "a word of 5+ chars has 5+ distinct grams"
        );
        let rare = rare.min(lists.len());
        self.sort_by_list_len(lists, keys, order);
        let (rare_lists, other_lists) = lists.split_at(rare);
        let word_chars = chars.len();
        // Gather with the one-byte length filter first, then count hits per id in the
        // ascending merge of the lists (each is ascending: merging beats sorting).
        candidates.clear();
        for &index in rare_lists {
            let start = candidates.len();
            let near = self
                .list(index as usize)
                .iter()
                .filter(|&&id| self.may_be_near(id, word_chars));
            candidates.extend(near);
            merge_runs(candidates, start, merged);
        }
        for run in candidates.chunk_by(|a, b| a == b) {
            let id = run[0];
            let term_len = self.char_len(terms, id);
            let allowed = if term_len == word_chars {
                MAX_MISSED_GRAMS
            } else if term_len == word_chars + 1 {
                MAX_MISSED_GRAMS_LONGER
            } else if term_len + 1 == word_chars {
                MAX_MISSED_GRAMS_SHORTER
            } else {
                continue;
            };
            let missed = absent + rare - run.len();
            if !self.misses_at_most(id, missed, allowed, other_lists) {
                continue;
            }
            let term = terms.text(VocabId(id));
            if text::find(term, word).is_some() {
                continue;
            }
            term_chars.clear();
            term_chars.extend(term.chars());
            if within_one_edit(chars, term_chars) {
                let longest = word_chars.max(term_len) as f64;
                let found = TermMatch {
                    term: VocabId(id),
                    kind: MatchKind::Typo,
                    weight: TYPO_SCALE * (1.0 - 1.0 / longest),
                };
                best.push(out, max, found);
            }
        }
    }

    /// Sorts the gram indexes `lists` by posting-list length, equal lengths keeping their
    /// order (a stable sort by length), through the shared pair sort: keys `(length,
    /// position)`, then that permutation. `keys` and `order` are scratch.
    fn sort_by_list_len(
        &self,
        lists: &mut [u64],
        keys: &mut Vec<(u64, u32)>,
        order: &mut Vec<u32>,
    ) {
        keys.clear();
        for (position, &index) in lists.iter().enumerate() {
            // A word has far fewer than 2³² grams.
            keys.push((self.list(index as usize).len() as u64, position as u32));
        }
        sort::sort_pairs(keys);
        order.clear();
        order.extend(keys.iter().map(|&(_, position)| position));
        sort::permute(lists, order);
    }

    /// Length pre-filter from the stored byte: whether term `id` may have `chars ± 1` chars
    /// (a saturated length always may; [`TrigramIndex::char_len`] settles it later).
    fn may_be_near(&self, id: u32, chars: usize) -> bool {
        match self.char_lens.get(id as usize) {
            Some(&len) if len != SATURATED_LEN => usize::from(len).abs_diff(chars) <= 1,
            _ => true,
        }
    }

    /// Whether `id` misses at most `allowed` grams, given `missed` so far and the lists left.
    fn misses_at_most(&self, id: u32, mut missed: usize, allowed: usize, lists: &[u64]) -> bool {
        if missed > allowed {
            return false;
        }
        for &index in lists {
            if self.list(index as usize).binary_search(&id).is_err() {
                missed += 1;
                if missed > allowed {
                    return false;
                }
            }
        }
        true
    }
}

fn exact(id: VocabId) -> TermMatch {
    TermMatch {
        term: id,
        kind: MatchKind::Exact,
        weight: EXACT_WEIGHT,
    }
}

/// Weight descending, then id ascending: a total order, as ids are unique.
/// Saved as the term lengths, each gram in the order of its list, and the lists; the gram map
/// is rebuilt from the grams (hashing 8-byte keys, not terms).
impl Persist for TrigramIndex {
    fn save(&self, w: &mut Writer) -> Result<()> {
        w.blob(&self.char_lens)?;
        let mut grams = vec![0u64; self.postings.len()];
        for (&gram, &at) in &self.gram_ids {
            if let Some(g) = grams.get_mut(at) {
                *g = gram;
            }
        }
        w.u64s(&grams)?;
        w.len(self.postings.len())?;
        for list in &self.postings {
            w.u32s(list.as_slice())?;
        }
        Ok(())
    }

    /// Reads an index and checks that each gram is listed once and each list is ascending
    /// and names terms of the index.
    fn load(r: &mut Reader) -> Result<Self> {
        let char_lens = r.blob()?;
        let grams = r.u64s()?;
        let terms = char_lens.len() as u64;
        let postings = r.seq(|r| {
            let ids = r.u32s()?;
            if ids.is_empty()
                || ids.windows(2).any(|p| p[0] >= p[1])
                || ids.last().is_some_and(|&id| u64::from(id) >= terms)
            {
                return Err(image::corrupt("a gram list out of order"));
            }
            Ok(if ids.len() == 1 {
                IdList::One(ids[0])
            } else {
                IdList::Many(ids)
            })
        })?;
        let mut gram_ids =
            HashMap::with_capacity_and_hasher(grams.len(), BuildHasherDefault::default());
        for (at, &gram) in grams.iter().enumerate() {
            if gram_ids.insert(gram, at).is_some() {
                return Err(image::corrupt("a gram twice"));
            }
        }
        if grams.len() != postings.len() {
            return Err(image::corrupt("grams and their lists disagree"));
        }
        Ok(TrigramIndex {
            char_lens,
            gram_ids,
            postings,
        })
    }
}

#[cfg(test)]
fn rank_order(a: &TermMatch, b: &TermMatch) -> std::cmp::Ordering {
    b.weight
        .total_cmp(&a.weight)
        .then_with(|| a.term.cmp(&b.term))
}

/// The output order as an integer pair: ascending `(desc_key(weight), id)` is weight
/// descending, then id ascending.
fn rank_key(m: &TermMatch) -> (u64, u32) {
    (sort::desc_key(m.weight), m.term.0)
}

impl BestMatches {
    /// Forgets the previous lookup's cut.
    fn reset(&mut self) {
        self.cut = None;
    }

    /// Buffers `found` in `out` unless it cannot be among the best `max`, trimming `out` when
    /// it has grown to about `2·max`.
    fn push(&mut self, out: &mut Vec<TermMatch>, max: usize, found: TermMatch) {
        if self.cut.is_some_and(|cut| rank_key(&found) >= cut) {
            return;
        }
        out.push(found);
        if out.len() >= max.saturating_mul(2).saturating_add(TRIM_SLACK) {
            self.trim(out, max);
        }
    }

    /// Keeps the best `max` matches of `out` (unordered; the kept ones keep their order): the
    /// matches ranked before the key a full sort would put at index `max`
    /// ([`sort::select_pairs`]), and of those equal to it as many as fit.
    fn trim(&mut self, out: &mut Vec<TermMatch>, max: usize) {
        if out.len() <= max {
            return;
        }
        let keys = &mut self.keys;
        keys.clear();
        keys.extend(out.iter().map(rank_key));
        sort::select_pairs(keys, max);
        let cut = keys[max];
        // Ids are unique in `out`, so `room` is 0; counting keeps the result right regardless.
        let mut room = max - keys[..max].iter().filter(|&&key| key < cut).count();
        out.retain(|m| match rank_key(m).cmp(&cut) {
            Ordering::Less => true,
            Ordering::Equal if room > 0 => {
                room -= 1;
                true
            }
            _ => false,
        });
        // Everything buffered since the last trim ranked before the old cut, so this one is
        // no worse.
        self.cut = Some(cut);
    }
}

fn pack(a: u64, b: u64, c: u64) -> u64 {
    (a << (2 * CHAR_BITS)) | (b << CHAR_BITS) | c
}

/// Calls `f` with each packed gram of `$$chars$$`, in order (repeats included).
fn for_each_padded_gram(chars: impl Iterator<Item = char>, mut f: impl FnMut(u64)) {
    let (mut older, mut old) = (MARKER, MARKER);
    for c in chars {
        let c = c as u64;
        f(pack(older, old, c));
        (older, old) = (old, c);
    }
    f(pack(older, old, MARKER));
    f(pack(old, MARKER, MARKER));
}

/// Whether the optimal-string-alignment distance between `a` and `b` is at most 1.
fn within_one_edit(a: &[char], b: &[char]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let same = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    if short.len() < long.len() {
        return short[same..] == long[same + 1..];
    }
    if same == short.len() {
        return true;
    }
    let substituted = short[same + 1..] == long[same + 1..];
    let transposed = same + 1 < short.len()
        && short[same] == long[same + 1]
        && short[same + 1] == long[same]
        && short[same + 2..] == long[same + 2..];
    substituted || transposed
}

/// First index at or after `start` whose value is ≥ `x`.
fn gallop_from(list: &[u32], start: usize, x: u32) -> usize {
    let rest = list.get(start..).unwrap_or(&[]);
    start + super::gallop(rest, |&v| v < x)
}

/// Sets `out` to the ids in both sorted lists; `small` should be the shorter one.
fn intersect_into(small: &[u32], large: &[u32], out: &mut Vec<u32>) {
    out.clear();
    let mut cursor = 0;
    for &id in small {
        cursor = gallop_from(large, cursor, id);
        match large.get(cursor) {
            None => break,
            Some(&found) if found == id => out.push(id),
            Some(_) => {}
        }
    }
}

/// Makes the ascending runs `ids[..mid]` and `ids[mid..]` one ascending list, through `spare`
/// (whose contents are lost).
fn merge_runs(ids: &mut Vec<u32>, mid: usize, spare: &mut Vec<u32>) {
    if mid == 0 || mid == ids.len() {
        return;
    }
    spare.clear();
    let (left, right) = ids.split_at(mid);
    let (mut l, mut r) = (0, 0);
    while l < left.len() && r < right.len() {
        if right[r] < left[l] {
            spare.push(right[r]);
            r += 1;
        } else {
            spare.push(left[l]);
            l += 1;
        }
    }
    spare.extend_from_slice(&left[l..]);
    spare.extend_from_slice(&right[r..]);
    std::mem::swap(ids, spare);
}

/// Keeps the ids of sorted `ids` that also occur in sorted `list`.
fn retain_present(ids: &mut Vec<u32>, list: &[u32]) {
    let mut cursor = 0;
    ids.retain(|&id| {
        cursor = gallop_from(list, cursor, id);
        list.get(cursor) == Some(&id)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    use crate::test_support::SplitMix64;

    #[test]
    fn merge_runs_gives_the_sorted_multiset_of_ascending_runs() {
        let mut rng = SplitMix64(11);
        let mut spare = vec![9, 9];
        for case in 0..300 {
            let mut ids = Vec::new();
            let mut want = Vec::new();
            for _ in 0..rng.below(5) {
                let mut run: Vec<u32> = (0..rng.below(40)).map(|_| rng.below(50) as u32).collect();
                run.sort();
                want.extend_from_slice(&run);
                let mid = ids.len();
                ids.extend(run);
                merge_runs(&mut ids, mid, &mut spare);
            }
            want.sort();
            assert_eq!(ids, want, "case {case}");
        }
    }

    /// A vocabulary of texts with its trigram index, as `FuzzyIndex` keeps one.
    #[derive(Default)]
    struct Vocab {
        index: TrigramIndex,
        texts: Vec<String>,
        ids: HashMap<String, u32>,
    }

    impl Terms for Vocab {
        fn text(&self, id: VocabId) -> &str {
            self.texts.get(id.0 as usize).map_or("", String::as_str)
        }

        fn id(&self, term: &str) -> Option<VocabId> {
            self.ids.get(term).map(|&id| VocabId(id))
        }
    }

    impl Vocab {
        /// The id of `term`, pushed to the index if new.
        fn insert(&mut self, term: &str) -> VocabId {
            if let Some(id) = self.id(term) {
                return id;
            }
            let id = self.index.push(term);
            assert_eq!(id.0 as usize, self.texts.len());
            self.texts.push(term.to_string());
            self.ids.insert(term.to_string(), id.0);
            id
        }

        fn get(&self, term: &str) -> Option<VocabId> {
            self.id(term)
        }

        fn term(&self, id: VocabId) -> &str {
            self.text(id)
        }

        fn lookup(&self, word: &str, max: usize, out: &mut Vec<TermMatch>) {
            self.index.lookup(self, word, max, out);
        }

        fn lookup_with(
            &self,
            word: &str,
            max: usize,
            scratch: &mut LookupScratch,
            out: &mut Vec<TermMatch>,
        ) {
            self.index.lookup_with(self, word, max, scratch, out);
        }
    }

    fn index_of(terms: &[&str]) -> Vocab {
        let mut index = Vocab::default();
        for term in terms {
            index.insert(term);
        }
        index
    }

    fn matches(index: &Vocab, word: &str) -> Vec<(String, MatchKind)> {
        let mut out = Vec::new();
        index.lookup(word, usize::MAX, &mut out);
        out.iter()
            .map(|m| (index.term(m.term).to_string(), m.kind))
            .collect()
    }

    fn kind_of(index: &Vocab, word: &str, term: &str) -> Option<MatchKind> {
        matches(index, word)
            .into_iter()
            .find(|(t, _)| t == term)
            .map(|(_, kind)| kind)
    }

    /// Full optimal-string-alignment distance by dynamic programming: the oracle.
    fn osa_distance(a: &[char], b: &[char]) -> usize {
        let width = b.len() + 1;
        let mut d = vec![0usize; (a.len() + 1) * width];
        for i in 0..=a.len() {
            for j in 0..=b.len() {
                d[i * width + j] = if i == 0 || j == 0 {
                    i + j
                } else {
                    let cost = usize::from(a[i - 1] != b[j - 1]);
                    let mut best = (d[(i - 1) * width + j] + 1)
                        .min(d[i * width + j - 1] + 1)
                        .min(d[(i - 1) * width + j - 1] + cost);
                    if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                        best = best.min(d[(i - 2) * width + j - 2] + 1);
                    }
                    best
                };
            }
        }
        d[a.len() * width + b.len()]
    }

    /// Every string within one edit of `chars` whose letters come from `alphabet`: the
    /// typo oracle for vocabularies drawn from that alphabet (checked against
    /// [`osa_distance`] in `one_edit_neighbours_are_exactly_the_osa_ball`).
    fn one_edit_neighbours(chars: &[char], alphabet: &[char]) -> HashSet<String> {
        let mut ball = HashSet::new();
        let text = |v: Vec<char>| v.into_iter().collect::<String>();
        ball.insert(text(chars.to_vec()));
        for i in 0..=chars.len() {
            for &c in alphabet {
                let mut v = chars.to_vec();
                v.insert(i, c);
                ball.insert(text(v));
                if i < chars.len() {
                    let mut v = chars.to_vec();
                    v[i] = c;
                    ball.insert(text(v));
                }
            }
            if i < chars.len() {
                let mut v = chars.to_vec();
                v.remove(i);
                ball.insert(text(v));
            }
            if i + 1 < chars.len() {
                let mut v = chars.to_vec();
                v.swap(i, i + 1);
                ball.insert(text(v));
            }
        }
        ball
    }

    /// The expected kind of `term` (of `term_chars` chars) for `word` (of `chars` chars) by
    /// brute force; `ball` holds the strings within one edit of `word`.
    fn oracle_kind(
        (word, chars): (&str, usize),
        ball: &HashSet<String>,
        (term, term_chars): (&str, usize),
    ) -> Option<MatchKind> {
        if term == word {
            Some(MatchKind::Exact)
        } else if chars >= 3 && term.len() > word.len() && term.starts_with(word) {
            Some(MatchKind::Prefix)
        } else if chars >= 3 && term.len() > word.len() && term.contains(word) {
            Some(MatchKind::Substring)
        } else if chars >= 4 && chars.abs_diff(term_chars) <= 1 && ball.contains(term) {
            Some(MatchKind::Typo)
        } else {
            None
        }
    }

    fn random_word(rng: &mut SplitMix64, alphabet: &[char], min: usize, max: usize) -> String {
        let len = min + rng.index(max - min + 1);
        (0..len)
            .map(|_| alphabet[rng.index(alphabet.len())])
            .collect()
    }

    /// Applies one random edit (insert, delete, substitute, transpose) to `word`.
    fn mutate(rng: &mut SplitMix64, alphabet: &[char], word: &str) -> String {
        let mut chars: Vec<char> = word.chars().collect();
        let letter = alphabet[rng.index(alphabet.len())];
        match rng.index(4) {
            0 => chars.insert(rng.index(chars.len() + 1), letter),
            1 if !chars.is_empty() => {
                chars.remove(rng.index(chars.len()));
            }
            2 if !chars.is_empty() => {
                let at = rng.index(chars.len());
                chars[at] = letter;
            }
            _ if chars.len() >= 2 => {
                let at = rng.index(chars.len() - 1);
                chars.swap(at, at + 1);
            }
            _ => chars.push(letter),
        }
        chars.into_iter().collect()
    }

    #[test]
    fn deploy_finds_deployment_as_prefix_and_redeploy_as_substring() {
        let index = index_of(&["redeploy", "deployment", "employ", "deploy"]);
        assert_eq!(
            matches(&index, "deploy"),
            vec![
                ("deploy".to_string(), MatchKind::Exact),
                ("deployment".to_string(), MatchKind::Prefix),
                ("redeploy".to_string(), MatchKind::Substring),
            ]
        );
    }

    #[test]
    fn misspellings_of_database_find_it_as_typos() {
        let index = index_of(&["data", "base", "database", "databases", "date"]);
        for word in [
            "databse",
            "dtabase",
            "datbaase",
            "datavase",
            "databasw",
            "xdatabase",
        ] {
            assert_eq!(
                kind_of(&index, word, "database"),
                Some(MatchKind::Typo),
                "{word}"
            );
        }
        assert_eq!(kind_of(&index, "datbaase", "databases"), None);
    }

    #[test]
    fn four_letter_words_typo_match_and_three_letter_words_do_not() {
        let index = index_of(&["data", "date", "dat", "emma", "cat"]);
        assert_eq!(
            matches(&index, "dota"),
            vec![("data".to_string(), MatchKind::Typo)]
        );
        assert_eq!(kind_of(&index, "emmg", "emma"), Some(MatchKind::Typo));
        assert_eq!(kind_of(&index, "mema", "emma"), Some(MatchKind::Typo));
        assert_eq!(kind_of(&index, "datx", "dat"), Some(MatchKind::Typo));
        assert_eq!(kind_of(&index, "datx", "data"), Some(MatchKind::Typo));
        assert_eq!(matches(&index, "cot"), vec![]);
        assert_eq!(matches(&index, "dta"), vec![]);
        assert_eq!(
            matches(&index, "data")[0],
            ("data".to_string(), MatchKind::Exact)
        );
    }

    #[test]
    fn exact_match_ranks_before_typos_whatever_the_ids() {
        let index = index_of(&["datum", "datam", "datums"]);
        let found = matches(&index, "datam");
        assert_eq!(found[0], ("datam".to_string(), MatchKind::Exact));
        assert_eq!(found[1], ("datum".to_string(), MatchKind::Typo));
        assert_eq!(found.len(), 2);
    }

    #[test]
    fn words_shorter_than_three_chars_match_exactly_only() {
        let index = index_of(&["de", "deploy", "d", "ode"]);
        assert_eq!(
            matches(&index, "de"),
            vec![("de".to_string(), MatchKind::Exact)]
        );
        assert_eq!(
            matches(&index, "d"),
            vec![("d".to_string(), MatchKind::Exact)]
        );
        assert_eq!(matches(&index, "x"), vec![]);
    }

    #[test]
    fn weights_follow_the_documented_formulas() {
        let index = index_of(&["deployment", "redeploy", "database", "deploy"]);
        let mut out = Vec::new();
        index.lookup("deploy", 10, &mut out);
        assert_close!(out[0].weight, 1.0);
        assert_close!(out[1].weight, 0.5 + 0.4 * 6.0 / 10.0);
        assert_close!(out[2].weight, 0.3 + 0.5 * 6.0 / 8.0);
        index.lookup("databse", 10, &mut out);
        assert_eq!(out.len(), 1);
        assert_close!(out[0].weight, 0.8 * (1.0 - 1.0 / 8.0));
    }

    #[test]
    fn containment_wins_over_typo_when_both_apply() {
        let index = index_of(&["deploys"]);
        assert_eq!(
            kind_of(&index, "deploy", "deploys"),
            Some(MatchKind::Prefix)
        );
    }

    #[test]
    fn push_assigns_dense_ids_in_order() {
        let mut index = TrigramIndex::new();
        assert!(index.is_empty());
        for i in 0..1000u32 {
            assert_eq!(index.push(&format!("term{i}")), VocabId(i));
        }
        assert_eq!(index.len(), 1000);
    }

    #[test]
    fn a_short_word_known_to_the_vocabulary_but_not_pushed_yet_matches_nothing() {
        // The vocabulary may run ahead of the index (a term interned, not synced yet).
        let mut vocab = index_of(&["ab"]);
        vocab.texts.push("cd".into());
        vocab.ids.insert("cd".into(), 1);
        assert_eq!(
            matches(&vocab, "ab"),
            vec![("ab".to_string(), MatchKind::Exact)]
        );
        assert!(matches(&vocab, "cd").is_empty());
    }

    #[test]
    fn max_bounds_the_output_and_zero_gives_nothing() {
        let index = index_of(&["walking", "talking", "king", "kingdom", "ink"]);
        let mut out = vec![exact(VocabId(9))];
        index.lookup("ing", 0, &mut out);
        assert!(out.is_empty());
        index.lookup("ing", 2, &mut out);
        let terms: Vec<&str> = out.iter().map(|m| index.term(m.term)).collect();
        // king 0.675; walking and kingdom tie at 0.514 and the lower id wins.
        assert_eq!(terms, vec!["king", "walking"]);
    }

    #[test]
    fn a_very_common_gram_returns_the_best_matches_in_order() {
        let mut index = Vocab::default();
        for i in 0..5000usize {
            let (mut n, mut prefix) = (i, String::new());
            loop {
                prefix.push(char::from(b'a' + (n % 26) as u8));
                n /= 26;
                if n == 0 {
                    break;
                }
            }
            index.insert(&format!("{prefix}ing"));
        }
        index.insert("ing");
        let (mut best, mut all) = (Vec::new(), Vec::new());
        index.lookup("ing", 3, &mut best);
        index.lookup("ing", usize::MAX, &mut all);
        assert_eq!(all.len(), 5001);
        assert_eq!(index.term(best[0].term), "ing");
        assert_eq!(best, all[..3]);
    }

    #[test]
    fn reused_scratch_gives_the_same_results_as_lookup() {
        let index = index_of(&["database", "databases", "datum", "base", "debase"]);
        let mut scratch = LookupScratch::new();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for word in ["databse", "base", "ba", "datum", "atab", "", "debase"] {
            index.lookup(word, 10, &mut a);
            index.lookup_with(word, 10, &mut scratch, &mut b);
            assert_eq!(a, b, "{word}");
        }
    }

    #[test]
    fn non_ascii_terms_match_by_chars_and_never_panic() {
        let index = index_of(&[
            "straße",
            "日",
            "日本語",
            "本",
            "ſtraße",
            "\u{10FFFF}x\u{10FFFF}",
        ]);
        assert_eq!(kind_of(&index, "strabe", "straße"), Some(MatchKind::Typo));
        assert_eq!(kind_of(&index, "straß", "straße"), Some(MatchKind::Prefix));
        assert_eq!(kind_of(&index, "aße", "straße"), Some(MatchKind::Substring));
        assert_eq!(
            kind_of(&index, "traße", "ſtraße"),
            Some(MatchKind::Substring)
        );
        assert_eq!(
            matches(&index, "日"),
            vec![("日".to_string(), MatchKind::Exact)]
        );
        assert_eq!(kind_of(&index, "日本語", "日本語"), Some(MatchKind::Exact));
        assert_eq!(
            kind_of(&index, "\u{10FFFF}x\u{10FFFF}", "\u{10FFFF}x\u{10FFFF}"),
            Some(MatchKind::Exact)
        );
        let odd = [
            "",
            "\u{0}",
            "a\u{301}",
            "\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}\u{10FFFF}",
        ];
        for word in odd {
            assert!(matches(&index, word).is_empty(), "{word:?}");
        }
    }

    #[test]
    fn the_empty_term_matches_only_the_empty_word() {
        let index = index_of(&["", "abc"]);
        assert_eq!(matches(&index, ""), vec![(String::new(), MatchKind::Exact)]);
        assert_eq!(
            matches(&index, "abc"),
            vec![("abc".to_string(), MatchKind::Exact)]
        );
    }

    #[test]
    fn very_long_terms_recount_their_length() {
        let long = "ab".repeat(200);
        let mut typo = long.clone();
        typo.replace_range(100..101, "x");
        let index = index_of(&[&long]);
        assert_eq!(kind_of(&index, &typo, &long), Some(MatchKind::Typo));
        assert_eq!(
            kind_of(&index, &long[..399], &long),
            Some(MatchKind::Prefix)
        );
    }

    #[test]
    fn gallop_from_finds_the_first_value_not_below_the_target_after_start() {
        let mut rng = SplitMix64(7);
        for case in 0..500 {
            let mut list: Vec<u32> = (0..rng.index(40)).map(|_| rng.index(100) as u32).collect();
            list.sort_unstable();
            list.dedup();
            let start = rng.index(list.len() + 1);
            let x = rng.index(110) as u32;
            let expected = (start..list.len()).find(|&i| list[i] >= x);
            assert_eq!(
                gallop_from(&list, start, x),
                expected.unwrap_or(list.len()),
                "case {case}"
            );
        }
    }

    #[test]
    fn within_one_edit_agrees_with_the_osa_distance() {
        let alphabet = ['a', 'b', 'c'];
        let mut rng = SplitMix64(11);
        for case in 0..5000 {
            let a = random_word(&mut rng, &alphabet, 0, 6);
            let b = if rng.index(2) == 0 {
                mutate(&mut rng, &alphabet, &a)
            } else {
                random_word(&mut rng, &alphabet, 0, 6)
            };
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            assert_eq!(
                within_one_edit(&a, &b),
                osa_distance(&a, &b) <= 1,
                "case {case}: {a:?} {b:?}"
            );
        }
    }

    #[test]
    fn one_edit_neighbours_are_exactly_the_osa_ball() {
        let alphabet = ['a', 'b', 'é'];
        let mut rng = SplitMix64(13);
        for case in 0..300 {
            let word: Vec<char> = random_word(&mut rng, &alphabet, 0, 5).chars().collect();
            let ball = one_edit_neighbours(&word, &alphabet);
            let mut expected = HashSet::new();
            for len in word.len().saturating_sub(1)..=word.len() + 1 {
                let count = alphabet.len().pow(len as u32);
                for mut n in 0..count {
                    let other: Vec<char> = (0..len)
                        .map(|_| {
                            let c = alphabet[n % alphabet.len()];
                            n /= alphabet.len();
                            c
                        })
                        .collect();
                    if osa_distance(&word, &other) <= 1 {
                        expected.insert(other.into_iter().collect::<String>());
                    }
                }
            }
            assert_eq!(ball, expected, "case {case}: {word:?}");
        }
    }

    fn random_query(rng: &mut SplitMix64, alphabet: &[char], vocab: &[String]) -> String {
        let base = vocab[rng.index(vocab.len())].clone();
        match rng.index(4) {
            0 => random_word(rng, alphabet, 1, 15),
            1 => base,
            2 => mutate(rng, alphabet, &base),
            _ => {
                let once = mutate(rng, alphabet, &base);
                mutate(rng, alphabet, &once)
            }
        }
    }

    /// Runs `cases` random lookups over a random vocabulary of `size` words of 3–14 letters
    /// from `alphabet`, comparing each with brute force over the whole vocabulary: the same
    /// terms, each with the oracle's kind, in rank order, with weights in (0, 1]; and with a
    /// small `max`, the top of that order. Returns the number of cases run.
    fn check_against_oracle(alphabet: &[char], size: usize, seed: u64, cases: usize) -> usize {
        let mut rng = SplitMix64(seed);
        let mut index = Vocab::default();
        let mut vocab = Vec::new();
        while vocab.len() < size {
            let word = random_word(&mut rng, alphabet, 3, 14);
            if index.get(&word).is_none() {
                index.insert(&word);
                vocab.push(word);
            }
        }
        let vocab_chars: Vec<usize> = vocab.iter().map(|t| t.chars().count()).collect();
        let (mut scratch, mut out) = (LookupScratch::new(), Vec::new());
        for case in 0..cases {
            let word = random_query(&mut rng, alphabet, &vocab);
            let chars: Vec<char> = word.chars().collect();
            let ball = one_edit_neighbours(&chars, alphabet);
            let expected: Vec<(u32, MatchKind)> = (0..vocab.len())
                .filter_map(|i| {
                    let term = (vocab[i].as_str(), vocab_chars[i]);
                    let kind = oracle_kind((&word, chars.len()), &ball, term);
                    kind.map(|k| (i as u32, k))
                })
                .collect();
            index.lookup_with(&word, usize::MAX, &mut scratch, &mut out);
            let mut got: Vec<(u32, MatchKind)> = out.iter().map(|m| (m.term.0, m.kind)).collect();
            got.sort_by_key(|&(id, _)| id);
            let context = format!("seed {seed} case {case} word {word:?}");
            assert_eq!(got, expected, "{context}");
            for pair in out.windows(2) {
                assert!(rank_order(&pair[0], &pair[1]).is_lt(), "{context}");
            }
            for m in &out {
                assert!(m.weight > 0.0 && m.weight <= 1.0, "{context}");
                assert_eq!(m.weight == 1.0, m.kind == MatchKind::Exact, "{context}");
            }
            let full = out.clone();
            let max = 1 + rng.index(5);
            index.lookup_with(&word, max, &mut scratch, &mut out);
            assert_eq!(out, full[..max.min(full.len())], "{context} max {max}");
        }
        cases
    }

    /// A 5-letter alphabet (one non-ASCII) makes grams collide: long lists, many matches.
    #[test]
    fn lookup_equals_the_brute_force_oracle_on_a_dense_vocabulary() {
        let alphabet = ['a', 'b', 'c', 'd', 'é'];
        let cases: usize = (0..4)
            .map(|seed| check_against_oracle(&alphabet, 2500, 0x7269_6772_616d ^ seed, 300))
            .sum();
        assert!(cases >= 1000);
    }

    /// A 28-letter alphabet makes most grams of a typo absent from the index, so candidates
    /// come from very few, very short lists.
    #[test]
    fn lookup_equals_the_brute_force_oracle_on_a_sparse_vocabulary() {
        let mut alphabet: Vec<char> = ('a'..='z').collect();
        alphabet.extend(['ß', '日']);
        for seed in 0..2 {
            check_against_oracle(&alphabet, 3000, 0x7370_6172_7365 ^ seed, 300);
        }
    }
}
