/**
 * {@link Presence}: which other handles of a browser store are alive, so that a handle hears
 * when another one goes away. A tab that writes and is closed (or reloaded, or a worker that
 * is terminated) at once can have its last batch committed and never announced: IndexedDB
 * commits the transaction, but the page is gone before its `complete` event posts the changed
 * keys. Without a later message from that writer nothing would tell the other handles, and
 * their engines would miss those memories until they reopen.
 *
 * Each handle holds an exclusive Web Lock named after its writer id while it is open, and says
 * hello on a `BroadcastChannel` once it holds it. Every other handle asks for that lock in
 * shared mode (with the writers it finds holding one when it starts, and the ones that say
 * hello later); the browser grants it when the holder closes or its page, worker or extension
 * service worker goes away, and the handle then reads what that writer committed
 * (`OtherTabs.writerGone`). A transaction the writer had started is ordered before the read,
 * so it is seen too. Where Web Locks or `BroadcastChannel` do not exist, nothing is watched.
 * @module
 */
import { holdLock, webLocks } from "./locks.js";

/** Lock names of a store's writers: this prefix, then the writer id (16 hex digits). */
function writerLockPrefix(store: string): string {
  return `recallkit-writer:${store}:`;
}

const WRITER_ID = /^[0-9a-f]{16}$/;

/** The other handles of one store, watched until {@link Presence.stop} (see the module docs). */
export class Presence {
  readonly #prefix: string;
  readonly #writer: string;
  readonly #gone: (writer: string) => void;
  readonly #watched = new Set<string>();
  readonly #abort = new AbortController();
  #release: (() => void) | undefined;
  #channel: BroadcastChannel | undefined;

  /** Watches the other handles of `store`; `gone` is called once for each that goes away. */
  constructor(store: string, writer: string, gone: (writer: string) => void) {
    this.#prefix = writerLockPrefix(store);
    this.#writer = writer;
    this.#gone = gone;
  }

  /** Holds this handle's lock, says hello and watches the writers alive now. Never throws. */
  async start(): Promise<void> {
    const locks = webLocks();
    if (typeof locks?.query !== "function" || typeof BroadcastChannel !== "function") return;
    try {
      const lock = await holdLock(this.#prefix + this.#writer);
      if (!lock.held) return;
      this.#release = lock.release;
      // Listening before the query: a writer that starts meanwhile is heard or found.
      const channel = new BroadcastChannel(this.#prefix);
      (channel as { unref?: () => void }).unref?.();
      channel.onmessage = (event: MessageEvent) => this.#watch(locks, (event.data as { hello?: unknown })?.hello);
      channel.postMessage({ hello: this.#writer });
      this.#channel = channel;
      const { held } = await locks.query();
      for (const lock of held ?? []) {
        if (lock.name?.startsWith(this.#prefix)) this.#watch(locks, lock.name.slice(this.#prefix.length));
      }
    } catch {
      // Without locks the handle still works; it only cannot hear a writer go away unannounced.
    }
  }

  #watch(locks: LockManager, writer: unknown): void {
    if (typeof writer !== "string" || !WRITER_ID.test(writer) || writer === this.#writer || this.#watched.has(writer)) return;
    if (this.#abort.signal.aborted) return;
    this.#watched.add(writer);
    locks.request(this.#prefix + writer, { mode: "shared", signal: this.#abort.signal }, () => {
      this.#watched.delete(writer);
      this.#gone(writer);
    }).catch(() => undefined); // aborted by stop()
  }

  /** Stops watching and lets this handle's lock go. */
  stop(): void {
    this.#abort.abort();
    this.#channel?.close();
    this.#channel = undefined;
    this.#release?.();
    this.#release = undefined;
  }
}
