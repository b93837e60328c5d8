//! The data format of the WebAssembly boundary: a tagged binary encoding of JSON-like
//! values ([`value`]) and the records, options and results written in it ([`shapes`]).
//!
//! It lives in the core, not in `wasm.rs`, so that it builds and is tested natively; only
//! `wasm.rs` uses it. Compared with JSON text it needs no decimal conversion of numbers (no
//! float printing or parsing code in the wasm) and no serde, and reads and writes numbers
//! exactly, `-0` and non-finite values included (so the engine, not the encoding, rejects a
//! `NaN`).

pub mod shapes;
pub mod value;

pub use value::{decode, Reader, Value, Writer};
