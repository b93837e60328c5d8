// Notes and the entity graph through the public API (real WebAssembly).
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { rejectsWith } from "./support/errors.mjs";
import { DAY, NOW, openMemoryStore } from "./support/stores.mjs";

const open = () => openMemoryStore();

describe("notes", () => {
  test("addNote, getNote, updateNote, forgetNote, notes", async () => {
    const store = await open();
    const id = await store.addNote({ period: "weekly", start: "2026-05-25T00:00:00Z", text: "# Week\n\nWe migrated to SQLite." });
    const note = await store.getNote(id);
    assert.equal(note.period, "weekly");
    assert.equal(note.end - note.start, 7 * DAY);
    assert.equal(note.createdAt, NOW);
    const updated = await store.updateNote(id, { text: "Changed text" });
    assert.equal(updated.text, "Changed text");
    assert.equal(updated.start, note.start);
    assert.equal((await store.notes()).length, 1);
    assert.equal((await store.forgetNote(id)).id, id);
    assert.equal(await store.getNote(id), undefined);
    await rejectsWith(store.forgetNote(id), "not_found", new RegExp(id));
  });

  test("bad notes are rejected and nothing is stored", async () => {
    const store = await open();
    await rejectsWith(store.addNote({ period: "monthly", start: NOW, text: "x" }), "invalid_argument", /period/);
    await rejectsWith(store.addNote({ period: "daily", text: "x" }), "invalid_argument", /start/);
    await rejectsWith(store.addNote({ period: "daily", start: NOW, end: NOW - 1, text: "x" }), "invalid_argument");
    await rejectsWith(store.addNote({ period: "daily", start: NOW, text: "" }), "invalid_argument", /text/);
    await rejectsWith(store.addNote({ period: "daily", start: NOW, text: "x", colour: 1 }), "invalid_argument", /colour/);
    await store.addNote({ id: "n", period: "daily", start: NOW, text: "x" });
    await rejectsWith(store.addNote({ id: "n", period: "daily", start: NOW, text: "y" }), "already_exists");
    await rejectsWith(store.updateNote("missing", { text: "y" }), "not_found");
    assert.equal((await store.notes()).length, 1);
  });

  test("a note patch cannot remove period, start or text; end: null restores the period's end", async () => {
    const store = await open();
    const id = await store.addNote({ period: "weekly", start: NOW, end: NOW + DAY, text: "x" });
    for (const field of ["period", "start", "text"]) {
      await rejectsWith(store.updateNote(id, { [field]: null }), "invalid_argument", new RegExp(`^${field} must be .*got null$`));
    }
    const kept = await store.getNote(id);
    assert.deepEqual([kept.period, kept.start, kept.end, kept.text], ["weekly", NOW, NOW + DAY, "x"]);
    const cleared = await store.updateNote(id, { end: null });
    assert.equal(cleared.end - cleared.start, 7 * DAY);
    // A weekly note made daily without an end gets a day, not the week it had.
    const daily = await store.updateNote(id, { period: "daily" });
    assert.equal(daily.end - daily.start, DAY);
    const given = await store.updateNote(id, { period: "weekly", end: NOW + 2 * DAY });
    assert.equal(given.end, NOW + 2 * DAY);
  });
});

describe("entity graph", () => {
  test("addEntity, relate, edges, unrelate, forgetEntity", async () => {
    const store = await open();
    await store.addEntity({ name: "Alice", type: "person", aliases: ["Ali"] });
    await store.addEntity({ name: "Bob", type: "person" });
    const edge = await store.relate({ from: "Alice", relation: "works with", to: "Bob", strength: 0.9, memoryIds: ["m1"] });
    assert.equal(edge.relation, "works_with");
    assert.equal(edge.strength, 0.9);
    assert.deepEqual(edge.memoryIds, ["m1"]);
    const again = await store.relate({ from: "ali", relation: "works_with", to: "bob", memoryIds: ["m2"] });
    assert.equal(again.id, edge.id);
    assert.deepEqual(again.memoryIds.sort(), ["m1", "m2"]);
    assert.equal((await store.edges()).length, 1);
    const names = (await store.entities()).map((e) => e.name).sort();
    assert.deepEqual(names, ["Alice", "Bob"]);
    assert.equal(await store.unrelate({ from: "Alice", to: "Bob" }), 1);
    await rejectsWith(store.unrelate({ from: "Alice", to: "Bob" }), "not_found");
    await store.relate({ from: "Alice", relation: "knows", to: "Carol" });
    assert.equal((await store.entities()).length, 3, "unknown endpoints become entities");
    await store.forgetEntity("Carol");
    assert.equal((await store.edges()).length, 0, "edges of a removed entity go with it");
  });

  test("bad graph input is rejected", async () => {
    const store = await open();
    await rejectsWith(store.addEntity({ type: "person" }), "invalid_argument", /name/);
    await rejectsWith(store.relate({ from: "a", to: "b" }), "invalid_argument", /relation/);
    await rejectsWith(store.relate({ from: "a", relation: "r", to: "b", strength: 2 }), "invalid_argument", /strength/);
    await rejectsWith(store.forgetEntity("nobody"), "not_found");
  });
});

describe("edges in time (Memoria's bi-temporal facts)", () => {
  /** Stefan lived in Berlin until 2021, then in Stockholm; each edge recorded when it began. */
  async function stefan() {
    let now = Date.parse("2019-05-02");
    const store = await openMemoryStore({ clock: () => now });
    await store.relate({ from: "Stefan", relation: "lives in", to: "Berlin", validFrom: "2019-05-01", validTo: "2021-03-01" });
    now = Date.parse("2021-03-02");
    await store.relate({ from: "Stefan", relation: "lives in", to: "Stockholm", validFrom: "2021-03-01" });
    now = NOW;
    return store;
  }
  const edgeIds = async (store, options) => (await store.recall("where does Stefan live?", { trackRecalls: false, ...options }))
    .results.filter((r) => r.kind === "edge").map((r) => r.id).sort();

  test("asOf 2020 gives Berlin, now gives Stockholm, includeInvalid both, in every ranking", async () => {
    const store = await stefan();
    for (const ranking of ["recallkit", "abmind", "rrf", "composite", "weighted"]) {
      assert.deepEqual(await edgeIds(store, { ranking, asOf: "2020-06-01" }), ["stefan|lives_in|berlin"], ranking);
      assert.deepEqual(await edgeIds(store, { ranking }), ["stefan|lives_in|stockholm"], ranking);
      assert.deepEqual(await edgeIds(store, { ranking, includeInvalid: true }), ["stefan|lives_in|berlin", "stefan|lives_in|stockholm"], ranking);
      assert.deepEqual(await edgeIds(store, { ranking, asOf: "2019-05-01T12:00:00Z" }), [], `${ranking}: true then, not recorded yet`);
    }
    const berlin = (await store.edges()).find((e) => e.to === "berlin");
    assert.deepEqual([berlin.validFrom, berlin.validTo], [Date.parse("2019-05-01"), Date.parse("2021-03-01")]);
    assert.equal((await store.edges()).length, 2, "a listing shows every stored edge");
    // The context block shows the edge's validity.
    const block = await store.context("where does Stefan live?", { asOf: "2020-06-01", trackRecalls: false });
    assert.match(block.text, /\[relation\] Stefan —\[lives_in\]→ Berlin \(valid 2019-05-01 – 2021-03-01\)/);
    const current = await store.context("where does Stefan live?", { trackRecalls: false });
    assert.match(current.text, /Stockholm \(valid 2021-03-01 – \)/);
  });

  test("a validity that does not end after it starts is invalid_argument and stores nothing", async () => {
    const store = await stefan();
    await rejectsWith(store.relate({ from: "Stefan", relation: "works at", to: "Spotify", validFrom: "2022-01-01", validTo: "2021-01-01" }),
      "invalid_argument", /validTo .* must be after validFrom/);
    await rejectsWith(store.relate({ from: "Stefan", relation: "lives in", to: "Stockholm", validTo: "2020-01-01" }), "invalid_argument", /validTo/);
    await rejectsWith(store.relate({ from: "a", relation: "r", to: "b", validFrom: "not a date" }), "invalid_argument", /validFrom/);
    assert.equal((await store.edges()).length, 2);
    assert.equal((await store.entities()).some((e) => e.name === "Spotify"), false);
    const ended = await store.relate({ from: "Stefan", relation: "lives in", to: "Stockholm", validTo: "2026-01-01" });
    assert.equal(ended.validFrom, Date.parse("2021-03-01"), "relating again replaces only the end given");
    assert.deepEqual(await edgeIds(store, {}), []);
  });
});

describe("stage S8: Personalized PageRank (Memoria's graph signal)", () => {
  async function tuesday() {
    const store = await open();
    for (const [from, relation, to] of [
      ["Tuesday project", "depends on", "Auth service"], ["Auth service", "depends on", "Postgres"],
      ["Tuesday project", "owned by", "Priya"], ["Priya", "lives in", "Lisbon"], ["Acme", "acquired by", "Globex"],
    ]) await store.relate({ from, relation, to, strength: 0.8 });
    return store;
  }
  const edgeHits = async (store, query, options = {}) => (await store.recall(query, { trackRecalls: false, ...options }))
    .results.filter((r) => r.kind === "edge");

  test("the question finds the project's direct edge and the dependency two hops away, each with its mass", async () => {
    const store = await tuesday();
    const hits = await edgeHits(store, "what does my tuesday project depend on?");
    const ids = hits.map((h) => h.id);
    assert.ok(ids.includes("tuesday project|depends_on|auth service"), ids.join());
    assert.ok(ids.includes("auth service|depends_on|postgres"), ids.join());
    for (const h of hits) assert.ok(h.components.ppr > 0, `${h.id}: ${JSON.stringify(h.components)}`);
    // abmind's S8 stays the first entity's own edges.
    const abmind = (await edgeHits(store, "what does my tuesday project depend on?", { ranking: "abmind" })).map((h) => h.id).sort();
    assert.deepEqual(abmind, ["tuesday project|depends_on|auth service", "tuesday project|owned_by|priya"]);
  });

  test("a relation type is searchable, and entityHints are seeds", async () => {
    const store = await tuesday();
    const acquired = await edgeHits(store, "which company was acquired by another?");
    assert.deepEqual(acquired.map((h) => h.text), ["Acme —[acquired_by]→ Globex"]);
    const hinted = await edgeHits(store, "who bought it?", { entityHints: ["Globex"] });
    assert.deepEqual(hinted.map((h) => h.id), ["acme|acquired_by|globex"]);
    assert.deepEqual(await edgeHits(store, "who bought it?"), []);
    await rejectsWith(store.recall("x", { entityHints: "Globex" }), "invalid_argument", /entityHints/);
    await rejectsWith(store.recall("x", { entityHints: ["—"] }), "invalid_argument", /entityHints "—" has no letters or digits/);
    await rejectsWith(store.recall("x", { entityHints: Array.from({ length: 17 }, (_, i) => `e${i}`) }), "invalid_argument", /at most 16/);
  });

  test("PageRank never walks into another user's entities or edges", async () => {
    const store = await tuesday();
    await store.relate({ from: "Bob's secret project", relation: "depends on", to: "Auth service", strength: 1, userId: "bob" });
    const alice = await edgeHits(store, "tuesday project auth service", { userId: "alice", entityHints: ["Bob's secret project"], limit: 50 });
    assert.ok(alice.length > 0);
    assert.equal(alice.some((h) => /secret/i.test(h.text)), false, alice.map((h) => h.text).join("; "));
    const bob = await edgeHits(store, "tuesday project auth service", { userId: "bob", limit: 50 });
    assert.ok(bob.some((h) => h.id === "bob s secret project|depends_on|auth service"));
  });
});
