#!/usr/bin/env node
// Open time of a MemoryStore holding 100,000 memories with 384-dimensional embeddings, from
// the records (a rebuild of every index) and from the snapshot (the engine's image): in Node
// (file store) and in Chromium (IndexedDB, through playwright-core and scripts/serve.mjs).
// Prints a table; docs/storage.md "Open time" quotes it. Beside each open: the raw read of the
// same bytes from the backend in the same process ("read": opening the file store, which reads
// its log, or the IndexedDB values), the open as a multiple of it, and the wasm heap after the
// open (its high-water mark: linear memory never shrinks).
//
//   node bench/open-time.mjs [--count 100000] [--dims 384 | --dims 0] [--runs 5] [--node-only | --browser-only]
//
// Needs a build (`node scripts/build.mjs`) and, for the browser half, Chromium at
// /usr/bin/chromium or $CHROMIUM_PATH. Each measurement is the median of `--runs` opens, each
// in a fresh process (Node) or a freshly loaded page (Chromium), with the wasm module already
// initialised (its compile time is reported separately). "read" is the raw backend read the
// open does (every `m/` record, or the one snapshot value), included in the open time.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const here = fileURLToPath(new URL(".", import.meta.url));
const DIST = pathToFileURL(join(here, "../js/dist/index.js")).href;
const FILE_ADAPTER = pathToFileURL(join(here, "../js/dist/storage/file.js")).href;

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const COUNT = Number(arg("count", "100000"));
const DIMS = Number(arg("dims", "384"));
const RUNS = Number(arg("runs", "5"));
const BATCH = 5000;

/**
 * The corpus generator, shared by Node and the page (serialised with toString): memories
 * `from` to `to` of 8–16 words from a 4,000-word vocabulary, each with a random unit vector.
 * Each item has its own seed, so any slice costs only its own size.
 */
function makeCorpus(dims, from, to) {
  const syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pen", "dar", "gel", "mon", "tri", "sul", "bex", "fon"];
  const vocab = Array.from({ length: 4000 }, (_, i) => {
    let w = "";
    for (let n = i; w.length < 4 || n > 0; n = Math.floor(n / 16)) w += syllables[n % 16];
    return w;
  });
  const out = [];
  for (let i = from; i < to; i++) {
    let s = (Math.imul(i + 1, 0x9e3779b1) ^ 0x5bd1e995) >>> 0 || 1;
    const rand = () => {
      s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
      return s / 4294967296;
    };
    const words = 8 + Math.floor(rand() * 9);
    const text = Array.from({ length: words }, () => vocab[Math.floor(rand() ** 2 * vocab.length)]).join(" ");
    const v = new Float32Array(dims);
    let norm = 0;
    for (let j = 0; j < dims; j++) {
      v[j] = rand() * 2 - 1;
      norm += v[j] * v[j];
    }
    for (let j = 0; j < dims; j++) v[j] /= Math.sqrt(norm);
    const memory = { id: `m${i}`, text: `${text} #${i}`, topic: `t${i % 50}`, createdAt: 1_700_000_000_000 + i * 60_000 };
    out.push(dims > 0 ? { ...memory, embedding: v } : memory); // --dims 0: no embeddings
  }
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Runs `once(mode)` RUNS times per mode, alternating the modes so that a change in the
 * machine's load (it may be shared) hits both alike; medians per field.
 */
async function interleaved(once) {
  const runs = { snapshot: [], records: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const mode of ["snapshot", "records"]) runs[mode].push(await once(mode));
  }
  const summary = (rs) => Object.fromEntries(Object.keys(rs[0]).map((k) => [k, typeof rs[0][k] === "string" ? rs[0][k] : median(rs.map((r) => r[k]))]));
  // The first recalls after either open must answer alike (every search mode, scores included).
  const all = [...runs.snapshot, ...runs.records].map((r) => r.answers);
  if (all.some((a) => a !== all[0])) throw new Error("recalls after an open from the snapshot and from the records differ");
  return { fromSnapshot: summary(runs.snapshot), fromRecords: summary(runs.records) };
}
const fmt = (ms) => (ms === undefined ? "–" : `${Math.round(ms)}`);
const mb = (bytes) => (bytes === undefined ? "–" : (bytes / 2 ** 20).toFixed(0));

// ---- Node, file store ----------------------------------------------------------------------

const CHILD = `
const [dist, fileAdapter, path, mode] = process.argv.slice(1);
const { MemoryStore, init } = await import(dist);
const { wasmHeapBytes } = await import(new URL("./wasm.js", dist).href);
const { FileAdapter } = await import(fileAdapter);
let t = performance.now();
await init();
const wasm = performance.now() - t;
if (mode === "records") {
  const raw = await FileAdapter.open({ path }); // the previous run's close wrote a snapshot again
  await raw.write((await raw.keys("snapshot/")).map((key) => ({ op: "delete", key })));
  await raw.close();
}
let read;
{
  t = performance.now();
  const raw = await FileAdapter.open({ path, readOnly: true });
  const bytes = (await raw.entries(mode === "snapshot" ? "snapshot/" : "m/")).length;
  read = performance.now() - t;
  await raw.close();
  if (!bytes) throw new Error("nothing to read in mode " + mode);
}
t = performance.now();
const cpu = process.cpuUsage();
const store = await MemoryStore.open({ storage: "file", path, snapshots: true, snapshotEvery: 0 });
const open = performance.now() - t;
const used = process.cpuUsage(cpu);
const info = await store.storageInfo();
if (info.openedFrom !== mode) throw new Error("opened from " + info.openedFrom + ", expected " + mode);
const answers = [];
for (const query of ["kalo mika", "ruta shipen", "darmon"]) {
  for (const searchMode of ["hybrid", "lexical", "semantic"]) {
    const r = await store.recall(query, { trackRecalls: false, searchMode, now: 1_800_000_000_000 });
    answers.push(r.results.map((h) => h.id + ":" + h.score).join(","));
  }
}
const res = await store.recall("kalo mika", { trackRecalls: false });
const size = store.size;
await store.close();
const heap = wasmHeapBytes();
process.stdout.write(JSON.stringify({ wasm, read, open, cpu: (used.user + used.system) / 1000, heap, size, hits: res.results.length, answers: answers.join("|") }));
`;

async function nodeBench() {
  const run = promisify(execFile);
  const { MemoryStore } = await import(DIST);
  const { FileAdapter } = await import(FILE_ADAPTER);
  const dir = mkdtempSync(join(tmpdir(), "recallkit-open-time-"));
  const path = join(dir, "store");
  try {
    const store = await MemoryStore.open({ storage: "file", path, snapshots: true, snapshotEvery: 0 });
    let fill = 0;
    for (let at = 0; at < COUNT; at += BATCH) {
      const batch = makeCorpus(DIMS, at, Math.min(at + BATCH, COUNT));
      const t0 = performance.now();
      await store.rememberMany(batch);
      fill += performance.now() - t0;
    }
    let t = performance.now();
    await store.close();
    const close = performance.now() - t;
    const raw = await FileAdapter.open({ path });
    const snapshotBytes = (await raw.entries("snapshot/")).reduce((n, [, v]) => n + v.length, 0);
    const logBytes = raw.stats().logBytes;
    await raw.close();
    const once = async (mode) => {
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", CHILD, DIST, FILE_ADAPTER, path, mode],
        { maxBuffer: 1 << 20 });
      return JSON.parse(stdout);
    };
    const { fromSnapshot, fromRecords } = await interleaved(once);
    return { env: `Node ${process.version}, file store`, fill, close, snapshotBytes, logBytes, fromRecords, fromSnapshot };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Chromium, IndexedDB -------------------------------------------------------------------

async function browserBench() {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) {
    console.error(`open-time: no Chromium at ${executablePath}; skipping the browser half`);
    return undefined;
  }
  const { chromium } = await import("playwright-core");
  const { serve } = await import("../scripts/serve.mjs");
  const { server, url } = await serve({ port: 0 });
  const browser = await chromium.launch({
    executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(30 * 60_000);
    await page.goto(`${url}/bench/open-time`); // any page of the origin: IndexedDB needs one
    const name = `open-time-${Date.now().toString(36)}`;
    const fill = await page.evaluate(async ({ name, count, dims, batch, corpus }) => {
      const makeCorpus = new Function(`return ${corpus}`)();
      const { MemoryStore } = await import("/js/dist/index.js");
      const store = await MemoryStore.open({ storage: "indexeddb", name, snapshotEvery: 0 });
      let fill = 0;
      for (let at = 0; at < count; at += batch) {
        const items = makeCorpus(dims, at, Math.min(at + batch, count));
        const t0 = performance.now();
        await store.rememberMany(items);
        fill += performance.now() - t0;
      }
      let t = performance.now();
      await store.close();
      const close = performance.now() - t;
      const { IndexedDbAdapter } = await import("/js/dist/storage/indexeddb.js");
      const raw = await IndexedDbAdapter.open({ name });
      const snapshotBytes = (await raw.entries("snapshot/")).reduce((n, [, v]) => n + v.length, 0);
      await raw.close();
      return { fill, close, snapshotBytes };
    }, { name, count: COUNT, dims: DIMS, batch: BATCH, corpus: makeCorpus.toString() });
    const openOnce = async (mode) => {
      await page.reload();
      return page.evaluate(async ({ name, mode }) => {
        const { MemoryStore, init } = await import("/js/dist/index.js");
        const { wasmHeapBytes } = await import("/js/dist/wasm.js");
        const { IndexedDbAdapter } = await import("/js/dist/storage/indexeddb.js");
        let t = performance.now();
        await init();
        const wasm = performance.now() - t;
        const raw = await IndexedDbAdapter.open({ name });
        if (mode === "records") await raw.write((await raw.keys("snapshot/")).map((key) => ({ op: "delete", key })));
        t = performance.now();
        const bytes = (await raw.entries(mode === "snapshot" ? "snapshot/" : "m/")).length;
        const read = performance.now() - t;
        await raw.close();
        if (!bytes) throw new Error(`nothing to read in mode ${mode}`);
        t = performance.now();
        const store = await MemoryStore.open({ storage: "indexeddb", name, snapshotEvery: 0 });
        const open = performance.now() - t;
        const heap = wasmHeapBytes();
        const answers = [];
        for (const query of ["kalo mika", "ruta shipen", "darmon"]) {
          for (const searchMode of ["hybrid", "lexical", "semantic"]) {
            const r = await store.recall(query, { trackRecalls: false, searchMode, now: 1_800_000_000_000 });
            answers.push(r.results.map((h) => `${h.id}:${h.score}`).join(","));
          }
        }
        const info = await store.storageInfo();
        if (info.openedFrom !== mode) throw new Error(`opened from ${info.openedFrom}, expected ${mode}`);
        await store.close(); // writes the snapshot again after a rebuild
        return { wasm, read, open, heap, usage: info.usage, answers: answers.join("|") };
      }, { name, mode });
    };
    const { fromSnapshot, fromRecords } = await interleaved(openOnce);
    await page.evaluate((name) => new Promise((resolve) => {
      const req = indexedDB.deleteDatabase(`recallkit:${name}`);
      req.onsuccess = req.onerror = req.onblocked = () => resolve();
    }), name);
    return { env: `Chromium ${browser.version()}, IndexedDB`, ...fill, fromRecords, fromSnapshot, logBytes: fromSnapshot.usage };
  } finally {
    await browser.close();
    server.close();
  }
}

function cell(m) {
  return `${fmt(m.open)} (read ${fmt(m.read)}, ${(m.open / m.read).toFixed(1)}× read${m.cpu === undefined ? "" : `, cpu ${fmt(m.cpu)}`}; heap ${mb(m.heap)} MiB)`;
}

function row(r) {
  const heap = (r.fromSnapshot.heap / r.fromRecords.heap).toFixed(2);
  console.log(`| ${r.env} | ${cell(r.fromRecords)} | ${cell(r.fromSnapshot)} | ${heap}× | ${fmt(r.fromSnapshot.wasm)} | ${mb(r.snapshotBytes)} | ` +
    `${fmt(r.fill)} | ${fmt(r.close)} |`);
}

console.log(`\nOpen time, ${COUNT.toLocaleString("en")} memories with ${DIMS}-dim embeddings, median of ${RUNS} (ms; "read": the raw ` +
  "backend read inside the open; \"cpu\": the open's CPU time, less sensitive to a busy machine)\n");
console.log(`| environment | open from records | open from snapshot | heap, snapshot ÷ records | wasm init | snapshot MiB | write all (rememberMany ×${Math.ceil(COUNT / BATCH)}) | close (writes snapshot) |`);
console.log("|---|---|---|---|---|---|---|---|");
if (!process.argv.includes("--browser-only")) row(await nodeBench());
if (!process.argv.includes("--node-only")) {
  const r = await browserBench();
  if (r) row(r);
}
