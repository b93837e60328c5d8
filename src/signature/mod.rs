//! 256-bit locality-sensitive text signatures and their Hamming-distance index (stage Ss,
//! signature).
//!
//! A [`Signature`] is a SimHash of a text's weighted features (porter terms and character
//! trigrams; see [`lsh`] for the exact, versioned construction). Similar texts get signatures
//! that differ in few bits, so `similarity = 1 − hamming / 256` approximates the angular
//! similarity of the texts' feature vectors without any model. Stage Ss compares the query's
//! signature with every stored one and keeps at most [`DEFAULT_MAX_HITS`] hits at or above
//! [`DEFAULT_THRESHOLD`].
//!
//! | item | role |
//! |---|---|
//! | [`signature`] | text + seed → [`Signature`] (format [`SIGNATURE_FORMAT_VERSION`]) |
//! | [`hamming_distance`], [`similarity`] | compare two signatures |
//! | [`SignatureIndex`] | signatures by DocId, exact threshold + top-k scan |
//!
//! The seed selects the random hyperplanes. Signatures are comparable only under the same
//! seed and format version, so whoever persists signatures persists both with them (STYLE §2:
//! the seed lives in the index header; a fresh one is drawn by the boundary, never here).

pub mod index;
pub mod lsh;

#[cfg(test)]
mod golden_tests;

pub use index::SignatureIndex;
pub use lsh::{
    hamming_distance, signature, signature_of_analysed, similarity, term_feature, Signature,
    Signer, DEFAULT_MAX_HITS, DEFAULT_THRESHOLD, SIGNATURE_BITS, SIGNATURE_FORMAT_VERSION,
    TRIGRAM_MIN_CHARS,
};
