// Host embedding functions for the demo: recallkit never calls a model itself, the page hands
// MemoryStore an `embed(texts)` that calls a local Ollama or an OpenAI-compatible endpoint, or
// runs a model in this page with transformers.js, made by the package's own embedders
// (recallkit/embedders).
import { ollamaEmbedder, openaiEmbedder, transformersEmbedder } from "/js/dist/embedders.js";

/**
 * Where the page loads transformers.js from when "In this browser" is chosen: the package's
 * self-contained browser build on jsDelivr, pinned. It fetches the ONNX runtime's wasm from
 * jsDelivr and the model's files from huggingface.co, once; the browser caches them.
 */
export const TRANSFORMERS_URL = "https://cdn.jsdelivr.net/npm/@huggingface/transformers@4.3.1/dist/transformers.min.js";

/** Default settings of each embedder kind. */
export const EMBEDDER_DEFAULTS = {
  none: {},
  ollama: { url: "http://localhost:11434", model: "nomic-embed-text" },
  openai: { url: "https://api.openai.com/v1", model: "text-embedding-3-small", key: "" },
  browser: { model: "Xenova/all-MiniLM-L6-v2" },
};

/** Loaded in-page models by name: the probe and the store share one (a load takes seconds). */
const inPage = new Map();
/** Who hears the download progress of the model loading now (the page's progress bar). */
let progressListener;

/** Sets the function told of model download progress (`{ status, file, progress }`), or none. */
export function onModelProgress(listener) {
  progressListener = listener;
}

/** The embed function running `model` in this page with transformers.js from {@link TRANSFORMERS_URL}. */
function inPageEmbedder(model) {
  let embed = inPage.get(model);
  if (embed === undefined) {
    embed = transformersEmbedder({
      model,
      onProgress: (event) => progressListener?.(event),
      pipeline: async (task, name, options) => {
        let library;
        try {
          library = await import(TRANSFORMERS_URL);
        } catch (e) {
          throw new Error(`transformers.js could not be loaded from ${new URL(TRANSFORMERS_URL).host} (${e instanceof Error ? e.message : String(e)}); the model itself comes from huggingface.co`);
        }
        return library.pipeline(task, name, options);
      },
    });
    inPage.set(model, embed);
  }
  return embed;
}

/** How long one embedding request may take before the page gives up on it. */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * The embed function for a configuration (`undefined` for "none"), wrapped so the page can
 * tell what happened on the last call: `probe.last = { ok, dims?, error?, at }`.
 */
export function makeEmbedder(config) {
  if (config.kind !== "ollama" && config.kind !== "openai" && config.kind !== "browser") return undefined;
  const common = { url: config.url, model: config.model, timeoutMs: REQUEST_TIMEOUT_MS };
  let base;
  try {
    if (config.kind === "browser") base = inPageEmbedder(config.model);
    else base = config.kind === "ollama" ? ollamaEmbedder(common) : openaiEmbedder({ ...common, apiKey: config.key || undefined });
  } catch (e) {
    // A URL or model the embedders refuse: every call fails with why, as an unreachable one does.
    base = async () => { throw e; };
  }
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
  if (config.kind === "browser") return `this browser (transformers.js, ${config.model})`;
  return "none";
}
