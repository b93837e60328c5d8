//! The recall stages and what they share: filters (tags, time words) and the Sf scoring formula.

pub mod filter;
pub mod query;
pub mod score;
pub mod sf;
pub mod tags;
pub mod time;

pub use filter::Filter;
pub use score::{ScoreParams, SfComponents};
