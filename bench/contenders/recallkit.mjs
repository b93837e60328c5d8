// recallkit itself, through its public JS API (js/dist, built by `npm run build`).
// Variants:
//   "default"   open({ storage: "memory" }): every other option at its default, as a user who
//               writes MemoryStore.open() gets it (hybrid mode, no embedder, so no query vector).
//   "lexical"   open({ storage: "memory", searchMode: "lexical" }) (plain open({ storage }) on
//               builds without searchMode): Sf stage, porter BM25 + trigram typo tolerance.
//   "hybrid"    open({ ..., dimensions, searchMode: "hybrid", similarityThreshold }), memories
//               and queries carry embeddings: text + vectors + MMR. similarityThreshold is
//               VECTOR_SIMILARITY (common.mjs): the default 0.5 suits learned embeddings, not
//               this corpus's random projections.
//   "semantic"  searchMode "semantic": the exact vector scan (stage Se) alone, compared with
//               the plain JS loop (js-cosine).
//   "durable"   open({ storage: "file", path }) in a new temporary directory, every other option
//               at its default: what `MemoryStore.open({ path })` gives a Node user. Built with
//               rememberMany in the same batches (each resolves once fsync'd), recalled with
//               recall(q, { limit, now }): recall tracking ON, as by default. Each recall
//               answers first and its new counts are written behind it
//               (WriteQueue.scheduleTracking: one batch for the recalls answered until that
//               batch starts, in a task of its own after the caller has its answer). In the
//               worker's loop, one `await`ed recall after another, the event loop never turns,
//               so that batch cannot start and the measured recalls' counts pile up into one
//               batch. So that this backlog is
//               measured and not left behind: drain() queues a write behind the tracking (a
//               forget of an id no memory has, which is refused with not_found; writes run one
//               at a time in call order, docs/storage.md) and awaits it. The worker calls it
//               after the warm-up (untimed: the warm-up's counts are the warm-up's) and after
//               the measured queries, timed ("drain ms", also inside the query CPU window): the
//               recall percentiles are what a caller waits for, drain ms ÷ queries is the
//               tracking's amortised cost,
//               batched as a burst of recalls batches it. Recalls spread out, with the event loop
//               turning between them, each write a batch of their own (still behind the answer):
//               more writes and fsyncs than measured here. size() closes the store and counts its
//               directory (memories and the recalls' tracking), open() reopens it; close()
//               deletes the directory (and every directory left is deleted at process exit).
// A variant whose feature has not landed reports "unavailable: <reason>" instead of a number:
// missing build output, an open option the store rejects, or no Se stage in recall's report.
// Persisted size and open time go through a file store (see PERSISTENCE below; "durable" is one).

import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
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

/** Temporary directories of durable stores not yet deleted: deleted at exit whatever happens. */
const TEMP_DIRS = new Set();
process.on("exit", () => {
  for (const dir of TEMP_DIRS) rmSync(dir, { recursive: true, force: true });
});
function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), "recallkit-bench-durable-"));
  TEMP_DIRS.add(dir);
  return dir;
}
function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  TEMP_DIRS.delete(dir);
}

/** The id of the refused write drain() queues behind recall tracking (no memory has it). */
const DRAIN_ID = "bench-drain-barrier";

/** Total bytes of the files under `dir`. */
function directoryBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(path) : statSync(path).size;
  }
  return total;
}

/** The memories of `docs` as rememberMany input. */
function toInputs(docs, vectors) {
  return docs.map((d) => {
    const m = { id: d.id, text: d.text, createdAt: d.createdAt, topic: d.topic, tags: d.tags };
    if (vectors) m.embedding = d.embedding;
    return m;
  });
}

/**
 * Persistence through a file store (storage: "file"): the benchmarked store stays in memory
 * (its build is what "build" measures), and size() writes the same memories to a file store
 * in a temporary directory and closes it (file stores keep no snapshot). Persisted size is
 * every byte in that directory (the record log); open time is MemoryStore.open of it.
 * Stores from before persistence report n/a.
 */
const PERSISTENCE = {
  async persist(api, docs, options, vectors) {
    const dir = mkdtempSync(join(tmpdir(), "recallkit-bench-"));
    let store;
    try {
      store = await api.MemoryStore.open({ ...options, storage: "file", path: dir, snapshotEvery: 0 });
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      if (/storage must be|unknown open option/.test(e.message)) throw new Unavailable(`no file storage: ${e.message}`);
      throw e;
    }
    for (let start = 0; start < docs.length; start += BATCH) await store.rememberMany(toInputs(docs.slice(start, start + BATCH), vectors));
    await store.close();
    return { dir, bytes: directoryBytes(dir) };
  },
  async openPersisted(api, persisted, options) {
    return api.MemoryStore.open({ ...options, storage: "file", path: persisted.dir });
  },
};

function variant(name, mode, notes) {
  const textOnly = mode === "lexical" || mode === "default" || mode === "durable";
  const vectors = !textOnly;
  const durable = mode === "durable";
  return {
    name,
    library: "recallkit (this repository)",
    kind: textOnly ? "lexical" : mode === "semantic" ? "vector" : "hybrid",
    needsVectors: vectors,
    recallkit: true,
    notes,
    available: missingBuild,
    create() {
      let api = null;
      let glue = null;
      let store = null;
      let checkedStages = false;
      const dir = durable ? tempDir() : null;
      const options = mode === "default" ? { storage: "memory" }
        : durable ? { storage: "file", path: dir }
          : vectors ? { storage: "memory", dimensions: DIMS, searchMode: mode, similarityThreshold: VECTOR_SIMILARITY }
            : { storage: "memory", searchMode: "lexical" };
      const recallOptions = (query, k) => {
        // `now` pins "today" for the recency scoring (the corpus's dates are fixed), as for every row.
        const o = durable ? { limit: k, now: FIXED_NOW_MS } : { limit: k, trackRecalls: false, now: FIXED_NOW_MS };
        if (vectors) o.embedding = query.vector;
        return o;
      };
      let persisted = null;
      let docs = null;
      let openNote = "n/a: no persisted store";
      const instance = {
        async setup() {
          api = await import(pathToFileURL(DIST).href);
          glue = await import(pathToFileURL(GLUE).href);
          try {
            store = await api.MemoryStore.open(options);
          } catch (e) {
            if (durable) throw new Unavailable(`no file storage: ${e.message}`);
            if (vectors) throw new Unavailable(`open(${JSON.stringify({ ...options, storage: undefined })}) rejected: ${e.message}`);
            // Before searchMode existed, every store was lexical.
            if (!/unknown open option/.test(e.message)) throw e;
            store = await api.MemoryStore.open({ storage: "memory" });
          }
        },
        async build(items) {
          docs = items;
          for (let start = 0; start < docs.length; start += BATCH) {
            const batch = toInputs(docs.slice(start, start + BATCH), vectors);
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
          if (durable) {
            // The store itself is the persisted one: closed (nothing left to write), then counted.
            await store.close();
            return { bytes: directoryBytes(dir), note: "the measured file store after close(): its record log, recall tracking included" };
          }
          try {
            persisted = await PERSISTENCE.persist(api, docs, options, vectors);
          } catch (e) {
            if (e instanceof Unavailable) return { bytes: null, note: `n/a: ${e.message}` };
            throw e;
          }
          return { bytes: persisted.bytes, note: "file store after close(): its record log" };
        },
        async open() {
          await store.close();
          store = durable ? await api.MemoryStore.open(options) : await PERSISTENCE.openPersisted(api, persisted, options);
          const info = typeof store.storageInfo === "function" ? await store.storageInfo() : null;
          openNote = `MemoryStore.open({ storage: "file" })${info?.openedFrom ? `, opened from its ${info.openedFrom}` : ""}`;
        },
        get openNote() {
          return openNote;
        },
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
          if (persisted) rmSync(persisted.dir, { recursive: true, force: true });
          if (dir) removeDir(dir);
        },
      };
      // Only the durable store works behind its answers (the worker shows "drain ms" for it alone).
      if (durable) {
        instance.drain = async () => {
          try {
            await store.forget(DRAIN_ID);
          } catch (e) {
            if (e.code === "not_found") return;
            throw e;
          }
          throw new Error(`drain: a memory ${DRAIN_ID} existed`);
        };
      }
      return instance;
    },
  };
}

export const contenders = [
  variant("recallkit-default", "default", "open({ storage: 'memory' }): what a user gets (hybrid mode, no embedder, the recallkit ranking); recall(q, { limit, trackRecalls: false, now })"),
  variant("recallkit-durable", "durable", "open({ storage: 'file', path: <temp dir> }): what open({ path }) gives a Node user (fsync'd writes); recall(q, { limit, now }) with recall tracking on, its writes drained and timed after the measured queries (drain ms)"),
  variant("recallkit-lexical", "lexical", "open({ storage: 'memory', searchMode: 'lexical' }); recall(q, { limit, trackRecalls: false, now })"),
  variant("recallkit-hybrid", "hybrid", `open({ dimensions: 384, searchMode: 'hybrid', similarityThreshold: ${VECTOR_SIMILARITY} }); recall(q, { embedding, ... })`),
  variant("recallkit-semantic", "semantic", `open({ dimensions: 384, searchMode: 'semantic', similarityThreshold: ${VECTOR_SIMILARITY} }); recall(q, { embedding, ... })`),
];
