#!/usr/bin/env node
// Runs one contender at one corpus size in this (fresh) process and prints one line:
//   BENCH_RESULT {json}
// Usage: node --expose-gc bench/worker.mjs --contender NAME --n N
//          [--queries 300] [--warmup 1000] [--seed S] [--budget-s 150] [--warmup-budget-s 5]
//          [--build-runs R]
//
// Order of work, so that only the library is measured:
//   1. setup(): load the library, create an empty index (untimed)
//   2. generate the corpus and the queries (untimed; vectors only if the contender uses them)
//   3. gc, memoryUsage, build(docs) timed, gc, memoryUsage: the deltas are the index's memory
//      (plus wasm linear-memory growth for wasm engines); then build-runs - 1 timing-only
//      builds into fresh instances (closed and dropped), each after forced collections as the
//      first, so that no build pays for collecting the ones before it; build time is the
//      median of all runs, and the first (cold) one is reported too
//   4. canary check: CANARY.query must return the canary memory first
//   5. warm-up queries (a separate set; until --warmup queries or --warmup-budget-s seconds,
//      whichever comes first: steady state, see run.mjs), then drain() (untimed: the warm-up's
//      background work is the warm-up's), then every measured query timed alone, then drain()
//      timed (queries.drainMs, inside the query CPU window): a contender that works behind its
//      answers (recallkit-durable's recall tracking) leaves no backlog unmeasured
//   6. size(): serialized bytes; open(): timed reopen, then the canary is checked again
// A contender whose canary fails or whose exact-query hit@10 is 0 is BROKEN (judge.mjs): its
// times are printed but never count towards a target.

import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { CANARY, DEFAULT_SEED, QUERY_CLASSES, canaryVector, fingerprint, generateCorpus, generateQueries } from "./corpus.mjs";
import { contender } from "./contenders/index.mjs";
import { Unavailable } from "./contenders/common.mjs";
import { judge } from "./judge.mjs";

/**
 * Builds timed at 1k (median): a 1k build takes 5-50 ms, and its first few in a process
 * measure the JIT (JS and V8's baseline wasm tier) more than the library; with 5 the median
 * was the third build, still partly cold for every contender, and moved with the load. The
 * first build is reported on its own (`firstBuildMs`).
 */
const BUILD_RUNS_1K = 15;

/** Results per query, as in "hit@10". */
const K = 10;

const { values: args } = parseArgs({
  options: {
    contender: { type: "string" },
    n: { type: "string" },
    queries: { type: "string", default: "300" },
    warmup: { type: "string", default: "1000" },
    seed: { type: "string", default: String(DEFAULT_SEED) },
    "budget-s": { type: "string", default: "150" },
    "warmup-budget-s": { type: "string", default: "5" },
    "build-runs": { type: "string" },
  },
});

const result = { contender: args.contender, n: Number(args.n), status: "error", node: process.versions.node, loadAvgStart: loadavg()[0] };

function emit() {
  result.loadAvgEnd = loadavg()[0];
  process.stdout.write(`BENCH_RESULT ${JSON.stringify(result)}\n`);
}

async function settle() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage();
}

/**
 * Process CPU time (user + system) in ms: on a machine with more runnable threads than cores,
 * wall time includes waiting for a core and CPU time does not. It also counts V8's helper
 * threads (concurrent GC, compilation), so it can exceed wall time.
 */
const cpuMs = (usage) => (usage.user + usage.system) / 1000;

const resolve = async (value) => (value && typeof value.then === "function" ? await value : value);

/** Nearest-rank percentile of sorted numbers. */
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

function summarize(latencies, ranks) {
  const sorted = Float64Array.from(latencies).sort();
  const hits = ranks.filter((r) => r > 0 && r <= K).length;
  const reciprocal = ranks.reduce((sum, r) => sum + (r > 0 && r <= K ? 1 / r : 0), 0);
  return {
    count: latencies.length,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    meanMs: latencies.length ? latencies.reduce((a, b) => a + b, 0) / latencies.length : null,
    hit10: ranks.length ? hits / ranks.length : null,
    mrr10: ranks.length ? reciprocal / ranks.length : null,
  };
}

async function checkCanary(instance, canaryIndex) {
  const top = await resolve(instance.search({ class: "canary", text: CANARY.query, vector: canaryVector(Number(args.seed)) }, K));
  return { expected: canaryIndex, got: top[0] ?? null, ok: top[0] === canaryIndex };
}

async function run() {
  const spec = contender(args.contender);
  if (!spec) throw new Error(`unknown contender ${JSON.stringify(args.contender)}`);
  if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
  Object.assign(result, { library: spec.library, kind: spec.kind, notes: spec.notes });
  const n = result.n;
  if (spec.maxN && n > spec.maxN) {
    result.status = "skipped";
    result.reason = `not run above ${spec.maxN} memories`;
    return;
  }
  const missing = spec.available?.();
  if (missing) {
    result.status = "unavailable";
    result.reason = missing;
    return;
  }

  // Setup first: a contender whose feature is missing says so before the corpus is generated.
  const instance = spec.create();
  await resolve(instance.setup?.());

  const seed = Number(args.seed);
  const vectors = Boolean(spec.needsVectors);
  const { docs, canaryIndex } = generateCorpus(n, { seed, vectors });
  const queries = generateQueries(docs, Number(args.queries), { seed, salt: 1, vectors });
  const warmup = generateQueries(docs, Number(args.warmup), { seed, salt: 2, vectors });
  result.fingerprint = fingerprint(docs, queries);

  // The measured build comes first: a wasm engine never returns linear memory, so a build
  // after another in the same process would reuse the pages and hide its own growth.
  const before = await settle();
  const wasmBefore = instance.wasmMemoryBytes?.() ?? 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await resolve(instance.build(docs));
  const buildTimes = [performance.now() - t0];
  result.buildCpuMs = cpuMs(process.cpuUsage(cpu0));
  const after = await settle();
  const wasmGrowth = (instance.wasmMemoryBytes?.() ?? 0) - wasmBefore;
  const buildRuns = Number(args["build-runs"] ?? (n <= 1000 ? BUILD_RUNS_1K : n <= 10000 ? 3 : 1));
  for (let run = 1; run < buildRuns; run++) {
    const scratch = spec.create();
    await resolve(scratch.setup?.());
    await settle();
    const start = performance.now();
    await resolve(scratch.build(docs));
    buildTimes.push(performance.now() - start);
    await resolve(scratch.close?.());
  }
  if (buildRuns > 1) await settle();
  result.buildRunsMs = buildTimes;
  result.firstBuildMs = buildTimes[0];
  result.buildMs = percentile(buildTimes.slice().sort((a, b) => a - b), 0.5);
  result.docsPerSec = n / (result.buildMs / 1000);
  const delta = (key) => after[key] - before[key];
  result.memory = {
    heapUsedBytes: delta("heapUsed"),
    arrayBuffersBytes: delta("arrayBuffers"),
    externalBytes: delta("external"),
    rssBytes: delta("rss"),
    // Growth of WebAssembly linear memory (not part of process.memoryUsage().arrayBuffers).
    wasmBytes: wasmGrowth,
    // Index memory: JS heap + array buffers (typed arrays) + wasm linear memory growth.
    indexBytes: delta("heapUsed") + delta("arrayBuffers") + wasmGrowth,
  };
  result.memory.perDoc = {
    heap: result.memory.heapUsedBytes / n,
    arrayBuffers: result.memory.arrayBuffersBytes / n,
    wasm: wasmGrowth / n,
    rss: result.memory.rssBytes / n,
    index: result.memory.indexBytes / n,
  };

  result.canary = await checkCanary(instance, canaryIndex);
  const warmupStart = performance.now();
  let warmed = 0;
  for (const q of warmup) {
    await resolve(instance.search(q, K));
    if (++warmed >= 3 && performance.now() - warmupStart > Number(args["warmup-budget-s"]) * 1000) break;
  }
  result.warmupQueries = warmed;
  await resolve(instance.drain?.());

  const budgetMs = Number(args["budget-s"]) * 1000;
  const perClass = Object.fromEntries(QUERY_CLASSES.map((c) => [c, { latencies: [], ranks: [] }]));
  let spentMs = 0;
  let measured = 0;
  const ranks = []; // in query order, 0 = not in the top K; classes cycle as in QUERY_CLASSES
  const queryCpu = process.cpuUsage();
  for (const q of queries) {
    const start = performance.now();
    const ids = await resolve(instance.search(q, K));
    const ms = performance.now() - start;
    spentMs += ms;
    measured++;
    perClass[q.class].latencies.push(ms);
    const rank = ids.slice(0, K).indexOf(q.source) + 1;
    perClass[q.class].ranks.push(rank);
    ranks.push(rank);
    if (spentMs > budgetMs && measured % 3 === 0) break;
  }
  // What the measured queries left queued (written behind their answers) is theirs: timed here.
  let drainMs = null;
  if (instance.drain) {
    const start = performance.now();
    await resolve(instance.drain());
    drainMs = performance.now() - start;
  }
  const queryCpuMs = cpuMs(process.cpuUsage(queryCpu));
  result.queries = { requested: queries.length, measured, budgetHit: measured < queries.length, cpuMeanMs: queryCpuMs / measured, drainMs, ranks, perClass: {} };
  for (const c of QUERY_CLASSES) result.queries.perClass[c] = summarize(perClass[c].latencies, perClass[c].ranks);
  result.queries.all = summarize(
    QUERY_CLASSES.flatMap((c) => perClass[c].latencies),
    QUERY_CLASSES.flatMap((c) => perClass[c].ranks),
  );

  // A serializer or reopen failure is reported with the figures, not instead of them.
  try {
    const size = await resolve(instance.size());
    result.persisted = { bytes: size.bytes, perDoc: size.bytes == null ? null : size.bytes / n, note: size.note };
  } catch (e) {
    result.persisted = { bytes: null, perDoc: null, note: `error: ${e.message}` };
  }
  result.openMs = null;
  if (instance.open && result.persisted.bytes != null) {
    try {
      const start = performance.now();
      await resolve(instance.open());
      result.openMs = performance.now() - start;
      const firstQuery = performance.now();
      result.openCanary = await checkCanary(instance, canaryIndex);
      result.openFirstQueryMs = performance.now() - firstQuery;
      if (instance.openNote) result.openNote = instance.openNote;
    } catch (e) {
      result.openNote = e instanceof Unavailable ? `n/a: ${e.message}` : `error: ${e.message}`;
    }
  } else {
    result.openNote = instance.openNote ?? "no reopen path";
  }
  if (instance.stats) result.stats = await resolve(instance.stats());
  await resolve(instance.close?.());

  judge(result);
}

try {
  await run();
} catch (e) {
  if (e instanceof Unavailable) {
    result.status = "unavailable";
    result.reason = e.message;
  } else {
    result.status = "error";
    result.reason = String(e?.stack ?? e).split("\n").slice(0, 4).join(" | ");
  }
}
emit();
process.exit(0);
