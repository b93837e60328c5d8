// The maps stay true: DESIGN.md names every folder and top-level file of src/ and every
// TypeScript file of js/src/, and documents every score component a recall records (collected
// from real recalls under every ranking, with vectors, notes, edges, context, MMR and a
// reranker), as does the demo's score breakdown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryStore } from "../dist/index.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const design = readFileSync(join(root, "DESIGN.md"), "utf8");

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

test("DESIGN.md names every folder and top-level file of src/", () => {
  const entries = readdirSync(join(root, "src"), { withFileTypes: true });
  const missing = entries
    .map((e) => (e.isDirectory() ? `src/${e.name}/` : `src/${e.name}`))
    .filter((p) => p.endsWith("/") || p.endsWith(".rs"))
    .filter((p) => !design.includes(`\`${p}`));
  assert.deepEqual(missing, [], "add them to DESIGN.md's module map");
});

test("DESIGN.md names every TypeScript file of js/src/", () => {
  const files = walk(join(root, "js", "src")).filter((f) => f.endsWith(".ts"));
  const missing = files
    .map((f) => relative(join(root, "js", "src"), f))
    .filter((f) => !design.includes(`\`${f.split("/").pop()}\``) && !design.includes(`js/src/${f}`));
  assert.deepEqual(missing, [], "add them to DESIGN.md's module map");
});

/** Every component name recalls record, over a store and queries that reach every rule. */
async function recordedComponents() {
  const names = new Set();
  const now = Date.parse("2026-06-01T12:00:00Z");
  const store = await MemoryStore.open({ storage: "memory", clock: () => now });
  await store.rememberMany([
    { id: "a", text: "We migrated the project database to SQLite", embedding: [1, 0, 0], topic: "work", emotion: 3, tier: "core", trust: 3, credibility: 1, relevance: 1 },
    { id: "b", text: "The deployment pipeline runs every Friday", embedding: [0, 1, 0], createdAt: now - 400 * 86_400_000 },
    { id: "c", text: "Database backups run nightly", tags: ["database"], importance: 0.9, confidence: 0.8 },
  ]);
  for (let i = 0; i < 3; i++) await store.recall("database", { trackRecalls: true, now: now + i * 2 * 86_400_000 });
  await store.addNote({ period: "weekly", start: now - 86_400_000, text: "We talked about the database migration." });
  await store.addEntity({ name: "Ana", aliases: ["Ann"] });
  await store.relate({ from: "Ana", relation: "owns", to: "database", memoryIds: ["a"] });
  const rankings = ["recallkit", "abmind", "rrf", "composite", "weighted"];
  for (const ranking of rankings) {
    for (const extra of [
      {}, { embedding: [1, 0.1, 0] }, { mmrLambda: 0.7 }, { context: { hour: 12, dayOfWeek: 1, topic: "work" } },
      { rerank: async (_q, texts) => texts.map((t) => t.length) },
      { expandRelations: true, expandEntities: true, limit: 1 },
    ]) {
      for (const q of ["database", "who owns the database Ana", "latest database now", "databse migrtion"]) {
        const res = await store.recall(q, { ranking, trackRecalls: false, ...extra });
        for (const hit of res.results) for (const k of Object.keys(hit.components)) names.add(k);
      }
      const trending = await store.recall("", { ranking, trackRecalls: false, ...extra });
      for (const hit of trending.results) for (const k of Object.keys(hit.components)) names.add(k);
    }
  }
  await store.close();
  return names;
}

test("every score component a recall records is documented, in DESIGN.md and in the demo", async () => {
  const names = [...(await recordedComponents())].sort();
  assert.ok(names.length > 20, `only ${names.length} components seen: ${names}`);
  const section = design.slice(design.indexOf("## Score components"));
  assert.ok(section.length > 0 && design.includes("## Score components"), "DESIGN.md has a Score components section");
  const undocumented = names.filter((n) => !section.includes(`\`${n}\``));
  assert.deepEqual(undocumented, [], "add them to DESIGN.md's Score components table");
  const ui = readFileSync(join(root, "www", "ui.js"), "utf8");
  const unlabelled = names.filter((n) => !new RegExp(`\\b${n}:`).test(ui));
  assert.deepEqual(unlabelled, [], "add a label to COMPONENTS in www/ui.js");
});

// The API reference (docs/api/, written by `npm run docs`) stays current with the package's
// exports: a page for every export of js/dist/index.d.ts and for every member of an exported
// class or interface, and no page for anything gone. The generator takes several seconds, so
// this reads the declarations instead of running it.

/** The declaration file `from` names, relative to `file`. */
function resolveDts(file, from) {
  return join(dirname(file), from.replace(/\.js$/, ".d.ts"));
}

/** The names a declaration file exports, each with the file it comes from. */
function exportsOf(file) {
  const text = readFileSync(file, "utf8");
  const names = new Map();
  for (const m of text.matchAll(/^export (?:type )?\{([^}]*)\}(?: from "([^"]+)")?/gm)) {
    for (const name of m[1].split(",").map((s) => s.trim()).filter(Boolean)) {
      names.set(name.split(/\s+as\s+/).pop(), m[2] ? resolveDts(file, m[2]) : file);
    }
  }
  for (const m of text.matchAll(/^export (?:declare )?(?:interface|class|type|function|const|abstract class) (\w+)/gm)) {
    names.set(m[1], file);
  }
  return names;
}

/** The members of the class or interface `name` declared in (or re-exported by) `file`, or undefined for other kinds. */
function membersOf(name, file) {
  const text = readFileSync(file, "utf8");
  const decl = new RegExp(`^export (?:declare )?(?:interface|class) ${name}\\b[^\\n]*\\{\\n([\\s\\S]*?)^\\}`, "m").exec(text);
  if (decl) {
    return [...decl[1].matchAll(/^ {4}(?:(?:static|readonly|get|set) )*(\w+)\??(?:<[^>]*>)?[(:]/gm)]
      .map((m) => (m[1] === "constructor" ? "_constructor_" : m[1]));
  }
  const via = exportsOf(file).get(name);
  return via && via !== file ? membersOf(name, via) : undefined;
}

/** The pages docs/api (or a sub-folder) lacks or has left over, for the entry point `entry`. */
function pagesOf(entry, api) {
  const pages = new Set(readdirSync(api).filter((name) => name.endsWith(".md")));
  const expected = new Set(["index.md", "recallkit.md"]);
  for (const [name, file] of exportsOf(entry)) {
    expected.add(`recallkit.${name.toLowerCase()}.md`);
    for (const member of membersOf(name, file) ?? []) expected.add(`recallkit.${name.toLowerCase()}.${member.toLowerCase()}.md`);
  }
  const missing = [...expected].filter((p) => !pages.has(p));
  const stale = [...pages].filter((p) => !expected.has(p));
  return { expected: expected.size, missing, stale };
}

test("docs/api has a page for every export of the package and every member of its classes and interfaces", () => {
  const { expected, missing, stale } = pagesOf(join(root, "js", "dist", "index.d.ts"), join(root, "docs", "api"));
  assert.ok(expected > 100, `only ${expected} pages expected`);
  assert.deepEqual({ missing, stale }, { missing: [], stale: [] }, "docs/api is stale: run `npm run docs`");
});

test("docs/api/worker has a page for every export of recallkit/worker", () => {
  const { expected, missing, stale } = pagesOf(join(root, "js", "dist", "worker.d.ts"), join(root, "docs", "api", "worker"));
  assert.ok(expected > 10, `only ${expected} pages expected`);
  assert.deepEqual({ missing, stale }, { missing: [], stale: [] }, "docs/api/worker is stale: run `npm run docs`");
});

test("docs/api/embedders has a page for every export of recallkit/embedders", () => {
  const { expected, missing, stale } = pagesOf(join(root, "js", "dist", "embedders.d.ts"), join(root, "docs", "api", "embedders"));
  assert.ok(expected > 10, `only ${expected} pages expected`);
  assert.deepEqual({ missing, stale }, { missing: [], stale: [] }, "docs/api/embedders is stale: run `npm run docs`");
});

test("docs/api/postgres has a page for every export of recallkit/postgres", () => {
  const { expected, missing, stale } = pagesOf(join(root, "js", "dist", "postgres.d.ts"), join(root, "docs", "api", "postgres"));
  assert.ok(expected > 10, `only ${expected} pages expected`);
  assert.deepEqual({ missing, stale }, { missing: [], stale: [] }, "docs/api/postgres is stale: run `npm run docs`");
});

/** GitHub's anchors of a Markdown file's headings. */
function anchors(file) {
  const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
  return new Set([...text.matchAll(/^#+ (.*)$/gm)].map(([, h]) => h.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-")));
}

test("every relative link in the repository's Markdown points to a file and heading that exist", () => {
  const docs = walk(join(root, "docs")).filter((f) => f.endsWith(".md"));
  const files = [...["README.md", "DESIGN.md", "HACKING.md", "CHANGELOG.md", "bench/README.md"].map((f) => join(root, f)), ...docs];
  const broken = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split("#");
      const to = path ? join(dirname(file), decodeURIComponent(path)) : file;
      if (!existsSync(to)) broken.push(`${relative(root, file)}: ${target}`);
      else if (anchor && to.endsWith(".md") && !anchors(to).has(anchor)) broken.push(`${relative(root, file)}: ${target} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

test("every class, function, constant and type the package declares carries a doc comment", () => {
  // tsc keeps a declaration's TSDoc in js/dist/*.d.ts, and docs/api is generated from it: a
  // helper written between a class and its comment took the comment (and the API page's
  // summary) from MemoryStore.
  const undocumented = walk(join(root, "js", "dist")).filter((f) => f.endsWith(".d.ts")).flatMap((f) => {
    const lines = readFileSync(f, "utf8").split("\n");
    return lines.flatMap((line, i) => (/^export (declare )?(abstract )?(class|function|const|interface|type|enum) [^{]/.test(line)
      && !/\*\/\s*$/.test(lines[i - 1] ?? "") ? [`${relative(root, f)}:${i + 1}: ${line.slice(0, 80)}`] : []));
  });
  assert.deepEqual(undocumented, []);
});
