#!/usr/bin/env node
// The labelled recall set: a deterministic generator of memories, consolidation notes, an
// entity graph, host-style embeddings and graded queries (README.md in this folder).
//
//   node bench/labelled/generate.mjs                 # prints the sizes and a SHA-256 fingerprint
//   node bench/labelled/generate.mjs --out set.json  # also writes the whole set as JSON
//   node bench/labelled/generate.mjs --seed 7        # another set of the same shape
//
// Everything comes from one seeded PRNG (model.mjs: mulberry32) and the word lists of
// world.mjs; there is no Math.random and no clock, so one seed always gives the same bytes.
//
// Relevance grades: 2 = the answer, 1 = related. Exact, typo and paraphrase queries are made
// from one target memory (2); the other memories of its story (a decision and its follow-ups, a
// bug and its fix, a trip) and the note paragraphs that summarise it are 1. A temporal query
// asks about a recurring log (weekly syncs, one-on-ones, runs…) with a 7-day window holding
// exactly one entry of that log (2) and its note paragraphs (1). An entity query ("who does Ana
// work with?") has the graph edges that answer it as 2 (ids `from|relation|to`, as stage S8
// returns them) and the memories those edges cite as 1.

import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Rng, embed, words } from "./model.mjs";
import * as W from "./world.mjs";

/** Default seed of the committed set. */
export const DEFAULT_SEED = 20240603;
const DAY = 86_400_000;
/** Monday 2024-06-03 00:00 UTC: the first day of the set. */
export const START = Date.UTC(2024, 5, 3);
/** Days covered: 104 weeks. */
export const SPAN_DAYS = 728;
/** The fixed `now` of every recall: noon on the day after the last day. */
export const NOW = START + SPAN_DAYS * DAY + 12 * 3_600_000;
/** Queries per class (entity queries: one per person/project question, 66). */
export const PER_CLASS = 80;

const PERSON = new Map(W.PEOPLE.map((p) => [p.first, p]));
const PROJECT_NAMES = Object.keys(W.PROJECTS);
const ALL_TOOLS = Object.values(W.TOOLS).flat();
const TOOL_KIND = new Map(Object.entries(W.TOOLS).flatMap(([k, ts]) => ts.map((t) => [t, k])));
const SYN = new Map();
for (const group of W.SYNONYMS) for (const w of group) if (!SYN.has(w)) SYN.set(w, group);
/** Capitalised names that stay as they are in paraphrases (people, projects, tools, places). */
const ANCHORS = new Set([
  ...W.PEOPLE.map((p) => p.first.toLowerCase()), ...PROJECT_NAMES.map((p) => p.toLowerCase()),
  ...ALL_TOOLS.map((t) => t.toLowerCase()), ...W.CITIES.map((c) => c.toLowerCase()),
]);

function fullName(first) {
  const p = PERSON.get(first);
  return `${p.first} ${p.last}`;
}
/** The normal form the engine gives a name (folded tokens joined by a space). */
function normal(name) {
  return words(name).join(" ");
}
function edgeId(from, relation, to) {
  return `${normal(from)}|${relation}|${normal(to)}`;
}
function isoDay(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}
function fill(template, slots) {
  return template.replace(/\{(\w+)\}/g, (_, k) => {
    if (!(k in slots)) throw new Error(`template slot ${k} missing in "${template}"`);
    return String(slots[k]);
  });
}
function cap(s) {
  return s[0].toUpperCase() + s.slice(1);
}

/** Replaces words that have synonyms, each with probability `p`; returns [text, swapped]. */
export function swapSynonyms(rng, text, p) {
  let swapped = 0;
  const out = text.replace(/[A-Za-z]+/g, (w) => {
    const group = SYN.get(w.toLowerCase());
    if (group === undefined || !rng.chance(p)) return w;
    const others = group.filter((x) => x !== w.toLowerCase());
    const r = rng.pick(others);
    swapped++;
    return w[0] === w[0].toUpperCase() ? cap(r) : r;
  });
  return [out, swapped];
}

// ---------------------------------------------------------------------------------------------
// Memories

/**
 * Builds the memories. Every family returns drafts: `{ text, topic, type, day, emotion?,
 * people, project?, tools?, story?, series?, support? }`; `support` lists the graph relations
 * the memory states (`[from, relation, to]`).
 */
function buildMemories(rng) {
  const drafts = [];
  const seen = new Set();
  let storyCount = 0;
  const toolbox = new Map(W.PEOPLE.map((p) => [p.first, rng.sample(ALL_TOOLS.filter((t) => TOOL_KIND.get(t) !== "productivity"), 4).concat(rng.pick(W.TOOLS.productivity))]));
  const day = () => rng.int(SPAN_DAYS);
  const person = () => rng.pick(W.PEOPLE).first;
  const other = (p) => rng.pick(W.PEOPLE.filter((q) => q.first !== p)).first;
  const projectOf = (p) => rng.pick(PERSON.get(p).projects);
  const teammate = (p, proj) => {
    const mates = W.PEOPLE.filter((q) => q.first !== p && q.projects.includes(proj));
    return mates.length > 0 ? rng.pick(mates).first : other(p);
  };
  const month = () => rng.pick(W.MONTHS);

  /** Adds drafts unless one of their texts already exists; returns whether they were added. */
  const add = (list) => {
    if (list.some((d) => seen.has(d.text.toLowerCase()))) return false;
    for (const d of list) {
      seen.add(d.text.toLowerCase());
      drafts.push(d);
    }
    return true;
  };
  const story = (steps) => {
    const id = `story${storyCount++}`;
    let d = rng.int(SPAN_DAYS - 60);
    return steps.map((s, i) => {
      if (i > 0) d += rng.range(3, 25);
      return { ...s, day: d, story: id };
    });
  };
  const repeat = (n, f) => {
    for (let i = 0, tries = 0; i < n && tries < n * 20; tries++) if (add(f())) i++;
  };

  // --- work stories ---
  repeat(150, () => {
    const p = person(), proj = projectOf(p), part = rng.pick(W.PROJECTS[proj].parts);
    const kind = rng.pick(["datastore", "datastore", "datastore", "queue", "observability", "ci"]);
    const [from, to] = rng.sample(W.TOOLS[kind], 2);
    const q = teammate(p, proj);
    const s = { p, q, proj, part, from, to, reason: rng.pick(W.REASONS), metric: rng.pick(W.METRICS), n: rng.range(12, 70), bug: rng.pick(W.BUG_KINDS), fix: rng.pick(W.FIXES) };
    const steps = [
      { text: fill(rng.pick(["{p} decided to migrate the {proj} {part} from {from} to {to} because {reason}.", "We decided to move the {proj} {part} off {from} and onto {to}; {p} argued that {reason}."]), s), type: "decision", topic: "work", emotion: 1 },
      { text: fill(rng.pick(["{p} finished migrating the {proj} {part} to {to}; the {metric} improved by {n} percent.", "The {proj} {part} now runs on {to}. {p} says the {metric} improved by {n} percent."]), s), type: "event", topic: "work", emotion: 3 },
    ];
    if (rng.chance(0.6)) steps.push({ text: fill("After the {to} migration the {proj} {part} hit a {bug} bug; {q} fixed it by {fix}.", s), type: "lesson", topic: "work", emotion: -2 });
    return story(steps).map((d) => ({ ...d, people: [p, q], project: proj, tools: [from, to] }));
  });
  repeat(200, () => {
    const p = person(), proj = projectOf(p), part = rng.pick(W.PROJECTS[proj].parts), q = teammate(p, proj);
    const s = { p, q, proj, part, bug: rng.pick(W.BUG_KINDS), symptom: rng.pick(W.SYMPTOMS), fix: rng.pick(W.FIXES), h: rng.range(2, 30) };
    return story([
      { text: fill(rng.pick(["{p} found a {bug} bug in the {proj} {part}: {symptom}.", "Bug report from {p}: in the {proj} {part}, {symptom} ({bug} bug suspected)."]), s), type: "event", topic: "work", emotion: -2 },
      { text: fill(rng.pick(["{q} fixed the {bug} bug in the {proj} {part} by {fix}.", "The {proj} {part} {bug} bug is fixed: {q} spent {h} hours on it and ended up {fix}."]), s), type: "event", topic: "work", emotion: 2 },
    ]).map((d) => ({ ...d, people: [p, q], project: proj }));
  });
  repeat(120, () => {
    const p = person(), proj = projectOf(p), feature = rng.pick(W.FEATURES);
    const s = { p, proj, feature, v: `${rng.range(1, 4)}.${rng.range(0, 19)}`, symptom: rng.pick(W.SYMPTOMS), wd: rng.pick(W.WEEKDAYS.slice(1, 6)) };
    const steps = [
      { text: fill("{proj} {v} is planned for release on a {wd} with {feature}; {p} owns the release checklist.", s), type: "plan", topic: "work" },
      { text: fill(rng.pick(["{proj} {v} shipped with {feature}; {p} wrote the release notes.", "{p} shipped {proj} {v} today. Headline feature: {feature}."]), s), type: "event", topic: "work", emotion: 3 },
    ];
    if (rng.chance(0.4)) steps.push({ text: fill("{p} rolled back {proj} {v} because {symptom}.", s), type: "event", topic: "work", emotion: -3 });
    return story(steps).map((d) => ({ ...d, people: [p], project: proj }));
  });
  repeat(100, () => {
    const p = person(), proj = projectOf(p), feature = rng.pick(W.FEATURES);
    const s = { p, proj, feature, n: rng.range(3, 40), what: W.PROJECTS[proj].what };
    return story([
      { text: fill("{p} started building {feature} for the {proj} {what}.", s), type: "event", topic: "work", emotion: 1 },
      { text: fill("{feature} in {proj} is in beta with {n} customers; {p} collects their feedback in a shared doc.", s), type: "fact", topic: "work" },
    ]).map((d) => ({ ...d, people: [p], project: proj }));
  });

  // --- work facts, preferences, lessons, relations ---
  repeat(300, () => {
    const p = person(), proj = projectOf(p), tool = rng.chance(0.85) ? rng.pick(toolbox.get(p)) : rng.pick(ALL_TOOLS);
    const s = { p, proj, tool, task: rng.pick(W.TOOL_TASKS[TOOL_KIND.get(tool)]) };
    return [{ text: fill(rng.pick(["{p} uses {tool} to {task} on {proj}.", "On {proj}, {p} relies on {tool} to {task}."]), s), type: "fact", topic: "work", day: day(), people: [p], project: proj, tools: [tool], support: [[p, "uses", tool]] }];
  });
  repeat(200, () => {
    const p = person(), kind = rng.pick(Object.keys(W.TOOLS)), [a, b] = rng.sample(W.TOOLS[kind], 2);
    const s = { p, a, b, task: rng.pick(W.TOOL_TASKS[kind]) };
    return [{ text: fill(rng.pick(["{p} prefers {a} over {b} to {task}.", "{p} dislikes {b} and would rather use {a} to {task}."]), s), type: "preference", topic: "work", day: day(), people: [p], tools: [a, b] }];
  });
  repeat(250, () => {
    const p = person(), proj = projectOf(p), s = { p, proj, part: rng.pick(W.PROJECTS[proj].parts), lesson: rng.pick(W.LESSONS) };
    return [{ text: fill(rng.pick(["{p} learned that {lesson}.", "Lesson from the {proj} {part} work: {lesson}.", "{p} noted after the {proj} retro that {lesson}."]), s), type: "lesson", topic: "work", day: day(), people: [p], project: proj }];
  });
  repeat(250, () => {
    const p = person(), proj = projectOf(p), q = teammate(p, proj), s = { p, q, proj, part: rng.pick(W.PROJECTS[proj].parts), n: rng.range(2, 9) };
    return [{ text: fill(rng.pick(["{p} and {q} paired on the {proj} {part} for {n} days.", "{p} paired with {q} to untangle the {proj} {part}.", "{q} and {p} spent {n} afternoons reviewing the {proj} {part} together."]), s), type: "event", topic: "work", day: day(), people: [p, q], project: proj, support: [[p, "works_with", q]] }];
  });
  repeat(200, () => {
    const p = person(), proj = projectOf(p), a = rng.range(120, 900), s = { p, proj, part: rng.pick(W.PROJECTS[proj].parts), metric: rng.pick(W.METRICS), a, b: Math.round(a * (0.3 + rng.next() * 0.6)) };
    return [{ text: fill("The {metric} of the {proj} {part} went from {a} to {b} after {p}'s change.", s), type: "fact", topic: "work", day: day(), people: [p], project: proj, emotion: 2 }];
  });
  repeat(80, () => {
    const p = person(), proj = projectOf(p), s = { p, proj, city: rng.pick(W.CITIES) };
    return [{ text: fill(rng.pick(["{p} presented the {proj} roadmap at the {city} offsite.", "{p} gave a talk about {proj} at a meetup in {city}; the room was packed."]), s), type: "event", topic: "work", day: day(), people: [p], project: proj, emotion: 2 }];
  });
  repeat(200, () => {
    const p = person(), proj = projectOf(p), part = rng.pick(W.PROJECTS[proj].parts);
    const goal = fill(rng.pick(["write a design doc for the {proj} {part}", "clean up the old feature flags in {proj}", "upgrade {tool} across {proj}", "add tracing to the {proj} {part}", "hand over the {proj} {part} to a new owner"]), { proj, part, tool: rng.pick(toolbox.get(p)) });
    return [{ text: fill(rng.pick(["{p} wants to {goal} before {m}.", "To do for {p}: {goal} by the end of {m}."]), { p, goal, m: month() }), type: "todo", topic: "work", day: day(), people: [p], project: proj }];
  });
  repeat(150, () => {
    const p = person(), proj = projectOf(p), q = other(p), s = { p, q, proj, part: rng.pick(W.PROJECTS[proj].parts), adj: rng.pick(["clear but too long", "missing a rollback plan", "the best one this quarter", "hard to follow", "convincing"]) };
    return [{ text: fill("{q} told {p} that the {proj} {part} design doc was {adj}.", s), type: "event", topic: "work", day: day(), people: [p, q], project: proj }];
  });
  repeat(100, () => {
    const p = person(), proj = projectOf(p), s = { p, proj, role: rng.pick(["backend", "frontend", "data", "mobile", "site reliability"]), verdict: rng.pick(["strong on systems design, weak on testing", "a clear hire", "not ready yet", "great communicator, needs a second technical round"]) };
    return [{ text: fill("{p} interviewed a {role} candidate for the {proj} team: {verdict}.", s), type: "event", topic: "work", day: day(), people: [p], project: proj }];
  });
  for (const p of W.PEOPLE) {
    for (const proj of p.projects) {
      add([{ text: `${p.first} joined the ${proj} team in ${month()} ${rng.pick([2022, 2023])}.`, type: "fact", topic: "work", day: rng.int(60), people: [p.first], project: proj, support: [[p.first, "works_on", proj]] }]);
    }
    const hood = rng.pick(W.NEIGHBOURHOODS[p.city]);
    add([{ text: `${p.first} lives in ${p.city}, in ${hood}.`, type: "fact", topic: "home", day: rng.int(60), people: [p.first], support: [[p.first, "lives_in", p.city]] }]);
    add(story([
      { text: `${p.first} signed the lease for a new apartment in ${rng.pick(W.NEIGHBOURHOODS[p.city].filter((h) => h !== hood))}.`, type: "event", topic: "home", emotion: 3 },
      { text: `${p.first} moved into the new apartment; the kitchen is small but the light is great.`, type: "event", topic: "home", emotion: 2 },
    ]).map((d) => ({ ...d, people: [p.first], support: [[p.first, "lives_in", p.city]] })));
  }
  for (const [m, reports] of Object.entries(W.MANAGES)) {
    for (const r of reports) {
      const wd = rng.pick(W.WEEKDAYS.slice(1, 6));
      add([{ text: `${m} is ${r}'s manager; their one-on-ones are on ${wd}s.`, type: "fact", topic: "work", day: rng.int(90), people: [m, r], support: [[m, "manages", r]] }]);
      add([{ text: `${r} reports to ${m} since the reorganisation in ${month()}.`, type: "fact", topic: "work", day: rng.int(90), people: [m, r], support: [[m, "manages", r]] }]);
    }
  }

  // --- life ---
  const petEvents = ["had a vet check-up and is healthy", "chewed through the charger cable", "learned to open the balcony door", "needs new food because of a sensitive stomach", "stayed with the neighbours during the trip", "got a new bed that it ignores", "was scared of the thunderstorm all night"];
  repeat(120, () => {
    const p = rng.pick(Object.keys(W.PETS)), [kind, name] = W.PETS[p];
    return [{ text: `${p}'s ${kind} ${name} ${rng.pick(petEvents)}${rng.chance(0.5) ? ` on ${rng.pick(W.WEEKDAYS)}` : ""}.`, type: "event", topic: "pets", day: day(), people: [p], emotion: rng.pick([-2, 1, 2, 3]) }];
  });
  repeat(60, () => {
    const p = person(), s = { p, city: rng.pick(W.TRIP_CITIES), reason: rng.pick(W.TRIP_REASONS), m: month(), hl: rng.pick(W.TRIP_HIGHLIGHTS), hotel: rng.pick(["noisy", "lovely", "tiny but clean", "far from everything"]) };
    return story([
      { text: fill("{p} booked flights to {city} for {reason} in {m}.", s), type: "plan", topic: "travel", emotion: 2 },
      { text: fill("{p} arrived in {city}; the hotel is {hotel}.", s), type: "event", topic: "travel", emotion: 1 },
      { text: fill("{p} is back from {city}; the best part was {hl}.", s), type: "event", topic: "travel", emotion: 4 },
    ]).map((d) => ({ ...d, people: [p] }));
  });
  repeat(150, () => {
    const p = person(), s = { p, dish: rng.pick(W.DISHES), v: rng.pick(["too salty", "a keeper", "better than the restaurant version", "a disaster", "good but slow to make"]) };
    return [{ text: fill("{p} tried a new recipe for {dish}: {v}.", s), type: "event", topic: "food", day: day(), people: [p] }];
  });
  repeat(120, () => {
    const p = person(), s = { p, book: rng.pick(W.BOOKS), op: rng.pick(["loves the slow start", "finds the middle part dull", "recommends it to everyone", "gave up halfway", "is reading it for the book club"]) };
    return [{ text: fill(rng.pick(["{p} is reading {book} and {op}.", "{p} finished {book}; {op}."]), s), type: "preference", topic: "reading", day: day(), people: [p] }];
  });
  repeat(150, () => {
    const p = person(), s = { p, wd: rng.pick(W.WEEKDAYS.slice(1, 6)), h: rng.range(8, 17), part: rng.pick(["knee", "shoulder", "lower back", "wrist"]), al: rng.pick(["peanuts", "cats", "penicillin", "shellfish", "pollen"]), habit: rng.pick(["leaving the phone in the kitchen", "stopping coffee after noon", "a fixed bedtime", "morning walks"]) };
    return [{ text: fill(rng.pick(["{p} has a dentist appointment on {wd} at {h}:00.", "{p} started physiotherapy for a sore {part}.", "{p} is allergic to {al}.", "{p} sleeps better since {habit}.", "{p}'s doctor said the {part} needs four more weeks of rest."]), s), type: "fact", topic: "health", day: day(), people: [p], emotion: rng.pick([-2, -1, 0, 1]) }];
  });
  repeat(100, () => {
    const p = person(), s = { p, drink: rng.pick(["oat milk in coffee", "green tea", "sparkling water", "espresso"]), food: rng.pick(["cilantro", "olives", "blue cheese", "mushrooms", "spicy food"]), rest: rng.pick(W.RESTAURANTS), city: rng.pick(W.CITIES) };
    return [{ text: fill(rng.pick(["{p} prefers {drink} in the morning.", "{p} dislikes {food}.", "{p}'s favourite restaurant is {rest} in {city}.", "{p} prefers a window seat and {drink} on long flights."]), s), type: "preference", topic: "food", day: day(), people: [p] }];
  });
  repeat(100, () => {
    const p = person(), s = { p, who: rng.pick(["sister", "brother", "mother", "father", "cousin", "nephew"]), name: rng.pick(["Sara", "Tomas", "Lena", "Omar", "Rita", "Kofi", "Yuki", "Pablo"]), m: month(), d: rng.range(1, 28) };
    return [{ text: fill(rng.pick(["{p}'s {who} {name} visits in {m}.", "{p}'s {who} {name} has a birthday on {m} {d}.", "{p} called {who} {name} about the family dinner in {m}."]), s), type: "fact", topic: "family", day: day(), people: [p], emotion: 1 }];
  });
  repeat(120, () => {
    const p = person(), s = { p, inst: rng.pick(W.INSTRUMENTS), n: rng.range(10, 45), lang: rng.pick(W.LANGUAGES), plant: rng.pick(W.PLANTS) };
    return [{ text: fill(rng.pick(["{p} practises {inst} {n} minutes a day.", "{p} started learning {lang} with an app.", "{p} planted {plant} on the balcony.", "{p} passed the first {lang} exam."]), s), type: "event", topic: "hobby", day: day(), people: [p], emotion: 2 }];
  });
  repeat(100, () => {
    const p = person(), s = { p, bill: rng.pick(["electricity", "internet", "phone", "water", "insurance"]), n: rng.range(20, 240) };
    return [{ text: fill(rng.pick(["{p} paid the {bill} bill of {n} euros.", "The {bill} bill for {p} went up to {n} euros."]), s), type: "fact", topic: "finance", day: day(), people: [p] }];
  });

  // --- recurring logs (the temporal class picks one entry by its time window) ---
  const series = [];
  const log = (key, question, n, gapLo, gapHi, make) => {
    const id = `series${series.length}`;
    series.push({ id, key, question });
    let d = rng.int(gapHi);
    for (let i = 0; i < n && d < SPAN_DAYS; i++, d += rng.range(gapLo, gapHi)) {
      for (let t = 0; t < 10; t++) if (add([{ ...make(i), day: d, series: id }])) break;
    }
  };
  for (const proj of PROJECT_NAMES) {
    const team = W.PEOPLE.filter((p) => p.projects.includes(proj)).map((p) => p.first);
    log(`sync:${proj}`, rng.pick([`What did the weekly ${proj} sync report?`, `weekly ${proj} sync status`, `How was ${proj} doing at the weekly sync?`]), 45, 8, 22, () => {
      const p = rng.pick(team), status = fill(rng.pick(W.SYNC_STATUS), { part: rng.pick(W.PROJECTS[proj].parts), n: rng.range(10, 95), ms: rng.range(40, 900), k: rng.range(2, 12) });
      return { text: `Weekly ${proj} sync: ${p} said ${status}.`, type: "event", topic: "work", people: [p], project: proj };
    });
    log(`review:${proj}`, rng.pick([`What was demoed at the ${proj} sprint review?`, `${proj} sprint review demo`]), 22, 14, 35, (i) => {
      const p = rng.pick(team);
      return { text: `Sprint ${i + 1} review for ${proj}: ${p} demoed ${rng.pick(W.FEATURES)} in the ${rng.pick(W.PROJECTS[proj].parts)}.`, type: "event", topic: "work", people: [p], project: proj, emotion: 1 };
    });
    log(`oncall:${proj}`, rng.pick([`How did the ${proj} on-call week go?`, `${proj} on-call pages`]), 20, 21, 40, () => {
      const p = rng.pick(team);
      return { text: `${p} was on call for ${proj}: ${rng.range(0, 14)} pages, the worst one was ${rng.pick(W.SYMPTOMS)}.`, type: "event", topic: "work", people: [p], project: proj, emotion: -1 };
    });
  }
  for (const [m, reports] of Object.entries(W.MANAGES)) {
    for (const r of reports) {
      log(`1on1:${m}:${r}`, rng.pick([`What did ${m} and ${r} talk about in their one-on-one?`, `${r} one-on-one with ${m}`]), 14, 20, 45, () => ({
        text: `One-on-one between ${m} and ${r}: talked about ${rng.pick(W.CAREER_TOPICS)}.`, type: "event", topic: "work", people: [m, r],
      }));
    }
  }
  for (const [p, hobby] of [["Ana", "running"], ["Ben", "cycling"], ["Grace", "running"], ["Hugo", "swimming"], ["Kemi", "climbing"], ["Luca", "cycling"], ["Noah", "running"]]) {
    const h = W.HOBBIES[hobby];
    log(`hobby:${p}`, rng.pick([`How far ${p === "Kemi" ? "did Kemi get" : `did ${p} go`} ${hobby}?`, `${p} ${hobby} log`]), 28, 10, 35, () => ({
      text: hobby === "climbing"
        ? `${p} climbed ${rng.range(4, 14)} routes ${rng.pick(h.places)}, hardest was grade ${rng.range(5, 7)}${rng.pick(["a", "b", "c"])}.`
        : `${p} ${h.verb} ${rng.range(3, 42)} km ${rng.pick(h.places)} in ${rng.range(20, 150)} minutes.`,
      type: "event", topic: "hobby", people: [p], emotion: 2,
    }));
  }
  for (const p of ["Dev", "Iris", "Maya", "Farid", "Chloe"]) {
    log(`dinner:${p}`, rng.pick([`What did ${p} cook for dinner?`, `${p} dinner`]), 18, 14, 40, () => ({
      text: `${p} cooked ${rng.pick(W.DISHES)} for dinner with ${rng.pick(["friends", "the neighbours", "family", "a colleague", "the book club"])}.`, type: "event", topic: "food", people: [p], emotion: 2,
    }));
  }
  for (const [p, cat] of [["Elif", "groceries"], ["Elif", "eating out"], ["Jonas", "transport"], ["Jonas", "books"], ["Maya", "the gym"], ["Ana", "groceries"]]) {
    log(`spend:${p}:${cat}`, `How much did ${p} spend on ${cat}?`, 22, 26, 35, () => ({
      text: `${p} spent ${rng.range(15, 480)} euros on ${cat} this month.`, type: "fact", topic: "finance", people: [p],
    }));
  }

  return { drafts, series };
}

/** Turns drafts into memory records with ids, times, metadata and embeddings. */
function finishMemories(rng, drafts) {
  const order = drafts.map((d, i) => ({ d, i, t: d.day * DAY + rng.range(7, 22) * 3_600_000 + rng.int(60) * 60_000 }));
  order.sort((a, b) => a.t - b.t || a.i - b.i);
  return order.map(({ d, t }, k) => {
    const emotion = d.emotion ?? 0;
    const entities = [...new Set([...(d.people ?? []).map(fullName), ...(d.project ? [d.project] : []), ...(d.tools ?? [])])];
    const m = {
      id: `m${String(k).padStart(5, "0")}`,
      text: d.text,
      topic: d.topic,
      type: d.type,
      tags: [d.topic, ...(d.project ? [d.project.toLowerCase()] : [])],
      emotion,
      importance: d.type === "decision" ? 0.8 : d.type === "fact" ? 0.6 : 0.4,
      createdAt: START + t,
      entities,
    };
    if (emotion !== 0) m.emotionTags = [emotion > 0 ? "positive" : "negative"];
    return { memory: m, draft: d, embedding: embed(d.text) };
  });
}

// ---------------------------------------------------------------------------------------------
// Notes and the graph

/** Daily, weekly and quarterly notes; returns them and, per memory id, the paragraphs citing it. */
function buildNotes(rng, items) {
  const notes = [];
  const cites = new Map();
  const byDay = new Map();
  for (const it of items) {
    const d = Math.floor((it.memory.createdAt - START) / DAY);
    if (!byDay.has(d)) byDay.set(d, []);
    byDay.get(d).push(it);
  }
  const paragraph = (it) => {
    const [text] = swapSynonyms(rng, it.memory.text, 0.5);
    const subject = it.draft.project ?? it.draft.people?.[0] ?? cap(it.memory.topic);
    return `- **${subject}**: ${text}`;
  };
  const note = (id, period, start, heading, chosen) => {
    const blocks = [`# ${heading}`];
    chosen.forEach((it, p) => {
      blocks.push(paragraph(it));
      const key = `note:${id}#${p}`;
      if (!cites.has(it.memory.id)) cites.set(it.memory.id, []);
      cites.get(it.memory.id).push(key);
    });
    notes.push({ id, period, start, text: `${blocks.join("\n\n")}\n` });
  };
  const salient = (list) => list.filter((it) => it.draft.story || it.draft.type === "decision" || it.draft.series?.length || rng.chance(0.3));
  for (let d = 0; d < SPAN_DAYS; d++) {
    const list = byDay.get(d) ?? [];
    if (list.length >= 3 && rng.chance(0.3)) {
      note(`daily-${isoDay(START + d * DAY)}`, "daily", START + d * DAY, `Daily notes ${isoDay(START + d * DAY)}`, rng.sample(list, rng.range(2, 3)));
    }
  }
  for (let w = 0; w < SPAN_DAYS / 7; w++) {
    const list = [];
    for (let d = w * 7; d < w * 7 + 7; d++) list.push(...(byDay.get(d) ?? []));
    const pool = salient(list);
    if (pool.length === 0) continue;
    note(`weekly-${isoDay(START + w * 7 * DAY)}`, "weekly", START + w * 7 * DAY, `Week of ${isoDay(START + w * 7 * DAY)}`, rng.sample(pool, Math.min(pool.length, rng.range(3, 6))));
  }
  for (let q = 0; q < 8; q++) {
    const start = Date.UTC(2024, 5 + 3 * q, 1);
    const end = Date.UTC(2024, 8 + 3 * q, 1);
    const pool = items.filter((it) => it.memory.createdAt >= start && it.memory.createdAt < end && (it.draft.type === "decision" || (it.draft.story && it.draft.type === "event" && it.memory.emotion >= 3)));
    note(`quarterly-${isoDay(start)}`, "quarterly", start, `Quarter from ${isoDay(start)}`, rng.sample(pool, Math.min(pool.length, 8)));
  }
  return { notes, cites };
}

/** Entities and edges (with the memories that state them). */
function buildGraph(items) {
  const entities = [
    ...W.PEOPLE.map((p) => ({ name: `${p.first} ${p.last}`, type: "person", aliases: [p.first] })),
    ...PROJECT_NAMES.map((p) => ({ name: p, type: "project" })),
    ...ALL_TOOLS.map((t) => ({ name: t, type: "tool" })),
    ...W.CITIES.map((c) => ({ name: c, type: "place" })),
  ];
  const edges = new Map();
  const STRENGTH = { works_with: [0.45, 0.1], manages: [0.9, 0], lives_in: [0.8, 0], uses: [0.35, 0.05], works_on: [0.7, 0] };
  for (const it of items) {
    for (const [a, relation, b] of it.draft.support ?? []) {
      let [from, to] = [a, b];
      if (relation === "works_with" && W.PEOPLE.findIndex((p) => p.first === a) > W.PEOPLE.findIndex((p) => p.first === b)) [from, to] = [b, a];
      const fromName = PERSON.has(from) ? fullName(from) : from;
      const toName = PERSON.has(to) ? fullName(to) : to;
      const id = edgeId(fromName, relation, toName);
      if (!edges.has(id)) edges.set(id, { id, from: fromName, relation, to: toName, memoryIds: [], createdAt: it.memory.createdAt });
      edges.get(id).memoryIds.push(it.memory.id);
    }
  }
  for (const e of edges.values()) {
    const [base, step] = STRENGTH[e.relation];
    e.strength = Math.round(Math.min(0.95, base + step * (e.memoryIds.length - 1)) * 100) / 100;
  }
  return { entities, edges: [...edges.values()] };
}

// ---------------------------------------------------------------------------------------------
// Queries

const KEYBOARD = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];
function neighbour(rng, ch) {
  for (let r = 0; r < 3; r++) {
    const i = KEYBOARD[r].indexOf(ch);
    if (i < 0) continue;
    const near = [KEYBOARD[r][i - 1], KEYBOARD[r][i + 1]].filter(Boolean);
    return rng.pick(near);
  }
  return "e";
}
/** One random edit (substitution by a keyboard neighbour, deletion, insertion, transposition). */
function typo(rng, w) {
  const chars = [...w];
  const i = rng.range(1, chars.length - 2);
  switch (rng.int(4)) {
    case 0: chars[i] = neighbour(rng, chars[i].toLowerCase()); break;
    case 1: chars.splice(i, 1); break;
    case 2: chars.splice(i, 0, chars[i].toLowerCase()); break;
    default: [chars[i], chars[i + 1]] = [chars[i + 1], chars[i]];
  }
  return chars.join("");
}

function buildQueries(rng, items, series, cites, graph) {
  const index = new Map();
  const tokenSets = items.map((it) => new Set(words(it.memory.text)));
  tokenSets.forEach((set, i) => { for (const w of set) { if (!index.has(w)) index.set(w, []); index.get(w).push(i); } });
  const df = (w) => index.get(w)?.length ?? 0;
  const vocabulary = new Set(index.keys());
  const holding = (ws) => {
    let cand = index.get(ws[0]) ?? [];
    for (const w of ws.slice(1)) cand = cand.filter((i) => tokenSets[i].has(w));
    return cand;
  };
  const stories = new Map();
  items.forEach((it, i) => { if (it.draft.story) { if (!stories.has(it.draft.story)) stories.set(it.draft.story, []); stories.get(it.draft.story).push(i); } });
  const labelsFor = (i) => {
    const rel = { [items[i].memory.id]: 2 };
    for (const j of stories.get(items[i].draft.story) ?? []) if (j !== i) rel[items[j].memory.id] = 1;
    for (const p of cites.get(items[i].memory.id) ?? []) rel[p] = 1;
    return rel;
  };
  /** The content words of a text with their surface forms, in order, without repeats. */
  const content = (text) => {
    const out = [];
    const seen = new Set();
    for (const surface of text.match(/[\p{L}\p{N}]+/gu) ?? []) {
      const w = words(surface)[0];
      if (w === undefined || W.STOPWORDS.has(w) || seen.has(w) || w.length < 2) continue;
      seen.add(w);
      out.push({ w, surface });
    }
    return out;
  };
  /** k..5 content words of the target that no other memory holds all of, in text order. */
  const keywords = (i, kLo, kHi) => {
    const cw = content(items[i].memory.text);
    if (cw.length < kLo) return undefined;
    for (let t = 0; t < 40; t++) {
      const k = rng.range(kLo, Math.min(kHi, cw.length));
      const pickIdx = rng.sample(cw.map((_, j) => j), k).sort((a, b) => a - b);
      const chosen = pickIdx.map((j) => cw[j]);
      if (holding(chosen.map((c) => c.w)).length === 1) return chosen;
    }
    const rare = cw.map((c, j) => ({ c, j })).sort((a, b) => df(a.c.w) - df(b.c.w) || a.j - b.j);
    const chosen = [];
    for (const { c, j } of rare) {
      chosen.push({ c, j });
      if (chosen.length >= kLo && holding(chosen.map((x) => x.c.w)).length === 1) return chosen.sort((a, b) => a.j - b.j).map((x) => x.c);
      if (chosen.length >= kHi + 1) break;
    }
    return undefined;
  };

  const queries = [];
  const used = new Set();
  const free = items.map((it, i) => i).filter((i) => !items[i].draft.series);
  const nextTarget = (filter = () => true) => {
    for (let t = 0; t < 1000; t++) {
      const i = rng.pick(free);
      if (!used.has(i) && filter(i)) {
        used.add(i);
        return i;
      }
    }
    throw new Error("no target left");
  };
  const push = (cls, text, relevant, extra = {}) => {
    queries.push({ id: `${cls}-${String(queries.filter((q) => q.class === cls).length).padStart(3, "0")}`, class: cls, text, ...extra, relevant });
  };

  while (queries.filter((q) => q.class === "exact").length < PER_CLASS) {
    const i = nextTarget();
    const kw = keywords(i, 3, 5);
    if (kw) push("exact", kw.map((c) => c.surface).join(" "), labelsFor(i), { target: items[i].memory.id });
  }
  while (queries.filter((q) => q.class === "typo").length < PER_CLASS) {
    const i = nextTarget();
    const kw = keywords(i, 3, 6);
    if (!kw) continue;
    const long = kw.map((c, j) => ({ c, j })).filter(({ c }) => c.surface.length >= 4 && !/\d/.test(c.surface));
    const n = Math.max(1, Math.round(kw.length * 0.3));
    if (long.length < n) continue;
    const edit = new Set(rng.sample(long, n).map((x) => x.j));
    const text = kw.map((c, j) => {
      if (!edit.has(j)) return c.surface;
      for (let t = 0; t < 10; t++) {
        const v = typo(rng, c.surface);
        if (!vocabulary.has(words(v).join(""))) return v;
      }
      return typo(rng, c.surface);
    }).join(" ");
    push("typo", text, labelsFor(i), { target: items[i].memory.id });
  }
  const frames = ["{q}", "what about {q}?", "anything on {q}", "remind me about {q}", "{q} — what happened?", "what do I know about {q}?"];
  while (queries.filter((q) => q.class === "paraphrase").length < PER_CLASS) {
    const i = nextTarget((j) => content(items[j].memory.text).filter((c) => SYN.has(c.w)).length >= 2);
    const cw = content(items[i].memory.text);
    const anchors = cw.filter((c) => ANCHORS.has(c.w) || /\d/.test(c.w));
    const rest = cw.filter((c) => !ANCHORS.has(c.w) && !/\d/.test(c.w));
    // Half the words, synonyms swapped in, one or two names kept, shuffled; the original words
    // behind the query must belong to the target alone, so that it is the answer.
    for (let t = 0; t < 40; t++) {
      const swapped = rest.map((c) => (SYN.has(c.w) ? { ...c, surface: rng.pick(SYN.get(c.w).filter((x) => x !== c.w)), syn: true } : c));
      const keepRest = swapped.filter((c) => c.syn || rng.chance(0.4));
      const half = rng.sample(keepRest, Math.max(2, Math.ceil(rest.length / 2)));
      if (!half.some((c) => c.syn)) continue;
      const keptAnchors = rng.sample(anchors, Math.min(anchors.length, rng.range(1, 2)));
      if (holding([...keptAnchors, ...half].map((c) => c.w)).length !== 1) continue;
      const q = rng.shuffle([...keptAnchors, ...half]).map((c) => c.surface).join(" ");
      push("paraphrase", fill(rng.pick(frames), { q }), labelsFor(i), { target: items[i].memory.id });
      break;
    }
  }

  const bySeries = new Map(series.map((s) => [s.id, []]));
  items.forEach((it, i) => { if (it.draft.series) bySeries.get(it.draft.series).push(i); });
  const seriesIds = series.map((s) => s.id);
  const usedSeries = new Map();
  while (queries.filter((q) => q.class === "temporal").length < PER_CLASS) {
    const s = series[seriesIds.indexOf(rng.pick(seriesIds))];
    if ((usedSeries.get(s.id) ?? 0) >= 3) continue;
    const members = bySeries.get(s.id);
    const i = rng.pick(members);
    if (used.has(i)) continue;
    const d = Math.floor((items[i].memory.createdAt - START) / DAY);
    const first = Math.max(0, d - rng.int(7));
    const start = START + first * DAY;
    const end = start + 7 * DAY - 1;
    if (members.some((j) => j !== i && items[j].memory.createdAt >= start && items[j].memory.createdAt <= end)) continue;
    used.add(i);
    usedSeries.set(s.id, (usedSeries.get(s.id) ?? 0) + 1);
    push("temporal", s.question, labelsFor(i), { start, end, target: items[i].memory.id });
  }

  const edgesOf = (pred) => graph.edges.filter(pred);
  const entityQuery = (text, edges) => {
    if (edges.length === 0) return;
    const rel = {};
    for (const e of edges) for (const m of e.memoryIds) rel[m] = 1;
    for (const e of edges) rel[e.id] = 2;
    push("entity", text, rel);
  };
  for (const p of W.PEOPLE) {
    const name = fullName(p.first);
    entityQuery(rng.pick([`who does ${p.first} work with?`, `who are ${p.first}'s collaborators?`]), edgesOf((e) => e.relation === "works_with" && (e.from === name || e.to === name)));
    entityQuery(rng.pick([`who is ${p.first}'s manager?`, `who does ${p.first} report to?`]), edgesOf((e) => e.relation === "manages" && e.to === name));
    entityQuery(`who does ${p.first} manage?`, edgesOf((e) => e.relation === "manages" && e.from === name));
    entityQuery(rng.pick([`where does ${p.first} live?`, `which city is ${p.first} in?`]), edgesOf((e) => e.relation === "lives_in" && e.from === name));
    entityQuery(rng.pick([`what tools does ${p.first} use?`, `which tools is ${p.first} using?`]), edgesOf((e) => e.relation === "uses" && e.from === name));
  }
  for (const proj of PROJECT_NAMES) entityQuery(rng.pick([`who works on ${proj}?`, `who is on the ${proj} team?`]), edgesOf((e) => e.relation === "works_on" && e.to === proj));
  for (const q of queries) q.embedding = embed(q.text);
  return queries;
}

// ---------------------------------------------------------------------------------------------

/**
 * Generates the labelled set. Returns `{ meta, memories, embeddings, notes, entities, edges,
 * queries }`; memories are engine-ready records (times in ms), `embeddings[i]` belongs to
 * `memories[i]`, queries carry `{ id, class, text, start?, end?, target?, relevant, embedding }`.
 */
export function generate(seed = DEFAULT_SEED) {
  const rng = new Rng(seed);
  const { drafts, series } = buildMemories(rng);
  const items = finishMemories(rng, drafts);
  const { notes, cites } = buildNotes(rng, items);
  const graph = buildGraph(items);
  const queries = buildQueries(rng, items, series, cites, graph);
  const classes = {};
  for (const q of queries) classes[q.class] = (classes[q.class] ?? 0) + 1;
  return {
    meta: { seed, now: NOW, start: START, spanDays: SPAN_DAYS, dims: items[0].embedding.length, memories: items.length, notes: notes.length, entities: graph.entities.length, edges: graph.edges.length, queries: queries.length, classes },
    memories: items.map((it) => it.memory),
    embeddings: items.map((it) => it.embedding),
    notes,
    entities: graph.entities,
    edges: graph.edges,
    queries,
  };
}

/** SHA-256 of the set's canonical JSON (embeddings as their float32 bytes). */
export function fingerprint(set) {
  const h = createHash("sha256");
  h.update(JSON.stringify({ ...set, embeddings: undefined, queries: set.queries.map((q) => ({ ...q, embedding: undefined })) }));
  for (const e of set.embeddings) h.update(new Uint8Array(e.buffer, e.byteOffset, e.byteLength));
  for (const q of set.queries) h.update(new Uint8Array(q.embedding.buffer, q.embedding.byteOffset, q.embedding.byteLength));
  return h.digest("hex");
}

function main(argv) {
  const arg = (name) => {
    const i = argv.indexOf(name);
    return i < 0 ? undefined : argv[i + 1];
  };
  const seed = Number(arg("--seed") ?? DEFAULT_SEED);
  const set = generate(seed);
  console.log(JSON.stringify({ ...set.meta, sha256: fingerprint(set) }, null, 2));
  const out = arg("--out");
  if (out !== undefined) {
    const json = { ...set, embeddings: set.embeddings.map((e) => Array.from(e)), queries: set.queries.map((q) => ({ ...q, embedding: Array.from(q.embedding) })) };
    writeFileSync(out, JSON.stringify(json));
    console.error(`wrote ${out}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
