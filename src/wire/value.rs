//! The binary encoding of the bulk path and the engine image: a small tagged encoding of
//! JSON-like values, read into [`Value`] trees and written with [`Writer`]; and [`Value`]'s
//! serde `Deserialize`, through which every other input crosses.
//!
//! | tag | value | payload |
//! |---|---|---|
//! | `0x00` | null (JS `null`; `undefined` object fields are left out) | none |
//! | `0x01` / `0x02` | false / true | none |
//! | `0x03` | number | 8 bytes, IEEE 754 binary64, little-endian |
//! | `0x04` | integer number | zigzag LEB128 varint; writers use it below 2⁵² in magnitude, where JavaScript's doubles hold the zigzag value exactly |
//! | `0x05` | string | u32 little-endian byte length, then UTF-8 |
//! | `0x06` | array | values, then `0x08` |
//! | `0x07` | object | entries (key as a string, tag included, then a value), then `0x08` |
//! | `0x08` | end of an array or object | none |
//! | `0x09` | record of a known shape | u32 little-endian mask of the fields present, then their values in the shape's field order |
//!
//! A record (`0x09`) is an object whose keys both sides know: bit `i` of its mask says
//! whether the shape's field `i` follows, so no key crosses. Only a reader that expects a
//! shape reads one (a batch of memories: `memories_into` in [`batch`](super::batch), with
//! `encodeRecordsView` in wire.ts writing it); it is not a [`Value`], and anywhere else it is
//! malformed.
//!
//! The TypeScript side (`js/src/wire.ts`) writes these bytes for a batch of memories; the
//! engine image keeps notes, entities and edges in them ([`records`](super::records)). Numbers
//! travel as their bits; strings are UTF-8, where JavaScript's `TextEncoder` has already turned
//! a lone surrogate into U+FFFD. [`Value`] is also what `src/wasm.rs` deserialises a
//! JavaScript value into (serde, as serde-wasm-bindgen reads one), for [`inputs`](super::inputs).
//!
//! Reading is total: malformed, truncated or too deeply nested input (more than
//! [`MAX_DEPTH`] levels) is an `invalid_argument` error, never a panic.

use crate::error::{Error, Result};

/// Deepest nesting of arrays and objects accepted.
pub const MAX_DEPTH: usize = 64;

const NULL: u8 = 0x00;
const FALSE: u8 = 0x01;
const TRUE: u8 = 0x02;
const F64: u8 = 0x03;
const INT: u8 = 0x04;
const STR: u8 = 0x05;
const ARR: u8 = 0x06;
const OBJ: u8 = 0x07;
const END: u8 = 0x08;
const REC: u8 = 0x09;

/// Largest integer magnitude the `INT` tag is read with (JavaScript's safe integers).
const MAX_SAFE: f64 = 9_007_199_254_740_992.0;
/// Integers are written with the `INT` tag below this magnitude (2⁵²), so that the zigzag
/// value, about twice the integer, stays exact in a JavaScript double.
const MAX_INT_WRITTEN: f64 = 4_503_599_627_370_496.0;

/// A decoded value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Num(f64),
    /// An integer beyond 2^53 (a `bigint` from serde-wasm-bindgen; the binary encoding has
    /// none).
    Big(u64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Value>),
    /// An object's entries, in their order.
    Obj(Vec<(String, Value)>),
}

impl Value {
    /// What kind of value this is, for messages: `"null"`, `"a boolean"`, `"a number"`, ….
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Num(_) | Value::Big(_) => "a number",
            Value::Str(_) => "a string",
            Value::Arr(_) => "an array",
            Value::Obj(_) => "an object",
        }
    }
}

/// Reads a [`Value`] from any serde deserializer (`src/wasm.rs`'s over a JavaScript value):
/// `null` and `undefined` are [`Value::Null`], integers up to 2^53 numbers, larger ones
/// [`Value::Big`]; nesting beyond [`MAX_DEPTH`] is an error (a cycle would never end).
impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        serde::de::DeserializeSeed::deserialize(ValueSeed(0), d)
    }
}

/// A number up to 2^53, else [`Value::Big`].
fn unsigned(v: u64) -> Value {
    if v as f64 <= MAX_SAFE {
        Value::Num(v as f64)
    } else {
        Value::Big(v)
    }
}

/// A [`Value`] at nesting depth `.0`.
struct ValueSeed(usize);

impl<'de> serde::de::DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Value, D::Error> {
        if self.0 > MAX_DEPTH {
            return Err(serde::de::Error::custom("value nested too deeply"));
        }
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ValueSeed {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-like value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        match u64::try_from(v) {
            Ok(v) => Ok(unsigned(v)),
            Err(_) => Ok(Value::Num(v as f64)),
        }
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(unsigned(v))
    }

    fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Value::Num(v))
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::Str(v))
    }

    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        serde::de::DeserializeSeed::deserialize(self, d)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(ValueSeed(self.0 + 1))? {
            items.push(item);
        }
        Ok(Value::Arr(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value_seed(ValueSeed(self.0 + 1))?));
        }
        Ok(Value::Obj(entries))
    }
}

/// Reads one value that fills `bytes` exactly.
pub fn decode(bytes: &[u8]) -> Result<Value> {
    let mut reader = Reader::new(bytes);
    let value = reader.value(0)?;
    reader.finish()?;
    Ok(value)
}

fn malformed(what: &str) -> Error {
    Error::InvalidArgument(format!("malformed wire value: {what}"))
}

/// Reads wire bytes front to back. [`decode`] builds a [`Value`] tree with it; the batch
/// paths read records straight from it ([`Reader::begin_obj`], [`Reader::next_key`], the
/// typed reads), so that thousands of memories never exist as trees.
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    /// Fails unless every byte has been read.
    pub fn finish(&self) -> Result<()> {
        if self.pos != self.bytes.len() {
            return Err(malformed("bytes after the value"));
        }
        Ok(())
    }

    /// What kind of value comes next, for messages.
    fn next_kind(&self) -> &'static str {
        match self.peek() {
            Ok(NULL) => "null",
            Ok(FALSE | TRUE) => "a boolean",
            Ok(F64 | INT) => "a number",
            Ok(STR) => "a string",
            Ok(ARR) => "an array",
            Ok(OBJ) => "an object",
            _ => "malformed",
        }
    }

    /// Reads the tag `tag` that opens a container; else an error saying `what` must be `want`.
    fn begin(&mut self, tag: u8, what: &str, want: &str) -> Result<()> {
        if self.peek()? != tag {
            return Err(Error::InvalidArgument(format!(
                "{what} must be {want}, got {}",
                self.next_kind()
            )));
        }
        self.pos += 1;
        Ok(())
    }

    /// Reads the tag that opens an array; `what` names the value in the error.
    pub fn begin_arr(&mut self, what: &str) -> Result<()> {
        self.begin(ARR, what, "an array")
    }

    /// Whether another array item follows (false consumes the array's end).
    pub fn next_item(&mut self) -> Result<bool> {
        if self.peek()? == END {
            self.pos += 1;
            return Ok(false);
        }
        Ok(true)
    }

    /// Reads the tag that opens an object; `what` names the value in the error.
    pub fn begin_obj(&mut self, what: &str) -> Result<()> {
        self.begin(OBJ, what, "an object")
    }

    /// The next key of the object being read, or `None` at its end (consumed).
    pub fn next_key(&mut self) -> Result<Option<&'a str>> {
        match self.byte()? {
            END => Ok(None),
            STR => self.str_ref().map(Some),
            _ => Err(malformed("an object key is not a string")),
        }
    }

    /// The field mask of a record (the `0x09` tag, consumed with its mask), or `None` when
    /// the next value is not one (nothing consumed).
    pub fn record_mask(&mut self) -> Result<Option<u32>> {
        if self.peek()? != REC {
            return Ok(None);
        }
        self.pos += 1;
        let mut mask = [0u8; 4];
        mask.copy_from_slice(self.take(4)?);
        Ok(Some(u32::from_le_bytes(mask)))
    }

    /// Skips the next value (for fields a record does not know).
    pub fn skip(&mut self) -> Result<()> {
        self.value(0).map(drop)
    }

    /// Whether the next value is `null` (consumed if so).
    pub fn skip_null(&mut self) -> Result<bool> {
        if self.peek()? == NULL {
            self.pos += 1;
            return Ok(true);
        }
        Ok(false)
    }

    fn wrong(&self, what: &str, key: &str, want: &str) -> Error {
        Error::InvalidArgument(format!(
            "{what}.{key} must be {want}, got {}",
            self.next_kind()
        ))
    }

    /// A string or `null` (`None`); `what.key` names it in the error.
    #[inline(never)]
    pub fn opt_str(&mut self, what: &str, key: &str) -> Result<Option<String>> {
        Ok(self.opt_str_ref(what, key)?.map(str::to_owned))
    }

    /// [`opt_str`](Self::opt_str) borrowing the input instead of copying it, for a caller
    /// that keeps the text in a buffer of its own.
    pub fn opt_str_ref(&mut self, what: &str, key: &str) -> Result<Option<&'a str>> {
        if self.skip_null()? {
            return Ok(None);
        }
        if self.peek()? != STR {
            return Err(self.wrong(what, key, "a string"));
        }
        self.pos += 1;
        self.str_ref().map(Some)
    }

    /// A boolean or `null` (`None`).
    pub fn opt_bool(&mut self, what: &str, key: &str) -> Result<Option<bool>> {
        match self.peek()? {
            NULL => {
                self.pos += 1;
                Ok(None)
            }
            FALSE | TRUE => Ok(Some(self.byte()? == TRUE)),
            _ => Err(self.wrong(what, key, "a boolean")),
        }
    }

    /// A number or `null` (`None`).
    pub fn opt_num(&mut self, what: &str, key: &str) -> Result<Option<f64>> {
        if self.skip_null()? {
            return Ok(None);
        }
        match self.peek()? {
            tag @ (F64 | INT) => {
                self.pos += 1;
                self.number(tag).map(Some)
            }
            _ => Err(self.wrong(what, key, "a number")),
        }
    }

    /// An integer in `min..=max` or `null` (`None`).
    pub fn opt_int(&mut self, what: &str, key: &str, min: i64, max: i64) -> Result<Option<i64>> {
        let Some(n) = self.opt_num(what, key)? else {
            return Ok(None);
        };
        check_int(what, key, n, min, max).map(Some)
    }

    /// An array of strings; `null` gives an empty one.
    #[inline(never)]
    pub fn strs(&mut self, what: &str, key: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        self.strs_into(what, key, &mut out)?;
        Ok(out)
    }

    /// [`strs`](Self::strs) into `out`, replacing what it held: its strings' buffers are
    /// reused for the items, so a caller that reads many records into one value allocates
    /// only for a longer item or list than before.
    pub fn strs_into(&mut self, what: &str, key: &str, out: &mut Vec<String>) -> Result<()> {
        let mut len = 0;
        self.items(what, key, "an array of strings", |r| {
            if r.peek()? != STR {
                return Ok(false);
            }
            r.pos += 1;
            let item = r.str_ref()?;
            match out.get_mut(len) {
                Some(buffer) => {
                    buffer.clear();
                    buffer.push_str(item);
                }
                None => out.push(item.to_owned()),
            }
            len += 1;
            Ok(true)
        })?;
        out.truncate(len);
        Ok(())
    }

    /// An array of numbers; `null` gives an empty one.
    pub fn nums(&mut self, what: &str, key: &str) -> Result<Vec<f64>> {
        let mut out = Vec::new();
        self.items(what, key, "an array of numbers", |r| match r.peek()? {
            tag @ (F64 | INT) => {
                r.pos += 1;
                out.push(r.number(tag)?);
                Ok(true)
            }
            _ => Ok(false),
        })?;
        Ok(out)
    }

    /// Reads an array (`null` is an empty one) whose items `item` reads, each returning
    /// `false` for an item of the wrong kind, reported as `what.key` not being `want`.
    fn items(
        &mut self,
        what: &str,
        key: &str,
        want: &str,
        mut item: impl FnMut(&mut Self) -> Result<bool>,
    ) -> Result<()> {
        if self.skip_null()? {
            return Ok(());
        }
        if self.peek()? != ARR {
            return Err(self.wrong(what, key, want));
        }
        self.pos += 1;
        while self.next_item()? {
            if !item(self)? {
                return Err(self.wrong(what, key, want));
            }
        }
        Ok(())
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .bytes
            .get(self.pos)
            .ok_or_else(|| malformed("truncated"))?;
        self.pos += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| malformed("truncated"))?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn raw_string(&mut self) -> Result<&'a [u8]> {
        let mut len = [0u8; 4];
        len.copy_from_slice(self.take(4)?);
        self.take(u32::from_le_bytes(len) as usize)
    }

    /// The text of a string whose tag has been read, borrowed from the input.
    #[inline(never)]
    fn str_ref(&mut self) -> Result<&'a str> {
        let raw = self.raw_string()?;
        std::str::from_utf8(raw).map_err(|_| malformed("a string is not UTF-8"))
    }

    /// The payload of a number whose tag (`F64` or `INT`) has been read.
    fn number(&mut self, tag: u8) -> Result<f64> {
        if tag == F64 {
            let mut b = [0u8; 8];
            b.copy_from_slice(self.take(8)?);
            return Ok(f64::from_le_bytes(b));
        }
        let z = self.varint()?;
        let magnitude = (z >> 1) as f64;
        if magnitude > MAX_SAFE {
            return Err(malformed("integer out of range"));
        }
        Ok(if z & 1 == 0 {
            magnitude
        } else {
            -magnitude - 1.0
        })
    }

    fn varint(&mut self) -> Result<u64> {
        let mut out = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            out |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(out);
            }
        }
        Err(malformed("varint too long"))
    }

    fn value(&mut self, depth: usize) -> Result<Value> {
        if depth > MAX_DEPTH {
            return Err(malformed("nested too deeply"));
        }
        Ok(match self.byte()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            tag @ (F64 | INT) => Value::Num(self.number(tag)?),
            STR => Value::Str(self.str_ref()?.to_owned()),
            ARR => {
                let mut items = Vec::new();
                while self.peek()? != END {
                    items.push(self.value(depth + 1)?);
                }
                self.pos += 1;
                Value::Arr(items)
            }
            OBJ => {
                let mut entries = Vec::new();
                while self.peek()? != END {
                    if self.byte()? != STR {
                        return Err(malformed("an object key is not a string"));
                    }
                    let key = self.str_ref()?.to_owned();
                    entries.push((key, self.value(depth + 1)?));
                }
                self.pos += 1;
                Value::Obj(entries)
            }
            _ => return Err(malformed("unknown tag")),
        })
    }

    fn peek(&self) -> Result<u8> {
        self.bytes
            .get(self.pos)
            .copied()
            .ok_or_else(|| malformed("truncated"))
    }
}

/// Writes values in the wire format. Objects and arrays are opened with
/// [`begin_obj`](Writer::begin_obj) / [`begin_arr`](Writer::begin_arr) and closed with
/// [`end`](Writer::end); inside an object each value follows its [`key`](Writer::key).
#[derive(Debug, Default)]
pub struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Writer::default()
    }

    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The start of a record whose fields are those of `mask` (see the module
    /// documentation); their values follow, in the shape's order. Only tests write records
    /// here: the engine reads them, from the TypeScript side.
    #[cfg(test)]
    pub fn record(&mut self, mask: u32) {
        self.bytes.push(REC);
        self.bytes.extend_from_slice(&mask.to_le_bytes());
    }

    /// `null`.
    pub fn null(&mut self) {
        self.bytes.push(NULL);
    }

    /// A boolean.
    pub fn bool(&mut self, v: bool) {
        self.bytes.push(if v { TRUE } else { FALSE });
    }

    /// A number: integers below 2⁵² in magnitude as varints, others as their bits.
    pub fn num(&mut self, v: f64) {
        // -0.0 is not an integer here: its sign must survive.
        if v.fract() == 0.0 && v.abs() < MAX_INT_WRITTEN && !(v == 0.0 && v.is_sign_negative()) {
            self.bytes.push(INT);
            let mut z = if v >= 0.0 {
                (v as u64) << 1
            } else {
                (((-v) as u64 - 1) << 1) | 1
            };
            while z >= 0x80 {
                self.bytes.push((z as u8) | 0x80);
                z >>= 7;
            }
            self.bytes.push(z as u8);
        } else {
            self.bytes.push(F64);
            self.bytes.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// A string.
    pub fn str(&mut self, v: &str) {
        self.bytes.push(STR);
        // Strings crossing the boundary are far below 4 GiB (records are capped in MiB).
        self.bytes
            .extend_from_slice(&u32::try_from(v.len()).unwrap_or(u32::MAX).to_le_bytes());
        self.bytes.extend_from_slice(v.as_bytes());
    }

    /// Opens an array.
    pub fn begin_arr(&mut self) {
        self.bytes.push(ARR);
    }

    /// Opens an object.
    pub fn begin_obj(&mut self) {
        self.bytes.push(OBJ);
    }

    /// Closes the innermost array or object.
    pub fn end(&mut self) {
        self.bytes.push(END);
    }

    /// The key of the next object entry.
    pub fn key(&mut self, k: &str) {
        self.str(k);
    }

    /// An array of strings.
    pub fn strs<S: AsRef<str>>(&mut self, items: &[S]) {
        self.begin_arr();
        for s in items {
            self.str(s.as_ref());
        }
        self.end();
    }

    /// Entry `k: v`.
    pub fn field_str(&mut self, k: &str, v: &str) {
        self.key(k);
        self.str(v);
    }

    /// Entry `k: v`.
    pub fn field_num(&mut self, k: &str, v: f64) {
        self.key(k);
        self.num(v);
    }

    /// Entry `k: v` when `v` is set.
    pub fn opt_str(&mut self, k: &str, v: Option<&str>) {
        if let Some(v) = v {
            self.field_str(k, v);
        }
    }

    /// Entry `k: v` when `v` is set.
    pub fn opt_num(&mut self, k: &str, v: Option<f64>) {
        if let Some(v) = v {
            self.field_num(k, v);
        }
    }

    /// Entry `k: [..]`, left out when empty.
    pub fn opt_strs<S: AsRef<str>>(&mut self, k: &str, items: &[S]) {
        if !items.is_empty() {
            self.key(k);
            self.strs(items);
        }
    }
}

/// `n` as an integer in `min..=max`, or an error naming `what.key`.
pub(super) fn check_int(what: &str, key: &str, n: f64, min: i64, max: i64) -> Result<i64> {
    // The cast is exact: n is integral and within ±2^63 when it passes.
    if n.fract() != 0.0 || !(min as f64..=max as f64).contains(&n) {
        return Err(Error::InvalidArgument(format!(
            "{what}.{key} must be an integer between {min} and {max}, got {}",
            crate::error::Num(n)
        )));
    }
    Ok(n as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(write: impl FnOnce(&mut Writer)) -> Value {
        let mut w = Writer::new();
        write(&mut w);
        decode(&w.into_bytes()).unwrap()
    }

    #[test]
    fn numbers_keep_their_bits() {
        for v in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            1e300,
            -2.5e-310,
            f64::MAX,
            f64::MIN_POSITIVE,
            9_007_199_254_740_992.0,
            -9_007_199_254_740_992.0,
            9_007_199_254_740_994.0,
            1_750_000_000_000.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            match round_trip(|w| w.num(v)) {
                Value::Num(got) => assert_eq!(got.to_bits(), v.to_bits(), "{v}"),
                other => panic!("{other:?}"),
            }
        }
        assert!(matches!(round_trip(|w| w.num(f64::NAN)), Value::Num(n) if n.is_nan()));
    }

    #[test]
    fn nested_values_round_trip() {
        let got = round_trip(|w| {
            w.begin_obj();
            w.field_str("text", "héllo \u{1f980} \"q\"");
            w.key("tags");
            w.strs(&["a", ""]);
            w.key("ok");
            w.bool(true);
            w.key("none");
            w.null();
            w.key("inner");
            w.begin_obj();
            w.end();
            w.end();
        });
        assert_eq!(
            got,
            Value::Obj(vec![
                ("text".into(), Value::Str("héllo \u{1f980} \"q\"".into())),
                (
                    "tags".into(),
                    Value::Arr(vec![Value::Str("a".into()), Value::Str("".into())])
                ),
                ("ok".into(), Value::Bool(true)),
                ("none".into(), Value::Null),
                ("inner".into(), Value::Obj(vec![])),
            ])
        );
    }

    #[test]
    fn keys_of_every_length_round_trip() {
        // Regression: a key of 8 bytes (the END tag's value) once ended its object early.
        let keys: Vec<String> = (0..300).map(|n| "k".repeat(n)).collect();
        let got = round_trip(|w| {
            w.begin_obj();
            for k in &keys {
                w.key(k);
                w.num(k.len() as f64);
            }
            w.end();
        });
        let want: Vec<(String, Value)> = keys
            .iter()
            .map(|k| (k.clone(), Value::Num(k.len() as f64)))
            .collect();
        assert_eq!(got, Value::Obj(want));
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        let mut w = Writer::new();
        w.begin_obj();
        w.field_str("text", "hello");
        w.key("n");
        w.num(0.25);
        w.end();
        let good = w.into_bytes();
        for cut in 0..good.len() {
            let e = decode(&good[..cut]).unwrap_err();
            assert_eq!(e.code(), "invalid_argument");
        }
        let mut extra = good.clone();
        extra.push(NULL);
        assert!(decode(&extra).is_err());
        assert!(decode(&[0x7f]).is_err());
        assert!(decode(&[STR, 2, 0, 0, 0, 0xff, 0xfe]).is_err());
        assert!(decode(&[STR, 0xff, 0xff, 0xff, 0xff]).is_err());
        assert!(
            decode(&[INT, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]).is_err()
        );
        let deep: Vec<u8> = std::iter::repeat_n(ARR, 10_000).collect();
        assert!(decode(&deep).is_err());
        // Seeded random bytes never panic.
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..2_000 {
            let mut bytes = Vec::new();
            for _ in 0..(x % 40) {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                bytes.push((x >> 59) as u8);
            }
            let _ = decode(&bytes);
        }
    }
}
