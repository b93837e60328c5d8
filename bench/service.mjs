#!/usr/bin/env node
// `npm run bench:service`: a bounded load test of the service example (examples/service/) over a
// throwaway PostgreSQL cluster (js/test/support/postgres.mjs; unix socket, loopback HTTP only).
//
//   node bench/service.mjs [--users 1000] [--memories 200] [--batch 10] [--clients 32]
//        [--max-users-cached 1000] [--max-seconds 600] [--seed 7]
//
// 1. Two service processes. `--clients` concurrent clients send, through a random one of the
//    two (a load balancer without affinity, so every user's engine lives in both and each write
//    crosses the change feed), every user's memories as POSTs of `--batch` memories, and after
//    each a recall of that user (recall tracking on, the default: a recall writes too), the
//    users interleaved. Reported: throughput, latency p50 / p95 / p99 per kind, errors, the
//    answers checked (a recall of a word only one of the user's memories holds finds it).
//    Stops after `--max-seconds` and says so.
// 2. Cold load: this process opens 50 full users' stores from PostgreSQL, one at a time, as the
//    service does on a cache miss (MemoryStore over a PostgresAdapter, no snapshot).
// 3. Memory per cached user: the same process's growth (RSS, the wasm linear memory, the JS
//    heap) while it keeps 200 full stores open, and the services' own figures.
// 4. Change-feed delay: 300 one-record writes through one connection, heard on another.
// Not part of `npm test`: it runs for minutes and loads both cores.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MemoryStore } from "../js/dist/index.js";
import { PostgresDatabase } from "../js/dist/postgres.js";
import { wasmHeapBytes } from "../js/dist/wasm.js";
import { startCluster } from "../js/test/support/postgres.mjs";
import { createRng } from "./corpus.mjs";
import { ADJECTIVES, NOUNS, PLACES } from "./words.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    users: { type: "string", default: "1000" },
    memories: { type: "string", default: "200" },
    batch: { type: "string", default: "10" },
    clients: { type: "string", default: "32" },
    "max-users-cached": { type: "string", default: "1000" },
    "max-seconds": { type: "string", default: "600" },
    seed: { type: "string", default: "7" },
  },
});
const USERS = Number(values.users);
const MEMORIES = Number(values.memories);
const BATCH = Number(values.batch);
const CLIENTS = Number(values.clients);
const MAX_MS = Number(values["max-seconds"]) * 1000;
const words = (x) => (Array.isArray(x) ? x : String(x).trim().split(/\s+/)).map((w) => w.split(":")[0]);
const VOCABULARY = [...words(NOUNS), ...words(ADJECTIVES), ...words(PLACES)];
const rng = createRng(Number(values.seed));

/** A memory text: eight vocabulary words and a marker word unique to (user, memory). */
function memoryText(user, i) {
  const parts = Array.from({ length: 8 }, () => rng.pick(VOCABULARY));
  return `${parts.join(" ")} marker${user}x${i}`;
}

/** A recall checks only memories acknowledged at least this long ago. */
const SETTLED_MS = 1000;

const quantile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]);
const ms = (x) => `${x.toFixed(1)} ms`;
function summary(latencies) {
  const s = [...latencies].sort((a, b) => a - b);
  return { n: s.length, p50: quantile(s, 0.5), p95: quantile(s, 0.95), p99: quantile(s, 0.99), max: s.at(-1) ?? NaN };
}
const line = (label, s) => `${label.padEnd(22)} n=${String(s.n).padStart(6)}  p50 ${ms(s.p50)}  p95 ${ms(s.p95)}  p99 ${ms(s.p99)}  max ${ms(s.max)}`;

async function startServer(cluster, name) {
  const child = spawn(process.execPath, [join(root, "examples", "service", "server.mjs"), "--database", `${cluster.uriFor()}?application_name=${name}`,
    "--port", "0", "--max-users", values["max-users-cached"], "--max-memory-mb", "4096"], { stdio: ["ignore", "pipe", "inherit"] });
  const first = await new Promise((resolve, reject) => {
    child.stdout.once("data", (d) => resolve(String(d).split("\n")[0]));
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  return { child, base: JSON.parse(first).listening };
}

async function load(servers) {
  // The work: per round, every user (in a shuffled order) gets one batch and one recall.
  const rounds = Math.ceil(MEMORIES / BATCH);
  const ops = [];
  for (let r = 0; r < rounds; r++) {
    for (const u of rng.shuffle(Array.from({ length: USERS }, (_, i) => i))) {
      ops.push({ kind: "write", user: u, from: r * BATCH, to: Math.min(MEMORIES, (r + 1) * BATCH) });
      ops.push({ kind: "recall", user: u, round: r });
    }
  }
  const latency = { write: [], recall: [] };
  let errors = 0;
  let firstError;
  let checked = 0;
  let found = 0;
  const misses = [];
  const acked = Array.from({ length: USERS }, () => []);
  let next = 0;
  const started = performance.now();
  const deadline = started + MAX_MS;
  const client = async () => {
    while (next < ops.length && performance.now() < deadline) {
      const op = ops[next++];
      const server = servers[rng.int(servers.length)];
      const t0 = performance.now();
      let res;
      try {
        if (op.kind === "write") {
          const memories = [];
          for (let i = op.from; i < op.to; i++) memories.push({ id: `m${i}`, text: memoryText(op.user, i) });
          res = await fetch(`${server.base}/memories`, { method: "POST", body: JSON.stringify({ userId: `user-${op.user}`, memories }) });
          await res.arrayBuffer();
          if (res.ok) acked[op.user].push({ from: op.from, to: op.to, at: performance.now() });
        } else {
          // A memory whose write was acknowledged over SETTLED_MS ago (the other process applies
          // it through the change feed, behind its own queue of that user's writes); when there
          // is none yet, a plain word, not checked.
          const settled = acked[op.user].filter((a) => performance.now() - a.at > SETTLED_MS);
          const batch = settled.length === 0 ? undefined : rng.pick(settled);
          const i = batch === undefined ? -1 : batch.from + rng.int(batch.to - batch.from);
          const q = i < 0 ? rng.pick(VOCABULARY) : `marker${op.user}x${i}`;
          res = await fetch(`${server.base}/recall?userId=user-${op.user}&q=${q}&limit=5`);
          const body = await res.json();
          if (res.ok && i >= 0) {
            checked++;
            if (body.results.some((hit) => hit.id === `m${i}`)) found++;
            else if (misses.length < 5) misses.push(`${server.base} user-${op.user} ${q}: ${body.results.map((h) => `${h.id} ${h.score.toFixed(3)}`).join(", ")}`);
          }
        }
      } catch (e) {
        res = { ok: false, status: String(e) };
      }
      if (res.ok) latency[op.kind].push(performance.now() - t0);
      else {
        errors++;
        firstError ??= `${op.kind} user-${op.user}: ${res.status}`;
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const seconds = (performance.now() - started) / 1000;
  return { seconds, done: latency.write.length + latency.recall.length + errors, total: ops.length, latency, errors, firstError, checked, found, misses };
}

async function coldLoads(db, users) {
  const times = [];
  let memories = 0;
  for (const u of users) {
    const t0 = performance.now();
    const store = await MemoryStore.open({ name: `user-${u}`, storage: db.adapter(`user-${u}`), snapshots: false });
    times.push(performance.now() - t0);
    if (store.size === 0) throw new Error(`user-${u} opened empty`);
    memories += store.size;
    await store.close();
  }
  return { ...summary(times), memories: memories / users.length };
}

async function memoryPerUser(db, users) {
  globalThis.gc?.();
  const before = process.memoryUsage();
  const wasmBefore = wasmHeapBytes() ?? 0;
  const stores = [];
  let memories = 0;
  for (const u of users) {
    const store = await MemoryStore.open({ name: `user-${u}`, storage: db.adapter(`user-${u}`), snapshots: false });
    memories += store.size;
    stores.push(store);
  }
  globalThis.gc?.();
  const after = process.memoryUsage();
  const wasmAfter = wasmHeapBytes() ?? 0;
  for (const s of stores) await s.close();
  return {
    users: stores.length, memoriesPerUser: memories / stores.length,
    rssPerUser: (after.rss - before.rss) / stores.length, wasmPerUser: (wasmAfter - wasmBefore) / stores.length,
    heapPerUser: (after.heapUsed - before.heapUsed) / stores.length,
  };
}

async function feedDelay(cluster) {
  const a = await PostgresDatabase.connect({ config: cluster.config });
  const b = await PostgresDatabase.connect({ config: cluster.config });
  const writer = a.adapter("feed-delay");
  let heard;
  b.adapter("feed-delay").subscribe(() => heard?.(performance.now()));
  const afterResolve = [];
  const afterCall = [];
  for (let i = 0; i < 300; i++) {
    const wait = new Promise((resolve) => { heard = resolve; });
    const t0 = performance.now();
    await writer.write([{ op: "put", key: `k/${i}`, value: new Uint8Array(100) }]);
    const t1 = performance.now();
    const t2 = await wait;
    afterResolve.push(Math.max(0, t2 - t1));
    afterCall.push(t2 - t0);
  }
  await a.close();
  await b.close();
  return { afterResolve: summary(afterResolve), afterCall: summary(afterCall) };
}

const cluster = await startCluster("bench", { settings: ["shared_buffers=256MB", "max_wal_size=2GB"] });
const servers = [];
try {
  servers.push(await startServer(cluster, "bench-a"), await startServer(cluster, "bench-b"));
  console.log(`service bench: ${USERS} users x ${MEMORIES} memories, batches of ${BATCH}, ${CLIENTS} clients, 2 processes, stop after ${MAX_MS / 1000} s`);
  const run = await load(servers);
  const stats = await Promise.all(servers.map(async (s) => (await fetch(`${s.base}/stats`)).json()));
  const writes = summary(run.latency.write);
  const recalls = summary(run.latency.recall);
  const memoriesWritten = writes.n * BATCH;
  console.log(`load: ${run.done} of ${run.total} requests in ${run.seconds.toFixed(1)} s${run.done < run.total ? " (stopped at the time bound)" : ""}: ` +
    `${(run.done / run.seconds).toFixed(0)} requests/s, ${(memoriesWritten / run.seconds).toFixed(0)} memories written/s, ${run.errors} errors${run.firstError ? ` (first: ${run.firstError})` : ""}`);
  console.log(line(`write (${BATCH} memories)`, writes));
  console.log(line("recall", recalls));
  console.log(`recall answers: ${run.found} of ${run.checked} found a memory acknowledged ${SETTLED_MS} ms before (by its marker word) in the top 5`);
  for (const miss of run.misses) console.log(`  missed: ${miss}`);
  for (const [i, s] of stats.entries()) {
    console.log(`process ${i}: ${s.cachedUsers} users cached, ${s.opens} opens (p50 ${ms(s.openMs.p50)}, p95 ${ms(s.openMs.p95)}), ${s.evictions} evictions, rss ${(s.rss / 2 ** 20).toFixed(0)} MiB, ArrayBuffers ${(s.arrayBuffers / 2 ** 20).toFixed(0)} MiB`);
  }
  // Every process's engine of every user holds every memory written (through either process).
  await new Promise((r) => setTimeout(r, 500));
  let diverged = 0;
  for (let u = 0; u < USERS; u++) {
    const counts = await Promise.all(servers.map(async (s) => (await (await fetch(`${s.base}/memories?userId=user-${u}`)).json()).ids.length));
    if (counts[0] !== counts[1] || (run.done === run.total && counts[0] !== MEMORIES)) {
      if (diverged++ < 5) console.log(`  user-${u}: the processes' engines hold ${counts.join(" and ")} memories`);
    }
  }
  console.log(`engines: ${USERS - diverged} of ${USERS} users alike in both processes${run.done === run.total ? ` and complete (${MEMORIES} memories)` : ""}`);
  for (const s of servers) s.child.kill("SIGTERM");
  const db = await PostgresDatabase.connect({ config: cluster.config, listen: false });
  // Users that received all their memories (the load may have stopped at its time bound).
  const full = Array.from({ length: USERS }, (_, u) => u).slice(0, 200);
  await coldLoads(db, full.slice(190, 200)); // warms this process's wasm (its first calls run in the baseline tier)
  const cold = await coldLoads(db, full.slice(0, 50));
  console.log(line(`cold load (${cold.memories.toFixed(0)} mem.)`, cold));
  const memory = await memoryPerUser(db, full);
  console.log(`memory per cached user (${memory.users} users of ${memory.memoriesPerUser.toFixed(0)} memories): rss ${(memory.rssPerUser / 1024).toFixed(0)} KiB, ` +
    `wasm memory ${(memory.wasmPerUser / 1024).toFixed(0)} KiB, JS heap ${(memory.heapPerUser / 1024).toFixed(0)} KiB`);
  await db.close();
  const feed = await feedDelay(cluster);
  console.log(line("feed, after resolve", feed.afterResolve));
  console.log(line("feed, after call", feed.afterCall));
  if (run.errors > 0 || run.found < run.checked || diverged > 0) {
    console.error("service bench: errors, or recalls that missed their marker");
    process.exitCode = 1;
  }
} finally {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
  await cluster.stop();
}
