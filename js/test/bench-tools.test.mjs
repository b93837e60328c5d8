// The benchmark tools run against the current build: they are not part of `npm test`'s
// timings, so without these checks a change to the engine's boundary can break them unseen
// (bench/labelled/eval.mjs called the raw wasm Engine with objects after records moved to
// the wire format, and failed with "malformed wire value").
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = (args) => execFileSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 16 << 20 });

/** The metric tables of an eval.mjs report, without its header and timing lines. */
const tables = (out) => out.split("\n").filter((line) => line.startsWith("|") || /^\w[\w-]* \(Se ran/.test(line));

test("the labelled set's evaluation gives the same figures through the engine and through MemoryStore", () => {
  const engine = tables(run(["bench/labelled/eval.mjs"]));
  const store = tables(run(["bench/labelled/eval.mjs", "--store"]));
  assert.ok(engine.length >= 12, engine.join("\n"));
  assert.deepEqual(engine, store);
  const lexical = engine[engine.indexOf(engine.find((l) => l.startsWith("lexical"))) + 3];
  const recall = Number(lexical.split("|").at(-2));
  assert.ok(recall > 0.5 && recall <= 1, lexical);
});

test("a bench worker measures recallkit-lexical and finds its canary", () => {
  const out = run(["--expose-gc", "bench/worker.mjs", "--contender", "recallkit-lexical", "--n", "1000",
    "--queries", "30", "--warmup", "30", "--build-runs", "1"]);
  const line = out.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
  const result = JSON.parse(line.slice("BENCH_RESULT ".length));
  assert.equal(result.status, "ok", line);
  assert.equal(result.canary.ok, true, line);
  assert.ok(result.queries.perClass.exact.hit10 >= 0.9, line);
});

test("bench rounds merge into medians, with every canary required and broken rounds kept", async () => {
  const { mergeRounds } = await import("../../bench/rounds.mjs");
  const round = (buildMs, p50Ms, extra = {}) => ({
    contender: "c", n: 1000, status: "ok", buildMs, docsPerSec: 1000 / (buildMs / 1000),
    canary: { ok: true }, memory: { perDoc: { index: buildMs * 100 } },
    queries: { measured: 30, ranks: [1, 2], all: { p50Ms, hit10: 1 } }, ...extra,
  });
  const merged = mergeRounds([round(5, 0.3), round(9, 0.1), round(4, 0.2)]);
  assert.equal(merged.buildMs, 5);
  assert.equal(merged.docsPerSec, 200000);
  assert.equal(merged.queries.all.p50Ms, 0.2);
  assert.equal(merged.memory.perDoc.index, 500);
  assert.deepEqual(merged.queries.ranks, [1, 2]);
  assert.deepEqual(merged.rounds, { count: 3, merged: 3, buildMs: [5, 9, 4], queryP50Ms: [0.3, 0.1, 0.2], status: ["ok", "ok", "ok"] });
  // A canary that fails once fails the merged result; a broken round is the result.
  assert.equal(mergeRounds([round(5, 0.3), round(5, 0.3, { canary: { ok: false } })]).canary.ok, false);
  const broken = round(7, 0.3, { status: "broken", reason: "canary" });
  assert.equal(mergeRounds([round(5, 0.3), broken]).buildMs, 7);
  assert.equal(mergeRounds([round(5, 0.3), broken]).status, "broken");
  // Rounds that did not finish, or measured other queries, are left out.
  const error = { contender: "c", n: 1000, status: "error", reason: "killed" };
  assert.equal(mergeRounds([error, round(6, 0.3), round(8, 0.3)]).buildMs, 7);
  assert.equal(mergeRounds([round(6, 0.3), round(2, 0.1, { queries: { measured: 12, all: { p50Ms: 0.1 } } })]).buildMs, 6);
  assert.equal(mergeRounds([error, error]).status, "error");
});

test("a bench worker measures recallkit-durable: tracking drained and timed, reopened, its directory deleted", () => {
  const dirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith("recallkit-bench-durable-")).sort();
  const before = dirs();
  const out = run(["--expose-gc", "bench/worker.mjs", "--contender", "recallkit-durable", "--n", "1000",
    "--queries", "30", "--warmup", "30", "--build-runs", "2"]);
  const line = out.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
  const result = JSON.parse(line.slice("BENCH_RESULT ".length));
  assert.equal(result.status, "ok", line);
  assert.equal(result.canary.ok, true, line);
  assert.equal(result.openCanary.ok, true, line);
  assert.ok(result.queries.perClass.exact.hit10 >= 0.9, line);
  assert.ok(result.queries.drainMs > 0, line); // the measured recalls' tracking, written after them
  assert.ok(result.persisted.bytes > 1000 * 50, line);
  assert.match(result.openNote, /storage: "file"/);
  assert.deepEqual(dirs(), before);
});

test("the bench report shows recallkit-durable beside the default store and the peers, with no target of its own", async () => {
  const { formatReport } = await import("../../bench/report.mjs");
  const classes = ["exact", "typo", "paraphrase"];
  const result = (contender, { buildMs, p50Ms, drainMs = null, index = 1000 }) => {
    const q = { count: 10, p50Ms, p95Ms: 2 * p50Ms, meanMs: p50Ms, hit10: 1, mrr10: 1 };
    return {
      contender, n: 1000, status: "ok", buildMs, docsPerSec: 1000 / (buildMs / 1000), firstBuildMs: buildMs, buildCpuMs: buildMs,
      memory: { perDoc: { heap: index, arrayBuffers: 0, wasm: 0, rss: index, index } }, persisted: { bytes: 1e5, perDoc: 100, note: "" },
      openMs: 1, canary: { ok: true }, warmupQueries: 10, loadAvgStart: 1,
      queries: { requested: 30, measured: 30, budgetHit: false, cpuMeanMs: p50Ms, drainMs, ranks: Array(30).fill(1), all: q, perClass: Object.fromEntries(classes.map((c) => [c, q])) },
    };
  };
  const results = [
    result("recallkit-default", { buildMs: 5, p50Ms: 0.2 }),
    result("recallkit-durable", { buildMs: 50, p50Ms: 0.3, drainMs: 15, index: 2000 }),
    result("flexsearch-default", { buildMs: 10, p50Ms: 0.1, index: 2500 }),
    result("minisearch-fuzzy", { buildMs: 10, p50Ms: 0.4 }),
  ];
  const report = formatReport({
    info: { command: "test", date: "today", wallMinutes: "0", cpu: "", memoryGiB: "", os: "", node: "", commit: "", loadAvgStart: "", loadAvgEnd: "", seed: 1, dims: 384 },
    sizes: [1000], queriesFor: () => 30, results, wasm: { missing: "not built" }, problems: [], contenders: [],
  });
  const section = report.slice(report.indexOf("## recallkit-durable"), report.indexOf("## recallkit package size"));
  assert.match(section, /\| 1k \| build docs\/s \| 20,000 \| 200,000 \| 0\.10× \| 100,000 \(minisearch-fuzzy\) \| 0\.20× \|/);
  assert.match(section, /\| 1k \| recall p50, all queries \| 0\.300 \| 0\.200 \| 1\.50× \| 0\.100 \(flexsearch-default\) \| 3\.00× \|/);
  assert.match(section, /\| 1k \| recall mean \+ drain ÷ queries \| 0\.800 \| 0\.200 \| 4\.00× \|/);
  assert.match(section, /1k: 15\.00 ms after 30 recalls \(0\.500 ms each\)/);
  assert.match(report, /\*\*recallkit-durable: cost\*\*/);
  // No target compares recallkit-durable: the targets table names the default and lexical rows only.
  const targets = report.slice(report.indexOf("## Targets"), report.indexOf("## recallkit-durable"));
  assert.doesNotMatch(targets, /durable/);
});

test("the first-recall bench measures each store with tracking on and off, checks the answers, and leaves no directory", () => {
  const dirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith("recallkit-first-recall-")).sort();
  const before = dirs();
  const out = run(["bench/first-recall.mjs", "--sizes", "300", "--runs", "1"]);
  const rows = out.split("\n").filter((l) => /^\| \S.* \| 300 \|/.test(l));
  assert.deepEqual(rows.map((r) => r.split("|").slice(3, 5).map((c) => c.trim()).join(" ")),
    ["image on", "image off", "records on", "records off", "memory on", "memory off"], out);
  for (const row of rows) {
    // init, open, then four recalls as "total (wasm + rest)"
    const cells = row.split("|").slice(5, -1).map((c) => c.trim());
    assert.ok(cells.slice(0, 2).every((c) => Number(c) > 0), row);
    assert.ok(cells.slice(2).every((c) => /^\d+\.\d\d \(\d+\.\d\d \+ -?\d+\.\d\d\)$/.test(c)), row);
  }
  assert.deepEqual(dirs(), before);
});
