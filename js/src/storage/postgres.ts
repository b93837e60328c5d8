/**
 * {@link PostgresDatabase} and {@link PostgresAdapter}: stores kept in a PostgreSQL database that
 * any number of processes share, for Node and Deno services (the `pg` package, an optional peer
 * dependency loaded on first use).
 *
 * - A {@link PostgresDatabase} is one process's side of one database: a connection pool, the
 *   schema checked (and created or migrated, under an advisory lock) on connect, and one
 *   listening connection for the change feed (`postgres-feed.ts`). Open it once per process;
 *   {@link PostgresDatabase.adapter} then opens any number of stores over it.
 * - A {@link PostgresAdapter} is one store: the rows of `recallkit_records` whose `store` is its
 *   name (schema in `postgres-schema.ts`). Many stores, one per user or agent, share a database.
 *
 * Durability and atomicity: `write` runs one transaction (the creates first, as
 * `INSERT … ON CONFLICT DO NOTHING`, so a key another process holds fails the batch with
 * `already_exists`; then the puts as one upsert and the deletes, in key order so two writers
 * take row locks in the same order; then the feed's notifications) and resolves after COMMIT,
 * which with PostgreSQL's default `synchronous_commit = on` is durable. Any failure rolls the
 * transaction back: nothing is half-written. Errors are `storage_failed` carrying the server's
 * message (a deadlock or serialization failure is retried first, up to
 * {@link WRITE_ATTEMPTS} times). A connection lost during COMMIT leaves it unknown whether the
 * batch committed; the write rejects, and a reopen shows which.
 *
 * Within one handle, writes run one at a time in call order, and a read waits for the writes
 * called before it; handles in other processes interleave at transaction boundaries (last
 * commit wins, as with two tabs).
 * @module
 */
import { RecallError } from "../errors.js";
import { checkStoreName } from "./adapter.js";
import type { StorageAdapter, StorageOp } from "./adapter.js";
import { ChangeFeed, feedPayloads } from "./postgres-feed.js";
import type { FeedClient, StaleListener } from "./postgres-feed.js";
import { FEED_CHANNEL, POSTGRES_SCHEMA_VERSION, SCHEMA_LOCK_KEY, SCHEMA_MIGRATIONS } from "./postgres-schema.js";
import { changedKeys, checkCreates, checkKey, checkOps, checkPrefix } from "./ops.js";

/** Attempts of a write that fails with a deadlock (40P01) or serialization failure (40001) before it rejects. */
export const WRITE_ATTEMPTS = 3;
/** How long getting a connection may take before `storage_failed` (10 s), unless `connectTimeoutMs` says otherwise. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Connections in a process's pool unless `maxConnections` says otherwise. */
export const DEFAULT_MAX_CONNECTIONS = 10;

const RETRIED_STATES = new Set(["40P01", "40001"]);

/** A query's answer, as `pg` gives it. */
interface PgResult { rows: Array<Record<string, unknown>>; rowCount: number | null }
/** A pooled connection, as `pg` gives it. */
interface PgPoolClient {
  query(text: string, values?: unknown[]): Promise<PgResult>;
  release(error?: Error | boolean): void;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: "error", listener: (error: Error) => void): unknown;
}
/** The part of a `pg.Pool` the adapter uses. */
interface PgPool {
  connect(): Promise<PgPoolClient>;
  query(text: string, values?: unknown[]): Promise<PgResult>;
  on(event: "error", listener: (error: Error) => void): unknown;
  end(): Promise<void>;
}
/** The `pg` module's constructors. */
interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgPool;
  Client: new (config: Record<string, unknown>) => FeedClient;
}

/** Options of {@link PostgresDatabase.connect}. */
export interface PostgresDatabaseOptions {
  /** A libpq connection URI (`postgres://user:password@host:port/database`); or give `config`. */
  connectionString?: string;
  /**
   * Connection settings handed to `pg`'s `Pool` and `Client` as they are (`host`, which may be
   * a unix socket directory, `port`, `user`, `password`, `database`, `ssl`, …).
   */
  config?: Record<string, unknown>;
  /** Pool size of this process (default {@link DEFAULT_MAX_CONNECTIONS}); the change feed takes one more. */
  maxConnections?: number;
  /** Milliseconds to wait for a connection before `storage_failed` (default {@link DEFAULT_CONNECT_TIMEOUT_MS}). */
  connectTimeoutMs?: number;
  /**
   * Create the tables, or migrate them to {@link POSTGRES_SCHEMA_VERSION}, on connect (default
   * `true`). With `false` the host runs `POSTGRES_SCHEMA_SQL` itself, and connect fails with
   * `storage_failed` when the tables are missing or at another version.
   */
  createSchema?: boolean;
  /** Listen for the writes of other processes (default `true`); `false` opens no listening connection, and adapters then hear nothing. */
  listen?: boolean;
  /**
   * Called when engines may have missed writes: with a store's name, that store's; without
   * one, every store's (the listening connection was lost and made again). Reopen them.
   */
  onStale?: StaleListener;
}

/** Options of {@link PostgresAdapter.open}: a database's options and the store's name. */
export interface PostgresAdapterOptions extends PostgresDatabaseOptions {
  /** The store's name (`OpenAdapterOptions.name`'s rule). */
  name: string;
  /** Reject every `write`. */
  readOnly?: boolean;
}

const DATABASE_FIELDS = ["connectionString", "config", "maxConnections", "connectTimeoutMs", "createSchema", "listen", "onStale"];

function message(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: unknown }).code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? `${e.message} (SQLSTATE ${code})` : e.message;
}

/** What `pg` or the server threw, as a `RecallError`: `storage_failed` with the server's message. */
export function toPostgresError(e: unknown, doing: string): RecallError {
  if (e instanceof RecallError) return e;
  return new RecallError("storage_failed", `postgres: ${doing}: ${message(e)}`, { cause: e });
}

function checkDatabaseOptions(options: unknown, extra: readonly string[]): PostgresAdapterOptions {
  if (typeof options !== "object" || options === null) {
    throw new RecallError("invalid_argument", `postgres options must be an object, got ${String(options)}`);
  }
  const allowed = new Set([...DATABASE_FIELDS, ...extra]);
  for (const key of Object.keys(options)) {
    if (!allowed.has(key)) throw new RecallError("invalid_argument", `unknown postgres option ${JSON.stringify(key)}`);
  }
  const o = options as PostgresAdapterOptions;
  if ((o.connectionString === undefined) === (o.config === undefined)) {
    throw new RecallError("invalid_argument", "postgres options need exactly one of connectionString and config");
  }
  if (o.connectionString !== undefined && (typeof o.connectionString !== "string" || o.connectionString === "")) {
    throw new RecallError("invalid_argument", `connectionString must be a non-empty string, got ${typeof o.connectionString}`);
  }
  if (o.config !== undefined && (typeof o.config !== "object" || o.config === null)) {
    throw new RecallError("invalid_argument", `config must be an object, got ${String(o.config)}`);
  }
  for (const [field, min] of [["maxConnections", 1], ["connectTimeoutMs", 1]] as const) {
    const v = o[field];
    if (v !== undefined && (typeof v !== "number" || !Number.isInteger(v) || v < min)) {
      throw new RecallError("invalid_argument", `${field} must be an integer >= ${min}, got ${String(v)}`);
    }
  }
  for (const flag of ["createSchema", "listen", "readOnly"] as const) {
    if (o[flag] !== undefined && typeof o[flag] !== "boolean") {
      throw new RecallError("invalid_argument", `${flag} must be a boolean, got ${String(o[flag])}`);
    }
  }
  if (o.onStale !== undefined && typeof o.onStale !== "function") {
    throw new RecallError("invalid_argument", `onStale must be a function, got ${typeof o.onStale}`);
  }
  return o;
}

async function loadPg(): Promise<PgModule> {
  const name = "pg"; // not a static import: an optional peer dependency
  try {
    const mod = (await import(name)) as { default?: PgModule } & PgModule;
    return mod.default ?? mod;
  } catch (e) {
    throw new RecallError("storage_failed", `recallkit/postgres needs the pg package (npm install pg): ${message(e)}`, { cause: e });
  }
}

/**
 * Brings the schema to {@link POSTGRES_SCHEMA_VERSION} in one transaction under an advisory lock
 * (so processes starting together migrate once), or with `create: false` only checks it.
 * `corrupt` for a database a newer recallkit migrated.
 */
async function migrateSchema(client: PgPoolClient, create: boolean): Promise<number> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [SCHEMA_LOCK_KEY]);
    const table = await client.query("SELECT to_regclass('recallkit_meta') AS t");
    let version = 0;
    if (table.rows[0]?.t !== null) {
      const row = await client.query("SELECT value FROM recallkit_meta WHERE name = 'schema_version'");
      version = Number(row.rows[0]?.value ?? 0);
    }
    if (version > POSTGRES_SCHEMA_VERSION) {
      throw new RecallError("corrupt", `postgres: the recallkit tables are at schema version ${version}; this recallkit reads up to ${POSTGRES_SCHEMA_VERSION}`);
    }
    if (version < POSTGRES_SCHEMA_VERSION) {
      if (!create) {
        throw new RecallError("storage_failed",
          `postgres: the recallkit tables are at schema version ${version}, not ${POSTGRES_SCHEMA_VERSION}; run POSTGRES_SCHEMA_SQL or connect with createSchema: true`);
      }
      for (const sql of SCHEMA_MIGRATIONS.slice(version)) await client.query(sql);
    }
    await client.query("COMMIT");
    return POSTGRES_SCHEMA_VERSION;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  }
}

/** What the adapters of a database use of it: kept off its public surface. */
const connections = new WeakMap<PostgresDatabase, { pool: PgPool; feed: ChangeFeed | undefined }>();

function poolOf(db: PostgresDatabase): PgPool {
  if (db.closed) throw new RecallError("closed", "the postgres database is closed");
  return connections.get(db)!.pool;
}

/** Runs `task` on a pooled connection of `db`; a connection whose task failed is never reused. */
async function withClient<T>(db: PostgresDatabase, doing: string, task: (client: PgPoolClient) => Promise<T>): Promise<T> {
  const pool = poolOf(db);
  let client: PgPoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw toPostgresError(e, `${doing}: cannot connect`);
  }
  // A connection that dies while checked out emits "error" besides failing its query: the
  // query's rejection is the report, and the event must not become an uncaught exception.
  const ignore = (): void => undefined;
  client.on("error", ignore);
  try {
    const result = await task(client);
    client.removeListener("error", ignore);
    client.release();
    return result;
  } catch (e) {
    client.release(true); // destroyed, never reused; `ignore` stays for its last events
    throw toPostgresError(e, doing);
  }
}

/** Runs one query on `db`'s pool. */
async function query(db: PostgresDatabase, doing: string, text: string, values: unknown[]): Promise<PgResult> {
  const pool = poolOf(db);
  try {
    return await pool.query(text, values);
  } catch (e) {
    throw toPostgresError(e, doing);
  }
}

/** The databases {@link PostgresAdapter.open} connected for one adapter, closed with it. */
const owners = new WeakSet<PostgresDatabase>();

let handles = 0;
const processId = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");

/** One process's side of one PostgreSQL database (see the module doc). Open it with {@link PostgresDatabase.connect}. */
export class PostgresDatabase {
  readonly #pool: PgPool;
  readonly #feed: ChangeFeed | undefined;
  #closing: Promise<void> | undefined;

  private constructor(pool: PgPool, feed: ChangeFeed | undefined) {
    this.#pool = pool;
    this.#feed = feed;
    connections.set(this, { pool, feed });
  }

  /**
   * Connects: loads `pg`, checks (by default creates or migrates) the schema, starts the change
   * feed. `storage_failed` with the server's message when the database cannot be reached,
   * `corrupt` when its tables are of a newer schema, `invalid_argument` for bad options.
   *
   * ```ts
   * const db = await PostgresDatabase.connect({ connectionString: process.env.DATABASE_URL });
   * const store = await MemoryStore.open({ name: "user-42", storage: db.adapter("user-42") });
   * ```
   */
  static async connect(options: PostgresDatabaseOptions): Promise<PostgresDatabase> {
    const o = checkDatabaseOptions(options, []);
    return PostgresDatabase.#connect(o);
  }

  static async #connect(o: PostgresDatabaseOptions): Promise<PostgresDatabase> {
    const pg = await loadPg();
    const base: Record<string, unknown> = o.connectionString !== undefined ? { connectionString: o.connectionString } : { ...o.config };
    const timeout = o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const pool = new pg.Pool({ ...base, max: o.maxConnections ?? DEFAULT_MAX_CONNECTIONS, connectionTimeoutMillis: timeout });
    pool.on("error", () => undefined); // an idle connection died: the pool drops it, the next query opens another
    let feed: ChangeFeed | undefined;
    try {
      const client = await pool.connect().catch((e) => { throw toPostgresError(e, "cannot connect"); });
      try {
        await migrateSchema(client, o.createSchema !== false);
      } catch (e) {
        client.release(true);
        throw toPostgresError(e, "cannot check the schema");
      }
      client.release();
      if (o.listen !== false) {
        feed = new ChangeFeed(() => new pg.Client({ ...base, connectionTimeoutMillis: timeout }), (store, reason) => o.onStale?.(store, reason));
        await feed.start();
      }
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw e;
    }
    return new PostgresDatabase(pool, feed);
  }

  /** Whether {@link PostgresDatabase.close} was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /** Times the change feed's connection was lost and made again (each time, `onStale` was called). */
  get feedReconnects(): number {
    return this.#feed?.reconnects ?? 0;
  }

  /**
   * A {@link PostgresAdapter} for the store called `name` (created by its first write), sharing
   * this database's pool and change feed. Closing the adapter leaves the database open.
   */
  adapter(name: string, options: { readOnly?: boolean } = {}): PostgresAdapter {
    return new PostgresAdapter(this, name, options);
  }

  /** The names of the stores that hold at least one record, in ascending order. */
  async stores(): Promise<string[]> {
    const result = await query(this, "cannot list stores", "SELECT DISTINCT store FROM recallkit_records ORDER BY store", []);
    return result.rows.map((r) => String(r.store));
  }

  /** Deletes every record of the store called `name`, in one transaction (its open handles then see an empty store). */
  async dropStore(name: string): Promise<void> {
    await query(this, `cannot drop store ${JSON.stringify(name)}`, "DELETE FROM recallkit_records WHERE store = $1", [checkStoreName(name)]);
  }

  /** Stops the change feed and closes the pool's connections (idempotent); adapters over it then fail with `closed`. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#feed?.close();
      await this.#pool.end().catch(() => undefined);
    })();
    return this.#closing;
  }
}

function keyBytes(key: string): Buffer {
  return Buffer.from(key, "utf8");
}

/** The first byte string after every string that starts with `prefix` (none for the empty prefix). UTF-8 has no 0xFF byte. */
function prefixUpperBound(prefix: Buffer): Buffer | undefined {
  if (prefix.length === 0) return undefined;
  const upper = Buffer.from(prefix);
  upper[upper.length - 1]! += 1;
  return upper;
}

function asBuffer(value: Uint8Array): Buffer {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** A stored value as a `Uint8Array` that owns its buffer (`pg` may hand out views of a shared pool). */
function ownBytes(value: unknown): Uint8Array {
  return new Uint8Array(value as Uint8Array);
}

const byKey = <T extends { key: string }>(a: T, b: T): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const byBytes = (a: { bytes: Buffer }, b: { bytes: Buffer }): number => Buffer.compare(a.bytes, b.bytes);

interface Row { key: string; bytes: Buffer; value?: Buffer }

/** The batch as the transaction applies it (see the module doc): each key's final state, and the keys created first. */
function planBatch(batch: readonly StorageOp[]): { creates: Row[]; puts: Row[]; deletes: Row[] } {
  const final = new Map<string, Uint8Array | null>();
  const firstIsCreate = new Map<string, Uint8Array>();
  for (const op of batch) {
    if (!final.has(op.key) && op.op === "create") firstIsCreate.set(op.key, op.value);
    final.set(op.key, op.op === "delete" ? null : op.value);
  }
  const creates: Row[] = [];
  const puts: Row[] = [];
  const deletes: Row[] = [];
  for (const [key, value] of final) {
    const row: Row = { key, bytes: keyBytes(key) };
    const created = firstIsCreate.get(key);
    if (created !== undefined) creates.push({ ...row, value: asBuffer(value ?? created) });
    if (value === null) deletes.push(row);
    else if (created === undefined) puts.push({ ...row, value: asBuffer(value) });
  }
  return { creates: creates.sort(byBytes), puts: puts.sort(byBytes), deletes: deletes.sort(byBytes) };
}

/** A `StorageAdapter` over one store of a {@link PostgresDatabase}. Open it with {@link PostgresAdapter.open} or {@link PostgresDatabase.adapter}. */
export class PostgresAdapter implements StorageAdapter {
  readonly #db: PostgresDatabase;
  readonly #name: string;
  readonly #readOnly: boolean;
  /** This handle's id in the feed's notifications, so it does not hear its own writes. */
  readonly #origin = `${processId}-${(handles++).toString(36)}`;
  readonly #unsubscribers = new Set<() => void>();
  /** The last write called: reads and later writes wait for it. */
  #tail: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;

  /** The store `name` of `db` (what {@link PostgresDatabase.adapter} returns). `invalid_argument` for a bad name or options, `closed` when `db` is. */
  constructor(db: PostgresDatabase, name: string, options: { readOnly?: boolean } = {}) {
    if (!(db instanceof PostgresDatabase)) throw new RecallError("invalid_argument", "PostgresAdapter needs a PostgresDatabase");
    if (db.closed) throw new RecallError("closed", "the postgres database is closed");
    if (typeof options !== "object" || options === null || (options.readOnly !== undefined && typeof options.readOnly !== "boolean")) {
      throw new RecallError("invalid_argument", `adapter options must be { readOnly?: boolean }, got ${JSON.stringify(options)}`);
    }
    this.#db = db;
    this.#name = checkStoreName(name);
    this.#readOnly = options.readOnly === true;
  }

  /**
   * Connects to a database of its own (a {@link PostgresDatabase}, closed with this adapter)
   * and opens the store `options.name`. A service with many stores connects once with
   * {@link PostgresDatabase.connect} and calls {@link PostgresDatabase.adapter} per store.
   */
  static async open(options: PostgresAdapterOptions): Promise<PostgresAdapter> {
    const o = checkDatabaseOptions(options, ["name", "readOnly"]);
    const name = checkStoreName(o.name);
    const { name: _name, readOnly, ...databaseOptions } = o;
    const db = await PostgresDatabase.connect(databaseOptions);
    owners.add(db);
    return new PostgresAdapter(db, name, { readOnly: readOnly === true });
  }

  /** The store's name (the `store` column of its rows). */
  get name(): string {
    return this.#name;
  }

  #live(): void {
    if (this.#closing !== undefined || this.#db.closed) throw new RecallError("closed", `the postgres store ${JSON.stringify(this.#name)} is closed`);
  }

  /** Waits for the writes called before. */
  async #afterWrites(): Promise<void> {
    await this.#tail.catch(() => undefined);
    this.#live();
  }

  /** The value stored under `key` (a copy), or `undefined`; after the writes this handle called before. */
  async get(key: string): Promise<Uint8Array | undefined> {
    this.#live();
    const k = keyBytes(checkKey(key));
    await this.#afterWrites();
    const result = await query(this.#db, `cannot read ${JSON.stringify(key)} of store ${JSON.stringify(this.#name)}`,
      "SELECT value FROM recallkit_records WHERE store = $1 AND key = $2", [this.#name, k]);
    const row = result.rows[0];
    return row === undefined ? undefined : ownBytes(row.value);
  }

  async #select(prefix: string | undefined, withValues: boolean): Promise<Array<{ key: string; value?: Uint8Array }>> {
    this.#live();
    const lower = keyBytes(checkPrefix(prefix));
    await this.#afterWrites();
    const upper = prefixUpperBound(lower);
    const columns = withValues ? "key, value" : "key";
    const range = upper === undefined ? "" : " AND key < $3";
    const result = await query(this.#db, `cannot list store ${JSON.stringify(this.#name)}`,
      `SELECT ${columns} FROM recallkit_records WHERE store = $1 AND key >= $2${range}`,
      upper === undefined ? [this.#name, lower] : [this.#name, lower, upper]);
    // Byte order is code point order; the contract's is UTF-16 code units (they differ above U+FFFF).
    const rows = result.rows.map((r) => ({ key: (r.key as Buffer).toString("utf8"), value: withValues ? ownBytes(r.value) : undefined }));
    return rows.sort(byKey);
  }

  /** Every key that starts with `prefix`, in ascending UTF-16 order; after the writes this handle called before. */
  async keys(prefix?: string): Promise<string[]> {
    return (await this.#select(prefix, false)).map((r) => r.key);
  }

  /** Every [key, value] whose key starts with `prefix`, in ascending UTF-16 order; after the writes this handle called before. */
  async entries(prefix?: string): Promise<Array<[string, Uint8Array]>> {
    return (await this.#select(prefix, true)).map((r) => [r.key, r.value!]);
  }

  /** Applies the batch in one transaction (see the module doc); resolves after COMMIT. `already_exists`, `storage_failed`, `closed`. */
  async write(ops: StorageOp[]): Promise<void> {
    this.#live();
    const checked = checkOps(ops);
    if (this.#readOnly) throw new RecallError("invalid_argument", "the store was opened with readOnly: true");
    checkCreates(checked, () => false); // the batch against itself; against the table in the transaction
    if (checked.length === 0) return;
    const run = this.#tail.catch(() => undefined).then(() => this.#commit(checked));
    this.#tail = run;
    await run;
  }

  async #commit(batch: StorageOp[]): Promise<void> {
    this.#live();
    const plan = planBatch(batch);
    const payloads = connections.get(this.#db)?.feed === undefined ? [] : feedPayloads(this.#name, this.#origin, changedKeys(batch));
    const doing = `cannot write ${batch.length} op(s) to store ${JSON.stringify(this.#name)}`;
    for (let attempt = 1; ; attempt++) {
      try {
        await withClient(this.#db, doing, (client) => this.#transaction(client, plan, payloads));
        return;
      } catch (e) {
        const state = ((e as { cause?: { code?: unknown } }).cause)?.code;
        if (attempt >= WRITE_ATTEMPTS || typeof state !== "string" || !RETRIED_STATES.has(state)) throw e;
      }
    }
  }

  async #transaction(client: PgPoolClient, plan: ReturnType<typeof planBatch>, payloads: string[]): Promise<void> {
    const store = this.#name;
    await client.query("BEGIN");
    try {
      if (plan.creates.length > 0) {
        const inserted = await client.query(
          "INSERT INTO recallkit_records (store, key, value) SELECT $1, k, v FROM unnest($2::bytea[], $3::bytea[]) AS t(k, v) " +
          "ON CONFLICT (store, key) DO NOTHING RETURNING key",
          [store, plan.creates.map((r) => r.bytes), plan.creates.map((r) => r.value)]);
        if ((inserted.rowCount ?? 0) < plan.creates.length) {
          const made = new Set(inserted.rows.map((r) => (r.key as Buffer).toString("hex")));
          const taken = plan.creates.find((r) => !made.has(r.bytes.toString("hex")));
          throw new RecallError("already_exists",
            `${JSON.stringify(taken?.key)} already exists in store ${JSON.stringify(store)} (written by another handle since this one read it); nothing of the batch was stored`);
        }
      }
      if (plan.puts.length > 0) {
        await client.query(
          "INSERT INTO recallkit_records (store, key, value) SELECT $1, k, v FROM unnest($2::bytea[], $3::bytea[]) AS t(k, v) " +
          "ON CONFLICT (store, key) DO UPDATE SET value = EXCLUDED.value",
          [store, plan.puts.map((r) => r.bytes), plan.puts.map((r) => r.value)]);
      }
      if (plan.deletes.length > 0) {
        await client.query("DELETE FROM recallkit_records WHERE store = $1 AND key = ANY($2::bytea[])", [store, plan.deletes.map((r) => r.bytes)]);
      }
      if (payloads.length > 0) {
        await client.query("SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", [FEED_CHANNEL, payloads]);
      }
      await client.query("COMMIT");
    } catch (e) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw e;
    }
  }

  /**
   * Hears the writes of every other handle of this store, in this process or another (see
   * `postgres-feed.ts`). On a database connected with `listen: false`, hears nothing.
   */
  subscribe(listener: (changedKeys: string[]) => void): () => void {
    if (typeof listener !== "function") throw new RecallError("invalid_argument", "subscribe expects a function");
    this.#live();
    const feed = connections.get(this.#db)?.feed;
    if (feed === undefined) return () => undefined;
    const unsubscribe = feed.subscribe(this.#name, this.#origin, listener);
    this.#unsubscribers.add(unsubscribe);
    return () => {
      unsubscribe();
      this.#unsubscribers.delete(unsubscribe);
    };
  }

  /** Waits for this handle's writes, stops its subscriptions, and closes the database when {@link PostgresAdapter.open} made it. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#tail.catch(() => undefined);
      for (const unsubscribe of this.#unsubscribers) unsubscribe();
      this.#unsubscribers.clear();
      if (owners.has(this.#db)) await this.#db.close();
    })();
    return this.#closing;
  }
}
