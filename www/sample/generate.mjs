#!/usr/bin/env node
// Writes the demo's sample store, www/sample/store.jsonl: one year in the life of Inês Duarte
// (memories, consolidation notes and an entity graph), in recallkit's JSON Lines export format
// (`{"v":1,"kind":"memory"|"note"|"entity"|"edge","data":{…}}`, one record per line).
//
// Deterministic: no clock, no Math.random (series.mjs uses a seeded mulberry32), so running it
// twice gives identical bytes. Usage:
//   node www/sample/generate.mjs           regenerate store.jsonl
//   node www/sample/generate.mjs --check   exit 1 if store.jsonl is not what this script writes
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EDGES, ENTITIES } from "./graph.mjs";
import { MEMORIES } from "./memories.mjs";
import { notes } from "./notes.mjs";
import { series } from "./series.mjs";

/** Seed of the recurring memories' generator; change it and the runs and budgets change. */
const SEED = 20261114;
/** Time the entity graph and notes were written (the day of the DevHarbour talk). */
const WRITTEN_AT = Date.parse("2026-11-14T23:00:00Z");
const OUT = join(dirname(fileURLToPath(import.meta.url)), "store.jsonl");

const DAY_MS = 86_400_000;
const PERIOD_DAYS = { daily: 1, weekly: 7 };

/** Entity names as the engine normalises them: diacritics folded, lower case, words joined by one space. */
export function normalizeName(name) {
  return name.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).join(" ");
}

function toMemory([id, when, topic, type, text, extra = {}]) {
  const createdAt = Date.parse(`${when.replace(" ", "T")}:00Z`);
  if (!Number.isFinite(createdAt)) throw new Error(`${id}: bad date ${when}`);
  const { e = 0, tier = "working", expiresAt, tags = [], emotionTags = [], entities = [], keywords, ...rest } = extra;
  const data = { id, text, ...(rest.textEn ? { textEn: rest.textEn } : {}) };
  if (keywords) data.keywords = keywords;
  Object.assign(data, { topic, tags, type, tier, emotion: e });
  if (emotionTags.length) data.emotionTags = emotionTags;
  for (const key of ["importance", "confidence", "trust", "credibility"]) if (rest[key] !== undefined) data[key] = rest[key];
  data.relevance = (rest.importance ?? 0) >= 0.8 ? 1 : 0;
  data.classification = rest.classification ?? 0;
  data.createdAt = createdAt;
  data.updatedAt = createdAt;
  if (expiresAt) data.expiresAt = Date.parse(expiresAt);
  if (entities.length) data.entities = entities;
  data.recallCount = 0;
  return data;
}

function toNote({ id, period, start, text }) {
  const s = Date.parse(`${start}T00:00:00Z`);
  let end;
  if (period === "quarterly") {
    const d = new Date(s);
    end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 3, 1);
  } else {
    end = s + PERIOD_DAYS[period] * DAY_MS;
  }
  const writtenAt = Math.min(end, WRITTEN_AT);
  return { id, period, start: s, end, text, createdAt: writtenAt, updatedAt: writtenAt };
}

function build() {
  const memories = [...MEMORIES, ...series(SEED)].map(toMemory).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  const ids = new Set();
  for (const m of memories) {
    if (ids.has(m.id)) throw new Error(`duplicate memory id ${m.id}`);
    ids.add(m.id);
  }
  const known = new Set(ENTITIES.map(([name]) => name));
  for (const m of memories) {
    for (const name of m.entities ?? []) if (!known.has(name)) throw new Error(`${m.id}: unknown entity ${name}`);
  }
  const entities = ENTITIES.map(([name, type, aliases]) => ({
    name, type, ...(aliases.length ? { aliases } : {}), classification: 0, createdAt: WRITTEN_AT,
  }));
  const edges = EDGES.map(([from, relation, to, strength]) => {
    const f = normalizeName(from);
    const t = normalizeName(to);
    const support = memories.filter((m) => m.entities?.includes(from) && m.entities?.includes(to)).map((m) => m.id);
    return {
      id: `${f}|${relation}|${t}`, from: f, relation, to: t, strength, createdAt: WRITTEN_AT, lastSeenAt: WRITTEN_AT,
      ...(support.length ? { memoryIds: support.slice(0, 5) } : {}),
    };
  });
  const records = [
    ...memories.map((data) => ({ kind: "memory", data })),
    ...notes().map((n) => ({ kind: "note", data: toNote(n) })),
    ...entities.map((data) => ({ kind: "entity", data })),
    ...edges.map((data) => ({ kind: "edge", data })),
  ];
  return {
    text: records.map((r) => JSON.stringify({ v: 1, ...r })).join("\n") + "\n",
    counts: { memories: memories.length, notes: records.filter((r) => r.kind === "note").length, entities: entities.length, edges: edges.length },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { text, counts } = build();
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(OUT, "utf8");
    } catch {
      // a missing file is simply out of date
    }
    if (current !== text) {
      console.error("www/sample/store.jsonl is out of date: run node www/sample/generate.mjs");
      process.exit(1);
    }
    console.log("www/sample/store.jsonl is up to date");
  } else {
    writeFileSync(OUT, text);
    console.log(`wrote ${OUT}: ${JSON.stringify(counts)}`);
  }
}

export { build };
