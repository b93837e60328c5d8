// recallkit/embedders against a loopback HTTP server that speaks Ollama's and OpenAI's
// embedding wire formats (the real services are on the internet or need a model; the server
// checks every request as they would), and transformersEmbedder with a pipeline made here.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { MemoryStore } from "../dist/index.js";
import { ollamaEmbedder, openaiEmbedder, transformersEmbedder } from "../dist/embedders.js";
import { rejectsWith } from "./support/errors.mjs";

/** A deterministic 8-dim vector per text: texts sharing words get close vectors. */
function vectorOf(text) {
  const v = new Array(8).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 0;
    for (const c of word) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
    v[h % 8] += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

const requests = [];
let mode = "ok";
const server = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const json = body ? JSON.parse(body) : undefined;
  requests.push({ url: req.url, method: req.method, headers: req.headers, json });
  const send = (status, value) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };
  if (mode === "hang") return; // never answers
  if (req.method !== "POST" || req.headers["content-type"] !== "application/json") return send(400, { error: "bad request" });
  if (req.url === "/api/embed") {
    if (json.model !== "nomic-embed-text") return send(404, { error: `model "${json.model}" not found, try pulling it first` });
    if (mode === "short") return send(200, { model: json.model, embeddings: json.input.slice(1).map(vectorOf) });
    return send(200, { model: json.model, embeddings: json.input.map(vectorOf) });
  }
  if (req.url === "/v1/embeddings") {
    if (req.headers.authorization !== "Bearer sk-test") {
      return send(401, { error: { message: "Incorrect API key provided: sk-wr***ng.", type: "invalid_request_error" } });
    }
    const data = json.input.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text).slice(0, json.dimensions ?? 8) }));
    data.reverse(); // the API does not promise the input order: `index` says
    return send(200, { object: "list", data, model: json.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  }
  send(404, { error: "not found" });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;
after(() => server.close());

const reset = (m = "ok") => {
  requests.length = 0;
  mode = m;
};

describe("ollamaEmbedder", () => {
  test("posts {model, input} to /api/embed in batches and returns the vectors in order", async () => {
    reset();
    const embed = ollamaEmbedder({ url: base, model: "nomic-embed-text", batchSize: 2 });
    const texts = ["alpha", "beta gamma", "delta", "epsilon", "zeta"];
    const vectors = await embed(texts);
    assert.deepEqual(vectors, texts.map(vectorOf));
    assert.deepEqual(requests.map((r) => [r.url, r.json.input.length]), [["/api/embed", 2], ["/api/embed", 2], ["/api/embed", 1]]);
    assert.equal(requests[0].json.model, "nomic-embed-text");
    // The endpoint itself works as the url too, with or without a trailing slash.
    reset();
    await ollamaEmbedder({ url: `${base}/api/embed/`, model: "nomic-embed-text" })(["x"]);
    assert.equal(requests[0].url, "/api/embed");
  });

  test("failures are embed_failed with the service's own message, embed_timeout after timeoutMs", async () => {
    reset();
    await rejectsWith(ollamaEmbedder({ url: base, model: "nope" })(["x"]), "embed_failed", /answered 404 Not Found: model "nope" not found, try pulling it first/);
    reset("short");
    await rejectsWith(ollamaEmbedder({ url: base, model: "nomic-embed-text" })(["x", "y"]), "embed_failed", /returned 1 vectors for 2 texts/);
    reset("hang");
    await rejectsWith(ollamaEmbedder({ url: base, model: "nomic-embed-text", timeoutMs: 100 })(["x"]), "embed_timeout", /no answer within 100 ms/);
    // A port nobody listens on.
    const closed = createServer();
    await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = closed.address().port;
    await new Promise((resolve) => closed.close(resolve));
    await rejectsWith(ollamaEmbedder({ url: `http://127.0.0.1:${port}`, model: "m" })(["x"]), "embed_failed", /is unreachable \(ECONNREFUSED\)/);
  });

  test("an aborted signal stops a running request at once and fails later calls", async () => {
    reset("hang");
    const controller = new AbortController();
    const embed = ollamaEmbedder({ url: base, model: "nomic-embed-text", signal: controller.signal });
    const started = Date.now();
    const pending = embed(["x"]);
    setTimeout(() => controller.abort(new Error("user left")), 50);
    await rejectsWith(pending, "embed_failed", /aborted \(Error: user left\)/);
    assert.ok(Date.now() - started < 5000, "stopped at once, not at the timeout");
    reset();
    await rejectsWith(embed(["x"]), "embed_failed", /aborted/);
    assert.equal(requests.length, 0, "no request after the abort");
  });

  test("timeoutMs and the signal hold with a fetch of the host's that ignores the signal, or a body that stalls", async () => {
    const never = () => new Promise(() => undefined);
    await rejectsWith(ollamaEmbedder({ url: base, model: "m", timeoutMs: 100, fetch: never })(["x"]), "embed_timeout", /no answer within 100 ms/);
    const stalls = async () => ({ ok: true, status: 200, statusText: "OK", text: never });
    await rejectsWith(openaiEmbedder({ url: base, model: "m", timeoutMs: 100, fetch: stalls })(["x"]), "embed_timeout", /no answer within 100 ms/);
    const controller = new AbortController();
    const pending = ollamaEmbedder({ url: base, model: "m", fetch: never, signal: controller.signal })(["x"]);
    setTimeout(() => controller.abort(new Error("user left")), 50);
    await rejectsWith(pending, "embed_failed", /aborted \(Error: user left\)/);
  });

  test("bad options are invalid_argument", () => {
    assert.throws(() => ollamaEmbedder({ url: base }), /needs a model name/);
    assert.throws(() => ollamaEmbedder({ url: "ftp://x", model: "m" }), /must be an http\(s\) URL/);
    assert.throws(() => ollamaEmbedder({ model: "m", batchSize: 0 }), /batchSize must be a positive integer/);
    assert.throws(() => ollamaEmbedder(null), /options must be an object/);
    // A misspelt option is not silently ignored.
    assert.throws(() => ollamaEmbedder({ model: "m", timeout: 100 }), /ollamaEmbedder has no option "timeout"/);
    assert.throws(() => openaiEmbedder({ model: "m", api_key: "k" }), /openaiEmbedder has no option "api_key"/);
    assert.throws(() => transformersEmbedder({ timeoutMs: 5 }), /transformersEmbedder has no option "timeoutMs"/);
  });

  test("a vector that is not an array of numbers is named", async () => {
    const answer = async () => ({ ok: true, status: 200, statusText: "OK", text: async () => JSON.stringify({ embeddings: [[0.1, 0.2], [null, 0.3]] }) });
    await rejectsWith(ollamaEmbedder({ url: base, model: "m", fetch: answer })(["x", "y"]), "embed_failed", /vector 1 is not a non-empty array of numbers/);
  });

  test("a store embeds what it remembers and its queries through it", async () => {
    reset();
    const store = await MemoryStore.open({ storage: "memory", embed: ollamaEmbedder({ url: base, model: "nomic-embed-text" }) });
    await store.rememberMany([{ id: "a", text: "the backup runs at night" }, { id: "b", text: "Ana prefers green tea" }]);
    assert.equal(store.dimensions, 8);
    const result = await store.recall("green tea");
    assert.equal(result.results[0].id, "b");
    assert.ok(result.stages.some((s) => s.name === "Se" && !s.skipped), "stage Se ran with the query's vector");
    assert.ok(requests.some((r) => r.json.input.includes("green tea")), "the query was embedded");
    await store.close();
  });
});

describe("openaiEmbedder", () => {
  test("sends the key, the model and dimensions; sorts the answer by index", async () => {
    reset();
    const embed = openaiEmbedder({ url: `${base}/v1`, model: "text-embedding-3-small", apiKey: "sk-test", dimensions: 4, batchSize: 3 });
    const texts = ["one", "two words", "three", "four"];
    const vectors = await embed(texts);
    assert.deepEqual(vectors, texts.map((t) => vectorOf(t).slice(0, 4)));
    assert.deepEqual(requests.map((r) => r.json.input.length), [3, 1]);
    assert.equal(requests[0].headers.authorization, "Bearer sk-test");
    assert.deepEqual({ model: requests[0].json.model, dimensions: requests[0].json.dimensions }, { model: "text-embedding-3-small", dimensions: 4 });
  });

  test("the service's error message comes through; no key, no header", async () => {
    reset();
    await rejectsWith(openaiEmbedder({ url: `${base}/v1/embeddings`, model: "m", apiKey: "sk-wrong" })(["x"]), "embed_failed",
      /answered 401 Unauthorized: Incorrect API key provided/);
    reset();
    await rejectsWith(openaiEmbedder({ url: `${base}/v1`, model: "m" })(["x"]), "embed_failed", /401/);
    assert.equal(requests[0].headers.authorization, undefined);
    assert.throws(() => openaiEmbedder({ model: "m", dimensions: 1.5 }), /dimensions must be a positive integer/);
  });
});

describe("transformersEmbedder", () => {
  test("runs the pipeline once per batch with mean pooling and normalisation, loading the model once", async () => {
    const calls = [];
    let loads = 0;
    const pipeline = async (task, model, options) => {
      loads++;
      options.progress_callback?.({ status: "progress", file: "model.onnx", progress: 50 });
      assert.equal(task, "feature-extraction");
      assert.equal(model, "Xenova/all-MiniLM-L6-v2");
      return async (texts, how) => {
        calls.push([texts.length, how]);
        const data = new Float32Array(texts.flatMap(vectorOf));
        return { data, dims: [texts.length, 8] };
      };
    };
    const progress = [];
    const embed = transformersEmbedder({ pipeline, batchSize: 2, onProgress: (e) => progress.push(e.status) });
    const texts = ["a b", "c", "d e f"];
    const vectors = await embed(texts);
    assert.equal(vectors.length, 3);
    vectors.forEach((v, i) => vectorOf(texts[i]).forEach((x, j) => assert.ok(Math.abs(v[j] - x) < 1e-6)));
    await embed(["again"]);
    assert.equal(loads, 1, "the model loads once");
    assert.deepEqual(calls.map((c) => c[0]), [2, 1, 1]);
    assert.deepEqual(calls[0][1], { pooling: "mean", normalize: true });
    assert.deepEqual(progress, ["progress"]);
  });

  test("without @huggingface/transformers installed, a clear embed_failed; a failed load is tried again", async () => {
    await rejectsWith(transformersEmbedder()(["x"]), "embed_failed", /needs the @huggingface\/transformers package \(npm install @huggingface\/transformers\)/);
    let attempts = 0;
    const flaky = transformersEmbedder({
      pipeline: async () => {
        attempts++;
        if (attempts === 1) throw new Error("fetch failed");
        return async (texts) => ({ data: new Float32Array(texts.length * 2).fill(0.5), dims: [texts.length, 2] });
      },
    });
    await rejectsWith(flaky(["x"]), "embed_failed", /could not load Xenova\/all-MiniLM-L6-v2: fetch failed/);
    assert.deepEqual(await flaky(["x"]), [[0.5, 0.5]]);
  });
});
