// End to end through the public API (real WebAssembly): abmind's example recall, "what
// database does the project use?", stage by stage, and the wiring of every post-processing rule
// (the rules' arithmetic is unit-tested in src/rank/; these tests check that recall applies
// them and reports them in `components`).
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { DAY, NOW, openMemoryStore } from "./support/stores.mjs";

const QUERY = "what database does the project use?";
const close = (a, b, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps, `${a} is not within ${eps} of ${b}`);

/**
 * abmind's example store. Host embeddings are 4-d: the query points along x; the two Se
 * memories share no word with the query (nor any substring, nor a one-letter typo of one)
 * but lie close to x; every other memory is orthogonal to it.
 */
const Q = [1, 0, 0, 0];
const AWAY = [0, 0, 0, 1];
const MEMORIES = [
  { id: "sf-migrated", text: "We migrated the project database to SQLite with FTS5", topic: "work", embedding: AWAY },
  { id: "sf-backups", text: "Project database backups run nightly at two", topic: "work", embedding: AWAY },
  { id: "sf-vacuum", text: "Database indexes need a weekly vacuum", topic: "work", embedding: AWAY },
  { id: "sf-kickoff", text: "Project kickoff is on Monday morning", topic: "work", embedding: AWAY },
  { id: "se-file", text: "SQLite stores everything in a single file", topic: "work", embedding: [0.9, Math.sqrt(1 - 0.81), 0, 0] },
  { id: "se-heavy", text: "Postgres was too heavy for a local app", topic: "work", embedding: [0.8, 0, 0.6, 0] },
  { id: "lunch", text: "Lunch with Ana on Friday", topic: "life", embedding: [0, 0, 1, 0] },
  { id: "shoes", text: "Running shoes arrived today", topic: "life", embedding: [0, 1, 0, 0] },
];
const WEEKLY = "# Week 22\n\n- Migrated to SQLite; the old database dump is archived.\n\n- Ana started running again.\n";

async function seedStore(options = {}) {
  const store = await openMemoryStore({ ranking: "abmind", ...options });
  await store.rememberMany(MEMORIES.map((m) => ({ ...m, createdAt: NOW - 3 * DAY })));
  const noteId = await store.addNote({ id: "week-22", period: "weekly", start: NOW - 7 * DAY, text: WEEKLY });
  await store.addEntity({ name: "Ana Souza", type: "person", aliases: ["Ana"] });
  await store.relate({ from: "Ana Souza", relation: "works_with", to: "Ben Okafor", strength: 0.8 });
  return { store, noteId };
}

const stage = (res, name) => res.stages.find((s) => s.name === name);

describe("abmind's example: what database does the project use?", () => {
  test("Sf 4, Se 2, Ss skipped, S6 1, S8 0: 7 candidates, MMR keeps the top 5", async () => {
    // shortCircuitFloor 0 counts every hit, as abmind's recall pipeline does: Sf's 4 hits do not fill the
    // limit of 5, so Se runs; Sf + Se then hold 6 ≥ 5 hits, so Ss is skipped.
    const { store, noteId } = await seedStore({ shortCircuitFloor: 0 });
    const res = await store.recall(QUERY, { limit: 5, embedding: Q, trackRecalls: false });

    assert.deepEqual(res.stages.map((s) => s.name), ["Sf", "Se", "Ss", "S6", "S8"]);
    for (const s of res.stages) assert.ok(typeof s.ms === "number" && s.ms >= 0, `${s.name} ms`);
    assert.deepEqual([stage(res, "Sf").hits, stage(res, "Sf").skipped], [4, undefined]);
    assert.deepEqual([stage(res, "Se").hits, stage(res, "Se").skipped], [2, undefined]);
    assert.deepEqual([stage(res, "Ss").skipped, stage(res, "Ss").reason], [true, "short_circuit"]);
    assert.deepEqual([stage(res, "S6").hits, stage(res, "S6").skipped], [1, undefined]);
    assert.deepEqual([stage(res, "S8").hits, stage(res, "S8").skipped], [0, undefined]);

    // 4 + 2 + 1 = 7 candidates, MMR → top 5, each record once.
    assert.equal(res.results.length, 5);
    const ids = res.results.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, `deduplicated: ${ids}`);
    res.results.forEach((r, i) => {
      for (const key of ["raw", "calibrated", "rankBeforeMmr", "rankAfterMmr"]) {
        assert.equal(typeof r.components[key], "number", `${r.id} has ${key}`);
      }
      assert.equal(r.components.rankAfterMmr, i + 1);
      assert.ok(r.components.rankBeforeMmr >= 1 && r.components.rankBeforeMmr <= 7, `${r.id} rankBeforeMmr`);
    });
    assert.equal(new Set(res.results.map((r) => r.components.rankBeforeMmr)).size, 5);

    // Se's two memories, by cosine, with calibrated = (cosine − 0.3) / 0.7.
    const se = res.results.filter((r) => r.stage === "Se");
    assert.deepEqual(se.map((r) => r.id).sort(), ["se-file", "se-heavy"]);
    for (const r of se) {
      close(r.components.cosine, r.components.raw, 1e-6);
      close(r.components.calibrated, (r.components.raw - 0.3) / 0.7, 1e-6);
    }
    // S6: the weekly paragraph that mentions the migration, at its fixed 0.5.
    const s6 = res.results.find((r) => r.stage === "S6:weekly");
    assert.equal(s6.id, `note:${noteId}#0`);
    assert.match(s6.text, /Migrated to SQLite/);
    assert.deepEqual([s6.components.raw, s6.components.calibrated], [0.5, 0.5]);
    // Sf hits not confirmed by Se are halved (the cross-stage penalty), raw / (raw + 1) first.
    const sf = res.results.filter((r) => r.stage.startsWith("Sf"));
    assert.equal(sf.length, 2);
    for (const r of sf) {
      assert.ok(["sf-migrated", "sf-backups", "sf-vacuum", "sf-kickoff"].includes(r.id), r.id);
      close(r.components.calibrated, r.components.raw / (r.components.raw + 1));
      assert.equal(r.components.crossStagePenalty, 0.5);
    }
    assert.ok(!res.results.some((r) => r.kind === "edge"), "no entity in the query, no S8 hit");
    await store.close();
  });

  test("with shortCircuitFloor 0.9, weak Sf hits do not count and Ss runs", async () => {
    const { store } = await seedStore({ shortCircuitFloor: 0.9 });
    const res = await store.recall(QUERY, { limit: 5, embedding: Q, trackRecalls: false });
    assert.equal(stage(res, "Se").skipped, undefined);
    assert.equal(stage(res, "Ss").skipped, undefined, "Ss ran: Sf's hits are under the floor");
    assert.equal(res.results.length, 5);
    await store.close();
  });

  test("when Sf alone holds the limit, Se and Ss are both skipped", async () => {
    const { store } = await seedStore({ shortCircuitFloor: 0 });
    const res = await store.recall(QUERY, { limit: 4, embedding: Q, trackRecalls: false });
    assert.deepEqual([stage(res, "Se").skipped, stage(res, "Se").reason], [true, "short_circuit"]);
    assert.deepEqual([stage(res, "Ss").skipped, stage(res, "Ss").reason], [true, "short_circuit"]);
    assert.equal(stage(res, "S6").hits, 1, "S6 always runs");
    assert.ok(!res.results.some((r) => r.stage === "Se"));
    await store.close();
  });
});

describe("post-processing rules, wired through recall", () => {
  const open = (options = {}) => openMemoryStore({ ranking: "abmind", ...options });

  test("S8 edges come back at 0.6, calibrated by identity", async () => {
    const { store } = await seedStore();
    const res = await store.recall("who does Ana work with?", { trackRecalls: false });
    const edge = res.results.find((r) => r.kind === "edge");
    assert.equal(edge.id, "ana souza|works_with|ben okafor");
    assert.equal(edge.stage, "S8");
    assert.deepEqual([edge.components.raw, edge.components.calibrated], [0.6, 0.6]);
    await store.close();
  });

  test("context: same hour bucket +0.02, same weekday +0.015, same topic +0.03", async () => {
    const store = await open();
    // Monday 2026-05-25 09:00 UTC; the caller is on a Monday morning, talking about work.
    await store.remember({ id: "m", text: "Deploy freeze starts at noon", topic: "work", createdAt: "2026-05-25T09:00:00Z" });
    const plain = await store.recall("deploy freeze", { trackRecalls: false });
    assert.equal(plain.results[0].components.contextBoost, undefined);
    const res = await store.recall("deploy freeze", { trackRecalls: false, context: { hour: 10, dayOfWeek: 1, topic: "work", utcOffsetMinutes: 0 } });
    const c = res.results[0].components;
    close(c.contextBoost, 0.02 + 0.015 + 0.03);
    close(res.results[0].score, plain.results[0].score + 0.065);
    const sameClass = await store.recall("deploy freeze", { trackRecalls: false, context: { dayOfWeek: 2, utcOffsetMinutes: 0 } });
    close(sameClass.results[0].components.contextBoost, 0.0075, 1e-12);
    await store.close();
  });

  test("emotion: +0.02 per point of |emotion|, at most +0.10", async () => {
    const store = await open();
    await store.rememberMany([
      { id: "calm", text: "Quarterly budget review", emotion: 0 },
      { id: "tense", text: "Quarterly budget review went badly", emotion: -3 },
      { id: "elated", text: "Quarterly budget review approved everything", emotion: 5 },
    ]);
    const res = await store.recall("quarterly budget review", { trackRecalls: false });
    const by = Object.fromEntries(res.results.map((r) => [r.id, r.components]));
    assert.equal(by.calm.emotionTiebreak, undefined);
    close(by.tense.emotionTiebreak, 0.06);
    close(by.elated.emotionTiebreak, 0.1);
    await store.close();
  });

  test("spacing: recalled weekly ×1.3, daily ×1.15, within a day ×1", async () => {
    let now = NOW;
    const store = await open({ clock: () => now });
    await store.rememberMany([
      { id: "weekly", text: "Piano scales weekly practice", createdAt: NOW - 60 * DAY },
      { id: "daily", text: "Piano scales daily practice", createdAt: NOW - 60 * DAY },
      { id: "burst", text: "Piano scales burst practice", createdAt: NOW - 60 * DAY },
    ]);
    const recallAt = async (t, query) => {
      now = t;
      return store.recall(query, { limit: 1 });
    };
    for (let k = 0; k < 3; k++) {
      await recallAt(NOW - 40 * DAY + 7 * k * DAY, "weekly");
      await recallAt(NOW - 10 * DAY + k * DAY, "daily");
      await recallAt(NOW - 1 * DAY + k * 3_600_000, "burst");
    }
    assert.deepEqual((await store.get("weekly")).recallCount, 3);
    now = NOW;
    const res = await store.recall("piano scales practice", { trackRecalls: false });
    const by = Object.fromEntries(res.results.map((r) => [r.id, r.components]));
    assert.equal(by.weekly.spacingBoost, 1.3);
    assert.equal(by.daily.spacingBoost, 1.15);
    assert.equal(by.burst.spacingBoost, undefined);
    await store.close();
  });

  test("cross-stage: only Sf hits that Se did not confirm are halved", async () => {
    const store = await open();
    await store.rememberMany([
      { id: "both", text: "Kafka consumer lag alert", embedding: [1, 0, 0] },
      { id: "lexical", text: "Kafka topic retention", embedding: [0, 1, 0] },
    ]);
    const res = await store.recall("kafka", { embedding: [1, 0, 0], trackRecalls: false });
    const by = Object.fromEntries(res.results.map((r) => [r.id, r]));
    assert.equal(by.both.stage.startsWith("Sf"), true, "found first by Sf, kept under Sf");
    assert.equal(by.both.components.crossStagePenalty, undefined);
    assert.equal(by.lexical.components.crossStagePenalty, 0.5);
    const lexical = await store.recall("kafka", { searchMode: "lexical", trackRecalls: false });
    assert.ok(lexical.results.every((r) => r.components.crossStagePenalty === undefined), "no Se, no penalty");
    await store.close();
  });

  test("MMR: λ = 1 keeps score order; the default λ 0.7 demotes a near-duplicate", async () => {
    const store = await open();
    await store.rememberMany([
      { id: "a", text: "Team offsite in Porto planning agenda draft", tier: "core" },
      { id: "a2", text: "Team offsite in Porto planning agenda draft copy", tier: "core" },
      { id: "b", text: "Offsite budget approved" },
    ]);
    const byScore = await store.recall("offsite planning agenda", { trackRecalls: false, mmrLambda: 1 });
    const scores = byScore.results.map((r) => r.score);
    assert.deepEqual(scores, [...scores].sort((x, y) => y - x), "λ = 1: score order");
    for (const r of byScore.results) assert.equal(r.components.rankBeforeMmr, r.components.rankAfterMmr);
    assert.deepEqual(byScore.results.map((r) => r.id), ["a", "a2", "b"]);

    const diverse = await store.recall("offsite planning agenda", { trackRecalls: false });
    assert.deepEqual(diverse.results.map((r) => r.id), ["a", "b", "a2"], "the near-duplicate moves below the distinct hit");
    const a2 = diverse.results.find((r) => r.id === "a2").components;
    assert.deepEqual([a2.rankBeforeMmr, a2.rankAfterMmr], [2, 3]);
    await store.close();
  });
});
