// Helper of worker.test.mjs: a worker_threads worker that serves recallkit stores on its
// parentPort. Run as a script of its own (node --test runs every file here), it does nothing.
import { isMainThread, parentPort, workerData } from "node:worker_threads";

if (!isMainThread && parentPort !== null) {
  const { serveStore } = await import("../../dist/worker.js");
  const now = workerData?.now;
  serveStore({
    scope: parentPort,
    ...(now === undefined ? {} : { clock: () => now }),
    embed: async (texts) => texts.map((t) => new Float32Array([t.length % 7, 1, t.includes("garden") ? 3 : 0])),
  });
}
