/**
 * {@link PostgresAdapter}: one store kept in a PostgreSQL database that any number of processes
 * share, for Node and Deno services. A process connects once (`PostgresDatabase`, in
 * `postgres-database.ts`: the pool, the schema, the change feed) and opens any number of stores
 * over it with `PostgresDatabase.adapter`.
 *
 * - A {@link PostgresAdapter} is one store: the rows of `recallkit_records` whose `store` is its
 *   name (schema in `postgres-schema.ts`). Many stores, one per user or agent, share a database.
 *
 * Durability and atomicity: `write` runs one statement, its own transaction (the creates as a
 * plain `INSERT`, so a key another process holds fails the batch with `already_exists`; the puts
 * as one upsert; the deletes; the feed's notifications, sent at commit; each list in key order),
 * and resolves after its commit, which with PostgreSQL's default `synchronous_commit = on` is
 * durable: one round trip a write. Any failure rolls it back: nothing is half-written. Errors
 * are `storage_failed` carrying the server's message (a deadlock or serialization failure is
 * retried first, up to {@link WRITE_ATTEMPTS} times), or `too_large` for a key longer than the
 * table's index takes ({@link MAX_INDEX_ROW_BYTES}: an edge between long entity names). A
 * connection lost before the answer leaves it unknown whether the batch committed; the write
 * rejects, and a reopen shows which.
 *
 * A dropped store (`PostgresDatabase.dropStore`) stays dropped for the handles opened before:
 * a handle reads the store's drop count (`postgres-schema.ts`) before its first read or write,
 * and each write's statement stores nothing unless the count is still that one (`dropStore`
 * locks out writes in flight while it deletes, so the two cannot interleave). Such a write
 * fails with `closed` "was dropped", and so does every later call of the handle, as for an
 * IndexedDB database another tab deleted; the store over it is told (`onShut`) and fails every
 * call too. A handle opened after the drop sees an empty store and writes to it.
 *
 * Within one handle, writes run one at a time in call order, and a read waits for the writes
 * called before it (the gets of one turn of the event loop are one query); handles in other processes interleave at transaction boundaries (last
 * commit wins, as with two tabs).
 * @module
 */
import { Buffer } from "node:buffer";
import { RecallError } from "../errors.js";
import { checkStoreName } from "./adapter.js";
import type { StorageAdapter, StorageOp } from "./adapter.js";
import { PostgresDatabase, checkDatabaseOptions, connections, query, sqlState, withClient } from "./postgres-database.js";
import type { PgPoolClient, PostgresDatabaseOptions } from "./postgres-database.js";
import { feedPayloads } from "./postgres-feed.js";
import { DROPS_PREFIX, FEED_CHANNEL, MAX_INDEX_ROW_BYTES } from "./postgres-schema.js";
import { changedKeys, checkCreates, checkKey, checkOps, checkPrefix } from "./ops.js";

/** Attempts of a write that fails with a deadlock (40P01) or serialization failure (40001) before it rejects. */
export const WRITE_ATTEMPTS = 3;

const RETRIED_STATES = new Set(["40P01", "40001"]);
/** Keys of one coalesced get query at most. */
const MAX_KEYS_PER_GET = 1000;

/**
 * A whole write batch in one statement ({@link PostgresAdapter}'s `#transaction`): the creates
 * as a plain insert (a key already there is a unique violation, 23505, and fails the statement),
 * the puts as an upsert, the deletes, and the change feed's notifications, sent at commit. The
 * keys of the three lists are distinct. Each part runs only while the store's drop count
 * (`recallkit_meta`, `drops:<store>`: $9) is still the one the handle read first ($10); `live`
 * says whether it was, and when not, nothing was written or announced.
 */
const WRITE_SQL = "WITH live AS (SELECT (SELECT value FROM recallkit_meta WHERE name = $9) IS NOT DISTINCT FROM $10::text AS ok), " +
  "created AS (INSERT INTO recallkit_records (store, key, value) SELECT $1, k, v FROM unnest($2::bytea[], $3::bytea[]) AS t(k, v) " +
  "WHERE (SELECT ok FROM live) RETURNING 1), " +
  "put AS (INSERT INTO recallkit_records (store, key, value) SELECT $1, k, v FROM unnest($4::bytea[], $5::bytea[]) AS t(k, v) " +
  "WHERE (SELECT ok FROM live) ON CONFLICT (store, key) DO UPDATE SET value = EXCLUDED.value RETURNING 1), " +
  "gone AS (DELETE FROM recallkit_records WHERE store = $1 AND key = ANY($6::bytea[]) AND (SELECT ok FROM live) RETURNING 1), " +
  "told AS (SELECT pg_notify($7, p) FROM unnest($8::text[]) AS p WHERE (SELECT ok FROM live)) " +
  "SELECT count(*) AS told, (SELECT ok FROM live) AS live FROM told";

/** Runs `task` after the current turn of the event loop (its microtasks included). */
const schedule: (task: () => void) => void = typeof globalThis.setImmediate === "function"
  ? (task) => { globalThis.setImmediate(task); }
  : (task) => { setTimeout(task, 0); };


/** Options of {@link PostgresAdapter.open}: a database's options and the store's name. */
export interface PostgresAdapterOptions extends PostgresDatabaseOptions {
  /** The store's name (`OpenAdapterOptions.name`'s rule). */
  name: string;
  /**
   * Reject every `write`. Open the store over it with `readOnly: true` as well
   * (`MemoryStore.open`), which refuses writes before they reach the adapter and tracks no
   * recall (a tracked recall is a write).
   */
  readOnly?: boolean;
}


/** The databases {@link PostgresAdapter.open} connected for one adapter, closed with it. */
const owners = new WeakSet<PostgresDatabase>();

let handles = 0;
const processId = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");

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
  /** `write` checks `create` ops itself, atomically (see `StorageAdapter.checksCreates` in `recallkit`). */
  readonly checksCreates: boolean = true;
  readonly #db: PostgresDatabase;
  readonly #name: string;
  readonly #readOnly: boolean;
  /** This handle's id in the feed's notifications, so it does not hear its own writes. */
  readonly #origin = `${processId}-${(handles++).toString(36)}`;
  readonly #unsubscribers = new Set<() => void>();
  /** Gets waiting for the next {@link PostgresAdapter.get} query, by key. */
  #gets: Map<string, Array<{ resolve: (value: Uint8Array | undefined) => void; reject: (error: unknown) => void }>> | undefined;
  /** The last write called: reads and later writes wait for it. */
  #tail: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;
  /** The store's drop count as read before this handle's first call (`null`: never dropped); writes check it. */
  #drops: Promise<string | null> | undefined;
  /** Set once a write found the store dropped since: every call fails with it. */
  #dropped: RecallError | undefined;
  readonly #shutListeners = new Set<(reason: RecallError, deleted: boolean) => void>();

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
    const o = checkDatabaseOptions<PostgresAdapterOptions>(options, ["name", "readOnly"]);
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
    if (this.#dropped !== undefined) throw new RecallError(this.#dropped.code, this.#dropped.message);
    if (this.#closing !== undefined || this.#db.closed) throw new RecallError("closed", `the postgres store ${JSON.stringify(this.#name)} is closed`);
  }

  /**
   * The store's drop count, read once, before this handle's first read or write: the store it
   * reads from then on is the one its writes may change. Not for a read-only handle.
   */
  async #bindDrops(): Promise<void> {
    if (this.#readOnly) return;
    this.#drops ??= query(this.#db, `cannot read store ${JSON.stringify(this.#name)}`,
      "SELECT value FROM recallkit_meta WHERE name = $1", [DROPS_PREFIX + this.#name])
      .then((result) => (result.rows.length === 0 ? null : String(result.rows[0]!.value)));
    try {
      await this.#drops;
    } catch (e) {
      this.#drops = undefined; // read again by the next call
      throw e;
    }
  }

  /**
   * Calls `listener` when the store is found dropped under this handle (`deleted` is then
   * `true`, as for an IndexedDB database deleted elsewhere): the store over it fails every call.
   */
  onShut(listener: (reason: RecallError, deleted: boolean) => void): void {
    this.#shutListeners.add(listener);
  }

  /** A write found the store dropped since this handle first read it: every call fails from now on. */
  #droppedUnder(): RecallError {
    const reason = new RecallError("closed", `postgres store ${JSON.stringify(this.#name)} was dropped (dropStore) after this handle `
      + "first read it: this handle has no store left, and nothing was written; reopen it");
    if (this.#dropped === undefined) {
      this.#dropped = reason;
      for (const unsubscribe of this.#unsubscribers) unsubscribe();
      this.#unsubscribers.clear();
      for (const listener of this.#shutListeners) {
        try {
          listener(reason, true);
        } catch (e) {
          setTimeout(() => { throw e; });
        }
      }
      this.#shutListeners.clear();
    }
    return reason;
  }

  /** Waits for the writes called before. */
  async #afterWrites(): Promise<void> {
    await this.#tail.catch(() => undefined);
    this.#live();
  }

  /**
   * The value stored under `key` (a copy), or `undefined`; after the writes this handle called
   * before. The gets of one turn of the event loop are one query (an engine re-reading the keys
   * of another process's batch asks for them all at once).
   */
  async get(key: string): Promise<Uint8Array | undefined> {
    this.#live();
    const k = checkKey(key);
    await this.#bindDrops();
    await this.#afterWrites();
    return new Promise((resolve, reject) => {
      let gets = this.#gets;
      if (gets === undefined) {
        gets = this.#gets = new Map();
        schedule(() => { void this.#flushGets(); });
      }
      const waiters = gets.get(k) ?? [];
      waiters.push({ resolve, reject });
      gets.set(k, waiters);
      if (gets.size >= MAX_KEYS_PER_GET) void this.#flushGets();
    });
  }

  /** Reads every key asked for since the last flush in one query and answers each waiter. */
  async #flushGets(): Promise<void> {
    const gets = this.#gets;
    this.#gets = undefined;
    if (gets === undefined || gets.size === 0) return;
    const keys = [...gets.keys()];
    try {
      const result = await query(this.#db, `cannot read ${keys.length} key(s) of store ${JSON.stringify(this.#name)}`,
        "SELECT key, value FROM recallkit_records WHERE store = $1 AND key = ANY($2::bytea[])", [this.#name, keys.map(keyBytes)]);
      const found = new Map<string, unknown>();
      for (const row of result.rows) found.set((row.key as Buffer).toString("utf8"), row.value);
      for (const [key, waiters] of gets) {
        const value = found.get(key);
        for (const w of waiters) w.resolve(value === undefined ? undefined : ownBytes(value));
      }
    } catch (e) {
      for (const waiters of gets.values()) for (const w of waiters) w.reject(e);
    }
  }

  async #select(prefix: string | undefined, withValues: boolean): Promise<Array<{ key: string; value?: Uint8Array }>> {
    this.#live();
    const lower = keyBytes(checkPrefix(prefix));
    await this.#bindDrops();
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

  /** Applies the batch in one transaction (see the module doc); resolves after COMMIT. `already_exists`, `too_large`, `storage_failed`, `closed`. */
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
    await this.#bindDrops();
    const drops = await this.#drops!;
    const plan = planBatch(batch);
    // Announced whether or not this process listens: the other processes' engines need them.
    const payloads = feedPayloads(this.#name, this.#origin, changedKeys(batch));
    const doing = `cannot write ${batch.length} op(s) to store ${JSON.stringify(this.#name)}`;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!(await withClient(this.#db, doing, (client) => this.#transaction(client, plan, payloads, drops)))) throw this.#droppedUnder();
        return;
      } catch (e) {
        if (this.#dropped !== undefined) throw e;
        const state = ((e as { cause?: { code?: unknown } }).cause)?.code;
        if (attempt >= WRITE_ATTEMPTS || typeof state !== "string" || !RETRIED_STATES.has(state)) throw e;
      }
    }
  }

  /**
   * The batch as one statement: one round trip, and on its own (autocommit) one transaction.
   * A write used to be BEGIN, an insert, an upsert, a delete, the notifications and COMMIT, six
   * round trips; on a loaded machine each woke the server and waited for its turn on a core.
   * A key created and deleted in the same batch needs the delete after the insert, which one
   * statement's single snapshot cannot order: only then is the write a transaction of two.
   * `false` (nothing written) when the store was dropped since the handle read `drops`.
   */
  async #transaction(client: PgPoolClient, plan: ReturnType<typeof planBatch>, payloads: string[], drops: string | null): Promise<boolean> {
    const created = new Set(plan.creates.map((r) => r.key));
    const createdThenDeleted = plan.deletes.filter((r) => created.has(r.key));
    const deletes = createdThenDeleted.length === 0 ? plan.deletes : plan.deletes.filter((r) => !created.has(r.key));
    const values = [
      this.#name, plan.creates.map((r) => r.bytes), plan.creates.map((r) => r.value), plan.puts.map((r) => r.bytes),
      plan.puts.map((r) => r.value), deletes.map((r) => r.bytes), FEED_CHANNEL, payloads, DROPS_PREFIX + this.#name, drops,
    ];
    try {
      if (createdThenDeleted.length === 0) return (await client.query(WRITE_SQL, values)).rows[0]?.live === true;
      await client.query("BEGIN");
      try {
        if ((await client.query(WRITE_SQL, values)).rows[0]?.live !== true) {
          await client.query("ROLLBACK");
          return false;
        }
        await client.query("DELETE FROM recallkit_records WHERE store = $1 AND key = ANY($2::bytea[])", [this.#name, createdThenDeleted.map((r) => r.bytes)]);
        await client.query("COMMIT");
        return true;
      } catch (e) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw e;
      }
    } catch (e) {
      throw this.#taken(e, plan.creates) ?? this.#tooLong(e, plan) ?? e;
    }
  }

  /**
   * A key too long for the table's index (SQLSTATE 54000, "index row size … exceeds btree …
   * maximum") as `too_large` naming the batch's longest stored key and the limit, else undefined.
   */
  #tooLong(e: unknown, plan: ReturnType<typeof planBatch>): RecallError | undefined {
    if (sqlState(e) !== "54000" || !/index row size/i.test((e as Error).message)) return undefined;
    let longest: Row | undefined;
    for (const row of [...plan.creates, ...plan.puts]) if (longest === undefined || row.bytes.length > longest.bytes.length) longest = row;
    if (longest === undefined) return undefined;
    const chars = [...longest.key];
    const shown = `${JSON.stringify(chars.slice(0, 40).join(""))}${chars.length > 40 ? "…" : ""}`;
    return new RecallError("too_large",
      `postgres: the key ${shown} is ${longest.bytes.length} bytes of UTF-8, and PostgreSQL indexes rows of at most ${MAX_INDEX_ROW_BYTES} bytes, ` +
      `the store's name (${Buffer.byteLength(this.#name)} bytes) and the key together (${(e as Error).message}, SQLSTATE 54000); nothing of the batch was stored`,
      { cause: e });
  }

  /** A create that met a key another handle holds (a unique violation) as `already_exists` naming the key, else undefined. */
  #taken(e: unknown, creates: readonly Row[]): RecallError | undefined {
    const { code, detail } = (e ?? {}) as { code?: unknown; detail?: unknown };
    if (code !== "23505") return undefined;
    const hex = typeof detail === "string" ? /\\x([0-9a-f]*)\)/.exec(detail)?.[1] : undefined;
    const taken = creates.find((r) => r.bytes.toString("hex") === hex);
    return new RecallError("already_exists",
      `${JSON.stringify(taken?.key)} already exists in store ${JSON.stringify(this.#name)} (written by another handle since this one read it); nothing of the batch was stored`, { cause: e });
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
