//! Records and their identifiers: the base layer every other module builds on.

pub mod chunked;
pub mod records;
pub mod scope;
pub mod stored;

pub use chunked::Chunked;
pub use records::{DocId, DocMap, Memory};
pub use scope::{Moment, Scope};
pub use stored::StoredMemory;

/// The engine's records by `DocId`: `None` once removed.
pub type Records = Chunked<Option<StoredMemory>>;
