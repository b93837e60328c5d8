// Group commit (js/src/writes.ts): writes queued together, or while a batch is being written,
// share one durable batch; each still applies alone and in call order, a failed batch undoes
// and rejects the whole group, a write refused for its own ops fails alone, and queued work that
// is not a write keeps its place. Real file stores in temporary directories, watched through a
// thin adapter that counts, holds back or fails their batches; a child process killed with
// SIGKILL for the crash check.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MemoryStore, MemoryAdapter, RecallError } from "../dist/index.js";
import { FileAdapter } from "../dist/storage/file.js";
import { decodeJournal, decodeSeq } from "../dist/storage/layout.js";
import { rejectsWith } from "./support/errors.mjs";
import { groupText } from "./support/group-writer.mjs";
import { NOW } from "./support/stores.mjs";
import { tempRoot } from "./support/temp.mjs";
import { eventually } from "./support/wait.mjs";
import { rng } from "./support/rng.mjs";

const { fresh } = tempRoot("group");
const groupWriter = fileURLToPath(new URL("./support/group-writer.mjs", import.meta.url));

/**
 * `adapter` behind a handle that records each batch it stored (`batches`: the keys of each, in
 * order), counts every batch it was handed (`attempts`), holds batches back while `hold` is a
 * promise, and fails them while `fail` names an error code.
 */
function watched(adapter) {
  const handle = {
    batches: [],
    attempts: 0,
    hold: undefined,
    fail: undefined,
    checksCreates: true,
    get: (k) => adapter.get(k),
    entries: (p) => adapter.entries(p),
    keys: (p) => adapter.keys(p),
    write: async (ops) => {
      handle.attempts++;
      if (handle.hold !== undefined) await handle.hold;
      if (handle.fail !== undefined) throw new RecallError(handle.fail, "injected write failure");
      await adapter.write(ops);
      handle.batches.push(ops.map((op) => op.key));
    },
    close: () => adapter.close(),
  };
  return handle;
}

/** A promise and the function that resolves it. */
function gate() {
  let open;
  const closed = new Promise((resolve) => { open = resolve; });
  return { closed, open };
}

function vec(i, dims = 8) {
  return Float32Array.from({ length: dims }, (_, j) => Math.sin(i * 3.1 + j) + (j === i % dims ? 2 : 0));
}

const memoryKeys = (keys) => keys.filter((k) => k.startsWith("m/"));

/** A file store in a new directory behind {@link watched}, and how to open it again plainly. */
async function openWatched(extra = {}) {
  const path = fresh("store");
  const raw = watched(await FileAdapter.open({ path }));
  const store = await MemoryStore.open({ storage: raw, clock: () => NOW, snapshots: false, ...extra });
  return { store, raw, reopen: () => MemoryStore.open({ storage: "file", path, readOnly: true }) };
}

/** What the store shows of its memories, notes, entities and edges. */
async function stateOf(store) {
  const memories = [];
  for (const id of await store.ids()) memories.push({ ...(await store.get(id)), embedding: [...((await store.getEmbedding(id)) ?? [])] });
  return { memories, dimensions: store.dimensions, notes: await store.notes(), entities: await store.entities(), edges: await store.edges() };
}

describe("group commit", () => {
  test("concurrent remembers share one durable batch, and none resolves before it is durable", async () => {
    const path = fresh("plain");
    const raw = watched(await FileAdapter.open({ path }));
    const store = await MemoryStore.open({ storage: raw, clock: () => NOW }); // journaled: snapshots on
    const before = raw.batches.length;
    const seen = [];
    const ids = await Promise.all(Array.from({ length: 200 }, (_, i) => store.remember({ text: `memory number ${i}` }).then((id) => {
      seen.push(raw.batches.length - before);
      return id;
    })));
    assert.equal(raw.batches.length - before, 1, "one adapter write for the 200 memories");
    assert.ok(seen.every((n) => n === 1), "every remember resolved after its batch was stored");
    const [batch] = raw.batches.slice(before);
    assert.deepEqual(memoryKeys(batch), ids.map((id) => `m/${id}`), "in call order");
    assert.equal(batch.filter((k) => k.startsWith("meta/seq/")).length, 1, "one batch number");
    const journal = batch.filter((k) => k.startsWith("meta/journal/"));
    assert.equal(journal.length, 1, "one journal entry");
    assert.deepEqual(decodeJournal(await raw.get(journal[0])).keys, ids.map((id) => `m/${id}`), "listing every key of the group");
    // Awaited one by one, each write is a batch of its own, as before.
    for (let i = 0; i < 3; i++) await store.remember({ text: `awaited ${i}` });
    assert.equal(raw.batches.length - before, 4);
    await store.close();

    const again = await MemoryStore.open({ storage: "file", path, readOnly: true });
    assert.equal(again.size, 203);
    assert.deepEqual((await again.ids()).slice(0, 200), ids);
    await again.close();
  });

  test("on a plain file store, 100 remembers at once are one frame of the log: one batch number", async () => {
    const path = fresh("frames");
    const store = await MemoryStore.open({ storage: "file", path });
    await Promise.all(Array.from({ length: 100 }, (_, i) => store.remember({ text: `memory number ${i}` })));
    await store.close();
    const file = await FileAdapter.open({ path, readOnly: true });
    try {
      const seqs = await file.entries("meta/seq/");
      assert.equal(seqs.length, 1);
      assert.equal(decodeSeq(seqs[0][1], seqs[0][0]), 1, "the handle wrote one batch");
      assert.equal((await file.keys("m/")).length, 100);
    } finally {
      await file.close();
    }
  });

  test("writes queued while a batch is being written share the next batch", async () => {
    const { store, raw, reopen } = await openWatched();
    const held = gate();
    raw.hold = held.closed;
    const first = store.remember({ id: "first", text: "written alone" });
    await eventually(() => raw.attempts === 1, 2000, "the first batch handed to the adapter");
    const rest = Array.from({ length: 50 }, (_, i) => store.remember({ id: `r${i}`, text: `queued meanwhile ${i}` }));
    raw.hold = undefined;
    held.open();
    await Promise.all([first, ...rest]);
    assert.deepEqual(raw.batches.map((keys) => memoryKeys(keys).length), [1, 50]);
    await store.close();
    const again = await reopen();
    assert.equal(again.size, 51);
    await again.close();
  });

  test("a failed group commit rejects every write of the group and stores none of them", async () => {
    const { store, raw, reopen } = await openWatched();
    await store.remember({ id: "kept", text: "stored before the failure" });
    await store.addEntity({ name: "Alice" });
    const before = await stateOf(store);
    raw.fail = "quota_exceeded";
    const attempts = raw.attempts;
    const calls = [
      store.remember({ id: "a", text: "the first vector fixes the dimension", embedding: vec(1) }),
      store.update("kept", { text: "changed", topic: "work" }),
      store.relate({ from: "Alice", relation: "knows", to: "Bob" }),
      store.addNote({ id: "n", period: "daily", start: NOW, text: "a note" }),
      store.rememberMany([{ id: "b", text: "one" }, { id: "c", text: "two", embedding: vec(2) }]),
      store.update("a", { tags: ["on top of a write of the same group"] }),
    ];
    const results = await Promise.allSettled(calls);
    assert.equal(raw.attempts - attempts, 1, "one batch for the group");
    for (const [i, r] of results.entries()) {
      assert.equal(r.status, "rejected", `call ${i}`);
      assert.equal(r.reason.code, "quota_exceeded", `call ${i}: ${r.reason.message}`);
    }
    assert.deepEqual(await stateOf(store), before, "the engine shows none of them, and the dimension is unset again");
    assert.equal((await store.status()).tier, "readonly");
    raw.fail = undefined;
    await store.remember({ id: "later", text: "storage works again" });
    assert.equal((await store.status()).tier, "basic", "the next write taken ends readonly (basic: no embedder)");
    const after = await stateOf(store);
    await store.close();
    const again = await reopen();
    assert.deepEqual(await stateOf(again), after);
    assert.equal(await again.get("a"), undefined);
    await again.close();
  });

  test("an invalid write in a group rejects alone; the others share the batch", async () => {
    const { store, raw, reopen } = await openWatched();
    await store.remember({ id: "old", text: "already stored" });
    const batches = raw.batches.length;
    const results = await Promise.allSettled([
      store.remember({ id: "a", text: "fixes the dimension at 8", embedding: vec(1) }),
      store.remember({ id: "b", text: "a vector of 4 after one of 8", embedding: vec(2, 4) }),
      store.update("missing", { text: "no such memory" }),
      store.remember({ id: "old", text: "an id the store holds" }),
      store.remember({ id: "c", text: "after the refused ones", embedding: vec(3) }),
      store.forget("a"), // sees a, written by this group
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "rejected", "rejected", "fulfilled", "fulfilled"]);
    assert.deepEqual(results.filter((r) => r.status === "rejected").map((r) => r.reason.code), ["dimension_mismatch", "not_found", "already_exists"]);
    assert.equal(raw.batches.length - batches, 1, "one batch for the writes that applied");
    assert.deepEqual(memoryKeys(raw.batches.at(-1)), ["m/a", "m/c", "m/a"]);
    assert.deepEqual(await store.ids(), ["old", "c"]);
    assert.equal(store.dimensions, 8);
    await store.close();
    const again = await reopen();
    assert.deepEqual(await again.ids(), ["old", "c"]);
    assert.equal(again.dimensions, 8);
    await again.close();
  });

  test("a write refused in a group leaves the dimension an earlier write of the group fixed", async () => {
    const { store, reopen } = await openWatched();
    const results = await Promise.allSettled([
      store.remember({ id: "a", text: "its vector fixes the dimension at 8", embedding: vec(1) }),
      store.update("a", { embedding: null }), // the engine holds no vector now, the dimension stays
      store.update("missing", { topic: "refused: no such memory" }),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "fulfilled", "rejected"]);
    assert.equal(store.dimensions, 8, "as when each write commits alone");
    await rejectsWith(store.remember({ id: "b", text: "a vector of 4", embedding: vec(2, 4) }), "dimension_mismatch");
    await store.close();
    const again = await reopen();
    assert.equal(again.dimensions, 8);
    await again.close();
  });

  test("on a memory store, which commits no batch, a refused write leaves the dimension an earlier write fixed", async () => {
    const store = await MemoryStore.open({ storage: "memory", clock: () => NOW });
    await store.remember({ id: "a", text: "its vector fixes the dimension at 8", embedding: vec(1) });
    await store.update("a", { embedding: null });
    await rejectsWith(store.update("missing", { topic: "refused: no such memory" }), "not_found");
    assert.equal(store.dimensions, 8);
    await store.close();
  });

  test("a key another handle created fails that write alone: the group runs again one write at a time", async () => {
    const shared = new MemoryAdapter();
    const handle = () => {
      const h = watched(shared);
      h.close = async () => undefined; // the data outlives each handle
      return h;
    };
    // No snapshots: without a change feed between them, each handle's would miss the other's writes.
    const open = (storage) => MemoryStore.open({ storage, clock: () => NOW, snapshots: false });
    const other = await open(handle());
    const raw = handle();
    const store = await open(raw);
    await other.remember({ id: "taken", text: "written by the other handle" });
    const attempts = raw.attempts;
    const results = await Promise.allSettled([
      store.remember({ id: "x", text: "first of the group" }),
      store.remember({ id: "taken", text: "the same id, unknown to this engine" }),
      store.update("x", { topic: "on top of x" }),
      store.remember({ id: "y", text: "last of the group" }),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    await rejectsWith(Promise.reject(results[1].reason), "already_exists", /m\/taken/);
    assert.equal(raw.attempts - attempts, 5, "the group's batch, then one per write");
    assert.deepEqual(await store.ids(), ["x", "y"]);
    assert.equal((await store.get("x")).topic, "on top of x");
    assert.equal((await store.status()).storage.tier, "full", "a conflict is not storage refusing writes");
    await store.close();
    await other.close();
    const again = await open(handle());
    assert.deepEqual((await again.ids()).sort(), ["taken", "x", "y"]);
    assert.equal((await again.get("taken")).text, "written by the other handle");
    await again.close();
  });

  test("a job queued between two writes keeps its place: a group never reaches past it", async () => {
    const { store, raw } = await openWatched();
    await store.remember({ id: "g", text: "the garden gate" });
    const held = gate();
    raw.hold = held.closed;
    const first = store.remember({ id: "first", text: "in flight" });
    await eventually(() => raw.attempts === 2, 2000, "the batch handed to the adapter");
    const before = store.remember({ id: "before", text: "queued before the recall" });
    // A tracked recall answers at once and queues its tracking flush: a job that is not a write.
    assert.equal((await store.recall("garden", { now: NOW + 5 })).results[0].id, "g");
    const behind = store.remember({ id: "behind", text: "queued after the recall" });
    raw.hold = undefined;
    held.open();
    await Promise.all([first, before, behind]);
    // The tracking batch holds r/g alone (a remember of a given id deletes its r/<id> too).
    const tracking = () => raw.batches.findIndex((keys) => keys.includes("r/g") && !keys.includes("m/g"));
    await eventually(() => tracking() >= 0, 2000, "the tracking written");
    const at = (key) => raw.batches.findIndex((keys) => keys.includes(key));
    assert.ok(at("m/first") < at("m/before") && at("m/before") < tracking() && tracking() < at("m/behind"),
      `batches in call order: ${JSON.stringify(raw.batches.slice(1))}`);
    await store.close();
  });

  test("a write still waiting for its embedder does not hold back the writes before it", async () => {
    const slow = gate();
    const embed = async (texts) => {
      if (texts.some((t) => t.startsWith("slow"))) await slow.closed;
      return texts.map((_, i) => vec(i));
    };
    const { store, raw, reopen } = await openWatched({ embed });
    const fast = store.remember({ id: "fast", text: "has its vector", embedding: vec(9) });
    const waiting = store.remember({ id: "slow", text: "slow to embed" });
    const after = store.remember({ id: "after", text: "behind it, with its vector", embedding: vec(8) });
    const timeout = new Promise((resolve) => setTimeout(() => resolve("timeout"), 2000));
    assert.equal(await Promise.race([fast, timeout]), "fast", "acknowledged while the next write waits for its embedder");
    const reword = store.update("fast", { text: "a new text, embedded inside the write" });
    slow.open();
    await Promise.all([waiting, after, reword]);
    assert.deepEqual(raw.batches.map(memoryKeys), [["m/fast"], ["m/slow", "m/after"], ["m/fast"]]);
    await store.close();
    const again = await reopen();
    assert.deepEqual(await again.ids(), ["fast", "slow", "after"]);
    await again.close();
  });

  test("a forget ends its group: the write after it sees the memory gone", async () => {
    const { store, raw, reopen } = await openWatched();
    await store.remember({ id: "x", text: "to be forgotten" });
    const batches = raw.batches.length;
    const results = await Promise.allSettled([
      store.remember({ id: "y", text: "before the forget" }),
      store.forget("x"),
      store.remember({ id: "x", text: "the same id again" }),
      store.forget("y"),
      store.forget("y"),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled", "fulfilled", "rejected"]);
    assert.equal(results[4].reason.code, "not_found");
    assert.deepEqual(raw.batches.slice(batches).map(memoryKeys), [["m/y", "m/x"], ["m/x", "m/y"]]);
    assert.deepEqual(await store.ids(), ["x"]);
    await store.close();
    const again = await reopen();
    assert.equal((await again.get("x")).text, "the same id again");
    await again.close();
  });

  test("a group is bounded: 2,500 remembers at once are written in batches of at most 1000 ops", async () => {
    const { store, raw, reopen } = await openWatched();
    await Promise.all(Array.from({ length: 2500 }, (_, i) => store.remember({ text: `bounded ${i}` })));
    assert.deepEqual(raw.batches.map((keys) => memoryKeys(keys).length), [1000, 1000, 500]);
    await store.close();
    const again = await reopen();
    assert.equal(again.size, 2500);
    await again.close();
  });

  test("every acknowledged write of a group is there after a kill -9 and a reopen", async () => {
    const path = fresh("crash");
    const random = rng(20261201);
    let acked = [];
    for (let run = 0; run < 8; run++) {
      const out = await runAndKill(path, run * 1_000_000, 1 + Math.floor(random.next() * 2 ** 31), random.int(200));
      const ids = out.split("\n").slice(0, -1).filter((line) => line !== "ready").map(Number);
      acked = acked.concat(ids);
      const store = await MemoryStore.open({ storage: "file", path, readOnly: true });
      try {
        for (const id of acked) {
          const memory = await store.get(`g${id}`);
          assert.equal(memory?.text, groupText(id), `run ${run}: acknowledged memory g${id} is there`);
        }
        for (const id of await store.ids()) assert.equal((await store.get(id)).text, groupText(Number(id.slice(1))), `${id} is whole`);
      } finally {
        await store.close();
      }
    }
  });
});

/** Starts group-writer.mjs on `dir` and SIGKILLs it `delayMs` after its first acknowledged write; resolves with its output. */
function runAndKill(dir, first, seed, delayMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [groupWriter, dir, String(first), String(seed)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let timer;
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      out += chunk;
      if (timer === undefined && /^\d+$/m.test(out)) timer = setTimeout(() => child.kill("SIGKILL"), delayMs);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => { err += chunk; });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (signal !== "SIGKILL") reject(new Error(`the writer exited by itself (code ${code}): ${err}`));
      else resolve(out);
    });
  });
}
