/**
 * The values inside a binary record (`codec.ts`): the record's data, written and read field by
 * field without building JSON text.
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
 * `null`, `-0` is `0`. Varints are unsigned LEB128, at most 8 bytes.
 * @module
 */
import { RecallError } from "../errors.js";
import { isWellFormed } from "./ops.js";
import { corrupt } from "./record.js";

/**
 * Field names a version-2 record stores as one byte (key `k` = index + 1). Part of the
 * format: append-only, and only together with a new `CODEC_VERSION` (`codec.ts`).
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

const encoder = new TextEncoder();

const T_NULL = 0, T_FALSE = 1, T_TRUE = 2, T_UINT = 3, T_NEGINT = 4, T_FLOAT = 5, T_STRING = 6, T_JSON_STRING = 7,
  T_ARRAY = 8;
/** The tag of an object value: a record's data is one. */
export const T_OBJECT = 9;
/** Largest varint: 8 bytes hold 56 bits, enough for every safe integer and any length. */
const MAX_VARINT_BYTES = 8;
const FIELD_INDEX = new Map(FIELD_NAMES.map((name, i) => [name, i + 1]));
const MAX_DEPTH = 1000;

function notSerialisable(why: string): RecallError {
  return new RecallError("invalid_argument", `record data is not JSON-serialisable: ${why}`);
}

/** A growable byte buffer for `encodeRecord`: the record header, then its data as a value. */
export class Writer {
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

/** The bytes of `n` as an unsigned LEB128 varint (1 for 0–127, one more per 7 bits). */
export function varintBytes(n: number): number {
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

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a version-2 record body; every overrun or unknown tag is `corrupt`. */
export class Reader {
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
