/**
 * Opening a store (DESIGN.md "Open"): {@link lockStore} takes the browser's shared Web Lock, and
 * {@link loadStore} reads the store into a new engine:
 * 1. subscribe to other tabs' writes first (`remote.ts`), so none falls between reading and
 *    listening;
 * 2. read `meta/`: the configuration (its dimension must agree with the `dimensions` option,
 *    which fixes it when the store has none), each writer's last batch, the journal;
 * 3. build the engine, then load the snapshot when its frame checks and the journal covers every
 *    batch after it (`planReplay`), re-reading the records those batches changed; otherwise
 *    rebuild from every record: memories in insertion order, `insertMany` in batches of
 *    {@link LOAD_BATCH} with their embeddings, notes, entities, edges. Both give the same engine;
 * 4. hand over to the write queue (its claims, journal and prune list), the snapshot policy and
 *    other tabs.
 * A record that does not decode or that the engine refuses fails the open with `corrupt`, naming
 * its key; a snapshot or journal entry that fails its checks is not used and is reported as
 * damage (`storageInfo().damage`).
 * @module
 */
import type { Engine } from "./engine.js";
import { holdLock, webLocks } from "./locks.js";
import { RecallError, fromEngineError, itemError } from "./errors.js";
import {
  InsertionOrder, asRecord, decodeAt, flatten, readGraph, readStore, reload, reloadGraph, setGraph, splitMemory, withTracking,
} from "./records.js";
import type { OtherTabs } from "./remote.js";
import type { EngineSlot } from "./slot.js";
import type { SnapshotPolicy } from "./snapshots.js";
import type { StorageAdapter } from "./storage/adapter.js";
import { inspectImage } from "./storage/image.js";
import {
  CONFIG_KEY, JOURNAL_PREFIX, MEMORY_PREFIX, META_PREFIX, NOTE_PREFIX, SEQ_PREFIX, TRACKING_PREFIX,
  SNAPSHOT_PREFIX, decodeConfig, decodeJournal, decodeSeq, isClosedSeq, parseJournalKey, planReplay,
} from "./storage/layout.js";
import type { JournalEntry, StoreConfig } from "./storage/layout.js";
import type { WriteQueue } from "./writes.js";

/** Memories per `insertMany` while loading records. */
export const LOAD_BATCH = 4096;

/** The parts of a store an open fills in. */
export interface LoadParts {
  slot: EngineSlot;
  adapter: StorageAdapter;
  order: InsertionOrder;
  writes: WriteQueue;
  snapshots: SnapshotPolicy;
  remote: OtherTabs;
}

/** What an open did, for `storageInfo()`. */
export interface Loaded {
  openedFrom: "snapshot" | "records";
  /** Damage this open found and worked around (a snapshot that fails its checks). */
  damage: string[];
}

/**
 * Holds a shared Web Lock named after the store while open, and tells whether this is the
 * only handle of the store in the browser (then stale write-sequence keys may be deleted).
 * `sole` answers `false` where Web Locks do not exist; `release` lets the lock go.
 */
export async function lockStore(name: string): Promise<{ sole: () => Promise<boolean>; release: () => void }> {
  const locks = webLocks();
  if (typeof locks?.query !== "function") return { sole: async () => false, release: () => undefined };
  const lockName = `recallkit:${name}`;
  const { release } = await holdLock(lockName, "shared");
  return {
    sole: async () => {
      const { held } = await locks.query();
      return (held ?? []).filter((l) => l.name === lockName).length === 1;
    },
    release,
  };
}

/**
 * Reads the configuration and the records (or the snapshot) into a new engine (see the module
 * docs). `sole` tells whether this handle is the store's only one (then the writers it loaded
 * are pruned with its first batch).
 */
export async function loadStore(
  parts: LoadParts, dimensions: number | undefined, sole: boolean | (() => Promise<boolean>),
): Promise<Loaded> {
  const { slot, adapter, writes, snapshots, remote } = parts;
  const damage: string[] = [];
  remote.subscribe();
  let stored: StoreConfig | undefined;
  const seqs = new Map<string, number>();
  const journal = new Map<string, Map<number, JournalEntry>>();
  for (const [key, value] of await readStore(() => adapter.entries(META_PREFIX))) {
    if (key === CONFIG_KEY) {
      stored = decodeConfig(value);
    } else if (key.startsWith(SEQ_PREFIX)) {
      seqs.set(key.slice(SEQ_PREFIX.length), decodeSeq(value, key));
      if (isClosedSeq(value)) writes.closedWriters.set(key.slice(SEQ_PREFIX.length), seqs.get(key.slice(SEQ_PREFIX.length))!);
    } else if (key.startsWith(JOURNAL_PREFIX)) {
      // Everything loaded below reflects these batches; the next snapshot may delete them.
      writes.journalKeys.add(key);
      const at = parseJournalKey(key);
      const entry = decodeJournal(value);
      if (at !== undefined && entry === undefined) damage.push(`${key} does not decode; the snapshot was not used`);
      if (at === undefined || entry === undefined) continue; // a gap: the snapshot will not be used
      if (!journal.has(at.writer)) journal.set(at.writer, new Map());
      journal.get(at.writer)!.set(at.n, entry);
    }
  }
  for (const [writer, n] of seqs) writes.claims.set(writer, n);
  if (stored !== undefined) {
    if (dimensions !== undefined && stored.dimensions !== undefined && dimensions !== stored.dimensions) {
      throw new RecallError("dimension_mismatch", `the store holds ${stored.dimensions}-dimensional embeddings; dimensions is ${dimensions}`);
    }
    slot.config = stored;
    if (stored.dimensions === undefined && dimensions !== undefined) {
      slot.config = { ...stored, dimensions };
      slot.configDirty = true;
    }
  } else {
    if (dimensions !== undefined) slot.config = { ...slot.config, dimensions };
    slot.configDirty = true;
  }
  slot.engine = slot.build();
  let fromSnapshot = false;
  if (snapshots.enabled) {
    // The chunks in key order, read in place (never joined: that copy cost a tenth of an open).
    const chunks = (await readStore(() => adapter.entries(SNAPSHOT_PREFIX))).map(([, bytes]) => bytes);
    const replayed = chunks.length === 0 ? undefined : await loadImage(parts, chunks, seqs, journal, damage);
    fromSnapshot = replayed !== undefined;
    snapshots.loaded(fromSnapshot, replayed ?? 0);
  }
  const orphans = fromSnapshot ? [] : await loadRecords(adapter, slot.engine!, parts.order);
  const engine = slot.engine!;
  if (typeof sole === "function" ? await sole().catch(() => false) : sole) writes.prune = new Map(seqs);
  remote.loaded();
  // After the open's own work, in the queue: the open does not wait for it, and a failure is harmless.
  if (orphans.length > 0) writes.enqueue(() => writes.removeOrphans(orphans)).catch(() => undefined);
  await snapshots.opened(fromSnapshot, engine);
  return { openedFrom: fromSnapshot ? "snapshot" : "records", damage };
}

/**
 * Loads the snapshot and re-reads the records changed after it, when the journal covers
 * every later batch (`planReplay`). Returns how many records were re-read, or `undefined`
 * (an empty engine) when the snapshot cannot be used.
 */
async function loadImage(
  parts: LoadParts, bytes: readonly Uint8Array[], seqs: Map<string, number>, journal: Map<string, Map<number, JournalEntry>>,
  damage: string[],
): Promise<number | undefined> {
  const { slot, adapter, order } = parts;
  const opened = inspectImage(bytes);
  if ("damaged" in opened) damage.push(`snapshot: ${opened.damaged}; the store was loaded from its records`);
  if (!("image" in opened)) return undefined;
  const image = opened.image;
  const replay = planReplay(new Map(Object.entries(image.header.claims)), seqs, journal);
  // Re-reading one record at a time only pays while few changed since the snapshot.
  if (replay === undefined || replay.length > 1000 + image.header.memories / 4) return undefined;
  let engine: Engine;
  try {
    engine = slot.fromImage(image.engine);
    if (engine.size !== image.header.memories) {
      engine.free();
      throw new RecallError("corrupt", "snapshot: memory count disagrees");
    }
  } catch (e) {
    // Its checksums held, so this is a bug or damage they missed: report it, rebuild from the records.
    const why = fromEngineError(e).message.replace(/^[a-z_]+: (snapshot: |image: )?/, "");
    damage.push(`snapshot: ${why}; the store was loaded from its records`);
    return undefined;
  }
  slot.engine!.free();
  slot.engine = engine;
  const ranks = image.header.ranks;
  engine.ids().forEach((id, i) => {
    const rank = ranks[i];
    if (rank !== null && rank !== undefined) order.set(id, rank);
  });
  const records = replay.filter((k) => k.startsWith(MEMORY_PREFIX) || k.startsWith(TRACKING_PREFIX) || k.startsWith(NOTE_PREFIX));
  await reload(adapter, engine, order, records, true);
  await reloadGraph(adapter, engine, replay);
  return replay.length;
}


/**
 * Fills an empty engine from every record: memories in insertion order, notes, then the graph
 * (the open, and the re-read after drift in `remote.ts`). Returns the ids of orphan recall
 * tracking (`r/<id>` without `m/<id>`), for the write queue to delete. A record that does not
 * decode or that the engine refuses throws `corrupt`, naming its key.
 */
export async function loadRecords(adapter: StorageAdapter, engine: Engine, order: InsertionOrder): Promise<string[]> {
  const entries: Array<[string, Uint8Array] | undefined> = await readStore(() => adapter.entries(MEMORY_PREFIX));
  // Recall tracking is stored apart (`r/<id>`, storage/layout.ts); one without its memory is
  // ignored, and deleted after the open.
  const tracking = new Map(await readStore(() => adapter.entries(TRACKING_PREFIX)));
  const rows = entries.map((entry, i) => {
    const [key, bytes] = entry!;
    entries[i] = undefined; // let the bytes go as soon as they are decoded
    const stored = decodeAt(key, bytes, "memory");
    const trackingKey = TRACKING_PREFIX + key.slice(MEMORY_PREFIX.length);
    const trackingBytes = tracking.get(trackingKey);
    tracking.delete(trackingKey);
    const { record, order: rank } = splitMemory(withTracking(stored.data, trackingBytes, trackingKey));
    if (typeof record.id !== "string" || MEMORY_PREFIX + record.id !== key) {
      throw new RecallError("corrupt", `record ${JSON.stringify(key)} holds memory id ${JSON.stringify(record.id)}`);
    }
    return { key, record, order: rank ?? Number.MAX_SAFE_INTEGER, embedding: stored.embedding };
  });
  rows.sort((a, b) => a.order - b.order || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (let at = 0; at < rows.length; at += LOAD_BATCH) {
    const batch = rows.slice(at, at + LOAD_BATCH);
    const { flat, has } = flatten(batch.map((r) => r.embedding));
    try {
      engine.insertMany(batch.map((r) => r.record), flat, has);
    } catch (e) {
      throw itemError(e, (i) => `record ${JSON.stringify(batch[i]?.key)}`, "corrupt");
    }
    for (const r of batch) order.set(r.record.id, r.order === Number.MAX_SAFE_INTEGER ? undefined : r.order);
  }
  for (const [key, bytes] of await readStore(() => adapter.entries(NOTE_PREFIX))) {
    const note = asRecord("note", decodeAt(key, bytes, "note").data);
    try {
      engine.addNote(note);
    } catch (e) {
      throw new RecallError("corrupt", `record ${JSON.stringify(key)}: ${fromEngineError(e).message}`, { cause: e });
    }
  }
  setGraph(engine, await readGraph(adapter));
  return [...tracking.keys()].map((key) => key.slice(TRACKING_PREFIX.length));
}
