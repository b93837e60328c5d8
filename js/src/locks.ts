/**
 * {@link holdLock}: holding a Web Lock for as long as something lives (a store handle, a page's
 * worker store, a worker), so that others learn when it goes: they ask for the same lock and
 * are granted it then. Shared by the store's own locks (`load.ts`, `presence.ts`) and the
 * worker's (`worker-client.ts`, `worker-serve.ts`).
 * @module
 */

/** The origin's Web Locks, where they exist. */
export function webLocks(): LockManager | undefined {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  return typeof locks?.request === "function" ? locks : undefined;
}

/**
 * Holds the Web Lock `name` until `release` is called or this context ends. Resolves once
 * held; `held` is false (and nothing is held) without a name or where Web Locks do not exist.
 */
export function holdLock(
  name: string | undefined, mode: LockMode = "exclusive",
): Promise<{ held: boolean; release: () => void }> {
  const locks = webLocks();
  if (name === undefined || locks === undefined) return Promise.resolve({ held: false, release: () => undefined });
  return new Promise((resolve) => {
    locks.request(name, { mode }, () => new Promise<void>((release) => resolve({ held: true, release })))
      .catch(() => resolve({ held: false, release: () => undefined }));
  });
}
