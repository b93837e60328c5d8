//! [`SignatureIndex`]: signatures stored by DocId and an exact threshold + top-k scan.
//!
//! Layout: `signatures[doc]` holds the signature of `doc` (32 bytes, indexed by `DocId.0`,
//! which the engine assigns densely, in [`Chunked`] tables that never move) and
//! `present[doc]` says whether it is set. Removing a doc clears its entry; nothing moves.
//!
//! Search: one pass in ascending DocId computing [`hamming_distance`] (four popcounts). The
//! threshold on similarity becomes a bound on distance, `max_distance`, found by evaluating
//! exactly the same [`similarity`](super::similarity) formula on each of the 257 possible
//! distances, so the index and the free function never disagree at the boundary. A max-heap
//! of `(distance, doc)` keeps the best `max`; because docs arrive in ascending order, a later
//! doc at an equal distance never beats a kept one, so once the heap is full the bound
//! tightens to `worst − 1`. `accept` runs only for docs within the current bound.
//!
//! Invariants: `present.len() == signatures.len()`; `len` is the number of `true` entries;
//! an entry that is not present holds the zero signature.
//!
//! Empty signatures (texts without features, see
//! [`Signature::is_empty`](super::Signature::is_empty)) never match: a featureless query
//! returns nothing and featureless stored texts are skipped, so "?!" does not find "🚀" with
//! similarity 1.

use crate::sort::{Ranked, TopK};

use super::lsh::{hamming_distance, similarity_of_distance, Signature, SIGNATURE_BITS};
use crate::error::Result;
use crate::image::{self, Persist, Reader, Writer};
use crate::store::{Chunked, DocId};

/// Signatures by DocId with an exact scan.
///
/// ```
/// use recallkit::signature::{signature, SignatureIndex, DEFAULT_MAX_HITS, DEFAULT_THRESHOLD};
/// use recallkit::store::DocId;
///
/// let seed = 0x5eed;
/// let mut index = SignatureIndex::new();
/// index.set(DocId(0), signature("the quarterly budget review moved to Thursday", seed));
/// index.set(DocId(1), signature("my sister prefers green tea", seed));
/// let query = signature("quarterly budget reveiw moved to thursday", seed);
/// let hits = index.search(&query, DEFAULT_THRESHOLD, DEFAULT_MAX_HITS, |_| true);
/// assert_eq!(hits.len(), 1);
/// assert_eq!(hits[0].0, DocId(0));
/// ```
#[derive(Debug, Clone, Default)]
pub struct SignatureIndex {
    signatures: Chunked<Signature>,
    present: Chunked<bool>,
    len: usize,
}

impl SignatureIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `s` for `doc`, replacing any previous signature.
    pub fn set(&mut self, doc: DocId, s: Signature) {
        let index = doc.0 as usize;
        if self.signatures.len() <= index {
            self.signatures.extend_to(index + 1, Signature::default());
            self.present.extend_to(index + 1, false);
        }
        self.signatures[index] = s;
        if !self.present[index] {
            self.present[index] = true;
            self.len += 1;
        }
    }

    /// Removes the signature of `doc`; returns whether there was one.
    pub fn remove(&mut self, doc: DocId) -> bool {
        let index = doc.0 as usize;
        match (self.present.get_mut(index), self.signatures.get_mut(index)) {
            (Some(present), Some(signature)) if *present => {
                *present = false;
                *signature = Signature::default();
                self.len -= 1;
                true
            }
            _ => false,
        }
    }

    /// The signature stored for `doc`.
    pub fn get(&self, doc: DocId) -> Option<Signature> {
        let index = doc.0 as usize;
        match self.present.get(index) {
            Some(true) => self.signatures.get(index).copied(),
            _ => None,
        }
    }

    /// The Hamming similarity of `doc`'s signature with `query` (`1 − distance / bits`), as
    /// [`search`](Self::search) reports it; `None` when `doc` has no signature or either is
    /// empty.
    pub fn similarity(&self, doc: DocId, query: &Signature) -> Option<f64> {
        let s = self.get(doc)?;
        if s.is_empty() || query.is_empty() {
            return None;
        }
        Some(similarity_of_distance(hamming_distance(query, &s)))
    }

    /// One more than the largest document that ever had a signature (0 when none).
    pub fn bound(&self) -> usize {
        self.signatures.len()
    }

    /// Number of stored signatures.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no signature is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every doc passing `accept` with similarity ≥ `threshold`, the best `max` by similarity
    /// descending, ties by ascending DocId. A NaN or above-1 threshold, `max = 0` or an
    /// empty query give no hits; `accept` runs only for docs that could enter the result.
    pub fn search(
        &self,
        query: &Signature,
        threshold: f64,
        max: usize,
        mut accept: impl FnMut(DocId) -> bool,
    ) -> Vec<(DocId, f64)> {
        let Some(mut bound) = max_distance(threshold) else {
            return Vec::new();
        };
        if max == 0 || query.is_empty() {
            return Vec::new();
        }
        // Ranked by closeness (`SIGNATURE_BITS − distance`): the nearest first, ties by DocId.
        let closeness = |distance: u32| SIGNATURE_BITS as u32 - distance;
        let mut top = TopK::new(max);
        let rows = self.signatures.iter().zip(self.present.iter());
        for (index, (s, &present)) in rows.enumerate() {
            let distance = hamming_distance(query, s);
            if distance > bound || !present || s.is_empty() {
                continue;
            }
            let Ok(doc) = u32::try_from(index) else {
                break;
            };
            if !accept(DocId(doc)) {
                continue;
            }
            top.push(Ranked {
                score: closeness(distance),
                id: doc,
            });
            if let Some(worst) = top.worst_when_full() {
                match SIGNATURE_BITS as u32 - worst.score {
                    0 => break, // max hits at distance 0: nothing later can beat them
                    d => bound = d - 1,
                }
            }
        }
        (top.into_sorted_vec().into_iter())
            .map(|r| {
                (
                    DocId(r.id),
                    similarity_of_distance(SIGNATURE_BITS as u32 - r.score),
                )
            })
            .collect()
    }

    /// Heap memory held by the index, in bytes (capacities).
    pub fn heap_bytes(&self) -> usize {
        self.signatures.heap_bytes() + self.present.heap_bytes()
    }
}

/// The largest distance whose similarity is ≥ `threshold`, or `None` if there is none.
fn max_distance(threshold: f64) -> Option<u32> {
    (0..=SIGNATURE_BITS as u32)
        .rev()
        .find(|&d| similarity_of_distance(d) >= threshold)
}

/// Saved as its signatures and their presence flags; the count is recomputed.
impl Persist for SignatureIndex {
    fn save(&self, w: &mut Writer) -> Result<()> {
        self.signatures.save(w)?;
        self.present.save(w)
    }

    fn load(r: &mut Reader) -> Result<Self> {
        let signatures = Chunked::load(r)?;
        let present = Chunked::<bool>::load(r)?;
        if present.len() != signatures.len() {
            return Err(image::corrupt("signatures and their flags disagree"));
        }
        let len = present.iter().filter(|&&p| p).count();
        Ok(SignatureIndex {
            signatures,
            present,
            len,
        })
    }
}

impl Persist for Signature {
    fn save(&self, w: &mut Writer) -> Result<()> {
        self.0.save(w)
    }

    fn load(r: &mut Reader) -> Result<Self> {
        Ok(Signature(<[u64; 4]>::load(r)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::similarity;
    use crate::test_support::SplitMix64;

    /// A signature at exactly `distance` from `base` (flips its lowest `distance` bits).
    fn at_distance(base: Signature, distance: u32) -> Signature {
        let mut words = base.0;
        for b in 0..distance as usize {
            words[b / 64] ^= 1 << (b % 64);
        }
        Signature(words)
    }

    /// A signature at exactly `distance` from `base`, flipping random bits.
    fn near(rng: &mut SplitMix64, base: Signature, distance: u32) -> Signature {
        let mut mask = Signature::default();
        while hamming_distance(&mask, &Signature::default()) < distance {
            let b = rng.below(SIGNATURE_BITS as u64) as usize;
            mask.0[b / 64] |= 1 << (b % 64);
        }
        Signature(std::array::from_fn(|i| base.0[i] ^ mask.0[i]))
    }

    fn ids(hits: &[(DocId, f64)]) -> Vec<u32> {
        hits.iter().map(|h| h.0 .0).collect()
    }

    const QUERY: Signature = Signature([0xdead_beef, 0x1234, 0, u64::MAX]);

    #[test]
    fn set_get_replace_and_remove() {
        let mut index = SignatureIndex::new();
        assert!(index.is_empty());
        index.set(DocId(3), QUERY);
        assert_eq!(index.len(), 1);
        assert_eq!(index.get(DocId(3)), Some(QUERY));
        assert_eq!(index.get(DocId(2)), None);
        assert_eq!(index.get(DocId(u32::MAX)), None);
        let other = at_distance(QUERY, 10);
        index.set(DocId(3), other);
        assert_eq!((index.len(), index.get(DocId(3))), (1, Some(other)));
        assert!(index.remove(DocId(3)));
        assert!(!index.remove(DocId(3)));
        assert!(!index.remove(DocId(1000)));
        assert!(index.is_empty());
        assert_eq!(index.get(DocId(3)), None);
        assert!(index.search(&QUERY, 0.0, 10, |_| true).is_empty());
    }

    #[test]
    fn ranks_by_similarity_then_ascending_doc_id() {
        let mut index = SignatureIndex::new();
        for (doc, distance) in [(0, 40), (1, 10), (2, 40), (3, 0), (4, 100), (5, 10)] {
            index.set(DocId(doc), at_distance(QUERY, distance));
        }
        let hits = index.search(&QUERY, 0.65, 10, |_| true);
        assert_eq!(ids(&hits), [3, 1, 5, 0, 2]);
        assert_eq!(hits[1].1, 1.0 - 10.0 / 256.0);
        assert_eq!(ids(&index.search(&QUERY, 0.65, 3, |_| true)), [3, 1, 5]);
        assert_eq!(ids(&index.search(&QUERY, 0.65, 4, |_| true)), [3, 1, 5, 0]);
        assert_eq!(
            ids(&index.search(&QUERY, 0.65, 10, |d| d.0 % 2 == 0)),
            [0, 2]
        );
        assert_eq!(index.search(&QUERY, 0.0, 10, |_| true).len(), 6);
    }

    #[test]
    fn threshold_is_inclusive_and_matches_similarity() {
        let mut index = SignatureIndex::new();
        // 0.65 · 256 = 166.4, so distance 89 (similarity 0.6523) passes and 90 (0.6484) fails.
        index.set(DocId(0), at_distance(QUERY, 89));
        index.set(DocId(1), at_distance(QUERY, 90));
        assert_eq!(ids(&index.search(&QUERY, 0.65, 5, |_| true)), [0]);
        let exact = similarity(&QUERY, &at_distance(QUERY, 90));
        assert_eq!(ids(&index.search(&QUERY, exact, 5, |_| true)), [0, 1]);
    }

    #[test]
    fn degenerate_arguments_give_no_hits() {
        let mut index = SignatureIndex::new();
        index.set(DocId(0), QUERY);
        index.set(DocId(1), Signature::default());
        assert!(index.search(&QUERY, f64::NAN, 5, |_| true).is_empty());
        assert!(index.search(&QUERY, 1.0 + 1e-9, 5, |_| true).is_empty());
        assert!(index.search(&QUERY, 0.5, 0, |_| true).is_empty());
        assert!(index
            .search(&Signature::default(), 0.0, 5, |_| true)
            .is_empty());
        assert_eq!(
            ids(&index.search(&QUERY, f64::NEG_INFINITY, 5, |_| true)),
            [0]
        );
    }

    #[test]
    fn calls_accept_only_within_the_bound() {
        let mut index = SignatureIndex::new();
        for doc in 0..50 {
            index.set(DocId(doc), at_distance(QUERY, 2 * doc));
        }
        let mut asked = Vec::new();
        let hits = index.search(&QUERY, 0.65, 3, |d| {
            asked.push(d.0);
            true
        });
        assert_eq!(ids(&hits), [0, 1, 2]);
        assert_eq!(
            asked,
            [0, 1, 2],
            "the heap was full at distance 0..4, nothing else fits"
        );
    }

    #[test]
    fn search_matches_a_full_sort_oracle() {
        for case in 0..500u64 {
            let mut rng = SplitMix64(0x1d_0000 + case);
            let query = Signature(std::array::from_fn(|_| rng.next_u64()));
            let mut index = SignatureIndex::new();
            let mut stored: Vec<Option<Signature>> = vec![None; 80];
            for _ in 0..rng.below(150) {
                let doc = rng.below(80) as usize;
                if rng.below(6) == 0 {
                    assert_eq!(index.remove(DocId(doc as u32)), stored[doc].is_some());
                    stored[doc] = None;
                    continue;
                }
                let distance = rng.below(140) as u32;
                let s = near(&mut rng, query, distance);
                index.set(DocId(doc as u32), s);
                stored[doc] = Some(s);
            }
            let threshold = rng.below(101) as f64 / 100.0;
            let max = rng.below(12) as usize;
            let modulus = 1 + rng.below(3);
            let accept = |d: DocId| u64::from(d.0) % modulus != 1;
            let mut want: Vec<(DocId, f64)> = stored
                .iter()
                .enumerate()
                .filter_map(|(doc, s)| s.map(|s| (DocId(doc as u32), similarity(&query, &s))))
                .filter(|&(doc, sim)| sim >= threshold && accept(doc))
                .collect();
            want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            want.truncate(max);
            assert_eq!(
                index.search(&query, threshold, max, accept),
                want,
                "case {case}"
            );
            assert_eq!(index.len(), stored.iter().flatten().count(), "case {case}");
        }
    }

    #[test]
    fn heap_bytes_grows_with_the_doc_id_range() {
        let mut index = SignatureIndex::new();
        index.set(DocId(99), QUERY);
        assert!(index.heap_bytes() >= 100 * 33);
    }
}
