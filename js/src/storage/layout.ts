/**
 * How a {@link MemoryStore} lays out its records in a {@link StorageAdapter}: the keys, the
 * store configuration, the write sequence and the journal. Records are the truth; the
 * snapshot (`image.ts`) is a cache of them that is never trusted over them.
 *
 * | key | value (`codec.ts` record, kind) |
 * |---|---|
 * | `m/<id>` | `memory`: the memory's fields plus `order` (its insertion rank), its embedding and its 32-byte signature |
 * | `r/<id>` | `meta`: `{ recallCount, lastRecalledAt?, recallTimestamps }`, the memory's recall tracking, which overrides that of `m/<id>` (see below) |
 * | `n/<id>` | `note`: the note |
 * | `e/<name>` | `entity`: the entity, keyed by its display name (unique per entity, as normal forms are) |
 * | `g/<edge id>` | `edge`: the edge (`from\|relation\|to`, normalised) |
 * | `meta/config` | `meta`: `{ format, dimensions?, signatureSeed }` |
 * | `meta/seq/<writer>` | `meta`: `{ n, closed? }`, the number of that writer's last batch, and `closed: true` once it has closed |
 * | `meta/journal/<writer>/<n>` | `meta`: `{ keys, pruned }`, the record keys batch `n` changed (snapshot stores only) |
 * | `snapshot/<i>` | not records: the snapshot (`snapshot.ts` framing around `image.ts`) in chunks of at most {@link SNAPSHOT_CHUNK_BYTES} (Chromium refuses IndexedDB values over 127 MiB), written in one batch |
 *
 * Write sequence. Each open store handle is a "writer" with a random id; its `n`th write batch
 * puts `meta/seq/<writer>` = n and the journal entry `meta/journal/<writer>/<n>`, atomically
 * with the records. A snapshot records, for every writer, the last batch it reflects (its
 * "claims"), and its write deletes the journal entries it reflects. An open uses the snapshot
 * only when, for every writer with a `meta/seq` key, the journal holds every batch after the
 * claimed one ({@link planReplay}); it then loads the snapshot and re-reads the records those
 * batches changed. Anything missing (a writer the snapshot claims that is gone without a
 * visible prune, a gap in a journal, a damaged or foreign snapshot) means a rebuild from the
 * records. One counter for the whole store would not do: two tabs writing at once could both
 * write the same value, and a snapshot missing one tab's batch would then look current.
 *
 * Recall tracking. A recall persists the counts of the memories it returned as `r/<id>`, never
 * as `m/<id>`: the handle's copy of a memory may be older than storage's (another tab's or
 * process's update or forget it has not heard of yet), and writing it back whole undid that
 * change. An `r/<id>` without its `m/<id>` (a recall racing a forget) is an orphan: loading
 * ignores it, a batch that creates memory `<id>` deletes it, and a writer that finds one (an open
 * from the records, a snapshot write) deletes it in a batch that also creates and deletes
 * `m/<id>`, so that it fails with `already_exists`, deleting nothing, when another handle has
 * stored that memory since (`records.ts`: `orphanOps`).
 *
 * Pruning. A writer that knows it is alone (the file store's lock; IndexedDB with Web Locks
 * and no other holder) deletes the `meta/seq` keys of the writers it loaded with its first
 * batch, recording their last `n` in its journal entry (`pruned`): every handle alive then
 * has loaded their batches. Where no writer can know that (PostgreSQL, custom adapters: other
 * processes), a writer that closes marks its key `closed: true` (or, when its closing snapshot
 * is written, deletes it there), and a snapshot that reflects every batch of a closed writer
 * deletes its key in the snapshot's batch and leaves it out of its claims: that writer never
 * writes again, so no later batch of it can be missed, and an open treats a writer with neither
 * key nor claim as one whose batches all precede the snapshot. So the keys are bounded by the
 * handles open (and those that ended without closing), not by every handle that ever wrote.
 * Journal entries are deleted only by snapshot writes.
 * @module
 */
import { RecallError } from "../errors.js";
import { decodeRecord, encodeRecord } from "./codec.js";

/** The layout version in `meta/config`; an unknown version fails the open with `corrupt`. */
export const STORE_FORMAT = 1;
/** Largest embedding dimension (the engine's `MAX_DIMS`, `src/vector/dense.rs`). */
export const MAX_DIMENSIONS = 4096;
/** Memory records: `m/<id>`. */
export const MEMORY_PREFIX = "m/";
/** Recall tracking of a memory: `r/<id>` (see the module docs). */
export const TRACKING_PREFIX = "r/";
/** Note records: `n/<id>`. */
export const NOTE_PREFIX = "n/";
/** Entity records: `e/<display name>`. */
export const ENTITY_PREFIX = "e/";
/** Edge records: `g/<edge id>`. */
export const EDGE_PREFIX = "g/";
/** Store metadata: the configuration, the write sequence and the journal. */
export const META_PREFIX = "meta/";
/** The configuration record. */
export const CONFIG_KEY = "meta/config";
/** Write-sequence keys: `meta/seq/<writer>`. */
export const SEQ_PREFIX = "meta/seq/";
/** Journal entries: `meta/journal/<writer>/<n>`. */
export const JOURNAL_PREFIX = "meta/journal/";
/** The snapshot's chunks: `snapshot/000000`, `snapshot/000001`, … */
export const SNAPSHOT_PREFIX = "snapshot/";
/** Largest snapshot chunk (32 MiB). */
export const SNAPSHOT_CHUNK_BYTES = 32 << 20;
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

/** A journal entry: the record keys one batch changed, and the writers it pruned (writer → last batch). */
export interface JournalEntry {
  keys: string[];
  pruned: Record<string, number>;
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
  if (dims !== undefined && (!Number.isInteger(dims) || (dims as number) < 1 || (dims as number) > MAX_DIMENSIONS)) {
    throw corrupt(`${where}: dimensions must be an integer in 1..${MAX_DIMENSIONS}, got ${JSON.stringify(dims)}`);
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

/** The write-sequence key of a writer. */
export function seqKey(writer: string): string {
  return `${SEQ_PREFIX}${writer}`;
}

/** The journal key of a writer's `n`th batch. */
export function journalKey(writer: string, n: number): string {
  return `${JOURNAL_PREFIX}${writer}/${n}`;
}

/** The writer and batch number of a journal key, or `undefined` for another key. */
export function parseJournalKey(key: string): { writer: string; n: number } | undefined {
  if (!key.startsWith(JOURNAL_PREFIX)) return undefined;
  const rest = key.slice(JOURNAL_PREFIX.length);
  const slash = rest.lastIndexOf("/");
  const n = Number(rest.slice(slash + 1));
  if (slash <= 0 || !Number.isSafeInteger(n) || n < 1) return undefined;
  return { writer: rest.slice(0, slash), n };
}

/** The bytes of a write-sequence key (`closed`: its writer has closed, see the module docs). */
export function encodeSeq(n: number, closed = false): Uint8Array {
  return encodeRecord({ kind: "meta", data: closed ? { n, closed: true } : { n } });
}

/** Whether a write-sequence record says its writer has closed (it writes no more batches). */
export function isClosedSeq(bytes: Uint8Array): boolean {
  try {
    return decodeRecord(bytes).data.closed === true;
  } catch {
    return false;
  }
}

/** The batch number of a write-sequence record; `corrupt` when unreadable. */
export function decodeSeq(bytes: Uint8Array, key: string): number {
  const n = decodeRecord(bytes).data.n;
  if (!Number.isSafeInteger(n) || (n as number) < 1) throw corrupt(`${key}: not a batch number: ${JSON.stringify(n)}`);
  return n as number;
}

/** The bytes of a journal entry. */
export function encodeJournal(entry: JournalEntry): Uint8Array {
  return encodeRecord({ kind: "meta", data: { keys: entry.keys, pruned: entry.pruned } });
}

/** Reads a journal entry; `undefined` when unreadable (the snapshot is then not used). */
export function decodeJournal(bytes: Uint8Array): JournalEntry | undefined {
  try {
    const { keys, pruned } = decodeRecord(bytes).data;
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === "string")) return undefined;
    if (typeof pruned !== "object" || pruned === null || Array.isArray(pruned)) return undefined;
    if (!Object.values(pruned).every((n) => Number.isSafeInteger(n))) return undefined;
    return { keys, pruned: pruned as Record<string, number> };
  } catch {
    return undefined;
  }
}

/**
 * Whether a snapshot that reflects `claims` (writer → last batch) can be brought up to date
 * with the journal, and how: the record keys to re-read after loading it, or `undefined` when
 * it cannot be used. `seqs` are the stored write-sequence keys (writer → last batch) and
 * `journal` the stored entries (writer → batch → entry).
 *
 * Every writer that still has a `meta/seq` key, and every writer pruned by a batch the
 * snapshot does not reflect (up to the batch recorded at pruning), must have every batch after
 * its claim in the journal. A claimed writer whose key is gone must have been pruned so.
 * Writers with no key and no such prune were pruned by a batch the snapshot reflects: their
 * batches all precede it, and their leftover entries are ignored.
 */
export function planReplay(
  claims: ReadonlyMap<string, number>, seqs: ReadonlyMap<string, number>,
  journal: ReadonlyMap<string, ReadonlyMap<number, JournalEntry>>,
): string[] | undefined {
  const keys = new Set<string>();
  const latest = new Map(seqs);
  const covered = new Map<string, number>();
  const pending = [...latest.keys()];
  while (pending.length > 0) {
    const writer = pending.pop()!;
    const to = latest.get(writer)!;
    const from = Math.max(claims.get(writer) ?? 0, covered.get(writer) ?? 0) + 1;
    if ((claims.get(writer) ?? 0) > to) return undefined;
    for (let n = from; n <= to; n++) {
      const entry = journal.get(writer)?.get(n);
      if (entry === undefined) return undefined;
      for (const k of entry.keys) keys.add(k);
      for (const [other, last] of Object.entries(entry.pruned)) {
        if (seqs.has(other) || last <= (latest.get(other) ?? 0)) continue;
        latest.set(other, last);
        pending.push(other);
      }
    }
    covered.set(writer, Math.max(covered.get(writer) ?? 0, to));
  }
  for (const writer of claims.keys()) if (!latest.has(writer)) return undefined;
  return [...keys];
}

/** The key of snapshot chunk `i`. */
export function snapshotKey(i: number): string {
  return `${SNAPSHOT_PREFIX}${String(i).padStart(6, "0")}`;
}

/** Cuts a snapshot into chunks (views, no copies). */
export function snapshotChunks(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += SNAPSHOT_CHUNK_BYTES) out.push(bytes.subarray(at, at + SNAPSHOT_CHUNK_BYTES));
  return out;
}
