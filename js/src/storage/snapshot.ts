/**
 * Snapshot framing: wraps the engine's index snapshot bytes in a checked header so a stale,
 * foreign or damaged snapshot is recognised and ignored (the index is then rebuilt from the
 * records), never half-trusted. {@link inspectSnapshot} tells the two apart: another version
 * is stale, expected after an upgrade; anything else that fails is damage, which the store
 * reports (`storageInfo().damage`).
 *
 * Layout (integers little-endian):
 *
 * | offset | size | field |
 * |---|---|---|
 * | 0 | 8 | magic `"RKSNAP\r\n"` |
 * | 8 | 4 | container format (1) |
 * | 12 | 4 | payload version (the caller's, e.g. the engine's index format) |
 * | 16 | 8 | payload length in bytes (u64) |
 * | 24 | 4 | CRC-32 of the payload |
 * | 28 | 4 | CRC-32 of bytes 0–27 |
 * | 32 | n | payload |
 * @module
 */
import { RecallError } from "../errors.js";
import { crc32 } from "./crc32.js";

const MAGIC = new Uint8Array([0x52, 0x4b, 0x53, 0x4e, 0x41, 0x50, 0x0d, 0x0a]); // "RKSNAP\r\n"
const CONTAINER_VERSION = 1;
/** Bytes before the payload. */
export const SNAPSHOT_HEADER_BYTES = 32;

/** Frames `payload` (copied) with a header naming `version`. Throws `invalid_argument` on a bad version. */
export function encodeSnapshot(version: number, payload: Uint8Array): Uint8Array {
  if (!Number.isInteger(version) || version < 0 || version > 0xffffffff) {
    throw new RecallError("invalid_argument", `snapshot version must be an integer 0..4294967295, got ${String(version)}`);
  }
  if (!(payload instanceof Uint8Array)) throw new RecallError("invalid_argument", "snapshot payload must be a Uint8Array");
  const out = new Uint8Array(SNAPSHOT_HEADER_BYTES + payload.length);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(8, CONTAINER_VERSION, true);
  view.setUint32(12, version, true);
  view.setUint32(16, payload.length % 2 ** 32, true);
  view.setUint32(20, Math.floor(payload.length / 2 ** 32), true);
  view.setUint32(24, crc32(payload), true);
  view.setUint32(28, crc32(out.subarray(0, 28)), true);
  out.set(payload, SNAPSHOT_HEADER_BYTES);
  return out;
}

/**
 * Like {@link encodeSnapshot}, with the payload given as consecutive pieces: they are copied
 * once, straight into the framed result (no intermediate concatenation).
 */
export function encodeSnapshotParts(version: number, parts: readonly Uint8Array[]): Uint8Array {
  if (!Number.isInteger(version) || version < 0 || version > 0xffffffff) {
    throw new RecallError("invalid_argument", `snapshot version must be an integer 0..4294967295, got ${String(version)}`);
  }
  let length = 0;
  for (const part of parts) {
    if (!(part instanceof Uint8Array)) throw new RecallError("invalid_argument", "snapshot payload parts must be Uint8Arrays");
    length += part.length;
  }
  const out = new Uint8Array(SNAPSHOT_HEADER_BYTES + length);
  const view = new DataView(out.buffer);
  let at = SNAPSHOT_HEADER_BYTES;
  let crc = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
    crc = crc32(part, crc);
  }
  out.set(MAGIC, 0);
  view.setUint32(8, CONTAINER_VERSION, true);
  view.setUint32(12, version, true);
  view.setUint32(16, length % 2 ** 32, true);
  view.setUint32(20, Math.floor(length / 2 ** 32), true);
  view.setUint32(24, crc, true);
  view.setUint32(28, crc32(out.subarray(0, 28)), true);
  return out;
}

/** What {@link inspectSnapshot} found: the payload, or why it cannot be used. */
export type SnapshotCheck = { payload: Uint8Array } | { stale: string } | { damaged: string };

/** What {@link inspectSnapshotParts} found: the payload as views of the parts, or why it cannot be used. */
export type SnapshotPartsCheck = { payload: Uint8Array[] } | { stale: string } | { damaged: string };

/**
 * {@link inspectSnapshot} over a snapshot given as consecutive parts (the chunks a store keeps
 * it in), without joining them: the payload comes back as views of the parts, in order.
 * Never throws.
 */
export function inspectSnapshotParts(parts: readonly Uint8Array[], expectedVersion: number): SnapshotPartsCheck {
  if (!parts.every((p) => p instanceof Uint8Array)) return { damaged: "not byte arrays" };
  let total = 0;
  for (const p of parts) total += p.length;
  if (total < SNAPSHOT_HEADER_BYTES) return { damaged: `${total} bytes, shorter than a snapshot header` };
  // The header, gathered from as many parts as it spans (a part may be shorter than a header).
  const head = new Uint8Array(SNAPSHOT_HEADER_BYTES);
  const payload: Uint8Array[] = [];
  let filled = 0;
  for (const p of parts) {
    const take = Math.min(SNAPSHOT_HEADER_BYTES - filled, p.length);
    head.set(p.subarray(0, take), filled);
    filled += take;
    if (take < p.length) payload.push(p.subarray(take));
  }
  if (!MAGIC.every((b, i) => head[i] === b)) return { damaged: "no snapshot magic" };
  const view = new DataView(head.buffer);
  if (view.getUint32(28, true) !== crc32(head.subarray(0, 28))) return { damaged: "its header fails its checksum" };
  const container = view.getUint32(8, true);
  if (container !== CONTAINER_VERSION) return { stale: `container format ${container}` };
  const version = view.getUint32(12, true);
  if (version !== expectedVersion) return { stale: `payload version ${version}, not ${expectedVersion}` };
  const length = view.getUint32(16, true) + view.getUint32(20, true) * 2 ** 32;
  if (length !== total - SNAPSHOT_HEADER_BYTES) {
    return { damaged: `its header announces ${length} payload bytes, ${total - SNAPSHOT_HEADER_BYTES} follow` };
  }
  let crc = 0;
  for (const p of payload) crc = crc32(p, crc);
  return view.getUint32(24, true) === crc ? { payload } : { damaged: "its payload fails its checksum" };
}

/**
 * Checks a snapshot made by {@link encodeSnapshot} with `expectedVersion`: its payload (a view
 * into `bytes`, no copy); `stale` for another container or payload version (rebuild quietly);
 * `damaged` for anything else (truncated, checksums failing, not a snapshot at all). Never throws.
 */
export function inspectSnapshot(bytes: Uint8Array, expectedVersion: number): SnapshotCheck {
  if (!(bytes instanceof Uint8Array)) return { damaged: "not a byte array" };
  const check = inspectSnapshotParts([bytes], expectedVersion);
  // One part in, at most one piece out: the payload is a view into `bytes`.
  return "payload" in check ? { payload: check.payload[0] ?? bytes.subarray(SNAPSHOT_HEADER_BYTES) } : check;
}

/**
 * The payload of a snapshot made by {@link encodeSnapshot} with `expectedVersion`, as a view
 * into `bytes` (no copy). Returns `undefined` — "ignore it and rebuild" — for anything else:
 * another version, a truncated or damaged snapshot, garbage, a non-`Uint8Array`. Never throws.
 */
export function decodeSnapshot(bytes: Uint8Array, expectedVersion: number): Uint8Array | undefined {
  const check = inspectSnapshot(bytes, expectedVersion);
  return "payload" in check ? check.payload : undefined;
}
