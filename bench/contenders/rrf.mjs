// The do-it-yourself hybrid a user would write without recallkit: MiniSearch fuzzy top-50
// and the plain JS cosine scan top-50, fused by reciprocal rank fusion with k = 60.

import { createMiniSearch, FUZZY_OPTIONS } from "./minisearch.mjs";
import { createScan } from "./jsvector.mjs";
import { libraryVersion, reciprocalRankFusion } from "./common.mjs";

/** Candidates taken from each list before fusion. */
const DEPTH = 50;
/** RRF constant from Cormack, Clarke and Buettcher (SIGIR 2009). */
const RRF_K = 60;

export const contenders = [
  {
    name: "minisearch+jscan-rrf",
    library: `minisearch@${libraryVersion("minisearch")} + plain JS`,
    kind: "hybrid",
    needsVectors: true,
    notes: `MiniSearch fuzzy 0.2 + prefix top-${DEPTH} and JS cosine top-${DEPTH}, RRF k=${RRF_K}`,
    create() {
      const text = createMiniSearch(FUZZY_OPTIONS);
      const scan = createScan();
      return {
        build(docs) {
          text.build(docs);
          scan.build(docs);
        },
        search(query, k) {
          return reciprocalRankFusion([text.search(query, DEPTH), scan.search(query.vector, DEPTH)], k, RRF_K);
        },
        size() {
          return { bytes: Buffer.byteLength(text.persist()) + scan.bytes(), note: "MiniSearch JSON + raw vectors" };
        },
      };
    },
  },
];
