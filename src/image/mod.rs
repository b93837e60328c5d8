//! Engine images: an [`Engine`](crate::engine::Engine)'s records and every index as bytes, so
//! a store opens by parsing them instead of rebuilding (tokenising, stemming, hashing
//! trigrams and signing every memory again).
//!
//! An image is written through a [`Sink`] and read from a [`Source`] in pieces, never as one
//! buffer: a store of 100,000 memories with 384-dimensional embeddings makes an image of
//! about 200 MB, and a wasm linear memory never shrinks, so holding it whole beside the
//! engine would double the heap for good. [`Writer`] hands the sink [`PIECE`]-sized pieces;
//! [`Reader`] keeps at most one piece (or one string) beyond what it has parsed.
//!
//! # Format
//!
//! Little-endian throughout. [`MAGIC`], the format [`VERSION`] (u32), then the engine's parts
//! in a fixed order (`Engine::write_image` lists them), each written by its type's
//! [`Persist`] implementation: integers and floats as their bytes, a `bool` as one byte 0/1,
//! a length as a u32, a string as its length and UTF-8 bytes, an `Option` as a byte 0/1 then
//! the value, a sequence as its length then its items, a hash map as its entries. Last comes
//! [`END`]. The image has no checksum of its own: the snapshot that carries it is framed with
//! a CRC-32 over every byte (`js/src/storage/snapshot.ts`).
//!
//! # Trust
//!
//! A load is a bounds-checked parse: a length that runs past the end, a string that is not
//! UTF-8, a tag out of range, an index that points outside its table or parts that disagree
//! with each other (checked by each part's `check` and `Engine::read_image`) are
//! `Error::Corrupt`, and the caller rebuilds from the records. The image is a cache of the
//! records, never their replacement.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

use crate::error::{Error, Result};

/// First bytes of every image.
pub const MAGIC: [u8; 4] = *b"RKEI";
/// Format version; an image of another version is not read (`Error::Corrupt`), and the store
/// rebuilds from its records. 2: edges hold a validity (`validFrom`, `validTo`); a version 1
/// image was written by an engine that dropped them, so it is never read.
pub const VERSION: u32 = 2;
/// Last bytes of every image: a reader that stops early or reads past its parts notices.
pub const END: [u8; 4] = *b"RKE.";
/// Bytes a [`Writer`] gathers before handing them to its sink.
pub const PIECE: usize = 1 << 18;

/// Where a [`Writer`] puts an image's bytes, a piece at a time.
pub trait Sink {
    /// Takes the next piece of the image.
    fn put(&mut self, bytes: &[u8]) -> Result<()>;
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

/// Where a [`Reader`] gets an image's bytes, a piece at a time.
pub trait Source {
    /// Appends the next piece of the image to `out`; `false` when there is no more.
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<bool>;
}

/// A [`Source`] over bytes in memory, handing them out in [`PIECE`]s (tests, native callers).
pub struct SliceSource<'a> {
    bytes: &'a [u8],
}

impl<'a> SliceSource<'a> {
    /// Reads `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        SliceSource { bytes }
    }
}

impl Source for SliceSource<'_> {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<bool> {
        if self.bytes.is_empty() {
            return Ok(false);
        }
        let n = self.bytes.len().min(PIECE);
        out.extend_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(true)
    }
}

/// The error of a damaged image.
#[inline(never)]
pub fn corrupt(what: &str) -> Error {
    Error::Corrupt(["image: ", what].concat())
}

/// A record of the image that fails its checks, as the image's error.
pub fn damaged(e: Error) -> Error {
    corrupt(&e.to_string())
}

/// Writes an image to a [`Sink`] in [`PIECE`]s.
pub struct Writer<'a> {
    sink: &'a mut dyn Sink,
    buf: Vec<u8>,
}

impl<'a> Writer<'a> {
    /// A writer into `sink`; nothing is written until the first piece fills or [`finish`](Self::finish).
    pub fn new(sink: &'a mut dyn Sink) -> Self {
        Writer {
            sink,
            buf: Vec::with_capacity(PIECE),
        }
    }

    /// Appends raw bytes.
    #[inline(never)]
    pub fn bytes(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            let n = bytes.len().min(PIECE - self.buf.len());
            self.buf.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            if self.buf.len() == PIECE {
                self.sink.put(&self.buf)?;
                self.buf.clear();
            }
        }
        Ok(())
    }

    /// Appends a length or count (a u32: nothing in an engine holds more).
    pub fn len(&mut self, n: usize) -> Result<()> {
        let n =
            u32::try_from(n).map_err(|_| Error::TooLarge("image: a table over 4G items".into()))?;
        self.bytes(&n.to_le_bytes())
    }

    /// Appends a length, then numbers as their little-endian bytes, a piece at a time.
    fn numbers<T: Copy, const N: usize>(
        &mut self,
        values: &[T],
        bytes: fn(T) -> [u8; N],
    ) -> Result<()> {
        self.len(values.len())?;
        for chunk in values.chunks(PIECE / N) {
            let mut out = Vec::with_capacity(chunk.len() * N);
            for &v in chunk {
                out.extend_from_slice(&bytes(v));
            }
            self.bytes(&out)?;
        }
        Ok(())
    }

    /// Appends a length, then the values.
    pub fn u32s(&mut self, values: &[u32]) -> Result<()> {
        self.numbers(values, u32::to_le_bytes)
    }

    /// Appends a length, then the values.
    pub fn u64s(&mut self, values: &[u64]) -> Result<()> {
        self.numbers(values, u64::to_le_bytes)
    }

    /// Appends a length, then the values.
    pub fn f32s(&mut self, values: &[f32]) -> Result<()> {
        self.numbers(values, f32::to_le_bytes)
    }

    /// Appends a length, then the bytes.
    pub fn blob(&mut self, bytes: &[u8]) -> Result<()> {
        self.len(bytes.len())?;
        self.bytes(bytes)
    }

    /// Hands the last piece to the sink.
    pub fn finish(mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.sink.put(&self.buf)?;
        }
        self.buf.clear();
        Ok(())
    }
}

/// Reads an image from a [`Source`], checking every bound.
pub struct Reader<'a> {
    source: &'a mut dyn Source,
    buf: Vec<u8>,
    at: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `source`.
    pub fn new(source: &'a mut dyn Source) -> Self {
        Reader {
            source,
            buf: Vec::new(),
            at: 0,
        }
    }

    /// The next `n` bytes; `Corrupt` when the image ends first.
    #[inline(never)]
    pub fn take(&mut self, n: usize) -> Result<&[u8]> {
        while self.buf.len() - self.at < n {
            if self.at > 0 {
                self.buf.drain(..self.at);
                self.at = 0;
            }
            if !self.source.fill(&mut self.buf)? {
                return Err(corrupt("it ends early"));
            }
        }
        let out = &self.buf[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    /// Whether every byte has been read.
    pub fn at_end(&mut self) -> Result<bool> {
        while self.at == self.buf.len() {
            self.buf.clear();
            self.at = 0;
            if !self.source.fill(&mut self.buf)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// A length or count.
    #[inline(never)]
    #[allow(clippy::len_without_is_empty)] // reads a length from the image; not a container's
    pub fn len(&mut self) -> Result<usize> {
        Ok(u32::from_le_bytes(self.array()?) as usize)
    }

    /// A length, then numbers, read a piece at a time (a bad length runs out of bytes before
    /// it allocates much).
    fn numbers<T, const N: usize>(&mut self, from: fn([u8; N]) -> T) -> Result<Vec<T>> {
        let n = self.len()?;
        // Exactly the stated length: a table grown by doubling would leave the wasm heap up to
        // twice its size for good (a store's vectors are most of it). A length no allocation
        // can hold is damage.
        let mut out = Vec::new();
        out.try_reserve_exact(n)
            .map_err(|_| corrupt("a table larger than memory"))?;
        let mut left = n;
        while left > 0 {
            let k = left.min(PIECE / N);
            let bytes = self.take(k * N)?;
            out.extend(bytes.chunks_exact(N).map(|c| {
                let mut a = [0; N];
                a.copy_from_slice(c);
                from(a)
            }));
            left -= k;
        }
        Ok(out)
    }

    /// A length, then the values.
    pub fn u32s(&mut self) -> Result<Vec<u32>> {
        self.numbers(u32::from_le_bytes)
    }

    /// A length, then the values.
    pub fn u64s(&mut self) -> Result<Vec<u64>> {
        self.numbers(u64::from_le_bytes)
    }

    /// A length, then the values.
    pub fn f32s(&mut self) -> Result<Vec<f32>> {
        // Read as `u32`s (one copy of the reader for both) and converted in place.
        Ok(self.u32s()?.into_iter().map(f32::from_bits).collect())
    }

    /// A length, then the bytes.
    pub fn blob(&mut self) -> Result<Vec<u8>> {
        let n = self.len()?;
        Ok(self.take(n)?.to_vec())
    }

    /// A length, then items, each read by `item`.
    pub fn seq<T>(&mut self, mut item: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        let n = self.len()?;
        let mut out = Vec::new();
        out.try_reserve_exact(n)
            .map_err(|_| corrupt("a table larger than memory"))?;
        for _ in 0..n {
            out.push(item(self)?);
        }
        Ok(out)
    }
}

/// A value an image holds: written by [`save`](Persist::save), read back by
/// [`load`](Persist::load) as it was.
pub trait Persist: Sized {
    /// Writes the value.
    fn save(&self, w: &mut Writer) -> Result<()>;
    /// Reads a value written by [`save`](Persist::save).
    fn load(r: &mut Reader) -> Result<Self>;
}

macro_rules! persist_number {
    ($($t:ty),*) => {$(
        impl Persist for $t {
            fn save(&self, w: &mut Writer) -> Result<()> {
                w.bytes(&self.to_le_bytes())
            }
            fn load(r: &mut Reader) -> Result<Self> {
                Ok(<$t>::from_le_bytes(r.array()?))
            }
        }
    )*};
}
persist_number!(u8, u16, u32, u64, i64, f32, f64);

impl Persist for usize {
    fn save(&self, w: &mut Writer) -> Result<()> {
        (*self as u64).save(w)
    }
    fn load(r: &mut Reader) -> Result<Self> {
        usize::try_from(u64::load(r)?).map_err(|_| corrupt("a size too large for this platform"))
    }
}

impl Persist for bool {
    fn save(&self, w: &mut Writer) -> Result<()> {
        u8::from(*self).save(w)
    }
    fn load(r: &mut Reader) -> Result<Self> {
        match u8::load(r)? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(corrupt("a flag that is neither 0 nor 1")),
        }
    }
}

impl Persist for String {
    fn save(&self, w: &mut Writer) -> Result<()> {
        w.len(self.len())?;
        w.bytes(self.as_bytes())
    }
    fn load(r: &mut Reader) -> Result<Self> {
        let n = r.len()?;
        let bytes = r.take(n)?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| corrupt("a string that is not UTF-8"))
    }
}

impl Persist for Box<str> {
    fn save(&self, w: &mut Writer) -> Result<()> {
        w.len(self.len())?;
        w.bytes(self.as_bytes())
    }
    fn load(r: &mut Reader) -> Result<Self> {
        Ok(String::load(r)?.into_boxed_str())
    }
}

impl<T: Persist> Persist for Option<T> {
    fn save(&self, w: &mut Writer) -> Result<()> {
        match self {
            None => false.save(w),
            Some(v) => {
                true.save(w)?;
                v.save(w)
            }
        }
    }
    fn load(r: &mut Reader) -> Result<Self> {
        Ok(if bool::load(r)? {
            Some(T::load(r)?)
        } else {
            None
        })
    }
}

impl<T: Persist> Persist for Box<T> {
    fn save(&self, w: &mut Writer) -> Result<()> {
        (**self).save(w)
    }
    fn load(r: &mut Reader) -> Result<Self> {
        Ok(Box::new(T::load(r)?))
    }
}

impl<T: Persist> Persist for Vec<T> {
    fn save(&self, w: &mut Writer) -> Result<()> {
        w.len(self.len())?;
        self.iter().try_for_each(|v| v.save(w))
    }
    fn load(r: &mut Reader) -> Result<Self> {
        r.seq(T::load)
    }
}

impl<A: Persist, B: Persist> Persist for (A, B) {
    fn save(&self, w: &mut Writer) -> Result<()> {
        self.0.save(w)?;
        self.1.save(w)
    }
    fn load(r: &mut Reader) -> Result<Self> {
        Ok((A::load(r)?, B::load(r)?))
    }
}

impl<const N: usize> Persist for [u64; N] {
    fn save(&self, w: &mut Writer) -> Result<()> {
        self.iter().try_for_each(|v| v.save(w))
    }
    fn load(r: &mut Reader) -> Result<Self> {
        let mut out = [0; N];
        for v in &mut out {
            *v = u64::load(r)?;
        }
        Ok(out)
    }
}

impl<K, V, S> Persist for HashMap<K, V, S>
where
    K: Persist + Eq + Hash,
    V: Persist,
    S: BuildHasher + Default,
{
    fn save(&self, w: &mut Writer) -> Result<()> {
        w.len(self.len())?;
        self.iter().try_for_each(|(k, v)| {
            k.save(w)?;
            v.save(w)
        })
    }
    fn load(r: &mut Reader) -> Result<Self> {
        let n = r.len()?;
        let mut out = HashMap::with_capacity_and_hasher(n.min(1 << 16), S::default());
        for _ in 0..n {
            let k = K::load(r)?;
            if out.insert(k, V::load(r)?).is_some() {
                return Err(corrupt("a key twice in one map"));
            }
        }
        Ok(out)
    }
}

/// Implements [`Persist`] for a struct by its fields, in the order given (every field must be
/// listed: the struct literal fails to compile otherwise).
#[macro_export]
macro_rules! persist_fields {
    ($t:ty { $($field:ident),* $(,)? }) => {
        impl $crate::image::Persist for $t {
            fn save(&self, w: &mut $crate::image::Writer) -> $crate::error::Result<()> {
                $( $crate::image::Persist::save(&self.$field, w)?; )*
                Ok(())
            }
            fn load(r: &mut $crate::image::Reader) -> $crate::error::Result<Self> {
                Ok(Self { $( $field: $crate::image::Persist::load(r)?, )* })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Persist + PartialEq + std::fmt::Debug>(v: &T) {
        let mut bytes = Vec::new();
        let mut w = Writer::new(&mut bytes);
        v.save(&mut w).unwrap();
        w.finish().unwrap();
        let mut source = SliceSource::new(&bytes);
        let mut r = Reader::new(&mut source);
        assert_eq!(&T::load(&mut r).unwrap(), v);
        assert!(r.at_end().unwrap());
        // Every shorter image is an error, never a panic or a different value.
        for cut in 0..bytes.len() {
            let mut source = SliceSource::new(&bytes[..cut]);
            let mut r = Reader::new(&mut source);
            assert_eq!(
                T::load(&mut r).unwrap_err().code(),
                "corrupt",
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn values_read_back_as_written_and_a_cut_image_is_corrupt() {
        round_trip(&(7u32, -3i64));
        round_trip(&Some("héllo".to_string()));
        round_trip(&None::<f64>);
        round_trip(&vec![(1.5f64, true), (-0.0, false)]);
        round_trip(&vec![vec!["a".to_string()], vec![]]);
        round_trip(&[1u64, 2, 3, 4]);
        let map: HashMap<String, u32> = [("a".to_string(), 1), ("b".to_string(), 2)].into();
        round_trip(&map);
    }

    #[test]
    fn numbers_cross_piece_boundaries() {
        let values: Vec<f32> = (0..(PIECE / 4 * 2 + 17)).map(|i| i as f32 * 0.5).collect();
        let mut bytes = Vec::new();
        let mut w = Writer::new(&mut bytes);
        7u8.save(&mut w).unwrap();
        w.f32s(&values).unwrap();
        w.u64s(&[u64::MAX, 1]).unwrap();
        w.finish().unwrap();
        let mut source = SliceSource::new(&bytes);
        let mut r = Reader::new(&mut source);
        assert_eq!(u8::load(&mut r).unwrap(), 7);
        assert_eq!(r.f32s().unwrap(), values);
        assert_eq!(r.u64s().unwrap(), vec![u64::MAX, 1]);
        assert!(r.at_end().unwrap());
    }

    #[test]
    fn bad_flags_strings_and_lengths_are_corrupt() {
        let check = |bytes: &[u8], load: fn(&mut Reader) -> Result<()>| {
            let mut source = SliceSource::new(bytes);
            let mut r = Reader::new(&mut source);
            assert_eq!(load(&mut r).unwrap_err().code(), "corrupt");
        };
        check(&[2], |r| bool::load(r).map(drop));
        check(&[2, 0, 0, 0, 0xff, 0xfe], |r| String::load(r).map(drop));
        check(&[0xff, 0xff, 0xff, 0xff, 1, 2], |r| r.f32s().map(drop));
        check(
            &[2, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 6, 0, 0, 0],
            |r| HashMap::<u32, u32>::load(r).map(drop),
        );
    }
}
