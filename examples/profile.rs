//! Native profiling harness: the bench corpus through the Rust core, without the wasm boundary.
//!
//! ```text
//! node bench/dump-corpus.mjs --n 10000 --out /tmp/c10k
//! cargo build --release --example profile
//! target/release/examples/profile /tmp/c10k build 5        # build 5 times, report docs/s
//! target/release/examples/profile /tmp/c10k recall 20      # 20 rounds of the queries
//! target/release/examples/profile /tmp/c100k churn         # update, remove, re-insert 1%
//! valgrind --tool=callgrind target/release/examples/profile /tmp/c10k recall 1
//! target/release/examples/profile /tmp/c10k misses         # queries whose source is missed
//! node bench/dump-corpus.mjs --n 1000 --vectors --out /tmp/c1k
//! target/release/examples/profile /tmp/c1k hybrid 20       # with vectors, as recallkit-hybrid
//! target/release/examples/profile /tmp/c10k memory         # heap bytes per memory, by part
//! ```
//!
//! `recall` prints p50 / p95 per query class and hit@10 (the query's source memory in the top
//! 10), the figures of `bench/` for recallkit-lexical minus the boundary. Instruction counts
//! from callgrind are repeatable on a loaded machine; times are not.
//!
//! `memory` counts every allocation (a counting global allocator) across the build: live and
//! peak bytes per memory, then [`Engine::heap_breakdown`]'s parts. The sizes are native
//! (64-bit pointers); the bench's wasm32 figure also has allocator overhead and page rounding.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The system allocator, counting live and peak bytes for `memory`.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to `System` unchanged; only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is System's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

use recallkit::engine::{EmbeddingUpdate, Engine, EngineConfig, RecallOptions, SearchMode};
use recallkit::recall::filter::Filter;
use recallkit::store::Memory;

/// `FIXED_NOW_MS` of `bench/corpus.mjs`.
const NOW_MS: f64 = 1_767_225_600_000.0;

fn read_docs(prefix: &str) -> Vec<Memory> {
    let text = std::fs::read_to_string(format!("{prefix}.docs.tsv")).expect("docs.tsv");
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.splitn(5, '\t').collect();
            let created_at: f64 = f[1].parse().expect("createdAt");
            Memory {
                id: f[0].to_string(),
                text: f[4].to_string(),
                topic: (!f[2].is_empty()).then(|| f[2].to_string()),
                tags: f[3]
                    .split(',')
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
                    .collect(),
                created_at,
                updated_at: created_at,
                ..Memory::default()
            }
        })
        .collect()
}

fn read_queries(prefix: &str) -> Vec<(String, usize, String)> {
    let text = std::fs::read_to_string(format!("{prefix}.queries.tsv")).expect("queries.tsv");
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.splitn(3, '\t').collect();
            (
                f[0].to_string(),
                f[1].parse().expect("source"),
                f[2].to_string(),
            )
        })
        .collect()
}

/// The vectors of `<prefix>.vectors.f32` (memories, then queries), 384 floats each.
fn read_vectors(prefix: &str) -> Vec<Vec<f32>> {
    let bytes = std::fs::read(format!("{prefix}.vectors.f32")).expect("vectors.f32 (--vectors)");
    let floats: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    floats.chunks(DIMS).map(<[f32]>::to_vec).collect()
}

/// `DIMS` of `bench/corpus.mjs`.
const DIMS: usize = 384;
/// `VECTOR_SIMILARITY` of `bench/contenders/common.mjs`.
const SIMILARITY: f64 = 0.1;

fn build(docs: &[Memory], vectors: Option<&[Vec<f32>]>) -> Engine {
    let config = EngineConfig {
        se_threshold: Some(SIMILARITY),
        // As a lexical in-memory store (bench's recallkit-lexical) signs: lazily.
        lazy_signatures: vectors.is_none(),
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(config).expect("engine");
    for (b, batch) in docs.chunks(5000).enumerate() {
        let embeddings: Vec<Option<&[f32]>> = vectors.map_or(Vec::new(), |v| {
            v[b * 5000..b * 5000 + batch.len()]
                .iter()
                .map(|e| Some(e.as_slice()))
                .collect()
        });
        engine
            .insert_many(batch.to_vec(), &embeddings)
            .expect("insert");
    }
    engine
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() as f64 * p) as usize).min(values.len() - 1)]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let prefix = args
        .get(1)
        .expect("usage: profile PREFIX build|recall [ROUNDS]");
    let what = args.get(2).map_or("recall", String::as_str);
    let rounds: usize = args.get(3).map_or(1, |r| r.parse().expect("rounds"));
    let docs = read_docs(prefix);
    if what == "build" {
        let mut times = Vec::new();
        for _ in 0..rounds {
            let clone = docs.clone();
            let started = Instant::now();
            let engine = build(&clone, None);
            times.push(started.elapsed().as_secs_f64());
            assert_eq!(engine.len(), docs.len());
        }
        let median = percentile(&mut times, 0.5);
        println!(
            "build {} memories: median {:.1} ms, {:.0} docs/s",
            docs.len(),
            median * 1e3,
            docs.len() as f64 / median
        );
        return;
    }
    if what == "churn" {
        // Updates every 100th memory's text (a remove and an insert into the middle of the
        // posting lists), then removes it and stores it again.
        let mut engine = build(&docs, None);
        let (mut updates, mut removes, mut inserts) = (Vec::new(), Vec::new(), Vec::new());
        for doc in docs.iter().step_by(100) {
            let mut changed = doc.clone();
            changed.text.push_str(" Updated later.");
            let started = Instant::now();
            engine
                .replace(changed, EmbeddingUpdate::Keep)
                .expect("replace");
            updates.push(started.elapsed().as_secs_f64() * 1e3);
        }
        for doc in docs.iter().step_by(100) {
            let started = Instant::now();
            engine.remove(&doc.id).expect("remove");
            removes.push(started.elapsed().as_secs_f64() * 1e3);
        }
        for doc in docs.iter().step_by(100) {
            let started = Instant::now();
            engine.insert(doc.clone(), None).expect("insert");
            inserts.push(started.elapsed().as_secs_f64() * 1e3);
        }
        for (name, times) in [
            ("update", &mut updates),
            ("remove", &mut removes),
            ("re-insert", &mut inserts),
        ] {
            println!(
                "{name:<10} {} memories: p50 {:.3} ms  p95 {:.3} ms",
                times.len(),
                percentile(times, 0.5),
                percentile(times, 0.95)
            );
        }
        assert_eq!(engine.len(), docs.len());
        return;
    }
    if what == "memory" {
        let base_live = LIVE.load(Ordering::Relaxed);
        PEAK.store(base_live, Ordering::Relaxed);
        let engine = build(&docs, None);
        let live = LIVE.load(Ordering::Relaxed) - base_live;
        let peak = PEAK.load(Ordering::Relaxed) - base_live;
        let n = docs.len() as f64;
        println!(
            "{} memories: live {:.0} B/doc, peak during build {:.0} B/doc",
            docs.len(),
            live as f64 / n,
            peak as f64 / n
        );
        let stats = engine.stats();
        println!(
            "  ({} porter terms, {} fuzzy_en terms: {:.2} and {:.2} per memory)",
            stats.porter_terms,
            stats.fuzzy_terms,
            stats.porter_terms as f64 / n,
            stats.fuzzy_terms as f64 / n
        );
        for (part, bytes) in engine.heap_breakdown() {
            println!("  {part:<16} {:>6.0} B/doc", bytes as f64 / n);
        }
        assert_eq!(engine.len(), docs.len());
        return;
    }
    let queries = read_queries(prefix);
    let hybrid = what == "hybrid";
    let vectors = hybrid.then(|| read_vectors(prefix));
    let mut engine = build(&docs, vectors.as_deref());
    let query_vector = |i: usize| vectors.as_ref().map(|v| v[docs.len() + i].as_slice());
    let options = RecallOptions {
        limit: 10,
        filter: Filter {
            now: NOW_MS,
            ..Filter::default()
        },
        track_recalls: false,
        mode: if hybrid {
            SearchMode::Hybrid
        } else {
            SearchMode::Lexical
        },
        ..RecallOptions::default()
    };
    let clock = || 0.0;
    if what == "misses" {
        let wide = RecallOptions {
            limit: 100,
            ..options.clone()
        };
        for (class, source, text) in queries.iter().filter(|q| q.0 != "warmup") {
            let id = format!("m{source}");
            let top = engine.recall(text, &options, None, &clock).expect("recall");
            if !top.results.iter().any(|h| h.id == id) {
                // The rank in a recall of 100 (its larger candidate pool may differ).
                let out = engine.recall(text, &wide, None, &clock).expect("recall");
                let rank = out.results.iter().position(|h| h.id == id);
                let rank = rank.map_or("> 100".to_string(), |r| (r + 1).to_string());
                println!("{class:<11} {text:?}: source {id} at rank {rank}");
                println!("    source: {}", docs[*source].text);
                for hit in top.results.iter().take(3) {
                    println!(
                        "    {:.4} {} {}: {}",
                        hit.score, hit.stage, hit.id, hit.text
                    );
                }
            }
        }
        return;
    }
    let mut classes: Vec<(String, Vec<f64>, usize, usize)> = Vec::new();
    for round in 0..rounds {
        for (i, (class, source, text)) in queries.iter().enumerate() {
            let started = Instant::now();
            let out = engine
                .recall(text, &options, query_vector(i), &clock)
                .expect("recall");
            let elapsed = started.elapsed().as_secs_f64() * 1e3;
            if class == "warmup" {
                continue;
            }
            let id = format!("m{source}");
            let hit = out.results.iter().take(10).any(|h| h.id == id);
            let entry = match classes.iter().position(|c| &c.0 == class) {
                Some(i) => &mut classes[i],
                None => {
                    classes.push((class.clone(), Vec::new(), 0, 0));
                    classes.last_mut().expect("pushed")
                }
            };
            entry.1.push(elapsed);
            if round == 0 {
                entry.2 += usize::from(hit);
                entry.3 += 1;
            }
        }
    }
    let mut all = Vec::new();
    for (class, times, hits, count) in &mut classes {
        all.extend_from_slice(times);
        let p50 = percentile(times, 0.5);
        let p95 = percentile(times, 0.95);
        let rate = *hits as f64 / *count as f64;
        println!("{class:<11} p50 {p50:.3} ms  p95 {p95:.3} ms  hit@10 {rate:.2}");
    }
    let (p50, p95) = (percentile(&mut all, 0.5), percentile(&mut all, 0.95));
    println!("{:<11} p50 {p50:.3} ms  p95 {p95:.3} ms", "all");
}
