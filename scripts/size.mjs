#!/usr/bin/env node
// Prints the shipped size of the package's WebAssembly and JS glue, raw and gzip (level 9),
// against the budget, and fails over budget, so that npm test catches growth. The benchmark
// target of issue 3 was 150 KiB; the ranking models of issue 21 (evidence fusion, four more
// models, their validation and explanations) took the package to about 165 KiB, so the check
// stands at 170 KiB while that target is missed (README "Performance").
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BUDGET_GZIP_BYTES = 170 * 1024;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const files = ["pkg/recallkit_bg.wasm", "pkg/recallkit.js"];
let raw = 0;
let gzip = 0;
for (const f of files) {
  const bytes = readFileSync(join(root, f));
  const z = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  gzip += z;
  console.log(`${f.padEnd(24)} ${String(bytes.length).padStart(8)} B raw ${String(z).padStart(8)} B gzip`);
}
console.log(`${"total".padEnd(24)} ${String(raw).padStart(8)} B raw ${String(gzip).padStart(8)} B gzip (budget ${BUDGET_GZIP_BYTES} B)`);
if (gzip > BUDGET_GZIP_BYTES) {
  console.error(`size: error: over budget by ${gzip - BUDGET_GZIP_BYTES} bytes`);
  process.exit(1);
}
