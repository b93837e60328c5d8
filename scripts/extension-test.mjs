#!/usr/bin/env node
// Tests examples/extension/ in headless Chromium (Debian's /usr/bin/chromium, or
// $CHROMIUM_PATH) through playwright-core: loads the MV3 extension unpacked in a persistent
// profile, then through an extension page (the popup, opened as a tab):
//   1. remembers through the popup's form and through chrome.runtime.sendMessage, recalls, and
//      checks that an error arrives as { error: { code, message } };
//   2. stops the service worker (DevTools protocol) and recalls again: the first message
//      wakes it, and the store opens from IndexedDB;
//   3. closes the browser, relaunches it on the same profile, and recalls again.
// Prints the wake-up time (first message after a stop or a relaunch → its reply), which
// includes starting the worker, loading the wasm and opening the store.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { copyExtensionPackage } from "./extension-copy.mjs";

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(executablePath)) {
  console.error(`extension-test: no Chromium at ${executablePath}; install Debian's chromium package (.ci/run does)`);
  process.exit(1);
}
const TIMEOUT_MS = 60_000;
const dir = copyExtensionPackage().replace(/[/\\]recallkit$/, "");

function launch(profile) {
  return chromium.launchPersistentContext(profile, {
    executablePath,
    headless: false, // the arguments below ask for the new headless mode, which runs extensions
    timeout: TIMEOUT_MS,
    args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", `--disable-extensions-except=${dir}`, `--load-extension=${dir}`],
  });
}

async function extensionId(context) {
  const worker = context.serviceWorkers()[0] ?? await context.waitForEvent("serviceworker", { timeout: TIMEOUT_MS });
  return new URL(worker.url()).host;
}

/** Opens the popup as a tab; records uncaught errors. */
async function openPopup(context, id) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`chrome-extension://${id}/popup.html`);
  return { page, errors };
}

/** Sends `message` from the page; resolves to the reply and the time to it. */
function send(page, message) {
  return page.evaluate(async (m) => {
    const t0 = performance.now();
    const reply = await chrome.runtime.sendMessage(m);
    return { reply, ms: performance.now() - t0 };
  }, message);
}

let failed = 0;
function check(condition, label, detail = "") {
  console.log(`${condition ? "ok" : "not ok"} - ${label}${condition || !detail ? "" : `\n  ${detail}`}`);
  if (!condition) failed++;
}

const profile = mkdtempSync(join(tmpdir(), "recallkit-extension-"));
const wakeUps = [];
try {
  let context = await launch(profile);
  const id = await extensionId(context);
  let { page, errors } = await openPopup(context, id);

  await page.fill("#text", "The staging database moved to Postgres 16 last Tuesday");
  await page.click("#remember button");
  await page.waitForFunction(() => document.getElementById("status").textContent.startsWith("remembered"), null, { timeout: TIMEOUT_MS });
  const remembered = await send(page, { type: "remember", text: "Lunch with Dana is on Thursday at noon" });
  check(typeof remembered.reply?.id === "string", "remember through sendMessage answers { id }", JSON.stringify(remembered.reply));
  await page.fill("#query", "which database does staging use?");
  await page.click("#recall button");
  await page.waitForFunction(() => !document.getElementById("stages").hidden, null, { timeout: TIMEOUT_MS });
  const shown = await page.$$eval("#results li", (items) => items.map((li) => li.textContent));
  const stageRows = await page.$$eval("#stages tbody tr", (rows) => rows.map((r) => r.textContent));
  check(shown[0]?.startsWith("The staging database moved to Postgres 16") && shown[0].includes("Sf"), "the popup remembers and recalls, naming the stage", JSON.stringify(shown));
  check(stageRows.some((r) => r.startsWith("Sf")), "the popup shows the stage breakdown", JSON.stringify(stageRows));
  const bad = await send(page, { type: "remember", text: "" });
  check(bad.reply?.error?.code === "invalid_argument" && typeof bad.reply.error.message === "string", "an error arrives as { error: { code, message } }", JSON.stringify(bad.reply));
  const unknown = await send(page, { type: "nope" });
  check(unknown.reply?.error?.code === "invalid_argument", "an unknown message type is invalid_argument", JSON.stringify(unknown.reply));
  check(errors.length === 0, "the popup raised no error", errors.join("\n"));

  // Stop the service worker; the next message starts it again and opens the store lazily.
  // A global set in the running worker tells whether the one that answers is a new one.
  await context.serviceWorkers()[0].evaluate(() => { globalThis.__beforeStop = true; });
  const cdp = await context.newCDPSession(page);
  let running = "";
  const statusIs = (want) => new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 10_000);
    const listen = (e) => {
      running = e.versions.find((v) => v.scriptURL.endsWith("/background.js"))?.runningStatus ?? running;
      if (running === want) {
        clearTimeout(timer);
        cdp.off("ServiceWorker.workerVersionUpdated", listen);
        resolve(true);
      }
    };
    cdp.on("ServiceWorker.workerVersionUpdated", listen);
  });
  const enabled = statusIs("running");
  await cdp.send("ServiceWorker.enable");
  await enabled;
  const stopped = statusIs("stopped");
  await cdp.send("ServiceWorker.stopAllWorkers");
  check(await stopped, "the service worker stopped (DevTools protocol ServiceWorker.stopAllWorkers)");
  await new Promise((resolve) => setTimeout(resolve, 500));
  check(running === "stopped", `the service worker is still stopped before the next message (${running})`);
  const afterStop = await send(page, { type: "recall", query: "when is lunch with Dana?", limit: 3 });
  check(afterStop.reply?.results?.[0]?.text === "Lunch with Dana is on Thursday at noon", "after the worker stopped, the first recall wakes it and finds the memory",
    JSON.stringify(afterStop.reply));
  wakeUps.push(["after a service worker stop", afterStop.ms]);
  const fresh = await Promise.all(context.serviceWorkers().map((w) => w.evaluate(() => globalThis.__beforeStop === undefined).catch(() => false)));
  check(fresh.includes(true), "the reply came from a newly started service worker");
  const warm = await send(page, { type: "recall", query: "when is lunch with Dana?", limit: 3 });
  wakeUps.push(["next recall, worker awake", warm.ms]);

  // Close the browser and relaunch it on the same profile.
  await context.close();
  context = await launch(profile);
  const again = await extensionId(context);
  check(again === id, "the relaunched browser loads the same extension");
  ({ page, errors } = await openPopup(context, again));
  const afterRelaunch = await send(page, { type: "recall", query: "which database does staging use?", limit: 3 });
  check(afterRelaunch.reply?.results?.[0]?.text === "The staging database moved to Postgres 16 last Tuesday", "after a browser relaunch, recall finds the memory",
    JSON.stringify(afterRelaunch.reply));
  wakeUps.push(["after a browser relaunch", afterRelaunch.ms]);
  check(errors.length === 0, "the popup raised no error after the relaunch", errors.join("\n"));
  await context.close();
} finally {
  rmSync(profile, { recursive: true, force: true });
}
for (const [when, ms] of wakeUps) console.log(`# first message → reply, ${when}: ${ms.toFixed(1)} ms`);
if (failed) process.exit(1);
console.log("extension tests: passed");
