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
 * closed while the recall waited fails it with `closed`. A recall finishes on the engine it
 * began with (it leases it, `slot.ts`); if a re-read after drift replaced that engine
 * meanwhile, the new one takes the recall's tracking. Ranking itself is the engine's.
 * @module
 */
import { RecallError, callEngine } from "./errors.js";
import { isTrivial } from "./engine.js";
import type { Engine, EngineRecallResult } from "./engine.js";
import type { Health } from "./health.js";
import { carryTracking } from "./records.js";
import { TimedOut, rerankTexts, withTimeout } from "./host.js";
import type { EngineSlot } from "./slot.js";
import type { EmbedFunction, RecallOptions, RecallResult, RerankFunction, SearchMode } from "./types.js";
import { checkDimensions, checkQuery, toRecallOptions, toVector } from "./validate.js";
import type { WriteQueue } from "./writes.js";

/** The answer to a trivial message: no results, every stage skipped with reason `trivial`. */
function trivialResult(settings: RecallSettings): RecallResult {
  const stages = (["Sf", "Se", "Ss", "S6", "S8"] as const).map((name) => ({ name, hits: 0, ms: 0, skipped: true, reason: "trivial" }));
  return { results: [], stages, count: 0, dedupRemoved: 0, trivial: true, tier: settings.health.tier };
}

/** What a recall reads of the store's options. */
export interface RecallSettings {
  embed: EmbedFunction | undefined;
  embedTimeoutMs: number;
  rerank: RerankFunction | undefined;
  rerankTimeoutMs: number;
  searchMode: SearchMode;
  /** Nothing is persisted (`storage: "memory"`): no tracking to write. */
  ephemeral: boolean;
  /** Opened with `readOnly: true`: no recall is tracked. */
  readOnly: boolean;
  /** The store's clock, checked (`MemoryStore`'s `now`). */
  now: () => number;
  /** The store's tier: a recall that wanted a vector and got one, or not, says so. */
  health: Health;
}

/** The host's `embed(texts)`, never an unhandled rejection (the promise may be dropped unawaited). */
function embedTexts(settings: RecallSettings, texts: string[]): Promise<unknown> | undefined {
  if (settings.embed === undefined) return undefined;
  let p: Promise<unknown>;
  try {
    p = Promise.resolve(settings.embed(texts));
  } catch (e) {
    p = Promise.reject(e);
  }
  p.catch(() => undefined);
  return p;
}

/** `count` vectors from `embed`, each checked, end to end in one array (the engine splits them). */
function joinVectors(vectors: unknown, count: number, dimensions: number | undefined): Float32Array {
  const list = Array.isArray(vectors) ? vectors : [];
  const first = toVector(list[0], "embed() vector", "", dimensions);
  if (count === 1) return first;
  const out = new Float32Array(first.length * count);
  out.set(first);
  for (let i = 1; i < count; i++) out.set(toVector(list[i], "embed() vector", "", first.length), i * first.length);
  return out;
}

/** Recalls what is relevant to `query` (see the module docs and `MemoryStore.recall`). */
export async function runRecall(
  slot: EngineSlot, writes: WriteQueue, settings: RecallSettings, query: string, options: RecallOptions,
): Promise<RecallResult> {
  const engine = slot.forCaller();
  // The recall finishes on the engine it began with, even if a re-read after drift replaces it.
  const release = slot.lease(engine);
  try {
    return await recallOn(engine, slot, writes, settings, query, options);
  } finally {
    release();
  }
}

async function recallOn(
  engine: Engine, slot: EngineSlot, writes: WriteQueue, settings: RecallSettings, query: string, options: RecallOptions,
): Promise<RecallResult> {
  const text = checkQuery(query);
  const now = (options as { now?: unknown } | undefined)?.now === undefined ? settings.now() : 0;
  const { options: opts, embedding, rerank: rerankOption, skipTrivial } = toRecallOptions(options, now, settings.searchMode);
  if (settings.readOnly) opts.trackRecalls = false;
  const rerank = rerankOption === undefined ? settings.rerank : rerankOption || undefined;
  let vector = embedding === undefined ? undefined : checkDimensions(embedding, "embedding", "", engine.dimensions);
  // Engram's query decision: a trivial message ("ok", "thanks", 👍) runs no stage and embeds nothing.
  if (skipTrivial && isTrivial(text)) {
    callEngine(() => engine.checkRecall(text, opts)); // bad options are refused all the same
    return trivialResult(settings);
  }
  // Several query texts (`queries`, `autoDecompose`) are known once the engine has read them.
  const several = (opts.queries?.length ?? 0) > 0 || opts.autoDecompose === true;
  let pendingEmbed: Promise<unknown> | undefined;
  if (vector === undefined && !several && opts.searchMode !== "lexical" && text.trim() !== "") {
    // Called synchronously, so the host's work (e.g. a fetch) starts before Sf runs.
    pendingEmbed = embedTexts(settings, [text]);
  }
  const pending = callEngine(() => engine.beginRecall(text, opts));
  const texts = engine.queryTexts(pending);
  // The engine's texts are the ones it wants vectors for: none for a recall with no query.
  if (texts.length === 0) pendingEmbed = undefined;
  else if (several && vector === undefined && pending.wantsEmbedding) pendingEmbed = embedTexts(settings, texts);
  // Pronouns resolved ("what did she decide?" → "…Alice…"): the vector is made from that text.
  else if (texts[0] !== text && pendingEmbed !== undefined && pending.wantsEmbedding) pendingEmbed = embedTexts(settings, texts);
  let reason: string | undefined;
  if (!pending.wantsEmbedding) {
    vector = undefined;
  } else if (vector === undefined) {
    if (pendingEmbed === undefined) {
      reason = "no_embedder";
    } else {
      try {
        const vectors = await withTimeout(pendingEmbed, settings.embedTimeoutMs);
        vector = joinVectors(vectors, texts.length, engine.dimensions);
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
    const candidates = engine.rerankTexts(ranked);
    const started = performance.now();
    const answer = candidates.length === 0
      ? { scores: new Float64Array(0), reason: null }
      // The question as the stages read it (pronouns resolved), not as asked: a cross-encoder
      // cannot tell who "she" is.
      : await rerankTexts(rerank, texts[0] ?? text, candidates, settings.rerankTimeoutMs);
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
    // Replaced meanwhile (a re-read after drift): the engine now in place takes this recall's tracking.
    const current = slot.engine;
    if (current !== undefined && current !== engine) carryTracking(engine, current, tracked);
    if (tracked.length > 0) {
      // Written behind the answer (`WriteQueue.scheduleTracking`): a recall is a read, and
      // waiting for the counts to be durable cost it a commit (about 1 ms in Chromium and on
      // a file store) or, behind a large import, that import's whole time.
      writes.track(tracked);
      writes.scheduleTracking();
    }
  }
  return result;
}
