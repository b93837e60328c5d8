/**
 * The PostgreSQL schema of `recallkit/postgres`, versioned: {@link POSTGRES_SCHEMA_VERSION}, the
 * SQL of each version as a named migration, and {@link POSTGRES_SCHEMA_SQL}, the whole current
 * schema for hosts that run their migrations themselves (then open with `createSchema: false`).
 *
 * - `recallkit_meta (name, value)`: `schema_version` is the version the tables are at;
 *   `drops:<store>` ({@link DROPS_PREFIX}) how many times `dropStore` dropped that store (absent:
 *   never), which every write checks against the count its handle read first, so a handle
 *   opened before a drop cannot store part of the dropped store again (`postgres.ts`).
 * - `recallkit_records (store, key, value)`: every record of every store, keyed by the store's
 *   name and the record's key. The key is the UTF-8 bytes of the key string (`bytea`, so any
 *   key string fits the column, NUL included, and byte order is code point order; the adapter
 *   sorts by UTF-16 code units itself, the contract's order); the value is `bytea`.
 *
 * Key length: the primary key's btree index takes rows of at most {@link MAX_INDEX_ROW_BYTES}
 * bytes, the store's name and the key together (after PostgreSQL's compression, so a repetitive
 * key may be longer). A key of more than about 2,670 bytes, less the store name's length, may
 * not fit, where the other adapters take it: an edge's key (`g/from|relation|to`) joins three
 * names of up to 1024 bytes each. Such a write fails with `too_large` naming the key's length,
 * and nothing of its batch is stored. Making every key fit (indexing a hash of long keys) would
 * change the table, its migration and every query over it: left for when keys this long are
 * needed.
 *
 * The change feed needs no table: it is the `recallkit` NOTIFY channel (`postgres-feed.ts`).
 * @module
 */

/** The schema version this release creates and reads; a database at a higher one fails with `corrupt`. */
export const POSTGRES_SCHEMA_VERSION = 1;

/** Names of the `recallkit_meta` rows counting each store's drops: `drops:<store>` (see the module doc). */
export const DROPS_PREFIX = "drops:";

/** The NOTIFY channel the change feed uses (`postgres-feed.ts`). */
export const FEED_CHANNEL = "recallkit";

/**
 * Longest row the records table's btree index takes, in bytes: PostgreSQL's `BTMaxItemSize`
 * for 8 KiB pages and btree version 4 (a third of a page, less headers), the limit its
 * "index row size … exceeds btree version 4 maximum 2704" error names.
 */
export const MAX_INDEX_ROW_BYTES = 2704;

/** Key of an advisory lock held while the schema is checked or migrated, so concurrent opens do not race. */
export const SCHEMA_LOCK_KEY = 0x7265_6b31; // "rek1"

/** Version 1: the meta table and the records table (see the module doc). */
export const SCHEMA_V1_SQL = `CREATE TABLE IF NOT EXISTS recallkit_meta (
  name text PRIMARY KEY,
  value text NOT NULL
);
CREATE TABLE IF NOT EXISTS recallkit_records (
  store text COLLATE "C" NOT NULL,
  key bytea NOT NULL,
  value bytea NOT NULL,
  PRIMARY KEY (store, key)
);
INSERT INTO recallkit_meta (name, value) VALUES ('schema_version', '1')
  ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value;
`;

/**
 * The migrations, in order: entry `n - 1` takes an empty database or one at version `n - 1`
 * to version `n`. Each is one SQL text, run in the open's transaction.
 */
export const SCHEMA_MIGRATIONS: readonly string[] = [SCHEMA_V1_SQL];

/** The whole current schema as SQL (every migration in order), for hosts that migrate themselves. */
export const POSTGRES_SCHEMA_SQL: string = SCHEMA_MIGRATIONS.join("");
