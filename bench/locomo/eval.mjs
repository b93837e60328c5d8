#!/usr/bin/env node
// Recall quality on real conversations: the LoCoMo dev half in ../shared/eval/locomo-dev (read
// its README for the data, licence and protocol). The data is CC BY-NC: it is read in place and
// never copied into the repository.
//
//   npm run eval:locomo                                  # every ranking, no vectors and hybrid,
//                                                        # and the peers but Fuse (15–20 s)
//   node bench/locomo/eval.mjs --rankings recallkit      # one ranking, no peers
//   node bench/locomo/eval.mjs --peers                   # recallkit's ranking and every peer
//                                                        # (about 95 s, 75–80 of them Fuse's)
//   node bench/locomo/eval.mjs --peers js-cosine,fuse    # some peers
//   node bench/locomo/eval.mjs --runs hybrid --open '{"decayFloor":1}' --recall '{"minScore":0}'
//   node bench/locomo/eval.mjs --data DIR --json out.json
//   node bench/locomo/eval.mjs --conv conv-26,conv-41    # a subset of the conversations
//
// Protocol (the dev README's): one store holds every memory, userId = conv; each question
// recalls with its conv, limit 10, trackRecalls false, now = the conversation's last createdAt
// + 1 day. "no vectors" stores and recalls without embeddings under the store's defaults
// (hybrid mode, no embedder); "lexical" is searchMode "lexical"; "hybrid" passes each memory's
// MiniLM vector and the question's. R@10 = share of the evidence ids in the top 10, averaged
// over questions; nDCG@10 with binary gains. Only memory results count.
//
// Peers (bench/locomo/peers.mjs): the libraries a user could pick instead (MiniSearch, Orama,
// FlexSearch, Fuse.js, a plain cosine scan over the MiniLM vectors, a MiniSearch + cosine RRF),
// through the speed benchmark's wrappers in bench/contenders, one index per conversation (only
// the question's conversation's memories are candidates, as with userId), limit 10; the report
// names each one's library version and options. Their ids are scored by the same measure().
//
// Beside the ranking figures: "answered" is the share of questions with at least one memory
// result at or above minScore, and "top ok" the share of those whose first memory result is
// evidence (how far a non-empty answer can be trusted). Run `node scripts/build.mjs` first.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const LIMIT = 10;
const DAY = 86_400_000;
const HERE = fileURLToPath(new URL(".", import.meta.url));
export const DEFAULT_DATA = `${HERE}../../../shared/eval/locomo-dev`;
export const CATEGORIES = ["multi-hop", "temporal", "open-domain", "single-hop", "adversarial"];
/** The runs: how the store is filled and how a question recalls. */
export const RUNS = {
  "no vectors": { vectors: false, recall: {} },
  lexical: { vectors: false, recall: { searchMode: "lexical" } },
  hybrid: { vectors: true, recall: {} },
};
export const RANKINGS = ["recallkit", "abmind", "rrf", "composite", "weighted"];

/** Reads the data set; `undefined` when the folder is absent. */
export function loadData(dir = DEFAULT_DATA, convs) {
  if (!existsSync(`${dir}/memories.jsonl`)) return undefined;
  const lines = (file) => readFileSync(`${dir}/${file}`, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
  const vectors = (file, n) => {
    const buf = readFileSync(`${dir}/${file}`);
    const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    const dims = all.length / n;
    return Array.from({ length: n }, (_, i) => all.subarray(i * dims, (i + 1) * dims));
  };
  let memories = lines("memories.jsonl");
  let queries = lines("queries.jsonl");
  const memVec = vectors("memories.emb.f32", memories.length);
  const qVec = vectors("queries.emb.f32", queries.length);
  memories = memories.map((m, i) => ({ ...m, embedding: memVec[i] }));
  queries = queries.map((q, i) => ({ ...q, embedding: qVec[i] }));
  if (convs !== undefined) {
    memories = memories.filter((m) => convs.includes(m.conv));
    queries = queries.filter((q) => convs.includes(q.conv));
  }
  const last = new Map();
  for (const m of memories) {
    const t = Date.parse(m.createdAt);
    if (!(last.get(m.conv) >= t)) last.set(m.conv, t);
  }
  return { memories, queries, now: (conv) => last.get(conv) + DAY, dims: memVec[0].length };
}

/** A memory store holding the set, with or without its vectors. */
export async function loadStore(data, vectors, open = {}) {
  const { MemoryStore } = await import("../../js/dist/index.js");
  const store = await MemoryStore.open({ storage: "memory", ...(vectors ? { dimensions: data.dims } : {}), ...open });
  await store.rememberMany(data.memories.map((m) => ({
    id: m.id, text: m.text, userId: m.conv, createdAt: m.createdAt,
    ...(m.topic ? { topic: m.topic } : {}), ...(vectors ? { embedding: m.embedding } : {}),
  })));
  return store;
}

/** R@10 and nDCG@10 (binary gains) of a ranked id list against the evidence. */
export function score(ids, evidence) {
  const relevant = new Set(evidence);
  let found = 0;
  let dcg = 0;
  ids.slice(0, LIMIT).forEach((id, r) => {
    if (relevant.has(id)) {
      found++;
      dcg += 1 / Math.log2(r + 2);
    }
  });
  let ideal = 0;
  for (let r = 0; r < Math.min(relevant.size, LIMIT); r++) ideal += 1 / Math.log2(r + 2);
  return { recall: relevant.size === 0 ? 0 : found / relevant.size, ndcg: ideal === 0 ? 0 : dcg / ideal };
}

/**
 * Scores a ranking over every question: per-category means, the answered share and top ok.
 * `rank(q)` resolves to the memory ids it returns for question `q`, best first. Every row of
 * the report, recallkit's and the peers', is scored here.
 */
export async function measure(data, rank) {
  const cats = [...CATEGORIES, "all"];
  const per = Object.fromEntries(cats.map((c) => [c, { recall: 0, ndcg: 0, n: 0 }]));
  let answered = 0;
  let topOk = 0;
  const rows = [];
  for (const q of data.queries) {
    const ids = await rank(q);
    const m = score(ids, q.evidence);
    if (ids.length > 0) {
      answered++;
      if (q.evidence.includes(ids[0])) topOk++;
    }
    rows.push({ qid: q.qid, ...m, top: ids[0] });
    for (const c of [q.category_name, "all"]) {
      per[c].recall += m.recall;
      per[c].ndcg += m.ndcg;
      per[c].n++;
    }
  }
  for (const c of Object.values(per)) {
    c.recall = c.n === 0 ? 0 : c.recall / c.n;
    c.ndcg = c.n === 0 ? 0 : c.ndcg / c.n;
  }
  const n = data.queries.length;
  return { per, answered: answered / n, topOk: answered === 0 ? 0 : topOk / answered, rows };
}

/** Runs every question through `store`; what `measure` gives and how often Se and Ss ran. */
export async function evaluate(data, store, recallOptions) {
  const ran = { Se: 0, Ss: 0 };
  const result = await measure(data, async (q) => {
    const options = { limit: LIMIT, userId: q.conv, trackRecalls: false, now: data.now(q.conv), ...recallOptions };
    if (recallOptions.embedding === true) options.embedding = q.embedding;
    const out = await store.recall(q.question, options);
    for (const s of out.stages) if (s.name in ran && !s.skipped) ran[s.name]++;
    return out.results.filter((r) => r.kind === "memory").map((r) => r.id);
  });
  const n = data.queries.length;
  return { ...result, ran: { Se: ran.Se / n, Ss: ran.Ss / n } };
}

const f3 = (x) => x.toFixed(3);

/**
 * The issue-21 rule that vectors never cost a category: for each ranking measured both ways,
 * one line naming every category (and metric) where "hybrid" falls below "no vectors".
 */
export function hybridBelowLexical(results) {
  const lines = [];
  for (const h of results.filter((r) => r.run === "hybrid")) {
    const l = results.find((r) => r.run === "no vectors" && r.ranking === h.ranking);
    if (l === undefined) continue;
    const below = [];
    for (const c of [...CATEGORIES, "all"]) {
      for (const m of ["recall", "ndcg"]) {
        if (h.result.per[c][m] < l.result.per[c][m]) below.push(`${c} ${m === "recall" ? "R@10" : "nDCG@10"} ${f3(h.result.per[c][m])} < ${f3(l.result.per[c][m])}`);
      }
    }
    lines.push(`${h.ranking}: hybrid below no vectors in ${below.length === 0 ? "no category" : below.join(", ")}`);
  }
  return lines;
}

/**
 * Where the peers score above recallkit's default ranking: one line per peer that does,
 * naming each category (and metric), a peer without vectors against recallkit's "no vectors"
 * row and a peer with vectors against its "hybrid" row; one line saying so when none does.
 */
export function peersAbove(results) {
  const lines = [];
  let compared = 0;
  for (const p of results.filter((r) => r.library !== undefined)) {
    const run = p.run === "no vectors" ? "no vectors" : "hybrid";
    const own = results.find((r) => r.ranking === "recallkit" && r.run === run);
    if (own === undefined) continue;
    compared++;
    const above = [];
    for (const c of [...CATEGORIES, "all"]) {
      for (const m of ["recall", "ndcg"]) {
        if (p.result.per[c][m] > own.result.per[c][m]) above.push(`${c} ${m === "recall" ? "R@10" : "nDCG@10"} ${f3(p.result.per[c][m])} > ${f3(own.result.per[c][m])}`);
      }
    }
    if (above.length > 0) lines.push(`${p.ranking}: above recallkit ${run} in ${above.join(", ")}`);
  }
  if (compared > 0 && lines.length === 0) lines.push(`no peer above recallkit (no vectors against no vectors, with vectors against hybrid) in any category`);
  return lines;
}

/** One markdown table: a row per (ranking, run), R@10 and nDCG@10 per category. */
export function table(results) {
  const cats = [...CATEGORIES, "all"];
  const out = [
    `| ranking or peer | run | ${cats.map((c) => `${c} R@10 / nDCG`).join(" | ")} | answered | top ok |`,
    `|---|---|${cats.map(() => "---:").join("|")}|---:|---:|`,
  ];
  for (const r of results) {
    const cells = cats.map((c) => `${f3(r.result.per[c].recall)} / ${f3(r.result.per[c].ndcg)}`);
    out.push(`| ${r.ranking} | ${r.run} | ${cells.join(" | ")} | ${f3(r.result.answered)} | ${f3(r.result.topOk)} |`);
  }
  return out.join("\n");
}

function arg(argv, name) {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : argv[i + 1];
}

/**
 * The rankings and peers to measure. `--rankings` alone gives those rankings and no peer;
 * `--peers` (every peer) or `--peers a,b` gives those peers beside recallkit's default
 * ranking, or beside `--rankings`; neither gives every ranking and every peer but the slow
 * ones (peers.mjs SLOW_PEERS).
 */
async function chosen(argv) {
  const rankings = arg(argv, "--rankings")?.split(",");
  const i = argv.indexOf("--peers");
  const names = i < 0 || argv[i + 1] === undefined || argv[i + 1].startsWith("--") ? undefined : argv[i + 1].split(",");
  if (i < 0 && rankings !== undefined) return { rankings, peers: [] };
  const { PEERS, SLOW_PEERS } = await import("./peers.mjs");
  for (const name of names ?? []) {
    if (!PEERS.some((p) => p.name === name)) throw new Error(`unknown peer ${name}: ${PEERS.map((p) => p.name).join(", ")}`);
  }
  const peers = PEERS.filter((p) => (names === undefined ? i >= 0 || !SLOW_PEERS.has(p.name) : names.includes(p.name)));
  return { rankings: rankings ?? (i < 0 ? RANKINGS : ["recallkit"]), peers };
}

/** Each peer's figures under the protocol (bench/locomo/peers.mjs), with its library and options. */
async function measurePeers(data, peers) {
  const { openPeer, PEER_RUNS } = await import("./peers.mjs");
  console.log("\npeers (one index per conversation; options as named):");
  for (const p of peers) console.log(`  ${p.name.padEnd(20)} ${p.library.padEnd(22)} ${p.notes}`);
  const results = [];
  for (const peer of peers) {
    const t0 = performance.now();
    const index = await openPeer(peer, data, LIMIT);
    const t1 = performance.now();
    const result = await measure(data, index.rank);
    const ms = (performance.now() - t1) / data.queries.length;
    await index.close();
    const run = PEER_RUNS[peer.kind];
    results.push({ ranking: peer.name, run, library: peer.library, result });
    console.log(`${peer.name.padEnd(20)} ${run.padEnd(12)} R@10 ${f3(result.per.all.recall)}  nDCG@10 ${f3(result.per.all.ndcg)}  answered ${f3(result.answered)}  top ok ${f3(result.topOk)}  built in ${(t1 - t0).toFixed(0)} ms  ${ms.toFixed(2)} ms/question`);
  }
  return results;
}

async function main(argv) {
  const dir = arg(argv, "--data") ?? DEFAULT_DATA;
  const convs = arg(argv, "--conv")?.split(",");
  const data = loadData(dir, convs);
  if (data === undefined) {
    console.error(`eval:locomo: no LoCoMo data in ${dir} (expected memories.jsonl, queries.jsonl and the .emb.f32 files; see the dev README). Nothing was measured.`);
    process.exit(2);
  }
  const started = performance.now();
  const { rankings, peers } = await chosen(argv);
  const runs = arg(argv, "--runs")?.split(",") ?? ["no vectors", "hybrid"];
  const open = JSON.parse(arg(argv, "--open") ?? "{}");
  const extra = JSON.parse(arg(argv, "--recall") ?? "{}");
  console.log(`LoCoMo dev: ${data.memories.length} memories, ${data.queries.length} questions${convs ? ` (${convs.join(", ")})` : ""}`);
  if (Object.keys(open).length > 0) console.log(`open options: ${JSON.stringify(open)}`);
  if (Object.keys(extra).length > 0) console.log(`recall options: ${JSON.stringify(extra)}`);
  const results = [];
  for (const run of runs) {
    const spec = RUNS[run];
    if (spec === undefined) throw new Error(`unknown run ${run}: ${Object.keys(RUNS).join(", ")}`);
    const store = await loadStore(data, spec.vectors, open);
    for (const ranking of rankings) {
      const t0 = performance.now();
      const recallOptions = { ...spec.recall, ...(ranking === "default" ? {} : { ranking }), ...extra, ...(spec.vectors ? { embedding: true } : {}) };
      const result = await evaluate(data, store, recallOptions);
      const ms = (performance.now() - t0) / data.queries.length;
      results.push({ ranking, run, result });
      console.log(`${ranking.padEnd(10)} ${run.padEnd(10)} R@10 ${f3(result.per.all.recall)}  nDCG@10 ${f3(result.per.all.ndcg)}  answered ${f3(result.answered)}  top ok ${f3(result.topOk)}  Se ran ${f3(result.ran.Se)}  Ss ran ${f3(result.ran.Ss)}  ${ms.toFixed(2)} ms/question`);
    }
    await store.close();
  }
  if (peers.length > 0) results.push(...await measurePeers(data, peers));
  console.log(`\n${table(results)}`);
  for (const line of [...hybridBelowLexical(results), ...peersAbove(results)]) console.log(line);
  console.log(`${((performance.now() - started) / 1000).toFixed(1)} s in all`);
  const json = arg(argv, "--json");
  if (json !== undefined) {
    writeFileSync(json, JSON.stringify(results.map(({ ranking, run, library, result }) => ({ ranking, run, library, per: result.per, answered: result.answered, topOk: result.topOk, rows: result.rows })), null, 1));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
