//! Record types.

/// Dense internal id of a stored memory: an index into the engine's record table.
/// Ids are assigned in insertion order, so ascending `DocId` is insertion order; it is the
/// tie-breaker everywhere a ranking needs one (the analogue of SQLite's ascending rowid).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocId(pub u32);

/// A memory (placeholder, completed by the engine work).
#[derive(Debug, Clone, Default)]
pub struct Memory {
    /// Public id.
    pub id: String,
}
