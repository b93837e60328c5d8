/**
 * The file store's log format: a header, then one checksummed frame per `write()` batch.
 * Pure byte encoding and decoding; `file.ts` does the I/O.
 *
 * Layout (integers little-endian):
 *
 * ```text
 * header   magic "RKLOG\r\n\x1a" (8) · format version u32 (1) · crc32 of the previous 12 bytes u32
 * frame    payload length u32 · crc32(payload) u32 · payload
 * payload  op count u32 · op*
 * op       tag u8 (1 put, 2 delete) · key length u32 · key (UTF-8) · [put: value length u32 · value]
 * ```
 *
 * A frame is the unit of atomicity: replay applies a frame's ops only when its checksum holds.
 * The magic's `\r\n\x1a` (as in PNG) catches text-mode mangling and stops `type` on Windows.
 * @module
 */
import { RecallError } from "../errors.js";
import type { StorageOp } from "./adapter.js";
import { crc32 } from "./crc32.js";

/** The log format version this module writes and reads. */
export const LOG_FORMAT_VERSION = 1;
/** Bytes of the log header. */
export const LOG_HEADER_BYTES = 16;
/** Bytes before each frame's payload (length and checksum). */
export const FRAME_HEADER_BYTES = 8;
/** The largest payload a frame can describe (its length is a u32). */
export const MAX_PAYLOAD_BYTES = 0xffffffff;

const MAGIC = [0x52, 0x4b, 0x4c, 0x4f, 0x47, 0x0d, 0x0a, 0x1a];
const TAG_PUT = 1;
const TAG_DELETE = 2;
const encoder = new TextEncoder();

/** The header every log starts with. */
export function encodeLogHeader(): Uint8Array {
  const out = new Uint8Array(LOG_HEADER_BYTES);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(8, LOG_FORMAT_VERSION, true);
  view.setUint32(12, crc32(out.subarray(0, 12)), true);
  return out;
}

/** Checks a log header; throws `corrupt` naming `path` for another file type, version or damage. */
export function checkLogHeader(bytes: Uint8Array, path: string): void {
  if (bytes.length < LOG_HEADER_BYTES) {
    throw new RecallError("corrupt", `${path} is ${bytes.length} bytes, shorter than a recallkit log header`);
  }
  if (!MAGIC.every((b, i) => bytes[i] === b)) throw new RecallError("corrupt", `${path} is not a recallkit log (bad magic)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, LOG_HEADER_BYTES);
  const version = view.getUint32(8, true);
  if (version !== LOG_FORMAT_VERSION) {
    throw new RecallError("corrupt",
      `${path} has log format version ${version}, which this recallkit cannot read (it reads version ${LOG_FORMAT_VERSION})`);
  }
  if (view.getUint32(12, true) !== crc32(bytes.subarray(0, 12))) {
    throw new RecallError("corrupt", `${path} has a damaged header (checksum mismatch)`);
  }
}

/** A batch encoded as one frame, with the UTF-8 length of each op's key. */
export interface EncodedBatch {
  /** Frame header and payload, ready to append. */
  frame: Uint8Array;
  /** `keyBytes[i]` is the UTF-8 length of `ops[i].key`. */
  keyBytes: number[];
}

/** Bytes an entry takes in a payload as a put: tag, key length, key, value length, value. */
export function putBytes(keyBytes: number, valueBytes: number): number {
  return 1 + 4 + keyBytes + 4 + valueBytes;
}

/** Encodes a batch as one frame. Throws `too_large` when the payload exceeds a u32 length. */
export function encodeBatch(ops: readonly StorageOp[]): EncodedBatch {
  const keys = ops.map((op) => encoder.encode(op.key));
  let payloadBytes = 4;
  ops.forEach((op, i) => {
    payloadBytes += op.op === "put" ? putBytes(keys[i]!.length, op.value.length) : 1 + 4 + keys[i]!.length;
  });
  if (payloadBytes > MAX_PAYLOAD_BYTES) {
    throw new RecallError("too_large", `a batch of ${payloadBytes} bytes exceeds the ${MAX_PAYLOAD_BYTES}-byte frame limit; split it`);
  }
  const frame = new Uint8Array(FRAME_HEADER_BYTES + payloadBytes);
  const view = new DataView(frame.buffer);
  let at = FRAME_HEADER_BYTES;
  view.setUint32(at, ops.length, true);
  at += 4;
  ops.forEach((op, i) => {
    const key = keys[i]!;
    frame[at] = op.op === "put" ? TAG_PUT : TAG_DELETE;
    view.setUint32(at + 1, key.length, true);
    frame.set(key, at + 5);
    at += 5 + key.length;
    if (op.op === "put") {
      view.setUint32(at, op.value.length, true);
      frame.set(op.value, at + 4);
      at += 4 + op.value.length;
    }
  });
  view.setUint32(0, payloadBytes, true);
  view.setUint32(4, crc32(frame.subarray(FRAME_HEADER_BYTES)), true);
  return { frame, keyBytes: keys.map((k) => k.length) };
}

/** A decoded op with its key's UTF-8 length (for live-size accounting). */
export type DecodedOp = StorageOp & { keyBytes: number };

/**
 * Decodes a frame payload whose checksum already matched. Values are copied out, so the read
 * buffer can be dropped. Throws `corrupt` (naming `where`) when the payload is malformed.
 */
export function decodeBatch(payload: Uint8Array, where: string): DecodedOp[] {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const fail = (why: string): RecallError => new RecallError("corrupt", `${where}: ${why}`);
  if (payload.length < 4) throw fail("payload is shorter than its op count");
  const count = view.getUint32(0, true);
  const ops: DecodedOp[] = [];
  let at = 4;
  for (let i = 0; i < count; i++) {
    if (at + 5 > payload.length) throw fail(`op ${i} runs past the payload`);
    const tag = payload[at]!;
    const keyBytes = view.getUint32(at + 1, true);
    at += 5;
    if (tag !== TAG_PUT && tag !== TAG_DELETE) throw fail(`op ${i} has unknown tag ${tag}`);
    if (at + keyBytes > payload.length) throw fail(`op ${i}'s key runs past the payload`);
    let key: string;
    try {
      key = decoder.decode(payload.subarray(at, at + keyBytes));
    } catch {
      throw fail(`op ${i}'s key is not UTF-8`);
    }
    at += keyBytes;
    if (tag === TAG_DELETE) {
      ops.push({ op: "delete", key, keyBytes });
      continue;
    }
    if (at + 4 > payload.length) throw fail(`op ${i}'s value length runs past the payload`);
    const valueBytes = view.getUint32(at, true);
    at += 4;
    if (at + valueBytes > payload.length) throw fail(`op ${i}'s value runs past the payload`);
    ops.push({ op: "put", key, value: payload.slice(at, at + valueBytes), keyBytes });
    at += valueBytes;
  }
  if (at !== payload.length) throw fail(`${payload.length - at} bytes follow the last op`);
  return ops;
}
