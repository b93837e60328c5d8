/**
 * {@link IndexedDbAdapter}: a {@link StorageAdapter} over IndexedDB, for pages, workers and
 * extension service workers (it touches neither `window` nor `document`).
 *
 * - One database per store, `recallkit:<name>`, version {@link IDB_VERSION}, holding one object
 *   store `records` with out-of-line string keys and `Uint8Array` values.
 * - `write` runs one readwrite transaction with `{ durability: "strict" }` and resolves on
 *   `complete`, so an awaited write is on disk; `error`/`abort` reject, and an aborted
 *   transaction stores nothing (a `QuotaExceededError` becomes `quota_exceeded`).
 * - Every request, transaction and open settles its promise: reads resolve on the transaction's
 *   `complete` and reject on its `abort` (request errors bubble to the transaction and abort it);
 *   a `blocked` open rejects with `blocked` after `blockedTimeoutMs` instead of waiting forever.
 * - `versionchange` closes this connection, so another tab can upgrade; later calls reject with
 *   `closed`. The browser closing the connection (site data cleared) gives `storage_failed`.
 * - After each committed write the changed keys are posted on `BroadcastChannel("recallkit:<name>")`;
 *   {@link IndexedDbAdapter.subscribe} hears the writes of every other handle (tab, worker).
 *
 * References: W3C IndexedDB 3.0 (transaction durability, `versionchange`, `blocked`);
 * automerge/automerge-repo: `packages/automerge-repo-storage-indexeddb/src/index.ts`.
 * @module
 */
import { requestPersistence } from "./persist.js";
import { RecallError } from "../errors.js";
import { checkStoreName } from "./adapter.js";
import type { StorageAdapter, StorageOp } from "./adapter.js";
import { changedKeys, checkKey, checkOps, checkPrefix, prefixEnd } from "./ops.js";

/** The IndexedDB database version this module creates; version 1 holds one `records` object store. */
export const IDB_VERSION = 1;

/** How long an open waits while another connection blocks it, unless `blockedTimeoutMs` says otherwise. */
export const DEFAULT_BLOCKED_TIMEOUT_MS = 10_000;

const RECORDS = "records";

/** Options of {@link IndexedDbAdapter.open}. */
export interface IndexedDbAdapterOptions {
  /** The store name (see `OpenAdapterOptions.name`); the database is `recallkit:<name>`. */
  name: string;
  /** Reject every `write`. */
  readOnly?: boolean;
  /** Ask the browser to keep the origin's data under storage pressure (`navigator.storage.persist()`). */
  persist?: boolean;
  /** Milliseconds an open may stay blocked by other connections before it rejects with `blocked` (default 10 000). */
  blockedTimeoutMs?: number;
  /**
   * The database version to open (default {@link IDB_VERSION}). A version above the stored one
   * runs the upgrade, which other open connections must allow by closing; for migrations and
   * their tests.
   */
  version?: number;
}

/** What the browser reports about this origin's storage; a field is `undefined` when unsupported. */
export interface StorageInfo {
  /** Bytes the origin uses (`navigator.storage.estimate().usage`). */
  usage: number | undefined;
  /** Bytes the origin may use (`navigator.storage.estimate().quota`). */
  quota: number | undefined;
  /** Whether the origin's storage is persistent (`navigator.storage.persisted()`). */
  persisted: boolean | undefined;
}

/** Maps a DOMException (or anything thrown) from IndexedDB to a {@link RecallError}. */
export function toStorageError(e: unknown, doing: string): RecallError {
  if (e instanceof RecallError) return e;
  const name = typeof (e as { name?: unknown })?.name === "string" ? (e as { name: string }).name : "Error";
  const message = typeof (e as { message?: unknown })?.message === "string" ? (e as { message: string }).message : String(e);
  const detail = message === "" ? `${doing}: ${name}` : `${doing}: ${name}: ${message}`;
  if (name === "QuotaExceededError") {
    return new RecallError("quota_exceeded", `${detail} (the origin's storage quota is used up; nothing in this transaction was stored)`, { cause: e });
  }
  if (name === "ConstraintError") {
    return new RecallError("already_exists", `${detail} (a key this batch creates exists: another tab wrote it; nothing in this transaction was stored)`, { cause: e });
  }
  if (name === "VersionError") {
    return new RecallError("corrupt", `${detail} (the database was created by a newer recallkit)`, { cause: e });
  }
  return new RecallError("storage_failed", detail, { cause: e });
}

function openDatabase(
  factory: IDBFactory, dbName: string, version: number, blockedTimeoutMs: number, readOnly: boolean,
): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fail = (error: RecallError): void => {
      if (timer !== undefined) clearTimeout(timer);
      if (!settled) reject(error);
      settled = true;
    };
    let request: IDBOpenDBRequest;
    try {
      request = factory.open(dbName, version);
    } catch (e) {
      fail(toStorageError(e, `cannot open IndexedDB database ${dbName}`));
      return;
    }
    request.onblocked = () => {
      timer ??= setTimeout(() => fail(new RecallError("blocked",
        `opening IndexedDB database ${dbName} at version ${version} stayed blocked for ${blockedTimeoutMs} ms ` +
        "by a connection in another tab or worker that does not close; close it and retry")), blockedTimeoutMs);
    };
    request.onupgradeneeded = (event) => {
      if (timer !== undefined) clearTimeout(timer);
      // The caller gave up on a blocked open: do not upgrade behind its back.
      if (settled) {
        request.transaction?.abort();
        return;
      }
      // A reader creates nothing: a store that does not exist is not_found (as for files).
      if (readOnly && (event as IDBVersionChangeEvent).oldVersion === 0) {
        fail(new RecallError("not_found", `no recallkit store named ${JSON.stringify(dbName.slice("recallkit:".length))} in this origin's IndexedDB (readOnly opens create nothing)`));
        request.transaction?.abort();
        return;
      }
      const db = request.result;
      if (!db.objectStoreNames.contains(RECORDS)) db.createObjectStore(RECORDS);
    };
    request.onsuccess = () => {
      if (timer !== undefined) clearTimeout(timer);
      if (settled) {
        request.result.close();
        return;
      }
      settled = true;
      resolve(request.result);
    };
    request.onerror = (event) => {
      event.preventDefault();
      fail(toStorageError(request.error, `cannot open IndexedDB database ${dbName}`));
    };
  });
}

type Listener = (changedKeys: string[]) => void;

/** A {@link StorageAdapter} over IndexedDB. Open it with {@link IndexedDbAdapter.open}. */
export class IndexedDbAdapter implements StorageAdapter {
  /** `write` checks `create` ops itself, atomically (see {@link StorageAdapter.checksCreates}). */
  readonly checksCreates: boolean = true;
  readonly #db: IDBDatabase;
  readonly #name: string;
  readonly #readOnly: boolean;
  readonly #channel: BroadcastChannel | undefined;
  readonly #listeners = new Set<Listener>();
  readonly #shutListeners = new Set<(reason: RecallError, deleted: boolean) => void>();
  readonly #pending = new Set<Promise<unknown>>();
  #dead: RecallError | undefined;

  private constructor(db: IDBDatabase, name: string, readOnly: boolean) {
    this.#db = db;
    this.#name = name;
    this.#readOnly = readOnly;
    db.onversionchange = (event) => this.#shut(event.newVersion === null
      ? new RecallError("closed", `IndexedDB database recallkit:${name} was deleted (`
        + "by another tab or worker, or with the site's data): this handle has no store left; reopen it")
      : new RecallError("closed",
        `IndexedDB database recallkit:${name} was closed so that another connection can upgrade it; reopen the store`),
    event.newVersion === null);
    db.onclose = () => this.#shut(new RecallError("storage_failed",
      `the browser closed IndexedDB database recallkit:${name} (site data cleared or storage failure)`));
    if (typeof BroadcastChannel === "function") {
      const channel = new BroadcastChannel(`recallkit:${name}`);
      // Node keeps its event loop alive for a channel; notifications alone should not.
      (channel as { unref?: () => void }).unref?.();
      channel.onmessage = (event: MessageEvent) => this.#notify(event.data);
      this.#channel = channel;
    }
  }

  /**
   * Opens (creating if needed) the store's database. Rejects with `storage_failed` when
   * IndexedDB is unavailable (some private modes, opaque origins), `blocked` when other
   * connections keep an upgrade waiting past `blockedTimeoutMs`, `corrupt` when the database
   * was created by a newer recallkit.
   */
  static async open(options: IndexedDbAdapterOptions): Promise<IndexedDbAdapter> {
    const name = checkStoreName(options?.name);
    const version = options.version ?? IDB_VERSION;
    if (!Number.isSafeInteger(version) || version < 1) {
      throw new RecallError("invalid_argument", `version must be a positive integer, got ${String(version)}`);
    }
    const timeout = options.blockedTimeoutMs ?? DEFAULT_BLOCKED_TIMEOUT_MS;
    if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout < 0) {
      throw new RecallError("invalid_argument", `blockedTimeoutMs must be a finite number >= 0, got ${String(timeout)}`);
    }
    const factory = (globalThis as { indexedDB?: IDBFactory }).indexedDB;
    if (factory === undefined || factory === null) {
      throw new RecallError("storage_failed", "IndexedDB is not available here (private browsing or an opaque origin?)");
    }
    const db = await openDatabase(factory, `recallkit:${name}`, version, timeout, options.readOnly === true);
    if (!db.objectStoreNames.contains(RECORDS)) {
      db.close();
      throw new RecallError("corrupt", `IndexedDB database recallkit:${name} (version ${db.version}) has no "${RECORDS}" store`);
    }
    const adapter = new IndexedDbAdapter(db, name, options.readOnly === true);
    if (options.persist === true) await requestPersistence();
    return adapter;
  }

  /**
   * Calls `listener` when the database closes under the store (not through {@link close}):
   * with `deleted` when another connection deleted it, otherwise an upgrade elsewhere or the
   * browser closing it. The store then refuses writes with `reason` (and every call, when
   * deleted).
   */
  onShut(listener: (reason: RecallError, deleted: boolean) => void): void {
    this.#shutListeners.add(listener);
  }

  #shut(reason: RecallError, deleted = false, closing = false): void {
    if (this.#dead !== undefined) return;
    this.#dead = reason;
    if (!closing) {
      for (const listener of this.#shutListeners) {
        try {
          listener(reason, deleted);
        } catch (e) {
          setTimeout(() => { throw e; });
        }
      }
    }
    this.#shutListeners.clear();
    // Transactions already started still complete after close(); their writes still notify.
    this.#db.close();
    this.#listeners.clear();
    const channel = this.#channel;
    void Promise.allSettled([...this.#pending]).then(() => channel?.close());
  }

  #notify(data: unknown): void {
    const keys = (data as { keys?: unknown })?.keys;
    if (this.#dead !== undefined || !Array.isArray(keys) || !keys.every((k) => typeof k === "string")) return;
    for (const listener of [...this.#listeners]) {
      try {
        listener([...keys]);
      } catch (e) {
        // One failing listener must not starve the others; surface it as an uncaught error.
        setTimeout(() => { throw e; });
      }
    }
  }

  /**
   * Runs `body` in one transaction. The promise resolves with `body`'s result getter once the
   * transaction completes and rejects when it aborts (a request error aborts it, too).
   */
  #run<T>(mode: IDBTransactionMode, doing: string, body: (store: IDBObjectStore) => () => T): Promise<T> {
    if (this.#dead !== undefined) return Promise.reject(this.#dead);
    const done = new Promise<T>((resolve, reject) => {
      let tx: IDBTransaction;
      try {
        tx = this.#db.transaction(RECORDS, mode, mode === "readwrite" ? { durability: "strict" } : undefined);
      } catch (e) {
        reject(this.#dead ?? toStorageError(e, doing));
        return;
      }
      let result: (() => T) | undefined;
      tx.oncomplete = () => {
        try {
          resolve(result!());
        } catch (e) {
          reject(e);
        }
      };
      tx.onabort = () => {
        const cause = tx.error ?? this.#dead ?? new DOMException("the transaction was aborted", "AbortError");
        reject(toStorageError(cause, doing));
      };
      try {
        result = body(tx.objectStore(RECORDS));
      } catch (e) {
        reject(toStorageError(e, doing));
        try {
          tx.abort();
        } catch {
          // Already finished or aborted; the rejection above stands.
        }
      }
    });
    this.#pending.add(done);
    const forget = (): void => { this.#pending.delete(done); };
    done.then(forget, forget);
    return done;
  }

  #range(prefix: string): IDBKeyRange | undefined {
    if (prefix === "") return undefined;
    const end = prefixEnd(prefix);
    return end === undefined ? IDBKeyRange.lowerBound(prefix) : IDBKeyRange.bound(prefix, end, false, true);
  }

  /** {@inheritDoc StorageAdapter.get} */
  async get(key: string): Promise<Uint8Array | undefined> {
    const k = checkKey(key);
    return this.#run("readonly", `cannot read ${JSON.stringify(k)}`, (store) => {
      const request = store.get(k);
      return () => toBytes(request.result, k);
    });
  }

  /** {@inheritDoc StorageAdapter.keys} */
  async keys(prefix?: string): Promise<string[]> {
    const range = this.#range(checkPrefix(prefix));
    return this.#run("readonly", "cannot list keys", (store) => {
      const request = store.getAllKeys(range);
      return () => request.result.filter((k): k is string => typeof k === "string");
    });
  }

  /** {@inheritDoc StorageAdapter.entries} */
  async entries(prefix?: string): Promise<Array<[string, Uint8Array]>> {
    const range = this.#range(checkPrefix(prefix));
    return this.#run("readonly", "cannot list entries", (store) => {
      // Both requests read the same transaction's snapshot, so the arrays line up.
      const keys = store.getAllKeys(range);
      const values = store.getAll(range);
      return () => {
        const out: Array<[string, Uint8Array]> = [];
        keys.result.forEach((k, i) => {
          if (typeof k === "string") out.push([k, toBytes(values.result[i], k)!]);
        });
        return out;
      };
    });
  }

  /** {@inheritDoc StorageAdapter.write} */
  async write(ops: StorageOp[]): Promise<void> {
    if (this.#dead !== undefined) throw this.#dead;
    const batch = checkOps(ops);
    if (this.#readOnly) throw new RecallError("invalid_argument", "the store was opened with readOnly: true");
    if (batch.length === 0) return;
    await this.#run("readwrite", `cannot write ${batch.length} op(s)`, (store) => {
      for (const op of batch) {
        // add() fails the transaction with a ConstraintError when the key exists: the check
        // and the write are one transaction, so two tabs cannot both create one key.
        if (op.op === "create") store.add(op.value, op.key);
        else if (op.op === "put") store.put(op.value, op.key);
        else store.delete(op.key);
      }
      return () => undefined;
    });
    try {
      this.#channel?.postMessage({ keys: changedKeys(batch) });
    } catch {
      // The batch is committed; a notification that cannot be posted must not fail the write.
    }
  }

  /** {@inheritDoc StorageAdapter.subscribe} */
  subscribe(listener: (changedKeys: string[]) => void): () => void {
    if (typeof listener !== "function") throw new RecallError("invalid_argument", "subscribe expects a function");
    if (this.#dead !== undefined) throw this.#dead;
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }

  /** Usage, quota and persistence of this origin's storage (`undefined` fields where unsupported). */
  async storageInfo(): Promise<StorageInfo> {
    const storage = (globalThis as { navigator?: { storage?: Partial<StorageManager> } }).navigator?.storage;
    const estimate = typeof storage?.estimate === "function"
      ? await storage.estimate().catch(() => undefined) : undefined;
    const persisted = typeof storage?.persisted === "function"
      ? await storage.persisted().catch(() => undefined) : undefined;
    return { usage: estimate?.usage, quota: estimate?.quota, persisted };
  }

  /** {@inheritDoc StorageAdapter.close} */
  async close(): Promise<void> {
    const pending = [...this.#pending];
    this.#shut(new RecallError("closed", `the store ${JSON.stringify(this.#name)} is closed`), false, true);
    await Promise.allSettled(pending);
  }
}

function toBytes(value: unknown, key: string): Uint8Array | undefined {
  if (value === undefined || value instanceof Uint8Array) return value;
  throw new RecallError("corrupt", `the value under ${JSON.stringify(key)} is not a byte array`);
}

