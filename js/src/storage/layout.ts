/**
 * How a {@link MemoryStore} lays out its records in a {@link StorageAdapter}: the keys, the
 * store configuration record and the write-sequence keys. Records are the truth; the snapshot
 * (`image.ts`) is a cache of them.
 *
 * | key | record (`codec.ts`) |
 * |---|---|
 * | `m/<id>` | kind `memory`: the memory's fields plus `order` (its insertion rank), its embedding and its 32-byte signature |
 * | `n/<id>` | kind `note`: the note |
 * | `e/<name>` | kind `entity`: the entity, keyed by its display name (unique per entity, as normal forms are) |
 * | `g/<edge id>` | kind `edge`: the edge (`from\|relation\|to`, normalised) |
 * | `meta/config` | kind `meta`: `{ format, dimensions?, signatureSeed }` |
 * | `meta/seq/<writer>/<n>` | kind `meta`: `{ seq }`; see below |
 * | `snapshot` | not a record: the snapshot blob (`snapshot.ts` framing around `image.ts`) |
 *
 * Write sequence. Every write batch of a store handle ("writer", a random id per open) puts a
 * fresh key `meta/seq/<writer>/<n>` (n counts that writer's batches) and deletes its previous
 * one, so the set of `meta/seq/` keys names the last batch of every writer. A snapshot records
 * the set it reflects and is used only when the stored set is exactly that set: any later
 * batch, by any tab or process, adds a key the snapshot does not name. A counter in one key
 * would not do: two tabs writing at once could both write the same value, and a snapshot
 * missing one tab's batch would then look current. Keys of writers that are gone are deleted
 * by the next writer that knows it is alone (the file store's lock; Web Locks for IndexedDB).
 * @module
 */
import { RecallError } from "../errors.js";
import { decodeRecord, encodeRecord } from "./codec.js";

/** The layout version in `meta/config`; an unknown version fails the open with `corrupt`. */
export const STORE_FORMAT = 1;
/** Memory records: `m/<id>`. */
export const MEMORY_PREFIX = "m/";
/** Note records: `n/<id>`. */
export const NOTE_PREFIX = "n/";
/** Entity records: `e/<display name>`. */
export const ENTITY_PREFIX = "e/";
/** Edge records: `g/<edge id>`. */
export const EDGE_PREFIX = "g/";
/** Store metadata: the configuration and the write-sequence keys. */
export const META_PREFIX = "meta/";
/** The configuration record. */
export const CONFIG_KEY = "meta/config";
/** Write-sequence keys: `meta/seq/<writer>/<n>`. */
export const SEQ_PREFIX = "meta/seq/";
/** The snapshot blob. */
export const SNAPSHOT_KEY = "snapshot";
/** The engine's default LSH seed (`DEFAULT_SIGNATURE_SEED` in `src/engine/mod.rs`, "recallki"). */
export const DEFAULT_SIGNATURE_SEED = 0x7265_6361_6c6c_6b69n;

/** What `meta/config` holds. */
export interface StoreConfig {
  /** {@link STORE_FORMAT}. */
  format: number;
  /** The embedding dimension, once fixed. */
  dimensions?: number;
  /** The LSH signature seed, 16 hex digits. */
  signatureSeed: string;
}

/** The seed as `meta/config` writes it: 16 lower-case hex digits. */
export function seedToHex(seed: bigint): string {
  return seed.toString(16).padStart(16, "0");
}

function corrupt(message: string): RecallError {
  return new RecallError("corrupt", message);
}

/**
 * Checks a configuration read from storage or an import line. Unknown formats and malformed
 * fields throw `corrupt`, loudly: a store written by a newer recallkit is never misread.
 */
export function checkConfig(data: Record<string, unknown>, where: string): StoreConfig {
  if (data.format !== STORE_FORMAT) {
    throw corrupt(`${where}: store format ${JSON.stringify(data.format)} is not supported (this recallkit reads format ${STORE_FORMAT})`);
  }
  const dims = data.dimensions;
  if (dims !== undefined && (!Number.isInteger(dims) || (dims as number) < 1)) {
    throw corrupt(`${where}: dimensions must be a positive integer, got ${JSON.stringify(dims)}`);
  }
  const seed = data.signatureSeed;
  if (typeof seed !== "string" || !/^[0-9a-f]{16}$/.test(seed)) {
    throw corrupt(`${where}: signatureSeed must be 16 hex digits, got ${JSON.stringify(seed)}`);
  }
  const out: StoreConfig = { format: STORE_FORMAT, signatureSeed: seed };
  if (dims !== undefined) out.dimensions = dims as number;
  return out;
}

/** The bytes of `meta/config`. */
export function encodeConfig(config: StoreConfig): Uint8Array {
  return encodeRecord({ kind: "meta", data: { ...config } });
}

/** Reads `meta/config`; `corrupt` for anything else. */
export function decodeConfig(bytes: Uint8Array): StoreConfig {
  const record = decodeRecord(bytes);
  if (record.kind !== "meta") throw corrupt(`${CONFIG_KEY} holds a ${record.kind} record`);
  return checkConfig(record.data, CONFIG_KEY);
}

/** A random writer id: 16 hex digits. */
export function newWriterId(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The write-sequence key of a writer's `n`th batch. */
export function seqKey(writer: string, n: number): string {
  return `${SEQ_PREFIX}${writer}/${n}`;
}

/** The bytes of a write-sequence key: `{ seq }`, a store-wide counter kept for inspection. */
export function encodeSeq(seq: number): Uint8Array {
  return encodeRecord({ kind: "meta", data: { seq } });
}

/** The `seq` of a write-sequence record (0 when unreadable: it is only informative). */
export function decodeSeq(bytes: Uint8Array): number {
  try {
    const seq = decodeRecord(bytes).data.seq;
    return typeof seq === "number" && Number.isFinite(seq) ? seq : 0;
  } catch {
    return 0;
  }
}

/** Whether two sets of write-sequence keys are equal. */
export function sameKeys(a: ReadonlySet<string>, b: readonly string[]): boolean {
  if (a.size !== b.length) return false;
  return b.every((k) => a.has(k));
}
