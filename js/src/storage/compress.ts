/**
 * The file store's frame payloads, compressed with deflate-raw (`node:zlib`) when that makes
 * them smaller: {@link encodeCompressedFrame} for writes and compactions, {@link decodeFrame}
 * for replay. The frame and payload formats are `log.ts`'s; this is the part that needs Node.
 * @module
 */
import * as zlib from "node:zlib";
import { deflateRaw, inflateRawSync } from "node:zlib";
import type { StorageOp } from "./adapter.js";
import { useNativeCrc32 } from "./crc32.js";
import type { NativeCrc32 } from "./crc32.js";
import {
  ENCODING_DEFLATE_RAW, ENCODING_STORED, LOG_FORMAT_VERSION, decodeBatch, encodeBody, encodeFrame, encodePayload,
  payloadParts, recordTailBytes,
} from "./log.js";

// Node 20.15+ (and runtimes that follow it) check frames natively; others keep the tables.
useNativeCrc32((zlib as { crc32?: NativeCrc32 }).crc32);

/** Bodies smaller than this (64 bytes) are stored without trying to compress them. */
export const MIN_COMPRESS_BYTES = 64;
/**
 * Bodies at least this large (4 MiB) are compressed only when a sample of {@link SAMPLE_BYTES}
 * from their middle shrinks below {@link WORTH_RATIO}: a large value of float32 vectors and
 * packed index bytes (a snapshot chunk) barely shrinks, and deflating it cost seconds on every
 * write and inflating it seconds on every open.
 */
export const SAMPLE_FROM_BYTES = 4 << 20;
/** The sample a large body's compressibility is judged by (256 KiB). */
export const SAMPLE_BYTES = 256 << 10;
/** A sample must compress below this share of its size for the whole body to be compressed. */
export const WORTH_RATIO = 0.9;

/** The zlib level of frame compression (6, zlib's default: level 1 gives 10 % larger logs for a third less time). */
export const COMPRESSION_LEVEL = 6;

/** What replay and writes hand to the `FileAdapter`'s bookkeeping: a frame's ops and its compression ratio. */
export interface AppliedFrame {
  ops: ReadonlyArray<StorageOp & { keyBytes: number }>;
  /** Payload bytes over body bytes (1 when stored as is). */
  ratio: number;
  /** The log format the frame was written in. */
  version: number;
}

const deflateRawAsync = (body: Uint8Array): Promise<Uint8Array> => new Promise((done, fail) => {
  deflateRaw(body, { level: COMPRESSION_LEVEL }, (e, out) => (e ? fail(e) : done(out)));
});

function inflate(compressed: Uint8Array, bodyBytes: number): Uint8Array {
  const out = inflateRawSync(compressed, { maxOutputLength: Math.max(bodyBytes, 1) });
  // A plain view: a Buffer's slice() would share memory where callers expect a copy.
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * Encodes a batch as one frame of the current log format, its body compressed when that makes
 * it smaller; record embeddings and signatures go to the uncompressed tail
 * ({@link recordTailBytes}). Compression runs on libuv's thread pool, so it overlaps with
 * earlier appends. The frame is placed (`placeFrame`) once its offset is known.
 */
export async function encodeCompressedFrame(
  ops: readonly StorageOp[],
): Promise<{ frame: Uint8Array; keyBytes: number[]; ratio: number }> {
  const { body, tail, keyBytes } = encodeBody(ops, LOG_FORMAT_VERSION, recordTailBytes);
  let packed = body;
  if (body.length >= MIN_COMPRESS_BYTES && await worthCompressing(body)) {
    const compressed = await deflateRawAsync(body);
    if (compressed.length < body.length) packed = compressed;
  }
  const payload = encodePayload(packed === body ? ENCODING_STORED : ENCODING_DEFLATE_RAW, body.length, packed, tail);
  return { frame: encodeFrame(payload), keyBytes, ratio: payload.length / Math.max(body.length + tail.length, 1) };
}

/** Whether `body` is small, or a sample from its middle compresses below {@link WORTH_RATIO}. */
async function worthCompressing(body: Uint8Array): Promise<boolean> {
  if (body.length < SAMPLE_FROM_BYTES) return true;
  const at = (body.length - SAMPLE_BYTES) >> 1;
  const sample = await deflateRawAsync(body.subarray(at, at + SAMPLE_BYTES));
  return sample.length < SAMPLE_BYTES * WORTH_RATIO;
}

/** Decodes a checked frame payload of log format `version` into its ops; `corrupt` (naming `where`) when malformed. */
export function decodeFrame(payload: Uint8Array, version: number, where: string): AppliedFrame {
  const { body, tail } = version === 1 ? { body: payload, tail: undefined } : payloadParts(payload, where, inflate);
  return { ops: decodeBatch(body, where, version, tail), ratio: payload.length / (body.length + (tail?.length ?? 0)), version };
}
