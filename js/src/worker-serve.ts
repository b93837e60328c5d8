/**
 * {@link serveStore}, the worker's half of `recallkit/worker`: it answers the stores a page
 * opens with {@link openWorkerStore}, one `MemoryStore` per open, on the channel the page sent
 * (messages: `worker-protocol.ts`). Calls run as they arrive, like calls on a `MemoryStore` in
 * the page: the store orders its own writes.
 * @module
 */
import { RecallError } from "./errors.js";
import { holdLock, webLocks } from "./locks.js";
import { MemoryStore } from "./store.js";
import type { StorageAdapter } from "./storage/adapter.js";
import type { EmbedFunction, OpenOptions, RerankFunction } from "./types.js";
import {
  EXPORT_BATCH_LINES, STORE_METHODS, STREAMING_METHODS, toErrorShape, transferables,
} from "./worker-protocol.js";
import type { CallRequest, IteratorBatch, OpenMessage, Reply, Request } from "./worker-protocol.js";

/**
 * Options of {@link serveStore}: what cannot cross `postMessage` (functions, a storage
 * adapter) is given here, in the worker, and applies to every store the worker opens. They
 * take precedence over the page's options of the same name.
 */
export interface ServeOptions {
  /** The host's embedding function (`OpenOptions.embed`), run in the worker. */
  embed?: EmbedFunction;
  /** The host's reranker (`OpenOptions.rerank`), run in the worker. */
  rerank?: RerankFunction;
  /** The clock (`OpenOptions.clock`). */
  clock?: () => number;
  /** A storage adapter of the host's own (`OpenOptions.storage`). */
  storage?: StorageAdapter;
  /**
   * Where the page's open messages arrive (default `globalThis`, the worker's scope). In a
   * `SharedWorker`, each connecting page's port, as in
   * `onconnect = (e) => serveStore({ scope: e.ports[0] })`; a `MessagePort` given here is
   * started (`addEventListener` alone does not start it).
   */
  scope?: Pick<EventTarget, "addEventListener" | "removeEventListener"> & { start?: () => void };
}

const HOST_FIELDS = ["embed", "rerank", "clock", "storage"] as const;

function isOpenMessage(data: unknown): data is OpenMessage {
  return typeof data === "object" && data !== null && (data as OpenMessage).recallkit === "open"
    && typeof (data as OpenMessage).port?.postMessage === "function";
}

/** The page's options with the worker's own on top. */
function openOptions(fromPage: unknown, host: ServeOptions): unknown {
  if (typeof fromPage !== "object" || fromPage === null) return fromPage ?? hostOptions(host);
  return { ...fromPage, ...hostOptions(host) };
}

function hostOptions(host: ServeOptions): OpenOptions {
  const out: Record<string, unknown> = {};
  for (const field of HOST_FIELDS) if (host[field] !== undefined) out[field] = host[field];
  return out as OpenOptions;
}

/** Serves one store on the channel of `message` until the page closes it or goes. */
async function serveOne(message: OpenMessage, host: ServeOptions): Promise<void> {
  const port = message.port;
  const post = (reply: Reply, transfer: Transferable[] = []): void => port.postMessage(reply, transfer);
  post({ id: 0, started: true });
  // Held while the worker lives, so the page learns when it is gone.
  const lock = await holdLock(message.lock);
  let store: MemoryStore;
  try {
    store = await MemoryStore.open(openOptions(message.options, host) as OpenOptions);
  } catch (e) {
    lock.release();
    post({ id: 0, ok: false, error: toErrorShape(e) });
    port.close();
    return;
  }
  const iterators = new Map<number, AsyncIterator<string>>();
  let lastIterator = 0;
  // The page went without closing the store (a SharedWorker outlives its pages): close it here.
  const pageGone = new AbortController();
  const locks = webLocks();
  if (typeof message.pageLock === "string" && locks !== undefined) {
    locks.request(message.pageLock, { signal: pageGone.signal }, async () => {
      iterators.clear();
      await store.close().catch(() => undefined);
      lock.release();
      port.close();
    }).catch(() => undefined); // aborted: the page closed the store itself
  }

  const next = async (iterator: number, more: boolean): Promise<IteratorBatch> => {
    const it = iterators.get(iterator);
    if (it === undefined) throw new RecallError("invalid_argument", `no export in progress with handle ${iterator}`);
    if (!more) {
      iterators.delete(iterator);
      await it.return?.();
      return { lines: [], done: true };
    }
    const lines: string[] = [];
    while (lines.length < EXPORT_BATCH_LINES) {
      const r = await it.next();
      if (r.done) {
        iterators.delete(iterator);
        return { lines, done: true };
      }
      lines.push(r.value);
    }
    return { lines, done: false };
  };

  const call = async (request: CallRequest): Promise<unknown> => {
    const { id, method, args } = request;
    if (!(STORE_METHODS as readonly string[]).includes(method)) {
      throw new RecallError("invalid_argument", `a worker store has no method ${JSON.stringify(method)}`);
    }
    const given = Array.isArray(args) ? [...args] : [];
    if (method === "import" && request.progress === true) {
      const options = typeof given[1] === "object" && given[1] !== null ? given[1] : {};
      given[1] = { ...options, onProgress: (progress: unknown) => post({ id, progress }) };
    }
    const result = (store[method as keyof MemoryStore] as (...a: unknown[]) => unknown).apply(store, given);
    if ((STREAMING_METHODS as readonly string[]).includes(method)) {
      iterators.set(++lastIterator, result as AsyncIterator<string>);
      return { iterator: lastIterator };
    }
    return await result;
  };

  port.addEventListener("message", (event: MessageEvent) => {
    const request = event.data as Request;
    const id = typeof request?.id === "number" ? request.id : -1;
    const answer = "iterator" in request ? next(request.iterator, request.next) : call(request);
    answer.then(
      (value) => {
        try {
          post({ id, ok: true, value }, [...transferables(value)]);
        } catch (e) {
          post({ id, ok: false, error: toErrorShape(new RecallError("internal", `cannot send the result to the page: ${String(e)}`)) });
        }
        if ("method" in request && request.method === "close") {
          pageGone.abort();
          lock.release();
          port.close();
        }
      },
      (e: unknown) => post({ id, ok: false, error: toErrorShape(e) }),
    );
  });
  port.start();
  post({ id: 0, ok: true, value: { lockHeld: lock.held } });
}

/**
 * Serves recallkit stores from this worker: call it once, at the top level of the worker
 * script (before any `await`, so no open message arrives before it listens). Each
 * {@link openWorkerStore} of the page opens a `MemoryStore` here, with the page's options and
 * these on top, and runs every call the page makes on it.
 *
 * Functions cannot cross `postMessage`: give `embed` and `rerank` here, not in the page.
 * Typed arrays in results (`getEmbedding`, `getSignature`) are transferred to the page.
 *
 * ```ts
 * // worker.js, started with new Worker(new URL("./worker.js", import.meta.url), { type: "module" })
 * import { serveStore } from "recallkit/worker";
 * serveStore({ embed: (texts) => myModel.embed(texts) });
 * ```
 * @returns a function that stops answering new opens (stores already open keep working until
 *   the page closes them or goes away: a page that reloads or closes without `close()` has its
 *   store closed here, where Web Locks exist).
 */
export function serveStore(options: ServeOptions = {}): () => void {
  const scope = options.scope ?? (globalThis as unknown as Pick<EventTarget, "addEventListener" | "removeEventListener">);
  const listener = (event: Event): void => {
    const data = (event as MessageEvent).data;
    if (isOpenMessage(data)) void serveOne(data, options);
  };
  scope.addEventListener("message", listener);
  // A MessagePort (a SharedWorker's connection) delivers nothing until started.
  options.scope?.start?.();
  return () => scope.removeEventListener("message", listener);
}
