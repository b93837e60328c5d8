/**
 * The snapshot's payload: every record of a store in one compact binary image, so an open
 * reads one value instead of one per record. It is a cache: the store uses it only when the
 * journal covers every batch written after it (`layout.ts`), and rebuilds from the records
 * whenever it is stale beyond that, of another version or damaged (the framing's CRC, then
 * the checks here). Memories are written in insertion order, so both paths load the same engine.
 *
 * Layout (integers little-endian, every section starting at a multiple of 4 bytes):
 *
 * | field | content |
 * |---|---|
 * | u32 `h`, then `h` bytes, padded | header JSON: `{ claims, memories, notes, entities, edges }` (`claims`: writer → last batch reflected) |
 * | blocks | until the end |
 *
 * Block: u32 kind (1 memory, 2 note, 3 entity, 4 edge), u32 count, u32 JSON bytes `j`, u32
 * dims `d`, u32 vector rows `r`; memory blocks then have `count` bytes "has embedding" (1/0),
 * padded; then `r·d` float32s (the embeddings, in item order); then the JSON array of the
 * records' data, padded. Memory data carries `order`, as in the `m/` records.
 * @module
 */
import { RecallError } from "../errors.js";
import { encodeSnapshotParts, inspectSnapshot } from "./snapshot.js";

/** The payload version given to the snapshot framing; another version is ignored (rebuilt). */
export const IMAGE_VERSION = 1;
/** Memories per block: bounds the size of each JSON string on both sides. */
export const IMAGE_BLOCK_MEMORIES = 4096;

/** The image header. */
export interface ImageHeader {
  /** The last batch of each writer the image reflects (see `layout.ts`). */
  claims: Record<string, number>;
  memories: number;
  notes: number;
  entities: number;
  edges: number;
}

/** One block of records. */
export type ImageBlock =
  | { kind: "memory"; records: Record<string, unknown>[]; has: Uint8Array; vectors: Float32Array; dims: number }
  | { kind: "note" | "entity" | "edge"; records: Record<string, unknown>[] };

const KINDS = ["memory", "note", "entity", "edge"] as const;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

const pad4 = (n: number): number => (4 - (n % 4)) % 4;

function corrupt(message: string): RecallError {
  return new RecallError("corrupt", `snapshot: ${message}`);
}

function u32s(...values: number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setUint32(4 * i, v, true));
  return out;
}

/** Float32s as little-endian bytes (a view when the host is little-endian). */
function floatBytes(values: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const out = new Uint8Array(values.byteLength);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setFloat32(4 * i, v, true));
  return out;
}

/** Builds an image piece by piece, then frames it with {@link finish}. */
export class ImageWriter {
  readonly #parts: Uint8Array[] = [];

  /** Starts an image with its header. */
  constructor(header: ImageHeader) {
    this.#chunk(encoder.encode(JSON.stringify(header)), true);
  }

  #chunk(bytes: Uint8Array, withLength: boolean): void {
    if (withLength) this.#parts.push(u32s(bytes.length));
    this.#parts.push(bytes);
    const pad = pad4(bytes.length);
    if (pad > 0) this.#parts.push(new Uint8Array(pad));
  }

  /** Adds a block of memories: their data (with `order`) and embeddings, all of `dims` floats. */
  addMemories(records: Record<string, unknown>[], embeddings: (Float32Array | undefined)[], dims: number | undefined): void {
    const rows = embeddings.filter((e): e is Float32Array => e !== undefined);
    const d = dims ?? rows[0]?.length ?? 0;
    const vectors = new Float32Array(rows.length * d);
    rows.forEach((e, i) => {
      if (e.length !== d) throw new RecallError("internal", `snapshot: an embedding has ${e.length} values, not ${d}`);
      vectors.set(e, i * d);
    });
    const json = encoder.encode(JSON.stringify(records));
    this.#parts.push(u32s(1, records.length, json.length, d, rows.length));
    this.#chunk(Uint8Array.from(embeddings, (e) => (e === undefined ? 0 : 1)), false);
    this.#parts.push(floatBytes(vectors));
    this.#chunk(json, false);
  }

  /** Adds a block of notes, entities or edges (each record's JSON-compatible fields). */
  addRecords(kind: "note" | "entity" | "edge", records: readonly object[]): void {
    const json = encoder.encode(JSON.stringify(records));
    this.#parts.push(u32s(KINDS.indexOf(kind) + 1, records.length, json.length, 0, 0));
    this.#chunk(json, false);
  }

  /** The framed snapshot bytes. */
  finish(): Uint8Array {
    return encodeSnapshotParts(IMAGE_VERSION, this.#parts);
  }
}

/** An image opened for reading: its header, and its blocks (read on demand; they throw `corrupt` when malformed). */
export interface OpenedImage {
  header: ImageHeader;
  blocks: () => Generator<ImageBlock>;
}

/**
 * Opens an image, or says why it cannot be used: `stale` (another version: rebuild quietly)
 * or `damaged` (the framing's checks, or a header that is not the image's).
 */
export function inspectImage(bytes: Uint8Array): { image: OpenedImage } | { stale: string } | { damaged: string } {
  const check = inspectSnapshot(bytes, IMAGE_VERSION);
  if (!("payload" in check)) return check;
  const payload = check.payload;
  try {
    const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    const headerBytes = view.getUint32(0, true);
    const header = JSON.parse(decoder.decode(payload.subarray(4, 4 + headerBytes))) as ImageHeader;
    const claims = header?.claims as unknown;
    if (typeof claims !== "object" || claims === null || Array.isArray(claims)) return { damaged: "its header has no claims" };
    if (!Object.values(claims).every((n) => Number.isSafeInteger(n))) return { damaged: "its header's claims are not batch numbers" };
    const start = 4 + headerBytes + pad4(headerBytes);
    return { image: { header, blocks: () => readBlocks(payload, view, start) } };
  } catch (e) {
    return { damaged: `its header is not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
}

/** Reads an image. `undefined` when the framing says stale, foreign or damaged. */
export function openImage(bytes: Uint8Array): OpenedImage | undefined {
  const opened = inspectImage(bytes);
  return "image" in opened ? opened.image : undefined;
}

function parseArray(bytes: Uint8Array): Record<string, unknown>[] {
  const value = JSON.parse(decoder.decode(bytes)) as unknown;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "object" && v !== null && !Array.isArray(v))) {
    throw corrupt("a block's records are not an array of objects");
  }
  return value as Record<string, unknown>[];
}

function* readBlocks(payload: Uint8Array, view: DataView, start: number): Generator<ImageBlock> {
  let at = start;
  const need = (n: number): void => {
    if (at + n > payload.length) throw corrupt(`truncated at byte ${at}`);
  };
  while (at < payload.length) {
    need(20);
    const [kindCode, count, jsonBytes, dims, rows] = [0, 4, 8, 12, 16].map((o) => view.getUint32(at + o, true)) as
      [number, number, number, number, number];
    at += 20;
    const kind = KINDS[kindCode - 1];
    if (kind === undefined) throw corrupt(`unknown block kind ${kindCode}`);
    if (kind === "memory") {
      need(count + pad4(count));
      const has = payload.subarray(at, at + count);
      at += count + pad4(count);
      const floats = rows * dims;
      need(4 * floats);
      let vectors: Float32Array;
      if (LITTLE_ENDIAN && (payload.byteOffset + at) % 4 === 0) {
        vectors = new Float32Array(payload.buffer, payload.byteOffset + at, floats);
      } else {
        vectors = new Float32Array(floats);
        for (let i = 0; i < floats; i++) vectors[i] = view.getFloat32(at + 4 * i, true);
      }
      at += 4 * floats;
      need(jsonBytes);
      const records = parseArray(payload.subarray(at, at + jsonBytes));
      at += jsonBytes + pad4(jsonBytes);
      if (records.length !== count || has.reduce((n, b) => n + b, 0) !== rows) throw corrupt("a memory block's counts disagree");
      yield { kind, records, has, vectors, dims };
    } else {
      need(jsonBytes);
      const records = parseArray(payload.subarray(at, at + jsonBytes));
      at += jsonBytes + pad4(jsonBytes);
      if (records.length !== count) throw corrupt(`a ${kind} block's count disagrees`);
      yield { kind, records };
    }
  }
}
