/**
 * Reads a log file (format in `log.ts`) frame by frame and applies the rule that tells a torn
 * tail from damage (the "Torn tail or damage" section of `log.ts`). An open scans strictly:
 * the first damaged frame fails it with `corrupt`, naming the file and the frame's byte
 * offset. A repair scans to salvage: it drops each damaged byte range, resumes at the next
 * frame that checks, and reports what it dropped.
 *
 * Resuming after damage: a format-3 frame whose header checks but whose payload does not is
 * skipped exactly (its length is checked); otherwise the scan looks for the next offset where
 * a frame starts (format 3: magic and header checksum, which binds the frame to its offset;
 * formats 1 and 2: a length that fits and a payload checksum that holds). A header one bit
 * away from one that checks is taken as that header when the payload then checks too, so a
 * single flipped bit in a header loses no frame in a repair.
 *
 * Searching formats 1 and 2 stays linear: a length that merely fits is common there, so the
 * positions are first sifted without a checksum (the length fits, the payload could start so),
 * then every candidate's payload checksum is computed in one pass over the bytes they span
 * ({@link crc32Between}), instead of one pass per candidate.
 * @module
 */
import type { FileHandle } from "node:fs/promises";
import { RecallError } from "../errors.js";
import { crc32, crc32Between } from "./crc32.js";
import type { DamagedRange } from "./log.js";
import {
  FRAME_MAGIC, LOG_FORMAT_VERSION, LOG_FORMAT_VERSIONS, LOG_HEADER_BYTES, MIN_PAYLOAD_BYTES, checkLogHeader, encodeLogHeader,
  frameHeaderBytes, isFrameHeaderStart, readFrameHeader,
} from "./log.js";

/** Read size while scanning (1 MiB). */
const READ_CHUNK_BYTES = 1 << 20;
/** Largest single read call (1 GiB), under Node's 2 GiB per-call limit. */
const MAX_IO_BYTES = 1 << 30;
/** Positions a search for the next frame sifts per read (1 MiB). */
const SEARCH_CHUNK_BYTES = 1 << 20;
/** Bytes after a format-1/2 frame header a search looks at before taking a position as a candidate. */
const PROBE_BYTES = 24;

/** What a scan found. */
export interface LogScan {
  /** The log's format version. */
  version: number;
  /** The file's size. */
  size: number;
  /** End of the last frame applied: where the next frame goes. */
  end: number;
  /** Frames applied. */
  frames: number;
  /** The torn tail that was dropped, if any (an append that never completed). */
  torn?: { offset: number; bytes: number; why: string };
  /** Salvage only: the damaged ranges dropped. */
  damaged: DamagedRange[];
  /** Salvage only: frames kept once one bit of their header was restored (their offsets). */
  restored: number[];
  /** Salvage only: why the log header did not check, when its format could still be told. */
  header?: string;
}

/** Decodes a checked payload of format `version` (throws `corrupt` when malformed); `where` names the frame. */
export type DecodeFrame<T> = (payload: Uint8Array, version: number, where: string) => T;

/** Reads up to `length` bytes at `position`; fewer only at the end of the file. */
async function readAt(fh: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(out, done, Math.min(length - done, MAX_IO_BYTES), position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? out : out.subarray(0, done);
}

/** Buffered reads over `[0, size)` of a file. */
class Reader {
  #buffer: Uint8Array = new Uint8Array(0);
  #start = 0;

  constructor(readonly fh: FileHandle, readonly size: number) {}

  /**
   * `length` bytes at `position` (fewer only past `size`), served from the buffer when
   * possible. The result is a view that the next call may replace: copy what must outlive it.
   */
  async at(position: number, length: number): Promise<Uint8Array> {
    const offset = position - this.#start;
    if (offset >= 0 && offset + length <= this.#buffer.length) return this.#buffer.subarray(offset, offset + length);
    const want = Math.min(Math.max(length, READ_CHUNK_BYTES), this.size - position);
    this.#buffer = await readAt(this.fh, position, Math.max(want, 0));
    this.#start = position;
    return this.#buffer.subarray(0, Math.min(length, this.#buffer.length));
  }

  /** Whether every byte in `[position, size)` is zero (a file grown but never written). */
  async zeroFrom(position: number): Promise<boolean> {
    for (let at = position; at < this.size; at += READ_CHUNK_BYTES) {
      const chunk = await this.at(at, Math.min(READ_CHUNK_BYTES, this.size - at));
      if (chunk.some((b) => b !== 0)) return false;
    }
    return true;
  }
}

/** A frame that checks: its payload (a view, see {@link Reader.at}) and where it ends. */
interface Whole {
  payload: Uint8Array;
  end: number;
}

/** What the bytes at an offset are. */
type Verdict =
  | { kind: "frame"; frame: Whole }
  | { kind: "torn"; why: string }
  /** `end`: where the damaged frame ends, when its header checks; `fixed`: the frame, once one header bit is restored. */
  | { kind: "damaged"; why: string; end?: number; fixed?: Whole };

/** A frame that may be at `at`: its payload would be `[start, end)`, with CRC-32 `crc`. */
interface Candidate {
  at: number;
  start: number;
  end: number;
  crc: number;
}

/** The first of `candidates` (in their order) whose payload checks, from one pass over the bytes they span. */
async function firstThatChecks(r: Reader, candidates: readonly Candidate[]): Promise<Candidate | undefined> {
  if (candidates.length === 0) return undefined;
  const marks = [...new Set(candidates.flatMap((c) => [c.start, c.end]))].sort((a, b) => a - b);
  const running = new Map<number, number>();
  let crc = 0;
  let at = marks[0]!;
  for (const mark of marks) {
    for (let n = Math.min(READ_CHUNK_BYTES, mark - at); n > 0; n = Math.min(READ_CHUNK_BYTES, mark - at)) {
      crc = crc32(await r.at(at, n), crc);
      at += n;
    }
    running.set(mark, crc);
  }
  return candidates.find((c) => crc32Between(running.get(c.start)!, running.get(c.end)!, c.end - c.start) === c.crc);
}

/** The whole frame `candidate` names. */
async function wholeOf(r: Reader, candidate: Candidate | undefined): Promise<Whole | undefined> {
  return candidate && { payload: await r.at(candidate.start, candidate.end - candidate.start), end: candidate.end };
}

/** The frame at `offset` once one bit of its header is flipped back, if exactly that makes it check. */
async function oneBitHeader(r: Reader, offset: number, version: number): Promise<Whole | undefined> {
  const size = frameHeaderBytes(version);
  const head = (await r.at(offset, size)).slice();
  const candidates: Candidate[] = [];
  for (let bit = 0; bit < size * 8; bit++) {
    head[bit >> 3]! ^= 1 << (bit & 7);
    // Format 3: the header checksum rules out every flip but the right one before a payload is read.
    const header = readFrameHeader(head, offset, version);
    head[bit >> 3]! ^= 1 << (bit & 7);
    if (typeof header === "string" || offset + size + header.length > r.size) continue;
    candidates.push({ at: offset, start: offset + size, end: offset + size + header.length, crc: header.payloadCrc });
  }
  return wholeOf(r, await firstThatChecks(r, candidates));
}

/** Reads an unsigned LEB128 varint of at most 8 bytes at `at` of `bytes`; `undefined` past the end or when longer. */
function probeVarint(bytes: Uint8Array, at: number): { value: number; at: number } | undefined {
  let value = 0;
  for (let i = 0, scale = 1; i < 8 && at < bytes.length; i++, scale *= 0x80) {
    const b = bytes[at++]!;
    value += (b & 0x7f) * scale;
    if (b < 0x80) return { value, at };
  }
  return undefined;
}

/**
 * Whether a format-1/2 payload of `length` bytes could start at `at` of `window` (as far as
 * the window goes): checks on its first bytes that rule out most positions before a checksum.
 */
function plausiblePayload(window: Uint8Array, view: DataView, at: number, length: number, version: number): boolean {
  if (at + PROBE_BYTES > window.length) return true; // the end of the file: too few bytes to tell
  if (version === 1) {
    const count = view.getUint32(at, true);
    const tag = window[at + 4];
    return count >= 1 && count <= length && (tag === 1 || tag === 2) && view.getUint32(at + 5, true) <= length;
  }
  const encoding = window[at]!;
  const body = encoding > 1 ? undefined : probeVarint(window, at + 1);
  const packed = body && probeVarint(window, body.at);
  if (packed === undefined) return false;
  // Stored: the body as is; deflated: only when that made it smaller.
  return packed.value <= length - (packed.at - at) && (encoding === 0 ? packed.value === body!.value : packed.value < body!.value);
}

/**
 * The first offset at or after `from` where a frame starts, if any: format 3, where a header
 * checks (its payload may still be damaged: the caller's next verdict says); formats 1 and 2,
 * where a whole frame checks. Positions are sifted a window at a time, then checked together.
 */
async function nextFrame(r: Reader, from: number, version: number): Promise<number | undefined> {
  const headerBytes = frameHeaderBytes(version);
  const last = r.size - headerBytes - MIN_PAYLOAD_BYTES; // the last position a frame fits at
  const candidates: Candidate[] = [];
  for (let base = from; base <= last; base += SEARCH_CHUNK_BYTES) {
    const count = Math.min(SEARCH_CHUNK_BYTES, last - base + 1);
    const window = (await r.at(base, count + headerBytes + PROBE_BYTES)).slice();
    const view = new DataView(window.buffer);
    for (let i = 0; i < count; i++) {
      if (version >= 3) {
        if (window[i] === FRAME_MAGIC[0] && typeof readFrameHeader(window.subarray(i, i + headerBytes), base + i, version) !== "string") {
          return base + i;
        }
        continue;
      }
      const length = view.getUint32(i, true);
      if (length < MIN_PAYLOAD_BYTES || length > r.size - base - i - headerBytes) continue;
      if (!plausiblePayload(window, view, i + headerBytes, length, version)) continue;
      const start = base + i + headerBytes;
      candidates.push({ at: base + i, start, end: start + length, crc: view.getUint32(i + 4, true) });
    }
  }
  return (await firstThatChecks(r, candidates))?.at;
}

/** Applies the rule of `log.ts` to the bytes at `offset`. `salvage` also looks for a one-bit header fix. */
async function readFrame(r: Reader, offset: number, version: number, salvage: boolean): Promise<Verdict> {
  const left = r.size - offset;
  const headerBytes = frameHeaderBytes(version);
  const zeros = `the ${left} bytes from there to the end of the file are zero (a file grown but never written)`;
  if (left < headerBytes) {
    const head = await r.at(offset, left);
    if (version < 3 || isFrameHeaderStart(head)) return { kind: "torn", why: `the last ${left} bytes are the start of a frame header` };
    if (await r.zeroFrom(offset)) return { kind: "torn", why: zeros };
    return { kind: "damaged", why: `the last ${left} bytes do not start a frame` };
  }
  const head = (await r.at(offset, headerBytes)).slice();
  const header = readFrameHeader(head, offset, version);
  if (typeof header === "string") {
    if (await r.zeroFrom(offset)) return { kind: "torn", why: zeros };
    return { kind: "damaged", why: header, fixed: salvage ? await oneBitHeader(r, offset, version) : undefined };
  }
  const end = offset + headerBytes + header.length;
  if (end > r.size) {
    const torn = { kind: "torn" as const, why: `a frame of ${header.length} bytes ends ${end - r.size} bytes past the end of the file` };
    if (version >= 3) return torn; // the header checksum vouches for the length
    if (await r.zeroFrom(offset)) return { kind: "torn", why: zeros };
    const fixed = await oneBitHeader(r, offset, version);
    if (fixed !== undefined) {
      return { kind: "damaged", why: `its length field is damaged (with a length of ${fixed.end - offset - headerBytes} bytes the frame checks)`, fixed };
    }
    const next = await nextFrame(r, offset + 1, version);
    if (next !== undefined) {
      return { kind: "damaged", why: `its length of ${header.length} bytes runs past the end of the file, but a frame that checks starts at byte ${next}` };
    }
    return torn;
  }
  const payload = await r.at(offset + headerBytes, header.length);
  if (crc32(payload) === header.payloadCrc) return { kind: "frame", frame: { payload, end } };
  if (await r.zeroFrom(offset)) return { kind: "torn", why: zeros };
  const why = "its payload fails its checksum";
  if (version >= 3) return { kind: "damaged", why, end };
  return { kind: "damaged", why, fixed: salvage ? await oneBitHeader(r, offset, version) : undefined };
}

/** The format of a log whose header does not check, when a repair can tell: the one bit away, or the first frame's. */
async function guessVersion<T>(r: Reader, decode: DecodeFrame<T>): Promise<number | undefined> {
  const head = (await r.at(0, LOG_HEADER_BYTES)).slice();
  const intact = encodeLogHeader(new DataView(head.buffer).getUint32(8, true));
  if (intact.every((b, i) => head[i] === b)) return undefined; // a log of a newer recallkit: not damage
  for (let bit = 0; bit < head.length * 8; bit++) {
    head[bit >> 3]! ^= 1 << (bit & 7);
    try {
      return checkLogHeader(head, "");
    } catch {
      // not this bit
    } finally {
      head[bit >> 3]! ^= 1 << (bit & 7);
    }
  }
  // Beyond one bit, only a file that still starts "RKLOG" is taken for a log (never a foreign file).
  if (!head.subarray(0, 5).every((b, i) => b === intact[i])) return undefined;
  if (r.size === LOG_HEADER_BYTES) return LOG_FORMAT_VERSION;
  for (const version of [...LOG_FORMAT_VERSIONS].reverse()) {
    const verdict = await readFrame(r, LOG_HEADER_BYTES, version, false);
    if (verdict.kind !== "frame") continue;
    try {
      decode(verdict.frame.payload, version, "");
      return version;
    } catch {
      // another format's payload
    }
  }
  return undefined;
}

/**
 * Scans the log in `fh`, passing each frame that checks to `decode` and its result to `apply`,
 * in order. Strict (`salvage` false): throws `corrupt` at the first damage, naming `path` and
 * the byte offset. Salvage: drops damaged ranges and goes on (see the module docs). A torn
 * tail is dropped either way.
 */
export async function scanLog<T>(
  fh: FileHandle, path: string, salvage: boolean, decode: DecodeFrame<T>, apply: (frame: T) => void,
): Promise<LogScan> {
  const { size } = await fh.stat();
  const r = new Reader(fh, size);
  let version: number;
  let header: string | undefined;
  try {
    version = checkLogHeader(await r.at(0, LOG_HEADER_BYTES), path);
  } catch (e) {
    if (salvage && size < LOG_HEADER_BYTES) {
      // Shorter than a header (a truncated copy: a log is created whole): it holds no frame,
      // so the salvage is an empty log, its bytes the damage.
      const why = (e as Error).message.replace(`${path} `, "");
      return {
        version: LOG_FORMAT_VERSION, size, end: size, frames: 0, restored: [], header: why,
        damaged: size === 0 ? [] : [{ offset: 0, bytes: size, why }],
      };
    }
    const guess = salvage && size >= LOG_HEADER_BYTES ? await guessVersion(r, decode) : undefined;
    if (guess === undefined) throw e;
    version = guess;
    header = (e as Error).message.replace(`${path} `, "");
  }
  const scan: LogScan = { version, size, end: LOG_HEADER_BYTES, frames: 0, damaged: [], restored: [], header };
  let offset = LOG_HEADER_BYTES;
  while (offset < size) {
    const verdict = await readFrame(r, offset, version, salvage);
    if (verdict.kind === "torn") {
      scan.torn = { offset, bytes: size - offset, why: verdict.why };
      break;
    }
    const frame = verdict.kind === "frame" ? verdict.frame : verdict.fixed;
    let why = verdict.kind === "damaged" ? verdict.why : "";
    let decoded: { value: T } | undefined;
    if (frame !== undefined) {
      const where = `${path}: frame at byte ${offset}`;
      try {
        decoded = { value: decode(frame.payload, version, where) };
      } catch (e) {
        if (!(e instanceof RecallError) || e.code !== "corrupt") throw e;
        why = e.message.replace(`${where}: `, "");
      }
    }
    if (decoded !== undefined && (verdict.kind === "frame" || salvage)) {
      // In a salvage, a frame whose header was one bit off is kept too, and reported.
      if (verdict.kind !== "frame") scan.restored.push(offset);
      apply(decoded.value);
      scan.frames++;
      scan.end = offset = frame!.end;
      continue;
    }
    if (!salvage) {
      throw new RecallError("corrupt",
        `${path}: the frame at byte ${offset} is damaged: ${why}; ${size - offset} bytes from there to the end of the file ` +
        "are not applied, refusing to drop acknowledged writes (repair the store to keep every frame that checks: " +
        "`recallkit repair --db DIR` or MemoryStore.repair)");
    }
    const end = frame?.end ?? (verdict.kind === "damaged" ? verdict.end : undefined)
      ?? (await nextFrame(r, offset + 1, version)) ?? size;
    scan.damaged.push({ offset, bytes: end - offset, why });
    scan.end = offset = end;
  }
  return scan;
}
