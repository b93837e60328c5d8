//! [`Chunked`]: a growable table of per-document values that never moves what it holds.
//!
//! A `Vec` grows by allocating a larger block, copying, and freeing the old one. For the
//! engine's largest tables (a 48-byte record and a 32-byte signature per memory on wasm32)
//! that old block is a hole of megabytes in a wasm linear memory, which never shrinks: with
//! the indexes allocating behind the table, each growth asks the host for a fresh block at the
//! top. Measured on a 100k-memory build in batches of 5,000, the holes left by growing those
//! two tables cost about 130 bytes of wasm memory per memory, more than the tables themselves.
//!
//! A `Chunked` table keeps its first [`CHUNK`] values in one `Vec` that grows as usual (small
//! stores stay small), and from then on allocates a chunk of exactly [`CHUNK`] values at a
//! time and never reallocates one: the only slack is the unfilled part of the last chunk.

use crate::error::Result;
use crate::image::{Persist, Reader, Writer};

/// Values per chunk (a power of two, so an index splits with a shift and a mask).
pub const CHUNK: usize = 1 << CHUNK_BITS;
const CHUNK_BITS: u32 = 10;

/// A growable table indexed like a slice, stored in chunks of [`CHUNK`] values. See the
/// module documentation.
#[derive(Debug, Clone)]
pub struct Chunked<T> {
    /// Every chunk but the last is full (`CHUNK` values); the last one is not empty.
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    /// An empty table; it allocates nothing until the first push.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table holds no value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `value` at index `len()`.
    pub fn push(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => {
                if last.len() == last.capacity() {
                    // Only the first chunk grows (later ones start at `CHUNK`): as a `Vec`
                    // would, but never past `CHUNK`.
                    let wanted = (last.capacity() * 2).clamp(4, CHUNK);
                    last.reserve_exact(wanted - last.len());
                }
                last.push(value);
            }
            _ => {
                let mut chunk = if self.chunks.is_empty() {
                    Vec::with_capacity(4)
                } else {
                    Vec::with_capacity(CHUNK)
                };
                chunk.push(value);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    /// The value at `index`, if `index < len()`.
    #[inline]
    pub fn get(&self, index: usize) -> Option<&T> {
        self.chunks
            .get(index >> CHUNK_BITS)
            .and_then(|c| c.get(index & (CHUNK - 1)))
    }

    /// The value at `index`, mutably, if `index < len()`.
    #[inline]
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        self.chunks
            .get_mut(index >> CHUNK_BITS)
            .and_then(|c| c.get_mut(index & (CHUNK - 1)))
    }

    /// Every value, in index order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }

    /// Heap memory of the table (its chunks' capacity and the chunk list), in bytes.
    pub fn heap_bytes(&self) -> usize {
        let values: usize = self.chunks.iter().map(Vec::capacity).sum();
        values * std::mem::size_of::<T>() + self.chunks.capacity() * std::mem::size_of::<Vec<T>>()
    }
}

impl<T: Clone> Chunked<T> {
    /// Appends copies of `value` until the table holds `len` values (no change when it
    /// already holds as many).
    pub fn extend_to(&mut self, len: usize, value: T) {
        while self.len < len {
            self.push(value.clone());
        }
    }
}

impl<T> std::ops::Index<usize> for Chunked<T> {
    type Output = T;

    /// The value at `index`; panics when `index >= len()`, as a slice does.
    #[inline]
    fn index(&self, index: usize) -> &T {
        &self.chunks[index >> CHUNK_BITS][index & (CHUNK - 1)]
    }
}

impl<T> std::ops::IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut T {
        &mut self.chunks[index >> CHUNK_BITS][index & (CHUNK - 1)]
    }
}

/// Saved as its length and values; read back into chunks as [`push`](Chunked::push) fills them.
impl<T: Persist> Persist for Chunked<T> {
    fn save(&self, w: &mut Writer) -> Result<()> {
        w.len(self.len)?;
        self.iter().try_for_each(|v| v.save(w))
    }

    fn load(r: &mut Reader) -> Result<Self> {
        let n = r.len()?;
        let mut out = Chunked::new();
        for _ in 0..n {
            out.push(T::load(r)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_like_a_vec_across_chunks() {
        let mut table = Chunked::new();
        let mut model = Vec::new();
        assert!(table.is_empty());
        assert_eq!(table.get(0), None);
        for i in 0..(3 * CHUNK + 7) {
            table.push(i as u32 * 3);
            model.push(i as u32 * 3);
        }
        assert_eq!(table.len(), model.len());
        for (i, v) in model.iter().enumerate() {
            assert_eq!(table.get(i), Some(v));
            assert_eq!(table[i], *v);
        }
        assert_eq!(table.get(model.len()), None);
        assert!(table.iter().eq(model.iter()));
        table[CHUNK] = 1;
        *table.get_mut(2 * CHUNK + 1).unwrap() = 2;
        assert_eq!((table[CHUNK], table[2 * CHUNK + 1]), (1, 2));
        assert_eq!(table.get_mut(model.len()), None);
    }

    #[test]
    fn full_chunks_are_allocated_once_and_never_move() {
        let mut table = Chunked::new();
        table.extend_to(CHUNK + 1, 0u64);
        let second = table.chunks[1].as_ptr();
        assert_eq!(table.chunks[1].capacity(), CHUNK);
        table.extend_to(2 * CHUNK, 0);
        // The chunk was filled in place.
        assert_eq!(table.chunks[1].as_ptr(), second);
        assert_eq!(table.chunks[0].capacity(), CHUNK);
        assert_eq!(table.len(), 2 * CHUNK);
        // Slack is at most the unfilled part of the last chunk (plus the chunk list).
        assert!(table.heap_bytes() <= 2 * CHUNK * 8 + 4 * std::mem::size_of::<Vec<u64>>());
        table.extend_to(5, 1);
        assert_eq!(table.len(), 2 * CHUNK, "extend_to never shrinks");
    }

    #[test]
    fn a_small_table_stays_small() {
        let mut table = Chunked::new();
        table.extend_to(10, [0u8; 48]);
        assert!(table.heap_bytes() < 20 * 48 + 64, "{}", table.heap_bytes());
    }
}
