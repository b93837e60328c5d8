//! Records and their identifiers: the base layer every other module builds on.

pub mod records;

pub use records::{DocId, Memory};
