#!/usr/bin/env node
// The first recalls after opening a store, against the second and the tenth: what a user who
// opens a store and asks one question waits for. Per build, size, store and tracking setting:
// `init()`, the open, then recalls 1 to 10 of the bench's queries and the first query again,
// each split into wasm time (every call of the glue's `Engine` and `PendingRecall` methods,
// timed around the call) and the rest ("JS": validation, the recall's promise chain, and what
// runs in the microtasks before the caller resumes).
//
//   node bench/first-recall.mjs [--a DIR] [--b DIR] [--sizes 1000,10000] [--runs 5] [--warm] [--browser]
//
// Stores: "image" (a file store opened from its snapshot: `snapshots: true`), "records" (a file
// store without one, as `open({ path })` gives: every record read and indexed), "memory" (an
// in-memory store filled with rememberMany). Each file store is written once (the corpus, then
// 20 recalls with tracking, so it holds recall tracking as a used store does) and copied for
// every measurement. Tracking "on" is the default recall, "off" is `trackRecalls: false`.
// Node: each measurement is a fresh process, so the first recall meets V8's lazy compilation
// of the wasm functions it runs; `--warm` first opens another copy of the store in the same
// process and recalls 60 other queries (the bench worker's case: a process that has recalled).
// Chromium (`--browser`, IndexedDB, the stores written by build A): each measurement is a newly
// launched browser on one profile, so no compiled module is reused from memory; the package is
// served with `cache-control: no-store` (scripts/serve.mjs), so neither from the code cache.
// A build is a directory holding js/dist/ and pkg/ (default: this repository); with --b, the
// builds alternate within each run. Asserted: every recall finds something, and with tracking
// off the first query answers alike the first time and the second (ids and scores).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { FIXED_NOW_MS, generateCorpus, generateQueries } from "./corpus.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const { values: args } = parseArgs({
  options: {
    a: { type: "string", default: join(here, "..") },
    b: { type: "string" },
    sizes: { type: "string", default: "1000,10000" },
    runs: { type: "string", default: "5" },
    warm: { type: "boolean", default: false },
    browser: { type: "boolean", default: false },
    child: { type: "string" },
  },
});
const STORES = ["image", "records", "memory"];
const QUERIES = 10;
const toInput = (d) => ({ id: d.id, text: d.text, createdAt: d.createdAt, topic: d.topic, tags: d.tags });
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

/**
 * Wraps every method of the glue's `Engine` and `PendingRecall` so that the time spent in them
 * adds up in the returned counter (shared by Node and the page: serialised with toString).
 */
function timeWasm(glue) {
  const counter = { ms: 0 };
  for (const cls of [glue.Engine, glue.PendingRecall]) {
    for (const name of Object.getOwnPropertyNames(cls.prototype)) {
      const d = Object.getOwnPropertyDescriptor(cls.prototype, name);
      if (name === "constructor" || typeof d.value !== "function") continue;
      const f = d.value;
      cls.prototype[name] = function (...a) {
        const start = performance.now();
        try {
          return f.apply(this, a);
        } finally {
          counter.ms += performance.now() - start;
        }
      };
    }
  }
  return counter;
}

/** Recalls `queries` in order, then the first again: [{ ms, wasm, answer }]. */
async function recallAll(store, queries, track, wasm, now) {
  const rows = [];
  for (const q of [...queries, queries[0]]) {
    const before = wasm.ms;
    const start = performance.now();
    const { results } = await store.recall(q, { limit: 10, now, trackRecalls: track });
    rows.push({ ms: performance.now() - start, wasm: wasm.ms - before, answer: results.map((r) => `${r.id}:${r.score}`).join(",") });
  }
  return rows;
}

// ---- Node ------------------------------------------------------------------------------------

/** One measurement in this (fresh) process; prints one JSON line. */
async function child({ build, n, store: kind, track, path, warmPath }) {
  const { MemoryStore, init } = await import(pathToFileURL(join(build, "js", "dist", "index.js")).href);
  const wasm = timeWasm(await import(pathToFileURL(join(build, "pkg", "recallkit.js")).href));
  let start = performance.now();
  await init();
  const tInit = performance.now() - start;
  const { docs } = generateCorpus(n);
  const open = async (dir) => {
    if (kind !== "memory") return MemoryStore.open({ storage: "file", path: dir, snapshots: kind === "image" });
    const store = await MemoryStore.open({ storage: "memory" });
    await store.rememberMany(docs.map(toInput));
    return store;
  };
  if (warmPath !== undefined) {
    const other = await open(warmPath);
    for (const q of generateQueries(docs, 60, { salt: 11 })) await other.recall(q.text, { limit: 10, now: FIXED_NOW_MS, trackRecalls: track });
    await other.close();
  }
  start = performance.now();
  const store = await open(path);
  const tOpen = performance.now() - start;
  const openedFrom = kind === "memory" ? "memory" : (await store.storageInfo()).openedFrom;
  const rows = await recallAll(store, generateQueries(docs, QUERIES, { salt: 7 }).map((q) => q.text), track, wasm, FIXED_NOW_MS);
  await store.close();
  process.stdout.write(JSON.stringify({ tInit, tOpen, openedFrom, rows }));
}

/** Writes the two file stores of `n` memories with build `build`: { image, records } directories. */
async function writeStores(build, n, dir) {
  const { MemoryStore } = await import(pathToFileURL(join(build, "js", "dist", "index.js")).href);
  const { docs } = generateCorpus(n);
  const out = {};
  for (const kind of ["image", "records"]) {
    out[kind] = join(dir, `${kind}-${n}`);
    const store = await MemoryStore.open({ storage: "file", path: out[kind], snapshots: kind === "image" });
    for (let at = 0; at < n; at += 5000) await store.rememberMany(docs.slice(at, at + 5000).map(toInput));
    for (const q of generateQueries(docs, 20, { salt: 3 })) await store.recall(q.text, { limit: 10, now: FIXED_NOW_MS });
    await store.close();
  }
  return out;
}

async function nodeRuns(builds, sizes, runs) {
  const dir = mkdtempSync(join(tmpdir(), "recallkit-first-recall-"));
  try {
    const stores = {};
    for (const n of sizes) stores[n] = await writeStores(builds[0], n, dir);
    const results = {};
    for (let run = 0; run < runs; run++) {
      for (const n of sizes) for (const kind of STORES) for (const track of [true, false]) for (const build of builds) {
        const copy = (to) => (kind === "memory" ? to : (cpSync(stores[n][kind], to, { recursive: true }), to));
        const path = copy(join(dir, "measured"));
        const warmPath = args.warm ? copy(join(dir, "warm-up")) : undefined;
        const spec = JSON.stringify({ build, n, store: kind, track, path, warmPath });
        const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", spec], { encoding: "utf8", maxBuffer: 1 << 24 });
        rmSync(join(dir, "measured"), { recursive: true, force: true });
        rmSync(join(dir, "warm-up"), { recursive: true, force: true });
        (results[[build, n, kind, track].join("\t")] ??= []).push(JSON.parse(out));
      }
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Chromium --------------------------------------------------------------------------------

/** In the page: an open (or a fill, for memory) and its recalls. */
async function pageMeasure({ build, name, kind, track, docs, queries, now, timeWasmSource, recallAllSource }) {
  const timeWasmFn = new Function(`return ${timeWasmSource}`)();
  const recallAllFn = new Function(`return ${recallAllSource}`)();
  const { MemoryStore, init } = await import(`/${build}/js/dist/index.js`);
  const wasm = timeWasmFn(await import(`/${build}/pkg/recallkit.js`));
  let start = performance.now();
  await init();
  const tInit = performance.now() - start;
  start = performance.now();
  let store;
  if (kind === "memory") {
    store = await MemoryStore.open({ storage: "memory" });
    await store.rememberMany(docs);
  } else {
    store = await MemoryStore.open({ storage: "indexeddb", name, snapshots: kind === "image" });
  }
  const tOpen = performance.now() - start;
  const openedFrom = kind === "memory" ? "memory" : (await store.storageInfo()).openedFrom;
  const rows = await recallAllFn(store, queries, track, wasm, now);
  await store.close();
  return { tInit, tOpen, openedFrom, rows };
}

async function browserRuns(builds, sizes, runs) {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}`);
  const { chromium } = await import("playwright-core");
  const { serve } = await import("../scripts/serve.mjs");
  const web = mkdtempSync(join(tmpdir(), "recallkit-first-recall-web-"));
  const profile = mkdtempSync(join(tmpdir(), "recallkit-first-recall-profile-"));
  const served = builds.map((build, i) => {
    mkdirSync(join(web, `b${i}`, "js"), { recursive: true });
    symlinkSync(join(build, "js", "dist"), join(web, `b${i}`, "js", "dist"));
    symlinkSync(join(build, "pkg"), join(web, `b${i}`, "pkg"));
    return `b${i}`;
  });
  writeFileSync(join(web, "blank.html"), "<!doctype html><title>first recall</title>\n");
  const { server, url } = await serve({ port: 0, dir: web, index: "blank.html" });
  const launch = () => chromium.launchPersistentContext(profile, {
    executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  const inPage = async (f, arg) => {
    const context = await launch();
    try {
      const page = context.pages()[0] ?? await context.newPage();
      page.setDefaultTimeout(10 * 60_000);
      await page.goto(`${url}/blank.html`);
      return await page.evaluate(f, arg);
    } finally {
      await context.close();
    }
  };
  try {
    const data = {};
    for (const n of sizes) {
      const { docs } = generateCorpus(n);
      data[n] = { docs: docs.map(toInput), queries: generateQueries(docs, QUERIES, { salt: 7 }).map((q) => q.text) };
      const used = generateQueries(docs, 20, { salt: 3 }).map((q) => q.text);
      await inPage(async ({ build, n, docs, used, now }) => {
        const { MemoryStore } = await import(`/${build}/js/dist/index.js`);
        for (const [name, snapshots] of [[`image-${n}`, true], [`records-${n}`, false]]) {
          const store = await MemoryStore.open({ storage: "indexeddb", name, snapshots });
          await store.rememberMany(docs);
          for (const q of used) await store.recall(q, { limit: 10, now });
          await store.close();
        }
      }, { build: served[0], n, docs: data[n].docs, used, now: FIXED_NOW_MS });
    }
    const results = {};
    for (let run = 0; run < runs; run++) {
      for (const n of sizes) for (const kind of STORES) for (const track of [true, false]) for (const [i, build] of builds.entries()) {
        const r = await inPage(pageMeasure, {
          build: served[i], name: `${kind}-${n}`, kind, track, docs: kind === "memory" ? data[n].docs : [], queries: data[n].queries,
          now: FIXED_NOW_MS, timeWasmSource: timeWasm.toString(), recallAllSource: recallAll.toString(),
        });
        (results[[build, n, kind, track].join("\t")] ??= []).push(r);
      }
    }
    return results;
  } finally {
    server.close();
    rmSync(web, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
}

// ---- Report ----------------------------------------------------------------------------------

function report(title, results, builds) {
  const f = (x) => x.toFixed(2);
  const label = (build) => (builds.length > 1 ? (build === builds[0] ? "A " : "B ") : "") + build;
  console.log(`\n${title}; ms, medians of ${Object.values(results)[0].length}; a recall as "total (wasm + JS)"\n`);
  console.log("| build | N | store | tracking | init | open | 1st recall | 2nd | 10th | 1st query again |");
  console.log("|---|---:|---|---|---:|---:|---:|---:|---:|---:|");
  for (const [key, rs] of Object.entries(results)) {
    const [build, n, kind, track] = key.split("\t");
    const expected = { image: "snapshot", records: "records", memory: "memory" }[kind];
    for (const r of rs) {
      if (r.openedFrom !== expected) throw new Error(`${key}: opened from ${r.openedFrom}`);
      if (r.rows.some((row) => row.answer === "")) throw new Error(`${key}: a recall found nothing`);
      if (track === "false" && r.rows[0].answer !== r.rows[QUERIES].answer) throw new Error(`${key}: the first query answered otherwise the second time`);
    }
    const cell = (i) => `${f(median(rs.map((r) => r.rows[i].ms)))} (${f(median(rs.map((r) => r.rows[i].wasm)))} + ${f(median(rs.map((r) => r.rows[i].ms - r.rows[i].wasm)))})`;
    console.log(`| ${label(build)} | ${n} | ${kind} | ${track === "true" ? "on" : "off"} | ${f(median(rs.map((r) => r.tInit)))} | ` +
      `${f(median(rs.map((r) => r.tOpen)))} | ${cell(0)} | ${cell(1)} | ${cell(QUERIES - 1)} | ${cell(QUERIES)} |`);
  }
}

if (args.child !== undefined) {
  await child(JSON.parse(args.child));
} else {
  const builds = [args.a, args.b].filter((b) => b !== undefined).map((b) => resolve(b));
  for (const build of builds) {
    if (!existsSync(join(build, "js", "dist", "index.js")) || !existsSync(join(build, "pkg", "recallkit_bg.wasm"))) {
      throw new Error(`${build}: no js/dist or pkg (node scripts/build.mjs)`);
    }
  }
  const sizes = args.sizes.split(",").map(Number);
  const runs = Number(args.runs);
  const node = await nodeRuns(builds, sizes, runs);
  report(`Node ${process.version}, file and memory stores, ${args.warm ? "a process that has recalled before (--warm)" : "a fresh process each"}`, node, builds);
  if (args.browser) report("Chromium, IndexedDB and memory stores, a newly launched browser each", await browserRuns(builds, sizes, runs), builds);
}
