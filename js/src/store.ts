/**
 * {@link MemoryStore}: the public API. It validates input, owns the wasm engine, persists
 * every write through a {@link StorageAdapter} and turns engine errors into
 * {@link RecallError}s. Ranking lives in Rust, never here.
 *
 * Persistence (layout in `storage/layout.ts`, design in DESIGN.md "Persistence"):
 * - Writes run one at a time through a queue, in call order: validate → apply to the engine →
 *   one atomic, durable `adapter.write` → resolve. When the write fails, the engine change is
 *   undone and the call rejects with the adapter's code, so memory and disk always agree.
 *   Removals (`forget`, `forgetNote`) write first and then remove, which cannot fail.
 * - Open loads the snapshot when its write-sequence keys match the stored ones, otherwise
 *   every record; the snapshot is written on `close()`, every `snapshotEvery` writes and after
 *   an open that had to rebuild a large store.
 * - Writes of other handles (tabs) arrive as changed keys; the store re-reads them and applies
 *   them to its engine without writing.
 * @module
 */
import { Engine } from "./engine.js";
import type { EdgeRecord, EngineConfigJs, EntityRecord, MemoryRecord, NoteRecord } from "../../pkg/recallkit.js";
import { RecallError, fromEngineError } from "./errors.js";
import { checkStoreName, defaultStorageKind, openAdapter } from "./storage/adapter.js";
import type { StorageAdapter, StorageKind, StorageOp } from "./storage/adapter.js";
import { checkedAdapter } from "./storage/checked.js";
import { checkLineSource, decodeRecord, encodeRecord, fromJsonLine, readLines, toJsonLine } from "./storage/codec.js";
import type { RecordKind, StoredRecord } from "./storage/codec.js";
import { IMAGE_BLOCK_MEMORIES, ImageWriter, inspectImage } from "./storage/image.js";
import type { ImageBlock } from "./storage/image.js";
import {
  CONFIG_KEY, DEFAULT_SIGNATURE_SEED, EDGE_PREFIX, ENTITY_PREFIX, JOURNAL_PREFIX, MAX_DIMENSIONS, MEMORY_PREFIX, META_PREFIX, NOTE_PREFIX,
  SEQ_PREFIX, SNAPSHOT_PREFIX, STORE_FORMAT, checkConfig, decodeConfig, decodeJournal, decodeSeq, encodeConfig, encodeJournal,
  encodeSeq, joinChunks, journalKey, newWriterId, parseJournalKey, planReplay, seedToHex, seqKey, snapshotChunks, snapshotKey,
} from "./storage/layout.js";
import type { JournalEntry, StoreConfig } from "./storage/layout.js";
import type {
  Edge, EmbedFunction, RerankFunction, Entity, EntityInput, ImportOptions, ImportProgress, ImportSource, Memory, MemoryInput,
  MemoryPatch, Note, NoteInput, OpenOptions, RecallOptions, RecallResult, RelationInput, RepairReport, ScopeOptions, SearchMode,
  StorageInfo,
} from "./types.js";
import {
  SEARCH_MODES, applyPatch, checkId, checkOptions, checkQuery, toEntity, toNote, toOwner, toRecallOptions, toRecord, toRelation,
  toScope,
  toUnrelation, checkDimensions, toRankingConfig, toVector,
} from "./validate.js";
import type { RecordInput } from "./validate.js";
import { repairStore } from "./repair.js";
import { init } from "./wasm.js";

const OPEN_FIELDS = new Set([
  "name", "storage", "path", "persist", "blockedTimeoutMs", "snapshots", "snapshotEvery",
  "decayDays", "decayFloor", "emotionBoost", "clock", "embed", "dimensions", "similarityThreshold",
  "embedTimeoutMs", "embedBatchSize", "rerank", "rerankTimeoutMs", "searchMode", "shortCircuitFloor", "mmrLambda",
  "ranking", "minScore", "weights", "fusion",
]);
const STORAGE_KINDS: ReadonlySet<string> = new Set(["indexeddb", "file", "memory"]);
const ADAPTER_METHODS = ["get", "entries", "keys", "write", "close"] as const;
const CONFLICT_MODES: ReadonlySet<string> = new Set(["error", "skip", "replace"]);

/** Default time a recall waits for the host's query embedding before skipping Se. */
export const DEFAULT_EMBED_TIMEOUT_MS = 5_000;
/** Default number of texts per `embed` call in {@link MemoryStore.rememberMany}. */
export const DEFAULT_EMBED_BATCH_SIZE = 64;
/** Default store name. */
export const DEFAULT_STORE_NAME = "default";
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
/** Records per batch of {@link MemoryStore.import}, unless `batchSize` says otherwise. */
export const DEFAULT_IMPORT_BATCH = 1000;
/** Memories per `insertMany` while loading records. */
const LOAD_BATCH = 4096;
/** Concurrent reads while applying another tab's writes. */
const REREAD_CONCURRENCY = 256;
/** Delay before the snapshot an open that rebuilt a large store writes (the app starts first). */
const SNAPSHOT_AFTER_REBUILD_DELAY_MS = 2000;
/** Record prefixes: the keys a batch's journal entry lists. */
const RECORD_PREFIXES = [MEMORY_PREFIX, NOTE_PREFIX, ENTITY_PREFIX, EDGE_PREFIX];

/** Lets the event loop run (timers, I/O, UI) between slices of long work. */
function breathe(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function randomId(): string {
  return globalThis.crypto.randomUUID();
}

/** Whether recalls under the store's ranking options read stage Ss (see `src/rank/model.rs`). */
function readsSignatures(ranking: { ranking?: unknown; fusion?: unknown }): boolean {
  if ((ranking.ranking ?? "recallkit") !== "recallkit") return true;
  const weight = (ranking.fusion as { signatureWeight?: number } | undefined)?.signatureWeight;
  return weight !== undefined && weight > 0;
}

/** A host function (embed, rerank) gave no answer in time. */
class TimedOut extends Error {}

/** Resolves as `promise`, or rejects with {@link TimedOut} after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function checkNumber(options: OpenOptions, key: keyof OpenOptions, min: number, max: number, integer = false): void {
  const v = options[key];
  if (v === undefined) return;
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new RecallError("invalid_argument", `${key} must be ${integer ? "an integer" : "a number"} between ${min} and ${max}, got ${String(v)}`);
  }
}

function isAdapter(value: unknown): value is StorageAdapter {
  return typeof value === "object" && value !== null
    && ADAPTER_METHODS.every((m) => typeof (value as Record<string, unknown>)[m] === "function");
}

/** Any error of a storage call as a {@link RecallError} (custom adapters may throw anything). */
function storageError(e: unknown, doing: string): RecallError {
  if (e instanceof RecallError) return e;
  return new RecallError("storage_failed", `${doing}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

/** Prefixes an error's message with where it happened, keeping its code. */
function located(e: unknown, where: string): RecallError {
  const err = fromEngineError(e);
  return new RecallError(err.code, `${where}: ${err.message}`, { cause: e });
}

/** A decoded stored record of the expected kind; anything else is `corrupt`, naming the key. */
function decodeAt(key: string, bytes: Uint8Array, kind: RecordKind): StoredRecord {
  let record: StoredRecord;
  try {
    record = decodeRecord(bytes);
  } catch (e) {
    throw located(e, `record ${JSON.stringify(key)}`);
  }
  if (record.kind !== kind) throw new RecallError("corrupt", `record ${JSON.stringify(key)} is a ${record.kind} record, not a ${kind}`);
  return record;
}

/** Splits a stored memory's data into the engine record and its insertion rank. */
function splitMemory(data: Record<string, unknown>): { record: MemoryRecord; order: number | undefined } {
  const { order, ...record } = data;
  return { record: record as unknown as MemoryRecord, order: typeof order === "number" && Number.isFinite(order) ? order : undefined };
}

/** Rows of memories with optional vectors → `insertMany`'s flat vectors and flags. */
function flatten(vectors: readonly (Float32Array | undefined)[]): { flat: Float32Array; has: Uint8Array } {
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

/** Maps `insertMany`'s "item i" in an error to a name for that item (a key, a line). */
function itemError(e: unknown, name: (index: number) => string, code?: RecallError["code"]): RecallError {
  const err = fromEngineError(e);
  const match = /^item (\d+): (.*)$/s.exec(err.message);
  if (match === null) return err;
  return new RecallError(code ?? err.code, `${name(Number(match[1]))}: ${match[2]}`, { cause: e });
}

interface GraphState {
  entities: EntityRecord[];
  edges: EdgeRecord[];
}

/** What one queued write did: its result, its storage ops, how to undo it, what to do once durable. */
interface Step<T> {
  result: T;
  ops: () => StorageOp[];
  undo?: () => void;
  after?: () => void;
}

/**
 * The checks `open` and `repair` share: an options object of known keys, a known storage
 * kind or an adapter, a usable path.
 */
function checkStoreOptions(input: unknown): OpenOptions {
  const options = checkOptions(input, "open options") as OpenOptions;
  for (const key of Object.keys(options)) {
    if (!OPEN_FIELDS.has(key)) throw new RecallError("invalid_argument", `unknown open option ${JSON.stringify(key)}`);
  }
  const storage = options.storage;
  if (storage !== undefined && !(typeof storage === "string" && STORAGE_KINDS.has(storage)) && !isAdapter(storage)) {
    throw new RecallError("invalid_argument",
      `storage must be "indexeddb", "file", "memory" or a StorageAdapter, got ${typeof storage === "string" ? JSON.stringify(storage) : typeof storage}`);
  }
  if (options.path !== undefined && (typeof options.path !== "string" || options.path === "")) {
    throw new RecallError("invalid_argument", `path must be a non-empty string, got ${JSON.stringify(options.path)}`);
  }
  return options;
}

/** One parsed import line. */
interface ImportItem {
  line: number;
  record: StoredRecord;
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
  #engine: Engine | undefined;
  #open = true;
  #closing: Promise<void> | undefined;
  readonly #clock: () => number;
  readonly #embed: EmbedFunction | undefined;
  readonly #embedTimeoutMs: number;
  readonly #rerank: RerankFunction | undefined;
  readonly #rerankTimeoutMs: number;
  readonly #embedBatchSize: number;
  readonly #searchMode: SearchMode;
  readonly #engineOptions: EngineConfigJs;
  readonly #adapter: StorageAdapter;
  /**
   * `storage: "memory"`: nothing outlives the store and nothing reads its records back, so
   * the engine holds the only copy and writes skip the adapter (a second, encoded copy of
   * every memory in JS memory would only cost space and time).
   */
  readonly #ephemeral: boolean;
  readonly #snapshots: boolean;
  readonly #snapshotEvery: number;

  #config: StoreConfig = { format: STORE_FORMAT, signatureSeed: seedToHex(DEFAULT_SIGNATURE_SEED) };
  #configDirty = false;
  readonly #writer = newWriterId();
  /** Batches this handle has written (its `meta/seq` number). */
  #writeCount = 0;
  /** For each writer, the last batch this engine reflects (see `storage/layout.ts`). */
  readonly #claims = new Map<string, number>();
  /** Journal entries this engine reflects: the next snapshot deletes them. */
  readonly #journalKeys = new Set<string>();
  /** Writers to prune with the first batch (writer → last batch), when this handle is alone. */
  #prune = new Map<string, number>();
  readonly #order = new Map<string, number>();
  #nextOrder = 0;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #trackingDirty = new Set<string>();
  #writesSinceSnapshot = 0;
  /** A snapshot usable with the journal is in storage (loaded at open, or written since). */
  #hasSnapshot = false;
  /** Record keys in the journal after that snapshot, as far as this handle knows. */
  #journalRecords = 0;
  #snapshotQueued = false;
  /** The engine may differ from the records (a remote change failed to apply): write no snapshot. */
  #unsynced = false;
  #openedFrom: "snapshot" | "records" = "records";
  /** Damage this open found and worked around (a snapshot that fails its checks), for `storageInfo()`. */
  readonly #damage: string[] = [];
  #unsubscribe: (() => void) | undefined;
  #releaseLock: (() => void) | undefined;

  private constructor(
    adapter: StorageAdapter, ephemeral: boolean, snapshots: boolean, options: OpenOptions, ranking: Record<string, unknown>,
  ) {
    this.#adapter = adapter;
    this.#ephemeral = ephemeral;
    this.#snapshots = snapshots;
    this.#snapshotEvery = options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
    this.#clock = options.clock ?? Date.now;
    this.#embed = options.embed;
    this.#embedTimeoutMs = options.embedTimeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS;
    this.#rerank = options.rerank;
    this.#rerankTimeoutMs = options.rerankTimeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS;
    this.#embedBatchSize = options.embedBatchSize ?? DEFAULT_EMBED_BATCH_SIZE;
    this.#searchMode = options.searchMode ?? "hybrid";
    this.#engineOptions = {
      decayDays: options.decayDays, decayFloor: options.decayFloor, emotionBoost: options.emotionBoost,
      similarityThreshold: options.similarityThreshold, shortCircuitFloor: options.shortCircuitFloor,
      mmrLambda: options.mmrLambda,
      ...ranking,
      // Signatures are read by stage Ss and persisted with each record: a store that
      // persists nothing and whose recalls do not read them (searchMode "lexical", or the
      // "recallkit" ranking, which does not rank Ss's evidence) computes them only when a
      // recall that reads them (another ranking) or getSignature asks.
      lazySignatures: ephemeral && (this.#searchMode === "lexical" || !readsSignatures(ranking)),
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
    options = checkStoreOptions(options);
    const storage = options.storage;
    const name = checkStoreName(options.name === undefined ? DEFAULT_STORE_NAME : options.name);
    for (const key of ["clock", "embed", "rerank"] as const) {
      if (options[key] !== undefined && typeof options[key] !== "function") {
        throw new RecallError("invalid_argument", `${key} must be a function, got ${typeof options[key]}`);
      }
    }
    for (const key of ["persist", "snapshots"] as const) {
      if (options[key] !== undefined && typeof options[key] !== "boolean") {
        throw new RecallError("invalid_argument", `${key} must be a boolean, got ${typeof options[key]}`);
      }
    }
    checkNumber(options, "decayDays", Number.MIN_VALUE, Number.MAX_VALUE);
    checkNumber(options, "decayFloor", 0, 1);
    checkNumber(options, "emotionBoost", 0, Number.MAX_VALUE);
    checkNumber(options, "dimensions", 1, MAX_DIMENSIONS, true);
    checkNumber(options, "similarityThreshold", 0, 1);
    checkNumber(options, "embedTimeoutMs", 0, 3_600_000);
    checkNumber(options, "rerankTimeoutMs", 0, 3_600_000);
    checkNumber(options, "embedBatchSize", 1, 100_000, true);
    checkNumber(options, "shortCircuitFloor", 0, 1);
    checkNumber(options, "mmrLambda", 0, 1);
    checkNumber(options, "blockedTimeoutMs", 0, Number.MAX_SAFE_INTEGER);
    checkNumber(options, "snapshotEvery", 0, Number.MAX_SAFE_INTEGER, true);
    const ranking = toRankingConfig(options as Record<string, unknown>);
    if (options.searchMode !== undefined && !SEARCH_MODES.has(options.searchMode)) {
      throw new RecallError("invalid_argument", `searchMode must be "hybrid", "lexical" or "semantic", got ${JSON.stringify(options.searchMode)}`);
    }
    await init();
    const kind: StorageKind | "adapter" = isAdapter(storage) ? "adapter" : (storage ?? defaultStorageKind()) as StorageKind;
    const adapter = isAdapter(storage) ? checkedAdapter(storage) : await openAdapter(kind as StorageKind, {
      name, path: options.path, persist: options.persist, blockedTimeoutMs: options.blockedTimeoutMs,
    });
    const snapshots = kind !== "memory" && (options.snapshots ?? kind !== "file");
    const store = new MemoryStore(adapter, kind === "memory", snapshots, options, ranking);
    try {
      const sole = kind === "file" || kind === "memory" ? true : kind === "indexeddb" ? await store.#lock(name) : false;
      await store.#load(options, sole);
      return store;
    } catch (e) {
      store.#unsubscribe?.();
      store.#releaseLock?.();
      store.#engine?.free();
      store.#engine = undefined;
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
    const name = checkStoreName(options.name === undefined ? DEFAULT_STORE_NAME : options.name);
    return repairStore(options, name, (o) => MemoryStore.open(o));
  }

  /**
   * Holds a shared Web Lock named after the store while open, and tells whether this is the
   * only handle of the store in the browser (then stale write-sequence keys may be deleted).
   * `false` where Web Locks do not exist.
   */
  async #lock(name: string): Promise<() => Promise<boolean>> {
    const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
    if (typeof locks?.request !== "function" || typeof locks.query !== "function") return async () => false;
    const lockName = `recallkit:${name}`;
    await new Promise<void>((granted) => {
      locks.request(lockName, { mode: "shared" }, () => {
        granted();
        return new Promise<void>((release) => { this.#releaseLock = release; });
      }).catch(() => granted());
    });
    return async () => {
      const { held } = await locks.query();
      return (held ?? []).filter((l) => l.name === lockName).length === 1;
    };
  }

  #newEngine(): Engine {
    try {
      return new Engine({
        ...this.#engineOptions, dimensions: this.#config.dimensions,
        signatureSeed: BigInt(`0x${this.#config.signatureSeed}`),
      });
    } catch (e) {
      throw fromEngineError(e);
    }
  }

  /** Reads the configuration and the records (or the snapshot) into a new engine. */
  async #load(options: OpenOptions, sole: boolean | (() => Promise<boolean>)): Promise<void> {
    const adapter = this.#adapter;
    const heard: string[] = [];
    let loaded = false;
    if (typeof adapter.subscribe === "function") {
      // Subscribed before reading, so no write of another tab falls between the two.
      this.#unsubscribe = adapter.subscribe((keys) => {
        if (loaded) this.#onRemote(keys);
        else heard.push(...keys);
      });
    }
    let stored: StoreConfig | undefined;
    const seqs = new Map<string, number>();
    const journal = new Map<string, Map<number, JournalEntry>>();
    for (const [key, value] of await this.#read(() => adapter.entries(META_PREFIX))) {
      if (key === CONFIG_KEY) {
        stored = decodeConfig(value);
      } else if (key.startsWith(SEQ_PREFIX)) {
        seqs.set(key.slice(SEQ_PREFIX.length), decodeSeq(value, key));
      } else if (key.startsWith(JOURNAL_PREFIX)) {
        // Everything loaded below reflects these batches; the next snapshot may delete them.
        this.#journalKeys.add(key);
        const at = parseJournalKey(key);
        const entry = decodeJournal(value);
        if (at !== undefined && entry === undefined) this.#damage.push(`${key} does not decode; the snapshot was not used`);
        if (at === undefined || entry === undefined) continue; // a gap: the snapshot will not be used
        if (!journal.has(at.writer)) journal.set(at.writer, new Map());
        journal.get(at.writer)!.set(at.n, entry);
      }
    }
    for (const [writer, n] of seqs) this.#claims.set(writer, n);
    if (stored !== undefined) {
      if (options.dimensions !== undefined && stored.dimensions !== undefined && options.dimensions !== stored.dimensions) {
        throw new RecallError("dimension_mismatch", `the store holds ${stored.dimensions}-dimensional embeddings; dimensions is ${options.dimensions}`);
      }
      this.#config = stored;
      if (stored.dimensions === undefined && options.dimensions !== undefined) {
        this.#config = { ...stored, dimensions: options.dimensions };
        this.#configDirty = true;
      }
    } else {
      if (options.dimensions !== undefined) this.#config = { ...this.#config, dimensions: options.dimensions };
      this.#configDirty = true;
    }
    this.#engine = this.#newEngine();
    let fromSnapshot = false;
    if (this.#snapshots) {
      const chunks = await this.#read(() => adapter.entries(SNAPSHOT_PREFIX));
      const bytes = joinChunks(chunks);
      chunks.length = 0;
      const replayed = bytes === undefined ? undefined : await this.#loadImage(bytes, seqs, journal);
      fromSnapshot = replayed !== undefined;
      this.#hasSnapshot = fromSnapshot;
      this.#journalRecords = replayed ?? 0;
    }
    if (!fromSnapshot) await this.#loadRecords();
    this.#openedFrom = fromSnapshot ? "snapshot" : "records";
    const engine = this.#engine;
    if (typeof sole === "function" ? await sole().catch(() => false) : sole) this.#prune = new Map(seqs);
    loaded = true;
    if (heard.length > 0) this.#onRemote(heard);
    if (!this.#snapshots && this.#journalKeys.size + (await this.#read(() => adapter.keys(SNAPSHOT_PREFIX))).length > 0) {
      // Snapshots were turned off: the old one and its journal would only take space.
      this.#enqueue(() => this.#dropSnapshot()).catch(() => undefined);
    }
    if (this.#snapshots && !fromSnapshot && engine.size >= SNAPSHOT_AFTER_REBUILD) {
      const timer = setTimeout(() => { if (this.#open) this.#scheduleSnapshot(); }, SNAPSHOT_AFTER_REBUILD_DELAY_MS);
      (timer as { unref?: () => void }).unref?.();
    }
  }

  async #read<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (e) {
      throw storageError(e, "cannot read the store");
    }
  }

  /**
   * Loads the snapshot and re-reads the records changed after it, when the journal covers
   * every later batch (`planReplay`). Returns how many records were re-read, or `undefined`
   * (engine untouched) when the snapshot cannot be used.
   */
  async #loadImage(
    bytes: Uint8Array, seqs: Map<string, number>, journal: Map<string, Map<number, JournalEntry>>,
  ): Promise<number | undefined> {
    const opened = inspectImage(bytes);
    if ("damaged" in opened) this.#damage.push(`snapshot: ${opened.damaged}; the store was loaded from its records`);
    if (!("image" in opened)) return undefined;
    const image = opened.image;
    const replay = planReplay(new Map(Object.entries(image.header.claims)), seqs, journal);
    // Re-reading one record at a time only pays while few changed since the snapshot.
    if (replay === undefined || replay.length > 1000 + image.header.memories / 4) return undefined;
    const engine = this.#engine!;
    try {
      for (const block of image.blocks()) this.#loadBlock(engine, block);
      if (engine.size !== image.header.memories) throw new RecallError("corrupt", "snapshot: memory count disagrees");
    } catch (e) {
      // Its checksums held, so this is a bug or damage they missed: report it, rebuild from the records.
      const why = fromEngineError(e).message.replace(/^[a-z_]+: (snapshot: )?/, "");
      this.#damage.push(`snapshot: ${why}; the store was loaded from its records`);
      engine.free();
      this.#engine = this.#newEngine();
      this.#order.clear();
      this.#nextOrder = 0;
      return undefined;
    }
    await this.#reload(engine, replay.filter((k) => k.startsWith(MEMORY_PREFIX) || k.startsWith(NOTE_PREFIX)), true);
    if (replay.some((k) => k.startsWith(ENTITY_PREFIX) || k.startsWith(EDGE_PREFIX))) this.#setGraph(engine, await this.#readGraph());
    return replay.length;
  }

  #loadBlock(engine: Engine, block: ImageBlock): void {
    switch (block.kind) {
      case "memory": {
        const records = block.records.map((data) => {
          const { record, order } = splitMemory(data);
          this.#setOrder(record.id, order);
          return record;
        });
        engine.insertMany(records, block.vectors, block.has);
        break;
      }
      case "note":
        for (const note of block.records) engine.addNote(note as unknown as NoteRecord);
        break;
      case "entity":
        for (const entity of block.records) engine.addEntity(entity as unknown as EntityRecord);
        break;
      case "edge":
        for (const edge of block.records) engine.upsertEdge(edge as unknown as EdgeRecord);
        break;
    }
  }

  /** Rebuilds the engine from every record: memories in insertion order, notes, then the graph. */
  async #loadRecords(): Promise<void> {
    const adapter = this.#adapter;
    const engine = this.#engine!;
    const entries: Array<[string, Uint8Array] | undefined> = await this.#read(() => adapter.entries(MEMORY_PREFIX));
    const rows = entries.map((entry, i) => {
      const [key, bytes] = entry!;
      entries[i] = undefined; // let the bytes go as soon as they are decoded
      const stored = decodeAt(key, bytes, "memory");
      const { record, order } = splitMemory(stored.data);
      if (typeof record.id !== "string" || MEMORY_PREFIX + record.id !== key) {
        throw new RecallError("corrupt", `record ${JSON.stringify(key)} holds memory id ${JSON.stringify(record.id)}`);
      }
      return { key, record, order: order ?? Number.MAX_SAFE_INTEGER, embedding: stored.embedding };
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
      for (const r of batch) this.#setOrder(r.record.id, r.order === Number.MAX_SAFE_INTEGER ? undefined : r.order);
    }
    for (const [key, bytes] of await this.#read(() => adapter.entries(NOTE_PREFIX))) {
      const note = decodeAt(key, bytes, "note").data as unknown as NoteRecord;
      try {
        engine.addNote(note);
      } catch (e) {
        throw new RecallError("corrupt", `record ${JSON.stringify(key)}: ${fromEngineError(e).message}`, { cause: e });
      }
    }
    this.#setGraph(engine, await this.#readGraph());
  }

  /** Every entity and edge record. */
  async #readGraph(): Promise<GraphState> {
    const [entities, edges] = await this.#read(() => Promise.all([
      this.#adapter.entries(ENTITY_PREFIX), this.#adapter.entries(EDGE_PREFIX),
    ]));
    return {
      entities: entities.map(([k, v]) => decodeAt(k, v, "entity").data as unknown as EntityRecord),
      edges: edges.map(([k, v]) => decodeAt(k, v, "edge").data as unknown as EdgeRecord),
    };
  }

  /**
   * Records the insertion rank of memory `id` (`undefined`: the next one). Ranks go into
   * records and snapshots, which a memory store never writes, so it keeps none.
   */
  #setOrder(id: string, order: number | undefined): void {
    if (this.#ephemeral) return;
    const rank = order ?? this.#nextOrder;
    this.#order.set(id, rank);
    this.#nextOrder = Math.max(this.#nextOrder, rank + 1);
  }

  /** The engine, for calls of the public API; `closed` once `close()` has been called. */
  #live(): Engine {
    if (!this.#open || this.#engine === undefined) throw new RecallError("closed", "the store is closed");
    return this.#engine;
  }

  /** The engine, for queued work (which may finish while `close()` waits for it). */
  #alive(): Engine {
    if (this.#engine === undefined) throw new RecallError("closed", "the store is closed");
    return this.#engine;
  }

  #now(): number {
    const now = this.#clock();
    if (!Number.isFinite(now)) throw new RecallError("invalid_argument", `the clock returned ${String(now)}`);
    return now;
  }

  // ---- the write path -------------------------------------------------------------------

  /** Runs `job` after every earlier queued job of this store. */
  #enqueue<T>(job: () => Promise<T> | T): Promise<T> {
    const run = this.#queue.then(job);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Queues a write: `apply` validates and changes the engine (throwing leaves it unchanged)
   * and describes the change; its ops are committed in one batch; a failed commit undoes it.
   */
  #write<T>(apply: (engine: Engine) => Promise<Step<T>> | Step<T>): Promise<T> {
    return this.#enqueue(async () => {
      // One rule for every write: a rejected one changes nothing, in memory or on disk. The
      // engine undoes its records; the dimension a first vector fixed goes back too.
      let step: Step<T>;
      try {
        step = await apply(this.#alive());
      } catch (e) {
        this.#restoreDimensions();
        throw e;
      }
      try {
        const ops = this.#ephemeral ? [] : step.ops();
        if (ops.length > 0) await this.#commit(ops);
      } catch (e) {
        step.undo?.();
        this.#restoreDimensions();
        throw e;
      }
      step.after?.();
      return step.result;
    });
  }

  /** Puts the engine's dimension back to the committed one when a failed write fixed it. */
  #restoreDimensions(): void {
    const engine = this.#engine;
    if (engine === undefined || engine.dimensions === this.#config.dimensions) return;
    try {
      engine.resetDimensions(this.#config.dimensions);
    } catch {
      // Vectors of that dimension are stored: it was not this write that fixed it.
    }
  }

  /**
   * Writes `ops` with the batch's write-sequence key (and the configuration when it changed)
   * in one atomic, durable adapter write.
   */
  async #commit(ops: StorageOp[]): Promise<void> {
    const engine = this.#alive();
    const dims = engine.dimensions;
    const config = dims !== undefined && dims !== this.#config.dimensions ? { ...this.#config, dimensions: dims } : this.#config;
    const batch = [...ops];
    if (config !== this.#config || this.#configDirty) batch.push({ op: "put", key: CONFIG_KEY, value: encodeConfig(config) });
    const n = ++this.#writeCount;
    batch.push({ op: "put", key: seqKey(this.#writer), value: encodeSeq(n) });
    for (const writer of this.#prune.keys()) batch.push({ op: "delete", key: seqKey(writer) });
    const journaled = this.#snapshots ? journalKey(this.#writer, n) : undefined;
    if (journaled !== undefined) {
      const keys = ops.map((op) => op.key).filter((k) => RECORD_PREFIXES.some((p) => k.startsWith(p)));
      batch.push({ op: "put", key: journaled, value: encodeJournal({ keys, pruned: Object.fromEntries(this.#prune) }) });
    }
    try {
      await this.#adapter.write(batch);
    } catch (e) {
      throw storageError(e, "cannot write to the store");
    }
    this.#config = config;
    this.#configDirty = false;
    for (const writer of this.#prune.keys()) this.#claims.delete(writer);
    this.#prune.clear();
    this.#claims.set(this.#writer, n);
    if (journaled !== undefined) this.#journalKeys.add(journaled);
    this.#journalRecords += ops.length;
    this.#writesSinceSnapshot++;
    if (this.#snapshotEvery > 0 && this.#writesSinceSnapshot >= this.#snapshotEvery) this.#scheduleSnapshot();
  }

  #memoryPut(
    id: string, data: MemoryRecord, embedding: Float32Array | undefined, signature: Uint8Array | undefined, create = false,
  ): StorageOp {
    const record: StoredRecord = { kind: "memory", data: { ...data, order: this.#order.get(id) } };
    if (embedding !== undefined) record.embedding = embedding;
    if (signature !== undefined) record.signature = signature;
    // A new memory is a create: if another tab or handle stored the id meanwhile, the write
    // fails with already_exists instead of replacing that memory.
    return { op: create ? "create" : "put", key: MEMORY_PREFIX + id, value: encodeRecord(record) };
  }

  /** The op that stores the engine's current state of a memory (`create` for a new one). */
  #memoryOp(engine: Engine, id: string, create = false): StorageOp {
    const data = engine.get(id);
    if (data === undefined) return { op: "delete", key: MEMORY_PREFIX + id };
    return this.#memoryPut(id, data, engine.embedding(id), engine.signature(id), create);
  }

  #noteOp(engine: Engine, id: string): StorageOp {
    const note = engine.note(id);
    if (note === undefined) return { op: "delete", key: NOTE_PREFIX + id };
    return { op: "put", key: NOTE_PREFIX + id, value: encodeRecord({ kind: "note", data: { ...note } }) };
  }

  #graphState(engine: Engine): GraphState {
    return { entities: engine.entities(), edges: engine.edges() };
  }

  /** The ops that turn the stored graph `before` into `after`. */
  #graphOps(before: GraphState, after: GraphState): StorageOp[] {
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
   * Makes the engine's graph exactly `state`. Records that no longer fit (two tabs gave the
   * same alias to different entities at once) are skipped; the first one wins.
   */
  #setGraph(engine: Engine, state: GraphState): void {
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

  /** A graph write: run `change`, persist the difference, restore the old graph on failure. */
  #graphWrite<T>(change: (engine: Engine) => T): Promise<T> {
    return this.#write((engine) => {
      const before = this.#graphState(engine);
      const result = this.#call(() => change(engine));
      return {
        result,
        ops: () => this.#graphOps(before, this.#graphState(engine)),
        undo: () => this.#setGraph(engine, before),
      };
    });
  }

  /** Makes the engine's memory `id` what `stored` says (absent: removed); no write. */
  #applyMemory(engine: Engine, id: string, stored: StoredRecord | undefined): void {
    const exists = engine.get(id) !== undefined;
    if (stored === undefined) {
      if (exists) engine.remove(id);
      this.#order.delete(id);
      return;
    }
    const { record, order } = splitMemory(stored.data);
    if (record.id !== id) throw new RecallError("corrupt", `record "m/${id}" holds memory id ${JSON.stringify(record.id)}`);
    if (exists) engine.replace(record, stored.embedding, stored.embedding === undefined);
    else engine.insert(record, stored.embedding);
    this.#setOrder(id, order ?? this.#order.get(id));
  }

  #applyNote(engine: Engine, id: string, stored: StoredRecord | undefined): void {
    const exists = engine.note(id) !== undefined;
    if (stored === undefined) {
      if (exists) engine.removeNote(id);
      return;
    }
    const note = stored.data as unknown as NoteRecord;
    if (exists) engine.replaceNote(note);
    else engine.addNote(note);
  }

  /**
   * Re-reads memory and note keys and applies what storage holds to the engine. A record that
   * cannot be applied throws when `strict` (while opening), else marks the engine unsynced.
   */
  async #reload(engine: Engine, keys: readonly string[], strict = false): Promise<void> {
    for (let at = 0; at < keys.length; at += REREAD_CONCURRENCY) {
      const chunk = keys.slice(at, at + REREAD_CONCURRENCY);
      const values = await this.#read(() => Promise.all(chunk.map((k) => this.#adapter.get(k))));
      chunk.forEach((key, i) => {
        const bytes = values[i];
        try {
          if (key.startsWith(MEMORY_PREFIX)) {
            this.#applyMemory(engine, key.slice(MEMORY_PREFIX.length), bytes && decodeAt(key, bytes, "memory"));
          } else {
            this.#applyNote(engine, key.slice(NOTE_PREFIX.length), bytes && decodeAt(key, bytes, "note"));
          }
        } catch (e) {
          if (strict) throw located(e, `record ${JSON.stringify(key)}`);
          this.#unsynced = true;
        }
      });
    }
  }

  /** Another handle (tab, worker) wrote these keys: apply them, in order with local writes. */
  #onRemote(keys: string[]): void {
    this.#enqueue(() => this.#applyRemote(keys)).catch(() => { this.#unsynced = true; });
  }

  async #applyRemote(changed: string[]): Promise<void> {
    const engine = this.#engine;
    if (engine === undefined) return;
    const keys = [...new Set(changed)];
    this.#journalRecords += keys.length;
    await this.#reload(engine, keys.filter((k) => k.startsWith(MEMORY_PREFIX) || k.startsWith(NOTE_PREFIX)));
    if (keys.some((k) => k.startsWith(ENTITY_PREFIX) || k.startsWith(EDGE_PREFIX))) {
      this.#setGraph(engine, await this.#readGraph());
    }
    if (keys.includes(CONFIG_KEY)) {
      const bytes = await this.#read(() => this.#adapter.get(CONFIG_KEY));
      if (bytes !== undefined) {
        try {
          this.#config = decodeConfig(bytes);
        } catch {
          this.#unsynced = true;
        }
      }
    }
    // The records of these batches are applied now: claim them (see storage/layout.ts).
    for (const key of keys) {
      const at = parseJournalKey(key);
      if (at === undefined) continue;
      this.#claims.set(at.writer, Math.max(this.#claims.get(at.writer) ?? 0, at.n));
      this.#journalKeys.add(key);
    }
    // A deleted write-sequence key: its writer was pruned, after every batch of it was loaded.
    for (const key of keys.filter((k) => k.startsWith(SEQ_PREFIX))) {
      if ((await this.#read(() => this.#adapter.get(key))) === undefined) this.#claims.delete(key.slice(SEQ_PREFIX.length));
    }
  }

  /** Persists the recall tracking of memories recalled since the last flush. */
  async #flushTracking(): Promise<void> {
    const engine = this.#engine;
    if (engine === undefined || this.#trackingDirty.size === 0) return;
    const ids = [...this.#trackingDirty].filter((id) => engine.get(id) !== undefined);
    this.#trackingDirty.clear();
    if (ids.length === 0) return;
    try {
      await this.#commit(ids.map((id) => this.#memoryOp(engine, id)));
    } catch (e) {
      // Storage holds the state before these recalls: make the engine agree.
      await this.#reload(engine, ids.map((id) => MEMORY_PREFIX + id)).catch(() => { this.#unsynced = true; });
      throw e;
    }
  }

  #scheduleSnapshot(): void {
    if (!this.#snapshots || this.#snapshotQueued) return;
    this.#snapshotQueued = true;
    this.#enqueue(() => this.#writeSnapshot(true)).catch(() => undefined);
  }

  /**
   * Writes the snapshot of the engine's state (queued work only: no write is half done). The
   * image is built in slices, letting the event loop run; recalls may track meanwhile, so the
   * tracking is flushed (a journaled batch) before the snapshot, which claims the batches
   * before the build and deletes their journal entries.
   */
  async #writeSnapshot(force: boolean): Promise<void> {
    this.#snapshotQueued = false;
    const engine = this.#engine;
    if (!this.#snapshots || this.#unsynced || engine === undefined) return;
    await this.#flushTracking();
    const changed = this.#journalKeys.size > 0 || !this.#hasSnapshot;
    const empty = engine.size === 0 && engine.notes().length === 0 && engine.entities().length === 0;
    const due = this.#hasSnapshot
      ? this.#journalKeys.size >= CLOSE_SNAPSHOT_BATCHES || this.#journalRecords >= 1000 + engine.size / 8
      : !empty || this.#journalKeys.size > 0;
    if (!changed || !(force || due)) return;
    const estimate = engine.size * (4 * (engine.dimensions ?? 0) + 512);
    if (estimate > MAX_SNAPSHOT_BYTES) return this.#dropSnapshot();
    const claims = Object.fromEntries(this.#claims);
    const reflected = [...this.#journalKeys];
    const writes = this.#writeCount;
    const bytes = await this.#image(engine, claims);
    if (this.#engine !== engine) return;
    if (bytes.length > MAX_SNAPSHOT_BYTES) return this.#dropSnapshot();
    await this.#flushTracking();
    const chunks = snapshotChunks(bytes);
    const keys = chunks.map((_, i) => snapshotKey(i));
    // Chunks of an earlier, longer snapshot go in the same batch.
    const stale = (await this.#read(() => this.#adapter.keys(SNAPSHOT_PREFIX))).filter((k) => !keys.includes(k));
    try {
      await this.#adapter.write([
        ...chunks.map((value, i): StorageOp => ({ op: "put", key: keys[i]!, value })),
        ...[...stale, ...reflected].map((key): StorageOp => ({ op: "delete", key })),
      ]);
    } catch (e) {
      throw storageError(e, "cannot write the snapshot");
    }
    for (const key of reflected) this.#journalKeys.delete(key);
    this.#hasSnapshot = true;
    this.#journalRecords = this.#writeCount === writes ? 0 : this.#journalRecords;
    this.#writesSinceSnapshot = 0;
  }

  /**
   * A store too large for a snapshot keeps no journal either: deletes any snapshot and the
   * journal entries this engine reflects, so they do not pile up.
   */
  async #dropSnapshot(): Promise<void> {
    const stale = await this.#read(() => this.#adapter.keys(SNAPSHOT_PREFIX));
    const reflected = [...this.#journalKeys];
    if (stale.length + reflected.length === 0) return;
    await this.#adapter.write([...stale, ...reflected].map((key): StorageOp => ({ op: "delete", key })));
    for (const key of reflected) this.#journalKeys.delete(key);
    this.#hasSnapshot = false;
    this.#writesSinceSnapshot = 0;
  }

  /** Every record of the engine as a snapshot, memories in insertion order. */
  async #image(engine: Engine, claims: Record<string, number>): Promise<Uint8Array> {
    const rank = (id: string): number => this.#order.get(id) ?? Number.MAX_SAFE_INTEGER;
    const ids = engine.ids().sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
    const notes = engine.notes();
    const { entities, edges } = this.#graphState(engine);
    const writer = new ImageWriter({
      claims, memories: ids.length, notes: notes.length, entities: entities.length, edges: edges.length,
    });
    for (let at = 0; at < ids.length; at += IMAGE_BLOCK_MEMORIES) {
      if (at > 0) await breathe();
      const chunk = ids.slice(at, at + IMAGE_BLOCK_MEMORIES);
      const records = chunk.map((id) => ({ ...engine.get(id), order: this.#order.get(id) }) as Record<string, unknown>);
      writer.addMemories(records, chunk.map((id) => engine.embedding(id)), engine.dimensions);
    }
    const blocks = <T>(kind: "note" | "entity" | "edge", items: T[]): void => {
      for (let at = 0; at < items.length; at += IMAGE_BLOCK_MEMORIES) {
        writer.addRecords(kind, items.slice(at, at + IMAGE_BLOCK_MEMORIES) as unknown as Record<string, unknown>[]);
      }
    };
    blocks("note", notes);
    blocks("entity", entities);
    blocks("edge", edges);
    return writer.finish();
  }

  // ---- the public API ---------------------------------------------------------------------

  /** Number of memories. */
  get size(): number {
    return this.#live().size;
  }

  /** The embedding dimension, once fixed by `dimensions` or the first vector. */
  get dimensions(): number | undefined {
    return this.#live().dimensions;
  }

  /**
   * Calls the host's `embed` for `texts` (while storing), checking each vector. Errors are
   * `embed_failed` / `embed_timeout`; nothing is stored on failure.
   */
  async #embedTexts(texts: string[]): Promise<Float32Array[]> {
    const embed = this.#embed;
    if (embed === undefined) throw new RecallError("internal", "no embed function");
    let vectors: ArrayLike<unknown>;
    try {
      vectors = await withTimeout(Promise.resolve().then(() => embed(texts)), this.#embedTimeoutMs);
    } catch (e) {
      if (e instanceof TimedOut) throw new RecallError("embed_timeout", `embed() gave no answer within ${this.#embedTimeoutMs} ms`);
      throw new RecallError("embed_failed", `embed() failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new RecallError("embed_failed", `embed() must return one vector per text (${texts.length}), got ${Array.isArray(vectors) ? vectors.length : typeof vectors}`);
    }
    const dims = this.#alive().dimensions;
    // Array.from visits the holes of a sparse answer, which map() would leave as missing vectors.
    return Array.from(vectors, (v, i) => toVector(v, `embed() vector ${i}`, "", dims ?? (vectors[0] as ArrayLike<number>)?.length));
  }

  /**
   * Stores one memory and returns its id once it is durable. Embeds its text with the host's
   * `embed` when no `embedding` is given.
   */
  async remember(memory: MemoryInput): Promise<string> {
    const engine = this.#live();
    const { record, embedding } = toRecord(memory, this.#now(), randomId);
    let vector = embedding === undefined ? undefined : checkDimensions(embedding, "embedding", "", engine.dimensions);
    // The embedding starts now; the write keeps its place in the queue while it runs.
    const pending = vector === undefined && this.#embed !== undefined
      ? this.#embedTexts([record.textEn ?? record.text]).then((v) => v[0]) : Promise.resolve(vector);
    pending.catch(() => undefined);
    return this.#write(async (engine) => {
      vector = await pending;
      this.#call(() => engine.insert(record, vector));
      const id = record.id;
      this.#setOrder(id, undefined);
      return {
        result: id,
        ops: () => [this.#memoryPut(id, record, vector, engine.signature(id), true)],
        undo: () => {
          engine.remove(id);
          this.#order.delete(id);
        },
      };
    });
  }

  /**
   * Stores every memory or none (an error names the first bad item's index) in one atomic
   * write and returns the ids. Memories without an `embedding` are embedded by the host's
   * `embed`, in batches.
   */
  async rememberMany(memories: MemoryInput[]): Promise<string[]> {
    const engine = this.#live();
    if (!Array.isArray(memories)) {
      throw new RecallError("invalid_argument", "rememberMany expects an array of memories");
    }
    const now = this.#now();
    // Index by index: map() skips the holes of a sparse array, which must fail as items too.
    const items: RecordInput[] = new Array(memories.length);
    for (let i = 0; i < memories.length; i++) items[i] = toRecord(memories[i], now, randomId, i);
    let dims = engine.dimensions;
    const vectors: (Float32Array | undefined)[] = items.map(({ embedding }, i) => {
      if (embedding === undefined) return undefined;
      const v = checkDimensions(embedding, "embedding", i, dims);
      dims ??= v.length;
      return v;
    });
    const embedded = (async () => {
      if (this.#embed === undefined) return;
      const missing = vectors.flatMap((v, i) => (v === undefined ? [i] : []));
      for (let at = 0; at < missing.length; at += this.#embedBatchSize) {
        const batch = missing.slice(at, at + this.#embedBatchSize);
        const texts = batch.map((i) => items[i]!.record.textEn ?? items[i]!.record.text);
        const out = await this.#embedTexts(texts);
        batch.forEach((i, j) => { vectors[i] = out[j]; });
      }
    })();
    embedded.catch(() => undefined);
    const records = items.map((x) => x.record);
    return this.#write(async (engine) => {
      await embedded;
      const { flat, has } = flatten(vectors);
      this.#call(() => engine.insertMany(records, flat, has));
      for (const r of records) this.#setOrder(r.id, undefined);
      return {
        result: records.map((r) => r.id),
        ops: () => records.map((r, i) => this.#memoryPut(r.id, r, vectors[i], engine.signature(r.id), true)),
        undo: () => {
          for (const r of records) {
            engine.remove(r.id);
            this.#order.delete(r.id);
          }
        },
      };
    });
  }

  /** The memory with this id, or `undefined`. */
  async get(id: string): Promise<Memory | undefined> {
    const engine = this.#live();
    return engine.get(checkId(id));
  }

  /** The stored embedding of a memory, or `undefined`. */
  async getEmbedding(id: string): Promise<Float32Array | undefined> {
    return this.#live().embedding(checkId(id));
  }

  /** The 32-byte (256-bit) LSH signature of a memory, or `undefined`. */
  async getSignature(id: string): Promise<Uint8Array | undefined> {
    return this.#live().signature(checkId(id));
  }

  /** Every memory id, in insertion order. */
  async ids(): Promise<string[]> {
    return this.#live().ids();
  }

  /**
   * Changes fields of a memory (`null` clears an optional field; see {@link MemoryPatch}) and
   * returns it. `embedding` sets a new vector (`null` removes it). When the text changes
   * without a new vector, the store re-embeds it with the host's `embed`, or drops the old
   * vector, which no longer fits.
   */
  async update(id: string, patch: MemoryPatch): Promise<Memory> {
    this.#live();
    checkId(id);
    return this.#write(async (engine) => {
      const current = engine.get(id);
      if (current === undefined) throw new RecallError("not_found", `no memory with id ${JSON.stringify(id)}`);
      const { record, embedding } = applyPatch(current, patch, this.#now());
      let vector = embedding ?? undefined;
      if (vector !== undefined) vector = checkDimensions(vector, "embedding", "", engine.dimensions);
      const textChanged = record.text !== current.text || record.textEn !== current.textEn;
      let remove = embedding === null;
      if (embedding === undefined && textChanged) {
        if (this.#embed !== undefined) vector = (await this.#embedTexts([record.textEn ?? record.text]))[0];
        else remove = true;
      }
      const oldVector = engine.embedding(id);
      this.#call(() => engine.replace(record, vector, remove));
      return {
        result: engine.get(id)!,
        ops: () => [this.#memoryOp(engine, id)],
        undo: () => engine.replace(current, oldVector, oldVector === undefined),
      };
    });
  }

  /** Deletes a memory and returns it; `not_found` if there is none. */
  async forget(id: string): Promise<Memory> {
    this.#live();
    checkId(id);
    return this.#write((engine) => {
      const current = engine.get(id);
      if (current === undefined) throw new RecallError("not_found", `no memory with id ${JSON.stringify(id)}`);
      return {
        result: current,
        ops: () => [{ op: "delete", key: MEMORY_PREFIX + id }],
        after: () => {
          engine.remove(id);
          this.#order.delete(id);
          this.#trackingDirty.delete(id);
        },
      };
    });
  }

  /**
   * Recalls what is relevant to `query` through stages Sf, Se, Ss, S6 and S8.
   *
   * The query embedding (from `options.embedding`, or the host's `embed`) starts before stage
   * Sf runs. When Sf fills the limit, Se and Ss are skipped (`short_circuit`) and the embedding
   * promise is dropped without being awaited. A rejected or slow embed skips Se
   * (`embed_failed`, `embed_timeout`); recall still answers. With a reranker (`rerank` at
   * open or here), the best 30 fused candidates go to it and the first `limit` come back in
   * its order, each with `components.rerank`; if it fails, the fused order stands and the
   * `rerank` stage report says why. With recall tracking on (the default), it resolves once
   * the returned memories' new counts are durable.
   */
  async recall(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    const engine = this.#live();
    const text = checkQuery(query);
    const now = (options as { now?: unknown } | undefined)?.now === undefined ? this.#now() : 0;
    const { options: opts, embedding, rerank: rerankOption } = toRecallOptions(options, now, this.#searchMode);
    const rerank = rerankOption === undefined ? this.#rerank : rerankOption || undefined;
    let vector = embedding === undefined ? undefined : checkDimensions(embedding, "embedding", "", engine.dimensions);
    let pendingEmbed: Promise<unknown> | undefined;
    if (vector === undefined && opts.searchMode !== "lexical" && this.#embed !== undefined && text.trim() !== "") {
      // Called synchronously, so the host's work (e.g. a fetch) starts before Sf runs.
      try {
        pendingEmbed = Promise.resolve(this.#embed([text]));
      } catch (e) {
        pendingEmbed = Promise.reject(e);
      }
      // Never an unhandled rejection, even when the promise is dropped unawaited.
      pendingEmbed.catch(() => undefined);
    }
    const pending = this.#call(() => engine.beginRecall(text, opts));
    let reason: string | undefined;
    if (!pending.wantsEmbedding) {
      vector = undefined;
    } else if (vector === undefined) {
      if (pendingEmbed === undefined) {
        reason = "no_embedder";
      } else {
        try {
          const vectors = await withTimeout(pendingEmbed, this.#embedTimeoutMs);
          const first = Array.isArray(vectors) ? vectors[0] : undefined;
          vector = toVector(first, "embed() vector", "", engine.dimensions);
        } catch (e) {
          reason = e instanceof TimedOut ? "embed_timeout" : "embed_failed";
        }
      }
    }
    if (this.#engine === undefined) {
      pending.free();
      throw new RecallError("closed", "the store was closed during recall");
    }
    let out: RecallResult;
    if (rerank === undefined) {
      out = this.#call(() => engine.finishRecall(pending, vector, reason));
    } else {
      const ranked = this.#call(() => engine.rankForRerank(pending, vector, reason));
      const texts = engine.rerankTexts(ranked);
      const started = performance.now();
      const answer = texts.length === 0
        ? { scores: new Float64Array(0), reason: null }
        : await this.#rerankTexts(rerank, text, texts);
      if (this.#engine === undefined) {
        ranked.free();
        throw new RecallError("closed", "the store was closed during recall");
      }
      const ms = performance.now() - started;
      out = this.#call(() => engine.finishRerank(ranked, answer.scores, answer.reason, ms));
    }
    // The engine has updated the tracking; a "memory" store has nothing more to persist.
    if (opts.trackRecalls && !this.#ephemeral) {
      const tracked = out.results.filter((r) => r.kind === "memory").map((r) => r.id);
      if (tracked.length > 0) {
        for (const id of tracked) this.#trackingDirty.add(id);
        await this.#enqueue(() => this.#flushTracking());
      }
    }
    return out;
  }

  /**
   * Asks the host's reranker for one finite score per text; on a throw, a rejection, a
   * timeout or a malformed answer, no scores and the reason (recall keeps the fused order).
   */
  async #rerankTexts(
    rerank: RerankFunction, query: string, texts: string[],
  ): Promise<{ scores: Float64Array | null; reason: string | null }> {
    let answer: unknown;
    try {
      answer = await withTimeout(Promise.resolve().then(() => rerank(query, texts)), this.#rerankTimeoutMs);
    } catch (e) {
      return { scores: null, reason: e instanceof TimedOut ? "rerank_timeout" : "rerank_failed" };
    }
    const ok = (Array.isArray(answer) || answer instanceof Float64Array || answer instanceof Float32Array)
      && answer.length === texts.length;
    if (!ok) return { scores: null, reason: "rerank_failed" };
    const scores = Float64Array.from(answer as ArrayLike<number>);
    if (!scores.every(Number.isFinite)) return { scores: null, reason: "rerank_failed" };
    return { scores, reason: null };
  }

  /**
   * Adds a consolidation note (searched by stage S6) and returns its id. A note with `userId`
   * reaches only that user's recalls (and recalls without a userId); one without is shared.
   */
  async addNote(note: NoteInput): Promise<string> {
    this.#live();
    const record = toNote(note, this.#now(), randomId);
    return this.#write((engine) => {
      this.#call(() => engine.addNote(record));
      return {
        result: record.id,
        ops: () => [this.#noteOp(engine, record.id)],
        undo: () => { engine.removeNote(record.id); },
      };
    });
  }

  /**
   * Changes fields of a note and returns it. `end: null` (or a new `start` without `end`)
   * gives the period's default end; `userId: null` makes it shared, `classification: null`
   * sets it to 0; `period`, `start` and `text` cannot be cleared.
   */
  async updateNote(id: string, patch: Partial<NoteInput>): Promise<Note> {
    this.#live();
    checkId(id);
    return this.#write((engine) => {
      const current = engine.note(id);
      if (current === undefined) throw new RecallError("not_found", `no note with id ${JSON.stringify(id)}`);
      const record = toNote(patch, this.#now(), randomId, current);
      this.#call(() => engine.replaceNote(record));
      return {
        result: engine.note(id)!,
        ops: () => [this.#noteOp(engine, id)],
        undo: () => engine.replaceNote(current),
      };
    });
  }

  /** Deletes a note and returns it; `not_found` if there is none. */
  async forgetNote(id: string): Promise<Note> {
    this.#live();
    checkId(id);
    return this.#write((engine) => {
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
    return this.#live().note(checkId(id));
  }

  /**
   * Every note, or the notes a scope sees: `notes({ userId })` lists that user's and the
   * shared ones, `maxClassification` hides higher levels (as recall does); no options (or
   * `{}`) list them all.
   */
  async notes(options?: ScopeOptions): Promise<Note[]> {
    return this.#live().notes(toScope(options, "notes options"));
  }

  /**
   * Adds an entity to the graph, or merges aliases into the entity of the same name. With
   * `userId`, the entity is that user's and merges only into that user's entity: a name held
   * by a shared entity or another user's is `already_exists`.
   */
  async addEntity(entity: EntityInput): Promise<void> {
    this.#live();
    const record = toEntity(entity, this.#now());
    return this.#graphWrite((engine) => engine.addEntity(record));
  }

  /**
   * Removes an entity and its edges and returns it. With `{ userId }`, only that user's
   * entity: a shared one or another user's is `not_found`.
   */
  async forgetEntity(name: string, options?: { userId?: string }): Promise<Entity> {
    this.#live();
    checkId(name);
    const userId = toOwner(options, "forgetEntity options");
    return this.#graphWrite((engine) => engine.removeEntity(name, userId));
  }

  /** Every entity, or with a scope the entities it sees (as {@link notes}). */
  async entities(options?: ScopeOptions): Promise<Entity[]> {
    return this.#live().entities(toScope(options, "entities options"));
  }

  /**
   * Every edge as stored, or the edges a scope sees (the edge and both its entities), each
   * with `memoryIds` cut to the memories that scope sees, as in recall results (ids of no
   * stored memory are left out too).
   */
  async edges(options?: ScopeOptions): Promise<Edge[]> {
    return this.#live().edges(toScope(options, "edges options"));
  }

  /**
   * Relates two entities (unknown names become entities); relating again updates the edge.
   * With `userId`, a write as that user: the edge and the entities it creates are the user's
   * (with the relation's `classification`), and a name or edge held by another user's record,
   * or an existing shared edge, is `already_exists`.
   */
  async relate(relation: RelationInput): Promise<Edge> {
    this.#live();
    const r = toRelation(relation);
    const now = this.#now();
    return this.#graphWrite((engine) => engine.relate(r, now));
  }

  /**
   * Removes `from —[relation]→ to` (every relation between them when `relation` is absent);
   * returns how many. With `userId`, only that user's edges.
   */
  async unrelate(relation: { from: string; relation?: string; to: string; userId?: string }): Promise<number> {
    this.#live();
    const r = toUnrelation(relation);
    return this.#graphWrite((engine) => engine.unrelate(r.from, r.relation, r.to, r.userId));
  }

  #call<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw fromEngineError(e);
    }
  }

  /** Index statistics. */
  async stats(): Promise<{ memories: number; porterTerms: number; fuzzyTerms: number }> {
    return this.#live().stats();
  }

  /**
   * Storage usage: `usage`, `quota` and `persisted` from the browser for IndexedDB, the log
   * size as `usage` for a file store; whether this open used the snapshot (`openedFrom`); and
   * the damage it found and worked around (`damage`, e.g. a snapshot that fails its checks).
   */
  async storageInfo(): Promise<StorageInfo> {
    this.#live();
    const out: StorageInfo = { openedFrom: this.#openedFrom };
    if (this.#damage.length > 0) out.damage = [...this.#damage];
    const adapter = this.#adapter as {
      storageInfo?: () => Promise<{ usage?: number; quota?: number; persisted?: boolean }>;
      stats?: () => { logBytes?: number } | Promise<{ logBytes?: number }>;
    };
    // A custom adapter may offer these too (checked.ts keeps them): answers are read with care.
    if (typeof adapter.storageInfo === "function") {
      const info = await this.#read(() => adapter.storageInfo!());
      if (info?.usage !== undefined) out.usage = info.usage;
      if (info?.quota !== undefined) out.quota = info.quota;
      if (info?.persisted !== undefined) out.persisted = info.persisted;
    } else if (typeof adapter.stats === "function") {
      const bytes = (await this.#read(async () => adapter.stats!()))?.logBytes;
      if (bytes !== undefined) out.usage = bytes;
    }
    return out;
  }

  // ---- export and import ------------------------------------------------------------------

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
  async *export(): AsyncGenerator<string, void, undefined> {
    let engine = this.#live();
    const config: Record<string, unknown> = { format: STORE_FORMAT, signatureSeed: this.#config.signatureSeed };
    if (engine.dimensions !== undefined) config.dimensions = engine.dimensions;
    yield `${toJsonLine({ kind: "meta", data: config })}\n`;
    for (const id of engine.ids()) {
      engine = this.#live();
      const data = engine.get(id);
      if (data === undefined) continue;
      const record: StoredRecord = { kind: "memory", data: { ...data } };
      const embedding = engine.embedding(id);
      const signature = engine.signature(id);
      if (embedding !== undefined) record.embedding = embedding;
      if (signature !== undefined) record.signature = signature;
      yield `${toJsonLine(record)}\n`;
    }
    for (const note of this.#live().notes()) yield `${toJsonLine({ kind: "note", data: { ...note } })}\n`;
    const { entities, edges } = this.#graphState(this.#live());
    for (const entity of entities) yield `${toJsonLine({ kind: "entity", data: { ...entity } })}\n`;
    for (const edge of edges) yield `${toJsonLine({ kind: "edge", data: { ...edge } })}\n`;
  }

  /**
   * Reads JSON Lines written by {@link export} (a string, a `ReadableStream`, or an async
   * iterable of strings or bytes) and stores every record, in batches of `batchSize` records,
   * each one atomic and durable before `onProgress` is called. Blank lines are skipped.
   * Errors name the line (`line 12: …`): `corrupt` for a line that is not a record (not UTF-8,
   * not JSON, an unknown format version), `dimension_mismatch` for an embedding of another
   * length, the engine's code for an invalid record, `already_exists` for a memory or note
   * id the store holds (unless `onConflict` is `"skip"` or `"replace"`). Batches stored
   * before an error stay stored. Signatures are recomputed, not read: they follow from the
   * text and the store's seed. An empty store takes the file's dimension and seed.
   */
  async import(source: ImportSource, options?: ImportOptions): Promise<ImportProgress> {
    this.#live();
    options = checkOptions(options, "import options") as ImportOptions;
    checkLineSource(source, "import source");
    for (const key of Object.keys(options)) {
      if (!["onConflict", "onProgress", "batchSize"].includes(key)) {
        throw new RecallError("invalid_argument", `unknown import option ${JSON.stringify(key)}`);
      }
    }
    const onConflict = options.onConflict ?? "error";
    if (!CONFLICT_MODES.has(onConflict)) {
      throw new RecallError("invalid_argument", `onConflict must be "error", "skip" or "replace", got ${JSON.stringify(onConflict)}`);
    }
    if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
      throw new RecallError("invalid_argument", "onProgress must be a function");
    }
    const batchSize = options.batchSize ?? DEFAULT_IMPORT_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new RecallError("invalid_argument", `batchSize must be a positive integer, got ${String(batchSize)}`);
    }
    const progress: ImportProgress = { lines: 0, records: 0, skipped: 0 };
    let batch: ImportItem[] = [];
    const flush = async (): Promise<void> => {
      this.#live();
      const items = batch;
      batch = [];
      const { stored, skipped } = await this.#write((engine) => this.#importBatch(engine, items, onConflict));
      progress.records += stored;
      progress.skipped += skipped;
      options.onProgress?.({ ...progress });
    };
    let line = 0;
    for await (const text of readLines(source)) {
      line++;
      if (text.trim() === "") continue;
      let record: StoredRecord;
      try {
        record = fromJsonLine(text);
      } catch (e) {
        throw located(e, `line ${line}`);
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

  /** Applies one import batch to the engine (all or nothing) and describes it as a write. */
  #importBatch(
    engine: Engine, items: ImportItem[], onConflict: string,
  ): Step<{ stored: number; skipped: number }> {
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
        const before = { engine, config: this.#config, dirty: this.#configDirty };
        const next = this.#importConfig(engine, record.data, line);
        if (next === engine) continue;
        // The new engine replaces the old one only if the whole batch lands.
        engine = next;
        undo.push(() => {
          next.free();
          this.#engine = before.engine;
          this.#config = before.config;
          this.#configDirty = before.dirty;
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
        for (const r of records) this.#setOrder(r.id, undefined);
        undo.push(() => {
          for (const r of records) {
            engine.remove(r.id);
            this.#order.delete(r.id);
          }
        });
        memoryIds.push(...records.map((r) => r.id));
        for (const r of records) created.add(r.id);
        stored += records.length;
      }
      for (const { line, record } of items.filter((i) => i.record.kind === "note")) {
        const note = record.data as unknown as NoteRecord;
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
          const before = this.#graphState(engine);
          graphBefore = before;
          undo.push(() => this.#setGraph(engine, before));
        }
        try {
          if (record.kind === "entity") engine.addEntity(record.data as unknown as EntityRecord);
          else engine.upsertEdge(record.data as unknown as EdgeRecord);
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
        ...memoryIds.map((id) => this.#memoryOp(engine, id, created.has(id))),
        ...noteIds.map((id) => this.#noteOp(engine, id)),
        ...(before === undefined ? [] : this.#graphOps(before, this.#graphState(engine))),
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
  #importConfig(engine: Engine, data: Record<string, unknown>, line: number): Engine {
    const config = checkConfig(data, `line ${line}`);
    const empty = engine.size === 0 && engine.notes().length === 0 && engine.entities().length === 0;
    const dims = engine.dimensions;
    if (config.dimensions !== undefined && dims !== undefined && config.dimensions !== dims) {
      throw new RecallError("dimension_mismatch", `line ${line}: the file holds ${config.dimensions}-dimensional embeddings, the store ${dims}`);
    }
    if (!empty || (config.signatureSeed === this.#config.signatureSeed && (config.dimensions ?? dims) === dims)) return engine;
    const before = this.#config;
    this.#config = { ...this.#config, signatureSeed: config.signatureSeed, dimensions: config.dimensions ?? dims };
    let next: Engine;
    try {
      next = this.#newEngine();
    } catch (e) {
      this.#config = before;
      throw located(e, `line ${line}`);
    }
    this.#configDirty = true;
    this.#engine = next;
    return next;
  }

  /**
   * Finishes queued writes, writes the snapshot when none is usable or the journal after it
   * has grown ({@link CLOSE_SNAPSHOT_BATCHES} batches), closes the storage and releases the
   * engine. Later calls fail with `closed`; closing twice is harmless.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#open = false;
      await this.#enqueue(async () => {
        await this.#flushTracking().catch(() => undefined);
        // The snapshot only speeds up the next open; failing to write it loses nothing.
        await this.#writeSnapshot(false).catch(() => undefined);
      });
      this.#unsubscribe?.();
      await this.#adapter.close().catch(() => undefined);
      this.#releaseLock?.();
      this.#engine?.free();
      this.#engine = undefined;
    })();
    return this.#closing;
  }
}

export type { MemoryRecord };
