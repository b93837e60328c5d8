//! Recall stages (in progress).
