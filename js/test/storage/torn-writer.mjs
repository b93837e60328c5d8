// Helper of crash.test.mjs (not a test by itself): writes one small batch (printing "acked <id>"
// once it is acknowledged), then starts a 32 MiB append. The first large write() system call
// puts only the first half of its bytes in the file, as a write() interrupted by a fatal signal
// does, then prints "appending" and waits for the test's SIGKILL. A kill racing a real write()
// used to land after the write on a fast disk (the page cache takes 32 MiB in milliseconds), so
// the test exercised nothing; this way every run dies with a frame cut short in the file.
// Usage: node torn-writer.mjs <dir> <id>
import { writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { FileAdapter } from "../../dist/storage/file.js";
import { encodeRecord } from "../../dist/storage/codec.js";

/** Float32 values of the large record: 32 MiB of embedding, which the log stores uncompressed (a frame's tail). */
const FLOATS = 8 << 20;

const [dir, idArg] = process.argv.slice(2);
if (dir !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const store = await FileAdapter.open({ path: dir });
  const id = Number(idArg);
  await store.write([{ op: "put", key: `small/${id}`, value: new TextEncoder().encode(String(id)) }]);
  process.stdout.write(`acked ${id}\n`);
  const probe = await open(process.argv[1], "r");
  const FileHandle = Object.getPrototypeOf(probe);
  await probe.close();
  const write = FileHandle.write;
  FileHandle.write = async function (buffer, offset, length, position) {
    if (length < 1 << 20) return write.call(this, buffer, offset, length, position);
    const half = Math.floor(length / 2);
    await write.call(this, buffer, offset, half, position);
    writeSync(1, "appending\n");
    return new Promise(() => {}); // killed here, half-way through the frame
  };
  const embedding = new Float32Array(FLOATS).map((_, i) => Math.sin(i + id));
  await store.write([{ op: "put", key: "big", value: encodeRecord({ kind: "memory", data: { id: String(id), text: "big" }, embedding }) }]);
  process.stdout.write("done\n");
}
