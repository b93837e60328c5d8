// The boundary between the TypeScript store and the WebAssembly engine (js/src/engine.ts,
// js/src/wire.ts, src/wire/, src/wasm.rs): records, options and errors through
// serde-wasm-bindgen, a batch of memories through the binary record batch; strings, numbers
// kept bit for bit, bigint seeds, and error messages that name the field.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { MemoryStore } from "../dist/index.js";
import { Engine, randomId } from "../dist/engine.js";
import { RECORD_KEY_NAMES, encodeRecordsView } from "../dist/wire.js";
import { MEMORY_FIELD_NAMES, toRecord } from "../dist/validate.js";
import { decodeRecord, encodeRecord, toJsonLine } from "../dist/storage/codec.js";
import { withTempDir } from "./support/temp.mjs";

const open = (options = {}) => MemoryStore.open({ storage: "memory", clock: () => 1_750_000_000_000, ...options });

describe("engine boundary", () => {
  test("text with quotes, backslashes, control characters and astral characters round-trips", async () => {
    const store = await open();
    const text = 'He said "C:\\\\new\\u0041 folder"\n\ttabs \u0001 and 🦀 crabs, "\\ud800" as text, ünïcödé';
    await store.remember({ id: "m1", text, tags: ["a\\b", "q\"t", "日本語"] });
    const m = await store.get("m1");
    assert.equal(m.text, text);
    assert.deepEqual(m.tags, ["a\\b", "q\"t", "日本語"]);
    const { results } = await store.recall("crabs folder", { limit: 3 });
    assert.equal(results[0].text, text);
  });

  test("a lone surrogate becomes U+FFFD, as in every string passed to WebAssembly", async () => {
    const store = await open();
    await store.remember({ id: "m1", text: "broken \ud800 pair and \udfff tail" });
    assert.equal((await store.get("m1")).text, "broken \ufffd pair and \ufffd tail");
    await store.rememberMany([{ id: "m2", text: "x\udbffy 🦀" }]);
    assert.equal((await store.get("m2")).text, "x\ufffdy 🦀");
  });

  test("numbers cross bit for bit, one record through serde and a batch through the record batch", async () => {
    await open(); // loads the module
    const numbers = [0, 1, -1, 0.1, 1e300, -2.5e-310, 2 ** 53, -(2 ** 53), 2 ** 53 + 2, 1_750_000_000_123,
      Number.MAX_VALUE, Number.MIN_VALUE, 127, 128, -64, -65, 2 ** 31, -(2 ** 31) - 1];
    const one = new Engine({});
    const many = new Engine({});
    try {
      const records = numbers.map((n, i) => ({ id: `m${i}`, text: "x", createdAt: n, updatedAt: 1, recallTimestamps: [n] }));
      for (const r of records) one.insert(r);
      many.insertMany(records, new Float32Array(0), new Uint8Array(records.length));
      numbers.forEach((n, i) => {
        for (const engine of [one, many]) {
          const m = engine.get(`m${i}`);
          assert.ok(Object.is(m.createdAt, n) && Object.is(m.recallTimestamps[0], n), `${n} came back as ${m.createdAt}`);
        }
      });
    } finally {
      one.free();
      many.free();
    }
  });

  test("fields a memory leaves unset stay out of the wire record and of the stored one", async () => {
    // Records have every field, unset ones undefined (one hidden class for all of them; the
    // field list itself: fields.test.mjs).
    const { record, embedding } = toRecord({ text: "only a text", topic: "t", embedding: [1, 2] }, 5, () => "new-id");
    assert.deepEqual([...embedding], [1, 2]);
    const set = { id: "new-id", text: "only a text", topic: "t", createdAt: 5, updatedAt: 5 };
    assert.deepEqual(decodeRecord(encodeRecord({ kind: "memory", data: { ...record } })).data, set);
    assert.deepEqual(JSON.parse(toJsonLine({ kind: "memory", data: record })).data, set);
    // Through a file store and back.
    await withTempDir("boundary", async (dir) => {
      let store = await MemoryStore.open({ storage: "file", path: dir, clock: () => 1_750_000_000_000 });
      await store.rememberMany([{ id: "a", text: "only a text", topic: "t" }, { id: "b", text: "and tags", tags: ["x"] }]);
      await store.close();
      store = await MemoryStore.open({ storage: "file", path: dir });
      const a = await store.get("a");
      assert.deepEqual(Object.keys(a).filter((k) => a[k] === undefined), []);
      assert.equal(a.tags, undefined);
      assert.deepEqual((await store.get("b")).tags, ["x"]);
      await store.close();
    });
  });

  test("the record encoder writes every field the engine reads, and the engine reads them as objects", () => {
    // The lists of fields agree (fields.test.mjs); here, the encoder and the engine.
    const full = toRecord({
      id: "m-1", text: "Zoë's text", textEn: "Zoe's text", keywords: ["k1", "k2"], userId: "u",
      topic: "t", tags: ["a", "b"], type: "fact", tier: "core", emotion: -0.5, emotionTags: ["joy"],
      importance: 0.7, confidence: 0.9, trust: 0.4, credibility: 3, relevance: 0.25, classification: 2,
      createdAt: 1_700_000_000_000, updatedAt: new Date(1_700_000_000_001), validFrom: 1, validTo: 2 ** 53,
      expiresAt: 1.5, entities: ["Ada"],
    }, 5, () => "new-id").record;
    assert.ok(MEMORY_FIELD_NAMES.filter((k) => k !== "embedding").every((k) => full[k] !== undefined));
    const sparse = toRecord({ text: "only a text" }, 5, () => "new-id").record;
    assert.deepEqual([...encodeRecordsView([])], [0x06, 0x08]);
    // Records: a tag, a mask of the fields present (little-endian, bit i for
    // RECORD_KEY_NAMES[i]), then the values alone.
    const bytes = encodeRecordsView([sparse]).slice(); // a view: the next encode writes over it
    const mask = new DataView(bytes.buffer, bytes.byteOffset).getUint32(2, true);
    const present = RECORD_KEY_NAMES.filter((_, i) => mask & (1 << i));
    assert.deepEqual([bytes[0], bytes[1]], [0x06, 0x09]);
    assert.deepEqual(present, RECORD_KEY_NAMES.filter((k) => sparse[k] !== undefined));
    // A stored record (recall counts, its own key order, a field the engine does not read):
    // every field but the unknown one.
    const stored = { recallTimestamps: [3, 4], ...full, recallCount: 2, lastRecalledAt: 4, futureField: "x" };
    const { futureField: _unknown, embedding: _unset, ...known } = stored;
    // The engine gives every field back, and reads records (a batch) as it reads objects
    // (one memory).
    const engine = new Engine({ signatureSeed: 1n });
    const one = new Engine({ signatureSeed: 1n });
    try {
      const batch = [stored, sparse, { ...full, id: "m-2" }];
      engine.insertMany(batch, new Float32Array(0), new Uint8Array(batch.length));
      assert.deepEqual(engine.get("m-1"), known);
      for (const r of batch) {
        one.insert(r);
        assert.deepEqual(engine.get(r.id), one.get(r.id));
      }
    } finally {
      engine.free();
      one.free();
    }
    // A view is of the encoder's own buffer: the next encode writes over it.
    const view = encodeRecordsView([sparse]);
    const copy = view.slice();
    encodeRecordsView([{ id: "other", text: "x".repeat(40) }]);
    assert.notDeepEqual(view, copy);
  });

  test("a bigint seed crosses whole, to 2^64 - 1", async () => {
    await open(); // loads the module
    const signature = (seed) => {
      const engine = new Engine({ signatureSeed: seed });
      engine.insert({ id: "m", text: "the same text", createdAt: 1, updatedAt: 1 });
      const bytes = Buffer.from(engine.signature("m")).toString("hex");
      engine.free();
      return bytes;
    };
    assert.notEqual(signature(18446744073709551615n), signature(18446744073709551614n));
    assert.equal(signature(7n), signature(7));
    assert.throws(() => new Engine({ signatureSeed: 2n ** 64n }), { code: "invalid_argument" });
  });

  test("an engine id is a fresh version 4 UUID", async () => {
    await open(); // loads the module
    const ids = Array.from({ length: 600 }, () => randomId()); // past one pool of random bytes
    for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(new Set(ids).size, ids.length);
  });

  test("engine errors name the field and what was wrong", async () => {
    await open(); // loads the module
    // Thrown as RecallErrors: the engine's EngineErrorJs, its code apart from its message.
    const invalid = (message) => ({ name: "RecallError", code: "invalid_argument", message });
    assert.throws(() => new Engine({ decayDays: 30, bogus: 1 }), invalid("unknown field `bogus` in config"));
    assert.throws(() => new Engine({ signatureSeed: "0x12" }), invalid(/^signatureSeed must be an integer/));
    const engine = new Engine({ signatureSeed: 7n });
    assert.throws(() => engine.insert({ id: "m1", text: 5, createdAt: 1, updatedAt: 1 }),
      invalid("memory.text must be a string, got a number"));
    assert.throws(() => engine.insert({ id: "m1", text: "x", classification: 1.5, createdAt: 1, updatedAt: 1 }),
      invalid(/^memory\.classification must be an integer between .* got 1\.5$/));
    // NaN reaches the engine as a number (JSON would have made it null) and is refused by name.
    assert.throws(() => engine.insert({ id: "m1", text: "x", emotion: NaN, createdAt: 1, updatedAt: 1 }),
      invalid("emotion must be between -5 and 5, got NaN"));
    assert.throws(() => engine.beginRecall("x", { limit: 5, now: 1, trackRecalls: false, includeExpired: false, searchMode: "lexical", topics: "a" }),
      invalid("unknown field `topics` in recall options"));
    assert.throws(() => engine.addNote({ id: "n", period: "daily", start: 0, text: 5, createdAt: 1, updatedAt: 1 }),
      invalid("note.text must be a string, got a number"));
    // A cycle (or anything nested too deeply) is refused, not a stack overflow.
    const cyclic = { id: "m1", text: "x", tags: [] };
    cyclic.tags.push(cyclic.tags);
    assert.throws(() => engine.insert(cyclic), invalid(/nested too deeply/));
    assert.equal(engine.size, 0);
    engine.free();
  });

  test("values that are not JSON-like are refused in serde-wasm-bindgen's words", async () => {
    await open(); // loads the module
    // src/wasm.rs reads JavaScript values with serde-wasm-bindgen's dispatch and messages, and
    // prints a number where a string was expected as serde does (Rust's digits, never an
    // exponent, `.0` when there is no point), without linking Rust's float printing.
    const invalid = (message) => ({ name: "RecallError", code: "invalid_argument", message });
    const key = (k) => `invalid type: ${k}, expected a string`;
    const cases = [[1.5, "floating point `1.5`"], [-2.25, "floating point `-2.25`"], [1, "floating point `1.0`"], [0.1, "floating point `0.1`"],
      [1e21, "floating point `1000000000000000000000.0`"], [-1e22, "floating point `-10000000000000000000000.0`"],
      [1e-7, "floating point `0.0000001`"], [1.2345e-9, "floating point `0.0000000012345`"],
      [NaN, "floating point `NaN`"], [-Infinity, "floating point `-inf`"], [null, "unit value"],
      [true, "boolean `true`"], [10n, "JsValue(10n)"], [new Uint8Array(1), "byte array"]];
    for (const [k, words] of cases) assert.throws(() => new Engine(new Map([[k, 1]])), invalid(key(words)));
    assert.throws(() => new Engine(new Map([["bogus", 1]])), invalid("unknown field `bogus` in config"));
    const value = (v) => `invalid type: ${v}, expected a JSON-like value`;
    assert.throws(() => new Engine(new Uint8Array(2)), invalid(value("byte array")));
    assert.throws(() => new Engine({ decayDays: new ArrayBuffer(2) }), invalid(value("byte array")));
    assert.throws(() => new Engine(new Set([1])), invalid(value("JsValue(Set)")));
    assert.throws(() => new Engine({ decayDays: () => 1 }), invalid(value("JsValue(Function(decayDays))")));
    assert.throws(() => new Engine({ signatureSeed: 2n ** 64n }),
      invalid("Couldn't deserialize i64 or u64 from a BigInt outside i64::MIN..u64::MAX bounds"));
  });

  test("insertMany sends a large batch in chunks and still adds all or nothing", async () => {
    await open(); // loads the module
    const engine = new Engine({});
    const none = [new Float32Array(0), new Uint8Array(0)];
    const batch = (n, from = 0) =>
      Array.from({ length: n }, (_, i) => ({ id: `m${from + i}`, text: `memory number ${from + i}`, createdAt: 1, updatedAt: 1 }));
    const bad = batch(1500);
    bad[1300] = { ...bad[1300], emotion: 9 };
    bad[1400] = { ...bad[1400], id: "m3" };
    // The first bad item wins, wherever its chunk; positions count over the whole batch.
    assert.throws(() => engine.insertMany(bad, ...none), { code: "invalid_argument", message: /^item 1300: emotion/ });
    bad[1300] = batch(1, 1300)[0];
    assert.throws(() => engine.insertMany(bad, ...none), { code: "already_exists", message: 'item 1400: id "m3" repeats item 3' });
    assert.equal(engine.size, 0);
    // A wire error in a later chunk leaves nothing staged for the next call.
    const broken = batch(1500);
    broken[600] = { ...broken[600], text: 5 };
    assert.throws(() => engine.insertMany(broken, ...none), { code: "invalid_argument", message: "item 600: memory.text must be a string, got a number" });
    engine.insertMany(batch(3, 5000), ...none);
    assert.deepEqual(engine.ids(), ["m5000", "m5001", "m5002"]);
    engine.insertMany(batch(1100), ...none);
    assert.equal(engine.size, 1103);
    assert.equal(engine.ids()[3 + 1099], "m1099");
    engine.free();
  });

  test("the engine's signatures equal the golden file (the wasm build tallies with simd128)", async () => {
    await open(); // loads the module
    const golden = new URL("../../tests/fixtures/signature/golden_v1.txt", import.meta.url);
    const unescape = (t) => t.replace(/\\(.)/g, (_, c) => ({ t: "\t", n: "\n", "\\": "\\" })[c]);
    const lines = readFileSync(golden, "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    assert.ok(lines.length > 50);
    for (const line of lines) {
      const [seed, expected, text] = splitGolden(line);
      if (text === "") continue; // a memory needs a text
      const engine = new Engine({ signatureSeed: BigInt(`0x${seed}`) });
      engine.insert({ id: "m", text: unescape(text), createdAt: 1, updatedAt: 1 });
      const hex = Buffer.from(engine.signature("m")).toString("hex");
      engine.free();
      assert.equal(hex, expected, `text ${JSON.stringify(text)}`);
    }
  });
});

/** `seed<TAB>signature<TAB>text` (the text may hold escaped tabs, never real ones). */
function splitGolden(line) {
  const first = line.indexOf("\t");
  const second = line.indexOf("\t", first + 1);
  return [line.slice(0, first), line.slice(first + 1, second), line.slice(second + 1)];
}
