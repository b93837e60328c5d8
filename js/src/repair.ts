/**
 * {@link repairStore}, behind `MemoryStore.repair`: salvages a damaged store and checks that it
 * opens. Three steps, each changing nothing when it finds nothing wrong:
 *
 * 1. A file store's log: `FileAdapter.repair` keeps every frame that checks, drops and reports
 *    each damaged byte range, and copies the damaged log to `data.log.damaged-<time>` before
 *    rewriting it (the rule that tells damage from a torn tail is in `storage/log.ts`).
 * 2. The snapshot: removed when it fails its checks (an open would skip it and report it in
 *    `storageInfo().damage`), and removed when the log lost frames, since it may then hold
 *    writes the records no longer have, or miss some. A stale one (another version) stays: an
 *    open ignores it and the next snapshot replaces it.
 * 3. The store is opened from its records on a read-only handle, and counted; a store that
 *    still does not open (a record that does not decode, say) fails the repair with that
 *    error, after whatever steps 1 and 2 did (both reported in its message).
 * @module
 */
import { Engine } from "./engine.js";
import { init } from "./wasm.js";
import { RecallError, fromEngineError } from "./errors.js";
import { defaultStorageKind, fileStorePath, openAdapter } from "./storage/adapter.js";
import type { StorageAdapter, StorageKind } from "./storage/adapter.js";
import { inspectImage } from "./storage/image.js";
import { CONFIG_KEY, SNAPSHOT_PREFIX, decodeConfig } from "./storage/layout.js";
import type { LogRepair } from "./storage/log.js";
import type { OpenOptions, RepairReport } from "./types.js";

/** What a repair needs of a store: its counts once opened, and closing it. */
interface OpenedStore {
  size: number;
  notes(): Promise<unknown[]>;
  entities(): Promise<unknown[]>;
  edges(): Promise<unknown[]>;
  close(): Promise<void>;
}

/** The caller's own adapter, which a repair uses but must not close; `readOnly` refuses writes. */
function borrowed(adapter: StorageAdapter, readOnly: boolean): StorageAdapter {
  return {
    get: (k) => adapter.get(k),
    entries: (p) => adapter.entries(p),
    keys: (p) => adapter.keys(p),
    write: async (ops) => {
      if (readOnly) throw new RecallError("invalid_argument", "the store was opened with readOnly: true");
      return adapter.write(ops);
    },
    close: async () => undefined,
  };
}

/** Checks the snapshot; removes it when damaged, or when `logLostFrames`. */
async function repairSnapshot(
  connect: (readOnly: boolean) => Promise<StorageAdapter>, logLostFrames: boolean,
): Promise<RepairReport["snapshot"]> {
  const reader = await connect(true);
  let keys: string[];
  let report: RepairReport["snapshot"];
  try {
    const chunks = await reader.entries(SNAPSHOT_PREFIX);
    keys = chunks.map(([key]) => key);
    if (chunks.length === 0) return { found: "none", removed: false };
    const opened = inspectImage(chunks.map(([, bytes]) => bytes));
    if ("stale" in opened) report = { found: "stale", removed: false, why: opened.stale };
    else if ("damaged" in opened) report = { found: "damaged", removed: false, why: opened.damaged };
    else {
      report = { found: "ok", removed: false };
      try {
        // The engine reads the image through all its checks, under the store's configuration.
        const config = await reader.get(CONFIG_KEY);
        if (config !== undefined) {
          await init();
          const { dimensions, signatureSeed } = decodeConfig(config);
          new Engine({ dimensions, signatureSeed: BigInt(`0x${signatureSeed}`) }, opened.image.engine).free();
        }
      } catch (e) {
        report = { found: "damaged", removed: false, why: fromEngineError(e).message.replace(/^corrupt: (snapshot: |image: )?/, "") };
      }
    }
  } finally {
    await reader.close();
  }
  if (report.found !== "damaged" && !logLostFrames) return report;
  const writer = await connect(false);
  try {
    await writer.write(keys.map((key) => ({ op: "delete", key })));
  } finally {
    await writer.close();
  }
  if (report.found !== "damaged") report.why = "the log lost frames, so it may disagree with the records";
  return { ...report, removed: true };
}

/**
 * Repairs the store that `options` (as for `MemoryStore.open`, already checked) name; `open`
 * is `MemoryStore.open`. See the module docs.
 */
export async function repairStore(
  options: OpenOptions, name: string, open: (options: OpenOptions) => Promise<OpenedStore>,
): Promise<RepairReport> {
  const storage = options.storage;
  const own = typeof storage === "object" ? storage : undefined;
  const kind = own !== undefined ? undefined : (storage as StorageKind | undefined) ?? defaultStorageKind();
  if (kind === "memory") throw new RecallError("invalid_argument", "storage \"memory\" keeps nothing that could need a repair");
  const path = fileStorePath(name, options.path);
  let log: LogRepair | undefined;
  if (kind === "file") {
    const { FileAdapter } = await import("./storage/file.js");
    log = await FileAdapter.repair({ path });
  }
  const connect = async (readOnly: boolean): Promise<StorageAdapter> => (own !== undefined ? borrowed(own, readOnly)
    : openAdapter(kind, { name, path, readOnly, persist: options.persist, blockedTimeoutMs: options.blockedTimeoutMs }));
  const snapshot = await repairSnapshot(connect, (log?.dropped.length ?? 0) > 0);
  const repaired = (log?.repaired ?? false) || snapshot.removed;
  const { storage: _storage, name: _name, path: _path, persist: _persist, blockedTimeoutMs: _blocked, snapshots: _snapshots, ...rest } = options;
  let store: OpenedStore;
  try {
    store = await open({ ...rest, storage: await connect(true), snapshots: false });
  } catch (e) {
    const err = fromEngineError(e);
    const did = [
      log?.repaired ? `the log was salvaged (a copy of the damaged one is ${log.copy})` : "",
      snapshot.removed ? "the snapshot was removed" : "",
    ].filter(Boolean).join(" and ");
    throw new RecallError(err.code, `${did === "" ? "" : `${did}, but `}the store does not open: ${err.message.replace(/^[a-z_]+: /, "")}`, { cause: e });
  }
  try {
    const [notes, entities, edges] = await Promise.all([store.notes(), store.entities(), store.edges()]);
    return {
      repaired, ...(log === undefined ? {} : { log }), snapshot,
      memories: store.size, notes: notes.length, entities: entities.length, edges: edges.length,
    };
  } finally {
    await store.close();
  }
}
