// A stub embedding server on loopback for the demo and CLI tests: Ollama's POST /api/embed
// and an OpenAI-compatible POST /v1/embeddings, with CORS headers so a page on another port
// can call it. Vectors are deterministic: each word hashed into three of `dims` signed buckets (FNV-1a),
// then normalised, so texts sharing words have a high cosine. The model name picks the
// dimension: "stub-32" gives 32-dimension vectors, anything else 64.
//
// This file only exports; `node --test js/test/` runs it as a (trivially passing) file.
import { createServer } from "node:http";

/** Default vector dimension of the stub. */
export const STUB_DIMS = 64;
/** Buckets each word adds to (several, so one hash collision cannot cancel a shared word). */
const BUCKETS_PER_WORD = 3;

function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The stub's vector for a text. */
export function stubVector(text, dims = STUB_DIMS) {
  const v = new Array(dims).fill(0);
  const words = text.toLowerCase().normalize("NFKD").replace(/\p{M}/gu, "").match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    for (let k = 0; k < BUCKETS_PER_WORD; k++) {
      const h = fnv1a(`${k}:${word}`);
      v[h % dims] += h & 0x80000000 ? -1 : 1;
    }
  }
  v[dims - 1] += 0.01; // never the zero vector
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const dimsOf = (model) => {
  const m = /^stub-(\d+)$/.exec(model ?? "");
  return m ? Number(m[1]) : STUB_DIMS;
};

/**
 * Starts the stub on 127.0.0.1 (port 0: any free port). Resolves to `{ url, requests, close }`;
 * `requests` collects `{ path, model, count, authorization }` for every embedding call.
 */
export async function startStubEmbedder({ port = 0 } = {}) {
  const requests = [];
  const cors = {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "POST, OPTIONS",
    "access-control-allow-headers": "content-type, authorization",
  };
  const server = createServer(async (req, res) => {
    if (req.method === "OPTIONS") {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { ...cors, "content-type": "text/plain" });
      res.end("bad json");
      return;
    }
    const input = Array.isArray(body.input) ? body.input : [body.input];
    const dims = dimsOf(body.model);
    requests.push({ path: req.url, model: body.model, count: input.length, authorization: req.headers.authorization });
    const vectors = input.map((t) => stubVector(String(t), dims));
    res.writeHead(200, { ...cors, "content-type": "application/json" });
    if (req.url === "/api/embed") res.end(JSON.stringify({ model: body.model, embeddings: vectors }));
    else if (req.url === "/v1/embeddings") {
      res.end(JSON.stringify({ object: "list", model: body.model, data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })) }));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: actual } = server.address();
  return {
    url: `http://127.0.0.1:${actual}`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(resolve);
    }),
  };
}

/** A loopback URL where nothing listens (a port just freed), for "unreachable" tests. */
export async function unreachableUrl() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
