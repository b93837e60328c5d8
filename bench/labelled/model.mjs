// Deterministic building blocks of the labelled set: a seeded PRNG and a word-vector model
// that stands in for a host's embedding model.
//
// The model (DIMS = 128):
//
//   word(w)  = normalise(meaning(w) + SUBWORD · normalise(Σ trigram(t) for t in trigrams("#w#")))
//   text(s)  = normalise(Σ weight(w) · word(w) for w in tokens(s))      weight = 0.15 for stopwords, 1 otherwise
//   embed(s) = normalise(text(s) + ANISOTROPY · common)
//
// meaning(w) is a pseudo-random unit vector drawn from a hash of w; for a word of a synonym
// group (world.mjs SYNONYMS) it is normalise(SYNONYM_SHARE · group + (1 − SYNONYM_SHARE) · own),
// so synonyms have a meaning cosine of about 0.85 and paraphrases embed close; the trigram part keeps a
// misspelt word near its original (about half of its trigrams survive one edit), as subword
// models do; `common` is one fixed unit vector added to every text, so, as with real sentence
// embedders, unrelated texts still have a cosine around 0.3 (ANISOTROPY² / (1 + ANISOTROPY²)).
// Only + − × ÷ and sqrt are used, so the vectors are bit-identical on every platform.

import { STOPWORDS, SYNONYMS } from "./world.mjs";

/** Embedding dimension. */
export const DIMS = 128;
/** Weight of the subword (trigram) part of a word vector. */
export const SUBWORD = 0.6;
/** Weight of the direction every text shares. */
export const ANISOTROPY = 0.65;
/** Share of a synonym's meaning vector that its group has in common (the rest is its own). */
export const SYNONYM_SHARE = 0.7;
/** Weight of a stopword in a text vector. */
export const STOPWORD_WEIGHT = 0.15;

/** mulberry32: a small, fast, seeded 32-bit PRNG; returns a function giving floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Helpers over a PRNG. */
export class Rng {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  /** An integer in [0, n). */
  int(n) {
    return Math.floor(this.next() * n);
  }
  /** An integer in [lo, hi]. */
  range(lo, hi) {
    return lo + this.int(hi - lo + 1);
  }
  pick(arr) {
    return arr[this.int(arr.length)];
  }
  chance(p) {
    return this.next() < p;
  }
  /** A shuffled copy (Fisher–Yates). */
  shuffle(arr) {
    const out = arr.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
  /** k distinct items, in random order. */
  sample(arr, k) {
    return this.shuffle(arr).slice(0, k);
  }
}

/** FNV-1a 32-bit hash of a string's UTF-16 code units. */
export function fnv1a(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Lower-cased word tokens (letters and digits; diacritics folded). */
export function words(text) {
  return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

function randomUnit(key) {
  const next = mulberry32(fnv1a(key));
  const v = new Float64Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = next() * 2 - 1;
  return normalise(v);
}

function normalise(v) {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

const GROUP = new Map();
SYNONYMS.forEach((group, g) => {
  for (const w of group) if (!GROUP.has(w)) GROUP.set(w, `syn:${g}`);
});
const COMMON = randomUnit("common-direction");
const wordCache = new Map();

/** The unit vector of one (lower-cased) word. */
export function wordVector(w) {
  let v = wordCache.get(w);
  if (v !== undefined) return v;
  const group = GROUP.get(w);
  const meaning = randomUnit(`word:${w}`);
  if (group !== undefined) {
    const shared = randomUnit(group);
    for (let d = 0; d < DIMS; d++) meaning[d] = SYNONYM_SHARE * shared[d] + (1 - SYNONYM_SHARE) * meaning[d];
    normalise(meaning);
  }
  const sub = new Float64Array(DIMS);
  const padded = `#${w}#`;
  for (let i = 0; i + 3 <= padded.length; i++) {
    const t = randomUnit(`tri:${padded.slice(i, i + 3)}`);
    for (let d = 0; d < DIMS; d++) sub[d] += t[d];
  }
  normalise(sub);
  v = new Float64Array(DIMS);
  for (let d = 0; d < DIMS; d++) v[d] = meaning[d] + SUBWORD * sub[d];
  normalise(v);
  wordCache.set(w, v);
  return v;
}

/** The host-style embedding of a text (a Float32Array of DIMS). */
export function embed(text) {
  const v = new Float64Array(DIMS);
  for (const w of words(text)) {
    const weight = STOPWORDS.has(w) ? STOPWORD_WEIGHT : 1;
    const wv = wordVector(w);
    for (let d = 0; d < DIMS; d++) v[d] += weight * wv[d];
  }
  normalise(v);
  for (let d = 0; d < DIMS; d++) v[d] += ANISOTROPY * COMMON[d];
  return Float32Array.from(normalise(v));
}

/** Cosine of two vectors. */
export function cosine(a, b) {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}
