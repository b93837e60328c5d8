/**
 * The file store's single-writer lock: a file holding the owner's pid, hostname and start time
 * as JSON, written to a private name and hard-linked into place (an exclusive create that never
 * shows an empty lock; `O_CREAT | O_EXCL` where there are no hard links). A lock whose owner is a dead process on this
 * host is stale and is taken over; anything else (a live pid, another host, a pid we cannot
 * probe) gives `locked` with the holder's details, never a silent second writer.
 *
 * Taking over renames the stale file to a private name first and checks it is still the one
 * judged stale, so two processes racing for the same stale lock cannot both win.
 * Node and Deno (`node:fs`). Deno needs `--allow-sys` (or `--allow-sys=hostname`) for the
 * hostname and `--allow-run` to probe pids; without them it cannot tell a stale lock from a
 * live one and fails with `locked`, naming the flag it lacks.
 * @module
 */
import { link, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import process from "node:process";
import { RecallError } from "../errors.js";

/** What a lock file records about its owner. */
export interface LockOwner {
  /** Process id of the writer. */
  pid: number;
  /** Host the writer runs on (`os.hostname()`), or `"unknown"` when the runtime may not read it. */
  hostname: string;
  /** When the lock was taken, ISO 8601. */
  createdAt: string;
}

/**
 * How old an empty or unreadable lock file must be before it counts as stale: its creator
 * writes it at once (only where hard links are missing, or by an older version, can one be seen).
 */
const UNREADABLE_LOCK_GRACE_MS = 10_000;
const TAKEOVER_ATTEMPTS = 3;

/** The permission flag a refused Deno call names ("run again with the --allow-run flag"). */
function refusedFlag(e: unknown): string | undefined {
  return /run again with the (--allow-[a-z]+) flag/.exec(String((e as Error)?.message ?? e))?.[1];
}

/** The Deno flag {@link hostName} was refused for, once it was. */
let hostnameRefused: string | undefined;

/** This host's name, or `"unknown"` where the runtime refuses (Deno without `--allow-sys`). */
export function hostName(): string {
  try {
    return hostname();
  } catch (e) {
    hostnameRefused ??= refusedFlag(e);
    return "unknown";
  }
}

/** The Deno flag the last undecided {@link isProcessAlive} was refused for. */
let probeRefused: string | undefined;

/** Whether process `pid` on this host is alive; `undefined` when the runtime cannot tell. */
export function isProcessAlive(pid: number): boolean | undefined {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "ESRCH") return false;
    if (code === "EPERM") return true;
    probeRefused = refusedFlag(e);
    return undefined;
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockOwner>;
    if (Number.isSafeInteger(v.pid) && (v.pid as number) > 0 && typeof v.hostname === "string") return v as LockOwner;
  } catch {
    // Handled as unreadable below.
  }
  return undefined;
}

function lockedError(path: string, why: string): RecallError {
  return new RecallError("locked",
    `${path} is held by ${why}; a file store has one writer at a time: close the store in the other process, open it with readOnly: true to read it meanwhile, or delete the lock file if no process uses the store`);
}

function ioError(e: unknown, doing: string): RecallError {
  if (e instanceof RecallError) return e;
  return new RecallError("storage_failed", `${doing}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
}

/** Decides whether the lock holding `text` is stale; throws `locked` when it is not. */
async function checkStale(path: string, text: string): Promise<void> {
  const owner = parseOwner(text);
  if (owner === undefined) {
    const age = Date.now() - (await stat(path)).mtimeMs;
    if (age < UNREADABLE_LOCK_GRACE_MS) throw lockedError(path, "a writer that is still creating it");
    return;
  }
  const who = `pid ${owner.pid} on ${owner.hostname} since ${owner.createdAt}`;
  const here = hostName();
  if (owner.hostname !== here) {
    if (here === "unknown" && hostnameRefused !== undefined) {
      throw lockedError(path, `${who} (this process may not read the hostname to compare: run Deno with ${hostnameRefused}=hostname)`);
    }
    throw lockedError(path, `${who} (another host, so its pid cannot be checked)`);
  }
  if (owner.pid === process.pid) {
    throw lockedError(path, `this process (pid ${owner.pid}: another store object here has it open; close that one first)`);
  }
  const alive = isProcessAlive(owner.pid);
  if (alive === false) return;
  if (alive === undefined && probeRefused !== undefined) {
    throw lockedError(path, `${who} (this process may not check whether that process lives: run Deno with ${probeRefused})`);
  }
  throw lockedError(path, alive ? who : `${who} (this runtime cannot check whether that process lives)`);
}

/**
 * Creates the lock at `path` holding `owner`, or returns false when one exists. The owner is
 * written and synced to a private file first, which is then hard-linked to `path` (an atomic
 * create that fails when the name exists): a writer killed at any moment leaves either no
 * lock or a complete one, never the empty file that would lock the store out for
 * {@link UNREADABLE_LOCK_GRACE_MS}. Where the file system has no hard links, the lock is
 * created with `O_EXCL` and then written.
 */
async function tryCreate(path: string, owner: LockOwner): Promise<boolean> {
  const draft = `${path}.new-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await writeSynced(draft, JSON.stringify(owner), "wx");
  } catch (e) {
    await unlink(draft).catch(() => undefined);
    throw ioError(e, `cannot write lock file ${path}`);
  }
  try {
    await link(draft, path);
    return true;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EOPNOTSUPP") {
      throw ioError(e, `cannot create lock file ${path}`);
    }
  } finally {
    await unlink(draft).catch(() => undefined);
  }
  return tryCreateInPlace(path, owner);
}

async function writeSynced(path: string, text: string, flag: string): Promise<void> {
  const fh = await open(path, flag);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** {@link tryCreate} without hard links: `O_EXCL`, then the owner written into it. */
async function tryCreateInPlace(path: string, owner: LockOwner): Promise<boolean> {
  let fh;
  try {
    fh = await open(path, "wx");
  } catch (e) {
    if ((e as { code?: unknown }).code === "EEXIST") return false;
    throw ioError(e, `cannot create lock file ${path}`);
  }
  try {
    await fh.writeFile(JSON.stringify(owner));
    await fh.sync();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw ioError(e, `cannot write lock file ${path}`);
  }
  await fh.close();
  return true;
}

/**
 * Takes the lock at `path` for this process, taking over a stale one. Throws `locked` when a
 * live writer holds it and `storage_failed` on I/O errors.
 */
export async function acquireLock(path: string): Promise<LockOwner> {
  const owner: LockOwner = { pid: process.pid, hostname: hostName(), createdAt: new Date().toISOString() };
  for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt++) {
    if (await tryCreate(path, owner)) return owner;
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      if ((e as { code?: unknown }).code === "ENOENT") continue; // released meanwhile
      throw ioError(e, `cannot read lock file ${path}`);
    }
    await checkStale(path, text);
    const aside = `${path}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      await rename(path, aside);
    } catch (e) {
      if ((e as { code?: unknown }).code === "ENOENT") continue;
      throw ioError(e, `cannot move stale lock file ${path}`);
    }
    const moved = await readFile(aside, "utf8").catch(() => undefined);
    if (moved === text) {
      await unlink(aside).catch(() => undefined);
      continue;
    }
    // Another process replaced the stale lock between our read and rename: give it back.
    await link(aside, path).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    throw lockedError(path, "a writer that took it over at the same moment");
  }
  throw lockedError(path, `writers that keep replacing it (gave up after ${TAKEOVER_ATTEMPTS} attempts)`);
}

/** Removes the lock file (a missing file is fine). */
export async function releaseLock(path: string): Promise<void> {
  await unlink(path).catch((e: { code?: unknown }) => {
    if (e?.code !== "ENOENT") throw ioError(e, `cannot remove lock file ${path}`);
  });
}
