#!/usr/bin/env node
// CPU A/B of two builds of the package, for checking a size change for speed on a shared
// machine: recall CPU per query and rememberMany CPU for 10k memories of the bench corpus. A
// build is a directory holding js/dist/ and pkg/ (the repository after `node
// scripts/build.mjs`, or a copy of those two folders).
//
//   node bench/cpu-ab.mjs --a /tmp/main-build --b .            # lexical, default, hybrid; 3 rounds
//   node bench/cpu-ab.mjs --a X --b Y --modes lexical --rounds 5 --queries 900
//
// Each round is one fresh process per mode that loads both builds (two wasm instances) and
// interleaves them, so that the machine's load moves both sides alike:
//   - builds: A, B, B, A, each a new storage: "memory" store filled with rememberMany (batches
//     of 5,000), process.cpuUsage() around the fill; the last store of each side is kept;
//   - warm-up: --warmup recalls on each side from a separate query set (V8's optimising tier);
//   - measure: --queries recalls, query by query A then B, or B then A on odd queries, each
//     timed with process.cpuUsage().
// Modes: lexical (searchMode "lexical"), default (no option: hybrid mode without vectors),
// hybrid (384 dimensions, searchMode "hybrid", memories and queries with the corpus's
// embeddings). The report gives medians over rounds, B/A, and whether both builds returned the
// same ids and scores for every measured query (a digest of them).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { DIMS, FIXED_NOW_MS, generateCorpus, generateQueries } from "./corpus.mjs";
import { VECTOR_SIMILARITY } from "./contenders/common.mjs";

const { values: args } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    child: { type: "boolean", default: false },
    modes: { type: "string", default: "lexical,default,hybrid" },
    rounds: { type: "string", default: "3" },
    n: { type: "string", default: "10000" },
    queries: { type: "string", default: "600" },
    warmup: { type: "string", default: "1000" },
  },
});

const BATCH = 5000;
const cpuMs = (u) => (u.user + u.system) / 1000;

function median(xs) {
  const s = xs.slice().sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** One process: both builds, one mode, interleaved (see the header). Prints one JSON line. */
async function child(mode) {
  const apis = {};
  for (const side of ["A", "B"]) apis[side] = await import(pathToFileURL(join(resolve(args[side.toLowerCase()]), "js", "dist", "index.js")).href);
  const vectors = mode === "hybrid";
  const { docs } = generateCorpus(Number(args.n), { vectors });
  const queries = generateQueries(docs, Number(args.queries), { salt: 1, vectors });
  const warmup = generateQueries(docs, Number(args.warmup), { salt: 2, vectors });
  const options = mode === "default" ? { storage: "memory" }
    : vectors ? { storage: "memory", dimensions: DIMS, searchMode: "hybrid", similarityThreshold: VECTOR_SIMILARITY }
      : { storage: "memory", searchMode: "lexical" };
  const inputs = docs.map((d) => ({ id: d.id, text: d.text, createdAt: d.createdAt, topic: d.topic, tags: d.tags, ...(vectors ? { embedding: d.embedding } : {}) }));
  const stores = {};
  const builds = { A: [], B: [] };
  for (const side of ["A", "B", "B", "A"]) {
    await stores[side]?.close();
    const store = await apis[side].MemoryStore.open(options);
    const start = process.cpuUsage();
    for (let i = 0; i < inputs.length; i += BATCH) await store.rememberMany(inputs.slice(i, i + BATCH));
    builds[side].push(cpuMs(process.cpuUsage(start)));
    stores[side] = store;
  }
  const recallOptions = (q) => ({ limit: 10, trackRecalls: false, now: FIXED_NOW_MS, ...(vectors ? { embedding: q.vector } : {}) });
  for (const q of warmup) {
    for (const side of ["A", "B"]) await stores[side].recall(q.text, recallOptions(q));
  }
  const spent = { A: 0, B: 0 };
  const digests = { A: createHash("sha256"), B: createHash("sha256") };
  for (const [i, q] of queries.entries()) {
    for (const side of i % 2 ? ["B", "A"] : ["A", "B"]) {
      const start = process.cpuUsage();
      const res = await stores[side].recall(q.text, recallOptions(q));
      spent[side] += cpuMs(process.cpuUsage(start));
      for (const r of res.results) digests[side].update(`${r.id}:${r.score};`);
    }
  }
  for (const side of ["A", "B"]) await stores[side].close();
  const out = {};
  for (const side of ["A", "B"]) {
    out[side] = { recallCpuMs: spent[side] / queries.length, buildCpuMs: median(builds[side]), digest: digests[side].digest("hex").slice(0, 16) };
  }
  console.log(JSON.stringify(out));
}

function compare() {
  const modes = args.modes.split(",");
  const runs = Object.fromEntries(modes.map((m) => [m, []]));
  const passed = ["a", "b", "n", "queries", "warmup"].flatMap((k) => [`--${k}`, args[k]]);
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const mode of modes) {
      const r = spawnSync(process.execPath, [process.argv[1], "--child", "--modes", mode, ...passed], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`${mode}: ${r.stderr}`);
      const out = JSON.parse(r.stdout.trim().split("\n").at(-1));
      runs[mode].push(out);
      const f = (x) => `recall ${x.recallCpuMs.toFixed(4)} ms, build ${x.buildCpuMs.toFixed(0)} ms`;
      console.error(`round ${round + 1} ${mode}: A ${f(out.A)}; B ${f(out.B)}; B/A recall ${(out.B.recallCpuMs / out.A.recallCpuMs).toFixed(3)}`);
    }
  }
  console.log(`CPU per recall and per ${args.n}-memory build, medians of ${args.rounds} rounds (A = ${args.a}, B = ${args.b})`);
  console.log("| mode | A recall ms | B recall ms | B/A (median of rounds) | A build ms | B build ms | B/A | same results |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---|");
  for (const mode of modes) {
    const rs = runs[mode];
    const m = (side, key) => median(rs.map((x) => x[side][key]));
    const ratio = (key) => median(rs.map((x) => x.B[key] / x.A[key]));
    const same = rs.every((x) => x.A.digest === x.B.digest);
    console.log(`| ${mode} | ${m("A", "recallCpuMs").toFixed(4)} | ${m("B", "recallCpuMs").toFixed(4)} | ${ratio("recallCpuMs").toFixed(3)} | ${m("A", "buildCpuMs").toFixed(0)} | ${m("B", "buildCpuMs").toFixed(0)} | ${ratio("buildCpuMs").toFixed(3)} | ${same ? "yes" : "NO"} |`);
  }
}

if (args.child) await child(args.modes);
else if (args.a && args.b) compare();
else {
  console.error("usage: node bench/cpu-ab.mjs --a BUILD_DIR --b BUILD_DIR [--modes lexical,default,hybrid] [--rounds 3]");
  process.exit(2);
}
