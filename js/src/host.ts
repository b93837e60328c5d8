/**
 * The host's functions the store calls: `embed` (while storing, and for a recall's query) and
 * `rerank`, each under a timeout, with their answers checked. A storing embed that fails is an
 * error (`embed_failed`, `embed_timeout`: nothing is stored); a recall's embed or rerank that
 * fails only skips its step, with the reason in the stage report (`recall.ts`).
 * @module
 */
import { RecallError } from "./errors.js";
import type { EmbedFunction, RerankFunction } from "./types.js";
import { toVector } from "./validate.js";

/** A host function (embed, rerank) gave no answer in time. */
export class TimedOut extends Error {}

/** Resolves as `promise`, or rejects with {@link TimedOut} after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Calls the host's `embed` for `texts` (while storing), checking each vector against the
 * dimension `dimensions()` gives once the answer is in. Errors are `embed_failed` /
 * `embed_timeout`; nothing is stored on failure.
 */
export async function embedTexts(
  embed: EmbedFunction | undefined, texts: string[], timeoutMs: number, dimensions: () => number | undefined,
): Promise<Float32Array[]> {
  if (embed === undefined) throw new RecallError("internal", "no embed function");
  let vectors: ArrayLike<unknown>;
  try {
    vectors = await withTimeout(Promise.resolve().then(() => embed(texts)), timeoutMs);
  } catch (e) {
    if (e instanceof TimedOut) throw new RecallError("embed_timeout", `embed() gave no answer within ${timeoutMs} ms`);
    throw new RecallError("embed_failed", `embed() failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    throw new RecallError("embed_failed", `embed() must return one vector per text (${texts.length}), got ${Array.isArray(vectors) ? vectors.length : typeof vectors}`);
  }
  const dims = dimensions();
  // Array.from visits the holes of a sparse answer, which map() would leave as missing vectors.
  return Array.from(vectors, (v, i) => toVector(v, `embed() vector ${i}`, "", dims ?? (vectors[0] as ArrayLike<number>)?.length));
}

/**
 * Asks the host's reranker for one finite score per text; on a throw, a rejection, a
 * timeout or a malformed answer, no scores and the reason (recall keeps the fused order).
 */
export async function rerankTexts(
  rerank: RerankFunction, query: string, texts: string[], timeoutMs: number,
): Promise<{ scores: Float64Array | null; reason: string | null }> {
  let answer: unknown;
  try {
    answer = await withTimeout(Promise.resolve().then(() => rerank(query, texts)), timeoutMs);
  } catch (e) {
    return { scores: null, reason: e instanceof TimedOut ? "rerank_timeout" : "rerank_failed" };
  }
  const ok = (Array.isArray(answer) || answer instanceof Float64Array || answer instanceof Float32Array)
    && answer.length === texts.length;
  if (!ok) return { scores: null, reason: "rerank_failed" };
  const scores = Float64Array.from(answer as ArrayLike<number>);
  if (!scores.every(Number.isFinite)) return { scores: null, reason: "rerank_failed" };
  return { scores, reason: null };
}
