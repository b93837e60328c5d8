// Host embedding functions for the demo: recallkit never calls a model itself, the page hands
// MemoryStore an `embed(texts)` that calls a local Ollama or an OpenAI-compatible endpoint,
// made by the package's own embedders (recallkit/embedders).
import { ollamaEmbedder, openaiEmbedder } from "/js/dist/embedders.js";

/** Default settings of each embedder kind. */
export const EMBEDDER_DEFAULTS = {
  none: {},
  ollama: { url: "http://localhost:11434", model: "nomic-embed-text" },
  openai: { url: "https://api.openai.com/v1", model: "text-embedding-3-small", key: "" },
};

/** How long one embedding request may take before the page gives up on it. */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * The embed function for a configuration (`undefined` for "none"), wrapped so the page can
 * tell what happened on the last call: `probe.last = { ok, dims?, error?, at }`.
 */
export function makeEmbedder(config) {
  if (config.kind !== "ollama" && config.kind !== "openai") return undefined;
  const common = { url: config.url, model: config.model, timeoutMs: REQUEST_TIMEOUT_MS };
  let base;
  try {
    base = config.kind === "ollama" ? ollamaEmbedder(common) : openaiEmbedder({ ...common, apiKey: config.key || undefined });
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
  return "none";
}
