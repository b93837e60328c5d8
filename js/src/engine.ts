/**
 * The engine as the store uses it: the WebAssembly `Engine` with records, options and
 * results as objects. Across the boundary they travel as JSON text (one string per call,
 * encoded natively by `JSON.stringify`/`JSON.parse` here and by `serde_json` in
 * `src/wasm.rs`); embeddings travel as `Float32Array`s. Internal: not exported by the package.
 * @module
 */
import { Engine as WasmEngine, PendingRecall } from "../../pkg/recallkit.js";
import type {
  EdgeRecord, EngineConfigJs, EngineStatsJs, EntityRecord, MemoryRecord, NoteRecord,
  RecallOptionsJs, RecallOutputJs,
} from "../../pkg/recallkit.js";

export type { PendingRecall };

/** `\uD800`–`\uDFFF` escapes that JSON.stringify wrote for lone surrogates (not after `\\`). */
const LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g;

/**
 * JSON text of `value` for the engine. `JSON.stringify` escapes a lone surrogate as `\udXXX`,
 * which is not Unicode text; like every other string crossing into wasm it becomes U+FFFD.
 * (Paired surrogates are written as the characters themselves, so they never match.)
 */
export function toJson(value: unknown): string {
  const json = JSON.stringify(value, bigintAsText);
  return json.includes("\\u") ? json.replace(LONE_SURROGATE, "$1\\ufffd") : json;
}

function bigintAsText(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

const parseMaybe = <T>(json: string | undefined): T | undefined =>
  json === undefined ? undefined : (JSON.parse(json) as T);

/** The WebAssembly engine with object-valued arguments and results. */
export class Engine {
  readonly #inner: WasmEngine;

  /** Creates an empty engine; `signatureSeed` may be a bigint. */
  constructor(config: EngineConfigJs) {
    this.#inner = new WasmEngine(toJson(config));
  }

  /** Frees the wasm memory; the engine is unusable afterwards. */
  free(): void {
    this.#inner.free();
  }

  /** Number of live memories. */
  get size(): number {
    return this.#inner.size;
  }

  /** The embedding dimension, once known. */
  get dimensions(): number | undefined {
    return this.#inner.dimensions;
  }

  insert(memory: MemoryRecord, embedding?: Float32Array | null): void {
    this.#inner.insert(toJson(memory), embedding);
  }

  /** Adds every memory or none; `vectors` holds the rows of the items flagged in `has`. */
  insertMany(memories: readonly MemoryRecord[], vectors: Float32Array, has: Uint8Array): void {
    this.#inner.insertMany(toJson(memories), vectors, has);
  }

  replace(memory: MemoryRecord, embedding: Float32Array | null | undefined, removeEmbedding: boolean): void {
    this.#inner.replace(toJson(memory), embedding, removeEmbedding);
  }

  remove(id: string): MemoryRecord {
    return JSON.parse(this.#inner.remove(id)) as MemoryRecord;
  }

  get(id: string): MemoryRecord | undefined {
    return parseMaybe<MemoryRecord>(this.#inner.get(id));
  }

  ids(): string[] {
    return JSON.parse(this.#inner.ids()) as string[];
  }

  embedding(id: string): Float32Array | undefined {
    return this.#inner.embedding(id);
  }

  signature(id: string): Uint8Array | undefined {
    return this.#inner.signature(id);
  }

  /** Phase 1 of a recall (validates options, runs stage Sf). */
  beginRecall(query: string, options: RecallOptionsJs): PendingRecall {
    return this.#inner.beginRecall(query, toJson(options));
  }

  /** Phase 2: the other stages and post-processing; consumes `pending`. */
  finishRecall(pending: PendingRecall, embedding?: Float32Array | null, reason?: string | null): RecallOutputJs {
    return JSON.parse(this.#inner.finishRecall(pending, embedding, reason)) as RecallOutputJs;
  }

  addNote(note: NoteRecord): void {
    this.#inner.addNote(toJson(note));
  }

  replaceNote(note: NoteRecord): void {
    this.#inner.replaceNote(toJson(note));
  }

  removeNote(id: string): NoteRecord {
    return JSON.parse(this.#inner.removeNote(id)) as NoteRecord;
  }

  note(id: string): NoteRecord | undefined {
    return parseMaybe<NoteRecord>(this.#inner.note(id));
  }

  notes(): NoteRecord[] {
    return JSON.parse(this.#inner.notes()) as NoteRecord[];
  }

  addEntity(entity: EntityRecord): void {
    this.#inner.addEntity(toJson(entity));
  }

  removeEntity(name: string): EntityRecord {
    return JSON.parse(this.#inner.removeEntity(name)) as EntityRecord;
  }

  entities(): EntityRecord[] {
    return JSON.parse(this.#inner.entities()) as EntityRecord[];
  }

  edges(): EdgeRecord[] {
    return JSON.parse(this.#inner.edges()) as EdgeRecord[];
  }

  relate(from: string, relation: string, to: string, strength: number | null | undefined, memoryIds: string[], now: number): EdgeRecord {
    return JSON.parse(this.#inner.relate(from, relation, to, strength, memoryIds, now)) as EdgeRecord;
  }

  upsertEdge(edge: EdgeRecord): EdgeRecord {
    return JSON.parse(this.#inner.upsertEdge(toJson(edge))) as EdgeRecord;
  }

  unrelate(from: string, relation: string | null | undefined, to: string): number {
    return this.#inner.unrelate(from, relation, to);
  }

  stats(): EngineStatsJs {
    return JSON.parse(this.#inner.stats()) as EngineStatsJs;
  }
}
