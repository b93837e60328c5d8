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
