/**
 * Record encoding: the bytes a {@link StorageAdapter} stores for each record, and the JSON
 * Lines format of export/import. Each record is encoded on its own, so no step ever builds one
 * string for the whole store (JavaScript strings stop at about 512 MiB).
 *
 * Binary record, format version 1 (all integers little-endian):
 *
 * | offset | size | field |
 * |---|---|---|
 * | 0 | 2 | magic `"RK"` |
 * | 2 | 1 | format version (1) |
 * | 3 | 1 | kind: 1 memory, 2 note, 3 entity, 4 edge, 5 meta |
 * | 4 | 1 | flags: bit 0 embedding present, bit 1 signature present |
 * | 5 | 3 | reserved, zero |
 * | 8 | 4 | JSON byte length `j` |
 * | 12 | 4 | embedding dims `d` (0 when absent) |
 * | 16 | 4 | signature byte length `s` (0 when absent) |
 * | 20 | j | `data` as UTF-8 JSON |
 * | 20 + j | 4d | embedding as raw float32 (bit-exact, NaN payloads and -0 included) |
 * | 20 + j + 4d | s | signature bytes |
 *
 * A JSON line is `{"v":1,"kind":…,"data":{…},"embedding":[…],"signature":"hex"}`; embedding
 * numbers print each float32 exactly (shortest round-trip decimal, `-0` kept).
 * Unknown versions and garbage throw `corrupt`; each version has its own named decoder.
 * @module
 */
import { RecallError } from "../errors.js";

/** The record format version {@link encodeRecord} and {@link toJsonLine} write. */
export const CODEC_VERSION = 1;

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
const HEADER_BYTES = 20;
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

/** Copies float32s to little-endian bytes (or back: the swap is its own inverse). */
function float32Bytes(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < out.length; i += 4) {
      const a = out[i]!, b = out[i + 1]!;
      out[i] = out[i + 3]!; out[i + 1] = out[i + 2]!; out[i + 2] = b; out[i + 3] = a;
    }
  }
  return out;
}

/** Encodes a record as bytes (format {@link CODEC_VERSION}). Throws `invalid_argument` on a malformed record. */
export function encodeRecord(record: StoredRecord): Uint8Array {
  checkRecord(record);
  const json = encoder.encode(stringifyData(record.data));
  const embedding = record.embedding === undefined ? undefined
    : float32Bytes(new Uint8Array(record.embedding.buffer, record.embedding.byteOffset, record.embedding.byteLength));
  const signature = record.signature;
  const out = new Uint8Array(HEADER_BYTES + json.length + (embedding?.length ?? 0) + (signature?.length ?? 0));
  const view = new DataView(out.buffer);
  out[0] = MAGIC_0;
  out[1] = MAGIC_1;
  out[2] = CODEC_VERSION;
  out[3] = KINDS.indexOf(record.kind) + 1;
  out[4] = (embedding ? FLAG_EMBEDDING : 0) | (signature ? FLAG_SIGNATURE : 0);
  view.setUint32(8, json.length, true);
  view.setUint32(12, record.embedding?.length ?? 0, true);
  view.setUint32(16, signature?.length ?? 0, true);
  out.set(json, HEADER_BYTES);
  if (embedding) out.set(embedding, HEADER_BYTES + json.length);
  if (signature) out.set(signature, HEADER_BYTES + json.length + (embedding?.length ?? 0));
  return out;
}

/** Decodes {@link encodeRecord}'s bytes. Throws `corrupt` on garbage or an unknown format version. */
export function decodeRecord(bytes: Uint8Array): StoredRecord {
  if (!(bytes instanceof Uint8Array)) throw corrupt("a record must be a Uint8Array");
  if (bytes.length < HEADER_BYTES || bytes[0] !== MAGIC_0 || bytes[1] !== MAGIC_1) {
    throw corrupt(`not a recallkit record (${bytes.length} bytes, no "RK" header)`);
  }
  switch (bytes[2]) {
    case 1:
      return decodeV1(bytes);
    default:
      throw corrupt(`record format version ${bytes[2]} is not supported (this recallkit reads version ${CODEC_VERSION})`);
  }
}

function decodeV1(bytes: Uint8Array): StoredRecord {
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
  if (HEADER_BYTES + jsonBytes + dims * 4 + signatureBytes !== bytes.length) {
    throw corrupt(`record lengths (json ${jsonBytes}, dims ${dims}, signature ${signatureBytes}) do not add up to ${bytes.length} bytes`);
  }
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + jsonBytes)));
  } catch (e) {
    throw corrupt(`record data is not UTF-8 JSON: ${String(e)}`, e);
  }
  if (!isPlainObject(data)) throw corrupt("record data is not a JSON object");
  const record: StoredRecord = { kind, data };
  let at = HEADER_BYTES + jsonBytes;
  if (flags & FLAG_EMBEDDING) {
    record.embedding = new Float32Array(float32Bytes(bytes.subarray(at, at + dims * 4)).buffer);
    at += dims * 4;
  }
  if (flags & FLAG_SIGNATURE) record.signature = bytes.slice(at, at + signatureBytes);
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
  let line = `{"v":${CODEC_VERSION},"kind":${JSON.stringify(record.kind)},"data":${stringifyData(record.data)}`;
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
  if (value.v !== CODEC_VERSION) {
    throw corrupt(`JSON line format version ${JSON.stringify(value.v)} is not supported (this recallkit reads version ${CODEC_VERSION})`);
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
 * (invalid UTF-8 throws `corrupt`; a source gives either all strings or all bytes), and yields
 * every line, blank ones included, except the empty piece after a final newline.
 */
export async function* readLines(source: LineSource): AsyncGenerator<string> {
  let first = true;
  if (typeof source === "string") {
    for (const line of linesOf(source)) {
      yield trimLine(line, first);
      first = false;
    }
    return;
  }
  const chunks: AsyncIterable<string | Uint8Array> =
    typeof (source as ReadableStream).getReader === "function"
      ? chunksOf(source as ReadableStream<string | Uint8Array>)
      : (source as AsyncIterable<string | Uint8Array>);
  if (chunks === null || typeof chunks !== "object" || typeof chunks[Symbol.asyncIterator] !== "function") {
    throw new RecallError("invalid_argument", "readLines expects a string, a ReadableStream or an async iterable");
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const decode = (chunk: Uint8Array | undefined): string => {
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch (e) {
      throw corrupt("the input is not valid UTF-8", e);
    }
  };
  let parts: string[] = [];
  for await (const chunk of chunks) {
    const text = typeof chunk === "string" ? chunk : decode(chunk);
    let start = 0;
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
      parts.push(text.slice(start, end));
      yield trimLine(parts.join(""), first);
      first = false;
      parts = [];
      start = end + 1;
    }
    if (start < text.length) parts.push(text.slice(start));
  }
  parts.push(decode(undefined));
  const rest = parts.join("");
  if (rest !== "") yield trimLine(rest, first);
}
