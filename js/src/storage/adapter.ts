/**
 * The {@link StorageAdapter} interface every storage backend implements, and
 * {@link openAdapter}, which picks one. An adapter is a sorted map from string keys to byte
 * values with atomic, durable batches; record encoding lives in `codec.ts`, not here.
 *
 * Every adapter passes the same acceptance suite (`js/test/storage/acceptance.mjs`). The
 * contract, beyond the signatures:
 * - keys are strings without lone surrogates, ordered by UTF-16 code units (JavaScript's `<`,
 *   and IndexedDB's order for strings); values are `Uint8Array`s, copied in and out;
 * - `write` applies a whole batch or nothing, also across a crash, and resolves only once the
 *   batch is durable; ops apply in order, so a later op on the same key wins; a `create` of a
 *   key that exists fails the batch with `already_exists`, checked atomically with the write;
 * - after `close` resolves, every call rejects with `closed`; closing twice is harmless.
 * @module
 */
import { RecallError } from "../errors.js";
// Static, not `import()`: a service worker (an MV3 extension's background) may not import
// dynamically. The cycle with these modules is harmless: each only calls into the other.
import { IndexedDbAdapter } from "./indexeddb.js";
import { MemoryAdapter } from "./memory.js";

/**
 * One change in a {@link StorageAdapter.write} batch. `create` is a put that requires the key
 * to be absent: when it is present (also when another handle, tab or process put it since),
 * the whole batch fails with `already_exists` and nothing is applied. It is how two tabs
 * remembering the same id at once end with one memory and one `already_exists`, not with one
 * text silently replacing the other.
 */
export type StorageOp =
  | { op: "put"; key: string; value: Uint8Array }
  | { op: "create"; key: string; value: Uint8Array }
  | { op: "delete"; key: string };

/** A storage backend: string keys, byte values, atomic durable batches. */
export interface StorageAdapter {
  /** The value stored under `key` (a copy), or `undefined`. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Every [key, value] whose key starts with prefix, in ascending key order. */
  entries(prefix?: string): Promise<Array<[string, Uint8Array]>>;
  /** Every key that starts with prefix, in ascending key order. */
  keys(prefix?: string): Promise<string[]>;
  /**
   * Applies all puts and deletes atomically; resolves only once durable (IndexedDB transaction
   * complete with durability "strict"; file data fsync'd). Either all ops are applied or none
   * (also after a crash). Values are copied before `write` returns.
   */
  write(ops: StorageOp[]): Promise<void>;
  /**
   * Optional: notifications of writes made by OTHER handles to the same store (other tabs via
   * BroadcastChannel; other processes via PostgreSQL's LISTEN/NOTIFY in `recallkit/postgres`;
   * the file store has one writer and none). Returns an unsubscribe function.
   */
  subscribe?(listener: (changedKeys: string[]) => void): () => void;
  /**
   * Optional: `true` when `write` applies `create` ops itself, as the contract above says
   * (the whole batch fails with `already_exists` when a created key exists, checked atomically
   * with the write, against every other handle). The store then hands its batches over as they
   * are. Without it, the store reads each created key with `get` first and writes a `put`,
   * which is atomic only against the writes of its own handle: an adapter shared by several
   * processes should implement `create` and say so. The built-in adapters do.
   */
  readonly checksCreates?: boolean;
  /** Finishes pending writes and releases the store (connection, lock file). */
  close(): Promise<void>;
}

/** The storage backends {@link openAdapter} knows. */
export type StorageKind = "memory" | "indexeddb" | "file";

/** Options of {@link openAdapter}. */
export interface OpenAdapterOptions {
  /**
   * The store's name: 1–128 characters of `A–Z a–z 0–9 . _ -`, starting with a letter or digit.
   * It names the IndexedDB database (`recallkit:<name>`) and the default file directory.
   */
  name: string;
  /** File stores: the store's directory (default `./recallkit-data/<name>`). */
  path?: string;
  /** IndexedDB: ask the browser not to evict the origin's data (`navigator.storage.persist()`). */
  persist?: boolean;
  /** Open for reading only: `write` rejects, and a file store takes no lock. */
  readOnly?: boolean;
  /** IndexedDB: how long an open may stay blocked by another connection before `blocked` (default 10 000). */
  blockedTimeoutMs?: number;
}

const OPTION_FIELDS = new Set(["name", "path", "persist", "readOnly", "blockedTimeoutMs"]);
const STORE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Throws `invalid_argument` unless `name` is a valid store name (see {@link OpenAdapterOptions.name}). */
export function checkStoreName(name: unknown): string {
  if (typeof name !== "string" || !STORE_NAME.test(name)) {
    throw new RecallError("invalid_argument",
      `store name must be 1-128 characters of A-Z a-z 0-9 . _ - starting with a letter or digit, got ${JSON.stringify(name)}`);
  }
  return name;
}

/** The directory of a file store: `path`, or `./recallkit-data/<name>`. */
export function fileStorePath(name: string, path?: string): string {
  return path ?? `./recallkit-data/${name}`;
}

function isServerRuntime(): boolean {
  const g = globalThis as { process?: { versions?: { node?: string } }; Deno?: unknown };
  return typeof g.process?.versions?.node === "string" || g.Deno !== undefined;
}

/**
 * The kind {@link openAdapter} uses when none is given: `"indexeddb"` where
 * `globalThis.indexedDB` exists (pages, workers, extension service workers), `"file"` in Node and
 * Deno. Throws `storage_failed` elsewhere: durable storage is never silently replaced by memory.
 */
export function defaultStorageKind(): StorageKind {
  if ((globalThis as { indexedDB?: unknown }).indexedDB !== undefined) return "indexeddb";
  if (isServerRuntime()) return "file";
  throw new RecallError("storage_failed", "this runtime has neither IndexedDB nor a file system; pass kind \"memory\"");
}

function checkOptions(options: unknown): OpenAdapterOptions {
  if (typeof options !== "object" || options === null) {
    throw new RecallError("invalid_argument", `adapter options must be an object, got ${String(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_FIELDS.has(key)) throw new RecallError("invalid_argument", `unknown adapter option ${JSON.stringify(key)}`);
  }
  const o = options as OpenAdapterOptions;
  checkStoreName(o.name);
  if (o.path !== undefined && (typeof o.path !== "string" || o.path === "")) {
    throw new RecallError("invalid_argument", `path must be a non-empty string, got ${JSON.stringify(o.path)}`);
  }
  for (const flag of ["persist", "readOnly"] as const) {
    if (o[flag] !== undefined && typeof o[flag] !== "boolean") {
      throw new RecallError("invalid_argument", `${flag} must be a boolean, got ${String(o[flag])}`);
    }
  }
  const t = o.blockedTimeoutMs;
  if (t !== undefined && (typeof t !== "number" || !Number.isFinite(t) || t < 0)) {
    throw new RecallError("invalid_argument", `blockedTimeoutMs must be a finite number >= 0, got ${String(t)}`);
  }
  return o;
}

/**
 * Opens a store with the chosen backend (`kind`, or {@link defaultStorageKind} when
 * `undefined`). The file backend is loaded on demand, so browsers never fetch `node:fs`; the
 * others are imported statically, since service workers refuse `import()`.
 *
 * ```ts
 * const adapter = await openAdapter(undefined, { name: "notes" });
 * await adapter.write([{ op: "put", key: "m/1", value: bytes }]);
 * ```
 */
export async function openAdapter(kind: StorageKind | undefined, options: OpenAdapterOptions): Promise<StorageAdapter> {
  const o = checkOptions(options);
  const chosen = kind ?? defaultStorageKind();
  switch (chosen) {
    case "memory": {
      return new MemoryAdapter({ readOnly: o.readOnly });
    }
    case "indexeddb": {
      return IndexedDbAdapter.open({
        name: o.name, readOnly: o.readOnly, persist: o.persist, blockedTimeoutMs: o.blockedTimeoutMs,
      });
    }
    case "file": {
      const noFiles = 'file stores need a file system (Node or Deno): use storage "indexeddb" or "memory"';
      // A page or worker would only fetch node:fs and fail (with errors in its console).
      if (!isServerRuntime()) throw new RecallError("storage_failed", noFiles);
      let file: typeof import("./file.js");
      try {
        file = await import("./file.js");
      } catch (e) {
        throw new RecallError("storage_failed", `${noFiles} (the file backend does not load: ${(e as Error)?.message ?? String(e)})`, { cause: e });
      }
      return file.FileAdapter.open({ path: fileStorePath(o.name, o.path), readOnly: o.readOnly });
    }
    default:
      throw new RecallError("invalid_argument",
        `storage kind must be "memory", "indexeddb" or "file", got ${JSON.stringify(chosen)}`);
  }
}
