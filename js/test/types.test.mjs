// The engine boundary's types stay true (js/src/engine.ts). First tsc compiles
// types/boundary.ts against the built declarations: the engine returns the public types, the
// public types and the Rust side's declarations (pkg/recallkit.d.ts) name the same fields,
// RecallHit is a union on `kind`. Then real outputs of the engine (memories, notes, entities,
// edges, recall results of every kind) are checked against that file's field tables, which tsc
// has checked against the types: a field the engine writes that no type declares, a required
// one it leaves out, or a declared one it never writes fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MemoryStore } from "../dist/index.js";
import { withTempDir } from "./support/temp.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");

/** Compiles types/boundary.ts into a temporary folder and imports it. */
async function compileBoundary() {
  return withTempDir("types", async (out) => {
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const run = spawnSync(process.execPath, [tsc, "-p", join(here, "types", "tsconfig.json"), "--outDir", out], { encoding: "utf8" });
    assert.equal(run.status, 0, `tsc rejects js/test/types/boundary.ts:\n${run.stdout}${run.stderr}`);
    return import(pathToFileURL(join(out, "boundary.js")).href);
  });
}

/** Checks `value`'s fields against a table; notes in `seen` which fields it had. */
function conforms(value, table, what, seen) {
  assert.equal(typeof value, "object", `${what} is an object`);
  for (const key of Object.keys(value)) {
    assert.ok(Object.hasOwn(table, key), `${what}.${key}: the engine writes it, no public type declares it`);
    assert.notEqual(table[key], "absent", `${what}.${key}: declared absent on this kind`);
    seen.add(key);
  }
  for (const [key, presence] of Object.entries(table)) {
    if (presence === "required") assert.ok(Object.hasOwn(value, key), `${what}.${key}: declared required, missing`);
  }
}

/** Fields a table declares present (required or optional) that no checked output had. */
function neverSeen(table, seen) {
  return Object.entries(table).filter(([key, presence]) => presence !== "absent" && !seen.has(key)).map(([key]) => key);
}

test("engine outputs have exactly the fields the public types declare", async () => {
  const t = await compileBoundary();
  const now = Date.parse("2026-06-01T12:00:00Z");
  const store = await MemoryStore.open({ storage: "memory", clock: () => now });
  try {
    await store.rememberMany([
      {
        id: "full", text: "La base de datos usa Postgres", textEn: "The project uses Postgres", keywords: ["pg"],
        userId: "ana", topic: "db", tags: ["database"], type: "fact", tier: "core", emotion: 2, emotionTags: ["calm"],
        importance: 0.9, confidence: 0.8, trust: 3, credibility: 1, relevance: 1, classification: 1,
        createdAt: now - 86_400_000, updatedAt: now - 86_400_000, validFrom: now - 10 * 86_400_000,
        validTo: now + 86_400_000, expiresAt: now + 365 * 86_400_000, entities: ["Postgres"], embedding: [1, 0, 0],
      },
      { id: "minimal", text: "The project no longer uses Postgres", topic: "db", userId: "ana", embedding: [0.9, 0.1, 0] },
      // The same text once more: returned once, with `duplicateIds`.
      { id: "again", text: "the project no longer uses postgres.", topic: "db", userId: "ana", embedding: [0.9, 0.1, 0] },
    ]);
    await store.addNote({ period: "weekly", start: now - 86_400_000, text: "We talked about Postgres and the project.", userId: "ana", classification: 1 });
    await store.addNote({ period: "daily", start: now, text: "A shared note." });
    await store.addEntity({ name: "Ana", type: "person", aliases: ["Ann"], userId: "ana", classification: 1 });
    await store.addEntity({ name: "Bo" });
    await store.relate({ from: "Ana", relation: "maintains", to: "Postgres", memoryIds: ["full"], userId: "ana", classification: 1 });
    await store.relate({ from: "Bo", relation: "knows", to: "Ana" });
    await store.relate({
      from: "Ana", relation: "uses", to: "Postgres", memoryIds: ["full", "minimal"], userId: "ana",
      validFrom: now - 10 * 86_400_000, validTo: now + 86_400_000,
    });

    const seen = {
      memory: new Set(), note: new Set(), entity: new Set(), edge: new Set(), memoryHit: new Set(), noteHit: new Set(),
      edgeHit: new Set(), metadata: new Set(), noteRef: new Set(), timeline: new Set(), stage: new Set(),
    };
    const kinds = new Set();
    const recalls = [
      ["project Postgres", "hybrid"], ["who maintains Postgres Ana", "hybrid"], ["Postgres", "lexical"],
      ["project", "lexical", { queries: ["Postgres"] }],
      ["project Postgres", "lexical", { expandRelations: true, limit: 1 }],
      ["who maintains Postgres Ana", "lexical", { expandEntities: true, limit: 1 }],
      ["no longer uses Postgres", "lexical", { ranking: "recallkit" }],
    ];
    for (const [q, mode, more] of recalls) {
      const res = await store.recall(q, { userId: "ana", embedding: [1, 0, 0], limit: 20, ranking: "abmind", searchMode: mode, ...more });
      conforms(res, t.RECALL_RESULT, "RecallResult", new Set());
      for (const stage of res.stages) conforms(stage, t.STAGE_REPORT, "StageReport", seen.stage);
      for (const hit of res.results) {
        kinds.add(hit.kind);
        for (const item of hit.timeline ?? []) conforms(item, t.TIMELINE_ITEM, "TimelineItem", seen.timeline);
        if (hit.kind === "memory") {
          conforms(hit, t.MEMORY_HIT, "MemoryHit", seen.memoryHit);
          conforms(hit.memory, t.MEMORY, "MemoryHit.memory", seen.memory);
          conforms(hit.metadata, t.METADATA, "MemoryHit.metadata", seen.metadata);
        } else if (hit.kind === "note") {
          conforms(hit, t.NOTE_HIT, "NoteHit", seen.noteHit);
          conforms(hit.note, t.NOTE_REF, "NoteHit.note", seen.noteRef);
        } else {
          assert.equal(hit.kind, "edge");
          conforms(hit, t.EDGE_HIT, "EdgeHit", seen.edgeHit);
          conforms(hit.edge, t.EDGE, "EdgeHit.edge", seen.edge);
        }
      }
    }
    assert.deepEqual([...kinds].sort(), ["edge", "memory", "note"], "the recalls reach every kind of hit");
    for (const id of await store.ids()) conforms(await store.get(id), t.MEMORY, `Memory ${id}`, seen.memory);
    for (const note of await store.notes()) conforms(note, t.NOTE, "Note", seen.note);
    for (const entity of await store.entities()) conforms(entity, t.ENTITY, "Entity", seen.entity);
    for (const edge of await store.edges()) conforms(edge, t.EDGE, "Edge", seen.edge);
    conforms(await store.forget("minimal"), t.MEMORY, "forget's Memory", seen.memory);
    conforms(await store.forgetEntity("Bo"), t.ENTITY, "forgetEntity's Entity", seen.entity);

    // Every declared field is written by some output: a type does not promise what never comes.
    assert.deepEqual(neverSeen(t.MEMORY, seen.memory), [], "Memory fields never written");
    assert.deepEqual(neverSeen(t.NOTE, seen.note), [], "Note fields never written");
    assert.deepEqual(neverSeen(t.ENTITY, seen.entity), [], "Entity fields never written");
    assert.deepEqual(neverSeen(t.EDGE, seen.edge), [], "Edge fields never written");
    assert.deepEqual(neverSeen(t.MEMORY_HIT, seen.memoryHit), [], "MemoryHit fields never written");
    assert.deepEqual(neverSeen(t.METADATA, seen.metadata), [], "metadata fields never written");
    assert.deepEqual(neverSeen(t.NOTE_REF, seen.noteRef), [], "NoteHit.note fields never written");
    assert.deepEqual(neverSeen(t.TIMELINE_ITEM, seen.timeline), [], "TimelineItem fields never written");
    assert.deepEqual(neverSeen(t.STAGE_REPORT, seen.stage), [], "StageReport fields never written");
  } finally {
    await store.close();
  }
});

test("the engine's declarations have no any: every shape is named, once, in src/wasm.rs's TYPES", () => {
  const dts = readFileSync(join(root, "pkg", "recallkit.d.ts"), "utf8");
  // What follows InitInput is wasm-bindgen's table of raw exports (externref is `any` there).
  const api = dts.slice(0, dts.indexOf("export type InitInput"));
  const code = api.split("\n").filter((line) => !/^\s*(\/\*\*|\*)/.test(line));
  assert.deepEqual(code.filter((line) => /\bany\b/.test(line)), []);
  // Each shape the exports name is declared in the TYPES section, and nowhere else in Rust.
  const rust = readFileSync(join(root, "src", "wasm.rs"), "utf8");
  for (const [, name] of rust.matchAll(/typescript_type = "(\w+)/g)) {
    assert.match(rust, new RegExp(`export (interface|type) ${name}\\b`), `${name} is declared in TYPES`);
  }
});
