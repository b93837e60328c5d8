//! [`Keyed`]: records by string key, in a vector with a hash index, listed in key order.
//!
//! It replaces `BTreeMap<String, _>` for the graph's entities and edges and the notes: every
//! user (and every value type) shares one `HashMap<String, u32>` and the crate's comparator
//! sort ([`crate::sort::order_by`]), where each `BTreeMap` value type instantiated the B-tree
//! code again (tens of KiB of WebAssembly). Lookups are a hash probe; removal swaps the last
//! record into the hole; the ordered listing sorts the keys, O(n log n), which only listings
//! and exports use.

use crate::sort;
use std::collections::HashMap;

/// Records by key; see the module doc.
#[derive(Debug, Clone)]
pub struct Keyed<V> {
    index: HashMap<String, u32>,
    items: Vec<(String, V)>,
}

impl<V> Default for Keyed<V> {
    fn default() -> Self {
        Self {
            index: HashMap::new(),
            items: Vec::new(),
        }
    }
}

impl<V> Keyed<V> {
    /// The record with this key.
    pub fn get(&self, key: &str) -> Option<&V> {
        let i = slot(&self.index, key)?;
        Some(&self.items[i as usize].1)
    }

    /// The record with this key, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        let i = slot(&self.index, key)?;
        Some(&mut self.items[i as usize].1)
    }

    /// The position of the record with this key, in `0..len()` (valid until a removal).
    pub fn position(&self, key: &str) -> Option<usize> {
        slot(&self.index, key).map(|i| i as usize)
    }

    /// The key and record at a [`position`](Self::position).
    pub fn at(&self, position: usize) -> (&str, &V) {
        let (key, value) = &self.items[position];
        (key, value)
    }

    /// Whether a record has this key.
    pub fn contains_key(&self, key: &str) -> bool {
        slot(&self.index, key).is_some()
    }

    /// Stores `value` under `key`, replacing (and returning) the record there.
    pub fn insert(&mut self, key: String, value: V) -> Option<V> {
        match slot(&self.index, &key) {
            Some(i) => Some(std::mem::replace(&mut self.items[i as usize].1, value)),
            None => {
                self.push(key, value);
                None
            }
        }
    }

    /// The record under `key`, inserting `make(key)` first when there is none.
    pub fn get_or_insert_with(&mut self, key: String, make: impl FnOnce(&str) -> V) -> &mut V {
        let i = match slot(&self.index, &key) {
            Some(i) => i as usize,
            None => {
                let value = make(&key);
                self.push(key, value)
            }
        };
        &mut self.items[i].1
    }

    /// Stores `value` under `key`, replacing the record there, and returns it.
    pub fn put(&mut self, key: String, value: V) -> &mut V {
        let i = match slot(&self.index, &key) {
            Some(i) => {
                let i = i as usize;
                self.items[i].1 = value;
                i
            }
            None => self.push(key, value),
        };
        &mut self.items[i].1
    }

    fn push(&mut self, key: String, value: V) -> usize {
        let i = self.items.len();
        let slot = u32::try_from(i).expect("fewer than 2^32 records");
        self.index.insert(key.clone(), slot);
        self.items.push((key, value));
        i
    }

    /// Removes and returns the record under `key`.
    pub fn remove(&mut self, key: &str) -> Option<V> {
        let i = self.index.remove(key)? as usize;
        let (_, value) = self.items.swap_remove(i);
        if let Some((moved, _)) = self.items.get(i) {
            if let Some(slot) = self.index.get_mut(moved.as_str()) {
                *slot = i as u32;
            }
        }
        Some(value)
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there is no record.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Every record, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.items.iter().map(|(_, v)| v)
    }

    /// Every key and record, in ascending key order.
    pub fn iter_sorted(&self) -> impl Iterator<Item = (&str, &V)> {
        let items = &self.items;
        sort::order_by(items.len(), &mut |a, b| items[a].0.cmp(&items[b].0))
            .into_iter()
            .map(move |i| {
                let (k, v) = &items[i as usize];
                (k.as_str(), v)
            })
    }

    /// Every record, in ascending key order.
    pub fn values_sorted(&self) -> impl Iterator<Item = &V> {
        self.iter_sorted().map(|(_, v)| v)
    }
}

/// The position under `key`: one out-of-line copy of the hash and probe for every lookup of
/// every `Keyed` (the graph's and the notes' reads call it from many places).
#[inline(never)]
fn slot(index: &HashMap<String, u32>, key: &str) -> Option<u32> {
    index.get(key).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Random inserts, replaces and removes against a `BTreeMap` model.
    #[test]
    fn matches_a_btreemap() {
        let mut keyed: Keyed<u64> = Keyed::default();
        let mut model: BTreeMap<String, u64> = BTreeMap::new();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for step in 0..5000u64 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let key = format!("k{}", state % 97);
            match state % 5 {
                0 | 1 => assert_eq!(keyed.insert(key.clone(), step), model.insert(key, step)),
                2 => assert_eq!(keyed.remove(&key), model.remove(&key)),
                3 => {
                    *keyed.get_or_insert_with(key.clone(), |_| step) += 1;
                    *model.entry(key).or_insert(step) += 1;
                }
                _ => assert_eq!(keyed.get(&key), model.get(&key)),
            }
            assert_eq!(keyed.len(), model.len());
        }
        let got: Vec<(&str, &u64)> = keyed.iter_sorted().collect();
        let want: Vec<(&str, &u64)> = model.iter().map(|(k, v)| (k.as_str(), v)).collect();
        assert_eq!(got, want);
    }
}
