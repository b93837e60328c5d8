/**
 * {@link EngineSlot}: the store's engine and the configuration it was built from, the one state
 * every part of the store reads. Fields:
 * - `engine`: the wasm engine; replaced by an open that falls back from a bad snapshot and by an
 *   import's configuration line (when its batch lands), freed by `close()`;
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

  /** Puts the engine's dimension back to the committed one when a failed write fixed it. */
  restoreDimensions(): void {
    const engine = this.engine;
    if (engine === undefined || engine.dimensions === this.config.dimensions) return;
    try {
      engine.resetDimensions(this.config.dimensions);
    } catch {
      // Vectors of that dimension are stored: it was not this write that fixed it.
    }
  }

  /** Frees the engine; every later use fails with `closed`. */
  free(): void {
    this.engine?.free();
    this.engine = undefined;
  }
}
