#!/usr/bin/env node
// Drives the demo page (www/) in a real Chromium through playwright-core: the sample loads into
// IndexedDB, a sample query ranks the expected memory first, a score breakdown opens, memories
// are added, edited and forgotten (and survive a reload), notes, entities, relations, import
// and export work, a memory holding HTML runs nothing, embeddings go through a stub Ollama /
// OpenAI-compatible server on loopback (and an unreachable one), and screenshots at 1280×800
// and 375 px land in test-results/.
// Usage: node scripts/demo-test.mjs   (Chromium at /usr/bin/chromium or $CHROMIUM_PATH)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startStubEmbedder, unreachableUrl } from "../js/test/browser/demo-embedder.mjs";
import { serve } from "./serve.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = join(root, "test-results");
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(executablePath)) {
  console.error(`demo-test: no Chromium at ${executablePath}; install Debian's chromium package (.ci/run does)`);
  process.exit(1);
}
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--disable-quic"];
/** The sample's "today" (the day of the DevHarbour talk), so rankings and screenshots are reproducible. */
const NOW = "2026-11-15T12:00:00Z";
const TIMEOUT_MS = 30_000;
const XSS = '<img src=x onerror="window.__xss=1;alert(1)">';

mkdirSync(RESULTS, { recursive: true });
const { server, url } = await serve({ port: 0 });
const stub = await startStubEmbedder();
const browser = await chromium.launch({ executablePath, args: ARGS });

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok - ${name}`);
  } catch (e) {
    failed++;
    console.log(`not ok - ${name}\n  ${String(e?.stack ?? e).split("\n").slice(0, 6).join("\n  ")}`);
  }
}
function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** A page with dialogs and errors recorded; `expectedErrors` filters console errors we cause on purpose. */
async function openDemo(context) {
  const page = await context.newPage();
  const log = { dialogs: [], errors: [], expectedErrors: [] };
  page.on("dialog", (d) => {
    log.dialogs.push(d.message());
    d.dismiss().catch(() => undefined);
  });
  page.on("pageerror", (e) => log.errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const text = m.text();
    if (!log.expectedErrors.some((re) => re.test(text))) log.errors.push(text);
  });
  await page.goto(`${url}/?now=${NOW}`);
  await ready(page);
  return { page, log };
}

async function ready(page) {
  await page.waitForFunction(() => window.__ready === true, null, { timeout: TIMEOUT_MS });
}

/** Runs a recall from the search box and waits for its status line. */
async function search(page, query, { limit } = {}) {
  if (limit !== undefined) await page.fill("#f-limit", String(limit));
  await page.fill("#q", query);
  const before = await page.textContent("#results-status");
  await page.press("#q", "Enter");
  await page.waitForFunction((prev) => {
    const s = document.getElementById("results-status").textContent;
    return s !== prev && !document.getElementById("results").hasAttribute("aria-busy");
  }, before, { timeout: TIMEOUT_MS }).catch(() => undefined);
  await page.waitForFunction(() => !document.getElementById("results").hasAttribute("aria-busy"), null, { timeout: TIMEOUT_MS });
}

const resultIds = (page) => page.$$eval("#results > li", (items) => items.map((li) => li.dataset.id));
const resultTexts = (page) => page.$$eval("#results > li .result-text", (ps) => ps.map((p) => p.textContent));
const stageRow = (page, name) => page.$eval(`#stages tr[data-stage=${name}]`, (tr) => ({ skipped: tr.classList.contains("skipped"), text: tr.textContent }));
/** Opens the collapsible panel holding `selector`, if it is closed (a reload closes them all). */
const openPanelOf = (page, selector) => page.$eval(selector, (el) => { const panel = el.closest("details"); if (panel) panel.open = true; });
const opStatus = async (page, pattern) => {
  await page.waitForFunction((re) => new RegExp(re).test(document.getElementById("op-status").textContent), pattern.source, { timeout: TIMEOUT_MS });
  return page.textContent("#op-status");
};

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const { page, log } = await openDemo(context);

  await check("the sample store loads into IndexedDB on first visit", async () => {
    const info = await page.textContent("#store-info");
    assert(/^330 memories, 49 notes, 51 entities, 64 relations · stored in this browser \(IndexedDB/.test(info), info);
    assert(await page.evaluate(() => window.__demo.durable), "the store is durable");
  });

  await check("the default query (abmind's) finds the project's database memories", async () => {
    assert((await page.inputValue("#q")) === "what database does the project use?", "default query");
    const ids = await resultIds(page);
    for (const id of ["mem-onboarding-db", "mem-db-decision"]) assert(ids.includes(id), `${id} in ${ids.join(", ")}`);
    assert(/^10 results for “what database does the project use\?” in [\d.]+ ms\.$/.test(await page.textContent("#results-status")), "status line");
  });

  await check("a typed sample query ranks the expected memory first", async () => {
    await search(page, "Miso vaccination");
    const ids = await resultIds(page);
    assert(ids[0] === "mem-miso-vet", `first result: ${ids.join(", ")}`);
    const badge = await page.textContent("#results > li:first-child .badge");
    assert(/^Sf:/.test(badge), `stage badge ${badge}`);
    const shown = await page.textContent("#results > li:first-child .score");
    assert(/^score (0\.\d{3}|1\.000)$/.test(shown), `score shown: ${shown}`);
  });

  await check("the stage panel shows hits, ms and why a stage was skipped", async () => {
    const names = await page.$$eval("#stages tbody tr", (rows) => rows.map((r) => r.dataset.stage));
    assert(names.join() === "Sf,Se,Ss,S6,S8", names.join());
    const sf = await stageRow(page, "Sf");
    assert(!sf.skipped && /\d+ hits?[\d.]+ ms/.test(sf.text), sf.text);
    const se = await stageRow(page, "Se");
    assert(se.skipped && /skipped — (Sf already filled the limit short_circuit|no embedder is configured no_embedder)$/.test(se.text), se.text);
    // Every skip reason has words (Ss said "not_ranked not_ranked").
    const ss = await stageRow(page, "Ss");
    assert(ss.skipped && /skipped — the ranking gives signatures no weight not_ranked$/.test(ss.text), ss.text);
    assert((await page.$$("#stages .bar-hits .fill")).length >= 3, "hit bars drawn");
  });

  await check("a score breakdown opens with a bar per component", async () => {
    await page.click("#results > li:first-child details.breakdown-box > summary");
    assert(await page.$eval("#results > li:first-child details.breakdown-box", (d) => d.open), "details open");
    const rows = await page.$$eval("#results > li:first-child .breakdown .comp", (cs) => cs.map((c) => ({
      name: c.querySelector(".comp-name").textContent, width: c.querySelector(".fill")?.style.width, value: c.querySelector(".num").textContent,
    })));
    const names = rows.map((r) => r.name);
    for (const n of ["bm25", "lexical", "relevance", "recency", "prior", "rankAfterMmr", "score"]) assert(names.includes(n), `component ${n} in ${names}`);
    const bm25 = rows.find((r) => r.name === "bm25");
    assert(parseFloat(bm25.width) > 0, `bm25 bar width ${bm25.width}`);
  });

  await check("the context panel shows the results as a prompt block within the budget slider's tokens", async () => {
    await search(page, "what database does the project use?");
    await page.waitForFunction(() => document.getElementById("ctx-block").textContent !== "", null, { timeout: TIMEOUT_MS });
    const block = await page.textContent("#ctx-block");
    assert(block.startsWith("Remembered context."), block.slice(0, 80));
    assert(/^\[\S[^\]]*\] "/m.test(block) && /^Sources: \[1\] /m.test(block), block);
    const status = await page.textContent("#ctx-status");
    const [, tokens, budget] = status.match(/^(\d+) of (\d+) tokens/) ?? [];
    assert(Number(tokens) <= Number(budget) && Number(budget) === 300, status);
    await page.$eval("#ctx-budget", (el) => { el.value = "40"; el.dispatchEvent(new Event("input")); });
    const small = await page.textContent("#ctx-status");
    assert(/^\d+ of 40 tokens · [12] of 10 results included/.test(small), small);
    assert((await page.textContent("#ctx-block")).length <= 40 * 4, "a smaller block");
    await page.$eval("#ctx-budget", (el) => { el.value = "300"; el.dispatchEvent(new Event("input")); });
  });

  await check("the resolved question shows above the results: time words with their window, and nothing for a plain query", async () => {
    await search(page, "database decisions last month");
    const line = await page.textContent("#resolved-query");
    assert(!(await page.$eval("#resolved-query", (p) => p.hidden)), "shown");
    assert(line === 'Searched as "database decisions" ("last month" → 2026-10-01 to 2026-10-31)', line);
    await search(page, "database");
    assert(await page.$eval("#resolved-query", (p) => p.hidden), "hidden for a query with nothing read out of it");
  });

  await check("a tag chip filters by its tag; time words and the sort selector apply (AutoMem's options)", async () => {
    await search(page, "database");
    const chip = await page.$("#results > li .tags .tag-chip");
    assert(chip, "results show their tags as buttons");
    const tag = await chip.textContent();
    const settled = () => page.waitForFunction(() => !document.getElementById("results").hasAttribute("aria-busy"), null, { timeout: TIMEOUT_MS });
    await chip.click();
    await settled();
    assert((await page.inputValue("#f-tags")) === tag, "the chip fills the tag filter");
    // The tag filter keeps memories; notes and relations carry no tags and are not filtered by them.
    const tagLists = await page.$$eval("#results > li.kind-memory", (items) => items.map((li) => [...li.querySelectorAll(".tags li")].map((x) => x.textContent.toLowerCase())));
    assert(tagLists.length > 0 && tagLists.every((ts) => ts.some((t) => t === tag.toLowerCase() || t.startsWith(`${tag.toLowerCase()}:`))), `every result holds ${tag}`);
    await page.fill("#f-tags", "");
    await page.selectOption("#f-sort", "time_asc");
    await page.fill("#f-time", "this year");
    await page.press("#f-time", "Enter").catch(() => undefined);
    await search(page, "database");
    const status = await page.textContent("#results-status");
    assert(/results? for|Nothing found/.test(status) && !/invalid|error/i.test(status), `a recall with time words and a sort answers: ${status}`);
    await page.fill("#f-time", "");
    await page.selectOption("#f-sort", "score");
  });

  await check("screenshots at 1280×800", async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(RESULTS, "demo-desktop.png") });
    await page.screenshot({ path: join(RESULTS, "demo-desktop-full.png"), fullPage: true });
  });

  await check("add a memory and find it", async () => {
    await page.fill("#m-text", "Parking spot at the new Tidepool office: number 42 on level -1, next to the bike racks.");
    await page.fill("#m-topic", "work");
    await page.fill("#m-tags", "office, parking");
    await page.selectOption("#m-type", "fact");
    await page.click("#m-submit");
    await opStatus(page, /^Remembered “Parking spot/);
    await search(page, "parking spot next to the bike racks");
    const texts = await resultTexts(page);
    assert(texts.slice(0, 3).some((t) => t.startsWith("Parking spot at the new Tidepool office")), `top 3: ${texts.slice(0, 3)}`);
    assert(/^331 memories/.test(await page.textContent("#store-info")), "count updated");
  });

  await check("a memory holding HTML is shown as text and runs nothing", async () => {
    await page.fill("#m-text", `Weird note pasted from a chat: ${XSS}`);
    await page.click("#m-submit");
    await opStatus(page, /^Remembered/);
    await search(page, "weird note pasted from a chat");
    const texts = await resultTexts(page);
    assert(texts.includes(`Weird note pasted from a chat: ${XSS}`), `literal text in ${JSON.stringify(texts)}`);
    assert((await page.$$("#results img, #op-status img")).length === 0, "no <img> element was created");
    await page.waitForTimeout(300);
    assert(log.dialogs.length === 0, `dialogs: ${log.dialogs}`);
    assert((await page.evaluate(() => window.__xss)) === undefined, "the onerror handler never ran");
  });

  await check("after a reload the added memories are still there (IndexedDB)", async () => {
    await page.reload();
    await ready(page);
    assert(/^332 memories/.test(await page.textContent("#store-info")), await page.textContent("#store-info"));
    await search(page, "parking spot next to the bike racks");
    assert((await resultTexts(page)).slice(0, 3).some((t) => t.startsWith("Parking spot at the new Tidepool office")), "found after reload");
    await search(page, "weird note pasted from a chat");
    assert((await resultTexts(page)).includes(`Weird note pasted from a chat: ${XSS}`), "XSS memory still literal after reload");
    assert(log.dialogs.length === 0 && (await page.evaluate(() => window.__xss)) === undefined, "still nothing ran");
  });

  await check("edit a memory", async () => {
    await search(page, "parking spot next to the bike racks");
    const item = page.locator("#results > li", { hasText: "Parking spot at the new Tidepool office" }).first();
    // A time with seconds, which the form's date field (minutes) does not show.
    const id = await item.getAttribute("data-id");
    const createdAt = await page.evaluate(async (id) => {
      const at = (await window.__demo.store.get(id)).createdAt - 60_000 + 12_345;
      await window.__demo.store.update(id, { createdAt: at });
      return at;
    }, id);
    await item.locator(".actions button", { hasText: "Edit" }).click();
    assert((await page.evaluate(() => document.activeElement.id)) === "m-text", "focus moves to the text");
    assert(/^Edit memory /.test(await page.textContent("#memory-form-title")), "form in edit mode");
    await page.fill("#m-text", "Parking spot at the new Tidepool office moved to number 17 on level -2.");
    await page.click("#m-submit");
    await opStatus(page, /^Saved memory /);
    await search(page, "parking spot moved to number 17");
    const texts = await resultTexts(page);
    assert(texts.includes("Parking spot at the new Tidepool office moved to number 17 on level -2."), `edited text in ${texts}`);
    assert(!texts.some((t) => t.includes("number 42")), "the old text is gone");
    assert((await page.textContent("#m-submit")) === "Remember", "form back to adding");
    const kept = await page.evaluate(async (id) => (await window.__demo.store.get(id)).createdAt, id);
    assert(kept === createdAt, `an edit that leaves the date alone keeps its seconds: ${kept} for ${createdAt}`);
  });

  await check("forget a memory (with an inline confirmation, no dialog)", async () => {
    const item = page.locator("#results > li", { hasText: "moved to number 17" }).first();
    const id = await item.getAttribute("data-id");
    await item.locator(".actions button", { hasText: "Forget" }).click();
    assert((await page.evaluate(() => document.activeElement.textContent)) === "Yes, forget it", "focus on the confirmation");
    await page.click(`#results > li[data-id="${id}"] .actions button:has-text('Yes, forget it')`);
    await opStatus(page, /^Forgot “Parking spot/);
    assert(!(await resultIds(page)).includes(id), "gone from the results");
    assert(log.dialogs.length === 0, "no dialog");
  });

  await check("add a note that stage S6 finds", async () => {
    await page.click("#panel-note > summary");
    await page.selectOption("#n-period", "weekly");
    await page.fill("#n-start", "2026-11-16");
    await page.fill("#n-text", "# Week of 16 November\n\nPlanned the zeppelin museum visit with Tomás.\n\nNothing else.");
    await page.click("#note-form button[type=submit]");
    await opStatus(page, /^Added the weekly note of 2026-11-16/);
    await search(page, "zeppelin museum");
    const hit = await page.$eval("#results > li", (li) => ({ stage: li.dataset.stage, text: li.querySelector(".result-text").textContent }));
    assert(hit.stage === "S6:weekly" && hit.text === "Planned the zeppelin museum visit with Tomás.", JSON.stringify(hit));
  });

  await check("add an entity and a relation that stage S8 finds", async () => {
    await page.click("#panel-graph > summary");
    await page.fill("#e-name", "Zeppelin Museum");
    await page.selectOption("#e-type", "place");
    await page.fill("#e-aliases", "Zeppelinmuseum");
    await page.click("#entity-form button[type=submit]");
    await opStatus(page, /^Added the entity “Zeppelin Museum”/);
    await page.fill("#r-from", "Tomás Reis");
    await page.fill("#r-relation", "wants_to_visit");
    await page.fill("#r-to", "Zeppelin Museum");
    await page.fill("#r-strength", "0.7");
    await page.click("#relation-form button[type=submit]");
    await opStatus(page, /^Related tomas reis —\[wants_to_visit\]→ zeppelin museum/);
    await search(page, "Zeppelinmuseum");
    const edges = await page.$$eval("#results > li.kind-edge .result-text", (ps) => ps.map((p) => p.textContent));
    assert(edges.includes("Tomás Reis —[wants_to_visit]→ Zeppelin Museum"), JSON.stringify(edges));
  });

  await check("export JSON Lines, and import a JSON Lines file", async () => {
    await page.click("#panel-data > summary");
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-button")]);
    const file = join(RESULTS, "demo-export.jsonl");
    await download.saveAs(file);
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert(lines.filter((r) => r.kind === "memory").length === 331, `memories in the export: ${lines.filter((r) => r.kind === "memory").length}`);
    assert(lines.some((r) => r.kind === "note" && r.data.text.includes("zeppelin")), "the new note is exported");
    await opStatus(page, /^Exported \d+ records/);
    const plain = join(RESULTS, "demo-import.jsonl");
    writeFileSync(plain, '{"text":"Imported memory: the ferry to Afurada leaves every 15 minutes","topic":"travel"}\n{"text":"Imported memory: Marek likes green tea","topic":"people"}\n');
    await page.setInputFiles("#import-file", plain);
    await opStatus(page, /^Imported demo-import\.jsonl: 2 memories\./);
    await search(page, "ferry to Afurada");
    assert((await resultTexts(page)).includes("Imported memory: the ferry to Afurada leaves every 15 minutes"), "imported memory found");
    await page.setInputFiles("#import-file", file);
    await opStatus(page, /^Imported demo-export\.jsonl/);
    assert(/^333 memories/.test(await page.textContent("#store-info")), "re-importing the export replaces, adds nothing");
  });

  await check("an Ollama embedder (stub on loopback) gives stage Se hits", async () => {
    await page.click("#panel-embed > summary");
    await page.selectOption("#embedder", "ollama");
    await page.fill("#embed-url", stub.url);
    await page.fill("#embed-model", "nomic-embed-text");
    await page.click("#embed-form button[type=submit]");
    await page.waitForFunction(() => /^Using Ollama/.test(document.getElementById("embed-status").textContent), null, { timeout: TIMEOUT_MS });
    assert(/64-dimension vectors/.test(await page.textContent("#embed-status")), await page.textContent("#embed-status"));
    await page.click("#embed-all");
    await page.waitForFunction(() => /^Embedded \d+ memories/.test(document.getElementById("embed-status").textContent), null, { timeout: 60_000 });
    assert(stub.requests.some((r) => r.path === "/api/embed" && r.count > 1), "the page called the stub");
    await page.selectOption("#f-mode", "semantic");
    await search(page, "the replica ran out of disk space");
    const se = await stageRow(page, "Se");
    assert(!se.skipped && !/^Se\D*0 hits/.test(se.text), se.text);
    assert((await page.$$eval("#results > li", (lis) => lis.filter((li) => li.dataset.stage === "Se").length)) > 0, "Se results");
    assert(/embeddings of 64 dimensions/.test(await page.textContent("#store-info")), "dimension shown");
  });

  await check("an OpenAI-compatible embedder sends the key", async () => {
    await page.selectOption("#embedder", "openai");
    await page.fill("#embed-url", `${stub.url}/v1`);
    await page.fill("#embed-model", "stub-64");
    await page.fill("#embed-key", "sk-demo");
    await page.click("#embed-form button[type=submit]");
    await page.waitForFunction(() => /^Using OpenAI-compatible/.test(document.getElementById("embed-status").textContent), null, { timeout: TIMEOUT_MS });
    assert(stub.requests.at(-1).authorization === "Bearer sk-demo", JSON.stringify(stub.requests.at(-1)));
    await search(page, "disk space on the replica");
    assert(!(await stageRow(page, "Se")).skipped, "Se ran");
  });

  await check("an unreachable embedder: the page says so, recall works with Se skipped (embed_failed)", async () => {
    log.expectedErrors.push(/ERR_CONNECTION_REFUSED|Failed to load resource/);
    await page.selectOption("#embedder", "ollama");
    await page.fill("#embed-url", await unreachableUrl());
    await page.click("#embed-form button[type=submit]");
    await page.waitForFunction(() => /is not reachable/.test(document.getElementById("embed-status").textContent), null, { timeout: TIMEOUT_MS });
    await page.selectOption("#f-mode", "hybrid");
    await search(page, "Miso vaccination", { limit: 50 });
    const se = await stageRow(page, "Se");
    assert(se.skipped && /embed_failed/.test(se.text), se.text);
    assert((await resultIds(page))[0] === "mem-miso-vet", "recall still answers");
    assert(/The embedder Ollama .* is unreachable/.test(await page.textContent("#results-status")), await page.textContent("#results-status"));
    await page.fill("#m-text", "This memory cannot be embedded right now");
    await page.click("#m-submit");
    const msg = await opStatus(page, /^Could not remember it/);
    assert(/Nothing was stored/.test(msg), msg);
  });

  await check("an embedder of another dimension is explained, with a reset suggested", async () => {
    await page.fill("#embed-url", stub.url);
    await page.fill("#embed-model", "stub-32");
    await page.click("#embed-form button[type=submit]");
    await page.waitForFunction(() => /holds 64-dimension vectors/.test(document.getElementById("embed-status").textContent), null, { timeout: TIMEOUT_MS });
    assert(/returns 32-dimension vectors.*reset to the sample/.test(await page.textContent("#embed-status")), await page.textContent("#embed-status"));
    await search(page, "Miso vaccination", { limit: 50 });
    assert(/embed_failed/.test((await stageRow(page, "Se")).text), "Se skipped");
    assert(/holds 64-dimension vectors/.test(await page.textContent("#results-status")), await page.textContent("#results-status"));
    // The previous check left a "Could not remember it" status: clear it, so that the wait
    // below sees this attempt's message, not that one (it raced and failed under load).
    await page.evaluate(() => { document.getElementById("op-status").textContent = ""; });
    await page.click("#m-submit");
    assert(/dimension/.test(await opStatus(page, /^Could not remember it/)), "remember explains the dimension");
  });

  await check("the conversation lane finds an earlier turn, apart from the recalls", async () => {
    await page.click("#panel-lane > summary");
    for (const [role, text] of [["user", "how do I rotate the staging TLS certificate?"], ["assistant", "run certbot renew on the staging proxy"], ["user", "thanks, and what is for lunch?"]]) {
      await page.selectOption("#lane-role", role);
      await page.fill("#lane-text", text);
      await page.click("#lane-form button[type=submit]");
      await page.waitForFunction((t) => document.getElementById("lane-text").value === "" && /^Added the/.test(document.getElementById("lane-status").textContent), text, { timeout: TIMEOUT_MS });
    }
    const chat = await page.$$eval("#lane-chat li", (items) => items.map((li) => `${li.className}: ${li.textContent}`));
    const expected = ["user: how do I rotate the staging TLS certificate?", "assistant: run certbot renew on the staging proxy", "user: thanks, and what is for lunch?"];
    assert(JSON.stringify(chat.slice(-3)) === JSON.stringify(expected), `the chat shows the turns in order: ${JSON.stringify(chat)}`);
    await page.fill("#lane-query", "staging certificate renewal");
    await page.fill("#lane-last", "1");
    await page.click("#lane-ask button[type=submit]");
    await page.waitForFunction(() => document.getElementById("lane-block").textContent !== "", null, { timeout: TIMEOUT_MS });
    const block = await page.textContent("#lane-block");
    assert(block.startsWith("Relevant earlier in this conversation"), block);
    assert(block.includes('- User: "how do I rotate the staging TLS certificate?"'), block);
    assert(!block.includes("lunch"), "the last turn is left out");
    await page.waitForSelector("#lane-chat li.recalled", { timeout: TIMEOUT_MS });
    const recalled = await page.$$eval("#lane-chat li.recalled", (items) => items.map((li) => li.textContent));
    assert(recalled.includes("how do I rotate the staging TLS certificate?") && !recalled.some((t) => t.includes("lunch")), `recalled turns marked in the chat: ${recalled}`);
    await search(page, "staging TLS certificate certbot");
    assert(!(await resultTexts(page)).some((t) => t.includes("certbot renew on the staging proxy")), "turns stay out of recalls");
  });

  await check("reset to the sample", async () => {
    await page.selectOption("#embedder", "none");
    await page.click("#embed-form button[type=submit]");
    await page.waitForFunction(() => /^No embedder/.test(document.getElementById("embed-status").textContent), null, { timeout: TIMEOUT_MS });
    await page.click("#reset-button");
    await page.click("#reset-yes");
    await opStatus(page, /^The store holds the sample again/);
    assert(/^330 memories, 49 notes, 51 entities, 64 relations/.test(await page.textContent("#store-info")), await page.textContent("#store-info"));
    await page.reload();
    await ready(page);
    assert(/^330 memories/.test(await page.textContent("#store-info")), "still the sample after a reload");
    assert((await resultIds(page)).includes("mem-onboarding-db"), "the default query finds the sample again");
  });

  await check("a reset in another tab: this tab opens the store again instead of answering from the deleted one", async () => {
    const other = await openDemo(context);
    await other.page.fill("#m-text", "Only the other tab wrote this, before its reset");
    await other.page.click("#m-submit");
    await opStatus(other.page, /^Remembered/);
    await search(page, "Only the other tab wrote this");
    assert((await resultTexts(page))[0] === "Only the other tab wrote this, before its reset", "this tab sees the other's memory");
    await openPanelOf(other.page, "#reset-button");
    await other.page.click("#reset-button");
    await other.page.click("#reset-yes");
    await opStatus(other.page, /^The store holds the sample again/);
    await search(page, "Only the other tab wrote this");
    assert(/^Another tab reset the store/.test(await page.textContent("#op-status")), await page.textContent("#op-status"));
    assert(!(await resultTexts(page)).includes("Only the other tab wrote this, before its reset"), "the deleted memory is gone here too");
    await page.waitForFunction(() => /^330 memories/.test(document.getElementById("store-info").textContent), null, { timeout: TIMEOUT_MS });
    assert(other.log.errors.length === 0, other.log.errors.join("\n"));
    await other.page.close();
  });

  await check("in this browser (transformers.js): offline, the page says where the library and the model come from", async () => {
    // The CDN cannot be reached from here: every request to it fails, as it does offline.
    await page.route("https://cdn.jsdelivr.net/**", (route) => route.abort("internetdisconnected"));
    log.expectedErrors.push(/ERR_INTERNET_DISCONNECTED|Failed to load resource|Failed to fetch dynamically imported module/);
    await openPanelOf(page, "#embedder");
    await page.selectOption("#embedder", "browser");
    assert(await page.isVisible("#embed-form p[data-for=browser]"), "the hint on where the model comes from is shown");
    assert(/cdn\.jsdelivr\.net.*huggingface\.co/s.test(await page.textContent("#embed-form p[data-for=browser]")), "the hint names both sources");
    await page.click("#embed-form button[type=submit]");
    await page.waitForFunction(() => /is not reachable/.test(document.getElementById("embed-status").textContent), null, { timeout: TIMEOUT_MS });
    const status = await page.textContent("#embed-status");
    assert(/^this browser \(transformers\.js, Xenova\/all-MiniLM-L6-v2\) is not reachable: .*transformers\.js could not be loaded from cdn\.jsdelivr\.net.*huggingface\.co/s.test(status), status);
    await page.unroute("https://cdn.jsdelivr.net/**");
    await page.selectOption("#embedder", "none");
    await page.click("#embed-form button[type=submit]");
    await page.waitForFunction(() => /^No embedder/.test(document.getElementById("embed-status").textContent), null, { timeout: TIMEOUT_MS });
  });

  await check("in this browser (transformers.js stand-in at the CDN address): the bar shows the model download, stage Se answers", async () => {
    // A module in transformers.js's shape (pipeline with progress events, mean-pooled
    // normalised output) served for the CDN address: the real library and model need the
    // internet. Its vectors hash words, so texts sharing words are close.
    const stand_in = `export async function pipeline(task, model, { progress_callback } = {}) {
      if (task !== "feature-extraction") throw new Error("unexpected task " + task);
      for (const progress of [0, 40, 80, 100]) {
        progress_callback?.({ status: "progress", file: "onnx/model_quantized.onnx", progress });
        await new Promise((r) => setTimeout(r, 200));
      }
      return async (texts, options) => {
        if (options.pooling !== "mean" || options.normalize !== true) throw new Error("unexpected options");
        const dims = 384, data = new Float32Array(texts.length * dims);
        texts.forEach((text, t) => {
          for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
            let h = 2166136261;
            for (const c of word) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
            data[t * dims + ((h >>> 0) % dims)] += 1;
          }
          let norm = 0;
          for (let i = 0; i < dims; i++) norm += data[t * dims + i] ** 2;
          for (let i = 0; i < dims; i++) data[t * dims + i] /= Math.sqrt(norm) || 1;
        });
        return { data, dims: [texts.length, dims] };
      };
    }`;
    await page.route("https://cdn.jsdelivr.net/**", (route) => route.fulfill({ status: 200, contentType: "text/javascript", headers: { "access-control-allow-origin": "*" }, body: stand_in }));
    // A failed import() stays failed for the document's life: a reload starts a new one.
    await page.reload();
    await ready(page);
    await page.evaluate(() => {
      window.__embedStatuses = [];
      const bar = document.getElementById("embed-progress");
      new MutationObserver(() => window.__embedStatuses.push({ text: document.getElementById("embed-status").textContent, bar: !bar.hidden }))
        .observe(document.getElementById("embed-status"), { childList: true, characterData: true, subtree: true });
    });
    await openPanelOf(page, "#embedder");
    await page.selectOption("#embedder", "browser");
    await page.click("#embed-form button[type=submit]");
    await page.waitForFunction(() => /^Using this browser/.test(document.getElementById("embed-status").textContent), null, { timeout: TIMEOUT_MS });
    assert(/^Using this browser \(transformers\.js, Xenova\/all-MiniLM-L6-v2\): 384-dimension vectors/.test(await page.textContent("#embed-status")), await page.textContent("#embed-status"));
    const statuses = await page.evaluate(() => window.__embedStatuses);
    assert(statuses.some((s) => /^Downloading onnx\/model_quantized\.onnx from huggingface\.co: 40 %$/.test(s.text) && s.bar), `download progress shown with the bar: ${JSON.stringify(statuses)}`);
    assert(await page.isHidden("#embed-progress"), "the bar is hidden once the model is loaded");
    assert((await page.textContent("#embed-badge")) === "in this browser", await page.textContent("#embed-badge"));
    await page.fill("#m-text", "The greenhouse tomatoes need watering every evening");
    await page.click("#m-submit");
    await opStatus(page, /^Remembered/);
    await search(page, "greenhouse tomatoes watering");
    const se = await stageRow(page, "Se");
    assert(!se.skipped, `Se ran: ${se.text}`);
    assert((await resultTexts(page)).includes("The greenhouse tomatoes need watering every evening"), "the new memory is found");
    // Back to the sample without an embedder, for the checks that follow.
    await page.selectOption("#embedder", "none");
    await page.click("#embed-form button[type=submit]");
    await page.waitForFunction(() => /^No embedder/.test(document.getElementById("embed-status").textContent), null, { timeout: TIMEOUT_MS });
    await openPanelOf(page, "#reset-button");
    await page.click("#reset-button");
    await page.click("#reset-yes");
    await opStatus(page, /^The store holds the sample again/);
    await page.unroute("https://cdn.jsdelivr.net/**");
    await page.reload();
    await ready(page);
  });

  await check("keyboard: labels on every control, Enter searches, focus is visible", async () => {
    const unlabeled = await page.$$eval("input, select, textarea", (els) => els.filter((el) => el.type !== "hidden" && el.labels.length === 0 && !el.getAttribute("aria-label")).map((el) => el.id || el.name));
    assert(unlabeled.length === 0, `unlabeled: ${unlabeled}`);
    await page.keyboard.press("Tab");
    assert((await page.evaluate(() => document.activeElement.className)) === "skip-link", "the skip link comes first");
    await page.keyboard.press("Tab");
    assert((await page.evaluate(() => document.activeElement.id)) === "q", "then the search box");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("Bruno birthday gift");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => /“Bruno birthday gift”/.test(document.getElementById("results-status").textContent), null, { timeout: TIMEOUT_MS });
    assert((await resultIds(page)).includes("mem-bruno-gift"), `results: ${await resultIds(page)}`);
    assert((await page.getAttribute("#results-status", "aria-live")) === "polite", "results announced");
    const outline = await page.$eval("#q", (el) => getComputedStyle(el).outlineStyle);
    assert(outline !== "none", `focus outline ${outline}`);
  });

  await check("no page errors and no dialogs on the desktop page", async () => {
    assert(log.errors.length === 0, log.errors.join("\n"));
    assert(log.dialogs.length === 0, log.dialogs.join("\n"));
  });
  await context.close();

  const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const mobile = await openDemo(phone);
  await check("375 px wide: the page fits, searches and shows a breakdown", async () => {
    const m = mobile.page;
    const width = await m.evaluate(() => document.documentElement.scrollWidth);
    assert(width <= 375, `horizontal overflow: ${width}px`);
    await search(m, "Miso vaccination");
    assert((await resultIds(m))[0] === "mem-miso-vet", "first result");
    await m.click("#results > li:first-child details.breakdown-box > summary");
    assert((await m.evaluate(() => document.documentElement.scrollWidth)) <= 375, "no overflow with the breakdown open");
    await m.evaluate(() => window.scrollTo(0, 0));
    await m.screenshot({ path: join(RESULTS, "demo-mobile-top.png") });
    await m.locator("#results > li:first-child details.breakdown-box").scrollIntoViewIfNeeded();
    await m.screenshot({ path: join(RESULTS, "demo-mobile.png") });
    await m.screenshot({ path: join(RESULTS, "demo-mobile-full.png"), fullPage: true });
    assert(mobile.log.errors.length === 0 && mobile.log.dialogs.length === 0, mobile.log.errors.join("\n"));
  });
  await phone.close();
} finally {
  await browser.close();
  await stub.close();
  server.close();
}

console.log(`demo tests: ${passed} passed, ${failed} failed; screenshots in test-results/`);
if (failed) process.exit(1);
