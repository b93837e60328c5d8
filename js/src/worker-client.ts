/**
 * {@link openWorkerStore}, the page's half of `recallkit/worker`: a {@link WorkerStore} whose
 * methods post calls to a worker running {@link serveStore} and settle with its replies
 * (messages: `worker-protocol.ts`). Calls are matched to replies by id; a call after `close()`
 * or after the worker ended rejects with `closed`.
 * @module
 */
import { RecallError } from "./errors.js";
import { holdLock } from "./locks.js";
import { requestPersistence } from "./storage/persist.js";
import type { MemoryStore } from "./store.js";
import type { ImportOptions, ImportProgress, ImportSource, OpenOptions } from "./types.js";
import { STORE_METHODS, STREAMING_METHODS, fromErrorShape, transferables } from "./worker-protocol.js";
import type { IteratorBatch, IteratorHandle, OpenMessage, Reply } from "./worker-protocol.js";

/**
 * A store in a worker: every async method of `MemoryStore` (the list is checked against the
 * class when the package is built), each posting the call to the worker. Arguments and results
 * are structured-cloned, except typed arrays that fill their buffer, which are transferred: a
 * `Float32Array` passed as an embedding is detached (length 0) in the page once the call is
 * made; pass `v.slice()` to keep it. Functions cannot be sent: a recall's `rerank` option is
 * refused with `invalid_argument` (give it to {@link serveStore}); import's `onProgress` is
 * called in the page. The synchronous getters `size` and `dimensions` are not offered (use
 * `stats()`), nor the static `open` and `repair`.
 */
export type WorkerStore = Pick<MemoryStore, (typeof STORE_METHODS)[number]>;

/**
 * Options of {@link openWorkerStore}: `MemoryStore.open`'s options that can cross
 * `postMessage`. `embed`, `rerank`, `clock` and a storage adapter are functions or objects
 * with methods: give them to {@link serveStore} in the worker.
 */
export interface WorkerOpenOptions extends Omit<OpenOptions, "embed" | "rerank" | "clock" | "storage"> {
  /** `"indexeddb"` (the default in a worker), `"memory"`, or `"file"` (where the worker has a file system). */
  storage?: "indexeddb" | "file" | "memory";
  /**
   * How long to wait for the worker to answer at all (default 10000 ms): a worker that never
   * calls `serveStore` fails the open with `closed` instead of leaving it pending. Opening
   * the store itself may take longer.
   */
  connectTimeoutMs?: number;
}

/** What {@link openWorkerStore} posts to: a `Worker`, a `MessagePort`, a `SharedWorker`'s port. */
export interface WorkerTarget {
  /** Posts a message, transferring the listed objects. */
  postMessage(message: unknown, transfer: Transferable[]): void;
  /** Where a `Worker` reports a script that failed to load or threw; used while opening. */
  addEventListener?(type: "error", listener: (event: Event) => void): void;
  /** Removes the listener above. */
  removeEventListener?(type: "error", listener: (event: Event) => void): void;
}

/** The default of {@link WorkerOpenOptions.connectTimeoutMs}. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: RecallError) => void;
  onProgress?: ((progress: ImportProgress) => void) | undefined;
}

function isDataCloneError(e: unknown): boolean {
  return (e as { name?: unknown })?.name === "DataCloneError" || /could not be cloned|transfer/i.test(String(e));
}

/** One store's channel: the calls in flight, matched to replies by id. */
class Channel {
  readonly #port: MessagePort;
  readonly #pending = new Map<number, Pending>();
  #lastId = 0;
  /** Why calls are refused: set by close() or when the worker ends. */
  #ended: RecallError | undefined;
  readonly #stopWatching = new AbortController();

  constructor(port: MessagePort) {
    this.#port = port;
    port.addEventListener("message", (event: MessageEvent) => this.#reply(event.data as Reply));
    port.start();
  }

  #reply(reply: Reply): void {
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    if ("started" in reply) return;
    if ("progress" in reply) {
      pending.onProgress?.(reply.progress as ImportProgress);
      return;
    }
    this.#pending.delete(reply.id);
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(fromErrorShape(reply.error));
  }

  /** Sends `message` as call `id`; the promise settles with the reply. */
  send(id: number, method: string, message: object, onProgress?: (progress: ImportProgress) => void, transfer: Transferable[] = []): Promise<unknown> {
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { method, resolve, reject, onProgress });
      try {
        this.#port.postMessage({ id, ...message }, [...transferables(message), ...transfer]);
      } catch (e) {
        this.#pending.delete(id);
        reject(isDataCloneError(e)
          ? new RecallError("invalid_argument", `${method}: an argument cannot be sent to the worker (${String(e)}); functions cannot cross postMessage: give embed and rerank to serveStore() in the worker`, { cause: e })
          : new RecallError("internal", `${method}: cannot post to the worker: ${String(e)}`, { cause: e }));
      }
    });
  }

  /** Posts a call of `method`. */
  call(method: string, args: unknown[], extra: object = {}, onProgress?: (progress: ImportProgress) => void, transfer: Transferable[] = []): Promise<unknown> {
    return this.send(++this.#lastId, method, { method, args, ...extra }, onProgress, transfer);
  }

  /** The next batch of a streamed result, or (more = false) its end. */
  next(iterator: number, more: boolean): Promise<IteratorBatch> {
    return this.send(++this.#lastId, "export", { iterator, next: more }) as Promise<IteratorBatch>;
  }

  /** Waits for the open's reply (call 0), failing on the timeout or a worker error. */
  opened(target: WorkerTarget, timeoutMs: number): Promise<{ lockHeld: boolean }> {
    return new Promise((resolve, reject) => {
      const fail = (error: RecallError): void => {
        this.end(error);
        reject(error);
      };
      const timer = setTimeout(() => fail(new RecallError("closed",
        `the worker did not answer within ${timeoutMs} ms; does its script call serveStore() from recallkit/worker?`)), timeoutMs);
      const onError = (event: Event): void => {
        const message = (event as ErrorEvent).message ?? "";
        fail(new RecallError("closed", `the worker failed before the store opened${message ? `: ${message}` : ""}`));
      };
      target.addEventListener?.("error", onError);
      const done = (): void => {
        clearTimeout(timer);
        target.removeEventListener?.("error", onError);
      };
      this.#pending.set(0, {
        method: "open",
        resolve: (value) => {
          done();
          resolve(value as { lockHeld: boolean });
        },
        reject: (error) => {
          done();
          this.end(error);
          reject(error);
        },
      });
      // The worker acknowledges at once; from then on only the open itself takes time.
      this.#port.addEventListener("message", (event: MessageEvent) => {
        if ((event.data as Reply).id === 0 && "started" in (event.data as Reply)) clearTimeout(timer);
      });
    });
  }

  /** Notices the worker ending: it holds the Web Lock `name` while it lives. */
  watch(name: string): void {
    const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
    if (locks === undefined) return;
    locks.request(name, { signal: this.#stopWatching.signal }, () => {
      this.end(new RecallError("closed", "the worker serving this store ended; calls still in flight may or may not have completed"));
    }).catch(() => undefined);
  }

  /** Refuses every later call with `error` and rejects those in flight with it. */
  end(error: RecallError): void {
    if (this.#ended !== undefined) return;
    this.#ended = error;
    this.#stopWatching.abort();
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    this.#port.close();
  }

  /** Refuses later calls with `closed` (calls already posted still get their replies). */
  refuse(error: RecallError): void {
    this.#ended ??= error;
  }
}

/** An async iterable as a stream, which can be transferred to the worker. */
function toStream(source: AsyncIterable<string | Uint8Array>): ReadableStream<string | Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const r = await it.next();
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    async cancel(reason) {
      await it.return?.(reason);
    },
  });
}

function importCall(channel: Channel, source: ImportSource, options?: ImportOptions): Promise<unknown> {
  const { onProgress, ...rest } = (typeof options === "object" && options !== null ? options : {}) as ImportOptions;
  // Strings, streams (transferred) and arrays (structured-cloned) cross as they are.
  const sent = typeof source === "string" || source instanceof ReadableStream || typeof source !== "object" || source === null
    || Array.isArray(source)
    ? source
    : toStream(source as AsyncIterable<string | Uint8Array>);
  const args = [sent, options === undefined ? undefined : rest];
  const transfer = sent instanceof ReadableStream ? [sent as unknown as Transferable] : [];
  return channel.call("import", args, { progress: typeof onProgress === "function" }, onProgress, transfer);
}

async function* exportLines(channel: Channel): AsyncGenerator<string, void, undefined> {
  const { iterator } = (await channel.call("export", [])) as IteratorHandle;
  let done = false;
  try {
    while (!done) {
      const batch = await channel.next(iterator, true);
      done = batch.done;
      yield* batch.lines;
    }
  } finally {
    if (!done) await channel.next(iterator, false).catch(() => undefined);
  }
}

/**
 * Opens a store in a worker that runs {@link serveStore}, and resolves to a
 * {@link WorkerStore}: the same async methods as `MemoryStore`, run in the worker, so a page
 * stays responsive while large imports, builds and recalls run. Errors arrive as
 * `RecallError`s (the main entry's) with their codes and messages. The store persists in
 * IndexedDB by default, as a `MemoryStore` opened in the worker would.
 *
 * ```ts
 * import { openWorkerStore } from "recallkit/worker";
 * const worker = new Worker(new URL("./store-worker.js", import.meta.url), { type: "module" });
 * const store = await openWorkerStore(worker, { name: "notes" });
 * await store.remember({ text: "The project uses SQLite with FTS5" });
 * const { results } = await store.recall("what database does the project use?");
 * await store.close();
 * ```
 *
 * Functions cannot cross `postMessage`: `embed`, `rerank`, `clock` and a custom storage
 * adapter are {@link serveStore}'s options. After `close()` resolves, or once the worker ends
 * (terminated or crashed; noticed through a Web Lock it holds), every call rejects with
 * `closed`, and so do calls still waiting for a reply from a worker that ended.
 * @param worker - the worker (or a `MessagePort` to it) whose script calls `serveStore()`
 * @param options - `MemoryStore.open`'s options, less the functions
 */
export async function openWorkerStore(worker: WorkerTarget, options?: WorkerOpenOptions): Promise<WorkerStore> {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new RecallError("invalid_argument", `options must be an object, got ${String(options)}`);
  }
  const { connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS, ...open } = options ?? {};
  if (typeof connectTimeoutMs !== "number" || !(connectTimeoutMs > 0)) {
    throw new RecallError("invalid_argument", `connectTimeoutMs must be a number > 0, got ${String(connectTimeoutMs)}`);
  }
  // A dedicated worker has no navigator.storage.persist(): the page asks, for the origin.
  if ((open as { persist?: unknown }).persist === true) await requestPersistence();
  const { port1, port2 } = new MessageChannel();
  const channel = new Channel(port1);
  const hasLocks = (globalThis as { navigator?: { locks?: unknown } }).navigator?.locks !== undefined;
  const lock = hasLocks ? `recallkit-worker-${globalThis.crypto.randomUUID()}` : undefined;
  // Held until close(): a worker that outlives the page (a SharedWorker) closes the store when
  // the page goes without closing it.
  const pageLock = hasLocks ? `recallkit-page-${globalThis.crypto.randomUUID()}` : undefined;
  const releasePage = (await holdLock(pageLock)).release;
  const opened = channel.opened(worker, connectTimeoutMs);
  const message: OpenMessage = {
    recallkit: "open", port: port2, options: options === undefined ? undefined : open, lock, pageLock,
  };
  try {
    worker.postMessage(message, [port2]);
  } catch (e) {
    const error = new RecallError("invalid_argument", `open: the options cannot be sent to the worker (${String(e)}); give functions to serveStore() in the worker`, { cause: e });
    channel.end(error);
    releasePage();
    opened.catch(() => undefined);
    throw error;
  }
  const { lockHeld } = await opened.catch((e: unknown) => {
    releasePage();
    throw e;
  });
  if (lockHeld && lock !== undefined) channel.watch(lock);

  let closing: Promise<void> | undefined;
  const store: Record<string, unknown> = {};
  for (const method of STORE_METHODS) {
    if ((STREAMING_METHODS as readonly string[]).includes(method)) {
      store[method] = () => exportLines(channel);
    } else if (method === "import") {
      store[method] = (source: ImportSource, importOptions?: ImportOptions) => importCall(channel, source, importOptions);
    } else if (method === "close") {
      store[method] = () => {
        closing ??= (async () => {
          const reply = channel.call("close", []);
          channel.refuse(new RecallError("closed", "the store is closed"));
          await reply.catch((e: RecallError) => {
            if (e.code !== "closed") throw e;
          });
          channel.end(new RecallError("closed", "the store is closed"));
          releasePage();
        })();
        return closing;
      };
    } else {
      store[method] = (...args: unknown[]) => channel.call(method, args);
    }
  }
  return Object.freeze(store) as unknown as WorkerStore;
}
