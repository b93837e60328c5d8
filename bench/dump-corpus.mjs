#!/usr/bin/env node
// Writes the bench corpus and its queries as TSV for the native profiling harness
// (examples/profile.rs), so the Rust core can be profiled without the wasm boundary:
//   node bench/dump-corpus.mjs --n 10000 --out /tmp/corpus-10k
// writes <out>.docs.tsv (id, createdAt, topic, tags joined by ",", text) and
// <out>.queries.tsv (class, source index, text), with the measured queries of bench/worker.mjs
// (salt 1) first and its warm-up queries (salt 2) after, class "warmup". With --vectors it also
// writes <out>.vectors.f32: the 384-dim vectors (little-endian f32) of every memory, then of
// every query in the order of queries.tsv.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DEFAULT_SEED, generateCorpus, generateQueries } from "./corpus.mjs";

const { values: args } = parseArgs({
  options: {
    n: { type: "string", default: "10000" },
    queries: { type: "string", default: "300" },
    seed: { type: "string", default: String(DEFAULT_SEED) },
    out: { type: "string" },
    vectors: { type: "boolean", default: false },
  },
});
if (!args.out) throw new Error("--out PREFIX is required");
const seed = Number(args.seed);
const vectors = args.vectors;
const { docs } = generateCorpus(Number(args.n), { seed, vectors });
const clean = (s) => String(s).replace(/[\t\n\r]/g, " ");
const docLines = docs.map((d) => [d.id, d.createdAt, d.topic ?? "", d.tags.join(","), d.text].map(clean).join("\t"));
writeFileSync(`${args.out}.docs.tsv`, docLines.join("\n") + "\n");
const measured = generateQueries(docs, Number(args.queries), { seed, salt: 1, vectors });
const warmup = generateQueries(docs, 30, { seed, salt: 2, vectors }).map((q) => ({ ...q, class: "warmup" }));
const queries = [...measured, ...warmup];
const queryLines = queries.map((q) => [q.class, q.source, q.text].map(clean).join("\t"));
writeFileSync(`${args.out}.queries.tsv`, queryLines.join("\n") + "\n");
if (vectors) {
  const rows = [...docs.map((d) => d.embedding), ...queries.map((q) => q.vector)];
  const all = new Float32Array(rows.length * rows[0].length);
  rows.forEach((row, i) => all.set(row, i * row.length));
  writeFileSync(`${args.out}.vectors.f32`, new Uint8Array(all.buffer));
}
console.log(`wrote ${docs.length} memories and ${queryLines.length} queries to ${args.out}.*.tsv`);
