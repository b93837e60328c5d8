#!/usr/bin/env node
// Reliability of each stage's raw score on the labelled set: of the hits a stage returns at
// limit 10, how many are labelled relevant (grade ≥ 1) and how many are the answer (grade 2),
// by raw-score bucket. A calibration to [0, 1] that makes scores comparable across stages
// should give hits of equal reliability equal calibrated scores; this table is the evidence
// behind the defaults in src/rank/calibrate.rs.
//
//   node bench/labelled/reliability.mjs
//
// How each stage's hits are seen whole through the public engine (results are cut to `limit`):
// Sf: lexical mode, Sf mapped by identity (every Sf hit with raw ≥ 1 scores 1, above S6 and
// S8) and MMR λ = 1; S8: lexical mode with Sf mapped to almost 0 (S8's 0.6 comes first); S6:
// the same run, on queries where S6 and S8 hits together fit in the limit; Se: the same scan in
// JavaScript (cosine ≥ 0.5 in the query's window, top 30), which is what stage Se computes.

import { fileURLToPath } from "node:url";
import { generate } from "./generate.mjs";
import { loadEngine } from "./eval.mjs";
import { cosine } from "./model.mjs";

const LIMIT = 10;

function bucketOf(edges, x) {
  let i = 0;
  while (i < edges.length && x >= edges[i]) i++;
  return i;
}

function tally(name, edges, hits) {
  const rows = edges.concat(Infinity).map(() => ({ n: 0, rel: 0, answer: 0 }));
  for (const h of hits) {
    const r = rows[bucketOf(edges, h.raw)];
    r.n++;
    if (h.grade >= 1) r.rel++;
    if (h.grade === 2) r.answer++;
  }
  const label = (i) => (edges.length === 0 ? "all" : i === 0 ? `< ${edges[0]}` : i === edges.length ? `≥ ${edges[i - 1]}` : `${edges[i - 1]}–${edges[i]}`);
  const lines = [`${name}`, "| raw | hits | relevant | answer |", "|---|---:|---:|---:|"];
  rows.forEach((r, i) => {
    if (r.n > 0) lines.push(`| ${label(i)} | ${r.n} | ${(r.rel / r.n).toFixed(3)} | ${(r.answer / r.n).toFixed(3)} |`);
  });
  return lines.join("\n");
}

export function reliability(set) {
  const sf = [], s6 = [], s8 = [], se = [], ss = [];
  const sfEngine = loadEngine(set, { sfKind: "identity" });
  const fixedEngine = loadEngine(set, { sfHalf: 1e6 });
  // Ss mapped by (raw + 10) / 11 puts its hits (raw ≥ 0.65) above S6 and S8.
  const ssEngine = loadEngine(set, { ssZero: -10 });
  for (const q of set.queries) {
    const grade = (id) => q.relevant[id] ?? 0;
    const a = sfEngine.recall(q, "lexical", { mmrLambda: 1 });
    for (const r of a.results) if (r.stage.startsWith("Sf")) sf.push({ raw: r.components.raw, grade: grade(r.id), cls: q.class });
    const b = fixedEngine.recall(q, "lexical", { mmrLambda: 1 });
    const hits = Object.fromEntries(b.stages.map((s) => [s.name, s.hits]));
    for (const r of b.results) {
      if (r.stage === "S8") s8.push({ raw: 0.6, grade: grade(r.id), cls: q.class });
      if (r.stage.startsWith("S6") && hits.S6 + hits.S8 <= LIMIT) s6.push({ raw: 0.5, grade: grade(r.id), cls: q.class });
    }
    const ssOut = ssEngine.recall(q, "hybrid-noemb", { mmrLambda: 1, searchMode: "semantic" });
    for (const r of ssOut.results) if (r.stage === "Ss") ss.push({ raw: r.components.raw, grade: grade(r.id), cls: q.class });
    const inWindow = (m) => q.start === undefined || (m.createdAt >= q.start && m.createdAt <= q.end);
    const sims = [];
    set.memories.forEach((m, i) => {
      if (!inWindow(m)) return;
      const cos = cosine(q.embedding, set.embeddings[i]);
      if (cos >= 0.5) sims.push({ raw: cos, grade: grade(m.id), cls: q.class });
    });
    sims.sort((x, y) => y.raw - x.raw);
    se.push(...sims.slice(0, 3 * LIMIT));
  }
  sfEngine.close();
  fixedEngine.close();
  ssEngine.close();
  return { sf, se, ss, s6, s8 };
}

function main() {
  const set = generate();
  const { sf, se, ss, s6, s8 } = reliability(set);
  console.log(tally("Sf (raw = abmind's formula)", [0.5, 1, 2, 3, 4, 6, 8, 12, 16], sf));
  console.log();
  console.log(tally("Se (raw = cosine)", [0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9], se));
  console.log();
  console.log(tally("Ss (raw = signature similarity)", [0.7, 0.75, 0.8, 0.9], ss));
  console.log();
  console.log(tally("S6 (fixed 0.5)", [], s6));
  console.log();
  console.log(tally("S8 (fixed 0.6)", [], s8));
  console.log();
  console.log(tally("S8, entity queries", [], s8.filter((h) => h.cls === "entity")));
  console.log();
  console.log(tally("S8, other queries", [], s8.filter((h) => h.cls !== "entity")));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
