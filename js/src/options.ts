/**
 * The options of `MemoryStore.open` (and `repair`) and of `MemoryStore.import`: every check,
 * in a fixed order (the first bad option is the one reported), and every default.
 * - {@link toOpenOptions} checks the open options: known keys, the storage and path, then the
 *   tables below (functions, booleans, numbers with their ranges), the ranking options
 *   (`validate.ts`) and the search mode.
 * - {@link storeSettings} resolves them, with the storage kind, into {@link StoreSettings}: what
 *   the store's parts read (the host's functions and their timeouts, the engine's options,
 *   whether anything persists and whether snapshots are kept).
 * - {@link toImportOptions} checks an import's options and fills in theirs.
 * @module
 */
import type { EngineConfigJs } from "./engine.js";
import { RecallError } from "./errors.js";
import { DEFAULT_SNAPSHOT_EVERY } from "./snapshots.js";
import { checkStoreName, defaultStorageKind } from "./storage/adapter.js";
import type { StorageAdapter, StorageKind } from "./storage/adapter.js";
import { checkLineSource } from "./storage/codec.js";
import { MAX_DIMENSIONS } from "./storage/layout.js";
import type { EmbedFunction, ImportOptions, OpenOptions, RerankFunction, SearchMode } from "./types.js";
import { SEARCH_MODES, checkOptions, toRankingConfig } from "./validate.js";

/** Default time a recall waits for the host's query embedding before skipping Se. */
export const DEFAULT_EMBED_TIMEOUT_MS = 5_000;
/** Default number of texts per `embed` call in `MemoryStore.rememberMany`. */
export const DEFAULT_EMBED_BATCH_SIZE = 64;
/** Default store name. */
export const DEFAULT_STORE_NAME = "default";
/** Records per batch of `MemoryStore.import`, unless `batchSize` says otherwise. */
export const DEFAULT_IMPORT_BATCH = 1000;

const OPEN_FIELDS = new Set([
  "name", "storage", "path", "persist", "blockedTimeoutMs", "snapshots", "snapshotEvery", "readOnly",
  "decayDays", "decayFloor", "emotionBoost", "clock", "embed", "dimensions", "similarityThreshold",
  "embedTimeoutMs", "embedBatchSize", "rerank", "rerankTimeoutMs", "searchMode", "shortCircuitFloor", "mmrLambda",
  "ranking", "minScore", "weights", "fusion",
]);
const STORAGE_KINDS: ReadonlySet<string> = new Set(["indexeddb", "file", "memory"]);
const ADAPTER_METHODS = ["get", "entries", "keys", "write", "close"] as const;
const CONFLICT_MODES: ReadonlySet<string> = new Set(["error", "skip", "replace"]);
const IMPORT_FIELDS = ["onConflict", "onProgress", "batchSize"];

/** Open options that must be functions, then booleans, checked in this order. */
const FUNCTION_OPTIONS = ["clock", "embed", "rerank"] as const;
const BOOLEAN_OPTIONS = ["persist", "snapshots", "readOnly"] as const;
/** Numeric open options, checked in this order: each within `[min, max]`, an integer where said. */
const NUMBER_OPTIONS: ReadonlyArray<readonly [key: keyof OpenOptions, min: number, max: number, integer: boolean]> = [
  ["decayDays", Number.MIN_VALUE, Number.MAX_VALUE, false],
  ["decayFloor", 0, 1, false],
  ["emotionBoost", 0, Number.MAX_VALUE, false],
  ["dimensions", 1, MAX_DIMENSIONS, true],
  ["similarityThreshold", 0, 1, false],
  ["embedTimeoutMs", 0, 3_600_000, false],
  ["rerankTimeoutMs", 0, 3_600_000, false],
  ["embedBatchSize", 1, 100_000, true],
  ["shortCircuitFloor", 0, 1, false],
  ["mmrLambda", 0, 1, false],
  ["blockedTimeoutMs", 0, Number.MAX_SAFE_INTEGER, false],
  ["snapshotEvery", 0, Number.MAX_SAFE_INTEGER, true],
];

/** Whether `value` is a {@link StorageAdapter} (has its methods). */
export function isAdapter(value: unknown): value is StorageAdapter {
  return typeof value === "object" && value !== null
    && ADAPTER_METHODS.every((m) => typeof (value as Record<string, unknown>)[m] === "function");
}

function checkNumber(options: OpenOptions, key: keyof OpenOptions, min: number, max: number, integer = false): void {
  const v = options[key];
  if (v === undefined) return;
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new RecallError("invalid_argument", `${key} must be ${integer ? "an integer" : "a number"} between ${min} and ${max}, got ${String(v)}`);
  }
}

/**
 * The checks `open` and `repair` share: an options object of known keys, a known storage
 * kind or an adapter, a usable path.
 */
export function checkStoreOptions(input: unknown): OpenOptions {
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

/** The store's name ({@link DEFAULT_STORE_NAME} when none is given), checked. */
export function storeName(options: OpenOptions): string {
  return checkStoreName(options.name === undefined ? DEFAULT_STORE_NAME : options.name);
}

/** Every check of `MemoryStore.open`'s options; returns them with the name and the ranking options as the engine takes them. */
export function toOpenOptions(input: unknown): { options: OpenOptions; name: string; ranking: Record<string, unknown> } {
  const options = checkStoreOptions(input);
  const name = storeName(options);
  for (const key of FUNCTION_OPTIONS) {
    if (options[key] !== undefined && typeof options[key] !== "function") {
      throw new RecallError("invalid_argument", `${key} must be a function, got ${typeof options[key]}`);
    }
  }
  for (const key of BOOLEAN_OPTIONS) {
    if (options[key] !== undefined && typeof options[key] !== "boolean") {
      throw new RecallError("invalid_argument", `${key} must be a boolean, got ${typeof options[key]}`);
    }
  }
  for (const [key, min, max, integer] of NUMBER_OPTIONS) checkNumber(options, key, min, max, integer);
  const ranking = toRankingConfig(options as Record<string, unknown>);
  if (options.searchMode !== undefined && !SEARCH_MODES.has(options.searchMode)) {
    throw new RecallError("invalid_argument", `searchMode must be "hybrid", "lexical" or "semantic", got ${JSON.stringify(options.searchMode)}`);
  }
  if (options.readOnly === true && options.storage === "memory") {
    throw new RecallError("invalid_argument", 'readOnly opens a stored store; storage "memory" starts empty');
  }
  return { options, name, ranking };
}

/** Where a store keeps its records: a built-in backend, or the host's own adapter. */
export type StoreKind = StorageKind | "adapter";

/** The storage kind of checked open options (the runtime's default when none is given). */
export function storeKind(storage: OpenOptions["storage"]): StoreKind {
  return isAdapter(storage) ? "adapter" : (storage ?? defaultStorageKind()) as StorageKind;
}

/** What the store's parts read of its open options, defaults filled in. */
export interface StoreSettings {
  clock: () => number;
  embed: EmbedFunction | undefined;
  embedTimeoutMs: number;
  rerank: RerankFunction | undefined;
  rerankTimeoutMs: number;
  embedBatchSize: number;
  searchMode: SearchMode;
  /** The engine's options: decay, boosts, thresholds, the ranking model. */
  engineOptions: EngineConfigJs;
  /**
   * `storage: "memory"`: nothing outlives the store and nothing reads its records back, so
   * the engine holds the only copy and writes skip the adapter.
   */
  ephemeral: boolean;
  /** Opened with `readOnly: true`: every write is refused and no recall is tracked. */
  readOnly: boolean;
  /** Keep a snapshot and its journal (default: IndexedDB and custom adapters). */
  snapshots: boolean;
  /** Write batches between automatic snapshots (0: none). */
  snapshotEvery: number;
}

/** Whether recalls under the store's ranking options read stage Ss (see `src/rank/model.rs`). */
function readsSignatures(ranking: { ranking?: unknown; fusion?: unknown }): boolean {
  if ((ranking.ranking ?? "recallkit") !== "recallkit") return true;
  const weight = (ranking.fusion as { signatureWeight?: number } | undefined)?.signatureWeight;
  return weight !== undefined && weight > 0;
}

/** Checked open options (see {@link toOpenOptions}) on storage of `kind`, as {@link StoreSettings}. */
export function storeSettings(options: OpenOptions, ranking: Record<string, unknown>, kind: StoreKind): StoreSettings {
  const ephemeral = kind === "memory";
  const searchMode = options.searchMode ?? "hybrid";
  return {
    clock: options.clock ?? Date.now,
    embed: options.embed,
    embedTimeoutMs: options.embedTimeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS,
    rerank: options.rerank,
    rerankTimeoutMs: options.rerankTimeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS,
    embedBatchSize: options.embedBatchSize ?? DEFAULT_EMBED_BATCH_SIZE,
    searchMode,
    engineOptions: {
      decayDays: options.decayDays, decayFloor: options.decayFloor, emotionBoost: options.emotionBoost,
      similarityThreshold: options.similarityThreshold, shortCircuitFloor: options.shortCircuitFloor,
      mmrLambda: options.mmrLambda,
      ...ranking,
      // Signatures are read by stage Ss and persisted with each record: a store that
      // persists nothing and whose recalls do not read them (searchMode "lexical", or the
      // "recallkit" ranking, which does not rank Ss's evidence) computes them only when a
      // recall that reads them (another ranking) or getSignature asks.
      lazySignatures: ephemeral && (searchMode === "lexical" || !readsSignatures(ranking)),
    },
    ephemeral,
    readOnly: options.readOnly === true,
    // A reader (readOnly) opens from the snapshot too, but never writes or removes one (snapshots.ts).
    snapshots: kind !== "memory" && (options.snapshots ?? kind !== "file"),
    snapshotEvery: options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY,
  };
}

/** An import's checked options: the caller's object (its `onProgress` is called on it), and the rest filled in. */
export interface ImportSettings {
  options: ImportOptions;
  onConflict: string;
  batchSize: number;
}

/** Every check of `MemoryStore.import`'s options and source, in order. */
export function toImportOptions(input: unknown, source: unknown): ImportSettings {
  const options = checkOptions(input, "import options") as ImportOptions;
  checkLineSource(source, "import source");
  for (const key of Object.keys(options)) {
    if (!IMPORT_FIELDS.includes(key)) {
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
  return { options, onConflict, batchSize };
}
