// Fuse.js: approximate string matching (Bitap) over every record at query time; no inverted
// index, so it is run at 1k and 10k only. Settings: useTokenSearch (per-word fuzzy matching
// with TF-IDF, Fuse 7.1+) and ignoreLocation, which is what works for multi-word queries over
// sentences: plain Fuse matches the whole query as one pattern and found the source of only
// 10 of 20 exact queries at 1k (token search: 20 of 20, and faster).
// Persisted size is the JSON of its prebuilt index.

import Fuse from "fuse.js";
import { libraryVersion } from "./common.mjs";

const OPTIONS = { keys: ["text"], useTokenSearch: true, ignoreLocation: true };

export const contenders = [
  {
    name: "fuse",
    library: `fuse.js@${libraryVersion("fuse.js")}`,
    kind: "lexical",
    maxN: 10000,
    notes: "keys ['text'], useTokenSearch: true, ignoreLocation: true, default threshold 0.6",
    create() {
      let fuse = null;
      let json = null;
      let docs = null;
      return {
        build(items) {
          docs = items;
          fuse = new Fuse(items, OPTIONS);
        },
        search(query, k) {
          return fuse.search(query.text, { limit: k }).map((r) => r.item.index);
        },
        size() {
          json = JSON.stringify(fuse.getIndex().toJSON());
          return { bytes: Buffer.byteLength(json), note: "JSON of Fuse index (docs kept by the caller)" };
        },
        open() {
          fuse = new Fuse(docs, OPTIONS, Fuse.parseIndex(JSON.parse(json)));
        },
      };
    },
  },
];
