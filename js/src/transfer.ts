/**
 * Export and import, behind `MemoryStore.export` and `MemoryStore.import`: the whole store as
 * JSON Lines (`storage/jsonl.ts`), one record per line: the configuration (`meta`), memories in
 * insertion order (fields, tracking, exact embedding, signature), notes, entities, edges.
 *
 * Import reads line by line and stores batches (default {@link DEFAULT_IMPORT_BATCH} records),
 * each one write of the write queue: applied to the engine all or nothing, then durable in one
 * adapter batch. In a batch, a configuration line comes first: its format must be known and its
 * dimension agree; an empty store takes its dimension and seed, as a new engine that replaces
 * the old one only if the whole batch lands (so export → import → export is byte-identical).
 * Then memories (new ones in one `insertMany`, written as creates; an id the store holds:
 * `already_exists` naming the line, or skipped, or replaced, by `onConflict`), notes (likewise),
 * entities (merged) and edges (replaced). Signatures are recomputed from the text and the seed.
 * @module
 */
import type { Engine } from "./engine.js";
import { RecallError, itemError, located } from "./errors.js";
import { DEFAULT_IMPORT_BATCH } from "./options.js";
import type { ImportSettings } from "./options.js";
import {
  InsertionOrder, asRecord, flatten, graphOps, graphState, memoryOp, noteOp, setGraph, splitMemory, trackingReset,
} from "./records.js";
import type { GraphState } from "./records.js";
import type { EngineSlot } from "./slot.js";
import { FIELD_NAMES, fromJsonLine, fromJsonValue, readLines, toJsonLine } from "./storage/codec.js";
import type { StoredRecord } from "./storage/codec.js";
import { STORE_FORMAT, checkConfig } from "./storage/layout.js";
import type { ExportedRecord, ImportProgress, ImportSource } from "./types.js";
import { checkDimensions, checkRecordNames } from "./validate.js";
import type { Step, WriteQueue } from "./writes.js";

/** What an import changes: the engine (and its configuration), the write queue, insertion ranks. */
export interface ImportParts {
  slot: EngineSlot;
  writes: WriteQueue;
  order: InsertionOrder;
}

/** One parsed import line. */
interface ImportItem {
  line: number;
  record: StoredRecord;
}

/** The store as JSON Lines, each line ending in `"\n"` (see `MemoryStore.export`). */
export async function* exportLines(slot: EngineSlot): AsyncGenerator<string, void, undefined> {
  let engine = slot.forCaller();
  const config: Record<string, unknown> = { format: STORE_FORMAT, signatureSeed: slot.config.signatureSeed };
  if (engine.dimensions !== undefined) config.dimensions = engine.dimensions;
  yield `${toJsonLine({ kind: "meta", data: config })}\n`;
  for (const id of engine.ids()) {
    engine = slot.forCaller();
    const data = engine.get(id);
    if (data === undefined) continue;
    const record: StoredRecord = { kind: "memory", data: { ...data } };
    const embedding = engine.embedding(id);
    const signature = engine.signature(id);
    if (embedding !== undefined) record.embedding = embedding;
    if (signature !== undefined) record.signature = signature;
    yield `${toJsonLine(record)}\n`;
  }
  for (const note of slot.forCaller().notes()) yield `${toJsonLine({ kind: "note", data: { ...note } })}\n`;
  const { entities, edges } = graphState(slot.forCaller());
  for (const entity of entities) yield `${toJsonLine({ kind: "entity", data: { ...entity } })}\n`;
  for (const edge of edges) yield `${toJsonLine({ kind: "edge", data: { ...edge } })}\n`;
}

/** The lines of `source`, or the items of an array of lines and parsed lines, in order. */
async function* importItems(source: ImportSource): AsyncGenerator<string | ExportedRecord> {
  if (Array.isArray(source)) {
    yield* source as ReadonlyArray<string | ExportedRecord>;
    return;
  }
  yield* readLines(source as Exclude<ImportSource, ReadonlyArray<unknown>>);
}

/**
 * Reads JSON Lines from `source` and stores every record in batches, each atomic and durable
 * before `onProgress` is called (see `MemoryStore.import`); `settings` are the checked options.
 */
export async function importLines(parts: ImportParts, source: ImportSource, settings: ImportSettings): Promise<ImportProgress> {
  const { slot, writes } = parts;
  const { options, onConflict, batchSize } = settings;
  const progress: ImportProgress = { lines: 0, records: 0, skipped: 0 };
  let batch: ImportItem[] = [];
  const flush = async (): Promise<void> => {
    slot.forCaller();
    const items = batch;
    batch = [];
    const { stored, skipped } = await writes.write((engine) => importBatch(parts, engine, items, onConflict));
    progress.records += stored;
    progress.skipped += skipped;
    options.onProgress?.({ ...progress });
  };
  let line = 0;
  for await (const item of importItems(source)) {
    line++;
    if (typeof item === "string" && item.trim() === "") continue;
    let record: StoredRecord;
    try {
      record = typeof item === "string" ? fromJsonLine(item) : fromJsonValue(item);
    } catch (e) {
      throw located(e, `line ${line}`);
    }
    checkRecordNames(record.kind, record.data, `line ${line}: `);
    // A field no record has (a typo in a hand-edited line: "topik") would be dropped without a word.
    const unknown = Object.keys(record.data).find((key) => !RECORD_FIELDS.has(key));
    if (unknown !== undefined) {
      throw new RecallError("invalid_argument", `line ${line}: unknown field ${JSON.stringify(unknown)} in a ${record.kind} record`);
    }
    batch.push({ line, record });
    if (batch.length >= batchSize) {
      progress.lines = line;
      await flush();
    }
  }
  progress.lines = line;
  if (batch.length > 0) await flush();
  return { ...progress };
}

/** The fields records hold (the binary codec's names); an import refuses any other. */
const RECORD_FIELDS = new Set(FIELD_NAMES);

/** Applies one import batch to the engine (all or nothing) and describes it as a write. */
function importBatch(
  parts: ImportParts, engine: Engine, items: ImportItem[], onConflict: string,
): Step<{ stored: number; skipped: number }> {
  const { slot, order } = parts;
  const undo: (() => void)[] = [];
  /** Engines an import's configuration line replaced, freed once the batch has landed. */
  const replaced: Engine[] = [];
  const memoryIds: string[] = [];
  /** Memories new to this store: written as creates. */
  const created = new Set<string>();
  const noteIds: string[] = [];
  let graphBefore: GraphState | undefined;
  let stored = 0;
  let skipped = 0;
  const rollback = (): void => {
    for (const u of undo.reverse()) u();
  };
  try {
    for (const { line, record } of items.filter((i) => i.record.kind === "meta")) {
      const before = { engine, config: slot.config, dirty: slot.configDirty };
      const next = importConfig(slot, engine, record.data, line);
      if (next === engine) continue;
      // The new engine replaces the old one only if the whole batch lands.
      engine = next;
      undo.push(() => {
        next.free();
        slot.engine = before.engine;
        slot.config = before.config;
        slot.configDirty = before.dirty;
      });
      replaced.push(before.engine);
    }
    // Memories: new ones in one insertMany; existing ones per onConflict.
    const fresh: ImportItem[] = [];
    const seen = new Map<string, number>();
    // Checked here, per line: insertMany's flat vectors cannot tell which row is short.
    let dims = engine.dimensions;
    for (const item of items.filter((i) => i.record.kind === "memory")) {
      const { record } = splitMemory(item.record.data);
      if (typeof record.id !== "string" || record.id === "") {
        throw new RecallError("invalid_argument", `line ${item.line}: a memory needs a string id`);
      }
      const first = seen.get(record.id);
      if (first !== undefined) {
        throw new RecallError("already_exists", `line ${item.line}: memory id ${JSON.stringify(record.id)} repeats line ${first}`);
      }
      seen.set(record.id, item.line);
      const current = engine.get(record.id);
      if (current === undefined) {
        const embedding = item.record.embedding;
        if (embedding !== undefined) dims = checkDimensions(embedding, "embedding", `line ${item.line}: `, dims).length;
        fresh.push(item);
      } else if (onConflict === "skip") {
        skipped++;
      } else if (onConflict === "replace") {
        const oldVector = engine.embedding(record.id);
        const embedding = item.record.embedding;
        try {
          engine.replace(record, embedding, embedding === undefined);
        } catch (e) {
          throw located(e, `line ${item.line}`);
        }
        undo.push(() => engine.replace(current, oldVector, oldVector === undefined));
        memoryIds.push(record.id);
        stored++;
      } else {
        throw new RecallError("already_exists", `line ${item.line}: a memory with id ${JSON.stringify(record.id)} already exists`);
      }
    }
    if (fresh.length > 0) {
      const records = fresh.map((i) => splitMemory(i.record.data).record);
      const { flat, has } = flatten(fresh.map((i) => i.record.embedding));
      try {
        engine.insertMany(records, flat, has);
      } catch (e) {
        throw itemError(e, (i) => `line ${fresh[i]?.line}`);
      }
      for (const r of records) order.set(r.id, undefined);
      undo.push(() => {
        for (const r of records) {
          engine.remove(r.id);
          order.delete(r.id);
        }
      });
      memoryIds.push(...records.map((r) => r.id));
      for (const r of records) created.add(r.id);
      stored += records.length;
    }
    for (const { line, record } of items.filter((i) => i.record.kind === "note")) {
      const note = asRecord("note", record.data);
      if (typeof note.id !== "string" || note.id === "") throw new RecallError("invalid_argument", `line ${line}: a note needs a string id`);
      const current = engine.note(note.id);
      try {
        if (current === undefined) {
          engine.addNote(note);
          undo.push(() => { engine.removeNote(note.id); });
        } else if (onConflict === "skip") {
          skipped++;
          continue;
        } else if (onConflict === "replace") {
          engine.replaceNote(note);
          undo.push(() => engine.replaceNote(current));
        } else {
          throw new RecallError("already_exists", `a note with id ${JSON.stringify(note.id)} already exists`);
        }
      } catch (e) {
        throw located(e, `line ${line}`);
      }
      noteIds.push(note.id);
      stored++;
    }
    for (const { line, record } of items.filter((i) => i.record.kind === "entity" || i.record.kind === "edge")) {
      if (graphBefore === undefined) {
        const before = graphState(engine);
        graphBefore = before;
        undo.push(() => setGraph(engine, before));
      }
      try {
        if (record.kind === "entity") engine.addEntity(asRecord("entity", record.data));
        else engine.upsertEdge(asRecord("edge", record.data));
      } catch (e) {
        throw located(e, `line ${line}`);
      }
      stored++;
    }
  } catch (e) {
    rollback();
    throw e;
  }
  const before = graphBefore;
  return {
    result: { stored, skipped },
    ops: () => [
      ...memoryIds.map((id) => memoryOp(engine, id, order, created.has(id))),
      // A memory takes the file's recall tracking: a stored `r/<id>` (a replaced memory's, or an
      // orphan's under a new one's id) would override it.
      ...memoryIds.map(trackingReset),
      ...noteIds.map((id) => noteOp(engine, id)),
      ...(before === undefined ? [] : graphOps(before, graphState(engine))),
    ],
    undo: rollback,
    after: () => {
      for (const old of replaced) old.free();
    },
  };
}

/**
 * An import's configuration line: its format must be known and its dimension must agree.
 * An empty store takes the line's dimension and seed (a new engine), so a round trip keeps them.
 */
function importConfig(slot: EngineSlot, engine: Engine, data: Record<string, unknown>, line: number): Engine {
  const config = checkConfig(data, `line ${line}`);
  const empty = engine.size === 0 && engine.notes().length === 0 && engine.entities().length === 0;
  const dims = engine.dimensions;
  if (config.dimensions !== undefined && dims !== undefined && config.dimensions !== dims) {
    throw new RecallError("dimension_mismatch", `line ${line}: the file holds ${config.dimensions}-dimensional embeddings, the store ${dims}`);
  }
  if (!empty || (config.signatureSeed === slot.config.signatureSeed && (config.dimensions ?? dims) === dims)) return engine;
  const nextConfig = { ...slot.config, signatureSeed: config.signatureSeed, dimensions: config.dimensions ?? dims };
  let next: Engine;
  try {
    next = slot.build(nextConfig);
  } catch (e) {
    throw located(e, `line ${line}`);
  }
  slot.config = nextConfig;
  slot.configDirty = true;
  slot.engine = next;
  return next;
}
