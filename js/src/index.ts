/**
 * recallkit: a local-first memory recall engine.
 *
 * ```ts
 * import { MemoryStore } from "recallkit";
 * const store = await MemoryStore.open({ name: "agent" }); // IndexedDB in browsers, files in Node/Deno
 * await store.remember({ text: "We migrated the project database to SQLite" });
 * const res = await store.recall("what database does the project use?");
 * await store.close();
 * ```
 * @packageDocumentation
 */
export { MemoryStore } from "./store.js";
export type { ObserveResult, RememberOptions } from "./store.js";
export {
  formatContext, estimateTokens, DEFAULT_CONTEXT_BUDGET_TOKENS, DEFAULT_CONTEXT_HEADER, CONTEXT_TYPE_ORDER, MIN_CONTEXT_BUDGET_TOKENS,
} from "./context.js";
export type { ContextBlock, ContextOptions } from "./context.js";
export { describeQuery } from "./describe.js";
export { ConversationLane, renderRecall, RECALL_HEADER } from "./conversation.js";
export type { ConversationOptions, LaneHost, LaneSettings, RelevantOptions, TurnHit, TurnInput, TurnRole } from "./conversation.js";
export { detectMemory, guardMemory, GUARD_RULES, MIN_MEMORY_CHARS, MIN_PAYLOAD_CHARS } from "./observe.js";
export type { GuardReason, GuardVerdict, MemoryDetection, MemoryKind } from "./observe.js";
export { RecallError } from "./errors.js";
export type { ErrorCode } from "./errors.js";
export { init } from "./wasm.js";
export type { WasmSource } from "./wasm.js";
export type {
  Memory, MemoryInput, MemoryPatch, NotePatch, OpenOptions, Ranking, RankingWeights, FusionParameters, RecallHit, RecallHitBase, MemoryHit, NoteHit, EdgeHit,
  RecallOptions, RecallResult, ScoreComponents, TagMode, TagMatch, RecallSort, MatchType, TimeWindow, QueryReport, PronounResolution, ContextEntity,
  Stage, StageReport, TimeInput, Note, NoteInput, NotePeriod, Entity, EntityInput, Edge, RelationInput, EmbedFunction,
  RerankFunction, ScopeOptions,
  SearchMode, RecallContext, TimelineItem, StorageOption, StorageInfo, ExportedRecord, ImportOptions, ImportProgress, ImportSource,
  RepairReport, StoreStatus, Tier,
} from "./types.js";
export type { DamagedRange, LogRepair } from "./storage/log.js";
export { MemoryAdapter } from "./storage/memory.js";
export type { MemoryAdapterOptions } from "./storage/memory.js";
export type { StorageAdapter, StorageOp } from "./storage/adapter.js";
