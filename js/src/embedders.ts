/**
 * `recallkit/embedders`: ready-made {@link EmbedFunction}s for the embedding services people
 * run, so that a host need not write its own. recallkit itself never calls a model; these
 * are the host's side, shipped for convenience:
 *
 * | function | calls | request → answer |
 * |---|---|---|
 * | {@link ollamaEmbedder} | a local Ollama | `POST {url}/api/embed {model, input}` → `{embeddings}` |
 * | {@link openaiEmbedder} | OpenAI or any compatible endpoint (vLLM, LM Studio, llama.cpp, Together, …) | `POST {url}/embeddings {model, input, dimensions?}` → `{data: [{index, embedding}]}` |
 * | {@link transformersEmbedder} | a model running in this page, worker or process (`@huggingface/transformers`, an optional peer dependency, loaded on first use) | feature extraction, mean pooling, normalised |
 *
 * Each splits its texts into batches (`batchSize`), fails with `embed_failed` carrying the
 * endpoint's own message (or `embed_timeout` after `timeoutMs`), and stops at once when the
 * `signal` passed to it aborts.
 *
 * ```ts
 * import { MemoryStore } from "recallkit";
 * import { ollamaEmbedder } from "recallkit/embedders";
 * const store = await MemoryStore.open({ embed: ollamaEmbedder({ model: "nomic-embed-text" }) });
 * ```
 * @module
 */
import { RecallError } from "./errors.js";
import type { EmbedFunction } from "./types.js";

export type { EmbedFunction } from "./types.js";

/** What every embedder takes besides its endpoint. */
export interface EmbedderOptions {
  /** Texts per request (default: 64 for Ollama and transformers.js, 256 for OpenAI-compatible endpoints). */
  batchSize?: number;
  /** Milliseconds one request may take before it fails with `embed_timeout` (default 30,000). */
  timeoutMs?: number;
  /** Aborts every request of this embedder, running or later (they fail with `embed_failed`). */
  signal?: AbortSignal;
  /** The `fetch` to use (default: the global one); for proxies and tests. */
  fetch?: typeof fetch;
}

/** {@link ollamaEmbedder}'s options. */
export interface OllamaEmbedderOptions extends EmbedderOptions {
  /** The server, or its `/api/embed` endpoint (default `http://localhost:11434`). */
  url?: string;
  /** The embedding model, e.g. `nomic-embed-text` or `all-minilm`. */
  model: string;
}

/** {@link openaiEmbedder}'s options. */
export interface OpenAIEmbedderOptions extends EmbedderOptions {
  /** The API base (e.g. `https://api.openai.com/v1`, the default) or its `/embeddings` endpoint. */
  url?: string;
  /** The embedding model, e.g. `text-embedding-3-small`. */
  model: string;
  /** Sent as `Authorization: Bearer …`; left out when absent (local servers). */
  apiKey?: string;
  /** Asks the model for vectors of this length (models that support it, as `text-embedding-3-*`). */
  dimensions?: number;
}

/** A feature-extraction pipeline as `@huggingface/transformers` makes one. */
export type FeatureExtractor = (
  texts: string[], options: { pooling: "mean"; normalize: true },
) => Promise<{ data: ArrayLike<number>; dims: number[] }>;

/** {@link transformersEmbedder}'s options. */
export interface TransformersEmbedderOptions extends Omit<EmbedderOptions, "fetch" | "timeoutMs"> {
  /** The model on the Hugging Face hub (default `Xenova/all-MiniLM-L6-v2`, 384 dimensions). */
  model?: string;
  /** Called while the model downloads and loads, with transformers.js's progress events. */
  onProgress?: (event: { status: string; file?: string; progress?: number; loaded?: number; total?: number }) => void;
  /**
   * Makes the pipeline instead of importing `@huggingface/transformers` (for a host that has
   * configured its own: cache, backend, a local model path).
   */
  pipeline?: (task: "feature-extraction", model: string, options: { progress_callback?: (event: never) => void }) => Promise<FeatureExtractor>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** `url` without trailing slashes, ending in `endpoint` (added unless already there). */
function endpointOf(url: string, endpoint: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RecallError("invalid_argument", `${what} url must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new RecallError("invalid_argument", `${what} url must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
  const base = url.replace(/\/+$/, "");
  return base.endsWith(endpoint) ? base : `${base}${endpoint}`;
}

/** The options each embedder takes: any other is a mistake (a misspelt `timeoutMs`, `apiKey`). */
const KNOWN_OPTIONS: Record<string, readonly string[]> = {
  ollamaEmbedder: ["url", "model", "batchSize", "timeoutMs", "signal", "fetch"],
  openaiEmbedder: ["url", "model", "apiKey", "dimensions", "batchSize", "timeoutMs", "signal", "fetch"],
  transformersEmbedder: ["model", "onProgress", "pipeline", "batchSize", "signal"],
};

function checkOptions(options: EmbedderOptions & { model?: unknown }, what: string, needsModel: boolean): void {
  if (typeof options !== "object" || options === null) throw new RecallError("invalid_argument", `${what} options must be an object`);
  const known = KNOWN_OPTIONS[what] ?? [];
  const unknown = Object.keys(options).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw new RecallError("invalid_argument", `${what} has no option ${JSON.stringify(unknown)} (it takes ${known.join(", ")})`);
  }
  if (needsModel && (typeof options.model !== "string" || options.model === "")) {
    throw new RecallError("invalid_argument", `${what} needs a model name`);
  }
  for (const [name, value] of [["batchSize", options.batchSize], ["timeoutMs", options.timeoutMs]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      throw new RecallError("invalid_argument", `${what} ${name} must be a positive integer, got ${String(value)}`);
    }
  }
}

function failed(message: string, cause?: unknown): RecallError {
  return new RecallError("embed_failed", message, cause === undefined ? undefined : { cause });
}

/** Runs `one` over `texts` in batches of `size`, in order. */
async function inBatches(texts: string[], size: number, one: (batch: string[]) => Promise<number[][]>): Promise<number[][]> {
  if (!Array.isArray(texts) || !texts.every((t) => typeof t === "string")) {
    throw new RecallError("invalid_argument", "an embedder takes an array of strings");
  }
  const out: number[][] = [];
  for (let at = 0; at < texts.length; at += size) {
    const batch = texts.slice(at, at + size);
    const vectors = await one(batch);
    if (!Array.isArray(vectors) || vectors.length !== batch.length) {
      throw failed(`the embedder returned ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${batch.length} texts`);
    }
    const bad = vectors.findIndex((v) => !(Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number")));
    if (bad >= 0) throw failed(`the embedder's vector ${bad} is not a non-empty array of numbers`);
    out.push(...vectors);
  }
  return out;
}

/** POSTs `body` as JSON to `endpoint` and parses the answer; every failure is `embed_failed` or `embed_timeout`. */
async function postJson(
  endpoint: string, body: unknown, headers: Record<string, string>, options: EmbedderOptions,
): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const caller = options.signal;
  if (caller?.aborted) throw failed(`${endpoint}: aborted (${String(caller.reason)})`);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = (): void => controller.abort();
  caller?.addEventListener("abort", onAbort, { once: true });
  // The request and its body race the abort: a fetch of the host's own that ignores the
  // signal, or a body that stalls, still ends at the timeout or the caller's abort.
  const gaveUp = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
  });
  gaveUp.catch(() => undefined);
  try {
    let res: Response;
    try {
      res = await Promise.race([(options.fetch ?? fetch)(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
        signal: controller.signal,
      }), gaveUp]);
    } catch (e) {
      throw stopped(e);
    }
    let text: string;
    try {
      text = await Promise.race([res.text(), gaveUp]);
    } catch (e) {
      throw stopped(e);
    }
    if (!res.ok) throw failed(`${endpoint} answered ${res.status} ${res.statusText}: ${serviceMessage(text)}`);
    try {
      return JSON.parse(text);
    } catch {
      throw failed(`${endpoint} did not answer JSON: ${text.slice(0, 100)}`);
    }
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener("abort", onAbort);
  }

  function stopped(e: unknown): RecallError {
    if (timedOut) return new RecallError("embed_timeout", `${endpoint} gave no answer within ${timeoutMs} ms`);
    if (caller?.aborted) return failed(`${endpoint}: aborted (${String(caller.reason)})`, e);
    // fetch() gives a bare TypeError for a refused connection (and, in browsers, blocked CORS).
    const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
    return failed(`${endpoint} is unreachable (${cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e))})`, e);
  }
}

/** The service's own error message from an error body (`{error: "…"}` or `{error: {message}}`), else the body's start. */
function serviceMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    const error = body?.error;
    if (typeof error === "string") return error;
    if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") {
      return (error as { message: string }).message;
    }
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300);
}

/**
 * An {@link EmbedFunction} for Ollama (`POST /api/embed`, Ollama 0.3 and later).
 *
 * ```ts
 * const embed = ollamaEmbedder({ model: "nomic-embed-text" }); // http://localhost:11434
 * ```
 */
export function ollamaEmbedder(options: OllamaEmbedderOptions): EmbedFunction {
  checkOptions(options, "ollamaEmbedder", true);
  const endpoint = endpointOf(options.url ?? "http://localhost:11434", "/api/embed", "ollamaEmbedder");
  const { model } = options;
  return (texts) => inBatches(texts, options.batchSize ?? 64, async (input) => {
    const body = await postJson(endpoint, { model, input }, {}, options) as { embeddings?: number[][] };
    return body?.embeddings as number[][];
  });
}

/**
 * An {@link EmbedFunction} for OpenAI's embeddings API or any endpoint that speaks it.
 *
 * ```ts
 * const embed = openaiEmbedder({ model: "text-embedding-3-small", apiKey: process.env.OPENAI_API_KEY });
 * const local = openaiEmbedder({ url: "http://127.0.0.1:8080/v1", model: "bge-small-en" });
 * ```
 */
export function openaiEmbedder(options: OpenAIEmbedderOptions): EmbedFunction {
  checkOptions(options, "openaiEmbedder", true);
  if (options.dimensions !== undefined && !(Number.isInteger(options.dimensions) && options.dimensions > 0)) {
    throw new RecallError("invalid_argument", `openaiEmbedder dimensions must be a positive integer, got ${String(options.dimensions)}`);
  }
  if (options.apiKey !== undefined && typeof options.apiKey !== "string") {
    throw new RecallError("invalid_argument", "openaiEmbedder apiKey must be a string");
  }
  const endpoint = endpointOf(options.url ?? "https://api.openai.com/v1", "/embeddings", "openaiEmbedder");
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const { model, dimensions } = options;
  return (texts) => inBatches(texts, options.batchSize ?? 256, async (input) => {
    const request = dimensions === undefined ? { model, input } : { model, input, dimensions };
    const body = await postJson(endpoint, request, headers, options) as { data?: Array<{ index?: number; embedding?: number[] }> };
    if (!Array.isArray(body?.data)) return undefined as unknown as number[][];
    // The API may answer out of order; `index` says which input each vector belongs to.
    return [...body.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding as number[]);
  });
}

/**
 * An {@link EmbedFunction} that runs a sentence-embedding model in this page, worker or
 * process with transformers.js (`npm install @huggingface/transformers`, loaded on the first
 * call; the model downloads from the Hugging Face hub once, then comes from the runtime's cache).
 * Mean-pooled, normalised vectors, as sentence-transformers computes them.
 *
 * ```ts
 * const embed = transformersEmbedder({ onProgress: (e) => console.log(e.status, e.progress) });
 * const store = await MemoryStore.open({ embed, dimensions: 384 });
 * ```
 */
export function transformersEmbedder(options: TransformersEmbedderOptions = {}): EmbedFunction {
  checkOptions(options, "transformersEmbedder", false);
  const model = options.model ?? "Xenova/all-MiniLM-L6-v2";
  let extractor: Promise<FeatureExtractor> | undefined;
  const load = (): Promise<FeatureExtractor> => {
    extractor ??= (async () => {
      let make = options.pipeline;
      if (make === undefined) {
        const name = "@huggingface/transformers"; // not a static import: an optional peer dependency
        try {
          make = ((await import(name)) as { pipeline: NonNullable<TransformersEmbedderOptions["pipeline"]> }).pipeline;
        } catch (e) {
          throw failed(`transformersEmbedder needs the @huggingface/transformers package (npm install @huggingface/transformers): ${e instanceof Error ? e.message : String(e)}`, e);
        }
      }
      try {
        return await make("feature-extraction", model, { progress_callback: options.onProgress as ((event: never) => void) | undefined });
      } catch (e) {
        throw failed(`transformersEmbedder could not load ${model}: ${e instanceof Error ? e.message : String(e)}`, e);
      }
    })();
    // A failed load is tried again on the next call (the network may be back).
    extractor.catch(() => { extractor = undefined; });
    return extractor;
  };
  return (texts) => inBatches(texts, options.batchSize ?? 64, async (batch) => {
    if (options.signal?.aborted) throw failed(`transformersEmbedder: aborted (${String(options.signal.reason)})`);
    const run = await load();
    let output: { data: ArrayLike<number>; dims: number[] };
    try {
      output = await run(batch, { pooling: "mean", normalize: true });
    } catch (e) {
      throw failed(`transformersEmbedder (${model}) failed: ${e instanceof Error ? e.message : String(e)}`, e);
    }
    const dims = output?.dims?.[output.dims.length - 1] ?? 0;
    if (!(dims > 0) || output.data.length !== dims * batch.length) {
      throw failed(`transformersEmbedder (${model}) returned ${output?.data?.length ?? 0} values for ${batch.length} texts`);
    }
    return Array.from({ length: batch.length }, (_, i) => Array.from(Array.prototype.slice.call(output.data, i * dims, (i + 1) * dims) as number[]));
  });
}
