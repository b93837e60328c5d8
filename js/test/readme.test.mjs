// The README's usage example must run as written (importing the package by its name).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { join, dirname } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

test("README usage example runs and prints the expected memory", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const usage = readme.slice(readme.indexOf("## Usage"));
  const code = /```js\n([\s\S]*?)```/.exec(usage)?.[1];
  assert.ok(code, "README has a js block under ## Usage");
  assert.ok(code.trim().split("\n").length <= 12, "the example stays about 10 lines");
  const file = join(root, `.readme-example-${process.pid}.mjs`);
  writeFileSync(file, code);
  try {
    const out = execFileSync(process.execPath, [file], { encoding: "utf8" });
    assert.match(out, /We migrated the project database to SQLite with FTS5 Sf:porter \d/);
  } finally {
    rmSync(file, { force: true });
  }
});
