// The recallkit demo page: search with filters, results with score breakdowns, the stage
// panel, and forms that change the store. No framework and no bundler: the page imports the
// built package from /js/dist. URL parameter `now` (an ISO date) fixes the demo's clock, for
// reproducible screenshots and tests.
import { clearStore, deleteDatabase, exportText, importText, loadSample, needsSample, openStore } from "./data.js";
import { EMBEDDER_DEFAULTS, describeEmbedder, makeEmbedder, onModelProgress } from "./embedders.js";
import { SKIP_REASONS, h, renderHit, renderStages, say } from "./ui.js";
import { describeQuery, formatContext, renderRecall } from "/js/dist/index.js";

const $ = (id) => document.getElementById(id);
const DAY_MS = 86_400_000;
const EMBEDDER_KEY = "recallkit-demo:embedder";
const API_KEY_KEY = "recallkit-demo:embed-key";
const EMBED_BATCH = 32;

const fixedNow = Date.parse(new URLSearchParams(location.search).get("now") ?? "");
const clock = Number.isFinite(fixedNow) ? () => fixedNow : undefined;
const now = () => (clock ? clock() : Date.now());

const state = {
  store: undefined,
  durable: false,
  config: loadEmbedderConfig(),
  embed: undefined,
  storageProblem: undefined,
  editing: undefined,
  /** The createdAt of the memory being edited (the date field shows only its minutes). */
  editedDate: undefined,
  recallSeq: 0,
  /** The last recall's result, which the context panel formats. */
  lastResult: undefined,
};
// For tests and the console: the live store and what kind it is.
window.__demo = {
  get store() { return state.store; },
  get durable() { return state.durable; },
  get embedder() { return state.config.kind; },
};

// ── helpers ───────────────────────────────────────────────────────────────────────────────

function messageOf(e) {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Another tab reset the store (deleted its database), so this handle answers every call with
 * `closed`: open the store again (it holds what that tab has written since) and say so.
 * Returns whether it did.
 */
async function reopenAfterReset(e) {
  if (e?.code !== "closed" || !/was deleted/.test(e.message)) return false;
  await open(state.config);
  await refreshInfo();
  say($("op-status"), "Another tab reset the store: this page opened it again.", "info");
  return true;
}

function short(text, n = 60) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/** Runs `task(onProgress)` with a <progress> element shown. */
async function withProgress(bar, task) {
  bar.hidden = false;
  bar.value = 0;
  try {
    return await task((done, total) => {
      bar.max = Math.max(1, total);
      bar.value = done;
    });
  } finally {
    bar.hidden = true;
  }
}

/** Disables a form's buttons while `task` runs. */
async function busy(form, task) {
  const buttons = [...form.querySelectorAll("button")];
  buttons.forEach((b) => { b.disabled = true; });
  try {
    return await task();
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}

const splitList = (value) => value.split(",").map((s) => s.trim()).filter(Boolean);

// ── embedder configuration ────────────────────────────────────────────────────────────────

function loadEmbedderConfig() {
  try {
    const saved = JSON.parse(localStorage.getItem(EMBEDDER_KEY) ?? "null");
    if (saved && EMBEDDER_DEFAULTS[saved.kind]) {
      return { ...EMBEDDER_DEFAULTS[saved.kind], ...saved, key: sessionStorage.getItem(API_KEY_KEY) ?? "" };
    }
  } catch {
    // unreadable settings: start with none
  }
  return { kind: "none" };
}

function saveEmbedderConfig(config) {
  try {
    const { key, ...rest } = config;
    localStorage.setItem(EMBEDDER_KEY, JSON.stringify(rest));
    if (key) sessionStorage.setItem(API_KEY_KEY, key);
    else sessionStorage.removeItem(API_KEY_KEY);
  } catch {
    // private mode: the choice lasts until reload
  }
}

function showEmbedderFields(kind) {
  for (const el of $("embed-form").querySelectorAll("[data-for]")) el.hidden = !el.dataset.for.split(" ").includes(kind);
}

function fillEmbedderForm(config) {
  $("embedder").value = config.kind;
  $("embed-url").value = config.url ?? "";
  $("embed-model").value = config.model ?? "";
  $("embed-key").value = config.key ?? "";
  showEmbedderFields(config.kind);
  const badge = $("embed-badge");
  badge.textContent = { none: "none", ollama: "Ollama", openai: "OpenAI-compatible", browser: "in this browser" }[config.kind];
  badge.dataset.kind = config.kind === "none" ? "" : "ok";
}

/** Explains a dimension clash between the embedder and the store, or returns undefined. */
function dimensionProblem(dims) {
  const stored = state.store?.dimensions;
  if (dims === undefined || stored === undefined || dims === stored) return undefined;
  return `This store holds ${stored}-dimension vectors but ${describeEmbedder(state.config)} returns ${dims}-dimension vectors. `
    + "Recall skips stage Se and adding memories fails until they match: reset to the sample to start over with this embedder, or switch back.";
}

// ── opening, info and lists ───────────────────────────────────────────────────────────────

async function open(config) {
  state.embed = makeEmbedder(config);
  const opened = await openStore({ embed: state.embed, clock });
  state.store = opened.store;
  state.durable = opened.durable;
  state.storageProblem = opened.problem;
}

/** Reopens the store with another embedder (a store's embed function is fixed when it opens). */
async function reopen(config) {
  const old = state.store;
  // A memory store lives only in this handle: carry its records over (import embeds nothing).
  const text = state.durable ? undefined : await exportText(old);
  await old.close();
  await open(config);
  if (text !== undefined) await importText(state.store, text);
}

async function refreshInfo() {
  const s = state.store;
  const [notes, entities, edges, info] = await Promise.all([s.notes(), s.entities(), s.edges(), s.storageInfo()]);
  let where;
  if (state.durable) {
    const size = (n) => (n >= 2 ** 30 ? `${(n / 2 ** 30).toFixed(1)} GB` : n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MB` : `${Math.ceil(n / 1024)} kB`);
    const usage = info.usage !== undefined ? `, ${size(info.usage)} used${info.quota ? ` of ${size(info.quota)}` : ""}` : "";
    where = `stored in this browser (IndexedDB${usage}), kept across reloads`;
  } else {
    where = `kept in memory only (${state.storageProblem ?? "IndexedDB is unavailable"}), so a reload restores the sample`;
  }
  const dims = s.dimensions ? ` · embeddings of ${s.dimensions} dimensions` : "";
  $("store-info").textContent = `${s.size} memories, ${notes.length} notes, ${entities.length} entities, ${edges.length} relations · ${where}${dims}.`;

  const topics = new Map();
  const tiers = new Set(["core", "working", "archive"]);
  for (const id of await s.ids()) {
    const m = await s.get(id);
    if (m?.topic) topics.set(m.topic, (topics.get(m.topic) ?? 0) + 1);
    if (m?.tier) tiers.add(m.tier);
  }
  fillSelect($("f-topic"), "any topic", [...topics.keys()].sort(), (t) => `${t} (${topics.get(t)})`);
  fillSelect($("f-tier"), "any tier", [...tiers].sort());
  $("topics-list").replaceChildren(...[...topics.keys()].sort().map((t) => h("option", { value: t })));
  const sorted = [...entities].sort((a, b) => a.name.localeCompare(b.name));
  $("entities-list").replaceChildren(...sorted.map((e) => h("option", { value: e.name })));
  $("entity-count").textContent = String(sorted.length);
  $("entity-list").replaceChildren(...sorted.map((e) => h("li", {}, e.name, e.type ? h("span", { class: "etype", text: ` (${e.type})` }) : null)));
  await showChat();
}

function fillSelect(select, anyLabel, values, label = (v) => v) {
  const current = select.value;
  select.replaceChildren(h("option", { value: "", text: anyLabel }), ...values.map((v) => h("option", { value: v, text: label(v) })));
  select.value = values.includes(current) ? current : "";
}

// ── recall ────────────────────────────────────────────────────────────────────────────────

/** The recall options of the filter form; throws a readable Error for bad input. */
function readOptions() {
  const limitText = $("f-limit").value.trim();
  const limit = Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    $("f-limit").setAttribute("aria-invalid", "true");
    throw Object.assign(new Error(`Limit must be a whole number from 1 to 100, not “${limitText}”.`), { field: "f-limit" });
  }
  $("f-limit").removeAttribute("aria-invalid");
  const options = { limit, searchMode: $("f-mode").value, trackRecalls: $("f-track").checked };
  if (clock) options.now = now();
  if ($("f-topic").value) options.topic = $("f-topic").value;
  if ($("f-tier").value) options.tier = $("f-tier").value;
  // AutoMem's options (docs/recall.md): time words, a tag filter, the order.
  if ($("f-time").value.trim()) options.timeQuery = $("f-time").value.trim();
  const tags = splitList($("f-tags").value);
  if (tags.length) options.tags = tags;
  if ($("f-sort").value !== "score") options.sort = $("f-sort").value;
  const win = $("f-window").value;
  if (win === "custom") {
    const start = $("f-start").value;
    const end = $("f-end").value;
    if (start) options.start = Date.parse(`${start}T00:00:00Z`);
    if (end) options.end = Date.parse(`${end}T00:00:00Z`) + DAY_MS - 1;
    if (start && end && options.start > options.end) {
      throw Object.assign(new Error("The time window’s “From” date is after its “To” date."), { field: "f-start" });
    }
  } else if (win) {
    options.start = now() - Number(win) * DAY_MS;
  }
  if ($("f-context").checked) options.context = timeContext();
  return options;
}

/** The recall context of the demo's clock: its hour, weekday and offset, in this browser's zone. */
function timeContext() {
  const d = new Date(now());
  return { hour: d.getHours(), dayOfWeek: d.getDay(), utcOffsetMinutes: -d.getTimezoneOffset() };
}

/** A tag chip was clicked: filter by that tag (prefix matching: `work` keeps `work:db`). */
function filterByTag(tag) {
  $("f-tags").value = tag;
  runRecall();
}

function seNote(stages) {
  const se = stages.find((s) => s.name === "Se");
  if (!se?.skipped || (se.reason !== "embed_failed" && se.reason !== "embed_timeout")) return undefined;
  const last = state.embed?.last;
  const clash = last?.ok ? dimensionProblem(last.dims) : undefined;
  if (clash) return clash;
  const why = se.reason === "embed_timeout" ? "did not answer in time" : `is unreachable (${last?.error ?? "request failed"})`;
  return `The embedder ${describeEmbedder(state.config)} ${why}: stage Se was skipped, the other stages answered.`;
}

async function runRecall() {
  const status = $("results-status");
  const list = $("results");
  const query = $("q").value;
  let options;
  try {
    options = readOptions();
  } catch (e) {
    say(status, e.message, "error");
    if (e.field) $(e.field).focus();
    return;
  }
  const seq = ++state.recallSeq;
  list.setAttribute("aria-busy", "true");
  $("recall-button").disabled = true;
  const t0 = performance.now();
  try {
    const res = await state.store.recall(query, options);
    if (seq !== state.recallSeq) return;
    const ms = performance.now() - t0;
    const topicsShown = new Set();
    list.replaceChildren(...res.results.map((hit, i) => {
      const topic = hit.memory?.topic;
      const first = topic !== undefined && !topicsShown.has(topic);
      if (first) topicsShown.add(topic);
      return renderHit(hit, i, memoryActions, first, filterByTag);
    }));
    $("stages").replaceChildren(renderStages(res.stages));
    // What the question became (time window and its words, pronouns, a dropped window).
    const resolved = describeQuery(res, options.context?.utcOffsetMinutes ?? 0);
    $("resolved-query").hidden = resolved === undefined;
    $("resolved-query").textContent = resolved === undefined ? "" : `Searched as ${resolved}`;
    state.lastResult = res;
    showContext();
    const n = res.results.length;
    const head = n === 0 ? `Nothing found for “${short(query)}”.` : `${n} ${n === 1 ? "result" : "results"} for “${short(query)}” in ${ms.toFixed(1)} ms.`;
    const note = seNote(res.stages);
    say(status, note ? `${head} ${note}` : head, note ? "warn" : "info");
  } catch (e) {
    if (seq !== state.recallSeq) return;
    if (await reopenAfterReset(e).catch(() => false)) return runRecall();
    say(status, `Recall failed: ${messageOf(e)}`, "error");
  } finally {
    if (seq === state.recallSeq) {
      list.removeAttribute("aria-busy");
      $("recall-button").disabled = false;
    }
  }
}

function memoryActions(hit, textId) {
  if (hit.kind !== "memory") return null;
  const box = h("div", { class: "actions" });
  const showButtons = () => {
    const edit = h("button", { type: "button", "aria-describedby": textId, onclick: () => startEdit(hit.id) }, "Edit");
    const forget = h("button", { type: "button", class: "danger", "aria-describedby": textId, onclick: () => askForget() }, "Forget");
    box.replaceChildren(edit, forget);
    return forget;
  };
  const askForget = () => {
    const yes = h("button", { type: "button", class: "danger", onclick: () => forget(hit) }, "Yes, forget it");
    const no = h("button", { type: "button", onclick: () => showButtons().focus() }, "Cancel");
    box.replaceChildren(h("span", { class: "confirm-text", text: "Forget this memory?" }), yes, no);
    yes.focus();
  };
  showButtons();
  return box;
}

async function forget(hit) {
  try {
    await state.store.forget(hit.id);
    say($("op-status"), `Forgot “${short(hit.text)}”.`, "ok");
    if (state.editing === hit.id) stopEdit();
    await refreshInfo();
    await runRecall();
    $("results-heading").focus();
  } catch (e) {
    say($("op-status"), `Could not forget the memory: ${messageOf(e)}`, "error");
  }
}

// ── memories: add and edit ────────────────────────────────────────────────────────────────

function toLocalInput(ms) {
  return new Date(ms).toISOString().slice(0, 16);
}

async function startEdit(id) {
  const m = await state.store.get(id);
  if (!m) {
    say($("op-status"), "That memory no longer exists.", "error");
    return;
  }
  state.editing = id;
  $("m-text").value = m.text;
  $("m-topic").value = m.topic ?? "";
  $("m-tags").value = (m.tags ?? []).join(", ");
  $("m-type").value = m.type ?? "fact";
  if (![...$("m-type").options].some((o) => o.value === m.type) && m.type) $("m-type").append(h("option", { text: m.type }));
  $("m-type").value = m.type ?? "fact";
  $("m-tier").value = m.tier ?? "working";
  if ($("m-tier").value !== (m.tier ?? "working")) {
    $("m-tier").append(h("option", { text: m.tier }));
    $("m-tier").value = m.tier;
  }
  $("m-emotion").value = String(m.emotion ?? 0);
  $("m-emotion-out").value = String(m.emotion ?? 0);
  $("m-date").value = toLocalInput(m.createdAt);
  state.editedDate = m.createdAt;
  $("memory-form-title").textContent = `Edit memory ${id}`;
  $("m-submit").textContent = "Save changes";
  $("m-cancel").hidden = false;
  $("panel-memory").open = true;
  $("panel-memory").scrollIntoView({ block: "start" });
  $("m-text").focus();
}

function stopEdit() {
  state.editing = undefined;
  $("memory-form").reset();
  $("m-emotion-out").value = "0";
  $("memory-form-title").textContent = "Add a memory";
  $("m-submit").textContent = "Remember";
  $("m-cancel").hidden = true;
}

function storeErrorText(e, doing) {
  if (e?.code === "dimension_mismatch") return `${doing}: ${dimensionProblem(state.embed?.last?.dims) ?? e.message}`;
  if (e?.code === "embed_failed" || e?.code === "embed_timeout") {
    return `${doing}: the embedder ${describeEmbedder(state.config)} failed (${e.message}). Nothing was stored. Retry, or set Embeddings to “none”.`;
  }
  return `${doing}: ${messageOf(e)}`;
}

async function submitMemory(event) {
  event.preventDefault();
  const text = $("m-text").value;
  if (text.trim() === "") {
    $("m-text").setAttribute("aria-invalid", "true");
    say($("op-status"), "A memory needs some text.", "error");
    $("m-text").focus();
    return;
  }
  $("m-text").removeAttribute("aria-invalid");
  const topic = $("m-topic").value.trim();
  const tags = splitList($("m-tags").value);
  const fields = { text, type: $("m-type").value, tier: $("m-tier").value, emotion: Number($("m-emotion").value) };
  const date = $("m-date").value;
  // The field shows minutes: an edit that leaves it alone keeps the seconds it does not show.
  const shown = state.editedDate;
  if (date && !(state.editing && shown !== undefined && date === toLocalInput(shown))) fields.createdAt = Date.parse(`${date}:00Z`);
  const editing = state.editing;
  await busy($("memory-form"), async () => {
    try {
      if (editing) {
        await state.store.update(editing, { ...fields, topic: topic || null, tags: tags.length ? tags : null });
        say($("op-status"), `Saved memory ${editing}.`, "ok");
        stopEdit();
      } else {
        const id = await state.store.remember({ ...fields, ...(topic ? { topic } : {}), ...(tags.length ? { tags } : {}) });
        say($("op-status"), `Remembered “${short(text)}” (id ${id}).`, "ok");
        $("memory-form").reset();
        $("m-emotion-out").value = "0";
      }
      await refreshInfo();
      await runRecall();
    } catch (e) {
      if (await reopenAfterReset(e).catch(() => false)) {
        say($("op-status"), "Another tab reset the store, so nothing was saved: this page opened it again; save once more.", "error");
        return;
      }
      say($("op-status"), storeErrorText(e, editing ? "Could not save the memory" : "Could not remember it"), "error");
    }
  });
}

// ── notes, entities, relations ────────────────────────────────────────────────────────────

async function submitNote(event) {
  event.preventDefault();
  const start = $("n-start").value;
  const text = $("n-text").value;
  if (!start || text.trim() === "") {
    say($("op-status"), "A note needs a start date and some text.", "error");
    (start ? $("n-text") : $("n-start")).focus();
    return;
  }
  await busy($("note-form"), async () => {
    try {
      const id = await state.store.addNote({ period: $("n-period").value, start: `${start}T00:00:00Z`, text });
      say($("op-status"), `Added the ${$("n-period").value} note of ${start} (id ${id}).`, "ok");
      $("n-text").value = "";
      await refreshInfo();
    } catch (e) {
      say($("op-status"), `Could not add the note: ${messageOf(e)}`, "error");
    }
  });
}

async function submitEntity(event) {
  event.preventDefault();
  const name = $("e-name").value.trim();
  if (!name) {
    say($("op-status"), "An entity needs a name.", "error");
    $("e-name").focus();
    return;
  }
  await busy($("entity-form"), async () => {
    try {
      const aliases = splitList($("e-aliases").value);
      await state.store.addEntity({ name, type: $("e-type").value, ...(aliases.length ? { aliases } : {}) });
      say($("op-status"), `Added the entity “${name}”.`, "ok");
      $("entity-form").reset();
      await refreshInfo();
    } catch (e) {
      say($("op-status"), `Could not add the entity: ${messageOf(e)}`, "error");
    }
  });
}

async function submitRelation(event) {
  event.preventDefault();
  const from = $("r-from").value.trim();
  const relation = $("r-relation").value.trim();
  const to = $("r-to").value.trim();
  const strength = Number($("r-strength").value);
  const missing = [["r-from", from], ["r-relation", relation], ["r-to", to]].find(([, v]) => !v);
  if (missing) {
    say($("op-status"), "A relation needs “from”, a relation and “to”.", "error");
    $(missing[0]).focus();
    return;
  }
  if (!(strength >= 0 && strength <= 1)) {
    say($("op-status"), "Strength must be between 0 and 1.", "error");
    $("r-strength").focus();
    return;
  }
  await busy($("relation-form"), async () => {
    try {
      const edge = await state.store.relate({ from, relation, to, strength });
      say($("op-status"), `Related ${edge.from} —[${edge.relation}]→ ${edge.to} (strength ${edge.strength}).`, "ok");
      $("relation-form").reset();
      await refreshInfo();
    } catch (e) {
      say($("op-status"), `Could not relate them: ${messageOf(e)}`, "error");
    }
  });
}

// ── import, export, reset ─────────────────────────────────────────────────────────────────

async function importFile() {
  const input = $("import-file");
  const file = input.files?.[0];
  if (!file) return;
  try {
    const text = await file.text();
    const counts = await withProgress($("data-progress"), (progress) => importText(state.store, text, progress));
    const plural = { memory: "memories", entity: "entities" };
    const parts = Object.entries(counts).filter(([, n]) => n).map(([k, n]) => `${n} ${n === 1 ? k : plural[k] ?? `${k}s`}`);
    say($("op-status"), `Imported ${file.name}: ${parts.join(", ") || "nothing new"}.`, "ok");
    await refreshInfo();
    await runRecall();
  } catch (e) {
    say($("op-status"), `Could not import ${file.name}: ${messageOf(e)}`, "error");
  } finally {
    input.value = "";
  }
}

async function exportFile() {
  try {
    const text = await exportText(state.store);
    const count = text.split("\n").filter(Boolean).length;
    const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
    const a = h("a", { href: url, download: `recallkit-demo-${new Date(now()).toISOString().slice(0, 10)}.jsonl`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    say($("op-status"), `Exported ${count} records as JSON Lines.`, "ok");
  } catch (e) {
    say($("op-status"), `Could not export: ${messageOf(e)}`, "error");
  }
}

async function reset() {
  $("reset-confirm").hidden = true;
  await busy($("panel-data"), async () => {
    try {
      say($("op-status"), "Resetting to the sample…", "info");
      await state.store.close();
      let cleared = !state.durable || (await deleteDatabase());
      await open(state.config);
      if (!cleared) {
        // Another tab keeps the database open: delete the records one by one instead.
        await clearStore(state.store);
        cleared = true;
      }
      await withProgress($("data-progress"), (progress) => loadSample(state.store, progress));
      stopEdit();
      await refreshInfo();
      // A dimension clash the embedder panel reported was with the old store's vectors.
      if (state.store.dimensions === undefined && $("embed-status").dataset.kind === "error") say($("embed-status"), "", "info");
      say($("op-status"), "The store holds the sample again (without embeddings: use “Embed stored memories” to add them).", "ok");
      await runRecall();
      $("reset-button").focus();
    } catch (e) {
      say($("op-status"), `Could not reset: ${messageOf(e)}`, "error");
    }
  });
}

// ── embeddings ────────────────────────────────────────────────────────────────────────────

function readEmbedderForm() {
  const kind = $("embedder").value;
  if (kind === "none") return { kind };
  if (kind === "browser") return { kind, model: $("embed-model").value.trim() || EMBEDDER_DEFAULTS.browser.model };
  const url = $("embed-url").value.trim() || EMBEDDER_DEFAULTS[kind].url;
  try {
    const parsed = new URL(url);
    if (!/^https?:$/.test(parsed.protocol)) throw new Error("not http");
  } catch {
    throw new Error(`The embedder URL must be an http(s) address, not “${url}”.`);
  }
  return { kind, url, model: $("embed-model").value.trim() || EMBEDDER_DEFAULTS[kind].model, key: $("embed-key").value };
}

async function applyEmbedder(event) {
  event.preventDefault();
  const status = $("embed-status");
  let config;
  try {
    config = readEmbedderForm();
  } catch (e) {
    say(status, e.message, "error");
    $("embed-url").focus();
    return;
  }
  await busy($("embed-form"), async () => {
    let probe;
    if (config.kind !== "none") {
      say(status, `Checking ${describeEmbedder(config)}…`, "info");
      const embed = makeEmbedder(config);
      try {
        // An in-page model downloads on its first use: the bar shows each file's progress.
        const [vector] = await withProgress($("embed-progress"), (progress) => {
          onModelProgress((event) => {
            if (event.status !== "progress" || typeof event.progress !== "number") return;
            progress(event.progress, 100);
            say(status, `Downloading ${event.file ?? "the model"} from huggingface.co: ${Math.round(event.progress)} %`, "info");
          });
          return embed(["recallkit dimension probe"]);
        });
        probe = { ok: true, dims: vector.length };
      } catch (e) {
        probe = { ok: false, error: messageOf(e) };
      } finally {
        onModelProgress(undefined);
      }
    }
    try {
      state.config = config;
      await reopen(config);
      saveEmbedderConfig(state.config);
      fillEmbedderForm(state.config);
      await refreshInfo();
      if (config.kind === "none") say(status, "No embedder: stage Se is skipped (no_embedder); Sf, Ss, S6 and S8 still answer.", "ok");
      else if (!probe.ok) say(status, `${describeEmbedder(config)} is not reachable: ${probe.error}. Recall still works with stage Se skipped (embed_failed); adding memories fails until it answers.`, "error");
      else if (dimensionProblem(probe.dims)) say(status, dimensionProblem(probe.dims), "error");
      else say(status, `Using ${describeEmbedder(config)}: ${probe.dims}-dimension vectors. New memories are embedded; use “Embed stored memories” for the others.`, "ok");
      await runRecall();
    } catch (e) {
      say(status, `Could not switch the embedder: ${messageOf(e)}`, "error");
    }
  });
}

async function embedAll() {
  const status = $("embed-status");
  if (!state.embed) {
    say(status, "Choose an embedder first (in this browser, Ollama or an OpenAI-compatible endpoint).", "error");
    return;
  }
  await busy($("embed-form"), async () => {
    try {
      const missing = [];
      for (const id of await state.store.ids()) if ((await state.store.getEmbedding(id)) === undefined) missing.push(id);
      if (missing.length === 0) {
        say(status, "Every memory already has an embedding.", "ok");
        return;
      }
      say(status, `Embedding ${missing.length} memories…`, "info");
      await withProgress($("embed-progress"), async (progress) => {
        for (let at = 0; at < missing.length; at += EMBED_BATCH) {
          const ids = missing.slice(at, at + EMBED_BATCH);
          const memories = await Promise.all(ids.map((id) => state.store.get(id)));
          const vectors = await state.embed(memories.map((m) => m.textEn ?? m.text));
          for (let i = 0; i < ids.length; i++) await state.store.update(ids[i], { embedding: vectors[i] });
          progress(at + ids.length, missing.length);
        }
      });
      await refreshInfo();
      say(status, `Embedded ${missing.length} memories.`, "ok");
      await runRecall();
    } catch (e) {
      say(status, storeErrorText(e, "Could not embed the memories"), "error");
    }
  });
}

// ── context for a prompt, conversation lane ──────────────────────────────────────────────

/** Formats the last recall as a context block within the slider's budget. */
function showContext() {
  const budgetTokens = Number($("ctx-budget").value);
  $("ctx-budget-out").value = String(budgetTokens);
  if (state.lastResult === undefined) return;
  const block = formatContext(state.lastResult, { budgetTokens });
  $("ctx-block").textContent = block.text;
  const n = state.lastResult.results.length;
  say($("ctx-status"), n === 0 ? "No results to format."
    : `${block.tokens} of ${budgetTokens} tokens · ${block.included.length} of ${n} results included${block.omitted ? `, ${block.omitted} left out for the budget` : ""}.`, "info");
}

const LANE_ID = "demo-chat";
/** The topic of the lane's turns (`store.conversation` keeps them apart from other memories by it). */
const LANE_TOPIC = `recallkit:conversation:${LANE_ID}`;

function lane() {
  return state.store.conversation(LANE_ID, { topK: 5, budgetTokens: 500 });
}

/** Shows the conversation as a chat, in the order it was written; `recalled` turns are marked. */
async function showChat(recalled = new Set()) {
  const turns = [];
  for (const id of await state.store.ids()) {
    const m = await state.store.get(id);
    if (m?.topic === LANE_TOPIC) turns.push(m);
  }
  const list = $("lane-chat");
  list.replaceChildren(...turns.map((m) => {
    const li = document.createElement("li");
    const role = m.tags?.includes("assistant") ? "assistant" : "user";
    li.className = recalled.has(m.id) ? `${role} recalled` : role;
    li.dataset.id = m.id;
    li.textContent = m.text;
    li.title = `${role}, ${new Date(m.createdAt).toLocaleString()}`;
    return li;
  }));
  list.hidden = turns.length === 0;
  list.scrollTop = list.scrollHeight;
}

async function addTurn(event) {
  event.preventDefault();
  const text = $("lane-text").value.trim();
  if (text === "") {
    say($("lane-status"), "Write a turn first.", "error");
    $("lane-text").focus();
    return;
  }
  await busy($("lane-form"), async () => {
    try {
      const role = $("lane-role").value;
      await lane().append({ role, text, ...(clock ? { createdAt: now() } : {}) });
      $("lane-text").value = "";
      // The next turn is usually the other side's.
      $("lane-role").value = role === "user" ? "assistant" : "user";
      await showChat();
      say($("lane-status"), `Added the ${role}'s turn.`, "info");
    } catch (e) {
      say($("lane-status"), storeErrorText(e, "Could not add the turn"), "error");
    }
  });
}

async function askLane(event) {
  event.preventDefault();
  const query = $("lane-query").value;
  const last = Number($("lane-last").value || 0);
  if (!Number.isInteger(last) || last < 0) {
    say($("lane-status"), "“Leave out the last” must be a whole number of turns.", "error");
    return;
  }
  await busy($("lane-ask"), async () => {
    try {
      // Read at the demo's clock, with the recall form's context, as the recall above is.
      const options = { excludeLast: last };
      if (clock) options.now = now();
      if ($("f-context").checked) options.context = timeContext();
      const hits = await lane().relevant(query, options);
      $("lane-block").textContent = renderRecall(hits);
      await showChat(new Set(hits.map((h) => h.id)));
      say($("lane-status"), hits.length === 0 ? "No earlier turn found." : `${hits.length} earlier ${hits.length === 1 ? "turn" : "turns"} found.`, "info");
    } catch (e) {
      say($("lane-status"), `Could not search the turns: ${messageOf(e)}`, "error");
    }
  });
}

// ── wiring ────────────────────────────────────────────────────────────────────────────────

function wire() {
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runRecall();
  });
  for (const button of document.querySelectorAll("[data-query]")) {
    button.addEventListener("click", () => {
      $("q").value = button.dataset.query;
      runRecall();
    });
  }
  for (const id of ["f-topic", "f-tier", "f-mode", "f-track", "f-context", "f-start", "f-end", "f-time", "f-tags", "f-sort"]) {
    $(id).addEventListener("change", () => runRecall());
  }
  $("f-limit").addEventListener("change", () => runRecall());
  $("f-window").addEventListener("change", () => {
    const custom = $("f-window").value === "custom";
    $("f-start-label").hidden = !custom;
    $("f-end-label").hidden = !custom;
    runRecall();
  });
  $("memory-form").addEventListener("submit", submitMemory);
  $("m-cancel").addEventListener("click", () => {
    stopEdit();
    say($("op-status"), "Editing cancelled.", "info");
  });
  $("m-emotion").addEventListener("input", () => { $("m-emotion-out").value = $("m-emotion").value; });
  $("note-form").addEventListener("submit", submitNote);
  $("n-start").value = new Date(now()).toISOString().slice(0, 10);
  $("entity-form").addEventListener("submit", submitEntity);
  $("relation-form").addEventListener("submit", submitRelation);
  $("import-file").addEventListener("change", importFile);
  $("export-button").addEventListener("click", exportFile);
  $("reset-button").addEventListener("click", () => {
    $("reset-confirm").hidden = false;
    $("reset-no").focus();
  });
  $("reset-no").addEventListener("click", () => {
    $("reset-confirm").hidden = true;
    $("reset-button").focus();
  });
  $("reset-yes").addEventListener("click", reset);
  $("embedder").addEventListener("change", () => {
    const kind = $("embedder").value;
    showEmbedderFields(kind);
    if (kind !== "none" && kind !== state.config.kind) {
      $("embed-url").value = EMBEDDER_DEFAULTS[kind].url ?? "";
      $("embed-model").value = EMBEDDER_DEFAULTS[kind].model;
    }
  });
  $("ctx-budget").addEventListener("input", showContext);
  $("lane-form").addEventListener("submit", addTurn);
  $("lane-ask").addEventListener("submit", askLane);
  $("embed-form").addEventListener("submit", applyEmbedder);
  $("embed-all").addEventListener("click", embedAll);
  $("origin").textContent = location.origin;
}

async function start() {
  wire();
  fillEmbedderForm(state.config);
  try {
    await open(state.config);
    if (await needsSample(state.store, state.durable)) {
      $("store-info").textContent = "Loading the sample store…";
      await withProgress($("load-progress"), (progress) => loadSample(state.store, progress));
    }
    await refreshInfo();
    await runRecall();
  } catch (e) {
    say($("store-info"), `Could not open the store: ${messageOf(e)}`, "error");
  } finally {
    window.__ready = true;
  }
}

start();
