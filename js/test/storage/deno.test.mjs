// Runs deno-smoke.mjs under Deno (node_modules/.bin/deno): the file adapter and the package
// must work there too. Skipped, with a message, when the deno binary is absent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const deno = fileURLToPath(new URL("../../../node_modules/.bin/deno", import.meta.url));
const script = fileURLToPath(new URL("./deno-smoke.mjs", import.meta.url));
const missing = existsSync(deno) ? false : `no deno binary at ${deno} (npm install brings it as a devDependency)`;

test("the file adapter and the package work in Deno", { skip: missing }, () => {
  const r = spawnSync(deno, ["run", "--allow-read", "--allow-write", "--allow-env", script], {
    encoding: "utf8", timeout: 120_000, env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  });
  assert.equal(r.error, undefined, String(r.error));
  assert.equal(r.status, 0, `deno exited with ${r.status}\n${r.stdout}\n${r.stderr}`);
  for (const step of ["second writer locked", "file adapter write, reopen, read", "MemoryStore remember and recall"]) {
    assert.match(r.stdout, new RegExp(`^ok ${step}$`, "m"));
  }
});
