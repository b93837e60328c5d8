/**
 * Errors thrown by recallkit. Every error is a {@link RecallError} with a stable `code`; the
 * helpers below turn what the engine or a storage backend throws into one.
 * @module
 */

/** The stable error codes. Codes are part of the public API and never change meaning. */
export type ErrorCode =
  | "invalid_argument"
  | "not_found"
  | "already_exists"
  | "too_large"
  | "dimension_mismatch"
  | "invalid_embedding"
  | "corrupt"
  | "closed"
  | "not_initialized"
  | "internal"
  /** Another writer holds the store (a file store's lock file names a live process). */
  | "locked"
  /** An IndexedDB open or upgrade stayed blocked by another connection past its timeout. */
  | "blocked"
  /** The browser's storage quota or the disk is full; the failed write stored nothing. */
  | "quota_exceeded"
  /** The storage backend is unavailable or failed (private mode, I/O error, closed by the host). */
  | "storage_failed"
  /** The host's `embed` function rejected or returned an unusable vector while storing. */
  | "embed_failed"
  /** The host's `embed` function did not answer within `embedTimeoutMs` while storing. */
  | "embed_timeout"
  /** The poisoning guard refused a memory (`remember(m, { guard: true })`); nothing was stored. */
  | "refused";

const CODES: ReadonlySet<string> = new Set<ErrorCode>([
  "invalid_argument", "not_found", "already_exists", "too_large", "dimension_mismatch",
  "invalid_embedding", "corrupt", "closed", "not_initialized", "internal",
  "locked", "blocked", "quota_exceeded", "storage_failed", "embed_failed", "embed_timeout", "refused",
]);

/** Whether `code` is one of the {@link ErrorCode}s. */
export function isErrorCode(code: string): code is ErrorCode {
  return CODES.has(code);
}

/**
 * An error with a stable machine-readable `code` and a message naming the bad value. The
 * message does not repeat the code: show both as `${e.code}: ${e.message}`.
 */
export class RecallError extends Error {
  /** The stable code, e.g. `"invalid_argument"`. */
  readonly code: ErrorCode;

  /** Creates an error; `message` should name the bad value. */
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RecallError";
    this.code = code;
  }
}

/**
 * Turns anything the engine threw into a {@link RecallError}. Engine messages start with
 * their code (`"not_found: no memory with id \"x\""`); anything else is an internal error.
 */
export function fromEngineError(e: unknown): RecallError {
  if (e instanceof RecallError) return e;
  const text = e instanceof Error ? e.message : String(e);
  const colon = text.indexOf(": ");
  const code = colon > 0 ? text.slice(0, colon) : "";
  if (CODES.has(code)) return new RecallError(code as ErrorCode, text.slice(colon + 2), { cause: e });
  return new RecallError("internal", text, { cause: e });
}

/** Runs `f`, turning anything the engine throws into a {@link RecallError}. */
export function callEngine<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw fromEngineError(e);
  }
}

/** Any error of a storage call as a {@link RecallError} (custom adapters may throw anything). */
export function storageError(e: unknown, doing: string): RecallError {
  if (e instanceof RecallError) return e;
  return new RecallError("storage_failed", `${doing}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

/** Prefixes an error's message with where it happened, keeping its code. */
export function located(e: unknown, where: string): RecallError {
  const err = fromEngineError(e);
  return new RecallError(err.code, `${where}: ${err.message}`, { cause: e });
}

/** Maps `insertMany`'s "item i" in an error to a name for that item (a key, a line). */
export function itemError(e: unknown, name: (index: number) => string, code?: RecallError["code"]): RecallError {
  const err = fromEngineError(e);
  const match = /^item (\d+): (.*)$/s.exec(err.message);
  if (match === null) return err;
  return new RecallError(code ?? err.code, `${name(Number(match[1]))}: ${match[2]}`, { cause: e });
}
