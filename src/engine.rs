//! The engine (in progress).

/// The recall engine.
#[derive(Debug, Default)]
pub struct Engine {}
