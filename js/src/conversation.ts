/**
 * {@link ConversationLane}: Neo's conversation lane, the relevant earlier turns of one long
 * conversation, for the part of it that has scrolled out of an agent's window.
 *
 * - **Turns are memories** of the store, stored durably by `append` like `remember`, with the
 *   topic `recallkit:conversation:<id>` ({@link CONVERSATION_TOPIC_PREFIX}), type `turn` and
 *   the role as their only tag. The engine hides them from every recall whose `topic` does not
 *   name their conversation (`src/recall/filter.rs`), so they never mix with other memories
 *   unless asked for by that topic.
 * - **Ranking is the engine's recall**, with `topic` set to the conversation: the store's
 *   ranking over the lexical stages, plus cosine when the store has an `embed` function (no
 *   notes, no graph). Without an embedder the lane still answers lexically, where Neo's
 *   returns nothing.
 * - **Lazy and incremental.** `append` never embeds. `relevant` embeds the turns appended since
 *   the last call together with the query, in one call to the host's `embed`, and stores their
 *   vectors (one write), so no turn is embedded twice, also after a reopen: the steady state is
 *   one query text plus one text per new turn. An embed that fails or times out only makes
 *   that call lexical (fewer hits), never an error; the turns are tried again next time. A
 *   store opened `readOnly` cannot keep vectors: it embeds only the query.
 * - **Bounded**: at most `topK` hits, and hits are added in rank order while their texts fit
 *   `budgetTokens` (Neo's estimate, `(length + 3) / 4` per turn); the best hit is always kept.
 * - **Dedup at the agent boundary**: `exclude` drops turns by id or by text (the live
 *   window's texts), `excludeLast` drops the last N turns the store holds; a window of any
 *   size leaves `topK` places for older turns when the turns were recorded in order.
 * - **What the store holds now**: a hit's text and role are the stored turn's, so an `update`
 *   (a redaction) or a `forget` shows at once.
 * - **A user's lane**: with `userId`, the turns are stored as that user's and every recall of
 *   the lane passes it (and `maxClassification`), so nothing of another user, or classified
 *   above the ceiling, takes part: not their turns, nor the memories and entities the
 *   question's pronouns resolve through. The lane knows only the turns its recall can see.
 *
 * The lane learns the conversation's turns from the store the first time it is used (a scan of
 * the store's memories), then keeps count of its own appends; turns another tab appends are
 * seen by a new lane.
 * @module
 */
import { RecallError } from "./errors.js";
import { estimateTokens, quoteText } from "./context.js";
import { toLaneScope, toRecallOptions } from "./validate.js";
import type { MemoryInput, RecallContext, RecallOptions, RecallResult, TimeInput } from "./types.js";

/** The topic prefix of a conversation's turns (the engine's `CONVERSATION_TOPIC_PREFIX`). */
export const CONVERSATION_TOPIC_PREFIX = "recallkit:conversation:";
/** Longest name the engine stores, in UTF-8 bytes (`MAX_NAME_BYTES` in `src/store/records.rs`): a turn's topic. */
export const MAX_TOPIC_BYTES = 1024;

/**
 * Checks that a conversation's turns can be stored under `conversationId`: its topic,
 * {@link CONVERSATION_TOPIC_PREFIX} and the id, must fit {@link MAX_TOPIC_BYTES}. Errors:
 * `invalid_argument` naming the longest id that fits.
 */
export function checkConversationId(conversationId: string): void {
  const bytes = new TextEncoder().encode(CONVERSATION_TOPIC_PREFIX + conversationId).length;
  if (bytes > MAX_TOPIC_BYTES) {
    const most = MAX_TOPIC_BYTES - new TextEncoder().encode(CONVERSATION_TOPIC_PREFIX).length;
    throw new RecallError("invalid_argument",
      `a conversation id is at most ${most} bytes of UTF-8, got ${bytes - (MAX_TOPIC_BYTES - most)}`);
  }
}

/** The memory type of a turn. */
export const TURN_TYPE = "turn";
/** Neo's default number of hits. */
export const DEFAULT_TOP_K = 5;
/** Neo's default token ceiling of the hits' texts. */
export const DEFAULT_LANE_BUDGET_TOKENS = 1000;
/** The first line of {@link renderRecall}'s block (Neo's wording). */
export const RECALL_HEADER =
  "Relevant earlier in this conversation (the live exchange below is more current — it wins on any conflict):";

/** Who said a turn. */
export type TurnRole = "user" | "assistant";

/** Options of {@link MemoryStore.conversation}. */
export interface ConversationOptions {
  /** Most hits per {@link ConversationLane.relevant} call (an integer 1..100, default 5). */
  topK?: number;
  /** Token ceiling of the hits' texts (an integer ≥ 1, default 1000; the best hit is kept even above it). */
  budgetTokens?: number;
  /**
   * The user the conversation belongs to (docs/users.md). Its turns are stored with this
   * `userId`, so a host that finds a user's data by `userId` (to export or forget it) finds
   * them, and every recall of
   * the lane passes it: only this user's turns are found, and the question's pronouns resolve
   * through this user's memories and the entities this user sees, never another user's. Without
   * it the turns are shared and the lane's recalls filter no user, as a recall without `userId`:
   * in a store of several users, give it. A lane with `userId` does not see turns stored
   * without one (or as another user) under the same conversation id.
   */
  userId?: string;
  /**
   * Hide what is classified above this level (an integer ≥ 0) from the lane's recalls,
   * pronoun resolution included, as recall's `maxClassification`; the lane's live window and
   * hits count only the turns it may see.
   */
  maxClassification?: number;
  /**
   * The classification level of the turns `append` stores (an integer ≥ 0, default 0); at
   * most `maxClassification` when both are given (`invalid_argument`: the lane could not read
   * its own turns).
   */
  classification?: number;
}

/**
 * {@link ConversationOptions} as {@link MemoryStore.conversation} checked them, defaults filled
 * in: what a {@link ConversationLane} is built with.
 */
export interface LaneSettings {
  /** Most hits per call, 1..100. */
  topK: number;
  /** Token ceiling of the hits' texts, ≥ 1. */
  budgetTokens: number;
  /** The lane's user, if it has one. */
  userId?: string;
  /** The lane's classification ceiling, if it has one. */
  maxClassification?: number;
  /** Its turns' classification level (absent: 0); at most `maxClassification`. */
  classification?: number;
}

/** What {@link ConversationLane.append} accepts. */
export interface TurnInput {
  role: TurnRole;
  text: string;
  /** When it was said (default: now). */
  createdAt?: TimeInput;
}

/** Options of {@link ConversationLane.relevant}. */
export interface RelevantOptions {
  /** Turns to leave out: ids, or texts (the live window's turns, compared trimmed). */
  exclude?: string[];
  /** Leave out the last N turns (the live window, by count). */
  excludeLast?: number;
  /**
   * The caller's context, passed to the recall and checked as its `context` is:
   * `utcOffsetMinutes` reads the question's time words ("yesterday") in the caller's day
   * (else in UTC), `entities` are the session's recently mentioned entities the question's
   * pronouns stand for (most recent last), and the rest are the context boost's hints.
   */
  context?: RecallContext;
  /** The time the question's time words and recency are read against (default: the store's clock). */
  now?: TimeInput;
  /**
   * Resolve the question's pronouns to entities (default true), as recall's `resolvePronouns`:
   * through `context.entities`, else through the newest memories the lane's user may see.
   */
  resolvePronouns?: boolean;
  /** Read the question's time words into a time window (default true), as recall's `resolveTime`. */
  resolveTime?: boolean;
}

/** The options of {@link RelevantOptions} that go to the recall as they are. */
const RECALL_PASSED = ["context", "now", "resolvePronouns", "resolveTime"] as const;

/** One earlier turn {@link ConversationLane.relevant} found. */
export interface TurnHit {
  role: TurnRole;
  /** The turn, verbatim, as the store holds it now (an `update` shows at once). */
  text: string;
  /** The turn's memory id. */
  id: string;
  /** The recall's score. */
  score: number;
}

/** A turn the lane knows of (its text and role are read from the store when they are needed). */
interface Turn {
  id: string;
  createdAt: number;
  embedded: boolean;
}

/** What a lane needs of its store; {@link MemoryStore.conversation} passes its own. */
export interface LaneHost {
  /** Whether the store has an `embed` function. */
  readonly canEmbed: boolean;
  /** Whether the store takes writes (not opened with `readOnly`): only then are turns embedded. */
  readonly writable: boolean;
  /** Stores a memory durably, never embedding it; returns its id. */
  append(memory: MemoryInput): Promise<string>;
  /** The store's turns of `topic` (every user's), in insertion order. */
  turns(topic: string): { id: string; createdAt: number; embedded: boolean; userId?: string; classification?: number }[];
  /** A turn as the store holds it now, or `undefined` once it is forgotten. */
  get(id: string): { text: string; createdAt: number; userId?: string; classification?: number } | undefined;
  /** The host's `embed` under its timeout, vectors checked. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Stores the vectors of memories that have none (one write). */
  attach(ids: string[], vectors: Float32Array[]): Promise<void>;
  recall(query: string, options: RecallOptions): Promise<RecallResult>;
}

function invalid(field: string, expected: string, value: unknown): RecallError {
  const shown = typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : typeof value === "number" ? String(value) : typeof value;
  return new RecallError("invalid_argument", `${field} must be ${expected}, got ${shown}`);
}

function checkKeys(options: object, allowed: readonly string[], what: string): void {
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw new RecallError("invalid_argument", `unknown ${what} option ${JSON.stringify(key)}`);
  }
}

function checkObject(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new RecallError("invalid_argument", `${what} must be an object`);
  }
  return value as Record<string, unknown>;
}

function integer(value: unknown, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(field, `an integer ${min}..${max === Number.MAX_SAFE_INTEGER ? "" : max}`.replace(/\.\.$/, " or more"), value);
  }
  return value;
}

/** Checks {@link ConversationOptions}. */
export function toConversationOptions(options: unknown): LaneSettings {
  const o = checkObject(options, "conversation options");
  checkKeys(o, ["topK", "budgetTokens", "userId", "maxClassification", "classification"], "conversation");
  const { userId, maxClassification, classification } = o;
  return {
    topK: integer(o.topK, "topK", 1, 100, DEFAULT_TOP_K),
    budgetTokens: integer(o.budgetTokens, "budgetTokens", 1, Number.MAX_SAFE_INTEGER, DEFAULT_LANE_BUDGET_TOKENS),
    ...toLaneScope({ userId, maxClassification, classification }),
  };
}

/** Whose a lane is: its user, its ceiling and its turns' level. */
type Scope = Pick<LaneSettings, "userId" | "maxClassification" | "classification">;

/** Whether a lane of `scope` sees a turn: the engine's user and classification filter (`src/recall/filter.rs`). */
function sees(scope: Scope, turn: { userId?: string; classification?: number }): boolean {
  if (scope.userId !== undefined && turn.userId !== scope.userId) return false;
  return scope.maxClassification === undefined || (turn.classification ?? 0) <= scope.maxClassification;
}

/**
 * The relevant earlier turns of one conversation (see the module docs). Get one from
 * {@link MemoryStore.conversation}.
 *
 * ```ts
 * const lane = store.conversation("chat-42", { userId: "alice" });
 * await lane.append({ role: "user", text: "how do I deploy an ERC-20?" });
 * const hits = await lane.relevant("deploy the token again", {
 *   excludeLast: 16,
 *   context: { utcOffsetMinutes: -new Date().getTimezoneOffset() },
 * });
 * system += renderRecall(hits);
 * ```
 */
export class ConversationLane {
  /** The conversation's id. */
  readonly conversationId: string;
  readonly #host: LaneHost;
  readonly #topic: string;
  readonly #topK: number;
  readonly #budget: number;
  readonly #scope: Scope;
  /** The turns, in order; loaded from the store on first use. */
  #turns: Turn[] | undefined;
  /** Appends not yet durable, awaited before a `relevant` reads. */
  #pending: Promise<unknown> = Promise.resolve();

  /**
   * A lane over `host` ({@link MemoryStore.conversation} passes its store's). Options are
   * taken as checked (by {@link MemoryStore.conversation}): `topK` 1..100, `budgetTokens` ≥ 1,
   * `classification` at most `maxClassification`.
   */
  constructor(host: LaneHost, conversationId: string, options: LaneSettings) {
    this.#host = host;
    this.conversationId = conversationId;
    this.#topic = CONVERSATION_TOPIC_PREFIX + conversationId;
    this.#topK = options.topK;
    this.#budget = options.budgetTokens;
    const { userId, maxClassification, classification } = options;
    this.#scope = {
      ...(userId === undefined ? {} : { userId }),
      ...(maxClassification === undefined ? {} : { maxClassification }),
      ...(classification === undefined ? {} : { classification }),
    };
  }

  /** The turns the lane's recall can see: of its user, within its ceiling. */
  #known(): Turn[] {
    this.#turns ??= this.#host.turns(this.#topic)
      .filter((t) => sees(this.#scope, t))
      .map(({ id, createdAt, embedded }) => ({ id, createdAt, embedded }));
    return this.#turns;
  }

  /** The turn as the store holds it now, if the lane may still see it (not forgotten, nor moved out of its scope by an `update`). */
  #current(id: string): { text: string; createdAt: number } | undefined {
    const turn = this.#host.get(id);
    return turn !== undefined && sees(this.#scope, turn) ? turn : undefined;
  }

  /**
   * The last `n` turns the store still holds (the live window), oldest first; turns forgotten
   * meanwhile are dropped from the lane on the way.
   */
  #lastTurns(n: number): Turn[] {
    const turns = this.#known();
    const live: Turn[] = [];
    for (let i = turns.length - 1; i >= 0 && live.length < n; i--) {
      if (this.#current(turns[i]!.id) === undefined) turns.splice(i, 1);
      else live.push(turns[i]!);
    }
    return live.reverse();
  }

  /**
   * Stores a turn (durable when it resolves, like `remember`) and returns its memory id; with
   * the lane's `userId` and `classification`, when it has them. It is not embedded now: the
   * next {@link ConversationLane.relevant} embeds it. Errors:
   * `invalid_argument` for a bad turn (naming the field), and `remember`'s.
   */
  async append(turn: TurnInput): Promise<string> {
    const t = checkObject(turn, "turn");
    checkKeys(t, ["role", "text", "createdAt"], "turn");
    if (t.role !== "user" && t.role !== "assistant") throw invalid("role", '"user" or "assistant"', t.role);
    if (typeof t.text !== "string") throw invalid("text", "a string", t.text);
    const memory: MemoryInput = { text: t.text, topic: this.#topic, type: TURN_TYPE, tags: [t.role] };
    if (this.#scope.userId !== undefined) memory.userId = this.#scope.userId;
    if (this.#scope.classification !== undefined) memory.classification = this.#scope.classification;
    if (t.createdAt !== undefined) memory.createdAt = t.createdAt as TimeInput;
    // Known before the write, so that a first scan never holds this turn already.
    const known = this.#known();
    const stored = this.#host.append(memory).then((id) => {
      known.push({ id, createdAt: this.#host.get(id)?.createdAt ?? 0, embedded: false });
      return id;
    });
    this.#pending = this.#pending.then(() => stored).catch(() => undefined);
    return stored;
  }

  /**
   * The earlier turns most relevant to `query`, best first: at most `topK`, within the token
   * budget (the best one always, when the recall finds any), leaving out `exclude` and the
   * last `excludeLast` turns. Embeds the turns appended since the last call, with the query, in
   * one call to the store's `embed`; if it fails, the answer is lexical. The recall runs as the
   * lane's `userId` under its `maxClassification`, with `context`, `now`, `resolvePronouns`
   * and `resolveTime` as given. Errors: `invalid_argument` for a bad query or option (naming
   * it), checked before anything is embedded.
   */
  async relevant(query: string, options?: RelevantOptions): Promise<TurnHit[]> {
    if (typeof query !== "string") throw invalid("query", "a string", query);
    const o = checkObject(options, "relevant options");
    checkKeys(o, ["exclude", "excludeLast", ...RECALL_PASSED], "relevant");
    const exclude = o.exclude ?? [];
    if (!Array.isArray(exclude) || exclude.some((x) => typeof x !== "string")) throw invalid("exclude", "an array of strings", exclude);
    const excludeLast = integer(o.excludeLast, "excludeLast", 0, Number.MAX_SAFE_INTEGER, 0);
    const given: Record<string, unknown> = {};
    for (const key of RECALL_PASSED) if (o[key] !== undefined) given[key] = o[key];
    // Checked as the store's recall checks them, before the turns are embedded.
    toRecallOptions(given, 0, "lexical");
    const passed = given as Pick<RecallOptions, (typeof RECALL_PASSED)[number]>;
    await this.#pending;
    const turns = this.#known();
    if (turns.length === 0 || query.trim() === "") return [];
    const vector = await this.#embedNew(turns, query);
    const ids = new Set(exclude as string[]);
    const texts = new Set((exclude as string[]).map((x) => x.trim()));
    const live = this.#lastTurns(excludeLast);
    for (const t of live) ids.add(t.id);
    // A recall returns at most 100 results: a live window that large could fill them all. When
    // the turns were recorded in order (the usual case), the window is also left out by time:
    // `end` is the last older turn's time, so the recall sees only the older turns and those of
    // the window recorded at that same instant, which alone (with `exclude`) take places from
    // `topK`.
    let end: number | undefined;
    let inWindow = live.length;
    if (live.length > 0) {
      const older = turns.slice(0, turns.length - live.length);
      if (older.length === 0) return [];
      const last = older.reduce((most, t) => Math.max(most, t.createdAt), -Infinity);
      if (live.every((t) => t.createdAt >= last)) {
        end = last;
        inWindow = live.filter((t) => t.createdAt === last).length;
      }
    }
    const limit = Math.min(100, this.#topK + exclude.length + inWindow);
    const { userId, maxClassification } = this.#scope;
    const result = await this.#host.recall(query, {
      ...passed,
      topic: this.#topic, limit, trackRecalls: false, minScore: 0, rerank: false,
      ...(userId === undefined ? {} : { userId }),
      ...(maxClassification === undefined ? {} : { maxClassification }),
      ...(end === undefined ? {} : { end }),
      ...(vector === undefined ? { searchMode: "lexical" } : { embedding: vector }),
    });
    const hits: TurnHit[] = [];
    let tokens = 0;
    for (const r of result.results) {
      if (r.kind !== "memory" || ids.has(r.id) || texts.has(r.text.trim())) continue;
      const cost = estimateTokens(r.text);
      if (hits.length > 0 && tokens + cost > this.#budget) break;
      // The turn as the store holds it now (an update or a redaction shows at once).
      const role: TurnRole = r.memory?.tags?.includes("assistant") ? "assistant" : "user";
      hits.push({ role, text: r.text, id: r.id, score: r.score });
      tokens += cost;
      if (hits.length === this.#topK) break;
    }
    return hits;
  }

  /** Embeds the turns without a vector and the query in one call; the query's vector, or `undefined` (lexical). */
  async #embedNew(turns: Turn[], query: string): Promise<Float32Array | undefined> {
    if (!this.#host.canEmbed) return undefined;
    // A store opened readOnly cannot keep the turns' vectors: only the query is embedded.
    const fresh: { id: string; text: string; turn: Turn }[] = [];
    if (this.#host.writable) {
      for (const turn of turns) {
        if (turn.embedded) continue;
        const now = this.#current(turn.id);
        if (now !== undefined) fresh.push({ id: turn.id, text: now.text, turn });
      }
    }
    let vectors: Float32Array[];
    try {
      vectors = await this.#host.embed([...fresh.map((t) => t.text), query]);
    } catch {
      return undefined;
    }
    if (fresh.length > 0) {
      try {
        await this.#host.attach(fresh.map((t) => t.id), vectors.slice(0, fresh.length));
        for (const t of fresh) t.turn.embedded = true;
      } catch {
        // Not stored (a failed write): embedded again next time; the query's vector still serves.
      }
    }
    return vectors[fresh.length];
  }
}

/**
 * Neo's block of recalled turns for a system prompt: {@link RECALL_HEADER}, then one line per
 * hit, `- User: "…"` or `- Assistant: "…"`, the text quoted as {@link formatContext} quotes
 * memories (one line, escapes included), so an old turn cannot pose as an instruction. `""`
 * for no hits.
 */
export function renderRecall(hits: readonly TurnHit[]): string {
  if (!Array.isArray(hits)) throw new RecallError("invalid_argument", "hits must be an array of turn hits");
  if (hits.length === 0) return "";
  const lines = hits.map((h, i) => {
    if (typeof h !== "object" || h === null || typeof h.text !== "string" || (h.role !== "user" && h.role !== "assistant")) {
      throw new RecallError("invalid_argument", `hits[${i}] must be a turn hit (a role "user" or "assistant" and a text)`);
    }
    return `- ${h.role === "assistant" ? "Assistant" : "User"}: ${quoteText(h.text)}`;
  });
  return [RECALL_HEADER, ...lines].join("\n");
}
