#!/usr/bin/env node
// The boundary's cost, for comparing two builds (issue 26: the JS <-> wasm boundary on
// serde-wasm-bindgen). Opens `storage: "memory"` stores of the bench corpus and prints:
//   build   wall time of rememberMany of 1,000 and of 10,000 memories into a fresh store
//           (lexical store, no vectors; and the hybrid store with 384-dim vectors), the median
//           of --builds runs;
//   recall  CPU time per recall (process.cpuUsage, user + system), p50 and mean over --queries
//           recalls after --warmup recalls, for the lexical, default and hybrid stores of
//           bench/contenders/recallkit.mjs (10,000 memories; hybrid with query vectors).
// Each figure asserts a result (the store's size, the canary's rank), so a broken build cannot
// post a fast time.
//
//   node bench/boundary.mjs                       this checkout's js/dist and pkg/
//   node bench/boundary.mjs --root /work/main     another checkout's build (A/B runs)
//   node bench/boundary.mjs --json                one JSON line instead of the table
// The machine is shared: alternate the builds being compared and compare medians of runs.
import { parseArgs } from "node:util";
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import assert from "node:assert/strict";
import { CANARY, DIMS, FIXED_NOW_MS, canaryVector, generateCorpus, generateQueries } from "./corpus.mjs";
import { VECTOR_SIMILARITY } from "./contenders/common.mjs";

const { values: args } = parseArgs({
  options: {
    root: { type: "string", default: join(import.meta.dirname, "..") },
    n: { type: "string", default: "10000" },
    warmup: { type: "string", default: "1000" },
    queries: { type: "string", default: "500" },
    builds: { type: "string", default: "3" },
    json: { type: "boolean", default: false },
  },
});
const root = resolve(args.root);
const n = Number(args.n);
const { MemoryStore } = await import(pathToFileURL(join(root, "js", "dist", "index.js")).href);

const { docs } = generateCorpus(n, { vectors: true });
const inputs = (from, to, vectors) =>
  docs.slice(from, to).map((d) => {
    const m = { id: d.id, text: d.text, createdAt: d.createdAt, topic: d.topic, tags: d.tags };
    if (vectors) m.embedding = d.embedding;
    return m;
  });
const STORES = {
  lexical: { storage: "memory", searchMode: "lexical" },
  default: { storage: "memory" },
  hybrid: { storage: "memory", dimensions: DIMS, searchMode: "hybrid", similarityThreshold: VECTOR_SIMILARITY },
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Wall ms of one rememberMany of `count` memories into a fresh store. */
async function buildOnce(kind, count) {
  const vectors = kind === "hybrid";
  const batch = inputs(0, count, vectors);
  const store = await MemoryStore.open(STORES[kind]);
  try {
    const t0 = performance.now();
    await store.rememberMany(batch);
    const ms = performance.now() - t0;
    assert.equal(store.size, count);
    return ms;
  } finally {
    await store.close();
  }
}

/** p50 and mean CPU µs per recall of the store of `kind` holding every memory. */
async function recallCost(kind) {
  const vectors = kind === "hybrid";
  const store = await MemoryStore.open(STORES[kind]);
  try {
    for (let start = 0; start < n; start += 5000) await store.rememberMany(inputs(start, Math.min(n, start + 5000), vectors));
    const options = (q) => {
      const o = { limit: 10, trackRecalls: false, now: FIXED_NOW_MS };
      if (vectors) o.embedding = q.vector;
      return o;
    };
    const canary = await store.recall(CANARY.query, { ...options({ vector: canaryVector() }) });
    assert.equal(canary.results[0]?.memory.text, CANARY.text, `${kind}: the canary comes first`);
    const warm = generateQueries(docs, Number(args.warmup), { salt: 7, vectors });
    for (const q of warm) await store.recall(q.text, options(q));
    const measured = generateQueries(docs, Number(args.queries), { salt: 11, vectors });
    const cpu = [];
    let hits = 0;
    for (const q of measured) {
      const before = process.cpuUsage();
      const res = await store.recall(q.text, options(q));
      const used = process.cpuUsage(before);
      cpu.push(used.user + used.system);
      hits += res.count;
    }
    assert.ok(hits > 0, `${kind}: recalls find something`);
    return { p50: median(cpu), mean: cpu.reduce((a, b) => a + b, 0) / cpu.length };
  } finally {
    await store.close();
  }
}

const out = { root, build: {}, recall: {} };
// One throw-away build of each kind, so the first measured one does not pay for compiling.
for (const kind of ["lexical", "hybrid"]) await buildOnce(kind, 1000);
for (const kind of ["lexical", "hybrid"]) {
  for (const count of [1000, n]) {
    const runs = [];
    for (let i = 0; i < Number(args.builds); i++) runs.push(await buildOnce(kind, count));
    out.build[`${kind} ${count}`] = median(runs);
  }
}
for (const kind of ["lexical", "default", "hybrid"]) out.recall[kind] = await recallCost(kind);

if (args.json) {
  console.log(JSON.stringify(out));
} else {
  console.log(`build (${root})`);
  for (const [name, ms] of Object.entries(out.build)) console.log(`  rememberMany ${name.padEnd(14)} ${ms.toFixed(1).padStart(8)} ms`);
  console.log("recall CPU per query");
  for (const [name, r] of Object.entries(out.recall)) {
    console.log(`  ${name.padEnd(8)} p50 ${(r.p50 / 1000).toFixed(3)} ms  mean ${(r.mean / 1000).toFixed(3)} ms`);
  }
}
