// The JSON boundary between the TypeScript store and the WebAssembly engine (js/src/engine.ts,
// src/wasm.rs): text that JSON escapes, bigint seeds, and error messages without JSON positions.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore } from "../dist/index.js";
import { Engine, toJson } from "../dist/engine.js";

const open = (options = {}) => MemoryStore.open({ storage: "memory", clock: () => 1_750_000_000_000, ...options });

describe("JSON boundary", () => {
  test("text with quotes, backslashes, control characters and astral characters round-trips", async () => {
    const store = await open();
    const text = 'He said "C:\\\\new\\u0041 folder"\n\ttabs \u0001 and 🦀 crabs, "\\ud800" as text';
    await store.remember({ id: "m1", text, tags: ["a\\b", "q\"t"] });
    const m = await store.get("m1");
    assert.equal(m.text, text);
    assert.deepEqual(m.tags, ["a\\b", "q\"t"]);
    const { results } = await store.recall("crabs folder", { limit: 3 });
    assert.equal(results[0].text, text);
  });

  test("a lone surrogate becomes U+FFFD, as in every string passed to WebAssembly", async () => {
    const store = await open();
    await store.remember({ id: "m1", text: "broken \ud800 pair and \udfff tail" });
    assert.equal((await store.get("m1")).text, "broken \ufffd pair and \ufffd tail");
    // A backslash before the escape is text, not an escape: only odd runs are escapes.
    assert.equal(toJson("\\ud800"), JSON.stringify("\\ud800"));
    assert.equal(toJson("\\\ud800"), '"\\\\\\ufffd"');
    assert.equal(JSON.parse(toJson({ a: "x\udbffy" })).a, "x\ufffdy");
    assert.equal(toJson("🦀"), '"🦀"');
  });

  test("a bigint crosses as decimal text", () => {
    assert.equal(toJson({ seed: 18446744073709551615n }), '{"seed":"18446744073709551615"}');
  });

  test("engine errors name the problem without JSON line and column", async () => {
    await open(); // loads the module
    assert.throws(() => new Engine({ decayDays: 30, bogus: 1 }), (e) => {
      assert.match(e.message, /^invalid_argument: unknown field `bogus`/);
      assert.doesNotMatch(e.message, /line \d+ column \d+/);
      return true;
    });
    assert.throws(() => new Engine({ signatureSeed: "0x12" }), { message: /^invalid_argument: signatureSeed must be an integer/ });
    const engine = new Engine({ signatureSeed: 7n });
    assert.throws(() => engine.insert({ id: "m1", text: 5, createdAt: 1, updatedAt: 1 }), (e) => {
      assert.match(e.message, /^invalid_argument: invalid type: integer `5`, expected a string$/);
      return true;
    });
    assert.equal(engine.size, 0);
    engine.free();
  });
});
