/**
 * The store's degradation tier (Engram's resource tiers), read by `MemoryStore.status()` and
 * carried by each recall's result:
 *
 * | tier | when | what still works |
 * |---|---|---|
 * | `"full"` | the last recall or write that wanted a vector got one (from the host's `embed` or given), and storage takes writes | every stage |
 * | `"basic"` | there is no embedder, or its last call failed or timed out | the lexical, signature, note and graph stages (Se is skipped) |
 * | `"readonly"` | the storage refused the last write (`quota_exceeded`, `storage_failed`, `blocked`, `locked`), the store was opened with `readOnly: true`, or the browser closed its database under it (an upgrade in another tab, site data cleared) | recall (its tracking is not persisted); writes fail until the storage takes one again (never, for `readOnly` or a closed database) |
 *
 * Nothing has to reset it: the next successful embed brings `basic` back to `full`, the next
 * write the storage takes ends `readonly`. A store that starts without an `embed` function
 * and without embeddings is `basic` (reason `"no_embedder"`, the Se stage report's code, as
 * `"embed_failed"` and `"embed_timeout"` are) until a vector arrives.
 * @module
 */

/** The store's tier (see the module docs). */
export type Tier = "full" | "basic" | "readonly";

/** What `MemoryStore.status()` reports. */
export interface StoreStatus {
  /** The tier now: the worse of `embedding` and `storage`. */
  tier: Tier;
  /** Why the tier is not `"full"` (absent when it is). */
  reason?: string;
  /** Since when (ms since the epoch, the store's clock) the store has been in this tier. */
  since: number;
  /** The embedding side: `"full"` or `"basic"`, why, and since when. */
  embedding: { tier: "full" | "basic"; reason?: string; since: number };
  /** The storage side: `"full"` or `"readonly"`, why, and since when. */
  storage: { tier: "full" | "readonly"; reason?: string; since: number };
}

/** Error codes that mean the storage refuses writes (rather than a bad input). */
const REFUSING = new Set(["quota_exceeded", "storage_failed", "blocked", "locked"]);

/** Tracks the outcomes that decide the tier (module docs). */
export class Health {
  #embedding: StoreStatus["embedding"];
  #storage: StoreStatus["storage"];
  #since: number;
  readonly #clock: () => number;

  /** `vectors`: the store has an `embed` function or already holds embeddings. */
  constructor(vectors: boolean, clock: () => number) {
    this.#clock = clock;
    const now = this.#now();
    this.#embedding = vectors ? { tier: "full", since: now } : { tier: "basic", reason: "no_embedder", since: now };
    this.#storage = { tier: "full", since: now };
    this.#since = now;
  }

  #now(): number {
    try {
      const now = this.#clock();
      return Number.isFinite(now) ? now : Date.now();
    } catch {
      return Date.now();
    }
  }

  /** The tier now. */
  get tier(): Tier {
    if (this.#storage.tier === "readonly") return "readonly";
    return this.#embedding.tier;
  }

  /** Storage refuses writes now (the storage side is `"readonly"`). */
  get storageRefuses(): boolean {
    return this.#storage.tier === "readonly";
  }

  #set(change: () => void): void {
    const before = this.tier;
    change();
    if (this.tier !== before) this.#since = this.#now();
  }

  /** The store was opened with `readOnly: true`: writes are refused for as long as it is open. */
  openedReadOnly(): void {
    this.#set(() => { this.#storage = { tier: "readonly", reason: "opened with readOnly: true", since: this.#now() }; });
  }

  /** A recall or write that wanted a vector got one. */
  embedded(): void {
    if (this.#embedding.tier === "full") return;
    this.#set(() => { this.#embedding = { tier: "full", since: this.#now() }; });
  }

  /** A recall or write that wanted a vector got none: `reason` is the stage report's (`embed_failed`, …). */
  notEmbedded(reason: string): void {
    if (this.#embedding.tier === "basic" && this.#embedding.reason === reason) return;
    this.#set(() => { this.#embedding = { tier: "basic", reason, since: this.#now() }; });
  }

  /** The storage took a write. */
  wrote(): void {
    if (this.#storage.tier === "full") return;
    this.#set(() => { this.#storage = { tier: "full", since: this.#now() }; });
  }

  /** The storage refused a write with `error` (other errors leave the tier alone). */
  writeFailed(error: unknown): void {
    const code = (error as { code?: unknown })?.code;
    if (typeof code !== "string" || !REFUSING.has(code)) return;
    const message = error instanceof Error ? error.message : String(error);
    this.#set(() => { this.#storage = { tier: "readonly", reason: `${code}: ${message}`, since: this.#now() }; });
  }

  /** The storage closed under the store (deleted or upgraded elsewhere): writes fail from now on. */
  storageLost(error: { code: string; message: string }): void {
    this.#set(() => { this.#storage = { tier: "readonly", reason: `${error.code}: ${error.message}`, since: this.#now() }; });
  }

  /** The report of `MemoryStore.status()`. */
  status(): StoreStatus {
    const tier = this.tier;
    const out: StoreStatus = { tier, since: this.#since, embedding: { ...this.#embedding }, storage: { ...this.#storage } };
    const reason = tier === "readonly" ? this.#storage.reason : tier === "basic" ? this.#embedding.reason : undefined;
    if (reason !== undefined) out.reason = reason;
    return out;
  }
}
