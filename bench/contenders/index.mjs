// The contender registry: every benchmarked engine, by name, in report order.
// Each contender is { name, library, kind: "lexical" | "vector" | "hybrid", needsVectors?,
// maxN?, notes, available?() -> reason | null, create() -> instance }, and an instance is
//   setup?()            untimed: load the library, create an empty index
//   build(docs)         timed: index every memory (docs carry index, id, text, ..., embedding?)
//   search(query, k)    timed: indices of the top k memories for { text, vector?, class }
//   size()              { bytes | null, note }: serialized or persisted index
//   open?()             timed: reopen from what size() produced (then the canary is re-checked)
//   close?()            release resources
// Any method may return a promise.

import { contenders as recallkit } from "./recallkit.mjs";
import { contenders as minisearch } from "./minisearch.mjs";
import { contenders as orama } from "./orama.mjs";
import { contenders as flexsearch } from "./flexsearch.mjs";
import { contenders as fuse } from "./fuse.mjs";
import { contenders as jsvector } from "./jsvector.mjs";
import { contenders as rrf } from "./rrf.mjs";

export const CONTENDERS = [...recallkit, ...minisearch, ...orama, ...flexsearch, ...fuse, ...jsvector, ...rrf];

/** The contender called `name`, or undefined. */
export function contender(name) {
  return CONTENDERS.find((c) => c.name === name);
}
