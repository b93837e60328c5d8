/**
 * The snapshot's payload: the engine's image (its records and every index, written by the
 * engine: `src/image/mod.rs` has the format) behind a small JSON header, so an open parses the
 * indexes instead of rebuilding them. It is a cache: the store uses it only when the journal
 * covers every batch written after it (`layout.ts`), and rebuilds from the records whenever it
 * is stale beyond that, of another version (version 1 held the records as JSON and was
 * rebuilt into an engine at each open) or damaged (the framing's CRC, the header checks here,
 * then the engine's own checks as it reads the image).
 *
 * Layout (integers little-endian):
 *
 * | field | content |
 * |---|---|
 * | u32 `h`, then `h` bytes, padded to 4 | header JSON: `{ claims, memories, notes, entities, edges, ranks }` |
 * | the rest | the engine image |
 *
 * `claims`: writer → last batch reflected; `ranks`: the insertion rank of each memory, in the
 * order of `engine.ids()` (`null`: none).
 * @module
 */
import { encodeSnapshotParts, inspectSnapshotParts } from "./snapshot.js";

/** The payload version given to the snapshot framing; another version is ignored (rebuilt). */
export const IMAGE_VERSION = 2;

/** The image header. */
export interface ImageHeader {
  /** The last batch of each writer the image reflects (see `layout.ts`). */
  claims: Record<string, number>;
  memories: number;
  notes: number;
  entities: number;
  edges: number;
  /** Insertion rank of each memory, in the order of `engine.ids()`. */
  ranks: (number | null)[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

const pad4 = (n: number): number => (4 - (n % 4)) % 4;

/** The framed snapshot of `header` and the engine image's pieces. */
export function encodeImage(header: ImageHeader, engine: readonly Uint8Array[]): Uint8Array {
  const json = encoder.encode(JSON.stringify(header));
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, json.length, true);
  return encodeSnapshotParts(IMAGE_VERSION, [length, json, new Uint8Array(pad4(json.length)), ...engine]);
}

/** An image opened for reading: its header and the engine image's bytes, in consecutive pieces. */
export interface OpenedImage {
  header: ImageHeader;
  engine: Uint8Array[];
}

/** `length` bytes at `at` of the consecutive `pieces` (a view when one piece holds them); `undefined` past the end. */
function bytesAt(pieces: readonly Uint8Array[], at: number, length: number): Uint8Array | undefined {
  const out = new Uint8Array(length);
  let filled = 0;
  let start = 0;
  for (const p of pieces) {
    const end = start + p.length;
    if (end > at && filled < length) {
      const from = Math.max(at + filled - start, 0);
      const take = Math.min(p.length - from, length - filled);
      if (filled === 0 && take === length) return p.subarray(from, from + take);
      out.set(p.subarray(from, from + take), filled);
      filled += take;
    }
    start = end;
  }
  return filled === length ? out : undefined;
}

/** The pieces from byte `at` on (views). */
function piecesFrom(pieces: readonly Uint8Array[], at: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (const p of pieces) {
    const end = start + p.length;
    if (end > at) out.push(p.subarray(Math.max(at - start, 0)));
    start = end;
  }
  return out;
}

/**
 * Opens an image, or says why it cannot be used: `stale` (another version: rebuild quietly)
 * or `damaged` (the framing's checks, or a header that is not the image's). The image may come
 * as the consecutive chunks a store keeps it in: they are read in place, never joined.
 */
export function inspectImage(bytes: Uint8Array | readonly Uint8Array[]): { image: OpenedImage } | { stale: string } | { damaged: string } {
  const check = inspectSnapshotParts(bytes instanceof Uint8Array ? [bytes] : bytes, IMAGE_VERSION);
  if (!("payload" in check)) return check;
  const payload = check.payload;
  try {
    const length = bytesAt(payload, 0, 4);
    if (length === undefined) return { damaged: "it ends inside its header" };
    const headerBytes = new DataView(length.buffer, length.byteOffset, 4).getUint32(0, true);
    const json = bytesAt(payload, 4, headerBytes);
    if (json === undefined) return { damaged: "it ends inside its header" };
    const header = JSON.parse(decoder.decode(json)) as ImageHeader;
    const claims = header?.claims as unknown;
    if (typeof claims !== "object" || claims === null || Array.isArray(claims)) return { damaged: "its header has no claims" };
    if (!Object.values(claims).every((n) => Number.isSafeInteger(n))) return { damaged: "its header's claims are not batch numbers" };
    const ranks = header.ranks as unknown;
    if (!Array.isArray(ranks) || ranks.length !== header.memories || !ranks.every((r) => r === null || Number.isSafeInteger(r))) {
      return { damaged: "its header's ranks are not one per memory" };
    }
    const start = 4 + headerBytes + pad4(headerBytes);
    if (bytesAt(payload, 0, start) === undefined) return { damaged: "it ends inside its header" };
    return { image: { header, engine: piecesFrom(payload, start) } };
  } catch (e) {
    return { damaged: `its header is not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
}

/** Reads an image. `undefined` when the framing says stale, foreign or damaged. */
export function openImage(bytes: Uint8Array | readonly Uint8Array[]): OpenedImage | undefined {
  const opened = inspectImage(bytes);
  return "image" in opened ? opened.image : undefined;
}
