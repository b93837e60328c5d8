// Plain JavaScript exact vector scan: the reference every vector engine is compared with.
// Vectors are copied into one Float32Array (n × dims, row-major) with their norms; a query
// is a dot-product loop over every row, cosine = dot / (|q| |d|), top-k by insertion.

import { DIMS } from "../corpus.mjs";

/**
 * The k rows of `matrix` with the highest cosine to `query`, best first, ties to the lower
 * row. A free function over locals so V8 optimises the inner loop (closure slots it cannot).
 */
function scanTopK(matrix, inverseNorms, count, query, k) {
  const ids = new Int32Array(k);
  const scores = new Float64Array(k).fill(-Infinity);
  let size = 0;
  for (let i = 0, base = 0; i < count; i++, base += DIMS) {
    let dot = 0;
    for (let j = 0; j < DIMS; j++) dot += query[j] * matrix[base + j];
    const s = dot * inverseNorms[i];
    if (size === k && s <= scores[k - 1]) continue;
    let j = size < k ? size++ : k - 1;
    while (j > 0 && scores[j - 1] < s) {
      scores[j] = scores[j - 1];
      ids[j] = ids[j - 1];
      j--;
    }
    scores[j] = s;
    ids[j] = i;
  }
  return Array.from(ids.subarray(0, size));
}

/** An exact cosine scan over a copy of the corpus vectors; exported for the RRF contender. */
export function createScan() {
  let matrix = null;
  let inverseNorms = null;
  let count = 0;
  return {
    build(docs) {
      count = docs.length;
      matrix = new Float32Array(count * DIMS);
      inverseNorms = new Float64Array(count);
      for (let i = 0; i < count; i++) {
        const v = docs[i].embedding;
        matrix.set(v, i * DIMS);
        let norm = 0;
        for (let j = 0; j < DIMS; j++) norm += v[j] * v[j];
        inverseNorms[i] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      }
    },
    /** Indices of the k rows with the highest cosine to `vector`, best first. */
    search(vector, k) {
      return scanTopK(matrix, inverseNorms, count, vector, k);
    },
    bytes() {
      return matrix.byteLength + inverseNorms.byteLength;
    },
  };
}

export const contenders = [
  {
    name: "js-cosine",
    library: `plain JS (node ${process.versions.node})`,
    kind: "vector",
    needsVectors: true,
    notes: "Float32Array brute-force cosine, top-k insertion; query vectors only",
    create() {
      const scan = createScan();
      return {
        build: scan.build,
        search: (query, k) => scan.search(query.vector, k),
        size: () => ({ bytes: scan.bytes(), note: "raw Float32Array + norms (no serializer)" }),
      };
    },
  },
];
