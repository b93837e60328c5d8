/**
 * {@link ChangeFeed}: the writes of other processes (and other handles of this one) to the stores
 * of one PostgreSQL database, as the keys of each committed batch: what a `BroadcastChannel`
 * is to IndexedDB tabs, across machines.
 *
 * Design: LISTEN/NOTIFY on one channel ({@link FEED_CHANNEL}). A write's transaction sends, before
 * its COMMIT, one notification per piece of its keys ({@link feedPayloads}: JSON
 * `{"s": store, "o": origin, "k": [keys]}` under PostgreSQL's 8000-byte payload limit).
 * PostgreSQL delivers notifications only when, and only if, the transaction commits, in commit
 * order; a rolled-back batch is never heard. Each process holds one listening connection for all
 * its stores and hands each notification to the subscriptions of that store whose origin (the
 * writing handle) differs. Chosen over polling a sequence: no delay set by a poll interval, no
 * load while idle, and no gaps from sequence numbers that commit out of order (see DESIGN.md).
 *
 * What it cannot promise, and how it says so: a notification sent while the listening
 * connection is down is lost. The feed reconnects (backing off from 100 ms to 5 s) and then
 * calls `onStale()` without a store: every engine of this process may have missed writes, and
 * should be reopened (the service example evicts its cache). A key too long for a payload is
 * sent as `{"s", "o", "stale": true}`, which calls `onStale(store)`; `dropStore` sends
 * `{"s", "o": "dropStore", "stale": true}`, which calls it in every process. An `onStale` that
 * throws (or an async one that rejects) is ignored, as a subscription listener that throws is:
 * the feed goes on.
 * @module
 */
import { RecallError } from "../errors.js";
import { FEED_CHANNEL } from "./postgres-schema.js";

/** The origin of {@link droppedPayload}'s message: no handle's (handles' origins are random ids). */
const DROPPED_ORIGIN = "dropStore";

/** The NOTIFY payload announcing that `store` was dropped: every process reports it stale. */
export function droppedPayload(store: string): string {
  return JSON.stringify({ s: store, o: DROPPED_ORIGIN, stale: true });
}

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; pieces stay under this, with room for the envelope. */
export const MAX_PAYLOAD_BYTES = 7900;
/** The first reconnection attempt of a lost listening connection waits this long, doubling up to {@link MAX_RECONNECT_MS}. */
export const FIRST_RECONNECT_MS = 100;
/** The longest wait between reconnection attempts. */
export const MAX_RECONNECT_MS = 5000;

/** The part of a `pg.Client` the feed uses. */
export interface FeedClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: "error" | "end", listener: (error?: Error) => void): unknown;
  end(): Promise<void>;
}

/**
 * Why the engines of a store (or, without `store`, of every store) may have missed writes.
 * What it throws, or the promise it returns rejects with, is ignored.
 */
export type StaleListener = (store: string | undefined, reason: string) => void | Promise<void>;

type KeysListener = (changedKeys: string[]) => void;
interface Subscription { origin: string; listener: KeysListener }

const encoder = new TextEncoder();

/**
 * The NOTIFY payloads announcing `keys` of `store`, written by handle `origin`: as few as fit
 * under {@link MAX_PAYLOAD_BYTES} each, every key in exactly one (a key too long for any
 * payload makes a `stale` payload instead).
 */
export function feedPayloads(store: string, origin: string, keys: readonly string[]): string[] {
  const head = `{"s":${JSON.stringify(store)},"o":${JSON.stringify(origin)},"k":[`;
  const headBytes = encoder.encode(head).length + 2;
  const payloads: string[] = [];
  let piece: string[] = [];
  let bytes = headBytes;
  let stale = false;
  const flush = (): void => {
    if (piece.length > 0) payloads.push(`${head}${piece.join(",")}]}`);
    piece = [];
    bytes = headBytes;
  };
  for (const key of keys) {
    const quoted = JSON.stringify(key);
    const size = encoder.encode(quoted).length + 1;
    if (headBytes + size > MAX_PAYLOAD_BYTES) {
      stale = true;
      continue;
    }
    if (bytes + size > MAX_PAYLOAD_BYTES) flush();
    piece.push(quoted);
    bytes += size;
  }
  flush();
  if (stale) payloads.push(JSON.stringify({ s: store, o: origin, stale: true }));
  return payloads;
}

/** One listening connection and the subscriptions of this process's handles (see the module doc). */
export class ChangeFeed {
  readonly #makeClient: () => FeedClient;
  readonly #onStale: StaleListener;
  readonly #stores = new Map<string, Set<Subscription>>();
  #client: FeedClient | undefined;
  #closed = false;
  #reconnectMs = FIRST_RECONNECT_MS;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #reconnects = 0;

  constructor(makeClient: () => FeedClient, onStale: StaleListener) {
    this.#makeClient = makeClient;
    this.#onStale = onStale;
  }

  /** Connects and LISTENs; rejects with `storage_failed` (the server's message) when it cannot. */
  async start(): Promise<void> {
    this.#client = await this.#listen();
  }

  /** Times the listening connection was lost and made again. */
  get reconnects(): number {
    return this.#reconnects;
  }

  async #listen(): Promise<FeedClient> {
    const client = this.#makeClient();
    let lost = false;
    const down = (): void => {
      if (lost) return;
      lost = true;
      if (this.#client === client) this.#lost();
    };
    client.on("error", down);
    client.on("end", down);
    client.on("notification", (message) => {
      if (message.channel === FEED_CHANNEL && message.payload !== undefined) this.#deliver(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${FEED_CHANNEL}`);
    } catch (e) {
      lost = true;
      await client.end().catch(() => undefined);
      throw new RecallError("storage_failed",
        `postgres: cannot listen for changes: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    return client;
  }

  #lost(): void {
    const old = this.#client;
    this.#client = undefined;
    old?.end().catch(() => undefined);
    if (this.#closed) return;
    this.#timer = setTimeout(() => { void this.#reconnect(); }, this.#reconnectMs);
    this.#reconnectMs = Math.min(this.#reconnectMs * 2, MAX_RECONNECT_MS);
  }

  async #reconnect(): Promise<void> {
    this.#timer = undefined;
    if (this.#closed) return;
    let client: FeedClient;
    try {
      client = await this.#listen();
    } catch {
      this.#lost();
      return;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#reconnectMs = FIRST_RECONNECT_MS;
    this.#reconnects++;
    this.#stale(undefined, "the change feed's connection was lost and made again; writes of other processes meanwhile were not heard");
  }

  /**
   * Calls the host's `onStale`. What it throws, or an async one rejects with, is its own, as a
   * subscription listener's failure is: it must neither end the process (an exception thrown
   * in a notification's event or after a reconnect would be uncaught) nor stop the feed.
   */
  #stale(store: string | undefined, reason: string): void {
    try {
      const result: unknown = this.#onStale(store, reason);
      if (typeof (result as { then?: unknown } | null)?.then === "function") (result as Promise<unknown>).then(undefined, () => undefined);
    } catch {
      // Ignored, as above: the feed goes on and later reports still call onStale.
    }
  }

  #deliver(payload: string): void {
    let message: { s?: unknown; o?: unknown; k?: unknown; stale?: unknown };
    try {
      message = JSON.parse(payload);
    } catch {
      return; // not ours: someone else NOTIFYs on the channel
    }
    if (typeof message.s !== "string") return;
    const subscriptions = this.#stores.get(message.s);
    if (message.stale === true) {
      if (message.o === DROPPED_ORIGIN) this.#stale(message.s, "the store was dropped (dropStore): reopen its handles");
      else if (subscriptions !== undefined) this.#stale(message.s, "a write changed a key too long to announce");
      return;
    }
    if (subscriptions === undefined || !Array.isArray(message.k)) return;
    const keys = message.k.filter((k): k is string => typeof k === "string");
    for (const subscription of [...subscriptions]) {
      if (subscription.origin === message.o) continue;
      try {
        subscription.listener(keys);
      } catch {
        // One listener's failure is its own; the others still hear.
      }
    }
  }

  /** Hands the keys of writes to `store` by handles other than `origin` to `listener`. Returns the unsubscribe function. */
  subscribe(store: string, origin: string, listener: KeysListener): () => void {
    const subscription: Subscription = { origin, listener };
    let set = this.#stores.get(store);
    if (set === undefined) this.#stores.set(store, set = new Set());
    set.add(subscription);
    return () => {
      set.delete(subscription);
      if (set.size === 0 && this.#stores.get(store) === set) this.#stores.delete(store);
    };
  }

  /** Stops listening (idempotent). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    this.#stores.clear();
    await client?.end().catch(() => undefined);
  }
}
