/**
 * {@link WriteQueue}: one rule for every write of a store. Writes (and other work that must not
 * interleave with them: another tab's changes, snapshots, closing) run one at a time, in call
 * order. A write validates and changes the engine, then its storage ops go to the adapter in an
 * atomic, durable batch; if either step fails, the write changes nothing, in memory or on disk:
 * the engine undoes its records, and the dimension a first vector fixed goes back too.
 *
 * Group commit: the writes waiting at the head of the queue when one is taken (called together,
 * or while the batch before them was being written) share one batch, as a database's group
 * commit does. Each applies on its own, in call order, and one that throws rejects alone; the
 * ops of those that applied are written in one `adapter.write` (one `meta/seq` number, one
 * journal entry); none resolves before that batch is durable. A group ends before queued work
 * that is not a write, before a write still waiting for something its `apply` awaits (its
 * embedding: no write's acknowledgement waits for another's embedder), after a write with an
 * `after` hook (a `forget`: the writes after it must see it done), and at {@link MAX_GROUP_OPS}
 * ops or {@link MAX_GROUP_BYTES} bytes. When its batch
 * fails, every write of the group is undone, the last first, and rejects with the storage's
 * error; when the error may be one write's content (a key another handle created:
 * `already_exists`; a key too long for PostgreSQL: `too_large`; an op the adapter refuses:
 * `invalid_argument`), the writes run again one at a time, each with its own batch, so only
 * that write fails, as it would have alone.
 *
 * Fields, and who else touches them:
 * - the queued jobs, and this handle's writer id and batch count (`meta/seq/<writer>`);
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

/**
 * Ops a group of writes gathers at most before its batch is written (a write larger than that
 * goes in a group of its own; a write without ops counts as one): 1000, the records of an
 * import batch (`DEFAULT_IMPORT_BATCH`), a batch every backend already takes as one write. It
 * bounds the memory a batch holds twice (the writes' records, then their encoded ops) and the
 * wait of a group's first write.
 */
export const MAX_GROUP_OPS = 1000;
/**
 * Bytes (keys and values) a group of writes gathers at most, 4 MiB: the size of the frames a
 * file store's compaction writes (`COMPACT_FRAME_BYTES`), so a group of large memories is one
 * deflate call and one append of that order, not one of the whole queue.
 */
export const MAX_GROUP_BYTES = 4 << 20;

/** Error codes of a failed batch that blame one write's ops, not the storage: the group's writes run again one by one. */
const BLAMES_ONE_WRITE = new Set(["already_exists", "too_large", "invalid_argument"]);

/**
 * What one queued write did: its result, its storage ops, how to undo it, what to do once durable.
 * `ops` is called right after the write applied, before the next write of its group applies, so
 * it describes this write's change alone. The write's `apply` may run a second time: when its
 * group's batch failed because of another write's ops, the group is undone and each write
 * applies again, alone; so an `apply` reads its inputs and does not consume them.
 */
export interface Step<T> {
  result: T;
  ops: () => StorageOp[];
  undo?: () => void;
  /** Runs once the batch is durable; the write ends its group, so the next write sees it done. */
  after?: () => void;
}

/** A queued write: what it applies, whether it may join a group now, and its caller's promise. */
interface WriteJob {
  kind: "write";
  apply: (engine: Engine) => Promise<Step<unknown>> | Step<unknown>;
  ready: () => boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Queued work that is not a write ({@link WriteQueue.enqueue}): it runs alone, between groups. */
interface WorkJob {
  kind: "work";
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * A write of the group being gathered: its job, what it did, its ops (and their bytes), taken
 * when it applied, and the engine's dimension before it applied (what undoing it puts back).
 */
interface Applied {
  job: WriteJob;
  step: Step<unknown>;
  ops: StorageOp[];
  bytes: number;
  dims: number | undefined;
}

/** The bytes of `ops`' keys and values, as {@link MAX_GROUP_BYTES} counts them. */
function opBytes(ops: readonly StorageOp[]): number {
  let bytes = 0;
  for (const op of ops) bytes += op.key.length + (op.op === "delete" ? 0 : op.value.length);
  return bytes;
}

/** The write queue of one store handle (see the module docs). */
export class WriteQueue {
  /** Queued jobs, in call order; those before {@link #head} are taken. */
  #jobs: Array<WriteJob | WorkJob | undefined> = [];
  #head = 0;
  /** A run of {@link #drain} is going: it takes every job queued meanwhile. */
  #draining = false;
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

  /** Runs `job` after every earlier queued job of this store, alone: no group of writes reaches past it. */
  enqueue<T>(job: () => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#push({ kind: "work", run: job, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  #push(job: WriteJob | WorkJob): void {
    this.#jobs.push(job);
    if (this.#draining) return;
    this.#draining = true;
    // On a microtask, as a job chained on a promise would run: the caller's synchronous code
    // (a `Promise.all` of writes, say) finishes queueing first.
    queueMicrotask(() => { void this.#drain(); });
  }

  /** The next job not taken yet. */
  #peek(): WriteJob | WorkJob | undefined {
    return this.#jobs[this.#head];
  }

  /** Takes the next job (the array is emptied when all are taken, so a busy queue does not grow). */
  #take(): void {
    this.#jobs[this.#head++] = undefined;
    if (this.#head === this.#jobs.length) {
      this.#jobs = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#jobs.length) {
      this.#jobs = this.#jobs.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Runs the queued jobs until none is left: work alone, writes in groups. Settles every job; never throws. */
  async #drain(): Promise<void> {
    for (let job = this.#peek(); job !== undefined; job = this.#peek()) {
      if (job.kind === "write") {
        await this.#runGroup();
        continue;
      }
      this.#take();
      try {
        job.resolve(await job.run());
      } catch (e) {
        job.reject(e);
      }
    }
    this.#draining = false;
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
   * and describes the change; its ops are committed in one batch with the writes queued beside
   * it (see the module docs), and it resolves once that batch is durable; a failed commit
   * undoes it. `ready` says whether `apply` would run without waiting (its embedding is there):
   * until it does, the write does not join a group that holds writes, which would wait for it.
   */
  write<T>(apply: (engine: Engine) => Promise<Step<T>> | Step<T>, ready: () => boolean = () => true): Promise<T> {
    try {
      this.checkWritable();
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<T>((resolve, reject) => {
      this.#push({ kind: "write", apply, ready, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /**
   * Takes the writes at the head of the queue as one group (see the module docs): each applies
   * in turn, and the group's batch is written once no write follows, or the group is full.
   */
  async #runGroup(): Promise<void> {
    const group: Applied[] = [];
    let ops = 0;
    let bytes = 0;
    for (let job = this.#peek(); job?.kind === "write"; job = this.#peek()) {
      // The writes applied so far are not kept waiting for this one's embedder: it starts the next group.
      if (group.length > 0 && !job.ready()) break;
      this.#take();
      const dims = this.#slot.engine?.dimensions;
      let step: Step<unknown> | undefined;
      try {
        step = await job.apply(this.#slot.forQueuedWork());
      } catch (e) {
        this.#refused(job, e, dims);
      }
      const applied = step === undefined ? undefined : this.#taken(job, step, dims);
      // Each write taken counts as one op at least, so writes without ops cannot hold the group open.
      ops += Math.max(1, applied?.ops.length ?? 0);
      if (applied !== undefined) {
        group.push(applied);
        bytes += applied.bytes;
      }
      // A memory store writes nothing: each write resolves as soon as it applied, as it always has.
      if (this.#ephemeral || applied?.step.after !== undefined || ops >= MAX_GROUP_OPS || bytes >= MAX_GROUP_BYTES) break;
    }
    if (group.length > 0) await this.#commitGroup(group);
  }

  /** Applies one write and takes its ops; when either throws, the write changes nothing and rejects. */
  async #apply(job: WriteJob): Promise<Applied | undefined> {
    const dims = this.#slot.engine?.dimensions;
    try {
      return this.#taken(job, await job.apply(this.#slot.forQueuedWork()), dims);
    } catch (e) {
      this.#refused(job, e, dims);
      return undefined;
    }
  }

  /**
   * A write's `apply` threw: the engine undid its records; the dimension a first vector fixed
   * goes back too, to `dims`, what it was before this write (an earlier write of its group,
   * not yet committed, may have fixed it).
   */
  #refused(job: WriteJob, e: unknown, dims: number | undefined): void {
    this.#slot.restoreDimensions(dims);
    job.reject(e);
  }

  /** Takes the ops of a write that applied; when `ops` throws, the write is undone and rejects. */
  #taken(job: WriteJob, step: Step<unknown>, dims: number | undefined): Applied | undefined {
    try {
      const ops = this.#ephemeral ? [] : step.ops();
      return { job, step, ops, bytes: opBytes(ops), dims };
    } catch (e) {
      this.#undo([{ job, step, ops: [], bytes: 0, dims }]);
      job.reject(e);
      return undefined;
    }
  }

  /**
   * Writes the group's ops in one batch, then runs each write's `after` and resolves it, in
   * call order. When the batch fails, every write is undone; each rejects with the error, or,
   * when the error blames one write's ops ({@link BLAMES_ONE_WRITE}), each runs again alone.
   */
  async #commitGroup(group: Applied[]): Promise<void> {
    try {
      const ops = group.length === 1 ? group[0]!.ops : group.flatMap((a) => a.ops);
      if (ops.length > 0) await this.commit(ops);
    } catch (e) {
      this.#undo(group);
      if (group.length > 1 && BLAMES_ONE_WRITE.has((e as RecallError).code)) {
        for (const { job } of group) {
          const applied = await this.#apply(job);
          if (applied !== undefined) await this.#commitGroup([applied]);
        }
        return;
      }
      for (const { job } of group) job.reject(e);
      return;
    }
    for (const { job, step } of group) {
      try {
        step.after?.();
        job.resolve(step.result);
      } catch (e) {
        job.reject(e);
      }
    }
  }

  /**
   * Undoes the writes of `group`, the last first (each undoes its change from the state the
   * ones after it left), then puts back the dimension they fixed (the one before the first).
   * An undo that throws leaves the engine unlike storage: it is read again (`slot.markUnsynced`).
   */
  #undo(group: readonly Applied[]): void {
    for (let i = group.length - 1; i >= 0; i--) {
      try {
        group[i]!.step.undo?.();
      } catch {
        this.#slot.markUnsynced();
      }
    }
    if (group.length > 0) this.#slot.restoreDimensions(group[0]!.dims);
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
      // Each key once: the writes of a group may change one record twice.
      const keys = [...new Set(ops.map((op) => op.key))].filter((k) => RECORD_PREFIXES.some((p) => k.startsWith(p)));
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
    // The counts alone (`r/<id>`): this engine's copy of a memory may be older than storage's.
    // A memory forgotten since its recall has nothing to track (one read of each memory).
    const ops = [...this.#trackingDirty].map((id) => trackingOp(engine, id)).filter((op) => op.op === "put");
    this.#trackingDirty.clear();
    if (ops.length === 0) return;
    const ids = ops.map((op) => op.key.slice(TRACKING_PREFIX.length));
    try {
      await this.commit(ops);
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
