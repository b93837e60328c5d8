// Orama (@orama/orama): full-text BM25 over radix trees, optional tolerance (Levenshtein),
// brute-force vector search and a hybrid of both.
// Variants: "default" (term search, defaults), "tol1" (tolerance 1), "vector" and "hybrid"
// (similarity threshold lowered to VECTOR_SIMILARITY, see common.mjs; Orama's default 0.8 drops
// almost every relevant memory of this corpus). Persisted size is JSON.stringify(save(db)); open time is
// create + load of the parsed JSON.
//
// Orama keeps the inserted objects as its document store, so each memory is inserted as a
// fresh { id, text } object: the store is counted as index memory, as it would be for a user
// who drops their own copy. Vectors go in as number[] (what an embedding API returns; Orama's
// schema check rejects a Float32Array), which Orama copies into its own Float32Array. Search uses includeVectors: true
// because without it Orama overwrites the stored document's vector with null.

import { create, insertMultiple, search, save, load } from "@orama/orama";
import { DIMS } from "../corpus.mjs";
import { jsonBytes, libraryVersion, Unavailable, VECTOR_SIMILARITY } from "./common.mjs";

const BATCH = 5000;

const indexOf = (hit) => Number(hit.id.slice(1));
/**
 * From this many vectors on, save(db) JSON (~17 KB per memory) is far past V8's maximum string
 * length; counting it in parts takes minutes, so it is reported n/a.
 */
const MAX_VECTOR_JSON_DOCS = 50000;

function variant(name, { vectors = false, params, kind = "lexical", notes }) {
  const schema = vectors ? { text: "string", embedding: `vector[${DIMS}]` } : { text: "string" };
  return {
    name,
    library: `@orama/orama@${libraryVersion("@orama/orama")}`,
    kind,
    needsVectors: vectors,
    notes,
    create() {
      let db = create({ schema });
      let json = null;
      let count = 0;
      return {
        async build(docs) {
          const rows = docs.map((d) => (vectors ? { id: d.id, text: d.text, embedding: Array.from(d.embedding) } : { id: d.id, text: d.text }));
          await insertMultiple(db, rows, BATCH);
          count = docs.length;
        },
        async search(query, k) {
          const res = await search(db, { ...params(query), limit: k });
          return res.hits.map(indexOf);
        },
        size() {
          if (vectors && count >= MAX_VECTOR_JSON_DOCS) {
            return { bytes: null, note: `n/a: save(db) JSON of ${count} vectors exceeds V8's maximum string length` };
          }
          const raw = save(db);
          try {
            json = JSON.stringify(raw);
            return { bytes: Buffer.byteLength(json), note: "JSON.stringify(save(db))" };
          } catch (e) {
            if (!(e instanceof RangeError)) throw e;
            return { bytes: jsonBytes(raw), note: "JSON of save(db), counted in parts: longer than V8's maximum string, so it cannot be reopened" };
          }
        },
        open() {
          if (json === null) throw new Unavailable("the JSON is longer than V8's maximum string length");
          db = create({ schema });
          load(db, JSON.parse(json));
        },
      };
    },
  };
}

const vector = (query) => ({ value: query.vector, property: "embedding" });

export const contenders = [
  variant("orama-default", { params: (q) => ({ term: q.text }), notes: "term search, default options (tolerance 0, threshold 1 = OR)" }),
  variant("orama-tol1", { params: (q) => ({ term: q.text, tolerance: 1 }), notes: "term search, tolerance 1" }),
  variant("orama-vector", {
    vectors: true,
    kind: "vector",
    params: (q) => ({ mode: "vector", vector: vector(q), similarity: VECTOR_SIMILARITY, includeVectors: true }),
    notes: `mode vector, similarity ${VECTOR_SIMILARITY}`,
  }),
  variant("orama-hybrid", {
    vectors: true,
    kind: "hybrid",
    params: (q) => ({ mode: "hybrid", term: q.text, vector: vector(q), similarity: VECTOR_SIMILARITY, includeVectors: true }),
    notes: `mode hybrid (default weights), similarity ${VECTOR_SIMILARITY}`,
  }),
];

/**
 * Vector and hybrid search at Orama's default similarity (0.8): what a user who leaves
 * `similarity` unset gets. Measured for recall quality only (bench/locomo/eval.mjs), beside the
 * rows above: with sentence embeddings such as MiniLM a question and the turn that answers it
 * rarely reach 0.8 (docs/quality.md), and on the speed benchmark's random projections nothing
 * relevant does.
 */
export const defaultSimilarity = [
  variant("orama-vector-0.8", {
    vectors: true,
    kind: "vector",
    params: (q) => ({ mode: "vector", vector: vector(q), includeVectors: true }),
    notes: "mode vector, default similarity (0.8)",
  }),
  variant("orama-hybrid-0.8", {
    vectors: true,
    kind: "hybrid",
    params: (q) => ({ mode: "hybrid", term: q.text, vector: vector(q), includeVectors: true }),
    notes: "mode hybrid (default weights), default similarity (0.8)",
  }),
];
