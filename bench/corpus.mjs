//! Deterministic benchmark corpus: memories, their vectors, and labelled queries.
//!
//! Everything here is a pure function of (n, seed): no Math.random, no clocks,
//! and only +, -, *, /, Math.sqrt and 32-bit integer operations on numbers, so
//! the bytes are the same on every IEEE-754 engine. bench/corpus-fingerprints.json
//! records a SHA-256 of the output; bench/run.mjs checks it, so a change to the
//! generator (or to bench/words.mjs) is noticed and reviewed like a golden file.
//!
//! ## Texts
//! A memory is one to three short English sentences (8–45 words) from a dozen
//! templates an assistant would store: meetings, preferences, invoices, flights,
//! todos, family facts, incidents, door codes, free notes. Slots are filled with
//!   - nouns, verbs, adjectives and adverbs drawn with a Zipf–Mandelbrot law
//!     p(r) ∝ 1 / (r + 2.7) over each frequency-ordered list (s = 1 keeps it exact);
//!     15 % of nouns come from a synthetic tail of 20,000 pronounceable words
//!     (product names, jargon), itself Zipfian, so the vocabulary keeps growing with n;
//!   - person names, cities, companies (Zipfian too: a few people recur a lot);
//!   - dates (ISO, "12 March 2024", "March 12"), times, amounts, percentages;
//!   - codes: INV-48213, ABC-1234 tickets, LH1234 flights, v2.13.4, 4-digit PINs.
//! One memory, at index floor(n / 2), is the canary (CANARY): its words occur
//! nowhere else, and CANARY.query must return it first in every contender.
//!
//! ## Vectors (DIMS = 384), a bag-of-words random-projection model
//!   word(w)   = unit vector of 384 uniform values in [-1, 1), from a PRNG seeded by FNV-1a(w)
//!   text(t)   = normalise( Σ_w weight(w) · word(w) + noise ),  weight = 0.25 for stopwords, 1 otherwise
//!   noise     = 384 uniform values in [-1, 1) scaled to norm NOISE_RATIO · sqrt(#words),
//!               from a PRNG seeded by the memory (or query) index
//! Tokens are the lowercase [a-z0-9]+ runs. Random unit vectors in 384 dims are
//! nearly orthogonal (cosine ≈ ±0.05), so cosine(text a, text b) is about the
//! weighted share of words they have in common: a query holding half of a
//! memory's words has cosine ≈ 0.6 with it and ≈ 0 with unrelated memories.
//! A misspelled word gets an unrelated vector, like an out-of-vocabulary token.
//!
//! ## Queries (each labelled with its source memory, the one relevant answer)
//!   exact       3–5 content words of the source, in text order
//!   typo        3–5 content words; each word of ≥ 4 letters gets one edit
//!               (substitute, delete, insert, transpose; never the first letter)
//!               with probability 0.3, and at least one word is edited
//!   paraphrase  half of all the source's words (stopwords included), shuffled
//! Classes alternate exact, typo, paraphrase; sources are uniform over the corpus.
//! Query vectors come from text() above, so paraphrase queries have useful vectors.

import { createHash } from "node:crypto";
import * as W from "./words.mjs";

/** Vector dimensions. */
export const DIMS = 384;
/** Default corpus seed. */
export const DEFAULT_SEED = 20240607;
/** Query classes, in the order queries are generated. */
export const QUERY_CLASSES = ["exact", "typo", "paraphrase"];
/** Fixed `now` for recency-aware engines (2026-01-01T00:00:00Z). */
export const FIXED_NOW_MS = 1767225600000;
/** Norm of the noise vector relative to sqrt(word count). */
export const NOISE_RATIO = 0.35;
/** Weight of a stopword in the text vector. */
export const STOPWORD_WEIGHT = 0.25;
/** Probability that a word of a typo query is misspelled. */
export const TYPO_RATE = 0.3;
/** Share of nouns drawn from the synthetic tail. */
const TAIL_NOUN_SHARE = 0.15;
/** Size of the synthetic tail vocabulary. */
const TAIL_SIZE = 20000;
/** Zipf–Mandelbrot offset q in 1 / (rank + q). */
const ZIPF_OFFSET = 2.7;
const FIRST_CREATED_MS = 1672531200000; // 2023-01-01T00:00:00Z
const DAY_MS = 86400000;

/** The canary memory: unique words, checked as the top hit of CANARY.query. */
export const CANARY = {
  text: "Quokka zeppelin maintenance at Kittiwake harbour is booked for 1999-12-31 under ticket QZK-0001.",
  query: "quokka zeppelin kittiwake",
};

// ---------------------------------------------------------------------------
// PRNG and hashing

/** FNV-1a over UTF-16 code units, 32-bit. */
export function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Four 32-bit words from splitmix32 started at `seed`: an sfc32 state. */
function splitSeed(seed) {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  return [split(), split(), split(), split()];
}

/** sfc32 seeded through splitmix32; returns an object of sampling helpers. */
export function createRng(seed) {
  let [a, b, c, d] = splitSeed(seed);
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) next();
  const rng = {
    next,
    /** Uniform in [0, 1), exact multiple of 2^-32. */
    float: () => next() / 4294967296,
    /** Uniform integer in [0, n). */
    int: (n) => Math.floor((next() / 4294967296) * n),
    /** Uniform integer in [lo, hi]. */
    range: (lo, hi) => lo + Math.floor((next() / 4294967296) * (hi - lo + 1)),
    chance: (p) => next() / 4294967296 < p,
    pick: (items) => items[Math.floor((next() / 4294967296) * items.length)],
    /** Fisher–Yates, in place. */
    shuffle(items) {
      for (let i = items.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [items[i], items[j]] = [items[j], items[i]];
      }
      return items;
    },
  };
  return rng;
}

// ---------------------------------------------------------------------------
// Vocabulary

/** Sampler of a frequency-ordered list with p(rank) ∝ 1 / (rank + ZIPF_OFFSET). */
function zipf(items) {
  const cdf = new Float64Array(items.length);
  let total = 0;
  for (let r = 0; r < items.length; r++) {
    total += 1 / (r + 1 + ZIPF_OFFSET);
    cdf[r] = total;
  }
  return (rng) => {
    const u = rng.float() * total;
    let lo = 0, hi = items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return items[lo];
  };
}

const unique = (items) => [...new Set(items)];

function syntheticWords(count, seed, taken) {
  const rng = createRng(seed);
  const seen = new Set(taken);
  const out = [];
  while (out.length < count) {
    const syllables = rng.range(2, 3);
    let word = "";
    for (let i = 0; i < syllables; i++) word += rng.pick(W.ONSETS) + rng.pick(W.NUCLEI) + (i === syllables - 1 ? rng.pick(W.CODAS) : "");
    if (word.length < 4 || seen.has(word)) continue;
    seen.add(word);
    out.push(word);
  }
  return out;
}

let vocabulary = null;
function vocab() {
  if (vocabulary) return vocabulary;
  const canaryWords = tokens(CANARY.text);
  const nouns = unique(W.NOUNS);
  const adjectives = unique(W.ADJECTIVES);
  const taken = [...nouns, ...adjectives, ...W.STOPWORDS, ...canaryWords, ...W.VERBS.flat()];
  const tail = syntheticWords(TAIL_SIZE, 0x7a11, taken);
  const companyRoots = syntheticWords(3000, 0xc0c0, [...taken, ...tail]);
  const companies = companyRoots.map((root, i) => cap(root) + " " + W.COMPANY_SUFFIXES[i % W.COMPANY_SUFFIXES.length]);
  vocabulary = {
    noun: zipf(nouns),
    tail: zipf(tail),
    verb: zipf(W.VERBS),
    adjective: zipf(adjectives),
    adverb: zipf(W.ADVERBS),
    first: zipf(W.FIRST_NAMES),
    last: zipf(W.LAST_NAMES),
    place: zipf(W.PLACES),
    company: zipf(companies),
    stopwords: new Set(W.STOPWORDS),
  };
  return vocabulary;
}

const article = (word) => (/^[aeiou]/.test(word) ? "an " : "a ") + word;
const cap = (word) => word[0].toUpperCase() + word.slice(1);
const pad = (value, width) => String(value).padStart(width, "0");

// ---------------------------------------------------------------------------
// Text templates

function slots(rng) {
  const v = vocab();
  const noun = () => (rng.chance(TAIL_NOUN_SHARE) ? v.tail(rng) : v.noun(rng));
  const person = () => `${v.first(rng)} ${v.last(rng)}`;
  const year = rng.range(2019, 2025);
  const month = rng.int(12);
  const day = rng.range(1, 28);
  const date = () => {
    switch (rng.int(3)) {
      case 0: return `${year}-${pad(month + 1, 2)}-${pad(day, 2)}`;
      case 1: return `${day} ${W.MONTHS[month]} ${year}`;
      default: return `${W.MONTHS[month]} ${day}`;
    }
  };
  const amount = () => (rng.chance(0.5) ? `${rng.range(1, 9)},${pad(rng.int(1000), 3)}.${pad(rng.int(100), 2)}` : String(rng.range(5, 999)));
  const letters = (count) => Array.from({ length: count }, () => String.fromCharCode(65 + rng.int(26))).join("");
  return {
    rng, v, noun, person, date, amount, letters,
    first: () => v.first(rng),
    place: () => v.place(rng),
    company: () => v.company(rng),
    verb: () => v.verb(rng)[0],
    past: () => v.verb(rng)[1],
    adj: () => v.adjective(rng),
    adverb: () => v.adverb(rng),
    weekday: () => rng.pick(W.WEEKDAYS),
    time: () => (rng.chance(0.5) ? `${pad(rng.range(7, 20), 2)}:${rng.pick(["00", "15", "30", "45"])}` : `${rng.range(1, 11)}${rng.pick(["am", "pm"])}`),
    percent: () => `${rng.range(2, 95)}%`,
    invoice: () => `INV-${rng.range(10000, 99999)}`,
    ticket: () => `${letters(3)}-${rng.range(100, 9999)}`,
    flight: () => `${letters(2)}${rng.range(100, 9999)}`,
    version: () => `v${rng.range(1, 9)}.${rng.range(0, 30)}.${rng.range(0, 20)}`,
    pin: () => pad(rng.int(10000), 4),
  };
}

// Each template returns [topic, sentence].
const TEMPLATES = [
  (s) => ["work", `Met ${s.person()} at the ${s.noun()} in ${s.place()} on ${s.weekday()}; we talked about the ${s.adj()} ${s.noun()} and the ${s.noun()} ${s.noun()}.`],
  (s) => ["project", `${s.first()} said the ${s.adj()} ${s.noun()} for the ${s.noun()} project is due on ${s.date()}.`],
  (s) => ["personal", `${s.person()} prefers ${s.adj()} ${s.noun()} and does not like ${s.noun()} with ${s.noun()}.`],
  (s) => ["finance", `Invoice ${s.invoice()} for ${s.amount()} ${s.rng.pick(W.CURRENCIES)} from ${s.company()} was ${s.rng.pick(["paid", "sent", "disputed", "approved"])} on ${s.date()}.`],
  (s) => ["work", `Todo: ${s.verb()} the ${s.noun()} ${s.noun()} before ${s.weekday()} and send it to ${s.first()}.`],
  (s) => ["family", `${s.first()}'s ${s.rng.pick(W.RELATIONS)} ${s.first()} lives in ${s.place()} and works as ${article(s.rng.pick(W.JOBS))} at ${s.company()}.`],
  (s) => ["travel", `Flight ${s.flight()} from ${s.place()} to ${s.place()} leaves at ${s.time()} on ${s.date()}, seat ${s.rng.range(1, 40)}${s.letters(1)}.`],
  (s) => ["project", `The ${s.noun()} ${s.past()} ${s.adverb()} after the ${s.adj()} ${s.noun()} update ${s.version()}; see ticket ${s.ticket()}.`],
  (s) => ["personal", `Remember: the ${s.noun()} code at ${s.first()}'s ${s.noun()} is ${s.pin()} and the spare key is under the ${s.noun()}.`],
  (s) => ["health", `${s.first()} has a ${s.noun()} appointment with Dr ${s.v.last(s.rng)} on ${s.date()} at ${s.time()}.`],
  (s) => ["shopping", `Bought ${s.rng.range(2, 12)} ${s.adj()} ${s.noun()} for ${s.amount()} at ${s.company()}, ${s.percent()} off.`],
  (s) => [s.rng.pick(W.TOPICS), freeSentence(s)],
];

// Extra clauses that lengthen a memory.
const CLAUSES = [
  (s) => ` ${s.first()} ${s.past()} the ${s.adj()} ${s.noun()} ${s.adverb()}.`,
  (s) => ` It was about the ${s.noun()} in ${s.place()}.`,
  (s) => ` Follow up with ${s.person()} about the ${s.noun()} ${s.noun()}.`,
  (s) => ` ${freeSentence(s)}`,
];

const DETERMINERS = ["the", "the", "the", "a", "our", "my", "their", "this"];
const PREPOSITIONS = ["before", "after", "during", "for", "with", "about", "without", "near"];

/** One or two simple clauses: determiner, optional adjective, noun, past verb, object, prepositional phrase. */
function freeSentence(s) {
  const phrase = () => {
    const head = `${s.rng.chance(0.5) ? s.adj() + " " : ""}${s.noun()}`;
    const determiner = s.rng.pick(DETERMINERS);
    return determiner === "a" ? article(head) : `${determiner} ${head}`;
  };
  const clause = () => {
    let c = `${phrase()} ${s.past()} ${phrase()}`;
    if (s.rng.chance(0.6)) c += ` ${s.rng.pick(PREPOSITIONS)} ${phrase()}`;
    if (s.rng.chance(0.3)) c += ` ${s.adverb()}`;
    return c;
  };
  const text = s.rng.chance(0.35) ? `${clause()} and ${clause()}` : clause();
  return cap(text) + ".";
}

/**
 * A copy of `text` as one flat string. Concatenation builds V8 rope strings, which an engine
 * flattens when it first reads them; flattening inside a contender's build would free rope
 * nodes and make its heap delta look smaller than it is.
 */
const flat = (text) => Buffer.from(text, "utf8").toString("utf8");

function memoryText(rng) {
  const s = slots(rng);
  const [topic, first] = rng.pick(TEMPLATES)(s);
  let text = first;
  const clauses = rng.chance(0.55) ? rng.range(1, 2) : 0;
  for (let i = 0; i < clauses; i++) text += rng.pick(CLAUSES)(s);
  return { topic: flat(topic), text: flat(text) };
}

// ---------------------------------------------------------------------------
// Vectors

/** Lowercase [a-z0-9]+ tokens of a text (the vector model's tokenizer). */
export function tokens(text) {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

const wordScratch = new Float64Array(DIMS);
/** Unit vectors of the listed words (a few thousand), computed once; rarer tokens are recomputed. */
const wordCache = new Map();
let cacheable = null;

function addWordVector(word, weight, out) {
  cacheable ??= new Set(
    [W.STOPWORDS, W.NOUNS, W.VERBS.flat(), W.ADJECTIVES, W.ADVERBS, W.FIRST_NAMES, W.LAST_NAMES, W.PLACES, W.MONTHS, W.WEEKDAYS]
      .flat()
      .map((w) => w.toLowerCase()),
  );
  let unit = wordCache.get(word);
  if (!unit) {
    unit = new Float64Array(DIMS);
    writeWordVector(word, unit);
    if (cacheable.has(word)) wordCache.set(word, unit);
  }
  for (let i = 0; i < DIMS; i++) out[i] += unit[i] * weight;
}

/**
 * Pseudo-random unit vector of a word, written into `out`.
 * sfc32 (as in createRng) inlined: this runs once per rare token of the corpus.
 */
function writeWordVector(word, out) {
  let [a, b, c, d] = splitSeed(fnv1a(word) ^ 0x5eed1e55);
  const v = wordScratch;
  let norm = 0;
  for (let i = -12; i < DIMS; i++) {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    if (i < 0) continue; // the same 12 warm-up draws as createRng
    const x = (t / 4294967296) * 2 - 1;
    v[i] = x;
    norm += x * x;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < DIMS; i++) out[i] = v[i] * scale;
}

/** The model's vector of a text, written into `out` (length DIMS); noise seeded by `noiseSeed`. */
export function embed(text, noiseSeed, out = new Float32Array(DIMS)) {
  const words = tokens(text);
  const stop = vocab().stopwords;
  const acc = new Float64Array(DIMS);
  for (const w of words) addWordVector(w, stop.has(w) ? STOPWORD_WEIGHT : 1, acc);
  const noise = createRng(noiseSeed ^ 0x00c0ffee);
  const n = new Float64Array(DIMS);
  let noiseNorm = 0;
  for (let i = 0; i < DIMS; i++) {
    n[i] = noise.float() * 2 - 1;
    noiseNorm += n[i] * n[i];
  }
  const noiseScale = (NOISE_RATIO * Math.sqrt(Math.max(words.length, 1))) / Math.sqrt(noiseNorm);
  let norm = 0;
  for (let i = 0; i < DIMS; i++) {
    acc[i] += n[i] * noiseScale;
    norm += acc[i] * acc[i];
  }
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < DIMS; i++) out[i] = acc[i] * inv;
  return out;
}

// ---------------------------------------------------------------------------
// Corpus and queries

/**
 * The n memories: `{ index, id, text, topic, tags, createdAt }`, plus `embedding`
 * (a Float32Array view into one shared buffer) when `vectors` is true.
 */
export function generateCorpus(n, { seed = DEFAULT_SEED, vectors = false } = {}) {
  const rng = createRng(seed);
  const canaryIndex = Math.floor(n / 2);
  const docs = new Array(n);
  const matrix = vectors ? new Float32Array(n * DIMS) : null;
  for (let i = 0; i < n; i++) {
    const { topic, text } = i === canaryIndex ? { topic: "travel", text: CANARY.text } : memoryText(rng);
    const tagCount = rng.chance(0.6) ? rng.range(1, 2) : 0;
    const tags = unique(Array.from({ length: tagCount }, () => rng.pick(W.TAGS)));
    const createdAt = FIRST_CREATED_MS + rng.int(730) * DAY_MS + rng.int(DAY_MS);
    const doc = { index: i, id: flat(`m${i}`), text, topic, tags, createdAt };
    if (matrix) doc.embedding = embed(text, seed + i, matrix.subarray(i * DIMS, (i + 1) * DIMS));
    docs[i] = doc;
  }
  return { docs, matrix, canaryIndex };
}

const stripPunctuation = (word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");

/** Whitespace words of a text with surrounding punctuation removed. */
function words(text) {
  return text.split(/\s+/).map(stripPunctuation).filter(Boolean);
}

function contentWords(text) {
  const stop = vocab().stopwords;
  return words(text).filter((w) => !stop.has(w.toLowerCase()));
}

/** Up to `count` items of `items` at random, kept in their original order. */
function sampleInOrder(rng, items, count) {
  const picked = rng.shuffle(items.map((_, i) => i)).slice(0, count).sort((a, b) => a - b);
  return picked.map((i) => items[i]);
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** One edit (substitute, delete, insert, transpose) at a position after the first letter. */
export function misspell(rng, word) {
  const pos = rng.range(1, word.length - 1);
  switch (rng.int(4)) {
    case 0: {
      let letter = rng.pick(LETTERS);
      if (letter === word[pos].toLowerCase()) letter = LETTERS[(LETTERS.indexOf(letter) + 1) % 26];
      return word.slice(0, pos) + letter + word.slice(pos + 1);
    }
    case 1: return word.slice(0, pos) + word.slice(pos + 1);
    case 2: return word.slice(0, pos) + rng.pick(LETTERS) + word.slice(pos);
    default: {
      const p = Math.min(pos, word.length - 2);
      if (word[p] === word[p + 1]) return word.slice(0, p) + word.slice(p + 1); // swap would be a no-op
      return word.slice(0, p) + word[p + 1] + word[p] + word.slice(p + 2);
    }
  }
}

const canMisspell = (word) => word.length >= 4 && /^\p{L}+$/u.test(word);

function typoQuery(rng, keywords) {
  const out = keywords.map((w) => (canMisspell(w) && rng.chance(TYPO_RATE) ? misspell(rng, w) : w));
  if (out.every((w, i) => w === keywords[i])) {
    const candidates = keywords.map((w, i) => i).filter((i) => canMisspell(keywords[i]));
    const target = candidates.length ? candidates[rng.int(candidates.length)] : -1;
    if (target >= 0) out[target] = misspell(rng, keywords[target]);
  }
  return out.join(" ");
}

/**
 * `count` queries over a corpus of `docs`: `{ class, text, source, vector? }`,
 * classes cycling exact, typo, paraphrase. `salt` separates independent sets
 * (e.g. warm-up vs measured). The canary memory is never a source.
 */
export function generateQueries(docs, count, { seed = DEFAULT_SEED, salt = 1, vectors = false } = {}) {
  const rng = createRng((seed ^ Math.imul(salt, 0x9e3779b1)) >>> 0);
  const canaryIndex = Math.floor(docs.length / 2);
  const queries = [];
  for (let q = 0; q < count; q++) {
    const cls = QUERY_CLASSES[q % 3];
    let source = rng.int(docs.length);
    if (source === canaryIndex) source = (source + 1) % docs.length;
    const text = docs[source].text;
    let query;
    if (cls === "paraphrase") {
      const all = words(text);
      query = rng.shuffle(all.slice()).slice(0, Math.ceil(all.length / 2)).join(" ");
    } else {
      const keywords = sampleInOrder(rng, contentWords(text), rng.range(3, 5));
      query = cls === "exact" ? keywords.join(" ") : typoQuery(rng, keywords);
    }
    const item = { class: cls, text: flat(query), source };
    if (vectors) item.vector = embed(query, (seed ^ 0x51ab1e) + q * 7919 + salt);
    queries.push(item);
  }
  return queries;
}

/** Vector of the canary query. */
export function canaryVector(seed = DEFAULT_SEED) {
  return embed(CANARY.query, seed ^ 0xca7a);
}

/**
 * SHA-256 fingerprints (hex, first 16 chars): `text` over texts, metadata and
 * queries; `vectors` over memory and query vectors, or null when there are none.
 */
export function fingerprint(docs, queries) {
  const text = createHash("sha256");
  const vectors = createHash("sha256");
  let hasVectors = false;
  const bytes = (v) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  for (const d of docs) {
    text.update(`${d.id}\t${d.text}\t${d.topic}\t${d.tags.join(",")}\t${d.createdAt}\n`);
    if (d.embedding) (hasVectors = true), vectors.update(bytes(d.embedding));
  }
  for (const q of queries) {
    text.update(`${q.class}\t${q.source}\t${q.text}\n`);
    if (q.vector) (hasVectors = true), vectors.update(bytes(q.vector));
  }
  return { text: text.digest("hex").slice(0, 16), vectors: hasVectors ? vectors.digest("hex").slice(0, 16) : null };
}
