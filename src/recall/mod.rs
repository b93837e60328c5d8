//! The recall stages and what they share: filters (tags, time words), the Sf scoring formula
//! the trivial-message check and the pronouns of a question.

pub mod filter;
pub mod pronoun;
pub mod query;
pub mod score;
pub mod sf;
pub mod tags;
pub mod time;
pub mod trivial;

pub use filter::Filter;
pub use score::{ScoreParams, SfComponents};
