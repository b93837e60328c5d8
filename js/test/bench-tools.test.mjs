// The benchmark tools run against the current build: they are not part of `npm test`'s
// timings, so without these checks a change to the engine's boundary can break them unseen
// (bench/labelled/eval.mjs called the raw wasm Engine with objects after records moved to
// the wire format, and failed with "malformed wire value").
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
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
