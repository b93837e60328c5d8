#!/usr/bin/env node
// The package as users get it (`npm run test:package`, part of `npm test`): `npm pack`, then
// install the tarball into a fresh project in a temporary directory and use it from there:
//   - Node, ES modules: remember + recall on a file store; `recallkit/worker`,
//     `recallkit/embedders` and `recallkit/postgres` import (the last without its optional pg);
//   - Node, CommonJS: `require("recallkit")` works where Node can require ES modules (20.19 and
//     later, 22.12 and later), else fails with ERR_REQUIRE_ESM; either way it says so;
//   - TypeScript: a strict program using the entries compiles under lib ES2022 + DOM and no
//     @types/node (what a browser project has);
//   - Deno: the installed package by its bare name (node_modules), a file store;
//   - Chromium, a page without a bundler: an import map names the package's entry;
//   - Chromium, a Vite build of a page importing it (the wasm is emitted as an asset).
// The tarball is checked too: no tests, no source maps pointing outside it, no benchmark data
// (the LoCoMo set is CC BY-NC), every file `exports` and `bin` name present; its packed and
// unpacked sizes are printed.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "./serve.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const DENO = join(root, "node_modules", ".bin", "deno");
const VITE = join(root, "node_modules", "vite", "bin", "vite.js");
const TSC = join(root, "node_modules", "typescript", "bin", "tsc");
const TIMEOUT_MS = 120_000;

let failures = 0;
async function check(name, fn) {
  try {
    const note = await fn();
    console.log(`ok - ${name}${note ? ` (${note})` : ""}`);
  } catch (e) {
    failures++;
    console.log(`not ok - ${name}\n  ${String(e?.stack ?? e).split("\n").join("\n  ")}`);
  }
}
function assert(condition, message) {
  if (!condition) throw new Error(message);
}
function run(cmd, args, cwd, env = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: TIMEOUT_MS, env: { ...process.env, NO_COLOR: "1", ...env } });
  if (r.error) throw r.error;
  return r;
}
function ran(r, what) {
  assert(r.status === 0, `${what} exited with ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The script every environment runs: one remember, one recall, the answer checked. */
const USE = `
const store = await MemoryStore.open(OPTIONS);
await store.remember({ id: "m1", text: "The backup of the billing database runs at 02:00" });
await store.remember({ id: "m2", text: "Ana prefers green tea in the afternoon" });
const { results } = await store.recall("when does the backup run?");
if (results[0]?.id !== "m1") throw new Error("recall answered " + JSON.stringify(results.map((r) => r.id)));
await store.close();
`;

const work = mkdtempSync(join(tmpdir(), "recallkit-package-"));
try {
  // ---- pack ------------------------------------------------------------------------------
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: root, encoding: "utf8" }));
  const tarball = join(work, packed.filename);
  const files = packed.files.map((f) => f.path);
  console.log(`package: ${packed.filename}, ${packed.entryCount} files, ${(packed.size / 1024).toFixed(1)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(1)} KiB unpacked`);

  await check("the tarball holds what exports and bin name, and no tests, source maps or benchmark data", () => {
    const named = [
      ...Object.values(pkg.exports).flatMap((e) => Object.values(e)),
      ...Object.values(pkg.bin),
      pkg.main, pkg.types,
    ].map((p) => p.replace(/^\.\//, ""));
    const missing = named.filter((p) => !files.includes(p));
    assert(missing.length === 0, `named but not packed: ${missing}`);
    const tests = files.filter((f) => /(^|\/)(test|tests|__tests__)\//.test(f) || /\.test\.m?js$/.test(f));
    assert(tests.length === 0, `test files packed: ${tests}`);
    const maps = files.filter((f) => f.endsWith(".map"));
    assert(maps.length === 0, `source maps packed: ${maps}`);
    const data = files.filter((f) => /locomo|\.f32$|\.jsonl$|bench\//i.test(f));
    assert(data.length === 0, `benchmark data packed: ${data}`);
    for (const f of files.filter((p) => p.endsWith(".js"))) {
      assert(!/sourceMappingURL=(?!data:)/.test(readFileSync(join(root, f), "utf8")), `${f} points at a source map outside the package`);
    }
    // npm's page resolves the README's relative links (docs/…, which are not packed) against
    // the repository; without one they are dead links.
    assert(/github\.com\/[^/]+\/[^/.]+/.test(pkg.repository?.url ?? ""), "package.json names no repository for the README's relative links");
    const readmeLinks = [...readFileSync(join(root, "README.md"), "utf8").matchAll(/\]\((?!https?:|#)([^)#\s]+)/g)].map((m) => m[1]);
    const unpackedLinks = readmeLinks.filter((l) => !files.includes(l.replace(/^\.\//, "")));
    assert(unpackedLinks.every((l) => existsSync(join(root, l))), `README links to missing files: ${unpackedLinks.filter((l) => !existsSync(join(root, l)))}`);
    return `${files.length} files, ${unpackedLinks.length} README links resolved through the repository`;
  });

  // ---- a fresh project -----------------------------------------------------------------
  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }, null, 2));
  ran(run("npm", ["install", "--no-audit", "--no-fund", "--no-package-lock", tarball], app), "npm install of the tarball");
  assert(existsSync(join(app, "node_modules", "recallkit", "pkg", "recallkit_bg.wasm")), "the wasm is installed");

  await check("Node, ES modules: remember and recall on a file store; the subpaths import", () => {
    writeFileSync(join(app, "esm.mjs"), `
import { MemoryStore } from "recallkit";
import { openWorkerStore, serveStore } from "recallkit/worker";
import { ollamaEmbedder } from "recallkit/embedders";
import { PostgresDatabase } from "recallkit/postgres";
if (typeof openWorkerStore !== "function" || typeof serveStore !== "function" || typeof ollamaEmbedder !== "function") throw new Error("a subpath export is missing");
// pg is an optional peer dependency: importing recallkit/postgres works without it, connecting says what to install.
const noPg = await PostgresDatabase.connect({ connectionString: "postgres://127.0.0.1:1/none" }).then(() => undefined, (e) => e);
if (noPg?.code !== "storage_failed" || !/npm install pg/.test(noPg.message)) throw new Error("recallkit/postgres without pg: " + noPg);
const OPTIONS = { storage: "file", path: "./node-store" };
${USE}
console.log("esm ok");`);
    return ran(run(process.execPath, ["esm.mjs"], app), "node esm.mjs").trim();
  });

  await check("TypeScript: the declarations compile under lib ES2022 + DOM, strict, without @types/node", () => {
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"],
        strict: true, noEmit: true, types: [], skipLibCheck: false,
      },
      files: ["use.mts"],
    }, null, 2));
    writeFileSync(join(app, "use.mts"), `
import { MemoryStore, type RecallResult } from "recallkit";
import { openWorkerStore } from "recallkit/worker";
import { ollamaEmbedder } from "recallkit/embedders";
import { PostgresDatabase } from "recallkit/postgres";
const store = await MemoryStore.open({ storage: "memory", embed: ollamaEmbedder({ url: "http://127.0.0.1:11434", model: "m" }) });
await store.remember({ text: "The backup runs at 02:00" });
const res: RecallResult = await store.recall("backup");
const score: number = res.results[0]?.score ?? 0;
export { score, openWorkerStore, PostgresDatabase };
`);
    ran(run(process.execPath, [TSC, "-p", app], app), "tsc");
    return `typescript ${JSON.parse(readFileSync(join(root, "node_modules", "typescript", "package.json"), "utf8")).version}`;
  });

  await check("Node, CommonJS: require() works where Node requires ES modules, else fails with ERR_REQUIRE_ESM", () => {
    writeFileSync(join(app, "cjs.cjs"), `
let m;
try {
  m = require("recallkit");
} catch (e) {
  console.log("require: " + e.code);
  process.exit(0);
}
(async () => {
  const { MemoryStore } = m;
  const OPTIONS = { storage: "memory" };
  ${USE}
  console.log("require: works");
})().catch((e) => { console.error(e); process.exit(1); });`);
    const out = ran(run(process.execPath, ["cjs.cjs"], app), "node cjs.cjs").trim();
    const want = process.features.require_module ? "require: works" : "require: ERR_REQUIRE_ESM";
    assert(out === want, `expected ${want}, got ${out}`);
    return `${out} on Node ${process.versions.node}`;
  });

  await check("Deno: the installed package by its bare name, on a file store", () => {
    if (!existsSync(DENO)) return "skipped: no deno binary (npm install brings it as a devDependency)";
    writeFileSync(join(app, "deno.mjs"), `
import { MemoryStore } from "recallkit";
const OPTIONS = { storage: "file", path: "./deno-store" };
${USE}
console.log("deno ok");`);
    const r = run(DENO, ["run", "--no-prompt", "--allow-read", "--allow-write", "deno.mjs"], app, { DENO_NO_UPDATE_CHECK: "1" });
    return ran(r, "deno run deno.mjs").trim();
  });

  // ---- browsers ----------------------------------------------------------------------------
  if (!existsSync(CHROMIUM)) {
    console.log(`# skipped the browser checks: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);
  } else {
    const page = (script) => `<!doctype html><meta charset="utf-8"><title>recallkit package test</title>
<script type="importmap">{ "imports": { "recallkit": "./node_modules/recallkit/js/dist/index.js" } }</script>
<script type="module">${script}</script>`;
    const browserScript = `
import { MemoryStore } from "recallkit";
try {
  const OPTIONS = { storage: "indexeddb", name: "package-test-" + Date.now() };
  ${USE}
  window.result = "ok";
} catch (e) {
  window.result = String(e?.stack ?? e);
}`;
    writeFileSync(join(app, "index.html"), page(browserScript));

    // A Vite project: the page imports the package by name; `vite build` bundles it.
    const viteApp = join(app, "vite-app");
    mkdirSync(viteApp);
    writeFileSync(join(viteApp, "index.html"), `<!doctype html><meta charset="utf-8"><title>vite</title><script type="module" src="./main.js"></script>`);
    writeFileSync(join(viteApp, "main.js"), browserScript);

    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    try {
      const load = async (dir, what) => {
        const { server, url } = await serve({ port: 0, dir, index: "index.html" });
        try {
          const tab = await browser.newPage();
          const errors = [];
          tab.on("pageerror", (e) => errors.push(String(e)));
          await tab.goto(url);
          await tab.waitForFunction(() => window.result !== undefined, null, { timeout: 60_000 });
          const result = await tab.evaluate(() => window.result);
          await tab.close();
          assert(result === "ok" && errors.length === 0, `${what}: ${result} ${errors.join("; ")}`);
        } finally {
          server.close();
        }
      };

      await check("Chromium, a page without a bundler: an import map names the package", async () => {
        await load(app, "import map page");
      });

      await check("Chromium, a Vite build of a page that imports the package", async () => {
        ran(run(process.execPath, [VITE, "build", "--logLevel", "warn"], viteApp), "vite build");
        const assets = execFileSync("ls", [join(viteApp, "dist", "assets")], { encoding: "utf8" }).split("\n");
        assert(assets.some((a) => a.endsWith(".wasm")), `vite emitted no wasm asset: ${assets}`);
        await load(join(viteApp, "dist"), "vite build");
        return `assets: ${assets.filter(Boolean).join(", ")}`;
      });
    } finally {
      await browser.close();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

console.log(`package tests: ${failures === 0 ? "all passed" : `${failures} failed`}`);
process.exit(failures === 0 ? 0 : 1);
