// Fuse.js: approximate string matching (Bitap) over every record at query time; no inverted
// index, so it is run at 1k and 10k only. Settings: useTokenSearch (per-word fuzzy matching
// with TF-IDF, Fuse 7.1+) and ignoreLocation, which is what works for multi-word queries over
// sentences: plain Fuse matches the whole query as one pattern and found the source of only
// 10 of 20 exact queries at 1k (token search: 20 of 20, and faster).
// Persisted size is the JSON of its prebuilt index.

import Fuse from "fuse.js";
import { libraryVersion } from "./common.mjs";

/** The settings the benchmark measures Fuse with (see above). */
const OPTIONS = { keys: ["text"], useTokenSearch: true, ignoreLocation: true };

function variant(name, options, { maxN, notes }) {
  return {
    name,
    library: `fuse.js@${libraryVersion("fuse.js")}`,
    kind: "lexical",
    maxN,
    notes,
    create() {
      let fuse = null;
      let json = null;
      let docs = null;
      return {
        build(items) {
          docs = items;
          fuse = new Fuse(items, options);
        },
        search(query, k) {
          return fuse.search(query.text, { limit: k }).map((r) => r.item.index);
        },
        size() {
          json = JSON.stringify(fuse.getIndex().toJSON());
          return { bytes: Buffer.byteLength(json), note: "JSON of Fuse index (docs kept by the caller)" };
        },
        open() {
          fuse = new Fuse(docs, options, Fuse.parseIndex(JSON.parse(json)));
        },
      };
    },
  };
}

export const contenders = [
  variant("fuse", OPTIONS, { maxN: 10000, notes: "keys ['text'], useTokenSearch: true, ignoreLocation: true, default threshold 0.6" }),
];

/**
 * Fuse as `new Fuse(docs, { keys })` gives it, every other option at its default: the whole
 * query one Bitap pattern near the start of the text. Measured for recall quality only
 * (bench/locomo/eval.mjs); the speed benchmark keeps the settings above.
 */
export const defaults = [variant("fuse-default", { keys: ["text"] }, { notes: "keys ['text'], every other option at its default (threshold 0.6, location 0, distance 100)" })];
