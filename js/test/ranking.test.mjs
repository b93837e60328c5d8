// The ranking models through the public API (real WebAssembly): the default "recallkit" fusion,
// the seeds' models chosen per store or per recall, their options and their explanations.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore } from "../dist/index.js";

const NOW = Date.parse("2026-06-01T12:00:00Z");
const DAY = 86_400_000;

async function rejectsWith(promise, code, pattern) {
  await assert.rejects(promise, (e) => e.code === code && pattern.test(e.message));
}

async function quickStart(options = {}) {
  const store = await MemoryStore.open({ storage: "memory", clock: () => NOW, ...options });
  await store.rememberMany([
    { text: "We migrated the project database to SQLite with FTS5", topic: "work", tier: "core" },
    { text: "The deployment pipeline runs every Friday", topic: "work" },
  ]);
  return store;
}

describe("the default ranking", () => {
  test("the README quick start's answer is first, alone, with a score of at least 0.5", async () => {
    const store = await quickStart();
    const res = await store.recall("what database does the project use?", { limit: 5 });
    assert.equal(res.results.length, 1);
    assert.match(res.results[0].text, /SQLite/);
    assert.ok(res.results[0].score >= 0.5, String(res.results[0].score));
    const c = res.results[0].components;
    for (const name of ["bm25", "lexical", "relevance", "recency", "prior"]) assert.equal(typeof c[name], "number", name);
    assert.equal(res.stages.find((s) => s.name === "Ss").reason, "not_ranked");
  });

  test("a memory given as a vector adds cosine and semantic evidence to its explanation", async () => {
    const store = await MemoryStore.open({ storage: "memory", clock: () => NOW });
    await store.rememberMany([
      { id: "a", text: "restart the staging cluster", embedding: [1, 0, 0] },
      { id: "b", text: "bring the test environment back up", embedding: [0.95, 0.31, 0] },
      { id: "c", text: "quarterly taxes are due in April", embedding: [0, 0, 1] },
    ]);
    const res = await store.recall("restart the staging cluster", { embedding: [1, 0, 0], trackRecalls: false });
    assert.deepEqual(res.results.slice(0, 2).map((r) => r.id), ["a", "b"]);
    assert.ok(res.results[0].components.cosine > 0.99);
    assert.ok(res.results[1].components.semantic > 0);
    assert.ok(!res.results.some((r) => r.id === "c"), "an unrelated memory stays under minScore");
  });

  test("minScore drops weak results, per store and per recall", async () => {
    const store = await quickStart({ minScore: 0.99 });
    assert.equal((await store.recall("database pipeline")).results.length, 0);
    const loose = await store.recall("database pipeline", { minScore: 0 });
    assert.equal(loose.results.length, 2);
    await rejectsWith(store.recall("x", { minScore: 2 }), "invalid_argument", /minScore/);
  });
});

describe("the seeds' models", () => {
  test("each model ranks the matching memory first, chosen per recall or per store", async () => {
    const store = await quickStart();
    for (const ranking of ["recallkit", "abmind", "rrf", "composite", "weighted"]) {
      const res = await store.recall("deployment pipeline friday", { ranking, trackRecalls: false });
      assert.match(res.results[0].text, /pipeline/, ranking);
      assert.ok(res.results[0].score > 0 && res.results[0].score <= 1, ranking);
    }
    const seed = await quickStart({ ranking: "abmind" });
    const res = await seed.recall("deployment pipeline", { trackRecalls: false });
    assert.equal(typeof res.results[0].components.calibrated, "number");
    assert.equal(typeof res.results[0].components.rankAfterMmr, "number");
  });

  test("weighted lists its nine components and takes weights per store and per recall", async () => {
    const store = await quickStart({ ranking: "weighted", weights: { exact: 0 } });
    const res = await store.recall("deployment pipeline", { trackRecalls: false });
    const c = res.results[0].components;
    for (const name of ["vector", "keyword", "exact", "importance", "confidence", "recency", "tag", "relation", "temporal"]) {
      assert.equal(typeof c[name], "number", name);
    }
    assert.equal(c.exact, 0, "the store's weight");
    const more = await store.recall("deployment pipeline", { trackRecalls: false, weights: { exact: 1 } });
    assert.ok(more.results[0].components.exact > 0, "the recall's weight");
    await rejectsWith(store.recall("x", { weights: { colour: 1 } }), "invalid_argument", /colour/);
    await rejectsWith(store.recall("x", { weights: { tag: -1 } }), "invalid_argument", /weights\.tag/);
  });

  test("composite weighs importance and recency beside the match", async () => {
    const store = await MemoryStore.open({ storage: "memory", clock: () => NOW, ranking: "composite" });
    await store.rememberMany([
      { id: "old", text: "pipeline notes", importance: 0.1, createdAt: NOW - 300 * DAY },
      { id: "key", text: "pipeline notes", importance: 1, createdAt: NOW },
    ]);
    const res = await store.recall("pipeline notes", { trackRecalls: false });
    assert.deepEqual(res.results.map((r) => r.id), ["key", "old"]);
    assert.ok(Math.abs(res.results[0].components.priority - 0.2) < 1e-12);
  });

  test("bad ranking options are invalid_argument at open and at recall", async () => {
    await rejectsWith(MemoryStore.open({ storage: "memory", ranking: "bm25" }), "invalid_argument", /ranking/);
    await rejectsWith(MemoryStore.open({ storage: "memory", minScore: -1 }), "invalid_argument", /minScore/);
    await rejectsWith(MemoryStore.open({ storage: "memory", weights: { vector: "x" } }), "invalid_argument", /weights\.vector/);
    await rejectsWith(MemoryStore.open({ storage: "memory", fusion: { lexicalWeight: 3 } }), "invalid_argument", /fusion\.lexicalWeight/);
    const store = await quickStart();
    await rejectsWith(store.recall("x", { ranking: "pagerank" }), "invalid_argument", /ranking/);
  });
});
