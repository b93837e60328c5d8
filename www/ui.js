// Rendering helpers of the demo. Every piece of data reaches the page through textContent or
// attribute setters, never through innerHTML, so a memory like `<img src=x onerror=alert(1)>`
// shows up as those characters and runs nothing.

/**
 * Creates an element. `props`: `class`, `text` (textContent), `on*` handlers, other keys as
 * attributes (`true` → empty attribute, `false`/`undefined` → none). Children: nodes or strings
 * (added as text nodes).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false || value === null) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = String(value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
  return el;
}

/** Shows `message` in a status element; kind: "info" | "ok" | "warn" | "error". */
export function say(el, message, kind = "info") {
  el.textContent = message;
  el.dataset.kind = kind;
}

const DATE = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const DATE_TIME = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
/** A date as "9 Nov 2026" (UTC). */
export const formatDate = (ms) => DATE.format(new Date(ms));
/** A date and time as "9 Nov 2026, 10:00" (UTC). */
export const formatDateTime = (ms) => `${DATE_TIME.format(new Date(ms))} UTC`;

// ── stages ────────────────────────────────────────────────────────────────────────────────

/** What each stage does, for the stage panel. */
export const STAGE_INFO = {
  Sf: "fuzzy text search (BM25 + trigram)",
  Se: "embedding similarity",
  Ss: "256-bit signature similarity",
  S6: "consolidation notes",
  S8: "entity graph",
};

/** Why a stage was skipped, in words. */
export const SKIP_REASONS = {
  short_circuit: "Sf already filled the limit",
  lexical_mode: "search mode is lexical",
  semantic_mode: "search mode is semantic",
  no_embedder: "no embedder is configured",
  embed_failed: "the embedder failed or is unreachable",
  embed_timeout: "the embedder did not answer in time",
  not_ranked: "the ranking gives signatures no weight",
  semantic_evidence: "embeddings already measured meaning",
  no_query: "no query: the most important memories are listed",
  trivial: "a trivial message: nothing to search for",
  rerank_failed: "the reranker failed",
  rerank_timeout: "the reranker did not answer in time",
};

const fmtMs = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

/** The per-stage panel: a table with hits and ms drawn as CSS bars. */
export function renderStages(stages) {
  const maxHits = Math.max(1, ...stages.map((s) => s.hits));
  const maxMs = Math.max(0.001, ...stages.map((s) => s.ms));
  const rows = stages.map((s) => {
    const name = h("th", { scope: "row" }, h("span", { class: `badge stage-${s.name}`, text: s.name }),
      h("span", { class: "stage-what", text: STAGE_INFO[s.name] ?? "" }));
    if (s.skipped) {
      const why = SKIP_REASONS[s.reason] ?? s.reason ?? "skipped";
      return h("tr", { class: "skipped", "data-stage": s.name },
        name, h("td", { colspan: 2, class: "skip-cell" }, h("span", { class: "skip-label", text: "skipped" }), ` — ${why} `,
          h("code", { text: s.reason ?? "" })));
    }
    return h("tr", { "data-stage": s.name }, name,
      h("td", {}, bar(s.hits / maxHits, "hits"), h("span", { class: "num", text: `${s.hits} ${s.hits === 1 ? "hit" : "hits"}` })),
      h("td", {}, bar(s.ms / maxMs, "ms"), h("span", { class: "num", text: `${fmtMs(s.ms)} ms` })));
  });
  return h("table", { class: "stages" },
    h("caption", { text: "What each stage did" }),
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Stage" }), h("th", { scope: "col", text: "Hits" }), h("th", { scope: "col", text: "Time" }))),
    h("tbody", {}, rows));
}

function bar(fraction, kind) {
  const pct = Math.max(0, Math.min(1, fraction)) * 100;
  return h("span", { class: `bar bar-${kind}`, "aria-hidden": "true" }, h("span", { class: "fill", style: { width: `${pct.toFixed(1)}%` } }));
}

// ── score breakdown ───────────────────────────────────────────────────────────────────────

/** How each component is drawn and explained. */
const COMPONENTS = {
  bm25: ["score", "text match (BM25)"],
  emotionBoost: ["score", "+ 0.5·ln(1+|emotion|), added to BM25"],
  recallBoost: ["unit", "0.1 × times recalled: × (1 + this)"],
  relevanceBoost: ["unit", "0.2 when relevance > 0: × (1 + this)"],
  trustFactor: ["factor", "× (0.5 + 0.5·trust/3)"],
  credibilityFactor: ["factor", "× 1.25 when credibility ≤ 2"],
  tierBoost: ["factor", "× 1.3 for core memories"],
  recency: ["factor", "× age: a preference, never a filter"],
  cosine: ["unit", "cosine similarity to the query embedding"],
  signatureSimilarity: ["unit", "Hamming similarity of 256-bit signatures"],
  strength: ["unit", "relation strength"],
  ppr: ["unit", "Personalized PageRank mass of the edge's entity"],
  matchedTerms: ["count", "query words found in the paragraph"],
  raw: ["score", "the stage's raw score"],
  calibrated: ["unit", "raw score mapped to 0..1"],
  crossStagePenalty: ["factor", "× 0.5: found only by Sf while Se had hits"],
  contextBoost: ["unit", "+ same hour, weekday or topic as now"],
  emotionTiebreak: ["unit", "+ 0.02·|emotion| tie-breaker"],
  spacingBoost: ["factor", "× spaced-repetition boost"],
  rankBeforeMmr: ["rank", "rank before diversity reranking"],
  rankAfterMmr: ["rank", "rank after MMR (λ 0.7)"],
  trigramBm25: ["score", "typo- and substring-tolerant text match (BM25)"],
  lexical: ["unit", "share of the question matched (BM25 share and words covered)"],
  semantic: ["unit", "cosine against what unrelated memories score for this query"],
  correctedWords: ["count", "misspelt query words read as a stored word: the vector cannot pull this match down"],
  signature: ["unit", "signature similarity above chance"],
  similarity: ["unit", "Hamming similarity of 256-bit signatures"],
  graph: ["unit", "an edge about the question cites this memory"],
  relevance: ["unit", "the evidence fused: how well it answers the question"],
  adjacent: ["unit", "half the gap to a better match written just before or after it"],
  prior: ["factor", "× trust, tier, recalls and emotion (fourth root)"],
  rrf: ["unit", "reciprocal rank fusion of the stages' lists"],
  rerank: ["score", "the host reranker's score (results follow it)"],
  vector: ["unit", "weighted vector similarity"],
  priority: ["unit", "0.2 × importance"],
  confidence: ["unit", "weighted confidence"],
  keyword: ["unit", "weighted keyword match"],
  exact: ["unit", "share of the question's words present"],
  importance: ["unit", "weighted importance"],
  tag: ["unit", "question words among the tags"],
  relation: ["unit", "weighted graph relation"],
  temporal: ["unit", "weighted time match"],
  hop: ["count", "entity hops from the question (expandEntities)"],
};

const fmt = (v) => (Number.isInteger(v) ? String(v) : Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 0.001 || v === 0 ? v.toFixed(3) : v.toExponential(2));

/** One result's components as labelled bars (a definition list, readable without the bars). */
export function renderBreakdown(hit) {
  const entries = Object.entries(hit.components ?? {}).filter(([, v]) => typeof v === "number");
  const scoreMax = Math.max(1, ...entries.filter(([k]) => (COMPONENTS[k]?.[0] ?? "score") === "score").map(([, v]) => Math.abs(v)));
  const rows = [...entries, ["score", hit.score]].map(([key, value]) => {
    const [kind, help] = key === "score" ? ["unit", "final score after boosts"] : COMPONENTS[key] ?? ["score", ""];
    let fraction;
    let label = fmt(value);
    if (kind === "factor") {
      fraction = value / 2;
      label = `×${fmt(value)}`;
    } else if (kind === "unit") fraction = value;
    else if (kind === "score") fraction = Math.abs(value) / scoreMax;
    else if (kind === "count") fraction = Math.min(1, value / 5);
    else label = `#${value}`;
    return h("div", { class: `comp comp-${kind}${key === "score" ? " comp-final" : ""}` },
      h("dt", {}, h("span", { class: "comp-name", text: key }), help ? h("span", { class: "comp-help", text: help }) : null),
      h("dd", {}, fraction === undefined ? null : h("span", { class: "bar bar-comp", "aria-hidden": "true" },
        h("span", { class: "fill", style: { width: `${(Math.max(0, Math.min(1, fraction)) * 100).toFixed(1)}%` } }),
        kind === "factor" ? h("span", { class: "tick" }) : null),
      h("span", { class: "num", text: label })));
  });
  return h("dl", { class: "breakdown" }, rows);
}

// ── results ───────────────────────────────────────────────────────────────────────────────

function metaLine(hit) {
  if (hit.kind === "note" && hit.note) {
    return `${hit.note.period} note · ${formatDate(hit.note.start)} · paragraph ${hit.note.paragraph + 1}`;
  }
  if (hit.kind === "edge" && hit.edge) return `relation · strength ${hit.edge.strength}`;
  const m = hit.memory;
  if (!m) return "";
  const parts = [m.topic, m.type, m.tier, formatDate(m.createdAt)];
  if (m.emotion) parts.push(`emotion ${m.emotion > 0 ? "+" : ""}${m.emotion}`);
  if (m.recallCount) parts.push(`recalled ${m.recallCount}×`);
  return parts.filter(Boolean).join(" · ");
}

/**
 * One result as a list item. `actions(hit, textId)` returns extra nodes (edit / forget
 * buttons); `showTimeline` adds the topic's timeline (the page shows it once per topic).
 */
export function renderHit(hit, index, actions, showTimeline = true, onTag = undefined) {
  const stageFamily = hit.stage.split(":")[0];
  const textId = `result-text-${index}`;
  const item = h("li", { class: `result kind-${hit.kind}`, "data-id": hit.id, "data-stage": hit.stage },
    h("div", { class: "result-head" },
      h("span", { class: `badge stage-${stageFamily}`, title: STAGE_INFO[stageFamily] ?? "", text: hit.stage }),
      h("span", { class: "score", text: `score ${hit.score.toFixed(3)}` }),
      h("span", { class: "kind", text: hit.matchType ? `${hit.kind} · ${hit.matchType}` : hit.kind })),
    h("p", { class: "result-text", id: textId, text: hit.text }));
  if (hit.memory?.textEn && hit.memory.textEn !== hit.text) {
    item.append(h("p", { class: "translation", lang: "en", text: `English: ${hit.memory.textEn}` }));
  }
  item.append(h("p", { class: "meta", text: metaLine(hit) }));
  const tags = hit.memory?.tags ?? [];
  if (tags.length) {
    // Tag chips: a click filters the recall by that tag.
    const chip = (t) => (onTag
      ? h("button", { type: "button", class: "tag-chip", title: `only memories tagged ${t}`, text: t, onclick: () => onTag(t) })
      : t);
    item.append(h("ul", { class: "tags", "aria-label": "tags" }, tags.map((t) => h("li", {}, chip(t)))));
  }
  if (hit.warning) {
    item.append(h("p", { class: "warning", role: "note", text: `${hit.warning}${hit.conflicts?.length ? ` (${hit.conflicts.join(", ")})` : ""}` }));
  }
  if (showTimeline && hit.timeline && hit.timeline.length > 1) {
    item.append(h("p", { class: "timeline", text: `Timeline of “${hit.memory?.topic ?? "topic"}” in these results: ${hit.timeline.map((t) => t.date).join(" → ")}` }));
  }
  const details = h("details", { class: "breakdown-box" },
    h("summary", { text: "Score breakdown" }), renderBreakdown(hit));
  item.append(details);
  const extra = actions?.(hit, textId);
  if (extra) item.append(extra);
  return item;
}
