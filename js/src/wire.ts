/**
 * The bulk path of the WebAssembly boundary: a batch of memory records (`rememberMany`,
 * `import`) written in the tagged binary encoding that `src/wire/batch.rs` reads
 * (`src/wire/value.rs` has the table). Everything else crosses with serde-wasm-bindgen
 * (`js/src/engine.ts`); this path stays binary because it is measured faster for batches
 * (DESIGN.md, "The boundary").
 *
 * Numbers travel as their bits (integers below 2^52 as zigzag varints), so nothing is
 * converted to or from decimal text; strings are UTF-8 (`TextEncoder` turns a lone surrogate
 * into U+FFFD, as every string passed to WebAssembly becomes). As in `JSON.stringify`,
 * object fields whose value is `undefined` or a function are left out and `toJSON()` is
 * honoured (a `Date` becomes its ISO text); unlike it, `NaN` and infinities stay numbers, so
 * the engine rejects them by name instead of reading `null`. A bigint is written as its
 * decimal text. Internal: not exported by the package.
 * @module
 */
import { RecallError } from "./errors.js";

const NULL = 0x00;
const FALSE = 0x01;
const TRUE = 0x02;
const F64 = 0x03;
const INT = 0x04;
const STR = 0x05;
const ARR = 0x06;
const OBJ = 0x07;
const END = 0x08;
/** A record of a known shape: a u32 little-endian field mask, then the fields' values. */
const REC = 0x09;

/** Deepest nesting accepted, as on the Rust side. */
const MAX_DEPTH = 64;
/**
 * Strings of at least this many UTF-16 units go to `TextEncoder.encodeInto` whole; shorter
 * ones are copied by a JavaScript loop while they are ASCII (measured on memory texts of
 * about 120 characters: the native encoder is about 5× faster there; on keys and ids of a
 * few characters the loop wins, as it allocates no view).
 */
const NATIVE_ENCODE_MIN = 32;

const encoder = new TextEncoder();

/** Bytes {@link encode}'s reused buffer keeps between calls; a larger one is dropped. */
const KEEP_BYTES = 1 << 20;

/**
 * A start size from a hint. A hint is only a hint: NaN, negatives and absurd sizes fall back
 * to growing from 256 (a zero-length start would make `reserve` double 0 forever).
 */
function startSize(size: number): number {
  return Number.isFinite(size) && size > 256 ? Math.min(size, 1 << 28) : 256;
}

/** A growable byte buffer with the writes the encoder needs. */
class Out {
  bytes: Uint8Array;
  view: DataView;
  pos = 0;

  constructor(size: number) {
    this.bytes = new Uint8Array(startSize(size));
    this.view = new DataView(this.bytes.buffer);
  }

  /** Empties the buffer for the next value; `size` is a hint as for the constructor. */
  reset(size: number): void {
    this.pos = 0;
    const want = startSize(size);
    // Grown for one large value: back to the hint, rather than keeping the memory.
    if (want > this.bytes.length || this.bytes.length > Math.max(want, KEEP_BYTES)) {
      this.bytes = new Uint8Array(want);
      this.view = new DataView(this.bytes.buffer);
    }
  }

  reserve(n: number): void {
    if (this.pos + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.pos));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }

  byte(b: number): void {
    this.reserve(1);
    this.bytes[this.pos++] = b;
  }

  /** A string value: the {@link STR} tag, u32 little-endian byte length, then UTF-8 (one
   * call, as object keys and most values are strings and calls are what the not yet
   * optimised code of a first batch pays for). */
  string(s: string): void {
    const n = s.length;
    this.reserve(5 + n * 3);
    this.bytes[this.pos++] = STR;
    const start = this.pos + 4;
    const bytes = this.bytes;
    let len: number;
    if (n >= NATIVE_ENCODE_MIN) {
      len = encoder.encodeInto(s, bytes.subarray(start)).written;
    } else {
      let i = 0;
      // ASCII fast path; the first other character hands the rest to TextEncoder.
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        bytes[start + i] = c;
      }
      len = i;
      if (i < n) len += encoder.encodeInto(s.slice(i), bytes.subarray(start + i)).written;
    }
    this.view.setUint32(this.pos, len, true);
    this.pos = start + len;
  }

  number(v: number): void {
    // Below 2^52 the zigzag value (about twice the integer) is exact in a double.
    if (Number.isInteger(v) && Math.abs(v) < 2 ** 52 && !Object.is(v, -0)) {
      this.reserve(11);
      const bytes = this.bytes;
      let pos = this.pos;
      bytes[pos++] = INT;
      let z = v >= 0 ? v * 2 : -v * 2 - 1;
      if (z >= 2 ** 31) {
        // Four full groups of 7 bits from the low 28 bits, in integer arithmetic; the rest
        // (below 2^25, as z < 2^53) continues below.
        const low = z % 2 ** 28;
        bytes[pos++] = (low & 0x7f) | 0x80;
        bytes[pos++] = ((low >>> 7) & 0x7f) | 0x80;
        bytes[pos++] = ((low >>> 14) & 0x7f) | 0x80;
        bytes[pos++] = ((low >>> 21) & 0x7f) | 0x80;
        z = (z - low) / 2 ** 28;
      }
      while (z >= 0x80) {
        bytes[pos++] = (z & 0x7f) | 0x80;
        z >>>= 7;
      }
      bytes[pos++] = z;
      this.pos = pos;
    } else {
      this.reserve(9);
      this.bytes[this.pos++] = F64;
      this.view.setFloat64(this.pos, v, true);
      this.pos += 8;
    }
  }
}

/** Whether an object field of this value is left out, as `JSON.stringify` leaves it out. */
function leftOut(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

function write(out: Out, value: unknown, depth: number): void {
  if (depth > MAX_DEPTH) throw new RecallError("invalid_argument", "value nested too deeply");
  switch (typeof value) {
    case "string":
      out.string(value);
      return;
    case "number":
      out.number(value);
      return;
    case "boolean":
      out.byte(value ? TRUE : FALSE);
      return;
    case "bigint":
      out.string(value.toString());
      return;
    case "object":
      break;
    default: // undefined, functions and symbols: null, as JSON.stringify writes them in arrays
      out.byte(NULL);
      return;
  }
  if (value === null) {
    out.byte(NULL);
    return;
  }
  const withJson = value as { toJSON?: () => unknown };
  // A plain object can only have its own toJSON. Asking Object.hasOwn first keeps this code
  // free of checks on the object's hidden class: records, options and configs come in new
  // classes after every garbage collection, and a `value.toJSON` read, specialised to the
  // classes seen so far, threw the optimised encoder away at each new one ("wrong map").
  const proto: unknown = Object.getPrototypeOf(value);
  const plain = proto === Object.prototype || proto === null;
  if ((!plain || Object.hasOwn(value, "toJSON")) && typeof withJson.toJSON === "function") {
    write(out, withJson.toJSON(), depth);
    return;
  }
  if (Array.isArray(value)) {
    out.byte(ARR);
    for (const item of value) write(out, item, depth + 1);
    out.byte(END);
    return;
  }
  out.byte(OBJ);
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const v = record[key];
    if (leftOut(v)) continue;
    out.string(key);
    write(out, v, depth + 1);
  }
  out.byte(END);
}

/**
 * The wire bytes of memory records (`MemoryRecord`: a memory's fields and the engine's recall
 * counts) for a batch insert: an array of records in the wire's record layout (tag `0x09`: a
 * mask of the fields present, then their values in {@link RECORD_KEY_NAMES} order, no keys),
 * which the engine reads as it reads objects with keys. Each
 * record's fields are read by name; a field of another name is not written (the engine
 * skips such fields of an object, so it reads the same memory). Measured against objects
 * with keys (encoded once) for 1,000 memories: 0.26 against 0.45 ms to write, and 0.1 ms
 * less for the engine to read. Valid until the next encode.
 */
export function encodeRecordsView(records: readonly object[], sizeHint = 0): Uint8Array {
  return encodeWith(writeRecords, records, sizeHint, false);
}

function encodeWith<T>(writer: (out: Out, value: T, depth: number) => void, value: T, sizeHint: number, copy: boolean): Uint8Array {
  let out = idle;
  if (out === null) {
    // Re-entered (a toJSON that encodes): a buffer of its own.
    out = new Out(sizeHint);
  } else {
    idle = null;
    out.reset(sizeHint);
  }
  try {
    writer(out, value, 0);
    return copy ? out.bytes.slice(0, out.pos) : out.bytes.subarray(0, out.pos);
  } finally {
    idle ??= out;
  }
}

/**
 * The fields {@link writeRecord} writes, in the order of a record's field mask (bit `i` is
 * field `i`; `MEMORY_FIELDS` in `src/wire/shapes.rs` reads them): the memory fields of
 * `MEMORY_FIELDS` but `embedding` (which travels apart), then those the engine keeps (tests
 * hold the list to `MEMORY_FIELDS` and to the fields the engine gives back).
 */
export const RECORD_KEY_NAMES = [
  "id", "text", "textEn", "keywords", "userId", "topic", "tags", "type", "tier", "emotion",
  "emotionTags", "importance", "confidence", "trust", "credibility", "relevance",
  "classification", "createdAt", "updatedAt", "validFrom", "validTo", "expiresAt", "entities",
  "recallCount", "lastRecalledAt", "recallTimestamps",
] as const;

type Fields = Partial<Record<(typeof RECORD_KEY_NAMES)[number], unknown>>;

/** 1 if an object field of this value is written (see {@link leftOut}), else 0. */
function kept(v: unknown): number {
  return leftOut(v) ? 0 : 1;
}

/** A record field's value, after its bit in the mask said it is there. */
function value(out: Out, v: unknown): void {
  if (typeof v === "string") out.string(v);
  else write(out, v, 2);
}

/**
 * One record: every field read once, into locals, then the mask, then the values. Spelled
 * out field by field (rather than a loop over {@link RECORD_KEY_NAMES}) so that each read is
 * a plain property load of the records' one hidden class.
 */
function writeRecord(out: Out, r: Fields): void {
  const f0 = r.id, f1 = r.text, f2 = r.textEn, f3 = r.keywords, f4 = r.userId, f5 = r.topic;
  const f6 = r.tags, f7 = r.type, f8 = r.tier, f9 = r.emotion, f10 = r.emotionTags;
  const f11 = r.importance, f12 = r.confidence, f13 = r.trust, f14 = r.credibility;
  const f15 = r.relevance, f16 = r.classification, f17 = r.createdAt, f18 = r.updatedAt;
  const f19 = r.validFrom, f20 = r.validTo, f21 = r.expiresAt, f22 = r.entities;
  const f23 = r.recallCount, f24 = r.lastRecalledAt, f25 = r.recallTimestamps;
  const mask = kept(f0) | kept(f1) << 1 | kept(f2) << 2 | kept(f3) << 3 | kept(f4) << 4
    | kept(f5) << 5 | kept(f6) << 6 | kept(f7) << 7 | kept(f8) << 8 | kept(f9) << 9
    | kept(f10) << 10 | kept(f11) << 11 | kept(f12) << 12 | kept(f13) << 13 | kept(f14) << 14
    | kept(f15) << 15 | kept(f16) << 16 | kept(f17) << 17 | kept(f18) << 18 | kept(f19) << 19
    | kept(f20) << 20 | kept(f21) << 21 | kept(f22) << 22 | kept(f23) << 23 | kept(f24) << 24
    | kept(f25) << 25;
  out.reserve(5);
  out.bytes[out.pos++] = REC;
  out.view.setUint32(out.pos, mask, true);
  out.pos += 4;
  if (mask & 1 << 0) value(out, f0);
  if (mask & 1 << 1) value(out, f1);
  if (mask & 1 << 2) value(out, f2);
  if (mask & 1 << 3) value(out, f3);
  if (mask & 1 << 4) value(out, f4);
  if (mask & 1 << 5) value(out, f5);
  if (mask & 1 << 6) value(out, f6);
  if (mask & 1 << 7) value(out, f7);
  if (mask & 1 << 8) value(out, f8);
  if (mask & 1 << 9) value(out, f9);
  if (mask & 1 << 10) value(out, f10);
  if (mask & 1 << 11) value(out, f11);
  if (mask & 1 << 12) value(out, f12);
  if (mask & 1 << 13) value(out, f13);
  if (mask & 1 << 14) value(out, f14);
  if (mask & 1 << 15) value(out, f15);
  if (mask & 1 << 16) value(out, f16);
  if (mask & 1 << 17) value(out, f17);
  if (mask & 1 << 18) value(out, f18);
  if (mask & 1 << 19) value(out, f19);
  if (mask & 1 << 20) value(out, f20);
  if (mask & 1 << 21) value(out, f21);
  if (mask & 1 << 22) value(out, f22);
  if (mask & 1 << 23) value(out, f23);
  if (mask & 1 << 24) value(out, f24);
  if (mask & 1 << 25) value(out, f25);
}

function writeRecords(out: Out, records: readonly object[]): void {
  out.byte(ARR);
  for (let i = 0; i < records.length; i++) writeRecord(out, records[i] as Fields);
  out.byte(END);
}

/**
 * The encoder {@link encode} reuses, `null` while in use. Kept alive between calls on
 * purpose, not only for its buffer: V8's optimised code for the `Out` methods depends on the
 * hidden class of `Out` objects, and a garbage collection that finds no live `Out` drops
 * that class and throws the code away ("weak objects" deoptimisation), so that every write
 * after a collection ran the encoder unoptimised again (measured: a 1,000-memory
 * `rememberMany` after `gc()` took 10-12 ms instead of 5.5-6).
 */
let idle: Out | null = new Out(0);
