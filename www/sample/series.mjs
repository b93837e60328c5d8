// Recurring memories of the sample store, built from hand-written parts with a seeded
// generator (so the output is identical on every run): runs, one-to-ones, books, lessons,
// pottery sessions, dinners, the cat, monthly budgets and small work facts.

/** mulberry32: a small deterministic generator; returns numbers in [0, 1). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY_MS = 86_400_000;
const pad = (n) => String(n).padStart(2, "0");
const stamp = (ms) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");
const pick = (rand, items) => items[Math.floor(rand() * items.length)];

/** Dates from start, stepping `everyDays`, skipping [skipFrom, skipTo). */
function dates(start, end, everyDays, skip = []) {
  const out = [];
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${end}T00:00:00Z`); t += everyDays * DAY_MS) {
    if (!skip.some(([a, b]) => t >= Date.parse(`${a}T00:00:00Z`) && t < Date.parse(`${b}T00:00:00Z`))) out.push(t);
  }
  return out;
}

const ROUTES = [
  "around Parque da Cidade", "along the Douro riverside to Foz", "on the Matosinhos beach promenade",
  "on the Serralves loop", "up and down the Bonfim hills", "across the Arrábida bridge and back",
  "on the track at Estádio Universitário", "from home to the Palácio de Cristal gardens",
];
const RUN_NOTES = [
  "legs heavy after yesterday's pottery class", "easy conversational pace the whole way", "windy on the way back",
  "rain for the last 3 km, felt great anyway", "knee completely quiet", "new shoes, a bit stiff in the heel",
  "strides at the end: 6 × 20 seconds", "ran with Marta, we talked about work the whole time",
  "too fast in the first kilometre again", "hot, needed water at the fountain in Foz",
  "sunrise over the river, worth the early alarm", "hamstring tight, stretched for 10 minutes after",
  "listened to a podcast about Postgres internals", "negative split, last km in 5:05",
];

/** About 45 runs over the year, none during the knee injury (16 March – 11 April). */
function runs(rand) {
  return dates("2025-11-22", "2026-11-05", 8, [["2026-03-16", "2026-04-12"]]).map((day, i) => {
    const km = Math.round((5 + rand() * (i % 5 === 4 ? 12 : 6)) * 10) / 10;
    const pace = 5.1 + rand() * 0.9;
    const total = Math.round(km * pace * 60);
    const time = `${Math.floor(total / 60)}:${pad(total % 60)}`;
    const paceText = `${Math.floor(pace)}:${pad(Math.round((pace % 1) * 60) % 60)}`;
    const route = pick(rand, ROUTES);
    const note = pick(rand, RUN_NOTES);
    return [`run-${i + 1}`, stamp(day + (7 + Math.floor(rand() * 2)) * 3_600_000), "health", "event",
      `Ran ${km} km ${route} in ${time} (${paceText}/km); ${note}.`,
      { tags: ["running", "training", km >= 14 ? "long run" : "easy run"], e: Math.floor(rand() * 4) - 1,
        emotionTags: km >= 14 ? ["tired", "proud"] : [], entities: route.includes("Parque") ? ["Parque da Cidade"] : [] }];
  });
}

const KARIM_ONE_TO_ONES = [
  "asked for more time for on-call handovers; he agreed to a 30-minute overlap",
  "discussed the Q1 roadmap: webhooks first, reports later",
  "he thinks my design docs are too long; aim for one page with options",
  "talked about the backend lead role; he wants me to delegate code reviews to Diogo",
  "agreed to cut the reporting revamp from Q2 to make room for search",
  "he wants a written plan for retiring Elasticsearch by September",
  "budget for Lighthouse approved: two engineers for four months",
  "talked about my career: staff engineer track or engineering manager; no rush",
  "he asked me to present the Lighthouse plan at the all-hands",
  "went through the Lighthouse kickoff agenda; he wants a rollback plan on day one",
  "agreed to try moving the weekly deploy to Tuesday mornings",
  "reviewed my feedback for Diogo's mid-year review; make it more specific",
  "he suggested I submit a talk about Lighthouse to DevHarbour",
  "Q3 check-in: search latency on track, Elasticsearch shutdown planned for September",
  "he asked for a plan to hire a senior backend engineer",
  "talked about burnout after the migration scare; he told me to take Friday off",
  "discussed salary bands for the senior backend role",
  "planned the hiring loop for the senior backend role",
  "reviewed Q4 objectives and the Atlântico pilot risks",
  "talked about the October outage and who owns database capacity planning; Priya gets a second SRE in 2027",
  "he asked how I'm sleeping after the night pages; honest answer: badly",
];

const DIOGO_ONE_TO_ONES = [
  "walked through the shipments table indexes together",
  "he wants to learn more about Postgres locking; sent him the docs on lock levels",
  "he felt blocked by vague tickets; agreed he can push back on unclear requirements",
  "practised writing a design doc for the partitioning migration",
  "reviewed the rollout plan for the partitioning migration, looks solid",
  "celebrated the partitioning migration; next goal is owning the webhook retries",
  "discussed his mid-year review: strong on execution, wants more on design",
  "he asked for feedback on his code reviews: be kinder in the first sentence",
  "talked about imposter syndrome; shared my own first year at Tidepool",
  "talked about pairing with a new senior hire if Marek accepts the offer",
];

const LIGHTHOUSE_SYNCS = [
  "agreed on the three tables: porter, trigram and an id map",
  "Leo showed the first import of Porto Freight data, 2.1 million consignments in 40 seconds",
  "trigram index is 1.8 GB; we'll drop columns nobody searches",
  "ranking question: exact container numbers must always come first",
  "dual-write to Elasticsearch and SQLite in staging from next week",
  "shadow traffic shows 97% identical top-10 results; the rest are better",
  "rollout plan: 10% of customers, then 50%, then everyone in September",
  "Porto Freight moved to the new search; Helena's team noticed nothing, which is the point",
  "final go/no-go for switching off Elasticsearch on 2 September: go",
  "removed the Elasticsearch client from the codebase (minus 4,300 lines) and wrote the retro: on time, under budget, one scary night",
];

function meetings(rand) {
  const out = [];
  dates("2025-12-01", "2026-11-09", 17).slice(0, KARIM_ONE_TO_ONES.length).forEach((day, i) => {
    out.push([`oneonone-karim-${i + 1}`, stamp(day + 15 * 3_600_000), "work", "event",
      `One-to-one with Karim: ${KARIM_ONE_TO_ONES[i]}.`,
      { tags: ["one-to-one", "manager"], entities: ["Karim Haddad"], e: Math.floor(rand() * 3) - 1 }]);
  });
  dates("2026-02-16", "2026-11-09", 28).slice(0, DIOGO_ONE_TO_ONES.length).forEach((day, i) => {
    out.push([`oneonone-diogo-${i + 1}`, stamp(day + 11 * 3_600_000), "work", "event",
      `One-to-one with Diogo: ${DIOGO_ONE_TO_ONES[i]}.`,
      { tags: ["one-to-one", "mentoring"], entities: ["Diogo Santos"], e: Math.floor(rand() * 3) }]);
  });
  dates("2026-05-11", "2026-09-14", 14).slice(0, LIGHTHOUSE_SYNCS.length).forEach((day, i) => {
    out.push([`lighthouse-sync-${i + 1}`, stamp(day + 14 * 3_600_000), "work", "event",
      `Lighthouse sync: ${LIGHTHOUSE_SYNCS[i]}.`,
      { tags: ["lighthouse", "meeting", "search"], entities: ["Project Lighthouse", "Leo Martins"], e: Math.floor(rand() * 3) }]);
  });
  return out;
}

const BOOKS = [
  ["2025-12-14", "Designing Data-Intensive Applications", "Martin Kleppmann", "the chapter on replication explains our replica lag better than any runbook", 5],
  ["2026-01-25", "Klara and the Sun", "Kazuo Ishiguro", "quiet and sad; Klara's loyalty stayed with me for days", 4],
  ["2026-02-25", "The Manager's Path", "Camille Fournier", "the tech lead chapter describes my first month exactly", 5],
  ["2026-03-29", "Project Hail Mary", "Andy Weir", "read it in two evenings while my knee healed; Rocky is the best character", 5],
  ["2026-04-30", "A Viagem do Elefante", "José Saramago", "read in Portuguese; the long sentences finally felt like music", 4],
  ["2026-05-31", "Thinking in Systems", "Donella Meadows", "stocks and flows are a good way to think about on-call load", 4],
  ["2026-06-30", "Born to Run", "Christopher McDougall", "fun, but I'm not switching to sandals", 3],
  ["2026-07-28", "Kitchen", "Banana Yoshimoto", "short and tender, a good start for the Japan reading list", 4],
  ["2026-08-31", "Educated", "Tara Westover", "hard to read, impossible to stop", 5],
  ["2026-09-27", "Norwegian Wood", "Haruki Murakami", "melancholic; Tomás liked it more than I did", 3],
  ["2026-10-26", "The Remains of the Day", "Kazuo Ishiguro", "about a life spent on duty; uncomfortable reading after the night pages", 4],
  ["2026-11-11", "Atomic Habits", "James Clear", "the two-minute rule got me back to the breathing exercises", 3],
];

function books() {
  return BOOKS.map(([day, title, author, note, stars], i) => [`book-${i + 1}`, `${day} 22:00`, "learning", "event",
    `Finished reading '${title}' by ${author}: ${note}. ${"★".repeat(stars)}${"☆".repeat(5 - stars)}`,
    { tags: ["books", "reading"], e: stars - 3, emotionTags: stars >= 5 ? ["delight"] : [] }]);
}

const JAPANESE = [
  ["hiragana あ to そ", "Yuki says to learn them with words, not alone: あさ (morning), いぬ (dog)"],
  ["hiragana た to ほ", "mixed up ぬ and め all week"],
  ["the rest of hiragana", "can read my name now: いねす"],
  ["katakana ア to ソ", "katakana is easier because loanwords help: コーヒー is coffee"],
  ["katakana タ to ン", "wrote ポルト (Porto) and ミソ (Miso) on the fridge"],
  ["train station phrases", "「きっぷをください」 means 'a ticket, please'"],
  ["restaurant phrases and allergies", "learned カシューナッツアレルギー for Tomás's cashew allergy"],
  ["numbers and prices", "counting to 10,000 is fine, counting objects is chaos"],
];

function japanese() {
  return dates("2026-09-28", "2026-11-16", 7).slice(0, JAPANESE.length).map((day, i) => [`japanese-${i + 1}`,
    stamp(day + 20 * 3_600_000), "learning", "event",
    `Japanese lesson ${i + 1} with Yuki: ${JAPANESE[i][0]}; ${JAPANESE[i][1]}.`,
    { tags: ["japanese", "language", "lesson"], entities: ["Yuki Tanaka"], e: i % 3 === 1 ? -1 : 2 }]);
}

const POTTERY = [
  "trimmed three cylinders, one wobbles", "threw my first bowl that didn't collapse",
  "Carla showed me how to pull handles for mugs", "a whole session of failed plates, laughed a lot",
  "made a small vase for Mum's birthday", "tested a new tenmoku glaze, looks like dark honey",
  "made a water bowl for Miso with her name on it", "started a set of six espresso cups for the new kitchen",
  "the espresso cups came out of the kiln; two have crawled glaze but I love them",
];

function pottery() {
  return dates("2026-03-07", "2026-11-07", 28).slice(0, POTTERY.length).map((day, i) => [`pottery-${i + 1}`,
    stamp(day + 11 * 3_600_000), "hobbies", "event", `Pottery at Barro Vivo: ${POTTERY[i]}.`,
    { tags: ["pottery", "class"], entities: ["Barro Vivo"], e: i === 3 ? 0 : 2 }]);
}

const DINNERS = [
  ["2025-12-07", "bacalhau com natas for Rui's visit; he had thirds", ["bacalhau", "family"]],
  ["2025-12-24", "Christmas Eve at Mum's: bacalhau, couves and the orange cake from avó Rosa's notebook", ["christmas", "family"]],
  ["2026-01-18", "tried a Thai green curry; checked the paste label twice for cashews", ["curry", "allergy"]],
  ["2026-02-08", "Tomás made his grandmother's arroz de pato; I'm writing down the recipe this time", ["rice", "recipe"]],
  ["2026-03-21", "lentil soup with spinach and cumin, comfort food for the injured knee", ["soup", "vegetarian"]],
  ["2026-05-03", "grilled sardines on the balcony with Bruno and Marta", ["sardines", "friends"]],
  ["2026-06-23", "São João night: sardines, caldo verde and plastic hammers in Fontainhas", ["são joão", "festival"]],
  ["2026-08-16", "gazpacho during the heatwave, too much garlic", ["soup", "summer"]],
  ["2026-09-06", "camping-stove dinners during the kitchen renovation: instant noodles, again", ["renovation"]],
  ["2026-10-10", "caldo verde, the first dinner in the new kitchen", ["soup", "kitchen"]],
  ["2026-10-31", "miso soup and onigiri, practising for Japan; Miso the cat was very interested", ["japanese", "practice"]],
  ["2026-11-02", "pasta with a new cashew-free pesto; Tomás approved", ["pasta", "allergy"]],
];

function dinners() {
  return DINNERS.map(([day, text, tags], i) => [`dinner-${i + 1}`, `${day} 20:30`, "food", "event",
    `Dinner: ${text}.`, { tags: ["cooking", ...tags], e: 2 }]);
}

const MISO = [
  ["2025-12-12", "Miso discovered the Christmas tree and knocked off two baubles before breakfast", 2],
  ["2026-01-30", "Miso sleeps on the radiator shelf all day in winter; bought her a fleece bed for it", 2],
  ["2026-04-08", "Miso ignored the new scratching post for a week, then moved into its box", 3],
  ["2026-05-19", "weighed Miso at the clinic: 4.6 kg, the vet wants her at 4.3", 0],
  ["2026-07-08", "Dona Amélia sent photos of Miso every evening while we were in the Azores", 3],
  ["2026-09-10", "Miso hid in the wardrobe for the whole first day of the kitchen works", -2],
  ["2026-10-27", "Miso brought a sock to the living room and meowed until we praised her", 3],
  ["2026-11-12", "Miso's weight is down to 4.4 kg; the new feeding plan works", 2],
];

function miso() {
  return MISO.map(([day, text, e], i) => [`miso-${i + 1}`, `${day} 19:00`, "home", "event", `${text[0].toUpperCase()}${text.slice(1)}.`,
    { tags: ["cat", "pet"], entities: ["Miso"], e }]);
}

const MONTHS = ["2025-11", "2025-12", "2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06", "2026-07", "2026-08", "2026-09", "2026-10"];
const BUDGET_NOTES = [
  "Black Friday purchases were only the new running shoes", "Christmas gifts blew the eating-out line",
  "a quiet month", "pottery course paid for three months", "physio sessions cost 180 euros",
  "Mum's train tickets to and from the hospital", "Tomás's birthday dinner", "São João and the Azores deposits",
  "Azores trip, 2,300 euros from the travel fund", "cancelled subscriptions, finally",
  "kitchen renovation instalment", "kitchen final payment and the half-marathon entry",
];

function budgets(rand) {
  return MONTHS.map((month, i) => {
    const groceries = 360 + Math.round(rand() * 90);
    const eatingOut = 120 + Math.round(rand() * 140);
    const saved = 380 + Math.round(rand() * 250);
    const [y, m] = month.split("-").map(Number);
    const next = m === 12 ? `${y + 1}-01` : `${y}-${pad(m + 1)}`;
    const name = new Date(`${month}-01T00:00:00Z`).toLocaleString("en", { month: "long", timeZone: "UTC" });
    return [`budget-${month}`, `${next}-01 21:00`, "finance", "fact",
      `${name} budget: groceries ${groceries} euros, eating out ${eatingOut}, saved ${saved}; ${BUDGET_NOTES[i]}.`,
      { tags: ["budget", "monthly review"], e: saved >= 500 ? 2 : -1 }];
  });
}

const WORK_FACTS = [
  ["2025-11-24", "The tracking events table grows by about 1.2 million rows a day; partitions are monthly."],
  ["2025-12-16", "Staging resets every night at 01:00 from an anonymised copy of production."],
  ["2026-01-08", "The Harbor iOS app still supports iOS 15 because two Porto Freight drivers use old iPhones."],
  ["2026-01-27", "Feature flags live in the config service; old flags are deleted on the first Monday of each month."],
  ["2026-02-24", "Our p99 API latency budget is 400 ms; the container lookup endpoint is the slowest at 310 ms."],
  ["2026-03-11", "The ETA estimator is retrained every Sunday night on the last 90 days of deliveries."],
  ["2026-04-07", "Customer support tickets tagged 'search' were 31% of all tickets in March."],
  ["2026-04-28", "Harbor sends about 80,000 push notifications a day, mostly 'out for delivery'."],
  ["2026-05-26", "The Postgres connection pool is capped at 200; PgBouncer runs in transaction mode."],
  ["2026-06-09", "Error budget for Q3: 43 minutes of downtime; we used 12 in July."],
  ["2026-07-21", "The search service holds the SQLite index in a 4 MB file per customer plus one shared vocabulary."],
  ["2026-08-04", "Backups run every 6 hours now, and a restore test runs every Monday at 05:00."],
  ["2026-08-25", "Harbor's public API has 37 endpoints; 5 of them carry 90% of the traffic."],
  ["2026-09-15", "The weekly Tuesday deploy takes about 22 minutes from merge to all three VMs."],
  ["2026-09-29", "Atlântico Logistics' trucks report GPS every 30 seconds, twice as often as Porto Freight's."],
  ["2026-10-08", "Lighthouse search answered 1.4 million queries in September with a p95 of 16 ms."],
  ["2026-10-23", "The replica now has 500 GB of disk instead of 200 GB, and WAL retention is capped at 50 GB."],
  ["2026-11-04", "The webhook queue is a Postgres table with SKIP LOCKED, not a separate message broker."],
];

function workFacts() {
  return WORK_FACTS.map(([day, text], i) => [`workfact-${i + 1}`, `${day} 16:00`, "work", "fact", text,
    { tags: ["harbor", "facts"], entities: ["Harbor"] }]);
}

/** Every recurring memory, in a fixed order. */
export function series(seed) {
  const rand = rng(seed);
  return [...runs(rand), ...meetings(rand), ...books(), ...japanese(), ...pottery(), ...dinners(), ...miso(), ...budgets(rand), ...workFacts()];
}
