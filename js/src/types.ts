/**
 * Public types of the recallkit API: memories, notes, entities, edges, recalls and their
 * results here; the options of a store, its storage and import in `store-types.ts`, re-exported.
 * @module
 */
import type { Tier } from "./health.js";
import type { Ranking, RankingWeights, RerankFunction, SearchMode } from "./store-types.js";

export type { StoreStatus, Tier } from "./health.js";

export type {
  EmbedFunction, FusionParameters, ExportedRecord, ImportOptions, ImportProgress, ImportSource, OpenOptions, Ranking, RankingWeights,
  RepairReport, RerankFunction, SearchMode, StorageInfo, StorageOption,
} from "./store-types.js";

/** A point in time: milliseconds since the epoch, a `Date`, or an ISO 8601 string. */
export type TimeInput = number | Date | string;

/** What {@link MemoryStore.remember} accepts. Only `text` is required. */
export interface MemoryInput {
  /** Id; generated (a random UUID) when absent. */
  id?: string;
  /** The text, in its original language: not empty, at most 256 KiB of UTF-8 (else `too_large`). */
  text: string;
  /**
   * English (or translated) text; searched by the porter and trigram sub-queries. Defaults to
   * `text`. At most 256 KiB of UTF-8.
   */
  textEn?: string;
  /** Preserved keywords, searched by the trigram sub-query; at most 256 KiB of UTF-8 in all. */
  keywords?: string[] | string;
  /**
   * Namespace (not empty): a recall with `userId` sees only this user's memories (not the
   * ones without a `userId`); a recall without `userId` filters no user (docs/users.md).
   */
  userId?: string;
  /** Topic. */
  topic?: string;
  /** Tags. */
  tags?: string[];
  /** Kind: fact, preference, decision, lesson, event, … */
  type?: string;
  /** Tier; `"core"` memories score ×1.3. */
  tier?: string;
  /** Emotion score, −5..5. */
  emotion?: number;
  /** Emotion labels. */
  emotionTags?: string[];
  /** Importance, 0..1. */
  importance?: number;
  /** Confidence, 0..1. */
  confidence?: number;
  /** Trust, 0..3 (absent: fully trusted). Scores ×(0.5 + 0.5·trust/3). */
  trust?: number;
  /** Credibility level (integer); ≤ 2 scores ×1.25. */
  credibility?: number;
  /** Relevance score; a positive one scores ×1.2. */
  relevance?: number;
  /** Classification level, an integer of 0 or more (default 0); recall's `maxClassification` hides higher levels. */
  classification?: number;
  /** Creation time; defaults to now. */
  createdAt?: TimeInput;
  /** Last update time; defaults to `createdAt`. */
  updatedAt?: TimeInput;
  /** Event-time validity start. */
  validFrom?: TimeInput;
  /** Event-time validity end (exclusive); after `validFrom` when both are set, else `invalid_argument`. */
  validTo?: TimeInput;
  /** Expiry; expired memories are hidden from recall unless `includeExpired`. */
  expiresAt?: TimeInput;
  /** Entity names the memory mentions. */
  entities?: string[];
  /** The host's embedding of the text; when absent and the store has `embed`, the store embeds it. */
  embedding?: Float32Array | number[];
}

/** A stored memory. Times are milliseconds since the epoch. */
export interface Memory {
  id: string;
  text: string;
  textEn?: string;
  keywords?: string[];
  userId?: string;
  topic?: string;
  tags?: string[];
  type?: string;
  tier?: string;
  emotion: number;
  emotionTags?: string[];
  importance?: number;
  confidence?: number;
  trust?: number;
  credibility?: number;
  relevance: number;
  classification: number;
  createdAt: number;
  updatedAt: number;
  validFrom?: number;
  validTo?: number;
  expiresAt?: number;
  entities?: string[];
  /** How many recalls returned this memory. */
  recallCount: number;
  /** When a recall last returned it. */
  lastRecalledAt?: number;
  /** The last 20 recall times. */
  recallTimestamps?: number[];
}

/**
 * Fields {@link MemoryStore.update} may change; `null` clears an optional field. `text` and
 * `createdAt` cannot be cleared (`invalid_argument`); `updatedAt: null` stamps the update
 * time, as leaving it out does.
 */
export type MemoryPatch = { [K in Exclude<keyof MemoryInput, "id">]?: MemoryInput[K] | null };

/** Options of {@link MemoryStore.recall}. */
export interface RecallOptions {
  /**
   * Most results (default 10; values above 100 are clamped to 100); `expandRelations` and
   * `expandEntities` add up to `expansionLimit` more after them.
   */
  limit?: number;
  /** Only this user's memories, and this user's and shared notes, entities and edges. */
  userId?: string;
  /** Hide memories, notes, entities and edges classified above this level. */
  maxClassification?: number;
  /** Earliest `createdAt` (inclusive). */
  start?: TimeInput;
  /** Latest `createdAt` (inclusive). */
  end?: TimeInput;
  /** Only this topic. */
  topic?: string;
  /** Only this tier. */
  tier?: string;
  /** Also return expired memories. */
  includeExpired?: boolean;
  /**
   * Memoria's bi-temporal reading: only memories and edges whose fact held at this time
   * (`validFrom ≤ asOf < validTo`, open ends allowed) and that were already recorded then
   * (`createdAt ≤ asOf`). Without it, a fact whose `validTo` has passed (at `now`) is left
   * out; one whose `validFrom` is still to come is kept. Stage S8, `expandRelations`
   * and `expandEntities` walk only the edges it keeps.
   */
  asOf?: TimeInput;
  /** Without `asOf`, also return memories and edges whose `validTo` has passed (hidden by default). */
  includeInvalid?: boolean;
  /** The time recency and expiry are judged against (default: the store's clock). */
  now?: TimeInput;
  /**
   * Update the returned memories' recall count and timestamps (default true; always false in a
   * store opened with `readOnly`). They feed the ranking's recall-count and spacing factors, so
   * a tracked recall writes: its results' tracking is stored behind its answer, in one batch
   * with the other recalls answered until that batch starts, queued behind the store's other
   * writes (`close()` waits for it; a crash may lose the counts of the last recalls, never a
   * write). Pass `false` for recalls that should leave no trace, such as previews or evaluations.
   */
  trackRecalls?: boolean;
  /** A precomputed query vector (else the store's `embed` is called). */
  embedding?: Float32Array | number[];
  /** Which stages run for this recall (default: the store's). */
  searchMode?: SearchMode;
  /** The caller's context for the context boost. */
  context?: RecallContext;
  /** MMR λ for this recall (any ranking; by default only "abmind" applies MMR). */
  mmrLambda?: number;
  /** The ranking model for this recall (default: the store's). */
  ranking?: Ranking;
  /**
   * Drop results scoring below this, 0..1 (default: the store's). A recall with no query
   * (trending) scores memories by importance: a `minScore` given here or at open applies to
   * it, the default relevance floor does not. `ranking: "abmind"` keeps its seed's raw scale,
   * which a boost can take past 1.
   */
  minScore?: number;
  /** Weights of the "weighted" ranking to change for this recall. */
  weights?: RankingWeights;
  /** A reranker for this recall, or `false` for none (default: the store's `rerank`). */
  rerank?: RerankFunction | false;
  /**
   * Keep memories holding any (or, with `tagMode: "all"`, every) of these tags. A tag matches
   * its equal, ignoring case, and with `tagMatch: "prefix"` (default) the tags continuing it with
   * whole `:`-separated segments: `slack` matches `slack:channel:general`, not `slacker`.
   */
  tags?: string[];
  /** How `tags` combine: `"any"` (default) or `"all"`. */
  tagMode?: TagMode;
  /** How a tag of `tags` matches: `"prefix"` (default, whole segments) or `"exact"`. */
  tagMatch?: TagMatch;
  /** Drop memories holding a tag matching any of these (prefix rule). */
  excludeTags?: string[];
  /**
   * A time window in words ("today", "this morning", "yesterday", "last night", "last week",
   * "last weekend", "last 7 days", "past 24 hours", "last few days", "3 days ago", "since Monday",
   * "in March", "March 2024", "2024"), read against `asOf` when given, else `now`, and
   * `context.utcOffsetMinutes`; `start` / `end` given explicitly win. The window applied is
   * the answer's `timeWindow`. Not a time expression: `invalid_argument`.
   */
  timeQuery?: string;
  /**
   * The order of the results: `"score"` (default), `"time_desc"`, `"time_asc"`, `"updated_desc"`,
   * `"updated_asc"`. A recall with no query and a time window defaults to `"time_desc"`.
   */
  sort?: RecallSort;
  /**
   * More queries run in the same recall (at most 10), each with the same options; the results
   * are merged by record, each keeping its best score (`dedupRemoved` counts the duplicates). With
   * `embed`, each query gets its own vector. `query` and `queries` together: both run.
   */
  queries?: string[];
  /**
   * Also run one sub-query per entity the query names and per content word of it (at most 5),
   * merged as `queries` (with `embed`, each sub-query gets its own vector too).
   */
  autoDecompose?: boolean;
  /**
   * Memories always in the answer, if they exist and the recall's `userId`, `maxClassification`
   * and expiry let it see them (other filters do not apply): with their own score when a stage
   * found them (wherever they ranked), else at 0 with stage and `matchType` `"priority"`;
   * counted within `limit`. A trivial message runs nothing (`trivial: true`), so it returns
   * none of them either.
   */
  priorityIds?: string[];
  /**
   * Answer a trivial message ("ok", "thanks", "yes", a lone emoji, punctuation, a lone letter
   * or digit, and the Vietnamese "cảm ơn", "vâng", "ừ", "dạ"; "Go", "AI" and "東京" are
   * searched) at once with
   * `{ results: [], trivial: true }`: no stage runs and `embed` is not called (Engram's query
   * decision). Default true; `false` searches anyway. An empty query or `*` is not trivial: it
   * asks for the trending memories.
   */
  skipTrivial?: boolean;
  /**
   * Read a time expression in the question ("what did I do yesterday?", "in March 2024",
   * "3 days ago", "hôm qua", "tuần trước") into the time window and search the rest (Engram's
   * time words; the answer's `query` and `timeWindow` say what happened). Default true;
   * `timeQuery` wins, explicit `start` / `end` narrow the window. A window holding no memory
   * is dropped and the whole question searched; one whose memories the other words do not
   * match answers with those memories, newest first (docs/recall.md).
   */
  resolveTime?: boolean;
  /**
   * Resolve the question's pronouns to entities before searching ("what did she decide?" →
   * "what did Alice decide?"; Engram's query pipeline): "he", "she", "him", "her", "his"
   * and the Vietnamese "anh ấy", "cô ấy", "chị ấy", "ông ấy", "bà ấy" name the most recent
   * person (an entity of type `person`); "it", "they", "them", "nó" the most recent entity.
   * Recent means last in `context.entities`, else named by the newest memory of this
   * `userId` that names one. A possessive becomes the name ("his plan" → "Alice plan"). A
   * pronoun with no candidate stays; one with two equally recent candidates stays and is
   * reported as ambiguous. The answer's `query.pronouns` says what happened. Default true.
   */
  resolvePronouns?: boolean;
  /**
   * After the results (the seeds), follow the entity graph from each memory (the edges citing it
   * and those of the entities its `entities` names, strongest first) to the other memories those
   * edges cite; they are added after the seeds with `expandedFrom` and `matchType: "relation"`,
   * and the answer's `expansion` counts them: `limit` counts the seeds, so the answer holds up
   * to `limit` + `expansionLimit` results. Every memory result then lists its `relations`.
   */
  expandRelations?: boolean;
  /**
   * Multi-hop through entities: the entities the query names, the memories naming them, the
   * other entities those name, and their memories ("What does Sarah's sister do?" finds "Rachel
   * is a nurse" through "Sarah's sister is Rachel"); added after the seeds with
   * `expandedFromEntity` and `matchType: "entity"`, counted in the answer's `entityExpansion`.
   * The entities are those of the store's graph (`addEntity`, `relate`): with none, nothing is
   * expanded.
   */
  expandEntities?: boolean;
  /** Edges followed per seed by `expandRelations`, 1–200 (default 5). */
  relationLimit?: number;
  /** Memories the expansions add in all, 1–500 (default 25). */
  expansionLimit?: number;
  /** Weakest edge `expandRelations` follows, 0–1 (default 0). Never filters the seeds. */
  expandMinStrength?: number;
  /** Least `importance` of an expanded memory (absent counts as 0), 0–1 (default 0). Never filters the seeds. */
  expandMinImportance?: number;
  /**
   * Entities (names or aliases, at most 16) stage S8's Personalized PageRank starts from besides
   * those the query names, when the caller already knows what the question is about (Memoria's
   * `entityHints`); an edge's coverage reads them as words of the question. Unknown names are
   * ignored. Not read by `ranking: "abmind"`, whose S8 matches the query's first entity only.
   */
  entityHints?: string[];
}

/** How several recall `tags` combine. */
export type TagMode = "any" | "all";
/** How a recall tag matches a memory's tag. */
export type TagMatch = "prefix" | "exact";
/** The order of recall results. */
export type RecallSort = "score" | "time_desc" | "time_asc" | "updated_desc" | "updated_asc";
/**
 * How a result was matched: `keyword` (stage Sf), `semantic` (Se), `signature` (Ss), `note`
 * (S6), `entity` (S8, or added by `expandEntities`), `relation` (added by `expandRelations`),
 * `trending` (a recall with no query), `tag` (no query, a tag filter) or `priority` (a
 * `priorityIds` memory no stage found).
 */
export type MatchType =
  | "keyword" | "semantic" | "signature" | "note" | "entity" | "relation" | "trending" | "tag" | "priority";

/** The caller's context (abmind's `currentContext`). */
export interface RecallContext {
  /** Local hour 0..23. */
  hour?: number;
  /** Local weekday, 0 = Sunday … 6 = Saturday. */
  dayOfWeek?: number;
  /** Current conversation topic. */
  topic?: string;
  /** Offset from UTC in minutes, positive east (`-new Date().getTimezoneOffset()`), to read memories' dates locally; -1080 to 1080 (18 hours). */
  utcOffsetMinutes?: number;
  /**
   * What the caller is doing ("code review"): memories tagged with it or of that `type` get a
   * small boost. This and the hints below boost, never filter (AutoMem's context hints).
   */
  label?: string;
  /** The programming language: memories tagged with it gain, style and pattern memories most. */
  language?: string;
  /** The file being edited; its extension implies `language` when that is absent (`src/auth.ts`: typescript). */
  activePath?: string;
  /** Tags to favour (prefix matching, as `tags`). */
  tags?: string[];
  /** Memory types to favour ("decision", "style", …). */
  types?: string[];
  /**
   * The session's recently mentioned entities, most recent last (at most 100), for the
   * question's pronouns (`resolvePronouns`): `type: "person"` (any case) makes an entity a
   * candidate for "he" / "she"; every entity is one for "it" / "they".
   */
  entities?: ContextEntity[];
}

/** An entity the session mentioned ({@link RecallContext.entities}). */
export interface ContextEntity {
  /** Its name, as the stages should search it. */
  name: string;
  /** Its type: `"person"` for he / she; any other, or none, for it / they only. */
  type?: string;
}

/** Every factor of a lexical (Sf) score (abmind's formula). */
export interface ScoreComponents {
  /** Raw text score: FTS5 bm25 (porter) or trigram BM25. */
  bm25: number;
  /** `0.5·ln(1+|emotion|)`, added to bm25. */
  emotionBoost: number;
  /** `0.1·recallCount`; score ×(1 + recallBoost). */
  recallBoost: number;
  /** 0.2 when relevance is positive; score ×(1 + relevanceBoost). */
  relevanceBoost: number;
  /** `0.5 + 0.5·trust/3`. */
  trustFactor: number;
  /** 1.25 when credibility ≤ 2. */
  credibilityFactor: number;
  /** 1.3 for tier "core". */
  tierBoost: number;
  /**
   * Stage Sf's (abmind's) factor: `max(floor, 1 − ageDays/decayDays)·(1 + |emotion|·emotionBoost)`.
   * Each ranking then reports its own under the same name: `recallkit`'s is
   * `1 − 0.1·(1 − fresh)` (and its `prior` is already `prior^¼`), `composite`'s and
   * `weighted`'s are the recency terms of their formulas (docs/ranking.md).
   */
  recency: number;
}

/** The stage that found a result. */
export type Stage =
  | "Sf:porter" | "Sf:trigram_en" | "Sf:trigram_orig" | "Se" | "Ss" | "S6:daily" | "S6:weekly" | "S6:quarterly" | "S8"
  | "S8:entity" | "trending" | "priority" | "expand:relation" | "expand:entity";

/** One entry of a topic timeline. */
export interface TimelineItem {
  id: string;
  createdAt: number;
  /** `YYYY-MM-DD` in the context's UTC offset. */
  date: string;
}

/** What every recall result carries, whatever its kind. */
export interface RecallHitBase {
  /** Memory id, `note:<id>#<paragraph>`, or edge id. */
  id: string;
  /** The memory's text, the note paragraph, or `alice —[works_with]→ bob`. */
  text: string;
  score: number;
  /** The stage that found it; `trending` for a recall with no query. */
  stage: Stage;
  /** How it was matched. */
  matchType: MatchType;
  /**
   * Every factor applied, in order: the stage's breakdown (Sf: {@link ScoreComponents}; Se:
   * `cosine`; Ss: `signatureSimilarity`), `raw`, `calibrated`, then `crossStagePenalty`,
   * `contextBoost`, `emotionTiebreak`, `spacingBoost` when applied, `rankBeforeMmr`, `rankAfterMmr`.
   * The `recallkit` ranking adds its evidence (`lexical`, `semantic`, …), `correctedWords` when
   * stage Sf read a misspelt query word as its neighbour, `relevance`, `recency` and `prior`,
   * and `adjacent` when a better match written just before or after it lends it part of the
   * difference.
   */
  components: Partial<ScoreComponents> & Record<string, number>;
  /** The results sharing this result's topic, in time order. */
  timeline?: TimelineItem[];
  /** Ids of results this one contradicts. */
  conflicts?: string[];
  /** `"⚠️ Conflicts with another result"` when `conflicts` is set. */
  warning?: string;
  /** The query texts that found this memory, when several of a recall's `queries` did. */
  dedupedFrom?: string[];
  /**
   * The ids of other memories with the same normalised text (case, diacritics, punctuation and
   * spacing aside), which this better-ranked result stands for and the answer leaves out
   * (Engram's content-hash dedup; counted in `dedupRemoved`). Not with `ranking: "abmind"`.
   */
  duplicateIds?: string[];
  /** For a memory `expandRelations` added: the seed it came from and the edge followed. */
  expandedFrom?: { id: string; edge: string };
  /** For a memory `expandEntities` added: the entity it came through (display name). */
  expandedFromEntity?: string;
  /** With `expandRelations`: the ids of the memory's edges (strongest first, at most `relationLimit`). */
  relations?: string[];
}

/** A memory result (`kind: "memory"`): it carries the memory and its metadata. */
export interface MemoryHit extends RecallHitBase {
  kind: "memory";
  /** The whole memory, as stored after this recall (memory results). */
  memory: Memory;
  /** Topic, type, tags, emotion tags, importance, confidence, createdAt (memory results). */
  metadata: {
    topic?: string; type?: string; tags: string[]; emotionTags: string[]; importance?: number; confidence?: number;
    createdAt: number;
  };
  note?: undefined;
  edge?: undefined;
}

/** A note paragraph result (`kind: "note"`, stage S6): it carries the paragraph's place. */
export interface NoteHit extends RecallHitBase {
  kind: "note";
  memory?: undefined;
  metadata?: undefined;
  /** The note paragraph (S6 results). */
  note: { id: string; period: NotePeriod; start: number; paragraph: number };
  edge?: undefined;
}

/** A graph relation result (`kind: "edge"`, stage S8): it carries the edge. */
export interface EdgeHit extends RecallHitBase {
  kind: "edge";
  memory?: undefined;
  metadata?: undefined;
  note?: undefined;
  /** The relation (S8 results). */
  edge: Edge;
}

/**
 * One recall result: a memory, a note paragraph (S6) or a graph relation (S8). `kind` tells
 * which, and so which of `memory` (with `metadata`), `note` or `edge` it carries: after
 * `if (hit.kind === "note")`, TypeScript knows `hit.note` is there. On a hit of another kind
 * those fields are absent (`undefined`).
 */
export type RecallHit = MemoryHit | NoteHit | EdgeHit;

/** What one stage did. */
export interface StageReport {
  /** The stage; `rerank` is the host's reranker, reported when there is one. */
  name: "Sf" | "Se" | "Ss" | "S6" | "S8" | "rerank";
  /** Hits the stage found (for `rerank`: candidates it scored). */
  hits: number;
  ms: number;
  skipped?: boolean;
  /**
   * Why it was skipped: `short_circuit`, `lexical_mode`, `semantic_mode`, `no_embedder`,
   * `embed_failed`, `embed_timeout`, `not_ranked`, `semantic_evidence`, `no_query` (a recall
   * with no query: trending), `trivial` (a trivial message: nothing ran); for `rerank`:
   * `rerank_failed`, `rerank_timeout`.
   */
  reason?: string;
}

/** The answer of {@link MemoryStore.recall}. */
export interface RecallResult {
  results: RecallHit[];
  stages: StageReport[];
  /** The store's degradation tier this recall ran in (`MemoryStore.status()`). */
  tier: Tier;
  /**
   * `true` when the query was a trivial message ("ok", "thanks", a lone emoji, a lone letter
   * or digit: Engram's query decision) and nothing ran; absent otherwise.
   * `skipTrivial: false` turns the check off.
   */
  trivial?: true;
  /** The number of results. */
  count: number;
  /** The time window applied (`timeQuery`, time words of the question, or `start` / `end`), when there was one. */
  timeWindow?: TimeWindow;
  /**
   * What the question became, when time words were read out of it or pronouns resolved
   * (Engram's query pipeline): the question as asked, the text the stages searched, the words
   * read as `timeWindow` (or dropped with it), and the pronouns.
   */
  query?: QueryReport;
  /** The tag filter applied (`tags`, lowercased), when there was one. */
  tags?: string[];
  /**
   * Results dropped as duplicates: of the same record when the results of several `queries`
   * were merged, and of the same text (the results' `duplicateIds`).
   */
  dedupRemoved: number;
  /** With `expandRelations`: the seed results, and the memories the relations added. */
  expansion?: { seedCount: number; expandedCount: number };
  /** With `expandEntities`: the entities expanded through, and the memories added. */
  entityExpansion?: { entitiesFound: string[]; expandedCount: number };
}

/** What a question became before the stages searched it ({@link RecallResult.query}). */
export interface QueryReport {
  /** The question as asked. */
  text: string;
  /**
   * What the stages searched: the question without its time words and with its pronouns
   * resolved (empty when only time words and stopwords were left: the window's memories,
   * newest first).
   */
  searchText: string;
  /** The words read as the time window ("last week", "hôm qua"), when there were some. */
  resolvedFrom?: string;
  /**
   * `true` when the window read from `resolvedFrom` held nothing and was dropped: the whole
   * question was searched with no window (the words may not have meant a time: "is the office
   * open on Saturday?"), and the answer has no `timeWindow`.
   */
  windowDropped?: true;
  /** The pronouns resolved, or left alone as ambiguous, in the question's order. */
  pronouns?: PronounResolution[];
}

/** One pronoun of the question ({@link QueryReport.pronouns}). */
export interface PronounResolution {
  /** The pronoun as written ("she", "anh ấy"). */
  pronoun: string;
  /** The entity written in its place. */
  entity?: string;
  /** When ambiguous: the equally recent candidates; the pronoun was left as written. */
  ambiguous?: string[];
}

/** The time window a recall applied. */
export interface TimeWindow {
  /** Earliest `createdAt` kept (ms since the epoch), if bounded. */
  start?: number;
  /** Latest `createdAt` kept, if bounded. */
  end?: number;
  /** `"timeQuery"` when the window came from words, `"options"` when only from `start` / `end`. */
  source: "timeQuery" | "query" | "options";
}

/** Consolidation period of a note. */
export type NotePeriod = "daily" | "weekly" | "quarterly";

/** What {@link MemoryStore.addNote} accepts: a markdown summary of a period. */
export interface NoteInput {
  /** Id; generated when absent. */
  id?: string;
  period: NotePeriod;
  /** Start of the period. */
  start: TimeInput;
  /** End of the period; defaults to start + 1 day, 7 days or 3 months. */
  end?: TimeInput;
  /** Markdown text; each paragraph is searched by stage S6. */
  text: string;
  /** Only recalls with this userId (or none) see it (absent: shared, seen by every recall). */
  userId?: string;
  /** Classification level, an integer of 0 or more (default 0); recall's `maxClassification` hides higher levels. */
  classification?: number;
}

/**
 * A change to a note ({@link MemoryStore.updateNote}): the fields to set; `null` clears `end`
 * (the period's default end), `userId` (shared) or `classification` (0).
 */
export type NotePatch = { [K in Exclude<keyof NoteInput, "id">]?: NoteInput[K] | null };

/** A stored note. */
export interface Note {
  id: string;
  period: NotePeriod;
  start: number;
  end: number;
  text: string;
  createdAt: number;
  updatedAt: number;
  /** Owner; absent: shared. */
  userId?: string;
  /** Classification level; absent: 0. */
  classification?: number;
}

/**
 * Whom {@link MemoryStore.notes}, {@link MemoryStore.entities} and {@link MemoryStore.edges}
 * list for: with `userId`, that user's records and shared ones (records without a userId);
 * with `maxClassification`, none classified higher; with neither, every record as stored.
 * Recall filters notes, entities and edges the same way.
 */
export interface ScopeOptions {
  userId?: string;
  maxClassification?: number;
}

/**
 * What {@link MemoryStore.addEntity} accepts. With `userId`, the entity is that user's (only
 * recalls with this userId, or none, see it) and may merge only into that user's entity of the
 * same name; names are one namespace per store, so a name another user's entity holds is
 * `already_exists`.
 */
export interface EntityInput {
  name: string;
  type?: string;
  aliases?: string[];
  /** Owner (absent: shared). */
  userId?: string;
  /** Classification level, an integer of 0 or more (default 0); recall's `maxClassification` hides higher levels. */
  classification?: number;
}

/** A stored entity. */
export interface Entity {
  name: string;
  type?: string;
  aliases?: string[];
  userId?: string;
  classification: number;
  createdAt: number;
}

/** What {@link MemoryStore.relate} accepts. */
export interface RelationInput {
  from: string;
  relation: string;
  to: string;
  /** 0..1, default 0.5. */
  strength?: number;
  /** Memories that support the relation. */
  memoryIds?: string[];
  /**
   * Relate as this user: the edge, and the entities it creates, are the user's; it may use the
   * user's and shared entities and change the user's edges only (else `already_exists`).
   * Absent: a shared edge, written for the whole store.
   */
  userId?: string;
  /** Classification of a new edge and the entities it creates (default 0); of an existing edge, its new level (default: unchanged). */
  classification?: number;
  /**
   * When the relation started to hold (event time; absent: always did). Relating an existing
   * edge again with `validFrom` or `validTo` replaces that end; `validTo` must be after
   * `validFrom` (else `invalid_argument`, and nothing is stored).
   */
  validFrom?: TimeInput;
  /** When it stopped holding, exclusive (absent: it still holds); see {@link RecallOptions.asOf}. */
  validTo?: TimeInput;
}

/** A stored edge; `from` and `to` are normalised entity names. */
export interface Edge {
  id: string;
  from: string;
  relation: string;
  to: string;
  strength: number;
  createdAt: number;
  lastSeenAt: number;
  /**
   * Memories that state the relation. In a recall result, and in `edges()` given a scope, only
   * the memories that reader may see: the ids of other users' memories, of memories above the
   * ceiling or outside the recall's filters, and of no stored memory are left out.
   */
  memoryIds?: string[];
  userId?: string;
  classification?: number;
  /** When the relation started to hold (ms); absent: always did. */
  validFrom?: number;
  /** When it stopped holding (ms, exclusive); absent: it still holds. Recall hides it after then unless `includeInvalid`. */
  validTo?: number;
}
