// recallkit/worker: a MemoryStore in a worker, driven through openWorkerStore. Here in Node's
// worker_threads (the same protocol over MessagePorts); the Chromium page
// js/test/browser/worker.html runs it in a Web Worker with IndexedDB, across a reload, and
// checks that a worker that ends is noticed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { MemoryStore, RecallError } from "../dist/index.js";
import { STORE_METHODS, openWorkerStore } from "../dist/worker.js";
import { LOCAL_METHODS } from "../dist/worker-protocol.js";

const NOW = Date.parse("2026-06-01T12:00:00Z");
const script = new URL("./support/store-worker.mjs", import.meta.url);

async function withWorker(body) {
  const worker = new Worker(script, { workerData: { now: NOW } });
  try {
    await body(worker);
  } finally {
    await worker.terminate();
  }
}

test("a worker store offers every method of MemoryStore.prototype but the local ones (conversation)", async () => {
  const methods = Object.getOwnPropertyNames(MemoryStore.prototype)
    .filter((name) => name !== "constructor" && typeof Object.getOwnPropertyDescriptor(MemoryStore.prototype, name).value === "function");
  assert.deepEqual([...STORE_METHODS, ...LOCAL_METHODS].sort(), methods.sort(), "add the method to STORE_METHODS in js/src/worker-protocol.ts");
  await withWorker(async (worker) => {
    const store = await openWorkerStore(worker, { storage: "memory" });
    for (const name of STORE_METHODS) assert.equal(typeof store[name], "function", name);
    for (const name of LOCAL_METHODS) assert.equal(store[name], undefined, name);
    await store.close();
  });
});

test("calls cross to the worker and back, concurrent ones matched to their replies", async () => {
  await withWorker(async (worker) => {
    const store = await openWorkerStore(worker, { storage: "memory" });
    const v = new Float32Array([1, 0, 0]);
    assert.equal(await store.remember({ id: "g", text: "the garden needs water", embedding: v }), "g");
    assert.equal(v.byteLength, 0, "the embedding's buffer was transferred, not copied");
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => store.remember({ id: `m${i}`, text: `memory number ${i} about topic ${i % 3}` })));
    assert.deepEqual(ids, Array.from({ length: 30 }, (_, i) => `m${i}`));
    const recalls = await Promise.all(Array.from({ length: 10 }, (_, i) => store.recall(`number ${i}`, { limit: 1, trackRecalls: false })));
    recalls.forEach((r, i) => assert.equal(r.results[0]?.id, `m${i}`));
    assert.equal((await store.recall("garden water")).results[0].id, "g");
    const back = await store.getEmbedding("g");
    assert.ok(back instanceof Float32Array && back.length === 3, "typed arrays come back as typed arrays");
    assert.equal((await store.get("m3")).text, "memory number 3 about topic 0");
    assert.equal(await store.get("nope"), undefined);
    assert.equal((await store.stats()).memories, 31);
    await store.close();
  });
});

test("errors cross as RecallError with their code and message", async () => {
  await withWorker(async (worker) => {
    const store = await openWorkerStore(worker, { storage: "memory" });
    await store.remember({ id: "a", text: "one" });
    await assert.rejects(store.remember({ id: "a", text: "again" }), (e) => e instanceof RecallError && e.code === "already_exists" && /"a"/.test(e.message));
    await assert.rejects(store.recall("x", { limit: -1 }), (e) => e instanceof RecallError && e.code === "invalid_argument" && /limit/.test(e.message));
    await assert.rejects(store.recall("x", { rerank: async () => [1] }), (e) => e.code === "invalid_argument" && /serveStore/.test(e.message));
    await assert.rejects(openWorkerStore(worker, { storage: "memory", bogus: 1 }), (e) => e.code === "invalid_argument" && /bogus/.test(e.message));
    await store.close();
    await store.close();
    await assert.rejects(store.get("a"), (e) => e instanceof RecallError && e.code === "closed");
  });
});

test("export and import stream through the worker; embed runs in the worker", async () => {
  await withWorker(async (worker) => {
    const a = await openWorkerStore(worker, { storage: "memory" });
    await a.rememberMany(Array.from({ length: 1200 }, (_, i) => ({ id: `m${i}`, text: `line ${i} of the garden log` })));
    assert.equal((await a.getEmbedding("m1"))?.length, 3, "serveStore's embed embedded the memories");
    const lines = [];
    for await (const line of a.export()) lines.push(line);
    assert.equal(lines.length, 1201);
    const b = await openWorkerStore(worker, { storage: "memory" });
    const progress = [];
    async function* chunks() {
      yield* lines;
    }
    const done = await b.import(chunks(), { batchSize: 500, onProgress: (p) => progress.push(p.records) });
    assert.equal(done.records, 1200);
    assert.ok(progress.length >= 3 && progress.at(-1) === 1200, `progress reached the page: ${progress}`);
    const again = [];
    for await (const line of b.export()) again.push(line);
    assert.deepEqual(again, lines);
    const c = await openWorkerStore(worker, { storage: "memory" });
    assert.equal((await c.import(lines.join(""))).records, 1200);
    // Leaving an export early ends it in the worker.
    for await (const line of c.export()) { assert.ok(line); break; }
    await Promise.all([a.close(), b.close(), c.close()]);
  });
});

test("a worker that never serves fails the open with closed after connectTimeoutMs", async () => {
  const worker = new Worker("setInterval(() => {}, 1000)", { eval: true });
  try {
    await assert.rejects(openWorkerStore(worker, { connectTimeoutMs: 200 }), (e) => e.code === "closed" && /serveStore/.test(e.message));
  } finally {
    await worker.terminate();
  }
});
