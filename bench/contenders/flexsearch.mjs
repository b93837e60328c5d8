// FlexSearch (nextapps-de/flexsearch): contextual inverted index with resolution-slot scoring.
// Variants:
//   "default"   new Index() and search(q, { limit }): strict tokenizer, AND of all terms.
//   "tolerant"  its most typo-tolerant setting that still ranks well: tokenize "tolerant"
//               (indexes swapped / dropped letters) and search with suggest: true (partial
//               matches allowed). A sweep at 10k (bench/README.md) also tried the LatinExtra and
//               LatinSoundex encoders and tokenize "full": each found fewer typo queries' sources.
// Numeric ids (the memory index) are used, as FlexSearch recommends. Persisted size is the
// total length of the export() chunks; open time is import() of those chunks into a new Index.

import { Index } from "flexsearch";
import { libraryVersion } from "./common.mjs";

function variant(name, indexOptions, searchOptions, notes) {
  return {
    name,
    library: `flexsearch@${libraryVersion("flexsearch")}`,
    kind: "lexical",
    notes,
    create() {
      let index = new Index(indexOptions);
      const chunks = [];
      return {
        build(docs) {
          for (const d of docs) index.add(d.index, d.text);
        },
        search(query, k) {
          return index.search(query.text, { ...searchOptions, limit: k });
        },
        async size() {
          let bytes = 0;
          await index.export((key, data) => {
            chunks.push([key, data]);
            bytes += Buffer.byteLength(String(key)) + (data == null ? 0 : Buffer.byteLength(data));
          });
          return { bytes, note: `export() chunks (${chunks.length})` };
        },
        async open() {
          index = new Index(indexOptions);
          for (const [key, data] of chunks) await index.import(key, data);
        },
      };
    },
  };
}

export const contenders = [
  variant("flexsearch-default", {}, {}, "new Index() defaults; search { limit } (AND of terms)"),
  variant("flexsearch-tolerant", { tokenize: "tolerant" }, { suggest: true }, "tokenize 'tolerant'; search { suggest: true }"),
];
