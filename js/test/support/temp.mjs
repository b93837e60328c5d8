// Temporary directories for tests that use the file store: one root per test file, removed
// after its tests, or one directory for a single test. Imported by tests; it defines no test.
import { after } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const remove = (dir) => rmSync(dir, { recursive: true, force: true });

/**
 * Makes `recallkit-<name>-XXXXXX` in the system's temporary directory and removes it after the
 * calling file's tests. `fresh(label)` names a new path under it (`<label>-0`, `<label>-1`, …),
 * not yet created.
 */
export function tempRoot(name) {
  const root = mkdtempSync(join(tmpdir(), `recallkit-${name}-`));
  after(() => remove(root));
  let n = 0;
  return { root, fresh: (label) => join(root, `${label}-${n++}`) };
}

/** Runs `fn(dir)` in a new temporary directory `recallkit-<name>-XXXXXX`, removed whatever `fn` does. */
export async function withTempDir(name, fn) {
  const dir = mkdtempSync(join(tmpdir(), `recallkit-${name}-`));
  try {
    return await fn(dir);
  } finally {
    remove(dir);
  }
}
