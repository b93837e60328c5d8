// The ranking models through the public API (real WebAssembly): the default "recallkit" fusion,
// the designs' models (abmind's, Engram's, Memoria's, AutoMem's) chosen per store or per recall, their options and their explanations.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore } from "../dist/index.js";
import { rejectsWith } from "./support/errors.mjs";
import { DAY, NOW, openMemoryStore } from "./support/stores.mjs";


async function quickStart(options = {}) {
  const store = await openMemoryStore({ ...options });
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
    const store = await openMemoryStore();
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

  test("the reply after a matching turn of a conversation is found through it, and fusion.adjacentWeight: 0 turns that off", async () => {
    const turns = [
      "Melanie: What did you paint in your class last week?",
      "Caroline: A sunset over the lake, with purple clouds.",
      "Melanie: That sounds lovely, the kids would like it.",
      "Melanie: We are going camping next month.",
      "Melanie: The tent is still in the garage.",
      "Caroline: A long walk along the river, with my dog.",
    ].map((text, i) => ({ id: `t${i}`, text, createdAt: NOW - DAY + i * 60_000 }));
    const question = "what did Caroline paint?";
    const store = await openMemoryStore();
    await store.rememberMany(turns);
    const res = await store.recall(question, { trackRecalls: false });
    const ids = res.results.map((r) => r.id);
    assert.ok(ids.indexOf("t1") < ids.indexOf("t5"), ids.join());
    assert.ok(res.results.find((r) => r.id === "t1").components.adjacent > 0);

    const off = await openMemoryStore({ fusion: { adjacentWeight: 0 } });
    await off.rememberMany(turns);
    const plain = await off.recall(question, { trackRecalls: false });
    assert.ok(plain.results.every((r) => r.components.adjacent === undefined));
    await rejectsWith(MemoryStore.open({ storage: "memory", fusion: { adjacentWeight: 1.5 } }), "invalid_argument", /fusion\.adjacentWeight/);
  });

  test("a word typed as one finds the memory that writes it as two (healthcare, check-in, de-stress)", async () => {
    const store = await openMemoryStore();
    await store.rememberMany([
      { id: "care", text: "Grandma's health care plan changed in May" },
      { id: "flight", text: "The check-in for the flight opens at 6" },
      { id: "run", text: "I've been running farther to de-stress lately" },
      ...Array.from({ length: 30 }, (_, i) => ({ id: `f${i}`, text: `filler ${i}: the garden, the weather and stress at work` })),
    ]);
    for (const [question, id] of [["healthcare", "care"], ["when does checkin open?", "flight"], ["how do I destress?", "run"]]) {
      const res = await store.recall(question, { limit: 3 });
      assert.equal(res.results[0]?.id, id, `${question}: ${res.results.map((r) => r.id)}`);
    }
  });

  test("a noun in -y finds its adjective in -ic and back (allergies: allergic, historic: history)", async () => {
    const store = await openMemoryStore();
    await store.rememberMany([
      { id: "allergy", text: "I'm allergic to peanuts and shellfish" },
      { id: "rome", text: "We read about the history of Rome" },
      { id: "lunch", text: "Peanut butter sandwiches for lunch" },
    ]);
    assert.deepEqual((await store.recall("what food allergies do I have?")).results.map((r) => r.id), ["allergy"]);
    assert.deepEqual((await store.recall("historic")).results.map((r) => r.id), ["rome"]);
  });

  test("minScore drops weak results, per store and per recall", async () => {
    const store = await quickStart({ minScore: 0.99 });
    assert.equal((await store.recall("database pipeline")).results.length, 0);
    const loose = await store.recall("database pipeline", { minScore: 0 });
    assert.equal(loose.results.length, 2);
    await rejectsWith(store.recall("x", { minScore: 2 }), "invalid_argument", /minScore/);
  });
});

describe("the designs' models", () => {
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
    const store = await openMemoryStore({ ranking: "composite" });
    await store.rememberMany([
      { id: "old", text: "notes, pipeline", importance: 0.1, createdAt: NOW - 300 * DAY },
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

describe("a host reranker", () => {
  // Forty memories that all share the query's words; the reranker prefers one late in the
  // fused order (it reads the number the fused ranking cannot weigh).
  async function fortyNotes(options = {}) {
    const store = await openMemoryStore({ ...options });
    await store.rememberMany(Array.from({ length: 40 }, (_, i) => ({
      id: `m${i}`, text: `meeting notes about the garden project, item ${i}`,
    })));
    return store;
  }
  const prefer = (n) => async (_query, texts) => texts.map((t) => (t.endsWith(`item ${n}`) ? 10 : -Number(t.split(" ").pop())));

  test("reorders the best thirty fused candidates and returns the first limit in its order", async () => {
    const seen = [];
    const store = await fortyNotes({
      rerank: async (query, texts) => { seen.push({ query, n: texts.length }); return prefer(7)(query, texts); },
    });
    const res = await store.recall("garden project meeting", { limit: 3 });
    assert.deepEqual(seen, [{ query: "garden project meeting", n: 30 }]);
    assert.deepEqual(res.results.map((r) => r.id), ["m7", "m0", "m1"]);
    assert.equal(res.results[0].components.rerank, 10);
    assert.equal(res.results[1].components.rerank, -0);
    const report = res.stages.at(-1);
    assert.equal(report.name, "rerank");
    assert.ok(!report.skipped);
    assert.equal(report.hits, 30);
    // score stays the fused, calibrated score
    for (const r of res.results) assert.ok(r.score > 0 && r.score <= 1, String(r.score));
  });

  test("a reranker given to one recall applies to it alone, and false turns the store's off", async () => {
    const store = await fortyNotes({ rerank: prefer(5) });
    const plain = await store.recall("garden project meeting", { limit: 2, rerank: false });
    assert.equal(plain.stages.some((s) => s.name === "rerank"), false);
    assert.equal(plain.results[0].components.rerank, undefined);
    const other = await store.recall("garden project meeting", { limit: 2, rerank: prefer(9) });
    assert.equal(other.results[0].id, "m9");
    const bare = await fortyNotes();
    const once = await bare.recall("garden project meeting", { limit: 2, rerank: prefer(12) });
    assert.equal(once.results[0].id, "m12");
  });

  for (const [name, rerank, reason] of [
    ["throws", () => { throw new Error("model not loaded"); }, "rerank_failed"],
    ["rejects", async () => { throw new Error("503"); }, "rerank_failed"],
    ["answers too few scores", async () => [1, 2], "rerank_failed"],
    ["answers a non-number", async (_q, texts) => texts.map(() => "high"), "rerank_failed"],
    ["answers NaN", async (_q, texts) => texts.map(() => NaN), "rerank_failed"],
    ["never answers", () => new Promise(() => {}), "rerank_timeout"],
  ]) {
    test(`a reranker that ${name} leaves the fused order, and the report says ${reason}`, async () => {
      const store = await fortyNotes({ rerank, rerankTimeoutMs: 50 });
      const fused = await store.recall("garden project meeting", { limit: 5, rerank: false, trackRecalls: false });
      const res = await store.recall("garden project meeting", { limit: 5, trackRecalls: false });
      assert.deepEqual(res.results.map((r) => r.id), fused.results.map((r) => r.id));
      const report = res.stages.at(-1);
      assert.equal(report.name, "rerank");
      assert.equal(report.skipped, true);
      assert.equal(report.reason, reason);
    });
  }

  test("a reranker reads the question as the stages do: its pronouns resolved", async () => {
    const asked = [];
    const store = await MemoryStore.open({ storage: "memory", rerank: async (q, texts) => { asked.push(q); return texts.map(() => 0); } });
    await store.rememberMany([
      { id: "carol", text: "Carol decided to move the launch to May" },
      { id: "other", text: "The launch checklist is in the wiki" },
    ]);
    const res = await store.recall("what did she decide about the launch?", {
      context: { entities: [{ name: "Carol", type: "person" }] }, trackRecalls: false,
    });
    assert.equal(res.query.searchText, "what did Carol decide about the launch?");
    assert.deepEqual(asked, ["what did Carol decide about the launch?"]);
    await store.close();
  });

  test("reranked results are the ones tracked", async () => {
    const store = await fortyNotes({ rerank: prefer(20) });
    await store.recall("garden project meeting", { limit: 1 });
    assert.equal((await store.get("m20")).recallCount, 1);
    assert.equal((await store.get("m0")).recallCount, 0);
  });

  test("rejects a reranker that is not a function", async () => {
    await rejectsWith(MemoryStore.open({ storage: "memory", rerank: "cross-encoder" }), "invalid_argument", /rerank/);
    const store = await fortyNotes();
    await rejectsWith(store.recall("garden", { rerank: 3 }), "invalid_argument", /rerank/);
  });
});
