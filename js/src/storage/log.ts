/**
 * The file store's log format: a header, then one checksummed frame per `write()` batch.
 * Pure byte encoding and decoding, and the rule that tells a torn tail from damage; `scan.ts`
 * reads a log by that rule, `file.ts` does the rest of the I/O and the compression.
 *
 * Layout, format version 3 (written; varints are unsigned LEB128 of at most 8 bytes, other
 * integers little-endian):
 *
 * ```text
 * header   magic "RKLOG\r\n\x1a" (8) · format version u32 (3) · crc32 of the previous 12 bytes u32
 * frame    frame magic "RKF\x1a" (4) · payload length u32 · crc32(payload) u32
 *          · crc32(the frame's byte offset as u64, then the previous 12 bytes) u32 · payload
 * payload  encoding u8 · body length varint · packed length varint · packed body · tail
 *          packed body: encoding 0 the body as is, 1 the body compressed with deflate-raw (RFC 1951)
 * body     op count varint · op*
 * op       tag u8 (1 put, 2 delete) · key length varint · key (UTF-8)
 *          · [put: value length varint · tail length varint · the value but its last tail-length bytes]
 * tail     the last bytes of each put's value, in op order
 * ```
 *
 * The tail keeps what does not compress out of the compressor: the writer passes a function
 * naming each value's incompressible end (for records, `codec.ts`'s {@link recordTailBytes}:
 * the raw float32 embedding and the signature), so compression costs time only where it pays.
 *
 * Format version 2 (still read; appended to in place until the store is compacted): the same,
 * with the frame header `payload length u32 · crc32(payload) u32` only. Format version 1
 * (likewise): that frame header, with `payload = op count u32 · op*` and `op = tag u8 · key
 * length u32 · key · [put: value length u32 · value]`, never compressed.
 *
 * A frame is the unit of atomicity: replay applies a frame's ops only when its checksums hold,
 * and the checksum covers the compressed bytes, so a torn append is caught before inflating.
 * A `rememberMany` batch is one frame, so compressing frames shares the dictionary across its
 * records. The magic's `\r\n\x1a` (as in PNG) catches text-mode mangling and stops `type` on
 * Windows. The header checksum covers the length, so a damaged length is never taken for an
 * append cut short; it covers the frame's offset, so a frame checks only where it was written
 * (a log stored as a value inside a frame never passes for frames of this one).
 *
 * Torn tail or damage. A writer appends a frame in one sequence of writes, acknowledges it only
 * once fsync'd, and starts the next frame only after that. A process killed mid-append (or a
 * write failing on a full disk) therefore leaves a prefix of its frame at the end of the file:
 * the bytes run out. That is a torn tail, dropped quietly (the writer cuts it off before its
 * next append), and it is exactly one of:
 * - fewer bytes than a frame header are left, and they begin as one does (the frame magic, as
 *   far as they go);
 * - the header checks, but the payload it announces runs past the end of the file;
 * - every byte from the frame's start to the end of the file is zero (a file grown but never
 *   written, as file systems can leave one after a machine crash).
 * Anything else is damage: a header that does not check, a whole frame whose payload fails its
 * checksum (the last frame included: its length checked, so it is not an append cut short), a
 * payload that checks but does not decode. Open then fails with `corrupt`, naming the file and
 * the frame's byte offset, and applies nothing after it; `repair` (`file.ts`) salvages every
 * frame that checks and keeps a copy of the damaged log. A machine crash on a file system that
 * does not write an append's blocks in order can leave the last, unacknowledged frame whole in
 * length with a block missing: that is reported as damage too, since it cannot be told from a
 * flipped bit, and repair drops it.
 *
 * Logs of format 1 and 2 have no frame magic and no header checksum, so their rule leans on the
 * payload checksum: a whole frame that fails it is damage; a frame whose length runs past the
 * end of the file is torn only when no length one bit away from it makes the frame check and no
 * frame that checks starts anywhere after it. Damage to more than one bit of such a log's last
 * length can still pass for a torn tail; a writer rewrites these logs in format 3 on open.
 * @module
 */
import { RecallError } from "../errors.js";
import type { StorageOp } from "./adapter.js";
import { crc32 } from "./crc32.js";
import { varintBytes } from "./values.js";
export { recordTailBytes } from "./codec.js";

/** The log format version this module writes. */
export const LOG_FORMAT_VERSION = 3;
/** The log format versions this module reads. */
export const LOG_FORMAT_VERSIONS: readonly number[] = [1, 2, 3];
/** Bytes of the log header. */
export const LOG_HEADER_BYTES = 16;
/** Bytes before each frame's payload in format 3: magic, length, payload checksum, header checksum. */
export const FRAME_HEADER_BYTES = 16;
/** Bytes before each frame's payload in formats 1 and 2: length and payload checksum. */
export const OLD_FRAME_HEADER_BYTES = 8;
/** The smallest payload a frame holds: an op count (u32 in format 1; encoding, two lengths and a count since). */
export const MIN_PAYLOAD_BYTES = 4;
/** The largest payload a frame can describe (its length is a u32). */
export const MAX_PAYLOAD_BYTES = 0xffffffff;
/** Payload encoding byte (version 2): the body as is. */
export const ENCODING_STORED = 0;
/** Payload encoding byte (version 2): the body's length, then the body compressed with deflate-raw. */
export const ENCODING_DEFLATE_RAW = 1;

const MAGIC = [0x52, 0x4b, 0x4c, 0x4f, 0x47, 0x0d, 0x0a, 0x1a];
/** "RKF\x1a": starts every frame of format 3. */
export const FRAME_MAGIC: readonly number[] = [0x52, 0x4b, 0x46, 0x1a];
const TAG_PUT = 1;
const TAG_DELETE = 2;
const MAX_VARINT_BYTES = 8;
const encoder = new TextEncoder();

/** A byte range a salvage dropped, and why. */
export interface DamagedRange {
  /** Its first byte in the log. */
  offset: number;
  /** Its length. */
  bytes: number;
  /** What failed, e.g. "its payload fails its checksum". */
  why: string;
}

/** What `FileAdapter.repair` (`file.ts`) found in a log and did. */
export interface LogRepair {
  /** The log file. */
  path: string;
  /** The log's format version as found (a repaired log is rewritten in the current one). */
  version: number;
  /** Whether the log was damaged and so rewritten; `false`: nothing was changed. */
  repaired: boolean;
  /** Frames kept. */
  framesKept: number;
  /** Damaged byte ranges dropped, each holding (part of) at least one frame. */
  dropped: DamagedRange[];
  /** Frames kept although one bit of their header was damaged (their offsets). */
  restored: number[];
  /** Why the log header did not check, when its format could still be told. */
  header?: string;
  /** A torn tail (an append that never completed, never acknowledged): dropped, and not damage. */
  torn?: { offset: number; bytes: number; why: string };
  /** The copy of the damaged log kept beside it, when repaired. */
  copy?: string;
  /** Live keys after the repair. */
  keys: number;
}

/** The header every log of format `version` starts with (default {@link LOG_FORMAT_VERSION}). */
export function encodeLogHeader(version = LOG_FORMAT_VERSION): Uint8Array {
  const out = new Uint8Array(LOG_HEADER_BYTES);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(8, version, true);
  view.setUint32(12, crc32(out.subarray(0, 12)), true);
  return out;
}

/**
 * Checks a log header and returns its format version; throws `corrupt` naming `path` for
 * another file type, an unknown version or damage.
 */
export function checkLogHeader(bytes: Uint8Array, path: string): number {
  if (bytes.length < LOG_HEADER_BYTES) {
    throw new RecallError("corrupt", `${path} is ${bytes.length} bytes, shorter than a recallkit log header`);
  }
  if (!MAGIC.every((b, i) => bytes[i] === b)) throw new RecallError("corrupt", `${path} is not a recallkit log (bad magic)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, LOG_HEADER_BYTES);
  const version = view.getUint32(8, true);
  if (!LOG_FORMAT_VERSIONS.includes(version)) {
    throw new RecallError("corrupt",
      `${path} has log format version ${version}, which this recallkit cannot read (it reads versions ${LOG_FORMAT_VERSIONS.join(" and ")})`);
  }
  if (view.getUint32(12, true) !== crc32(bytes.subarray(0, 12))) {
    throw new RecallError("corrupt", `${path} has a damaged header (bytes 0-15 fail their checksum)`);
  }
  return version;
}

/** Bytes of a frame header in log format `version`. */
export function frameHeaderBytes(version: number): number {
  return version >= 3 ? FRAME_HEADER_BYTES : OLD_FRAME_HEADER_BYTES;
}

/** The checksum a format-3 frame header at byte `offset` carries over its first 12 bytes. */
function headerChecksum(head: Uint8Array, offset: number): number {
  const at = new Uint8Array(8);
  const view = new DataView(at.buffer);
  view.setUint32(0, offset % 2 ** 32, true);
  view.setUint32(4, Math.floor(offset / 2 ** 32), true);
  return crc32(head.subarray(0, 12), crc32(at));
}

/** A frame header's length and payload checksum. */
export interface FrameHeader {
  /** Payload bytes. */
  length: number;
  /** CRC-32 of the payload. */
  payloadCrc: number;
}

/**
 * Reads the frame header at the start of `head` (at least {@link frameHeaderBytes} bytes), at
 * byte `offset` of a log of format `version`. Returns why it does not check (format 3: magic
 * and header checksum; a payload shorter than any frame's) as a string; formats 1 and 2 have
 * nothing to check but that.
 */
export function readFrameHeader(head: Uint8Array, offset: number, version: number): FrameHeader | string {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (version < 3) {
    const length = view.getUint32(0, true);
    return length < MIN_PAYLOAD_BYTES ? `its length of ${length} bytes is shorter than any frame's`
      : { length, payloadCrc: view.getUint32(4, true) };
  }
  if (!FRAME_MAGIC.every((b, i) => head[i] === b)) return "it does not start with the frame magic";
  if (view.getUint32(12, true) !== headerChecksum(head, offset)) return "its header fails its checksum";
  const length = view.getUint32(4, true);
  if (length < MIN_PAYLOAD_BYTES) return `its length of ${length} bytes is shorter than any frame's`;
  return { length, payloadCrc: view.getUint32(8, true) };
}

/** Whether `bytes` (shorter than a frame header) are how a format-3 frame header begins. */
export function isFrameHeaderStart(bytes: Uint8Array): boolean {
  return FRAME_MAGIC.every((b, i) => i >= bytes.length || bytes[i] === b);
}

function writeVarint(out: Uint8Array, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
  return at;
}

/**
 * Bytes an entry takes in an uncompressed body as a put, in log format `version`: tag, key
 * length, key, value length, value.
 */
export function putBytes(keyBytes: number, valueBytes: number, version = LOG_FORMAT_VERSION): number {
  return version === 1 ? 1 + 4 + keyBytes + 4 + valueBytes
    : 1 + varintBytes(keyBytes) + keyBytes + varintBytes(valueBytes) + 1 + valueBytes; // a tail length of one byte
}

function deleteBytes(keyBytes: number, version: number): number {
  return version === 1 ? 1 + 4 + keyBytes : 1 + varintBytes(keyBytes) + keyBytes;
}

/** A batch encoded as a body and a tail, with the UTF-8 length of each op's key. */
export interface EncodedBody {
  /** The ops in log format `version` (the whole payload in version 1). */
  body: Uint8Array;
  /** The values' tails (version 2; empty in version 1). */
  tail: Uint8Array;
  /** `keyBytes[i]` is the UTF-8 length of `ops[i].key`. */
  keyBytes: number[];
}

/**
 * Encodes a batch's ops as a body of log format `version` (default {@link LOG_FORMAT_VERSION}).
 * In version 2, `tailBytes(value)` says how many bytes at the end of each put's value go to
 * the tail instead (default none; clamped to the value's length).
 */
export function encodeBody(
  ops: readonly StorageOp[], version = LOG_FORMAT_VERSION, tailBytes: (value: Uint8Array) => number = () => 0,
): EncodedBody {
  const keys = ops.map((op) => encoder.encode(op.key));
  const tails = ops.map((op) => (version === 1 || op.op !== "put" ? 0 : Math.max(0, Math.min(op.value.length, Math.floor(tailBytes(op.value)) || 0))));
  let size = version === 1 ? 4 : varintBytes(ops.length);
  let tailSize = 0;
  ops.forEach((op, i) => {
    if (op.op === "delete") {
      size += deleteBytes(keys[i]!.length, version);
    } else if (version === 1) {
      size += putBytes(keys[i]!.length, op.value.length, 1);
    } else {
      const t = tails[i]!;
      size += 1 + varintBytes(keys[i]!.length) + keys[i]!.length + varintBytes(op.value.length) + varintBytes(t) + op.value.length - t;
      tailSize += t;
    }
  });
  size += tailSize; // checked against the frame limit together
  if (size > MAX_PAYLOAD_BYTES - 16) {
    throw new RecallError("too_large", `a batch of ${size} bytes exceeds the ${MAX_PAYLOAD_BYTES}-byte frame limit; split it`);
  }
  size -= tailSize;
  const body = new Uint8Array(size);
  const tail = new Uint8Array(tailSize);
  let tailAt = 0;
  const view = new DataView(body.buffer);
  const length = version === 1
    ? (at: number, n: number): number => { view.setUint32(at, n, true); return at + 4; }
    : (at: number, n: number): number => writeVarint(body, at, n);
  let at = length(0, ops.length);
  ops.forEach((op, i) => {
    const key = keys[i]!;
    body[at] = op.op === "put" ? TAG_PUT : TAG_DELETE;
    at = length(at + 1, key.length);
    body.set(key, at);
    at += key.length;
    if (op.op === "put") {
      at = length(at, op.value.length);
      const t = tails[i]!;
      if (version !== 1) at = length(at, t);
      const head = op.value.length - t;
      body.set(op.value.subarray(0, head), at);
      at += head;
      tail.set(op.value.subarray(head), tailAt);
      tailAt += t;
    }
  });
  return { body, tail, keyBytes: keys.map((k) => k.length) };
}

/**
 * The payload of a version-2 frame: `packed` is `body` itself ({@link ENCODING_STORED}) or
 * its deflate-raw compression ({@link ENCODING_DEFLATE_RAW}); `tail` follows as is.
 */
export function encodePayload(encoding: number, bodyBytes: number, packed: Uint8Array, tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(1 + varintBytes(bodyBytes) + varintBytes(packed.length) + packed.length + tail.length);
  out[0] = encoding;
  let at = writeVarint(out, 1, bodyBytes);
  at = writeVarint(out, at, packed.length);
  out.set(packed, at);
  out.set(tail, at + packed.length);
  return out;
}

/**
 * A frame (header and payload) of log format `version` around `payload`. A format-3 header's
 * checksum covers where the frame goes, so {@link placeFrame} completes it once that is known.
 * Throws `too_large` past a u32 length.
 */
export function encodeFrame(payload: Uint8Array, version = LOG_FORMAT_VERSION): Uint8Array {
  if (payload.length > MAX_PAYLOAD_BYTES) {
    throw new RecallError("too_large", `a batch of ${payload.length} bytes exceeds the ${MAX_PAYLOAD_BYTES}-byte frame limit; split it`);
  }
  const header = frameHeaderBytes(version);
  const frame = new Uint8Array(header + payload.length);
  const view = new DataView(frame.buffer);
  const at = version >= 3 ? 4 : 0;
  if (version >= 3) frame.set(FRAME_MAGIC, 0);
  view.setUint32(at, payload.length, true);
  view.setUint32(at + 4, crc32(payload), true);
  frame.set(payload, header);
  return frame;
}

/** Completes `frame` (from {@link encodeFrame}) for byte `offset` of its log; returns it. Formats 1 and 2 need nothing. */
export function placeFrame(frame: Uint8Array, offset: number, version = LOG_FORMAT_VERSION): Uint8Array {
  if (version >= 3) new DataView(frame.buffer, frame.byteOffset, FRAME_HEADER_BYTES).setUint32(12, headerChecksum(frame, offset), true);
  return frame;
}

/** A batch encoded as one uncompressed frame, with the UTF-8 length of each op's key. */
export interface EncodedBatch {
  /** Frame header and payload, ready to append. */
  frame: Uint8Array;
  /** `keyBytes[i]` is the UTF-8 length of `ops[i].key`. */
  keyBytes: number[];
}

/**
 * Encodes a batch as one uncompressed frame of log format `version` (default
 * {@link LOG_FORMAT_VERSION}), still to be placed ({@link placeFrame}). Throws `too_large`
 * when the payload exceeds a u32 length.
 */
export function encodeBatch(ops: readonly StorageOp[], version = LOG_FORMAT_VERSION): EncodedBatch {
  const { body, tail, keyBytes } = encodeBody(ops, version);
  return { frame: encodeFrame(version === 1 ? body : encodePayload(ENCODING_STORED, body.length, body, tail), version), keyBytes };
}

/** Values at least this large (64 KiB) decode as views of their frame's body rather than copies. */
export const VIEW_FROM_BYTES = 64 << 10;

/** A decoded op with its key's UTF-8 length (for live-size accounting). */
export type DecodedOp = StorageOp & { keyBytes: number };

/** Inflates deflate-raw bytes to exactly `bodyBytes` bytes, or throws. */
export type Inflate = (compressed: Uint8Array, bodyBytes: number) => Uint8Array;

/** Splits a checked version-2 payload into its body and tail; `inflate` undoes compression. */
export function payloadParts(payload: Uint8Array, where: string, inflate: Inflate): { body: Uint8Array; tail: Uint8Array } {
  const fail = (why: string, cause?: unknown): RecallError =>
    new RecallError("corrupt", `${where}: ${why}`, cause === undefined ? undefined : { cause });
  if (payload.length < 1) throw fail("payload is empty");
  const encoding = payload[0];
  if (encoding !== ENCODING_STORED && encoding !== ENCODING_DEFLATE_RAW) throw fail(`unknown payload encoding ${encoding}`);
  const { value: bodyBytes, at: packedLengthAt } = readVarint(payload, 1, fail);
  const { value: packedBytes, at } = readVarint(payload, packedLengthAt, fail);
  if (packedBytes > payload.length - at) throw fail("the body runs past the payload");
  const packed = payload.subarray(at, at + packedBytes);
  const tail = payload.subarray(at + packedBytes);
  if (encoding === ENCODING_STORED) {
    if (packedBytes !== bodyBytes) throw fail(`a stored body of ${packedBytes} bytes claims ${bodyBytes}`);
    return { body: packed, tail };
  }
  let body: Uint8Array;
  try {
    body = inflate(packed, bodyBytes);
  } catch (e) {
    throw fail(`payload does not inflate: ${e instanceof Error ? e.message : String(e)}`, e);
  }
  if (body.length !== bodyBytes) throw fail(`payload inflates to ${body.length} bytes, not ${bodyBytes}`);
  return { body, tail };
}

function readVarint(bytes: Uint8Array, at: number, fail: (why: string) => RecallError): { value: number; at: number } {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < MAX_VARINT_BYTES; i++) {
    if (at >= bytes.length) throw fail("a length runs past the payload");
    const b = bytes[at++]!;
    value += (b & 0x7f) * scale;
    if (b < 0x80) return { value, at };
    scale *= 0x80;
  }
  throw fail("a length is longer than 8 bytes");
}

/**
 * Decodes a body of log format `version` (the payload itself in version 1; see
 * {@link payloadParts} for version 2, whose values end in `tail`) whose checksum already
 * matched. Values are copied out, so the read buffer can be dropped. Throws `corrupt`
 * (naming `where`) when it is malformed.
 */
export function decodeBatch(body: Uint8Array, where: string, version = LOG_FORMAT_VERSION, tail: Uint8Array = new Uint8Array(0)): DecodedOp[] {
  let tailAt = 0;
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const fail = (why: string): RecallError => new RecallError("corrupt", `${where}: ${why}`);
  let at = 0;
  const length = version === 1
    ? (what: string): number => {
      if (at + 4 > body.length) throw fail(`${what} runs past the payload`);
      at += 4;
      return view.getUint32(at - 4, true);
    }
    : (what: string): number => {
      const r = readVarint(body, at, (why) => fail(`${what}: ${why}`));
      at = r.at;
      return r.value;
    };
  if (version === 1 && body.length < 4) throw fail("payload is shorter than its op count");
  const count = length("the op count");
  const ops: DecodedOp[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 2 > body.length) throw fail(`op ${i} runs past the payload`);
    const tag = body[at++]!;
    if (tag !== TAG_PUT && tag !== TAG_DELETE) throw fail(`op ${i} has unknown tag ${tag}`);
    const keyBytes = length(`op ${i}'s key length`);
    if (at + keyBytes > body.length) throw fail(`op ${i}'s key runs past the payload`);
    let key: string;
    try {
      key = decoder.decode(body.subarray(at, at + keyBytes));
    } catch {
      throw fail(`op ${i}'s key is not UTF-8`);
    }
    at += keyBytes;
    if (tag === TAG_DELETE) {
      ops.push({ op: "delete", key, keyBytes });
      continue;
    }
    const valueBytes = length(`op ${i}'s value length`);
    const tailBytes = version === 1 ? 0 : length(`op ${i}'s tail length`);
    const headBytes = valueBytes - tailBytes;
    if (headBytes < 0) throw fail(`op ${i}'s tail is longer than its value`);
    if (at + headBytes > body.length) throw fail(`op ${i}'s value runs past the payload`);
    if (tailAt + tailBytes > tail.length) throw fail(`op ${i}'s tail runs past the payload`);
    // A large value wholly in the body is a view of it: the body is the decoder's own buffer
    // (a fresh read or inflate, never written again), and callers get copies from the
    // adapters. Copying the snapshot's chunks cost a fifth of an open from a snapshot. Small
    // values are copied, so that one live record never keeps a whole read buffer of others
    // alive; a value split between body and tail is joined into a plain copy.
    let value: Uint8Array;
    if (tailBytes === 0 && headBytes >= VIEW_FROM_BYTES) {
      value = new Uint8Array(body.buffer, body.byteOffset + at, headBytes);
    } else {
      value = new Uint8Array(valueBytes);
      value.set(body.subarray(at, at + headBytes));
      value.set(tail.subarray(tailAt, tailAt + tailBytes), headBytes);
    }
    ops.push({ op: "put", key, value, keyBytes });
    at += headBytes;
    tailAt += tailBytes;
  }
  if (at !== body.length) throw fail(`${body.length - at} bytes follow the last op`);
  if (tailAt !== tail.length) throw fail(`${tail.length - tailAt} tail bytes follow the last op`);
  return ops;
}
