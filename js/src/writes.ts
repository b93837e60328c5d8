/**
 * {@link WriteQueue}: one rule for every write of a store. Writes (and other work that must not
 * interleave with them: another tab's changes, snapshots, closing) run one at a time, in call
 * order. A write validates and changes the engine, then its storage ops go to the adapter in one
 * atomic, durable batch; if either step fails, the write changes nothing, in memory or on disk:
 * the engine undoes its records, and the dimension a first vector fixed goes back too.
 *
 * Fields, and who else touches them:
 * - the queue's tail, and this handle's writer id and batch count (`meta/seq/<writer>`);
 * - `claims` (each writer's last batch this engine reflects) and `journalKeys` (the journal
 *   entries it reflects): filled by the open (`load.ts`) and by other tabs' batches
 *   (`remote.ts`), read and trimmed by the snapshot (`snapshots.ts`);
 * - `prune` (writers whose `meta/seq` keys the first batch deletes, when this handle is alone):
 *   set by the open;
 * - the memories whose recall tracking is not yet durable (`track`, flushed in a batch of its own);
 *   orphan tracking found by the open or a snapshot is deleted in a batch of its own too.
 * The batch layout (`meta/seq`, the journal entry, `meta/config`) is `storage/layout.ts`'s.
 * @module
 */
import type { Engine } from "./engine.js";
import { RecallError, storageError } from "./errors.js";
import type { Health } from "./health.js";
import { InsertionOrder, orphanOps, reload, trackingOp } from "./records.js";
import type { EngineSlot } from "./slot.js";
import type { StorageAdapter, StorageOp } from "./storage/adapter.js";
import {
  CONFIG_KEY, EDGE_PREFIX, ENTITY_PREFIX, MEMORY_PREFIX, NOTE_PREFIX, TRACKING_PREFIX, encodeConfig, encodeJournal, encodeSeq,
  journalKey,
  newWriterId, seqKey,
} from "./storage/layout.js";

/** Record prefixes: the keys a batch's journal entry lists. */
const RECORD_PREFIXES = [MEMORY_PREFIX, TRACKING_PREFIX, NOTE_PREFIX, ENTITY_PREFIX, EDGE_PREFIX];

/**
 * Resolves in a later task: after every microtask queued before it, a caller's `await`
 * included. `setImmediate` where it exists (Node, Bun), else a message to a channel of its own
 * (browsers, workers, Deno), closed once it arrives; `setTimeout(0)` is the last resort, since
 * browsers clamp a timer set from a timer's callback to 4 ms (Chromium 156: 4.1 ms against
 * under 0.1 ms for the message).
 */
function nextTask(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => {
    if (typeof immediate === "function") {
      immediate(resolve);
    } else if (typeof MessageChannel === "function") {
      const { port1, port2 } = new MessageChannel();
      port1.onmessage = () => {
        port1.close();
        resolve();
      };
      port2.postMessage(null);
    } else {
      setTimeout(resolve, 0);
    }
  });
}

/** What one queued write did: its result, its storage ops, how to undo it, what to do once durable. */
export interface Step<T> {
  result: T;
  ops: () => StorageOp[];
  undo?: () => void;
  after?: () => void;
}

/** The write queue of one store handle (see the module docs). */
export class WriteQueue {
  /** The last queued job: the next one runs after it. */
  #tail: Promise<unknown> = Promise.resolve();
  /** This handle's writer id: its `meta/seq/<writer>` key and journal entries. */
  readonly #writer = newWriterId();
  /** Batches this handle has written (its `meta/seq` number). */
  #writeCount = 0;
  /** For each writer, the last batch this engine reflects (see `storage/layout.ts`). */
  readonly claims = new Map<string, number>();
  /** Journal entries this engine reflects: the next snapshot deletes them. */
  readonly journalKeys = new Set<string>();
  /** Writers to prune with the first batch (writer → last batch), when this handle is alone. */
  prune = new Map<string, number>();
  /**
   * Writers known to have closed, with their last batch (their `meta/seq` key says
   * `closed: true`; this handle once it closes): a snapshot reflecting that batch deletes the key.
   */
  readonly closedWriters = new Map<string, number>();
  /** Memories recalled since the last flush, whose new tracking is not durable yet. */
  readonly #trackingDirty = new Set<string>();
  /** A {@link flushTracking} is queued and has not started ({@link scheduleTracking}). */
  #trackingQueued = false;
  /** Told the number of record ops of every batch once it is durable (the snapshot policy). */
  #committed: (records: number) => void = () => undefined;
  readonly #slot: EngineSlot;
  readonly #adapter: StorageAdapter;
  readonly #order: InsertionOrder;
  /**
   * `storage: "memory"`: nothing outlives the store and nothing reads its records back, so
   * the engine holds the only copy and writes skip the adapter (a second, encoded copy of
   * every memory in JS memory would only cost space and time).
   */
  readonly #ephemeral: boolean;
  /** Opened with `readOnly: true`: {@link write} refuses every write. */
  readonly #readOnly: boolean;
  /** Batches carry a journal entry (snapshots are on). */
  readonly #journaled: boolean;

  /** The store's tier: a refused write makes it `readonly`, the next one taken ends that. */
  readonly #health: Health;

  constructor(
    slot: EngineSlot, adapter: StorageAdapter, order: InsertionOrder, ephemeral: boolean, journaled: boolean, health: Health,
    readOnly = false,
  ) {
    this.#readOnly = readOnly;
    this.#health = health;
    this.#slot = slot;
    this.#adapter = adapter;
    this.#order = order;
    this.#ephemeral = ephemeral;
    this.#journaled = journaled;
  }

  /** Calls `committed` with the number of record ops of each batch, once it is durable. */
  onCommit(committed: (records: number) => void): void {
    this.#committed = committed;
  }

  /** This handle's writer id (`meta/seq/<writer>`). */
  get writer(): string {
    return this.#writer;
  }

  /** Batches this handle has written. */
  get writeCount(): number {
    return this.#writeCount;
  }

  /** Runs `job` after every earlier queued job of this store. */
  enqueue<T>(job: () => Promise<T> | T): Promise<T> {
    const run = this.#tail.then(job);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Whether this store takes writes (it was not opened with `readOnly: true`). */
  get writable(): boolean {
    return !this.#readOnly;
  }

  /** Throws `invalid_argument` when the store was opened with `readOnly: true`. */
  checkWritable(): void {
    if (this.#readOnly) throw new RecallError("invalid_argument", "the store was opened with readOnly: true; it refuses writes");
  }

  /**
   * Queues a write: `apply` validates and changes the engine (throwing leaves it unchanged)
   * and describes the change; its ops are committed in one batch; a failed commit undoes it.
   */
  write<T>(apply: (engine: Engine) => Promise<Step<T>> | Step<T>): Promise<T> {
    try {
      this.checkWritable();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.enqueue(async () => {
      // One rule for every write: a rejected one changes nothing, in memory or on disk. The
      // engine undoes its records; the dimension a first vector fixed goes back too.
      let step: Step<T>;
      try {
        step = await apply(this.#slot.forQueuedWork());
      } catch (e) {
        this.#slot.restoreDimensions();
        throw e;
      }
      try {
        const ops = this.#ephemeral ? [] : step.ops();
        if (ops.length > 0) await this.commit(ops);
      } catch (e) {
        step.undo?.();
        this.#slot.restoreDimensions();
        throw e;
      }
      step.after?.();
      return step.result;
    });
  }

  /**
   * Writes `ops` with the batch's write-sequence key (and the configuration when it changed)
   * in one atomic, durable adapter write. Queued work only.
   */
  async commit(ops: StorageOp[]): Promise<void> {
    const slot = this.#slot;
    const engine = slot.forQueuedWork();
    const dims = engine.dimensions;
    const config = dims !== undefined && dims !== slot.config.dimensions ? { ...slot.config, dimensions: dims } : slot.config;
    const batch = [...ops];
    if (config !== slot.config || slot.configDirty) batch.push({ op: "put", key: CONFIG_KEY, value: encodeConfig(config) });
    const n = ++this.#writeCount;
    batch.push({ op: "put", key: seqKey(this.#writer), value: encodeSeq(n) });
    for (const writer of this.prune.keys()) batch.push({ op: "delete", key: seqKey(writer) });
    const journaled = this.#journaled ? journalKey(this.#writer, n) : undefined;
    if (journaled !== undefined) {
      const keys = ops.map((op) => op.key).filter((k) => RECORD_PREFIXES.some((p) => k.startsWith(p)));
      batch.push({ op: "put", key: journaled, value: encodeJournal({ keys, pruned: Object.fromEntries(this.prune) }) });
    }
    try {
      await this.#adapter.write(batch);
    } catch (e) {
      const error = storageError(e, "cannot write to the store");
      // Only a storage failure may have committed: otherwise batch n was never stored, and the
      // next one takes its number (a gap in the journal would keep the snapshot from being used).
      if (error.code !== "storage_failed") this.#writeCount--;
      this.#health.writeFailed(error);
      // A storage failure may come after the batch committed (a connection lost before its
      // answer): the caller undoes the change, and the records are read again to tell.
      if (error.code === "storage_failed") slot.markUnsynced();
      throw error;
    }
    this.#health.wrote();
    slot.config = config;
    slot.configDirty = false;
    for (const writer of this.prune.keys()) this.claims.delete(writer);
    this.prune.clear();
    this.claims.set(this.#writer, n);
    if (journaled !== undefined) this.journalKeys.add(journaled);
    this.#committed(ops.length);
  }

  /**
   * This handle is closing: a snapshot written from now on deletes its `meta/seq` key. Queued
   * work only.
   */
  closing(): void {
    if (this.#writeCount > 0 && this.claims.get(this.#writer) === this.#writeCount) this.closedWriters.set(this.#writer, this.#writeCount);
  }

  /**
   * Marks this handle's `meta/seq` key `closed: true` (it writes no more batches), unless the
   * closing snapshot deleted it, so a later snapshot of any handle deletes it
   * (`storage/layout.ts`, "Pruning"). Queued work only, after {@link closing}.
   */
  async markClosed(): Promise<void> {
    if (this.#readOnly || this.#ephemeral || !this.#journaled || !this.closedWriters.has(this.#writer)) return;
    await this.#adapter.write([{ op: "put", key: seqKey(this.#writer), value: encodeSeq(this.#writeCount, true) }]);
  }

  /** Notes that these memories' recall tracking changed; {@link flushTracking} writes it. */
  track(ids: readonly string[]): void {
    for (const id of ids) this.#trackingDirty.add(id);
  }

  /** Memories whose recall tracking is not durable yet ({@link track}). */
  get pendingTracking(): ReadonlySet<string> {
    return this.#trackingDirty;
  }

  /** Forgets a memory's pending tracking (the memory is gone). */
  untrack(id: string): void {
    this.#trackingDirty.delete(id);
  }

  /**
   * Deletes the orphan recall tracking (`r/<id>` stored without its `m/<id>`) of memories `ids`,
   * each only if the memory still does not exist ({@link orphanOps}): a memory stored since by
   * another handle keeps its tracking. Best effort: a failure leaves the orphans, which loading
   * ignores, for the next open or snapshot. Queued work only; nothing for a reader.
   */
  async removeOrphans(ids: readonly string[]): Promise<void> {
    if (this.#readOnly || this.#ephemeral || ids.length === 0) return;
    try {
      await this.commit(ids.flatMap(orphanOps));
    } catch (e) {
      // One memory stored meanwhile fails the whole batch: the others go one by one.
      if ((e as RecallError).code !== "already_exists" || ids.length === 1) return;
      for (const id of ids) await this.commit(orphanOps(id)).catch(() => undefined);
    }
  }

  /**
   * Queues a {@link flushTracking} unless one is queued and has not started: the recalls
   * answered meanwhile (behind a large write, all of them) share one batch. A recall does not
   * wait for it; `close()` does. It starts in a task of its own ({@link nextTask}), so the
   * recall's caller resumes first: started at once, its synchronous part (reading the counts,
   * encoding the batch, the adapter's start of the write) ran in the microtasks between the
   * engine's answer and the caller, and the caller waited for it. Writes queued after it still
   * follow it. When it fails, storage holds the counts before those recalls, the engine is made
   * to agree, and `status()` says why (the health of every failed write).
   */
  scheduleTracking(): void {
    if (this.#trackingQueued) return;
    this.#trackingQueued = true;
    this.enqueue(async () => {
      await nextTask();
      this.#trackingQueued = false;
      return this.flushTracking();
    }).catch(() => undefined);
  }

  /** Persists the recall tracking of memories recalled since the last flush. Queued work only. */
  async flushTracking(): Promise<void> {
    const slot = this.#slot;
    const engine = slot.engine;
    if (engine === undefined || this.#trackingDirty.size === 0) return;
    const ids = [...this.#trackingDirty].filter((id) => engine.get(id) !== undefined);
    this.#trackingDirty.clear();
    if (ids.length === 0) return;
    try {
      // The counts alone (`r/<id>`): this engine's copy of a memory may be older than storage's.
      await this.commit(ids.map((id) => trackingOp(engine, id)));
    } catch (e) {
      // Storage holds the state before these recalls: make the engine agree.
      const keys = ids.map((id) => MEMORY_PREFIX + id);
      await reload(this.#adapter, engine, this.#order, keys).then(
        (synced) => { if (!synced) slot.markUnsynced(); },
        () => { slot.markUnsynced(); },
      );
      throw e;
    }
  }
}
