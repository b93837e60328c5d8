// Runs recallkit under Deno (node_modules/.bin/deno): deno-smoke.mjs (the file adapter and the
// package) with the permissions README "Where it runs" documents, and deno-permissions.mjs (a
// MemoryStore file store) to check what each permission is for: --allow-read and --allow-write
// always; --allow-sys=hostname and --allow-run only to take over a lock left by a dead process,
// and without them the open fails with `locked` naming the missing flag. Skipped, with a
// message, when the deno binary is absent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const deno = fileURLToPath(new URL("../../../node_modules/.bin/deno", import.meta.url));
const smoke = fileURLToPath(new URL("./deno-smoke.mjs", import.meta.url));
const permissions = fileURLToPath(new URL("./deno-permissions.mjs", import.meta.url));
const missing = existsSync(deno) ? false : `no deno binary at ${deno} (npm install brings it as a devDependency)`;
const READ_WRITE = ["--allow-read", "--allow-write"];
const TAKE_OVER = ["--allow-sys=hostname", "--allow-run"];

function runDeno(flags, script, ...args) {
  const r = spawnSync(deno, ["run", "--no-prompt", ...flags, script, ...args], {
    encoding: "utf8", timeout: 120_000, env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  });
  assert.equal(r.error, undefined, String(r.error));
  return r;
}

/** A store directory whose lock file names a process of this host that has exited. */
function staleStore(root, name) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const dead = spawnSync(process.execPath, ["-e", ""]).pid;
  writeFileSync(join(dir, "lock"), JSON.stringify({ pid: dead, hostname: hostname(), createdAt: new Date().toISOString() }));
  return dir;
}

test("the file adapter and the package work in Deno with --allow-read --allow-write", { skip: missing }, () => {
  const r = runDeno(READ_WRITE, smoke);
  assert.equal(r.status, 0, `deno exited with ${r.status}\n${r.stdout}\n${r.stderr}`);
  for (const step of ["second writer locked", "file adapter write, reopen, read", "MemoryStore remember and recall"]) {
    assert.match(r.stdout, new RegExp(`^ok ${step}$`, "m"));
  }
});

test("in Deno a lock left by a dead process is taken over, given --allow-sys=hostname and --allow-run", { skip: missing }, () => {
  const root = mkdtempSync(join(tmpdir(), "recallkit-deno-"));
  try {
    const r = runDeno([...READ_WRITE, ...TAKE_OVER], permissions, staleStore(root, "stale"));
    assert.match(r.stdout, /^ok file store$/m, `${r.stdout}\n${r.stderr}`);
    const fresh = runDeno(READ_WRITE, permissions, join(root, "fresh"));
    assert.match(fresh.stdout, /^ok file store$/m, `without a stale lock, read and write suffice\n${fresh.stdout}\n${fresh.stderr}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("in Deno a missing permission fails with a RecallError naming the flag", { skip: missing }, () => {
  const root = mkdtempSync(join(tmpdir(), "recallkit-deno-"));
  try {
    const cases = [
      [READ_WRITE, staleStore(root, "no-sys"), /^error locked .*run Deno with --allow-sys=hostname\)/m],
      [[...READ_WRITE, "--allow-sys=hostname"], staleStore(root, "no-run"), /^error locked .*run Deno with --allow-run\)/m],
      [["--allow-read"], join(root, "no-write"), /^error storage_failed .*--allow-write/m],
      [[], join(root, "no-read"), /^error internal cannot load the recallkit WebAssembly module: .*--allow-read/m],
    ];
    for (const [flags, dir, expected] of cases) {
      const r = runDeno(flags, permissions, dir);
      assert.match(r.stdout, expected, `deno run ${flags.join(" ")}\n${r.stdout}\n${r.stderr}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
