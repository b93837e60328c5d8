// AutoMem's recall API through the public API, on real wasm: tags, tagMode, tagMatch,
// excludeTags, timeQuery, sort, trending (no query), the answer's count / timeWindow / tags and
// each result's matchType; every option's errors; and a seeded property test that no filter
// ever leaks, in every search mode and ranking.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { rejectsWith } from "./support/errors.mjs";
import { DAY, NOW, openMemoryStore } from "./support/stores.mjs";
import { rng as seeded } from "./support/rng.mjs";

const ids = (res) => res.results.map((r) => r.id);

async function tagged() {
  const store = await openMemoryStore();
  await store.rememberMany([
    { id: "gen", text: "the deploy failed in general", tags: ["slack:channel:general"], createdAt: NOW - 1 * DAY },
    { id: "usr", text: "the deploy was announced", tags: ["Slack:User:U123", "deploy"], createdAt: NOW - 2 * DAY },
    { id: "slacker", text: "the deploy slacker", tags: ["slacker"], createdAt: NOW - 3 * DAY, importance: 0.9 },
    { id: "db", text: "the deploy broke the database", tags: ["db", "temp"], createdAt: NOW - 40 * DAY },
    { id: "none", text: "the deploy had no tags", createdAt: NOW - 8 * DAY, importance: 0.2 },
  ]);
  return store;
}

describe("tags", () => {
  test("prefix matching takes whole segments, ignoring case; exact takes the tag itself", async () => {
    const store = await tagged();
    const q = (options) => store.recall("deploy", { trackRecalls: false, ...options });
    assert.deepEqual(ids(await q({ tags: ["slack"] })).sort(), ["gen", "usr"]);
    assert.deepEqual(ids(await q({ tags: ["SLACK:user"] })), ["usr"]);
    assert.deepEqual(ids(await q({ tags: ["slack"], tagMatch: "exact" })), []);
    assert.deepEqual(ids(await q({ tags: ["slacker"], tagMatch: "exact" })), ["slacker"]);
    const res = await q({ tags: ["Slack"] });
    assert.deepEqual(res.tags, ["slack"]);
    assert.equal(res.count, 2);
  });

  test("tagMode all needs every tag; excludeTags drops any match", async () => {
    const store = await tagged();
    const q = (options) => store.recall("deploy", { trackRecalls: false, ...options });
    assert.deepEqual(ids(await q({ tags: ["slack", "deploy"] })).sort(), ["gen", "usr"]);
    assert.deepEqual(ids(await q({ tags: ["slack", "deploy"], tagMode: "all" })), ["usr"]);
    assert.deepEqual(ids(await q({ excludeTags: ["slack", "temp"] })).sort(), ["none", "slacker"]);
    assert.equal((await q({})).tags, undefined);
  });

  test("bad tag options are invalid_argument naming the option", async () => {
    const store = await tagged();
    await rejectsWith(store.recall("x", { tags: "slack" }), "invalid_argument", /tags must be an array of strings/);
    await rejectsWith(store.recall("x", { tags: [""] }), "invalid_argument", /tags\[0\]/);
    await rejectsWith(store.recall("x", { excludeTags: ["a::b"] }), "invalid_argument", /excludeTags\[0\]/);
    await rejectsWith(store.recall("x", { tagMode: "every" }), "invalid_argument", /tagMode must be "any" or "all", got "every"/);
    await rejectsWith(store.recall("x", { tagMatch: "fuzzy" }), "invalid_argument", /tagMatch must be/);
    await rejectsWith(store.recall("x", { tagz: ["a"] }), "invalid_argument", /tagz/);
  });
});

describe("timeQuery", () => {
  test("words become a window against now and the caller's offset; explicit bounds win", async () => {
    const store = await tagged();
    // NOW is Monday 2026-06-01 12:00 UTC: "last week" is Monday 25 May to Sunday 31 May.
    const res = await store.recall("deploy", { timeQuery: "last week", trackRecalls: false });
    assert.deepEqual(ids(res).sort(), ["gen", "slacker", "usr"]);
    assert.deepEqual(res.timeWindow, {
      start: Date.parse("2026-05-25T00:00:00Z"), end: Date.parse("2026-06-01T00:00:00Z") - 1, source: "timeQuery",
    });
    const east = await store.recall("deploy", { timeQuery: "today", context: { utcOffsetMinutes: 14 * 60 }, trackRecalls: false });
    assert.equal(east.timeWindow.start, Date.parse("2026-06-02T00:00:00Z") - 14 * 3_600_000);
    const both = await store.recall("deploy", { timeQuery: "last 7 days", start: NOW - 2.5 * DAY, trackRecalls: false });
    assert.deepEqual(ids(both).sort(), ["gen", "usr"]);
    assert.equal(both.timeWindow.start, NOW - 2.5 * DAY);
    assert.equal(both.timeWindow.end, NOW);
    const explicit = await store.recall("deploy", { start: NOW - 10 * DAY, end: NOW, trackRecalls: false });
    assert.equal(explicit.timeWindow.source, "options");
    assert.equal((await store.recall("deploy", { trackRecalls: false })).timeWindow, undefined);
    for (const words of ["yesterday", "3 days ago", "since Monday", "in May", "May 2026", "2026", "last 2 months"]) {
      const r = await store.recall("deploy", { timeQuery: words, trackRecalls: false });
      assert.ok(r.results.every((h) => h.memory.createdAt >= r.timeWindow.start && h.memory.createdAt <= r.timeWindow.end), words);
    }
  });

  test("weekends, spans of hours and of a few days; with asOf, relative words are read at asOf", async () => {
    const store = await tagged();
    const q = (timeQuery, options) => store.recall("deploy", { timeQuery, trackRecalls: false, ...options });
    // NOW is Monday 2026-06-01 12:00 UTC: last weekend is Saturday 30 May 00:00 to Monday 00:00.
    const last = await q("last weekend");
    assert.deepEqual(ids(last).sort(), ["gen", "usr"]);
    assert.deepEqual([last.timeWindow.start, last.timeWindow.end], [Date.parse("2026-05-30T00:00:00Z"), Date.parse("2026-06-01T00:00:00Z") - 1]);
    assert.deepEqual(ids(await q("over the weekend")).sort(), ["gen", "usr"]);
    assert.equal((await q("this weekend")).timeWindow.start, Date.parse("2026-06-06T00:00:00Z"), "this week's, to come");
    const hours = await q("past 36 hours");
    assert.deepEqual(ids(hours), ["gen"]);
    assert.deepEqual([hours.timeWindow.start, hours.timeWindow.end], [NOW - 1.5 * DAY, NOW]);
    assert.deepEqual(ids(await q("the last few days")).sort(), ["gen", "slacker", "usr"]);
    // asOf Saturday 30 May 12:00: yesterday is Friday 29 May.
    const then = await q("yesterday", { asOf: NOW - 2 * DAY });
    assert.deepEqual(ids(then), ["slacker"]);
    assert.equal(then.timeWindow.start, Date.parse("2026-05-29T00:00:00Z"));
    assert.deepEqual(ids(await q("yesterday")), ["gen"]);
  });

  test("an expression it cannot read is invalid_argument naming it", async () => {
    const store = await tagged();
    await rejectsWith(store.recall("x", { timeQuery: "when pigs fly" }), "invalid_argument", /timeQuery .*"when pigs fly"/);
    await rejectsWith(store.recall("x", { timeQuery: 7 }), "invalid_argument", /timeQuery must be a string/);
  });
});

describe("sort and trending", () => {
  test("sort reorders the chosen results by time; a bad name is refused", async () => {
    const store = await tagged();
    const q = (sort) => store.recall("deploy", { sort, trackRecalls: false }).then(ids);
    assert.deepEqual(await q("time_desc"), ["gen", "usr", "slacker", "none", "db"]);
    assert.deepEqual(await q("time_asc"), ["db", "none", "slacker", "usr", "gen"]);
    await store.update("db", { updatedAt: NOW });
    assert.equal((await q("updated_desc"))[0], "db");
    assert.equal((await q("updated_asc")).at(-1), "db");
    await rejectsWith(store.recall("x", { sort: "newest" }), "invalid_argument", /sort must be "score", "time_desc"/);
  });

  test("an empty or * query returns the most important recent memories, filters applied", async () => {
    const store = await tagged();
    for (const query of ["", "*"]) {
      const res = await store.recall(query, { trackRecalls: false });
      assert.deepEqual(ids(res), ["slacker", "gen", "usr", "db", "none"], query);
      assert.ok(res.results.every((r) => r.matchType === "trending" && r.stage === "trending"));
      assert.deepEqual(res.stages.slice(1).map((s) => s.reason), ["no_query", "no_query", "no_query", "no_query"]);
    }
    // A blank message is not a request for trending: it is trivial (Engram's query decision).
    assert.equal((await store.recall("  ", { trackRecalls: false })).trivial, true);
    const tagOnly = await store.recall("", { tags: ["slack"], trackRecalls: false });
    assert.deepEqual(ids(tagOnly), ["gen", "usr"]);
    assert.ok(tagOnly.results.every((r) => r.matchType === "tag"));
    // With a window and no query, newest first.
    const windowed = await store.recall("*", { timeQuery: "last 30 days", trackRecalls: false });
    assert.deepEqual(ids(windowed), ["gen", "usr", "slacker", "none"]);
    assert.equal((await store.recall("", { limit: 2 })).count, 2);
  });

  test("a minScore given to a recall with no query applies to its scores (importances); newest first too", async () => {
    const store = await openMemoryStore();
    await store.rememberMany([
      { id: "high", text: "the release checklist", importance: 0.95, createdAt: NOW - 3 * DAY },
      { id: "mid", text: "the lunch order", importance: 0.5, createdAt: NOW - 2 * DAY },
      { id: "low", text: "a passing remark", importance: 0.1, createdAt: NOW - DAY },
    ]);
    assert.deepEqual(ids(await store.recall("", { trackRecalls: false })), ["high", "mid", "low"]);
    const res = await store.recall("", { minScore: 0.9, trackRecalls: false });
    assert.deepEqual(ids(res), ["high"]);
    assert.ok(res.results.every((r) => r.score >= 0.9));
    assert.deepEqual(ids(await store.recall("", { minScore: 0.4, sort: "time_desc", limit: 1, trackRecalls: false })), ["mid"]);
  });

  test("a reranker is not asked to order a recall with no query", async () => {
    let calls = 0;
    const store = await openMemoryStore({ rerank: async (_q, texts) => { calls++; return texts.map(() => 0); } });
    await store.remember({ id: "a", text: "alpha" });
    const res = await store.recall("");
    assert.deepEqual(ids(res), ["a"]);
    assert.equal(calls, 0);
    assert.equal(res.stages.at(-1).reason, "no_query");
  });

  test("limit is clamped to 100; each result says how it was matched", async () => {
    const store = await openMemoryStore();
    await store.rememberMany(Array.from({ length: 120 }, (_, i) => ({ id: `m${i}`, text: `note number ${i}` })));
    const res = await store.recall("note", { limit: 500, trackRecalls: false });
    assert.equal(res.count, 100);
    assert.ok(res.results.every((r) => r.matchType === "keyword"));
  });
});

describe("filters never leak", () => {
  test("every result satisfies every filter, in every search mode and ranking (seeded)", async () => {
    const { next: rng, pick } = seeded(2323);
    const TAGS = ["work", "work:db", "work:db:pg", "home", "Home:garden", "temp", "workshop"];
    const WORDS = ["deploy", "garden", "database", "tomato", "release", "budget"];
    const store = await openMemoryStore();
    const memories = Array.from({ length: 150 }, (_, i) => ({
      id: `m${i}`,
      text: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}`,
      tags: Array.from({ length: Math.floor(rng() * 3) }, () => pick(TAGS)),
      topic: pick(["a", "b"]),
      createdAt: NOW - Math.floor(rng() * 60) * DAY,
      embedding: Float32Array.from({ length: 8 }, () => rng() - 0.5),
    }));
    await store.rememberMany(memories);
    // A graph, so that the expansions have edges to follow and entities to go through.
    for (let e = 0; e < 12; e++) {
      const cites = Array.from({ length: 4 }, () => `m${Math.floor(rng() * memories.length)}`);
      await store.relate({ from: pick(WORDS), relation: "goes with", to: pick(WORDS), strength: rng(), memoryIds: cites });
    }
    const byId = new Map(memories.map((m) => [m.id, m]));
    const segs = (t) => t.toLowerCase();
    const matches = (want, tag, exact) => segs(tag) === want || (!exact && segs(tag).startsWith(`${want}:`));
    for (let trial = 0; trial < 60; trial++) {
      const tags = rng() < 0.7 ? [pick(TAGS), pick(TAGS)].slice(0, 1 + Math.floor(rng() * 2)) : undefined;
      const options = {
        trackRecalls: false, limit: 20,
        searchMode: pick(["hybrid", "lexical", "semantic"]),
        ranking: pick(["recallkit", "abmind", "rrf", "composite", "weighted"]),
        tags, tagMode: pick(["any", "all"]), tagMatch: pick(["prefix", "exact"]),
        excludeTags: rng() < 0.5 ? [pick(TAGS)] : undefined,
        timeQuery: rng() < 0.5 ? pick(["last week", "last 30 days", "this month", "last month", "since monday"]) : undefined,
        topic: rng() < 0.3 ? "a" : undefined,
        embedding: rng() < 0.5 ? Float32Array.from({ length: 8 }, () => rng() - 0.5) : undefined,
        expandRelations: rng() < 0.4, expandEntities: rng() < 0.4,
        queries: rng() < 0.2 ? [pick(WORDS)] : undefined, priorityIds: rng() < 0.2 ? ["m1"] : undefined,
      };
      const query = pick(["deploy database", "garden", "", "*", "budget release tomato"]);
      const res = await store.recall(query, options);
      const where = `trial ${trial}: ${JSON.stringify({ query, ...options, embedding: !!options.embedding })}`;
      for (const hit of res.results.filter((r) => r.kind === "memory" && r.matchType !== "priority")) {
        const m = byId.get(hit.id);
        const want = (options.tags ?? []).map(segs);
        const exact = options.tagMatch === "exact";
        if (want.length > 0) {
          const has = (w) => m.tags.some((t) => matches(w, t, exact));
          assert.ok(options.tagMode === "all" ? want.every(has) : want.some(has), `tags ${where} ${hit.id}`);
        }
        for (const x of options.excludeTags ?? []) assert.ok(!m.tags.some((t) => matches(segs(x), t, false)), `excludeTags ${where}`);
        if (res.timeWindow) {
          assert.ok(m.createdAt >= res.timeWindow.start && m.createdAt <= res.timeWindow.end, `window ${where}`);
        }
        if (options.topic) assert.equal(m.topic, options.topic, where);
      }
      assert.equal(res.count, res.results.length);
    }
  });
});

describe("queries, autoDecompose and priorityIds", () => {
  async function people(options) {
    const store = await openMemoryStore(options);
    await store.rememberMany([
      { id: "pg", text: "We chose PostgreSQL for the orders database" },
      { id: "both", text: "The PostgreSQL database backs the React dashboard" },
      { id: "react", text: "The dashboard is written in React with hooks" },
      { id: "cat", text: "Miso the cat sleeps all day", importance: 0.1 },
    ]);
    return store;
  }

  test("several queries merge by record, keeping each memory's best score, and count the duplicates", async () => {
    const store = await people();
    const one = await store.recall("PostgreSQL", { trackRecalls: false });
    const two = await store.recall("React", { trackRecalls: false });
    const res = await store.recall("PostgreSQL", { queries: ["React"], trackRecalls: false });
    assert.deepEqual(ids(res).sort(), ["both", "pg", "react"]);
    assert.equal(res.dedupRemoved, 1);
    const both = res.results.find((r) => r.id === "both");
    const best = Math.max(one.results.find((r) => r.id === "both").score, two.results.find((r) => r.id === "both").score);
    assert.equal(both.score, best);
    assert.deepEqual(both.dedupedFrom, ["PostgreSQL", "React"]);
    assert.equal(res.results.find((r) => r.id === "pg").dedupedFrom, undefined);
    for (let i = 1; i < res.results.length; i++) assert.ok(res.results[i - 1].score >= res.results[i].score);
    // With no query, the queries alone run; an empty query among them is refused.
    assert.deepEqual(ids(await store.recall("", { queries: ["React"], trackRecalls: false })).sort(), ["both", "react"]);
    assert.equal((await store.recall("React", { trackRecalls: false })).dedupRemoved, 0);
    await rejectsWith(store.recall("x", { queries: ["a", " "] }), "invalid_argument", /queries\[1\] must be a query/);
    await rejectsWith(store.recall("x", { queries: Array(11).fill("a") }), "invalid_argument", /at most 10 queries, got 11/);
    await rejectsWith(store.recall("x", { queries: "a" }), "invalid_argument", /queries must be an array of strings/);
  });

  test("each query gets its own vector from embed", async () => {
    const calls = [];
    const embed = async (texts) => {
      calls.push(texts);
      return texts.map((t) => (t.includes("cat") ? [0, 1] : [1, 0]));
    };
    const store = await openMemoryStore({ embed });
    await store.rememberMany([
      { id: "a", text: "alpha", embedding: [1, 0] },
      { id: "c", text: "gamma", embedding: [0, 1] },
    ]);
    calls.length = 0;
    const res = await store.recall("dog", { queries: ["cat"], trackRecalls: false, ranking: "abmind" });
    assert.deepEqual(calls, [["dog", "cat"]]);
    assert.deepEqual(ids(res).sort(), ["a", "c"]);
    assert.ok(res.results.every((r) => r.matchType === "semantic"));
  });

  test("autoDecompose adds a sub-query per entity and content word", async () => {
    const store = await people();
    await store.addEntity({ name: "React" });
    const plain = await store.recall("React PostgreSQL patterns", { trackRecalls: false, ranking: "abmind" });
    const res = await store.recall("React PostgreSQL patterns", { autoDecompose: true, trackRecalls: false });
    assert.ok(res.dedupRemoved > 0);
    assert.deepEqual(ids(res).sort(), ["both", "pg", "react"]);
    assert.ok(ids(plain).length <= ids(res).length);
    await rejectsWith(store.recall("x", { autoDecompose: "yes" }), "invalid_argument", /autoDecompose must be a boolean/);
  });

  test("priorityIds are always in the answer, within limit, unless the reader may not see them", async () => {
    const store = await people();
    await store.remember({ id: "secret", text: "PostgreSQL password rotation", classification: 3 });
    const res = await store.recall("PostgreSQL", { priorityIds: ["cat", "secret", "nope"], limit: 2, maxClassification: 1, trackRecalls: false });
    assert.equal(res.count, 2);
    const cat = res.results.find((r) => r.id === "cat");
    assert.equal(cat.matchType, "priority");
    assert.equal(cat.stage, "priority");
    assert.equal(cat.score, 0);
    assert.ok(!ids(res).includes("secret"));
    // Found by a stage: its own score and match.
    const found = await store.recall("PostgreSQL", { priorityIds: ["pg"], limit: 1, trackRecalls: false });
    assert.deepEqual(ids(found), ["pg"]);
    assert.equal(found.results[0].matchType, "keyword");
    await rejectsWith(store.recall("x", { priorityIds: [1] }), "invalid_argument", /priorityIds\[0\] must be a string/);
  });

  test("a priority memory a stage found past the limit keeps its own score and match, with queries too", async () => {
    const store = await openMemoryStore();
    await store.rememberMany(Array.from({ length: 20 }, (_, i) => ({ id: `k${i}`, text: `kafka decision number ${i}` })));
    // Not "abmind": its Sf keeps only the first `limit` hits, as the seed's does, so no stage finds k19.
    for (const ranking of ["recallkit", "rrf", "composite", "weighted"]) {
      const all = await store.recall("kafka", { limit: 20, ranking, trackRecalls: false });
      const own = all.results.find((r) => r.id === "k19");
      for (const extra of [{}, { queries: ["decision"] }]) {
        const res = await store.recall("kafka", { limit: 3, priorityIds: ["k19"], ranking, trackRecalls: false, ...extra });
        assert.equal(res.count, 3, ranking);
        const hit = res.results.find((r) => r.id === "k19");
        assert.notEqual(hit.matchType, "priority", `${ranking} ${JSON.stringify(extra)}: found by a stage`);
        if (Object.keys(extra).length === 0) assert.equal(hit.score, own.score, `${ranking}: the score it has without the cut`);
        assert.ok(hit.score > 0, `${ranking} ${JSON.stringify(extra)}: ${hit.score}`);
      }
    }
  });
});

describe("graph expansion", () => {
  test("multi-hop: what does Sarah's sister do? finds Rachel's job through Sarah's sister", async () => {
    const store = await openMemoryStore();
    await store.rememberMany([
      { id: "sister", text: "Sarah's sister is Rachel" },
      { id: "job", text: "Rachel works as a nurse at the city hospital" },
      { id: "noise", text: "The city council meets on Tuesdays", importance: 0.9 },
    ]);
    await store.addEntity({ name: "Sarah", type: "person" });
    await store.addEntity({ name: "Rachel", type: "person" });
    const q = "What does Sarah's sister do?";
    const plain = await store.recall(q, { trackRecalls: false });
    assert.ok(!ids(plain).includes("job"), "without expansion the job is not found");
    const res = await store.recall(q, { expandEntities: true, trackRecalls: false });
    assert.equal(ids(res)[0], "sister");
    const job = res.results.find((r) => r.id === "job");
    assert.ok(job, "the job memory is found through Rachel");
    assert.equal(job.expandedFromEntity, "Rachel");
    assert.equal(job.matchType, "entity");
    assert.equal(job.stage, "expand:entity");
    assert.deepEqual(res.entityExpansion, { entitiesFound: ["Rachel"], expandedCount: 1 });
    assert.ok(!ids(res).includes("noise"));
    // Expanded memories pass the recall's filters too.
    await store.update("job", { userId: "someone" });
    const filtered = await store.recall(q, { expandEntities: true, userId: "nobody", trackRecalls: false });
    assert.ok(!ids(filtered).includes("job"));
  });

  test("relations: edges citing a seed lead to the other memories they cite, within the expansion filters", async () => {
    const store = await openMemoryStore();
    await store.rememberMany([
      { id: "auth", text: "We moved authentication to OAuth" },
      { id: "keys", text: "Signing keys rotate every ninety days", importance: 0.8 },
      { id: "weak", text: "Someone mentioned passwords once", importance: 0.1 },
    ]);
    await store.relate({ from: "OAuth", relation: "uses", to: "signing keys", strength: 0.8, memoryIds: ["auth", "keys"] });
    await store.relate({ from: "OAuth", relation: "replaced", to: "passwords", strength: 0.2, memoryIds: ["auth", "weak"] });
    const q = (options) => store.recall("authentication", { trackRecalls: false, ...options });
    const res = await q({ expandRelations: true });
    assert.deepEqual(ids(res), ["auth", "keys", "weak"]);
    const keys = res.results[1];
    assert.deepEqual(keys.expandedFrom, { id: "auth", edge: "oauth|uses|signing keys" });
    assert.equal(keys.matchType, "relation");
    assert.ok(Math.abs(keys.score - res.results[0].score * 0.8) < 1e-9);
    assert.deepEqual(res.expansion, { seedCount: 1, expandedCount: 2 });
    assert.deepEqual(res.results[0].relations, ["oauth|uses|signing keys", "oauth|replaced|passwords"]);
    assert.deepEqual(ids(await q({ expandRelations: true, expandMinStrength: 0.5 })), ["auth", "keys"]);
    assert.deepEqual(ids(await q({ expandRelations: true, expandMinImportance: 0.5 })), ["auth", "keys"]);
    assert.deepEqual(ids(await q({ expandRelations: true, relationLimit: 1 })), ["auth", "keys"]);
    assert.deepEqual(ids(await q({ expandRelations: true, expansionLimit: 1 })), ["auth", "keys"]);
    // The expansion filters never drop a seed.
    assert.deepEqual(ids(await q({ expandRelations: true, expandMinImportance: 1 })), ["auth"]);
    assert.equal((await q({})).expansion, undefined);
  });

  test("bad expansion options are invalid_argument naming the option", async () => {
    const store = await openMemoryStore();
    await rejectsWith(store.recall("x", { relationLimit: 0 }), "invalid_argument", /relationLimit must be an integer between 1 and 200, got 0/);
    await rejectsWith(store.recall("x", { expansionLimit: 501 }), "invalid_argument", /expansionLimit must be an integer between 1 and 500/);
    await rejectsWith(store.recall("x", { expandMinStrength: 1.5 }), "invalid_argument", /expandMinStrength must be between 0 and 1/);
    await rejectsWith(store.recall("x", { expandMinImportance: -1 }), "invalid_argument", /expandMinImportance must be between 0 and 1/);
    await rejectsWith(store.recall("x", { expandRelations: 1 }), "invalid_argument", /expandRelations must be a boolean/);
    await rejectsWith(store.recall("x", { expandEntities: "yes" }), "invalid_argument", /expandEntities must be a boolean/);
  });
});

describe("context hints", () => {
  test("label, language, activePath, tags and types boost and never filter", async () => {
    const store = await openMemoryStore();
    // Texts equal but for one word the query lacks (the same text would be returned once).
    const text = (n) => `error handling: wrap the failing call and log the cause, note ${n}`;
    await store.rememberMany([
      { id: "plain", text: text("one") },
      { id: "py", text: text("two"), type: "style", tags: ["python"] },
      { id: "ts", text: text("three"), type: "Style", tags: ["typescript"] },
      { id: "decision", text: text("four"), type: "decision", tags: ["project:alpha"] },
    ]);
    const q = (context) => store.recall("error handling in the login flow", { context, trackRecalls: false }).then(ids);
    const none = await q(undefined);
    assert.equal(none.length, 4);
    assert.equal((await q({ activePath: "src/auth.ts" }))[0], "ts");
    assert.equal((await q({ language: "python", activePath: "src/auth.ts" }))[0], "py");
    assert.equal((await q({ types: ["DECISION"] }))[0], "decision");
    assert.equal((await q({ tags: ["project"] }))[0], "decision");
    assert.equal((await q({ label: "decision" }))[0], "decision");
    for (const context of [{ activePath: "a.ts" }, { tags: ["nope"] }, { types: ["x"] }]) {
      assert.deepEqual((await q(context)).sort(), [...none].sort(), "hints never filter");
    }
    const ts = (await store.recall("error handling in the login flow", { context: { activePath: "a.ts" }, trackRecalls: false })).results[0];
    assert.ok(ts.components.contextBoost > 0);
    await rejectsWith(store.recall("x", { context: { types: "style" } }), "invalid_argument", /context\.types must be an array/);
    await rejectsWith(store.recall("x", { context: { activePath: 3 } }), "invalid_argument", /context\.activePath must be a string/);
    await rejectsWith(store.recall("x", { context: { lang: "ts" } }), "invalid_argument", /lang/);
  });
});
