// Helper of group-commit.test.mjs (not a test by itself): remembers memories into a file store
// until it is killed, calling many at once so that they share batches (group commit), and
// prints "<id>" as each call resolves, i.e. once its batch is acknowledged as durable.
// Usage: node group-writer.mjs <dir> <firstId> <seed>
//
// Each round calls 1–80 remembers without awaiting them, then yields (so the next round's calls
// queue while a batch is being written), keeping at most 400 unresolved. Memory <id> has the
// id `g<id>` and the text `memory <id> of the group writer`.
import { pathToFileURL } from "node:url";
import { MemoryStore } from "../../dist/index.js";

/** The text of memory `id`, as the writer stores it. */
export function groupText(id) {
  return `memory ${id} of the group writer`;
}

const [dir, firstArg, seedArg] = process.argv.slice(2);
if (dir !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let x = Number(seedArg) >>> 0 || 1;
  const rand = () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 2 ** 32;
  };
  const store = await MemoryStore.open({ storage: "file", path: dir });
  process.stdout.write("ready\n");
  let pending = 0;
  for (let id = Number(firstArg); ;) {
    const count = 1 + Math.floor(rand() * 80);
    for (let i = 0; i < count; i++, id++) {
      const n = id;
      pending++;
      store.remember({ id: `g${n}`, text: groupText(n) }).then(() => {
        pending--;
        process.stdout.write(`${n}\n`);
      }, (e) => {
        process.stderr.write(`g${n}: ${e.message}\n`);
        process.exit(1);
      });
    }
    await new Promise((resolve) => setImmediate(resolve));
    while (pending > 400) await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
