//! Core error type with stable, machine-readable codes.
//!
//! Every error's `Display` starts with its code followed by `": "`, for example
//! `dimension_mismatch: expected 384, got 512`. The boundary (`wasm.rs`) passes that
//! string to JavaScript, where `js/src/errors.ts` splits it back into
//! `RecallError { code, message }`. Codes are part of the public API: never rename one.

use std::fmt;

/// An error from the recallkit core. Each variant carries a human-readable detail that
/// names the bad value; [`Error::code`] gives the stable code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// An argument or option is malformed or out of range.
    InvalidArgument(String),
    /// An id does not name a stored record.
    NotFound(String),
    /// A record with this id already exists where a new one was required.
    AlreadyExists(String),
    /// A text or batch exceeds a size limit.
    TooLarge(String),
    /// A vector's length differs from the store's dimension.
    DimensionMismatch {
        /// The store's dimension.
        expected: usize,
        /// The length that was given.
        got: usize,
    },
    /// A vector holds NaN or an infinity.
    InvalidEmbedding(String),
    /// Persisted bytes could not be decoded.
    Corrupt(String),
}

impl Error {
    /// The stable code of this error, for example `"invalid_argument"`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidArgument(_) => "invalid_argument",
            Error::NotFound(_) => "not_found",
            Error::AlreadyExists(_) => "already_exists",
            Error::TooLarge(_) => "too_large",
            Error::DimensionMismatch { .. } => "dimension_mismatch",
            Error::InvalidEmbedding(_) => "invalid_embedding",
            Error::Corrupt(_) => "corrupt",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidArgument(m)
            | Error::NotFound(m)
            | Error::AlreadyExists(m)
            | Error::TooLarge(m)
            | Error::InvalidEmbedding(m)
            | Error::Corrupt(m) => write!(f, "{}: {}", self.code(), m),
            Error::DimensionMismatch { expected, got } => {
                write!(f, "{}: expected {expected}, got {got}", self.code())
            }
        }
    }
}

impl std::error::Error for Error {}

/// Result alias used throughout the core.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_starts_with_the_code() {
        let e = Error::DimensionMismatch {
            expected: 384,
            got: 512,
        };
        assert_eq!(e.to_string(), "dimension_mismatch: expected 384, got 512");
        let e = Error::NotFound("no memory with id \"x\"".into());
        assert_eq!(e.to_string(), "not_found: no memory with id \"x\"");
    }
}
