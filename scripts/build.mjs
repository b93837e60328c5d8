#!/usr/bin/env node
// Builds the package from source: the Rust core to wasm32 (release profile), wasm-bindgen
// bindings into pkg/, wasm-opt from the binaryen npm package, then the TypeScript wrapper
// into js/dist/. Run `node scripts/setup.mjs` first (npm run build does).
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { minify } from "terser";
import { copyExtensionPackage } from "./extension-copy.mjs";
import { minifyImports } from "./minify-imports.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Cargo's output directory: $CARGO_TARGET_DIR when set (relative to the repository), else target/.
const targetDir = process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, "target");
const wasmOut = join(targetDir, "wasm32-unknown-unknown", "release", "recallkit.wasm");
const bgWasm = join(root, "pkg", "recallkit_bg.wasm");

function run(cmd, args, env = {}) {
  console.error(`build: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`build: ${cmd} failed`);
    process.exit(r.status ?? 1);
  }
}

// simd128 for the vector scan; the other features are rustc's defaults for this target,
// listed so wasm-opt accepts them.
const features = ["+simd128"];
run("cargo", ["build", "--release", "--lib", "--target", "wasm32-unknown-unknown"], {
  RUSTFLAGS: `${process.env.RUSTFLAGS ?? ""} -C target-feature=${features.join(",")}`.trim(),
});
// --keep-debug keeps the function names for wasm-opt's --reorder-functions-by-name below, which
// then strips them.
run("wasm-bindgen", [wasmOut, "--keep-debug", "--out-dir", join(root, "pkg"), "--target", "web"]);
// wasm-bindgen declares `[Symbol.dispose](): void` on each exported class, which only compiles
// for a TypeScript user whose lib has esnext.disposable (or @types/node): under lib ES2022 + DOM
// it is error TS2550 in our declarations. The wrapper frees these objects with `free()`, and no
// user holds one, so the declarations leave the method out (the glue still defines it).
const dts = join(root, "pkg", "recallkit.d.ts");
writeFileSync(dts, readFileSync(dts, "utf8").replace(/^[ \t]*\[Symbol\.dispose\]\(\): void;\r?\n/gm, ""));
// The glue ships minified (terser: its JSDoc blocks repeat the Rust docs that recallkit.d.ts
// keeps for editors and tsc, and its local names are long): 1.8 KB less gzipped than with only
// the JSDoc removed. Export names and the wasm's import names (object keys) are kept; the
// latter become numbers after wasm-opt (below).
const glue = join(root, "pkg", "recallkit.js");
const { code } = await minify(readFileSync(glue, "utf8"), { module: true, ecma: 2020 });
writeFileSync(glue, code);
const wasmOpt = join(root, "node_modules", "binaryen", "bin", "wasm-opt");
const optimised = join(root, "pkg", "recallkit_bg.opt.wasm");
// --strip-producers and --strip-target-features drop two custom sections (tool names and
// versions, the feature list) that no runtime reads: about 230 B gzipped. `-ocimfs 0`
// (--one-caller-inline-max-function-size) stops wasm-opt from inlining every function that
// has one caller whatever its size (rustc has already inlined what is hot): 3.7 KB less
// gzipped, 10k recall p50 within noise (±1 % in interleaved runs). --reorder-functions-by-name
// puts functions of one module, and the copies of one generic function, next to each other,
// where gzip's 32 KB window finds their repeats: 2.9 KB less gzipped, and the order of
// functions in the module changes nothing when it runs. --strip-debug then drops the names.
run("node", [
  wasmOpt, bgWasm, "-O3", "--converge", "-ocimfs", "0", "--reorder-functions-by-name", "--strip-debug",
  "--strip-producers", "--strip-target-features", "-o", optimised,
  "--enable-simd", "--enable-bulk-memory", "--enable-nontrapping-float-to-int",
  "--enable-sign-ext", "--enable-mutable-globals", "--enable-multivalue", "--enable-reference-types",
]);
copyFileSync(optimised, bgWasm);
rmSync(optimised);
// The imports' hashed names become numbers in the wasm and the glue alike (minify-imports.mjs).
const short = minifyImports(readFileSync(bgWasm), readFileSync(glue, "utf8"));
writeFileSync(bgWasm, short.wasm);
writeFileSync(glue, short.glue);
run("node", [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "js", "tsconfig.json")]);
console.error(`build: pkg/recallkit_bg.wasm is ${statSync(bgWasm).size} bytes`);
// examples/extension/ loads the package from its own folder (an extension cannot reach outside it).
console.error(`build: copied the package into ${copyExtensionPackage()}`);
