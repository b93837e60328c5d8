// The store's degradation tier (Engram's resource tiers): status() and each recall's `tier`,
// driven by a real embed function that fails on demand and a real adapter that refuses writes
// on demand; the tier recovers by itself.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { MemoryAdapter, MemoryStore, RecallError } from "../dist/index.js";
import { rejectsWith } from "./support/errors.mjs";
import { eventually } from "./support/wait.mjs";

/** A clock the test moves. */
function clock(start = 1_800_000_000_000) {
  const c = () => c.now;
  c.now = start;
  return c;
}

/** An embed function of 4 dims that fails ("down") or never answers ("hang") on demand. */
function embedder() {
  const embed = async (texts) => {
    embed.calls++;
    if (embed.mode === "down") throw new Error("connection refused");
    if (embed.mode === "hang") return new Promise(() => {});
    return texts.map((t) => [t.length % 7, 1, t.includes("tea") ? 3 : 0, 0.5]);
  };
  embed.mode = "up";
  embed.calls = 0;
  return embed;
}

/** An adapter over memory that fails every write with `error` while `refuse(true)` holds. */
function refusing(error) {
  const inner = new MemoryAdapter();
  let on = false;
  const adapter = {
    get: (k) => inner.get(k), keys: (p) => inner.keys(p), entries: (p) => inner.entries(p), close: () => inner.close(),
    async write(ops) {
      if (on) throw error;
      return inner.write(ops);
    },
  };
  return { adapter, refuse: (value) => { on = value; } };
}

describe("status() and the tier", () => {
  test("a store without an embedder is basic (no embedder); recalls say so", async () => {
    const store = await MemoryStore.open({ storage: "memory" });
    await store.remember({ text: "the backup runs at night" });
    const status = await store.status();
    assert.equal(status.tier, "basic");
    assert.equal(status.reason, "no_embedder");
    assert.deepEqual(status.storage.tier, "full");
    assert.equal((await store.recall("backup")).tier, "basic");
    // The recall's stage report gives the same reason: one spelling, and no new `since`.
    assert.deepEqual(await store.status(), status);
    // A host that passes the query's vector itself gets the full pipeline.
    const withVectors = await MemoryStore.open({ storage: "memory" });
    await withVectors.remember({ text: "Ana drinks green tea", embedding: [1, 0, 0] });
    const r = await withVectors.recall("green tea", { embedding: [1, 0, 0.1], limit: 1 });
    assert.ok(r.stages.some((s) => s.name === "Se" && !s.skipped), JSON.stringify(r.stages));
    assert.equal(r.tier, "full");
    assert.equal((await withVectors.status()).tier, "full");
    await store.close();
    await withVectors.close();
  });

  test("a failing embedder makes it basic with the reason and the time; the next good call makes it full again", async () => {
    const embed = embedder();
    const now = clock();
    const store = await MemoryStore.open({ storage: "memory", embed, clock: now, embedTimeoutMs: 200 });
    await store.rememberMany([{ text: "the backup runs at night" }, { text: "Ana drinks green tea" }, { text: "rent is due on the first" }]);
    const full = await store.status();
    assert.equal(full.tier, "full");
    assert.equal(full.reason, undefined);

    embed.mode = "down";
    now.now += 60_000;
    const degraded = await store.recall("what does Ana drink?", { limit: 1 });
    assert.equal(degraded.tier, "basic");
    assert.match(degraded.stages.find((s) => s.name === "Se").reason, /embed_failed/);
    let status = await store.status();
    assert.deepEqual([status.tier, status.reason, status.since], ["basic", "embed_failed", now.now]);
    await rejectsWith(store.remember({ text: "cannot be embedded" }), "embed_failed", /connection refused/);

    embed.mode = "hang";
    await store.recall("what does Ana drink?", { limit: 1 });
    status = await store.status();
    assert.deepEqual([status.tier, status.reason], ["basic", "embed_timeout"]);

    embed.mode = "up";
    now.now += 60_000;
    const back = await store.recall("what does Ana drink?", { limit: 1 });
    assert.equal(back.tier, "full");
    status = await store.status();
    assert.deepEqual([status.tier, status.since], ["full", now.now]);
    await store.close();
  });

  test("storage that refuses a write makes it readonly; recall still answers; the next write it takes ends that", async () => {
    const { adapter, refuse } = refusing(new RecallError("quota_exceeded", "the origin's storage quota is used up"));
    const now = clock();
    const store = await MemoryStore.open({ storage: adapter, clock: now, embed: embedder() });
    await store.remember({ id: "a", text: "the backup runs at night" });
    refuse(true);
    now.now += 1000;
    await rejectsWith(store.remember({ text: "one more" }), "quota_exceeded", /quota is used up/);
    let status = await store.status();
    assert.equal(status.tier, "readonly");
    assert.match(status.reason, /^quota_exceeded: .*quota is used up/);
    assert.equal(status.since, now.now);
    const r = await store.recall("backup", { trackRecalls: false });
    assert.equal(r.results[0].id, "a");
    assert.equal(r.tier, "readonly");
    // A bad input is not the storage refusing: the tier stays where it is.
    refuse(false);
    await rejectsWith(store.remember({ text: "" }), "invalid_argument");
    assert.equal((await store.status()).tier, "readonly");
    await store.remember({ text: "written again" });
    status = await store.status();
    assert.deepEqual([status.tier, status.storage.tier], ["full", "full"]);
    await store.close();
  });
});

describe("reads while storage refuses writes", () => {
  test("a default recall and context answer when storage refuses their tracking; the tier says readonly", async () => {
    const { adapter, refuse } = refusing(new RecallError("storage_failed", "ENOSPC: no space left on device"));
    const store = await MemoryStore.open({ storage: adapter, clock: clock() });
    await store.remember({ id: "a", text: "the backup runs at night" });
    refuse(true);
    // The recall's own tracking, written behind its answer, is the first write storage refuses.
    const r = await store.recall("backup");
    assert.equal(r.results[0].id, "a");
    await eventually(async () => (await store.status()).tier === "readonly", 5000, "the refused tracking seen");
    assert.match((await store.status()).reason, /^storage_failed: ENOSPC/);
    assert.equal((await store.get("a")).recallCount, 0, "the engine holds the tracking storage holds");
    assert.equal((await store.recall("backup")).tier, "readonly", "a later recall's answer says so");
    const c = await store.context("backup");
    assert.match(c.text, /the backup runs at night/);
    // Storage takes writes again: tracking is persisted again.
    // The later recall's and the context's tracking are refused too, once their turn comes.
    await eventually(async () => (await store.get("a")).recallCount === 0, 5000, "every refused count undone");
    refuse(false);
    await store.recall("backup");
    assert.equal((await store.get("a")).recallCount, 1);
    await store.close();
  });
});

describe("facts in time (Memoria's bi-temporal reading)", () => {
  test("asOf returns what held and was recorded then; without it, ended facts are hidden unless includeInvalid", async () => {
    const store = await MemoryStore.open({ storage: "memory" });
    await store.rememberMany([
      { id: "berlin", text: "Stefan lives in Berlin", createdAt: "2020-02-01", validFrom: "2019-05-01", validTo: "2021-03-01" },
      { id: "stockholm", text: "Stefan lives in Stockholm", createdAt: "2021-03-02", validFrom: "2021-03-01" },
    ]);
    const ids = async (options) => (await store.recall("where does Stefan live?", { trackRecalls: false, now: "2024-06-01", ...options }))
      .results.filter((r) => r.kind === "memory").map((r) => r.id).sort();
    assert.deepEqual(await ids({}), ["stockholm"]);
    assert.deepEqual(await ids({ includeInvalid: true }), ["berlin", "stockholm"]);
    assert.deepEqual(await ids({ asOf: "2020-06-01" }), ["berlin"]);
    assert.deepEqual(await ids({ asOf: "2021-03-01T12:00:00Z" }), [], "Berlin had ended; Stockholm held but was recorded a day later");
    assert.deepEqual(await ids({ asOf: "2021-03-02T12:00:00Z" }), ["stockholm"]);
    assert.deepEqual(await ids({ asOf: "2019-06-01" }), [], "true then, but not recorded yet");
    for (const mode of ["lexical", "hybrid"]) assert.deepEqual(await ids({ asOf: "2020-06-01", searchMode: mode }), ["berlin"], mode);
    await rejectsWith(store.recall("x", { asOf: "not a date" }), "invalid_argument", /asOf/);
    await rejectsWith(store.recall("x", { includeInvalid: "yes" }), "invalid_argument", /includeInvalid/);
    await store.close();
  });
});

describe("trivial messages (Engram's query decision)", () => {
  test("ok, thanks, an emoji, punctuation, Vietnamese acknowledgements: nothing runs and embed is not called", async () => {
    const embed = embedder();
    const store = await MemoryStore.open({ storage: "memory", embed });
    await store.rememberMany([{ text: "ok so the backup runs at night" }, { text: "thanks to Ana the SQL is fast" }, { text: "hi-fi speakers in the living room" }]);
    const before = embed.calls;
    for (const q of ["ok", "Okay!", "thanks", "thank you", "yes", "no", "sure", "hi", "bye", "👍", "?!", "   ", "cảm ơn", "vâng", "ừ", "dạ", "k"]) {
      const r = await store.recall(q);
      assert.equal(r.trivial, true, q);
      assert.deepEqual(r.results, [], q);
      assert.ok(r.stages.every((s) => s.skipped && s.reason === "trivial"), q);
    }
    assert.equal(embed.calls, before, "the host's embed was not called for a trivial message");
    for (const q of ["sql?", "Ana", "k8s", "hi-fi"]) {
      const r = await store.recall(q);
      assert.equal(r.trivial, undefined, q);
    }
    assert.ok(embed.calls > before, "real queries are embedded");
    // skipTrivial: false searches anyway; an empty query asks for trending, not trivial.
    const forced = await store.recall("thanks", { skipTrivial: false });
    assert.equal(forced.trivial, undefined);
    assert.ok(forced.results.length > 0);
    assert.equal((await store.recall("")).trivial, undefined);
    await rejectsWith(store.recall("ok", { skipTrivial: "no" }), "invalid_argument", /skipTrivial/);
    await store.close();
  });
});

describe("short queries that are words", () => {
  test("a two-letter word or an East Asian word of one or two characters is searched and found", async () => {
    const store = await MemoryStore.open({ storage: "memory" });
    await store.rememberMany([
      { id: "go", text: "Rewrote the ingest service in Go" },
      { id: "ai", text: "The AI team meets on Mondays" },
      { id: "tokyo", text: "来月 東京 に 行く" },
      { id: "cat", text: "猫 が 好き" },
    ]);
    for (const [q, id] of [["Go", "go"], ["AI", "ai"], ["東京", "tokyo"], ["猫", "cat"]]) {
      const r = await store.recall(q, { trackRecalls: false });
      assert.equal(r.trivial, undefined, q);
      assert.equal(r.results[0]?.id, id, q);
    }
    await store.close();
  });
});

describe("time words in the question (Engram's query pipeline)", () => {
  test("the window comes from the question, the words leave the search text, explicit bounds narrow it, resolveTime: false turns it off", async () => {
    const now = Date.UTC(2024, 2, 15, 12); // Friday 2024-03-15
    const DAY = 86_400_000;
    const store = await MemoryStore.open({ storage: "memory" });
    await store.rememberMany([
      { id: "old", text: "Ana reviewed the billing migration", createdAt: now - 40 * DAY },
      { id: "yesterday", text: "Ana reviewed the billing dashboard", createdAt: now - DAY },
      { id: "hn", text: "Chị Ana xem lại bảng thanh toán", createdAt: now - DAY },
    ]);
    const r = await store.recall("what did Ana review yesterday?", { now, trackRecalls: false });
    assert.equal(r.results[0].id, "yesterday");
    assert.ok(!r.results.some((h) => h.id === "old"), "outside the window");
    assert.deepEqual(r.query, { text: "what did Ana review yesterday?", searchText: "what did Ana review", resolvedFrom: "yesterday?" });
    assert.equal(r.timeWindow.source, "query");
    assert.equal(r.timeWindow.start, Date.UTC(2024, 2, 14));
    // Only time words and stopwords left: the window's memories, newest first.
    const onlyTime = await store.recall("what did I do hôm qua?", { now, trackRecalls: false });
    assert.equal(onlyTime.query.searchText, "");
    assert.deepEqual(onlyTime.results.map((h) => h.id).sort(), ["hn", "yesterday"]);
    // Explicit bounds narrow the words' window (they used to turn the words off); resolveTime:
    // false searches the words as written.
    const explicit = await store.recall("Ana billing yesterday", { now, start: now - 60 * DAY, end: now, trackRecalls: false });
    assert.equal(explicit.query.resolvedFrom, "yesterday");
    assert.equal(explicit.timeWindow.start, Date.UTC(2024, 2, 14));
    assert.ok(!explicit.results.some((h) => h.id === "old"));
    const off = await store.recall("Ana billing migration last week", { now, resolveTime: false, trackRecalls: false });
    assert.equal(off.query, undefined);
    assert.equal(off.results[0].id, "old");
    // Weekends ("old" was recorded on Sunday 4 February) and spans ending now; with asOf, the
    // words are read at asOf (5 February: yesterday is the 4th).
    const weekend = await store.recall("what did Ana review over the weekend?", { now: Date.UTC(2024, 1, 6, 12), trackRecalls: false });
    assert.deepEqual(weekend.results.map((h) => h.id), ["old"]);
    assert.deepEqual([weekend.timeWindow.start, weekend.timeWindow.end], [Date.UTC(2024, 1, 3), Date.UTC(2024, 1, 5) - 1]);
    assert.equal(weekend.query.searchText, "what did Ana review");
    const hours = await store.recall("Ana billing in the past 48 hours", { now, trackRecalls: false });
    assert.deepEqual([hours.timeWindow.start, hours.timeWindow.end], [now - 2 * DAY, now]);
    assert.ok(!hours.results.some((h) => h.id === "old"));
    const asOf = await store.recall("what did Ana review yesterday?", { now, asOf: now - 39 * DAY, trackRecalls: false });
    assert.equal(asOf.timeWindow.start, Date.UTC(2024, 1, 4));
    assert.deepEqual(asOf.results.map((h) => h.id), ["old"]);
    // Content that only looks like a date is left alone.
    const plain = await store.recall("the billing migration every Friday", { now, trackRecalls: false });
    assert.equal(plain.query, undefined);
    await rejectsWith(store.recall("x y z", { resolveTime: 1 }), "invalid_argument", /resolveTime/);
    await store.close();
  });

  test("a date in the question also finds the memory stating it in those words, recorded outside the window", async () => {
    const now = Date.UTC(2024, 8, 1, 12);
    const DAY = 86_400_000;
    const store = await MemoryStore.open({ storage: "memory" });
    await store.rememberMany([
      { id: "stated", text: "Walter has an appointment with Dr Turner on 2024-08-08", createdAt: Date.UTC(2024, 6, 1) },
      { id: "that-day", text: "The appointment with Dr Turner went well", createdAt: Date.UTC(2024, 7, 8, 15) },
      { id: "other-date", text: "Walter has an appointment with Dr Turner on 2024-06-01", createdAt: Date.UTC(2024, 5, 1) },
      { id: "invoice", text: "JPY invoice from 2024 disputed by the client", createdAt: Date.UTC(2025, 0, 3) },
    ]);
    const opts = { now, trackRecalls: false };
    const r = await store.recall("appointment with Dr Turner on 2024-08-08", opts);
    assert.deepEqual(r.results.map((h) => h.id).sort(), ["stated", "that-day"]);
    assert.equal(r.timeWindow.source, "query");
    // A year works the same way; the memory was recorded in 2025.
    const y = await store.recall("JPY invoice disputed in 2024", { ...opts, now: Date.UTC(2025, 5, 1) });
    assert.equal(y.results[0]?.id, "invoice");
    // Time words alone, and an explicit window, mean recording time.
    const alone = await store.recall("what did I do on 2024-08-08?", opts);
    assert.deepEqual(alone.results.map((h) => h.id), ["that-day"]);
    const explicit = await store.recall("appointment Dr Turner", { ...opts, start: Date.UTC(2024, 7, 8), end: Date.UTC(2024, 7, 9) - 1 });
    assert.deepEqual(explicit.results.map((h) => h.id), ["that-day"]);
    await store.close();
  });
});
