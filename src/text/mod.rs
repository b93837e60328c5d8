//! Text analysis equal to SQLite FTS5's `porter unicode61 remove_diacritics 2` tokenizer.

pub mod normalize;
pub mod porter;
pub mod tokenize;
