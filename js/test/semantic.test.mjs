// Stages Se and Ss and the embedding orchestration, through the public API (real wasm).
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { RecallError } from "../dist/index.js";
import { openMemoryStore } from "./support/stores.mjs";

const DIMS = 64;

/** A deterministic toy embedder: each word adds a fixed pseudo-random unit direction. */
function wordVector(word) {
  let h = 2166136261;
  for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) {
    h = Math.imul(h ^ (h >>> 15), 2246822507) >>> 0;
    v[i] = (h / 2 ** 32) * 2 - 1;
  }
  return v;
}
function toyEmbed(text) {
  const v = new Float32Array(DIMS);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const wv = wordVector(w);
    for (let i = 0; i < DIMS; i++) v[i] += wv[i];
  }
  return v;
}

/**
 * A fake `embed` that counts calls and records when each of its promises settles, so a test
 * can tell whether recall waited for it. With `hang`, promises settle only on `release()`.
 */
function fakeEmbed({ fail = false, hang = false } = {}) {
  const calls = [];
  const state = { calls, settled: 0, release: () => {} };
  const embed = (texts) => {
    calls.push(texts);
    let resolve;
    const gate = hang ? new Promise((r) => { resolve = r; }) : Promise.resolve();
    state.release = () => resolve?.();
    return gate.then(() => {
      state.settled++;
      if (fail) throw new Error("model offline");
      return texts.map(toyEmbed);
    });
  };
  return { embed, state };
}

const corpus = [
  { id: "db", text: "We migrated the project database to SQLite" },
  { id: "cat", text: "The cat sleeps on the warm keyboard" },
  { id: "trip", text: "Train tickets to Lisbon for the conference" },
];

/** abmind's recall pipeline (the "abmind" ranking), whose stage rules these tests hold. */
async function open(options = {}) {
  return openMemoryStore({ ranking: "abmind", ...options });
}

describe("host-supplied embeddings", () => {
  test("remember embeds with the host embed; rememberMany batches", async () => {
    const { embed, state } = fakeEmbed();
    const store = await open({ embed, embedBatchSize: 2 });
    await store.remember({ id: "a", text: "alpha beta" });
    assert.deepEqual(state.calls, [["alpha beta"]]);
    await store.rememberMany([{ text: "one" }, { text: "two" }, { text: "three", embedding: toyEmbed("three") }, { text: "four" }]);
    assert.equal(state.calls.length, 3, "three texts to embed in batches of two: two calls");
    assert.deepEqual(state.calls.slice(1), [["one", "two"], ["four"]]);
    assert.equal(store.dimensions, DIMS);
    assert.deepEqual(Array.from(await store.getEmbedding("a")), Array.from(toyEmbed("alpha beta")));
  });

  test("the first vector fixes the dimension; a wrong length or NaN stores nothing", async () => {
    const store = await open();
    await store.remember({ id: "a", text: "x", embedding: [1, 0, 0] });
    assert.equal(store.dimensions, 3);
    await assert.rejects(store.remember({ id: "b", text: "y", embedding: [1, 0] }), (e) => e.code === "dimension_mismatch" && /expected 3, got 2/.test(e.message));
    await assert.rejects(store.remember({ id: "c", text: "y", embedding: [1, NaN, 0] }), (e) => e.code === "invalid_embedding" && /\[1\]/.test(e.message));
    await assert.rejects(store.remember({ id: "d", text: "y", embedding: [Infinity, 0, 0] }), (e) => e.code === "invalid_embedding");
    await assert.rejects(
      store.rememberMany([{ id: "e", text: "ok", embedding: [0, 1, 0] }, { id: "f", text: "bad", embedding: [0, 1] }]),
      (e) => e.code === "dimension_mismatch" && /item 1/.test(e.message),
    );
    assert.deepEqual(await store.ids(), ["a"]);
    assert.equal(await store.getEmbedding("e"), undefined);
  });

  test("a stored embedding is the store's own copy, and records carry no embedding field", async () => {
    const store = await open();
    const mine = new Float32Array([1, 0, 0]);
    const batch = [new Float32Array([0, 1, 0]), [0, 0, 1]];
    await store.remember({ id: "a", text: "x", embedding: mine });
    await store.rememberMany([{ id: "b", text: "y", embedding: batch[0] }, { id: "c", text: "z", embedding: batch[1] }]);
    mine[0] = 5;
    batch[0][1] = 5;
    assert.deepEqual(Array.from(await store.getEmbedding("a")), [1, 0, 0]);
    assert.deepEqual(Array.from(await store.getEmbedding("b")), [0, 1, 0]);
    assert.deepEqual(Array.from(await store.getEmbedding("c")), [0, 0, 1]);
    for (const id of ["a", "b", "c"]) assert.equal("embedding" in (await store.get(id)), false, id);
  });

  test("dimensions fixed at open are enforced, in a batch too", async () => {
    const store = await open({ dimensions: 4 });
    await assert.rejects(store.rememberMany([{ text: "a", embedding: [1, 2, 3] }]), (e) => e.code === "dimension_mismatch");
    await assert.rejects(store.recall("a", { embedding: [1, 2, 3] }), (e) => e.code === "dimension_mismatch");
    assert.equal(store.size, 0);
  });

  test("a failing embed while storing is embed_failed and stores nothing", async () => {
    const { embed } = fakeEmbed({ fail: true });
    const store = await open({ embed });
    await assert.rejects(store.remember({ text: "x" }), (e) => e instanceof RecallError && e.code === "embed_failed" && /model offline/.test(e.message));
    await assert.rejects(store.rememberMany([{ text: "x" }, { text: "y" }]), (e) => e.code === "embed_failed");
    assert.equal(store.size, 0);
  });

  test("update re-embeds a changed text, or drops the stale vector without an embedder", async () => {
    const { embed, state } = fakeEmbed();
    const store = await open({ embed });
    await store.remember({ id: "a", text: "first text" });
    await store.update("a", { topic: "t" });
    assert.equal(state.calls.length, 1, "metadata changes do not re-embed");
    await store.update("a", { text: "second text" });
    assert.deepEqual(state.calls.at(-1), ["second text"]);
    assert.deepEqual(Array.from(await store.getEmbedding("a")), Array.from(toyEmbed("second text")));
    const plain = await open();
    await plain.remember({ id: "b", text: "one", embedding: [1, 0] });
    await plain.update("b", { text: "two" });
    assert.equal(await plain.getEmbedding("b"), undefined);
    await plain.update("b", { embedding: [0, 1] });
    assert.deepEqual(Array.from(await plain.getEmbedding("b")), [0, 1]);
    await plain.update("b", { embedding: null });
    assert.equal(await plain.getEmbedding("b"), undefined);
  });
});

describe("stage Se and Ss", () => {
  test("Se finds a memory by meaning and reports cosine", async () => {
    const store = await open();
    await store.rememberMany(corpus.map((m) => ({ ...m, embedding: toyEmbed(m.text) })));
    // No word in common with any memory: only the vector can find it.
    const q = toyEmbed("sleeps warm keyboard cat");
    const res = await store.recall("zzz", { embedding: q, trackRecalls: false });
    assert.equal(res.results[0].id, "cat");
    assert.equal(res.results[0].stage, "Se");
    assert.ok(res.results[0].components.cosine > 0.5);
    const se = res.stages.find((s) => s.name === "Se");
    assert.equal(se.skipped, undefined);
    assert.ok(se.hits >= 1);
  });

  test("Se agrees with a brute-force cosine oracle", async () => {
    let seed = 42;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    const vectors = Array.from({ length: 300 }, () => Float32Array.from({ length: 16 }, rand));
    const store = await open({ similarityThreshold: 0 });
    await store.rememberMany(vectors.map((embedding, i) => ({ id: `v${i}`, text: `item ${i}`, embedding })));
    for (let trial = 0; trial < 5; trial++) {
      const q = Float32Array.from({ length: 16 }, rand);
      const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      const cos = vectors.map((v, i) => [i, v.reduce((s, x, k) => s + x * q[k], 0) / (norm(v) * norm(q))]);
      cos.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      const res = await store.recall("", { embedding: q, searchMode: "semantic", limit: 10, mmrLambda: 1, trackRecalls: false });
      const se = res.results.filter((r) => r.stage === "Se");
      assert.deepEqual(se.map((r) => r.id), cos.slice(0, se.length).map(([i]) => `v${i}`));
      for (const r of se) {
        const expected = cos.find(([i]) => `v${i}` === r.id)[1];
        assert.ok(Math.abs(r.components.cosine - expected) < 1e-5);
      }
      assert.ok(se.length >= 10 || se.length === cos.filter(([, c]) => c >= 0).length);
    }
  });

  test("Ss finds a near-duplicate text without any embedding and reports signatureSimilarity", async () => {
    const store = await open();
    const text = "the quarterly budget review moved to thursday afternoon in the large meeting room";
    await store.rememberMany([{ id: "dup", text }, { id: "other", text: "my cat likes tuna" }]);
    const res = await store.recall(text.replace("thursday", "friday"), { searchMode: "semantic", trackRecalls: false });
    const hit = res.results.find((r) => r.id === "dup");
    assert.equal(hit.stage, "Ss");
    assert.ok(hit.components.signatureSimilarity >= 0.65);
    assert.equal(res.stages.find((s) => s.name === "Sf").reason, "semantic_mode");
    const sig = await store.getSignature("dup");
    assert.equal(sig.length, 32);
  });

  test("a lexical memory store signs lazily: the same signatures and Ss hits as a hybrid store", async () => {
    const text = "the quarterly budget review moved to thursday afternoon in the large meeting room";
    const memories = [{ id: "dup", text }, { id: "other", text: "my cat likes tuna" }];
    const lexical = await open({ searchMode: "lexical" });
    const hybrid = await open();
    for (const s of [lexical, hybrid]) await s.rememberMany(memories);
    assert.deepEqual(await lexical.getSignature("dup"), await hybrid.getSignature("dup"));
    const query = text.replace("thursday", "friday");
    const options = { searchMode: "semantic", trackRecalls: false };
    const [got, want] = [await lexical.recall(query, options), await hybrid.recall(query, options)];
    assert.equal(got.results.find((r) => r.id === "dup")?.stage, "Ss");
    assert.deepEqual(got.results.map((r) => [r.id, r.score]), want.results.map((r) => [r.id, r.score]));
  });

  test("searchMode lexical skips Se and Ss; semantic skips Sf", async () => {
    const { embed, state } = fakeEmbed();
    const store = await open({ embed, searchMode: "lexical" });
    await store.rememberMany(corpus);
    const calls = state.calls.length;
    const res = await store.recall("database");
    assert.equal(state.calls.length, calls, "lexical mode never embeds the query");
    assert.deepEqual(res.stages.filter((s) => s.skipped).map((s) => [s.name, s.reason]), [["Se", "lexical_mode"], ["Ss", "lexical_mode"]]);
    const sem = await store.recall("database", { searchMode: "semantic" });
    assert.equal(sem.stages[0].reason, "semantic_mode");
    assert.equal(sem.stages[1].skipped, undefined);
  });
});

describe("orchestration", () => {
  test("the query embedding starts before Sf and is dropped unawaited on short-circuit", async () => {
    const { embed, state } = fakeEmbed({ hang: true });
    // abmind's counting (every Sf hit fills the limit): 20 "coffee" notes score near zero,
    // under the default shortCircuitFloor.
    const store = await open({ embed, embedTimeoutMs: 60_000, shortCircuitFloor: 0 });
    await store.rememberMany(Array.from({ length: 20 }, (_, i) => ({ text: `coffee note ${i}`, embedding: toyEmbed(`coffee ${i}`) })));
    const calls = state.calls.length;
    let sfRan = false;
    const embedSpy = state.calls.push.bind(state.calls);
    state.calls.push = (texts) => { assert.equal(sfRan, false, "embed starts before Sf"); return embedSpy(texts); };
    // Sf fills the limit: recall must answer although the embed promise never settles.
    const recall = store.recall("coffee", { limit: 5 });
    sfRan = true;
    const res = await recall;
    assert.equal(state.calls.length, calls + 1, "the embedding was started");
    assert.equal(state.settled, 0, "recall answered without the embedding settling");
    assert.equal(res.results.length, 5);
    const se = res.stages.find((s) => s.name === "Se");
    assert.deepEqual([se.skipped, se.reason], [true, "short_circuit"]);
    assert.equal(res.stages.find((s) => s.name === "Ss").reason, "short_circuit");
    state.release();
  });

  test("when Sf does not fill the limit, the embedding is awaited and Se runs", async () => {
    const { embed, state } = fakeEmbed();
    const store = await open({ embed });
    await store.rememberMany(corpus);
    const res = await store.recall("sleeps on a warm keyboard");
    const se = res.stages.find((s) => s.name === "Se");
    assert.equal(se.skipped, undefined, "Se ran with the awaited embedding");
    assert.ok(se.hits >= 1);
    assert.ok(res.results.some((r) => r.id === "cat" && r.components.cosine === undefined), "Sf hit confirmed by Se keeps its stage");
  });

  test("a rejected embed skips Se with embed_failed; recall still answers", async () => {
    const { embed } = fakeEmbed();
    const store = await open({ embed });
    await store.rememberMany(corpus);
    const failing = await open({ embed: () => Promise.reject(new Error("down")) });
    await failing.rememberMany(corpus.map((m) => ({ ...m, embedding: toyEmbed(m.text) })));
    const res = await failing.recall("database");
    assert.equal(res.results[0].id, "db");
    assert.equal(res.stages.find((s) => s.name === "Se").reason, "embed_failed");
    const throwing = await open({ embed: () => { throw new Error("sync throw"); } });
    await throwing.remember({ text: "database", embedding: [1, 0] });
    assert.equal((await throwing.recall("database")).stages[1].reason, "embed_failed");
  });

  test("a slow embed skips Se with embed_timeout", async () => {
    const { embed, state } = fakeEmbed({ hang: true });
    const store = await open({ embed, embedTimeoutMs: 30 });
    await store.rememberMany([{ id: "db", text: "the database", embedding: toyEmbed("the database") }]);
    const res = await store.recall("database");
    assert.equal(res.results[0].id, "db");
    assert.equal(res.stages.find((s) => s.name === "Se").reason, "embed_timeout");
    state.release();
  });

  test("an embed returning a wrong-sized vector skips Se with embed_failed", async () => {
    const store = await open({ embed: async (texts) => texts.map(() => [1, 2]) });
    await store.remember({ id: "a", text: "database", embedding: [1, 0, 0] });
    const res = await store.recall("database");
    assert.equal(res.stages.find((s) => s.name === "Se").reason, "embed_failed");
    assert.equal(res.results[0].id, "a");
  });

  test("no embedder: Se skipped with no_embedder", async () => {
    const store = await open();
    await store.remember({ text: "database" });
    assert.equal((await store.recall("database")).stages[1].reason, "no_embedder");
  });
});
