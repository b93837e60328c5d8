#!/usr/bin/env node
// `npm run bench`: recallkit side by side with the libraries users would pick instead.
//
//   node bench/run.mjs [--sizes 1000,10000,100000] [--only name,name] [--queries 300]
//                      [--rounds R] [--out bench/RESULTS.md] [--no-write] [--json file]
//                      [--budget-s S] [--timeout-s 900] [--update-fingerprints] [--list]
//                      [--from-json file]   (re-render a report from a saved --json run)
//
// Every contender × size runs in a fresh `node --expose-gc bench/worker.mjs` process, one
// after another (never in parallel: timings would disturb each other). Up to 10k the whole
// list runs in rounds (ROUNDS below; --rounds R for every size), and each contender's figures
// are the medians over its rounds (bench/rounds.mjs says why). The report (stdout and
// bench/RESULTS.md) holds per-size tables, recallkit's ratio to every peer, the targets of the
// benchmark issue with met / missed, the wasm size, and machine information.
// To keep a default run under ~25 min on 2 cores, 100k runs use 150 queries (not 300) and a
// query-time budget per worker (BUDGET_S below); a worker over budget stops after a whole
// round of the three classes and the report says how many queries it measured. Quality
// targets then compare both sides on the queries both answered (the same leading queries).

import { spawn, execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem, platform, release } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { CONTENDERS } from "./contenders/index.mjs";
import { DEFAULT_SEED, DIMS } from "./corpus.mjs";
import { formatReport } from "./report.mjs";
import { judge } from "./judge.mjs";
import { mergeRounds } from "./rounds.mjs";

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = join(BENCH, "..");
const FINGERPRINTS = join(BENCH, "corpus-fingerprints.json");
/**
 * Query-time budget per worker (s): 150 up to 10k, 45 at 100k, except for the peers whose
 * quality the targets use at 100k (MiniSearch), which get the time to answer every query, and
 * Fuse.js, which scans every record per query (fewer warm-up queries too).
 */
const DEFAULT_BUDGET_S = (n) => (n >= 100000 ? 45 : 150);
const BUDGET_S = { fuse: () => 60, "minisearch-fuzzy": (n) => (n >= 100000 ? 200 : 150), "minisearch-exact": (n) => (n >= 100000 ? 200 : 150) };
/**
 * Warm-up queries per worker (a separate query set, stopped early by the worker's 5 s warm-up
 * budget): enough for steady state. V8 runs wasm first in its baseline tier (Liftoff) and
 * recompiles hot functions with TurboFan on background threads; with 30 warm-up queries the
 * measured recalls still ran partly in baseline code while the compiler competed for the
 * cores (recallkit lexical at 10k: CPU 0.85 ms per 0.50 ms query; after 1,000 warm-ups, or
 * with --no-liftoff, CPU 0.33 per 0.31 ms). JS libraries reach their optimised tier within a
 * few dozen queries, so the longer warm-up changes little for them (MiniSearch + JS-scan RRF
 * at 1k: p50 1.27 ms after 30 warm-ups, 1.28 ms after 1,000).
 */
const WARMUP = { fuse: 6 };
const DEFAULT_WARMUP = 1000;
/**
 * Rounds per size: 3 up to 10k, where a worker takes seconds and a target's ratio was within
 * the machine's minute-to-minute swing of its bound; 1 at 100k, whose workers take minutes
 * (and whose figures move less: each measures over a longer time).
 */
const ROUNDS = (n) => (n <= 10000 ? 3 : 1);

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    only: { type: "string" },
    queries: { type: "string" },
    out: { type: "string", default: join(BENCH, "RESULTS.md") },
    "no-write": { type: "boolean", default: false },
    json: { type: "string" },
    "budget-s": { type: "string" },
    "timeout-s": { type: "string", default: "900" },
    "update-fingerprints": { type: "boolean", default: false },
    rounds: { type: "string" },
    list: { type: "boolean", default: false },
    "from-json": { type: "string" },
  },
});

if (args.list) {
  for (const c of CONTENDERS) console.log(`${c.name.padEnd(22)} ${c.kind.padEnd(8)} ${c.notes}`);
  process.exit(0);
}

const sizes = args.sizes.split(",").map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0);
const only = args.only ? new Set(args.only.split(",").map((s) => s.trim())) : null;
if (only) {
  for (const name of only) if (!CONTENDERS.some((c) => c.name === name)) throw new Error(`unknown contender ${name}; try --list`);
}
const selected = CONTENDERS.filter((c) => !only || only.has(c.name));
const queriesFor = (n) => (args.queries ? Number(args.queries) : n >= 100000 ? 150 : 300);
const roundsFor = (n) => (args.rounds ? Math.max(1, Number(args.rounds)) : ROUNDS(n));

function machine() {
  const cpu = cpus();
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {}
  return {
    date: new Date().toISOString(),
    cpu: `${cpu[0]?.model ?? "unknown"} × ${cpu.length}`,
    memoryGiB: (totalmem() / 2 ** 30).toFixed(1),
    os: `${platform()} ${release()}`,
    node: process.versions.node,
    commit,
    loadAvgStart: loadavg().map((x) => x.toFixed(2)).join(" "),
    command: `node bench/run.mjs ${process.argv.slice(2).join(" ")}`.trim(),
    seed: DEFAULT_SEED,
    dims: DIMS,
  };
}

/** Raw and gzip -9 sizes of the shipped wasm and its JS glue, or a reason. */
function wasmSize() {
  const files = { wasm: join(ROOT, "pkg", "recallkit_bg.wasm"), glue: join(ROOT, "pkg", "recallkit.js") };
  const out = {};
  for (const [key, path] of Object.entries(files)) {
    if (!existsSync(path)) return { missing: `${path.slice(ROOT.length + 1)} not built (npm run build)` };
    const bytes = readFileSync(path);
    out[key] = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  }
  out.total = { raw: out.wasm.raw + out.glue.raw, gzip: out.wasm.gzip + out.glue.gzip };
  return out;
}

function runWorker(spec, n) {
  const queries = queriesFor(n);
  const budget = args["budget-s"] ? Number(args["budget-s"]) : (BUDGET_S[spec.name] ?? DEFAULT_BUDGET_S)(n);
  const warmup = WARMUP[spec.name] ?? DEFAULT_WARMUP;
  const workerArgs = ["--expose-gc", "--max-old-space-size=12288", join(BENCH, "worker.mjs"),
    "--contender", spec.name, "--n", String(n), "--queries", String(queries), "--budget-s", String(budget), "--warmup", String(warmup)];
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, workerArgs, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), Number(args["timeout-s"]) * 1000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
      if (line) return resolveRun(JSON.parse(line.slice("BENCH_RESULT ".length)));
      const reason = signal === "SIGKILL" ? `killed after ${args["timeout-s"]} s` : `worker exited ${code ?? signal}: ${stderr.trim().split("\n").slice(-3).join(" | ")}`;
      resolveRun({ contender: spec.name, n, status: "error", reason, library: spec.library, kind: spec.kind, notes: spec.notes });
    });
  });
}

/** Checks every worker saw the same corpus, and that it matches the committed fingerprints. */
function checkFingerprints(results) {
  const stored = existsSync(FINGERPRINTS) ? JSON.parse(readFileSync(FINGERPRINTS, "utf8")) : {};
  const problems = [];
  let changed = false;
  for (const n of ranSizes) {
    const key = `n=${n} queries=${queriesRun(n)} seed=${DEFAULT_SEED}`;
    const seen = { text: new Set(), vectors: new Set() };
    for (const r of results.filter((x) => x.n === n && x.fingerprint)) {
      seen.text.add(r.fingerprint.text);
      if (r.fingerprint.vectors) seen.vectors.add(r.fingerprint.vectors);
    }
    if (seen.text.size > 1 || seen.vectors.size > 1) problems.push(`n=${n}: workers generated different corpora`);
    const current = { text: [...seen.text][0] ?? null, vectors: [...seen.vectors][0] ?? null };
    const before = stored[key] ?? {};
    for (const part of ["text", "vectors"]) {
      if (!current[part]) continue;
      if (!before[part] || args["update-fingerprints"]) {
        if (before[part] !== current[part]) (before[part] = current[part]), (changed = true);
      } else if (before[part] !== current[part]) {
        problems.push(`n=${n}: corpus ${part} fingerprint ${current[part]} differs from the committed ${before[part]} (generator changed? rerun with --update-fingerprints and review)`);
      }
    }
    stored[key] = before;
  }
  if (changed && !args["no-write"]) writeFileSync(FINGERPRINTS, JSON.stringify(stored, null, 2) + "\n");
  return problems;
}

async function measure() {
  const started = Date.now();
  const info = machine();
  info.wasm = wasmSize(); // measured with the build the workers load
  const results = [];
  const raw = [];
  for (const n of sizes) {
    const rounds = roundsFor(n);
    const byContender = new Map();
    for (let round = 1; round <= rounds; round++) {
      for (const spec of selected) {
        if (spec.maxN && n > spec.maxN) continue;
        const t0 = Date.now();
        process.stderr.write(`bench: ${spec.name} n=${n}${rounds > 1 ? ` round ${round}/${rounds}` : ""} … `);
        const r = await runWorker(spec, n);
        r.wallS = (Date.now() - t0) / 1000;
        r.round = round;
        raw.push(r);
        byContender.set(spec.name, [...(byContender.get(spec.name) ?? []), r]);
        const q = r.queries?.all;
        process.stderr.write(`${r.status}${r.reason ? ` (${r.reason})` : ""}${r.buildMs ? `, build ${r.buildMs.toFixed(2)} ms` : ""}${q ? `, p50 ${q.p50Ms.toFixed(2)} ms, hit@10 ${q.hit10.toFixed(2)}` : ""} [${r.wallS.toFixed(0)} s]\n`);
      }
    }
    for (const spec of selected) {
      if (spec.maxN && n > spec.maxN) {
        results.push({ contender: spec.name, n, status: "skipped", reason: `not run above ${spec.maxN} memories (scans every record per query)`, library: spec.library, kind: spec.kind, notes: spec.notes });
        continue;
      }
      results.push(mergeRounds(byContender.get(spec.name)));
    }
  }
  info.roundsBySize = Object.fromEntries(sizes.map((n) => [n, roundsFor(n)]));
  info.queriesBySize = Object.fromEntries(sizes.map((n) => [n, queriesFor(n)]));
  info.loadAvgEnd = loadavg().map((x) => x.toFixed(2)).join(" ");
  info.wallMinutes = ((Date.now() - started) / 60000).toFixed(1);
  // Saved before formatting, so a report bug never loses a run.
  if (args.json) writeFileSync(args.json, JSON.stringify({ info, results, rounds: raw }, null, 1));
  return { info, results };
}

const { info, results } = args["from-json"] ? JSON.parse(readFileSync(args["from-json"], "utf8")) : await measure();
if (args["from-json"]) results.forEach(judge); // the same rule the workers apply
const ranSizes = [...new Set(results.map((r) => r.n))];
const ranContenders = CONTENDERS.filter((c) => results.some((r) => r.contender === c.name));
const queriesRun = (n) => info.queriesBySize?.[n] ?? queriesFor(n);
const problems = checkFingerprints(results);
const report = formatReport({ info, sizes: ranSizes, queriesFor: queriesRun, results, wasm: info.wasm ?? wasmSize(), problems, contenders: ranContenders });
process.stdout.write(report);
if (!args["no-write"]) writeFileSync(args.out, report);
if (problems.length) {
  for (const p of problems) console.error(`bench: ${p}`);
  process.exit(1);
}
