#!/usr/bin/env node
// Copies the built package into examples/extension/recallkit/ (js/dist and the wasm with its
// glue, in the package's own layout, so js/dist's import of ../../pkg/recallkit.js holds), which
// makes examples/extension/ loadable unpacked. The copy is git-ignored; `npm run build` runs this.
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PKG_FILES = ["recallkit.js", "recallkit_bg.wasm"];

/** Replaces examples/extension/recallkit/ with a fresh copy; returns its path. */
export function copyExtensionPackage() {
  const out = join(root, "examples", "extension", "recallkit");
  for (const needed of [join(root, "js", "dist", "index.js"), ...PKG_FILES.map((f) => join(root, "pkg", f))]) {
    if (!existsSync(needed)) throw new Error(`extension-copy: ${needed} is missing; run \`npm run build\` first`);
  }
  rmSync(out, { recursive: true, force: true });
  cpSync(join(root, "js", "dist"), join(out, "js", "dist"), { recursive: true, filter: (src) => !src.endsWith(".d.ts") });
  mkdirSync(join(out, "pkg"), { recursive: true });
  for (const f of PKG_FILES) cpSync(join(root, "pkg", f), join(out, "pkg", f));
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.error(`extension-copy: wrote ${copyExtensionPackage()}`);
}
