// The libraries a user could pick instead of recallkit, on the LoCoMo dev half: the speed
// benchmark's contender wrappers (bench/contenders), recallkit's own left out, and the defaults
// only this eval measures (Fuse with every option at its default, Orama's vector and hybrid
// modes at its default similarity). Each contender's `notes` names its options.
//
// One index per conversation, so that, as with recallkit's userId = conv, only the question's
// conversation's memories are candidates. A memory is indexed by its text (what recallkit
// indexes: no memory of the set has a topic) and, for the vector and hybrid rows, its MiniLM
// vector; a question searches with its text and vector, limit 10. eval.mjs scores the ids with
// the same measure() as recallkit's rows.

import { CONTENDERS } from "../contenders/index.mjs";
import { defaults as fuseDefaults } from "../contenders/fuse.mjs";
import { defaultSimilarity as oramaDefaultSimilarity } from "../contenders/orama.mjs";

/** A peer's row in the report's "run" column, by its kind. */
export const PEER_RUNS = { lexical: "no vectors", vector: "vectors only", hybrid: "hybrid" };
const KINDS = Object.keys(PEER_RUNS);

/** Every peer, those without vectors first, then vector search alone, then hybrids. */
export const PEERS = [...CONTENDERS.filter((c) => !c.recallkit), ...fuseDefaults, ...oramaDefaultSimilarity]
  .sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind));

/**
 * Peers left out of `npm run eval:locomo`'s default output, which runs in 15–20 s without
 * them: Fuse scans every memory of the conversation with Bitap for each question (30–40 ms a
 * question, 75–80 s for the two rows). `--peers` runs them.
 */
export const SLOW_PEERS = new Set(["fuse", "fuse-default"]);

/** The memories of `data`, grouped by conversation. */
function byConversation(data) {
  const groups = new Map();
  for (const m of data.memories) {
    if (!groups.has(m.conv)) groups.set(m.conv, []);
    groups.get(m.conv).push(m);
  }
  return groups;
}

/**
 * One index of `peer` per conversation, built. Resolves to `{ rank, close }`: `rank(q)` gives
 * the ids of the `limit` memories `peer` returns for question `q`, best first.
 */
export async function openPeer(peer, data, limit) {
  const indexes = new Map();
  for (const [conv, memories] of byConversation(data)) {
    const instance = peer.create();
    await instance.setup?.();
    // Contender documents are numbered from 0, with the benchmark's ids (Orama reads the number
    // back from `m<index>`); a hit's number is its memory's place in the conversation.
    await instance.build(memories.map((m, index) => ({ index, id: `m${index}`, text: m.text, embedding: m.embedding })));
    indexes.set(conv, { instance, memories });
  }
  return {
    async rank(q) {
      const { instance, memories } = indexes.get(q.conv);
      const hits = await instance.search({ text: q.question, vector: q.embedding }, limit);
      return hits.map((i) => memories[i].id);
    },
    async close() {
      for (const { instance } of indexes.values()) await instance.close?.();
    },
  };
}
