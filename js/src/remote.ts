/**
 * {@link OtherTabs}: the writes of other handles of the same store (tabs, workers, other
 * processes), which an adapter with `subscribe` (IndexedDB through a `BroadcastChannel`,
 * PostgreSQL through LISTEN/NOTIFY) reports as the keys of each committed batch. The keys are
 * queued like a write, re-read and applied to the engine without writing (a memory or note
 * inserted, replaced or removed; an entity or edge likewise, {@link reloadGraph}), and
 * the batches they belong to are claimed (`storage/layout.ts`). Concurrent changes to one
 * record: the last write wins, and every tab converges to it.
 *
 * A writer that went away (`presence.ts`) may have committed batches it never announced: its
 * batches after the last one this handle claims are re-read through their journal entries, or,
 * when the journal no longer holds them (a snapshot since, or a writer without snapshots), by
 * re-reading every record ({@link OtherTabs.writerGone}).
 *
 * When a change fails to apply (storage unreachable for a moment) or a write fails without
 * saying whether it committed, the engine may differ from the records: every record is read
 * again, after a second and then with a doubling wait, until they agree. That re-read loads a
 * new engine in bulk, as an open does, and swaps it in between calls.
 *
 * Fields: the subscription; whether the open has loaded the store (until then, reported keys
 * and writers gone are held, since the open reads after subscribing and applies them once it
 * has loaded); the pending re-read.
 * @module
 */
import type { Engine } from "./engine.js";
import type { RecallError } from "./errors.js";
import { loadRecords } from "./load.js";
import {
  InsertionOrder, carryTracking, readGraph, readStore, reload, reloadGraph, setGraph,
} from "./records.js";
import type { EngineSlot } from "./slot.js";
import type { SnapshotPolicy } from "./snapshots.js";
import type { StorageAdapter } from "./storage/adapter.js";
import {
  CONFIG_KEY, JOURNAL_PREFIX, MEMORY_PREFIX, NOTE_PREFIX, SEQ_PREFIX, TRACKING_PREFIX, decodeConfig, decodeJournal, decodeSeq, isClosedSeq,
  journalKey, parseJournalKey, seqKey,
} from "./storage/layout.js";
import type { StoreConfig } from "./storage/layout.js";
import type { WriteQueue } from "./writes.js";

/** The first wait before re-reading every record after the engine drifted from them. */
export const RESYNC_FIRST_MS = 1_000;
/** The longest wait between two attempts. */
export const RESYNC_MAX_MS = 60_000;

/** Another handle's writes, applied to this one's engine (see the module docs). */
export class OtherTabs {
  #unsubscribe: (() => void) | undefined;
  /** The open has loaded the store: reported keys are applied at once. */
  #loaded = false;
  /** Keys reported before then. */
  readonly #heard: string[] = [];
  /** Writers gone before then. */
  readonly #gone = new Set<string>();
  /** A re-read of every record is due ({@link OtherTabs.scheduleResync}). */
  #resyncTimer: ReturnType<typeof setTimeout> | undefined;
  #resyncDelay = RESYNC_FIRST_MS;
  #stopped = false;
  readonly #slot: EngineSlot;
  readonly #adapter: StorageAdapter;
  readonly #writes: WriteQueue;
  readonly #snapshots: SnapshotPolicy;
  readonly #order: InsertionOrder;

  constructor(slot: EngineSlot, adapter: StorageAdapter, writes: WriteQueue, snapshots: SnapshotPolicy, order: InsertionOrder) {
    this.#slot = slot;
    this.#adapter = adapter;
    this.#writes = writes;
    this.#snapshots = snapshots;
    this.#order = order;
    slot.onUnsynced(() => this.#scheduleResync());
  }

  /**
   * Re-reads every record after the engine may have drifted from them (`slot.markUnsynced`),
   * after {@link RESYNC_FIRST_MS}, then twice as long after each failed attempt, up to
   * {@link RESYNC_MAX_MS}, until they agree or the store closes.
   */
  #scheduleResync(): void {
    if (this.#stopped || this.#resyncTimer !== undefined || !this.#loaded) return;
    const timer = setTimeout(() => {
      this.#resyncTimer = undefined;
      if (this.#stopped) return;
      this.#writes.enqueue(() => this.#resync()).then(
        () => {
          if (!this.#slot.unsynced) this.#resyncDelay = RESYNC_FIRST_MS;
          else this.#retryResync();
        },
        () => this.#retryResync(),
      );
    }, this.#resyncDelay);
    // Node keeps its event loop alive for a timer; a pending re-read alone should not.
    (timer as { unref?: () => void }).unref?.();
    this.#resyncTimer = timer;
  }

  #retryResync(): void {
    this.#resyncDelay = Math.min(this.#resyncDelay * 2, RESYNC_MAX_MS);
    this.#scheduleResync();
  }

  /** Subscribes to the adapter's notifications, if it has any: before the open reads anything. */
  subscribe(): void {
    const adapter = this.#adapter;
    if (typeof adapter.subscribe !== "function") return;
    // Subscribed before reading, so no write of another tab falls between the two.
    this.#unsubscribe = adapter.subscribe((keys) => {
      if (this.#loaded) this.#onRemote(keys);
      else this.#heard.push(...keys);
    });
  }

  /** The open has loaded the store: applies what was heard meanwhile, and the rest as it comes. */
  loaded(): void {
    this.#loaded = true;
    if (this.#heard.length > 0) this.#onRemote(this.#heard);
    for (const writer of this.#gone) this.writerGone(writer);
    this.#gone.clear();
    if (this.#slot.unsynced) this.#scheduleResync();
  }

  /**
   * A writer (another handle) went away: applies the batches it committed after the last one
   * this handle claims, which it may never have announced (see the module docs).
   */
  writerGone(writer: string): void {
    if (!this.#loaded) {
      this.#gone.add(writer);
      return;
    }
    this.#writes.enqueue(() => this.#catchUp(writer)).catch(() => this.#slot.markUnsynced());
  }

  async #catchUp(writer: string): Promise<void> {
    const adapter = this.#adapter;
    if (this.#slot.engine === undefined) return;
    const key = seqKey(writer);
    const bytes = await readStore(() => adapter.get(key));
    if (bytes === undefined) return; // it never wrote, or it was pruned after every batch was loaded
    const last = decodeSeq(bytes, key);
    const claimed = this.#writes.claims.get(writer) ?? 0;
    if (last <= claimed) return;
    const keys = [key];
    for (let n = claimed + 1; n <= last; n++) {
      const journaled = journalKey(writer, n);
      const value = await readStore(() => adapter.get(journaled));
      const entry = value === undefined ? undefined : decodeJournal(value);
      if (entry === undefined) return this.#resync();
      keys.push(journaled, ...entry.keys, ...Object.keys(entry.pruned).map(seqKey));
    }
    await this.#apply(keys);
  }

  /**
   * Re-reads every record and claims every writer's last batch, read before the records: the
   * records go into a new engine the way an open loads them (in bulk, {@link loadRecords}),
   * which then replaces the current one between two calls (`slot.swap`; a recall in flight
   * finishes on the old one). A record that does not load falls back to re-reading each record
   * into the current engine, applying the others ({@link reload}); the engine then stays unsynced.
   */
  async #resync(): Promise<void> {
    const slot = this.#slot;
    const adapter = this.#adapter;
    const writes = this.#writes;
    const engine = slot.engine;
    if (engine === undefined) return;
    const sequences = await readStore(() => adapter.entries(SEQ_PREFIX));
    const journal = await readStore(() => adapter.keys(JOURNAL_PREFIX));
    const stored = await readStore(() => adapter.get(CONFIG_KEY));
    const config = stored === undefined ? slot.config : decodeConfig(stored);
    const synced = await this.#rebuild(engine, config) || await this.#reloadEach(engine);
    slot.config = config;
    for (const [key, value] of sequences) {
      const writer = key.slice(SEQ_PREFIX.length);
      writes.claims.set(writer, Math.max(writes.claims.get(writer) ?? 0, decodeSeq(value, key)));
      if (isClosedSeq(value)) writes.closedWriters.set(writer, decodeSeq(value, key));
    }
    for (const key of journal) {
      const at = parseJournalKey(key);
      if (at !== undefined && at.n <= (writes.claims.get(at.writer) ?? 0)) writes.journalKeys.add(key);
    }
    slot.unsynced = !synced;
  }

  /**
   * Loads every record into a new engine for `config` and puts it in place of `engine`, with
   * the tracking of recalls not stored yet carried over. `false` (nothing replaced) when a
   * record does not load; a failed read throws.
   */
  async #rebuild(engine: Engine, config: StoreConfig): Promise<boolean> {
    const slot = this.#slot;
    const writes = this.#writes;
    const next = slot.build(config);
    const order = this.#order.empty();
    let orphans: string[];
    try {
      orphans = await loadRecords(this.#adapter, next, order);
    } catch (e) {
      next.free();
      if ((e as RecallError).code === "corrupt") return false;
      throw e;
    }
    // Still in place (no close meanwhile): the queue runs nothing else while this reads.
    if (slot.engine !== engine) {
      next.free();
      return true;
    }
    carryTracking(engine, next, writes.pendingTracking);
    slot.swap(next);
    this.#order.assign(order);
    if (orphans.length > 0) writes.enqueue(() => writes.removeOrphans(orphans)).catch(() => undefined);
    return true;
  }

  /** Re-reads each memory and note into `engine`, the graph whole; `false` if a record did not apply. */
  async #reloadEach(engine: Engine): Promise<boolean> {
    const adapter = this.#adapter;
    const keys = new Set([
      ...await readStore(() => adapter.keys(MEMORY_PREFIX)), ...await readStore(() => adapter.keys(NOTE_PREFIX)),
      ...engine.ids().map((id) => MEMORY_PREFIX + id), ...engine.notes().map((note) => NOTE_PREFIX + note.id),
    ]);
    const synced = await reload(adapter, engine, this.#order, [...keys]);
    setGraph(engine, await readGraph(adapter));
    return synced;
  }

  /** Stops listening (and re-reading). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#resyncTimer);
    this.#unsubscribe?.();
  }

  /** Another handle (tab, worker) wrote these keys: apply them, in order with local writes. */
  #onRemote(keys: string[]): void {
    this.#writes.enqueue(() => this.#apply(keys)).catch(() => this.#slot.markUnsynced());
  }

  async #apply(changed: string[]): Promise<void> {
    const slot = this.#slot;
    const adapter = this.#adapter;
    const writes = this.#writes;
    const engine = slot.engine;
    if (engine === undefined) return;
    const keys = [...new Set(changed)];
    this.#snapshots.remoteApplied(keys.length);
    const records = keys.filter((k) => k.startsWith(MEMORY_PREFIX) || k.startsWith(TRACKING_PREFIX) || k.startsWith(NOTE_PREFIX));
    // Read with the records, not after them: an adapter that answers the gets of one turn in one
    // query (PostgreSQL) then makes one round trip for the batch, not two.
    const sequences = keys.filter((k) => k.startsWith(SEQ_PREFIX)).map((k) => ({ key: k, value: readStore(() => adapter.get(k)) }));
    for (const s of sequences) s.value.catch(() => undefined); // awaited below, after the records
    if (!(await reload(adapter, engine, this.#order, records))) slot.markUnsynced();
    await reloadGraph(adapter, engine, keys);
    if (keys.includes(CONFIG_KEY)) {
      const bytes = await readStore(() => adapter.get(CONFIG_KEY));
      if (bytes !== undefined) {
        try {
          slot.config = decodeConfig(bytes);
        } catch {
          slot.markUnsynced();
        }
      }
    }
    // The records of these batches are applied now: claim them (see storage/layout.ts).
    for (const key of keys) {
      const at = parseJournalKey(key);
      if (at === undefined) continue;
      writes.claims.set(at.writer, Math.max(writes.claims.get(at.writer) ?? 0, at.n));
      writes.journalKeys.add(key);
    }
    // A deleted write-sequence key: its writer was pruned, after every batch of it was loaded.
    // A closed one: a snapshot that reflects its last batch may delete its key.
    for (const { key, value } of sequences) {
      const bytes = await value;
      const writer = key.slice(SEQ_PREFIX.length);
      if (bytes === undefined) {
        writes.claims.delete(writer);
        writes.closedWriters.delete(writer);
      } else if (isClosedSeq(bytes)) {
        writes.closedWriters.set(writer, decodeSeq(bytes, key));
      }
    }
  }
}
