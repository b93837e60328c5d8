/**
 * Record encoding: the bytes a {@link StorageAdapter} stores for each record, and the JSON
 * Lines format of export/import. Each record is encoded on its own, so no step ever builds one
 * string for the whole store (JavaScript strings stop at about 512 MiB), and no length field
 * caps a record below what the adapters can hold.
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
 * | data | … | the record's data as a value (below); always an object |
 * | embedding | 4d | raw float32 (bit-exact, NaN payloads and -0 included) |
 * | signature | s | signature bytes |
 *
 * A value is a tag byte and its content: 0 null, 1 false, 2 true; 3 a non-negative integer
 * (varint) and 4 a negative one (varint of its magnitude), both within ±(2^53 - 1); 5 any
 * other number (float64); 6 a string (varint UTF-8 length, UTF-8); 7 a string with lone
 * surrogates (varint length, then its JSON text, which keeps them); 8 an array (varint count,
 * values); 9 an object (varint count, then per field a key and a value). A key is a varint
 * `k`: `k ≥ 1` names field `k - 1` of {@link FIELD_NAMES} (the names recallkit's records use),
 * `k = 0` is followed by the name as a string value (tag 6 or 7). So no record repeats its
 * field names, integers such as timestamps take 1–8 bytes, and the text is stored as UTF-8.
 * Data means exactly what `JSON.stringify` would keep: `undefined`, functions and symbols
 * drop out of objects (and are `null` in arrays), `toJSON` is called, non-finite numbers are
 * `null`, `-0` is `0`.
 *
 * Format version 1 (still read, never written): a 20-byte header (`"RK"`, version 1, kind,
 * flags, 3 reserved zero bytes, then u32 JSON length `j`, u32 dims `d`, u32 signature length
 * `s`), `data` as `j` bytes of UTF-8 JSON, the embedding (`4d` bytes), the signature (`s`).
 *
 * A JSON line is `{"v":1,"kind":…,"data":{…},"embedding":[…],"signature":"hex"}`; embedding
 * numbers print each float32 exactly (shortest round-trip decimal, `-0` kept). Its version
 * ({@link JSON_LINE_VERSION}) is separate from the binary one.
 * Unknown versions and garbage throw `corrupt`; each version has its own named decoder.
 * @module
 */
import { RecallError } from "../errors.js";
import { isWellFormed } from "./ops.js";

/** The binary record format version {@link encodeRecord} writes; {@link decodeRecord} reads it and version 1. */
export const CODEC_VERSION = 2;
/** The JSON Lines format version {@link toJsonLine} writes and {@link fromJsonLine} reads. */
export const JSON_LINE_VERSION = 1;

/**
 * Field names a version-2 record stores as one byte (key `k` = index + 1). Part of the
 * format: append-only, and only together with a new {@link CODEC_VERSION}.
 */
export const FIELD_NAMES: readonly string[] = Object.freeze([
  // memories
  "id", "text", "textEn", "keywords", "userId", "topic", "tags", "type", "tier", "emotion", "emotionTags",
  "importance", "confidence", "trust", "credibility", "relevance", "classification", "createdAt", "updatedAt",
  "validFrom", "validTo", "expiresAt", "entities", "recallCount", "lastRecalledAt", "recallTimestamps", "order",
  // notes, entities, edges
  "period", "start", "end", "name", "aliases", "from", "relation", "to", "strength", "memoryIds", "lastSeenAt",
  // meta records
  "format", "dimensions", "signatureSeed", "n", "keys", "pruned",
]);

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

const MAGIC_0 = 0x52; // "R"
const MAGIC_1 = 0x4b; // "K"
const V1_HEADER_BYTES = 20;
const FLAG_EMBEDDING = 1;
const FLAG_SIGNATURE = 2;
const KINDS: readonly RecordKind[] = ["memory", "note", "entity", "edge", "meta"];
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const JSON_LINE_FIELDS = new Set(["v", "kind", "data", "embedding", "signature"]);

const encoder = new TextEncoder();

function corrupt(message: string, cause?: unknown): RecallError {
  return new RecallError("corrupt", message, cause === undefined ? undefined : { cause });
}

function checkRecord(record: StoredRecord): void {
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringifyData(data: Record<string, unknown>): string {
  try {
    return JSON.stringify(data);
  } catch (e) {
    throw new RecallError("invalid_argument", `record data is not JSON-serialisable: ${String(e)}`, { cause: e });
  }
}

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

const V2_HEADER_BYTES = 5;
const T_NULL = 0, T_FALSE = 1, T_TRUE = 2, T_UINT = 3, T_NEGINT = 4, T_FLOAT = 5, T_STRING = 6, T_JSON_STRING = 7,
  T_ARRAY = 8, T_OBJECT = 9;
/** Largest varint: 8 bytes hold 56 bits, enough for every safe integer and any length. */
const MAX_VARINT_BYTES = 8;
const FIELD_INDEX = new Map(FIELD_NAMES.map((name, i) => [name, i + 1]));
const MAX_DEPTH = 1000;

function notSerialisable(why: string): RecallError {
  return new RecallError("invalid_argument", `record data is not JSON-serialisable: ${why}`);
}

/** A growable byte buffer for {@link encodeRecord}. */
class Writer {
  bytes = new Uint8Array(256);
  at = 0;
  /** Objects and arrays being written, to refuse cycles as `JSON.stringify` does. */
  readonly stack: object[] = [];

  reserve(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.at + n));
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
  }

  byte(b: number): void {
    this.reserve(1);
    this.bytes[this.at++] = b;
  }

  varint(n: number): void {
    this.reserve(MAX_VARINT_BYTES);
    while (n >= 0x80) {
      this.bytes[this.at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.bytes[this.at++] = n;
  }

  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.at);
    this.at += bytes.length;
  }

  /** A string as tag 6 (UTF-8) or, with lone surrogates, tag 7 (its JSON text). */
  string(s: string): void {
    if (!isWellFormed(s)) {
      this.byte(T_JSON_STRING);
      const json = encoder.encode(JSON.stringify(s));
      this.varint(json.length);
      this.raw(json);
      return;
    }
    this.byte(T_STRING);
    if (s.length < 0x80 && isAscii(s)) { // the common case: one length byte, one byte per char
      this.reserve(1 + s.length);
      this.bytes[this.at++] = s.length;
      for (let i = 0; i < s.length; i++) this.bytes[this.at++] = s.charCodeAt(i);
      return;
    }
    const max = s.length * 3;
    const lengthBytes = varintBytes(max);
    this.reserve(MAX_VARINT_BYTES + max); // so varint() below never reallocates over the encoded bytes
    const { written } = encoder.encodeInto(s, this.bytes.subarray(this.at + lengthBytes));
    const start = this.at;
    this.varint(written);
    if (this.at !== start + lengthBytes) this.bytes.copyWithin(this.at, start + lengthBytes, start + lengthBytes + written);
    this.at += written;
  }

  number(x: number): void {
    if (!Number.isFinite(x)) {
      this.byte(T_NULL);
    } else if (Number.isSafeInteger(x)) {
      this.byte(x >= 0 ? T_UINT : T_NEGINT);
      this.varint(Math.abs(x)); // -0 becomes 0, as in JSON
    } else {
      this.byte(T_FLOAT);
      this.reserve(8);
      new DataView(this.bytes.buffer).setFloat64(this.at, x, true);
      this.at += 8;
    }
  }

  /** Writes `value` as `JSON.stringify` would see it; `false` when it has no JSON form (`undefined`, a function, a symbol). */
  value(value: unknown, key: string): boolean {
    if (value !== null && (typeof value === "object" || typeof value === "bigint")
      && typeof (value as { toJSON?: unknown }).toJSON === "function") {
      value = (value as { toJSON(key: string): unknown }).toJSON(key);
    }
    switch (typeof value) {
      case "string": this.string(value); return true;
      case "number": this.number(value); return true;
      case "boolean": this.byte(value ? T_TRUE : T_FALSE); return true;
      case "bigint": throw notSerialisable("a BigInt has no JSON form");
      case "undefined": case "function": case "symbol": return false;
    }
    if (value === null) {
      this.byte(T_NULL);
      return true;
    }
    if (value instanceof Number || value instanceof String || value instanceof Boolean) return this.value(value.valueOf(), key);
    const object = value as object;
    if (this.stack.includes(object)) throw notSerialisable("it is cyclic");
    if (this.stack.length >= MAX_DEPTH) throw notSerialisable(`it nests deeper than ${MAX_DEPTH} levels`);
    this.stack.push(object);
    if (Array.isArray(object)) {
      this.byte(T_ARRAY);
      this.varint(object.length);
      for (let i = 0; i < object.length; i++) if (!this.value(object[i], String(i))) this.byte(T_NULL);
    } else {
      this.byte(T_OBJECT);
      const keys = Object.keys(object);
      const countAt = this.at;
      this.varint(keys.length); // rewritten below when some fields drop out
      let count = 0;
      for (const k of keys) {
        const mark = this.at;
        const index = FIELD_INDEX.get(k);
        if (index !== undefined) {
          this.varint(index);
        } else {
          this.byte(0);
          this.string(k);
        }
        if (this.value((object as Record<string, unknown>)[k], k)) count++;
        else this.at = mark;
      }
      if (count !== keys.length) {
        const end = this.at;
        const before = varintBytes(keys.length);
        const after = varintBytes(count);
        this.at = countAt;
        this.varint(count);
        if (after !== before) this.bytes.copyWithin(countAt + after, countAt + before, end);
        this.at = end - before + after;
      }
    }
    this.stack.pop();
    return true;
  }
}

function varintBytes(n: number): number {
  let bytes = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    bytes++;
  }
  return bytes;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
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

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a version-2 record body; every overrun or unknown tag is `corrupt`. */
class Reader {
  at: number;
  readonly view: DataView;

  constructor(readonly bytes: Uint8Array, at: number) {
    this.at = at;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  byte(): number {
    if (this.at >= this.bytes.length) throw corrupt("record data runs past its end");
    return this.bytes[this.at++]!;
  }

  varint(): number {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < MAX_VARINT_BYTES; i++) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (!Number.isSafeInteger(n)) throw corrupt(`record holds an integer beyond 2^53: ${n}`);
        return n;
      }
      scale *= 0x80;
    }
    throw corrupt("record holds a varint longer than 8 bytes");
  }

  take(n: number): Uint8Array {
    if (n > this.bytes.length - this.at) throw corrupt("record data runs past its end");
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  string(tag: number): string {
    const raw = this.take(this.varint());
    if (tag === T_STRING) {
      if (raw.length <= 32) { // short ASCII strings (ids, topics, tags) skip the decoder call
        let ascii = true;
        for (let i = 0; i < raw.length; i++) if (raw[i]! >= 0x80) { ascii = false; break; }
        if (ascii) return String.fromCharCode(...raw);
      }
      try {
        return utf8.decode(raw);
      } catch (e) {
        throw corrupt("record data holds a string that is not UTF-8", e);
      }
    }
    let s: unknown;
    try {
      s = JSON.parse(utf8.decode(raw));
    } catch (e) {
      throw corrupt("record data holds a string that is not a JSON string", e);
    }
    if (typeof s !== "string") throw corrupt("record data holds a string that is not a JSON string");
    return s;
  }

  value(depth: number): unknown {
    const tag = this.byte();
    switch (tag) {
      case T_NULL: return null;
      case T_FALSE: return false;
      case T_TRUE: return true;
      case T_UINT: return this.varint();
      case T_NEGINT: return -this.varint() || 0;
      case T_FLOAT: {
        this.take(8);
        const x = this.view.getFloat64(this.at - 8, true);
        if (!Number.isFinite(x)) throw corrupt(`record holds the number ${x}, which JSON cannot`);
        return x;
      }
      case T_STRING: case T_JSON_STRING: return this.string(tag);
    }
    if (tag !== T_ARRAY && tag !== T_OBJECT) throw corrupt(`record data has unknown value tag ${tag}`);
    if (depth >= MAX_DEPTH) throw corrupt(`record data nests deeper than ${MAX_DEPTH} levels`);
    const count = this.varint();
    if (count > this.bytes.length - this.at) throw corrupt("record data runs past its end");
    if (tag === T_ARRAY) {
      const out: unknown[] = [];
      for (let i = 0; i < count; i++) out.push(this.value(depth + 1));
      return out;
    }
    const out: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const k = this.varint();
      let key: string;
      if (k > 0) {
        const name = FIELD_NAMES[k - 1];
        if (name === undefined) throw corrupt(`record data names unknown field ${k}`);
        key = name;
      } else {
        const t = this.byte();
        if (t !== T_STRING && t !== T_JSON_STRING) throw corrupt(`record data has a field name with tag ${t}`);
        key = this.string(t);
      }
      const v = this.value(depth + 1);
      // As JSON.parse: "__proto__" is an own field, never the prototype.
      if (key === "__proto__") Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
    }
    return out;
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

function formatFloat(x: number): string {
  if (!Number.isFinite(x)) throw new RecallError("invalid_embedding", `an embedding value is ${x}; JSON cannot hold it`);
  return Object.is(x, -0) ? "-0" : String(x);
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw corrupt(`signature is not hex: ${JSON.stringify(hex.slice(0, 80))}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * One record as a line of JSON (without the newline) for export. Embedding values print
 * exactly; throws `invalid_embedding` for NaN or infinite values, which JSON cannot hold.
 */
export function toJsonLine(record: StoredRecord): string {
  checkRecord(record);
  let line = `{"v":${JSON_LINE_VERSION},"kind":${JSON.stringify(record.kind)},"data":${stringifyData(record.data)}`;
  if (record.embedding !== undefined) line += `,"embedding":[${Array.from(record.embedding, formatFloat).join(",")}]`;
  if (record.signature !== undefined) line += `,"signature":"${toHex(record.signature)}"`;
  return line + "}";
}

/** Parses a line written by {@link toJsonLine}. Throws `corrupt` on anything else. */
export function fromJsonLine(line: string): StoredRecord {
  if (typeof line !== "string") throw corrupt("a JSON line must be a string");
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    throw corrupt(`not a JSON line: ${JSON.stringify(line.slice(0, 80))}`, e);
  }
  if (!isPlainObject(value)) throw corrupt(`a JSON line must hold an object: ${JSON.stringify(line.slice(0, 80))}`);
  if (value.v !== JSON_LINE_VERSION) {
    throw corrupt(`JSON line format version ${JSON.stringify(value.v)} is not supported (this recallkit reads version ${JSON_LINE_VERSION})`);
  }
  for (const key of Object.keys(value)) {
    if (!JSON_LINE_FIELDS.has(key)) throw corrupt(`unknown field ${JSON.stringify(key)} in a JSON line`);
  }
  const kind = value.kind as RecordKind;
  if (!KINDS.includes(kind)) throw corrupt(`unknown record kind ${JSON.stringify(value.kind)}`);
  if (!isPlainObject(value.data)) throw corrupt("a JSON line's data must be an object");
  const record: StoredRecord = { kind, data: value.data };
  if (value.embedding !== undefined) {
    const values = value.embedding;
    if (!Array.isArray(values) || !values.every((x) => typeof x === "number")) {
      throw corrupt("a JSON line's embedding must be an array of numbers");
    }
    if (values.length === 0) throw corrupt("a JSON line's embedding is empty");
    record.embedding = Float32Array.from(values);
    if (!record.embedding.every(Number.isFinite)) throw corrupt("a JSON line's embedding has a value outside float32 range");
  }
  if (value.signature !== undefined) {
    if (typeof value.signature !== "string") throw corrupt("a JSON line's signature must be a hex string");
    record.signature = fromHex(value.signature);
  }
  return record;
}

/** Anything {@link readLines} can split: a whole string, a web `ReadableStream`, or an async iterable of chunks. */
export type LineSource = string | ReadableStream<string | Uint8Array> | AsyncIterable<string | Uint8Array>;

function isReadableStream(source: object): source is ReadableStream<string | Uint8Array> {
  return typeof (source as { getReader?: unknown }).getReader === "function";
}

/** Throws `invalid_argument` unless `source` is a {@link LineSource}; `what` names it. */
export function checkLineSource(source: unknown, what: string): asserts source is LineSource {
  if (typeof source === "string") return;
  if (typeof source === "object" && source !== null
    && (isReadableStream(source) || typeof (source as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function")) return;
  const got = source === null || typeof source !== "object" ? String(source) : Array.isArray(source) ? "an array" : "an object";
  throw new RecallError("invalid_argument",
    `${what} must be a string, a ReadableStream or an async iterable of strings or bytes, got ${typeof source === "function" ? "a function" : got}`);
}

async function* chunksOf(source: ReadableStream<string | Uint8Array>): AsyncGenerator<string | Uint8Array> {
  const reader = source.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield value;
    }
    finished = true;
  } finally {
    // The consumer stopped early (or the stream failed): release the underlying source.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function* linesOf(text: string): Generator<string> {
  let start = 0;
  for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
    yield text.slice(start, end);
    start = end + 1;
  }
  if (start < text.length) yield text.slice(start);
}

function trimLine(line: string, first: boolean): string {
  const noBom = first && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
  return noBom.endsWith("\r") ? noBom.slice(0, -1) : noBom;
}

/**
 * Splits text into lines as it arrives, holding one line at a time, never the whole input.
 * Accepts `\n` and `\r\n`, drops a leading byte-order mark, decodes byte chunks as UTF-8
 * (invalid UTF-8 throws `corrupt` naming the line: `line 3: the input is not valid UTF-8`),
 * and yields every line, blank ones included, except the empty piece after a final newline.
 */
export async function* readLines(source: LineSource): AsyncGenerator<string> {
  checkLineSource(source, "readLines' source");
  if (typeof source === "string") {
    let first = true;
    for (const line of linesOf(source)) {
      yield trimLine(line, first);
      first = false;
    }
    return;
  }
  const chunks: AsyncIterable<string | Uint8Array> = isReadableStream(source)
    ? chunksOf(source)
    : source;
  // Byte chunks are split at "\n" (a byte inside no multi-byte UTF-8 sequence) and decoded a
  // line at a time, so invalid UTF-8 is an error naming its line.
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let line = 0;
  let pieces: Array<string | Uint8Array> = [];
  const finish = (): string => {
    line++;
    const text = lineText(pieces, decoder, line);
    pieces = [];
    return trimLine(text, line === 1);
  };
  for await (const chunk of chunks as AsyncIterable<unknown>) {
    if (typeof chunk !== "string" && !(chunk instanceof Uint8Array)) {
      throw new RecallError("invalid_argument", `line ${line + 1}: a chunk of the input must be a string or a Uint8Array, got ${chunk === null ? "null" : typeof chunk}`);
    }
    let start = 0;
    for (let end = newlineIn(chunk, 0); end >= 0; end = newlineIn(chunk, start)) {
      pieces.push(sliceOf(chunk, start, end));
      yield finish();
      start = end + 1;
    }
    if (start < chunk.length) pieces.push(sliceOf(chunk, start, chunk.length));
  }
  if (pieces.length > 0) yield finish();
}

function newlineIn(chunk: string | Uint8Array, from: number): number {
  return typeof chunk === "string" ? chunk.indexOf("\n", from) : chunk.indexOf(0x0a, from);
}

function sliceOf(chunk: string | Uint8Array, start: number, end: number): string | Uint8Array {
  return typeof chunk === "string" ? chunk.slice(start, end) : chunk.subarray(start, end);
}

/**
 * The text of line number `line` from its pieces: strings as they are, each run of byte pieces
 * joined and then decoded (a character may straddle two chunks); invalid UTF-8 is `corrupt`.
 */
function lineText(pieces: ReadonlyArray<string | Uint8Array>, decoder: TextDecoder, line: number): string {
  let text = "";
  let bytes: Uint8Array[] = [];
  const decodeBytes = (): void => {
    if (bytes.length === 0) return;
    let joined = bytes[0]!;
    if (bytes.length > 1) {
      joined = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
      let at = 0;
      for (const b of bytes) {
        joined.set(b, at);
        at += b.length;
      }
    }
    bytes = [];
    try {
      text += decoder.decode(joined);
    } catch (e) {
      throw corrupt(`line ${line}: the input is not valid UTF-8`, e);
    }
  };
  for (const piece of pieces) {
    if (typeof piece === "string") {
      decodeBytes();
      text += piece;
    } else {
      bytes.push(piece);
    }
  }
  decodeBytes();
  return text;
}
