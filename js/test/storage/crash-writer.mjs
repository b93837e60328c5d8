// Helper of crash.test.mjs (not a test by itself): writes batches to a file store until it is
// killed, printing "<id> <compactions>" after each write() resolves, i.e. once the batch is
// acknowledged. Usage: node crash-writer.mjs <dir> <firstId> <seed>
//
// Batch <id> puts b/<id>/0..2 (values whose bytes derive from id and index, so a damaged value
// is detectable), meta/last = id and a 64-128 KiB scratch value of random bytes (overwritten
// every time and incompressible, so the log fills with dead bytes and compacts). When id % 5 === 0 it also deletes batch id - 1.
import { pathToFileURL } from "node:url";
import { FileAdapter } from "../../dist/storage/file.js";

/**
 * The bytes of value `j` of batch `id`: pseudo-random (incompressible, so large values still
 * make long appends in the compressed log) and a pure function of (id, j, position).
 */
export function batchValue(id, j, length) {
  const out = new Uint8Array(length);
  let x = (id * 2654435761 + j * 40503 + 1) >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

function xorshift(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 2 ** 32;
  };
}

const [dir, firstArg, seedArg] = process.argv.slice(2);
if (dir !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const first = Number(firstArg);
  const rand = xorshift(Number(seedArg));
  const store = await FileAdapter.open({ path: dir });
  process.stdout.write("ready\n");
  for (let id = first; ; id++) {
    const ops = [];
    for (let j = 0; j < 3; j++) {
      // Mostly small values; now and then a large one, so kills also land inside long appends.
      const length = rand() < 0.02 ? 100_000 + Math.floor(rand() * 300_000) : 50 + Math.floor(rand() * 1000);
      ops.push({ op: "put", key: `b/${id}/${j}`, value: batchValue(id, j, length) });
    }
    ops.push({ op: "put", key: "meta/last", value: new TextEncoder().encode(String(id)) });
    // Incompressible, so the dead bytes stay dead bytes in the compressed log and it compacts.
    const scratch = new Uint32Array(16_384 + Math.floor(rand() * 16_384)).map(() => rand() * 2 ** 32);
    ops.push({ op: "put", key: "scratch", value: new Uint8Array(scratch.buffer) });
    if (id % 5 === 0 && id - 1 >= first) {
      for (let j = 0; j < 3; j++) ops.push({ op: "delete", key: `b/${id - 1}/${j}` });
    }
    await store.write(ops);
    process.stdout.write(`${id} ${store.stats().compactions}\n`);
  }
}
