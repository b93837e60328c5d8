// Crash safety of the file store: a child process (crash-writer.mjs) writes batches in a loop
// and prints each acknowledged batch id; it is SIGKILLed at seeded random moments, more than
// 50 times, each run lasting tens to a couple of hundred milliseconds. After every kill the
// store must reopen, hold every acknowledged batch, and hold each batch whole or not at all.
// Reproduce a failure with CRASH_SEED=<seed printed in the failure>. A second test kills a
// writer inside a large append (torn-writer.mjs), so a torn tail is certain to be exercised.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FileAdapter } from "../../dist/storage/file.js";
import { batchValue } from "./crash-writer.mjs";
import { splitmix } from "../support/rng.mjs";
import { withTempDir } from "../support/temp.mjs";

const SEED = Number(process.env.CRASH_SEED ?? 20260601);
const RUNS = 60;
const RUN_ID_STRIDE = 1_000_000;
const writer = fileURLToPath(new URL("./crash-writer.mjs", import.meta.url));
const tornWriter = fileURLToPath(new URL("./torn-writer.mjs", import.meta.url));
/** Kills of torn-writer.mjs, each one half-way through its large frame, each on top of the last one's torn tail. */
const TORN_RUNS = 3;

/** Starts the writer and SIGKILLs it `delayMs` after it is ready (or after spawn, when `early`). */
function runAndKill(dir, first, seed, delayMs, early) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, dir, String(first), String(seed)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let timer;
    const kill = () => child.kill("SIGKILL");
    if (early) timer = setTimeout(kill, delayMs);
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      if (!early && timer === undefined && (out + chunk).includes("ready\n")) timer = setTimeout(kill, delayMs);
      out += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => { err += chunk; });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (signal !== "SIGKILL") reject(new Error(`writer exited by itself (code ${code}): ${err}`));
      else resolve(out);
    });
  });
}

/** Acknowledged ids and the highest compaction count from the writer's output (a torn last line is ignored). */
function parseOutput(out) {
  const acked = [];
  let compactions = 0;
  for (const line of out.split("\n").slice(0, -1)) {
    if (line === "ready") continue;
    const [id, c] = line.split(" ").map(Number);
    acked.push(id);
    compactions = Math.max(compactions, c);
  }
  return { acked, compactions };
}

/** Checks the store against every batch acknowledged so far; returns a short summary. */
async function check(dir, acked, readOnly, newSince) {
  const store = await FileAdapter.open({ path: dir, readOnly });
  try {
    const present = new Map();
    for (const [key, value] of await store.entries("b/")) {
      const [, idText, jText] = key.split("/");
      const id = Number(idText);
      const j = Number(jText);
      // Frames are checksummed, so a byte-by-byte check of every old value adds little: check
      // this run's batches fully and the rest by their first bytes.
      const expected = batchValue(id, j, newSince <= id ? value.length : Math.min(value.length, 16));
      assert.deepEqual(newSince <= id ? value : value.subarray(0, expected.length), expected, `value of ${key} is intact`);
      present.set(id, (present.get(id) ?? 0) + 1);
    }
    for (const [id, count] of present) assert.equal(count, 3, `batch ${id} is half-applied: ${count} of 3 keys`);
    for (const id of present.keys()) {
      if (id % 5 === 0 && (id - 1) % RUN_ID_STRIDE !== 0) {
        assert.ok(!present.has(id - 1), `batch ${id} is applied but its delete of batch ${id - 1} is not`);
      }
    }
    for (const id of acked) {
      const deleter = id + 1;
      const deleted = deleter % 5 === 0 && present.has(deleter);
      assert.equal(present.has(id), !deleted, `acknowledged batch ${id} is ${deleted ? "not deleted" : "missing"}`);
    }
    if (acked.length > 0) {
      const last = Number(new TextDecoder().decode(await store.get("meta/last")));
      assert.ok(last >= acked[acked.length - 1], `meta/last is ${last}, behind acknowledged batch ${acked[acked.length - 1]}`);
      assert.ok(present.has(last) || (last + 1) % 5 === 0, `meta/last names batch ${last}, which is not stored`);
    }
    return { batches: present.size, torn: statSync(join(dir, "data.log")).size > store.stats().logBytes };
  } finally {
    await store.close();
  }
}

test(`SIGKILL at ${RUNS} random moments loses no acknowledged batch and half-applies none (seed ${SEED})`, async (t) => {
  const rand = splitmix(SEED);
  await withTempDir("crash", async (dir) => {
    const acked = [];
    let compactions = 0;
    let tornRuns = 0;
    let earlyKills = 0;
    for (let run = 1; run <= RUNS; run++) {
      const early = rand() < 0.15; // sometimes kill during start-up: lock takeover, replay
      const delay = early ? Math.floor(rand() * 120) : 20 + Math.floor(rand() * 180);
      const out = await runAndKill(dir, run * RUN_ID_STRIDE + 1, Math.floor(rand() * 2 ** 31), delay, early);
      const result = parseOutput(out);
      acked.push(...result.acked);
      compactions += result.compactions;
      if (early) earlyKills++;
      try {
        // Alternate: a writer reopen takes over the dead writer's lock; a reader leaves it to
        // the next writer process.
        const summary = await check(dir, acked, run % 2 === 0, run * RUN_ID_STRIDE);
        if (summary.torn) tornRuns++;
      } catch (e) {
        e.message = `run ${run} (seed ${SEED}, killed ${delay} ms after ${early ? "spawn" : "ready"}): ${e.message}`;
        throw e;
      }
    }
    t.diagnostic(`${acked.length} acknowledged batches, ${compactions} compactions, ${tornRuns} torn tails, ${earlyKills} start-up kills`);
    // Loose bounds, so that a slow disk (slow fsync) cannot fail the test, but a writer that
    // never gets going can.
    assert.ok(acked.length >= 2 * RUNS, `only ${acked.length} batches were acknowledged: the test exercised too little`);
    assert.ok(compactions >= 1, "no compaction ran, so kills during compaction were not exercised");
  });
});

/** Starts torn-writer.mjs and SIGKILLs it as soon as it says it is appending; resolves with its output. */
function killMidAppend(dir, id) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tornWriter, dir, String(id)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
      if (out.includes("appending\n")) child.kill("SIGKILL");
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => { err += chunk; });
    child.on("error", reject);
    child.on("close", (code, signal) => (signal === "SIGKILL" ? resolve(out) : reject(new Error(`writer exited by itself (code ${code}): ${err}`))));
  });
}

test("a writer SIGKILLed in the middle of a 32 MiB append leaves a torn tail, which the next open drops quietly", async (t) => {
  await withTempDir("torn", async (dir) => {
    let torn = 0;
    for (let id = 1; id <= TORN_RUNS; id++) {
      const out = await killMidAppend(dir, id);
      assert.match(out, new RegExp(`acked ${id}\n`), "the small batch was acknowledged before the append");
      const store = await FileAdapter.open({ path: dir, readOnly: true });
      try {
        for (let j = 1; j <= id; j++) assert.equal(new TextDecoder().decode(await store.get(`small/${j}`)), String(j), `acknowledged batch ${j}`);
        // The frame was cut short, so it is not applied, and the writer that opens next drops
        // the torn tail before it appends.
        assert.equal(await store.get("big"), undefined, "a frame cut short is not applied");
        if (statSync(join(dir, "data.log")).size > store.stats().logBytes) torn++;
      } finally {
        await store.close();
      }
    }
    t.diagnostic(`${torn} of ${TORN_RUNS} kills left a torn tail`);
    assert.equal(torn, TORN_RUNS, "every kill half-way through a frame leaves a torn tail that reads skip");
  });
});
