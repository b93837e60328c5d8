// The README's quick start must run as written (importing the package by its name) and print
// what the README says it prints; the README stays a user's document, under 250 lines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { join, dirname } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

test("README quick start runs and prints what the README says", () => {
  const quickStart = readme.slice(readme.indexOf("## Quick start"));
  const code = /```js\n([\s\S]*?)```/.exec(quickStart)?.[1];
  assert.ok(code, "README has a js block under ## Quick start");
  assert.ok(code.trim().split("\n").length <= 12, "the example stays about 10 lines");
  const said = /It prints `([^`]*?)…`/.exec(quickStart)?.[1];
  assert.ok(said, "README says what the example prints (It prints `…`)");
  const file = join(root, `.readme-example-${process.pid}.mjs`);
  writeFileSync(file, code);
  try {
    const out = execFileSync(process.execPath, [file], { encoding: "utf8" });
    assert.match(out, /We migrated the project database to SQLite with FTS5 Sf:porter \d/);
    assert.ok(out.startsWith(said), `printed ${JSON.stringify(out)}, the README says ${JSON.stringify(said)}…`);
  } finally {
    rmSync(file, { force: true });
  }
});

test("README stays under 250 lines", () => {
  const lines = readme.split("\n").length - 1;
  assert.ok(lines < 250, `README.md has ${lines} lines: move details to docs/ (see CHANGELOG "The README for users")`);
});

test("README's line for each AutoMem recall option runs as written", () => {
  const section = readme.slice(readme.indexOf("AutoMem's recall options, one line each"));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, "README has a js block of AutoMem's recall options");
  const options = ["tags", "tagMode", "tagMatch", "excludeTags", "timeQuery", "sort", "queries", "autoDecompose", "priorityIds",
    "expandEntities", "expandRelations", "relationLimit", "expansionLimit", "expandMinStrength", "expandMinImportance",
    "activePath", "label", "types"];
  for (const option of options) assert.match(code, new RegExp(`\\b${option}:`), `the README shows ${option}`);
  const file = join(root, `.readme-options-${process.pid}.mjs`);
  writeFileSync(file, `import { MemoryStore } from "recallkit";
const store = await MemoryStore.open({ storage: "memory" });
await store.rememberMany([
  { id: "mem-123", text: "We decided to keep PostgreSQL for the project database", tags: ["project-alpha", "db"] },
  { text: "Sarah's sister is Rachel", entities: ["Sarah", "Rachel"] },
  { text: "Rachel works as a nurse", entities: ["Rachel"] },
  { text: "posted in general", tags: ["slack:channel:general"] },
]);
${code}
const trending = await store.recall("*", { tags: ["slack"] });
console.log(trending.results.map((r) => r.text).join("|"));
await store.close();
`);
  try {
    const out = execFileSync(process.execPath, [file], { encoding: "utf8" });
    assert.equal(out.trim(), "posted in general");
  } finally {
    rmSync(file, { force: true });
  }
});
