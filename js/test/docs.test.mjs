// The maps stay true: DESIGN.md names every folder and top-level file of src/ and every
// TypeScript file of js/src/, and documents every score component a recall records (collected
// from real recalls under every ranking, with vectors, notes, edges, context, MMR and a
// reranker), as does the demo's score breakdown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryStore } from "../dist/index.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const design = readFileSync(join(root, "DESIGN.md"), "utf8");

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

test("DESIGN.md names every folder and top-level file of src/", () => {
  const entries = readdirSync(join(root, "src"), { withFileTypes: true });
  const missing = entries
    .map((e) => (e.isDirectory() ? `src/${e.name}/` : `src/${e.name}`))
    .filter((p) => p.endsWith("/") || p.endsWith(".rs"))
    .filter((p) => !design.includes(`\`${p}`));
  assert.deepEqual(missing, [], "add them to DESIGN.md's module map");
});

test("DESIGN.md names every TypeScript file of js/src/", () => {
  const files = walk(join(root, "js", "src")).filter((f) => f.endsWith(".ts"));
  const missing = files
    .map((f) => relative(join(root, "js", "src"), f))
    .filter((f) => !design.includes(`\`${f.split("/").pop()}\``) && !design.includes(`js/src/${f}`));
  assert.deepEqual(missing, [], "add them to DESIGN.md's module map");
});

/** Every component name recalls record, over a store and queries that reach every rule. */
async function recordedComponents() {
  const names = new Set();
  const now = Date.parse("2026-06-01T12:00:00Z");
  const store = await MemoryStore.open({ storage: "memory", clock: () => now });
  await store.rememberMany([
    { id: "a", text: "We migrated the project database to SQLite", embedding: [1, 0, 0], topic: "work", emotion: 3, tier: "core", trust: 3, credibility: 1, relevance: 1 },
    { id: "b", text: "The deployment pipeline runs every Friday", embedding: [0, 1, 0], createdAt: now - 400 * 86_400_000 },
    { id: "c", text: "Database backups run nightly", tags: ["database"], importance: 0.9, confidence: 0.8 },
  ]);
  for (let i = 0; i < 3; i++) await store.recall("database", { trackRecalls: true, now: now + i * 2 * 86_400_000 });
  await store.addNote({ period: "weekly", start: now - 86_400_000, text: "We talked about the database migration." });
  await store.addEntity({ name: "Ana", aliases: ["Ann"] });
  await store.relate({ from: "Ana", relation: "owns", to: "database", memoryIds: ["a"] });
  const rankings = ["recallkit", "abmind", "rrf", "composite", "weighted"];
  for (const ranking of rankings) {
    for (const extra of [
      {}, { embedding: [1, 0.1, 0] }, { mmrLambda: 0.7 }, { context: { hour: 12, dayOfWeek: 1, topic: "work" } },
      { rerank: async (_q, texts) => texts.map((t) => t.length) },
    ]) {
      for (const q of ["database", "who owns the database Ana", "latest database now", "databse migrtion"]) {
        const res = await store.recall(q, { ranking, trackRecalls: false, ...extra });
        for (const hit of res.results) for (const k of Object.keys(hit.components)) names.add(k);
      }
    }
  }
  await store.close();
  return names;
}

test("every score component a recall records is documented, in DESIGN.md and in the demo", async () => {
  const names = [...(await recordedComponents())].sort();
  assert.ok(names.length > 20, `only ${names.length} components seen: ${names}`);
  const section = design.slice(design.indexOf("## Score components"));
  assert.ok(section.length > 0 && design.includes("## Score components"), "DESIGN.md has a Score components section");
  const undocumented = names.filter((n) => !section.includes(`\`${n}\``));
  assert.deepEqual(undocumented, [], "add them to DESIGN.md's Score components table");
  const ui = readFileSync(join(root, "www", "ui.js"), "utf8");
  const unlabelled = names.filter((n) => !new RegExp(`\\b${n}:`).test(ui));
  assert.deepEqual(unlabelled, [], "add a label to COMPONENTS in www/ui.js");
});
