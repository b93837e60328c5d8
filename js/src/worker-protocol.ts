/**
 * The messages between {@link openWorkerStore} (the page) and {@link serveStore} (the worker),
 * and what both sides share: the list of `MemoryStore` methods a worker store offers, checked
 * against the class by the compiler, errors as plain objects, and the transfer list of a
 * message's typed arrays.
 *
 * The page posts one `OpenMessage` to the worker, carrying a `MessagePort` of its own channel;
 * every later message of that store travels on the channel, so a worker can serve several
 * stores and keep its own messages. On the channel:
 *
 * | page → worker | worker → page |
 * |---|---|
 * | open (id 0, on the worker) | `{ id: 0, started: true }` at once, then `{ id: 0, ok, value }` |
 * | `{ id, method, args }` | `{ id, ok: true, value }` or `{ id, ok: false, error }` |
 * | `{ id, iterator, next: true }` / `{ id, iterator, next: false }` | a batch of lines / done |
 * | | `{ id, progress }` (import's `onProgress`) |
 *
 * Ids are the page's, one per call, so concurrent calls are matched to their replies.
 * @module
 */
import { RecallError, isErrorCode } from "./errors.js";
import type { MemoryStore } from "./store.js";

/** The names of `MemoryStore`'s instance methods (not its getters or statics). */
export type StoreMethod = {
  [K in keyof MemoryStore]: MemoryStore[K] extends (...args: never[]) => unknown ? K : never;
}[keyof MemoryStore];

/** The methods whose result is an async iterable (`export`), streamed in batches. */
export type StreamingMethod = {
  [K in StoreMethod]: ReturnType<MemoryStore[K]> extends AsyncIterable<unknown> ? K : never;
}[StoreMethod];

/**
 * Every method a worker store forwards. The two checks below fail the build when a
 * `MemoryStore` method is missing here or a name here is not one; `js/test/worker.test.mjs`
 * compares the list with `MemoryStore.prototype` at run time.
 */
export const STORE_METHODS = [
  "remember", "rememberMany", "get", "getEmbedding", "getSignature", "ids", "update", "forget", "recall",
  "addNote", "updateNote", "forgetNote", "getNote", "notes", "addEntity", "forgetEntity", "entities", "edges",
  "relate", "unrelate", "stats", "storageInfo", "status", "export", "import", "close", "context", "observe",
] as const satisfies readonly StoreMethod[];

/**
 * The methods a worker store does not forward: `conversation` returns a lane, an object whose
 * state (the turns it knows, which are embedded) lives beside the store, and objects with
 * methods cannot cross `postMessage`. Use the lane inside the worker.
 */
export const LOCAL_METHODS = ["conversation"] as const satisfies readonly StoreMethod[];

/** The methods of {@link STORE_METHODS} that stream, checked like it. */
export const STREAMING_METHODS = ["export"] as const satisfies readonly StreamingMethod[];

type Missing<All, Listed> = [Exclude<All, Listed>] extends [never] ? true : Exclude<All, Listed>;
/** `true`, or the names of the methods missing from {@link STORE_METHODS}: then this fails to compile. */
const everyMethodListed: Missing<StoreMethod, (typeof STORE_METHODS)[number] | (typeof LOCAL_METHODS)[number]> = true;
const everyStreamListed: Missing<StreamingMethod, (typeof STREAMING_METHODS)[number]> = true;
void everyMethodListed;
void everyStreamListed;

/** How many export lines one reply carries. */
export const EXPORT_BATCH_LINES = 512;

/** The first message, posted to the worker itself. */
export interface OpenMessage {
  /** Marks recallkit's message among the app's own. */
  recallkit: "open";
  /** The page's end of the store's channel is kept by the page; this is the worker's. */
  port: MessagePort;
  /** The page's open options (without functions). */
  options: unknown;
  /** A Web Lock the worker holds while it lives, so the page notices when it ends. */
  lock: string | undefined;
  /**
   * A Web Lock the page holds while the store is open in it, so the worker notices when the
   * page goes without closing it (a `SharedWorker` outlives its pages) and closes the store.
   */
  pageLock?: string;
}

/** A call of a store method; `progress` asks for import's progress replies. */
export interface CallRequest {
  id: number;
  method: string;
  args: unknown[];
  progress?: boolean;
}

/** A message on the channel: a call, or the next batch (or the end) of a streamed result. */
export type Request = CallRequest | { id: number; iterator: number; next: boolean };

/** A reply on the channel. */
export type Reply =
  | { id: number; started: true }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: ErrorShape }
  | { id: number; progress: unknown };

/** A {@link RecallError} as structured-clone data. */
export interface ErrorShape {
  code: string;
  message: string;
}

/** What a reply to a streaming method carries instead of the iterable. */
export interface IteratorHandle {
  iterator: number;
}

/** What a reply to `next` carries. */
export interface IteratorBatch {
  lines: string[];
  done: boolean;
}

/** An error as data: a {@link RecallError} keeps its code; anything else is `internal`. */
export function toErrorShape(e: unknown): ErrorShape {
  if (e instanceof RecallError) return { code: e.code, message: e.message };
  return { code: "internal", message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

/** The {@link RecallError} an {@link ErrorShape} describes. */
export function fromErrorShape(shape: ErrorShape): RecallError {
  if (isErrorCode(shape.code)) return new RecallError(shape.code, shape.message);
  return new RecallError("internal", `${shape.code}: ${shape.message}`);
}

/**
 * The buffers of the typed arrays in `value` (own enumerable properties, arrays, nested to a
 * few levels), to transfer instead of copy. A view over part of a larger buffer is copied, not
 * transferred (that would detach the rest of the caller's buffer too), and shared memory is
 * never transferred.
 */
export function transferables(value: unknown, out: Set<ArrayBuffer> = new Set(), depth = 0): Set<ArrayBuffer> {
  if (typeof value !== "object" || value === null || depth > 4) return out;
  if (ArrayBuffer.isView(value)) {
    const buffer = value.buffer;
    if (buffer instanceof ArrayBuffer && value.byteOffset === 0 && value.byteLength === buffer.byteLength) out.add(buffer);
    return out;
  }
  if (Array.isArray(value)) {
    for (const item of value) transferables(item, out, depth + 1);
  } else if (Object.getPrototypeOf(value) === Object.prototype) {
    for (const key of Object.keys(value)) transferables((value as Record<string, unknown>)[key], out, depth + 1);
  }
  return out;
}
