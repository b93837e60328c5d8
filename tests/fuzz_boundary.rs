//! A seeded fuzzer of every boundary entry point (`cargo fuzz` is not available here): each
//! reader gets 100,000 inputs (the serde path's readers, `wire::inputs`, the values those
//! bytes decode to, as serde-wasm-bindgen would hand them over) (random bytes, random well-formed values with
//! the shapes' field names, and byte-level mutations of valid encodings), and every input must
//! end in `Ok` or an `Err` (a `RecallError` code on the JS side), never a panic. Inputs that
//! decode are checked further: a memory written back and read again is the same memory, and
//! decoded records and options go through the engine (insert, recall) without a panic.
//!
//! `RECALLKIT_FUZZ_CASES` changes the number of inputs per entry point (`npm run fuzz` runs
//! more); `RECALLKIT_FUZZ_SEED` the seed.

use recallkit::engine::{Engine, EngineConfig, RecallOptions};
use recallkit::store::Memory;
use recallkit::wire::value::{self, Writer};
use recallkit::wire::{batch, inputs, records};

/// SplitMix64: small, seedable, good enough to drive a fuzzer.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

fn cases() -> usize {
    std::env::var("RECALLKIT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

fn seed() -> u64 {
    std::env::var("RECALLKIT_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_2026_1125)
}

/// The field names the readers know besides a memory's ([`batch::MEMORY_FIELDS`]), and a few
/// they do not.
const OTHER_KEYS: &[&str] = &[
    "order",
    "period",
    "start",
    "end",
    "name",
    "aliases",
    "from",
    "relation",
    "to",
    "strength",
    "memoryIds",
    "limit",
    "trackRecalls",
    "searchMode",
    "mmrLambda",
    "minScore",
    "ranking",
    "weights",
    "maxClassification",
    "includeExpired",
    "now",
    "context",
    "hour",
    "dayOfWeek",
    "utcOffsetMinutes",
    "decayDays",
    "decayFloor",
    "emotionBoost",
    "dims",
    "dimensions",
    "similarityThreshold",
    "shortCircuitFloor",
    "fusion",
    "lexicalWeight",
    "signatureSeed",
    "lazySignatures",
    "calibration",
    "vector",
    "keyword",
    "exact",
    "recency",
    "tag",
    "temporal",
    "unknown",
    "",
    "__proto__",
];

const STRINGS: &[&str] = &[
    "",
    "a",
    "hybrid",
    "lexical",
    "semantic",
    "recallkit",
    "abmind",
    "rrf",
    "composite",
    "weighted",
    "daily",
    "weekly",
    "quarterly",
    "core",
    "working",
    "general",
    "Ana",
    "knows",
    "We migrated the project database to SQLite",
    "é",
    "🦀",
    "the and of",
    "\u{0}",
    "\u{1b}[2J",
];

const NUMBERS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    3.0,
    10.0,
    100.0,
    4096.0,
    4097.0,
    1e300,
    -1e300,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MIN_POSITIVE,
    1.8e12,
    9_007_199_254_740_993.0,
    1e-320,
];

/// A random value in the wire format, shaped like the readers' input most of the time.
fn value(rng: &mut Rng, w: &mut Writer, depth: usize) {
    match rng.below(if depth > 3 { 6 } else { 9 }) {
        0 => w.null(),
        1 => w.bool(rng.chance(50)),
        2 | 3 => w.num(if rng.chance(70) {
            NUMBERS[rng.below(NUMBERS.len())]
        } else {
            f64::from_bits(rng.next())
        }),
        4 | 5 => {
            let s = if rng.chance(80) {
                STRINGS[rng.below(STRINGS.len())].to_string()
            } else {
                let len = rng.below(40);
                (0..len)
                    .filter_map(|_| char::from_u32(rng.below(0x1_0000) as u32))
                    .collect()
            };
            w.str(&s);
        }
        6 => {
            w.begin_arr();
            for _ in 0..rng.below(5) {
                value(rng, w, depth + 1);
            }
            w.end();
        }
        _ => object(rng, w, depth + 1),
    }
}

/// Key `i` of every field name a reader may meet: a memory's, then [`OTHER_KEYS`].
fn key(i: usize) -> &'static str {
    (batch::MEMORY_FIELDS.get(i).copied())
        .unwrap_or_else(|| OTHER_KEYS[i - batch::MEMORY_FIELDS.len()])
}

fn object(rng: &mut Rng, w: &mut Writer, depth: usize) {
    w.begin_obj();
    for _ in 0..rng.below(8) {
        w.key(key(rng.below(batch::MEMORY_FIELDS.len() + OTHER_KEYS.len())));
        value(rng, w, depth + 1);
    }
    w.end();
}

/// One fuzz input: random bytes, a random object, an array of them, or a mutated valid one.
fn input(rng: &mut Rng, valid: &[Vec<u8>]) -> Vec<u8> {
    match rng.below(10) {
        0 | 1 => (0..rng.below(64)).map(|_| rng.next() as u8).collect(),
        2..=4 => {
            let mut w = Writer::new();
            object(rng, &mut w, 0);
            w.into_bytes()
        }
        5 => {
            let mut w = Writer::new();
            w.begin_arr();
            for _ in 0..rng.below(4) {
                object(rng, &mut w, 1);
            }
            w.end();
            w.into_bytes()
        }
        _ => {
            let mut bytes = valid[rng.below(valid.len())].clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len() + 1);
                match rng.below(4) {
                    0 if at < bytes.len() => bytes[at] ^= 1 << rng.below(8),
                    1 => bytes.truncate(at),
                    2 => bytes.insert(at.min(bytes.len()), rng.next() as u8),
                    _ if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    _ => {}
                }
            }
            bytes
        }
    }
}

fn memory(id: &str, text: &str) -> Memory {
    Memory {
        id: id.into(),
        text: text.into(),
        user_id: Some("Ana".into()),
        topic: Some("work".into()),
        tags: vec!["db".into()],
        created_at: 1.8e12,
        updated_at: 1.8e12,
        ..Memory::default()
    }
}

fn encoded_memory(m: &Memory) -> Vec<u8> {
    let mut w = Writer::new();
    batch::write_memory(&mut w, m);
    w.into_bytes()
}

fn valid_inputs() -> Vec<Vec<u8>> {
    let mut out = vec![encoded_memory(&memory(
        "m1",
        "We migrated the project database",
    ))];
    let mut w = Writer::new();
    w.begin_obj();
    for (k, v) in [("limit", 5.0), ("now", 1.8e12), ("minScore", 0.1)] {
        w.key(k);
        w.num(v);
    }
    w.key("searchMode");
    w.str("hybrid");
    w.key("ranking");
    w.str("abmind");
    w.key("userId");
    w.str("Ana");
    w.end();
    out.push(w.into_bytes());
    let mut w = Writer::new();
    w.begin_obj();
    for (k, v) in [("id", "n1"), ("period", "daily"), ("text", "a note")] {
        w.key(k);
        w.str(v);
    }
    w.key("start");
    w.num(1.8e12);
    w.end();
    out.push(w.into_bytes());
    let mut w = Writer::new();
    w.begin_obj();
    for (k, v) in [("from", "Ana"), ("relation", "knows"), ("to", "Bo")] {
        w.key(k);
        w.str(v);
    }
    w.key("memoryIds");
    w.begin_arr();
    w.str("m1");
    w.end();
    w.end();
    out.push(w.into_bytes());
    out
}

fn engine() -> Engine {
    let mut e = Engine::new(EngineConfig::default()).unwrap();
    e.insert_many(
        vec![
            memory("a", "We migrated the project database to SQLite with FTS5"),
            memory("b", "The deployment pipeline runs every Friday"),
        ],
        &[],
    )
    .unwrap();
    e
}

/// Runs `check` on `cases()` inputs; a panic fails the test with the input that caused it.
fn fuzz(name: &str, salt: u64, mut check: impl FnMut(&[u8])) {
    let mut rng = Rng(seed() ^ salt);
    let valid = valid_inputs();
    for case in 0..cases() {
        let bytes = input(&mut rng, &valid);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&bytes)));
        assert!(caught.is_ok(), "{name}: case {case} panicked on {bytes:?}");
    }
}

#[test]
fn value_decode_never_panics() {
    fuzz("value::decode", 1, |b| {
        let _ = value::decode(b);
    });
}

#[test]
fn a_memory_that_decodes_is_written_back_the_same_and_inserts_without_panic() {
    let mut e = engine();
    let mut n = 0;
    fuzz("batch::memory_from / inputs::memory_from", 2, |b| {
        if let Ok(v) = value::decode(b) {
            let _ = inputs::memory_from(v);
        }
        if let Ok(m) = batch::memory_from(b) {
            // Written, read and written again: the same bytes (bytes, not `==`: NaN fields).
            let written = encoded_memory(&m);
            let again = batch::memory_from(&written).expect("a written memory reads back");
            assert_eq!(encoded_memory(&again), written);
            n += 1;
            let mut m = m;
            m.id = format!("fuzz{n}");
            let _ = e.insert(m, None);
        }
    });
}

#[test]
fn a_batch_of_memories_never_panics() {
    fuzz("batch::memories_into", 3, |b| {
        let mut out: Vec<Memory> = Vec::new();
        let _ = batch::memories_into(b, &mut out);
    });
}

#[test]
fn notes_entities_and_edges_never_panic() {
    fuzz("note_from / entity_from / edge_from", 4, |b| {
        let _ = records::note_from(b);
        let _ = records::entity_from(b);
        let _ = records::edge_from(b);
        if let Ok(v) = value::decode(b) {
            let _ = inputs::note_from(v.clone());
            let _ = inputs::entity_from(v.clone());
            let _ = inputs::edge_from(v);
        }
    });
}

#[test]
fn an_engine_config_that_decodes_makes_an_engine_or_an_error() {
    let mut made = 0;
    fuzz("inputs::config_from", 5, |b| {
        if let Ok(config) = value::decode(b).and_then(inputs::config_from) {
            if let Ok(mut e) = Engine::new(config) {
                made += 1;
                if made % 64 == 0 {
                    let _ = e.insert(memory("x", "a memory"), None);
                    let _ = e.recall("memory", &RecallOptions::default(), None, &|| 0.0);
                }
            }
        }
    });
}

#[test]
fn recall_options_that_decode_recall_without_panic() {
    let mut e = engine();
    fuzz("inputs::recall_options_from", 6, |b| {
        if let Ok(mut options) = value::decode(b).and_then(inputs::recall_options_from) {
            options.track_recalls = false;
            let _ = e.recall("project database friday", &options, None, &|| 0.0);
        }
    });
}

#[test]
fn any_query_text_recalls_without_panic_under_every_ranking() {
    let mut e = engine();
    let rankings = ["recallkit", "abmind", "rrf", "composite", "weighted"];
    let mut rng = Rng(seed() ^ 7);
    for case in 0..cases() / 4 {
        let len = rng.below(48);
        let bytes: Vec<u8> = (0..len)
            .map(|_| match rng.below(4) {
                0 => b' ',
                1 => b"projectdatabasefriday"[rng.below(21)],
                _ => rng.next() as u8,
            })
            .collect();
        let query = String::from_utf8_lossy(&bytes);
        let mut options = RecallOptions {
            track_recalls: false,
            ..RecallOptions::default()
        };
        options.ranking = recallkit::rank::Ranking::parse(rankings[case % rankings.len()]).ok();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            e.recall(&query, &options, Some(&[1.0, 0.0]), &|| 0.0).ok();
            e.recall(&query, &options, None, &|| 0.0).ok();
        }));
        assert!(caught.is_ok(), "case {case} panicked on {query:?}");
    }
}
