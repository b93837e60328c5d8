// Engram's query pipeline through the real wasm build: pronouns (from context.entities, from the
// reader's newest memories, ambiguous, Vietnamese, isolated by userId), entity → memories,
// content-hash dedup, and the time window dropped in the engine when it holds nothing.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore, describeQuery } from "../dist/index.js";
import { rejectsWith } from "./support/errors.mjs";

const now = Date.UTC(2024, 2, 15, 12); // Friday 2024-03-15
const DAY = 86_400_000;
const quiet = { now, trackRecalls: false };

async function open(memories, entities = []) {
  const store = await MemoryStore.open({ storage: "memory" });
  await store.rememberMany(memories.map((m, i) => ({ createdAt: now - (i + 1) * DAY, ...m })));
  for (const e of entities) await store.addEntity(e);
  return store;
}

describe("pronouns (Engram's query pipeline)", () => {
  test("she is the most recent person of context.entities, and every stage searches the resolved question", async () => {
    const store = await open([
      { id: "alice", text: "Alice decided to ship the beta in May" },
      { id: "bob", text: "Bob decided to paint the office blue" },
    ]);
    const context = { entities: [{ name: "Bob", type: "person" }, { name: "Alice", type: "person" }, { name: "Acme" }] };
    const r = await store.recall("what did she decide?", { ...quiet, context });
    assert.equal(r.results[0].id, "alice");
    assert.deepEqual(r.query, {
      text: "what did she decide?", searchText: "what did Alice decide?", pronouns: [{ pronoun: "she", entity: "Alice" }],
    });
    const vi = await store.recall("cô ấy đã quyết định gì?", { ...quiet, context });
    assert.equal(vi.query.searchText, "Alice đã quyết định gì?");
    assert.equal((await store.recall("what about it?", { ...quiet, context })).query.searchText, "what about Acme?");
    const off = await store.recall("what did she decide?", { ...quiet, context, resolvePronouns: false });
    assert.equal(off.query, undefined);
    await rejectsWith(store.recall("she", { context: { entities: [{ type: "person" }] } }), "invalid_argument", /entities\[0\]\.name/);
    await rejectsWith(store.recall("she", { context: { entities: "Alice" } }), "invalid_argument", /entities/);
    await rejectsWith(store.recall("she", { context: { entities: [{ name: "—" }] } }), "invalid_argument", /letter or digit/);
    await rejectsWith(store.recall("she", { resolvePronouns: "yes" }), "invalid_argument", /resolvePronouns/);
    await store.close();
  });

  test("the host's query vector is made from the resolved question (time words kept)", async () => {
    const seen = [];
    const embed = async (texts) => {
      seen.push(...texts);
      return texts.map((t) => [t.length, 1, 0]);
    };
    const store = await MemoryStore.open({ storage: "memory", embed });
    await store.remember({ id: "a", text: "Alice decided to ship the beta", createdAt: now - DAY });
    const context = { entities: [{ name: "Alice", type: "person" }] };
    const r = await store.recall("what did she decide yesterday?", { ...quiet, context });
    assert.equal(r.query.searchText, "what did Alice decide");
    assert.equal(r.stages.find((s) => s.name === "Se").skipped, undefined, "Se ran");
    assert.equal(seen.at(-1), "what did Alice decide yesterday?");
    assert.equal(describeQuery(r), '"what did Alice decide" (she → Alice; "yesterday?" → 2024-03-14)');
    assert.equal(describeQuery(r, 14 * 60), '"what did Alice decide" (she → Alice; "yesterday?" → 2024-03-14 to 2024-03-15)', "days read at the offset");
    await store.recall("what did Alice decide?", quiet);
    assert.equal(seen.at(-1), "what did Alice decide?", "a question with nothing resolved is embedded as asked");
    await store.close();
  });

  test("without context, the reader's newest memory naming a fitting entity decides; another user's never does; ties are ambiguous", async () => {
    const store = await open([
      { id: "b1", text: "called about the invoice", userId: "ben", entities: ["Bob"] },
      { id: "a2", text: "signed the contract", userId: "ann", entities: ["Acme"] },
      { id: "a1", text: "met about the roadmap", userId: "ann", entities: ["Alice"] },
      { id: "d1", text: "lunch with both", userId: "dee", entities: ["Carol", "Dan"] },
    ], [
      { name: "Alice", type: "person" }, { name: "Acme", type: "company" }, { name: "Bob", type: "person", userId: "ben" },
      { name: "Carol", type: "person" }, { name: "Dan", type: "person" },
    ]);
    const ask = async (q, userId) => (await store.recall(q, { ...quiet, userId })).query;
    assert.equal((await ask("what did he say?", "ann")).searchText, "what did Alice say?");
    assert.equal((await ask("what did it cost?", "ann")).searchText, "what did Acme cost?");
    assert.equal((await ask("what did he say?", "ben")).searchText, "what did Bob say?");
    // Ben's memory is the store's newest: it never reaches Carl, who has none.
    assert.equal(await ask("what did he say?", "carl"), undefined);
    assert.deepEqual((await ask("what did she order?", "dee")).pronouns, [{ pronoun: "she", ambiguous: ["Carol", "Dan"] }]);
    const tie = await store.recall("what did she order?", { ...quiet, userId: "dee" });
    assert.equal(describeQuery(tie), '"what did she order?" (she: ambiguous, Carol or Dan)');
    assert.equal(describeQuery(await store.recall("lunch", { ...quiet, userId: "dee" })), undefined);
    await store.close();
  });
});

describe("entity → memories", () => {
  test("an entity the query names brings the memories naming it in `entities`, marked S8:entity, within the reader's filter", async () => {
    const store = await open([
      { id: "launch", text: "The launch moves to May", userId: "ann", entities: ["Alice"] },
      { id: "other", text: "The launch party is on Friday", userId: "ben", entities: ["Alice"] },
      { id: "tea", text: "Tea is served at four", userId: "ann" },
    ], [{ name: "Alice", type: "person" }]);
    const r = await store.recall("what did Alice decide?", { ...quiet, userId: "ann" });
    assert.deepEqual(r.results.map((h) => h.id), ["launch"]);
    assert.equal(r.results[0].stage, "S8:entity");
    assert.equal(r.results[0].matchType, "entity");
    assert.ok(r.results[0].components.entityMention > 0);
    await store.close();
  });
});

describe("content-hash dedup", () => {
  test("the same normalised text is returned once, the others' ids in duplicateIds, and limit distinct results remain", async () => {
    const store = await open([
      { id: "a", text: "The deploy moved to Friday" },
      { id: "b", text: "the  DEPLOY moved to friday." },
      { id: "c", text: "The deploy moved to Friday" },
      { id: "d", text: "The deploy moved to Thursday" },
      { id: "f", text: "The deploy moved to Friday night" },
    ]);
    const r = await store.recall("deploy moved", { ...quiet, limit: 3 });
    assert.equal(r.results.length, 3);
    const kept = r.results.find((h) => h.duplicateIds !== undefined);
    assert.deepEqual([kept.id, ...kept.duplicateIds].sort(), ["a", "b", "c"]);
    assert.deepEqual(r.results.filter((h) => h !== kept).map((h) => h.id).sort(), ["d", "f"]);
    assert.equal(r.dedupRemoved, 2);
    const abmind = await store.recall("deploy moved", { ...quiet, ranking: "abmind" });
    assert.equal(abmind.results.length, 5, "abmind's pipeline keeps repeats");
    await store.close();
  });
});

describe("a time window that holds nothing", () => {
  test("is dropped by the engine in the same recall, and the answer says so", async () => {
    const store = await open([{ id: "office", text: "the office is open on Saturday", createdAt: now - 40 * DAY }]);
    const r = await store.recall("is the office open on Saturday?", quiet);
    assert.deepEqual(r.results.map((h) => h.id), ["office"]);
    assert.equal(r.timeWindow, undefined);
    assert.equal(r.query.windowDropped, true);
    assert.equal(r.query.resolvedFrom, "on Saturday?");
    assert.equal(describeQuery(r), '"is the office open on Saturday?" ("on Saturday?": no window, it held nothing)');
    await store.close();
  });
});

describe("dates in words", () => {
  test("a date written as words is that day, not its month or year", async () => {
    const at = (y, m, d) => Date.UTC(y, m - 1, d, 12);
    const store = await open([
      { id: "seed", text: "planted the tomato seedlings in the garden", createdAt: at(2022, 9, 28) },
      { id: "prune", text: "pruned the roses in the garden", createdAt: at(2022, 10, 5) },
      { id: "rake", text: "raked the leaves in the garden", createdAt: at(2022, 11, 2) },
    ]);
    for (const q of ["what did I do in the garden on October 5, 2022?", "garden on 5th October 2022", "garden, the 5th of October 2022"]) {
      const r = await store.recall(q, quiet);
      assert.deepEqual(r.results.map((h) => h.id), ["prune"], q);
      assert.deepEqual([r.timeWindow.start, r.timeWindow.end], [Date.UTC(2022, 9, 5), Date.UTC(2022, 9, 6) - 1], q);
    }
    await store.close();
  });

  test("a span before a date is read at that date and holds that day too", async () => {
    const at = (y, m, d) => Date.UTC(y, m - 1, d, 12);
    const store = await open([
      { id: "seed", text: "planted the tomato seedlings in the garden", createdAt: at(2022, 9, 28) },
      { id: "told", text: "last week the tomato seedlings went into the garden", createdAt: at(2022, 10, 5) },
      { id: "early", text: "tomato seeds sown indoors for the garden", createdAt: at(2022, 4, 2) },
    ]);
    const r = await store.recall("tomato garden the week before October 5, 2022", quiet);
    assert.deepEqual(r.results.map((h) => h.id).sort(), ["seed", "told"]);
    assert.equal(r.query.resolvedFrom, "the week before October 5, 2022");
    const before = await store.recall("tomato garden before June 2022", quiet);
    assert.deepEqual(before.results.map((h) => h.id), ["early"]);
    await store.close();
  });

  test("describeQuery reads a before window's open start as …, at any offset", async () => {
    const store = await open([{ id: "a", text: "paid the water bill", createdAt: Date.UTC(2024, 0, 10) }]);
    const context = { utcOffsetMinutes: -300 };
    const r = await store.recall("which bills did I pay before March 2024", { ...quiet, context });
    assert.equal(r.timeWindow.start, -8.64e15);
    assert.equal(describeQuery(r, -300), '"which bills did I pay" ("before March 2024" → … to 2024-02-29)');
    const utc = await store.recall("which bills did I pay before March 2024", quiet);
    assert.equal(describeQuery(utc), '"which bills did I pay" ("before March 2024" → … to 2024-02-29)');
    await store.close();
  });

  test("timeQuery after a time not over yet is an empty window, not an error about start and end", async () => {
    const store = await open([{ id: "a", text: "paid the water bill" }]);
    for (const timeQuery of ["after today", "after this week"]) {
      const r = await store.recall("bill", { ...quiet, timeQuery });
      assert.deepEqual(r.results, [], timeQuery);
      assert.deepEqual([r.timeWindow.start, r.timeWindow.end], [now, now], timeQuery);
    }
    await store.close();
  });
});
