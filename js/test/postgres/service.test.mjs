// Two processes of the service example (examples/service/server.mjs) on loopback over one
// throwaway PostgreSQL cluster: writes through one are read through the other (opened from the
// database, and reaching an engine the other already holds through the change feed); then one
// is killed with SIGKILL while its transaction of a 10,000-memory batch is open, with small
// writes in flight beside it. Every write it acknowledged is read through the survivor, the
// batch is all there or not at all, and the survivor keeps serving. Skipped, with a message,
// where PostgreSQL is not installed.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { pgMissing, startCluster } from "../support/postgres.mjs";
import { eventually } from "../support/wait.mjs";

const missing = pgMissing();
if (missing !== undefined) console.log(`# skipping the service tests: ${missing}`);
const skip = missing ?? false;
const SERVER = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "examples", "service", "server.mjs");
const BATCH = 10_000;

let cluster;
const servers = [];
before(async () => {
  if (skip) return;
  cluster = await startCluster("service");
});
after(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
  await cluster?.stop();
});

/** Starts a service process whose connections carry application_name `name`. */
async function startServer(name) {
  const uri = `${cluster.uriFor()}?application_name=${name}`;
  const child = spawn(process.execPath, [SERVER, "--database", uri, "--port", "0", "--max-users", "50"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += d; });
  const line = await new Promise((resolve, reject) => {
    child.stdout.once("data", (d) => resolve(String(d).split("\n")[0]));
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}: ${stderr}`)));
  });
  const server = { name, child, base: JSON.parse(line).listening, stderr: () => stderr };
  servers.push(server);
  return server;
}

async function call(server, method, path, body) {
  const res = await fetch(server.base + path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

async function remember(server, userId, memories) {
  const res = await call(server, "POST", "/memories", { userId, memories });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.ids;
}

describe("two service processes over one database", { skip, timeout: 180_000 }, () => {
  let a;
  let b;
  before(async () => {
    if (skip) return;
    [a, b] = await Promise.all([startServer("service-a"), startServer("service-b")]);
  });

  test("writes through one process are read through the other, also by an engine it already holds", async () => {
    await remember(a, "ana", [{ id: "tea", text: "Ana prefers green tea in the morning" }]);
    const read = await call(b, "GET", "/memories/tea?userId=ana");
    assert.equal(read.status, 200);
    assert.equal(read.body.text, "Ana prefers green tea in the morning");
    // b now holds ana's engine; a's next write reaches it through the change feed.
    await remember(a, "ana", [{ id: "cat", text: "Ana has a cat named Miso" }]);
    await eventually(async () => (await call(b, "GET", "/recall?userId=ana&q=cat%20name&trackRecalls=false")).body.results[0]?.id === "cat",
      5000, "b's engine of ana sees a's write");
    // And the other way round, with the recall options passed through.
    await remember(b, "ana", [{ id: "bike", text: "Ana cycles to work every day" }]);
    await eventually(async () => (await call(a, "GET", "/recall?userId=ana&q=cycling&limit=1&trackRecalls=false")).body.results?.[0]?.id === "bike",
      5000, "a's engine of ana sees b's write");
    const bad = await call(a, "GET", "/recall?userId=ana&q=x&limit=0");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "invalid_argument");
    const dup = await call(b, "POST", "/memories", { userId: "ana", id: "tea", text: "again" });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.code, "already_exists");
  });

  test("a memory id in the path that is not percent-encoded UTF-8 is 400 invalid_argument, not 500", async () => {
    const bad = await call(a, "GET", "/memories/%E0?userId=ana");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "invalid_argument");
    assert.match(bad.body.error.message, /"%E0" is not percent-encoded UTF-8/);
    assert.equal((await call(a, "GET", "/memories/%74%65%61?userId=ana")).body.text, "Ana prefers green tea in the morning");
  });

  test("kill -9 of one process in the middle of a batch: nothing acknowledged is lost, the batch is all or nothing, the survivor serves", async (t) => {
    const acked = [];
    // Acknowledged before the crash, to several users.
    for (let i = 0; i < 40; i++) {
      const userId = `user-${i % 4}`;
      const [id] = await remember(a, userId, [{ id: `before-${i}`, text: `note ${i} about the garden and the bees` }]);
      acked.push([userId, id]);
    }
    // b caches one of them now, so the batch's fate must also reach an engine it holds.
    assert.equal((await call(b, "GET", "/recall?userId=crash&q=anything")).status, 200);
    const monitor = new pg.Client(cluster.config);
    await monitor.connect();
    let stopSteady = false;
    const inFlight = new Map();
    const steadyWriters = (round) => Array.from({ length: 3 }, async (_, w) => {
      for (let i = 0; !stopSteady; i++) {
        const id = `steady-${round}-${w}-${i}`;
        inFlight.set(id, true);
        const res = await call(a, "POST", "/memories", { userId: "steady", memories: [{ id, text: `steady write ${w} ${i}` }] }).catch(() => undefined);
        inFlight.delete(id);
        if (res?.status === 201) acked.push(["steady", id]);
        else break;
      }
    });
    let steady = steadyWriters(0);
    await eventually(() => acked.length >= 40 + 15, 10_000, "the small writers are under way");
    // The batch's insert is held at a table lock while a is killed, so the kill always lands in
    // its middle (waiting for a moment when the insert happens to be running lost that race on
    // a loaded machine). The small writers pause while the batch is sent, so that the one
    // insert waiting at the lock is the batch's, then write again beside it.
    stopSteady = true;
    await Promise.all(steady);
    stopSteady = false;
    const blocker = new pg.Client(cluster.config);
    await blocker.connect();
    await blocker.query("BEGIN");
    await blocker.query("LOCK TABLE recallkit_records IN SHARE MODE");
    const batch = Array.from({ length: BATCH }, (_, i) => ({ id: `batch-${i}`, text: `batch memory ${i}: the orchard, the river and the old mill` }));
    const pending = call(a, "POST", "/memories", { userId: "crash", memories: batch }).catch((e) => e);
    // What a said, should it answer before its insert is seen waiting (a failure then names it).
    let answered;
    pending.then((r) => { answered = r instanceof Error ? r.message : `HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`; });
    // Kill a while the server runs the batch's insert (each write is one statement,
    // `WITH live AS (…), created AS (INSERT …`), here waiting for the lock, with small writes in flight.
    let seen = false;
    try {
      await eventually(async () => {
        if (answered !== undefined) throw new Error(`a answered the batch before its insert was seen: ${answered}`);
        const { rows } = await monitor.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'service-a' AND state = 'active' " +
          "AND query LIKE 'WITH live AS (%created AS (INSERT INTO recallkit_records%'");
        seen = rows[0].n > 0;
        return seen;
      }, 60_000, "a's batch insert is running").catch(async (e) => {
        // Name what a's connections were doing instead (a write of its own queued in front of
        // the batch and waiting at the lock would show here).
        const { rows } = await monitor.query(
          "SELECT state, wait_event_type, left(query, 100) AS query FROM pg_stat_activity WHERE application_name = 'service-a'");
        const exit = a.child.exitCode ?? a.child.signalCode;
        throw new Error(`${e.message}; a's connections: ${JSON.stringify(rows)}` +
          (exit === null ? "" : `; a exited (${exit}), its stderr: ${a.stderr().slice(-2000)}`));
      });
      steady = steadyWriters(1);
      await eventually(() => inFlight.size > 0, 10_000, "small writes are in flight");
    } finally {
      a.child.kill("SIGKILL");
      stopSteady = true;
      await blocker.query("ROLLBACK");
      await blocker.end();
    }
    assert.ok(seen);
    const answer = await pending;
    assert.ok(answer instanceof Error || answer.status !== 201, "the batch was never acknowledged");
    await Promise.all(steady);
    if (a.child.exitCode === null && a.child.signalCode === null) await new Promise((r) => a.child.once("exit", r));
    // Give PostgreSQL the moment it needs to notice the dead connections and roll back.
    await eventually(async () => (await monitor.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'service-a'")).rows[0].n === 0,
      10_000, "a's connections are gone");
    const { rows } = await monitor.query(
      "SELECT count(*)::int AS n FROM recallkit_records WHERE store = 'crash' AND convert_from(key, 'UTF8') LIKE 'm/batch-%'");
    await monitor.end();
    const stored = rows[0].n;
    assert.ok(stored === 0 || stored === BATCH, `the batch is all or nothing, found ${stored} of ${BATCH}`);
    t.diagnostic(`the killed batch: ${stored} of ${BATCH} stored; ${acked.length} acknowledged writes checked`);
    // Every acknowledged write is there, read through the survivor.
    for (const [userId, id] of acked) {
      const read = await call(b, "GET", `/memories/${id}?userId=${userId}`);
      assert.equal(read.status, 200, `${userId}/${id} acknowledged by a, read through b`);
    }
    // b's engine of "crash" agrees with the database.
    await eventually(async () => (await call(b, "GET", "/memories/batch-0?userId=crash")).status === (stored === BATCH ? 200 : 404),
      5000, "b agrees with the database about the batch");
    // The survivor keeps serving: writes and recalls, new users included.
    await remember(b, "crash", [{ id: "after", text: "written after the crash through the survivor" }]);
    assert.equal((await call(b, "GET", "/recall?userId=crash&q=survivor")).body.results[0]?.id, "after");
    await remember(b, "newcomer", [{ text: "a user first seen after the crash" }]);
    assert.equal((await call(b, "GET", "/health")).status, 200);
  });

  test("the cache keeps at most --max-users stores, evicting the least recently used, which reopen from the database", async () => {
    const before = (await call(b, "GET", "/stats")).body;
    for (let i = 0; i < 60; i++) await remember(b, `lru-${i}`, [{ id: "only", text: `memory of user ${i}` }]);
    const after = (await call(b, "GET", "/stats")).body;
    assert.ok(after.cachedUsers <= 50, `${after.cachedUsers} stores cached`);
    assert.ok(after.evictions - before.evictions >= 10, `${after.evictions - before.evictions} evictions`);
    // lru-0 was evicted first: it opens again, from PostgreSQL, with its memory.
    const read = await call(b, "GET", "/memories/only?userId=lru-0");
    assert.equal(read.status, 200);
    assert.equal(read.body.text, "memory of user 0");
    assert.equal((await call(b, "GET", "/stats")).body.opens, after.opens + 1);
    // The most recent user was not evicted: no open.
    await call(b, "GET", "/memories/only?userId=lru-59");
    assert.equal((await call(b, "GET", "/stats")).body.opens, after.opens + 1);
  });

  test("a process whose change feed was cut drops its cache and answers from the database again", async () => {
    await remember(b, "feed-cut", [{ id: "one", text: "the first memory of the feed test" }]);
    const before = (await call(b, "GET", "/stats")).body;
    const monitor = new pg.Client(cluster.config);
    await monitor.connect();
    try {
      await monitor.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'service-b' AND query = 'LISTEN recallkit'");
      // Written by another process while b is deaf: only the database has it.
      const { PostgresDatabase } = await import("../../dist/postgres.js");
      const { MemoryStore } = await import("../../dist/index.js");
      const db = await PostgresDatabase.connect({ config: cluster.config, listen: false });
      const store = await MemoryStore.open({ name: "feed-cut", storage: db.adapter("feed-cut"), snapshots: false });
      await store.remember({ id: "two", text: "written while the feed was down" });
      await store.close();
      await db.close();
      await eventually(async () => (await call(b, "GET", "/stats")).body.feedReconnects > before.feedReconnects, 10_000, "b's feed reconnected");
      const after = (await call(b, "GET", "/stats")).body;
      assert.ok(after.stale > before.stale, "b's cached stores were reported stale");
      assert.equal((await call(b, "GET", "/memories/two?userId=feed-cut")).status, 200, "b reopened the store from the database");
    } finally {
      await monitor.end();
    }
  });
});
