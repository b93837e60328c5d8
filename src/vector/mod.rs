//! Host-supplied dense embeddings and exact cosine search (stage Se, embedding).
//!
//! recallkit never computes embeddings: the host passes them in (a `Float32Array` at the
//! boundary) and this module stores them, checks them, and scans them exactly. There is no
//! approximate index: an exact scan over contiguous rows with a SIMD dot product is fast
//! enough for the corpus sizes a local store holds (10⁴–10⁵ vectors), and it is never wrong.
//!
//! | item | role |
//! |---|---|
//! | [`VectorStore`] | one dimension per store; rows in one `Vec<f32>`; exact top-k by cosine |
//! | [`dot()`] | the dot-product kernel (wasm `simd128` or portable scalar, same summation order) |
//!
//! See [`dense`] for the layout, the scoring formula and the invariants, and [`dot`](mod@dot)
//! for the kernel's summation order.

pub mod dense;
pub mod dot;

pub use dense::{VectorStore, MAX_DIMS, MAX_FAST_NORM, MIN_FAST_NORM};
pub use dot::dot;
