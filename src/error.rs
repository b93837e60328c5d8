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

impl Error {
    /// This error about item `index` of a batch: the detail prefixed with `item {index}: `,
    /// keeping the code (a dimension mismatch, whose detail is fixed, becomes
    /// `invalid_argument`). Callers map the index back to what the item was (a key, a line).
    pub fn at_item(self, index: usize) -> Error {
        let message = format!("item {index}: {}", Detail(&self));
        match self {
            Error::InvalidArgument(_) => Error::InvalidArgument(message),
            Error::NotFound(_) => Error::NotFound(message),
            Error::AlreadyExists(_) => Error::AlreadyExists(message),
            Error::TooLarge(_) => Error::TooLarge(message),
            Error::InvalidEmbedding(_) => Error::InvalidEmbedding(message),
            Error::Corrupt(_) => Error::Corrupt(message),
            Error::DimensionMismatch { .. } => Error::InvalidArgument(message),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), Detail(self))
    }
}

/// What an error's `Display` writes after its code and `": "`.
struct Detail<'a>(&'a Error);

impl fmt::Display for Detail<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Error::InvalidArgument(m)
            | Error::NotFound(m)
            | Error::AlreadyExists(m)
            | Error::TooLarge(m)
            | Error::InvalidEmbedding(m)
            | Error::Corrupt(m) => f.write_str(m),
            Error::DimensionMismatch { expected, got } => {
                write!(f, "expected {expected}, got {got}")
            }
        }
    }
}

impl std::error::Error for Error {}

/// Shows a number in a message without the standard library's float formatting (whose code
/// and tables would add several KiB to the wasm): integers exactly, others rounded to at most
/// nine significant digits (`0.1`, `2.5`, `1.23456789e-7`), `NaN`, `inf` and `-inf` as Rust
/// writes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num(pub f64);

/// Significant digits [`Num`] keeps.
const NUM_DIGITS: i32 = 9;

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v.is_nan() {
            return f.write_str("NaN");
        }
        if v.is_infinite() {
            return f.write_str(if v > 0.0 { "inf" } else { "-inf" });
        }
        if v.fract() == 0.0 && v.abs() < 1e18 {
            return write!(f, "{}", v as i64);
        }
        if v < 0.0 {
            f.write_str("-")?;
        }
        let a = v.abs();
        let exp = a.log10().floor() as i32;
        if (-5..15).contains(&exp) {
            let decimals = (NUM_DIGITS - 1 - exp).max(0);
            let scaled = (a * 10f64.powi(decimals)).round() as u64;
            let unit = 10u64.pow(decimals as u32);
            write_fixed(f, scaled / unit, scaled % unit, decimals as usize)
        } else {
            let decimals = NUM_DIGITS - 1;
            let mantissa = ((a / 10f64.powi(exp)) * 10f64.powi(decimals)).round() as u64;
            let unit = 10u64.pow(decimals as u32);
            write_fixed(f, mantissa / unit, mantissa % unit, decimals as usize)?;
            write!(f, "e{exp}")
        }
    }
}

/// `invalid_argument` "`what` must be between 0 and 1, got `v`" unless `v` lies in `[0, 1]`
/// (NaN does not). The range checks of weights, floors and thresholds share this one copy of
/// the message's formatting.
pub fn check_unit(what: &str, v: f64) -> Result<()> {
    check_range(what, v, 0.0, 1.0)
}

/// `invalid_argument` "`what` must be between `min` and `max`, got `v`" unless `v` lies in
/// `[min, max]` (NaN does not): the one copy of the range checks' message.
#[inline(never)]
pub fn check_range(what: &str, v: f64, min: f64, max: f64) -> Result<()> {
    if (min..=max).contains(&v) {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "{what} must be between {} and {}, got {}",
        Num(min),
        Num(max),
        Num(v)
    )))
}

/// `invalid_argument` "`what` must be a finite number, got `v`" unless `v` is finite.
#[inline(never)]
pub fn check_finite(what: &str, v: f64) -> Result<()> {
    if v.is_finite() {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "{what} must be a finite number, got {}",
        Num(v)
    )))
}

/// `too_large` "`what` is `len` bytes, more than `max`" when `len` exceeds `max`: the one
/// copy of the size checks' message (texts, names, ids).
#[inline(never)]
pub fn check_size(what: &str, len: usize, max: usize) -> Result<()> {
    if len <= max {
        return Ok(());
    }
    Err(Error::TooLarge(format!(
        "{what} is {len} bytes, more than {max}"
    )))
}

/// `whole.fraction` with `fraction` zero-padded to `width` digits, trailing zeros dropped.
fn write_fixed(f: &mut fmt::Formatter<'_>, whole: u64, fraction: u64, width: usize) -> fmt::Result {
    write!(f, "{whole}")?;
    if fraction == 0 {
        return Ok(());
    }
    let mut digits = format!("{fraction:0width$}");
    while digits.ends_with('0') {
        digits.pop();
    }
    write!(f, ".{digits}")
}

/// Result alias used throughout the core.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num_shows_integers_exactly_and_rounds_the_rest() {
        for (v, want) in [
            (6.0, "6"),
            (-5.0, "-5"),
            (0.0, "0"),
            (0.5, "0.5"),
            (0.1, "0.1"),
            (-2.25, "-2.25"),
            (1234.5678, "1234.5678"),
            (1.0 / 3.0, "0.333333333"),
            (9.9999999999, "10"),
            (1.5e-7, "1.5e-7"),
            (2.5e20, "2.5e20"),
            (1.75e300, "1.75e300"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(Num(v).to_string(), want, "{v}");
        }
    }

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
