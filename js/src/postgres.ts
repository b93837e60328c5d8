/**
 * `recallkit/postgres`: stores kept in PostgreSQL, shared by any number of processes (Node or
 * Deno; the `pg` package is an optional peer dependency: `npm install pg`). Records live in one
 * table keyed by store name and record key; a write is one transaction; the writes of other
 * processes reach a store's engine through LISTEN/NOTIFY, as other tabs' writes do through
 * `BroadcastChannel`. Errors are the main entry's `RecallError`s; `MemoryStore` and
 * `StorageAdapter` are documented there.
 *
 * ```ts
 * import { MemoryStore } from "recallkit";
 * import { PostgresDatabase } from "recallkit/postgres";
 *
 * const db = await PostgresDatabase.connect({ connectionString: process.env.DATABASE_URL });
 * const store = await MemoryStore.open({ name: "user-42", storage: db.adapter("user-42") });
 * await store.remember({ text: "Prefers tea to coffee" });
 * console.log((await store.recall("does the user prefer tea or coffee?")).results[0]?.text);
 * await store.close();
 * await db.close();
 * ```
 * @packageDocumentation
 */
export { PostgresAdapter, WRITE_ATTEMPTS } from "./storage/postgres.js";
export type { PostgresAdapterOptions } from "./storage/postgres.js";
export { PostgresDatabase, toPostgresError, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS } from "./storage/postgres-database.js";
export type { PgModule, PostgresDatabaseOptions } from "./storage/postgres-database.js";
export type { StaleListener } from "./storage/postgres-feed.js";
export { MAX_PAYLOAD_BYTES } from "./storage/postgres-feed.js";
export { FEED_CHANNEL, POSTGRES_SCHEMA_SQL, POSTGRES_SCHEMA_VERSION } from "./storage/postgres-schema.js";
