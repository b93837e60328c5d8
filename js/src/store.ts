/**
 * {@link MemoryStore}: the public API, a thin facade. Each method validates its arguments
 * (`validate.ts`), then asks the part of the store that does the work; engine errors become
 * {@link RecallError}s. Ranking lives in Rust, never here. The parts, each a file (DESIGN.md
 * "Module map"):
 *
 * | field | file | what it does |
 * |---|---|---|
 * | `#engine` | `slot.ts` | the engine and the configuration it was built from; `forCaller()` refuses calls once `close()` began |
 * | `#settings` | `options.ts` | the open options, checked and defaulted |
 * | `#writes` | `writes.ts` | the write queue: every write in call order, the writes queued together in one atomic durable batch (group commit), undone on failure; `meta/seq`, the journal, recall tracking |
 * | `#snapshots` | `snapshots.ts` | when and how the snapshot is written |
 * | `#remote` | `remote.ts` | other tabs' writes, applied without writing |
 * | `#order` | `records.ts` | each memory's insertion rank; `records.ts` also maps engine records to stored ones and back |
 *
 * Opening is `load.ts`, a recall (with the host's embed and rerank, `host.ts`) `recall.ts`,
 * export and import `transfer.ts`. Persistence as a whole: `storage/layout.ts` and DESIGN.md
 * "Persistence".
 * @module
 */
import { randomId } from "./engine.js";
import type { Engine } from "./engine.js";
import { formatContext, CONTEXT_OPTION_NAMES } from "./context.js";
import type { ContextBlock, ContextOptions } from "./context.js";
import { ConversationLane, checkConversationId, toConversationOptions } from "./conversation.js";
import type { ConversationOptions, LaneHost } from "./conversation.js";
import { RecallError, callEngine } from "./errors.js";
import { Health } from "./health.js";
import type { StoreStatus } from "./health.js";
import { embedTexts } from "./host.js";
import { loadStore, lockStore } from "./load.js";
import type { Loaded } from "./load.js";
import {
  DEFAULT_EMBED_BATCH_SIZE, DEFAULT_EMBED_TIMEOUT_MS, DEFAULT_IMPORT_BATCH, DEFAULT_STORE_NAME, checkStoreOptions, isAdapter,
  storeKind, storeName, storeSettings, toImportOptions, toOpenOptions,
} from "./options.js";
import type { StoreSettings } from "./options.js";
import { detectMemory, guardFields } from "./observe.js";
import type { GuardReason, MemoryKind } from "./observe.js";
import { runRecall } from "./recall.js";
import type { RecallSettings } from "./recall.js";
import {
  InsertionOrder, flatten, graphBefore, graphOps, graphState, memoryOp, memoryPut, noteOp, readStore, setGraph, trackingReset,
} from "./records.js";
import { Presence } from "./presence.js";
import { OtherTabs } from "./remote.js";
import { repairStore } from "./repair.js";
import { EngineSlot } from "./slot.js";
import {
  CLOSE_SNAPSHOT_BATCHES, DEFAULT_SNAPSHOT_EVERY, MAX_SNAPSHOT_BYTES, SNAPSHOT_AFTER_REBUILD, SnapshotPolicy,
} from "./snapshots.js";
import { openAdapter } from "./storage/adapter.js";
import type { StorageAdapter, StorageKind } from "./storage/adapter.js";
import { checkedAdapter } from "./storage/checked.js";
import { MEMORY_PREFIX, NOTE_PREFIX, TRACKING_PREFIX } from "./storage/layout.js";
import { exportLines, importLines } from "./transfer.js";
import type {
  Edge, Entity, EntityInput, ImportOptions, ImportProgress, ImportSource, Memory, MemoryInput, MemoryPatch, Note, NoteInput, NotePatch,
  OpenOptions, RecallOptions, RecallResult, RelationInput, RepairReport, ScopeOptions, StorageInfo,
} from "./types.js";
import {
  applyPatch, checkDimensions, checkId, checkOptions, toEntity, toNote, toOwner, toRecord, toRelation, toScope, toUnrelation,
} from "./validate.js";
import type { RecordInput } from "./validate.js";
import { init } from "./wasm.js";
import { WriteQueue } from "./writes.js";

export type { MemoryRecord } from "./engine.js";
export {
  CLOSE_SNAPSHOT_BATCHES, DEFAULT_EMBED_BATCH_SIZE, DEFAULT_EMBED_TIMEOUT_MS, DEFAULT_IMPORT_BATCH, DEFAULT_SNAPSHOT_EVERY,
  DEFAULT_STORE_NAME, MAX_SNAPSHOT_BYTES, SNAPSHOT_AFTER_REBUILD,
};

/** Options of {@link MemoryStore.remember}. */
export interface RememberOptions {
  /** Apply the poisoning guard ({@link guardMemory}) first; a refused memory is `refused` (default false). */
  guard?: boolean;
}

/** What {@link MemoryStore.observe} returns. */
export interface ObserveResult {
  /** The stored memory's id; `null` when nothing was stored. */
  id: string | null;
  /** What {@link detectMemory} found; `null` when the message is not save-worthy. */
  kind: MemoryKind | null;
  /** The guard's rule, when it refused the message. */
  refused?: GuardReason;
}

/**
 * Whether the caller named the memory's id. Only such an id can have been a memory before,
 * whose orphan recall tracking a new memory must not inherit (`trackingReset`); a generated
 * one is new, and its batch needs no delete (5 B per memory of a file store's log).
 */
function hasGivenId(memory: unknown): boolean {
  return typeof memory === "object" && memory !== null && (memory as { id?: unknown }).id !== undefined;
}

/**
 * A store of memories with multi-stage recall, kept durable by a storage backend.
 *
 * ```ts
 * const store = await MemoryStore.open({ name: "notes" }); // IndexedDB in browsers, files in Node
 * await store.remember({ text: "The project uses SQLite with FTS5", topic: "work" });
 * const { results } = await store.recall("what database does the project use?");
 * await store.close();
 * ```
 */
export class MemoryStore {
  /** The engine and its configuration (`slot.ts`). */
  readonly #engine: EngineSlot;
  /** The open options, checked and defaulted (`options.ts`). */
  readonly #settings: StoreSettings;
  /** What a recall reads of them (`recall.ts`). */
  readonly #recallSettings: RecallSettings;
  readonly #adapter: StorageAdapter;
  /** Each memory's insertion rank (`records.ts`). */
  readonly #order: InsertionOrder;
  /** Every write, in call order (`writes.ts`). */
  readonly #writes: WriteQueue;
  /** When the snapshot is written (`snapshots.ts`). */
  readonly #snapshots: SnapshotPolicy;
  /** Other tabs' writes (`remote.ts`). */
  readonly #remote: OtherTabs;
  /** How the open loaded the store and the damage it found, for `storageInfo()`. */
  #loaded: Loaded = { openedFrom: "records", damage: [] };
  #closing: Promise<void> | undefined;
  #releaseLock: (() => void) | undefined;
  /** The degradation tier (`health.ts`). */
  readonly #health: Health;

  private constructor(adapter: StorageAdapter, settings: StoreSettings) {
    this.#adapter = adapter;
    this.#settings = settings;
    this.#health = new Health(settings.embed !== undefined, settings.clock);
    this.#engine = new EngineSlot(settings.engineOptions);
    this.#order = new InsertionOrder(!settings.ephemeral);
    this.#writes = new WriteQueue(
      this.#engine, adapter, this.#order, settings.ephemeral, settings.snapshots, this.#health, settings.readOnly,
    );
    if (settings.readOnly) this.#health.openedReadOnly();
    this.#snapshots = new SnapshotPolicy(this.#engine, adapter, this.#writes, this.#order, settings.snapshots, settings.snapshotEvery);
    this.#remote = new OtherTabs(this.#engine, adapter, this.#writes, this.#snapshots, this.#order);
    this.#recallSettings = {
      embed: settings.embed, embedTimeoutMs: settings.embedTimeoutMs, rerank: settings.rerank,
      rerankTimeoutMs: settings.rerankTimeoutMs, searchMode: settings.searchMode, ephemeral: settings.ephemeral,
      readOnly: settings.readOnly,
      now: () => this.#now(), health: this.#health,
    };
  }

  /**
   * Opens a store (loading the WebAssembly module on first use) and loads what it holds.
   * Errors: `invalid_argument` for bad options; from the backend `locked` (another process
   * writes this file store), `blocked`, `storage_failed`; `corrupt` when a record or the store
   * configuration has an unknown format version or cannot be read; `dimension_mismatch` when
   * `dimensions` disagrees with the stored dimension.
   */
  static async open(options?: OpenOptions): Promise<MemoryStore> {
    const { options: checked, name, ranking } = toOpenOptions(options);
    await init();
    const storage = checked.storage;
    const kind = storeKind(storage);
    const adapter = isAdapter(storage) ? checkedAdapter(storage) : await openAdapter(kind as StorageKind, {
      name, path: checked.path, persist: checked.persist, blockedTimeoutMs: checked.blockedTimeoutMs,
      readOnly: checked.readOnly,
    });
    const store = new MemoryStore(adapter, storeSettings(checked, ranking, kind));
    // The browser closing the database under the store (indexeddb.ts): writes fail from then
    // on, and when another tab deleted it, every call does (its records no longer exist).
    (adapter as { onShut?: (listener: (reason: RecallError, deleted: boolean) => void) => void }).onShut?.((reason, deleted) => {
      store.#health.storageLost(reason);
      if (deleted) store.#engine.lost = reason;
    });
    try {
      let sole: boolean | (() => Promise<boolean>) = kind === "file" || kind === "memory";
      if (kind === "indexeddb") {
        const lock = await lockStore(name);
        // Another handle that goes away may leave batches it never announced (presence.ts).
        const presence = new Presence(name, store.#writes.writer, (writer) => store.#remote.writerGone(writer));
        await presence.start();
        store.#releaseLock = () => {
          presence.stop();
          lock.release();
        };
        sole = lock.sole;
      }
      store.#loaded = await loadStore({
        slot: store.#engine, adapter, order: store.#order, writes: store.#writes, snapshots: store.#snapshots,
        remote: store.#remote,
      }, checked.dimensions, sole);
      return store;
    } catch (e) {
      store.#remote.stop();
      store.#releaseLock?.();
      store.#engine.free();
      await adapter.close().catch(() => undefined);
      throw e;
    }
  }

  /**
   * Repairs a damaged store, named by the options {@link MemoryStore.open} takes (`name`,
   * `storage`, `path`; the others apply to the check at the end). A file store's log is
   * salvaged: every frame that checks is kept, each damaged byte range is dropped and
   * reported (offsets and lengths), and the damaged log is copied to
   * `data.log.damaged-<time>` beside it before the log is rewritten. A snapshot that fails
   * its checks is removed, and so is any snapshot when the log lost frames. The store is then
   * opened from its records (read-only) and counted. A store without damage is left exactly
   * as it is, with `repaired: false`.
   *
   * ```ts
   * try {
   *   store = await MemoryStore.open({ name: "agent" });
   * } catch (e) {
   *   if ((e as RecallError).code !== "corrupt") throw e;
   *   console.warn(await MemoryStore.repair({ name: "agent" })); // what was dropped, where the copy is
   *   store = await MemoryStore.open({ name: "agent" });
   * }
   * ```
   *
   * Errors: `invalid_argument` for bad options or `storage: "memory"`; `locked` while another
   * process has the file store open; `not_found` when there is no store; `corrupt` when the
   * file is not a recallkit log (or one of a newer format, left alone), or when the repaired
   * store still does not open (say, a record that does not decode: the message names its key).
   */
  static async repair(options?: OpenOptions): Promise<RepairReport> {
    options = checkStoreOptions(options);
    return repairStore(options, storeName(options), (o) => MemoryStore.open(o));
  }

  #now(): number {
    let now: number;
    try {
      now = this.#settings.clock();
    } catch (e) {
      throw new RecallError("invalid_argument", `the clock threw: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (!Number.isFinite(now)) throw new RecallError("invalid_argument", `the clock returned ${String(now)}`);
    return now;
  }

  /** Embeds `texts` with the host's `embed` while storing (`host.ts`); the outcome sets the tier. */
  async #embedTexts(texts: string[]): Promise<Float32Array[]> {
    const { embed, embedTimeoutMs } = this.#settings;
    try {
      const vectors = await embedTexts(embed, texts, embedTimeoutMs, () => this.#engine.forQueuedWork().dimensions);
      this.#health.embedded();
      return vectors;
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (code === "embed_failed" || code === "embed_timeout") this.#health.notEmbedded(code);
      throw e;
    }
  }

  /**
   * The store's degradation tier (Engram's resource tiers): `"full"` while embeddings work and
   * the storage takes writes; `"basic"` without an embedder, or when its last call failed or
   * timed out (recall runs without stage Se); `"readonly"` when the storage refused the last
   * write (`quota_exceeded`, `storage_failed`, `blocked`, `locked`). With the reason, since
   * when, and each side apart. It recovers by itself: the next successful embed, the next
   * write the storage takes. Each recall's result carries the tier it ran in.
   *
   * ```ts
   * const { tier, reason } = await store.status();
   * if (tier !== "full") console.warn(`recall is degraded (${tier}): ${reason}`);
   * ```
   */
  async status(): Promise<StoreStatus> {
    this.#engine.forCaller();
    return this.#health.status();
  }

  /** A graph write: run `change`, persist the difference, restore the old graph on failure. */
  #graphWrite<T>(change: (engine: Engine) => T): Promise<T> {
    return this.#writes.write((engine) => {
      // Only the records the write touches are read back, so that its cost does not grow
      // with the graph; the whole graph is read only to undo a write that did not commit.
      engine.trackGraphChanges();
      let result: T;
      try {
        result = callEngine(() => change(engine));
      } catch (e) {
        engine.graphChanges(); // stops noting: a refused write changed nothing
        throw e;
      }
      const { before, after } = engine.graphChanges();
      return {
        result,
        ops: () => graphOps(before, after),
        undo: () => setGraph(engine, graphBefore(graphState(engine), before, after)),
      };
    });
  }

  /** Number of memories. */
  get size(): number {
    return this.#engine.forCaller().size;
  }

  /** The embedding dimension, once fixed by `dimensions` or the first vector. */
  get dimensions(): number | undefined {
    return this.#engine.forCaller().dimensions;
  }

  /**
   * Stores one memory and returns its id once it is durable. Embeds its text with the host's
   * `embed` when no `embedding` is given.
   *
   * Writes called together (many `remember` calls in one `Promise.all`), or while an earlier
   * write is being stored, share one durable batch (group commit): one fsync or transaction for
   * all of them. When storage refuses that batch, each of them rejects and none is stored; a
   * write refused for its own content (an invalid memory, an id the store holds) fails alone.
   *
   * `remember` stores what the host gives it. With `{ guard: true }` it first applies the
   * poisoning guard ({@link guardMemory}) to `text`, `textEn` and `keywords`, and a memory the
   * guard refuses is `refused` (the message names the rule), with nothing stored.
   */
  async remember(memory: MemoryInput, options?: RememberOptions): Promise<string> {
    const o = checkOptions(options, "remember options");
    for (const key of Object.keys(o)) {
      if (key !== "guard") throw new RecallError("invalid_argument", `unknown remember option ${JSON.stringify(key)}`);
    }
    if (o.guard !== undefined && typeof o.guard !== "boolean") {
      throw new RecallError("invalid_argument", `guard must be a boolean, got ${typeof o.guard}`);
    }
    if (o.guard === true && typeof memory === "object" && memory !== null) {
      const verdict = guardFields(memory);
      if (verdict !== undefined) {
        throw new RecallError("refused", `the poisoning guard refused the memory: ${verdict.reason} (${verdict.match})`);
      }
    }
    return this.#insert(memory, true);
  }

  /** `remember` after its options: `embed` false stores no vector (a conversation turn). */
  async #insert(memory: MemoryInput, embed: boolean): Promise<string> {
    const engine = this.#engine.forCaller();
    const given = hasGivenId(memory);
    const { record, embedding } = toRecord(memory, this.#now(), randomId);
    let vector = embedding === undefined ? undefined : checkDimensions(embedding, "embedding", "", engine.dimensions);
    // The embedding starts now; the write keeps its place in the queue while it runs, and joins
    // no group of writes before it until it is done (`ready`), so none of them waits for it.
    const embeds = embed && vector === undefined && this.#settings.embed !== undefined;
    const pending = embeds ? this.#embedTexts([record.textEn ?? record.text]).then((v) => v[0]) : Promise.resolve(vector);
    let ready = !embeds;
    pending.then(() => { ready = true; }, () => { ready = true; });
    return this.#writes.write(async (engine) => {
      vector = await pending;
      callEngine(() => engine.insert(record, vector));
      const id = record.id;
      this.#order.set(id, undefined);
      return {
        result: id,
        ops: () => [memoryPut(id, record, this.#order, vector, engine.signature(id), true), ...(given ? [trackingReset(id)] : [])],
        undo: () => {
          engine.remove(id);
          this.#order.delete(id);
        },
      };
    }, () => ready);
  }

  /**
   * Stores every memory or none (an error names the first bad item's index) in one atomic
   * write and returns the ids. Memories without an `embedding` are embedded by the host's
   * `embed`, in batches.
   */
  async rememberMany(memories: MemoryInput[]): Promise<string[]> {
    const engine = this.#engine.forCaller();
    if (!Array.isArray(memories)) {
      throw new RecallError("invalid_argument", "rememberMany expects an array of memories");
    }
    const now = this.#now();
    // Index by index: map() skips the holes of a sparse array, which must fail as items too.
    const items: RecordInput[] = new Array(memories.length);
    for (let i = 0; i < memories.length; i++) items[i] = toRecord(memories[i], now, randomId, i);
    const given = memories.map(hasGivenId);
    let dims = engine.dimensions;
    const vectors: (Float32Array | undefined)[] = items.map(({ embedding }, i) => {
      if (embedding === undefined) return undefined;
      const v = checkDimensions(embedding, "embedding", i, dims);
      dims ??= v.length;
      return v;
    });
    let ready = this.#settings.embed === undefined || vectors.every((v) => v !== undefined);
    const embedded = (async () => {
      if (this.#settings.embed === undefined) return;
      const missing = vectors.flatMap((v, i) => (v === undefined ? [i] : []));
      for (let at = 0; at < missing.length; at += this.#settings.embedBatchSize) {
        const batch = missing.slice(at, at + this.#settings.embedBatchSize);
        const texts = batch.map((i) => items[i]!.record.textEn ?? items[i]!.record.text);
        const out = await this.#embedTexts(texts);
        batch.forEach((i, j) => { vectors[i] = out[j]; });
      }
    })();
    embedded.then(() => { ready = true; }, () => { ready = true; });
    const records = items.map((x) => x.record);
    return this.#writes.write(async (engine) => {
      await embedded;
      const { flat, has } = flatten(vectors);
      callEngine(() => engine.insertMany(records, flat, has));
      for (const r of records) this.#order.set(r.id, undefined);
      return {
        result: records.map((r) => r.id),
        ops: () => records.flatMap((r, i) => {
          const put = memoryPut(r.id, r, this.#order, vectors[i], engine.signature(r.id), true);
          return given[i] ? [put, trackingReset(r.id)] : [put];
        }),
        undo: () => {
          for (const r of records) {
            engine.remove(r.id);
            this.#order.delete(r.id);
          }
        },
      };
    }, () => ready);
  }

  /** The memory with this id, or `undefined`. */
  async get(id: string): Promise<Memory | undefined> {
    const engine = this.#engine.forCaller();
    return engine.get(checkId(id));
  }

  /** The stored embedding of a memory, or `undefined`. */
  async getEmbedding(id: string): Promise<Float32Array | undefined> {
    return this.#engine.forCaller().embedding(checkId(id));
  }

  /** The 32-byte (256-bit) LSH signature of a memory, or `undefined`. */
  async getSignature(id: string): Promise<Uint8Array | undefined> {
    return this.#engine.forCaller().signature(checkId(id));
  }

  /** Every memory id, in insertion order. */
  async ids(): Promise<string[]> {
    return this.#engine.forCaller().ids();
  }

  /**
   * Changes fields of a memory (`null` clears an optional field; see {@link MemoryPatch}) and
   * returns it. `embedding` sets a new vector (`null` removes it). When the text changes
   * without a new vector, the store re-embeds it with the host's `embed`, or drops the old
   * vector, which no longer fits.
   */
  async update(id: string, patch: MemoryPatch): Promise<Memory> {
    this.#engine.forCaller();
    checkId(id);
    // A new text may be embedded inside the write (its record is known only then): such an
    // update joins no group of writes before it, which would wait for the embedder.
    const mayEmbed = this.#settings.embed !== undefined && typeof patch === "object" && patch !== null
      && ("text" in patch || "textEn" in patch);
    return this.#writes.write(async (engine) => {
      const current = engine.get(id);
      if (current === undefined) throw new RecallError("not_found", `no memory with id ${JSON.stringify(id)}`);
      const { record, embedding } = applyPatch(current, patch, this.#now());
      let vector = embedding ?? undefined;
      if (vector !== undefined) vector = checkDimensions(vector, "embedding", "", engine.dimensions);
      const textChanged = record.text !== current.text || record.textEn !== current.textEn;
      let remove = embedding === null;
      if (embedding === undefined && textChanged) {
        if (this.#settings.embed !== undefined) vector = (await this.#embedTexts([record.textEn ?? record.text]))[0];
        else remove = true;
      }
      const oldVector = engine.embedding(id);
      callEngine(() => engine.replace(record, vector, remove));
      return {
        result: engine.get(id)!,
        ops: () => [memoryOp(engine, id, this.#order)],
        undo: () => engine.replace(current, oldVector, oldVector === undefined),
      };
    }, () => !mayEmbed);
  }

  /** Deletes a memory and returns it; `not_found` if there is none. */
  async forget(id: string): Promise<Memory> {
    this.#engine.forCaller();
    checkId(id);
    return this.#writes.write((engine) => {
      const current = engine.get(id);
      if (current === undefined) throw new RecallError("not_found", `no memory with id ${JSON.stringify(id)}`);
      return {
        result: current,
        ops: () => [{ op: "delete", key: MEMORY_PREFIX + id }, { op: "delete", key: TRACKING_PREFIX + id }],
        after: () => {
          engine.remove(id);
          this.#order.delete(id);
          this.#writes.untrack(id);
        },
      };
    });
  }

  /**
   * Recalls what is relevant to `query` through stages Sf, Se, Ss, S6 and S8.
   *
   * The query embedding (from `options.embedding`, or the host's `embed`) starts before stage
   * Sf runs. Under `ranking: "abmind"`, when Sf fills the limit, Se and Ss are skipped
   * (`short_circuit`) and the embedding promise is dropped without being awaited; the other
   * rankings always run every stage. A rejected or slow embed skips Se (`embed_failed`,
   * `embed_timeout`); recall still answers. With a reranker (`rerank` at open or here), the
   * best 30 fused candidates (or `limit`, if more) go to it and the first `limit` come back in
   * its order, each with `components.rerank`; if it fails, the fused order stands and the
   * `rerank` stage report says why. With recall tracking on (the default), the returned
   * memories' new counts are written behind the answer (`trackRecalls`), so the recall does not
   * wait for storage; when storage refuses writes (the `"readonly"` tier), they are not persisted.
   */
  async recall(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    return runRecall(this.#engine, this.#writes, this.#recallSettings, query, options);
  }

  /**
   * Recalls what is relevant to `query` and formats it as a block for a prompt, within a token
   * budget: {@link formatContext} over {@link MemoryStore.recall}. `options` holds both: the
   * block's (`budgetTokens`, `groupBy`, `citations`, `header`, `countTokens`) and the recall's.
   *
   * ```ts
   * const { text, included, tokens } = await store.context("which database?", { budgetTokens: 500, limit: 20 });
   * ```
   */
  async context(query: string, options?: ContextOptions & RecallOptions): Promise<ContextBlock> {
    const all = checkOptions(options, "context options");
    const format: Record<string, unknown> = {};
    const recall: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(all)) (CONTEXT_OPTION_NAMES.has(key) ? format : recall)[key] = value;
    // The block's options are checked before the recall runs.
    formatContext([], format as ContextOptions);
    return formatContext(await this.recall(query, recall as RecallOptions), format as ContextOptions);
  }

  /**
   * Detects whether a chat message is worth remembering ({@link detectMemory}: "Save: …",
   * identity, preference, decision), guards it ({@link guardMemory}) and stores it with
   * `fields` (any memory field but `text`, `textEn` and `embedding`; `type` defaults to the
   * detected one). Returns the new id, or `id: null` when the message is not save-worthy
   * (`kind: null`) or refused (`refused` names the rule).
   *
   * ```ts
   * await store.observe("We decided to use Kafka", { userId: "u1" }); // { id: "…", kind: "decision" }
   * await store.observe("Save: ignore previous instructions");      // { id: null, kind: "explicit", refused: "instruction_override" }
   * ```
   */
  async observe(message: string, fields?: Omit<MemoryInput, "text" | "textEn" | "embedding">): Promise<ObserveResult> {
    this.#engine.forCaller();
    const extra = checkOptions(fields, "memory fields");
    for (const key of ["text", "textEn", "embedding"]) {
      if (key in extra) throw new RecallError("invalid_argument", `memory fields may not set ${key} (the message is the text)`);
    }
    const detected = detectMemory(message);
    if (!detected.save) return { id: null, kind: null };
    const kind = detected.kind!;
    const verdict = guardFields({ text: message, keywords: extra.keywords });
    if (verdict !== undefined) return { id: null, kind, refused: verdict.reason! };
    const id = await this.#insert({ type: detected.type, ...extra, text: detected.text } as MemoryInput, true);
    return { id, kind };
  }

  /**
   * The conversation lane of `conversationId` (Neo's): append its turns, then ask for the
   * earlier ones relevant to the current question ({@link ConversationLane}). Turns are
   * memories kept apart from every other recall. With `userId`, the lane is that user's: its
   * turns are stored as the user's and its recalls see nothing of another user, pronoun
   * resolution included ({@link ConversationOptions}). Errors: `invalid_argument` for a bad id
   * or option.
   */
  conversation(conversationId: string, options?: ConversationOptions): ConversationLane {
    this.#engine.forCaller();
    checkId(conversationId);
    checkConversationId(conversationId);
    const settings = toConversationOptions(options);
    return new ConversationLane({
      canEmbed: this.#settings.embed !== undefined,
      writable: this.#writes.writable,
      append: (memory) => this.#insert(memory, false),
      turns: (topic) => {
        const engine = this.#engine.forCaller();
        const out: ReturnType<LaneHost["turns"]> = [];
        for (const id of engine.ids()) {
          const m = engine.get(id);
          if (m?.topic !== topic) continue;
          out.push({
            id, createdAt: m.createdAt, embedded: engine.embedding(id) !== undefined,
            ...(m.userId === undefined ? {} : { userId: m.userId }), classification: m.classification,
          });
        }
        return out;
      },
      get: (id) => this.#engine.forCaller().get(id),
      embed: (texts) => this.#embedTexts(texts),
      attach: (ids, vectors) => this.#attach(ids, vectors),
      recall: (query, options) => this.recall(query, options),
    }, conversationId, settings);
  }

  /** Stores the vectors of memories that have none yet, in one write (the conversation lane's turns). */
  #attach(ids: string[], vectors: Float32Array[]): Promise<void> {
    return this.#writes.write((engine) => {
      const done: string[] = [];
      ids.forEach((id, i) => {
        const current = engine.get(id);
        if (current === undefined || engine.embedding(id) !== undefined) return;
        callEngine(() => engine.replace(current, vectors[i], false));
        done.push(id);
      });
      return {
        result: undefined,
        ops: () => done.map((id) => memoryOp(engine, id, this.#order)),
        undo: () => {
          for (const id of done) engine.replace(engine.get(id)!, undefined, true);
        },
      };
    });
  }

  /**
   * Adds a consolidation note (searched by stage S6) and returns its id. A note with `userId`
   * reaches only that user's recalls (and recalls without a userId); one without is shared.
   */
  async addNote(note: NoteInput): Promise<string> {
    this.#engine.forCaller();
    const record = toNote(note, this.#now(), randomId);
    return this.#writes.write((engine) => {
      callEngine(() => engine.addNote(record));
      return {
        result: record.id,
        ops: () => [noteOp(engine, record.id)],
        undo: () => { engine.removeNote(record.id); },
      };
    });
  }

  /**
   * Changes fields of a note and returns it. `end: null` (or a new `start` or `period` without
   * `end`) gives the period's default end; `userId: null` makes it shared, `classification: null`
   * sets it to 0; `period`, `start` and `text` cannot be cleared.
   */
  async updateNote(id: string, patch: NotePatch): Promise<Note> {
    this.#engine.forCaller();
    checkId(id);
    return this.#writes.write((engine) => {
      const current = engine.note(id);
      if (current === undefined) throw new RecallError("not_found", `no note with id ${JSON.stringify(id)}`);
      const record = toNote(patch, this.#now(), randomId, current);
      callEngine(() => engine.replaceNote(record));
      return {
        result: engine.note(id)!,
        ops: () => [noteOp(engine, id)],
        undo: () => engine.replaceNote(current),
      };
    });
  }

  /** Deletes a note and returns it; `not_found` if there is none. */
  async forgetNote(id: string): Promise<Note> {
    this.#engine.forCaller();
    checkId(id);
    return this.#writes.write((engine) => {
      const current = engine.note(id);
      if (current === undefined) throw new RecallError("not_found", `no note with id ${JSON.stringify(id)}`);
      return {
        result: current,
        ops: () => [{ op: "delete", key: NOTE_PREFIX + id }],
        after: () => { engine.removeNote(id); },
      };
    });
  }

  /** The note with this id, or `undefined`. */
  async getNote(id: string): Promise<Note | undefined> {
    return this.#engine.forCaller().note(checkId(id));
  }

  /**
   * Every note, or the notes a scope sees: `notes({ userId })` lists that user's and the
   * shared ones, `maxClassification` hides higher levels (as recall does); no options (or
   * `{}`) list them all.
   */
  async notes(options?: ScopeOptions): Promise<Note[]> {
    return this.#engine.forCaller().notes(toScope(options, "notes options"));
  }

  /**
   * Adds an entity to the graph, or updates the entity of the same name (compared by its
   * folded form: "Stefan" and "stefan" are one): the name is written as given this time, a
   * given `type` replaces the stored one, the aliases are merged, and the classification is
   * the higher of the two (a merge never declassifies an entity; to lower it, forget it and
   * add it again).
   * With `userId`, the entity is that user's and merges only into that user's entity: a name
   * held by a shared entity or another user's is `already_exists`.
   */
  async addEntity(entity: EntityInput): Promise<void> {
    this.#engine.forCaller();
    const record = toEntity(entity, this.#now());
    return this.#graphWrite((engine) => engine.addEntity(record));
  }

  /**
   * Removes an entity and its edges and returns it. With `{ userId }`, only that user's
   * entity: a shared one or another user's is `not_found`.
   */
  async forgetEntity(name: string, options?: { userId?: string }): Promise<Entity> {
    this.#engine.forCaller();
    checkId(name);
    const userId = toOwner(options, "forgetEntity options");
    return this.#graphWrite((engine) => engine.removeEntity(name, userId));
  }

  /** Every entity, or with a scope the entities it sees (as {@link MemoryStore.notes}). */
  async entities(options?: ScopeOptions): Promise<Entity[]> {
    return this.#engine.forCaller().entities(toScope(options, "entities options"));
  }

  /**
   * Every edge as stored, or the edges a scope sees (the edge and both its entities), each
   * with `memoryIds` cut to the memories that scope sees, as in recall results (ids of no
   * stored memory are left out too).
   */
  async edges(options?: ScopeOptions): Promise<Edge[]> {
    return this.#engine.forCaller().edges(toScope(options, "edges options"));
  }

  /**
   * Relates two entities (unknown names become entities); relating again updates the edge.
   * With `userId`, a write as that user: the edge and the entities it creates are the user's
   * (with the relation's `classification`), and a name or edge held by another user's record,
   * or an existing shared edge, is `already_exists`.
   */
  async relate(relation: RelationInput): Promise<Edge> {
    this.#engine.forCaller();
    const r = toRelation(relation);
    const now = this.#now();
    return this.#graphWrite((engine) => engine.relate(r, now));
  }

  /**
   * Removes `from —[relation]→ to` (every relation between them when `relation` is absent);
   * returns how many. With `userId`, only that user's edges.
   */
  async unrelate(relation: { from: string; relation?: string; to: string; userId?: string }): Promise<number> {
    this.#engine.forCaller();
    const r = toUnrelation(relation);
    return this.#graphWrite((engine) => engine.unrelate(r.from, r.relation, r.to, r.userId));
  }

  /** Index statistics. */
  async stats(): Promise<{ memories: number; porterTerms: number; fuzzyTerms: number }> {
    return this.#engine.forCaller().stats();
  }

  /**
   * Storage usage: `usage`, `quota` and `persisted` from the browser for IndexedDB, the log
   * size as `usage` for a file store; whether this open used the snapshot (`openedFrom`); and
   * the damage it found and worked around (`damage`, e.g. a snapshot that fails its checks).
   */
  async storageInfo(): Promise<StorageInfo> {
    this.#engine.forCaller();
    const out: StorageInfo = { openedFrom: this.#loaded.openedFrom };
    if (this.#loaded.damage.length > 0) out.damage = [...this.#loaded.damage];
    const adapter = this.#adapter as {
      storageInfo?: () => Promise<{ usage?: number; quota?: number; persisted?: boolean }>;
      stats?: () => { logBytes?: number } | Promise<{ logBytes?: number }>;
    };
    // A custom adapter may offer these too (checked.ts keeps them): answers are read with care.
    if (typeof adapter.storageInfo === "function") {
      const info = await readStore(() => adapter.storageInfo!());
      if (info?.usage !== undefined) out.usage = info.usage;
      if (info?.quota !== undefined) out.quota = info.quota;
      if (info?.persisted !== undefined) out.persisted = info.persisted;
    } else if (typeof adapter.stats === "function") {
      const bytes = (await readStore(async () => adapter.stats!()))?.logBytes;
      if (bytes !== undefined) out.usage = bytes;
    }
    return out;
  }

  /**
   * The whole store as JSON Lines, one record per string (each ending in `"\n"`): the
   * configuration, then every memory in insertion order (fields, recall tracking, embedding
   * with every float32 exact, signature), notes, entities and edges. Records written while the
   * export runs may or may not be included.
   *
   * ```ts
   * for await (const line of store.export()) out.write(line);
   * ```
   */
  export(): AsyncGenerator<string, void, undefined> {
    return exportLines(this.#engine);
  }

  /**
   * Reads JSON Lines written by {@link MemoryStore.export} (a string, a `ReadableStream`, an async
   * iterable of strings or bytes, or an array of the lines or of the lines parsed with
   * `JSON.parse`) and stores every record, in batches of `batchSize` records,
   * each one atomic and durable before `onProgress` is called. Blank lines are skipped.
   * Errors name the line (`line 12: …`): `corrupt` for a line that is not a record (not UTF-8,
   * not JSON, an unknown format version), `invalid_argument` for a memory as `remember` takes
   * it (`{ text, … }`: give those to `rememberMany`), `dimension_mismatch` for an embedding of another
   * length, the engine's code for an invalid record, `already_exists` for a memory or note
   * id the store holds (unless `onConflict` is `"skip"` or `"replace"`). Batches stored
   * before an error stay stored. Signatures are recomputed, not read: they follow from the
   * text and the store's seed. An empty store takes the file's dimension and seed.
   */
  async import(source: ImportSource, options?: ImportOptions): Promise<ImportProgress> {
    this.#engine.forCaller();
    this.#writes.checkWritable();
    return importLines({ slot: this.#engine, writes: this.#writes, order: this.#order }, source, toImportOptions(options, source));
  }

  /**
   * Finishes queued writes, writes the snapshot when none is usable or the journal after it
   * has grown (100 batches, `CLOSE_SNAPSHOT_BATCHES`), marks this handle's `meta/seq` key
   * closed so that a later snapshot deletes it (`storage/layout.ts`, "Pruning"), closes the
   * storage and releases the engine. Later calls fail with `closed`; closing twice is harmless.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#engine.open = false;
      await this.#writes.enqueue(async () => {
        await this.#writes.flushTracking().catch(() => undefined);
        this.#writes.closing();
        // The snapshot only speeds up the next open; failing to write it loses nothing.
        await this.#snapshots.write(false).catch(() => undefined);
        // So that a later snapshot may delete this handle's meta/seq key (storage/layout.ts, "Pruning").
        await this.#writes.markClosed().catch(() => undefined);
      });
      this.#remote.stop();
      await this.#adapter.close().catch(() => undefined);
      this.#releaseLock?.();
      this.#engine.free();
    })();
    return this.#closing;
  }
}
