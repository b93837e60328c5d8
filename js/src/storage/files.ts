/**
 * What the file store does with files besides its log's format: create a directory tree, write
 * every byte, write and fsync a new file, fsync a directory so a rename in it is durable, keep a
 * copy of a damaged log; and file-system errors as {@link RecallError}s (`ENOSPC` and `EDQUOT`
 * are `quota_exceeded`).
 * @module
 */
import { constants } from "node:fs";
import { copyFile, mkdir, open, stat, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { RecallError } from "../errors.js";

/** Largest single write call (1 GiB), under Node's 2 GiB per-call limit. */
const MAX_IO_BYTES = 1 << 30;

/**
 * Creates directory `dir` and its missing parents, like `mkdir -p`. Not `mkdir(dir, {
 * recursive: true })`: Node's walk steps back to the parent on ENOENT and forward on EEXIST,
 * so under a parent that exists but cannot hold children (procfs, `/proc/self/x/y`; a
 * dangling symlink) it loops forever in the thread pool, a core at 100 % and a promise that
 * never settles. Here each level is created once its parent exists, and an ENOENT then is
 * final: at most two `mkdir` calls per missing level.
 */
export async function makeDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir);
    return;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "EEXIST") return checkDirectory(dir);
    const parent = dirname(dir);
    if (code !== "ENOENT" || parent === dir) throw e;
  }
  await makeDirectory(dirname(dir));
  try {
    await mkdir(dir);
  } catch (e) {
    if ((e as { code?: unknown }).code !== "EEXIST") throw e;
    await checkDirectory(dir);
  }
}

/** Throws `ENOTDIR` when `dir`, which exists, is not a directory (a file given as a store's path). */
async function checkDirectory(dir: string): Promise<void> {
  if (!(await stat(dir)).isDirectory()) {
    throw Object.assign(new Error(`${dir} exists and is not a directory`), { code: "ENOTDIR" });
  }
}

/** Maps a file-system error to a {@link RecallError}. */
export function toFileError(e: unknown, doing: string): RecallError {
  if (e instanceof RecallError) return e;
  const code = (e as { code?: unknown })?.code;
  const message = `${doing}: ${(e as Error)?.message ?? String(e)}`;
  if (code === "ENOSPC" || code === "EDQUOT") return new RecallError("quota_exceeded", message, { cause: e });
  return new RecallError("storage_failed", message, { cause: e });
}

/** Writes all of `bytes` at `position`, in calls of at most {@link MAX_IO_BYTES}. */
export async function writeAll(fh: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await fh.write(bytes, done, Math.min(bytes.length - done, MAX_IO_BYTES), position + done);
    done += bytesWritten;
  }
}

/** fsyncs a directory so a rename in it is durable; a no-op where directories cannot be opened (Windows). */
export async function syncDirectory(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, constants.O_RDONLY);
    await fh.sync();
  } catch {
    // Best effort: some platforms refuse to open or fsync a directory.
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/** Writes `bytes` pieces to a new file at `path`, fsyncs it and returns its open handle and size. */
export async function writeNewFile(
  path: string, pieces: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
): Promise<{ fh: FileHandle; size: number }> {
  const fh = await open(path, "w+");
  try {
    let size = 0;
    for await (const piece of pieces) {
      await writeAll(fh, piece, size);
      size += piece.length;
    }
    await fh.sync();
    return { fh, size };
  } catch (e) {
    await fh.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw e;
  }
}

/** Copies `path` to a new `<path>.damaged-<time>` beside it, fsync'd; returns the copy's path. */
export async function keepCopy(path: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  for (let n = 0; ; n++) {
    const copy = `${path}.damaged-${stamp}${n === 0 ? "" : `-${n}`}`;
    try {
      await copyFile(path, copy, constants.COPYFILE_EXCL);
    } catch (e) {
      if ((e as { code?: unknown }).code === "EEXIST") continue;
      throw e;
    }
    const fh = await open(copy, "r+");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await syncDirectory(dirname(path));
    return copy;
  }
}
