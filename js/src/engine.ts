/**
 * The engine as the store uses it: the WebAssembly `Engine` with records, options and
 * results as objects. Configuration, options, single records, listings, recall answers and
 * errors cross as objects through serde-wasm-bindgen (`src/wire/inputs.rs`,
 * `src/wire/outputs.rs`); embeddings and signatures as typed arrays; a batch of memories as
 * the binary record batch of `js/src/wire.ts` (`src/wire/batch.rs`), measured faster there
 * (DESIGN.md, "The boundary"). Every call's error becomes a `RecallError` here.
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
import {
  Engine as WasmEngine, PendingRecall, PendingRerank, isTrivial as wasmIsTrivial, randomId as wasmRandomId,
} from "../../pkg/recallkit.js";
import type {
  EdgeRecord, EngineConfigJs, EngineErrorJs, EngineStatsJs, EntityRecord, GraphChangesJs, GraphRecordsJs, MemoryRecord,
  NoteRecord, RecallOptionsJs,
} from "../../pkg/recallkit.js";
import type { Edge, Entity, Memory, Note, RecallResult } from "./types.js";
import { RecallError, isErrorCode } from "./errors.js";
import { encodeRecordsView } from "./wire.js";

/** A recall's answer as the engine gives it: the store adds the `tier` it ran in (and `trivial`). */
export type EngineRecallResult = Omit<RecallResult, "tier" | "trivial">;

export type { PendingRecall, PendingRerank };
export type {
  EdgeRecord, EngineConfigJs, EngineErrorJs, EngineStatsJs, EntityRecord, GraphChangesJs, GraphRecordsJs, MemoryRecord, NoteRecord,
  RecallOptionsJs,
};

/** Whether `e` is the `EngineErrorJs` an engine call throws. */
function isEngineError(e: unknown): e is EngineErrorJs {
  return typeof e === "object" && e !== null && !(e instanceof Error)
    && typeof (e as EngineErrorJs).code === "string" && typeof (e as EngineErrorJs).message === "string";
}

/** Runs an engine call, turning the `EngineErrorJs` it throws into a {@link RecallError}. */
function call<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (isEngineError(e)) {
      throw new RecallError(isErrorCode(e.code) ? e.code : "internal", e.message, { cause: e });
    }
    throw e;
  }
}

/**
 * A fresh random id (a version 4 UUID) for a memory or a note, drawn by the engine from
 * `crypto.getRandomValues` (getrandom in Rust; `src/wasm.rs`).
 */
export function randomId(): string {
  return call(wasmRandomId);
}

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
      this.#inner = call(() => new WasmEngine(config));
      return;
    }
    const parts = image instanceof Uint8Array ? [image] : image;
    let part = 0;
    let at = 0;
    this.#inner = call(() => WasmEngine.readImage(config, {
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
    }));
  }

  /** The engine's image (its records and every index), as the pieces the engine wrote. */
  image(): Uint8Array[] {
    const pieces: Uint8Array[] = [];
    // Each piece is a view of wasm memory: copied before the engine writes on.
    call(() => this.#inner.writeImage({ put: (bytes: Uint8Array) => { pieces.push(bytes.slice()); } }));
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
    call(() => this.#inner.resetDimensions(dims));
  }

  insert(memory: MemoryRecord, embedding?: Float32Array | null): void {
    call(() => this.#inner.insert(memory, embedding));
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
      call(() => this.#inner.stageMany(encodeRecordsView(chunk, wireSize(chunk)), start === 0, memories.length));
    }
    const tail = last === 0 ? memories : memories.slice(last);
    call(() => this.#inner.insertMany(encodeRecordsView(tail, wireSize(tail)), vectors, has, last > 0));
  }

  replace(memory: MemoryRecord, embedding: Float32Array | null | undefined, removeEmbedding: boolean): void {
    call(() => this.#inner.replace(memory, embedding, removeEmbedding));
  }

  remove(id: string): Memory {
    return call(() => this.#inner.remove(id)) as Memory;
  }

  get(id: string): Memory | undefined {
    return call(() => this.#inner.get(id)) as Memory | undefined;
  }

  ids(): string[] {
    return this.#inner.ids();
  }

  embedding(id: string): Float32Array | undefined {
    return this.#inner.embedding(id);
  }

  signature(id: string): Uint8Array | undefined {
    return this.#inner.signature(id);
  }

  /** Phase 1 of a recall (validates options, runs stage Sf). */
  beginRecall(query: string, options: RecallOptionsJs): PendingRecall {
    return call(() => this.#inner.beginRecall(query, options));
  }

  /** Checks a recall's query and options as {@link Engine.beginRecall} would, running nothing. */
  checkRecall(query: string, options: RecallOptionsJs): void {
    call(() => this.#inner.checkRecall(query, options));
  }

  /** Phase 2: the other stages and post-processing; consumes `pending`. */
  finishRecall(pending: PendingRecall, embedding?: Float32Array | null, reason?: string | null): EngineRecallResult {
    return call(() => this.#inner.finishRecall(pending, embedding, reason)) as EngineRecallResult;
  }

  /** Phase 2 with a reranker: the other stages and the ranking, the best 30 kept; consumes `pending`. */
  rankForRerank(pending: PendingRecall, embedding?: Float32Array | null, reason?: string | null): PendingRerank {
    return call(() => this.#inner.rankForRerank(pending, embedding, reason));
  }

  /** The query texts of a recall in phase 1 that want a vector, in the order phase 2 takes them. */
  queryTexts(pending: PendingRecall): string[] {
    return pending.texts();
  }

  /** The candidates' texts of a ranked recall, for the reranker. */
  rerankTexts(pending: PendingRerank): string[] {
    return pending.texts();
  }

  /** Phase 3: the reranker's scores (or none, for `reason`), the cut and tracking; consumes `pending`. */
  finishRerank(pending: PendingRerank, scores: Float64Array | null, reason: string | null, ms: number): EngineRecallResult {
    return call(() => this.#inner.finishRerank(pending, scores, reason, ms)) as EngineRecallResult;
  }

  addNote(note: NoteRecord): void {
    call(() => this.#inner.addNote(note));
  }

  replaceNote(note: NoteRecord): void {
    call(() => this.#inner.replaceNote(note));
  }

  removeNote(id: string): Note {
    return call(() => this.#inner.removeNote(id)) as Note;
  }

  note(id: string): Note | undefined {
    return call(() => this.#inner.note(id)) as Note | undefined;
  }

  /**
   * Every note (what persistence and export read); with a scope, the notes it sees. A scope
   * names a user, a ceiling or both; `{}` is everything.
   */
  notes(scope: Scope = {}): Note[] {
    return call(() => this.#inner.notes(scope.userId, scope.maxClassification)) as Note[];
  }

  addEntity(entity: EntityRecord): void {
    call(() => this.#inner.addEntity(entity));
  }

  /** Stores a whole entity record, replacing the one with its name (no merge) and keeping its edges. */
  putEntity(entity: EntityRecord): void {
    call(() => this.#inner.putEntity(entity));
  }

  /** Removes the entity named `name` (not by alias) and its edges; whether there was one. */
  dropEntity(name: string): boolean {
    return this.#inner.dropEntity(name);
  }

  /** Removes the edge with this id; whether there was one. */
  removeEdge(id: string): boolean {
    return this.#inner.removeEdge(id);
  }

  /** Removes an entity and its edges; with `userId`, only that user's entity. */
  removeEntity(name: string, userId?: string): Entity {
    return call(() => this.#inner.removeEntity(name, userId)) as Entity;
  }

  /** Starts noting the graph records that writes touch; {@link Engine.graphChanges} ends it. */
  trackGraphChanges(): void {
    this.#inner.trackGraphChanges();
  }

  /** The graph records the writes since {@link Engine.trackGraphChanges} touched, as they were and are; stops noting. */
  graphChanges(): GraphChangesJs {
    return call(() => this.#inner.graphChanges());
  }

  /** Every entity; with a scope, the entities it sees. */
  entities(scope: Scope = {}): Entity[] {
    return call(() => this.#inner.entities(scope.userId, scope.maxClassification)) as Entity[];
  }

  /** Every edge as stored; with a scope, the edges it sees, `memoryIds` cut to the memories it sees. */
  edges(scope: Scope = {}): Edge[] {
    return call(() => this.#inner.edges(scope.userId, scope.maxClassification)) as Edge[];
  }

  /** Records a relation; with `userId`, as that user. */
  relate(r: Relation, now: number): Edge {
    const { strength, classification, ...names } = r;
    const edge = { ...names, createdAt: now, lastSeenAt: now };
    return call(() => this.#inner.relate(edge, strength, classification, now)) as Edge;
  }

  upsertEdge(edge: EdgeRecord): Edge {
    return call(() => this.#inner.upsertEdge(edge)) as Edge;
  }

  /** Removes `from —[relation]→ to` edges; with `userId`, only that user's. */
  unrelate(from: string, relation: string | null | undefined, to: string, userId?: string): number {
    return call(() => this.#inner.unrelate(from, relation, to, userId));
  }

  stats(): EngineStatsJs {
    return call(() => this.#inner.stats());
  }
}
