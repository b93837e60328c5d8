// Node tests of the public API against the built package (real WebAssembly).
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore, RecallError } from "../dist/index.js";
import { rejectsWith } from "./support/errors.mjs";
import { DAY, NOW, openMemoryStore } from "./support/stores.mjs";


/** A memory store ranking as abmind's recall pipeline does: these tests hold its rules (ranking.test.mjs has the default's). */
async function open(options = {}) {
  return openMemoryStore({ ranking: "abmind", ...options });
}

describe("remember, get, update, forget", () => {
  test("remember returns a generated id and stores defaults", async () => {
    const store = await open();
    const id = await store.remember({ text: "The project uses SQLite" });
    assert.match(id, /^[0-9a-f-]{36}$/);
    const m = await store.get(id);
    assert.equal(m.text, "The project uses SQLite");
    assert.equal(m.createdAt, NOW);
    assert.equal(m.updatedAt, NOW);
    assert.equal(m.recallCount, 0);
    assert.equal(store.size, 1);
  });

  test("remember keeps every field and converts times", async () => {
    const store = await open();
    const input = {
      id: "m1", text: "Le projet utilise SQLite", textEn: "The project uses SQLite", keywords: ["sqlite", "fts5"],
      userId: "alice", topic: "work", tags: ["db"], type: "fact", tier: "core", emotion: -2, emotionTags: ["calm"],
      importance: 0.8, confidence: 0.9, trust: 2, credibility: 1, relevance: 0.5, classification: 2,
      createdAt: "2026-01-01T00:00:00Z", validFrom: new Date("2025-01-01T00:00:00Z"), expiresAt: NOW + DAY,
      entities: ["sqlite"],
    };
    assert.equal(await store.remember(input), "m1");
    const m = await store.get("m1");
    assert.equal(m.createdAt, Date.parse("2026-01-01T00:00:00Z"));
    assert.equal(m.updatedAt, m.createdAt);
    assert.equal(m.validFrom, Date.parse("2025-01-01T00:00:00Z"));
    assert.deepEqual(m.keywords, ["sqlite", "fts5"]);
    assert.equal(m.type, "fact");
    assert.equal(m.tier, "core");
    assert.equal(m.credibility, 1);
    assert.equal(m.classification, 2);
  });

  test("a single keyword string is accepted", async () => {
    const store = await open();
    await store.remember({ id: "k", text: "x", keywords: "zebra" });
    assert.deepEqual((await store.get("k")).keywords, ["zebra"]);
  });

  test("get of an unknown id is undefined", async () => {
    const store = await open();
    assert.equal(await store.get("nope"), undefined);
  });

  test("update changes fields, re-indexes the text and stamps updatedAt", async () => {
    let now = NOW;
    const store = await open({ clock: () => now });
    await store.remember({ id: "a", text: "apples are red", topic: "food" });
    now += 1000;
    const m = await store.update("a", { text: "bananas are yellow", topic: null });
    assert.equal(m.text, "bananas are yellow");
    assert.equal(m.topic, undefined);
    assert.equal(m.updatedAt, NOW + 1000);
    assert.equal(m.createdAt, NOW);
    assert.equal((await store.recall("apples")).results.length, 0);
    assert.equal((await store.recall("bananas")).results[0].id, "a");
  });

  test("update cannot remove createdAt; null clears the optional times and stamps updatedAt", async () => {
    let now = NOW;
    const store = await open({ clock: () => now });
    await store.remember({ id: "a", text: "x", createdAt: NOW - DAY, validFrom: NOW - DAY, validTo: NOW + DAY, expiresAt: NOW + 2 * DAY });
    await rejectsWith(store.update("a", { createdAt: null }), "invalid_argument", /createdAt must be a time .*got null/);
    await rejectsWith(store.update("a", { createdAt: null, topic: "t" }), "invalid_argument", /createdAt/);
    assert.equal((await store.get("a")).createdAt, NOW - DAY, "not 0 (1970)");
    assert.equal((await store.get("a")).topic, undefined, "a rejected patch changes nothing");
    now += 1000;
    const m = await store.update("a", { validFrom: null, validTo: null, expiresAt: null, updatedAt: null });
    assert.deepEqual([m.validFrom, m.validTo, m.expiresAt], [undefined, undefined, undefined]);
    assert.equal(m.updatedAt, NOW + 1000);
    assert.equal(m.createdAt, NOW - DAY);
  });

  test("a memory whose validTo is not after its validFrom is refused by remember, rememberMany and update, and nothing is stored", async () => {
    const store = await open();
    await rejectsWith(store.remember({ id: "a", text: "x", validFrom: NOW, validTo: NOW }), "invalid_argument",
      new RegExp(`validTo \\(${NOW}\\) must be after validFrom \\(${NOW}\\)`));
    await rejectsWith(store.remember({ id: "a", text: "x", validFrom: "2025-02-01", validTo: "2025-01-01" }), "invalid_argument", /validTo/);
    await rejectsWith(store.rememberMany([{ id: "b", text: "y" }, { id: "c", text: "z", validFrom: NOW, validTo: NOW - 1 }]),
      "invalid_argument", /^item 1: validTo/);
    assert.equal(store.size, 0);
    await store.remember({ id: "d", text: "w", validFrom: NOW - DAY });
    await rejectsWith(store.update("d", { validTo: NOW - 2 * DAY }), "invalid_argument", /validTo/);
    assert.equal((await store.get("d")).validTo, undefined, "a rejected patch changes nothing");
    assert.equal((await store.update("d", { validTo: NOW })).validTo, NOW);
    // Open on either side, or both set in order, as before.
    await store.rememberMany([{ id: "e", text: "v", validTo: 1 }, { id: "f", text: "u", validFrom: 1, validTo: 2 }]);
  });

  test("a stored memory with validTo before validFrom (written before writes checked it) still imports and reopens", async () => {
    const dir = await mkdtemp(join(tmpdir(), "recallkit-validity-"));
    try {
      const path = join(dir, "store");
      const store = await MemoryStore.open({ storage: "file", path });
      const meta = '{"v":1,"kind":"meta","data":{"format":1,"signatureSeed":"0000000000000000"}}';
      const record = { id: "old", text: "an old record", createdAt: 1, updatedAt: 1, validFrom: 20, validTo: 10 };
      await store.import(`${meta}\n{"v":1,"kind":"memory","data":${JSON.stringify(record)}}\n`);
      await store.close();
      const reopened = await MemoryStore.open({ storage: "file", path });
      assert.equal((await reopened.get("old")).validTo, 10);
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("forget removes the memory from get and recall", async () => {
    const store = await open();
    await store.remember({ id: "a", text: "the quick brown fox" });
    const gone = await store.forget("a");
    assert.equal(gone.id, "a");
    assert.equal(await store.get("a"), undefined);
    assert.equal((await store.recall("fox")).results.length, 0);
    assert.equal(store.size, 0);
    await rejectsWith(store.forget("a"), "not_found", /"a"/);
  });

  test("ids lists memories in insertion order", async () => {
    const store = await open();
    await store.rememberMany([{ id: "b", text: "one" }, { id: "a", text: "two" }]);
    assert.deepEqual(await store.ids(), ["b", "a"]);
  });
});

describe("rememberMany is atomic", () => {
  test("stores every item and returns the ids", async () => {
    const store = await open();
    const ids = await store.rememberMany([{ text: "one" }, { id: "two", text: "two" }]);
    assert.equal(ids.length, 2);
    assert.equal(ids[1], "two");
    assert.equal(store.size, 2);
  });

  test("one bad item stores nothing and the error names the item", async () => {
    const store = await open();
    await rejectsWith(store.rememberMany([{ text: "fine" }, { text: "bad", emotion: 9 }]), "invalid_argument", /item 1: emotion/);
    await rejectsWith(store.rememberMany([{ text: "fine" }, { text: 42 }]), "invalid_argument", /item 1: text/);
    await rejectsWith(store.rememberMany([{ id: "x", text: "a" }, { id: "x", text: "b" }]), "already_exists", /item 1/);
    assert.equal(store.size, 0);
  });

  test("a missing item (an array hole) fails with invalid_argument naming its index", async () => {
    const store = await open();
    await rejectsWith(store.rememberMany([, { text: "a" }]), "invalid_argument", /^item 0: a memory must be an object, got undefined$/);
    await rejectsWith(store.rememberMany([{ text: "a" }, , { text: "c" }]), "invalid_argument", /^item 1: /);
    await rejectsWith(store.rememberMany(new Array(3)), "invalid_argument", /^item 0: /);
    // Holes in string lists are missing strings too.
    await rejectsWith(store.remember({ text: "a", tags: [, "x"] }), "invalid_argument", /^tags\[0\] must be a string, got undefined$/);
    await rejectsWith(store.relate({ from: "a", relation: "r", to: "b", memoryIds: ["m", , "n"] }), "invalid_argument", /^memoryIds\[1\] must be a string/);
    await rejectsWith(store.addEntity({ name: "x", aliases: [, "y"] }), "invalid_argument", /^aliases\[0\]/);
    assert.equal(store.size, 0);
    assert.deepEqual(await store.edges(), []);
    // A host embed() answering with a hole is a missing vector, not a memory stored without one.
    const sparse = await open({ embed: async (texts) => Object.assign(new Array(texts.length), { 1: [1, 0] }) });
    await rejectsWith(sparse.rememberMany([{ text: "a" }, { text: "b" }]), "invalid_argument", /embed\(\) vector 0/);
    assert.equal(sparse.size, 0);
  });

  test("an id already in the store fails the whole batch", async () => {
    const store = await open();
    await store.remember({ id: "x", text: "first" });
    await rejectsWith(store.rememberMany([{ id: "y", text: "a" }, { id: "x", text: "b" }]), "already_exists", /item 1/);
    assert.deepEqual(await store.ids(), ["x"]);
  });
});

describe("recall", () => {
  async function corpus(options) {
    const store = await open(options);
    await store.rememberMany([
      { id: "db", text: "We migrated the project database to SQLite with FTS5", topic: "work", createdAt: NOW - 10 * DAY },
      { id: "deploy", text: "The deployment pipeline runs every Friday", topic: "work", createdAt: NOW - 5 * DAY },
      { id: "cat", text: "Miso the cat sleeps on the keyboard", topic: "home", tier: "core", createdAt: NOW - DAY },
      { id: "fr", text: "Nous avons choisi PostgreSQL pour l'entrepôt", textEn: "We chose PostgreSQL for the warehouse", topic: "work" },
    ]);
    return store;
  }

  test("finds a memory by porter stems and reports the Sf stage", async () => {
    const store = await corpus();
    const res = await store.recall("what database does the project use?");
    assert.equal(res.results[0].id, "db");
    assert.equal(res.results[0].stage, "Sf:porter");
    assert.equal(res.results[0].text, res.results[0].memory.text);
    assert.deepEqual(res.stages.map((s) => s.name), ["Sf", "Se", "Ss", "S6", "S8"]);
    assert.ok(res.stages[0].hits >= 1);
    assert.equal(res.stages[1].skipped, true);
    assert.equal(res.stages[1].reason, "no_embedder");
    assert.ok(res.stages[0].ms >= 0);
    const c = res.results[0].components;
    for (const k of ["bm25", "emotionBoost", "recallBoost", "relevanceBoost", "trustFactor", "credibilityFactor", "tierBoost", "recency"]) {
      assert.equal(typeof c[k], "number", k);
    }
    assert.ok(c.bm25 > 0);
  });

  test("stemming matches inflections (migrating → migrated)", async () => {
    const store = await corpus();
    assert.equal((await store.recall("migrating databases")).results[0].id, "db");
  });

  test("substring and typo matches come from the trigram sub-query", async () => {
    const store = await corpus();
    const sub = await store.recall("deploy");
    assert.equal(sub.results[0].id, "deploy");
    assert.equal(sub.results[0].stage, "Sf:trigram_en");
    for (const typo of ["pipelnie", "piepline", "pipeliine", "pipelxne"]) {
      const res = await store.recall(typo);
      assert.equal(res.results[0]?.id, "deploy", typo);
    }
  });

  test("the original-language text is searched when textEn differs", async () => {
    const store = await corpus();
    const res = await store.recall("entrepôt");
    assert.equal(res.results[0].id, "fr");
    assert.equal(res.results[0].stage, "Sf:trigram_orig");
    assert.equal((await store.recall("warehouse")).results[0].id, "fr");
  });

  test("diacritics and case are folded", async () => {
    const store = await open();
    await store.remember({ id: "c", text: "Crème Brûlée at the CAFÉ" });
    assert.equal((await store.recall("creme brulee cafe")).results[0].id, "c");
  });

  test("limit caps the results and is clamped to 100", async () => {
    const store = await open();
    await store.rememberMany(Array.from({ length: 150 }, (_, i) => ({ text: `note number ${i} about tea` })));
    assert.equal((await store.recall("tea", { limit: 3 })).results.length, 3);
    assert.equal((await store.recall("tea", { limit: 1000 })).results.length, 100);
    assert.equal((await store.recall("tea")).results.length, 10);
  });

  test("filters: userId, maxClassification, start/end, topic, tier, expiry", async () => {
    const store = await open();
    await store.rememberMany([
      { id: "u1", text: "coffee notes", userId: "alice", classification: 1, topic: "food", tier: "core", createdAt: NOW - 3 * DAY },
      { id: "u2", text: "coffee notes", userId: "bob", classification: 3, topic: "work", createdAt: NOW - DAY },
      { id: "u3", text: "coffee notes", expiresAt: NOW - 1, createdAt: NOW - 2 * DAY },
    ]);
    const ids = async (o) => (await store.recall("coffee", { trackRecalls: false, ...o })).results.map((r) => r.id).sort();
    assert.deepEqual(await ids({}), ["u1", "u2"]);
    assert.deepEqual(await ids({ includeExpired: true }), ["u1", "u2", "u3"]);
    assert.deepEqual(await ids({ userId: "alice" }), ["u1"]);
    assert.deepEqual(await ids({ maxClassification: 2 }), ["u1"]);
    assert.deepEqual(await ids({ start: NOW - 2 * DAY }), ["u2"]);
    assert.deepEqual(await ids({ end: new Date(NOW - 2 * DAY), includeExpired: true }), ["u1", "u3"]);
    assert.deepEqual(await ids({ topic: "work" }), ["u2"]);
    assert.deepEqual(await ids({ tier: "core" }), ["u1"]);
    assert.deepEqual(await ids({ now: NOW - 10 * DAY }), ["u1", "u2", "u3"]);
  });

  test("filters apply before the limit, so a filter never starves the results", async () => {
    const store = await open();
    await store.rememberMany(Array.from({ length: 300 }, (_, i) => ({ text: `meeting notes ${i}`, topic: i === 299 ? "rare" : "common" })));
    const res = await store.recall("meeting", { topic: "rare", limit: 5 });
    assert.deepEqual(res.results.map((r) => r.id).length, 1);
    assert.equal(res.results[0].memory.topic, "rare");
  });

  test("score follows the seed formula: tier, trust, credibility, relevance, emotion, recency", async () => {
    const store = await open();
    await store.rememberMany([
      { id: "plain", text: "alpha beta", createdAt: NOW },
      { id: "core", text: "alpha beta", tier: "core", createdAt: NOW },
      { id: "old", text: "alpha beta", createdAt: NOW - 730 * DAY },
      { id: "lowtrust", text: "alpha beta", trust: 0, createdAt: NOW },
    ]);
    const res = await store.recall("alpha", { trackRecalls: false });
    const by = Object.fromEntries(res.results.map((r) => [r.id, r]));
    const base = by.plain.components.raw;
    assert.ok(Math.abs(by.core.components.raw - base * 1.3) < 1e-9);
    assert.ok(Math.abs(by.old.components.raw - base * 0.3) < 1e-9);
    assert.ok(Math.abs(by.lowtrust.components.raw - base * 0.5) < 1e-9);
    assert.equal(res.results[0].id, "core");
    const c = by.plain.components;
    const product = (c.bm25 + c.emotionBoost) * (1 + c.recallBoost) * (1 + c.relevanceBoost) * c.trustFactor
      * c.credibilityFactor * c.tierBoost * c.recency;
    assert.ok(Math.abs(product - base) < 1e-9);
    // The final score is the calibrated Sf score (monotone in raw), here without boosts.
    assert.ok(Math.abs(by.plain.score - c.calibrated) < 1e-12);
    assert.ok(by.core.score > by.plain.score && by.plain.score > by.lowtrust.score && by.lowtrust.score > by.old.score);
  });

  test("decay parameters are configurable at open", async () => {
    const store = await open({ decayDays: 10, decayFloor: 0.5 });
    await store.remember({ id: "a", text: "gamma", createdAt: NOW - 5 * DAY });
    await store.remember({ id: "b", text: "gamma", createdAt: NOW - 50 * DAY });
    const by = Object.fromEntries((await store.recall("gamma")).results.map((r) => [r.id, r.components.recency]));
    assert.ok(Math.abs(by.a - 0.5) < 1e-9);
    assert.ok(Math.abs(by.b - 0.5) < 1e-9);
  });

  test("recall tracking updates count and timestamps unless turned off", async () => {
    let now = NOW;
    const store = await open({ clock: () => now });
    await store.remember({ id: "a", text: "delta" });
    await store.recall("delta", { trackRecalls: false });
    assert.equal((await store.get("a")).recallCount, 0);
    for (let i = 0; i < 25; i++) {
      now += 1000;
      await store.recall("delta");
    }
    const m = await store.get("a");
    assert.equal(m.recallCount, 25);
    assert.equal(m.lastRecalledAt, now);
    assert.equal(m.recallTimestamps.length, 20);
    assert.equal(m.recallTimestamps.at(-1), now);
    const res = await store.recall("delta", { trackRecalls: false });
    assert.ok(Math.abs(res.results[0].components.recallBoost - 2.5) < 1e-12);
  });

  test("an empty query is trending (recall-api.test.mjs); a punctuation-only one returns nothing", async () => {
    const store = await corpus();
    assert.ok((await store.recall("")).results.every((r) => r.matchType === "trending"));
    assert.equal((await store.recall("?!")).results.length, 0);
  });
});

describe("import errors", () => {
  const META = '{"v":1,"kind":"meta","data":{"format":1,"signatureSeed":"0000000000000000"}}';
  const line = (kind, data, extra = "") => `{"v":1,"kind":"${kind}","data":${JSON.stringify(data)}${extra}}`;
  const memory = (data, extra) => line("memory", { id: "m", text: "x", createdAt: 1, updatedAt: 1, ...data }, extra);
  const note = (data) => line("note", { id: "n", period: "daily", start: 1, text: "x", ...data });

  test("every bad import line is an error naming its line number", async () => {
    // Each bad line is line 4: a meta line, a blank line and a good memory come first.
    const bad = [
      [memory({ text: 5 }), "invalid_argument", /memory\.text must be a string/],
      [memory({ text: "" }), "invalid_argument", /text .*must not be empty/],
      [memory({ id: 5 }), "invalid_argument", /a memory needs a string id/],
      [memory({ id: "b".repeat(2000) }), "too_large", /id is 2000 bytes/],
      [memory({ topic: 5 }), "invalid_argument", /memory\.topic must be a string/],
      [memory({ tags: "t" }), "invalid_argument", /memory\.tags must be an array of strings/],
      [memory({ createdAt: "2026-01-01" }), "invalid_argument", /memory\.createdAt must be a number/],
      [memory({ emotion: "x" }), "invalid_argument", /memory\.emotion must be a number/],
      [memory({ emotion: 9 }), "invalid_argument", /emotion must be between -5 and 5/],
      [memory({ classification: 1.5 }), "invalid_argument", /memory\.classification must be an integer/],
      [memory({ recallCount: "x" }), "invalid_argument", /memory\.recallCount must be a number/],
      [memory({ recallTimestamps: "x" }), "invalid_argument", /memory\.recallTimestamps must be an array of numbers/],
      [memory({}, ',"embedding":["x"]'), "corrupt", /embedding must be an array of numbers/],
      [memory({}, ',"embedding":[]'), "corrupt", /embedding is empty/],
      [memory({}, ',"embedding":[1e39]'), "corrupt", /outside float32 range/],
      [memory({}, ',"embedding":[1,2,3]'), "dimension_mismatch", /embedding: expected 2, got 3/],
      [memory({}, ',"signature":"zz"'), "corrupt", /not hex/],
      [memory({ id: "good" }), "already_exists", /memory id "good" repeats line 3/],
      [memory({ topik: "work" }), "invalid_argument", /unknown field "topik" in a memory record/],
      [note({ text: 5 }), "invalid_argument", /note\.text must be a string/],
      [note({ period: undefined }), "invalid_argument", /missing field `period`/],
      [line("entity", { name: 5 }), "invalid_argument", /entity\.name must be a string/],
      [line("edge", { id: "e", from: "a", to: "b", relation: "r", strength: "x" }), "invalid_argument", /edge\.strength must be a number/],
      [line("meta", { format: 99 }), "corrupt", /store format 99 is not supported/],
      ['{"v":1,"kind":"memory"', "corrupt", /not a JSON line/],
      ['{"v":2,"kind":"memory","data":{}}', "corrupt", /format version 2 is not supported/],
      ['{"v":1,"kind":"thought","data":{}}', "corrupt", /unknown record kind "thought"/],
    ];
    for (const [text, code, pattern] of bad) {
      const store = await open();
      const good = memory({ id: "good" }, ',"embedding":[1,0]');
      await rejectsWith(store.import(`${META}\n\n${good}\n${text}\n`), code, new RegExp(`^line 4: .*${pattern.source}`));
      await store.close();
    }
  });

  test("line numbers count across batches and blank lines, and invalid UTF-8 names its line", async () => {
    const store = await open();
    const lines = [META, "", memory({ id: "a" }), memory({ id: "b" }), "", memory({ id: "c", text: 5 })];
    await rejectsWith(store.import(`${lines.join("\n")}\n`, { batchSize: 1 }), "invalid_argument", /^line 6: memory\.text/);
    assert.deepEqual(await store.ids(), ["a", "b"], "earlier batches stay stored");
    const bytes = Buffer.concat([Buffer.from(`${memory({ id: "d" })}\n${memory({ id: "e", text: "caf" })}`), Buffer.from([0xc3]), Buffer.from("\n")]);
    await rejectsWith(store.import((async function* () { yield bytes; })()), "corrupt", /^line 2: the input is not valid UTF-8$/);
  });
});

describe("import from arrays", () => {
  test("an array of exported lines or of the parsed lines imports the same store", async () => {
    const source = await open();
    await source.rememberMany([
      { id: "a", text: "the backup runs at 02:00", embedding: [1, 0], tags: ["ops"] },
      { id: "b", text: "Ana prefers tea", embedding: [0, 1] },
    ]);
    await source.relate({ from: "Ana", relation: "likes", to: "tea", memoryIds: ["b"] });
    const lines = [];
    for await (const line of source.export()) lines.push(line);
    const want = lines.join("");
    for (const items of [lines, lines.map((l) => l.trimEnd()), lines.map((l) => JSON.parse(l))]) {
      const copy = await MemoryStore.open({ storage: "memory" });
      const progress = await copy.import(items);
      assert.equal(progress.lines, lines.length);
      const again = [];
      for await (const line of copy.export()) again.push(line);
      assert.equal(again.join(""), want);
      assert.equal((await copy.recall("backup")).results[0].id, "a");
      await copy.close();
    }
    // Typed arrays in a parsed line: what a host holding records in memory passes.
    const typed = lines.map((l) => JSON.parse(l)).map((r) => (r.embedding ? { ...r, embedding: Float32Array.from(r.embedding) } : r));
    const copy = await MemoryStore.open({ storage: "memory" });
    await copy.import(typed);
    assert.deepEqual([...(await copy.getEmbedding("a"))], [1, 0]);
    await copy.close();
    await source.close();
  });

  test("a bad item of an array names its line, and an empty array imports nothing", async () => {
    const store = await open();
    const good = { v: 1, kind: "memory", data: { id: "g", text: "x", createdAt: 1, updatedAt: 1 } };
    await rejectsWith(store.import([good, 5]), "corrupt", /^line 2: a parsed JSON line must be a plain object/);
    await rejectsWith(store.import([good, { ...good, v: 2 }]), "corrupt", /^line 2: JSON line format version 2/);
    await rejectsWith(store.import(["", good, { ...good, data: { ...good.data, id: "h", text: 5 } }]), "invalid_argument", /^line 3: memory\.text must be a string/);
    await rejectsWith(store.import([good, "{not json"]), "corrupt", /^line 2: not a JSON line/);
    // A memory as remember() takes it is the caller's mistake, not damage: invalid_argument saying what to use.
    await rejectsWith(store.import([good, '{"text":"a plain memory"}']), "invalid_argument", /^line 2: a memory object, not a line of a recallkit export .*rememberMany/);
    await rejectsWith(store.import([{ text: "parsed", topic: "x" }]), "invalid_argument", /^line 1: a memory object/);
    assert.deepEqual((await store.import([])), { lines: 0, records: 0, skipped: 0 });
    await store.close();
  });
});

describe("errors", () => {
  test("invalid_argument names the bad value", async () => {
    const store = await open();
    // The message names no id: a generated one would mean nothing to the caller.
    await rejectsWith(store.remember({ text: " " }), "invalid_argument", /^text must not be empty$/);
    await rejectsWith(store.rememberMany([{ text: "ok" }, { text: "" }]), "invalid_argument", /^item 1: text must not be empty$/);
    await rejectsWith(store.remember({ text: "x", emotion: 7 }), "invalid_argument", /emotion must be between -5 and 5, got 7/);
    await rejectsWith(store.remember({ text: "x", trust: 4 }), "invalid_argument", /trust/);
    await rejectsWith(store.remember({ text: "x", importance: 2 }), "invalid_argument", /importance/);
    await rejectsWith(store.remember({ text: "x", classification: 1.5 }), "invalid_argument", /classification must be an integer of 0 or more, got 1.5/);
    // Empty names and negative levels are refused where they are given, nothing stored.
    for (const [field, value] of [["userId", ""], ["topic", ""], ["type", ""], ["tier", ""], ["tags", ["work", ""]], ["classification", -1]]) {
      await rejectsWith(store.remember({ text: "x", [field]: value }), "invalid_argument", new RegExp(field), field);
    }
    await rejectsWith(store.recall("x", { userId: "" }), "invalid_argument", /userId must be a non-empty string/);
    await rejectsWith(store.recall("x", { maxClassification: -1 }), "invalid_argument", /maxClassification/);
    await rejectsWith(store.relate({ from: "a", relation: "knows", to: "" }), "invalid_argument", /to must be a non-empty string/);
    const line = (data) => JSON.stringify({ v: 1, kind: "memory", data: { id: "e", text: "x", emotion: 0, relevance: 0, classification: 0, createdAt: NOW, updatedAt: NOW, recallCount: 0, ...data } });
    await rejectsWith(store.import([line({ topic: "" })]), "invalid_argument", /line 1: topic must be a non-empty string/);
    await rejectsWith(store.remember({ text: "x", createdAt: "not a date" }), "invalid_argument", /createdAt/);
    await rejectsWith(store.remember({ text: "x", tags: "one" }), "invalid_argument", /tags must be an array of strings/);
    await rejectsWith(store.remember({ text: "x", textEN: "typo" }), "invalid_argument", /unknown field "textEN"/);
    await rejectsWith(store.remember(null), "invalid_argument", /memory must be an object/);
    await rejectsWith(store.remember({ text: "x", emotion: NaN }), "invalid_argument", /emotion/);
    await rejectsWith(store.recall("x", { limit: 0 }), "invalid_argument", /limit/);
    await rejectsWith(store.recall("x", { limit: 2.5 }), "invalid_argument", /limit/);
    await rejectsWith(store.recall("x", { start: NOW, end: NOW - 1 }), "invalid_argument", /start/);
    await rejectsWith(store.recall("x", { topics: "a" }), "invalid_argument", /unknown field "topics"/);
    await rejectsWith(store.recall(42), "invalid_argument", /query must be a string/);
    await rejectsWith(store.update("missing", { text: "y" }), "not_found", /missing/);
    await rejectsWith(MemoryStore.open({ storage: "disk" }), "invalid_argument", /storage/);
    await rejectsWith(MemoryStore.open({ decayFloor: 2 }), "invalid_argument", /decayFloor/);
    await rejectsWith(MemoryStore.open({ colour: 1 }), "invalid_argument", /colour/);
    assert.equal(store.size, 0);
  });

  test("an error's message names the bad value without repeating its code", async () => {
    const store = await open();
    await store.remember({ id: "a", text: "x" });
    const failures = [
      [store.remember({ id: "b".repeat(2000), text: "x" }), "too_large"], // the engine's error
      [store.remember({ text: 5 }), "invalid_argument"], // the wrapper's
      [store.update("missing", { text: "y" }), "not_found"],
      [store.import('{"v":1,"kind":"memory","data":{"id":"a","text":"x"}}\n'), "already_exists"], // located on a line
    ];
    for (const [promise, code] of failures) {
      await assert.rejects(promise, (e) => {
        assert.ok(e instanceof RecallError);
        assert.equal(e.code, code, e.message);
        assert.ok(!e.message.includes(`${code}:`), `the code is not in the message: ${e.message}`);
        return true;
      });
    }
    assert.equal(new RecallError("corrupt", "bad bytes").message, "bad bytes");
  });

  test("every call rejects a missing or non-object argument with invalid_argument", async () => {
    const store = await open();
    await store.remember({ id: "a", text: "x" });
    const note = await store.addNote({ period: "daily", start: NOW, text: "n" });
    const notObjects = [null, undefined, 5, "text", [], [{ text: "x" }], new Map([["text", "x"]]), new Date(), Promise.resolve({ text: "x" })];
    for (const bad of notObjects) {
      const optional = bad === undefined; // option bags may be left out
      await rejectsWith(store.remember(bad), "invalid_argument", /memory must be an object/);
      await rejectsWith(store.update("a", bad), "invalid_argument", /patch must be an object/);
      await rejectsWith(store.addNote(bad), "invalid_argument", /note must be an object/);
      await rejectsWith(store.updateNote(note, bad), "invalid_argument", /note patch must be an object/);
      await rejectsWith(store.addEntity(bad), "invalid_argument", /entity must be an object/);
      await rejectsWith(store.relate(bad), "invalid_argument", /relation must be an object/);
      await rejectsWith(store.unrelate(bad), "invalid_argument", /relation must be an object/);
      if (!optional) {
        await rejectsWith(store.recall("x", bad), "invalid_argument", /recall options must be an object/);
        await rejectsWith(store.import("", bad), "invalid_argument", /import options must be an object/);
        await rejectsWith(MemoryStore.open(bad), "invalid_argument", /open options must be an object/);
      }
    }
    for (const bad of [null, undefined, 5, {}, { getReader: 1 }]) {
      await rejectsWith(store.import(bad), "invalid_argument", /^import source must be a string, a ReadableStream, an async iterable of strings or bytes, or an array/);
    }
    await rejectsWith(MemoryStore.open({ storage: "memory", name: null }), "invalid_argument", /store name .*got null/);
    assert.equal(store.size, 1);
    assert.equal((await store.get("a")).text, "x");
  });

  test("a field named like an Object.prototype member is unknown, not silently dropped", async () => {
    // Regression: the field tables were plain objects, so `constructor`, `toString` or
    // `__proto__` found Object.prototype's member and the field was accepted and ignored.
    const store = await open();
    const ownProto = JSON.parse('{"text":"x","__proto__":1}');
    for (const bad of [{ text: "x", constructor: 5 }, { text: "x", toString: "a" }, { text: "x", hasOwnProperty: 1 }, ownProto]) {
      const [, name] = Object.keys(bad);
      await rejectsWith(store.remember(bad), "invalid_argument", new RegExp(`unknown field "${name}"`));
      await rejectsWith(store.rememberMany([{ text: "ok" }, bad]), "invalid_argument", new RegExp(`unknown field "${name}"`));
    }
    await store.remember({ id: "a", text: "x" });
    await rejectsWith(store.update("a", { valueOf: 1 }), "invalid_argument", /unknown field "valueOf"/);
    await rejectsWith(store.recall("x", { constructor: 1 }), "invalid_argument", /unknown field "constructor"/);
    await rejectsWith(store.recall("x", { context: { toString: 1 } }), "invalid_argument", /unknown field "toString"/);
    await rejectsWith(
      store.addNote({ id: "n", period: "daily", start: NOW, end: NOW + 1, text: "t", valueOf: 2 }),
      "invalid_argument", /unknown field "valueOf"/,
    );
    await rejectsWith(store.addEntity({ name: "Ada", isPrototypeOf: 1 }), "invalid_argument", /unknown field "isPrototypeOf"/);
    await rejectsWith(store.relate({ from: "Ada", relation: "knows", to: "Bob", constructor: 1 }), "invalid_argument", /unknown field "constructor"/);
    assert.equal(store.size, 1);
    assert.deepEqual((await store.get("a")).text, "x");
  });

  test("already_exists for a duplicate id", async () => {
    const store = await open();
    await store.remember({ id: "a", text: "x" });
    await rejectsWith(store.remember({ id: "a", text: "y" }), "already_exists", /"a"/);
    assert.equal((await store.get("a")).text, "x");
  });

  test("too_large for oversize text and queries", async () => {
    const store = await open();
    await rejectsWith(store.remember({ text: "a".repeat(300_000) }), "too_large", /text/);
    await rejectsWith(store.recall("a".repeat(20_000)), "too_large", /query/);
    assert.equal(store.size, 0);
  });

  test("a failed update leaves the memory unchanged", async () => {
    const store = await open();
    await store.remember({ id: "a", text: "stable text", emotion: 1 });
    await rejectsWith(store.update("a", { text: "new", emotion: 99 }), "invalid_argument", /emotion/);
    await rejectsWith(store.update("a", { id: "b" }), "invalid_argument", /id/);
    await rejectsWith(store.update("a", { text: null }), "invalid_argument", /text/);
    assert.equal((await store.get("a")).text, "stable text");
    assert.equal((await store.recall("stable")).results[0].id, "a");
  });

  test("closed after close()", async () => {
    const store = await open();
    await store.close();
    await store.close();
    await rejectsWith(store.remember({ text: "x" }), "closed");
    await rejectsWith(store.recall("x"), "closed");
    await rejectsWith(store.get("x"), "closed");
    assert.throws(() => store.size, (e) => e.code === "closed");
  });
});
