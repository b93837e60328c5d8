// Type test of the engine boundary (js/src/engine.ts), compiled by js/test/types.test.mjs with
// tsc against the built declarations (js/dist/*.d.ts) and pkg/recallkit.d.ts, which declares
// the Rust side's shapes. It fails to compile when:
// - the engine stops returning the public types (`Memory`, `Note`, `Entity`, `Edge`, `RecallResult`);
// - a public type and its Rust-side declaration drift apart: a field added, renamed or dropped
//   on one side, or a public output the engine would not take back as input;
// - RecallHit stops being a union on `kind` (the `@ts-expect-error` lines).
// The tables at the end list every field of each output with whether it is required, optional
// or absent; tsc checks them against the types, and the test checks real engine outputs
// against them, so a field the engine writes but no type declares fails too.
import type { Engine } from "../../dist/engine.js";
import type {
  Edge, Entity, Memory, MemoryStore, Note, RecallHit, RecallResult, StageReport, TimelineItem,
} from "../../dist/index.js";
import type { EdgeHit, MemoryHit, NoteHit } from "../../dist/types.js";
import type {
  EdgeRecord, EntityRecord, MemoryRecord, NoteRecord, RecallHitJs, RecallOutputJs, StageReportJs,
} from "../../../pkg/recallkit.js";

/** `true` when `A` and `B` are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
/** Compiles only for `true`. */
function check<T extends true>(): T | undefined {
  return undefined;
}

// 1. What the engine returns is the public types.
check<Equal<ReturnType<Engine["get"]>, Memory | undefined>>();
check<Equal<ReturnType<Engine["remove"]>, Memory>>();
check<Equal<ReturnType<Engine["note"]>, Note | undefined>>();
check<Equal<ReturnType<Engine["notes"]>, Note[]>>();
check<Equal<ReturnType<Engine["removeNote"]>, Note>>();
check<Equal<ReturnType<Engine["entities"]>, Entity[]>>();
check<Equal<ReturnType<Engine["removeEntity"]>, Entity>>();
check<Equal<ReturnType<Engine["edges"]>, Edge[]>>();
check<Equal<ReturnType<Engine["relate"]>, Edge>>();
check<Equal<ReturnType<Engine["upsertEdge"]>, Edge>>();
check<Equal<ReturnType<Engine["finishRecall"]>, Omit<RecallResult, "tier" | "trivial">>>(); // the store adds `tier`
check<Equal<ReturnType<Engine["finishRerank"]>, Omit<RecallResult, "tier" | "trivial">>>();

// 2. The public types and the Rust side's declarations name the same fields...
check<Equal<keyof Memory, keyof MemoryRecord>>();
check<Equal<keyof Note, keyof NoteRecord>>();
check<Equal<keyof Entity, keyof EntityRecord>>();
check<Equal<keyof Edge, keyof EdgeRecord>>();
check<Equal<keyof StageReport, keyof StageReportJs>>();
check<Equal<Exclude<keyof RecallResult, "tier" | "trivial">, keyof RecallOutputJs>>(); // the store adds both
check<Equal<keyof MemoryHit | keyof NoteHit | keyof EdgeHit, keyof RecallHitJs>>();
check<Equal<RecallHit["kind"], RecallHitJs["kind"]>>();
// ...and what the engine gives out it takes back (an update's undo, an import, a reload).
check<Memory extends MemoryRecord ? true : false>();
check<Note extends NoteRecord ? true : false>();
check<Entity extends EntityRecord ? true : false>();
check<Edge extends EdgeRecord ? true : false>();
check<Parameters<Engine["replace"]>[0] extends MemoryRecord ? true : false>();

// 3. RecallHit is a union on `kind`: each kind carries its own field.
export function describeHit(hit: RecallHit): string {
  // @ts-expect-error a hit of unknown kind may carry no note
  void hit.note.id;
  // @ts-expect-error nor a memory
  void hit.memory.text;
  // @ts-expect-error nor an edge
  void hit.edge.relation;
  // Reading them unnarrowed stays allowed: absent on the other kinds.
  const maybe: Memory | undefined = hit.memory;
  void maybe;
  switch (hit.kind) {
    case "memory":
      // @ts-expect-error a memory hit has no note
      void hit.note.id;
      return `${hit.memory.text} ${hit.metadata.tags.join(",")}`;
    case "note":
      // @ts-expect-error a note hit has no memory
      void hit.memory.id;
      return `${hit.note.id}#${hit.note.paragraph} (${hit.note.period})`;
    case "edge":
      return `${hit.edge.from} ${hit.edge.relation} ${hit.edge.to}`;
  }
}

// 4. Every field of each output: "required" (always there), "optional" or "absent" (declared
// `?: undefined`). A table that misses a field, names one too many or says the wrong thing
// does not compile.
type Presence<T> = {
  [K in keyof T]-?: [T[K]] extends [undefined] ? "absent" : {} extends Pick<T, K> ? "optional" : "required";
};
type Fields<T> = { [K in keyof Presence<T>]: Presence<T>[K] };

export const MEMORY: Fields<Memory> = {
  id: "required", text: "required", textEn: "optional", keywords: "optional", userId: "optional",
  topic: "optional", tags: "optional", type: "optional", tier: "optional", emotion: "required",
  emotionTags: "optional", importance: "optional", confidence: "optional", trust: "optional",
  credibility: "optional", relevance: "required", classification: "required", createdAt: "required",
  updatedAt: "required", validFrom: "optional", validTo: "optional", expiresAt: "optional",
  entities: "optional", recallCount: "required", lastRecalledAt: "optional", recallTimestamps: "optional",
};
export const NOTE: Fields<Note> = {
  id: "required", period: "required", start: "required", end: "required", text: "required",
  createdAt: "required", updatedAt: "required", userId: "optional", classification: "optional",
};
export const ENTITY: Fields<Entity> = {
  name: "required", type: "optional", aliases: "optional", userId: "optional", classification: "required",
  createdAt: "required",
};
export const EDGE: Fields<Edge> = {
  id: "required", from: "required", relation: "required", to: "required", strength: "required",
  createdAt: "required", lastSeenAt: "required", memoryIds: "optional", userId: "optional",
  classification: "optional", validFrom: "optional", validTo: "optional",
};
const HIT_BASE = {
  id: "required", text: "required", score: "required", stage: "required", matchType: "required", components: "required",
  timeline: "optional", conflicts: "optional", warning: "optional", dedupedFrom: "optional", duplicateIds: "optional",
  expandedFrom: "optional", expandedFromEntity: "optional", relations: "optional",
} as const;
export const MEMORY_HIT: Fields<MemoryHit> = {
  ...HIT_BASE, kind: "required", memory: "required", metadata: "required", note: "absent", edge: "absent",
};
export const NOTE_HIT: Fields<NoteHit> = {
  ...HIT_BASE, kind: "required", memory: "absent", metadata: "absent", note: "required", edge: "absent",
};
export const EDGE_HIT: Fields<EdgeHit> = {
  ...HIT_BASE, kind: "required", memory: "absent", metadata: "absent", note: "absent", edge: "required",
};
export const METADATA: Fields<MemoryHit["metadata"]> = {
  topic: "optional", type: "optional", tags: "required", emotionTags: "required", importance: "optional",
  confidence: "optional", createdAt: "required",
};
export const NOTE_REF: Fields<NoteHit["note"]> = {
  id: "required", period: "required", start: "required", paragraph: "required",
};
export const TIMELINE_ITEM: Fields<TimelineItem> = { id: "required", createdAt: "required", date: "required" };
export const STAGE_REPORT: Fields<StageReport> = {
  name: "required", hits: "required", ms: "required", skipped: "optional", reason: "optional",
};
export const RECALL_RESULT: Fields<RecallResult> = {
  results: "required", stages: "required", count: "required", timeWindow: "optional", tags: "optional",
  dedupRemoved: "required", expansion: "optional", entityExpansion: "optional", tier: "required", trivial: "optional",
  query: "optional",
};

// Patches take the nulls their docs invite (updateNote's was Partial<NoteInput>, which refused them).
export async function patches(store: MemoryStore): Promise<void> {
  await store.updateNote("n", { userId: null, end: null, classification: null });
  await store.update("m", { topic: null, tags: null });
}
