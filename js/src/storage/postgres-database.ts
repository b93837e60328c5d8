/**
 * {@link PostgresDatabase}: one process's side of one PostgreSQL database, for
 * `recallkit/postgres` (`postgres.ts` has the stores over it): a connection pool, the schema
 * checked (and created or migrated, under an advisory lock, so processes starting together
 * migrate once) on connect, and one listening connection for the change feed
 * (`postgres-feed.ts`). `pg`, an optional peer dependency, is imported on first connect unless
 * the host hands over its own module. The helpers the adapters use (a pooled connection, one
 * query, the server's errors as `storage_failed`) live here and stay off the public surface.
 * @module
 */
import { RecallError } from "../errors.js";
import { checkStoreName } from "./adapter.js";
import { PostgresAdapter } from "./postgres.js";
import { ChangeFeed, droppedPayload } from "./postgres-feed.js";
import type { FeedClient, StaleListener } from "./postgres-feed.js";
import { DROPS_PREFIX, FEED_CHANNEL, POSTGRES_SCHEMA_VERSION, SCHEMA_LOCK_KEY, SCHEMA_MIGRATIONS } from "./postgres-schema.js";

/** How long getting a connection may take before `storage_failed` (10 s), unless `connectTimeoutMs` says otherwise. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Connections in a process's pool unless `maxConnections` says otherwise. */
export const DEFAULT_MAX_CONNECTIONS = 10;

/** A query's answer, as `pg` gives it. */
export interface PgResult { rows: Array<Record<string, unknown>>; rowCount: number | null }
/** A pooled connection, as `pg` gives it. */
export interface PgPoolClient {
  query(text: string, values?: unknown[]): Promise<PgResult>;
  release(error?: Error | boolean): void;
  /** `I` idle, `T` in a transaction, `E` in a failed one (`pg` 8.12 and later; null before the first query). */
  getTransactionStatus?(): string | null;
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
/** The `pg` module, or the part of it recallkit uses: its `Pool` and `Client` constructors. */
export interface PgModule {
  /** `pg.Pool`. */
  Pool: new (config: Record<string, unknown>) => unknown;
  /** `pg.Client`. */
  Client: new (config: Record<string, unknown>) => unknown;
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
  /**
   * The `pg` module to use instead of importing it (`import pg from "npm:pg"` in Deno without a
   * package.json that lists it, a bundle, a host's own copy).
   */
  pg?: PgModule;
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
  /**
   * Listen for the writes of other processes (default `true`); `false` opens no listening
   * connection, and adapters then hear nothing. Writes are announced to the processes that
   * listen either way.
   */
  listen?: boolean;
  /**
   * Called when engines may have missed writes: with a store's name, that store's; without
   * one, every store's (the listening connection was lost and made again). Reopen them. An
   * exception it throws (or a rejection, when it is async) is ignored: neither the process nor
   * the feed stops, and later reports call it again.
   */
  onStale?: StaleListener;
}

const DATABASE_FIELDS = ["pg", "connectionString", "config", "maxConnections", "connectTimeoutMs", "createSchema", "listen", "onStale"];

/**
 * The SQLSTATE of an error the server sent (`pg`'s `DatabaseError`: a five-character `code`
 * beside the message's `severity`), looking through a `RecallError` to its cause; undefined
 * for anything else, such as a socket's errno code (`EPIPE`, `ECONNRESET`: five capitals too,
 * but with no `severity`).
 */
export function sqlState(e: unknown): string | undefined {
  const error = e instanceof RecallError ? e.cause : e;
  if (typeof error !== "object" || error === null) return undefined;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && typeof severity === "string" ? code : undefined;
}

/**
 * SQLSTATE classes after which a connection is not reused: connection exceptions (08),
 * operator intervention (57: the backend was terminated, the server is shutting down), system
 * errors (58) and internal errors (XX). After any other class the server answered, and the
 * connection is as good as before.
 */
const CONNECTION_STATE_CLASSES = new Set(["08", "57", "58", "XX"]);

function message(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const state = sqlState(e);
  return state !== undefined ? `${e.message} (SQLSTATE ${state})` : e.message;
}

/**
 * What `pg` or the server threw, as a `RecallError`: `storage_failed` with the server's
 * message, or `too_large` for a program limit the statement met (SQLSTATE class 54).
 */
export function toPostgresError(e: unknown, doing: string): RecallError {
  if (e instanceof RecallError) return e;
  const code = sqlState(e)?.startsWith("54") ? "too_large" : "storage_failed";
  return new RecallError(code, `postgres: ${doing}: ${message(e)}`, { cause: e });
}

/**
 * Checks the options of a database (or an adapter, which adds the fields `extra`): an object
 * of known fields, exactly one of `connectionString` and `config`, positive integer sizes and
 * timeouts, boolean flags, a `pg` module and an `onStale` function; `invalid_argument` naming
 * the field otherwise.
 */
export function checkDatabaseOptions<T extends PostgresDatabaseOptions>(options: unknown, extra: readonly string[]): T {
  if (typeof options !== "object" || options === null) {
    throw new RecallError("invalid_argument", `postgres options must be an object, got ${String(options)}`);
  }
  const allowed = new Set([...DATABASE_FIELDS, ...extra]);
  for (const key of Object.keys(options)) {
    if (!allowed.has(key)) throw new RecallError("invalid_argument", `unknown postgres option ${JSON.stringify(key)}`);
  }
  const o = options as T & { readOnly?: unknown };
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
  if (o.pg !== undefined && (typeof o.pg?.Pool !== "function" || typeof o.pg?.Client !== "function")) {
    throw new RecallError("invalid_argument", "pg must be the pg module (with Pool and Client)");
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
      const value = row.rows[0]?.value ?? "0";
      if (typeof value !== "string" || !/^[0-9]+$/.test(value)) {
        throw new RecallError("corrupt", `postgres: recallkit_meta's schema_version is ${JSON.stringify(value)}, not a version number`);
      }
      version = Number(value);
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

/**
 * The pool's first connection. `pg` parses the settings when it makes a client, and throws
 * there, synchronously, for settings it cannot read (`postgres://[bad`: a TypeError,
 * ERR_INVALID_URL): that is `invalid_argument`; a failure to reach the server is `storage_failed`.
 */
async function connectFirst(pool: PgPool, fromString: boolean): Promise<PgPoolClient> {
  let connecting: Promise<PgPoolClient>;
  try {
    connecting = pool.connect();
  } catch (e) {
    // The string itself may hold a password: the message names the driver's reason only.
    const what = fromString ? "connectionString is not a connection URI pg can read" : "config is not connection settings pg can read";
    const code = (e as { code?: unknown } | null)?.code;
    throw new RecallError("invalid_argument", `postgres: ${what}: ${message(e)}${typeof code === "string" ? ` (${code})` : ""}`, { cause: e });
  }
  return connecting.catch((e) => { throw toPostgresError(e, "cannot connect"); });
}

/** What the adapters of a database use of it: kept off its public surface. */
export const connections = new WeakMap<PostgresDatabase, { pool: PgPool; feed: ChangeFeed | undefined }>();

function poolOf(db: PostgresDatabase): PgPool {
  if (db.closed) throw new RecallError("closed", "the postgres database is closed");
  return connections.get(db)!.pool;
}

/**
 * Whether a connection whose task failed with `e` may go back to the pool: the server answered
 * with an ordinary SQL error (a constraint, a conflicting create; not a class of
 * {@link CONNECTION_STATE_CLASSES}), the connection emitted no error meanwhile, and it is not
 * left inside a transaction (when `pg` says so).
 */
function isReusable(client: PgPoolClient, e: unknown, broken: boolean): boolean {
  const state = sqlState(e);
  if (broken || state === undefined || CONNECTION_STATE_CLASSES.has(state.slice(0, 2))) return false;
  const status = client.getTransactionStatus?.();
  return status === undefined || status === null || status === "I";
}

/**
 * Runs `task` on a pooled connection of `db`. A connection whose task failed goes back to the
 * pool only when the server answered with an ordinary SQL error ({@link isReusable}); after a
 * connection-level failure it is destroyed.
 */
export async function withClient<T>(db: PostgresDatabase, doing: string, task: (client: PgPoolClient) => Promise<T>): Promise<T> {
  const pool = poolOf(db);
  let client: PgPoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw toPostgresError(e, `${doing}: cannot connect`);
  }
  // A connection that dies while checked out emits "error" besides failing its query: the
  // query's rejection is the report, and the event must not become an uncaught exception.
  let broken = false;
  const onError = (): void => { broken = true; };
  client.on("error", onError);
  try {
    const result = await task(client);
    client.removeListener("error", onError);
    client.release();
    return result;
  } catch (e) {
    if (isReusable(client, e, broken)) {
      client.removeListener("error", onError);
      client.release();
    } else {
      client.release(true); // destroyed, never reused; `onError` stays for its last events
    }
    throw toPostgresError(e, doing);
  }
}

/** Runs one query on `db`'s pool. */
export async function query(db: PostgresDatabase, doing: string, text: string, values: unknown[]): Promise<PgResult> {
  const pool = poolOf(db);
  try {
    return await pool.query(text, values);
  } catch (e) {
    throw toPostgresError(e, doing);
  }
}

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
   * `corrupt` when its tables are of a newer schema (or their `schema_version` is not a
   * number), `invalid_argument` for bad options, a `connectionString` included that `pg`
   * cannot read (`postgres://[bad`).
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
    const pg = o.pg ?? await loadPg();
    const base: Record<string, unknown> = o.connectionString !== undefined ? { connectionString: o.connectionString } : { ...o.config };
    const timeout = o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const pool = new (pg.Pool as new (config: Record<string, unknown>) => PgPool)({ ...base, max: o.maxConnections ?? DEFAULT_MAX_CONNECTIONS, connectionTimeoutMillis: timeout });
    pool.on("error", () => undefined); // an idle connection died: the pool drops it, the next query opens another
    let feed: ChangeFeed | undefined;
    try {
      const client = await connectFirst(pool, o.connectionString !== undefined);
      try {
        await migrateSchema(client, o.createSchema !== false);
      } catch (e) {
        client.release(true);
        throw toPostgresError(e, "cannot check the schema");
      }
      client.release();
      if (o.listen !== false) {
        feed = new ChangeFeed(() => new (pg.Client as new (config: Record<string, unknown>) => FeedClient)({ ...base, connectionTimeoutMillis: timeout }), (store, reason) => o.onStale?.(store, reason));
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

  /**
   * Deletes every record of the store called `name`, in one transaction, and announces it on
   * the change feed: every process's `onStale(name, reason)` is called (this one's too), with
   * a reason saying the store was dropped. Open handles are not emptied (they still hold the
   * store as they loaded it) but can no longer write: a write through a handle opened before the
   * drop stores nothing and fails with `closed` "was dropped", and every later call of that
   * handle fails the same way, so reopen them (the service example evicts its cache on
   * `onStale`); a handle opened after the drop sees an empty store. The drop counts itself in
   * `recallkit_meta` (`drops:<name>`) and locks the records table against writes (of every
   * store) while it deletes, so a write racing it either lands before and is deleted or
   * finds the store dropped; the role needs INSERT and UPDATE on `recallkit_meta`.
   */
  async dropStore(name: string): Promise<void> {
    const store = checkStoreName(name);
    await withClient(this, `cannot drop store ${JSON.stringify(name)}`, async (client) => {
      await client.query("BEGIN");
      try {
        // Waits for the writes in flight to commit, and holds back later ones until this one
        // does, when they find the count raised (see postgres.ts): none stores part of the store
        // again. Two drops wait for each other.
        await client.query("LOCK TABLE recallkit_records IN SHARE ROW EXCLUSIVE MODE");
        await client.query(
          "WITH counted AS (INSERT INTO recallkit_meta (name, value) VALUES ($1, '1') " +
          "ON CONFLICT (name) DO UPDATE SET value = (recallkit_meta.value::bigint + 1)::text RETURNING 1), " +
          "gone AS (DELETE FROM recallkit_records WHERE store = $2 RETURNING 1) " +
          "SELECT pg_notify($3, $4), (SELECT count(*) FROM gone) AS n, (SELECT count(*) FROM counted) AS counted",
          [DROPS_PREFIX + store, store, FEED_CHANNEL, droppedPayload(store)]);
        await client.query("COMMIT");
      } catch (e) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw e;
      }
    });
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
