/**
 * The engine's records and their stored form (`storage/layout.ts`: `m/`, `n/`, `e/`, `g/`), both
 * ways, for every part of the store that reads or writes them:
 * - stored data as engine records ({@link splitMemory}, {@link asRecord}): the one place the
 *   store gives what storage or an import line holds the type of its kind;
 * - the ops that store a memory, a note or the graph's difference ({@link memoryOp},
 *   {@link noteOp}, {@link graphOps});
 * - making the engine what storage holds ({@link reload} for memories and notes,
 *   {@link reloadGraph} for graph records, {@link setGraph} with {@link readGraph} for the
 *   whole graph), without writing;
 * - the insertion rank of each memory ({@link InsertionOrder}), which records and snapshots keep
 *   so that every open loads memories in the same order.
 * @module
 */
import type { Engine, EdgeRecord, EntityRecord, GraphRecordsJs, MemoryRecord, NoteRecord } from "./engine.js";
import { RecallError, located, storageError } from "./errors.js";
import type { StorageAdapter, StorageOp } from "./storage/adapter.js";
import { decodeRecord, encodeRecord } from "./storage/codec.js";
import type { RecordKind, StoredRecord } from "./storage/codec.js";
import { EDGE_PREFIX, ENTITY_PREFIX, MEMORY_PREFIX, NOTE_PREFIX, TRACKING_PREFIX } from "./storage/layout.js";

/** Concurrent reads while re-reading records (another tab's writes, a replay after the snapshot). */
const REREAD_CONCURRENCY = 256;

/** The engine record the data of a stored record of each kind holds. */
interface RecordOfKind {
  memory: MemoryRecord;
  note: NoteRecord;
  entity: EntityRecord;
  edge: EdgeRecord;
}

/**
 * Stored data as the engine record of its kind. Nothing is checked here: the engine checks
 * every record it is given (its answer is final), and the store checks the ids it reads itself.
 */
export function asRecord<K extends keyof RecordOfKind>(_kind: K, data: Record<string, unknown>): RecordOfKind[K] {
  return data as RecordOfKind[K] & Record<string, unknown>;
}

/** Splits a stored memory's data into the engine record and its insertion rank. */
export function splitMemory(data: Record<string, unknown>): { record: MemoryRecord; order: number | undefined } {
  const { order, ...record } = data;
  return { record: asRecord("memory", record), order: typeof order === "number" && Number.isFinite(order) ? order : undefined };
}

/** A decoded stored record of the expected kind; anything else is `corrupt`, naming the key. */
export function decodeAt(key: string, bytes: Uint8Array, kind: RecordKind): StoredRecord {
  let record: StoredRecord;
  try {
    record = decodeRecord(bytes);
  } catch (e) {
    throw located(e, `record ${JSON.stringify(key)}`);
  }
  if (record.kind !== kind) throw new RecallError("corrupt", `record ${JSON.stringify(key)} is a ${record.kind} record, not a ${kind}`);
  return record;
}

/** Runs a storage read; its failure is `storage_failed` (or the adapter's own code). */
export async function readStore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    throw storageError(e, "cannot read the store");
  }
}

/** Rows of memories with optional vectors → `insertMany`'s flat vectors and flags. */
export function flatten(vectors: readonly (Float32Array | undefined)[]): { flat: Float32Array; has: Uint8Array } {
  let total = 0;
  for (const v of vectors) total += v?.length ?? 0;
  const flat = new Float32Array(total);
  let offset = 0;
  for (const v of vectors) {
    if (v === undefined) continue;
    flat.set(v, offset);
    offset += v.length;
  }
  const has = new Uint8Array(vectors.length);
  for (let i = 0; i < vectors.length; i++) has[i] = vectors[i] === undefined ? 0 : 1;
  return { flat, has };
}

/**
 * The insertion rank of each memory: stored with it (`order`) and in snapshots, so that both
 * ways of opening load memories in the same order. A memory store writes neither, so it keeps
 * no ranks.
 */
export class InsertionOrder {
  readonly #ranks = new Map<string, number>();
  /** The rank the next new memory gets. */
  #next = 0;
  readonly #kept: boolean;

  /** `kept`: whether ranks are kept at all (not for `storage: "memory"`). */
  constructor(kept: boolean) {
    this.#kept = kept;
  }

  /** The rank of memory `id`, if it has one. */
  get(id: string): number | undefined {
    return this.#ranks.get(id);
  }

  /** Records the insertion rank of memory `id` (`undefined`: the next one). */
  set(id: string, rank: number | undefined): void {
    if (!this.#kept) return;
    const r = rank ?? this.#next;
    this.#ranks.set(id, r);
    this.#next = Math.max(this.#next, r + 1);
  }

  /** Forgets memory `id`'s rank. */
  delete(id: string): void {
    this.#ranks.delete(id);
  }

  /** Forgets every rank (a new engine is being loaded). */
  clear(): void {
    this.#ranks.clear();
    this.#next = 0;
  }

  /** A new, empty order that keeps ranks if this one does (for an engine built beside the current one). */
  empty(): InsertionOrder {
    return new InsertionOrder(this.#kept);
  }

  /** Takes `other`'s ranks in place of this one's (that engine replaced the current one). */
  assign(other: InsertionOrder): void {
    this.clear();
    for (const [id, rank] of other.#ranks) this.#ranks.set(id, rank);
    this.#next = other.#next;
  }
}

/** The op that stores memory `id` as `data` with its rank and binary parts (`create`: a new memory). */
export function memoryPut(
  id: string, data: MemoryRecord, order: InsertionOrder, embedding: Float32Array | undefined, signature: Uint8Array | undefined,
  create = false,
): StorageOp {
  const record: StoredRecord = { kind: "memory", data: { ...data, order: order.get(id) } };
  if (embedding !== undefined) record.embedding = embedding;
  if (signature !== undefined) record.signature = signature;
  // A new memory is a create: if another tab or handle stored the id meanwhile, the write
  // fails with already_exists instead of replacing that memory.
  return { op: create ? "create" : "put", key: MEMORY_PREFIX + id, value: encodeRecord(record) };
}

/** The op that stores the engine's current state of a memory (`create` for a new one). */
export function memoryOp(engine: Engine, id: string, order: InsertionOrder, create = false): StorageOp {
  const data = engine.get(id);
  if (data === undefined) return { op: "delete", key: MEMORY_PREFIX + id };
  return memoryPut(id, data, order, engine.embedding(id), engine.signature(id), create);
}

/** The fields of a memory's recall tracking, stored apart as `r/<id>` (`storage/layout.ts`). */
const TRACKING_FIELDS = ["recallCount", "lastRecalledAt", "recallTimestamps"] as const;

/**
 * The op that stores the recall tracking of memory `id` as the engine holds it (`r/<id>`), or
 * deletes it when the engine holds no such memory. Never the memory itself: see
 * `storage/layout.ts`, "Recall tracking".
 */
export function trackingOp(engine: Engine, id: string): StorageOp {
  const memory = engine.get(id) as Record<string, unknown> | undefined;
  if (memory === undefined) return { op: "delete", key: TRACKING_PREFIX + id };
  const data: Record<string, unknown> = {};
  for (const field of TRACKING_FIELDS) if (memory[field] !== undefined) data[field] = memory[field];
  return { op: "put", key: TRACKING_PREFIX + id, value: encodeRecord({ kind: "meta", data }) };
}

/**
 * Gives memories `ids` in engine `to` the recall tracking engine `from` holds for them: `from`
 * is an engine `to` replaced (a re-read after drift, `remote.ts`) while recalls it answered had
 * tracking not yet stored. A memory either engine lacks is skipped; no write.
 */
export function carryTracking(from: Engine, to: Engine, ids: Iterable<string>): void {
  for (const id of ids) {
    const had = from.get(id) as Record<string, unknown> | undefined;
    const now = to.get(id) as Record<string, unknown> | undefined;
    if (had === undefined || now === undefined) continue;
    if (TRACKING_FIELDS.every((field) => JSON.stringify(had[field]) === JSON.stringify(now[field]))) continue;
    const merged: Record<string, unknown> = { ...now };
    for (const field of TRACKING_FIELDS) {
      if (had[field] === undefined) delete merged[field];
      else merged[field] = had[field];
    }
    to.replace(asRecord("memory", merged), undefined, false);
  }
}

/**
 * The op that deletes memory `id`'s recall tracking, for a batch that creates the memory: a new
 * memory starts untracked, and an `r/<id>` stored before its `m/<id>` is an orphan (a recall
 * racing a forget of an earlier memory with that id) that would otherwise count as its recalls.
 */
export function trackingReset(id: string): StorageOp {
  return { op: "delete", key: TRACKING_PREFIX + id };
}

/**
 * The ops that delete the orphan `r/<id>` (stored while no `m/<id>` is) only if memory `id`
 * still does not exist, checked atomically with the delete: a `create` of `m/<id>`, deleted
 * again in the same batch, fails the whole batch with `already_exists` when another handle
 * has stored the memory since (its tracking is then live, and kept).
 */
export function orphanOps(id: string): StorageOp[] {
  const key = MEMORY_PREFIX + id;
  return [
    { op: "create", key, value: encodeRecord({ kind: "meta", data: {} }) },
    { op: "delete", key },
    { op: "delete", key: TRACKING_PREFIX + id },
  ];
}

/** `stored`'s memory data with the tracking fields of `tracking` (an `r/<id>` value) over them. */
export function withTracking(data: Record<string, unknown>, tracking: Uint8Array | undefined, key: string): Record<string, unknown> {
  if (tracking === undefined) return data;
  const fields = decodeAt(key, tracking, "meta").data;
  const out: Record<string, unknown> = { ...data };
  for (const field of TRACKING_FIELDS) {
    if (fields[field] === undefined) delete out[field];
    else out[field] = fields[field];
  }
  return out;
}

/** The op that stores the engine's current state of a note. */
export function noteOp(engine: Engine, id: string): StorageOp {
  const note = engine.note(id);
  if (note === undefined) return { op: "delete", key: NOTE_PREFIX + id };
  return { op: "put", key: NOTE_PREFIX + id, value: encodeRecord({ kind: "note", data: { ...note } }) };
}

/** Graph records: every entity and edge, or those a change touched. */
export type GraphState = GraphRecordsJs;

/** The engine's graph, as stored. */
export function graphState(engine: Engine): GraphState {
  return { entities: engine.entities(), edges: engine.edges() };
}

/** The ops that turn the stored graph `before` into `after`. */
export function graphOps(before: GraphState, after: GraphState): StorageOp[] {
  const ops: StorageOp[] = [];
  const diff = (prefix: string, kind: RecordKind, old: Map<string, string>, now: Map<string, Record<string, unknown>>): void => {
    for (const [key, data] of now) {
      if (old.get(key) !== JSON.stringify(data)) ops.push({ op: "put", key: prefix + key, value: encodeRecord({ kind, data }) });
    }
    for (const key of old.keys()) if (!now.has(key)) ops.push({ op: "delete", key: prefix + key });
  };
  const json = <T>(items: T[], key: (t: T) => string): Map<string, string> =>
    new Map(items.map((t) => [key(t), JSON.stringify(t)]));
  const objects = <T>(items: T[], key: (t: T) => string): Map<string, Record<string, unknown>> =>
    new Map(items.map((t) => [key(t), { ...t } as Record<string, unknown>]));
  diff(ENTITY_PREFIX, "entity", json(before.entities, (e) => e.name), objects(after.entities, (e) => e.name));
  diff(EDGE_PREFIX, "edge", json(before.edges, (e) => e.id), objects(after.edges, (e) => e.id));
  return ops;
}

/**
 * The whole graph as it was before a change that turned the records `before` into `after`
 * (those it touched, {@link Engine.graphChanges}): `now` less `after`, plus `before`.
 */
export function graphBefore(now: GraphState, before: GraphState, after: GraphState): GraphState {
  const names = new Set(after.entities.map((e) => e.name));
  const ids = new Set(after.edges.map((e) => e.id));
  return {
    entities: [...now.entities.filter((e) => !names.has(e.name)), ...before.entities],
    edges: [...now.edges.filter((e) => !ids.has(e.id)), ...before.edges],
  };
}

/**
 * Makes the engine's graph exactly `state`. Records that no longer fit (two tabs gave the
 * same alias to different entities at once) are skipped; the first one wins.
 */
export function setGraph(engine: Engine, state: GraphState): void {
  for (const entity of engine.entities()) engine.removeEntity(entity.name);
  for (const entity of state.entities) {
    try {
      engine.addEntity(entity);
    } catch {
      // See above.
    }
  }
  for (const edge of state.edges) {
    try {
      engine.upsertEdge(edge);
    } catch {
      // See above.
    }
  }
}

/**
 * Re-reads the entity and edge keys among `keys` (`e/`, `g/`) and makes the engine's graph
 * agree with what storage holds for them, touching only those records, without writing:
 * entities first (a stored entity replaces the engine's without merging and keeps its edges),
 * then edges, then the removed entities (a removal deletes their edges in the same batch).
 * When a record does not fit the engine's graph (two tabs gave one alias to different
 * entities at once), the whole graph is read again ({@link setGraph}).
 */
export async function reloadGraph(adapter: StorageAdapter, engine: Engine, keys: readonly string[]): Promise<void> {
  // Entities before edges: one read of both keeps that order.
  const graphKeys = [...keys.filter((k) => k.startsWith(ENTITY_PREFIX)), ...keys.filter((k) => k.startsWith(EDGE_PREFIX))];
  if (graphKeys.length === 0) return;
  const stored: Array<[string, Uint8Array | undefined]> = [];
  for await (const [chunk, values] of readChunks(adapter, graphKeys)) chunk.forEach((key, i) => stored.push([key, values[i]]));
  try {
    const removed: string[] = [];
    for (const [key, bytes] of stored) {
      if (key.startsWith(ENTITY_PREFIX)) {
        if (bytes === undefined) removed.push(key.slice(ENTITY_PREFIX.length));
        else engine.putEntity(asRecord("entity", decodeAt(key, bytes, "entity").data));
      } else if (bytes === undefined) {
        engine.removeEdge(key.slice(EDGE_PREFIX.length));
      } else {
        engine.upsertEdge(asRecord("edge", decodeAt(key, bytes, "edge").data));
      }
    }
    for (const name of removed) engine.dropEntity(name);
  } catch {
    setGraph(engine, await readGraph(adapter));
  }
}

/** `keys` in chunks of {@link REREAD_CONCURRENCY}, each with the values storage holds for it. */
async function* readChunks(
  adapter: StorageAdapter, keys: readonly string[],
): AsyncGenerator<[readonly string[], (Uint8Array | undefined)[]]> {
  for (let at = 0; at < keys.length; at += REREAD_CONCURRENCY) {
    const chunk = keys.slice(at, at + REREAD_CONCURRENCY);
    yield [chunk, await readStore(() => Promise.all(chunk.map((k) => adapter.get(k))))];
  }
}

/** Every entity and edge record in storage. */
export async function readGraph(adapter: StorageAdapter): Promise<GraphState> {
  const [entities, edges] = await readStore(() => Promise.all([adapter.entries(ENTITY_PREFIX), adapter.entries(EDGE_PREFIX)]));
  return {
    entities: entities.map(([k, v]) => asRecord("entity", decodeAt(k, v, "entity").data)),
    edges: edges.map(([k, v]) => asRecord("edge", decodeAt(k, v, "edge").data)),
  };
}

/** Makes the engine's memory `id` what `stored` says (absent: removed); no write. */
function applyMemory(engine: Engine, order: InsertionOrder, id: string, stored: StoredRecord | undefined): void {
  const exists = engine.get(id) !== undefined;
  if (stored === undefined) {
    if (exists) engine.remove(id);
    order.delete(id);
    return;
  }
  const { record, order: rank } = splitMemory(stored.data);
  if (record.id !== id) throw new RecallError("corrupt", `record "m/${id}" holds memory id ${JSON.stringify(record.id)}`);
  if (exists) engine.replace(record, stored.embedding, stored.embedding === undefined);
  else engine.insert(record, stored.embedding);
  order.set(id, rank ?? order.get(id));
}

/** Makes the engine's note `id` what `stored` says (absent: removed); no write. */
function applyNote(engine: Engine, id: string, stored: StoredRecord | undefined): void {
  const exists = engine.note(id) !== undefined;
  if (stored === undefined) {
    if (exists) engine.removeNote(id);
    return;
  }
  const note = asRecord("note", stored.data);
  if (exists) engine.replaceNote(note);
  else engine.addNote(note);
}

/**
 * Re-reads memory and note keys and applies what storage holds to the engine. A record that
 * cannot be applied throws when `strict` (while opening); otherwise the others are applied and
 * the answer is `false`: the engine no longer agrees with storage.
 */
export async function reload(
  adapter: StorageAdapter, engine: Engine, order: InsertionOrder, keys: readonly string[], strict = false,
): Promise<boolean> {
  let synced = true;
  // A memory is read with its recall tracking (`r/<id>`), and a changed tracking re-reads its memory.
  const wanted = new Set<string>();
  for (const key of keys) {
    const id = key.startsWith(TRACKING_PREFIX) ? key.slice(TRACKING_PREFIX.length)
      : key.startsWith(MEMORY_PREFIX) ? key.slice(MEMORY_PREFIX.length) : undefined;
    if (id === undefined) wanted.add(key);
    else wanted.add(MEMORY_PREFIX + id).add(TRACKING_PREFIX + id);
  }
  const read = [...wanted];
  const values = new Map<string, Uint8Array | undefined>();
  for await (const [chunk, got] of readChunks(adapter, read)) chunk.forEach((key, i) => values.set(key, got[i]));
  for (const key of read) {
    if (key.startsWith(TRACKING_PREFIX)) continue;
    const bytes = values.get(key);
    try {
      if (key.startsWith(MEMORY_PREFIX)) {
        const id = key.slice(MEMORY_PREFIX.length);
        const stored = bytes && decodeAt(key, bytes, "memory");
        if (stored !== undefined) stored.data = withTracking(stored.data, values.get(TRACKING_PREFIX + id), TRACKING_PREFIX + id);
        applyMemory(engine, order, id, stored);
      } else {
        applyNote(engine, key.slice(NOTE_PREFIX.length), bytes && decodeAt(key, bytes, "note"));
      }
    } catch (e) {
      if (strict) throw located(e, `record ${JSON.stringify(key)}`);
      synced = false;
    }
  }
  return synced;
}
