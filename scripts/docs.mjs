#!/usr/bin/env node
// Generates the API reference in docs/api/ (Markdown, one page per exported item) from the
// package's public declarations, js/dist/index.d.ts (and js/dist/worker.d.ts, the
// `recallkit/worker` entry, into docs/api/worker/, and likewise embedders and postgres): API Extractor reads them into a doc model
// (it carries its own TypeScript, so the repo's TypeScript 7 does not matter) and API
// Documenter writes the pages. Needs js/dist and pkg/ built (`npm run docs` builds first).
// Fails on any TSDoc or API Extractor warning, so the reference never hides a broken comment.
// js/test/docs.test.mjs checks that docs/api/ is current with the exports.
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Each entry point of package.json "exports" gets its own folder. `recallkit/worker` names
// types of the main entry without exporting them (documented there), hence `forgotten`.
const ENTRIES = [
  { entry: join(root, "js", "dist", "index.d.ts"), out: join(root, "docs", "api"), forgotten: "warning" },
  { entry: join(root, "js", "dist", "worker.d.ts"), out: join(root, "docs", "api", "worker"), forgotten: "none" },
  { entry: join(root, "js", "dist", "embedders.d.ts"), out: join(root, "docs", "api", "embedders"), forgotten: "none" },
  { entry: join(root, "js", "dist", "postgres.d.ts"), out: join(root, "docs", "api", "postgres"), forgotten: "none" },
];
for (const needed of [...ENTRIES.map((e) => e.entry), join(root, "pkg", "recallkit.d.ts")]) {
  if (!existsSync(needed)) {
    console.error(`docs: ${needed} is missing; run \`npm run build\` first`);
    process.exit(1);
  }
}

/** Writes the pages of one entry point into `out` (replacing what was there, sub-folders aside). */
function document({ entry, out, forgotten }) {
  const model = mkdtempSync(join(tmpdir(), "recallkit-docs-"));
  try {
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: root,
        mainEntryPointFilePath: entry,
        compiler: {
          overrideTsconfig: {
            compilerOptions: { target: "ES2022", module: "ES2022", moduleResolution: "Bundler", lib: ["ES2022", "DOM"], types: ["node"], strict: true },
            files: [entry],
          },
        },
        apiReport: { enabled: false },
        docModel: { enabled: true, apiJsonFilePath: join(model, "<unscopedPackageName>.api.json") },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          // Every finding is a warning, and a warning fails the script (below).
          compilerMessageReporting: { default: { logLevel: "warning" } },
          extractorMessageReporting: {
            default: { logLevel: "warning" },
            // Release tags (@public, @beta…) mean nothing here: every export is public.
            "ae-missing-release-tag": { logLevel: "none" },
            "ae-forgotten-export": { logLevel: forgotten },
          },
          tsdocMessageReporting: { default: { logLevel: "warning" } },
        },
      },
      configObjectFullPath: undefined,
      packageJsonFullPath: join(root, "package.json"),
    });
    const result = Extractor.invoke(config, { localBuild: true, showVerboseMessages: false });
    if (!result.succeeded || result.warningCount > 0) {
      console.error(`docs: API Extractor reported ${result.errorCount} errors and ${result.warningCount} warnings for ${entry}`);
      process.exit(1);
    }
    for (const name of existsSync(out) ? readdirSync(out) : []) {
      if (name.endsWith(".md")) rmSync(join(out, name));
    }
    const documenter = join(root, "node_modules", "@microsoft", "api-documenter", "bin", "api-documenter");
    const r = spawnSync(process.execPath, [documenter, "markdown", "--input-folder", model, "--output-folder", out], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    if (r.status !== 0) process.exit(r.status ?? 1);
    // API Documenter writes CRLF line ends; the repository's text files use LF.
    const pages = readdirSync(out).filter((name) => name.endsWith(".md"));
    for (const name of pages) {
      const file = join(out, name);
      writeFileSync(file, readFileSync(file, "utf8").replace(/\r\n/g, "\n"));
    }
    console.error(`docs: wrote ${pages.length} pages to ${out}`);
  } finally {
    rmSync(model, { recursive: true, force: true });
  }
}

for (const entry of ENTRIES) document(entry);
