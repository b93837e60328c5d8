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
//   node bench/boundary.mjs --compare /work/main  both builds in this one process, measured in
//                                                 turn (build by build, recall by recall), so
//                                                 a change in the machine's load hits both alike
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
    compare: { type: "string" },
  },
});
const root = resolve(args.root);
const n = Number(args.n);
const load = async (dir) => (await import(pathToFileURL(join(dir, "js", "dist", "index.js")).href)).MemoryStore;
const builds = [await load(root)];
if (args.compare) builds.push(await load(resolve(args.compare)));

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
async function buildOnce(MemoryStore, kind, count) {
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

/**
 * p50 and mean CPU µs per recall of the store of `kind` holding every memory, one entry per
 * build; with two builds, each query runs on both, in turns.
 */
async function recallCost(kind) {
  const vectors = kind === "hybrid";
  const stores = [];
  try {
    for (const MemoryStore of builds) {
      const store = await MemoryStore.open(STORES[kind]);
      stores.push(store);
      for (let start = 0; start < n; start += 5000) await store.rememberMany(inputs(start, Math.min(n, start + 5000), vectors));
    }
    const options = (q) => {
      const o = { limit: 10, trackRecalls: false, now: FIXED_NOW_MS };
      if (vectors) o.embedding = q.vector;
      return o;
    };
    for (const store of stores) {
      const canary = await store.recall(CANARY.query, { ...options({ vector: canaryVector() }) });
      assert.equal(canary.results[0]?.memory.text, CANARY.text, `${kind}: the canary comes first`);
    }
    const warm = generateQueries(docs, Number(args.warmup), { salt: 7, vectors });
    for (const q of warm) for (const store of stores) await store.recall(q.text, options(q));
    const measured = generateQueries(docs, Number(args.queries), { salt: 11, vectors });
    const cpu = stores.map(() => []);
    const hits = stores.map(() => 0);
    for (const [i, q] of measured.entries()) {
      for (let turn = 0; turn < stores.length; turn++) {
        const s = (i + turn) % stores.length;
        const before = process.cpuUsage();
        const res = await stores[s].recall(q.text, options(q));
        const used = process.cpuUsage(before);
        cpu[s].push(used.user + used.system);
        hits[s] += res.count;
      }
    }
    assert.ok(hits.every((h) => h > 0), `${kind}: recalls find something`);
    assert.ok(hits.every((h) => h === hits[0]), `${kind}: both builds find as many results`);
    return cpu.map((c) => ({ p50: median(c), mean: c.reduce((a, b) => a + b, 0) / c.length }));
  } finally {
    for (const store of stores) await store.close();
  }
}

const outs = builds.map((_, i) => ({ root: i === 0 ? root : resolve(args.compare), build: {}, recall: {} }));
// One throw-away build of each kind, so the first measured one does not pay for compiling.
for (const MemoryStore of builds) for (const kind of ["lexical", "hybrid"]) await buildOnce(MemoryStore, kind, 1000);
for (const kind of ["lexical", "hybrid"]) {
  for (const count of [1000, n]) {
    const runs = builds.map(() => []);
    for (let i = 0; i < Number(args.builds); i++) {
      for (let turn = 0; turn < builds.length; turn++) {
        const b = (i + turn) % builds.length;
        runs[b].push(await buildOnce(builds[b], kind, count));
      }
    }
    runs.forEach((r, b) => { outs[b].build[`${kind} ${count}`] = median(r); });
  }
}
for (const kind of ["lexical", "default", "hybrid"]) {
  (await recallCost(kind)).forEach((r, b) => { outs[b].recall[kind] = r; });
}

for (const out of outs) {
  if (args.json) {
    console.log(JSON.stringify(out));
    continue;
  }
  console.log(`build (${out.root})`);
  for (const [name, ms] of Object.entries(out.build)) console.log(`  rememberMany ${name.padEnd(14)} ${ms.toFixed(1).padStart(8)} ms`);
  console.log("recall CPU per query");
  for (const [name, r] of Object.entries(out.recall)) {
    console.log(`  ${name.padEnd(8)} p50 ${(r.p50 / 1000).toFixed(3)} ms  mean ${(r.mean / 1000).toFixed(3)} ms`);
  }
}
