/**
 * What a persisted record is ({@link StoredRecord}: a kind, JSON-compatible data, an optional
 * embedding and signature) and the checks both of its encodings share: the binary record of a
 * {@link StorageAdapter} (`codec.ts`) and the JSON line of export and import (`jsonl.ts`).
 * @module
 */
import { RecallError } from "../errors.js";

/** The kinds of record the store persists. */
export type RecordKind = "memory" | "note" | "entity" | "edge" | "meta";

/** One persisted record: JSON-compatible fields plus optional binary parts. */
export interface StoredRecord {
  /** What the record is. */
  kind: RecordKind;
  /** The record's fields; stored as JSON, so only JSON-compatible values survive. */
  data: Record<string, unknown>;
  /** The record's embedding, kept bit for bit. */
  embedding?: Float32Array;
  /** The record's LSH signature bytes. */
  signature?: Uint8Array;
}

/** Every kind, in the order of their codes in the binary record (1 memory … 5 meta). */
export const KINDS: readonly RecordKind[] = ["memory", "note", "entity", "edge", "meta"];

/** A `corrupt` error, with its cause when there is one. */
export function corrupt(message: string, cause?: unknown): RecallError {
  return new RecallError("corrupt", message, cause === undefined ? undefined : { cause });
}

/** Throws `invalid_argument` unless `record` is a {@link StoredRecord} an encoding can write. */
export function checkRecord(record: StoredRecord): void {
  if (typeof record !== "object" || record === null) {
    throw new RecallError("invalid_argument", `a record must be an object, got ${String(record)}`);
  }
  if (!KINDS.includes(record.kind)) {
    throw new RecallError("invalid_argument", `record kind must be one of ${KINDS.join(", ")}, got ${JSON.stringify(record.kind)}`);
  }
  if (!isPlainObject(record.data)) throw new RecallError("invalid_argument", "record data must be an object");
  if (record.embedding !== undefined && !(record.embedding instanceof Float32Array)) {
    throw new RecallError("invalid_argument", "record embedding must be a Float32Array");
  }
  if (record.signature !== undefined && !(record.signature instanceof Uint8Array)) {
    throw new RecallError("invalid_argument", "record signature must be a Uint8Array");
  }
}

/** Whether `value` is an object and not an array (or `null`). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
