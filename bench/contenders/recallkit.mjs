// recallkit itself, through its public JS API (js/dist, built by `npm run build`).
// Variants:
//   "lexical"   open({ storage: "memory", searchMode: "lexical" }) (plain open({ storage }) on
//               builds without searchMode): Sf stage, porter BM25 + trigram typo tolerance.
//   "hybrid"    open({ ..., dimensions, searchMode: "hybrid", similarityThreshold }), memories
//               and queries carry embeddings: text + vectors + MMR. similarityThreshold is
//               VECTOR_SIMILARITY (common.mjs): the default 0.5 suits learned embeddings, not
//               this corpus's random projections.
//   "semantic"  searchMode "semantic": the exact vector scan (stage Se) alone, compared with
//               the plain JS loop (js-cosine).
// A variant whose feature has not landed reports "unavailable: <reason>" instead of a number:
// missing build output, an open option the store rejects, or no Se stage in recall's report.
// Hooks for later: persist() / openPersisted() once persistence lands (see PERSISTENCE below).

import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DIMS, FIXED_NOW_MS } from "../corpus.mjs";
import { ROOT, Unavailable, VECTOR_SIMILARITY } from "./common.mjs";

/** Memories per rememberMany call. */
const BATCH = 5000;
const DIST = join(ROOT, "js", "dist", "index.js");
const GLUE = join(ROOT, "pkg", "recallkit.js");
const WASM = join(ROOT, "pkg", "recallkit_bg.wasm");

/** Why recallkit cannot run, or null when its build output exists. */
export function missingBuild() {
  if (!existsSync(DIST)) return "js/dist/index.js not built (npm run build)";
  if (!existsSync(WASM)) return "pkg/recallkit_bg.wasm not built (npm run build)";
  return null;
}

const indexOf = (id) => Number(id.slice(1));

// PERSISTENCE: when the store can be saved and reopened, fill these two in: `persist(store)`
// returns the persisted bytes (a Uint8Array or string), `openPersisted(api, bytes, options)`
// resolves to a store opened from them. Until then size and open time are reported n/a.
const PERSISTENCE = {
  persist: null,
  openPersisted: null,
};

function variant(name, mode, notes) {
  const vectors = mode !== "lexical";
  return {
    name,
    library: "recallkit (this repository)",
    kind: mode === "lexical" ? "lexical" : mode === "semantic" ? "vector" : "hybrid",
    needsVectors: vectors,
    recallkit: true,
    notes,
    available: missingBuild,
    create() {
      let api = null;
      let glue = null;
      let store = null;
      let checkedStages = false;
      const options = vectors ? { storage: "memory", dimensions: DIMS, searchMode: mode, similarityThreshold: VECTOR_SIMILARITY } : { storage: "memory", searchMode: "lexical" };
      const recallOptions = (query, k) => {
        const o = { limit: k, trackRecalls: false, now: FIXED_NOW_MS };
        if (vectors) o.embedding = query.vector;
        return o;
      };
      let persisted = null;
      return {
        async setup() {
          api = await import(pathToFileURL(DIST).href);
          glue = await import(pathToFileURL(GLUE).href);
          try {
            store = await api.MemoryStore.open(options);
          } catch (e) {
            if (vectors) throw new Unavailable(`open(${JSON.stringify({ ...options, storage: undefined })}) rejected: ${e.message}`);
            // Before searchMode existed, every store was lexical.
            if (!/unknown open option/.test(e.message)) throw e;
            store = await api.MemoryStore.open({ storage: "memory" });
          }
        },
        async build(docs) {
          for (let start = 0; start < docs.length; start += BATCH) {
            const batch = docs.slice(start, start + BATCH).map((d) => {
              const m = { id: d.id, text: d.text, createdAt: d.createdAt, topic: d.topic, tags: d.tags };
              if (vectors) m.embedding = d.embedding;
              return m;
            });
            try {
              await store.rememberMany(batch);
            } catch (e) {
              if (vectors && start === 0) throw new Unavailable(`rememberMany with embeddings rejected: ${e.message}`);
              throw e;
            }
          }
        },
        async search(query, k) {
          let res;
          try {
            res = await store.recall(query.text, recallOptions(query, k));
          } catch (e) {
            if (vectors && !checkedStages) throw new Unavailable(`recall with an embedding rejected: ${e.message}`);
            throw e;
          }
          if (!checkedStages) {
            checkedStages = true;
            const names = (res.stages ?? []).map((s) => s.name);
            if (vectors && !names.includes("Se")) throw new Unavailable(`recall reports no Se stage (stages: ${names.join(", ") || "none"})`);
          }
          return res.results.map((r) => indexOf(r.id));
        },
        async size() {
          if (!PERSISTENCE.persist) return { bytes: null, note: "n/a: persistence not landed (hook in bench/contenders/recallkit.mjs)" };
          persisted = await PERSISTENCE.persist(store);
          return { bytes: persisted.byteLength ?? Buffer.byteLength(persisted), note: "persisted store" };
        },
        open: PERSISTENCE.openPersisted
          ? async () => {
              await store.close();
              store = await PERSISTENCE.openPersisted(api, persisted, options);
            }
          : null,
        openNote: "n/a: persistence not landed (hook in bench/contenders/recallkit.mjs)",
        /** Size of wasm linear memory (the same module instance js/dist loaded), or null. */
        wasmMemoryBytes() {
          try {
            return glue.initSync().memory.buffer.byteLength;
          } catch {
            return null;
          }
        },
        async stats() {
          return typeof store.stats === "function" ? store.stats() : null;
        },
        async close() {
          await store?.close();
        },
      };
    },
  };
}

export const contenders = [
  variant("recallkit-lexical", "lexical", "open({ storage: 'memory', searchMode: 'lexical' }); recall(q, { limit, trackRecalls: false, now })"),
  variant("recallkit-hybrid", "hybrid", `open({ dimensions: 384, searchMode: 'hybrid', similarityThreshold: ${VECTOR_SIMILARITY} }); recall(q, { embedding, ... })`),
  variant("recallkit-semantic", "semantic", `open({ dimensions: 384, searchMode: 'semantic', similarityThreshold: ${VECTOR_SIMILARITY} }); recall(q, { embedding, ... })`),
];
