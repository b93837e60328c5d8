// Scale: rememberMany of 100,000 memories and recall over them, in Node's default heap.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore } from "../dist/index.js";
import { splitmix } from "./support/rng.mjs";

test("100,000 memories in one rememberMany, then recall", async () => {
  const rand = splitmix(7);
  const words = ["project", "database", "meeting", "deploy", "release", "coffee", "garden", "invoice", "travel",
    "budget", "design", "review", "kitchen", "music", "server", "backup", "holiday", "contract", "doctor", "school"];
  const pick = () => words[Math.floor(rand() * words.length)];
  const memories = Array.from({ length: 100_000 }, (_, i) => ({
    id: `m${i}`,
    text: `${pick()} ${pick()} ${pick()} note ${i} ${pick()} code-${(i * 7919) % 100_003}`,
    createdAt: 1_700_000_000_000 + i * 1000,
  }));
  memories[54_321].text = "the zanzibar expedition budget was approved";
  const store = await MemoryStore.open({ storage: "memory", clock: () => 1_800_000_000_000 });
  const ids = await store.rememberMany(memories);
  assert.equal(ids.length, 100_000);
  assert.equal(store.size, 100_000);
  const res = await store.recall("zanzibar expedition", { trackRecalls: false });
  assert.equal(res.results[0].id, "m54321");
  const typo = await store.recall("zanzibra expedtion", { trackRecalls: false });
  assert.equal(typo.results[0].id, "m54321");
  const common = await store.recall("project database meeting", { limit: 20, trackRecalls: false });
  assert.equal(common.results.length, 20);
  await store.close();
});
