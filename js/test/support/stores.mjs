// Opening test stores the same way everywhere: in memory, on a fixed clock. Imported by tests;
// it defines no test itself.
import { MemoryStore } from "../../dist/index.js";

/** The tests' clock: a Monday, 2026-06-01 12:00 UTC. */
export const NOW = Date.parse("2026-06-01T12:00:00Z");

/** One day in milliseconds. */
export const DAY = 86_400_000;

/** An in-memory store whose clock stands at `NOW`; `options` add to or override that. */
export function openMemoryStore(options = {}) {
  return MemoryStore.open({ storage: "memory", clock: () => NOW, ...options });
}
