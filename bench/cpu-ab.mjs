#!/usr/bin/env node
// CPU A/B of two builds of the package: recall CPU per query and rememberMany CPU for the
// bench corpus, measured alternately (A, B, A, B, ...) in fresh processes, medians reported,
// so that a size change can be checked for speed on a shared machine. A build is a directory
// holding js/dist/ and pkg/ (the repository root after `node scripts/build.mjs`, or a copy).
//
//   node bench/cpu-ab.mjs --a /tmp/main-build --b .            # lexical, default, hybrid; 4 rounds
//   node bench/cpu-ab.mjs --a X --b Y --modes lexical --rounds 6 --queries 900
//
// Each process opens a storage: "memory" store (lexical: searchMode "lexical"; default: no
// option; hybrid: 384 dimensions, searchMode "hybrid", memories and queries with the corpus's
// embeddings), builds it with rememberMany (batches of 5,000; process.cpuUsage() around it),
// runs --warmup recalls from a separate query set (V8's optimising tier), then --queries
// recalls measured with process.cpuUsage(). It also prints a digest of every result id and
// score, so that two builds can be seen to answer the same.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { generateCorpus, generateQueries, DIMS, FIXED_NOW_MS } from "./corpus.mjs";
import { VECTOR_SIMILARITY } from "./contenders/common.mjs";

const { values: args } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    child: { type: "string" },
    modes: { type: "string", default: "lexical,default,hybrid" },
    rounds: { type: "string", default: "4" },
    n: { type: "string", default: "10000" },
    queries: { type: "string", default: "600" },
    warmup: { type: "string", default: "1000" },
  },
});

const cpuMs = (u) => (u.user + u.system) / 1000;
const BATCH = 5000;

async function child(dir, mode) {
  const { MemoryStore } = await import(pathToFileURL(join(resolve(dir), "js", "dist", "index.js")).href);
  const vectors = mode === "hybrid";
  const n = Number(args.n);
  const { docs } = generateCorpus(n, { vectors });
  const queries = generateQueries(docs, Number(args.queries), { salt: 1, vectors });
  const warmup = generateQueries(docs, Number(args.warmup), { salt: 2, vectors });
  const options = mode === "default" ? { storage: "memory" }
    : vectors ? { storage: "memory", dimensions: DIMS, searchMode: "hybrid", similarityThreshold: VECTOR_SIMILARITY }
      : { storage: "memory", searchMode: "lexical" };
  const store = await MemoryStore.open(options);
  const inputs = docs.map((d) => ({ id: d.id, text: d.text, createdAt: d.createdAt, topic: d.topic, tags: d.tags, ...(vectors ? { embedding: d.embedding } : {}) }));
  const buildStart = process.cpuUsage();
  for (let i = 0; i < inputs.length; i += BATCH) await store.rememberMany(inputs.slice(i, i + BATCH));
  const buildCpuMs = cpuMs(process.cpuUsage(buildStart));
  const recallOptions = (q) => ({ limit: 10, trackRecalls: false, now: FIXED_NOW_MS, ...(vectors ? { embedding: q.vector } : {}) });
  for (const q of warmup) await store.recall(q.text, recallOptions(q));
  const digest = createHash("sha256");
  const start = process.cpuUsage();
  for (const q of queries) {
    const res = await store.recall(q.text, recallOptions(q));
    for (const r of res.results) digest.update(`${r.id}:${r.score};`);
  }
  const recallCpuMs = cpuMs(process.cpuUsage(start)) / queries.length;
  await store.close();
  console.log(JSON.stringify({ buildCpuMs, recallCpuMs, digest: digest.digest("hex").slice(0, 16) }));
}

function median(xs) {
  const s = xs.slice().sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function compare() {
  const builds = { A: args.a, B: args.b };
  const modes = args.modes.split(",");
  const runs = Object.fromEntries(modes.map((m) => [m, { A: [], B: [] }]));
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const mode of modes) {
      // Alternate which build goes first, so that neither always runs after the other.
      for (const side of round % 2 ? ["B", "A"] : ["A", "B"]) {
        const passed = ["n", "queries", "warmup"].flatMap((k) => [`--${k}`, args[k]]);
        const r = spawnSync(process.execPath, [process.argv[1], "--child", builds[side], "--modes", mode, ...passed], { encoding: "utf8" });
        if (r.status !== 0) throw new Error(`${side} ${mode}: ${r.stderr}`);
        const out = JSON.parse(r.stdout.trim().split("\n").at(-1));
        runs[mode][side].push(out);
        console.error(`round ${round + 1} ${mode} ${side}: recall ${out.recallCpuMs.toFixed(4)} ms, build ${out.buildCpuMs.toFixed(0)} ms, digest ${out.digest}`);
      }
    }
  }
  console.log(`CPU per recall and per 10k build, medians of ${args.rounds} alternating runs (A = ${builds.A}, B = ${builds.B})`);
  console.log("| mode | A recall ms | B recall ms | B/A | A build ms | B build ms | B/A | same results |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---|");
  for (const mode of modes) {
    const { A, B } = runs[mode];
    const ra = median(A.map((x) => x.recallCpuMs));
    const rb = median(B.map((x) => x.recallCpuMs));
    const ba = median(A.map((x) => x.buildCpuMs));
    const bb = median(B.map((x) => x.buildCpuMs));
    const same = new Set([...A, ...B].map((x) => x.digest)).size === 1;
    console.log(`| ${mode} | ${ra.toFixed(4)} | ${rb.toFixed(4)} | ${(rb / ra).toFixed(3)} | ${ba.toFixed(0)} | ${bb.toFixed(0)} | ${(bb / ba).toFixed(3)} | ${same ? "yes" : "NO"} |`);
  }
}

if (args.child) await child(args.child, args.modes);
else if (args.a && args.b) compare();
else {
  console.error("usage: node bench/cpu-ab.mjs --a BUILD_DIR --b BUILD_DIR [--modes lexical,default,hybrid] [--rounds 4]");
  process.exit(2);
}
