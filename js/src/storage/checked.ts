/**
 * {@link checkedAdapter}: a host's own {@link StorageAdapter} behind the checks the store
 * relies on. The built-in adapters keep the contract by construction (their acceptance suite
 * says so); a custom one may throw synchronously, answer with `null`, or throw from
 * `subscribe`, and the store must still fail with a {@link RecallError}, never a `TypeError`.
 *
 * - Every method returns a promise: a synchronous throw becomes a rejection, which the store
 *   turns into `storage_failed` with the adapter's error as `cause`, as it does for any
 *   rejection.
 * - Answers of the wrong shape are `storage_failed` naming the method: `entries` must give
 *   an array of `[string, Uint8Array]` pairs, `keys` an array of strings, `get` a `Uint8Array`
 *   or `undefined`.
 * - `subscribe` that throws, or returns something other than an unsubscribe function, is
 *   `storage_failed` (with `cause`); notifications that are not arrays of keys are dropped;
 *   the unsubscribe function never throws (the store calls it while closing).
 * - The optional `storageInfo` and `stats` that `MemoryStore.storageInfo` reads are kept, and
 *   `onShut` (storage gone under the store: a PostgreSQL store dropped since).
 * - `create` ops reach only an adapter whose `checksCreates` is `true`; others get puts,
 *   each created key read first.
 * @module
 */
import { RecallError } from "../errors.js";
import type { StorageAdapter, StorageOp } from "./adapter.js";
import { asPuts, checkCreates } from "./ops.js";

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function badAnswer(call: string, value: unknown, expected: string): RecallError {
  return new RecallError("storage_failed", `the storage adapter's ${call} returned ${describe(value)}, not ${expected}`);
}

/** `run()` as a promise: a synchronous throw rejects it. */
async function settle<T>(run: () => Promise<T>): Promise<T> {
  return run();
}

/** The custom `adapter` behind the checks described in the module doc. */
export function checkedAdapter(adapter: StorageAdapter): StorageAdapter {
  const checked: StorageAdapter = {
    async get(key: string): Promise<Uint8Array | undefined> {
      const value = await settle(() => adapter.get(key));
      if (value !== undefined && !(value instanceof Uint8Array)) {
        throw badAnswer(`get(${JSON.stringify(key)})`, value, "a Uint8Array or undefined");
      }
      return value;
    },
    async entries(prefix?: string): Promise<Array<[string, Uint8Array]>> {
      const entries = await settle(() => adapter.entries(prefix));
      const expected = "an array of [key, Uint8Array] pairs";
      const what = `entries(${JSON.stringify(prefix ?? "")})`;
      if (!Array.isArray(entries)) throw badAnswer(what, entries, expected);
      for (let i = 0; i < entries.length; i++) {
        const entry: unknown = entries[i];
        if (!Array.isArray(entry) || typeof entry[0] !== "string" || !(entry[1] instanceof Uint8Array)) {
          throw badAnswer(what, entries, `${expected} (item ${i} is ${describe(entry)})`);
        }
      }
      return entries;
    },
    async keys(prefix?: string): Promise<string[]> {
      const keys = await settle(() => adapter.keys(prefix));
      const what = `keys(${JSON.stringify(prefix ?? "")})`;
      if (!Array.isArray(keys)) throw badAnswer(what, keys, "an array of strings");
      for (let i = 0; i < keys.length; i++) {
        if (typeof keys[i] !== "string") throw badAnswer(what, keys, `an array of strings (item ${i} is ${describe(keys[i])})`);
      }
      return keys;
    },
    // A custom adapter may predate `create`: unless it says it checks creates itself, it gets
    // puts, each create checked with get() first (as atomic as the adapter's own writers are:
    // one handle, one process).
    write: async (ops: StorageOp[]) => {
      if (adapter.checksCreates === true) return settle(() => adapter.write(ops));
      const batch = Array.isArray(ops) ? ops : [];
      const present = new Set<string>();
      for (const op of batch) {
        if (op?.op === "create" && (await settle(() => adapter.get(op.key))) !== undefined) present.add(op.key);
      }
      checkCreates(batch, (key) => present.has(key));
      return settle(() => adapter.write(Array.isArray(ops) ? asPuts(ops) : ops));
    },
    close: () => settle(() => adapter.close()),
  };
  const subscribe = adapter.subscribe;
  if (typeof subscribe === "function") {
    checked.subscribe = (listener) => {
      let unsubscribe: unknown;
      try {
        unsubscribe = subscribe.call(adapter, (keys: unknown) => {
          if (Array.isArray(keys)) listener(keys.filter((k): k is string => typeof k === "string"));
        });
      } catch (e) {
        throw new RecallError("storage_failed",
          `the storage adapter's subscribe() failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      if (typeof unsubscribe !== "function") throw badAnswer("subscribe()", unsubscribe, "an unsubscribe function");
      return () => {
        try {
          unsubscribe.call(adapter);
        } catch {
          // Closing goes on: the store stops listening either way.
        }
      };
    };
  }
  // Storage gone under the store (a PostgreSQL store dropped since): the store is told.
  const { onShut } = adapter as { onShut?: (listener: (reason: RecallError, deleted: boolean) => void) => void };
  if (typeof onShut === "function") {
    (checked as { onShut?: typeof onShut }).onShut = (listener) => onShut.call(adapter, listener);
  }
  // Extras MemoryStore.storageInfo reads when an adapter has them (the built-in ones do):
  // kept, as promises; the store reads their answers with care.
  const extras = adapter as { storageInfo?: () => unknown; stats?: () => unknown };
  const kept = checked as StorageAdapter & { storageInfo?: () => Promise<unknown>; stats?: () => Promise<unknown> };
  const { storageInfo, stats } = extras;
  if (typeof storageInfo === "function") kept.storageInfo = () => settle(async () => storageInfo.call(adapter));
  if (typeof stats === "function") kept.stats = () => settle(async () => stats.call(adapter));
  return checked;
}
