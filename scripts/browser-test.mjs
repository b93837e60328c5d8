#!/usr/bin/env node
// Runs the browser tests in a real Chromium (Debian's /usr/bin/chromium, or $CHROMIUM_PATH)
// driven by playwright-core. Pages are served from http://127.0.0.1 (IndexedDB needs a real
// origin). Each test page sets `window.__done = { ok, details }` when finished; with
// BROWSER_TEST_VERBOSE=1 the details of passing pages are printed too, and BROWSER_TEST_ONLY=text
// runs only the entries that mention text.
//
// A PAGES entry is a page path, or a scenario object for tests that need more than one page
// load (every scenario runs in a fresh browser context, so stores start empty):
//   { path, reloads: n }     after __done, reload the page n times, waiting for __done each time
//   { tabs: [path, ...] }    open the pages side by side in one context; once every page has set
//                            window.__ready, call window.__go() in all of them, then wait for all
//   { path, quotaBytes: n }  cap the origin's storage quota (CDP) while the page runs
//   { path, restart: path2 } run path in a persistent profile, SIGKILL the browser right after
//                            its __done, relaunch on the same profile and run path2
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { serve } from "./serve.mjs";

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(executablePath)) {
  console.error(`browser-test: no Chromium at ${executablePath}; install Debian's chromium package (.ci/run does)`);
  process.exit(1);
}

const PAGES = [
  "/js/test/browser/recall.html",
  "/js/test/browser/storage.html",
  { path: "/js/test/browser/storage-reload.html", reloads: 1 },
  { tabs: ["/js/test/browser/storage-tabs.html?tab=a&peer=b", "/js/test/browser/storage-tabs.html?tab=b&peer=a"] },
  { path: "/js/test/browser/storage-quota.html?quota=4194304", quotaBytes: 4 << 20 },
  { path: "/js/test/browser/storage-reload.html?phase=write", restart: "/js/test/browser/storage-reload.html?phase=read" },
  { path: "/js/test/browser/store-reload.html", reloads: 3 },
  { tabs: ["/js/test/browser/store-tabs.html?tab=alpha&peer=beta", "/js/test/browser/store-tabs.html?tab=beta&peer=alpha"] },
  "/js/test/browser/store-snapshot.html",
  "/js/test/browser/store-gone-writer.html",
  "/js/test/browser/store-dropped.html",
  { path: "/js/test/browser/worker.html", reloads: 1 },
];
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--disable-quic"];
const TIMEOUT_MS = 60_000;

const { server, url } = await serve({ port: 0 });
const browser = await chromium.launch({ executablePath, args: ARGS });

/** Opens a page that records uncaught errors and console errors. */
async function openPage(context) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  return { page, errors };
}

async function waitDone({ page, errors }, label) {
  const done = await page.waitForFunction(() => window.__done, null, { timeout: TIMEOUT_MS }).then((h) => h.jsonValue());
  return { ok: done.ok && errors.length === 0, label, details: done.details, errors: errors.splice(0) };
}

async function runPage(context, path) {
  const p = await openPage(context);
  await p.page.goto(url + path);
  return [await waitDone(p, path)];
}

async function runReloads(context, { path, reloads }) {
  const p = await openPage(context);
  await p.page.goto(url + path);
  const results = [await waitDone(p, path)];
  for (let i = 1; i <= reloads && results.every((r) => r.ok); i++) {
    await p.page.reload();
    results.push(await waitDone(p, `${path} after reload ${i}`));
  }
  return results;
}

async function runTabs(context, { tabs }) {
  const pages = await Promise.all(tabs.map(() => openPage(context)));
  await Promise.all(pages.map((p, i) => p.page.goto(url + tabs[i])));
  await Promise.all(pages.map((p) => p.page.waitForFunction(() => window.__ready || window.__done, null, { timeout: TIMEOUT_MS })));
  await Promise.all(pages.map((p) => p.page.evaluate(() => window.__go?.())));
  return Promise.all(pages.map((p, i) => waitDone(p, tabs[i])));
}

async function runQuota(context, { path, quotaBytes }) {
  const p = await openPage(context);
  const cdp = await context.newCDPSession(p.page);
  await cdp.send("Storage.overrideQuotaForOrigin", { origin: url, quotaSize: quotaBytes });
  try {
    await p.page.goto(url + path);
    return [await waitDone(p, `${path} (quota ${quotaBytes} bytes)`)];
  } finally {
    await cdp.send("Storage.overrideQuotaForOrigin", { origin: url }).catch(() => undefined);
  }
}

/** The browser process started with this profile (the one without --type=), found in /proc. */
function browserPid(profile) {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let args;
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      continue;
    }
    if (args.includes(`--user-data-dir=${profile}`) && !args.some((a) => a.startsWith("--type="))) return Number(entry);
  }
  return undefined;
}

async function runRestart({ path, restart }) {
  const profile = mkdtempSync(join(tmpdir(), "recallkit-chromium-"));
  try {
    const first = await chromium.launchPersistentContext(profile, { executablePath, args: ARGS });
    const p = await openPage(first);
    await p.page.goto(url + path);
    const results = [await waitDone(p, `${path} (then the browser is killed)`)];
    const pid = browserPid(profile);
    if (pid === undefined) throw new Error(`browser-test: cannot find the Chromium process of profile ${profile}`);
    const closed = new Promise((resolve) => first.once("close", resolve));
    process.kill(pid, "SIGKILL");
    await closed;
    if (!results[0].ok) return results;
    const second = await chromium.launchPersistentContext(profile, { executablePath, args: ARGS });
    try {
      const q = await openPage(second);
      await q.page.goto(url + restart);
      results.push(await waitDone(q, `${restart} after SIGKILL and relaunch`));
    } finally {
      await second.close();
    }
    return results;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

async function runEntry(entry) {
  if (typeof entry === "object" && entry.restart) return runRestart(entry);
  const context = await browser.newContext();
  try {
    if (typeof entry === "string") return await runPage(context, entry);
    if (entry.tabs) return await runTabs(context, entry);
    if (entry.quotaBytes) return await runQuota(context, entry);
    return await runReloads(context, entry);
  } finally {
    await context.close();
  }
}

let failed = 0;
let passed = 0;
try {
  // BROWSER_TEST_ONLY=text runs the entries whose JSON mentions text (while working on one).
  const only = process.env.BROWSER_TEST_ONLY;
  for (const entry of PAGES.filter((e) => only === undefined || JSON.stringify(e).includes(only))) {
    for (const r of await runEntry(entry)) {
      if (process.env.BROWSER_TEST_VERBOSE) console.log(r.details.join("\n"));
      console.log(`${r.ok ? "ok" : "not ok"} - ${r.label}${r.ok ? "" : `\n  ${JSON.stringify(r.details)}\n  ${r.errors.join("\n  ")}`}`);
      if (r.ok) passed++;
      else failed++;
    }
  }
} finally {
  await browser.close();
  server.close();
}
if (failed) process.exit(1);
console.log(`browser tests: ${passed} passed`);
