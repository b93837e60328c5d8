// MiniSearch (lucaong/minisearch): in-memory BM25 over a radix tree, fuzzy and prefix search.
// Variants: "fuzzy" (fuzzy 0.2 + prefix, the typo-tolerant setting users pick) and "exact" (defaults).
// Persisted size is JSON.stringify(index); open time is MiniSearch.loadJSON of that string.

import MiniSearch from "minisearch";
import { libraryVersion } from "./common.mjs";

const INDEX_OPTIONS = { fields: ["text"], idField: "index", storeFields: [] };

/** A MiniSearch index with its own search options; exported for the RRF contender. */
export function createMiniSearch(searchOptions) {
  let index = new MiniSearch(INDEX_OPTIONS);
  return {
    build(docs) {
      index.addAll(docs);
    },
    search(query, k) {
      const hits = index.search(query.text, searchOptions);
      const out = new Array(Math.min(k, hits.length));
      for (let i = 0; i < out.length; i++) out[i] = hits[i].id;
      return out;
    },
    persist() {
      return JSON.stringify(index);
    },
    open(json) {
      index = MiniSearch.loadJSON(json, INDEX_OPTIONS);
    },
  };
}

function variant(name, searchOptions, notes) {
  return {
    name,
    library: `minisearch@${libraryVersion("minisearch")}`,
    kind: "lexical",
    notes,
    create() {
      const ms = createMiniSearch(searchOptions);
      let json = null;
      return {
        build: ms.build,
        search: ms.search,
        size() {
          json = ms.persist();
          return { bytes: Buffer.byteLength(json), note: "JSON.stringify(index)" };
        },
        open() {
          ms.open(json);
        },
      };
    },
  };
}

export const FUZZY_OPTIONS = { fuzzy: 0.2, prefix: true };

export const contenders = [
  variant("minisearch-fuzzy", FUZZY_OPTIONS, "search options { fuzzy: 0.2, prefix: true }, OR of terms"),
  variant("minisearch-exact", {}, "default search options (exact terms, OR)"),
];
