/**
 * The storage layer, for browsers and servers alike: the {@link StorageAdapter} interface,
 * {@link openAdapter}, the in-memory and IndexedDB adapters, record and snapshot encoding.
 * The file adapter imports `node:fs`, so it is not re-exported here: {@link openAdapter}
 * loads it on demand, or import `./file.js` directly in Node and Deno.
 * @module
 */
export { checkStoreName, defaultStorageKind, openAdapter } from "./adapter.js";
export type { OpenAdapterOptions, StorageAdapter, StorageKind, StorageOp } from "./adapter.js";
export { MemoryAdapter } from "./memory.js";
export type { MemoryAdapterOptions } from "./memory.js";
export { DEFAULT_BLOCKED_TIMEOUT_MS, IDB_VERSION, IndexedDbAdapter, toStorageError } from "./indexeddb.js";
export type { IndexedDbAdapterOptions, StorageInfo } from "./indexeddb.js";
export { CODEC_VERSION, FIELD_NAMES, JSON_LINE_VERSION, decodeRecord, encodeRecord, fromJsonLine, readLines, toJsonLine } from "./codec.js";
export type { LineSource, RecordKind, StoredRecord } from "./codec.js";
export { SNAPSHOT_HEADER_BYTES, decodeSnapshot, encodeSnapshot } from "./snapshot.js";
export { crc32 } from "./crc32.js";
