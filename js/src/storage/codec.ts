/**
 * Record encoding: the bytes a {@link StorageAdapter} stores for each record. Each record is
 * encoded on its own, so no step ever builds one string for the whole store (JavaScript strings
 * stop at about 512 MiB), and no length field caps a record below what the adapters can hold.
 * The JSON Lines form of export and import (`jsonl.ts`) and the record type (`record.ts`) are
 * re-exported here, so one import reads and writes both forms.
 *
 * Binary record, format version 2 (written by {@link encodeRecord}; varints are unsigned
 * LEB128, at most 8 bytes, other integers little-endian):
 *
 * | field | size | content |
 * |---|---|---|
 * | magic | 2 | `"RK"` |
 * | version | 1 | 2 |
 * | kind | 1 | 1 memory, 2 note, 3 entity, 4 edge, 5 meta |
 * | flags | 1 | bit 0 embedding present, bit 1 signature present |
 * | dims | varint | only with bit 0: embedding length `d` |
 * | signature length | varint | only with bit 1: `s` |
 * | data | … | the record's data as a value (`values.ts`); always an object |
 * | embedding | 4d | raw float32 (bit-exact, NaN payloads and -0 included) |
 * | signature | s | signature bytes |
 *
 * Format version 1 (still read, never written): a 20-byte header (`"RK"`, version 1, kind,
 * flags, 3 reserved zero bytes, then u32 JSON length `j`, u32 dims `d`, u32 signature length
 * `s`), `data` as `j` bytes of UTF-8 JSON, the embedding (`4d` bytes), the signature (`s`).
 *
 * Unknown versions and garbage throw `corrupt`; each version has its own named decoder.
 * @module
 */
import { RecallError } from "../errors.js";
import { KINDS, checkRecord, corrupt, isPlainObject } from "./record.js";
import type { StoredRecord } from "./record.js";
import { Reader, T_OBJECT, Writer } from "./values.js";

export { FIELD_NAMES } from "./values.js";
export type { RecordKind, StoredRecord } from "./record.js";
export { JSON_LINE_VERSION, checkLineSource, fromJsonLine, fromJsonValue, readLines, toJsonLine } from "./jsonl.js";
export type { LineSource } from "./jsonl.js";

/** The binary record format version {@link encodeRecord} writes; {@link decodeRecord} reads it and version 1. */
export const CODEC_VERSION = 2;

const MAGIC_0 = 0x52; // "R"
const MAGIC_1 = 0x4b; // "K"
const V1_HEADER_BYTES = 20;
const V2_HEADER_BYTES = 5;
const FLAG_EMBEDDING = 1;
const FLAG_SIGNATURE = 2;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A copy in a buffer of its own (a Node Buffer's `slice()` would return a view of the same memory). */
function copyOf(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/** Copies float32s to little-endian bytes (or back: the swap is its own inverse). */
function float32Bytes(bytes: Uint8Array): Uint8Array {
  const out = copyOf(bytes);
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < out.length; i += 4) {
      const a = out[i]!, b = out[i + 1]!;
      out[i] = out[i + 3]!; out[i + 1] = out[i + 2]!; out[i + 2] = b; out[i + 3] = a;
    }
  }
  return out;
}

/**
 * Encodes a record as bytes (format {@link CODEC_VERSION}). Throws `invalid_argument` on a
 * malformed record, or data `JSON.stringify` would refuse (a BigInt, a cycle).
 */
export function encodeRecord(record: StoredRecord): Uint8Array {
  checkRecord(record);
  const embedding = record.embedding === undefined ? undefined
    : float32Bytes(new Uint8Array(record.embedding.buffer, record.embedding.byteOffset, record.embedding.byteLength));
  const signature = record.signature;
  const w = new Writer();
  w.byte(MAGIC_0);
  w.byte(MAGIC_1);
  w.byte(CODEC_VERSION);
  w.byte(KINDS.indexOf(record.kind) + 1);
  w.byte((embedding ? FLAG_EMBEDDING : 0) | (signature ? FLAG_SIGNATURE : 0));
  if (record.embedding) w.varint(record.embedding.length);
  if (signature) w.varint(signature.length);
  const start = w.at;
  let wrote: boolean;
  try {
    wrote = w.value(record.data, "");
  } catch (e) {
    if (e instanceof RecallError) throw e;
    throw new RecallError("invalid_argument", `record data is not JSON-serialisable: ${String(e)}`, { cause: e });
  }
  if (!wrote || w.bytes[start] !== T_OBJECT) throw new RecallError("invalid_argument", "record data must be an object");
  if (embedding) w.raw(embedding);
  if (signature) w.raw(signature);
  return w.bytes.slice(0, w.at);
}

/**
 * How many bytes at the end of an encoded record are its raw embedding and signature (random
 * to a compressor): 0 for anything that is not a well-formed record header. The file log keeps
 * these bytes out of its compression.
 */
export function recordTailBytes(bytes: Uint8Array): number {
  if (bytes.length < V2_HEADER_BYTES || bytes[0] !== MAGIC_0 || bytes[1] !== MAGIC_1) return 0;
  let dims = 0;
  let signature = 0;
  if (bytes[2] === 1) {
    if (bytes.length < V1_HEADER_BYTES) return 0;
    const view = new DataView(bytes.buffer, bytes.byteOffset, V1_HEADER_BYTES);
    dims = view.getUint32(12, true);
    signature = view.getUint32(16, true);
  } else if (bytes[2] === 2) {
    try {
      const r = new Reader(bytes, V2_HEADER_BYTES);
      if (bytes[4]! & FLAG_EMBEDDING) dims = r.varint();
      if (bytes[4]! & FLAG_SIGNATURE) signature = r.varint();
    } catch {
      return 0;
    }
  }
  const tail = dims * 4 + signature;
  return tail <= bytes.length ? tail : 0;
}

/** Decodes {@link encodeRecord}'s bytes, of format version 2 or 1. Throws `corrupt` on garbage or an unknown format version. */
export function decodeRecord(bytes: Uint8Array): StoredRecord {
  if (!(bytes instanceof Uint8Array)) throw corrupt("a record must be a Uint8Array");
  if (bytes.length < 3 || bytes[0] !== MAGIC_0 || bytes[1] !== MAGIC_1) {
    throw corrupt(`not a recallkit record (${bytes.length} bytes, no "RK" header)`);
  }
  switch (bytes[2]) {
    case 2:
      return decodeV2(bytes);
    case 1:
      return decodeV1(bytes);
    default:
      throw corrupt(`record format version ${bytes[2]} is not supported (this recallkit reads versions 1 and ${CODEC_VERSION})`);
  }
}

function decodeV2(bytes: Uint8Array): StoredRecord {
  if (bytes.length < V2_HEADER_BYTES) throw corrupt(`record of ${bytes.length} bytes is shorter than its header`);
  const kind = KINDS[bytes[3]! - 1];
  if (kind === undefined) throw corrupt(`unknown record kind ${bytes[3]}`);
  const flags = bytes[4]!;
  if ((flags & ~(FLAG_EMBEDDING | FLAG_SIGNATURE)) !== 0) throw corrupt(`record header has unknown flags (${flags})`);
  const r = new Reader(bytes, V2_HEADER_BYTES);
  const dims = flags & FLAG_EMBEDDING ? r.varint() : 0;
  const signatureBytes = flags & FLAG_SIGNATURE ? r.varint() : 0;
  if (bytes[r.at] !== T_OBJECT) throw corrupt("record data is not an object");
  const data = r.value(0) as Record<string, unknown>;
  if (r.at + dims * 4 + signatureBytes !== bytes.length) {
    throw corrupt(`record lengths (data ${r.at - V2_HEADER_BYTES}, dims ${dims}, signature ${signatureBytes}) do not add up to ${bytes.length} bytes`);
  }
  const record: StoredRecord = { kind, data };
  if (flags & FLAG_EMBEDDING) record.embedding = new Float32Array(float32Bytes(r.take(dims * 4)).buffer);
  if (flags & FLAG_SIGNATURE) record.signature = copyOf(r.take(signatureBytes));
  return record;
}

function decodeV1(bytes: Uint8Array): StoredRecord {
  if (bytes.length < V1_HEADER_BYTES) throw corrupt(`not a recallkit record (${bytes.length} bytes, shorter than a version 1 header)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kind = KINDS[bytes[3]! - 1];
  if (kind === undefined) throw corrupt(`unknown record kind ${bytes[3]}`);
  const flags = bytes[4]!;
  if ((flags & ~(FLAG_EMBEDDING | FLAG_SIGNATURE)) !== 0 || bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) {
    throw corrupt(`record header has unknown flags or reserved bits (flags ${flags})`);
  }
  const jsonBytes = view.getUint32(8, true);
  const dims = view.getUint32(12, true);
  const signatureBytes = view.getUint32(16, true);
  if ((!(flags & FLAG_EMBEDDING) && dims !== 0) || (!(flags & FLAG_SIGNATURE) && signatureBytes !== 0)) {
    throw corrupt("record header lengths contradict its flags");
  }
  if (V1_HEADER_BYTES + jsonBytes + dims * 4 + signatureBytes !== bytes.length) {
    throw corrupt(`record lengths (json ${jsonBytes}, dims ${dims}, signature ${signatureBytes}) do not add up to ${bytes.length} bytes`);
  }
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(V1_HEADER_BYTES, V1_HEADER_BYTES + jsonBytes)));
  } catch (e) {
    throw corrupt(`record data is not UTF-8 JSON: ${String(e)}`, e);
  }
  if (!isPlainObject(data)) throw corrupt("record data is not a JSON object");
  const record: StoredRecord = { kind, data };
  let at = V1_HEADER_BYTES + jsonBytes;
  if (flags & FLAG_EMBEDDING) {
    record.embedding = new Float32Array(float32Bytes(bytes.subarray(at, at + dims * 4)).buffer);
    at += dims * 4;
  }
  if (flags & FLAG_SIGNATURE) record.signature = copyOf(bytes.subarray(at, at + signatureBytes));
  return record;
}
