/**
 * Input validation and conversion for the public API. Types and shapes are checked here, with
 * messages naming the field and the bad value; ranges and sizes are checked by the engine,
 * whose answer is final.
 * @module
 */
import { RecallError } from "./errors.js";
import { isWellFormed } from "./storage/ops.js";
import type { ContextEntity, MemoryPatch, RankingWeights, RecallContext, RerankFunction, SearchMode, TimeInput } from "./types.js";
import type { EntityRecord, MemoryRecord, NoteRecord, RecallOptionsJs, Relation, Scope } from "./engine.js";

type Kind = "string" | "strings" | "name" | "names" | "keywords" | "number" | "integer" | "level" | "time" | "boolean" | "vector" | "mode" | "context" | "ranking" | "weights" | "reranker" | "entities";

/** What {@link convert} makes of a value of each kind. */
interface KindValue {
  string: string; strings: string[]; name: string; names: string[]; keywords: string[]; number: number;
  integer: number; level: number; time: number; boolean: boolean; vector: Float32Array; mode: SearchMode; context: RecallContext;
  ranking: NonNullable<RecallOptionsJs["ranking"]>; weights: Record<string, number>; reranker: RerankFunction | false;
  entities: ContextEntity[];
}

/** The kinds whose converted value fits a field of type `V`. */
type KindOf<V> = { [K in Kind]: KindValue[K] extends NonNullable<V> ? K : never }[Kind];

/**
 * A table of the fields a record of type `T` accepts and their kinds: tsc checks that every
 * field is one of `T`'s and that its kind converts to the field's type, so the record
 * {@link convertFields} fills is a `Partial<T>` without a cast.
 */
type FieldKinds<T> = { readonly [K in keyof T]?: KindOf<T[K]> };

/**
 * A lookup table without a prototype: a lookup of a key the caller chose (`constructor`,
 * `toString`, `__proto__`) must miss, so that it is rejected as an unknown field instead of
 * finding `Object.prototype`'s member and being silently dropped.
 */
function lookupTable<V>(entries: Record<string, V>): Readonly<Record<string, V>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, V>, entries));
}

/** The fields a record of type `T` accepts ({@link FieldKinds}), as a {@link lookupTable}. */
function fieldTable<T>(kinds: FieldKinds<T>): FieldKinds<T> {
  return Object.freeze(Object.assign(Object.create(null) as FieldKinds<T>, kinds));
}

/**
 * A memory while {@link toRecord} or {@link applyPatch} builds it: the record's fields, not yet
 * all set, and the embedding, which travels apart.
 */
type MemoryDraft = Partial<MemoryRecord> & { embedding?: Float32Array };
/** A note while {@link toNote} builds it: `period` is any string until checked. */
type NoteDraft = Partial<Omit<NoteRecord, "period">> & { period?: string };
/** Recall options while {@link toRecallOptions} reads them: the query vector and the reranker come apart. */
type RecallDraft = Partial<RecallOptionsJs> & { embedding?: Float32Array; rerank?: RerankFunction | false; skipTrivial?: boolean };
/** What {@link toUnrelation} returns: the endpoints, the relation (absent: every one) and the user. */
export interface Unrelation {
  from: string;
  relation?: string;
  to: string;
  userId?: string;
}

/*
 * Strings that name or filter something (ids, users, topics, tags, types, tiers, entities,
 * relations) are kinds "name" / "names": they must be well-formed UTF-16, because a lone
 * surrogate would become U+FFFD on its way into the engine and two different names would
 * become one ("Ana\ud83d" and "Ana\ud83c"). Text the store only searches (text, textEn,
 * keywords, a note's text, the query) is content: a lone surrogate in it becomes U+FFFD.
 */
const MEMORY_FIELDS = fieldTable<MemoryDraft>({
  id: "name", text: "string", textEn: "string", keywords: "keywords", userId: "name",
  topic: "name", tags: "names", type: "name", tier: "name", emotion: "number",
  emotionTags: "names", importance: "number", confidence: "number", trust: "number",
  credibility: "integer", relevance: "number", classification: "level", createdAt: "time",
  updatedAt: "time", validFrom: "time", validTo: "time", expiresAt: "time", entities: "names",
  embedding: "vector",
});

const RECALL_FIELDS = fieldTable<RecallDraft>({
  limit: "integer", userId: "name", maxClassification: "level", start: "time", end: "time",
  topic: "name", tier: "name", includeExpired: "boolean", now: "time", trackRecalls: "boolean",
  asOf: "time", includeInvalid: "boolean",
  embedding: "vector", searchMode: "mode", context: "context", mmrLambda: "number",
  ranking: "ranking", minScore: "number", weights: "weights", rerank: "reranker",
  tags: "names", tagMode: "string", tagMatch: "string", excludeTags: "names", timeQuery: "string", sort: "string",
  queries: "strings", autoDecompose: "boolean", priorityIds: "names", expandRelations: "boolean", entityHints: "names",
  expandEntities: "boolean", relationLimit: "integer", expansionLimit: "integer", expandMinStrength: "number",
  expandMinImportance: "number", skipTrivial: "boolean", resolveTime: "boolean", resolvePronouns: "boolean",
});

/** The ranking models (`src/rank/model.rs`). */
export const RANKINGS: ReadonlySet<string> = new Set(["recallkit", "abmind", "rrf", "composite", "weighted"]);

/** AutoMem's weights of the "weighted" ranking, each a number ≥ 0. */
const WEIGHT_FIELDS = fieldTable<RankingWeights>({
  vector: "number", keyword: "number", exact: "number", importance: "number", confidence: "number",
  recency: "number", tag: "number", relation: "number", temporal: "number",
});

const CONTEXT_FIELDS = fieldTable<RecallContext>({
  hour: "integer", dayOfWeek: "integer", topic: "name", utcOffsetMinutes: "integer", label: "string",
  language: "string", activePath: "string", tags: "names", types: "names", entities: "entities",
});

const CONTEXT_ENTITY_FIELDS = fieldTable<ContextEntity>({ name: "name", type: "name" });

/** Search modes (abmind's `MEMORY_SEARCH_MODE`). */
export const SEARCH_MODES: ReadonlySet<string> = new Set(["hybrid", "lexical", "semantic"]);

/** Default number of recall results. */
export const DEFAULT_LIMIT = 10;
/** Largest recall limit; larger values are clamped. */
export const MAX_LIMIT = 100;
/** Largest query, in UTF-16 code units. */
export const MAX_QUERY_LENGTH = 16_384;

/**
 * Where a value comes from, as the prefix of error messages: the prefix itself, or the index
 * `i` of a batch item for `"item i: "`. The number form builds no string unless there is an
 * error (`rememberMany` validates thousands of memories at a time).
 */
export type Where = string | number;

function prefixOf(where: Where): string {
  return typeof where === "number" ? `item ${where}: ` : where;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || value == null) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const tag = objectTag(value);
    return tag === "Object" ? "an object" : `a ${tag}`;
  }
  return `a ${typeof value}`;
}

/** `"Object"` for records (any realm, any class), `"Array"`, `"Map"`, `"Date"`, `"Promise"`… for the rest. */
function objectTag(value: object): string {
  return Object.prototype.toString.call(value).slice(8, -1);
}

function invalid(where: Where, field: string, expected: string, value: unknown): RecallError {
  return new RecallError("invalid_argument", `${prefixOf(where)}${field} must be ${expected}, got ${describe(value)}`);
}

/** Converts a {@link TimeInput} to milliseconds since the epoch. */
export function toMillis(value: TimeInput, field: string, where: Where = ""): number {
  let ms: number;
  if (typeof value === "number") ms = value;
  else if (value instanceof Date) ms = value.getTime();
  else if (typeof value === "string") ms = Date.parse(value);
  else throw invalid(where, field, "a time (ms number, Date or ISO string)", value);
  if (!Number.isFinite(ms)) throw invalid(where, field, "a valid time (ms number, Date or ISO string)", value);
  return ms;
}

function convert(kind: Kind, value: unknown, field: string, where: Where): unknown {
  switch (kind) {
    case "string":
      if (typeof value !== "string") throw invalid(where, field, "a string", value);
      return value;
    case "strings": {
      if (!Array.isArray(value)) throw invalid(where, field, "an array of strings", value);
      // Index by index: every() and map() skip the holes of a sparse array.
      for (let i = 0; i < value.length; i++) {
        if (typeof value[i] !== "string") throw invalid(where, `${field}[${i}]`, "a string", value[i]);
      }
      return [...value];
    }
    case "name":
      if (typeof value !== "string") throw invalid(where, field, "a string", value);
      return checkName(value, field, where);
    case "names": {
      const names = convert("strings", value, field, where) as string[];
      names.forEach((n, i) => checkName(n, `${field}[${i}]`, where));
      return names;
    }
    case "keywords":
      if (typeof value === "string") return [value];
      return convert("strings", value, field, where);
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) throw invalid(where, field, "a finite number", value);
      return value;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) throw invalid(where, field, "an integer", value);
      return value;
    case "level":
      // Classification levels count up from 0 (public), as maxClassification does.
      if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
        throw invalid(where, field, "an integer of 0 or more", value);
      }
      return value;
    case "boolean":
      if (typeof value !== "boolean") throw invalid(where, field, "a boolean", value);
      return value;
    case "time":
      return toMillis(value as TimeInput, field, where);
    case "vector":
      return toVector(value, field, where);
    case "mode":
      if (typeof value !== "string" || !SEARCH_MODES.has(value)) {
        throw invalid(where, field, '"hybrid", "lexical" or "semantic"', value);
      }
      return value;
    case "context": {
      checkObject(value, field, where);
      const out: Partial<RecallContext> = {};
      convertFields(value, CONTEXT_FIELDS, `${prefixOf(where)}${field}.`, out);
      return out;
    }
    case "ranking":
      if (typeof value !== "string" || !RANKINGS.has(value)) {
        throw invalid(where, field, '"recallkit", "abmind", "rrf", "composite" or "weighted"', value);
      }
      return value;
    case "reranker":
      if (typeof value !== "function" && value !== false) throw invalid(where, field, "a function or false", value);
      return value;
    case "entities": {
      // `{ name, type? }` objects, most recent last; the engine checks the names and the count.
      if (!Array.isArray(value)) throw invalid(where, field, "an array of { name, type? } objects", value);
      const out: ContextEntity[] = [];
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        checkObject(item, `${field}[${i}]`, where);
        const entity: Partial<ContextEntity> = {};
        convertFields(item, CONTEXT_ENTITY_FIELDS, `${prefixOf(where)}${field}[${i}].`, entity);
        if (entity.name === undefined) throw invalid(where, `${field}[${i}].name`, "a string", item.name);
        out.push(entity as ContextEntity);
      }
      return out;
    }
    case "weights": {
      checkObject(value, field, where);
      const out: Partial<RankingWeights> = {};
      convertFields(value, WEIGHT_FIELDS, `${prefixOf(where)}${field}.`, out);
      for (const [name, w] of Object.entries(out)) {
        if (w < 0) throw invalid(where, `${field}.${name}`, "a number of at least 0", w);
      }
      return out;
    }
  }
}

/**
 * The one check of an object argument (a memory, a patch, an option bag): a plain record of
 * fields, not `null`, an array, a `Map`, a `Date` or a promise, whose keys would be read as
 * fields or silently found to be none. Records of any class or realm pass.
 */
function checkObject(value: unknown, what: string, where: Where = ""): asserts value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || objectTag(value) !== "Object") {
    throw new RecallError("invalid_argument", `${prefixOf(where)}${what} must be an object, got ${describe(value)}`);
  }
}

/** An option bag: `undefined` (no options) or an object ({@link checkObject}). */
export function checkOptions(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined) return {};
  checkObject(value, what);
  return value;
}

/**
 * Converts every field of `input` by its kind in `fields` into `out`: unknown fields are
 * `invalid_argument`, `undefined` and `null` are skipped (a patch's `null` is its caller's).
 */
function convertFields<T extends object>(
  input: Record<string, unknown>, fields: FieldKinds<T>, where: Where, out: Partial<T>,
): void {
  // The same objects, indexed by name: the table's type vouches for each value's type.
  const kinds: Readonly<Record<string, Kind | undefined>> = fields;
  const target: Record<string, unknown> = out;
  // Keys, then each value: what Object.entries does, without an array per field.
  const keys = Object.keys(input);
  for (let i = 0; i < keys.length; i++) {
    const field = keys[i]!;
    const value = input[field];
    const kind = kinds[field];
    if (kind === undefined) {
      throw new RecallError("invalid_argument", `${prefixOf(where)}unknown field ${JSON.stringify(field)}`);
    }
    if (value === undefined || value === null) continue;
    if (kind === "string") {
      // The commonest kind, checked here rather than through convert: a first batch runs
      // before the JIT has optimised convert, and a call costs more than the check there.
      if (typeof value !== "string") throw invalid(where, field, "a string", value);
      target[field] = value;
    } else {
      target[field] = convert(kind, value, field, where);
    }
  }
}

/**
 * Converts a host vector (`Float32Array` or `number[]`) to a `Float32Array`, checking that every
 * component is finite (`invalid_embedding`) and, when `dims` is known, its length
 * (`dimension_mismatch`).
 */
export function toVector(value: unknown, field: string, where: Where = "", dims?: number): Float32Array {
  let v: Float32Array;
  if (value instanceof Float32Array) v = new Float32Array(value);
  else if (Array.isArray(value) && isNumberArray(value)) v = Float32Array.from(value as number[]);
  else if (value instanceof Float64Array) v = Float32Array.from(value);
  else throw invalid(where, field, "a Float32Array or an array of numbers", value);
  let bad = -1;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    // x - x is NaN exactly for NaN and ±Infinity; a plain loop, as vectors are long and many.
    if (x - x !== 0) {
      bad = i;
      break;
    }
  }
  if (bad >= 0) {
    throw new RecallError("invalid_embedding", `${prefixOf(where)}${field}[${bad}] is ${String(v[bad])}, not a finite number`);
  }
  if (v.length === 0) throw new RecallError("invalid_embedding", `${prefixOf(where)}${field} is empty`);
  return checkDimensions(v, field, where, dims);
}

/** Whether every index of `values` holds a number (a hole does not; every() skips holes). */
function isNumberArray(values: unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (typeof values[i] !== "number") return false;
  return true;
}

/**
 * `v`, a vector {@link toVector} already returned (for instance through {@link toRecord}),
 * checked against the store's dimensions (`dimension_mismatch`) without copying or scanning
 * it again.
 */
export function checkDimensions(v: Float32Array, field: string, where: Where = "", dims?: number): Float32Array {
  if (dims !== undefined && v.length !== dims) {
    throw new RecallError("dimension_mismatch", `${prefixOf(where)}${field}: expected ${dims}, got ${v.length}`);
  }
  return v;
}

/** A validated memory record and its embedding, if one was given. */
export interface RecordInput {
  record: MemoryRecord;
  embedding: Float32Array | undefined;
}

/** Validates a new memory and fills in `id`, `createdAt` and `updatedAt`. */
export function toRecord(input: unknown, now: number, newId: () => string, where: Where = ""): RecordInput {
  checkObject(input, "a memory", where);
  const record = blankRecord();
  convertFields(input, MEMORY_FIELDS, where, record);
  if (typeof record.text !== "string") throw invalid(where, "text", "a string", input.text);
  const embedding = record.embedding;
  record.embedding = undefined;
  record.id ??= newId();
  record.createdAt ??= now;
  record.updatedAt ??= record.createdAt;
  checkValidity(record, where);
  // Every field MemoryRecord requires is set (text checked, id and times filled in).
  return { record: record as MemoryRecord, embedding };
}

/**
 * A memory holds from `validFrom` until before `validTo` (the `asOf` rule), so `validTo` must be
 * after `validFrom` when both are set: an empty interval would keep the memory out of every
 * recall without saying so. Checked where memories are written (remember, rememberMany,
 * update), as the engine checks edges; records a store already holds open as they are.
 */
function checkValidity(record: { validFrom?: number; validTo?: number }, where: Where): void {
  const { validFrom, validTo } = record;
  if (validFrom !== undefined && validTo !== undefined && validTo <= validFrom) {
    throw new RecallError(
      "invalid_argument", `${prefixOf(where)}validTo (${validTo}) must be after validFrom (${validFrom})`,
    );
  }
}

/**
 * A record with every memory field ({@link MEMORY_FIELDS}; a test checks the two lists agree)
 * present and unset (`undefined`, which the engine's wire format and the storage codec leave
 * out, as `JSON.stringify` does). Every record then has one hidden class, that of this
 * literal, which V8 keeps as long as this function lives: built field by field in the
 * caller's key order, records had a class per order of keys, which a garbage collection
 * dropped once a batch was gone, and the optimised encoder, specialised to the old classes,
 * was thrown away at the next batch ("wrong map"). A literal, not a copy of a template
 * object: `{ ...template }` measured twice as slow per build (10.5 against 5.5–6.5 ms).
 */
export function blankRecord(): MemoryDraft {
  return {
    id: undefined, text: undefined, textEn: undefined, keywords: undefined, userId: undefined,
    topic: undefined, tags: undefined, type: undefined, tier: undefined, emotion: undefined,
    emotionTags: undefined, importance: undefined, confidence: undefined, trust: undefined,
    credibility: undefined, relevance: undefined, classification: undefined, createdAt: undefined,
    updatedAt: undefined, validFrom: undefined, validTo: undefined, expiresAt: undefined,
    entities: undefined, embedding: undefined,
  };
}

/** The fields a memory accepts, in the order of {@link MEMORY_FIELDS}. */
export const MEMORY_FIELD_NAMES: readonly string[] = Object.keys(MEMORY_FIELDS);

/** Fields a patch cannot clear with `null`, and what they must be instead. */
const REQUIRED_IN_PATCH: Readonly<Record<string, string>> = lookupTable({
  text: "a string", createdAt: "a time (ms number, Date or ISO string)",
});

/**
 * Applies a patch to a stored record: `null` clears an optional field; `updatedAt: null`
 * stamps `now`, as when absent; `text` and `createdAt` cannot be cleared; `id` cannot change.
 * `embedding` is a new vector, `null` (remove it) or `undefined` (not in the patch).
 */
export function applyPatch(
  record: MemoryRecord, patch: unknown, now: number,
): { record: MemoryRecord; embedding: Float32Array | null | undefined } {
  checkObject(patch, "a patch", "");
  if ("id" in patch && patch.id !== record.id) {
    throw new RecallError("invalid_argument", `the id of a memory cannot change (got ${describe(patch.id)})`);
  }
  const { id: _ignored, ...rest } = patch as MemoryPatch & { id?: unknown };
  const out: MemoryDraft = { ...record };
  convertFields(rest, MEMORY_FIELDS, "", out);
  const fields: Record<string, unknown> = out;
  for (const [field, value] of Object.entries(rest)) {
    if (value === null) {
      const required = REQUIRED_IN_PATCH[field];
      if (required !== undefined) throw invalid("", field, required, null);
      delete fields[field];
    }
  }
  if (!("updatedAt" in rest) || rest.updatedAt == null) out.updatedAt = now;
  checkValidity(out, "");
  const embedding = rest.embedding === null ? null : out.embedding;
  delete out.embedding;
  // A copy of a whole record, none of whose required fields a patch may clear.
  return { record: out as MemoryRecord, embedding };
}

/** Validates recall options and fills in defaults; the query vector, if any, comes apart. */
export function toRecallOptions(
  options: unknown, now: number, searchMode: SearchMode,
): {
  options: RecallOptionsJs; embedding: Float32Array | undefined; rerank: RerankFunction | false | undefined; skipTrivial: boolean;
} {
  const out: RecallDraft = {};
  convertFields(checkOptions(options, "recall options"), RECALL_FIELDS, "", out);
  const limit = out.limit ?? DEFAULT_LIMIT;
  if (limit < 1) throw invalid("", "limit", "an integer of at least 1", limit);
  const lambda = out.mmrLambda;
  if (lambda !== undefined && (lambda < 0 || lambda > 1)) throw invalid("", "mmrLambda", "between 0 and 1", lambda);
  const minScore = out.minScore;
  if (minScore !== undefined && (minScore < 0 || minScore > 1)) throw invalid("", "minScore", "between 0 and 1", minScore);
  const context = out.context;
  if (context?.hour !== undefined && (context.hour < 0 || context.hour > 23)) {
    throw invalid("", "context.hour", "an integer 0..23", context.hour);
  }
  if (context?.dayOfWeek !== undefined && (context.dayOfWeek < 0 || context.dayOfWeek > 6)) {
    throw invalid("", "context.dayOfWeek", "an integer 0 (Sunday)..6", context.dayOfWeek);
  }
  out.queries?.forEach((q, i) => checkQuery(q, `queries[${i}]`));
  const { embedding, rerank } = out;
  const skipTrivial = out.skipTrivial ?? true;
  delete out.embedding;
  delete out.rerank;
  delete out.skipTrivial;
  const js: RecallOptionsJs = {
    ...out,
    limit: Math.min(limit, MAX_LIMIT),
    now: out.now ?? now,
    trackRecalls: out.trackRecalls ?? true,
    includeExpired: out.includeExpired ?? false,
    searchMode: out.searchMode ?? searchMode,
  };
  return { options: js, embedding, rerank, skipTrivial };
}

const FUSION_FIELDS = fieldTable<Record<string, number>>({
  lexicalWeight: "number", signatureWeight: "number", graphWeight: "number", noteWeight: "number",
  recencyWeight: "number", latestRecencyWeight: "number", priorExponent: "number",
  coverageWeight: "number", semanticFrom: "number", semanticFull: "number", adjacentWeight: "number",
});

/**
 * Validates the ranking options of `MemoryStore.open` (`ranking`, `minScore`, `weights`,
 * `fusion`) and returns them as the engine takes them (unset ones left out).
 */
export function toRankingConfig(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { ranking, minScore, weights, fusion } = options;
  if (ranking !== undefined) out.ranking = convert("ranking", ranking, "ranking", "");
  if (minScore !== undefined) {
    const m = convert("number", minScore, "minScore", "") as number;
    if (m < 0 || m > 1) throw invalid("", "minScore", "between 0 and 1", m);
    out.minScore = m;
  }
  if (weights !== undefined) out.weights = convert("weights", weights, "weights", "");
  if (fusion !== undefined) {
    checkObject(fusion, "fusion", "");
    const f: Record<string, number> = {};
    convertFields(fusion, FUSION_FIELDS, "fusion.", f);
    for (const [name, v] of Object.entries(f)) {
      if (!name.startsWith("semantic") && (v < 0 || v > 1)) throw invalid("", `fusion.${name}`, "between 0 and 1", v);
    }
    out.fusion = f;
  }
  return out;
}

/** Validates a query string. */
export function checkQuery(query: unknown, name = "query"): string {
  if (typeof query !== "string") throw invalid("", name, "a string", query);
  if (query.length > MAX_QUERY_LENGTH) {
    throw new RecallError("too_large", `${name} is ${query.length} characters, more than ${MAX_QUERY_LENGTH}`);
  }
  return query;
}

/** Validates an id argument. */
export function checkId(id: unknown): string {
  if (typeof id !== "string" || id.length === 0) throw invalid("", "id", "a non-empty string", id);
  return checkName(id, "id", "");
}

/** `name` if it is not empty and well-formed UTF-16 (see "name" above), else `invalid_argument`. */
function checkName(name: string, field: string, where: Where): string {
  // An empty name is no name: `userId: ""` would be a user no scoped read sees (neither shared
  // nor any caller's), `topic: ""` or a tag "" a filter that looks like none.
  if (name === "") throw invalid(where, field, "a non-empty string", name);
  if (!isWellFormed(name)) throw invalid(where, field, "well-formed UTF-16 (no lone surrogate)", name);
  return name;
}

const NOTE_FIELDS = fieldTable<NoteDraft>({
  id: "name", period: "string", start: "time", end: "time", text: "string", userId: "name", classification: "level",
});
const ENTITY_FIELDS = fieldTable<EntityRecord>({
  name: "name", type: "name", aliases: "names", userId: "name", classification: "level",
});
const RELATION_FIELDS = fieldTable<Relation>({
  from: "name", relation: "name", to: "name", strength: "number", memoryIds: "names", userId: "name",
  classification: "level", validFrom: "time", validTo: "time",
});
const UNRELATION_FIELDS = fieldTable<Unrelation>({ from: "name", relation: "name", to: "name", userId: "name" });
const SCOPE_FIELDS = fieldTable<Scope>({ userId: "name", maxClassification: "level" });
const OWNER_FIELDS = fieldTable<{ userId?: string }>({ userId: "name" });
/** The field tables of the stored record kinds, for their name fields ("name", "names"). */
const RECORD_FIELDS: Readonly<Record<string, Readonly<Record<string, Kind | undefined>>>> = {
  memory: MEMORY_FIELDS, note: NOTE_FIELDS, entity: ENTITY_FIELDS, edge: RELATION_FIELDS,
};

/**
 * Checks the name fields of a stored record read from a file (`import`): the same rule as a
 * call's arguments, so a lone surrogate in an id or user id is `invalid_argument`, never
 * mended into another name. `where` prefixes the message (`"line 12: "`).
 */
export function checkRecordNames(kind: string, data: Record<string, unknown>, where: string): void {
  const fields = RECORD_FIELDS[kind];
  if (fields === undefined) return;
  for (const [field, k] of Object.entries(fields)) {
    const value = data[field];
    if (k === "name" && typeof value === "string") checkName(value, field, where);
    if (k === "names" && Array.isArray(value)) {
      value.forEach((n, i) => { if (typeof n === "string") checkName(n, `${field}[${i}]`, where); });
    }
  }
}

const PERIODS = new Set(["daily", "weekly", "quarterly"]);

/** Checks that `out` has `field` (`invalid_argument` naming what `input` held), and tells tsc so. */
function required<T, K extends keyof T & string>(
  out: Partial<T>, field: K, what: string, input: Record<string, unknown>,
): asserts out is Partial<T> & Required<Pick<T, K>> {
  if (out[field] === undefined) throw invalid("", field, what, input[field]);
}

/** Validates a note (new, or a patched copy) and fills in id and timestamps. */
export function toNote(input: unknown, now: number, newId: () => string, base?: NoteRecord): NoteRecord {
  checkObject(input, base ? "a note patch" : "a note", "");
  const out: NoteDraft = base ? { ...base } : {};
  convertFields(input, NOTE_FIELDS, "", out);
  if (base && input.id !== undefined && input.id !== base.id) {
    throw new RecallError("invalid_argument", `the id of a note cannot change (got ${describe(input.id)})`);
  }
  // A patch's null clears a field: end, never period, start or text.
  const period = input.period === null ? null : out.period;
  if (typeof period !== "string" || !PERIODS.has(period)) throw invalid("", "period", '"daily", "weekly" or "quarterly"', period);
  required(out, "start", "a time", input);
  required(out, "text", "a string", input);
  if (input.start === null) throw invalid("", "start", "a time", null);
  if (input.text === null) throw invalid("", "text", "a string", null);
  // Moving start or changing period without a new end, or end: null, gives the period's
  // default end again (a weekly note made daily does not keep its seven days).
  const moved = ("start" in input || ("period" in input && input.period !== base?.period)) && input.end === undefined;
  if (base && (input.end === null || moved)) delete out.end;
  // userId: null makes the note shared again; classification: null sets it back to 0.
  if (base && input.userId === null) delete out.userId;
  if (base && input.classification === null) delete out.classification;
  out.id ??= newId();
  out.createdAt ??= now;
  out.updatedAt = now;
  // Every field NoteRecord requires is set: period, start and text checked, id and times filled in.
  return out as NoteRecord;
}

/** Validates an entity. */
export function toEntity(input: unknown, now: number): EntityRecord {
  checkObject(input, "an entity", "");
  const out: Partial<EntityRecord> = {};
  convertFields(input, ENTITY_FIELDS, "", out);
  required(out, "name", "a string", input);
  out.createdAt = now;
  return out;
}

/** Validates a relation. */
export function toRelation(input: unknown): Relation {
  checkObject(input, "a relation", "");
  const out: Partial<Relation> = {};
  convertFields(input, RELATION_FIELDS, "", out);
  required(out, "from", "a string", input);
  required(out, "relation", "a string", input);
  required(out, "to", "a string", input);
  return out;
}

/** Validates an unrelate request (`relation` optional: all relations between the two). */
export function toUnrelation(input: unknown): Unrelation {
  checkObject(input, "a relation", "");
  const out: Partial<Unrelation> = {};
  convertFields(input, UNRELATION_FIELDS, "", out);
  required(out, "from", "a string", input);
  required(out, "to", "a string", input);
  return out;
}

/**
 * Validates the options of a listing (`notes`, `entities`, `edges`): the scope to list for
 * (`{}`, for none: everything, as stored).
 */
export function toScope(input: unknown, what: string): Scope {
  const out: Scope = {};
  convertFields(checkOptions(input, what), SCOPE_FIELDS, "", out);
  return out;
}

/** Whose a conversation lane is: its turns' user and level, and the ceiling its recalls read under. */
export interface LaneScope extends Scope {
  classification?: number;
}
const LANE_SCOPE_FIELDS = fieldTable<LaneScope>({ userId: "name", maxClassification: "level", classification: "level" });

/**
 * Validates the owner fields of a conversation lane's options (`userId`, `maxClassification`,
 * `classification`; the caller picks them out of the options): kinds as `remember` and `recall`
 * check them, and a `classification` above `maxClassification` (turns the lane itself could not
 * read) is `invalid_argument`.
 */
export function toLaneScope(input: Record<string, unknown>): LaneScope {
  const out: LaneScope = {};
  convertFields(input, LANE_SCOPE_FIELDS, "", out);
  if (out.classification !== undefined && out.maxClassification !== undefined && out.classification > out.maxClassification) {
    throw new RecallError("invalid_argument",
      `classification must be at most maxClassification (${out.maxClassification}), else the lane cannot read its own turns, got ${out.classification}`);
  }
  return out;
}

/** Validates the options of a removal as a user (`forgetEntity`): `{ userId? }`. */
export function toOwner(input: unknown, what: string): string | undefined {
  const out: { userId?: string } = {};
  convertFields(checkOptions(input, what), OWNER_FIELDS, "", out);
  return out.userId;
}
