//! Dense vector storage, checks on host vectors, and an exact cosine top-k scan.
//!
//! ## Layout
//!
//! A [`VectorStore`] holds vectors of one dimension `d` (fixed by [`VectorStore::new`] or by
//! the first [`VectorStore::set`]; it stays fixed when the store empties again):
//!
//! - `data: Vec<f32>`: row `s` (a *slot*) is `data[s·d .. (s+1)·d]`, exactly the floats the
//!   host gave, so [`VectorStore::get`] round-trips bit for bit;
//! - `inv_norms[s]`: `1 / ‖row s‖` rounded to `f32` (the norm is computed in `f64`), or NaN
//!   when the norm lies outside [[`MIN_FAST_NORM`], [`MAX_FAST_NORM`]] (see below);
//! - `slot_docs[s]`: the [`DocId`] stored in slot `s`;
//! - `doc_slots[doc]`: the slot of `doc`, or `NO_SLOT`. DocIds are dense (the engine assigns
//!   them in insertion order), so this is a plain vector indexed by `DocId.0`.
//!
//! Removal moves the last row into the hole (`copy_within`) and patches both maps, so rows
//! stay contiguous and the scan never meets a gap. Slot order is therefore *not* DocId order;
//! nothing observable depends on it, because ties are broken by DocId.
//!
//! ## Scoring
//!
//! `cosine(q, v) = dot(q̂, v) · inv_norm(v)` where `q̂ = q / ‖q‖` is computed once per search
//! (in `f64`, rounded to `f32`), clamped to `[-1, 1]`. Normalising the query first keeps
//! every partial sum of the dot product bounded by `‖v‖` (Cauchy–Schwarz), so the `f32` scan
//! cannot overflow or lose the result to underflow for rows with norm in
//! [`MIN_FAST_NORM`, `MAX_FAST_NORM`] = [2⁻⁶⁴, 2⁶⁴]. The rare row outside that range is marked
//! with a NaN inverse norm; the scan notices the NaN score and recomputes that row's cosine in
//! `f64`, so even absurd magnitudes (1e-40 or 1e38 per component) score correctly.
//!
//! [`VectorStore::search`] keeps a bounded heap of the best `k` hits (cosine descending, then
//! DocId ascending). Once the heap is full its worst score becomes the admission floor, and
//! the caller's `accept` filter runs only for rows at or above the floor, so a selective
//! threshold or a full heap costs one comparison per row beyond the dot product.
//!
//! The dot product is [`dot`] (wasm `simd128` or portable scalar, with the
//! same summation order, so scores are bit-identical across builds).
//!
//! ## Invariants
//!
//! - `data.len() == slot_docs.len() · d == inv_norms.len() · d`;
//!   `doc_slots[slot_docs[s].0] == s` for every slot `s`, and every other entry is `NO_SLOT`.
//! - Every stored vector has length `d`, only finite components, and a non-zero norm.
//! - A failed call stores nothing: checks run before any mutation, and memory is reserved
//!   with `try_reserve` so running out of memory is an error, not an abort.
//!
//! Reference: cosine similarity over host embeddings as in abmind's recall pipeline (stage Se).

use super::dot::dot;
use crate::error::{Error, Num, Result};
use crate::image::{self, Persist, Reader, Writer};
use crate::sort::{Ranked, TopK};
use crate::store::DocId;

/// Largest supported dimension. Common embedding models use 384–3,072 dimensions; 4,096
/// leaves headroom while bounding a single row at 16 KiB.
pub const MAX_DIMS: usize = 4096;

/// Smallest row norm scored in `f32` (2⁻⁶⁴): below it, products with a unit query could
/// approach the subnormal range and lose precision. Smaller rows are scored in `f64`.
pub const MIN_FAST_NORM: f64 = 5.421_010_862_427_522e-20;

/// Largest row norm scored in `f32` (2⁶⁴), far from `f32::MAX` ≈ 3.4·10³⁸. Larger rows are
/// scored in `f64`.
pub const MAX_FAST_NORM: f64 = 1.844_674_407_370_955_2e19;

/// Marks a DocId that has no row.
const NO_SLOT: u32 = u32::MAX;

/// Embeddings of one dimension, stored contiguously, with an exact cosine top-k scan.
///
/// ```
/// use recallkit::store::DocId;
/// use recallkit::vector::VectorStore;
///
/// let mut store = VectorStore::new(None).unwrap();
/// store.set(DocId(0), &[1.0, 0.0]).unwrap();
/// store.set(DocId(1), &[1.0, 1.0]).unwrap();
/// store.set(DocId(2), &[0.0, 1.0]).unwrap();
/// let hits = store.search(&[1.0, 0.2], 2, 0.5, |_| true).unwrap();
/// assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [DocId(0), DocId(1)]);
/// assert!(store.set(DocId(3), &[1.0, 2.0, 3.0]).is_err()); // dimension is fixed at 2
/// ```
#[derive(Debug, Clone, Default)]
pub struct VectorStore {
    dims: Option<usize>,
    data: Vec<f32>,
    inv_norms: Vec<f32>,
    slot_docs: Vec<DocId>,
    doc_slots: Vec<u32>,
}

impl VectorStore {
    /// An empty store. `Some(d)` fixes the dimension now (`1..=MAX_DIMS`, else
    /// `invalid_argument`); `None` lets the first [`set`](Self::set) fix it.
    pub fn new(dims: Option<usize>) -> Result<Self> {
        if let Some(d) = dims {
            if !(1..=MAX_DIMS).contains(&d) {
                return Err(Error::InvalidArgument(format!(
                    "dims must be in 1..={MAX_DIMS}, got {d}"
                )));
            }
        }
        Ok(Self {
            dims,
            ..Self::default()
        })
    }

    /// The documents that have a vector, in slot order.
    pub fn docs(&self) -> impl Iterator<Item = DocId> + '_ {
        self.slot_docs.iter().copied()
    }

    /// The fixed dimension, or `None` while no dimension was given and no vector was set.
    pub fn dims(&self) -> Option<usize> {
        self.dims
    }

    /// Sets the dimension back to `dims` (e.g. after a write that fixed it was undone):
    /// allowed while no vector is stored, or when it is already `dims`; `invalid_argument`
    /// otherwise, changing nothing.
    pub fn reset_dims(&mut self, dims: Option<usize>) -> Result<()> {
        if dims == self.dims {
            return Ok(());
        }
        if !self.slot_docs.is_empty() {
            return Err(Error::InvalidArgument(
                "the dimension cannot change while vectors are stored".into(),
            ));
        }
        *self = Self::new(dims)?;
        Ok(())
    }

    /// Checks a vector without storing it: `dimension_mismatch` when the dimension is fixed
    /// and differs; `invalid_embedding` when the length is outside `1..=MAX_DIMS` (dimension
    /// not yet fixed), when a component is NaN or ±Inf (the message names its index), or when
    /// every component is zero (cosine is undefined).
    pub fn check(&self, v: &[f32]) -> Result<()> {
        self.validate(v).map(|_| ())
    }

    /// Stores `v` for `doc`, replacing any previous vector; the first call fixes the
    /// dimension if [`new`](Self::new) did not. On error nothing changes.
    pub fn set(&mut self, doc: DocId, v: &[f32]) -> Result<()> {
        let norm = self.validate(v)?;
        let dims = v.len();
        let inv_norm = inverse_norm(norm);
        let index = doc.0 as usize;
        if let Some(slot) = self.slot_of(doc) {
            self.data[slot * dims..(slot + 1) * dims].copy_from_slice(v);
            self.inv_norms[slot] = inv_norm;
            return Ok(());
        }
        self.reserve_row(dims, index)?;
        let slot = self.slot_docs.len();
        let Ok(slot_u32) = u32::try_from(slot) else {
            return Err(Error::TooLarge(format!(
                "vector store is full at {slot} rows"
            )));
        };
        if self.doc_slots.len() <= index {
            self.doc_slots.resize(index + 1, NO_SLOT);
        }
        self.doc_slots[index] = slot_u32;
        self.data.extend_from_slice(v);
        self.inv_norms.push(inv_norm);
        self.slot_docs.push(doc);
        self.dims = Some(dims);
        Ok(())
    }

    /// Removes the vector of `doc`; returns whether there was one.
    pub fn remove(&mut self, doc: DocId) -> bool {
        let Some(slot) = self.slot_of(doc) else {
            return false;
        };
        let dims = self.dims.unwrap_or(0);
        let last = self.slot_docs.len() - 1;
        if slot != last {
            self.data
                .copy_within(last * dims..(last + 1) * dims, slot * dims);
            self.inv_norms[slot] = self.inv_norms[last];
            let moved = self.slot_docs[last];
            self.slot_docs[slot] = moved;
            self.doc_slots[moved.0 as usize] = slot as u32;
        }
        self.data.truncate(last * dims);
        self.inv_norms.truncate(last);
        self.slot_docs.truncate(last);
        self.doc_slots[doc.0 as usize] = NO_SLOT;
        true
    }

    /// The vector stored for `doc`: exactly the floats that were set.
    pub fn get(&self, doc: DocId) -> Option<&[f32]> {
        let slot = self.slot_of(doc)?;
        let dims = self.dims?;
        self.data.get(slot * dims..(slot + 1) * dims)
    }

    /// Number of stored vectors.
    pub fn len(&self) -> usize {
        self.slot_docs.len()
    }

    /// Whether no vector is stored.
    pub fn is_empty(&self) -> bool {
        self.slot_docs.is_empty()
    }

    /// Exact cosine top-k: every stored vector whose doc passes `accept` and whose cosine with
    /// `query` is ≥ `threshold`; the best `k` by cosine descending, ties by ascending DocId.
    ///
    /// The query gets the same errors as [`check`](Self::check); a NaN threshold is
    /// `invalid_argument`. `accept` is called at most once per stored vector, and only for
    /// vectors that could enter the result. Scores are clamped to `[-1, 1]`.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        threshold: f32,
        accept: impl FnMut(DocId) -> bool,
    ) -> Result<Vec<(DocId, f32)>> {
        Ok(self.scan(query, k, threshold, accept)?.hits)
    }

    /// [`search`](Self::search), also returning the moments of every row's cosine with the
    /// query (filtered or not): the background that `rank::evidence::SemanticScale` measures a
    /// hit against, at two additions per row.
    pub fn scan(
        &self,
        query: &[f32],
        k: usize,
        threshold: f32,
        mut accept: impl FnMut(DocId) -> bool,
    ) -> Result<Scan> {
        let query_norm = self.validate(query)?;
        if threshold.is_nan() {
            return Err(Error::InvalidArgument("threshold is NaN".into()));
        }
        let mut out = Scan::default();
        let Some(dims) = self.dims else {
            return Ok(out);
        };
        if k == 0 || self.is_empty() {
            return Ok(out);
        }
        let unit = unit(query, query_norm);
        let mut top = TopK::new(k);
        let mut floor = threshold;
        let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
        let rows = self.data.chunks_exact(dims);
        for ((row, &inv_norm), &doc) in rows.zip(&self.inv_norms).zip(&self.slot_docs) {
            let fast = (dot(&unit, row) * inv_norm).clamp(-1.0, 1.0);
            if !fast.is_nan() {
                let f = f64::from(fast);
                sum += f;
                sum_sq += f * f;
                out.count += 1;
            }
            let score = if fast >= floor {
                fast
            } else if fast.is_nan() {
                match exact_cosine(query, query_norm, row) {
                    exact if exact >= floor => exact,
                    _ => continue,
                }
            } else {
                continue;
            };
            if accept(doc) {
                // `+ 0.0`: a -0.0 cosine is returned as +0.0, the zero it ties with.
                top.push(Ranked {
                    score: score + 0.0,
                    id: doc.0,
                });
                if let Some(worst) = top.worst_when_full() {
                    floor = floor.max(worst.score);
                }
            }
        }
        out.hits = (top.into_sorted_vec().into_iter())
            .map(|r| (DocId(r.id), r.score))
            .collect();
        out.sum = sum;
        out.sum_sq = sum_sq;
        Ok(out)
    }

    /// The cosine of `doc`'s vector with `query`, computed as [`search`](Self::search) does
    /// (so a memory scores the same found by the scan or asked for directly); `None` when
    /// `doc` has no vector or the query is invalid.
    pub fn cosine(&self, doc: DocId, query: &[f32]) -> Option<f32> {
        self.cosine_of(doc, &self.unit_query(query)?)
    }

    /// `query` checked and scaled to unit length once, for many [`cosine_of`](Self::cosine_of)
    /// calls (a recall asks for the cosine of every candidate the scan did not return);
    /// `None` when it is not a valid query for this store.
    pub fn unit_query<'a>(&self, query: &'a [f32]) -> Option<UnitQuery<'a>> {
        let norm = self.validate(query).ok()?;
        Some(UnitQuery {
            query,
            norm,
            unit: unit(query, norm),
        })
    }

    /// [`cosine`](Self::cosine) with the query prepared by [`unit_query`](Self::unit_query).
    pub fn cosine_of(&self, doc: DocId, q: &UnitQuery<'_>) -> Option<f32> {
        let dims = self.dims?;
        let slot = self.slot_of(doc)?;
        let row = &self.data[slot * dims..(slot + 1) * dims];
        let fast = (dot(&q.unit, row) * self.inv_norms[slot]).clamp(-1.0, 1.0);
        Some(if fast.is_nan() {
            exact_cosine(q.query, q.norm, row)
        } else {
            fast
        })
    }

    /// Heap memory held by the store, in bytes (capacities, not lengths).
    pub fn heap_bytes(&self) -> usize {
        self.data.capacity() * std::mem::size_of::<f32>()
            + self.inv_norms.capacity() * std::mem::size_of::<f32>()
            + self.slot_docs.capacity() * std::mem::size_of::<DocId>()
            + self.doc_slots.capacity() * std::mem::size_of::<u32>()
    }

    fn slot_of(&self, doc: DocId) -> Option<usize> {
        match self.doc_slots.get(doc.0 as usize) {
            Some(&slot) if slot != NO_SLOT => Some(slot as usize),
            _ => None,
        }
    }

    /// All checks of [`check`](Self::check); returns the vector's Euclidean norm in `f64`.
    fn validate(&self, v: &[f32]) -> Result<f64> {
        match self.dims {
            Some(expected) if v.len() != expected => {
                return Err(Error::DimensionMismatch {
                    expected,
                    got: v.len(),
                });
            }
            None if v.is_empty() || v.len() > MAX_DIMS => {
                return Err(Error::InvalidEmbedding(format!(
                    "vector has {} dimensions, expected 1..={MAX_DIMS}",
                    v.len()
                )));
            }
            _ => {}
        }
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::InvalidEmbedding(format!(
                "component {i} is {}, expected a finite number",
                Num(f64::from(v[i]))
            )));
        }
        let norm = norm_f64(v);
        if norm == 0.0 {
            return Err(Error::InvalidEmbedding(
                "all components are zero, cosine is undefined".into(),
            ));
        }
        Ok(norm)
    }

    /// Reserves room for one more row so the pushes in [`set`](Self::set) cannot fail.
    fn reserve_row(&mut self, dims: usize, index: usize) -> Result<()> {
        let oom = |_| Error::TooLarge(format!("out of memory storing a {dims}-dim vector"));
        self.data.try_reserve(dims).map_err(oom)?;
        self.inv_norms.try_reserve(1).map_err(oom)?;
        self.slot_docs.try_reserve(1).map_err(oom)?;
        let extra = (index + 1).saturating_sub(self.doc_slots.len());
        self.doc_slots.try_reserve(extra).map_err(oom)
    }
}

/// What [`VectorStore::scan`] found: the hits, and the count, sum and sum of squares of the
/// cosines of every row scored in `f32` (rows outside the fast norm range are left out).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scan {
    /// The best `k` by cosine descending, ties by ascending DocId.
    pub hits: Vec<(DocId, f32)>,
    /// Rows counted.
    pub count: usize,
    /// Σ cosine.
    pub sum: f64,
    /// Σ cosine².
    pub sum_sq: f64,
}

/// `query / ‖query‖` in `f32`, computed in `f64`.
/// A query vector checked and scaled once ([`VectorStore::unit_query`]).
#[derive(Debug, Clone)]
pub struct UnitQuery<'a> {
    query: &'a [f32],
    norm: f64,
    unit: Vec<f32>,
}

fn unit(query: &[f32], query_norm: f64) -> Vec<f32> {
    query
        .iter()
        .map(|&x| (f64::from(x) / query_norm) as f32)
        .collect()
}

/// Euclidean norm in `f64`: squares of `f32` values are exact in `f64` and cannot overflow.
fn norm_f64(v: &[f32]) -> f64 {
    v.iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt()
}

/// `1 / norm` as stored in `inv_norms`: NaN marks a row to be scored in `f64`.
fn inverse_norm(norm: f64) -> f32 {
    if (MIN_FAST_NORM..=MAX_FAST_NORM).contains(&norm) {
        (1.0 / norm) as f32
    } else {
        f32::NAN
    }
}

/// Cosine in `f64` for rows outside the fast range; products of `f32`s are exact in `f64`.
fn exact_cosine(query: &[f32], query_norm: f64, row: &[f32]) -> f32 {
    let dot: f64 = query
        .iter()
        .zip(row)
        .map(|(&q, &v)| f64::from(q) * f64::from(v))
        .sum();
    ((dot / query_norm / norm_f64(row)) as f32).clamp(-1.0, 1.0)
}

/// Saved as its dimension and tables; a load checks the layout invariants of the module doc.
impl Persist for VectorStore {
    fn save(&self, w: &mut Writer) -> Result<()> {
        self.dims.save(w)?;
        w.f32s(&self.data)?;
        w.f32s(&self.inv_norms)?;
        self.slot_docs.save(w)?;
        w.u32s(&self.doc_slots)
    }

    fn load(r: &mut Reader) -> Result<Self> {
        let store = VectorStore {
            dims: Option::load(r)?,
            data: r.f32s()?,
            inv_norms: r.f32s()?,
            slot_docs: Vec::load(r)?,
            doc_slots: r.u32s()?,
        };
        let slots = store.slot_docs.len();
        let d = store.dims.unwrap_or(0);
        let linked = store
            .slot_docs
            .iter()
            .enumerate()
            .all(|(s, doc)| store.doc_slots.get(doc.0 as usize) == Some(&(s as u32)));
        let listed = store.doc_slots.iter().filter(|&&s| s != NO_SLOT).count();
        if store.dims.is_some_and(|d| !(1..=MAX_DIMS).contains(&d))
            || (store.dims.is_none() && slots > 0)
            || store.data.len() != slots * d
            || store.inv_norms.len() != slots
            || !linked
            || listed != slots
        {
            return Err(image::corrupt("a vector store whose tables disagree"));
        }
        Ok(store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::SplitMix64;

    fn store_of(rows: &[&[f32]]) -> VectorStore {
        let mut store = VectorStore::new(None).unwrap();
        for (i, row) in rows.iter().enumerate() {
            store.set(DocId(i as u32), row).unwrap();
        }
        store
    }

    fn ids(hits: &[(DocId, f32)]) -> Vec<u32> {
        hits.iter().map(|h| h.0 .0).collect()
    }

    /// Everything observable about a store, to check that a failed call changed nothing.
    fn snapshot(store: &VectorStore) -> (Option<usize>, usize, Vec<Option<Vec<u32>>>) {
        let rows = (0..16)
            .map(|d| {
                store
                    .get(DocId(d))
                    .map(|v| v.iter().map(|x| x.to_bits()).collect())
            })
            .collect();
        (store.dims(), store.len(), rows)
    }

    fn random_vector(rng: &mut SplitMix64, dims: usize) -> Vec<f32> {
        (0..dims)
            .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
            .collect()
    }

    fn oracle_cosine(a: &[f32], b: &[f32]) -> f64 {
        let dot: f64 = a
            .iter()
            .zip(b)
            .map(|(&x, &y)| f64::from(x) * f64::from(y))
            .sum();
        dot / norm_f64(a) / norm_f64(b)
    }

    /// The oracle's ranking: every (doc, cosine) passing, cosine desc then DocId asc.
    fn oracle_search(
        rows: &[(DocId, Vec<f32>)],
        query: &[f32],
        threshold: f64,
        accept: impl Fn(DocId) -> bool,
    ) -> Vec<(DocId, f64)> {
        let mut all: Vec<(DocId, f64)> = rows
            .iter()
            .map(|(doc, v)| (*doc, oracle_cosine(query, v)))
            .filter(|&(doc, score)| score >= threshold && accept(doc))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        all
    }

    #[test]
    fn the_dimension_can_be_reset_only_while_no_vector_is_stored() {
        let mut store = VectorStore::new(None).unwrap();
        store.set(DocId(0), &[1.0, 0.0, 0.0]).unwrap();
        assert!(store.reset_dims(None).is_err());
        assert_eq!(store.dims(), Some(3));
        store.remove(DocId(0));
        store.reset_dims(None).unwrap();
        assert_eq!(store.dims(), None);
        store.set(DocId(1), &[1.0, 0.0]).unwrap();
        assert_eq!(store.dims(), Some(2));
    }

    #[test]
    fn rejects_dimensions_outside_the_supported_range() {
        for dims in [0, MAX_DIMS + 1] {
            let err = VectorStore::new(Some(dims)).unwrap_err();
            assert_eq!(err.code(), "invalid_argument");
            assert!(err.to_string().contains(&dims.to_string()));
        }
        assert_eq!(
            VectorStore::new(Some(MAX_DIMS)).unwrap().dims(),
            Some(MAX_DIMS)
        );
        assert_eq!(VectorStore::new(None).unwrap().dims(), None);
    }

    #[test]
    fn first_vector_fixes_the_dimension() {
        let mut store = VectorStore::new(None).unwrap();
        store.set(DocId(0), &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(store.dims(), Some(3));
        let err = store.set(DocId(1), &[1.0, 2.0]).unwrap_err();
        assert_eq!(
            err,
            Error::DimensionMismatch {
                expected: 3,
                got: 2
            }
        );
        assert!(store.remove(DocId(0)));
        assert_eq!(store.dims(), Some(3), "the dimension stays fixed");
    }

    #[test]
    fn rejects_mismatched_dimensions() {
        let store = VectorStore::new(Some(4)).unwrap();
        let err = store.check(&[1.0; 5]).unwrap_err();
        assert_eq!(err.to_string(), "dimension_mismatch: expected 4, got 5");
        let err = store.search(&[1.0; 3], 1, 0.0, |_| true).unwrap_err();
        assert_eq!(err.code(), "dimension_mismatch");
    }

    #[test]
    fn rejects_empty_and_oversized_vectors_before_the_dimension_is_fixed() {
        let store = VectorStore::new(None).unwrap();
        assert_eq!(store.check(&[]).unwrap_err().code(), "invalid_embedding");
        let big = vec![1.0; MAX_DIMS + 1];
        assert_eq!(store.check(&big).unwrap_err().code(), "invalid_embedding");
    }

    #[test]
    fn names_the_index_of_a_non_finite_component() {
        let store = VectorStore::new(None).unwrap();
        for (bad, shown) in [
            (f32::NAN, "NaN"),
            (f32::INFINITY, "inf"),
            (f32::NEG_INFINITY, "-inf"),
        ] {
            let err = store.check(&[0.5, 1.0, bad, 2.0]).unwrap_err();
            assert_eq!(err.code(), "invalid_embedding");
            assert_eq!(
                err.to_string(),
                format!("invalid_embedding: component 2 is {shown}, expected a finite number")
            );
        }
    }

    #[test]
    fn rejects_an_all_zero_vector() {
        let store = VectorStore::new(None).unwrap();
        let err = store.check(&[0.0, -0.0, 0.0]).unwrap_err();
        assert_eq!(err.code(), "invalid_embedding");
        assert!(err.to_string().contains("zero"));
        assert!(
            store.check(&[0.0, f32::from_bits(1)]).is_ok(),
            "one subnormal suffices"
        );
    }

    #[test]
    fn failed_calls_leave_the_store_unchanged() {
        let mut store = store_of(&[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0]]);
        let before = snapshot(&store);
        let bad: [&[f32]; 5] = [
            &[1.0, 2.0],
            &[1.0, 2.0, 3.0, 4.0],
            &[f32::NAN, 0.0, 1.0],
            &[1.0, f32::INFINITY, 1.0],
            &[0.0, 0.0, 0.0],
        ];
        for v in bad {
            assert!(store.set(DocId(0), v).is_err(), "replace with {v:?}");
            assert!(store.set(DocId(7), v).is_err(), "insert {v:?}");
            assert!(store.search(v, 3, 0.0, |_| true).is_err(), "query {v:?}");
            assert_eq!(snapshot(&store), before);
        }
        let mut empty = VectorStore::new(None).unwrap();
        assert!(empty.set(DocId(0), &[0.0]).is_err());
        assert_eq!(empty.dims(), None, "a rejected first vector fixes nothing");
        assert!(empty.is_empty());
    }

    #[test]
    fn get_returns_exactly_the_floats_given() {
        let v = [
            0.1f32,
            -0.0,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::MAX,
            -1e-30,
        ];
        let store = store_of(&[&v]);
        let got: Vec<u32> = store
            .get(DocId(0))
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect();
        let want: Vec<u32> = v.iter().map(|x| x.to_bits()).collect();
        assert_eq!(got, want);
        assert_eq!(store.get(DocId(1)), None);
        assert_eq!(store.get(DocId(u32::MAX)), None);
    }

    #[test]
    fn replace_overwrites_in_place() {
        let mut store = store_of(&[&[1.0, 0.0], &[0.0, 1.0]]);
        store.set(DocId(0), &[0.0, 2.0]).unwrap();
        assert_eq!(store.len(), 2);
        assert_eq!(store.get(DocId(0)), Some(&[0.0, 2.0][..]));
        let hits = store.search(&[0.0, 1.0], 5, 0.9, |_| true).unwrap();
        assert_eq!(
            ids(&hits),
            [0, 1],
            "both now point the same way; ties by DocId"
        );
    }

    #[test]
    fn remove_moves_the_last_row_into_the_hole() {
        let mut store = store_of(&[&[1.0, 0.0], &[0.0, 1.0], &[1.0, 1.0]]);
        assert!(store.remove(DocId(0)));
        assert!(!store.remove(DocId(0)));
        assert!(!store.remove(DocId(99)));
        assert_eq!(store.len(), 2);
        assert_eq!(store.get(DocId(0)), None);
        assert_eq!(store.get(DocId(1)), Some(&[0.0, 1.0][..]));
        assert_eq!(store.get(DocId(2)), Some(&[1.0, 1.0][..]));
        let hits = store.search(&[1.0, 0.0], 5, -1.0, |_| true).unwrap();
        assert_eq!(ids(&hits), [2, 1]);
        assert!(store.remove(DocId(2)));
        assert!(store.remove(DocId(1)));
        assert!(store.is_empty());
        assert!(store
            .search(&[1.0, 0.0], 5, -1.0, |_| true)
            .unwrap()
            .is_empty());
        store.set(DocId(1), &[3.0, 4.0]).unwrap();
        assert_eq!(store.get(DocId(1)), Some(&[3.0, 4.0][..]));
    }

    #[test]
    fn breaks_exact_ties_by_ascending_doc_id() {
        let mut store = VectorStore::new(Some(3)).unwrap();
        for doc in [5, 2, 9, 0] {
            store.set(DocId(doc), &[0.3, 0.4, 0.5]).unwrap();
        }
        store.remove(DocId(2));
        store.set(DocId(2), &[0.3, 0.4, 0.5]).unwrap();
        let hits = store.search(&[1.0, 1.0, 1.0], 3, 0.0, |_| true).unwrap();
        assert_eq!(ids(&hits), [0, 2, 5]);
        assert!(hits.iter().all(|h| h.1 == hits[0].1));
    }

    #[test]
    fn applies_threshold_k_and_accept() {
        let store = store_of(&[
            &[1.0, 0.0],
            &[0.8, 0.6],
            &[0.6, 0.8],
            &[0.0, 1.0],
            &[-1.0, 0.0],
        ]);
        let q = [1.0, 0.0];
        assert_eq!(
            ids(&store.search(&q, 10, 0.5, |_| true).unwrap()),
            [0, 1, 2]
        );
        assert_eq!(ids(&store.search(&q, 2, 0.5, |_| true).unwrap()), [0, 1]);
        assert_eq!(
            ids(&store.search(&q, 10, 0.5, |d| d.0 != 1).unwrap()),
            [0, 2]
        );
        assert_eq!(
            ids(&store.search(&q, 10, -1.0, |_| true).unwrap()),
            [0, 1, 2, 3, 4]
        );
        assert!(store.search(&q, 0, 0.5, |_| true).unwrap().is_empty());
        let hits = store.search(&q, usize::MAX, 0.5, |_| true).unwrap();
        assert_close!(f64::from(hits[1].1), 0.8, 1e-6);
        assert_eq!(hits[0].1, 1.0);
    }

    #[test]
    fn rejects_a_nan_threshold() {
        let store = store_of(&[&[1.0]]);
        let err = store.search(&[1.0], 1, f32::NAN, |_| true).unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
    }

    #[test]
    fn calls_accept_only_for_rows_that_could_enter_the_result() {
        let mut rng = SplitMix64(7);
        let mut store = VectorStore::new(Some(8)).unwrap();
        for doc in 0..200 {
            store.set(DocId(doc), &random_vector(&mut rng, 8)).unwrap();
        }
        let q = random_vector(&mut rng, 8);
        let mut calls = 0;
        let hits = store
            .search(&q, 5, 0.6, |_| {
                calls += 1;
                true
            })
            .unwrap();
        let above = (0..200)
            .filter(|&d| oracle_cosine(&q, store.get(DocId(d)).unwrap()) >= 0.6)
            .count();
        assert!(hits.len() <= 5);
        assert!(
            calls <= above,
            "{calls} accept calls for {above} rows above threshold"
        );
    }

    #[test]
    fn scores_extreme_magnitudes_exactly() {
        let tiny = [1e-40f32, 1e-40, 0.0];
        let huge = [3e38f32, 3e38, 0.0];
        let store = store_of(&[&tiny, &huge, &[1.0, 1.0, 0.0], &[1.0, 0.0, 0.0]]);
        assert!(store.inv_norms[0].is_nan() && store.inv_norms[1].is_nan());
        let hits = store.search(&[2.0, 2.0, 0.0], 10, 0.9, |_| true).unwrap();
        assert_eq!(ids(&hits), [0, 1, 2]);
        assert_eq!((hits[0].1, hits[1].1), (1.0, 1.0), "f64 path: exact");
        assert_close!(f64::from(hits[2].1), 1.0, 1e-6);
        let hits = store
            .search(&[1e-45, 0.0, 0.0], 10, -1.0, |_| true)
            .unwrap();
        assert_eq!(ids(&hits), [3, 0, 1, 2]);
        assert_close!(f64::from(hits[1].1), 0.5f64.sqrt(), 1e-6);
        assert_close!(f64::from(hits[2].1), 0.5f64.sqrt(), 1e-6);
    }

    #[test]
    fn fast_norm_bounds_are_powers_of_two() {
        assert_eq!(MIN_FAST_NORM, 2f64.powi(-64));
        assert_eq!(MAX_FAST_NORM, 2f64.powi(64));
    }

    #[test]
    fn search_matches_a_brute_force_f64_oracle() {
        const CASES: u64 = 300;
        for case in 0..CASES {
            let seed = 0x5eed_0000 + case;
            let mut rng = SplitMix64(seed);
            let dims = 1 + rng.below(70) as usize;
            let mut store = VectorStore::new(None).unwrap();
            let mut rows: Vec<(DocId, Vec<f32>)> = Vec::new();
            for _ in 0..rng.below(120) {
                let doc = DocId(rng.below(150) as u32);
                let v = if !rows.is_empty() && rng.below(8) == 0 {
                    rows[rng.below(rows.len() as u64) as usize].1.clone() // exact ties
                } else {
                    random_vector(&mut rng, dims)
                };
                if norm_f64(&v) == 0.0 {
                    continue;
                }
                store.set(doc, &v).unwrap();
                rows.retain(|r| r.0 != doc);
                rows.push((doc, v));
                if rng.below(5) == 0 {
                    let gone = DocId(rng.below(150) as u32);
                    let had = rows.iter().any(|r| r.0 == gone);
                    assert_eq!(store.remove(gone), had, "seed {seed:#x}");
                    rows.retain(|r| r.0 != gone);
                }
            }
            assert_eq!(store.len(), rows.len(), "seed {seed:#x}");
            let query = random_vector(&mut rng, dims);
            if norm_f64(&query) == 0.0 {
                continue;
            }
            let k = rng.below(12) as usize;
            let threshold = rng.below(200) as f32 / 100.0 - 1.0;
            let modulus = 1 + rng.below(4) as u32;
            let accept = |d: DocId| d.0 % modulus != 0 || modulus == 1;
            let got = store.search(&query, k, threshold, accept).unwrap();
            let want = oracle_search(&rows, &query, f64::from(threshold), accept);
            check_against_oracle(&got, &want, k, f64::from(threshold), &rows, &query, seed);
        }
    }

    /// Top-k equal to the oracle's up to float ties: same length (except for scores within
    /// 1e-5 of the threshold), scores within 1e-5 rank by rank, and every returned doc truly
    /// scores within 1e-5 of what was reported.
    fn check_against_oracle(
        got: &[(DocId, f32)],
        want: &[(DocId, f64)],
        k: usize,
        threshold: f64,
        rows: &[(DocId, Vec<f32>)],
        query: &[f32],
        seed: u64,
    ) {
        const EPS: f64 = 1e-5;
        let near = want
            .iter()
            .filter(|w| (w.1 - threshold).abs() <= EPS)
            .count();
        let expected = want.len().min(k);
        assert!(
            got.len().abs_diff(expected) <= near,
            "seed {seed:#x}: got {} hits, oracle {expected}",
            got.len()
        );
        for (rank, (g, w)) in got.iter().zip(want).enumerate() {
            assert_close!(f64::from(g.1), w.1, EPS);
            let truth = rows
                .iter()
                .find(|r| r.0 == g.0)
                .map(|r| oracle_cosine(query, &r.1));
            assert_close!(f64::from(g.1), truth.unwrap_or(f64::NAN), EPS);
            if (w.1 - f64::from(g.1)).abs() < 1e-12 && rank + 1 < got.len() {
                // Exact ties keep ascending DocId.
                let next = got[rank + 1];
                assert!(
                    next.1 < g.1 || next.0 > g.0,
                    "seed {seed:#x}: rank {rank} out of order"
                );
            }
        }
        let mut seen: Vec<u32> = got.iter().map(|g| g.0 .0).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), got.len(), "seed {seed:#x}: duplicate hits");
        let strictly_in: Vec<DocId> = want
            .iter()
            .take(k)
            .filter(|w| k >= want.len() || w.1 > want[k - 1].1 + EPS)
            .filter(|w| w.1 > threshold + EPS)
            .map(|w| w.0)
            .collect();
        for doc in strictly_in {
            assert!(
                got.iter().any(|g| g.0 == doc),
                "seed {seed:#x}: missing {doc:?}"
            );
        }
    }

    #[test]
    fn heap_bytes_grows_with_the_rows() {
        let mut store = VectorStore::new(Some(384)).unwrap();
        let empty = store.heap_bytes();
        store.set(DocId(0), &[1.0; 384]).unwrap();
        assert!(store.heap_bytes() >= empty + 384 * 4);
    }

    /// `cargo test --release -- --ignored --nocapture scan_speed` prints ns per vector.
    #[test]
    #[ignore = "benchmark; run in release"]
    fn scan_speed() {
        let dims = 384;
        for n in [1_000u32, 10_000, 100_000] {
            let mut rng = SplitMix64(42);
            let mut store = VectorStore::new(Some(dims)).unwrap();
            for doc in 0..n {
                store
                    .set(DocId(doc), &random_vector(&mut rng, dims))
                    .unwrap();
            }
            let target = store.get(DocId(n / 2)).unwrap().to_vec();
            let reps = 2_000_000 / n;
            let start = std::time::Instant::now();
            for _ in 0..reps {
                let hits = store.search(&target, 10, 0.5, |_| true).unwrap();
                assert_eq!(hits[0].0, DocId(n / 2));
            }
            let ns = start.elapsed().as_nanos() as f64 / f64::from(reps * n);
            println!("scan {n} x {dims}: {ns:.1} ns per vector");
        }
    }
}
