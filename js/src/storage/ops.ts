/**
 * Checks and helpers every {@link StorageAdapter} shares, so the adapters accept and reject the
 * same input: keys are well-formed strings (they must survive a UTF-8 round trip in the file
 * store), values are `Uint8Array`s copied on the way in, and key order is JavaScript's string
 * order (UTF-16 code units), which is also IndexedDB's order for string keys.
 * @module
 */
import { RecallError } from "../errors.js";
import type { StorageOp } from "./adapter.js";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether `s` is well-formed UTF-16: no lone surrogate (half of a pair without the other).
 * Such a string cannot cross into WebAssembly or UTF-8 unchanged (it becomes U+FFFD).
 */
export function isWellFormed(s: string): boolean {
  const native = (s as { isWellFormed?: () => boolean }).isWellFormed;
  return native !== undefined ? native.call(s) : !LONE_SURROGATE.test(s);
}

/** Throws `invalid_argument` unless `key` is a string without lone surrogates. */
export function checkKey(key: unknown, what = "key"): string {
  if (typeof key !== "string") throw new RecallError("invalid_argument", `${what} must be a string, got ${typeof key}`);
  if (!isWellFormed(key)) {
    throw new RecallError("invalid_argument", `${what} ${JSON.stringify(key)} contains a lone surrogate`);
  }
  return key;
}

/** Checks an optional prefix argument; `undefined` means every key. */
export function checkPrefix(prefix: unknown): string {
  return prefix === undefined ? "" : checkKey(prefix, "prefix");
}

/**
 * Validates a batch and copies its values, so that changing an input array after `write`
 * returns cannot change what is stored. Throws `invalid_argument` naming the bad op's index.
 */
export function checkOps(ops: unknown): StorageOp[] {
  if (!Array.isArray(ops)) throw new RecallError("invalid_argument", "write expects an array of ops");
  return ops.map((op: unknown, i): StorageOp => {
    if (typeof op !== "object" || op === null) throw new RecallError("invalid_argument", `op ${i}: must be an object`);
    const { op: kind, key, value } = op as { op?: unknown; key?: unknown; value?: unknown };
    const k = checkKey(key, `op ${i}: key`);
    if (kind === "delete") return { op: "delete", key: k };
    if (kind !== "put" && kind !== "create") {
      throw new RecallError("invalid_argument", `op ${i}: op must be "put", "create" or "delete", got ${String(kind)}`);
    }
    if (!(value instanceof Uint8Array)) {
      throw new RecallError("invalid_argument", `op ${i}: value of ${JSON.stringify(k)} must be a Uint8Array`);
    }
    return { op: kind, key: k, value: new Uint8Array(value) };
  });
}

/**
 * Throws `already_exists` for the first `create` of `batch` whose key `exists` says is there
 * (before the batch; a key the batch itself deleted earlier counts as absent). Adapters call
 * it where the check is atomic with their write.
 */
export function checkCreates(batch: readonly StorageOp[], exists: (key: string) => boolean): void {
  const changed = new Map<string, boolean>();
  for (const op of batch) {
    const present = changed.get(op.key) ?? exists(op.key);
    if (op.op === "create" && present) {
      throw new RecallError("already_exists", `${JSON.stringify(op.key)} already exists (written by another handle since this one read it)`);
    }
    changed.set(op.key, op.op !== "delete");
  }
}

/** `batch` with every `create` as the `put` it becomes once checked. */
export function asPuts(batch: readonly StorageOp[]): Array<Exclude<StorageOp, { op: "create" }>> {
  return batch.map((op) => (op.op === "create" ? { op: "put", key: op.key, value: op.value } : op));
}

/** The keys a batch changes, each once, in first-seen order. */
export function changedKeys(ops: readonly StorageOp[]): string[] {
  return [...new Set(ops.map((op) => op.key))];
}

/**
 * The least string greater than every string that starts with `prefix`, or `undefined` when
 * there is none (the prefix is empty or all `\uffff`). Used as an exclusive upper bound.
 */
export function prefixEnd(prefix: string): string | undefined {
  let end = prefix;
  while (end.length > 0 && end.charCodeAt(end.length - 1) === 0xffff) end = end.slice(0, -1);
  if (end.length === 0) return undefined;
  return end.slice(0, -1) + String.fromCharCode(end.charCodeAt(end.length - 1) + 1);
}

/** Index of the first element of sorted `keys` that is `>= key` (binary search). */
export function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The keys of sorted `keys` that start with `prefix`, in order. */
export function keysWithPrefix(keys: readonly string[], prefix: string): string[] {
  const start = lowerBound(keys, prefix);
  const end = prefixEnd(prefix);
  return keys.slice(start, end === undefined ? keys.length : lowerBound(keys, end));
}

/** Sorts keys in JavaScript string order (UTF-16 code units), the order every adapter returns. */
export function sortKeys(keys: Iterable<string>): string[] {
  // The default comparison is by UTF-16 code units, exactly `<` on strings.
  return [...keys].sort();
}
