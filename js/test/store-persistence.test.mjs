// MemoryStore on durable storage, run against every backend with real components: the memory
// adapter (behind a handle whose close() keeps the data, so a store can be reopened), the
// file store in real temporary directories, and IndexedDB on fake-indexeddb. Chromium runs
// the browser scenarios (js/test/browser/store-*.html).
import "fake-indexeddb/auto";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { MemoryStore, RecallError, MemoryAdapter } from "../dist/index.js";
import { FileAdapter } from "../dist/storage/file.js";
import { IndexedDbAdapter } from "../dist/storage/indexeddb.js";
import { decodeRecord, encodeRecord } from "../dist/storage/codec.js";
import { encodeImage, openImage } from "../dist/storage/image.js";
import { encodeSnapshot } from "../dist/storage/snapshot.js";
import { eventually } from "./support/wait.mjs";
import { rejectsWith } from "./support/errors.mjs";
import { tempRoot } from "./support/temp.mjs";
import { DAY, NOW } from "./support/stores.mjs";

const DIMS = 8;
const { root } = tempRoot("store");
let counter = 0;
const fresh = (label) => `${label}-${Date.now().toString(36)}-${counter++}`;

/** A StorageAdapter handle over a MemoryAdapter that survives the handle's close(). */
function retained(inner) {
  let closed = false;
  const live = () => {
    if (closed) throw new RecallError("closed", "this handle is closed");
  };
  return {
    get: async (k) => (live(), inner.get(k)),
    entries: async (p) => (live(), inner.entries(p)),
    keys: async (p) => (live(), inner.keys(p)),
    write: async (ops) => (live(), inner.write(ops)),
    close: async () => { closed = true; },
  };
}

/** Wraps an adapter so that writes can be made to fail (`handle.fail = "quota_exceeded"`). */
function failing(adapter) {
  const handle = {
    fail: undefined,
    writes: [],
    get: (k) => adapter.get(k),
    entries: (p) => adapter.entries(p),
    keys: (p) => adapter.keys(p),
    write: async (ops) => {
      if (handle.fail) throw new RecallError(handle.fail, "injected write failure");
      handle.writes.push(ops.map((o) => o.key));
      return adapter.write(ops);
    },
    close: () => adapter.close(),
  };
  if (typeof adapter.subscribe === "function") handle.subscribe = (l) => adapter.subscribe(l);
  return handle;
}

/** The snapshot's bytes (its chunks joined), or undefined. */
async function readSnapshot(raw) {
  const chunks = await raw.entries("snapshot/");
  return chunks.length === 0 ? undefined : Buffer.concat(chunks.map(([, v]) => v));
}

/** Replaces the snapshot with `bytes` (one chunk), or removes it. */
async function putSnapshot(raw, bytes) {
  const ops = (await raw.keys("snapshot/")).map((key) => ({ op: "delete", key }));
  if (bytes !== undefined) ops.push({ op: "put", key: "snapshot/000000", value: bytes });
  await raw.write(ops);
}

/** Each backend: open options for a store, and a raw adapter on the same data. */
const BACKENDS = {
  memory: () => {
    const inner = new MemoryAdapter();
    return { options: () => ({ storage: retained(inner) }), raw: async () => retained(inner) };
  },
  file: () => {
    const path = join(root, fresh("file"));
    // Snapshots are off by default for file stores; on here, so the file store runs them too.
    return { options: () => ({ storage: "file", path, snapshots: true }), raw: () => FileAdapter.open({ path }) };
  },
  indexeddb: () => {
    const name = fresh("idb");
    return { options: () => ({ storage: "indexeddb", name }), raw: () => IndexedDbAdapter.open({ name }) };
  },
};

function vec(i) {
  const v = new Float32Array(DIMS);
  for (let j = 0; j < DIMS; j++) v[j] = Math.fround(Math.sin(i * 7.1 + j * 1.3) + (j === i % DIMS ? 1.5 : 0));
  v[DIMS - 1] = i % 3 === 0 ? -0 : v[DIMS - 1]; // signed zero survives
  if (i % 5 === 0) v[1] = 1.401298464324817e-45; // the smallest denormal, too
  return v;
}

const WORDS = ["garden", "database", "meeting", "deploy", "budget", "coffee", "travel", "design", "review", "music"];
const open = (backend, extra = {}) => MemoryStore.open({ ...backend.options(), clock: () => NOW, ...extra });

/** Writes every kind of record, with updates, deletes and recall tracking. */
async function writeEverything(store) {
  await store.rememberMany(Array.from({ length: 30 }, (_, i) => ({
    id: `m${i}`, text: `${WORDS[i % 10]} ${WORDS[(i * 3) % 10]} note ${i}`, topic: i % 2 ? "work" : "home",
    tags: [`t${i % 4}`], emotion: (i % 5) - 2, createdAt: NOW - i * DAY, ...(i % 4 !== 3 ? { embedding: vec(i) } : {}),
  })));
  await store.remember({ id: "solo", text: "Le jardin est magnifique", textEn: "The garden is beautiful", embedding: vec(99) });
  await store.update("m3", { text: "the garden needs water", embedding: vec(103) });
  await store.update("m4", { topic: null, tier: "core" });
  await store.update("m6", { text: "garden text without a vector now" });
  await store.forget("m5");
  await store.recall("garden", { now: NOW, embedding: vec(3) });
  await store.recall("garden database", { now: NOW + 1000 });
  await store.addNote({ id: "n1", period: "daily", start: NOW - DAY, text: "We planned the garden.\n\nThe database migration is next." });
  await store.addNote({ id: "n2", period: "weekly", start: NOW - 7 * DAY, text: "A quiet week." });
  await store.updateNote("n2", { text: "A busy week of budget reviews." });
  await store.addNote({ id: "n3", period: "daily", start: NOW, text: "gone" });
  await store.forgetNote("n3");
  await store.addEntity({ name: "Alice", type: "person", aliases: ["Ali"] });
  await store.addEntity({ name: "Garden Project", type: "project", classification: 1 });
  await store.relate({ from: "Alice", relation: "worksOn", to: "Garden Project", strength: 0.8, memoryIds: ["m1"] });
  await store.relate({ from: "Bob", relation: "knows", to: "Alice" });
  await store.relate({ from: "Carol", relation: "knows", to: "Bob" });
  await store.unrelate({ from: "Carol", to: "Bob" });
  // Edges that hold for a time (Memoria's bi-temporal facts).
  await store.relate({ from: "Alice", relation: "lives in", to: "Berlin", validFrom: "2019-05-01", validTo: "2021-03-01" });
  await store.relate({ from: "Alice", relation: "lives in", to: "Stockholm", validFrom: "2021-03-01" });
  await store.addEntity({ name: "Temp" });
  await store.relate({ from: "Temp", relation: "likes", to: "Alice" });
  await store.forgetEntity("Temp");
}

const bits = (f32) => (f32 === undefined ? undefined : [...new Uint32Array(f32.buffer, f32.byteOffset, f32.length)]);
const hex = (u8) => (u8 === undefined ? undefined : Buffer.from(u8).toString("hex"));

/** Everything a store shows, embeddings as raw bits. */
async function stateOf(store) {
  const ids = await store.ids();
  const memories = [];
  for (const id of ids) {
    memories.push({ memory: await store.get(id), embedding: bits(await store.getEmbedding(id)), signature: hex(await store.getSignature(id)) });
  }
  return {
    ids, memories, size: store.size, dimensions: store.dimensions,
    notes: await store.notes(), entities: await store.entities(), edges: await store.edges(),
  };
}

/** Recall answers (without timings), which must not change across a reopen. */
async function answers(store) {
  const out = [];
  for (const [query, extra] of [["garden", { embedding: vec(3) }], ["database meeting", {}], ["alice", {}], ["budget week", {}],
    ["note", { limit: 50 }], ["where does alice live", { asOf: "2020-06-01" }], ["where does alice live", { includeInvalid: true }]]) {
    const res = await store.recall(query, { now: NOW, trackRecalls: false, ...extra });
    out.push(res.results);
  }
  return out;
}

async function exportText(store) {
  let text = "";
  for await (const line of store.export()) text += line;
  return text;
}

for (const [kind, makeBackend] of Object.entries(BACKENDS)) {
  describe(`MemoryStore on ${kind} storage`, () => {
    test("everything written is there after close and reopen, and recall answers the same", async () => {
      const backend = makeBackend();
      const a = await open(backend);
      await writeEverything(a);
      const before = await stateOf(a);
      const recalls = await answers(a);
      assert.equal(before.memories.find((m) => m.memory.id === "m3").memory.recallCount >= 1, true, "recall tracking happened");
      assert.equal(before.size, 30);
      assert.deepEqual(before.edges.filter((e) => e.validTo !== undefined).map((e) => e.id), ["alice|lives_in|berlin"]);
      await a.close();

      const b = await open(backend);
      assert.equal((await b.storageInfo()).openedFrom, "snapshot");
      assert.deepEqual(await stateOf(b), before);
      assert.deepEqual(await answers(b), recalls);
      await b.close();

      // Without the snapshot, the records alone give the same store.
      const raw = await backend.raw();
      await putSnapshot(raw, undefined);
      await raw.close();
      const c = await open(backend);
      assert.equal((await c.storageInfo()).openedFrom, "records");
      assert.deepEqual(await stateOf(c), before);
      assert.deepEqual(await answers(c), recalls);
      await c.close();
    });

    test("recall tracking is written behind the answer, one batch for the recalls meanwhile; trackRecalls: false writes nothing", async () => {
      const backend = makeBackend();
      const raw = failing(await backend.raw());
      const store = await MemoryStore.open({ storage: raw, clock: () => NOW });
      await store.remember({ id: "a", text: "the garden gate" });
      const writes = raw.writes.length;
      await store.recall("garden", { trackRecalls: false });
      assert.equal(raw.writes.length, writes);
      // A large write in the queue: the recalls answer without waiting for it, and their
      // tracking follows it in one batch.
      const bulk = store.rememberMany(Array.from({ length: 2000 }, (_, i) => ({ id: `bulk${i}`, text: `bulk item ${i}` })));
      const res = await store.recall("garden", { now: NOW + 5 });
      assert.equal(res.results[0].memory.recallCount, 1);
      assert.equal((await store.recall("garden gate", { now: NOW + 6 })).results[0].memory.recallCount, 2);
      assert.equal((await store.recall("gate", { now: NOW + 7, trackRecalls: false })).results[0].memory.recallCount, 2);
      await bulk;
      await eventually(async () => (await raw.get("r/a")) !== undefined, 5000, "the tracking written");
      const batches = raw.writes.slice(writes).filter((keys) => keys.includes("r/a"));
      assert.equal(batches.length, 1, "one tracking batch for both recalls");
      assert.ok(!batches[0].some((k) => k.startsWith("m/")), "the tracking alone, after the bulk write");
      // The counts are stored apart (`r/a`): a recall never rewrites the memory itself.
      const tracking = decodeRecord(await raw.get("r/a"));
      assert.equal(tracking.data.recallCount, 2);
      assert.equal(tracking.data.lastRecalledAt, NOW + 6);
      assert.deepEqual(tracking.data.recallTimestamps, [NOW + 5, NOW + 6]);
      assert.ok(!decodeRecord(await raw.get("m/a")).data.recallCount, "m/a keeps the count it was written with");
      await store.close();
      const again = await open(backend);
      assert.equal((await again.get("a")).recallCount, 2, "a reopen reads the counts from r/a");
      await again.close();
    });

    test("a recall's caller resumes before its tracking write starts, and a write queued after the recall follows that tracking", async () => {
      const backend = makeBackend();
      const raw = failing(await backend.raw());
      const store = await MemoryStore.open({ storage: raw, clock: () => NOW });
      await store.remember({ id: "a", text: "the garden gate" });
      const writes = raw.writes.length;
      const res = await store.recall("garden", { now: NOW + 5 });
      // Nothing was in the queue: the tracking would have started at once, in the microtasks
      // before this line, had it not waited for a task of its own.
      assert.equal(res.results[0].memory.recallCount, 1);
      assert.equal(raw.writes.length, writes, "no write started before the caller resumed");
      await store.remember({ id: "b", text: "a write queued after the recall" });
      assert.deepEqual(raw.writes.slice(writes).map((keys) => keys.find((k) => /^[mr]\//.test(k))), ["r/a", "m/b"]);
      await store.close();
    });

    test("a recall answers while a write is in flight, and its tracking follows that write", async () => {
      const backend = makeBackend();
      const raw = failing(await backend.raw());
      const store = await MemoryStore.open({ storage: raw, clock: () => NOW });
      await store.remember({ id: "a", text: "the garden gate" });
      let release;
      const gate = new Promise((resolve) => { release = resolve; });
      const write = raw.write;
      raw.write = async (ops) => { await gate; return write(ops); };
      const held = store.remember({ id: "b", text: "a write storage holds back" });
      const timeout = new Promise((resolve) => setTimeout(() => resolve("timeout"), 2000));
      const res = await Promise.race([store.recall("garden", { now: NOW + 5 }), timeout]);
      assert.notEqual(res, "timeout", "the recall waited for the write in flight");
      assert.equal(res.results[0].memory.recallCount, 1);
      assert.equal(await raw.get("r/a"), undefined, "nothing written yet");
      release();
      await held;
      await eventually(async () => (await raw.get("r/a")) !== undefined, 5000, "the tracking written after the write");
      await store.close();
    });

    test("a damaged snapshot is reported in storageInfo().damage, the store opens from its records, and repair removes it", async () => {
      const backend = makeBackend();
      const a = await open(backend);
      await writeEverything(a);
      const before = await stateOf(a);
      const recalls = await answers(a);
      await a.close();
      const damages = [
        [(b) => { b[b.length - 5] ^= 0x40; }, /snapshot: its payload fails its checksum/],
        [(b) => { b[3] ^= 1; }, /snapshot: no snapshot magic/],
        [() => "truncate", /snapshot: its header announces \d+ payload bytes/],
      ];
      for (const [damage, reported] of damages) {
        const raw = await backend.raw();
        let bytes = new Uint8Array(await readSnapshot(raw));
        assert.ok(bytes && bytes.length > 1000, "a snapshot was written on close");
        if (damage(bytes) === "truncate") bytes = bytes.subarray(0, bytes.length >> 1);
        await putSnapshot(raw, bytes);
        await raw.close();
        const b = await open(backend);
        const info = await b.storageInfo();
        assert.equal(info.openedFrom, "records");
        assert.equal(info.damage?.length, 1, "the damage is reported, not silently ignored");
        assert.match(info.damage[0], reported);
        assert.match(info.damage[0], /loaded from its records/);
        assert.deepEqual(await stateOf(b), before);
        assert.deepEqual(await answers(b), recalls);
        await b.close(); // writes a good snapshot over the damaged one
      }
      const raw = await backend.raw();
      const good = await readSnapshot(raw);
      await putSnapshot(raw, good.subarray(0, good.length - 1));
      await raw.close();
      const report = await MemoryStore.repair(backend.options());
      assert.equal(report.repaired, true);
      assert.deepEqual({ ...report.snapshot, why: undefined }, { found: "damaged", removed: true, why: undefined });
      assert.match(report.snapshot.why, /payload bytes/);
      assert.equal(report.memories, before.size);
      if (kind === "file") assert.deepEqual([report.log.repaired, report.log.dropped], [false, []], "the log itself checks");
      const check = await backend.raw();
      assert.deepEqual(await check.keys("snapshot/"), [], "the damaged snapshot is gone");
      await check.close();
      const c = await open(backend);
      const info = await c.storageInfo();
      assert.deepEqual([info.openedFrom, info.damage], ["records", undefined]);
      assert.deepEqual(await stateOf(c), before);
      await c.close();
    });

    test("repair of an undamaged store changes nothing and says so", async () => {
      const backend = makeBackend();
      const a = await open(backend);
      await writeEverything(a);
      const before = await stateOf(a);
      await a.close();
      const dump = async () => {
        const raw = await backend.raw();
        const all = (await raw.entries()).map(([k, v]) => [k, hex(v)]);
        await raw.close();
        return all;
      };
      const stored = await dump();
      const report = await MemoryStore.repair(backend.options());
      assert.equal(report.repaired, false);
      assert.deepEqual(report.snapshot, { found: "ok", removed: false });
      assert.deepEqual([report.memories, report.notes, report.entities, report.edges],
        [before.size, before.notes.length, before.entities.length, before.edges.length]);
      if (kind === "file") assert.deepEqual([report.log.repaired, report.log.dropped, report.log.copy], [false, [], undefined]);
      assert.deepEqual(await dump(), stored, "not a byte changed");
      const b = await open(backend);
      assert.equal((await b.storageInfo()).openedFrom, "snapshot");
      await b.close();
    });

    test("a snapshot whose engine image fails the engine's checks (its checksum intact) is reported and the store opens from its records", async () => {
      const backend = makeBackend();
      const withRaw = async (fn) => {
        const raw = await backend.raw();
        try {
          return await fn(raw);
        } finally {
          await raw.close();
        }
      };
      const a = await open(backend);
      await writeEverything(a);
      const before = await stateOf(a);
      const recalls = await answers(a);
      await a.close();
      const good = await withRaw(readSnapshot);
      if (good === undefined) return; // a store without snapshots
      const image = openImage(good);
      for (const [damage, why] of [
        [(e) => { e[0] ^= 1; }, /not an engine image/],
        [(e) => e.subarray(0, e.length - 9), /ends early/],
        [(e) => { e[4] = 7; }, /another format version/],
        // Version 1, written before edges held a validity: rebuilt from the records, never read.
        [(e) => { e[4] = 1; }, /another format version/],
      ]) {
        const engine = new Uint8Array(Buffer.concat(image.engine)); // a copy, joined from its pieces
        const damaged = damage(engine) ?? engine;
        await withRaw((raw) => putSnapshot(raw, encodeImage(image.header, [damaged])));
        const b = await open(backend);
        const info = await b.storageInfo();
        assert.equal(info.openedFrom, "records");
        assert.match(info.damage.join("\n"), why);
        assert.deepEqual(await stateOf(b), before);
        assert.deepEqual(await answers(b), recalls);
        await b.close();
        await withRaw((raw) => putSnapshot(raw, good));
      }
      // Another store's snapshot (its own writers and signature seed) is never taken for this one's.
      const otherBackend = makeBackend();
      const other = await open(otherBackend);
      await other.remember({ id: "elsewhere", text: "a memory of another store" });
      await other.close();
      const otherRaw = await otherBackend.raw();
      const foreign = await readSnapshot(otherRaw);
      await otherRaw.close();
      await withRaw((raw) => putSnapshot(raw, foreign));
      const c = await open(backend);
      assert.equal((await c.storageInfo()).openedFrom, "records");
      assert.deepEqual(await stateOf(c), before);
      await c.close();
    });

    test("a snapshot of the previous format (records, not an engine image) is stale: the store opens from its records, quietly", async () => {
      const backend = makeBackend();
      const a = await open(backend);
      await writeEverything(a);
      const before = await stateOf(a);
      await a.close();
      const raw = await backend.raw();
      const had = await readSnapshot(raw);
      if (had !== undefined) await putSnapshot(raw, encodeSnapshot(1, new Uint8Array(64)));
      await raw.close();
      if (had === undefined) return;
      const b = await open(backend);
      const info = await b.storageInfo();
      assert.equal(info.openedFrom, "records");
      assert.equal(info.damage, undefined);
      assert.deepEqual(await stateOf(b), before);
      await b.close();
    });

    test("a stale snapshot is ignored: later writes are never hidden", async () => {
      const backend = makeBackend();
      const a = await open(backend);
      await writeEverything(a);
      await a.close();
      let raw = await backend.raw();
      const old = await readSnapshot(raw);
      await raw.close();
      const b = await open(backend, { snapshotEvery: 1 }); // a new snapshot after each write
      assert.equal((await b.storageInfo()).openedFrom, "snapshot");
      await b.remember({ id: "late", text: "written after the old snapshot" });
      await b.forget("m1");
      const state = await stateOf(b);
      await b.close();
      // Put the old snapshot back, as if the new one had never been written.
      raw = await backend.raw();
      await putSnapshot(raw, old);
      await raw.close();
      const c = await open(backend);
      assert.equal((await c.storageInfo()).openedFrom, "records");
      assert.equal((await c.storageInfo()).damage, undefined, "a stale snapshot is not damage");
      assert.deepEqual(await stateOf(c), state);
      assert.equal((await c.get("late")).text, "written after the old snapshot");
      assert.equal(await c.get("m1"), undefined);
      await c.close();
    });

    test("a store that was not closed opens from the snapshot plus the journal of later writes", async () => {
      const backend = makeBackend();
      const a = await open(backend);
      await writeEverything(a);
      await a.close();
      // The next session writes, then its storage goes away without a close (a crash, a
      // closed tab): no new snapshot, the old one plus the journal must give the same store.
      const raw = failing(await backend.raw());
      const b = await MemoryStore.open({ storage: raw, clock: () => NOW + DAY });
      assert.equal((await b.storageInfo()).openedFrom, "snapshot");
      await b.remember({ id: "late", text: "written after the snapshot", embedding: vec(77) });
      await b.rememberMany([{ id: "late2", text: "a batch after the snapshot" }, { id: "late3", text: "and another" }]);
      await b.update("m2", { text: "the garden database, updated", embedding: vec(88) });
      await b.forget("m1");
      await b.recall("garden", { now: NOW + DAY });
      await b.addNote({ id: "n9", period: "daily", start: NOW, text: "a note after the snapshot" });
      await b.forgetNote("n1");
      await b.relate({ from: "Dana", relation: "knows", to: "Alice" });
      await b.forgetEntity("Bob");
      const state = await stateOf(b);
      const recalls = await answers(b);
      raw.fail = "storage_failed";
      await b.close(); // its snapshot write fails: nothing but the records and the journal changed
      const c = await open(backend);
      assert.equal((await c.storageInfo()).openedFrom, "snapshot");
      assert.deepEqual(await stateOf(c), state);
      assert.deepEqual(await answers(c), recalls);
      await c.close(); // a short journal: no new snapshot
      const journalOf = async () => {
        const r = await backend.raw();
        const n = (await r.keys("meta/journal/")).length;
        await r.close();
        return n;
      };
      assert.equal(await journalOf(), 9, "b's nine batches are still journaled");
      const d = await open(backend);
      assert.equal((await d.storageInfo()).openedFrom, "snapshot");
      assert.deepEqual(await stateOf(d), state);
      for (let i = 0; i < 100; i++) await d.remember({ id: `j${i}`, text: `journaled ${i}` });
      const longer = await stateOf(d);
      await d.close(); // 109 batches after the snapshot: close writes a new one
      assert.equal(await journalOf(), 0, "the new snapshot deleted the journal entries it reflects");
      const e = await open(backend);
      assert.equal((await e.storageInfo()).openedFrom, "snapshot");
      assert.deepEqual(await stateOf(e), longer);
      await e.close();
    });

    test("a gap in the journal means a rebuild from the records", async () => {
      const backend = makeBackend();
      const a = await open(backend);
      await writeEverything(a);
      await a.close();
      const raw = failing(await backend.raw());
      const b = await MemoryStore.open({ storage: raw, clock: () => NOW });
      await b.remember({ id: "x1", text: "first after the snapshot" });
      await b.remember({ id: "x2", text: "second after the snapshot" });
      const state = await stateOf(b);
      raw.fail = "storage_failed";
      await b.close();
      const r = await backend.raw();
      const entries = await r.keys("meta/journal/");
      assert.equal(entries.length, 2);
      await r.write([{ op: "delete", key: entries[0] }]);
      await r.close();
      const c = await open(backend);
      assert.equal((await c.storageInfo()).openedFrom, "records");
      assert.deepEqual(await stateOf(c), state);
      await c.close();
    });

    test("a failed write rejects with the adapter's code and the engine does not show the change", async () => {
      const backend = makeBackend();
      const raw = failing(await backend.raw());
      const store = await MemoryStore.open({ storage: raw, clock: () => NOW });
      await writeEverything(store);
      const before = await stateOf(store);
      raw.fail = "quota_exceeded";
      const calls = {
        remember: () => store.remember({ id: "new", text: "never stored", embedding: vec(1) }),
        rememberMany: () => store.rememberMany([{ id: "x1", text: "one" }, { id: "x2", text: "two", embedding: vec(2) }]),
        update: () => store.update("m1", { text: "changed", embedding: vec(50), topic: null }),
        updateNoVector: () => store.update("m2", { text: "changed without a vector" }),
        forget: () => store.forget("m1"),
        addNote: () => store.addNote({ id: "nn", period: "daily", start: NOW, text: "x" }),
        updateNote: () => store.updateNote("n1", { text: "changed" }),
        forgetNote: () => store.forgetNote("n1"),
        addEntity: () => store.addEntity({ name: "Dave" }),
        mergeEntity: () => store.addEntity({ name: "alice", aliases: ["Al"], type: "human" }),
        forgetEntity: () => store.forgetEntity("Alice"),
        relate: () => store.relate({ from: "Eve", relation: "knows", to: "Frank" }),
        relateAgain: () => store.relate({ from: "Alice", relation: "worksOn", to: "Garden Project", strength: 0.1, memoryIds: ["m9"] }),
        unrelate: () => store.unrelate({ from: "Bob", to: "Alice" }),
        import: () => store.import('{"v":1,"kind":"memory","data":{"id":"imp","text":"imported","createdAt":1,"updatedAt":1}}\n'),
      };
      for (const [name, call] of Object.entries(calls)) {
        await rejectsWith(call(), "quota_exceeded", /injected/);
        assert.deepEqual(await stateOf(store), before, `${name}: the engine is unchanged`);
      }
      // A recall answers; its tracking, written behind it, is the write refused, and the engine
      // goes back to the counts storage holds (the readonly tier's promise).
      const recalled = await store.recall("garden", { now: NOW + 99 });
      assert.ok(recalled.results.length > 0);
      await eventually(async () => (await store.status()).tier === "readonly" && JSON.stringify(await stateOf(store)) === JSON.stringify(before), 5000, "the refused tracking undone");
      raw.fail = "storage_failed";
      await rejectsWith(store.remember({ text: "again" }), "storage_failed");
      raw.fail = undefined;
      // The store keeps working, and storage agrees with the engine.
      await store.remember({ id: "after", text: "written once storage works again" });
      const state = await stateOf(store);
      await store.close();
      const again = await open(backend);
      assert.deepEqual(await stateOf(again), state);
      await again.close();
    });

    test("rememberMany is one atomic write: all memories or none, in memory and on disk", async () => {
      const backend = makeBackend();
      const raw = failing(await backend.raw());
      const store = await MemoryStore.open({ storage: raw, clock: () => NOW });
      const batch = Array.from({ length: 200 }, (_, i) => ({ id: `b${i}`, text: `batch item ${i}`, embedding: vec(i) }));
      raw.fail = "quota_exceeded";
      await rejectsWith(store.rememberMany(batch), "quota_exceeded");
      assert.equal(store.size, 0);
      assert.equal(store.dimensions, undefined, "a rejected write leaves the dimension as it was (unset)");
      raw.fail = undefined;
      await rejectsWith(store.rememberMany([...batch.slice(0, 5), { id: "bad", text: 42 }]), "invalid_argument", /item 5/);
      assert.equal(store.size, 0);
      const writes = raw.writes.length;
      await store.rememberMany(batch);
      assert.equal(raw.writes.length, writes + 1, "one adapter write");
      assert.equal(raw.writes.at(-1).filter((k) => k.startsWith("m/")).length, 200);
      await store.close();
      const again = await open(backend);
      assert.equal(again.size, 200);
      assert.deepEqual(await again.ids(), batch.map((m) => m.id), "insertion order survives");
      await again.close();
    });

    test("export, import into a fresh store, export again: byte-identical; onProgress reports", async () => {
      const backend = makeBackend();
      const a = await open(backend);
      await writeEverything(a);
      const text = await exportText(a);
      const state = await stateOf(a);
      await a.close();
      const lines = text.split("\n").filter(Boolean);
      assert.equal(JSON.parse(lines[0]).kind, "meta");
      assert.ok(lines.some((l) => /"recallCount":[1-9]/.test(l)), "tracking fields are exported");
      assert.ok(lines.some((l) => l.includes('"signature":"')), "signatures are exported");
      assert.ok(lines.some((l) => l.includes('"validTo":')), "an edge's validity is exported");

      const target = makeBackend();
      const b = await open(target);
      const progress = [];
      const result = await b.import(text, { batchSize: 7, onProgress: (p) => progress.push(p) });
      assert.equal(result.records, lines.length - 1);
      assert.equal(progress.length, Math.ceil(lines.length / 7));
      assert.deepEqual(progress.at(-1), result);
      assert.ok(progress.every((p, i) => i === 0 || p.records > progress[i - 1].records));
      assert.deepEqual(await stateOf(b), state);
      assert.equal(await exportText(b), text);
      await b.close();
      const c = await open(target);
      assert.equal(await exportText(c), text, "the imported store is durable");
      await c.close();
    });

    test("import accepts streams and bytes, and handles duplicate ids as told", async () => {
      const backend = makeBackend();
      const a = await open(backend);
      await writeEverything(a);
      const text = await exportText(a);
      const bytes = new TextEncoder().encode(text);
      const b = await open(makeBackend());
      const stream = new ReadableStream({
        start(c) {
          for (let i = 0; i < bytes.length; i += 333) c.enqueue(bytes.subarray(i, i + 333));
          c.close();
        },
      });
      await b.import(stream);
      assert.equal(await exportText(b), text);
      await rejectsWith(b.import(text), "already_exists", /line 2: a memory with id "m0" already exists/);
      const skip = await b.import((async function* () { yield text; })(), { onConflict: "skip" });
      assert.equal(skip.skipped, 32, "30 memories and 2 notes are skipped");
      await b.forget("m0");
      await b.update("m1", { text: "locally changed" });
      const replaced = await b.import(text, { onConflict: "replace" });
      assert.ok(replaced.records > 0);
      assert.equal((await b.get("m1")).text, (await a.get("m1")).text);
      assert.equal((await b.get("m0")).text, (await a.get("m0")).text);
      await rejectsWith(b.import("{not json}\n"), "corrupt", /line 1/);
      await rejectsWith(b.import('\n{"v":2,"kind":"memory","data":{}}\n'), "corrupt", /line 2: .*version 2/);
      await rejectsWith(b.import('{"v":1,"kind":"meta","data":{"format":1,"dimensions":3,"signatureSeed":"7265636c6c6b6900"}}'),
        "dimension_mismatch", /line 1/);
      await rejectsWith(b.import('{"v":1,"kind":"memory","data":{"id":"q","text":"x","emotion":99}}'), "invalid_argument", /line 1/);
      await a.close();
      await b.close();
    });

    test("an unknown format version fails the open loudly with corrupt", async () => {
      const backend = makeBackend();
      const a = await open(backend);
      await a.remember({ id: "x", text: "hello" });
      await a.close();
      let raw = await backend.raw();
      const good = await raw.get("m/x");
      const future = good.slice();
      future[2] = 9; // record format version
      await raw.write([{ op: "put", key: "m/x", value: future }]);
      await putSnapshot(raw, undefined);
      await raw.close();
      await rejectsWith(open(backend), "corrupt", /record "m\/x".*version 9/);
      raw = await backend.raw();
      await raw.write([{ op: "put", key: "m/x", value: good },
        { op: "put", key: "meta/config", value: encodeRecord({ kind: "meta", data: { format: 2, signatureSeed: "7265636c6c6b6900" } }) }]);
      await raw.close();
      await rejectsWith(open(backend), "corrupt", /store format 2/);
    });

    test("concurrent calls keep their order; a slow embedder does not reorder writes", async () => {
      const backend = makeBackend();
      const slow = async (texts) => {
        await new Promise((r) => setTimeout(r, 30));
        return texts.map((_, i) => vec(i));
      };
      const store = await open(backend, { embed: slow });
      const results = await Promise.allSettled([
        store.remember({ id: "first", text: "embedded slowly" }),
        store.remember({ id: "second", text: "has a vector", embedding: vec(2) }),
        store.update("first", { topic: "patched after insert" }),
        store.forget("second"),
        store.remember({ id: "second", text: "again" , embedding: vec(3) }),
      ]);
      assert.deepEqual(results.map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
      assert.deepEqual(await store.ids(), ["first", "second"]);
      assert.equal((await store.get("first")).topic, "patched after insert");
      await store.close();
      const again = await open(backend);
      assert.deepEqual(await again.ids(), ["first", "second"]);
      await again.close();
    });

    test("snapshotEvery writes the snapshot after that many writes; storageInfo reports", async () => {
      const backend = makeBackend();
      const raw = failing(await backend.raw());
      const store = await MemoryStore.open({ storage: raw, snapshotEvery: 3, clock: () => NOW });
      for (let i = 0; i < 3; i++) await store.remember({ text: `memory ${i}` });
      await store.stats(); // let the queued snapshot run
      await new Promise((r) => setTimeout(r, 20));
      const snapshotWrite = raw.writes.find((keys) => keys.includes("snapshot/000000"));
      assert.ok(snapshotWrite, "the snapshot was written");
      assert.ok(snapshotWrite.every((k) => k.startsWith("snapshot/") || k.startsWith("meta/journal/")),
        "alone in its batch, with the journal entries it reflects");
      assert.equal((await store.storageInfo()).openedFrom, "records");
      await store.close();
      const direct = await open(backend);
      const info = await direct.storageInfo();
      assert.equal(info.openedFrom, "snapshot");
      if (kind === "file") assert.ok(info.usage > 0, "a file store reports its log size");
      await direct.close();
    });

    test("close flushes, later calls fail with closed, closing twice is harmless", async () => {
      const backend = makeBackend();
      const store = await open(backend);
      const pending = [store.remember({ id: "a", text: "queued before close" }), store.addNote({ id: "n", period: "daily", start: NOW, text: "x" })];
      const closing = store.close();
      await rejectsWith(store.remember({ text: "after close" }), "closed");
      await Promise.all(pending);
      await closing;
      await store.close();
      await rejectsWith(store.storageInfo(), "closed");
      await rejectsWith((async () => { for await (const _ of store.export()); })(), "closed");
      const again = await open(backend);
      assert.equal((await again.get("a")).text, "queued before close");
      assert.equal((await again.notes()).length, 1);
      await again.close();
    });
  });
}

describe("custom storage adapters", () => {
  /** A MemoryAdapter with some methods replaced; `closed` tells whether the store closed it. */
  function custom(overrides) {
    const inner = new MemoryAdapter();
    const adapter = {
      closed: false,
      get: (k) => inner.get(k),
      entries: (p) => inner.entries(p),
      keys: (p) => inner.keys(p),
      write: (ops) => inner.write(ops),
      close: async () => { adapter.closed = true; },
      ...overrides,
    };
    return adapter;
  }

  test("an adapter that throws or answers with the wrong shape fails the open with storage_failed, keeping the cause", async () => {
    const boom = new Error("boom");
    const cases = [
      [{ entries: async () => null }, /entries\("meta\/"\) returned null, not an array of \[key, Uint8Array\] pairs/],
      [{ entries: async () => [5] }, /item 0 is a number/],
      [{ entries: async () => [["m/x", "not bytes"]] }, /item 0 is an array/],
      [{ entries: () => { throw boom; } }, /boom/, boom],
      [{ entries: async () => { throw boom; } }, /boom/, boom],
      [{ subscribe: () => { throw boom; } }, /subscribe\(\) failed: boom/, boom],
      [{ subscribe: () => undefined }, /subscribe\(\) returned undefined, not an unsubscribe function/],
    ];
    for (const [overrides, pattern, cause] of cases) {
      const adapter = custom(overrides);
      await assert.rejects(MemoryStore.open({ storage: adapter }), (e) => {
        assert.ok(e instanceof RecallError, `a RecallError, not ${e}`);
        assert.equal(e.code, "storage_failed", e.message);
        assert.match(e.message, pattern);
        if (cause) assert.equal(e.cause, cause);
        return true;
      });
      assert.ok(adapter.closed, "a failed open closes the adapter");
    }
  });

  test("storageInfo reports what a custom adapter tells, and its failure is storage_failed", async () => {
    const reported = await MemoryStore.open({ storage: custom({ storageInfo: async () => ({ usage: 5, quota: 9, persisted: true }) }) });
    assert.deepEqual(await reported.storageInfo(), { openedFrom: "records", usage: 5, quota: 9, persisted: true });
    await reported.close();
    const broken = await MemoryStore.open({ storage: custom({ storageInfo: () => { throw new Error("estimate failed"); } }) });
    await rejectsWith(broken.storageInfo(), "storage_failed", /estimate failed/);
    await broken.close();
  });

  test("an adapter whose close or unsubscribe throws still closes the store", async () => {
    const adapter = custom({ subscribe: () => () => { throw new Error("unsubscribe"); }, close: () => { throw new Error("close"); } });
    const store = await MemoryStore.open({ storage: adapter });
    await store.remember({ text: "x" });
    await store.close();
    await rejectsWith(store.remember({ text: "y" }), "closed");
  });
});

describe("file stores", () => {
  const run = promisify(execFile);
  const url = new URL("../dist/index.js", import.meta.url).href;

  test("readOnly: a store another process writes is read without its lock, as of the open; writes are refused, recalls untracked", async () => {
    const path = join(root, fresh("reader"));
    const writer = await MemoryStore.open({ storage: "file", path, snapshots: true, clock: () => NOW });
    await writer.rememberMany([
      { id: "a", text: "The backup of the billing database runs at 02:00" },
      { id: "b", text: "Ana prefers green tea" },
    ]);
    await writer.relate({ from: "Ana", relation: "works with", to: "Ben" });
    // In another process, as the CLI or a second app would.
    const script = `import { MemoryStore } from ${JSON.stringify(url)};
      const s = await MemoryStore.open({ storage: "file", path: ${JSON.stringify(path)}, readOnly: true });
      const r = await s.recall("when does the backup run?");
      const w = await s.remember({ text: "x" }).then(() => "stored", (e) => e.code + " " + e.message);
      console.log(JSON.stringify({ ids: r.results.map((h) => h.id), tier: (await s.status()).tier, reason: (await s.status()).reason, edges: (await s.edges()).length, w }));
      await s.close();`;
    const other = JSON.parse((await run(process.execPath, ["--input-type=module", "-e", script])).stdout);
    assert.deepEqual(other, {
      ids: ["a"], tier: "readonly", reason: "opened with readOnly: true", edges: 1,
      w: "invalid_argument the store was opened with readOnly: true; it refuses writes",
    });

    const reader = await MemoryStore.open({ storage: "file", path, readOnly: true, snapshots: true });
    await writer.remember({ id: "c", text: "The backup moved to 03:00" });
    assert.deepEqual((await reader.recall("backup")).results.map((h) => h.id), ["a"], "the reader sees the store as of its open");
    for (const write of [
      () => reader.remember({ text: "x" }), () => reader.rememberMany([{ text: "x" }]), () => reader.update("a", { topic: "ops" }),
      () => reader.forget("a"), () => reader.relate({ from: "a", relation: "b", to: "c" }), () => reader.addNote({ period: "daily", start: NOW, text: "x" }),
      () => reader.import(["{}"]),
    ]) {
      await rejectsWith(write, "invalid_argument", /readOnly: true/);
    }
    assert.equal((await reader.get("a")).recallCount, 0, "a read-only recall is not tracked");
    assert.equal(reader.size, 2);
    await reader.close();
    await writer.close();
    // A reader opens from the writer's snapshot, and leaves it in place.
    const fast = await MemoryStore.open({ storage: "file", path, readOnly: true, snapshots: true });
    assert.equal((await fast.storageInfo()).openedFrom, "snapshot");
    assert.equal(fast.size, 3);
    await fast.close();
    const reopened = await MemoryStore.open({ storage: "file", path, snapshots: true });
    assert.deepEqual(await reopened.ids(), ["a", "b", "c"]);
    assert.equal((await reopened.get("a")).recallCount, 0);
    assert.equal((await reopened.storageInfo()).openedFrom, "snapshot", "the readers left the writer's snapshot alone");
    await reopened.close();

    await rejectsWith(MemoryStore.open({ storage: "file", path: join(root, fresh("none")), readOnly: true }), "not_found");
    await rejectsWith(MemoryStore.open({ storage: "memory", readOnly: true }), "invalid_argument", /readOnly/);
    // An adapter of one's own: the store refuses the writes and tracks nothing.
    const own = new MemoryAdapter();
    const filled = await MemoryStore.open({ storage: retained(own), clock: () => NOW });
    await filled.remember({ id: "x", text: "the backup runs at night" });
    await filled.close();
    const watched = retained(own);
    const written = [];
    const write = watched.write;
    watched.write = (ops) => { written.push(ops); return write(ops); };
    const ownReader = await MemoryStore.open({ storage: watched, readOnly: true });
    assert.deepEqual((await ownReader.recall("backup")).results.map((h) => h.id), ["x"]);
    await rejectsWith(ownReader.remember({ text: "y" }), "invalid_argument", /readOnly: true/);
    await ownReader.close();
    assert.deepEqual(written, [], "a reader writes nothing: no tracking, no snapshot");
    await rejectsWith(MemoryStore.open({ storage: "file", path, readOnly: "yes" }), "invalid_argument", /readOnly must be a boolean/);
  });

  test("readOnly on IndexedDB: reads beside a writer, refuses writes, tracks nothing", async () => {
    const name = fresh("idb-reader");
    const writer = await MemoryStore.open({ storage: "indexeddb", name, clock: () => NOW });
    await writer.remember({ id: "a", text: "The backup runs at 02:00" });
    const reader = await MemoryStore.open({ storage: "indexeddb", name, readOnly: true });
    assert.deepEqual((await reader.recall("backup")).results.map((h) => h.id), ["a"]);
    await rejectsWith(reader.remember({ text: "x" }), "invalid_argument", /readOnly: true/);
    assert.equal((await reader.status()).tier, "readonly");
    await reader.close();
    assert.equal((await writer.get("a")).recallCount, 0);
    await writer.close();
  });

  test("a second writer, in this process or another, gets locked; after close it opens", async () => {
    const path = join(root, fresh("lock"));
    const store = await MemoryStore.open({ storage: "file", path });
    await store.remember({ id: "a", text: "held" });
    // The message names the holder and only what a user can do there.
    await rejectsWith(MemoryStore.open({ storage: "file", path }), "locked", /held by this process \(pid \d+: another store object here has it open; close that one first\)/);
    const script = `import { MemoryStore } from ${JSON.stringify(url)};
      try { const s = await MemoryStore.open({ storage: "file", path: ${JSON.stringify(path)} }); console.log("opened", s.size); await s.close(); }
      catch (e) { console.log(e.code, e.message); }`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script]);
    assert.match(stdout.trim(), new RegExp(`^locked .*held by pid ${process.pid} .*close the store in the other process, open it with readOnly: true to read it meanwhile, or delete the lock file`));
    await store.close();
    const { stdout: later } = await run(process.execPath, ["--input-type=module", "-e", script]);
    assert.equal(later.trim(), "opened 1");
    const reopened = await MemoryStore.open({ storage: "file", path });
    assert.equal((await reopened.get("a")).text, "held");
    await reopened.close();
  });

  test("the default in Node is a file store under ./recallkit-data/<name>", async () => {
    const cwd = process.cwd();
    const idb = globalThis.indexedDB;
    const dir = join(root, fresh("cwd"));
    rmSync(dir, { recursive: true, force: true });
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir);
    process.chdir(dir);
    delete globalThis.indexedDB;
    try {
      const store = await MemoryStore.open({ name: "notes" });
      await store.remember({ text: "on disk" });
      await store.close();
      assert.ok(existsSync(join(dir, "recallkit-data", "notes", "data.log")));
      const unnamed = await MemoryStore.open();
      await unnamed.close();
      assert.ok(existsSync(join(dir, "recallkit-data", "default")));
    } finally {
      globalThis.indexedDB = idb;
      process.chdir(cwd);
    }
    await rejectsWith(MemoryStore.open({ name: "bad name!" }), "invalid_argument", /store name/);
    await rejectsWith(MemoryStore.open({ storage: { get() {} } }), "invalid_argument", /StorageAdapter/);
    await rejectsWith(MemoryStore.open({ storage: "memory", snapshotEvery: -1 }), "invalid_argument", /snapshotEvery/);
  });

  test("no snapshot by default; turning snapshots off deletes the old one and its journal", async () => {
    const path = join(root, fresh("nosnap"));
    const a = await MemoryStore.open({ storage: "file", path, clock: () => NOW });
    await writeEverything(a);
    const state = await stateOf(a);
    await a.close();
    const keys = async () => {
      const raw = await FileAdapter.open({ path, readOnly: true });
      const out = [...await raw.keys("snapshot/"), ...await raw.keys("meta/journal/")];
      await raw.close();
      return out;
    };
    assert.deepEqual(await keys(), []);
    const b = await MemoryStore.open({ storage: "file", path, snapshots: true });
    assert.equal((await b.storageInfo()).openedFrom, "records");
    await b.remember({ id: "s", text: "with snapshots" });
    await b.close();
    assert.ok((await keys()).length > 0, "a snapshot was written");
    const c = await MemoryStore.open({ storage: "file", path });
    assert.equal((await c.storageInfo()).openedFrom, "records");
    assert.deepEqual((await stateOf(c)).memories.slice(0, -1), state.memories);
    await c.close();
    assert.deepEqual(await keys(), [], "the snapshot and journal are gone");
    await rejectsWith(MemoryStore.open({ storage: "file", path, snapshots: "yes" }), "invalid_argument", /snapshots/);
  });

  test("dimensions must agree with the stored dimension", async () => {
    const path = join(root, fresh("dims"));
    const store = await MemoryStore.open({ storage: "file", path });
    await store.remember({ text: "x", embedding: vec(1) });
    await store.close();
    await rejectsWith(MemoryStore.open({ storage: "file", path, dimensions: 4 }), "dimension_mismatch", /8-dimensional/);
    const again = await MemoryStore.open({ storage: "file", path, dimensions: DIMS });
    assert.equal(again.dimensions, DIMS);
    await again.close();
  });
});

describe("two handles of one IndexedDB store (tabs)", () => {
  const waitFor = async (cond, ms = 3000) => {
    const end = Date.now() + ms;
    while (!(await cond())) {
      if (Date.now() > end) return false;
      await new Promise((r) => setTimeout(r, 5));
    }
    return true;
  };

  test("concurrent writers see each other's writes and lose none; snapshots stay honest", async () => {
    const name = fresh("tabs");
    const a = await MemoryStore.open({ storage: "indexeddb", name, clock: () => NOW });
    const b = await MemoryStore.open({ storage: "indexeddb", name, clock: () => NOW });
    await Promise.all([
      (async () => { for (let i = 0; i < 25; i++) await a.remember({ id: `a${i}`, text: `from tab a number ${i}`, embedding: vec(i) }); })(),
      (async () => { for (let i = 0; i < 25; i++) await b.remember({ id: `b${i}`, text: `from tab b number ${i}`, embedding: vec(i) }); })(),
    ]);
    await a.addNote({ id: "na", period: "daily", start: NOW, text: "a's note" });
    await b.relate({ from: "Ann", relation: "knows", to: "Ben" });
    await b.update("a3", { text: "tab b changed tab a's memory" });
    await a.forget("b7");
    assert.ok(await waitFor(() => a.size === 49 && b.size === 49), `sizes ${a.size} ${b.size}`);
    assert.ok(await waitFor(async () => (await a.edges()).length === 1 && (await b.notes()).length === 1));
    assert.ok(await waitFor(async () => (await a.get("a3")).text === "tab b changed tab a's memory"));
    assert.equal(await b.get("b7"), undefined);
    assert.deepEqual(bits(await a.getEmbedding("b4")), bits(vec(4)));
    assert.deepEqual(new Set(await a.ids()), new Set(await b.ids()));
    const sorted = async (s) => (await stateOf(s)).memories.sort((x, y) => (x.memory.id < y.memory.id ? -1 : 1));
    assert.deepEqual(await sorted(a), await sorted(b));
    // a writes its snapshot; b writes after it: the next open must not trust a's snapshot.
    await a.close();
    await b.remember({ id: "last", text: "written after a closed" });
    const expected = await sorted(b);
    // b stays open (a tab that is never closed): only a's snapshot exists; b's later write
    // is in the journal, so c uses the snapshot and re-reads that record.
    const c = await MemoryStore.open({ storage: "indexeddb", name });
    assert.equal((await c.storageInfo()).openedFrom, "snapshot");
    assert.deepEqual(await sorted(c), expected);
    assert.equal((await c.get("last")).text, "written after a closed");
    await c.close();
    await b.close();
    const d = await MemoryStore.open({ storage: "indexeddb", name });
    assert.deepEqual(await sorted(d), expected);
    await d.close();
  });
});

/**
 * Two handles of one store over one storage, as two tabs or two processes: the notices of each
 * one's writes reach the other only when the test delivers them, so a handle can be made to
 * act on a copy older than storage's.
 */
function sharedStorage() {
  const inner = new MemoryAdapter();
  const handles = [];
  const handle = () => {
    const me = { listeners: new Set(), held: [] };
    handles.push(me);
    return {
      adapter: {
        get: (k) => inner.get(k), keys: (p) => inner.keys(p), entries: (p) => inner.entries(p), close: async () => undefined,
        async write(ops) {
          await inner.write(ops);
          for (const other of handles) if (other !== me) other.held.push(ops.map((op) => op.key));
        },
        subscribe(listener) {
          me.listeners.add(listener);
          return () => me.listeners.delete(listener);
        },
      },
      /** Delivers the notices of the other handle's writes held so far. */
      deliver() {
        for (const keys of me.held.splice(0)) for (const listener of me.listeners) listener(keys);
      },
    };
  };
  return { inner, handle };
}

describe("a recall never undoes another handle's write", () => {
  test("a recall on a copy older than storage's leaves another handle's update and forget in place", async () => {
    const { inner, handle } = sharedStorage();
    const [a, b] = [handle(), handle()];
    const storeA = await MemoryStore.open({ storage: a.adapter, clock: () => NOW });
    const storeB = await MemoryStore.open({ storage: b.adapter, clock: () => NOW });
    await storeB.rememberMany([{ id: "x", text: "zebra version 0" }, { id: "y", text: "zebra to forget" }]);
    a.deliver();
    await new Promise((r) => setTimeout(r, 10));
    assert.equal((await storeA.get("x"))?.text, "zebra version 0");
    // B changes x and forgets y; A has not heard yet and recalls both (tracking on).
    await storeB.update("x", { text: "zebra version 1" });
    await storeB.forget("y");
    const seen = await storeA.recall("zebra");
    assert.deepEqual(seen.results.map((r) => r.id).sort(), ["x", "y"], "A answers from its own copy");
    // A's tracking is written behind the answer.
    await eventually(async () => (await inner.get("r/x")) !== undefined, 5000, "A's tracking written");
    // Storage still holds B's writes: the update stays, the forgotten memory stays gone.
    assert.equal(decodeRecord(await inner.get("m/x")).data.text, "zebra version 1");
    assert.equal(await inner.get("m/y"), undefined);
    const fresh = await MemoryStore.open({ storage: new MemoryAdapterView(inner), clock: () => NOW });
    assert.equal((await fresh.get("x")).text, "zebra version 1");
    assert.equal((await fresh.get("x")).recallCount, 1, "A's count of x is kept beside B's text");
    assert.equal(await fresh.get("y"), undefined, "a recall's count does not bring back a forgotten memory");
    await fresh.close();
    // Once A hears B's writes, it agrees.
    a.deliver();
    await new Promise((r) => setTimeout(r, 10));
    assert.equal((await storeA.get("x")).text, "zebra version 1");
    assert.equal(await storeA.get("y"), undefined);
    await storeA.close();
    await storeB.close();
  });
});

describe("orphan recall tracking (an r/<id> left by a recall racing a forget)", () => {
  /** Storage where A's recall of y wrote `r/y` after B forgot y: the orphan. */
  async function withOrphan(options = {}) {
    const { inner, handle } = sharedStorage();
    const [a, b] = [handle(), handle()];
    const storeA = await MemoryStore.open({ storage: a.adapter, clock: () => NOW, ...options });
    const storeB = await MemoryStore.open({ storage: b.adapter, clock: () => NOW, ...options });
    await storeB.rememberMany([{ id: "x", text: "zebra kept" }, { id: "y", text: "zebra to forget" }]);
    a.deliver();
    await new Promise((r) => setTimeout(r, 10));
    await storeB.forget("y");
    await storeA.recall("zebra");
    await eventually(async () => (await inner.get("r/y")) !== undefined, 5000, "the recall wrote r/y after the forget");
    assert.equal(await inner.get("m/y"), undefined);
    return { inner, storeA, storeB, a, b };
  }

  test("an open that loads the records deletes orphan tracking and keeps the live memories' tracking", async () => {
    const { inner, storeA, storeB } = await withOrphan({ snapshots: false });
    await storeA.close();
    await storeB.close();
    const again = await MemoryStore.open({ storage: new MemoryAdapterView(inner), clock: () => NOW, snapshots: false });
    await again.close(); // the deletion is queued after the open
    assert.equal(await inner.get("r/y"), undefined, "the orphan is gone");
    assert.ok(await inner.get("r/x"), "x's tracking stays");
    const reopened = await MemoryStore.open({ storage: new MemoryAdapterView(inner), clock: () => NOW, snapshots: false });
    assert.equal((await reopened.get("x")).recallCount, 1);
    assert.deepEqual(await reopened.ids(), ["x"]);
    await reopened.close();
  });

  test("a snapshot write (compaction) deletes orphan tracking", async () => {
    const { inner, storeA, storeB } = await withOrphan({ snapshotEvery: 1 });
    await storeB.remember({ id: "z", text: "a later write, then a snapshot" });
    await storeB.close();
    assert.ok((await inner.keys("snapshot/")).length > 0, "a snapshot was written");
    assert.equal(await inner.get("r/y"), undefined, "the orphan is gone");
    assert.ok(await inner.get("r/x"));
    await storeA.close();
  });

  test("a new memory under an orphan's id starts untracked, from records and from a snapshot alike", async () => {
    const { inner, storeA, storeB } = await withOrphan({ snapshots: false });
    await storeB.remember({ id: "y", text: "zebra born again" });
    assert.equal(await inner.get("r/y"), undefined, "creating the memory deleted the orphan");
    await storeA.close();
    await storeB.close();
    for (const snapshots of [false, true]) {
      const again = await MemoryStore.open({ storage: new MemoryAdapterView(inner), clock: () => NOW, snapshots });
      assert.equal((await again.get("y")).recallCount, 0, `snapshots: ${snapshots}`);
      await again.close();
    }
  });

  test("an orphan's deletion never takes the tracking of a memory another handle stores meanwhile", async () => {
    const { inner, storeA, storeB } = await withOrphan({ snapshots: false });
    await storeA.close();
    await storeB.close();
    // Between the open's read of m/ and its read of r/, another handle stores y again and
    // recalls it: the open sees r/y without m/y, an orphan as far as it knows.
    const raced = new MemoryAdapterView(inner);
    let once = true;
    raced.entries = async (p) => {
      const out = await inner.entries(p);
      if (p === "m/" && once) {
        once = false;
        const other = await MemoryStore.open({ storage: new MemoryAdapterView(inner), clock: () => NOW, snapshots: false });
        await other.remember({ id: "y", text: "zebra stored meanwhile" });
        await other.recall("zebra meanwhile");
        await other.close();
      }
      return out;
    };
    const racing = await MemoryStore.open({ storage: raced, clock: () => NOW, snapshots: false });
    await racing.close();
    assert.ok(await inner.get("m/y"));
    assert.equal(decodeRecord(await inner.get("r/y")).data.recallCount, 1, "the live memory's tracking is kept");
    const reopened = await MemoryStore.open({ storage: new MemoryAdapterView(inner), clock: () => NOW, snapshots: false });
    assert.equal((await reopened.get("y")).recallCount, 1);
    await reopened.close();
  });

  test("a reader (readOnly) leaves orphans alone", async () => {
    const { inner, storeA, storeB } = await withOrphan({ snapshots: false });
    await storeA.close();
    await storeB.close();
    const reader = await MemoryStore.open({ storage: new MemoryAdapterView(inner), clock: () => NOW, snapshots: false, readOnly: true });
    await reader.close();
    assert.ok(await inner.get("r/y"));
  });
});

describe("write-sequence keys on a shared adapter (no handle can know it is alone)", () => {
  test("closed writers' meta/seq keys are deleted by a later snapshot, and opens still see every write", async () => {
    const { inner, handle } = sharedStorage();
    const live = await MemoryStore.open({ storage: handle().adapter, clock: () => NOW, snapshotEvery: 1 });
    await live.remember({ id: "live-0", text: "written by the handle that stays open" });
    for (let i = 0; i < 20; i++) {
      const store = await MemoryStore.open({ storage: handle().adapter, clock: () => NOW, snapshotEvery: 1 });
      await store.remember({ id: `m${i}`, text: `memory number ${i}` });
      await store.close();
    }
    const seqs = await inner.keys("meta/seq/");
    // The open handle's key, and the last closed one's, marked closed (no snapshot since).
    assert.ok(seqs.length <= 2, `meta/seq keys: ${seqs.length}`);
    const closed = [];
    for (const key of seqs) if (decodeRecord(await inner.get(key)).data.closed === true) closed.push(key);
    assert.equal(closed.length, seqs.length - 1, "every key but the open handle's says closed");
    // The open handle writes after the prunes: its batch is still replayed over the snapshot.
    await live.remember({ id: "live-1", text: "written after the others closed" });
    const fromSnapshot = await MemoryStore.open({ storage: new MemoryAdapterView(inner), clock: () => NOW, readOnly: true });
    assert.equal((await fromSnapshot.storageInfo()).openedFrom, "snapshot");
    assert.equal(fromSnapshot.size, 22);
    assert.ok(await fromSnapshot.get("live-1"));
    await fromSnapshot.close();
    await live.close();
    const fromRecords = await MemoryStore.open({ storage: new MemoryAdapterView(inner), clock: () => NOW, snapshots: false, readOnly: true });
    assert.equal(fromRecords.size, 22);
    await fromRecords.close();
  });
});

/** A read-and-write view of an adapter's storage that closing leaves alone. */
class MemoryAdapterView {
  #inner;
  constructor(inner) {
    this.#inner = inner;
  }
  get(k) { return this.#inner.get(k); }
  keys(p) { return this.#inner.keys(p); }
  entries(p) { return this.#inner.entries(p); }
  write(ops) { return this.#inner.write(ops); }
  async close() {}
}

describe("an engine that may have drifted from storage reads it again", () => {
  test("a change of another handle that failed to apply arrives once storage answers again", async () => {
    const { handle } = sharedStorage();
    const [a, b] = [handle(), handle()];
    let down = false;
    const flaky = {
      ...a.adapter,
      get: (k) => (down ? Promise.reject(new RecallError("storage_failed", "connection refused")) : a.adapter.get(k)),
    };
    const storeA = await MemoryStore.open({ storage: flaky, clock: () => NOW });
    const storeB = await MemoryStore.open({ storage: b.adapter, clock: () => NOW });
    await storeB.remember({ id: "x", text: "the answer is forty two" });
    down = true;
    a.deliver(); // A cannot read what B wrote
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(storeA.size, 0);
    down = false;
    const end = Date.now() + 5_000;
    while (storeA.size !== 1) {
      assert.ok(Date.now() < end, "A never caught up with B's write");
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal((await storeA.get("x")).text, "the answer is forty two");
    await storeA.close();
    await storeB.close();
  });

  test("a write that committed but lost its answer is in the engine once storage is read again", async () => {
    const { inner, handle } = sharedStorage();
    const { adapter } = handle();
    const lossy = {
      ...adapter,
      async write(ops) {
        await adapter.write(ops);
        if (ops.some((op) => op.key === "m/lost")) throw new RecallError("storage_failed", "Connection terminated unexpectedly");
      },
    };
    const store = await MemoryStore.open({ storage: lossy, clock: () => NOW });
    await rejectsWith(store.remember({ id: "lost", text: "committed, but the answer was lost" }), "storage_failed");
    assert.ok(await inner.get("m/lost"), "storage holds it");
    const end = Date.now() + 5_000;
    while ((await store.get("lost")) === undefined) {
      assert.ok(Date.now() < end, "the engine never learned what storage holds");
      await new Promise((r) => setTimeout(r, 50));
    }
    await rejectsWith(store.remember({ id: "lost", text: "again" }), "already_exists");
    await store.close();
  });
});

describe("a re-read after drift loads storage in bulk", () => {
  /** A handle of `sharedStorage` whose write of `m/<lostId>` commits but loses its answer, counting gets. */
  function lossyHandle(adapter, lostId) {
    const counts = { gets: 0 };
    const lossy = {
      ...adapter,
      get: (k) => { counts.gets++; return adapter.get(k); },
      async write(ops) {
        await adapter.write(ops);
        if (ops.some((op) => op.key === `m/${lostId}`)) throw new RecallError("storage_failed", "Connection terminated unexpectedly");
      },
    };
    return { lossy, counts };
  }

  async function until(check, what) {
    const end = Date.now() + 5_000;
    while (!(await check())) {
      assert.ok(Date.now() < end, what);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Everything a handle's engine holds, as a fresh open of `inner` would compare it. */
  async function contents(store) {
    const ids = (await store.ids()).sort();
    return {
      memories: await Promise.all(ids.map((id) => store.get(id))),
      notes: (await store.notes()).sort((x, y) => (x.id < y.id ? -1 : 1)),
      entities: (await store.entities()).sort((x, y) => (x.name < y.name ? -1 : 1)),
      edges: (await store.edges()).sort((x, y) => (x.id < y.id ? -1 : 1)),
    };
  }

  test("a re-read after drift reads every record in bulk and leaves the engine equal to storage", async () => {
    const { inner, handle } = sharedStorage();
    const [a, b] = [handle(), handle()];
    const { lossy, counts } = lossyHandle(a.adapter, "lost");
    const storeA = await MemoryStore.open({ storage: lossy, clock: () => NOW });
    const storeB = await MemoryStore.open({ storage: b.adapter, clock: () => NOW });
    await storeA.rememberMany(Array.from({ length: 300 }, (_, i) => ({ id: `m${i}`, text: `zebra crossing number ${i}` })));
    await storeA.addNote({ id: "n1", period: "daily", start: NOW, text: "A quiet day of zebras." });
    await storeA.relate({ from: "Alice", relation: "knows", to: "Bob" });
    await storeA.recall("zebra crossing", { limit: 3 });
    b.deliver();
    await until(async () => (await storeB.get("m1")) !== undefined, "B never heard of A's writes");
    // B's writes A never hears of: an update, a forget, a new memory, a note, an edge, a recall.
    await storeB.update("m1", { text: "zebra crossing renamed" });
    await storeB.forget("m2");
    await storeB.remember({ id: "fromB", text: "written by the other handle" });
    await storeB.addNote({ id: "n2", period: "weekly", start: NOW, text: "A week of B." });
    await storeB.relate({ from: "Bob", relation: "likes", to: "Carol" });
    await storeB.recall("written by the other handle", { limit: 1 });
    const gets = counts.gets;
    await rejectsWith(storeA.remember({ id: "lost", text: "committed, but the answer was lost" }), "storage_failed");
    await until(async () => (await storeA.get("lost")) !== undefined && (await storeA.get("fromB")) !== undefined,
      "A never read storage again");
    // One by one, 300 memories would take 600 gets (each with its tracking): in bulk, a handful.
    assert.ok(counts.gets - gets < 20, `${counts.gets - gets} gets`);
    const fresh = await MemoryStore.open({ storage: new MemoryAdapterView(inner), clock: () => NOW, readOnly: true, snapshots: false });
    assert.deepEqual(await contents(storeA), await contents(fresh));
    assert.equal((await storeA.get("fromB")).recallCount, 1);
    assert.equal(await storeA.get("m2"), undefined);
    // The replaced engine is the one calls use: writes and recalls go on.
    await storeA.remember({ id: "after", text: "zebra after the re-read" });
    assert.ok((await storeA.recall("zebra after")).results.some((r) => r.id === "after"));
    await fresh.close();
    await storeA.close();
    await storeB.close();
  });

  test("a recall waiting for its embedder while a re-read replaces the engine answers and keeps its tracking", async () => {
    const { inner, handle } = sharedStorage();
    const { lossy } = lossyHandle(handle().adapter, "lost");
    let release;
    const gate = new Promise((r) => { release = r; });
    let embedded = 0;
    const embed = async (texts) => {
      embedded++;
      await gate;
      return texts.map(() => [1, 0, 0]);
    };
    const store = await MemoryStore.open({ storage: lossy, clock: () => NOW, embed, embedTimeoutMs: 30_000 });
    await store.rememberMany([
      { id: "z1", text: "zebra stripes", embedding: [1, 0, 0] },
      { id: "z2", text: "a horse in a field", embedding: [0, 1, 0] },
    ]);
    await rejectsWith(store.remember({ id: "lost", text: "lost answer", embedding: [0, 0, 1] }), "storage_failed");
    const recall = store.recall("zebra stripes", { limit: 5 });
    await until(() => embedded === 1, "the recall never asked for its vector");
    await until(async () => (await store.get("lost")) !== undefined, "the engine was never read again");
    release();
    const { results } = await recall;
    assert.ok(results.some((r) => r.id === "z1"));
    assert.equal((await store.get("z1")).recallCount, 1, "the new engine holds the recall's tracking");
    await eventually(async () => (await inner.get("r/z1")) !== undefined, 5000, "the tracking written behind the answer");
    assert.equal(decodeRecord(await inner.get("r/z1")).data.recallCount, 1, "and storage does");
    await store.close();
  });
});
