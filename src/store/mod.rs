//! Records and their identifiers: the base layer every other module builds on.

pub mod records;
pub mod stored;

pub use records::{DocId, Memory};
pub use stored::StoredMemory;
