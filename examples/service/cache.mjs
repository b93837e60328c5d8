// StoreCache: one MemoryStore per user, opened from PostgreSQL on first use and kept while
// used, evicted least recently used first when the cache holds more than `maxUsers` stores or
// more than `maxBytes` by its estimate. The estimate is `BASE_BYTES + BYTES_PER_MEMORY × size`,
// the figures `npm run bench:service` measures (docs/service.md); WebAssembly memory never
// shrinks, so an evicted store's bytes are reused by the next store, not returned to the OS.
//
// A store in use (between `use()` and its release) is never closed under a request: eviction
// skips it, and a stale store (the change feed lost writes: `markStale`) is taken out of the
// cache at once and closed when its last user releases it.
import { MemoryStore } from "recallkit";

// `npm run bench:service` measured the wasm memory of stores held open: 159 KiB per user of 100
// memories, 268 KiB per user of 200, so about 1.1 KiB a memory above about 50 KiB a store.
/** Bytes an empty store costs (engine tables, the store object): see above. */
export const BASE_BYTES = 50 * 1024;
/** Bytes per cached memory (text, indexes, tracking): see above. */
export const BYTES_PER_MEMORY = 1120;

export class StoreCache {
  #db;
  #maxUsers;
  #maxBytes;
  #openOptions;
  /** userId -> entry; Map order is recency order (oldest first). */
  #entries = new Map();
  #bytes = 0;
  stats = { opens: 0, evictions: 0, stale: 0, openMs: [] };

  /**
   * @param {import("recallkit/postgres").PostgresDatabase} db
   * @param {{ maxUsers: number, maxBytes: number, openOptions?: object }} options
   */
  constructor(db, { maxUsers, maxBytes, openOptions = {} }) {
    this.#db = db;
    this.#maxUsers = maxUsers;
    this.#maxBytes = maxBytes;
    this.#openOptions = openOptions;
  }

  get size() {
    return this.#entries.size;
  }

  get estimatedBytes() {
    return this.#bytes;
  }

  /** Runs `task(store)` on the user's store, opening it first if it is not cached. */
  async use(userId, task) {
    let entry = this.#entries.get(userId);
    if (entry === undefined) {
      entry = { userId, busy: 0, bytes: 0, stale: false, store: undefined, opening: undefined };
      this.#entries.set(userId, entry); // before #open, which removes it again when the open fails
      entry.opening = this.#open(entry);
    } else {
      this.#entries.delete(userId); // move to the most recent end
      this.#entries.set(userId, entry);
    }
    entry.busy++;
    try {
      const store = await entry.opening;
      return await task(store);
    } finally {
      entry.busy--;
      if (entry.store !== undefined) this.#account(entry);
      if (entry.stale && entry.busy === 0) await this.#close(entry);
      else this.#evict();
    }
  }

  async #open(entry) {
    const started = performance.now();
    try {
      entry.store = await MemoryStore.open({
        name: entry.userId, storage: this.#db.adapter(entry.userId), ...this.#openOptions,
      });
    } catch (e) {
      if (this.#entries.get(entry.userId) === entry) this.#entries.delete(entry.userId);
      throw e;
    }
    this.stats.opens++;
    this.stats.openMs.push(performance.now() - started);
    if (this.stats.openMs.length > 10_000) this.stats.openMs.splice(0, 5_000);
    return entry.store;
  }

  #account(entry) {
    const bytes = BASE_BYTES + BYTES_PER_MEMORY * entry.store.size;
    if (this.#entries.get(entry.userId) === entry) this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
  }

  /** Closes least recently used idle stores until the cache is within its bounds. */
  #evict() {
    for (const entry of this.#entries.values()) {
      if (this.#entries.size <= this.#maxUsers && this.#bytes <= this.#maxBytes) return;
      if (entry.busy > 0 || entry.store === undefined) continue;
      this.stats.evictions++;
      void this.#close(entry);
    }
  }

  async #close(entry) {
    if (this.#entries.get(entry.userId) === entry) {
      this.#entries.delete(entry.userId);
      this.#bytes -= entry.bytes;
    }
    await entry.store?.close().catch(() => undefined);
  }

  /** The change feed may have lost writes to `userId`'s store (or, undefined, to every store): reopen on next use. */
  markStale(userId) {
    const stale = userId === undefined ? [...this.#entries.values()] : [this.#entries.get(userId)].filter(Boolean);
    for (const entry of stale) {
      this.stats.stale++;
      entry.stale = true;
      this.#entries.delete(entry.userId);
      this.#bytes -= entry.bytes;
      if (entry.busy === 0) void entry.store?.close().catch(() => undefined);
    }
  }

  /** Closes every store (waits for none in use: call after the server stopped taking requests). */
  async closeAll() {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    this.#bytes = 0;
    await Promise.all(entries.map(async (e) => { await e.opening?.catch(() => undefined); await e.store?.close().catch(() => undefined); }));
  }
}
