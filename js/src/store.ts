/**
 * {@link MemoryStore}: the public API. It validates input, owns the wasm engine and turns
 * engine errors into {@link RecallError}s. Ranking lives in Rust, never here.
 * @module
 */
import { Engine } from "../../pkg/recallkit.js";
import type { MemoryRecord } from "../../pkg/recallkit.js";
import { RecallError, fromEngineError } from "./errors.js";
import type {
  Edge, EmbedFunction, Entity, EntityInput, Memory, MemoryInput, MemoryPatch, Note, NoteInput, OpenOptions, RecallOptions,
  RecallResult, RelationInput, SearchMode,
} from "./types.js";
import {
  SEARCH_MODES, applyPatch, checkId, checkQuery, toEntity, toNote, toRecallOptions, toRecord, toRelation, toUnrelation,
  toVector,
} from "./validate.js";
import { init } from "./wasm.js";

const OPEN_FIELDS = new Set([
  "storage", "decayDays", "decayFloor", "emotionBoost", "clock", "embed", "dimensions", "similarityThreshold",
  "embedTimeoutMs", "embedBatchSize", "searchMode", "shortCircuitFloor", "mmrLambda",
]);

/** Default time a recall waits for the host's query embedding before skipping Se. */
export const DEFAULT_EMBED_TIMEOUT_MS = 5_000;
/** Default number of texts per `embed` call in {@link MemoryStore.rememberMany}. */
export const DEFAULT_EMBED_BATCH_SIZE = 64;

function randomId(): string {
  return globalThis.crypto.randomUUID();
}

class EmbedTimeout extends Error {}

/** Resolves as `promise`, or rejects with {@link EmbedTimeout} after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EmbedTimeout(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function checkNumber(options: OpenOptions, key: keyof OpenOptions, min: number, max: number, integer = false): void {
  const v = options[key];
  if (v === undefined) return;
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new RecallError("invalid_argument", `${key} must be ${integer ? "an integer" : "a number"} between ${min} and ${max}, got ${String(v)}`);
  }
}

/**
 * A store of memories with multi-stage recall.
 *
 * ```ts
 * const store = await MemoryStore.open({ storage: "memory" });
 * await store.remember({ text: "The project uses SQLite with FTS5", topic: "work" });
 * const { results } = await store.recall("what database does the project use?");
 * ```
 */
export class MemoryStore {
  #engine: Engine | undefined;
  readonly #clock: () => number;
  readonly #embed: EmbedFunction | undefined;
  readonly #embedTimeoutMs: number;
  readonly #embedBatchSize: number;
  readonly #searchMode: SearchMode;

  private constructor(engine: Engine, options: OpenOptions) {
    this.#engine = engine;
    this.#clock = options.clock ?? Date.now;
    this.#embed = options.embed;
    this.#embedTimeoutMs = options.embedTimeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS;
    this.#embedBatchSize = options.embedBatchSize ?? DEFAULT_EMBED_BATCH_SIZE;
    this.#searchMode = options.searchMode ?? "hybrid";
  }

  /** Opens a store (loading the WebAssembly module on first use). */
  static async open(options: OpenOptions = {}): Promise<MemoryStore> {
    if (typeof options !== "object" || options === null) {
      throw new RecallError("invalid_argument", `open options must be an object, got ${String(options)}`);
    }
    for (const key of Object.keys(options)) {
      if (!OPEN_FIELDS.has(key)) throw new RecallError("invalid_argument", `unknown open option ${JSON.stringify(key)}`);
    }
    const storage = options.storage ?? "memory";
    if (storage !== "memory") {
      throw new RecallError("invalid_argument", `storage must be "memory", got ${JSON.stringify(storage)}`);
    }
    for (const key of ["clock", "embed"] as const) {
      if (options[key] !== undefined && typeof options[key] !== "function") {
        throw new RecallError("invalid_argument", `${key} must be a function, got ${typeof options[key]}`);
      }
    }
    checkNumber(options, "decayDays", Number.MIN_VALUE, Number.MAX_VALUE);
    checkNumber(options, "decayFloor", 0, 1);
    checkNumber(options, "emotionBoost", 0, Number.MAX_VALUE);
    checkNumber(options, "dimensions", 1, 4096, true);
    checkNumber(options, "similarityThreshold", 0, 1);
    checkNumber(options, "embedTimeoutMs", 0, 3_600_000);
    checkNumber(options, "embedBatchSize", 1, 100_000, true);
    checkNumber(options, "shortCircuitFloor", 0, 1);
    checkNumber(options, "mmrLambda", 0, 1);
    if (options.searchMode !== undefined && !SEARCH_MODES.has(options.searchMode)) {
      throw new RecallError("invalid_argument", `searchMode must be "hybrid", "lexical" or "semantic", got ${JSON.stringify(options.searchMode)}`);
    }
    await init();
    try {
      const engine = new Engine({
        decayDays: options.decayDays, decayFloor: options.decayFloor, emotionBoost: options.emotionBoost,
        dimensions: options.dimensions, similarityThreshold: options.similarityThreshold,
        shortCircuitFloor: options.shortCircuitFloor, mmrLambda: options.mmrLambda,
      });
      return new MemoryStore(engine, options);
    } catch (e) {
      throw fromEngineError(e);
    }
  }

  #live(): Engine {
    if (this.#engine === undefined) throw new RecallError("closed", "the store is closed");
    return this.#engine;
  }

  #now(): number {
    const now = this.#clock();
    if (!Number.isFinite(now)) throw new RecallError("invalid_argument", `the clock returned ${String(now)}`);
    return now;
  }

  /** Number of memories. */
  get size(): number {
    return this.#live().size;
  }

  /** The embedding dimension, once fixed by `dimensions` or the first vector. */
  get dimensions(): number | undefined {
    return this.#live().dimensions;
  }

  /**
   * Calls the host's `embed` for `texts` (while storing), checking each vector. Errors are
   * `embed_failed` / `embed_timeout`; nothing is stored on failure.
   */
  async #embedTexts(texts: string[]): Promise<Float32Array[]> {
    const embed = this.#embed;
    if (embed === undefined) throw new RecallError("internal", "no embed function");
    let vectors: ArrayLike<unknown>;
    try {
      vectors = await withTimeout(Promise.resolve().then(() => embed(texts)), this.#embedTimeoutMs);
    } catch (e) {
      if (e instanceof EmbedTimeout) throw new RecallError("embed_timeout", `embed() gave no answer within ${this.#embedTimeoutMs} ms`);
      throw new RecallError("embed_failed", `embed() failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new RecallError("embed_failed", `embed() must return one vector per text (${texts.length}), got ${Array.isArray(vectors) ? vectors.length : typeof vectors}`);
    }
    const dims = this.#live().dimensions;
    return vectors.map((v, i) => toVector(v, `embed() vector ${i}`, "", dims ?? (vectors[0] as ArrayLike<number>)?.length));
  }

  /** Stores one memory and returns its id. Embeds its text with the host's `embed` when no `embedding` is given. */
  async remember(memory: MemoryInput): Promise<string> {
    const engine = this.#live();
    const { record, embedding } = toRecord(memory, this.#now(), randomId);
    let vector = embedding === undefined ? undefined : toVector(embedding, "embedding", "", engine.dimensions);
    if (vector === undefined && this.#embed !== undefined) {
      vector = (await this.#embedTexts([record.textEn ?? record.text]))[0];
    }
    this.#call(() => this.#live().insert(record, vector));
    return record.id;
  }

  /**
   * Stores every memory or none (an error names the first bad item's index) and returns the
   * ids. Memories without an `embedding` are embedded by the host's `embed`, in batches.
   */
  async rememberMany(memories: MemoryInput[]): Promise<string[]> {
    const engine = this.#live();
    if (!Array.isArray(memories)) {
      throw new RecallError("invalid_argument", "rememberMany expects an array of memories");
    }
    const now = this.#now();
    const items = memories.map((m, i) => toRecord(m, now, randomId, `item ${i}: `));
    let dims = engine.dimensions;
    const vectors: (Float32Array | undefined)[] = items.map(({ embedding }, i) => {
      if (embedding === undefined) return undefined;
      const v = toVector(embedding, "embedding", `item ${i}: `, dims);
      dims ??= v.length;
      return v;
    });
    if (this.#embed !== undefined) {
      const missing = vectors.flatMap((v, i) => (v === undefined ? [i] : []));
      for (let at = 0; at < missing.length; at += this.#embedBatchSize) {
        const batch = missing.slice(at, at + this.#embedBatchSize);
        const texts = batch.map((i) => items[i]!.record.textEn ?? items[i]!.record.text);
        const embedded = await this.#embedTexts(texts);
        batch.forEach((i, j) => { vectors[i] = embedded[j]; });
      }
    }
    const rows = vectors.filter((v): v is Float32Array => v !== undefined);
    const flat = new Float32Array(rows.reduce((n, v) => n + v.length, 0));
    let offset = 0;
    for (const v of rows) {
      flat.set(v, offset);
      offset += v.length;
    }
    const has = Uint8Array.from(vectors, (v) => (v === undefined ? 0 : 1));
    const records = items.map((x) => x.record);
    this.#call(() => this.#live().insertMany(records, flat, has));
    return records.map((r) => r.id);
  }

  /** The memory with this id, or `undefined`. */
  async get(id: string): Promise<Memory | undefined> {
    const engine = this.#live();
    return engine.get(checkId(id)) as Memory | undefined;
  }

  /** The stored embedding of a memory, or `undefined`. */
  async getEmbedding(id: string): Promise<Float32Array | undefined> {
    return this.#live().embedding(checkId(id));
  }

  /** The 32-byte (256-bit) LSH signature of a memory, or `undefined`. */
  async getSignature(id: string): Promise<Uint8Array | undefined> {
    return this.#live().signature(checkId(id));
  }

  /** Every memory id, in insertion order. */
  async ids(): Promise<string[]> {
    return this.#live().ids();
  }

  /**
   * Changes fields of a memory (`null` clears an optional field) and returns it. `embedding`
   * sets a new vector (`null` removes it). When the text changes without a new vector, the
   * store re-embeds it with the host's `embed`, or drops the old vector, which no longer fits.
   */
  async update(id: string, patch: MemoryPatch): Promise<Memory> {
    const engine = this.#live();
    const current = engine.get(checkId(id));
    if (current === undefined) throw new RecallError("not_found", `no memory with id ${JSON.stringify(id)}`);
    const { record, embedding } = applyPatch(current, patch, this.#now());
    let vector = embedding ?? undefined;
    if (vector !== undefined) vector = toVector(vector, "embedding", "", engine.dimensions);
    const textChanged = record.text !== current.text || record.textEn !== current.textEn;
    let remove = embedding === null;
    if (embedding === undefined && textChanged) {
      if (this.#embed !== undefined) vector = (await this.#embedTexts([record.textEn ?? record.text]))[0];
      else remove = true;
    }
    this.#call(() => this.#live().replace(record, vector, remove));
    return this.#live().get(id) as Memory;
  }

  /** Deletes a memory and returns it; `not_found` if there is none. */
  async forget(id: string): Promise<Memory> {
    const engine = this.#live();
    return this.#call(() => engine.remove(checkId(id))) as Memory;
  }

  /**
   * Recalls what is relevant to `query` through stages Sf, Se, Ss, S6 and S8.
   *
   * The query embedding (from `options.embedding`, or the host's `embed`) starts before stage
   * Sf runs. When Sf fills the limit, Se and Ss are skipped (`short_circuit`) and the embedding
   * promise is dropped without being awaited. A rejected or slow embed skips Se
   * (`embed_failed`, `embed_timeout`); recall still answers.
   */
  async recall(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    const engine = this.#live();
    const text = checkQuery(query);
    const now = (options as { now?: unknown } | undefined)?.now === undefined ? this.#now() : 0;
    const { options: opts, embedding } = toRecallOptions(options, now, this.#searchMode);
    let vector = embedding === undefined ? undefined : toVector(embedding, "embedding", "", engine.dimensions);
    let pendingEmbed: Promise<unknown> | undefined;
    if (vector === undefined && opts.searchMode !== "lexical" && this.#embed !== undefined && text.trim() !== "") {
      // Called synchronously, so the host's work (e.g. a fetch) starts before Sf runs.
      try {
        pendingEmbed = Promise.resolve(this.#embed([text]));
      } catch (e) {
        pendingEmbed = Promise.reject(e);
      }
      // Never an unhandled rejection, even when the promise is dropped unawaited.
      pendingEmbed.catch(() => undefined);
    }
    const pending = this.#call(() => engine.beginRecall(text, opts));
    let reason: string | undefined;
    if (!pending.wantsEmbedding) {
      vector = undefined;
    } else if (vector === undefined) {
      if (pendingEmbed === undefined) {
        reason = "no_embedder";
      } else {
        try {
          const vectors = await withTimeout(pendingEmbed, this.#embedTimeoutMs);
          const first = Array.isArray(vectors) ? vectors[0] : undefined;
          vector = toVector(first, "embed() vector", "", engine.dimensions);
        } catch (e) {
          reason = e instanceof EmbedTimeout ? "embed_timeout" : "embed_failed";
        }
      }
    }
    if (this.#engine === undefined) {
      pending.free();
      throw new RecallError("closed", "the store was closed during recall");
    }
    const out = this.#call(() => engine.finishRecall(pending, vector, reason));
    return out as unknown as RecallResult;
  }

  /** Adds a consolidation note (searched by stage S6) and returns its id. */
  async addNote(note: NoteInput): Promise<string> {
    const engine = this.#live();
    const record = toNote(note, this.#now(), randomId);
    this.#call(() => engine.addNote(record));
    return record.id;
  }

  /** Changes fields of a note and returns it. */
  async updateNote(id: string, patch: Partial<NoteInput>): Promise<Note> {
    const engine = this.#live();
    const current = engine.note(checkId(id));
    if (current === undefined) throw new RecallError("not_found", `no note with id ${JSON.stringify(id)}`);
    const record = toNote(patch, this.#now(), randomId, current);
    this.#call(() => engine.replaceNote(record));
    return engine.note(id) as Note;
  }

  /** Deletes a note and returns it; `not_found` if there is none. */
  async forgetNote(id: string): Promise<Note> {
    const engine = this.#live();
    return this.#call(() => engine.removeNote(checkId(id))) as Note;
  }

  /** The note with this id, or `undefined`. */
  async getNote(id: string): Promise<Note | undefined> {
    return this.#live().note(checkId(id)) as Note | undefined;
  }

  /** Every note. */
  async notes(): Promise<Note[]> {
    return this.#live().notes() as Note[];
  }

  /** Adds an entity to the graph, or merges aliases into the entity of the same name. */
  async addEntity(entity: EntityInput): Promise<void> {
    const engine = this.#live();
    const record = toEntity(entity, this.#now());
    this.#call(() => engine.addEntity(record));
  }

  /** Removes an entity and its edges and returns it. */
  async forgetEntity(name: string): Promise<Entity> {
    const engine = this.#live();
    return this.#call(() => engine.removeEntity(checkId(name))) as Entity;
  }

  /** Every entity. */
  async entities(): Promise<Entity[]> {
    return this.#live().entities() as Entity[];
  }

  /** Every edge. */
  async edges(): Promise<Edge[]> {
    return this.#live().edges() as Edge[];
  }

  /** Relates two entities (unknown names become entities); relating again updates the edge. */
  async relate(relation: RelationInput): Promise<Edge> {
    const engine = this.#live();
    const r = toRelation(relation);
    const now = this.#now();
    return this.#call(() => engine.relate(r.from, r.relation, r.to, r.strength, r.memoryIds, now)) as Edge;
  }

  /** Removes `from —[relation]→ to` (every relation between them when `relation` is absent); returns how many. */
  async unrelate(relation: { from: string; relation?: string; to: string }): Promise<number> {
    const engine = this.#live();
    const r = toUnrelation(relation);
    return this.#call(() => engine.unrelate(r.from, r.relation, r.to));
  }

  #call<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw fromEngineError(e);
    }
  }

  /** Index statistics. */
  async stats(): Promise<{ memories: number; porterTerms: number; fuzzyTerms: number }> {
    return this.#live().stats();
  }

  /** Releases the engine. Later calls fail with `closed`; closing twice is harmless. */
  async close(): Promise<void> {
    this.#engine?.free();
    this.#engine = undefined;
  }
}

export type { MemoryRecord };
