#!/usr/bin/env node
// Cost of stage S8's Personalized PageRank (Memoria's graph signal, src/graph/ppr.rs) on a
// large entity graph: 10,000 entities and 100,000 edges by default (a seeded random graph:
// every entity has ~20 edges, a few hubs have hundreds), no memories, so a recall is its stage
// Sf on an empty index and its S8. It drives the engine directly, as bench/labelled does: a
// store's graph writes list the whole graph to persist their difference, which is fine for
// the graphs people keep and far too slow for building 100,000 edges one by one. Reports the S8 stage's time per query (the engine's own
// stage timing) for the recallkit ranking's PageRank and abmind's first-match lookup, and
// checks every answer (a query naming an entity gets edges of that entity, each PageRank edge
// carries its mass), so a broken path cannot post a fast time.
//
//   node bench/ppr-cost.mjs                   # 10k entities, 100k edges
//   node bench/ppr-cost.mjs --entities 2000 --edges 20000 --queries 50
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { initSync } from "../pkg/recallkit.js";
import { Engine } from "../js/dist/engine.js";

const { values: args } = parseArgs({
  options: {
    entities: { type: "string", default: "10000" },
    edges: { type: "string", default: "100000" },
    queries: { type: "string", default: "200" },
  },
});
const entities = Number(args.entities);
const edges = Number(args.edges);
const queries = Number(args.queries);

// splitmix64, as the Rust tests' generator, for a graph that is the same on every run.
let state = 0x5eedn;
function next() {
  state = (state + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  return Number((z ^ (z >> 31n)) >> 11n) / 2 ** 53;
}
const pick = (n) => Math.floor(next() * n);
const RELATIONS = ["works_with", "depends_on", "manages", "uses", "lives_in", "acquired_by", "knows", "part_of"];
const name = (i) => `entity ${i}`;
// One in 100 targets is a hub among the first 100 entities.
const target = () => (next() < 0.1 ? pick(100) : pick(entities));

initSync({ module: readFileSync(new URL("../pkg/recallkit_bg.wasm", import.meta.url)) });
const engine = new Engine({});
const started = performance.now();
const seen = new Set();
for (let made = 0; made < edges;) {
  const from = pick(entities);
  const to = target();
  const relation = RELATIONS[pick(RELATIONS.length)];
  const key = `${from}|${relation}|${to}`;
  if (from === to || seen.has(key)) continue;
  seen.add(key);
  engine.relate({ from: name(from), relation, to: name(to), strength: Math.round((0.1 + 0.9 * next()) * 100) / 100 }, 0);
  made++;
}
const graph = { entities: engine.entities().length, edges: engine.edges().length };
console.log(`graph: ${graph.entities} entities, ${graph.edges} edges, built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (graph.edges !== edges) throw new Error(`expected ${edges} edges, got ${graph.edges}`);

/** The S8 times of `queries` recalls, each naming one or two entities; checks every answer. */
async function measure(ranking) {
  const times = [];
  let hits = 0;
  for (let q = 0; q < queries; q++) {
    const a = q % 4 === 0 ? pick(100) : pick(entities); // a quarter name a hub
    const b = q % 2 === 0 ? a : pick(entities); // half name two entities
    const text = a === b ? `what about ${name(a)}?` : `${name(a)} and ${name(b)}`;
    const options = { ranking, searchMode: "lexical", limit: 10, trackRecalls: false, minScore: 0, now: 0, includeExpired: false };
    const res = engine.finishRecall(engine.beginRecall(text, options), undefined, "no_embedder");
    const s8 = res.stages.find((s) => s.name === "S8");
    times.push(s8.ms);
    const found = res.results.filter((r) => r.kind === "edge");
    hits += found.length;
    const named = (r) => [a, b].some((x) => r.edge.from === name(x) || r.edge.to === name(x));
    if (s8.hits > 0 && !found.some(named)) throw new Error(`${ranking}: "${text}" found no edge of the entities it names`);
    if (ranking === "recallkit" && found.some((r) => !(r.components.ppr > 0))) throw new Error(`"${text}": an edge without its mass`);
  }
  if (hits === 0) throw new Error(`${ranking}: no edge found`);
  times.sort((x, y) => x - y);
  const mean = times.reduce((s, t) => s + t, 0) / times.length;
  const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  return { ranking, mean, p50: at(0.5), p95: at(0.95), max: times.at(-1), hits: hits / queries };
}

console.log("| S8 of | mean ms | p50 | p95 | max | edges per answer |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const ranking of ["recallkit", "abmind"]) {
  await measure(ranking); // warm-up
  const r = await measure(ranking);
  const label = ranking === "recallkit" ? "recallkit (Personalized PageRank)" : "abmind (first match)";
  console.log(`| ${label} | ${r.mean.toFixed(2)} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} | ${r.max.toFixed(2)} | ${r.hits.toFixed(1)} |`);
}
engine.free();
