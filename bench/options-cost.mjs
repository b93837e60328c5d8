#!/usr/bin/env node
// What AutoMem's recall options cost (issue 23): recall CPU time at 10,000 memories (the bench
// corpus, bench/corpus.mjs) with `tags`, `timeQuery`, several `queries`, the expansions and an
// empty query, beside the same recalls without them.
//
//   node bench/options-cost.mjs [--memories 10000] [--queries 150] [--rounds 5]
//
// CPU time of this process (process.cpuUsage: user + system) per recall, not wall time, so that
// other work on the machine counts less; the configurations take turns within each round and
// the median round is reported. Each run asserts a result (the tag and window filters hold), so
// a broken path cannot post a fast time. Not part of `npm test`.
import { parseArgs } from "node:util";
import { MemoryStore } from "../js/dist/index.js";
import { generateCorpus, generateQueries } from "./corpus.mjs";

const { values } = parseArgs({ options: { memories: { type: "string", default: "10000" }, queries: { type: "string", default: "150" }, rounds: { type: "string", default: "5" } } });
const N = Number(values.memories);
const Q = Number(values.queries);
const ROUNDS = Number(values.rounds);
/** One memory in a hundred holds this tag: the "a tag held by 1 %". */
const RARE_TAG = "project:rare";

const { docs } = generateCorpus(N);
const store = await MemoryStore.open({ storage: "memory" });
await store.rememberMany(docs.map((d) => ({
  id: d.id, text: d.text, topic: d.topic, createdAt: d.createdAt, tags: d.index % 100 === 7 ? [...d.tags, RARE_TAG] : d.tags,
})));
const queries = generateQueries(docs, Q).map((q) => q.text);
// The corpus's memories span 2023 and 2024: "now" is in their last month, so "last month" is November 2024.
const base = { now: Date.UTC(2024, 11, 15), trackRecalls: false, limit: 10 };
const month = { start: Date.UTC(2024, 10, 1), end: Date.UTC(2024, 11, 1) - 1 };

const CONFIGS = {
  "query only": (q) => [q, base],
  "tags: [a common tag]": (q) => [q, { ...base, tags: ["backend"] }],
  "tags: [a 1 % tag]": (q) => [q, { ...base, tags: [RARE_TAG] }],
  "excludeTags": (q) => [q, { ...base, excludeTags: ["urgent", "todo"] }],
  'timeQuery: "last month"': (q) => [q, { ...base, timeQuery: "last month" }],
  "queries: 2 more texts": (q, i) => [q, { ...base, queries: [queries[(i + 1) % Q], queries[(i + 2) % Q]] }],
  "autoDecompose": (q) => [q, { ...base, autoDecompose: true }],
  "expandRelations + expandEntities": (q) => [q, { ...base, expandRelations: true, expandEntities: true }],
  'empty query, tags: [a 1 % tag]': () => ["", { ...base, tags: [RARE_TAG] }],
  "empty query (trending)": () => ["", base],
};

function check(name, options, res) {
  for (const hit of res.results) {
    if (hit.kind !== "memory") continue;
    if (options.tags?.includes(RARE_TAG) && !hit.memory.tags?.includes(RARE_TAG)) throw new Error(`${name}: a result without the tag`);
    if (options.timeQuery && (hit.memory.createdAt < month.start || hit.memory.createdAt > month.end)) throw new Error(`${name}: a result outside the window`);
  }
  if ((name.startsWith("empty") || options.timeQuery) && res.results.length === 0) throw new Error(`${name}: no result`);
  if (options.timeQuery && res.timeWindow?.start !== month.start) throw new Error(`${name}: the window is not November 2024`);
}

const perRound = Object.fromEntries(Object.keys(CONFIGS).map((k) => [k, []]));
for (let round = 0; round <= ROUNDS; round++) {
  for (const [name, make] of Object.entries(CONFIGS)) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < Q; i++) {
      const [q, options] = make(queries[i], i);
      const res = await store.recall(q, options);
      if (i === 0) check(name, options, res);
    }
    const used = process.cpuUsage(t0);
    if (round > 0) perRound[name].push((used.user + used.system) / 1000 / Q); // round 0 warms up
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const baseline = median(perRound["query only"]);
console.log(`recall CPU per call, ${N} memories, ${Q} queries x ${ROUNDS} rounds (median round), limit 10`);
for (const [name, xs] of Object.entries(perRound)) {
  const m = median(xs);
  console.log(`${name.padEnd(34)} ${m.toFixed(3).padStart(7)} ms  ${(m / baseline).toFixed(2)}x`);
}
await store.close();
