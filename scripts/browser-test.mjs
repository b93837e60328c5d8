#!/usr/bin/env node
// Runs the browser tests in a real Chromium (Debian's /usr/bin/chromium, or $CHROMIUM_PATH)
// driven by playwright-core. Pages are served from http://127.0.0.1 (IndexedDB needs a real
// origin). Each test page sets `window.__done = { ok, details }` when finished.
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import { serve } from "./serve.mjs";

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(executablePath)) {
  console.error(`browser-test: no Chromium at ${executablePath}; install Debian's chromium package (.ci/run does)`);
  process.exit(1);
}

const PAGES = ["/js/test/browser/recall.html"];
const { server, url } = await serve({ port: 0 });
const browser = await chromium.launch({
  executablePath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic"],
});
let failed = 0;
try {
  for (const path of PAGES) {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    await page.goto(url + path);
    const done = await page.waitForFunction(() => window.__done, null, { timeout: 60_000 }).then((h) => h.jsonValue());
    const ok = done.ok && errors.length === 0;
    console.log(`${ok ? "ok" : "not ok"} - ${path}${ok ? "" : `\n  ${JSON.stringify(done.details)}\n  ${errors.join("\n  ")}`}`);
    if (!ok) failed++;
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
if (failed) process.exit(1);
console.log(`browser tests: ${PAGES.length} passed`);
