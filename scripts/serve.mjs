#!/usr/bin/env node
// A small static file server for the demo and the browser tests. Serves the repository root
// (so www/ can import /js/dist and /pkg) on 127.0.0.1; `/` is www/index.html.
// Usage: node scripts/serve.mjs [--port 8080] [--host 127.0.0.1]
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".jsonl": "application/x-ndjson; charset=utf-8",
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ts": "text/plain; charset=utf-8",
  ".d.ts": "text/plain; charset=utf-8",
};

/**
 * Starts the server; resolves to { server, url }. Port 0 picks a free port. `dir` is the folder
 * served (default: the repository) and `index` the file `/` serves.
 */
export function serve({ port = 8080, host = "127.0.0.1", dir = root, index = "www/index.html" } = {}) {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
      let file = normalize(join(dir, path === "/" ? index : path));
      if (!file.startsWith(dir + sep)) throw Object.assign(new Error("outside root"), { code: "ENOENT" });
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolve({ server, url: `http://${host}:${actual}` });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const port = Number(arg("port", process.env.PORT ?? "8080"));
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: --port must be an integer 0..65535, got ${arg("port")}`);
    process.exit(2);
  }
  const { url } = await serve({ port, host: arg("host", "127.0.0.1") });
  console.log(`recallkit demo: ${url}/  (Ctrl+C to stop)`);
}
