// Helpers shared by the contender modules.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Repository root (bench/contenders/../..). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Minimum cosine for engines that filter vector hits (Orama `similarity`, recallkit
 * `similarityThreshold`). Their defaults (0.8, 0.5) suit learned embeddings; in this corpus's
 * random-projection model unrelated memories sit at ±0.05 and a query's source at 0.25–0.7,
 * so 0.1 drops noise and keeps every relevant memory.
 */
export const VECTOR_SIMILARITY = 0.1;

/** Installed version of an npm package, read from node_modules. */
export function libraryVersion(name) {
  try {
    return JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return "missing";
  }
}

/**
 * UTF-8 length of JSON.stringify(value), also for values whose JSON exceeds V8's maximum
 * string length (~512 MiB): on RangeError the children are measured one by one.
 */
export function jsonBytes(value) {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? "null");
  } catch (e) {
    if (!(e instanceof RangeError) || value === null || typeof value !== "object") throw e;
    if (typeof value.toJSON === "function") return jsonBytes(value.toJSON());
    const skip = (v) => v === undefined || typeof v === "function" || typeof v === "symbol";
    if (Array.isArray(value)) {
      let total = 2 + Math.max(0, value.length - 1);
      for (const v of value) total += skip(v) ? 4 : jsonBytes(v);
      return total;
    }
    let total = 2;
    let first = true;
    for (const [key, v] of Object.entries(value)) {
      if (skip(v)) continue;
      total += (first ? 0 : 1) + Buffer.byteLength(JSON.stringify(key)) + 1 + jsonBytes(v);
      first = false;
    }
    return total;
  }
}

/** Thrown for a feature a contender does not have (yet); the worker reports "unavailable". */
export class Unavailable extends Error {}

/** Reciprocal rank fusion (Cormack et al. 2009): score(d) = Σ 1 / (k + rank), rank from 1. */
export function reciprocalRankFusion(lists, limit, k = 60) {
  const scores = new Map();
  for (const list of lists) {
    for (let r = 0; r < list.length; r++) scores.set(list[r], (scores.get(list[r]) ?? 0) + 1 / (k + r + 1));
  }
  return [...scores]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit)
    .map(([id]) => id);
}
