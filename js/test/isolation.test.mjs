// Isolation between users and classification levels (issue 27): a recall with userId and
// maxClassification returns nothing of another user's or above the ceiling (memories, note
// paragraphs, edges), and no id inside a result names such a record (an edge's memoryIds,
// timelines, conflicts). The exact reproductions, the listings, export/import, stores written
// before notes had owners, then a seeded property test over every search mode and ranking.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MemoryStore, RecallError } from "../dist/index.js";
import { FileAdapter, LOG_FILE } from "../dist/storage/file.js";
import { encodeRecord } from "../dist/storage/codec.js";
import { encodeConfig } from "../dist/storage/layout.js";
import { rejectsWith } from "./support/errors.mjs";
import { tempRoot } from "./support/temp.mjs";
import { DAY, NOW, openMemoryStore } from "./support/stores.mjs";

const RANKINGS = ["recallkit", "abmind", "rrf", "composite", "weighted"];
const MODES = ["hybrid", "lexical", "semantic"];

const { fresh } = tempRoot("isolation");

const open = (options = {}) => openMemoryStore({ ...options });
const quiet = { trackRecalls: false, minScore: 0 };

async function exportOf(store) {
  let out = "";
  for await (const line of store.export()) out += line;
  return out;
}

const kinds = (res, kind) => res.results.filter((r) => r.kind === kind);

describe("regressions: nothing of another user's reaches a recall", () => {
  test("a note of one user never reaches another user's recall", async () => {
    const store = await open();
    await store.addNote({ id: "alice", period: "weekly", start: NOW - DAY, text: "Alice's diagnosis came back", userId: "alice" });
    await store.addNote({ id: "shared", period: "weekly", start: NOW - DAY, text: "The team diagnosis meeting" });
    for (const ranking of RANKINGS) {
      const noteIds = async (userId) =>
        kinds(await store.recall("diagnosis", { ...quiet, ranking, userId }), "note").map((r) => r.note.id).sort();
      assert.deepEqual(await noteIds("bob"), ["shared"], ranking);
      assert.deepEqual(await noteIds("alice"), ["alice", "shared"], ranking);
      assert.deepEqual(await noteIds(undefined), ["alice", "shared"], `${ranking}: no userId filters no user, as for memories`);
    }
  });

  test("a note classified above maxClassification never reaches the recall", async () => {
    const store = await open();
    await store.addNote({ id: "low", period: "daily", start: NOW, text: "breach report summary", classification: 1 });
    await store.addNote({ id: "high", period: "daily", start: NOW, text: "breach forensics detail", classification: 3 });
    for (const ranking of RANKINGS) {
      const noteIds = async (maxClassification) =>
        kinds(await store.recall("breach", { ...quiet, ranking, maxClassification }), "note").map((r) => r.note.id).sort();
      assert.deepEqual(await noteIds(0), [], ranking);
      assert.deepEqual(await noteIds(2), ["low"], ranking);
      assert.deepEqual(await noteIds(3), ["high", "low"], ranking);
    }
  });

  test("an edge made by relate() never shows the id of another user's memory", async () => {
    // The tester's reproduction: one shared relation citing both users' memories.
    const store = await open();
    await store.remember({ id: "alice-m", text: "Ana leads the Atlas migration", userId: "alice" });
    await store.remember({ id: "bob-m", text: "Ana presented Atlas to the board", userId: "bob" });
    await store.remember({ id: "bob-secret", text: "Ana's Atlas budget", userId: "bob", classification: 4 });
    await store.relate({ from: "Ana", relation: "leads", to: "Atlas", memoryIds: ["alice-m", "bob-m", "bob-secret", "later-m"] });
    for (const ranking of RANKINGS) {
      for (const [userId, maxClassification, expected] of [
        ["alice", undefined, ["alice-m"]], ["bob", 2, ["bob-m"]], ["bob", undefined, ["bob-m", "bob-secret"]],
      ]) {
        const res = await store.recall("what does Ana lead?", { ...quiet, ranking, userId, maxClassification });
        const [edge] = kinds(res, "edge");
        assert.ok(edge, `${ranking}: the shared edge is shown`);
        assert.deepEqual(edge.edge.memoryIds, expected, `${ranking} ${userId} ${maxClassification}`);
        for (const hit of kinds(res, "memory")) assert.ok(expected.includes(hit.id), `${ranking}: memory ${hit.id}`);
      }
    }
    // Stored as given: the unfiltered listing (and export) keep every id.
    assert.deepEqual((await store.edges())[0].memoryIds, ["alice-m", "bob-m", "bob-secret", "later-m"]);
    assert.deepEqual((await store.edges({ userId: "alice" }))[0].memoryIds, ["alice-m"]);
  });

  test("another user's edge never reaches a recall, and the names it created are not listed", async () => {
    const store = await open();
    await store.relate({ from: "Bo", relation: "knows", to: "Ana" });
    const edge = await store.relate({ from: "Ana", relation: "dates", to: "Carol", userId: "alice", classification: 2 });
    assert.equal(edge.userId, "alice");
    assert.equal(edge.classification, 2);
    for (const ranking of RANKINGS) {
      const edgeIds = async (userId, maxClassification) =>
        kinds(await store.recall("who is Ana with?", { ...quiet, ranking, userId, maxClassification }), "edge").map((r) => r.id).sort();
      assert.deepEqual(await edgeIds("bob"), ["bo|knows|ana"], ranking);
      assert.deepEqual(await edgeIds("alice"), ["ana|dates|carol", "bo|knows|ana"], ranking);
      assert.deepEqual(await edgeIds("alice", 1), ["bo|knows|ana"], ranking);
    }
    assert.deepEqual((await store.entities({ userId: "bob" })).map((e) => e.name), ["Ana", "Bo"]);
    const carol = (await store.entities()).find((e) => e.name === "Carol");
    assert.deepEqual([carol.userId, carol.classification], ["alice", 2], "an entity relate() creates takes the edge's owner and level");
  });

  test("relate and addEntity as a user never change, take over or name another user's record", async () => {
    const store = await open();
    await store.relate({ from: "Ana", relation: "knows", to: "Bo" });
    await store.relate({ from: "Ana", relation: "dates", to: "Bo", userId: "alice", memoryIds: ["a1"] });
    await store.addEntity({ name: "Robert", aliases: ["Secret Bob"], userId: "alice" });
    const before = await exportOf(store);
    await rejectsWith(store.relate({ from: "ana", relation: "dates", to: "bo", userId: "bob" }), "already_exists", /^the relation "ana" —\[dates\]→ "bo" is shared or another user's$/);
    await rejectsWith(store.relate({ from: "ana", relation: "knows", to: "bo", userId: "bob" }), "already_exists", /is shared or another user's/);
    await rejectsWith(store.relate({ from: "Robert", relation: "knows", to: "Bo", userId: "bob" }), "already_exists", /^entity "Robert" is another user's$/);
    await rejectsWith(store.addEntity({ name: "robert", aliases: ["Bert"], userId: "bob" }), "already_exists", /^entity "robert" is shared or another user's$/);
    await rejectsWith(store.addEntity({ name: "Bobby", aliases: ["secret bob"], userId: "bob" }), "invalid_argument", /already names another user's entity$/);
    await rejectsWith(store.addEntity({ name: "Ana", type: "person", userId: "bob" }), "already_exists", /shared or another user's/);
    await rejectsWith(store.forgetEntity("robert", { userId: "bob" }), "not_found", /no entity named "robert"/);
    await rejectsWith(store.unrelate({ from: "ana", relation: "dates", to: "bo", userId: "bob" }), "not_found");
    assert.equal(await exportOf(store), before, "nothing changed");
    // Its owner changes it; the whole store (no userId) may change anything, keeping the owner.
    assert.deepEqual((await store.relate({ from: "ana", relation: "dates", to: "bo", userId: "alice", memoryIds: ["a2"] })).memoryIds, ["a1", "a2"]);
    assert.equal((await store.relate({ from: "ana", relation: "dates", to: "bo", strength: 0.9 })).userId, "alice");
    assert.equal(await store.unrelate({ from: "ana", to: "bo", userId: "alice" }), 1);
    assert.equal((await store.forgetEntity("robert", { userId: "alice" })).name, "Robert");
    assert.deepEqual((await store.edges()).map((e) => e.id), ["ana|knows|bo"]);
    await rejectsWith(store.forgetEntity("ana", { userId: "alice" }), "not_found", /no entity named "ana"/);
    await rejectsWith(store.forgetEntity("ana", { user: "alice" }), "invalid_argument", /unknown field "user"/);
  });
});

describe("regressions: a merge never declassifies", () => {
  test("addEntity merging an alias into a classified entity keeps it hidden from lower readers", async () => {
    const store = await open();
    await store.addEntity({ name: "Project Nightfall", type: "project", classification: 3 });
    await store.addEntity({ name: "project nightfall", aliases: ["PN"] });
    assert.deepEqual(await store.entities({ maxClassification: 0 }), []);
    const [e] = await store.entities();
    assert.deepEqual([e.name, e.classification, e.aliases], ["project nightfall", 3, ["PN"]]);
    await store.close();
  });
});

describe("listings take a scope", () => {
  test("notes, entities and edges list everything without options and what a scope sees with them", async () => {
    const store = await open();
    await store.remember({ id: "m-a", text: "alpha", userId: "alice" });
    await store.remember({ id: "m-b", text: "beta", userId: "bob", classification: 2 });
    await store.addNote({ id: "n-a", period: "daily", start: NOW, text: "alpha", userId: "alice" });
    await store.addNote({ id: "n-b", period: "daily", start: NOW, text: "beta", userId: "bob", classification: 2 });
    await store.addNote({ id: "n-s", period: "daily", start: NOW, text: "shared" });
    await store.relate({ from: "Ana", relation: "knows", to: "Bo", memoryIds: ["m-a", "m-b"] });
    await store.relate({ from: "Ana", relation: "likes", to: "Cy", userId: "bob", classification: 2, memoryIds: ["m-b"] });
    const ids = (list, key = "id") => list.map((x) => x[key]);
    assert.deepEqual(ids(await store.notes()), ["n-a", "n-b", "n-s"]);
    assert.deepEqual(ids(await store.notes({})), ["n-a", "n-b", "n-s"]);
    assert.deepEqual(ids(await store.notes({ userId: "alice" })), ["n-a", "n-s"]);
    assert.deepEqual(ids(await store.notes({ userId: "bob", maxClassification: 1 })), ["n-s"]);
    assert.deepEqual(ids(await store.notes({ maxClassification: 1 })), ["n-a", "n-s"]);
    assert.deepEqual(ids(await store.entities(), "name"), ["Ana", "Bo", "Cy"]);
    assert.deepEqual(ids(await store.entities({ userId: "alice" }), "name"), ["Ana", "Bo"]);
    assert.deepEqual(ids(await store.entities({ userId: "bob" }), "name"), ["Ana", "Bo", "Cy"]);
    assert.deepEqual(ids(await store.edges({ userId: "alice" })), ["ana|knows|bo"]);
    assert.deepEqual((await store.edges({ userId: "alice" }))[0].memoryIds, ["m-a"]);
    assert.deepEqual((await store.edges({ userId: "bob", maxClassification: 1 })).map((e) => [e.id, e.memoryIds ?? []]), [["ana|knows|bo", []]]);
    assert.deepEqual((await store.edges()).map((e) => [e.id, e.memoryIds]), [["ana|knows|bo", ["m-a", "m-b"]], ["ana|likes|cy", ["m-b"]]]);
    await rejectsWith(store.notes({ user: "x" }), "invalid_argument", /unknown field "user"/);
    await rejectsWith(store.edges({ maxClassification: 1.5 }), "invalid_argument", /maxClassification/);
    await rejectsWith(store.entities("alice"), "invalid_argument", /must be an object/);
  });

  test("updateNote changes or clears userId and classification", async () => {
    const store = await open();
    const id = await store.addNote({ period: "daily", start: NOW, text: "x", userId: "alice", classification: 2 });
    assert.deepEqual([(await store.getNote(id)).userId, (await store.getNote(id)).classification], ["alice", 2]);
    const moved = await store.updateNote(id, { userId: "bob" });
    assert.deepEqual([moved.userId, moved.classification], ["bob", 2]);
    const cleared = await store.updateNote(id, { userId: null, classification: null });
    assert.equal(cleared.userId, undefined);
    assert.equal(cleared.classification, undefined, "0 is left out, as in notes written before they had owners");
    await rejectsWith(store.addNote({ period: "daily", start: NOW, text: "x", classification: 0.5 }), "invalid_argument", /classification/);
    await rejectsWith(store.addNote({ period: "daily", start: NOW, text: "x", userId: 7 }), "invalid_argument", /userId/);
  });
});

describe("persistence", () => {
  test("userId and classification of notes, entities and edges survive export, import and reopening", async () => {
    const path = fresh("s");
    let store = await MemoryStore.open({ storage: "file", path, clock: () => NOW });
    await store.remember({ id: "m1", text: "alpha", userId: "alice" });
    await store.addNote({ id: "n1", period: "daily", start: NOW, text: "alpha", userId: "alice", classification: 3 });
    await store.addNote({ id: "n2", period: "daily", start: NOW, text: "shared" });
    await store.addEntity({ name: "Ana", userId: "alice", classification: 1 });
    await store.relate({ from: "Ana", relation: "knows", to: "Bo", userId: "alice", classification: 2, memoryIds: ["m1"] });
    const exported = await exportOf(store);
    await store.close();
    const noteLine = exported.split("\n").find((l) => l.includes('"id":"n1"'));
    assert.match(noteLine, /"userId":"alice","classification":3/);
    assert.ok(!exported.split("\n").find((l) => l.includes('"id":"n2"')).includes("classification"), "a shared, unclassified note is written as before");
    store = await MemoryStore.open({ storage: "file", path, clock: () => NOW });
    assert.equal(await exportOf(store), exported, "reopened");
    assert.deepEqual(kinds(await store.recall("alpha", { ...quiet, userId: "bob" }), "note"), []);
    await store.close();
    const copy = await open();
    await copy.import(exported);
    assert.equal(await exportOf(copy), exported, "export → import → export");
    assert.deepEqual((await copy.edges({ userId: "bob" })), []);
  });

  test("a store written before notes had owners opens, and its notes, entities and edges stay shared", async () => {
    // Records exactly as the previous version wrote them (format 1 store, record codec 2).
    const path = fresh("s");
    const raw = await FileAdapter.open({ path });
    const put = (key, kind, data) => ({ op: "put", key, value: encodeRecord({ kind, data }) });
    const memory = (id, text, extra) => ({
      id, text, emotion: 0, relevance: 0, classification: 0, createdAt: NOW, updatedAt: NOW, recallCount: 0, ...extra,
    });
    const oldNote = { id: "n1", period: "daily", start: NOW - DAY, end: NOW, text: "The quiet garden day", createdAt: NOW, updatedAt: NOW };
    await raw.write([
      { op: "put", key: "meta/config", value: encodeConfig({ format: 1, signatureSeed: "7265636c6c6b6900" }) },
      put("m/a", "memory", memory("a", "Ana waters the garden", { userId: "alice", order: 0 })),
      put("m/b", "memory", memory("b", "Ana's garden has tomatoes", { order: 1 })),
      put("n/n1", "note", oldNote),
      put("e/Ana", "entity", { name: "Ana", classification: 0, createdAt: NOW }),
      put("e/garden", "entity", { name: "garden", classification: 0, createdAt: NOW }),
      put("g/ana|tends|garden", "edge", {
        id: "ana|tends|garden", from: "ana", relation: "tends", to: "garden", strength: 0.5, createdAt: NOW, lastSeenAt: NOW,
        memoryIds: ["a", "b"], classification: 0,
      }),
    ]);
    await raw.close();
    const store = await MemoryStore.open({ storage: "file", path, clock: () => NOW });
    assert.deepEqual(await store.notes(), [oldNote]);
    for (const ranking of RANKINGS) {
      const res = await store.recall("what does Ana do in the garden?", { ...quiet, ranking, userId: "carol" });
      assert.deepEqual(kinds(res, "note").map((r) => r.note.id), ["n1"], `${ranking}: an old note is shared`);
      const [edge] = kinds(res, "edge");
      assert.equal(edge?.id, "ana|tends|garden", `${ranking}: an old edge is shared`);
      assert.deepEqual(edge.edge.memoryIds ?? [], [], `${ranking}: memory a is alice's; b has no userId, hidden from a userId recall`);
      const mine = await store.recall("what does Ana do in the garden?", { ...quiet, ranking, userId: "alice" });
      assert.deepEqual(kinds(mine, "edge")[0].edge.memoryIds, ["a"], ranking);
    }
    assert.deepEqual((await store.entities({ userId: "carol" })).map((e) => e.name), ["Ana", "garden"]);
    const lines = (await exportOf(store)).split("\n");
    assert.equal(lines.find((l) => l.includes('"kind":"note"')), JSON.stringify({ v: 1, kind: "note", data: oldNote }), "written back unchanged");
    await store.close();
  });

  test("the version-1 fixture store keeps its note and edge shared", async () => {
    const dir = fresh("s");
    mkdirSync(dir);
    writeFileSync(join(dir, LOG_FILE), readFileSync(new URL("./storage/fixtures/v1-store.log", import.meta.url)));
    const store = await MemoryStore.open({ storage: "file", path: dir });
    const res = await store.recall("quiet day", { ...quiet, userId: "someone", now: 1700006400000 });
    assert.deepEqual(kinds(res, "note").map((r) => r.note.id), ["n1"]);
    const tea = await store.recall("what does Alice like?", { ...quiet, userId: "someone" });
    assert.deepEqual(kinds(tea, "edge").map((r) => [r.id, r.edge.memoryIds ?? []]), [["alice|likes|tea", []]]);
    const everyone = await store.recall("what does Alice like?", { ...quiet });
    assert.deepEqual(kinds(everyone, "edge").map((r) => r.edge.memoryIds), [["b"]], "a recall for no user sees every memory");
    await store.close();
  });
});

// ---- the property test ----------------------------------------------------------------------

/** splitmix64 (Steele, Lea, Flood 2014): a small seeded generator. */
function rng(seed) {
  let state = BigInt(seed);
  const mask = (1n << 64n) - 1n;
  const next = () => {
    state = (state + 0x9e3779b97f4a7c15n) & mask;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    return z ^ (z >> 31n);
  };
  const below = (n) => Number(next() % BigInt(n));
  const pick = (items) => items[below(items.length)];
  return { below, pick };
}

const USERS = ["u0", "u1", "u2"];
const WORDS = ["atlas", "budget", "lisbon", "garden", "migration", "coffee", "deadline", "piano"];
const NAMES = ["Ana", "Bo", "Cy", "Dee", "Eve"];
const DIMS = 4;

/** A store holding every kind of record for random owners at random levels, and what was written. */
async function randomStore(r) {
  const store = await open({ dimensions: DIMS });
  const owner = () => (r.below(4) === 0 ? undefined : r.pick(USERS));
  const words = (n) => Array.from({ length: n }, () => r.pick(WORDS)).join(" ");
  const vector = () => Array.from({ length: DIMS }, () => (r.below(2001) - 1000) / 1000 + 0.01);
  const memories = new Map();
  const memoryIds = [];
  for (let i = 0; i < 30; i++) {
    const m = {
      id: `m${i}`, text: `${words(3)} ${r.pick(NAMES)}`, userId: owner(), classification: r.below(4),
      topic: r.pick(["work", "home"]), createdAt: NOW - r.below(30) * DAY,
    };
    if (r.below(4) !== 0) m.embedding = vector();
    if (m.userId === undefined) delete m.userId;
    await store.remember(m);
    memories.set(m.id, { userId: m.userId, classification: m.classification });
    memoryIds.push(m.id);
  }
  const notes = new Map();
  for (let i = 0; i < 12; i++) {
    const n = {
      id: `n${i}`, period: "daily", start: NOW - r.below(30) * DAY, text: `${words(4)}\n\n${words(2)} ${r.pick(NAMES)}`,
      userId: owner(), classification: r.below(4),
    };
    if (n.userId === undefined) delete n.userId;
    await store.addNote(n);
    notes.set(n.id, { userId: n.userId, classification: n.classification });
  }
  const refused = (e) => {
    assert.ok(e instanceof RecallError && ["already_exists", "invalid_argument"].includes(e.code), String(e));
  };
  for (let i = 0; i < 3; i++) {
    const userId = owner();
    await store.addEntity({
      name: r.pick(NAMES), aliases: [`${r.pick(NAMES)} ${r.pick(WORDS)}`], classification: r.below(4), ...(userId ? { userId } : {}),
    }).catch(refused);
  }
  for (let i = 0; i < 25; i++) {
    const cited = Array.from({ length: 1 + r.below(4) }, () => (r.below(6) === 0 ? `ghost${r.below(3)}` : r.pick(memoryIds)));
    const userId = owner();
    const relation = {
      from: r.pick(NAMES), relation: r.pick(["knows", "works_on", "visited"]), to: r.pick(NAMES),
      strength: r.below(11) / 10, memoryIds: cited, ...(userId ? { userId } : {}),
    };
    if (r.below(2) === 0) relation.classification = r.below(4);
    await store.relate(relation).catch(refused);
  }
  // Entities and edges as stored (the ground truth of their owners, implicit ones included).
  const entities = new Map((await store.entities()).map((e) => [e.name.toLowerCase(), e]));
  const edges = new Map((await store.edges()).map((e) => [e.id, e]));
  return { store, memories, notes, entities, edges, vector };
}

/** Checks one recall's output against what the scope may see; returns counts of what it showed. */
function checkOutput(world, scope, res, what) {
  const { memories, notes, entities, edges } = world;
  const { userId, maxClassification } = scope;
  const level = (c) => maxClassification === undefined || (c ?? 0) <= maxClassification;
  const owned = (owner) => userId === undefined || owner === undefined || owner === userId;
  const seesMemory = (id) => {
    const m = memories.get(id);
    return m !== undefined && (userId === undefined || m.userId === userId) && level(m.classification);
  };
  const seesNote = (id) => notes.has(id) && owned(notes.get(id).userId) && level(notes.get(id).classification);
  const seesEntity = (key) => entities.has(key) && owned(entities.get(key).userId) && level(entities.get(key).classification);
  const seesEdge = (id) => {
    const e = edges.get(id);
    return e !== undefined && owned(e.userId) && level(e.classification) && seesEntity(e.from) && seesEntity(e.to);
  };
  const sees = (id) => {
    if (id.startsWith("note:")) return seesNote(id.slice(5, id.lastIndexOf("#")));
    return edges.has(id) ? seesEdge(id) : seesMemory(id);
  };
  const shown = { notes: 0, edges: 0, cited: 0 };
  for (const hit of res.results) {
    assert.ok(sees(hit.id), `${what}: result ${hit.id}`);
    if (hit.kind === "memory") {
      assert.equal(hit.memory.id, hit.id, what);
      assert.equal(hit.memory.userId, memories.get(hit.id).userId, what);
    }
    if (hit.kind === "note") {
      assert.ok(seesNote(hit.note.id), `${what}: note ${hit.note.id}`);
      shown.notes++;
    }
    if (hit.kind === "edge") {
      assert.ok(seesEdge(hit.edge.id), `${what}: edge ${hit.edge.id}`);
      for (const id of hit.edge.memoryIds ?? []) {
        assert.ok(seesMemory(id), `${what}: edge ${hit.edge.id} names memory ${id}`);
        shown.cited++;
      }
      shown.edges++;
    }
    for (const item of hit.timeline ?? []) assert.ok(sees(item.id), `${what}: timeline ${item.id}`);
    for (const id of hit.conflicts ?? []) assert.ok(sees(id), `${what}: conflict ${id}`);
  }
  return shown;
}

test("no recall, in any search mode or ranking, shows another user's or a higher-classified memory, note or edge, or names one", async () => {
  const shown = { notes: 0, edges: 0, cited: 0 };
  for (let seed = 0; seed < 20; seed++) {
    const r = rng(seed);
    const world = await randomStore(r);
    for (const searchMode of MODES) {
      for (const ranking of RANKINGS) {
        for (let round = 0; round < 4; round++) {
          const scope = { userId: r.pick(USERS) };
          if (r.below(3) !== 0) scope.maxClassification = r.below(4);
          const query = `${r.pick(NAMES)} ${Array.from({ length: 1 + r.below(2) }, () => r.pick(WORDS)).join(" ")}`;
          const options = { ...quiet, ...scope, searchMode, ranking, limit: 1 + r.below(20) };
          if (searchMode !== "lexical") options.embedding = world.vector();
          if (r.below(5) === 0) options.start = NOW - 15 * DAY;
          const what = `seed ${seed} ${searchMode} ${ranking} ${JSON.stringify(query)} ${JSON.stringify(scope)}`;
          const got = checkOutput(world, scope, await world.store.recall(query, options), what);
          for (const k of Object.keys(shown)) shown[k] += got[k];
        }
      }
    }
    for (const userId of USERS) {
      const scope = { userId, maxClassification: r.below(4) };
      const what = `seed ${seed} listings ${JSON.stringify(scope)}`;
      const fake = {
        results: [
          ...(await world.store.notes(scope)).map((n) => ({ id: `note:${n.id}#0`, kind: "note", note: n })),
          ...(await world.store.edges(scope)).map((e) => ({ id: e.id, kind: "edge", edge: e })),
        ],
      };
      checkOutput(world, scope, fake, what);
      for (const e of await world.store.entities(scope)) {
        assert.ok((e.userId === undefined || e.userId === userId) && e.classification <= scope.maxClassification, `${what}: entity ${e.name}`);
      }
    }
    await world.store.close();
  }
  // The test means something only if notes, edges and the memories they cite come back.
  assert.ok(shown.notes > 50 && shown.edges > 20 && shown.cited > 10, JSON.stringify(shown));
});
