// A rejected write changes nothing, in memory or on disk, configuration included: the exact
// reproductions of the tester's findings, then a seeded property test of random operations
// against a model with random failures injected into a real file store's writes.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { rng } from "./support/rng.mjs";
import { MemoryStore } from "../dist/index.js";
import { FileAdapter } from "../dist/storage/file.js";
import { tempRoot } from "./support/temp.mjs";

const { fresh } = tempRoot("trust");

const line = (o) => JSON.stringify({ v: 1, ...o });
const file = (...lines) => `${lines.join("\n")}\n`;
const meta = (data) => line({ kind: "meta", data: { format: 1, signatureSeed: "0000000000000001", ...data } });

describe("a rejected import changes nothing", () => {
  test("an import rejected for its dimension leaves a store that takes writes and reopens", async () => {
    const path = fresh("s");
    let store = await MemoryStore.open({ storage: "file", path });
    await assert.rejects(store.import(file(meta({ dimensions: 5000 }))), (e) => e.code === "corrupt" && /line 1/.test(e.message));
    assert.equal(store.dimensions, undefined);
    await store.remember({ text: "x" });
    await store.close();
    store = await MemoryStore.open({ storage: "file", path });
    assert.equal(store.size, 1);
    assert.equal(store.dimensions, undefined);
    await store.remember({ text: "y", embedding: [1, 2, 3] });
    assert.equal(store.dimensions, 3);
    await store.close();
  });

  test("an import batch rejected for a bad memory line keeps the store's dimension and seed, durably", async () => {
    const path = fresh("s");
    let store = await MemoryStore.open({ storage: "file", path });
    const seed = Buffer.from(await (async () => {
      await store.remember({ id: "probe", text: "probe" });
      return store.getSignature("probe");
    })()).toString("hex");
    await store.forget("probe");
    await assert.rejects(store.import(file(
      meta({ dimensions: 8, signatureSeed: "00000000000000ff" }),
      line({ kind: "memory", data: { id: "bad", text: 5 } }),
    )), (e) => e.code === "invalid_argument");
    assert.equal(store.dimensions, undefined);
    await store.remember({ id: "three", text: "three dims", embedding: [1, 0, 0] });
    await store.remember({ id: "probe", text: "probe" });
    assert.equal(Buffer.from(await store.getSignature("probe")).toString("hex"), seed, "the signature seed is unchanged");
    await store.close();
    store = await MemoryStore.open({ storage: "file", path });
    assert.equal(store.dimensions, 3);
    assert.equal(Buffer.from(await store.getSignature("probe")).toString("hex"), seed);
    assert.deepEqual((await store.ids()).sort(), ["probe", "three"]);
    await store.close();
  });

  test("an import that lands takes the file's dimension and seed", async () => {
    const path = fresh("s");
    let store = await MemoryStore.open({ storage: "file", path });
    await store.import(file(meta({ dimensions: 2 }), line({ kind: "memory", data: { id: "a", text: "alpha" }, embedding: [1, 0] })));
    assert.equal(store.dimensions, 2);
    await store.close();
    store = await MemoryStore.open({ storage: "file", path });
    assert.equal(store.dimensions, 2);
    assert.equal((await store.get("a")).text, "alpha");
    await store.close();
  });
});

/** A real file store whose writes fail on demand, before anything reaches the file. */
class FlakyFiles {
  constructor(inner) {
    this.inner = inner;
    this.failNext = false;
  }
  get(key) { return this.inner.get(key); }
  keys(prefix) { return this.inner.keys(prefix); }
  entries(prefix) { return this.inner.entries(prefix); }
  close() { return this.inner.close(); }
  async write(ops) {
    if (this.failNext) {
      this.failNext = false;
      throw new Error("injected: disk full");
    }
    return this.inner.write(ops);
  }
}

test("a first vector whose write fails leaves the dimension free", async () => {
  const flaky = new FlakyFiles(await FileAdapter.open({ path: fresh("s") }));
  const store = await MemoryStore.open({ storage: flaky });
  flaky.failNext = true;
  await assert.rejects(store.remember({ id: "a", text: "a", embedding: [1, 0, 0] }), (e) => e.code === "storage_failed");
  assert.equal(store.dimensions, undefined);
  assert.equal(store.size, 0);
  await store.remember({ id: "b", text: "b", embedding: [1, 0, 0, 0, 0, 0, 0, 0] });
  assert.equal(store.dimensions, 8);
  await store.close();
});


test("a graph write stores only the records it touches, and a failed one changes nothing", async () => {
  const path = fresh("s");
  const flaky = new FlakyFiles(await FileAdapter.open({ path }));
  /** The record keys (entities, edges) of each batch written. */
  const batches = [];
  const recording = Object.create(flaky);
  recording.write = (ops) => {
    batches.push(ops.map((op) => `${op.op} ${op.key}`).filter((k) => / [eg]\//.test(k)).sort());
    return flaky.write(ops);
  };
  let store = await MemoryStore.open({ storage: recording, clock: () => 1_800_000_000_000 });
  for (let i = 0; i < 60; i++) await store.relate({ from: `person ${i}`, relation: "knows", to: `person ${i + 1}` });
  const last = () => batches.at(-1);
  await store.relate({ from: "person 3", relation: "likes", to: "Newbie" });
  assert.deepEqual(last(), ["put e/Newbie", "put g/person 3|likes|newbie"]);
  await store.relate({ from: "person 3", relation: "likes", to: "newbie", strength: 0.9 });
  assert.deepEqual(last(), ["put g/person 3|likes|newbie"], "an existing edge, updated");
  await store.addEntity({ name: "person 5", aliases: ["P5"] });
  assert.deepEqual(last(), ["put e/person 5"]);
  await store.forgetEntity("person 10");
  assert.deepEqual(last(), ["delete e/person 10", "delete g/person 10|knows|person 11", "delete g/person 9|knows|person 10"]);
  const before = { entities: await store.entities(), edges: await store.edges() };
  for (const write of [
    () => store.relate({ from: "person 1", relation: "likes", to: "Stranger" }),
    () => store.addEntity({ name: "person 2", aliases: ["P2"] }),
    () => store.forgetEntity("person 20"),
    () => store.unrelate({ from: "person 30", to: "person 31" }),
  ]) {
    flaky.failNext = true;
    await assert.rejects(write(), (e) => e.code === "storage_failed");
    assert.deepEqual({ entities: await store.entities(), edges: await store.edges() }, before);
  }
  await store.close();
  store = await MemoryStore.open({ storage: "file", path });
  assert.deepEqual({ entities: await store.entities(), edges: await store.edges() }, before, "what was stored");
  await store.close();
});


const WORDS = ["garden", "invoice", "paris", "meeting", "sqlite", "deploy", "friday", "coffee", "budget", "tram"];

describe("random writes with random failures against a model", () => {
  // Many short runs: each starts empty, where a failed first vector or import can leak a
  // dimension or seed.
  for (let seed = 1; seed <= 24; seed++) {
    test(`seed ${seed}: the store equals the model after every operation and after reopening`, async () => {
      const r = rng(seed);
      const path = fresh("s");
      const flaky = new FlakyFiles(await FileAdapter.open({ path }));
      let store = await MemoryStore.open({ storage: flaky, clock: () => 1_800_000_000_000 });
      /** id → { text, dims } of what the store must hold. */
      const model = new Map();
      let dims; // the model's dimension, fixed by the first vector that landed
      const vector = (n) => Array.from({ length: n }, (_, i) => (i === 0 ? 1 : r.next()));
      const text = () => Array.from({ length: 2 + r.int(4) }, () => r.pick(WORDS)).join(" ");
      for (let step = 0; step < 40; step++) {
        const fail = r.next() < 0.25;
        flaky.failNext = fail;
        const op = r.int(6);
        const id = `m${r.int(25)}`;
        const n = r.pick([3, 4]);
        const withVector = r.next() < 0.5;
        let expected;
        let ok = true;
        try {
          if (op === 0) {
            const t = text();
            expected = !fail && !model.has(id) && (!withVector || dims === undefined || dims === n);
            await store.remember({ id, text: t, ...(withVector ? { embedding: vector(n) } : {}) });
            model.set(id, t);
            if (withVector) dims ??= n;
          } else if (op === 1) {
            const items = [id, `m${r.int(25)}`].filter((x, i, a) => a.indexOf(x) === i).map((x) => ({ id: x, text: text(), embedding: vector(n) }));
            expected = !fail && items.every((i) => !model.has(i.id)) && (dims === undefined || dims === n);
            await store.rememberMany(items);
            for (const i of items) model.set(i.id, i.text);
            dims ??= n;
          } else if (op === 2) {
            const t = text();
            expected = !fail && model.has(id);
            await store.update(id, { text: t });
            model.set(id, t);
          } else if (op === 3) {
            expected = !fail && model.has(id);
            await store.forget(id);
            model.delete(id);
          } else if (op === 4) {
            const empty = model.size === 0 && (await store.notes()).length === 0 && (await store.entities()).length === 0;
            const t = text();
            expected = !fail && !model.has(id) && (empty || dims === undefined || dims === n);
            await store.import(file(meta({ dimensions: n }), line({ kind: "memory", data: { id, text: t }, embedding: vector(n) })));
            model.set(id, t);
            if (empty || dims === undefined) dims = n;
          } else {
            expected = false;
            await store.import(file(meta({ dimensions: n }), line({ kind: "memory", data: { id, text: 5 } })));
          }
        } catch (e) {
          ok = false;
          assert.equal(typeof e.code, "string", `step ${step}: ${e.stack}`);
        }
        flaky.failNext = false;
        assert.equal(ok, expected, `step ${step}: op ${op} ${ok ? "succeeded" : "failed"}`);
        assert.equal(store.dimensions, dims, `step ${step}: dimension`);
        assert.equal(store.size, model.size, `step ${step}`);
      }
      const check = async (s, when) => {
        assert.deepEqual((await s.ids()).sort(), [...model.keys()].sort(), when);
        for (const [id, t] of model) assert.equal((await s.get(id)).text, t, `${when}: ${id}`);
      };
      await check(store, "before reopening");
      await store.close();
      store = await MemoryStore.open({ storage: "file", path });
      await check(store, "after reopening");
      if (dims !== undefined) assert.equal(store.dimensions, dims);
      await store.close();
    });
  }
});

describe("names are compared exactly as given or rejected", () => {
  const lone = ["x\ud800y", "dup\ud800", "dup\udc00", "Ana\ud83d", "\udfff"];
  for (const storage of ["memory", "file"]) {
    test(`${storage} store: an id, userId, topic, tag, type or tier holding a lone surrogate is invalid_argument, and nothing is stored`, async () => {
      const store = await MemoryStore.open(storage === "file" ? { storage, path: fresh("s") } : { storage });
      for (const bad of lone) {
        for (const field of ["id", "userId", "topic", "type", "tier"]) {
          await assert.rejects(store.remember({ text: "t", [field]: bad }), (e) => e.code === "invalid_argument" && e.message.includes(field), `${field}`);
        }
        await assert.rejects(store.remember({ text: "t", tags: ["ok", bad] }), (e) => e.code === "invalid_argument" && /tags\[1\]/.test(e.message));
        await assert.rejects(store.get(bad), (e) => e.code === "invalid_argument");
        await assert.rejects(store.forget(bad), (e) => e.code === "invalid_argument");
      }
      assert.equal(store.size, 0);
      // A well-formed pair is a name like any other, kept exactly.
      await store.remember({ id: "crab🦀", text: "t", userId: "Ana😀" });
      assert.deepEqual(await store.ids(), ["crab🦀"]);
      assert.equal((await store.get("crab🦀")).userId, "Ana😀");
      await store.close();
    });
  }

  test("a recall whose userId holds a lone surrogate is rejected, never matched to another user", async () => {
    const store = await MemoryStore.open({ storage: "memory" });
    await store.remember({ text: "ana's garden plans", userId: "Ana😀" });
    // "Ana\ud83d" and "Ana\ud83c" are two emoji names cut in the middle.
    for (const userId of ["Ana\ud83d", "Ana\ud83c", "Ana\ude00"]) {
      await assert.rejects(store.recall("garden", { userId }), (e) => e.code === "invalid_argument" && /userId/.test(e.message));
    }
    assert.equal((await store.recall("garden", { userId: "Ana😀" })).results.length, 1);
    await store.close();
  });

  test("notes, entities and relations name things too", async () => {
    const store = await MemoryStore.open({ storage: "memory" });
    await assert.rejects(store.addNote({ id: "n\ud800", period: "daily", start: 0, text: "x" }), (e) => e.code === "invalid_argument");
    await assert.rejects(store.addEntity({ name: "Ana\ud83d" }), (e) => e.code === "invalid_argument");
    await assert.rejects(store.addEntity({ name: "Ana", aliases: ["A\udc00"] }), (e) => e.code === "invalid_argument");
    await assert.rejects(store.relate({ from: "Ana", relation: "knows\ud800", to: "Bo" }), (e) => e.code === "invalid_argument");
    assert.equal((await store.notes()).length, 0);
    assert.equal((await store.entities()).length, 0);
    await store.close();
  });

  test("an imported file holds names to the same rule: a lone surrogate in an id or userId is invalid_argument naming the line", async () => {
    const store = await MemoryStore.open({ storage: "memory" });
    const mem = (data) => line({ kind: "memory", data: { text: "t", createdAt: 1, ...data } });
    await store.import(file(mem({ id: "ok" })));
    for (const [data, field] of [[{ id: "x\ud800y" }, "id"], [{ id: "a", userId: "Ana\ud83d" }, "userId"], [{ id: "b", tags: ["t", "\udc00"] }, "tags\\[1\\]"]]) {
      await assert.rejects(store.import(file(mem({ id: "fine" }), mem(data))),
        (e) => e.code === "invalid_argument" && new RegExp(`line 2: ${field}`).test(e.message), JSON.stringify(data));
    }
    await assert.rejects(store.import(file(line({ kind: "note", data: { id: "n\ud800", period: "daily", start: 0, text: "x" } }))),
      (e) => e.code === "invalid_argument");
    await assert.rejects(store.import(file(line({ kind: "entity", data: { name: "Bo\ud800", createdAt: 0 } }))), (e) => e.code === "invalid_argument");
    assert.deepEqual(await store.ids(), ["ok"]);
    await store.close();
  });

  test("text the store only searches keeps the documented mending: a lone surrogate becomes U+FFFD", async () => {
    const store = await MemoryStore.open({ storage: "memory" });
    await store.remember({ id: "t", text: "half \ud83d of a face" });
    assert.equal((await store.get("t")).text, "half \ufffd of a face");
    await store.close();
  });
});

test("a query at the length limit is read up to its caps: a repeated word counts four times", async () => {
  const store = await MemoryStore.open({ storage: "memory", clock: () => 1_800_000_000_000 });
  await store.rememberMany([{ id: "a", text: "aaaa bbbb" }, { id: "b", text: "aaaa aaaa aaaa aaaa aaaa cccc" }]);
  const long = await store.recall("aaaa ".repeat(3276), { trackRecalls: false });
  const four = await store.recall("aaaa aaaa aaaa aaaa", { trackRecalls: false });
  assert.deepEqual(long.results.map((r) => [r.id, r.score]), four.results.map((r) => [r.id, r.score]));
  // A word longer than 256 bytes is not read; the rest of the question is.
  const res = await store.recall(`${"x".repeat(10_000)} cccc`, { trackRecalls: false });
  assert.deepEqual(res.results.map((r) => r.id), ["b"]);
  await store.close();
});
