/**
 * {@link requestPersistence}: the origin's request for persistent storage, shared by the
 * IndexedDB adapter (in a page) and `openWorkerStore` (a page asking for its worker's store:
 * a dedicated worker has no `navigator.storage.persist()`).
 * @module
 */

/** Asks for persistent storage where the API exists (pages; not workers). Never throws. */
export async function requestPersistence(): Promise<boolean | undefined> {
  const storage = (globalThis as { navigator?: { storage?: Partial<StorageManager> } }).navigator?.storage;
  if (typeof storage?.persist !== "function") return undefined;
  return storage.persist().catch(() => undefined);
}
