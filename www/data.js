// The demo's store: opening it (IndexedDB; memory when IndexedDB is unusable), loading the
// sample, JSON Lines import and export, and reset.
//
// Export and import use MemoryStore's `export()` / `import()` (the format is
// `{"v":1,"kind":…,"data":{…},"embedding":[…]}`, one record per line). Import also takes plain
// memory objects (`{"text": …}`, one per line, or a JSON array of them), stored through
// `rememberMany`.
import { MemoryStore } from "/js/dist/index.js";

/** IndexedDB store name of the demo. */
export const STORE_NAME = "recallkit-demo";
/** The bundled sample (www/sample/generate.mjs writes it). */
export const SAMPLE_URL = "/www/sample/store.jsonl";
const SEEDED_KEY = "recallkit-demo:seeded";
const BATCH = 100;
/** Fields the engine maintains; the record API does not accept them back. */
const ENGINE_FIELDS = ["recallCount", "lastRecalledAt", "recallTimestamps", "signature"];

/**
 * Opens the demo store with `embed` (or none). Resolves to `{ store, durable, problem? }`:
 * durable is true when the records live in IndexedDB and survive a reload. When IndexedDB is
 * unusable (a private window, a blocked upgrade, a build without durable storage) the demo
 * still runs on a memory store and `problem` says why.
 */
export async function openStore({ embed, clock } = {}) {
  const common = { embed, ...(clock ? { clock } : {}) };
  try {
    const store = await MemoryStore.open({ ...common, name: STORE_NAME, storage: "indexeddb" });
    return { store, durable: true };
  } catch (e) {
    if (!["invalid_argument", "storage_failed", "blocked", "quota_exceeded"].includes(e?.code)) throw e;
    const store = await MemoryStore.open({ ...common, storage: "memory" });
    return { store, durable: false, problem: e.message };
  }
}

/** True when the store holds no memory, note or entity. */
export async function isEmpty(store) {
  return store.size === 0 && (await store.notes()).length === 0 && (await store.entities()).length === 0;
}

/** Whether the sample should be loaded now: a fresh store that was never seeded (or a memory store). */
export async function needsSample(store, durable) {
  if (!durable) return true;
  let seeded = null;
  try {
    seeded = localStorage.getItem(SEEDED_KEY);
  } catch {
    // no localStorage: decide by emptiness alone
  }
  return (await isEmpty(store)) && seeded === null;
}

/** Loads the bundled sample; `onProgress(done, total)`. */
export async function loadSample(store, onProgress) {
  const res = await fetch(SAMPLE_URL);
  if (!res.ok) throw new Error(`cannot fetch the sample store (${res.status})`);
  const counts = await importText(store, await res.text(), onProgress);
  try {
    localStorage.setItem(SEEDED_KEY, new Date().toISOString());
  } catch {
    // private mode without localStorage: the sample just loads again next time
  }
  return counts;
}

/**
 * Deletes the demo's IndexedDB database (`recallkit:<name>`, as MemoryStore names it); the
 * store must be closed. Resolves to false when another tab keeps it open.
 */
export function deleteDatabase() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.deleteDatabase(`recallkit:${STORE_NAME}`);
    const timer = setTimeout(() => resolve(false), 3_000);
    req.onsuccess = () => {
      clearTimeout(timer);
      resolve(true);
    };
    req.onerror = () => {
      clearTimeout(timer);
      reject(req.error ?? new Error("cannot delete the database"));
    };
  });
}

/** Deletes every memory, note and entity (with their edges) through the API. */
export async function clearStore(store) {
  for (const id of await store.ids()) await store.forget(id);
  for (const note of await store.notes()) await store.forgetNote(note.id);
  for (const entity of await store.entities()) await store.forgetEntity(entity.name);
}

// ── JSON Lines ────────────────────────────────────────────────────────────────────────────

function embeddingOf(array) {
  return Array.isArray(array) ? Float32Array.from(array) : undefined;
}

/** One parsed line as { kind, data, embedding }; plain memory objects become kind "memory". */
function toRecord(value, lineNo) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`line ${lineNo}: expected a JSON object`);
  }
  if ("kind" in value && "data" in value) {
    if (value.v !== undefined && value.v !== 1) throw new Error(`line ${lineNo}: format version ${value.v} is not supported`);
    return { kind: value.kind, data: value.data, embedding: embeddingOf(value.embedding) };
  }
  if (typeof value.text === "string") return { kind: "memory", data: value, embedding: embeddingOf(value.embedding) };
  throw new Error(`line ${lineNo}: neither a recallkit record nor a memory with "text"`);
}

/** Parses JSON Lines (or one JSON array) into records; errors name the line. */
export function parseRecords(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    const array = JSON.parse(trimmed);
    return array.map((value, i) => toRecord(value, i + 1));
  }
  const records = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    let value;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new Error(`line ${i + 1}: not JSON (${e.message})`);
    }
    records.push(toRecord(value, i + 1));
  });
  return records;
}

function memoryInput(data, embedding) {
  const input = { ...data };
  for (const key of ENGINE_FIELDS) delete input[key];
  delete input.embedding;
  if (embedding) input.embedding = embedding;
  return input;
}

/** True when the text's first line is a recallkit record (`{"v":…,"kind":…}`), not a plain memory. */
function isRecordFile(text) {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== "")?.replace(/^\uFEFF/, "") ?? "";
  try {
    const value = JSON.parse(first);
    return typeof value === "object" && value !== null && "kind" in value && "data" in value;
  } catch {
    return false;
  }
}

/**
 * Imports JSON Lines text into the store: a recallkit export through `store.import` (records
 * whose id exists are replaced), or plain memory objects through `rememberMany`.
 * `onProgress(done, total)` counts lines. Returns counts per kind (what the store gained).
 */
export async function importText(store, text, onProgress = () => {}) {
  const before = await census(store);
  if (isRecordFile(text)) {
    const total = text.split("\n").length;
    await store.import(text, { onConflict: "replace", onProgress: (p) => onProgress(p.lines, total) });
    onProgress(total, total);
  } else {
    await importPlain(store, parseRecords(text), onProgress);
  }
  const after = await census(store);
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
}

async function census(store) {
  const [notes, entities, edges] = await Promise.all([store.notes(), store.entities(), store.edges()]);
  return { memory: store.size, note: notes.length, entity: entities.length, edge: edges.length };
}

/** The fallback importer: records through the public API, memories in batches. */
async function importPlain(store, records, onProgress) {
  const total = records.length;
  let done = 0;
  const tick = (n) => {
    done += n;
    onProgress(done, total);
  };
  const memories = records.filter((r) => r.kind === "memory");
  const existing = new Set(await store.ids());
  const fresh = memories.filter((r) => !existing.has(r.data.id));
  for (let at = 0; at < fresh.length; at += BATCH) {
    const batch = fresh.slice(at, at + BATCH);
    await store.rememberMany(batch.map((r) => memoryInput(r.data, r.embedding)));
    tick(batch.length);
  }
  for (const r of memories.filter((m) => existing.has(m.data.id))) {
    const { id, ...patch } = memoryInput(r.data, r.embedding);
    await store.update(id, patch);
    tick(1);
  }
  for (const r of records) {
    if (r.kind === "note") {
      const { createdAt, updatedAt, ...note } = r.data;
      if (note.id !== undefined && (await store.getNote(note.id)) !== undefined) await store.updateNote(note.id, note);
      else await store.addNote(note);
    } else if (r.kind === "entity") {
      const { createdAt, ...entity } = r.data;
      await store.addEntity(entity);
    } else if (r.kind === "edge") {
      const { from, relation, to, strength, memoryIds } = r.data;
      await store.relate({ from, relation, to, strength, ...(memoryIds ? { memoryIds } : {}) });
    } else if (r.kind !== "memory" && r.kind !== "meta") {
      throw new Error(`unknown record kind ${JSON.stringify(r.kind)}`);
    } else {
      continue;
    }
    tick(1);
  }
}

/** Every record of the store as JSON Lines text (`store.export()`). */
export async function exportText(store) {
  const lines = [];
  for await (const line of store.export()) lines.push(line);
  return lines.join("");
}
