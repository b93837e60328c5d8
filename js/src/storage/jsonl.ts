/**
 * JSON Lines, the export and import format: one {@link StoredRecord} per line, as
 * `{"v":1,"kind":…,"data":{…},"embedding":[…],"signature":"hex"}`. Embedding numbers print
 * each float32 exactly (shortest round-trip decimal, `-0` kept). Its version
 * ({@link JSON_LINE_VERSION}) is separate from the binary record's (`codec.ts`); an unknown
 * version and garbage throw `corrupt`. {@link readLines} splits a string, a stream or an
 * async iterable into lines as they arrive, never holding the whole input.
 * @module
 */
import { RecallError } from "../errors.js";
import type { ImportSource } from "../store-types.js";
import { KINDS, checkRecord, corrupt, isPlainObject } from "./record.js";
import type { RecordKind, StoredRecord } from "./record.js";

/** The JSON Lines format version {@link toJsonLine} writes and {@link fromJsonLine} reads. */
export const JSON_LINE_VERSION = 1;

const JSON_LINE_FIELDS = new Set(["v", "kind", "data", "embedding", "signature"]);

function stringifyData(data: Record<string, unknown>): string {
  try {
    return JSON.stringify(data);
  } catch (e) {
    throw new RecallError("invalid_argument", `record data is not JSON-serialisable: ${String(e)}`, { cause: e });
  }
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
  return fromJsonValue(value);
}

/**
 * A line written by {@link toJsonLine} once parsed (`JSON.parse`), as a record; the embedding
 * may also be a `Float32Array` and the signature a `Uint8Array`. Throws `corrupt` on
 * anything else.
 */
export function fromJsonValue(value: unknown): StoredRecord {
  if (!isPlainObject(value)) throw corrupt("a parsed JSON line must be a plain object");
  if (value.v === undefined && value.kind === undefined && typeof value.text === "string") {
    // A memory as remember() takes it: the commonest wrong input, and not damage.
    throw new RecallError("invalid_argument",
      "a memory object, not a line of a recallkit export ({ v, kind, data }): pass memories to rememberMany (the CLI's import reads both)");
  }
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
    const values = value.embedding instanceof Float32Array ? Array.from(value.embedding) : value.embedding;
    if (!Array.isArray(values) || !values.every((x) => typeof x === "number")) {
      throw corrupt("a JSON line's embedding must be an array of numbers");
    }
    if (values.length === 0) throw corrupt("a JSON line's embedding is empty");
    record.embedding = Float32Array.from(values);
    if (!record.embedding.every(Number.isFinite)) throw corrupt("a JSON line's embedding has a value outside float32 range");
  }
  if (value.signature instanceof Uint8Array) {
    record.signature = new Uint8Array(value.signature);
  } else if (value.signature !== undefined) {
    if (typeof value.signature !== "string") throw corrupt("a JSON line's signature must be a hex string");
    record.signature = fromHex(value.signature);
  }
  return record;
}

/**
 * Anything {@link readLines} can split: a whole string, a web `ReadableStream`, or an async
 * iterable of chunks. The public name is `ImportSource`, which defines it.
 */
export type LineSource = ImportSource;

function isReadableStream(source: object): source is ReadableStream<string | Uint8Array> {
  return typeof (source as { getReader?: unknown }).getReader === "function";
}

/** Throws `invalid_argument` unless `source` is a {@link LineSource}; `what` names it. */
export function checkLineSource(source: unknown, what: string): asserts source is LineSource {
  if (typeof source === "string" || Array.isArray(source)) return;
  if (typeof source === "object" && source !== null
    && (isReadableStream(source) || typeof (source as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function")) return;
  const got = source === null || typeof source !== "object" ? String(source) : "an object";
  throw new RecallError("invalid_argument",
    `${what} must be a string, a ReadableStream, an async iterable of strings or bytes, or an array of lines or parsed lines, got ${typeof source === "function" ? "a function" : got}`);
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
  if (Array.isArray(source)) {
    // An array of lines: each item is one line (parsed lines are import's, not this).
    for (const [i, item] of source.entries()) {
      if (typeof item !== "string") throw new RecallError("invalid_argument", `line ${i + 1}: an item of an array of lines must be a string`);
      yield item;
    }
    return;
  }
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
    : source as AsyncIterable<string | Uint8Array>;
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
