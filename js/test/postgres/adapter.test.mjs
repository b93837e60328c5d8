// PostgresAdapter on a real PostgreSQL server (a throwaway cluster, support/postgres.mjs): the
// StorageAdapter acceptance suite, the schema and its version, errors carrying the server's
// message with nothing half-written, creates racing across handles, and the change feed into
// MemoryStore engines (two databases = two processes' worth of connections). Skipped, with a
// message, where PostgreSQL is not installed.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { runAdapterSuite } from "../storage/acceptance.mjs";
import { MemoryStore } from "../../dist/index.js";
import { PostgresAdapter, PostgresDatabase, POSTGRES_SCHEMA_SQL, POSTGRES_SCHEMA_VERSION } from "../../dist/postgres.js";
import { feedPayloads, MAX_PAYLOAD_BYTES } from "../../dist/storage/postgres-feed.js";
import { rejectsWith } from "../support/errors.mjs";
import { pgMissing, startCluster } from "../support/postgres.mjs";
import pgModule from "pg";
import { eventually } from "../support/wait.mjs";
import { rng } from "../support/rng.mjs";

const missing = pgMissing();
if (missing !== undefined) console.log(`# skipping the PostgreSQL tests: ${missing}`);
const skip = missing ?? false;
const bytes = (s) => new TextEncoder().encode(s);
const text = (b) => new TextDecoder().decode(b);

let pg;
let db;
before(async () => {
  if (skip) return;
  pg = await startCluster("adapter");
  db = await PostgresDatabase.connect({ config: pg.config });
});
after(async () => {
  await db?.close();
  await pg?.stop();
});

describe("PostgresAdapter on a real server", { skip }, () => {
  runAdapterSuite("postgres", async (name) => db.adapter(name), { reopen: true, test, assert });
});

describe("PostgresAdapter.open owns its connection", { skip }, () => {
  runAdapterSuite("postgres-own", (name) => PostgresAdapter.open({ config: pg.config, name }), { reopen: true, test, assert });
});

describe("the postgres schema", { skip }, () => {
  test("the adapter creates version 1 of the schema, and the exported SQL is that schema", async () => {
    assert.equal(pg.psql("SELECT value FROM recallkit_meta WHERE name = 'schema_version'").trim(), String(POSTGRES_SCHEMA_VERSION));
    const config = await pg.createDatabase("by_hand");
    pg.psql(POSTGRES_SCHEMA_SQL, "by_hand");
    const a = await PostgresAdapter.open({ config, name: "s", createSchema: false });
    await a.write([{ op: "put", key: "k", value: bytes("v") }]);
    assert.equal(text(await a.get("k")), "v");
    await a.close();
    assert.equal(pg.psql("SELECT store || ':' || convert_from(key, 'UTF8') || '=' || convert_from(value, 'UTF8') FROM recallkit_records", "by_hand").trim(), "s:k=v");
  });

  test("createSchema: false refuses a database without the tables; a newer schema is corrupt", async () => {
    const config = await pg.createDatabase("empty_one");
    await rejectsWith(() => PostgresDatabase.connect({ config, createSchema: false }), "storage_failed", /schema version 0, not 1/);
    const newer = await pg.createDatabase("newer_one");
    pg.psql(`${POSTGRES_SCHEMA_SQL} UPDATE recallkit_meta SET value = '2' WHERE name = 'schema_version';`, "newer_one");
    await rejectsWith(() => PostgresDatabase.connect({ config: newer }), "corrupt", /schema version 2/);
  });

  test("processes connecting at once migrate once", async () => {
    const config = await pg.createDatabase("racing");
    const dbs = await Promise.all(Array.from({ length: 6 }, () => PostgresDatabase.connect({ config, listen: false })));
    await Promise.all(dbs.map((d) => d.close()));
    assert.equal(pg.psql("SELECT count(*) FROM recallkit_meta", "racing").trim(), "1");
  });

  test("a schema_version that is not a number is corrupt, not version 0 or NaN", async () => {
    for (const [i, value] of ["abc", "", "1.5"].entries()) {
      const config = await pg.createDatabase(`odd_version_${i}`);
      pg.psql(`${POSTGRES_SCHEMA_SQL} UPDATE recallkit_meta SET value = '${value}' WHERE name = 'schema_version';`, `odd_version_${i}`);
      await rejectsWith(() => PostgresDatabase.connect({ config, listen: false }), "corrupt", new RegExp(`schema_version is ${JSON.stringify(value).replace(".", "\\.")}, not a version number`));
    }
  });

  test("many stores in one database stay apart", async () => {
    const a = db.adapter("tenant-a");
    const b = db.adapter("tenant-b");
    await a.write([{ op: "put", key: "m/1", value: bytes("a1") }]);
    await b.write([{ op: "put", key: "m/1", value: bytes("b1") }, { op: "put", key: "m/2", value: bytes("b2") }]);
    assert.deepEqual(await a.keys(), ["m/1"]);
    assert.equal(text(await b.get("m/1")), "b1");
    assert.ok((await db.stores()).includes("tenant-a"));
    await db.dropStore("tenant-b");
    assert.deepEqual(await b.keys(), []);
    assert.deepEqual(await a.keys(), ["m/1"]);
  });

  test("a handle that ignores onStale after dropStore fails every call with closed and re-creates nothing", async () => {
    const held = await MemoryStore.open({ name: "ignored", storage: db.adapter("ignored") });
    await held.rememberMany([{ id: "x", text: "Bob likes sailing" }, { id: "y", text: "Alice likes tea" }]);
    await db.dropStore("ignored");
    // It used to store m/x, its journal and meta/seq again, without meta/config, and its
    // closing snapshot brought y back too.
    await rejectsWith(held.update("x", { text: "Bob likes rowing" }), "closed", /store "ignored" was dropped \(dropStore\)/);
    await rejectsWith(held.remember({ id: "z", text: "a new memory" }), "closed", /was dropped/);
    await rejectsWith(held.recall("sailing"), "closed", /was dropped/);
    await rejectsWith(held.status(), "closed", /was dropped/);
    await held.close();
    assert.deepEqual(await db.adapter("ignored").keys(), []);
    assert.ok(!(await db.stores()).includes("ignored"));
    const reopened = await MemoryStore.open({ name: "ignored", storage: db.adapter("ignored") });
    assert.equal(reopened.size, 0);
    await reopened.remember({ id: "fresh", text: "after the drop" });
    await reopened.close();
    const again = await MemoryStore.open({ name: "ignored", storage: db.adapter("ignored") });
    assert.deepEqual(await again.ids(), ["fresh"]);
    await again.close();
  });

  test("a write racing dropStore never leaves part of the store", async () => {
    const client = new pgModule.Client(pg.config);
    await client.connect();
    try {
      // A write in flight when the drop starts: the drop waits for it and deletes it.
      const early = db.adapter("raced-early");
      await early.write([{ op: "put", key: "meta/config", value: bytes("c") }]);
      await client.query("BEGIN");
      await client.query("INSERT INTO recallkit_records (store, key, value) VALUES ('raced-early', 'm/late', 'v')");
      const dropping = db.dropStore("raced-early");
      await new Promise((r) => setTimeout(r, 200));
      await client.query("COMMIT");
      await dropping;
      assert.deepEqual(await db.adapter("raced-early").keys(), []);
      // A write that arrives while the drop deletes waits for it, then finds the store dropped.
      const late = db.adapter("raced-late");
      await late.write([{ op: "put", key: "meta/config", value: bytes("c") }]);
      await client.query("BEGIN");
      await client.query("LOCK TABLE recallkit_records IN SHARE ROW EXCLUSIVE MODE");
      await client.query("INSERT INTO recallkit_meta (name, value) VALUES ('drops:raced-late', '1')");
      await client.query("DELETE FROM recallkit_records WHERE store = 'raced-late'");
      const writing = late.write([{ op: "put", key: "m/1", value: bytes("v") }]);
      writing.catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      await client.query("COMMIT");
      await rejectsWith(writing, "closed", /was dropped/);
      await rejectsWith(late.get("m/1"), "closed", /was dropped/);
      assert.deepEqual(await db.adapter("raced-late").keys(), []);
    } finally {
      await client.end();
    }
    // Many handles writing while the store is dropped: whatever committed before is deleted,
    // whatever comes after is refused.
    const random = rng(7);
    for (let round = 0; round < 10; round++) {
      const name = `raced-${round}`;
      const handles = Array.from({ length: 4 }, () => db.adapter(name));
      await Promise.all(handles.map((h, i) => h.write([{ op: "put", key: `meta/seq/${i}`, value: bytes("0") }])));
      const writes = handles.flatMap((h, i) => Array.from({ length: 5 }, (_, n) =>
        h.write([{ op: "put", key: `m/${i}-${n}`, value: bytes("v") }, { op: "create", key: `c/${i}-${n}`, value: bytes("v") }])));
      for (const w of writes) w.catch(() => undefined); // settled below
      await new Promise((r) => setTimeout(r, random.int(20)));
      await db.dropStore(name);
      const outcomes = await Promise.allSettled(writes);
      for (const o of outcomes) if (o.status === "rejected") assert.equal(o.reason.code, "closed", o.reason.message);
      assert.deepEqual(await db.adapter(name).keys(), [], `round ${round}`);
    }
  });

  test("dropStore reports the store stale to every process, so that they reopen its handles", async () => {
    const stale = [];
    const other = await PostgresDatabase.connect({ config: pg.config, onStale: (store, reason) => stale.push([store, reason]) });
    try {
      const held = await MemoryStore.open({ name: "dropped", storage: other.adapter("dropped"), snapshots: false });
      await held.remember({ id: "x", text: "Bob likes sailing" });
      await db.dropStore("dropped");
      await eventually(() => stale.some(([s]) => s === "dropped"), 5000, "the drop reported to the other process");
      assert.match(stale.find(([s]) => s === "dropped")[1], /the store was dropped \(dropStore\): reopen its handles/);
      await held.close();
      const reopened = await MemoryStore.open({ name: "dropped", storage: other.adapter("dropped"), snapshots: false });
      assert.equal(reopened.size, 0, "reopened, the handle sees the store empty");
      await reopened.close();
    } finally {
      await other.close();
    }
  });
});

describe("postgres errors", { skip }, () => {
  test("bad options and store names are invalid_argument", async () => {
    await rejectsWith(() => PostgresDatabase.connect({}), "invalid_argument", /exactly one of connectionString and config/);
    await rejectsWith(() => PostgresDatabase.connect({ config: pg.config, colour: 1 }), "invalid_argument", /colour/);
    await rejectsWith(() => PostgresDatabase.connect({ config: pg.config, maxConnections: 0 }), "invalid_argument", /maxConnections/);
    await rejectsWith(() => PostgresAdapter.open({ config: pg.config, name: "../x" }), "invalid_argument", /store name/);
    await rejectsWith(() => PostgresDatabase.connect({ config: pg.config, pg: {} }), "invalid_argument", /pg must be the pg module/);
    assert.throws(() => db.adapter("a b"), (e) => e.code === "invalid_argument");
  });

  test("the host may hand over its own pg module (Deno's npm:pg, a bundle)", async () => {
    const handed = { Pool: pgModule.Pool, Client: pgModule.Client };
    let pools = 0;
    handed.Pool = class extends pgModule.Pool { constructor(config) { super(config); pools++; } };
    const own = await PostgresAdapter.open({ pg: handed, config: pg.config, name: "handed" });
    await own.write([{ op: "put", key: "k", value: bytes("v") }]);
    assert.equal(text(await own.get("k")), "v");
    assert.equal(pools, 1);
    await own.close();
  });

  test("the gets of one turn of the event loop are one query, each answered with its own value", async () => {
    let queries = 0;
    const counting = { Client: pgModule.Client, Pool: class extends pgModule.Pool { query(...args) { queries++; return super.query(...args); } } };
    const a = await PostgresAdapter.open({ pg: counting, config: pg.config, name: "coalesced", listen: false });
    await a.write(Array.from({ length: 50 }, (_, i) => ({ op: "put", key: `m/${i}`, value: bytes(`v${i}`) })));
    const before = queries;
    const keys = [...Array.from({ length: 50 }, (_, i) => `m/${i}`), "m/missing", "m/7"];
    const values = await Promise.all(keys.map((k) => a.get(k)));
    assert.equal(queries - before, 1);
    assert.deepEqual(values.map((v) => (v === undefined ? undefined : text(v))), [...Array.from({ length: 50 }, (_, i) => `v${i}`), undefined, "v7"]);
    values[0][0] = 0; // each answer is its own copy
    assert.equal(text(values[51]), "v7");
    assert.equal(text(await a.get("m/0")), "v0");
    await a.close();
  });

  test("an unreachable server is storage_failed with the driver's message", async () => {
    await rejectsWith(() => PostgresDatabase.connect({ config: { ...pg.config, host: "/nonexistent-socket-dir" }, connectTimeoutMs: 2000 }),
      "storage_failed", /postgres: cannot connect: .*(ENOENT|ECONNREFUSED)/);
  });

  test("a constraint violation is storage_failed with the server's message, and nothing of the batch is stored", async () => {
    const config = await pg.createDatabase("constrained");
    const a = await PostgresAdapter.open({ config, name: "s" });
    await a.write([{ op: "put", key: "keep", value: bytes("old") }]);
    pg.psql("ALTER TABLE recallkit_records ADD CONSTRAINT small_values CHECK (length(value) < 100)", "constrained");
    await rejectsWith(() => a.write([
      { op: "put", key: "keep", value: bytes("new") }, { op: "delete", key: "keep" }, { op: "put", key: "big", value: new Uint8Array(500) },
    ]), "storage_failed", /violates check constraint "small_values".*SQLSTATE 23514/);
    assert.deepEqual(await a.keys(), ["keep"]);
    assert.equal(text(await a.get("keep")), "old");
    await a.write([{ op: "put", key: "after", value: bytes("fine") }]);
    assert.deepEqual(await a.keys(), ["after", "keep"]);
    await a.close();
  });

  test("a connection killed during a write is storage_failed, nothing is half-written, and the next write works", async () => {
    const config = await pg.createDatabase("killed");
    const a = await PostgresAdapter.open({ config, name: "s", listen: false });
    await a.write([{ op: "put", key: "keep", value: bytes("old") }]);
    // A trigger that sleeps makes the batch slow enough to kill its connection midway.
    pg.psql(`CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END $$;
      CREATE TRIGGER slow_big BEFORE INSERT ON recallkit_records FOR EACH ROW WHEN (NEW.key = '\\x736c6f77'::bytea) EXECUTE FUNCTION slow();`, "killed");
    const ops = [{ op: "put", key: "keep", value: bytes("new") }];
    for (let i = 0; i < 100; i++) ops.push({ op: "put", key: `m/${i}`, value: bytes(String(i)) });
    ops.push({ op: "put", key: "slow", value: bytes("x") });
    const pending = a.write(ops);
    await new Promise((r) => setTimeout(r, 200));
    pg.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'killed' AND pid <> pg_backend_pid()");
    await rejectsWith(pending, "storage_failed", /terminat/i);
    assert.deepEqual(await a.keys(), ["keep"]);
    assert.equal(text(await a.get("keep")), "old");
    await a.write([{ op: "put", key: "later", value: bytes("ok") }]);
    assert.deepEqual(await a.keys(), ["keep", "later"]);
    await a.close();
  });

  test("two handles creating one key at once: one succeeds, the other is already_exists with nothing stored", async () => {
    const other = await PostgresDatabase.connect({ config: pg.config, listen: false });
    try {
      for (let round = 0; round < 10; round++) {
        const a = db.adapter(`race-${round}`);
        const b = other.adapter(`race-${round}`);
        const results = await Promise.allSettled([
          a.write([{ op: "put", key: "a-side", value: bytes("a") }, { op: "create", key: "m/same", value: bytes("from a") }]),
          b.write([{ op: "put", key: "b-side", value: bytes("b") }, { op: "create", key: "m/same", value: bytes("from b") }]),
        ]);
        const won = results.filter((r) => r.status === "fulfilled");
        assert.equal(won.length, 1, `round ${round}: ${results.map((r) => r.reason?.message ?? "ok").join(" | ")}`);
        const lost = results.find((r) => r.status === "rejected");
        assert.equal(lost.reason.code, "already_exists");
        const winner = results[0].status === "fulfilled" ? "a" : "b";
        assert.deepEqual(await a.keys(), [`${winner}-side`, "m/same"]);
        assert.equal(text(await b.get("m/same")), `from ${winner}`);
      }
    } finally {
      await other.close();
    }
  });

  test("a write is one statement: a key created and deleted in one batch ends absent, and a taken key is named", async () => {
    const a = db.adapter("one-statement");
    await a.write([{ op: "create", key: "m/brief", value: bytes("1") }, { op: "put", key: "m/kept", value: bytes("2") }, { op: "delete", key: "m/brief" }]);
    assert.deepEqual(await a.keys(), ["m/kept"]);
    await a.write([{ op: "create", key: "m/taken", value: bytes("1") }]);
    await rejectsWith(() => a.write([{ op: "put", key: "m/other", value: bytes("x") }, { op: "create", key: "m/taken", value: bytes("2") }, { op: "delete", key: "m/taken" }]),
      "already_exists", /"m\/taken" already exists/);
    await rejectsWith(() => a.write([{ op: "delete", key: "m/kept" }, { op: "create", key: "m/taken", value: bytes("3") }]), "already_exists", /"m\/taken" already exists/);
    assert.deepEqual(await a.keys(), ["m/kept", "m/taken"]);
    assert.equal(text(await a.get("m/taken")), "1");
  });

  test("a connectionString pg cannot read is invalid_argument, not a raw TypeError", async () => {
    await rejectsWith(() => PostgresDatabase.connect({ connectionString: "postgres://[bad" }), "invalid_argument",
      /connectionString is not a connection URI pg can read: Invalid URL \(ERR_INVALID_URL\)/);
    await rejectsWith(() => PostgresAdapter.open({ connectionString: "postgres://u:secret@[bad/db", name: "s" }), "invalid_argument", /^(?!.*secret)/);
    // A readable URI of a server that is not there is still storage_failed.
    await rejectsWith(() => PostgresDatabase.connect({ connectionString: `postgresql://u@${encodeURIComponent("/nonexistent-socket-dir")}/db`, connectTimeoutMs: 2000 }),
      "storage_failed", /cannot connect/);
  });

  test("a relation between long entity names is too_large naming the key's length, and nothing of it is stored", async () => {
    // Each name is valid (16 words, under 1024 bytes); the edge's key joins three and passes the index's
    // row limit. Random letters, so that PostgreSQL's compression cannot shrink the key under it.
    const random = rng(54000);
    const name = () => Array.from({ length: 16 }, () => Array.from({ length: 60 }, () => String.fromCharCode(97 + random.int(26))).join("")).join(" ");
    const [from, relation, to] = [name(), name(), name()];
    const adapter = db.adapter("long-edge");
    const store = await MemoryStore.open({ name: "long-edge", storage: adapter, snapshots: false });
    try {
      await store.relate({ from: "Ana", relation: "knows", to: "Bo" });
      await rejectsWith(() => store.relate({ from, relation, to }), "too_large",
        /the key "g\/[a-z]+"… is 2\d{3} bytes of UTF-8, and PostgreSQL indexes rows of at most 2704 bytes.*index row size \d+ exceeds.*SQLSTATE 54000.*nothing of the batch was stored/);
      assert.deepEqual(await adapter.keys("g/"), ["g/ana|knows|bo"]);
      assert.deepEqual((await adapter.keys("e/")).sort(), ["e/Ana", "e/Bo"]);
      assert.deepEqual((await store.edges()).map((e) => e.id), ["ana|knows|bo"], "the engine undid the refused write");
      await store.relate({ from, relation: "knows", to: "Bo" }); // two long names and a short relation fit
      assert.equal((await adapter.keys("g/")).length, 2);
    } finally {
      await store.close();
    }
  });

  test("an errno code of a socket is not called a SQLSTATE; the server's codes are", async () => {
    const { toPostgresError } = await import("../../dist/storage/postgres-database.js");
    const epipe = Object.assign(new Error("write EPIPE"), { code: "EPIPE", errno: -32, syscall: "write" });
    assert.equal(toPostgresError(epipe, "cannot write").message, "postgres: cannot write: write EPIPE");
    const a = db.adapter("sqlstate-label");
    await a.write([{ op: "create", key: "k", value: bytes("1") }]);
    const e = await a.write([{ op: "create", key: "k", value: bytes("2") }]).catch((error) => error);
    assert.equal(e.code, "already_exists");
    assert.equal(toPostgresError(e.cause, "cannot write").message.endsWith("(SQLSTATE 23505)"), true, e.cause.message);
  });

  test("a write refused by the server keeps its connection; only a lost connection is replaced", async () => {
    let made = 0;
    const counting = { Client: pgModule.Client, Pool: class extends pgModule.Pool { constructor(c) { super(c); this.on("connect", () => { made++; }); } } };
    const config = await pg.createDatabase("kept_connection");
    const a = await PostgresAdapter.open({ pg: counting, config: { ...config, application_name: "kept-connection" }, name: "s", listen: false, maxConnections: 1 });
    try {
      await a.write([{ op: "create", key: "m/taken", value: bytes("1") }]);
      assert.equal(made, 1);
      for (let i = 0; i < 5; i++) {
        await rejectsWith(() => a.write([{ op: "put", key: `m/${i}`, value: bytes("x") }, { op: "create", key: "m/taken", value: bytes("2") }]), "already_exists");
        // The same conflict in the two-statement transaction (a create deleted in its own batch).
        await rejectsWith(() => a.write([{ op: "create", key: "m/taken", value: bytes("3") }, { op: "delete", key: "m/taken" }]), "already_exists");
      }
      await a.write([{ op: "put", key: "m/after", value: bytes("ok") }]);
      assert.deepEqual(await a.keys(), ["m/after", "m/taken"]);
      assert.equal(made, 1, "ordinary SQL errors did not cost a connection");
      // A connection the server ended is replaced.
      pg.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kept-connection'");
      await eventually(async () => (await a.write([{ op: "put", key: "m/later", value: bytes("ok") }]).then(() => true, () => false)), 5000, "a write works again");
      assert.equal(made, 2);
    } finally {
      await a.close();
    }
  });
});

describe("the change feed", { skip }, () => {
  test("payloads stay under PostgreSQL's limit and carry every key once", () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `m/${"é".repeat(i % 7)}${i}`);
    const payloads = feedPayloads("s", "o", keys);
    assert.ok(payloads.length > 1);
    for (const p of payloads) assert.ok(new TextEncoder().encode(p).length <= MAX_PAYLOAD_BYTES);
    assert.deepEqual(payloads.flatMap((p) => JSON.parse(p).k), keys);
    const long = feedPayloads("s", "o", ["short", "x".repeat(9000)]);
    assert.deepEqual(long.map((p) => JSON.parse(p)), [{ s: "s", o: "o", k: ["short"] }, { s: "s", o: "o", stale: true }]);
  });

  test("another handle hears each committed batch's keys; the writer does not hear itself; a rolled-back batch is never heard", async () => {
    const other = await PostgresDatabase.connect({ config: pg.config });
    try {
      const writer = db.adapter("feed-1");
      const reader = other.adapter("feed-1");
      const bystander = other.adapter("feed-2");
      const heard = [];
      const own = [];
      const elsewhere = [];
      reader.subscribe((keys) => heard.push(keys));
      writer.subscribe((keys) => own.push(keys));
      bystander.subscribe((keys) => elsewhere.push(keys));
      await writer.write([{ op: "put", key: "m/a", value: bytes("1") }, { op: "delete", key: "m/b" }]);
      await writer.write([{ op: "create", key: "m/c", value: bytes("1") }]);
      await rejectsWith(() => writer.write([{ op: "put", key: "m/rolled-back", value: bytes("1") }, { op: "create", key: "m/c", value: bytes("2") }]), "already_exists");
      const many = Array.from({ length: 2000 }, (_, i) => ({ op: "put", key: `m/many-${i}`, value: bytes("x") }));
      await writer.write(many);
      await eventually(() => heard.flat().length === 2003, 5000, "the reader heard every key");
      assert.deepEqual(heard.slice(0, 2), [["m/a", "m/b"], ["m/c"]]);
      assert.deepEqual(heard.slice(2).flat(), many.map((op) => op.key));
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(own, [], "a handle does not hear its own writes");
      assert.deepEqual(elsewhere, [], "nor does a handle of another store");
    } finally {
      await other.close();
    }
  });

  test("two processes remembering one id at once end with one memory and one already_exists", async () => {
    // The store used to turn each create into a read and a put for any adapter it was handed,
    // so both processes read "absent" and both writes succeeded, the later text replacing the other.
    const other = await PostgresDatabase.connect({ config: pg.config });
    const a = await MemoryStore.open({ name: "same-id", storage: db.adapter("same-id"), snapshots: false });
    const b = await MemoryStore.open({ name: "same-id", storage: other.adapter("same-id"), snapshots: false });
    try {
      for (let i = 0; i < 20; i++) {
        const results = await Promise.allSettled([a.remember({ id: `id-${i}`, text: "from a" }), b.remember({ id: `id-${i}`, text: "from b" })]);
        const lost = results.filter((r) => r.status === "rejected");
        assert.equal(lost.length, 1, `round ${i}: ${results.map((r) => r.reason?.message ?? "ok").join(" | ")}`);
        assert.equal(lost[0].reason.code, "already_exists");
        const won = results[0].status === "fulfilled" ? "from a" : "from b";
        await eventually(async () => (await a.get(`id-${i}`))?.text === won && (await b.get(`id-${i}`))?.text === won, 5000, `round ${i}: both engines hold the winner`);
      }
    } finally {
      await a.close();
      await b.close();
      await other.close();
    }
  });

  test("writes that share a batch keep the statement's checks: a key another process created, or one too long, fails that write alone", async () => {
    // This handle's database does not listen, so its engine never hears of "taken": only the
    // statement's INSERT can refuse it. Its group's batch fails whole; each write then runs alone.
    const deaf = await PostgresDatabase.connect({ config: pg.config, listen: false });
    const random = rng(54001);
    const name = () => Array.from({ length: 16 }, () => Array.from({ length: 60 }, () => String.fromCharCode(97 + random.int(26))).join("")).join(" ");
    const other = await MemoryStore.open({ name: "grouped", storage: db.adapter("grouped"), snapshots: false });
    const store = await MemoryStore.open({ name: "grouped", storage: deaf.adapter("grouped"), snapshots: false });
    try {
      await other.remember({ id: "taken", text: "from the other process" });
      const results = await Promise.allSettled([
        store.remember({ id: "x", text: "first of the group" }),
        store.remember({ id: "taken", text: "from this process" }),
        store.relate({ from: name(), relation: name(), to: name() }),
        store.remember({ id: "y", text: "last of the group" }),
      ]);
      assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "rejected", "fulfilled"]);
      assert.deepEqual([results[1].reason.code, results[2].reason.code], ["already_exists", "too_large"]);
      assert.deepEqual(await store.ids(), ["x", "y"]);
      assert.deepEqual(await store.edges(), []);
      const adapter = db.adapter("grouped");
      assert.deepEqual((await adapter.keys("m/")).sort(), ["m/taken", "m/x", "m/y"]);
      assert.deepEqual(await adapter.keys("g/"), []);
      await eventually(async () => (await other.ids()).length === 3, 5000, "the other process heard x and y");
      assert.equal((await other.get("taken")).text, "from the other process");
    } finally {
      await store.close();
      await other.close();
      await deaf.close();
    }
  });

  test("a database connected with listen: false still announces its writes to the processes that listen", async () => {
    const deaf = await PostgresDatabase.connect({ config: pg.config, listen: false });
    try {
      const heard = [];
      db.adapter("deaf-writer").subscribe((keys) => heard.push(...keys));
      await deaf.adapter("deaf-writer").write([{ op: "put", key: "m/1", value: bytes("1") }]);
      await eventually(() => heard.length === 1, 5000, "the listening process heard the deaf one's write");
      assert.deepEqual(heard, ["m/1"]);
    } finally {
      await deaf.close();
    }
  });

  test("a write through one process's store reaches another process's store engine, both ways, and deletes too", async () => {
    const other = await PostgresDatabase.connect({ config: pg.config });
    const a = await MemoryStore.open({ name: "shared", storage: db.adapter("shared") });
    const b = await MemoryStore.open({ name: "shared", storage: other.adapter("shared") });
    try {
      await a.remember({ id: "tea", text: "Ana prefers green tea in the morning" });
      await eventually(async () => (await b.get("tea")) !== undefined, 5000, "b sees a's memory");
      assert.equal((await b.recall("green tea")).results[0]?.id, "tea");
      await b.rememberMany([{ id: "bike", text: "Ana cycles to work" }, { id: "cat", text: "Ana has a cat named Miso" }]);
      await eventually(async () => a.size === 3, 5000, "a sees b's batch");
      assert.equal((await a.recall("cat's name")).results[0]?.id, "cat");
      await a.forget("bike");
      await eventually(async () => b.size === 2, 5000, "b sees a's delete");
      await rejectsWith(() => b.remember({ id: "tea", text: "again" }), "already_exists");
    } finally {
      await a.close();
      await b.close();
      await other.close();
    }
  });

  test("meta/seq keys of closed handles are deleted by a later snapshot, not kept one per handle forever", async () => {
    const name = "seq-bounded";
    const other = await PostgresDatabase.connect({ config: pg.config });
    const live = await MemoryStore.open({ name, storage: other.adapter(name), snapshotEvery: 1 });
    try {
      await live.remember({ id: "live", text: "the handle of another process that stays open" });
      for (let i = 0; i < 12; i++) {
        const store = await MemoryStore.open({ name, storage: db.adapter(name), snapshotEvery: 1 });
        await store.remember({ id: `m${i}`, text: `memory number ${i}` });
        await store.close();
      }
      const seqs = await db.adapter(name).keys("meta/seq/");
      assert.ok(seqs.length <= 2, `meta/seq keys: ${seqs.length}`);
      await live.remember({ id: "late", text: "written after the others closed" });
      // Its snapshot is queued after the write resolves: an open racing it may read the old
      // snapshot and the new journal, and then rightly opens from the records.
      for (const t0 = Date.now(); (await db.adapter(name).keys("meta/journal/")).length > 0;) {
        assert.ok(Date.now() - t0 < 10_000, "the live handle's snapshot was never written");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const again = await MemoryStore.open({ name, storage: db.adapter(name), readOnly: true });
      assert.equal((await again.storageInfo()).openedFrom, "snapshot");
      assert.equal(again.size, 14);
      await again.close();
    } finally {
      await live.close();
      await other.close();
    }
  });

  test("graph writes through one process reach the other's engine record by record, and both graphs stay equal", async () => {
    const other = await PostgresDatabase.connect({ config: pg.config });
    // b's adapter, noting every listing: a graph applied record by record lists nothing.
    const inner = other.adapter("graph-feed");
    const listed = [];
    const spy = {
      get: (k) => inner.get(k), keys: (p) => inner.keys(p), write: (ops) => inner.write(ops),
      entries: (p) => { listed.push(p); return inner.entries(p); },
      subscribe: (l) => inner.subscribe(l), checksCreates: inner.checksCreates, close: () => inner.close(),
    };
    const a = await MemoryStore.open({ name: "graph-feed", storage: db.adapter("graph-feed") });
    const b = await MemoryStore.open({ name: "graph-feed", storage: spy });
    const graph = async (s) => JSON.stringify([await s.entities(), await s.edges()]);
    try {
      listed.length = 0;
      const random = rng(7);
      const names = ["Ada", "Bob", "Cy", "Dee", "Eve"];
      for (let step = 0; step < 60; step++) {
        const [x, y] = [random.pick(names), random.pick(names)];
        const writer = random.chance(0.25) ? b : a;
        const op = random.int(6);
        try {
          if (op <= 2) await writer.relate({ from: x, relation: random.pick(["knows", "likes"]), to: y, memoryIds: [`m${step % 3}`] });
          else if (op === 3) await writer.addEntity({ name: x, aliases: [`${x} ${step % 4}`] });
          else if (op === 4) await writer.forgetEntity(x);
          else await writer.unrelate({ from: x, to: y });
        } catch (e) {
          assert.equal(e.code, "not_found", e.message); // forgetting or unrelating what is not there
        }
        const want = await graph(writer);
        const reader = writer === a ? b : a;
        await eventually(async () => (await graph(reader)) === want, 5000, `step ${step}: the other process's graph`);
      }
      assert.ok((await a.edges()).length > 0, "the run ends with edges");
      assert.deepEqual(listed, [], "b never listed the graph again");
    } finally {
      await a.close();
      await b.close();
      await other.close();
    }
  });

  test("a write of a key too long to announce reports that store stale to the other processes", async () => {
    const stale = [];
    const other = await PostgresDatabase.connect({ config: pg.config, onStale: (store, reason) => stale.push([store, reason]) });
    try {
      const heard = [];
      other.adapter("long-keys").subscribe((keys) => heard.push(...keys));
      await db.adapter("long-keys").write([{ op: "put", key: "short", value: bytes("1") }, { op: "put", key: "k".repeat(9000), value: bytes("2") }]);
      await eventually(() => stale.length === 1 && heard.length === 1, 5000, "the stale report and the short key");
      assert.deepEqual(heard, ["short"]);
      assert.equal(stale[0][0], "long-keys");
      assert.match(stale[0][1], /too long to announce/);
    } finally {
      await other.close();
    }
  });

  test("a lost listening connection is made again and reported stale", async () => {
    const stale = [];
    const other = await PostgresDatabase.connect({ config: pg.config, onStale: (store, reason) => stale.push([store, reason]) });
    try {
      const reader = other.adapter("feed-lost");
      const heard = [];
      reader.subscribe((keys) => heard.push(...keys));
      pg.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN recallkit' AND pid <> pg_backend_pid()");
      await eventually(() => other.feedReconnects >= 1, 10_000, "the feed reconnected");
      assert.equal(stale[0][0], undefined);
      assert.match(stale[0][1], /lost and made again/);
      // db's own feed was cut too; it reconnects on its own. Writes are heard again.
      await eventually(() => db.feedReconnects >= 1, 10_000, "the test's feed reconnected");
      await db.adapter("feed-lost").write([{ op: "put", key: "after", value: bytes("1") }]);
      await eventually(() => heard.includes("after"), 5000, "heard after reconnecting");
    } finally {
      await other.close();
    }
  });

  test("an onStale that throws, or rejects, neither ends the process nor stops the feed", async () => {
    for (const [kind, onStaleOf] of [
      ["throws", (calls) => (store) => { calls.push(store); throw new Error("the host's onStale failed"); }],
      ["rejects", (calls) => async (store) => { calls.push(store); throw new Error("the host's async onStale failed"); }],
    ]) {
      const calls = [];
      const other = await PostgresDatabase.connect({ config: { ...pg.config, application_name: `stale-${kind}` }, onStale: onStaleOf(calls) });
      try {
        const heard = [];
        other.adapter(`stale-${kind}`).subscribe((keys) => heard.push(...keys));
        await db.dropStore(`dropped-${kind}`);
        await db.dropStore(`dropped-${kind}-again`);
        await eventually(() => calls.length === 2, 5000, `${kind}: both drops reported`);
        assert.deepEqual(calls, [`dropped-${kind}`, `dropped-${kind}-again`]);
        // The feed's connection, lost and made again: onStale() again, and the feed still hears.
        pg.psql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'stale-${kind}'`);
        await eventually(() => other.feedReconnects === 1, 10_000, `${kind}: the feed reconnected`);
        assert.deepEqual(calls.slice(2), [undefined]);
        await db.adapter(`stale-${kind}`).write([{ op: "put", key: "after", value: bytes("1") }]);
        await eventually(() => heard.includes("after"), 5000, `${kind}: heard after the failing onStale calls`);
      } finally {
        await other.close();
      }
    }
  });
});
