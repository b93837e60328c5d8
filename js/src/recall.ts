/**
 * {@link runRecall}, behind `MemoryStore.recall`: a recall in two phases, or three with a reranker.
 *
 * 1. `beginRecall` validates the options and runs stage Sf. The query embedding (given, or the
 *    host's `embed`, called synchronously so its work starts before Sf) is awaited only if the
 *    engine wants it: when Sf fills the limit it is dropped unawaited (`short_circuit`); a
 *    rejected or slow embed skips Se with its reason (`embed_failed`, `embed_timeout`).
 * 2. `finishRecall` runs the other stages and the ranking, or with a reranker `rankForRerank`
 *    keeps the best 30 fused candidates;
 * 3. the reranker scores their texts (`host.ts`) and `finishRerank` orders and cuts them; if
 *    it fails, the fused order stands and the `rerank` stage report says why.
 *
 * The engine updates the returned memories' recall tracking; the recall resolves once the write
 * queue has made it durable (not for a memory store, which has nothing to persist). A store
 * closed while the recall waited fails it with `closed`. Ranking itself is the engine's.
 * @module
 */
import { RecallError, callEngine } from "./errors.js";
import type { EngineRecallResult } from "./engine.js";
import type { Health } from "./health.js";
import { TimedOut, rerankTexts, withTimeout } from "./host.js";
import type { EngineSlot } from "./slot.js";
import type { EmbedFunction, RecallOptions, RecallResult, RerankFunction, SearchMode } from "./types.js";
import { checkDimensions, checkQuery, toRecallOptions, toVector } from "./validate.js";
import type { WriteQueue } from "./writes.js";

/** What a recall reads of the store's options. */
export interface RecallSettings {
  embed: EmbedFunction | undefined;
  embedTimeoutMs: number;
  rerank: RerankFunction | undefined;
  rerankTimeoutMs: number;
  searchMode: SearchMode;
  /** Nothing is persisted (`storage: "memory"`): no tracking to write. */
  ephemeral: boolean;
  /** The store's clock, checked (`MemoryStore`'s `now`). */
  now: () => number;
  /** The store's tier: a recall that wanted a vector and got one, or not, says so. */
  health: Health;
}

/** Recalls what is relevant to `query` (see the module docs and `MemoryStore.recall`). */
export async function runRecall(
  slot: EngineSlot, writes: WriteQueue, settings: RecallSettings, query: string, options: RecallOptions,
): Promise<RecallResult> {
  const engine = slot.forCaller();
  const text = checkQuery(query);
  const now = (options as { now?: unknown } | undefined)?.now === undefined ? settings.now() : 0;
  const { options: opts, embedding, rerank: rerankOption } = toRecallOptions(options, now, settings.searchMode);
  const rerank = rerankOption === undefined ? settings.rerank : rerankOption || undefined;
  let vector = embedding === undefined ? undefined : checkDimensions(embedding, "embedding", "", engine.dimensions);
  let pendingEmbed: Promise<unknown> | undefined;
  if (vector === undefined && opts.searchMode !== "lexical" && settings.embed !== undefined && text.trim() !== "") {
    // Called synchronously, so the host's work (e.g. a fetch) starts before Sf runs.
    try {
      pendingEmbed = Promise.resolve(settings.embed([text]));
    } catch (e) {
      pendingEmbed = Promise.reject(e);
    }
    // Never an unhandled rejection, even when the promise is dropped unawaited.
    pendingEmbed.catch(() => undefined);
  }
  const pending = callEngine(() => engine.beginRecall(text, opts));
  let reason: string | undefined;
  if (!pending.wantsEmbedding) {
    vector = undefined;
  } else if (vector === undefined) {
    if (pendingEmbed === undefined) {
      reason = "no_embedder";
    } else {
      try {
        const vectors = await withTimeout(pendingEmbed, settings.embedTimeoutMs);
        const first = Array.isArray(vectors) ? vectors[0] : undefined;
        vector = toVector(first, "embed() vector", "", engine.dimensions);
      } catch (e) {
        reason = e instanceof TimedOut ? "embed_timeout" : "embed_failed";
      }
    }
  }
  if (reason !== undefined) settings.health.notEmbedded(reason);
  else if (vector !== undefined) settings.health.embedded(); // embedded, or given with the recall
  if (slot.engine === undefined) {
    pending.free();
    throw new RecallError("closed", "the store was closed during recall");
  }
  let out: EngineRecallResult;
  if (rerank === undefined) {
    out = callEngine(() => engine.finishRecall(pending, vector, reason));
  } else {
    const ranked = callEngine(() => engine.rankForRerank(pending, vector, reason));
    const texts = engine.rerankTexts(ranked);
    const started = performance.now();
    const answer = texts.length === 0
      ? { scores: new Float64Array(0), reason: null }
      : await rerankTexts(rerank, text, texts, settings.rerankTimeoutMs);
    if (slot.engine === undefined) {
      ranked.free();
      throw new RecallError("closed", "the store was closed during recall");
    }
    const ms = performance.now() - started;
    out = callEngine(() => engine.finishRerank(ranked, answer.scores, answer.reason, ms));
  }
  const result: RecallResult = { ...out, tier: settings.health.tier };
  // The engine has updated the tracking; a "memory" store has nothing more to persist.
  if (opts.trackRecalls && !settings.ephemeral) {
    const tracked = result.results.filter((r) => r.kind === "memory").map((r) => r.id);
    if (tracked.length > 0) {
      writes.track(tracked);
      await writes.enqueue(() => writes.flushTracking());
    }
  }
  return result;
}
