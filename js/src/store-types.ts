/**
 * Public types of a store as a whole: how it is opened ({@link OpenOptions}: storage, the host's
 * functions, the search mode, the ranking model and its parameters), what its storage reports
 * ({@link StorageInfo}, {@link RepairReport}) and import ({@link ImportOptions}). `types.ts`
 * re-exports every one, so it stays the one place to import public types from; the types of
 * records and recalls are there.
 * @module
 */
import type { StorageAdapter } from "./storage/adapter.js";
import type { LogRepair } from "./storage/log.js";

/** The host's embedding function: one vector per text, all of the store's dimension. */
export type EmbedFunction = (texts: string[]) => Promise<Float32Array[] | number[][]>;

/**
 * A host reranker (the cross-encoder of Memoria's fusion): one relevance score per text, higher is more
 * relevant, any finite scale. recall hands it the query as the stages read it (its pronouns
 * resolved: "what did Carol decide?" for "what did she decide?") and the texts of its best 30
 * (or `limit`) fused candidates, and returns the first `limit` in the reranker's order.
 */
export type RerankFunction = (query: string, texts: string[]) => Promise<number[] | Float64Array | Float32Array>;

/** Which stages run: all, lexical only (no Se/Ss), or semantic only (no Sf). */
export type SearchMode = "hybrid" | "lexical" | "semantic";

/**
 * Where a store keeps its records: `"indexeddb"` (pages, workers, extension service workers),
 * `"file"` (Node and Deno: an append-only log in a directory), `"memory"` (nothing outlives
 * the store), or your own {@link StorageAdapter} (the store closes it on `close()`).
 */
export type StorageOption = "indexeddb" | "file" | "memory" | StorageAdapter;

/** Options of {@link MemoryStore.open}. */
export interface OpenOptions {
  /**
   * The store's name: 1–128 characters of `A–Z a–z 0–9 . _ -`, starting with a letter or digit
   * (default `"default"`). It names
   * the IndexedDB database (`recallkit:<name>`) and the default directory of a file store.
   */
  name?: string;
  /**
   * Where records live. Default: `"indexeddb"` where `indexedDB` exists, `"file"` in Node and
   * Deno (directory `./recallkit-data/<name>`). `"memory"` keeps nothing beyond the engine
   * itself: the store lives and dies with the object (pass `new MemoryAdapter()` to get an
   * in-memory store with a storage layer, for tests of persistence logic).
   */
  storage?: StorageOption;
  /** File stores: the directory (default `./recallkit-data/<name>`). */
  path?: string;
  /**
   * IndexedDB: ask the browser not to evict this origin's data (`navigator.storage.persist()`).
   * Only a page can ask: in a worker or an extension's service worker it asks nothing
   * (`storageInfo().persisted` tells what the origin has; `openWorkerStore` asks from the page,
   * an extension declares the `"unlimitedStorage"` permission).
   */
  persist?: boolean;
  /** IndexedDB: how long an open may stay blocked by another tab's connection before `blocked` (default 10 000 ms). */
  blockedTimeoutMs?: number;
  /**
   * Open a store to read it only: every write (`remember`, `update`, `relate`, `import`, …)
   * fails with `invalid_argument`, recalls are not tracked, and no snapshot is written or
   * removed; `status()` reports the tier `"readonly"`. A file store opened so takes no lock, so
   * it can be read while another process writes it, and it sees the store as it was at the
   * open (open again to see later writes). With an adapter of your own (a read-only PostgreSQL
   * adapter, say) the store itself refuses the writes. Not with `storage: "memory"`. Default
   * false.
   */
  readOnly?: boolean;
  /**
   * Keep a snapshot (the engine's records and indexes in one image) so that an open parses the
   * indexes instead of rebuilding them: 100,000 memories with embeddings open in about 2 s
   * instead of 3–5. Default: on for IndexedDB and your own adapters, off for file stores,
   * where it would double the log on disk (turn it on when open time matters more than disk);
   * memory stores never keep one. Turning it off deletes an existing snapshot.
   */
  snapshots?: boolean;
  /**
   * Write the snapshot (the engine's image, for fast opens) after this many write batches
   * (default 1000; 0: never periodically). It is also written after an open that had to
   * rebuild a large store, and on `close()` when none is usable or many batches came after it;
   * between snapshots, opens re-read the records written since. Memory stores never write one.
   */
  snapshotEvery?: number;
  /** Days until the recency factor reaches its floor (default 365). */
  decayDays?: number;
  /** Minimum recency factor (default 0.3). */
  decayFloor?: number;
  /** `|emotion| ×` this is added to the recency factor (default 0.1). */
  emotionBoost?: number;
  /** The clock for default timestamps and recall's default `now` (default `Date.now`). */
  clock?: () => number;
  /** The host's embedding function; recallkit never calls a model itself. */
  embed?: EmbedFunction;
  /** Embedding dimension (default: fixed by the first vector stored). */
  dimensions?: number;
  /**
   * Minimum cosine for stage Se. Default: 0.5 for the "abmind" ranking (abmind's recall pipeline); none for
   * the others, which measure each cosine against what unrelated memories score for the same
   * query in this store.
   */
  similarityThreshold?: number;
  /** How long a recall waits for the query embedding before skipping Se (default 5000 ms). */
  embedTimeoutMs?: number;
  /**
   * A reranker for every recall (unless a recall passes `rerank: false`): the best 30 (or `limit`) fused
   * candidates are re-scored by it and the first `limit` returned in its order. If it throws,
   * rejects, times out or answers with anything but one finite number per text, recall keeps
   * the fused order and its `rerank` stage report says why (`rerank_failed`,
   * `rerank_timeout`).
   */
  rerank?: RerankFunction;
  /** How long a recall waits for the reranker before keeping the fused order (default 5000 ms). */
  rerankTimeoutMs?: number;
  /** Texts per `embed` call in rememberMany (default 64). */
  embedBatchSize?: number;
  /**
   * Default search mode (default "hybrid"). A "lexical" store with `storage: "memory"` does
   * not sign memories as they are written (nothing reads the signatures of one): a recall
   * that asks for "hybrid" or "semantic" signs them all first, and `getSignature` computes
   * one when asked; the values are the same.
   */
  searchMode?: SearchMode;
  /**
   * Skip Se and Ss when Sf already holds `limit` hits this strong (0..1). Default: abmind's
   * rule for the "abmind" ranking (skip as soon as Sf has `limit` hits, whatever their score);
   * never for the other rankings, which weigh every stage's evidence. Set, the other rankings
   * count Sf hits whose lexical evidence (the share of the query they match) reaches it.
   */
  shortCircuitFloor?: number;
  /** MMR λ of the "abmind" ranking: 1 = relevance only, 0 = diversity only (default 0.7). */
  mmrLambda?: number;
  /** The ranking model of recalls that name none (default "recallkit"; docs/ranking.md). */
  ranking?: Ranking;
  /**
   * Results scoring below this (0..1) are dropped. Default: 0.1 for the "recallkit" ranking
   * (a result must match at least a tenth of the question), 0 for the others; results scoring
   * 0 are always dropped.
   */
  minScore?: number;
  /** Weights of the "weighted" ranking (AutoMem's defaults otherwise). */
  weights?: RankingWeights;
  /** Parameters of the "recallkit" ranking, for measurement (`src/rank/model.rs`). */
  fusion?: FusionParameters;
}

/**
 * How results are ranked: "recallkit" (default: every stage's evidence fused, age a mild
 * preference), "abmind" (abmind's recall pipeline), "rrf" (Memoria's fusion: Reciprocal Rank
 * Fusion), "composite" (Engram's query pipeline), "weighted" (AutoMem's nine weighted
 * components).
 */
export type Ranking = "recallkit" | "abmind" | "rrf" | "composite" | "weighted";

/** AutoMem's weights (defaults in parentheses); a score is `Σ wᵢ·cᵢ / Σ wᵢ`. */
export interface RankingWeights {
  /** Cosine with the query (0.25). */
  vector?: number;
  /** Lexical evidence, the share of the query matched (0.15). */
  keyword?: number;
  /** Share of the query's words present in the text (0.25). */
  exact?: number;
  /** `importance` (0.05). */
  importance?: number;
  /** `confidence` (0.05). */
  confidence?: number;
  /** `max(0, 1 − days since last access / 180)` (0.10). */
  recency?: number;
  /** Share of the query's words among the tags (0.10). */
  tag?: number;
  /** Evidence from an edge citing the memory (0.10). */
  relation?: number;
  /** Inside the recall's time window (0.10). */
  temporal?: number;
}

/**
 * Parameters of the "recallkit" ranking (`src/rank/model.rs` documents the formula); defaults
 * in parentheses, chosen by `bench/locomo/sweep.mjs`. Each is in 0..1 except `semanticFrom`
 * and `semanticFull`, which must be finite with `semanticFrom < semanticFull`.
 */
export interface FusionParameters {
  /** Weight of lexical against semantic evidence when the query and the memory have vectors (0.65). */
  lexicalWeight?: number;
  /** Weight of signature evidence (stage Ss) in the noisy-or (0: Ss does not run). */
  signatureWeight?: number;
  /** Weight of graph evidence (an edge citing the memory) in the noisy-or (0.5). */
  graphWeight?: number;
  /** A note paragraph's or an edge's score as a share of its coverage (0.8). */
  noteWeight?: number;
  /** Share of relevance age can take away (0.1). */
  recencyWeight?: number;
  /** The same for a query asking for the latest state: "current", "latest", "now", … (0.5). */
  latestRecencyWeight?: number;
  /** Exponent of abmind's multiplicative factors, trust, tier, recall count, … (0.25). */
  priorExponent?: number;
  /** Share of lexical evidence that is coverage of the query's words rather than BM25 (0.5). */
  coverageWeight?: number;
  /** Standard deviations above the query's cosine background where semantic evidence starts (2). */
  semanticFrom?: number;
  /** … and where it is full (8). */
  semanticFull?: number;
  /**
   * Share of the gap to its best adjacent memory's score a memory closes (0.5, at most 1): the
   * memories written just before or after it (at most two apart in insertion order, the gap
   * halved at two), by the same user, under the same topic, within 30 minutes of it and not at
   * the same instant: turns of one conversation. 0 turns it off.
   */
  adjacentWeight?: number;
}

/** What {@link MemoryStore.storageInfo} reports; a field is absent where the backend cannot tell. */
export interface StorageInfo {
  /** Bytes used: the origin's usage (IndexedDB), the log size (file store). */
  usage?: number;
  /** Bytes the origin may use (IndexedDB). */
  quota?: number;
  /** Whether the browser keeps the origin's data under storage pressure (IndexedDB). */
  persisted?: boolean;
  /** How this open loaded the store: from the snapshot, or from the records (no snapshot, stale or damaged). */
  openedFrom: "snapshot" | "records";
  /**
   * Damage this open found and worked around, each naming what and why; absent when none. A
   * snapshot (or a journal entry) that fails its checks is not used: the store is loaded from
   * its records, which are the truth, so nothing is lost; the next snapshot replaces it, and
   * {@link MemoryStore.repair} removes it at once. (Damage to the records themselves fails the
   * open with `corrupt` instead.)
   */
  damage?: string[];
}

/** What {@link MemoryStore.repair} found and did. */
export interface RepairReport {
  /** Whether anything was damaged and so changed (the log rewritten, the snapshot removed); `false`: nothing changed. */
  repaired: boolean;
  /**
   * File stores: what the log's salvage found and did: the damaged byte ranges dropped (offsets
   * and lengths), frames kept, a torn tail (not damage), the copy of the damaged log.
   */
  log?: LogRepair;
  /**
   * The snapshot as found: `"none"`, `"ok"`, `"stale"` (another version, rebuilt quietly) or
   * `"damaged"` (`why` says how); `removed` when the repair deleted it: when damaged, or when
   * the log lost frames (it could hold writes the records no longer do, or miss some).
   */
  snapshot: { found: "none" | "ok" | "stale" | "damaged"; removed: boolean; why?: string };
  /** What the store holds after the repair, opened from its records. */
  memories: number;
  notes: number;
  entities: number;
  edges: number;
}

/** Progress of {@link MemoryStore.import}, reported after each stored batch. */
export interface ImportProgress {
  /** Lines read so far (blank lines included). */
  lines: number;
  /** Records stored so far (memories, notes, entities, edges). */
  records: number;
  /** Records skipped as duplicates (`onConflict: "skip"`). */
  skipped: number;
}

/** Options of {@link MemoryStore.import}. */
export interface ImportOptions {
  /**
   * A memory or note whose id the store already holds: `"error"` (default: `already_exists`
   * naming the line; earlier batches stay stored), `"skip"` (keep the stored one) or
   * `"replace"` (the line wins). Entities always merge as {@link MemoryStore.addEntity} does,
   * and an edge replaces the edge with the same endpoints and relation.
   */
  onConflict?: "error" | "skip" | "replace";
  /** Called after each batch is durable. */
  onProgress?: (progress: ImportProgress) => void;
  /** Records per batch; each batch is one atomic write (default 1000). */
  batchSize?: number;
}

/**
 * What {@link MemoryStore.import} accepts: JSON Lines as one string, a stream or an async
 * iterable of strings or bytes, or an array whose items are lines (one string each) or the
 * lines' parsed objects ({@link ExportedRecord}).
 */
export type ImportSource =
  | string
  | ReadableStream<string | Uint8Array>
  | AsyncIterable<string | Uint8Array>
  | ReadonlyArray<string | ExportedRecord>;

/**
 * One line of {@link MemoryStore.export} parsed with `JSON.parse`: the format version (1), the
 * record's kind and data, and a memory's embedding and signature. As an import item, the
 * embedding may also be a `Float32Array` and the signature a `Uint8Array`.
 */
export interface ExportedRecord {
  v: 1;
  kind: "meta" | "memory" | "note" | "entity" | "edge";
  data: Record<string, unknown>;
  embedding?: number[] | Float32Array;
  signature?: string | Uint8Array;
}
