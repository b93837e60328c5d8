/**
 * {@link SnapshotPolicy}: when the store writes its snapshot (all records in one image, for fast
 * opens; DESIGN.md "Snapshot policy") and how: every `snapshotEvery` write batches, 2 s after an
 * open that rebuilt a large store, and on `close()` when none is usable or the journal after it
 * has grown; never for a memory store, and a store too large for one keeps no journal either.
 *
 * Fields: whether snapshots are on and how often; the batches since the last snapshot; whether
 * a usable snapshot is in storage; the record keys in the journal after it (as far as this handle
 * knows); whether one is queued. The claims and journal keys a snapshot reflects are the write
 * queue's (`writes.ts`); the image format is `storage/image.ts`'s, its framing and chunking
 * `storage/snapshot.ts`'s and `storage/layout.ts`'s.
 * @module
 */
import type { Engine } from "./engine.js";
import { storageError } from "./errors.js";
import { InsertionOrder, graphState, readStore } from "./records.js";
import type { EngineSlot } from "./slot.js";
import type { StorageAdapter, StorageOp } from "./storage/adapter.js";
import { encodeImage } from "./storage/image.js";
import { SNAPSHOT_PREFIX, TRACKING_PREFIX, seqKey, snapshotChunks, snapshotKey } from "./storage/layout.js";
import type { WriteQueue } from "./writes.js";

/** Write batches between automatic snapshots, unless `snapshotEvery` says otherwise. */
export const DEFAULT_SNAPSHOT_EVERY = 1000;
/** An open that rebuilt at least this many memories from records writes a snapshot soon after. */
export const SNAPSHOT_AFTER_REBUILD = 1000;
/**
 * `close()` rewrites a usable snapshot only once the journal after it holds this many batches
 * (or many records): the next open re-reads a few records instead, and a short session does
 * not pay for writing the whole store.
 */
export const CLOSE_SNAPSHOT_BATCHES = 100;
/** Largest snapshot written (1 GiB); a larger store opens from its records. */
export const MAX_SNAPSHOT_BYTES = 1 << 30;
/** Delay before the snapshot an open that rebuilt a large store writes (the app starts first). */
const SNAPSHOT_AFTER_REBUILD_DELAY_MS = 2000;

/** The snapshot policy of one store handle (see the module docs). */
export class SnapshotPolicy {
  /** Snapshots are on (the `snapshots` option; never for a memory store). */
  readonly enabled: boolean;
  /** Write batches between automatic snapshots (0: none). */
  readonly #every: number;
  #writesSinceSnapshot = 0;
  /** A snapshot usable with the journal is in storage (loaded at open, or written since). */
  #hasSnapshot = false;
  /** Record keys in the journal after that snapshot, as far as this handle knows. */
  #journalRecords = 0;
  #queued = false;
  readonly #slot: EngineSlot;
  readonly #adapter: StorageAdapter;
  readonly #writes: WriteQueue;
  readonly #order: InsertionOrder;

  constructor(
    slot: EngineSlot, adapter: StorageAdapter, writes: WriteQueue, order: InsertionOrder, enabled: boolean, every: number,
  ) {
    this.#slot = slot;
    this.#adapter = adapter;
    this.#writes = writes;
    this.#order = order;
    this.enabled = enabled;
    this.#every = every;
    writes.onCommit((records) => this.#committed(records));
  }

  /** What the open found: whether it used a snapshot, and how many records it re-read after it. */
  loaded(fromSnapshot: boolean, replayed: number): void {
    this.#hasSnapshot = fromSnapshot;
    this.#journalRecords = replayed;
  }

  /**
   * After an open: snapshots turned off delete the old one and its journal, which would only take
   * space; an open that rebuilt a large store writes one soon, once the app has started.
   */
  async opened(fromSnapshot: boolean, engine: Engine): Promise<void> {
    // A reader (readOnly) leaves the writer's snapshot alone.
    if (!this.enabled && this.#writes.writable) {
      const journal = this.#writes.journalKeys.size;
      if (journal + (await readStore(() => this.#adapter.keys(SNAPSHOT_PREFIX))).length > 0) {
        this.#writes.enqueue(() => this.drop()).catch(() => undefined);
      }
    }
    if (this.enabled && !fromSnapshot && engine.size >= SNAPSHOT_AFTER_REBUILD) {
      const timer = setTimeout(() => { if (this.#slot.open) this.schedule(); }, SNAPSHOT_AFTER_REBUILD_DELAY_MS);
      (timer as { unref?: () => void }).unref?.();
    }
  }

  /** Another tab's batch touched `records` record keys, which the journal now holds. */
  remoteApplied(records: number): void {
    this.#journalRecords += records;
  }

  /** A batch of `records` record ops is durable. */
  #committed(records: number): void {
    this.#journalRecords += records;
    this.#writesSinceSnapshot++;
    if (this.#every > 0 && this.#writesSinceSnapshot >= this.#every) this.schedule();
  }

  /** Queues a snapshot, unless one is queued already. */
  schedule(): void {
    if (!this.enabled || !this.#writes.writable || this.#queued) return;
    this.#queued = true;
    this.#writes.enqueue(() => this.write(true)).catch(() => undefined);
  }

  /**
   * Writes the snapshot of the engine's state (queued work only: no write is half done), when
   * `force`d or due. The engine writes its image in one synchronous call (in pieces, so the
   * wasm heap does not grow by the image's size); tracking is flushed (a journaled batch)
   * before the snapshot, which claims the batches before the build and deletes their journal
   * entries.
   */
  async write(force: boolean): Promise<void> {
    this.#queued = false;
    const slot = this.#slot;
    const writes = this.#writes;
    const engine = slot.engine;
    if (!this.enabled || !this.#writes.writable || slot.unsynced || engine === undefined) return;
    await writes.flushTracking();
    const changed = writes.journalKeys.size > 0 || !this.#hasSnapshot;
    const empty = engine.size === 0 && engine.notes().length === 0 && engine.entities().length === 0;
    const due = this.#hasSnapshot
      ? writes.journalKeys.size >= CLOSE_SNAPSHOT_BATCHES || this.#journalRecords >= 1000 + engine.size / 8
      : !empty || writes.journalKeys.size > 0;
    if (!changed || !(force || due)) return;
    const estimate = engine.size * (4 * (engine.dimensions ?? 0) + 512);
    if (estimate > MAX_SNAPSHOT_BYTES) return this.drop();
    // Compaction drops orphan recall tracking too (`r/<id>` of a memory the engine does not
    // hold; one another handle stored since keeps its tracking: `orphanOps`).
    // The memories' ids, read once (about 5 ms at 10,000): this job is queued work, so the
    // engine's memories do not change before the image below is written.
    const ids = engine.ids();
    const held = new Set(ids);
    const orphans = (await readStore(() => this.#adapter.keys(TRACKING_PREFIX)))
      .map((key) => key.slice(TRACKING_PREFIX.length)).filter((id) => !held.has(id));
    await writes.removeOrphans(orphans);
    // Closed writers whose every batch this snapshot reflects: their `meta/seq` keys go with it,
    // and it does not claim them (storage/layout.ts, "Pruning").
    const gone = [...writes.closedWriters].filter(([writer, n]) => (writes.claims.get(writer) ?? 0) >= n).map(([writer]) => writer);
    const claims = Object.fromEntries([...writes.claims].filter(([writer]) => !gone.includes(writer)));
    const reflected = [...writes.journalKeys];
    const batches = writes.writeCount;
    const bytes = this.#image(engine, ids, claims);
    if (slot.engine !== engine) return;
    if (bytes.length > MAX_SNAPSHOT_BYTES) return this.drop();
    await writes.flushTracking();
    const chunks = snapshotChunks(bytes);
    const keys = chunks.map((_, i) => snapshotKey(i));
    // Chunks of an earlier, longer snapshot go in the same batch.
    const stale = (await readStore(() => this.#adapter.keys(SNAPSHOT_PREFIX))).filter((k) => !keys.includes(k));
    // A batch of this handle after the build (none is expected) keeps its key.
    const pruned = writes.writeCount === batches ? gone : gone.filter((writer) => writer !== writes.writer);
    try {
      await this.#adapter.write([
        ...chunks.map((value, i): StorageOp => ({ op: "put", key: keys[i]!, value })),
        ...[...stale, ...reflected, ...pruned.map(seqKey)].map((key): StorageOp => ({ op: "delete", key })),
      ]);
    } catch (e) {
      throw storageError(e, "cannot write the snapshot");
    }
    for (const key of reflected) writes.journalKeys.delete(key);
    for (const writer of pruned) {
      writes.claims.delete(writer);
      writes.closedWriters.delete(writer);
    }
    this.#hasSnapshot = true;
    this.#journalRecords = writes.writeCount === batches ? 0 : this.#journalRecords;
    this.#writesSinceSnapshot = 0;
  }

  /**
   * A store too large for a snapshot keeps no journal either: deletes any snapshot and the
   * journal entries this engine reflects, so they do not pile up. Queued work only.
   */
  async drop(): Promise<void> {
    const writes = this.#writes;
    const stale = await readStore(() => this.#adapter.keys(SNAPSHOT_PREFIX));
    const reflected = [...writes.journalKeys];
    if (stale.length + reflected.length === 0) return;
    await this.#adapter.write([...stale, ...reflected].map((key): StorageOp => ({ op: "delete", key })));
    for (const key of reflected) writes.journalKeys.delete(key);
    this.#hasSnapshot = false;
    this.#writesSinceSnapshot = 0;
  }

  /** The engine's image as a snapshot, with each memory's insertion rank (`ids`: its memories' ids). */
  #image(engine: Engine, ids: readonly string[], claims: Record<string, number>): Uint8Array {
    const { entities, edges } = graphState(engine);
    const header = {
      claims, memories: ids.length, notes: engine.notes().length, entities: entities.length, edges: edges.length,
      ranks: ids.map((id) => this.#order.get(id) ?? null),
    };
    return encodeImage(header, engine.image());
  }
}
