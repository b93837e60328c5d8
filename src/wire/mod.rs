//! What crosses the WebAssembly boundary besides typed arrays. serde-wasm-bindgen
//! (`src/wasm.rs`) carries configuration, option bags, single records, listings, recall answers
//! and errors: [`inputs`] reads what the host sends from a serde [`Value`] tree, [`outputs`]
//! are `Serialize` views of what the engine gives out. One bulk path stays binary, a batch of
//! memories ([`batch`], in the tagged encoding of [`value`]), measured faster there; the same
//! encoding holds the records of the engine image ([`records`]).
//!
//! It lives in the core, not in `wasm.rs`, so that it builds and is tested natively; only
//! `wasm.rs` uses it, and only `wasm.rs` names serde-wasm-bindgen.

pub mod batch;
pub mod inputs;
pub mod outputs;
pub mod records;
pub mod value;

pub use value::{decode, Reader, Value, Writer};
