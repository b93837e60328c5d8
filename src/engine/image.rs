//! An engine as an image ([`crate::image`]): [`Engine::write_image`] and
//! [`Engine::read_image`].
//!
//! Parts, in order after the image's magic and version: the signature seed and the embedding
//! dimension it was written under, the records, the id table, the porter index, the fuzzy
//! indexes of `textEn` and of the original text, the porter terms' signature features, the
//! vectors, the signatures, whether a live memory may be unsigned, the notes, the entities,
//! the edges, and the end mark. Scratch buffers are not saved; a read engine starts with
//! empty ones.
//!
//! Notes, entities and edges are saved as their records (the binary records of `wire::records`) and
//! added again on a read, through the same checks as a write: a store holds few of them (a
//! note per day or week, an entity per person or project), and their analysis is a small
//! part of an open, while their indexes' code would add several KiB to the package.

use super::ids::IdTable;
use super::Engine;
use crate::error::Result;
use crate::image::{self, corrupt, Persist, Reader, Sink, Source, Writer, END, MAGIC, VERSION};
use crate::index::fuzzy::FuzzyIndex;
use crate::index::porter_index::PorterIndex;
use crate::signature::SignatureIndex;
use crate::store::{DocId, Records};
use crate::vector::VectorStore;
use crate::wire::{self, records};

impl Engine {
    /// Writes this engine's records and indexes to `sink` in [`image::PIECE`]s (module doc).
    /// Fails only when the sink does.
    pub fn write_image(&self, sink: &mut dyn Sink) -> Result<()> {
        let mut w = Writer::new(sink);
        w.bytes(&MAGIC)?;
        VERSION.save(&mut w)?;
        self.config.signature_seed.save(&mut w)?;
        self.vectors.dims().save(&mut w)?;
        self.records.save(&mut w)?;
        self.ids.save(&mut w)?;
        self.porter.save(&mut w)?;
        self.fuzzy_en.save(&mut w)?;
        self.fuzzy_orig.save(&mut w)?;
        w.u64s(&self.term_features)?;
        self.vectors.save(&mut w)?;
        self.signatures.save(&mut w)?;
        self.unsigned.save(&mut w)?;
        let records = |w: &mut Writer, n: usize, each: &mut dyn FnMut(&mut wire::Writer, usize)| {
            w.len(n)?;
            for i in 0..n {
                let mut out = wire::Writer::new();
                each(&mut out, i);
                w.blob(&out.into_bytes())?;
            }
            Ok::<(), crate::error::Error>(())
        };
        let notes: Vec<_> = self.notes.iter().collect();
        records(&mut w, notes.len(), &mut |out, i| {
            records::write_note(out, notes[i])
        })?;
        let entities: Vec<_> = self.graph.entities().collect();
        records(&mut w, entities.len(), &mut |out, i| {
            records::write_entity(out, entities[i])
        })?;
        let edges: Vec<_> = self.graph.edges().collect();
        records(&mut w, edges.len(), &mut |out, i| {
            records::write_edge(out, edges[i])
        })?;
        w.bytes(&END)?;
        w.finish()
    }

    /// An engine with `config` whose records and indexes are read from an image written by
    /// [`write_image`](Self::write_image): a parse, with no text analysed again. The image
    /// must have been written under the same signature seed and, when `config` fixes one,
    /// the same embedding dimension. Fails with `corrupt` when the image is of another
    /// version, damaged, or disagrees with itself (each part checks its own invariants; the
    /// parts are checked against the records here); the caller rebuilds from its records.
    pub fn read_image(config: super::EngineConfig, source: &mut dyn Source) -> Result<Engine> {
        let mut engine = Engine::new(config)?;
        let mut r = Reader::new(source);
        if r.take(4)? != MAGIC {
            return Err(corrupt("not an engine image"));
        }
        if u32::load(&mut r)? != VERSION {
            return Err(corrupt("an image of another format version"));
        }
        if u64::load(&mut r)? != engine.config.signature_seed {
            return Err(corrupt("an image written under another signature seed"));
        }
        let dims = Option::<usize>::load(&mut r)?;
        if engine.config.dims.is_some_and(|d| dims != Some(d)) {
            return Err(corrupt("an image of another embedding dimension"));
        }
        let records = Records::load(&mut r)?;
        engine.ids = IdTable::load(&mut r, &records)?;
        engine.records = records;
        engine.porter = PorterIndex::load(&mut r)?;
        engine.fuzzy_en = FuzzyIndex::load(&mut r)?;
        engine.fuzzy_orig = FuzzyIndex::load(&mut r)?;
        engine.term_features = r.u64s()?;
        engine.vectors = VectorStore::load(&mut r)?;
        engine.signatures = SignatureIndex::load(&mut r)?;
        engine.unsigned = bool::load(&mut r)?;
        engine.check_parts()?;
        // Derived, not saved: a pass over the records' tags.
        for (doc, m) in engine.records.iter().enumerate() {
            if let Some(m) = m {
                engine.tags.insert(DocId(doc as u32), m.tag_list());
            }
        }
        for doc in 0..engine.records.len() {
            if let Some(m) = engine.records[doc].take() {
                engine.index_mentions(DocId(doc as u32), &m, true);
                engine.records[doc] = Some(m);
            }
        }
        for _ in 0..r.len()? {
            let note = records::note_from(&r.blob()?).map_err(image::damaged)?;
            engine.add_note(note).map_err(image::damaged)?;
        }
        for _ in 0..r.len()? {
            let entity = records::entity_from(&r.blob()?).map_err(image::damaged)?;
            engine.add_entity(entity).map_err(image::damaged)?;
        }
        for _ in 0..r.len()? {
            let edge = records::edge_from(&r.blob()?).map_err(image::damaged)?;
            engine.upsert_edge(edge).map_err(image::damaged)?;
        }
        if r.take(4)? != END || !r.at_end()? {
            return Err(corrupt("bytes after the end of the image"));
        }
        Ok(engine)
    }

    /// The checks between parts of a read image: every index and table names documents of
    /// the records, the live memories are the ones indexed, vectors and signatures belong to
    /// live memories, and the vectors' dimension is the one the image says.
    fn check_parts(&self) -> Result<()> {
        let docs = self.records.len() as u64;
        let live = self.ids.len();
        let vectors_live = self
            .vectors
            .docs()
            .all(|d| self.records.get(d.0 as usize).is_some_and(Option::is_some));
        let signed_live = (0..self.signatures.bound()).all(|d| {
            self.signatures.get(crate::store::DocId(d as u32)).is_none()
                || self.records.get(d).is_some_and(Option::is_some)
        });
        let ok = self.porter.doc_bound() <= docs
            && self.fuzzy_en.doc_bound() <= docs
            && self.fuzzy_orig.doc_bound() <= docs
            && self.fuzzy_en.doc_count() as usize == live
            && self.term_features.len() <= self.porter.stem_count()
            && vectors_live
            && signed_live;
        if !ok {
            return Err(image::corrupt("indexes that do not match the records"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::recall::{RecallOptions, SearchMode};
    use crate::engine::EngineConfig;
    use crate::graph::{Entity, Relation};
    use crate::image::SliceSource;
    use crate::notes::{Note, Period};
    use crate::rank::Ranking;
    use crate::store::Memory;
    use crate::test_support::SplitMix64;

    const DAY: f64 = 86_400_000.0;
    const NOW: f64 = 1_800_000_000_000.0;
    const WORDS: &[&str] = &[
        "budget",
        "review",
        "moved",
        "thursday",
        "sister",
        "green",
        "tea",
        "deployment",
        "pipeline",
        "friday",
        "database",
        "sqlite",
        "migrated",
        "garden",
        "tomatoes",
        "Ana",
        "Berlin",
        "café",
        "naïve",
        "running",
        "runs",
        "ran",
        "quarterly",
        "report",
    ];

    fn text(rng: &mut SplitMix64, words: usize) -> String {
        (0..words)
            .map(|_| WORDS[rng.index(WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A store with every kind of content: memories with and without translations,
    /// keywords, tags, owners and vectors, removed memories (stale postings and holes),
    /// notes, entities and edges.
    fn populated(seed: u64) -> Engine {
        let mut rng = SplitMix64(seed);
        let mut e = Engine::new(EngineConfig::default()).unwrap();
        let mut memories = Vec::new();
        let mut vectors = Vec::new();
        for i in 0..300 {
            let n = 3 + rng.index(12);
            memories.push(Memory {
                id: format!("m{i}"),
                text: text(&mut rng, n),
                text_en: (i % 7 == 0).then(|| text(&mut rng, 5)),
                keywords: if i % 5 == 0 {
                    vec![text(&mut rng, 1)]
                } else {
                    vec![]
                },
                tags: if i % 3 == 0 {
                    vec!["work".into()]
                } else {
                    vec![]
                },
                topic: (i % 4 == 0).then(|| "notes".into()),
                user_id: (i % 6 == 0).then(|| "ana".into()),
                created_at: NOW - rng.below(400) as f64 * DAY,
                updated_at: NOW,
                importance: (i % 2 == 0).then_some(0.5),
                ..Memory::default()
            });
            vectors.push(
                (0..8)
                    .map(|_| rng.below(1000) as f32 / 500.0 - 1.0)
                    .collect::<Vec<f32>>(),
            );
        }
        let embeddings: Vec<Option<&[f32]>> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (i % 4 != 3).then_some(v.as_slice()))
            .collect();
        e.insert_many(memories, &embeddings).unwrap();
        for i in (0..300).step_by(11) {
            e.remove(&format!("m{i}")).unwrap();
        }
        e.remove("m299").unwrap();
        e.add_note(Note::new(
            "n1",
            Period::Weekly,
            NOW - 3.0 * DAY,
            "Budget review moved.\n\nSister visits Berlin.",
            NOW,
        ))
        .unwrap();
        e.add_entity(Entity::new("Ana", NOW)).unwrap();
        let mut r = Relation::new("Ana", "lives in", "Berlin");
        r.memory_ids = vec!["m1".into(), "m2".into()];
        r.valid_from = Some(NOW - 1_000.0);
        e.relate(&r, NOW).unwrap();
        let mut ended = Relation::new("Ana", "lived in", "Bonn");
        ended.valid_to = Some(NOW - 1_000.0);
        e.relate(&ended, NOW - 2_000.0).unwrap();
        e
    }

    fn image_of(e: &Engine) -> Vec<u8> {
        let mut bytes = Vec::new();
        e.write_image(&mut bytes).unwrap();
        bytes
    }

    fn read(bytes: &[u8]) -> Result<Engine> {
        Engine::read_image(EngineConfig::default(), &mut SliceSource::new(bytes))
    }

    /// Every ranking and search mode, with and without a query vector.
    fn answers(e: &mut Engine, seed: u64) -> Vec<String> {
        let mut rng = SplitMix64(seed);
        let mut out = Vec::new();
        for q in 0..20 {
            let query = text(&mut rng, 1 + q % 4);
            let vector: Vec<f32> = (0..8)
                .map(|_| rng.below(1000) as f32 / 500.0 - 1.0)
                .collect();
            for ranking in Ranking::ALL {
                for mode in [
                    SearchMode::Hybrid,
                    SearchMode::Lexical,
                    SearchMode::Semantic,
                ] {
                    let mut o = RecallOptions {
                        track_recalls: false,
                        ranking: Some(ranking),
                        mode,
                        ..RecallOptions::default()
                    };
                    o.filter.now = NOW;
                    let v = (q % 2 == 0).then_some(vector.as_slice());
                    out.push(format!("{:?}", e.recall(&query, &o, v, &|| 0.0)));
                }
            }
        }
        out
    }

    #[test]
    fn an_engine_read_from_its_image_answers_every_recall_as_the_original_does() {
        let mut original = populated(7);
        let bytes = image_of(&original);
        let mut read = read(&bytes).unwrap();
        assert_eq!(answers(&mut read, 3), answers(&mut original, 3));
        assert_eq!(
            read.ids().collect::<Vec<_>>(),
            original.ids().collect::<Vec<_>>()
        );
        for id in original.ids() {
            assert_eq!(read.get(id), original.get(id));
            assert_eq!(read.embedding(id), original.embedding(id));
        }
        let edges = |e: &Engine| e.graph().edges().cloned().collect::<Vec<_>>();
        assert_eq!(edges(&read), edges(&original));
        assert!(edges(&read)
            .iter()
            .any(|e| e.valid_to == Some(NOW - 1_000.0)));
        assert_eq!(
            format!("{:?}", read.stats()),
            format!("{:?}", original.stats())
        );
        // And it keeps working as an engine: writes land in the read indexes.
        for e in [&mut read, &mut original] {
            e.insert(
                Memory {
                    id: "new".into(),
                    text: "tomatoes in the garden".into(),
                    created_at: NOW,
                    ..Memory::default()
                },
                None,
            )
            .unwrap();
            e.remove("m1").unwrap();
        }
        assert_eq!(answers(&mut read, 4), answers(&mut original, 4));
    }

    #[test]
    fn an_empty_engine_round_trips() {
        let mut original = Engine::new(EngineConfig::default()).unwrap();
        let mut read = read(&image_of(&original)).unwrap();
        assert_eq!(read.len(), 0);
        assert_eq!(answers(&mut read, 1), answers(&mut original, 1));
    }

    #[test]
    fn a_cut_image_is_corrupt() {
        let bytes = image_of(&populated(1));
        let mut rng = SplitMix64(5);
        for cut in (0..200)
            .map(|_| rng.index(bytes.len()))
            .chain([0, 3, bytes.len() - 1])
        {
            assert_eq!(
                read(&bytes[..cut]).unwrap_err().code(),
                "corrupt",
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(read(&longer).unwrap_err().code(), "corrupt");
    }

    #[test]
    fn an_image_of_another_version_seed_or_dimension_is_corrupt() {
        let bytes = image_of(&populated(2));
        let mut version = bytes.clone();
        version[4] = 9;
        assert_eq!(read(&version).unwrap_err().code(), "corrupt");
        // Version 1 images were written before edges held a validity: never read.
        version[4] = 1;
        assert_eq!(
            read(&version).unwrap_err().to_string(),
            "corrupt: image: an image of another format version"
        );
        let other_seed = EngineConfig {
            signature_seed: 42,
            ..EngineConfig::default()
        };
        let err = Engine::read_image(other_seed, &mut SliceSource::new(&bytes)).unwrap_err();
        assert!(err.to_string().contains("signature seed"), "{err}");
        let other_dims = EngineConfig {
            dims: Some(16),
            ..EngineConfig::default()
        };
        let err = Engine::read_image(other_dims, &mut SliceSource::new(&bytes)).unwrap_err();
        assert!(err.to_string().contains("dimension"), "{err}");
    }

    /// A flipped byte the snapshot's CRC would catch may reach this parse only through a bug;
    /// even then it is an error or an engine that answers, never a panic.
    #[test]
    fn a_flipped_byte_is_an_error_or_a_working_engine_never_a_panic() {
        let bytes = image_of(&populated(3));
        let mut rng = SplitMix64(11);
        let mut errors = 0;
        for _ in 0..150 {
            let mut damaged = bytes.clone();
            let at = rng.index(damaged.len());
            damaged[at] ^= 1 << rng.below(8);
            match read(&damaged) {
                Err(e) => {
                    assert_eq!(e.code(), "corrupt");
                    errors += 1;
                }
                Ok(mut e) => {
                    answers(&mut e, 9);
                }
            }
        }
        assert!(errors > 0);
    }
}
