//! # recallkit
//!
//! A local-first memory recall engine. The core is plain, deterministic Rust: it owns the
//! records, the indexes and every ranking rule, and reads no clock and no ambient randomness
//! (callers pass `now` and seeds). `wasm.rs` is the only module that knows about JavaScript.
//!
//! Module map (dependencies point downwards in this list):
//!
//! | module | role |
//! |---|---|
//! | [`sort`] | the crate's few shared sorts (one copy of std's sort per integer key type) |
//! | [`store`] | records (memories) and their ids |
//! | [`text`] | FTS5-exact tokenisation, case and diacritic folding, Porter stemming |
//! | [`index`] | inverted index, FTS5-exact BM25, trigram fuzzy vocabulary |
//! | [`recall`] | the recall stages and their filters |
//! | [`engine`] | [`Engine`]: owns records and indexes; the API the boundary calls |
//! | [`wire`] | the boundary's binary data format and the shapes written in it |
#![warn(missing_docs)]

pub mod engine;
pub mod error;
pub mod graph;
pub mod index;
pub mod notes;
pub mod rank;
pub mod recall;
pub mod signature;
pub mod sort;
pub mod store;
pub mod text;
pub mod vector;
pub mod wire;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use engine::Engine;
pub use error::{Error, Result};
