#!/usr/bin/env node
// A grid over the "recallkit" ranking's parameters on the LoCoMo dev half: one row per point,
// R@10 and nDCG@10 with no vectors and with the MiniLM vectors. The defaults in
// src/rank/model.rs and src/rank/evidence.rs were chosen with it (docs/quality.md).
//
//   node bench/locomo/sweep.mjs --grid '{"lexicalWeight":[0.5,0.6,0.7],"semanticFull":[4,6,8]}'
//   node bench/locomo/sweep.mjs --grid '{"minScore":[0,0.05,0.1,0.2]}' --runs hybrid
//   node bench/locomo/sweep.mjs --grid '{"semanticFrom":[1,2]}' --runs hybrid --by-category
//
// `--by-category` prints R@10 / nDCG@10 per question category instead of the answered shares,
// for the rule that hybrid never falls below lexical in any category.
//
// Grid keys are `fusion` parameters (lexicalWeight, signatureWeight, graphWeight, noteWeight,
// recencyWeight, latestRecencyWeight, priorExponent, coverageWeight, semanticFrom,
// semanticFull) or the open options minScore and mmrLambda (the latter applied per recall).

import { fileURLToPath } from "node:url";
import { loadData, loadStore, evaluate, RUNS, DEFAULT_DATA, CATEGORIES } from "./eval.mjs";

const OPEN_KEYS = new Set(["minScore"]);
const RECALL_KEYS = new Set(["mmrLambda"]);

function points(grid) {
  let out = [{}];
  for (const [k, values] of Object.entries(grid)) {
    out = out.flatMap((p) => values.map((v) => ({ ...p, [k]: v })));
  }
  return out;
}

function arg(argv, name) {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

async function main(argv) {
  const data = loadData(arg(argv, "--data") ?? DEFAULT_DATA, arg(argv, "--conv")?.split(","));
  if (data === undefined) {
    console.error("sweep: no LoCoMo data (see bench/locomo/eval.mjs)");
    process.exit(2);
  }
  const grid = JSON.parse(arg(argv, "--grid") ?? "{}");
  const runs = arg(argv, "--runs")?.split(",") ?? ["no vectors", "hybrid"];
  const byCategory = argv.includes("--by-category");
  const columns = byCategory ? [...CATEGORIES, "all"] : ["R@10", "nDCG@10", "answered", "top ok"];
  console.log(`| point | ${runs.map((r) => columns.map((c) => `${r} ${c}`).join(" | ")).join(" | ")} |`);
  console.log(`|---|${runs.map(() => columns.map(() => "---:").join("|")).join("|")}|`);
  for (const point of points(grid)) {
    const fusion = {};
    const open = {};
    const recall = {};
    for (const [k, v] of Object.entries(point)) {
      if (OPEN_KEYS.has(k)) open[k] = v;
      else if (RECALL_KEYS.has(k)) recall[k] = v;
      else fusion[k] = v;
    }
    const cells = [];
    for (const run of runs) {
      const spec = RUNS[run];
      const store = await loadStore(data, spec.vectors, { ...open, fusion });
      const result = await evaluate(data, store, { ...spec.recall, ...recall, ranking: "recallkit", ...(spec.vectors ? { embedding: true } : {}) });
      await store.close();
      if (byCategory) cells.push(...columns.map((c) => `${result.per[c].recall.toFixed(3)} / ${result.per[c].ndcg.toFixed(3)}`));
      else cells.push(...[result.per.all.recall, result.per.all.ndcg, result.answered, result.topOk].map((x) => x.toFixed(3)));
    }
    const label = Object.entries(point).map(([k, v]) => `${k}=${v}`).join(" ") || "defaults";
    console.log(`| ${label} | ${cells.join(" | ")} |`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
