//! [`IdTable`]: public memory id → [`DocId`], without a second copy of the id.
//!
//! A `HashMap<String, DocId>` would hold every id twice (the record's and the key's) plus a
//! 3-word `String` and a `DocId` per bucket: about 40 bytes per memory on wasm32. This table
//! holds per slot 31 bits of the id's hash, an occupied bit and the `DocId` (0: empty), and
//! compares a looked-up id with the record's own only when the hash bits agree, so a probe
//! rarely reads a record: 8 bytes per slot, 9–18 bytes per memory at its load of at most 7/8.
//!
//! Open addressing with linear probing over a power-of-two table; removal shifts the entries
//! that follow back (Knuth, TAOCP vol. 3, §6.4, Algorithm R), so there are no tombstones and
//! a lookup stops at the first empty slot. Lookups take the engine's records, which own the
//! ids; the table is only valid with the records it was built with.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use crate::error::Result;
use crate::image::{self, Reader, Writer};
use crate::store::{DocId, Records, StoredMemory};

/// Smallest non-empty table.
const MIN_SLOTS: usize = 16;

/// Ids of the live records, by the hash of their id. See the module documentation.
#[derive(Debug, Default)]
pub(crate) struct IdTable {
    /// Slot values (see [`slot`]), or 0 when free; length 0 or a power of two.
    slots: Vec<u64>,
    len: usize,
}

/// Bits of a slot value that hold the id's hash (the top 31).
const HASH_BITS: u64 = u64::MAX << 33;
/// Bit of a slot value that marks it used, so that no used slot is 0.
const OCCUPIED: u64 = 1 << 32;

/// The slot value of `doc` under `id`: the top 31 bits of the id's hash (which also pick its
/// home slot), [`OCCUPIED`], and the `DocId` in the low 32 bits.
fn slot(id: &str, doc: DocId) -> u64 {
    // SipHash with fixed keys: deterministic, and already in the binary for `HashMap`.
    let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(id);
    (hash & HASH_BITS) | OCCUPIED | u64::from(doc.0)
}

/// The home position of a slot value in a table of `mask + 1` slots.
fn home(slot: u64, mask: usize) -> usize {
    (slot >> 33) as usize & mask
}

/// The document of a slot value.
fn doc_of(slot: u64) -> DocId {
    DocId(slot as u32)
}

/// The id of the record a slot value names.
fn id_of(records: &Records, slot: u64) -> &str {
    records
        .get(doc_of(slot).0 as usize)
        .and_then(Option::as_ref)
        .map_or("", StoredMemory::id)
}

impl IdTable {
    /// Heap memory of the table, in bytes.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 8
    }

    /// Number of ids.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The document whose record has `id`.
    pub(crate) fn get(&self, id: &str, records: &Records) -> Option<DocId> {
        self.position(id, records).map(|i| doc_of(self.slots[i]))
    }

    /// Whether a record has `id`.
    pub(crate) fn contains(&self, id: &str, records: &Records) -> bool {
        self.position(id, records).is_some()
    }

    /// Adds `doc` under `id`, which must not be in the table yet.
    pub(crate) fn insert(&mut self, id: &str, doc: DocId) {
        if (self.len + 1) * 8 > self.slots.len() * 7 {
            self.grow();
        }
        self.place(slot(id, doc));
        self.len += 1;
    }

    /// Removes `id` and returns its document. Its record must still be in `records`.
    pub(crate) fn remove(&mut self, id: &str, records: &Records) -> Option<DocId> {
        let mut hole = self.position(id, records)?;
        let doc = doc_of(self.slots[hole]);
        let mask = self.slots.len() - 1;
        let mut next = hole;
        loop {
            next = (next + 1) & mask;
            let slot = self.slots[next];
            if slot == 0 {
                break;
            }
            // The entry at `next` may fill the hole unless its home lies cyclically after the
            // hole (in `hole + 1 ..= next`), where a lookup would no longer reach it.
            let home = home(slot, mask);
            if next.wrapping_sub(home) & mask >= next.wrapping_sub(hole) & mask {
                self.slots[hole] = slot;
                hole = next;
            }
        }
        self.slots[hole] = 0;
        self.len -= 1;
        Some(doc)
    }

    /// The slot holding `id`.
    fn position(&self, id: &str, records: &Records) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let probe = slot(id, DocId(0));
        let mut i = home(probe, mask);
        loop {
            match self.slots[i] {
                0 => return None,
                s if (s ^ probe) & HASH_BITS == 0 && id_of(records, s) == id => return Some(i),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Puts a slot value at the first free place from its home on.
    fn place(&mut self, slot: u64) {
        let mask = self.slots.len() - 1;
        let mut i = home(slot, mask);
        while self.slots[i] != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    /// Doubles the table (or creates it) and places every entry again, by its hash bits.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![0; size]);
        for slot in old.into_iter().filter(|&s| s != 0) {
            self.place(slot);
        }
    }
}

impl IdTable {
    /// Writes the table's slots (the hashes are SipHash with fixed keys, the same in every
    /// build, so the slots stay valid).
    pub(crate) fn save(&self, w: &mut Writer) -> Result<()> {
        w.u64s(&self.slots)
    }

    /// Reads a table written by [`save`](Self::save) for `records`, and checks it against
    /// them: one slot per live record, naming it under its own id's hash, and free slots left
    /// (so every probe ends).
    pub(crate) fn load(r: &mut Reader, records: &Records) -> Result<Self> {
        let slots = r.u64s()?;
        let live = records.iter().filter(|m| m.is_some()).count();
        let mut seen = vec![false; records.len()];
        let mut len = 0;
        for &value in slots.iter().filter(|&&v| v != 0) {
            let doc = (value & u64::from(u32::MAX)) as usize;
            let ok = match (records.get(doc), seen.get_mut(doc)) {
                (Some(Some(m)), Some(seen)) => {
                    !std::mem::replace(seen, true) && slot(m.id(), DocId(doc as u32)) == value
                }
                _ => false,
            };
            if !ok {
                return Err(image::corrupt(
                    "an id table that does not match the records",
                ));
            }
            len += 1;
        }
        if len != live
            || !(slots.is_empty() || slots.len().is_power_of_two())
            || (len > 0 && len * 8 > slots.len() * 7)
        {
            return Err(image::corrupt(
                "an id table that does not match the records",
            ));
        }
        Ok(IdTable { slots, len })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Memory;
    use crate::test_support::SplitMix64;
    use std::collections::HashMap;

    fn record(id: &str) -> Option<StoredMemory> {
        Some(StoredMemory::from(Memory {
            id: id.into(),
            ..Memory::default()
        }))
    }

    /// Random inserts and removes against a `HashMap`, on few ids so that probe runs collide.
    #[test]
    fn matches_a_hash_map_under_random_updates() {
        for case in 0..50 {
            let seed = 0x1d5_0000 + case;
            let mut rng = SplitMix64(seed);
            let mut records = Records::new();
            let mut table = IdTable::default();
            let mut model: HashMap<String, DocId> = HashMap::new();
            for _ in 0..400 {
                let id = format!("m{}", rng.below(60));
                if let Some(&doc) = model.get(&id) {
                    if rng.below(2) == 0 {
                        assert_eq!(table.remove(&id, &records), Some(doc), "seed {seed}");
                        records[doc.0 as usize] = None;
                        model.remove(&id);
                    }
                } else {
                    let doc = DocId(records.len() as u32);
                    table.insert(&id, doc);
                    records.push(record(&id));
                    model.insert(id, doc);
                }
                assert_eq!(table.len(), model.len(), "seed {seed}");
            }
            for n in 0..60 {
                let id = format!("m{n}");
                assert_eq!(
                    table.get(&id, &records),
                    model.get(&id).copied(),
                    "seed {seed}"
                );
                assert_eq!(table.contains(&id, &records), model.contains_key(&id));
            }
        }
    }

    #[test]
    fn the_largest_doc_id_is_kept() {
        let records = Records::new();
        let mut table = IdTable::default();
        table.insert("x", DocId(u32::MAX));
        table.insert("y", DocId(0));
        assert_eq!(table.len(), 2);
        // Without the records a lookup cannot confirm the id; the slots keep both documents.
        assert_eq!(table.get("x", &records), None);
        let mut docs: Vec<u32> = table
            .slots
            .iter()
            .filter(|&&s| s != 0)
            .map(|&s| doc_of(s).0)
            .collect();
        docs.sort_unstable();
        assert_eq!(docs, [0, u32::MAX]);
    }

    #[test]
    fn an_empty_table_finds_nothing() {
        let mut table = IdTable::default();
        assert_eq!(table.get("x", &Records::new()), None);
        assert_eq!(table.remove("x", &Records::new()), None);
        assert_eq!(table.len(), 0);
    }
}
