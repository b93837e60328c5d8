/**
 * {@link MemoryAdapter}: a {@link StorageAdapter} over a `Map`, for tests and ephemeral stores.
 * Values are copied in and out, so callers can never change stored bytes by mutating an array.
 * Nothing outlives the object; each instance is its own store.
 * @module
 */
import { RecallError } from "../errors.js";
import type { StorageAdapter, StorageOp } from "./adapter.js";
import { asPuts, checkCreates, checkKey, checkOps, checkPrefix, keysWithPrefix, sortKeys } from "./ops.js";

/** Options of the {@link MemoryAdapter} constructor. */
export interface MemoryAdapterOptions {
  /** Reject every `write` (for symmetry with the durable adapters). */
  readOnly?: boolean;
}

/** An in-memory {@link StorageAdapter}. */
export class MemoryAdapter implements StorageAdapter {
  /** `write` checks `create` ops itself, atomically (see {@link StorageAdapter.checksCreates}). */
  readonly checksCreates: boolean = true;
  readonly #values = new Map<string, Uint8Array>();
  readonly #readOnly: boolean;
  #sorted: string[] | undefined;
  #closed = false;

  /** Creates an empty store. */
  constructor(options: MemoryAdapterOptions = {}) {
    this.#readOnly = options.readOnly === true;
  }

  #live(): void {
    if (this.#closed) throw new RecallError("closed", "the memory store is closed");
  }

  #keys(prefix: string): string[] {
    this.#sorted ??= sortKeys(this.#values.keys());
    return keysWithPrefix(this.#sorted, prefix);
  }

  /** {@inheritDoc StorageAdapter.get} */
  async get(key: string): Promise<Uint8Array | undefined> {
    this.#live();
    const value = this.#values.get(checkKey(key));
    return value === undefined ? undefined : value.slice();
  }

  /** {@inheritDoc StorageAdapter.keys} */
  async keys(prefix?: string): Promise<string[]> {
    this.#live();
    return this.#keys(checkPrefix(prefix));
  }

  /** {@inheritDoc StorageAdapter.entries} */
  async entries(prefix?: string): Promise<Array<[string, Uint8Array]>> {
    this.#live();
    return this.#keys(checkPrefix(prefix)).map((k) => [k, this.#values.get(k)!.slice()]);
  }

  /** {@inheritDoc StorageAdapter.write} */
  async write(ops: StorageOp[]): Promise<void> {
    this.#live();
    const checked = checkOps(ops);
    if (this.#readOnly) throw new RecallError("invalid_argument", "the store was opened with readOnly: true");
    checkCreates(checked, (key) => this.#values.has(key));
    for (const op of asPuts(checked)) {
      if (op.op === "put") {
        if (!this.#values.has(op.key)) this.#sorted = undefined;
        this.#values.set(op.key, op.value);
      } else if (this.#values.delete(op.key)) {
        this.#sorted = undefined;
      }
    }
  }

  /** {@inheritDoc StorageAdapter.close} */
  async close(): Promise<void> {
    this.#closed = true;
    this.#values.clear();
    this.#sorted = undefined;
  }
}
