#!/usr/bin/env node
// Installs what the build needs and is missing: npm dependencies, the wasm32 Rust target and
// the wasm-bindgen CLI of exactly the version Cargo.lock pins. Idempotent and quick when all
// is present, so `npm test` and `npm run demo` can call it every time.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function run(cmd, args) {
  console.error(`setup: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit" });
  return r.status === 0;
}

function output(cmd, args) {
  try {
    return execFileSync(cmd, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return "";
  }
}

function fail(message) {
  console.error(`setup: ${message}`);
  process.exit(1);
}

// 1. npm dependencies: any devDependency missing (a checkout older than package.json's list
// has only some) runs the install.
const devDependencies = Object.keys(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies);
if (devDependencies.some((name) => !existsSync(join(root, "node_modules", name, "package.json")))) {
  // `npm install` rather than `npm ci`: the lock records only this platform's optional deno
  // binary package, which `npm ci` rejects as out of sync.
  if (!run("npm", ["install", "--no-audit", "--no-fund"])) fail("npm install failed");
}

// 2. The wasm32 target.
if (!output("rustup", ["target", "list", "--installed"]).includes("wasm32-unknown-unknown")) {
  if (!run("rustup", ["target", "add", "wasm32-unknown-unknown"])) fail("cannot add the wasm32-unknown-unknown target");
}

// 3. wasm-bindgen-cli matching the wasm-bindgen crate in Cargo.lock.
const lock = readFileSync(join(root, "Cargo.lock"), "utf8");
const pinned = /name = "wasm-bindgen"\nversion = "([^"]+)"/.exec(lock)?.[1];
if (!pinned) fail("Cargo.lock does not pin wasm-bindgen");
const installed = /wasm-bindgen (\S+)/.exec(output("wasm-bindgen", ["--version"]))?.[1];
if (installed !== pinned) {
  // --locked first (reproducible); the registry mirror may lack a locked transitive
  // version, in which case a fresh resolution of the same CLI version is used.
  const base = ["install", "wasm-bindgen-cli", "--version", pinned, "--force"];
  if (!run("cargo", [...base, "--locked"]) && !run("cargo", base)) {
    fail(`cannot install wasm-bindgen-cli ${pinned}`);
  }
}
