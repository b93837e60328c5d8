/**
 * The engine as the store uses it: the WebAssembly `Engine` with records, options and
 * results as objects. Across the boundary they travel as bytes in the wire format
 * (`js/src/wire.ts` here, `src/wire/` in Rust); embeddings travel as `Float32Array`s.
 *
 * This file is the one typed boundary between the engine and the rest of the package:
 * - what goes in is the engine's record and option types (`MemoryRecord`, `NoteRecord`, …,
 *   declared beside their Rust types in `src/wasm.rs` and re-exported here), which the engine
 *   checks again (its answer is final);
 * - what comes out is typed as the public types of `types.ts` (`Memory`, `Note`, `Entity`,
 *   `Edge`, `RecallResult`), so no caller converts. `js/test/types.test.mjs` keeps the two
 *   sides in step: the public types against the Rust-side declarations (same fields, and
 *   every output accepted back as input), these signatures, and the fields of real outputs.
 * Internal: not exported by the package.
 * @module
 */
import { Engine as WasmEngine, PendingRecall, PendingRerank, isTrivial as wasmIsTrivial } from "../../pkg/recallkit.js";
import type {
  EdgeRecord, EngineConfigJs, EngineStatsJs, EntityRecord, MemoryRecord, NoteRecord, RecallOptionsJs,
} from "../../pkg/recallkit.js";
import type { Edge, Entity, Memory, Note, RecallResult } from "./types.js";

/** A recall's answer as the engine gives it: the store adds the `tier` it ran in (and `trivial`). */
export type EngineRecallResult = Omit<RecallResult, "tier" | "trivial">;
import { decode, encodeRecordsView, encodeView } from "./wire.js";

export type { PendingRecall, PendingRerank };
export type { EdgeRecord, EngineConfigJs, EngineStatsJs, EntityRecord, MemoryRecord, NoteRecord, RecallOptionsJs };

const decodeMaybe = <T>(bytes: Uint8Array | undefined): T | undefined =>
  bytes === undefined ? undefined : (decode(bytes) as T);

/** Wire bytes per memory besides its texts: field names, id, times, topic, a few tags. */
const RECORD_OVERHEAD_BYTES = 160;

/** About the size of the wire form of `memories` (exact texts when ASCII, plus a margin). */
function wireSize(memories: readonly MemoryRecord[]): number {
  let bytes = 2;
  // The records are not validated yet (the engine does that): a text may be anything.
  const length = (text: unknown) => (typeof text === "string" ? text.length : 0);
  for (const m of memories) bytes += RECORD_OVERHEAD_BYTES + length(m.text) + length(m.textEn);
  return bytes;
}

/**
 * Memories per wire chunk of {@link Engine.insertMany}: about 120 KB of the bench's short
 * memories, small beside the records themselves and few calls per batch.
 */
const STAGE_CHUNK = 512;

/** Whom a listing is for: a user's and shared records, none above the ceiling. */
export interface Scope {
  userId?: string;
  maxClassification?: number;
}

/** What {@link Engine.relate} records. */
export interface Relation {
  from: string;
  relation: string;
  to: string;
  strength?: number;
  memoryIds?: string[];
  userId?: string;
  classification?: number;
  validFrom?: number;
  validTo?: number;
}

/** Whether `query` is a trivial message (the engine's rule, `src/recall/trivial.rs`). */
export function isTrivial(query: string): boolean {
  return wasmIsTrivial(query);
}

/** Bytes handed to the engine at a time while it reads an image. */
const IMAGE_PIECE_BYTES = 1 << 18;

/** The WebAssembly engine with object-valued arguments and results. */
export class Engine {
  readonly #inner: WasmEngine;

  /**
   * A new engine for `config` (`signatureSeed` may be a bigint): empty, or read from an engine
   * image written by {@link Engine.image} under the same signature seed and dimension, whole or
   * in consecutive pieces (it throws `corrupt` when the image cannot be used).
   */
  constructor(config: EngineConfigJs, image?: Uint8Array | readonly Uint8Array[]) {
    if (image === undefined) {
      this.#inner = new WasmEngine(encodeView(config));
      return;
    }
    const parts = image instanceof Uint8Array ? [image] : image;
    let part = 0;
    let at = 0;
    this.#inner = WasmEngine.readImage(encodeView(config), {
      next: (): Uint8Array | undefined => {
        while (part < parts.length && at >= parts[part]!.length) {
          part++;
          at = 0;
        }
        if (part >= parts.length) return undefined;
        const piece = parts[part]!.subarray(at, at + IMAGE_PIECE_BYTES);
        at += piece.length;
        return piece;
      },
    });
  }

  /** The engine's image (its records and every index), as the pieces the engine wrote. */
  image(): Uint8Array[] {
    const pieces: Uint8Array[] = [];
    // Each piece is a view of wasm memory: copied before the engine writes on.
    this.#inner.writeImage({ put: (bytes: Uint8Array) => { pieces.push(bytes.slice()); } });
    return pieces;
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

  /** Sets the dimension back after an undone write; only while no vector is stored. */
  resetDimensions(dims: number | undefined): void {
    this.#inner.resetDimensions(dims);
  }

  insert(memory: MemoryRecord, embedding?: Float32Array | null): void {
    this.#inner.insert(encodeView(memory), embedding);
  }

  /**
   * Adds every memory or none; `vectors` holds the rows of the items flagged in `has`. A large
   * batch crosses in chunks of {@link STAGE_CHUNK} (`stageMany`, then `insertMany` with the
   * last), so wasm memory holds one chunk's bytes at a time rather than the whole batch's.
   */
  insertMany(memories: readonly MemoryRecord[], vectors: Float32Array, has: Uint8Array): void {
    const last = Math.max(0, memories.length - STAGE_CHUNK);
    for (let start = 0; start < last; start += STAGE_CHUNK) {
      const chunk = memories.slice(start, Math.min(start + STAGE_CHUNK, last));
      this.#inner.stageMany(encodeRecordsView(chunk, wireSize(chunk)), start === 0, memories.length);
    }
    const tail = last === 0 ? memories : memories.slice(last);
    this.#inner.insertMany(encodeRecordsView(tail, wireSize(tail)), vectors, has, last > 0);
  }

  replace(memory: MemoryRecord, embedding: Float32Array | null | undefined, removeEmbedding: boolean): void {
    this.#inner.replace(encodeView(memory), embedding, removeEmbedding);
  }

  remove(id: string): Memory {
    return decode(this.#inner.remove(id)) as Memory;
  }

  get(id: string): Memory | undefined {
    return decodeMaybe<Memory>(this.#inner.get(id));
  }

  ids(): string[] {
    return decode(this.#inner.ids()) as string[];
  }

  embedding(id: string): Float32Array | undefined {
    return this.#inner.embedding(id);
  }

  signature(id: string): Uint8Array | undefined {
    return this.#inner.signature(id);
  }

  /** Phase 1 of a recall (validates options, runs stage Sf). */
  beginRecall(query: string, options: RecallOptionsJs): PendingRecall {
    return this.#inner.beginRecall(query, encodeView(options));
  }

  /** Checks a recall's query and options as {@link Engine.beginRecall} would, running nothing. */
  checkRecall(query: string, options: RecallOptionsJs): void {
    this.#inner.checkRecall(query, encodeView(options));
  }

  /** Phase 2: the other stages and post-processing; consumes `pending`. */
  finishRecall(pending: PendingRecall, embedding?: Float32Array | null, reason?: string | null): EngineRecallResult {
    return decode(this.#inner.finishRecall(pending, embedding, reason)) as EngineRecallResult;
  }

  /** Phase 2 with a reranker: the other stages and the ranking, the best 30 kept; consumes `pending`. */
  rankForRerank(pending: PendingRecall, embedding?: Float32Array | null, reason?: string | null): PendingRerank {
    return this.#inner.rankForRerank(pending, embedding, reason);
  }

  /** The query texts of a recall in phase 1 that want a vector, in the order phase 2 takes them. */
  queryTexts(pending: PendingRecall): string[] {
    return decode(pending.texts()) as string[];
  }

  /** The candidates' texts of a ranked recall, for the reranker. */
  rerankTexts(pending: PendingRerank): string[] {
    return decode(pending.texts()) as string[];
  }

  /** Phase 3: the reranker's scores (or none, for `reason`), the cut and tracking; consumes `pending`. */
  finishRerank(pending: PendingRerank, scores: Float64Array | null, reason: string | null, ms: number): EngineRecallResult {
    return decode(this.#inner.finishRerank(pending, scores, reason, ms)) as EngineRecallResult;
  }

  addNote(note: NoteRecord): void {
    this.#inner.addNote(encodeView(note));
  }

  replaceNote(note: NoteRecord): void {
    this.#inner.replaceNote(encodeView(note));
  }

  removeNote(id: string): Note {
    return decode(this.#inner.removeNote(id)) as Note;
  }

  note(id: string): Note | undefined {
    return decodeMaybe<Note>(this.#inner.note(id));
  }

  /**
   * Every note (what persistence and export read); with a scope, the notes it sees. A scope
   * names a user, a ceiling or both; `{}` is everything.
   */
  notes(scope: Scope = {}): Note[] {
    return decode(this.#inner.notes(scope.userId, scope.maxClassification)) as Note[];
  }

  addEntity(entity: EntityRecord): void {
    this.#inner.addEntity(encodeView(entity));
  }

  /** Removes an entity and its edges; with `userId`, only that user's entity. */
  removeEntity(name: string, userId?: string): Entity {
    return decode(this.#inner.removeEntity(name, userId)) as Entity;
  }

  /** Every entity; with a scope, the entities it sees. */
  entities(scope: Scope = {}): Entity[] {
    return decode(this.#inner.entities(scope.userId, scope.maxClassification)) as Entity[];
  }

  /** Every edge as stored; with a scope, the edges it sees, `memoryIds` cut to the memories it sees. */
  edges(scope: Scope = {}): Edge[] {
    return decode(this.#inner.edges(scope.userId, scope.maxClassification)) as Edge[];
  }

  /** Records a relation; with `userId`, as that user. */
  relate(r: Relation, now: number): Edge {
    const { strength, classification, ...names } = r;
    const edge = { ...names, createdAt: now, lastSeenAt: now };
    return decode(this.#inner.relate(encodeView(edge), strength, classification, now)) as Edge;
  }

  upsertEdge(edge: EdgeRecord): Edge {
    return decode(this.#inner.upsertEdge(encodeView(edge))) as Edge;
  }

  /** Removes `from —[relation]→ to` edges; with `userId`, only that user's. */
  unrelate(from: string, relation: string | null | undefined, to: string, userId?: string): number {
    return this.#inner.unrelate(from, relation, to, userId);
  }

  stats(): EngineStatsJs {
    return decode(this.#inner.stats()) as EngineStatsJs;
  }
}
