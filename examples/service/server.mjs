#!/usr/bin/env node
// A multi-tenant memory service: one recallkit store per user, kept in PostgreSQL, served over
// HTTP by any number of these processes sharing one database (docs/service.md).
//
//   node examples/service/server.mjs --database postgres://user@host/db [--port 8080]
//        [--host 127.0.0.1] [--max-users 1000] [--max-memory-mb 512]
//
//   POST /memories          {"userId": "u1", "text": "…", …memory fields}
//                           or {"userId": "u1", "memories": [{…}, …]} (one atomic batch)
//                           -> 201 {"ids": […]} once durable in PostgreSQL
//   GET  /recall?userId=u1&q=…[&limit=5&ranking=rrf&minScore=0.2…]   any RecallOption; values
//                           that parse as JSON are passed parsed (numbers, booleans, arrays)
//   GET  /memories/<id>?userId=u1   -> the memory, or 404
//   GET  /memories?userId=u1        -> {"ids": […]}: the ids this process's engine of u1 holds
//   GET  /stats             this process: cached users, opens, open times, memory
//   GET  /health            -> 200 "ok"
//
// Errors are JSON {"error": {"code", "message"}} with recallkit's stable codes: 400 for
// invalid_argument, 404 not_found, 409 already_exists, 413 too_large (a body over 16 MiB, a
// value over a limit, a key too long for PostgreSQL's index), 503 storage_failed (PostgreSQL
// unreachable), 500 otherwise. The first line on stdout is
// {"listening": "http://host:port", "pid": …}, for scripts that start it with --port 0.
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { PostgresDatabase } from "recallkit/postgres";
import { StoreCache } from "./cache.mjs";

const MAX_BODY_BYTES = 16 << 20;
const STATUS = { invalid_argument: 400, dimension_mismatch: 400, not_found: 404, already_exists: 409, too_large: 413, storage_failed: 503, closed: 503 };

const { values: args } = parseArgs({
  options: {
    database: { type: "string", default: process.env.DATABASE_URL },
    port: { type: "string", default: "8080" },
    host: { type: "string", default: "127.0.0.1" },
    "max-users": { type: "string", default: "1000" },
    "max-memory-mb": { type: "string", default: "512" },
  },
});
if (args.database === undefined) {
  console.error("server: give --database postgres://… or set DATABASE_URL");
  process.exit(2);
}

class HttpError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

let cache;
const db = await PostgresDatabase.connect({
  connectionString: args.database,
  onStale: (store) => cache?.markStale(store),
});
cache = new StoreCache(db, {
  maxUsers: Number(args["max-users"]),
  maxBytes: Number(args["max-memory-mb"]) * 1024 * 1024,
  openOptions: { snapshots: false },
});

async function readJson(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError("too_large", `the body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (e) {
    throw new HttpError("invalid_argument", `the body is not JSON: ${e.message}`);
  }
}

function userIdOf(value) {
  if (typeof value !== "string" || value === "") throw new HttpError("invalid_argument", "userId is required");
  return value;
}

/** A query-string value: parsed when it is JSON (5, true, ["a"]), else the string itself. */
function optionValue(raw) {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

async function postMemories(req) {
  const body = await readJson(req);
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError("invalid_argument", "the body must be a JSON object");
  const { userId, memories, ...single } = body;
  const batch = memories === undefined ? [single] : memories;
  if (!Array.isArray(batch)) throw new HttpError("invalid_argument", "memories must be an array");
  const ids = await cache.use(userIdOf(userId), (store) => store.rememberMany(batch));
  return [201, { ids }];
}

async function getRecall(url) {
  const params = url.searchParams;
  const q = params.get("q");
  if (q === null) throw new HttpError("invalid_argument", "q is required");
  const options = {};
  for (const [name, raw] of params) if (name !== "q" && name !== "userId") options[name] = optionValue(raw);
  const result = await cache.use(userIdOf(params.get("userId")), (store) => store.recall(q, options));
  return [200, result];
}

async function getMemory(url, id) {
  const memory = await cache.use(userIdOf(url.searchParams.get("userId")), (store) => store.get(id));
  if (memory === undefined) throw new HttpError("not_found", `no memory ${JSON.stringify(id)}`);
  return [200, memory];
}

async function listMemories(url) {
  const ids = await cache.use(userIdOf(url.searchParams.get("userId")), (store) => store.ids());
  return [200, { ids }];
}

function quantile(sorted, p) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function getStats() {
  const open = [...cache.stats.openMs].sort((a, b) => a - b);
  const memory = process.memoryUsage();
  return [200, {
    pid: process.pid, cachedUsers: cache.size, estimatedBytes: cache.estimatedBytes,
    opens: cache.stats.opens, evictions: cache.stats.evictions, stale: cache.stats.stale,
    openMs: { p50: quantile(open, 0.5), p95: quantile(open, 0.95), p99: quantile(open, 0.99), max: open.at(-1) ?? 0 },
    rss: memory.rss, heapUsed: memory.heapUsed, arrayBuffers: memory.arrayBuffers, feedReconnects: db.feedReconnects,
  }];
}

/** A percent-decoded path segment; `%E0` (not UTF-8) is the client's mistake, 400. */
function decodePathSegment(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError("invalid_argument", `the path segment ${JSON.stringify(segment)} is not percent-encoded UTF-8`);
  }
}

async function route(req, url) {
  const memoryPath = /^\/memories\/([^/]+)$/.exec(url.pathname);
  if (req.method === "POST" && url.pathname === "/memories") return postMemories(req);
  if (req.method === "GET" && url.pathname === "/recall") return getRecall(url);
  if (req.method === "GET" && url.pathname === "/memories") return listMemories(url);
  if (req.method === "GET" && memoryPath !== null) return getMemory(url, decodePathSegment(memoryPath[1]));
  if (req.method === "GET" && url.pathname === "/stats") return getStats();
  if (req.method === "GET" && url.pathname === "/health") return [200, "ok"];
  throw new HttpError("not_found", `no route ${req.method} ${url.pathname}`);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost");
  route(req, url).then(([status, body]) => {
    res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json" });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  }, (e) => {
    const code = typeof e?.code === "string" ? e.code : "internal";
    res.writeHead(STATUS[code] ?? 500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code, message: String(e?.message ?? e) } }));
  });
});
server.keepAliveTimeout = 30_000;

server.listen(Number(args.port), args.host, () => {
  const { address, port } = server.address();
  console.log(JSON.stringify({ listening: `http://${address}:${port}`, pid: process.pid }));
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeIdleConnections();
  await closed;
  await cache.closeAll();
  await db.close();
  process.exit(0);
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
