/**
 * {@link MemoryStore}: the public API. It validates input, owns the wasm engine and turns
 * engine errors into {@link RecallError}s. Ranking lives in Rust, never here.
 * @module
 */
import { Engine } from "../../pkg/recallkit.js";
import type { MemoryRecord } from "../../pkg/recallkit.js";
import { RecallError, fromEngineError } from "./errors.js";
import type {
  Edge, Entity, EntityInput, Memory, MemoryInput, MemoryPatch, Note, NoteInput, OpenOptions, RecallOptions, RecallResult,
  RelationInput,
} from "./types.js";
import {
  applyPatch, checkId, checkQuery, toEntity, toNote, toRecallOptions, toRecord, toRelation, toUnrelation,
} from "./validate.js";
import { init } from "./wasm.js";

const OPEN_FIELDS = new Set(["storage", "decayDays", "decayFloor", "emotionBoost", "clock"]);

function randomId(): string {
  return globalThis.crypto.randomUUID();
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

  private constructor(engine: Engine, clock: () => number) {
    this.#engine = engine;
    this.#clock = clock;
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
    const clock = options.clock ?? Date.now;
    if (typeof clock !== "function") throw new RecallError("invalid_argument", "clock must be a function");
    for (const key of ["decayDays", "decayFloor", "emotionBoost"] as const) {
      const v = options[key];
      if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v))) {
        throw new RecallError("invalid_argument", `${key} must be a finite number, got ${String(v)}`);
      }
    }
    await init();
    try {
      const engine = new Engine({
        decayDays: options.decayDays, decayFloor: options.decayFloor, emotionBoost: options.emotionBoost,
      });
      return new MemoryStore(engine, clock);
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

  /** Stores one memory and returns its id. */
  async remember(memory: MemoryInput): Promise<string> {
    const engine = this.#live();
    const record = toRecord(memory, this.#now(), randomId);
    try {
      engine.insert(record);
    } catch (e) {
      throw fromEngineError(e);
    }
    return record.id;
  }

  /** Stores every memory or none (an error names the first bad item's index). Returns the ids. */
  async rememberMany(memories: MemoryInput[]): Promise<string[]> {
    const engine = this.#live();
    if (!Array.isArray(memories)) {
      throw new RecallError("invalid_argument", "rememberMany expects an array of memories");
    }
    const now = this.#now();
    const records = memories.map((m, i) => toRecord(m, now, randomId, `item ${i}: `));
    try {
      engine.insertMany(records);
    } catch (e) {
      throw fromEngineError(e);
    }
    return records.map((r) => r.id);
  }

  /** The memory with this id, or `undefined`. */
  async get(id: string): Promise<Memory | undefined> {
    const engine = this.#live();
    return engine.get(checkId(id)) as Memory | undefined;
  }

  /** Every memory id, in insertion order. */
  async ids(): Promise<string[]> {
    return this.#live().ids();
  }

  /** Changes fields of a memory (`null` clears an optional field) and returns it. */
  async update(id: string, patch: MemoryPatch): Promise<Memory> {
    const engine = this.#live();
    const current = engine.get(checkId(id));
    if (current === undefined) throw new RecallError("not_found", `no memory with id ${JSON.stringify(id)}`);
    const next = applyPatch(current, patch, this.#now());
    try {
      engine.replace(next);
    } catch (e) {
      throw fromEngineError(e);
    }
    return engine.get(id) as Memory;
  }

  /** Deletes a memory and returns it; `not_found` if there is none. */
  async forget(id: string): Promise<Memory> {
    const engine = this.#live();
    try {
      return engine.remove(checkId(id)) as Memory;
    } catch (e) {
      throw fromEngineError(e);
    }
  }

  /** Recalls the memories most relevant to `query`. */
  async recall(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    const engine = this.#live();
    const text = checkQuery(query);
    const opts = toRecallOptions(options, options?.now === undefined ? this.#now() : 0);
    try {
      const out = engine.recall(text, opts);
      return {
        results: out.results.map((r) => ({
          id: r.id, text: r.memory.text, score: r.score, stage: r.stage, components: r.components,
          memory: r.memory as Memory,
        })) as RecallResult["results"],
        stages: out.stages as RecallResult["stages"],
      };
    } catch (e) {
      throw fromEngineError(e);
    }
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
