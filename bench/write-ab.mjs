#!/usr/bin/env node
// Write latency A/B of two builds of the package on durable storage: a file store in Node and
// IndexedDB in Chromium. A build is a directory holding js/dist/ and pkg/ (a repository after
// `node scripts/build.mjs`, or a copy of those two folders). CHANGELOG quotes it for group
// commit (writes queued together share one durable batch).
//
//   node bench/write-ab.mjs --a /work/main --b .                # 5 rounds, Node and Chromium
//   node bench/write-ab.mjs --a X --b Y --rounds 3 --n 500 --node-only
//
// Scenarios, each on a new, empty store of the build's own:
//   - concurrent: `n` remembers called at once (`Promise.all`), from the first call to the last
//     resolving;
//   - many: one `rememberMany` of `n` (the batch a caller could have written by hand);
//   - sequential: remembers each awaited before the next, per write: both builds' stores open
//     side by side, writing blocks of 25 in turn (A B, then B A), so that the machine's load
//     moves both alike; the median block of 20 (after 2 unmeasured), and the median over all
//     rounds of B's block over A's block beside it ("paired").
// Memories are the bench corpus's first `n` (texts, topics, tags; no embeddings). Every run
// checks the store's size after it (and, but for "sequential", after a reopen), so a broken
// path cannot post a fast time. Node: each round is one fresh process running A, B, B, A;
// Chromium: one page per build and origin (a static server per build), the same order.
// Medians over rounds, ms.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { generateCorpus } from "./corpus.mjs";

const { values: args } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    child: { type: "boolean", default: false },
    rounds: { type: "string", default: "5" },
    n: { type: "string", default: "500" },
    "node-only": { type: "boolean", default: false },
    "browser-only": { type: "boolean", default: false },
  },
});
if (args.a === undefined || args.b === undefined) throw new Error("usage: node bench/write-ab.mjs --a BUILD --b BUILD");

const N = Number(args.n);
const SIDES = ["A", "B", "B", "A"];
const SCENARIOS = ["concurrent", "sequential", "many"];

function median(xs) {
  const s = xs.slice().sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const memories = () => generateCorpus(N).docs.map((d) => ({ text: d.text, topic: d.topic, tags: d.tags, createdAt: d.createdAt }));

/** Blocks of awaited remembers per build in the "sequential" scenario, and writes per block. */
const BLOCKS = 22;
const BLOCK = 25;
const WARM_BLOCKS = 2;

/**
 * One scenario on an opened store (shared by Node and the page, serialised with toString):
 * returns the ms it took and the number of memories written.
 */
async function scenario(store, name, items) {
  const t = performance.now();
  if (name === "concurrent") await Promise.all(items.map((m) => store.remember(m)));
  else await store.rememberMany(items);
  const ms = performance.now() - t;
  if (store.size !== items.length) throw new Error(`${name}: the store holds ${store.size} memories, expected ${items.length}`);
  return { ms, written: items.length };
}

/** One block of the "sequential" scenario (serialised too): ms per awaited remember. */
async function block(store, items) {
  const t = performance.now();
  for (const m of items) await store.remember(m);
  return (performance.now() - t) / items.length;
}

/** The order of the builds in block `b` of the "sequential" scenario. */
const blockOrder = (b) => (b % 2 ? ["B", "A"] : ["A", "B"]);
/** The memories of block `b` (the corpus again from its start when it runs out). */
const blockItems = (items, b) => Array.from({ length: BLOCK }, (_, i) => items[(b * BLOCK + i) % items.length]);

/** One process: both builds, every scenario, A B B A (see the header). Prints one JSON line. */
async function child() {
  const apis = {};
  for (const side of ["A", "B"]) apis[side] = await import(pathToFileURL(join(resolve(args[side.toLowerCase()]), "js", "dist", "index.js")).href);
  const items = memories();
  const out = { A: {}, B: {} };
  // A warm-up of both builds (V8's optimising tier, the file system's caches), not measured.
  for (const warm of [true, false]) {
    for (const name of ["concurrent", "many"]) {
      for (const side of SIDES) {
        const path = mkdtempSync(join(tmpdir(), "recallkit-write-ab-"));
        try {
          const { MemoryStore } = apis[side];
          const store = await MemoryStore.open({ storage: "file", path });
          const { ms, written } = await scenario(store, name, warm ? items.slice(0, 50) : items);
          await store.close();
          const again = await MemoryStore.open({ storage: "file", path, readOnly: true });
          if (again.size !== written) throw new Error(`${side} ${name}: ${again.size} memories after a reopen, expected ${written}`);
          await again.close();
          if (!warm) (out[side][name] ??= []).push(ms);
        } finally {
          rmSync(path, { recursive: true, force: true });
        }
      }
    }
  }
  const stores = {};
  const paths = {};
  for (const side of ["A", "B"]) {
    paths[side] = mkdtempSync(join(tmpdir(), "recallkit-write-ab-"));
    stores[side] = await apis[side].MemoryStore.open({ storage: "file", path: paths[side] });
  }
  out.paired = [];
  for (let b = 0; b < BLOCKS; b++) {
    const pair = {};
    for (const side of blockOrder(b)) {
      pair[side] = await block(stores[side], blockItems(items, b));
      if (b >= WARM_BLOCKS) (out[side].sequential ??= []).push(pair[side]);
    }
    if (b >= WARM_BLOCKS) out.paired.push(pair.B / pair.A);
  }
  for (const side of ["A", "B"]) {
    if (stores[side].size !== BLOCKS * BLOCK) throw new Error(`${side} sequential: ${stores[side].size} memories`);
    await stores[side].close();
    rmSync(paths[side], { recursive: true, force: true });
  }
  for (const side of ["A", "B"]) for (const name of SCENARIOS) out[side][name] = median(out[side][name]);
  console.log(JSON.stringify(out));
}

async function nodeRounds() {
  const runs = [];
  const passed = ["a", "b", "n"].flatMap((k) => [`--${k}`, args[k]]);
  for (let round = 0; round < Number(args.rounds); round++) {
    const r = spawnSync(process.execPath, [process.argv[1], "--child", ...passed], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`node round ${round + 1}: ${r.stderr}`);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1));
    console.error(`node round ${round + 1}: ${JSON.stringify({ A: out.A, B: out.B })}`);
    runs.push(out);
  }
  return runs;
}

async function browserRounds() {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) {
    console.error(`write-ab: no Chromium at ${executablePath}; skipping the browser half`);
    return undefined;
  }
  const { chromium } = await import("playwright-core");
  const { serve } = await import("../scripts/serve.mjs");
  const servers = {};
  for (const side of ["A", "B"]) servers[side] = await serve({ port: 0, dir: resolve(args[side.toLowerCase()]) });
  const browser = await chromium.launch({
    executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  const items = memories();
  const runs = [];
  try {
    const pages = {};
    for (const side of ["A", "B"]) {
      pages[side] = await browser.newPage();
      pages[side].setDefaultTimeout(10 * 60_000);
      await pages[side].goto(`${servers[side].url}/bench/write-ab`); // any page of the origin: IndexedDB needs one
    }
    // Round 0 is a warm-up with 50 memories, not measured.
    for (let round = 0; round <= Number(args.rounds); round++) {
      const out = { A: {}, B: {} };
      for (const name of ["concurrent", "many"]) {
        for (const side of SIDES) {
          const ms = await pages[side].evaluate(async ({ name, items, code, db }) => {
            const run = new Function(`return ${code}`)();
            const { MemoryStore } = await import("/js/dist/index.js");
            const store = await MemoryStore.open({ storage: "indexeddb", name: db });
            const { ms, written } = await run(store, name, items);
            await store.close();
            const again = await MemoryStore.open({ storage: "indexeddb", name: db, readOnly: true });
            const size = again.size;
            await again.close();
            await new Promise((done, fail) => {
              const request = indexedDB.deleteDatabase(`recallkit:${db}`);
              request.onsuccess = done;
              request.onerror = () => fail(request.error);
            });
            if (size !== written) throw new Error(`${name}: ${size} memories after a reopen, expected ${written}`);
            return ms;
          }, {
            name, items: round === 0 ? items.slice(0, 50) : items, code: scenario.toString(),
            db: `write-ab-${round}-${name}-${Math.random().toString(36).slice(2)}`,
          });
          (out[side][name] ??= []).push(ms);
        }
      }
      if (round === 0) continue;
      const db = `write-ab-${round}-sequential-${Math.random().toString(36).slice(2)}`;
      for (const side of ["A", "B"]) {
        await pages[side].evaluate(async ({ db, code }) => {
          const { MemoryStore } = await import("/js/dist/index.js");
          window.__block = new Function(`return ${code}`)();
          window.__store = await MemoryStore.open({ storage: "indexeddb", name: db });
        }, { db, code: block.toString() });
      }
      out.paired = [];
      for (let b = 0; b < BLOCKS; b++) {
        const pair = {};
        for (const side of blockOrder(b)) {
          pair[side] = await pages[side].evaluate((slice) => window.__block(window.__store, slice), blockItems(items, b));
          if (b >= WARM_BLOCKS) (out[side].sequential ??= []).push(pair[side]);
        }
        if (b >= WARM_BLOCKS) out.paired.push(pair.B / pair.A);
      }
      for (const side of ["A", "B"]) {
        const size = await pages[side].evaluate(async (db) => {
          const size = window.__store.size;
          await window.__store.close();
          await new Promise((done, fail) => {
            const request = indexedDB.deleteDatabase(`recallkit:${db}`);
            request.onsuccess = done;
            request.onerror = () => fail(request.error);
          });
          return size;
        }, db);
        if (size !== BLOCKS * BLOCK) throw new Error(`${side} sequential: ${size} memories`);
      }
      for (const side of ["A", "B"]) for (const name of SCENARIOS) out[side][name] = median(out[side][name]);
      console.error(`chromium round ${round}: ${JSON.stringify({ A: out.A, B: out.B })}`);
      runs.push(out);
    }
  } finally {
    await browser.close();
    for (const side of ["A", "B"]) servers[side].server.close();
  }
  return runs;
}

function report(where, runs) {
  const m = (side, name) => median(runs.map((x) => x[side][name]));
  const ratio = (name) => median(runs.map((x) => x.B[name] / x.A[name]));
  console.log(`${where}: medians of ${runs.length} rounds, ms (A = ${args.a}, B = ${args.b}; n = ${N})`);
  console.log("| scenario | A | B | B/A (median of rounds) | B/A, paired blocks |");
  console.log("|---|---:|---:|---:|---:|");
  const label = { concurrent: `${N} remembers at once`, sequential: "remembers one at a time (per write)", many: `rememberMany of ${N}` };
  for (const name of SCENARIOS) {
    const digits = name === "sequential" ? 3 : 0;
    const paired = name === "sequential" ? median(runs.flatMap((x) => x.paired)).toFixed(3) : "–";
    console.log(`| ${label[name]} | ${m("A", name).toFixed(digits)} | ${m("B", name).toFixed(digits)} | ${ratio(name).toFixed(3)} | ${paired} |`);
  }
}

if (args.child) {
  await child();
} else {
  if (!args["browser-only"]) report("Node, file store", await nodeRounds());
  if (!args["node-only"]) {
    const runs = await browserRounds();
    if (runs !== undefined) report("Chromium, IndexedDB", runs);
  }
}
