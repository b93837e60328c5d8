/**
 * `recallkit/worker`: a `MemoryStore` in a Web Worker, driven from the page. Errors are the
 * main entry's `RecallError`s (`import { RecallError } from "recallkit"`); the types named here
 * but not exported (`MemoryStore`, `OpenOptions`, `EmbedFunction`, …) are documented there.
 *
 * ```ts
 * // store-worker.js: the worker's script
 * import { serveStore } from "recallkit/worker";
 * serveStore(); // embed and rerank, if any, go here: functions cannot cross postMessage
 *
 * // the page
 * import { openWorkerStore } from "recallkit/worker";
 * const worker = new Worker(new URL("./store-worker.js", import.meta.url), { type: "module" });
 * const store = await openWorkerStore(worker, { name: "notes" });
 * await store.remember({ text: "The project uses SQLite with FTS5" });
 * console.log((await store.recall("what database does the project use?")).results[0]?.text);
 * ```
 * @packageDocumentation
 */
export { serveStore } from "./worker-serve.js";
export type { ServeOptions } from "./worker-serve.js";
export { openWorkerStore, DEFAULT_CONNECT_TIMEOUT_MS } from "./worker-client.js";
export type { WorkerStore, WorkerOpenOptions, WorkerTarget } from "./worker-client.js";
export { STORE_METHODS } from "./worker-protocol.js";
