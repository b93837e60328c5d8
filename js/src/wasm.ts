/**
 * Loads the WebAssembly module once. In Node the bytes are read from the package's `pkg/`
 * folder; in browsers, workers and Deno they are fetched relative to this module.
 * @module
 */
import initWasm, { initSync } from "../../pkg/recallkit.js";
import { RecallError } from "./errors.js";

let ready: Promise<void> | undefined;
let loaded = false;
let memory: WebAssembly.Memory | undefined;

/** Where to load the wasm from, for hosts that serve it elsewhere (e.g. an extension). */
export type WasmSource = URL | string | Request | Response | BufferSource | WebAssembly.Module;

function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === "string" && !("Deno" in globalThis);
}

/**
 * Initialises the WebAssembly module. Safe to call many times; every call returns the same
 * promise. {@link MemoryStore.open} calls it, so most code never needs to.
 */
export function init(source?: WasmSource): Promise<void> {
  ready ??= (async () => {
    try {
      if (source === undefined && isNode()) {
        const { readFile } = await import("node:fs/promises");
        const bytes = await readFile(new URL("../../pkg/recallkit_bg.wasm", import.meta.url));
        memory = initSync({ module: bytes }).memory;
      } else {
        memory = (await initWasm(source === undefined ? undefined : { module_or_path: source })).memory;
      }
      loaded = true;
    } catch (e) {
      ready = undefined;
      throw new RecallError("internal", `cannot load the recallkit WebAssembly module: ${String(e)}`, { cause: e });
    }
  })();
  return ready;
}

/** Throws `not_initialized` unless {@link init} has completed. */
export function assertInitialized(): void {
  if (!loaded) throw new RecallError("not_initialized", "call and await init() (or MemoryStore.open()) first");
}

/**
 * Bytes of the module's linear memory, which never shrinks: its high-water mark, for
 * benchmarks (`bench/open-time.mjs`). Not part of the package's API.
 */
export function wasmHeapBytes(): number | undefined {
  return memory?.buffer.byteLength;
}
