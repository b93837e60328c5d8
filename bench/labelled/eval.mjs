#!/usr/bin/env node
// Recall quality on the labelled set (generate.mjs): recall@10 and nDCG@10 per query class and
// overall, for lexical mode, hybrid with the host's embeddings and hybrid without them.
//
//   node bench/labelled/eval.mjs                          # engine defaults: one table per mode
//   node bench/labelled/eval.mjs --store                  # the same through the public MemoryStore
//   node bench/labelled/eval.mjs --sf-half 2,4.5,9 --floor 0,0.5   # a grid: one row per config
//   node bench/labelled/eval.mjs --sf-kind exponential --sf-scale 3,6 --se-zero 0,0.3 --ss-zero 0.5,0.65
//   node bench/labelled/eval.mjs --modes hybrid --json /tmp/eval.json
//   node bench/labelled/eval.mjs --seed 7                 # another set of the same shape (generate.mjs)
//
// Grid options take comma-separated lists; the grid is their cartesian product, and an option
// left out keeps the engine's default. `--sf-kind` is hyperbolic | exponential | identity
// (`--sf-half` goes with hyperbolic, `--sf-scale` with exponential). Options go to the wasm
// Engine as `calibration: { sfKind, sfHalf, sfScale, seZero, ssZero }` and `shortCircuitFloor`,
// so a sweep needs no rebuild. Run `node scripts/build.mjs` first (it builds pkg/ and js/dist/).
//
// Metrics, per query, with the top 10 results (memories, note paragraphs `note:<id>#<p>`, edge
// ids) against the graded labels (2 = the answer, 1 = related):
//   recall@10 = answers (grade 2) in the top 10 / answers
//   nDCG@10   = Σ (2^grade − 1) / log2(rank + 1) over the top 10, divided by the same sum for
//               the ideal order of every labelled item
// A table cell is the mean over the class's queries; "all" is the mean over every query.
// Every recall uses limit 10, trackRecalls false and the set's fixed `now`.

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { initSync } from "../../pkg/recallkit.js";
// The store's own engine wrapper (records and options cross the boundary in the wire format).
import { Engine } from "../../js/dist/engine.js";
import { generate, fingerprint } from "./generate.mjs";

const LIMIT = 10;
const CLASSES = ["exact", "typo", "paraphrase", "temporal", "entity"];
/** The modes: name → how a recall runs. */
export const MODES = {
  lexical: { searchMode: "lexical", embeddings: false },
  hybrid: { searchMode: "hybrid", embeddings: true },
  "hybrid-noemb": { searchMode: "hybrid", embeddings: false },
};

let initialised = false;
function initWasm() {
  if (initialised) return;
  initSync({ module: readFileSync(new URL("../../pkg/recallkit_bg.wasm", import.meta.url)) });
  initialised = true;
}

/** Engine config for one grid point (undefined fields keep the defaults). */
function engineConfig(point, dims) {
  const calibration = {};
  for (const [k, v] of Object.entries({ sfKind: point.sfKind, sfHalf: point.sfHalf, sfScale: point.sfScale, seZero: point.seZero, ssZero: point.ssZero })) {
    if (v !== undefined) calibration[k] = v;
  }
  return {
    dimensions: dims,
    shortCircuitFloor: point.floor,
    ...(Object.keys(calibration).length > 0 ? { calibration } : {}),
  };
}

/** A wasm Engine holding the whole set. */
export function loadEngine(set, point = {}) {
  initWasm();
  const engine = new Engine(engineConfig(point, set.meta.dims));
  const records = set.memories.map((m) => ({ ...m, updatedAt: m.createdAt }));
  const flat = new Float32Array(set.embeddings.length * set.meta.dims);
  set.embeddings.forEach((e, i) => flat.set(e, i * set.meta.dims));
  engine.insertMany(records, flat, new Uint8Array(records.length).fill(1));
  for (const n of set.notes) engine.addNote({ ...n, createdAt: set.meta.now, updatedAt: set.meta.now });
  for (const e of set.entities) engine.addEntity({ ...e, createdAt: set.meta.now });
  for (const e of set.edges) {
    const stored = engine.relate({ from: e.from, relation: e.relation, to: e.to, strength: e.strength, memoryIds: e.memoryIds }, set.meta.now);
    if (stored.id !== e.id) throw new Error(`edge id ${stored.id} differs from the label's ${e.id}`);
  }
  return {
    recall(q, mode, extra = {}) {
      const { searchMode, embeddings } = MODES[mode];
      const options = { limit: LIMIT, now: set.meta.now, trackRecalls: false, includeExpired: false, searchMode, ...extra };
      if (q.start !== undefined) Object.assign(options, { start: q.start, end: q.end });
      const pending = engine.beginRecall(q.text, options);
      const vector = embeddings && pending.wantsEmbedding ? q.embedding : undefined;
      return engine.finishRecall(pending, vector, embeddings ? undefined : "no_embedder");
    },
    close() {
      engine.free();
    },
  };
}

/** The same through the public API: MemoryStore.open, rememberMany, addNote, addEntity, relate, recall. */
export async function loadStore(set, point = {}) {
  const { MemoryStore } = await import("../../js/dist/index.js");
  const store = await MemoryStore.open({ storage: "memory", clock: () => set.meta.now, dimensions: set.meta.dims, shortCircuitFloor: point.floor });
  await store.rememberMany(set.memories.map((m, i) => ({ ...m, embedding: set.embeddings[i] })));
  for (const n of set.notes) await store.addNote(n);
  for (const e of set.entities) await store.addEntity(e);
  for (const e of set.edges) await store.relate({ from: e.from, relation: e.relation, to: e.to, strength: e.strength, memoryIds: e.memoryIds });
  return {
    async recall(q, mode) {
      const { searchMode, embeddings } = MODES[mode];
      const options = { limit: LIMIT, now: set.meta.now, trackRecalls: false, searchMode };
      if (q.start !== undefined) Object.assign(options, { start: q.start, end: q.end });
      if (embeddings) options.embedding = q.embedding;
      return store.recall(q.text, options);
    },
    close: () => store.close(),
  };
}

/** recall@10 and nDCG@10 of one ranked id list against graded labels. */
export function score(ids, relevant) {
  const answers = Object.values(relevant).filter((g) => g === 2).length;
  let found = 0;
  let dcg = 0;
  ids.slice(0, LIMIT).forEach((id, r) => {
    const g = relevant[id] ?? 0;
    if (g === 2) found++;
    dcg += (2 ** g - 1) / Math.log2(r + 2);
  });
  const ideal = Object.values(relevant).sort((a, b) => b - a).slice(0, LIMIT)
    .reduce((s, g, r) => s + (2 ** g - 1) / Math.log2(r + 2), 0);
  return { recall: answers === 0 ? 0 : found / answers, ndcg: ideal === 0 ? 0 : dcg / ideal };
}

/** Runs every query in one mode; returns per-class means and how often Se/Ss ran. */
export async function evaluate(set, loaded, mode) {
  const per = Object.fromEntries([...CLASSES, "all"].map((c) => [c, { recall: 0, ndcg: 0, n: 0 }]));
  const ran = { Se: 0, Ss: 0 };
  const rows = [];
  for (const q of set.queries) {
    const out = await loaded.recall(q, mode);
    for (const s of out.stages) if (s.name in ran && !s.skipped) ran[s.name]++;
    const ids = out.results.map((r) => r.id);
    const m = score(ids, q.relevant);
    rows.push({ id: q.id, ...m });
    for (const c of [q.class, "all"]) {
      per[c].recall += m.recall;
      per[c].ndcg += m.ndcg;
      per[c].n++;
    }
  }
  for (const c of Object.values(per)) {
    c.recall /= c.n;
    c.ndcg /= c.n;
  }
  return { per, ran: { Se: ran.Se / set.queries.length, Ss: ran.Ss / set.queries.length }, rows };
}

function list(argv, name, parse = Number) {
  const i = argv.indexOf(name);
  if (i < 0) return [undefined];
  return argv[i + 1].split(",").map((s) => parse(s.trim()));
}

function grid(argv) {
  const axes = {
    sfKind: list(argv, "--sf-kind", String), sfHalf: list(argv, "--sf-half"), sfScale: list(argv, "--sf-scale"),
    seZero: list(argv, "--se-zero"), ssZero: list(argv, "--ss-zero"), floor: list(argv, "--floor"),
  };
  let points = [{}];
  for (const [k, values] of Object.entries(axes)) {
    points = points.flatMap((p) => values.map((v) => (v === undefined ? p : { ...p, [k]: v })));
  }
  return points;
}

function label(point) {
  const parts = Object.entries(point).map(([k, v]) => `${k}=${v}`);
  return parts.length === 0 ? "defaults" : parts.join(" ");
}

const pct = (x) => x.toFixed(3);

function table(mode, result) {
  const lines = [`${mode} (Se ran ${Math.round(result.ran.Se * 100)} %, Ss ran ${Math.round(result.ran.Ss * 100)} %)`];
  lines.push(`| metric | ${[...CLASSES, "all"].join(" | ")} |`, `|---|${[...CLASSES, "all"].map(() => "---:").join("|")}|`);
  for (const metric of ["recall", "ndcg"]) {
    lines.push(`| ${metric === "recall" ? "recall@10" : "nDCG@10"} | ${[...CLASSES, "all"].map((c) => pct(result.per[c][metric])).join(" | ")} |`);
  }
  return lines.join("\n");
}

async function main(argv) {
  const t0 = performance.now();
  const seedAt = argv.indexOf("--seed");
  const set = seedAt < 0 ? generate() : generate(Number(argv[seedAt + 1]));
  const modes = list(argv, "--modes", String)[0] === undefined ? Object.keys(MODES) : list(argv, "--modes", String);
  const points = grid(argv);
  const useStore = argv.includes("--store");
  console.log(`labelled set: ${set.meta.memories} memories, ${set.meta.notes} notes, ${set.meta.edges} edges, ${set.meta.queries} queries ${JSON.stringify(set.meta.classes)}; sha256 ${fingerprint(set).slice(0, 16)}`);
  const results = [];
  for (const point of points) {
    const loaded = useStore ? await loadStore(set, point) : loadEngine(set, point);
    const byMode = {};
    for (const mode of modes) byMode[mode] = await evaluate(set, loaded, mode);
    await loaded.close();
    results.push({ point, byMode });
    if (points.length === 1) {
      console.log(`\nconfig: ${label(point)}${useStore ? " (MemoryStore)" : ""}\n`);
      for (const mode of modes) console.log(`${table(mode, byMode[mode])}\n`);
    } else {
      const cells = modes.map((m) => `${pct(byMode[m].per.all.recall)} ${pct(byMode[m].per.all.ndcg)}`);
      const meanNdcg = modes.reduce((s, m) => s + byMode[m].per.all.ndcg, 0) / modes.length;
      if (results.length === 1) console.log(`\n| config | ${modes.map((m) => `${m} R@10 nDCG@10`).join(" | ")} | mean nDCG |\n|---|${modes.map(() => "---").join("|")}|---:|`);
      console.log(`| ${label(point)} | ${cells.join(" | ")} | ${pct(meanNdcg)} |`);
    }
  }
  const json = argv.indexOf("--json");
  if (json >= 0) writeFileSync(argv[json + 1], JSON.stringify(results.map((r) => ({ point: r.point, byMode: Object.fromEntries(Object.entries(r.byMode).map(([m, x]) => [m, { per: x.per, ran: x.ran }])) })), null, 1));
  console.error(`\n${points.length} config(s) × ${modes.length} mode(s) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
