/**
 * {@link EngineSlot}: the store's engine and the configuration it was built from, the one state
 * every part of the store reads. Fields:
 * - `engine`: the wasm engine; replaced by an open that falls back from a bad snapshot, by an
 *   import's configuration line (when its batch lands) and by a re-read after drift
 *   ({@link EngineSlot.swap}), freed by `close()`; a call that awaits between two engine calls
 *   (a recall waiting for its embedder) leases the engine it began with
 *   ({@link EngineSlot.lease}), so a swap frees that engine only once the call is done;
 * - `config`: `meta/config` as this engine knows it (format, dimension, signature seed), and
 *   `configDirty` when storage does not hold it yet (the next batch writes it);
 * - `open`: false once `close()` has begun, so the public API refuses new calls while queued
 *   work finishes;
 * - `unsynced`: the engine may differ from the records (another tab's change failed to apply,
 *   or a write failed without saying whether it committed), so no snapshot of it is written
 *   and the records are read again until they agree (`remote.ts`);
 * - `lost`: the storage is gone under the handle (another tab deleted its database), so every
 *   call fails with that error rather than answer from records that no longer exist.
 * @module
 */
import { Engine } from "./engine.js";
import type { EngineConfigJs } from "./engine.js";
import { RecallError, fromEngineError } from "./errors.js";
import { DEFAULT_SIGNATURE_SEED, STORE_FORMAT, seedToHex } from "./storage/layout.js";
import type { StoreConfig } from "./storage/layout.js";

/** The store's engine and its configuration (see the module docs). */
export class EngineSlot {
  /** The engine; `undefined` before the open builds it and after `close()`. */
  engine: Engine | undefined;
  /** The configuration the engine was built from. */
  config: StoreConfig = { format: STORE_FORMAT, signatureSeed: seedToHex(DEFAULT_SIGNATURE_SEED) };
  /** Storage does not hold {@link config} yet: the next batch writes it. */
  configDirty = false;
  /** Calls of the public API are accepted (until `close()`). */
  open = true;
  /** The engine may differ from the records: write no snapshot (and re-read them: `remote.ts`). */
  unsynced = false;
  /** Told when the engine may have drifted from the records ({@link markUnsynced}). */
  #onUnsynced: (() => void) | undefined;
  /** Storage is gone under this handle (its database deleted elsewhere): every call fails with this. */
  lost: RecallError | undefined;
  /** The open options the engine takes (ranking, decay, …), for every engine built. */
  readonly #options: EngineConfigJs;
  /** Engines in use by calls that await between engine calls, with how many ({@link lease}). */
  readonly #leases = new Map<Engine, number>();
  /** Engines replaced ({@link swap}) while leased: freed when their last lease ends. */
  readonly #retired = new Set<Engine>();

  constructor(options: EngineConfigJs) {
    this.#options = options;
  }

  /** A new, empty engine for `config` (the current one by default). */
  build(config: StoreConfig = this.config): Engine {
    return this.#make(config, undefined);
  }

  /** An engine for `config` read from an engine image; throws `corrupt` when it cannot be used. */
  fromImage(image: Uint8Array | readonly Uint8Array[], config: StoreConfig = this.config): Engine {
    return this.#make(config, image);
  }

  #make(config: StoreConfig, image: Uint8Array | readonly Uint8Array[] | undefined): Engine {
    try {
      return new Engine({
        ...this.#options, dimensions: config.dimensions, signatureSeed: BigInt(`0x${config.signatureSeed}`),
      }, image);
    } catch (e) {
      throw fromEngineError(e);
    }
  }

  /**
   * The engine may differ from the records now (another handle's change failed to apply, or a
   * write failed without saying whether it committed): no snapshot is written, and the
   * listener (`OtherTabs`) re-reads the records until they agree.
   */
  markUnsynced(): void {
    this.unsynced = true;
    this.#onUnsynced?.();
  }

  /** Sets the listener {@link markUnsynced} calls. */
  onUnsynced(listener: () => void): void {
    this.#onUnsynced = listener;
  }

  /** The engine, for calls of the public API; `closed` once `close()` has been called. */
  forCaller(): Engine {
    if (this.lost !== undefined) throw new RecallError(this.lost.code, this.lost.message);
    if (!this.open || this.engine === undefined) throw new RecallError("closed", "the store is closed");
    return this.engine;
  }

  /** The engine, for queued work (which may finish while `close()` waits for it). */
  forQueuedWork(): Engine {
    if (this.engine === undefined) throw new RecallError("closed", "the store is closed");
    return this.engine;
  }

  /**
   * Puts the engine's dimension back to `dims`, what it was before a write (or writes) that
   * failed, when that write fixed it. Not the committed one: a write of the same group may
   * have fixed it before the failed one, and a memory store commits none.
   */
  restoreDimensions(dims: number | undefined): void {
    const engine = this.engine;
    if (engine === undefined || engine.dimensions === dims) return;
    try {
      engine.resetDimensions(dims);
    } catch {
      // Vectors of that dimension are stored: it was not this write that fixed it.
    }
  }

  /**
   * Marks `engine` in use by a call that awaits between two engine calls (a recall waiting for
   * its embedder or reranker); the call runs the returned function when done. Until then a
   * {@link swap} does not free it.
   */
  lease(engine: Engine): () => void {
    this.#leases.set(engine, (this.#leases.get(engine) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.#leases.get(engine) ?? 1) - 1;
      if (left > 0) {
        this.#leases.set(engine, left);
        return;
      }
      this.#leases.delete(engine);
      if (this.#retired.delete(engine)) engine.free();
    };
  }

  /**
   * Puts `next` in place of the engine (queued work only: no write is half done). The old one
   * is freed now, or when the last call that leased it is done; those calls finish on it.
   */
  swap(next: Engine | undefined): void {
    const old = this.engine;
    this.engine = next;
    if (old === undefined || old === next) return;
    if (this.#leases.has(old)) this.#retired.add(old);
    else old.free();
  }

  /** Frees the engine (once no call leases it); every later use fails with `closed`. */
  free(): void {
    this.swap(undefined);
  }
}
