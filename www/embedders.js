// Host embedding functions for the demo: recallkit never calls a model itself, the page hands
// MemoryStore an `embed(texts)` that calls a local Ollama or an OpenAI-compatible endpoint.
//
// Ollama:            POST {url}/api/embed   {model, input: texts}  →  {embeddings: number[][]}
// OpenAI-compatible: POST {url}/embeddings  {model, input: texts}, Authorization: Bearer key
//                                                                 →  {data: [{index, embedding}]}

/** Default settings of each embedder kind. */
export const EMBEDDER_DEFAULTS = {
  none: {},
  ollama: { url: "http://localhost:11434", model: "nomic-embed-text" },
  openai: { url: "https://api.openai.com/v1", model: "text-embedding-3-small", key: "" },
};

/** How long one embedding request may take before the page gives up on it. */
const REQUEST_TIMEOUT_MS = 15_000;

const trimSlash = (url) => url.replace(/\/+$/, "");

async function postJson(url, body, headers = {}) {
  let res;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (e) {
    // fetch() gives a bare TypeError for refused connections and blocked CORS alike.
    const why = e?.name === "TimeoutError" ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s` : "unreachable or blocked by CORS";
    throw new Error(`${url} is ${why}`);
  }
  const text = await res.text();
  if (!res.ok) throw new Error(`${url} answered ${res.status} ${res.statusText}: ${text.slice(0, 200)}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${url} did not answer JSON: ${text.slice(0, 100)}`);
  }
}

function checkVectors(vectors, count, url) {
  if (!Array.isArray(vectors) || vectors.length !== count || !vectors.every((v) => Array.isArray(v) && v.length > 0)) {
    throw new Error(`${url} returned ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${count} texts`);
  }
  return vectors;
}

/** An `embed` function for Ollama's /api/embed. */
export function ollamaEmbed({ url, model }) {
  const endpoint = `${trimSlash(url)}/api/embed`;
  return async (texts) => {
    const body = await postJson(endpoint, { model, input: texts });
    return checkVectors(body?.embeddings, texts.length, endpoint);
  };
}

/** An `embed` function for an OpenAI-compatible /embeddings endpoint. */
export function openaiEmbed({ url, model, key }) {
  const endpoint = `${trimSlash(url)}/embeddings`;
  return async (texts) => {
    const body = await postJson(endpoint, { model, input: texts }, key ? { authorization: `Bearer ${key}` } : {});
    const data = Array.isArray(body?.data) ? [...body.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)) : undefined;
    return checkVectors(data?.map((d) => d.embedding), texts.length, endpoint);
  };
}

/**
 * The embed function for a configuration (`undefined` for "none"), wrapped so the page can
 * tell what happened on the last call: `probe.last = { ok, dims?, error?, at }`.
 */
export function makeEmbedder(config) {
  const base = config.kind === "ollama" ? ollamaEmbed(config) : config.kind === "openai" ? openaiEmbed(config) : undefined;
  if (base === undefined) return undefined;
  const embed = async (texts) => {
    try {
      const vectors = await base(texts);
      embed.last = { ok: true, dims: vectors[0].length, at: Date.now() };
      return vectors;
    } catch (e) {
      embed.last = { ok: false, error: e instanceof Error ? e.message : String(e), at: Date.now() };
      throw e;
    }
  };
  embed.last = undefined;
  return embed;
}

/** A readable name of a configuration, for messages. */
export function describeEmbedder(config) {
  if (config.kind === "ollama") return `Ollama (${config.url}, ${config.model})`;
  if (config.kind === "openai") return `OpenAI-compatible endpoint (${config.url}, ${config.model})`;
  return "none";
}
