/**
 * {@link FileAdapter}: a {@link StorageAdapter} over an append-only log in a directory, for
 * Node and Deno (`node:fs`). The directory holds:
 *
 * - `data.log`: the log (format in `log.ts`): a header, then one checksummed frame per `write()`,
 *   its payload compressed with deflate-raw (`node:zlib`, `compress.ts`) when that makes it smaller;
 * - `lock`: the single-writer lock (`lock.ts`), absent while no writer has the store open;
 * - `data.log.compact`: a compaction in progress, deleted by the next writer if one crashed;
 * - `data.log.damaged-<time>`: a damaged log as {@link FileAdapter.repair} found it, kept for
 *   forensics (never read; delete it when done).
 *
 * Durability and atomicity:
 * - `write` appends one frame at the end of the valid log and `fsync`s before resolving, so an
 *   acknowledged batch is on disk and a batch is all-or-nothing.
 * - Open replays frames in order and tells a torn tail from damage by the rule in `log.ts`: a
 *   torn tail (the bytes run out inside the last frame: a crash mid-append, never
 *   acknowledged) is dropped, and cut off before the next append; damage anywhere, the last
 *   frame included, fails the open with `corrupt` naming the file and the byte offset, rather
 *   than lose acknowledged writes. {@link FileAdapter.repair} then salvages every frame that
 *   checks, keeping a copy of the damaged log.
 * - Compaction, when the log is over {@link COMPACT_RATIO}× the live data and at least
 *   {@link COMPACT_MIN_BYTES}: live entries go to `data.log.compact`, which is fsync'd, renamed
 *   over `data.log`, and the directory fsync'd. A crash leaves the old or the new log, both whole.
 * - One writer per store (the lock); `readOnly` opens take no lock, read a snapshot of the log
 *   as of open, and never write.
 * - Format versions: a log of format 1 (uncompressed, u32 lengths) or 2 (no frame header
 *   checksum) is read as is; a writer rewrites it in the current format on open
 *   ({@link migrateLog}, a compaction), and if that fails keeps appending frames of the log's
 *   own format, so the store stays usable.
 *
 * The live entries are held in memory (reads never touch the disk); the log is only replayed
 * on open. The file operations (a directory tree, fsync'd new files and renames, the damaged
 * copy) are `files.ts`'s. References: LevelDB's log format (`doc/log_format.md`), SQLite's `atomic commit`.
 * @module
 */
import { constants } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { join, resolve } from "node:path";
import { RecallError } from "../errors.js";
import type { StorageAdapter, StorageOp } from "./adapter.js";
import { decodeFrame, encodeCompressedFrame } from "./compress.js";
import type { AppliedFrame } from "./compress.js";
import { keepCopy, makeDirectory, syncDirectory, toFileError, writeAll, writeNewFile } from "./files.js";
import { acquireLock, releaseLock } from "./lock.js";
import { LOG_FORMAT_VERSION, LOG_HEADER_BYTES, encodeBatch, encodeLogHeader, placeFrame, putBytes } from "./log.js";
import type { LogRepair } from "./log.js";
import { asPuts, checkCreates, checkKey, checkOps, checkPrefix, keysWithPrefix, sortKeys } from "./ops.js";
import { scanLog } from "./scan.js";

export type { DamagedRange, LogRepair } from "./log.js";
export { COMPRESSION_LEVEL, MIN_COMPRESS_BYTES, encodeCompressedFrame } from "./compress.js";
export { makeDirectory, toFileError } from "./files.js";

/** The log file's name inside the store directory. */
export const LOG_FILE = "data.log";
/** The lock file's name inside the store directory. */
export const LOCK_FILE = "lock";
/** The temporary file a compaction writes before renaming it over the log. */
export const COMPACT_FILE = "data.log.compact";
/** Compaction runs when the log exceeds this many times the live data... */
export const COMPACT_RATIO = 2;
/** ...and is at least this large (1 MiB), so small stores never rewrite. */
export const COMPACT_MIN_BYTES = 1 << 20;
/** Target payload size of the frames a compaction writes (4 MiB), bounding its memory use. */
const COMPACT_FRAME_BYTES = 4 << 20;

/** The start of the name of the copy {@link FileAdapter.repair} keeps of a damaged log: `data.log.damaged-<time>`. */
export const DAMAGED_COPY_PREFIX = `${LOG_FILE}.damaged-`;

/** Options of {@link FileAdapter.open}. */
export interface FileAdapterOptions {
  /** The store's directory; created (with parents) by a writer. */
  path: string;
  /** Open without the lock, never write, see the log as of open. */
  readOnly?: boolean;
}

/** Sizes of a file store, for monitoring and tests. */
export interface FileStoreStats {
  /** Bytes of the valid log (header and frames). */
  logBytes: number;
  /**
   * About the bytes the log would take after compaction: the header, plus each live entry's
   * share of the (compressed) frame that wrote it; frame headers excluded. An estimate, since
   * compression depends on what an entry is framed with.
   */
  liveBytes: number;
  /** Number of live keys. */
  keys: number;
  /** Compactions this handle has completed. */
  compactions: number;
}

interface Entry {
  value: Uint8Array;
  /** The entry's share of its frame's payload: its size as a put, times the frame's compression ratio. */
  bytes: number;
}

/** A {@link StorageAdapter} over an append-only log file. Open it with {@link FileAdapter.open}. */
export class FileAdapter implements StorageAdapter {
  /** `write` checks `create` ops itself, atomically (see {@link StorageAdapter.checksCreates}). */
  readonly checksCreates: boolean = true;
  readonly #dir: string;
  readonly #readOnly: boolean;
  readonly #entries = new Map<string, Entry>();
  #sorted: string[] | undefined;
  #liveBytes = LOG_HEADER_BYTES;
  #fh: FileHandle | undefined;
  /** End of the valid log: where the next frame goes. */
  #end = 0;
  /** The format of the log file being appended to ({@link LOG_FORMAT_VERSION} once migrated). */
  #version = LOG_FORMAT_VERSION;
  /** The log's size after the last compaction: the next one waits until the log has doubled. */
  #compactedBytes = 0;
  /** Bytes after `#end` (a torn append or a failed write) must be cut off before appending. */
  #dirtyTail = false;
  #queue: Promise<unknown> = Promise.resolve();
  #compactQueued = false;
  #compactions = 0;
  #failed: RecallError | undefined;
  #closing: Promise<void> | undefined;

  private constructor(dir: string, readOnly: boolean) {
    this.#dir = dir;
    this.#readOnly = readOnly;
  }

  /**
   * Opens the store in `options.path`, creating it for a writer. Rejects with `locked` when
   * another live writer holds it, `corrupt` for an unreadable log or unknown format version,
   * `not_found` for a read-only open of a directory that does not exist.
   */
  static async open(options: FileAdapterOptions): Promise<FileAdapter> {
    if (typeof options?.path !== "string" || options.path === "") {
      throw new RecallError("invalid_argument", `path must be a non-empty string, got ${JSON.stringify(options?.path)}`);
    }
    const adapter = new FileAdapter(resolve(options.path), options.readOnly === true);
    await (adapter.#readOnly ? adapter.#openReader() : adapter.#openWriter());
    return adapter;
  }

  /**
   * Salvages the log of the store in `options.path`: replays every frame that checks (a frame
   * whose header is one bit off included), drops the damaged byte ranges, and when there were
   * any, keeps a copy of the damaged log beside it ({@link DAMAGED_COPY_PREFIX}) and rewrites the
   * log with the live entries (a compaction: temp file, fsync, rename). A log without damage
   * is left as it is, torn tail and format included. Takes the writer lock (`locked` while a
   * writer has the store open); `not_found` when there is no log; `corrupt` when the file is
   * not a recallkit log, or one of a newer format.
   */
  static async repair(options: { path: string }): Promise<LogRepair> {
    if (typeof options?.path !== "string" || options.path === "") {
      throw new RecallError("invalid_argument", `path must be a non-empty string, got ${JSON.stringify(options?.path)}`);
    }
    return new FileAdapter(resolve(options.path), false).#repair();
  }

  async #repair(): Promise<LogRepair> {
    const path = this.#logPath;
    try {
      await (await open(path, "r")).close();
    } catch (e) {
      if ((e as { code?: unknown }).code === "ENOENT") throw new RecallError("not_found", `no recallkit store at ${this.#dir} (no ${LOG_FILE})`);
      throw toFileError(e, `cannot open ${path}`);
    }
    await acquireLock(this.#lockPath);
    try {
      this.#fh = await open(path, "r+");
      const scan = await scanLog(this.#fh, path, true, decodeFrame, (frame) => this.#apply(frame));
      const report: LogRepair = {
        path, version: scan.version, repaired: false, framesKept: scan.frames, dropped: scan.damaged, restored: scan.restored,
        keys: this.#entries.size,
      };
      if (scan.header !== undefined) report.header = scan.header;
      if (scan.torn !== undefined) report.torn = scan.torn;
      if (scan.header === undefined && scan.damaged.length === 0 && scan.restored.length === 0) return report;
      report.copy = await keepCopy(path);
      await unlink(join(this.#dir, COMPACT_FILE)).catch(() => undefined);
      await this.#compact();
      report.repaired = true;
      return report;
    } catch (e) {
      throw toFileError(e, `cannot repair ${path}`);
    } finally {
      await this.#fh?.close().catch(() => undefined);
      this.#fh = undefined;
      await releaseLock(this.#lockPath).catch(() => undefined);
    }
  }

  get #logPath(): string {
    return join(this.#dir, LOG_FILE);
  }

  get #lockPath(): string {
    return join(this.#dir, LOCK_FILE);
  }

  async #openReader(): Promise<void> {
    let fh: FileHandle;
    try {
      fh = await open(this.#logPath, "r");
    } catch (e) {
      if ((e as { code?: unknown }).code !== "ENOENT") throw toFileError(e, `cannot open ${this.#logPath}`);
      try {
        await (await open(this.#dir, constants.O_RDONLY)).close();
      } catch {
        throw new RecallError("not_found", `no recallkit store at ${this.#dir}`);
      }
      return; // a writer created the directory but not yet the log: empty
    }
    try {
      ({ version: this.#version, end: this.#end } = await scanLog(fh, this.#logPath, false, decodeFrame, (frame) => this.#apply(frame)));
    } catch (e) {
      throw toFileError(e, `cannot read ${this.#logPath}`);
    } finally {
      await fh.close();
    }
  }

  async #openWriter(): Promise<void> {
    try {
      await makeDirectory(this.#dir);
    } catch (e) {
      throw toFileError(e, `cannot create store directory ${this.#dir}`);
    }
    await acquireLock(this.#lockPath);
    try {
      await unlink(join(this.#dir, COMPACT_FILE)).catch(() => undefined);
      this.#fh = await this.#openLog();
      ({ version: this.#version, end: this.#end } = await scanLog(this.#fh, this.#logPath, false, decodeFrame, (frame) => this.#apply(frame)));
      this.#dirtyTail = (await this.#fh.stat()).size > this.#end;
    } catch (e) {
      await this.#fh?.close().catch(() => undefined);
      this.#fh = undefined;
      await releaseLock(this.#lockPath).catch(() => undefined);
      throw toFileError(e, `cannot open ${this.#logPath}`);
    }
    if (this.#version !== LOG_FORMAT_VERSION) await migrateLog(this).catch(() => undefined);
  }

  /** The format version of the log this handle appends to. */
  get logFormat(): number {
    return this.#version;
  }

  /** Opens the log for writing, creating it atomically (header written, fsync'd, renamed) if missing. */
  async #openLog(): Promise<FileHandle> {
    try {
      return await open(this.#logPath, "r+");
    } catch (e) {
      if ((e as { code?: unknown }).code !== "ENOENT") throw e;
    }
    const temp = join(this.#dir, COMPACT_FILE);
    const { fh } = await writeNewFile(temp, [encodeLogHeader()]);
    try {
      await rename(temp, this.#logPath);
    } catch (e) {
      await fh.close().catch(() => undefined);
      throw e;
    }
    await syncDirectory(this.#dir);
    return fh;
  }

  #apply({ ops, ratio, version }: AppliedFrame): void {
    for (const op of ops) {
      const old = this.#entries.get(op.key);
      if (old !== undefined) this.#liveBytes -= old.bytes;
      if (op.op === "put") {
        const bytes = putBytes(op.keyBytes, op.value.length, version) * ratio;
        this.#entries.set(op.key, { value: op.value, bytes });
        this.#liveBytes += bytes;
        if (old === undefined) this.#sorted = undefined;
      } else if (old !== undefined) {
        this.#entries.delete(op.key);
        this.#sorted = undefined;
      }
    }
  }

  #live(): void {
    if (this.#closing !== undefined) throw new RecallError("closed", `the store at ${this.#dir} is closed`);
    if (this.#failed !== undefined) throw this.#failed;
  }

  #keys(prefix: string): string[] {
    this.#sorted ??= sortKeys(this.#entries.keys());
    return keysWithPrefix(this.#sorted, prefix);
  }

  /** Runs `task` after every earlier write and compaction. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** {@inheritDoc StorageAdapter.get} */
  async get(key: string): Promise<Uint8Array | undefined> {
    this.#live();
    return this.#entries.get(checkKey(key))?.value.slice();
  }

  /** {@inheritDoc StorageAdapter.keys} */
  async keys(prefix?: string): Promise<string[]> {
    this.#live();
    return this.#keys(checkPrefix(prefix));
  }

  /** {@inheritDoc StorageAdapter.entries} */
  async entries(prefix?: string): Promise<Array<[string, Uint8Array]>> {
    this.#live();
    return this.#keys(checkPrefix(prefix)).map((k) => [k, this.#entries.get(k)!.value.slice()]);
  }

  /** {@inheritDoc StorageAdapter.write} */
  async write(ops: StorageOp[]): Promise<void> {
    this.#live();
    const checked = checkOps(ops);
    if (this.#readOnly) throw new RecallError("invalid_argument", "the store was opened with readOnly: true");
    if (checked.length === 0) return;
    // The log holds puts; a create is checked against the keys when its turn comes (this
    // process holds the store's lock, so no other writer can put the key meanwhile).
    const batch = asPuts(checked);
    // Compression starts now, on the thread pool, while earlier writes are still appending.
    const encoding = encodeCompressedFrame(batch);
    encoding.catch(() => undefined); // awaited in turn below; never an unhandled rejection meanwhile
    await this.#enqueue(async () => {
      checkCreates(checked, (key) => this.#entries.has(key));
      let encoded: { frame: Uint8Array; keyBytes: number[]; ratio: number; version: number };
      try {
        encoded = this.#version === LOG_FORMAT_VERSION
          ? { ...(await encoding), version: LOG_FORMAT_VERSION }
          : { ...encodeBatch(batch, this.#version), ratio: 1, version: this.#version }; // an old log that could not be migrated
      } catch (e) {
        throw toFileError(e, `cannot encode a batch for ${this.#logPath}`);
      }
      await this.#append(encoded.frame);
      this.#apply({ ops: batch.map((op, i) => ({ ...op, keyBytes: encoded.keyBytes[i]! })), ratio: encoded.ratio, version: encoded.version });
      if (!this.#compactQueued && this.#end >= COMPACT_MIN_BYTES && this.#end > COMPACT_RATIO * this.#liveBytes
        && this.#end > COMPACT_RATIO * this.#compactedBytes) {
        this.#compactQueued = true;
        // A failed compaction leaves the old log in use; the next write past the threshold retries.
        void this.#enqueue(() => this.#compact().catch(() => undefined).finally(() => { this.#compactQueued = false; }));
      }
    });
  }

  async #append(frame: Uint8Array): Promise<void> {
    if (this.#failed !== undefined) throw this.#failed;
    const fh = this.#fh!;
    try {
      if (this.#dirtyTail) {
        // Cut the torn tail off durably before appending, so it can never reappear behind a new frame.
        await fh.truncate(this.#end);
        await fh.sync();
        this.#dirtyTail = false;
      }
      await writeAll(fh, placeFrame(frame, this.#end, this.#version), this.#end);
    } catch (e) {
      this.#dirtyTail = true;
      throw toFileError(e, `cannot append to ${this.#logPath}`);
    }
    try {
      await fh.sync();
    } catch (e) {
      // After a failed fsync the kernel may have dropped the dirty pages: nothing written since
      // the last good fsync can be trusted, so this handle stops (reopen to replay the log).
      this.#failed = toFileError(e, `cannot fsync ${this.#logPath}; reopen the store`);
      throw this.#failed;
    }
    this.#end += frame.length;
  }

  /**
   * The live entries as compressed frames of puts, in key order, each body about
   * {@link COMPACT_FRAME_BYTES}. `sizes` receives each entry's share of its frame, for
   * `#liveBytes` once the compaction is in place.
   */
  async *#liveFrames(sizes: Map<string, number>): AsyncGenerator<Uint8Array> {
    let ops: Array<StorageOp & { op: "put" }> = [];
    let bytes = 0;
    const flush = async (): Promise<Uint8Array> => {
      const { frame, keyBytes, ratio } = await encodeCompressedFrame(ops);
      ops.forEach((op, i) => sizes.set(op.key, putBytes(keyBytes[i]!, op.value.length) * ratio));
      ops = [];
      bytes = 0;
      return frame;
    };
    for (const key of this.#keys("")) {
      const entry = this.#entries.get(key)!;
      ops.push({ op: "put", key, value: entry.value });
      bytes += entry.value.length + key.length;
      if (bytes >= COMPACT_FRAME_BYTES) yield await flush();
    }
    if (ops.length > 0) yield await flush();
  }

  /** Rewrites the log with only the live entries (see the module docs). Runs in the write queue. */
  async #compact(): Promise<void> {
    if (this.#failed !== undefined || this.#fh === undefined) return;
    const temp = join(this.#dir, COMPACT_FILE);
    const pieces = async function* (frames: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
      let offset = LOG_HEADER_BYTES;
      yield encodeLogHeader();
      for await (const frame of frames) {
        yield placeFrame(frame, offset);
        offset += frame.length;
      }
    };
    const sizes = new Map<string, number>();
    const { fh, size } = await writeNewFile(temp, pieces(this.#liveFrames(sizes)));
    try {
      await rename(temp, this.#logPath);
    } catch (e) {
      await fh.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw e;
    }
    await syncDirectory(this.#dir);
    const old = this.#fh;
    this.#fh = fh;
    this.#end = size;
    this.#version = LOG_FORMAT_VERSION;
    this.#dirtyTail = false;
    this.#compactions++;
    this.#compactedBytes = size;
    // The queue holds every write, so the entries are exactly those just written.
    this.#liveBytes = LOG_HEADER_BYTES;
    for (const [key, bytes] of sizes) {
      this.#entries.get(key)!.bytes = bytes;
      this.#liveBytes += bytes;
    }
    await old.close().catch(() => undefined);
  }

  /**
   * Compacts now, whatever the log's size, after pending writes. Rejects with `storage_failed`
   * (or `quota_exceeded`) when it cannot; the old log then stays in use, unharmed.
   */
  async compact(): Promise<void> {
    this.#live();
    if (this.#readOnly) throw new RecallError("invalid_argument", "the store was opened with readOnly: true");
    await this.#enqueue(() => this.#compact()).catch((e) => {
      throw toFileError(e, `cannot compact ${this.#logPath}`);
    });
  }

  /** Log and live sizes (see {@link FileStoreStats}). */
  stats(): FileStoreStats {
    return { logBytes: this.#end, liveBytes: this.#liveBytes, keys: this.#entries.size, compactions: this.#compactions };
  }

  /** {@inheritDoc StorageAdapter.close} */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#queue;
      await this.#fh?.close().catch(() => undefined);
      this.#fh = undefined;
      this.#entries.clear();
      this.#sorted = undefined;
      if (!this.#readOnly) await releaseLock(this.#lockPath);
    })();
    return this.#closing;
  }
}

/**
 * The named migration of a file store's log to the current format ({@link LOG_FORMAT_VERSION}):
 * a compaction, which writes every live entry in the current format to a temporary file,
 * fsyncs it and renames it over the log. A writer runs it on open when the log is older; a
 * crash leaves the old log or the new one, both whole. Rejects (the old log untouched) when it
 * cannot write; the store then keeps appending in the old format.
 */
export async function migrateLog(adapter: FileAdapter): Promise<void> {
  await adapter.compact();
}
