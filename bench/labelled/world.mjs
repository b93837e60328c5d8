// The fictional world of the labelled set: people, projects, tools, places and the word lists
// the memory templates draw from, plus the synonym groups shared by the paraphrase queries and
// the word-vector model (model.mjs). Plain data: changing it changes the set (see README.md).

/** People: first name (used in texts), last name, home city, the projects they work on. */
export const PEOPLE = [
  { first: "Ana", last: "Souza", city: "Lisbon", projects: ["Atlas", "Harbor"] },
  { first: "Ben", last: "Okafor", city: "Berlin", projects: ["Atlas", "Delta"] },
  { first: "Chloe", last: "Martin", city: "Toronto", projects: ["Atlas", "Beacon"] },
  { first: "Dev", last: "Patel", city: "Austin", projects: ["Beacon", "Ember"] },
  { first: "Elif", last: "Yilmaz", city: "Berlin", projects: ["Cobalt"] },
  { first: "Farid", last: "Haddad", city: "Porto", projects: ["Cobalt", "Falcon"] },
  { first: "Grace", last: "Lin", city: "Toronto", projects: ["Delta"] },
  { first: "Hugo", last: "Weber", city: "Oslo", projects: ["Cobalt", "Granite"] },
  { first: "Iris", last: "Novak", city: "Lisbon", projects: ["Beacon", "Harbor"] },
  { first: "Jonas", last: "Berg", city: "Oslo", projects: ["Granite", "Falcon"] },
  { first: "Kemi", last: "Adeyemi", city: "Nairobi", projects: ["Harbor"] },
  { first: "Luca", last: "Rossi", city: "Porto", projects: ["Falcon", "Cobalt"] },
  { first: "Maya", last: "Cohen", city: "Osaka", projects: ["Ember", "Delta"] },
  { first: "Noah", last: "Kim", city: "Austin", projects: ["Ember", "Granite"] },
];

/** Who manages whom (manager → reports). */
export const MANAGES = {
  Kemi: ["Chloe", "Hugo", "Grace", "Maya", "Noah"],
  Chloe: ["Ana", "Ben", "Dev", "Iris"],
  Hugo: ["Elif", "Farid", "Jonas", "Luca"],
};

/** Projects and their components. */
export const PROJECTS = {
  Atlas: { what: "data pipeline", parts: ["ingestion service", "scheduler", "warehouse loader", "schema registry", "backfill job"] },
  Beacon: { what: "mobile app", parts: ["login flow", "onboarding screens", "push notifications", "offline sync", "settings page"] },
  Cobalt: { what: "billing service", parts: ["invoice export", "payment retries", "tax rules", "refunds endpoint", "pricing page"] },
  Delta: { what: "search service", parts: ["query parser", "ranking model", "search index", "autocomplete", "relevance tests"] },
  Ember: { what: "design system", parts: ["button library", "color tokens", "icon set", "docs site", "accessibility audit"] },
  Falcon: { what: "analytics dashboard", parts: ["retention chart", "funnel report", "export job", "alerting rules", "dashboard filters"] },
  Granite: { what: "internal wiki", parts: ["editor", "page history", "permissions model", "search box", "markdown importer"] },
  Harbor: { what: "deployment platform", parts: ["release pipeline", "canary deploys", "build cache", "rollback tool", "secrets manager"] },
};

/** Tools by kind; every tool is an entity of the graph. */
export const TOOLS = {
  datastore: ["SQLite", "Postgres", "Redis", "MySQL", "DynamoDB", "Elasticsearch", "ClickHouse", "MongoDB"],
  language: ["Rust", "TypeScript", "Python", "Kotlin", "Swift", "Golang"],
  infra: ["Kubernetes", "Terraform", "Docker", "Nomad"],
  ci: ["Jenkins", "CircleCI", "Buildkite", "GitLab"],
  observability: ["Grafana", "Sentry", "Datadog", "Prometheus"],
  queue: ["Kafka", "RabbitMQ", "NATS"],
  frontend: ["React", "Svelte", "Flutter", "Vue"],
  productivity: ["Figma", "Notion", "Jira", "Linear", "Obsidian"],
};

export const TOOL_TASKS = {
  datastore: ["store the events", "keep user sessions", "hold the audit log", "serve the read path", "cache hot queries"],
  language: ["write the workers", "build the command line tools", "prototype the new service", "write the integration tests"],
  infra: ["run the staging cluster", "describe the network", "package the services", "schedule batch jobs"],
  ci: ["run the test matrix", "build the release artifacts", "run nightly jobs"],
  observability: ["watch the latency", "track crashes", "page the on-call engineer", "graph the error rate"],
  queue: ["fan out the events", "buffer the webhooks", "decouple the writers"],
  frontend: ["build the admin screens", "render the charts", "build the settings screens"],
  productivity: ["sketch the screens", "keep meeting notes", "track the sprint", "plan the roadmap", "keep a work journal"],
};

export const CITIES = ["Lisbon", "Berlin", "Toronto", "Austin", "Porto", "Oslo", "Nairobi", "Osaka"];
export const NEIGHBOURHOODS = {
  Lisbon: ["Alfama", "Graça", "Campo de Ourique"], Berlin: ["Kreuzberg", "Neukölln", "Pankow"],
  Toronto: ["Leslieville", "the Annex", "Roncesvalles"], Austin: ["Hyde Park", "Zilker", "East Cesar Chavez"],
  Porto: ["Bonfim", "Foz", "Cedofeita"], Oslo: ["Grünerløkka", "Frogner", "Sagene"],
  Nairobi: ["Kilimani", "Westlands", "Karen"], Osaka: ["Nakazakicho", "Tenma", "Kitahama"],
};
export const TRIP_CITIES = [
  "Kyoto", "Reykjavik", "Marrakesh", "Vancouver", "Edinburgh", "Bologna", "Seoul", "Cape Town", "Mexico City",
  "Istanbul", "Copenhagen", "Hanoi", "Lima", "Tbilisi", "Valencia", "Montreal",
];
export const TRIP_REASONS = [
  "a friend's wedding", "a conference talk", "a hiking week", "a family reunion", "a food tour", "a climbing trip",
  "a language course", "a long weekend",
];
export const TRIP_HIGHLIGHTS = [
  "the night market", "a boat trip along the coast", "the old town at sunrise", "a cooking class", "the modern art museum",
  "a day hike to the waterfall", "the hot springs", "a jazz bar near the harbour", "the botanical garden",
];
export const PETS = {
  Ana: ["cat", "Miso"], Ben: ["dog", "Pepper"], Dev: ["cat", "Luna"], Grace: ["dog", "Biscuit"],
  Iris: ["rabbit", "Clover"], Noah: ["parrot", "Kiwi"], Luca: ["dog", "Nero"], Maya: ["cat", "Mochi"],
};
export const HOBBIES = {
  running: { verb: "ran", places: ["along the river", "around the lake", "in the park", "on the coastal path"] },
  climbing: { verb: "climbed", places: ["at the bouldering gym", "on the indoor wall", "at the sea cliffs"] },
  cycling: { verb: "cycled", places: ["to the lighthouse", "along the canal", "over the hill pass"] },
  swimming: { verb: "swam", places: ["at the public pool", "in the lake", "at the beach"] },
};
export const DISHES = [
  "mushroom risotto", "lentil curry", "shakshuka", "ramen", "paella", "pad thai", "moussaka", "gnocchi with pesto",
  "fish tacos", "pierogi", "bibimbap", "chili con carne", "vegetable lasagna", "miso soup", "jollof rice",
];
export const BOOKS = [
  "The Salt Road", "A Map of Quiet Things", "Northern Lights Over Kiln", "The Clockmaker's Garden", "Seven Small Rivers",
  "Letters from the Archive", "The Glass Orchard", "Winter in Harrowgate", "The Cartographer's Daughter", "Blue Hour",
];
export const PLANTS = ["basil", "tomatoes", "chillies", "mint", "strawberries", "a lemon tree", "sunflowers", "lavender"];
export const LANGUAGES = ["Japanese", "Portuguese", "German", "Spanish", "Swahili", "Norwegian", "Italian"];
export const INSTRUMENTS = ["piano", "guitar", "cello", "ukulele"];

export const REASONS = [
  "the write load outgrew it", "the licence costs went up", "the team knows it better", "it simplifies local development",
  "backups were painful", "latency spiked during peak hours", "the vendor ended support", "it halves the hosting bill",
];
export const BUG_KINDS = ["memory leak", "race condition", "timezone", "off-by-one", "deadlock", "encoding", "caching", "permissions"];
export const SYMPTOMS = [
  "requests time out after thirty seconds", "invoices show the wrong currency", "the app crashes on startup for some Android users",
  "duplicate rows appear after retries", "dates shift by one day for users in Tokyo", "the job skips runs at midnight",
  "accented names turn into question marks", "old pages show up after an edit", "admins cannot open archived projects",
  "memory grows until the pod restarts", "two writers block each other", "the last page of results is always empty",
];
export const FIXES = [
  "adding a unique index", "pinning the timezone to UTC", "retrying with exponential backoff", "upgrading the driver",
  "adding a lock around the cache refresh", "rewriting the query without the subselect", "clearing the cache on every write",
  "normalising the input to UTF-8", "moving the check into middleware", "bounding the worker queue",
];
export const METRICS = ["p95 latency", "build time", "error rate", "memory use", "cold start time", "query time", "monthly cost"];
export const FEATURES = [
  "dark mode", "CSV import", "single sign-on", "saved searches", "offline mode", "bulk editing", "audit logs",
  "usage alerts", "keyboard shortcuts", "multi-currency invoices", "guest access", "scheduled reports",
];
export const LESSONS = [
  "Redis keys need an expiry or memory keeps growing", "SQLite in WAL mode lets readers run during writes",
  "feature flags should have an owner and an end date", "a canary at five percent catches most bad releases",
  "load tests should use production-shaped data", "database migrations must be reversible before they ship",
  "on-call handovers work better written than spoken", "estimates double when a third team is involved",
  "flaky tests cost more than slow tests", "dashboards nobody looks at should be deleted",
  "small pull requests get reviewed the same day", "timezone bugs hide in the nightly jobs",
  "retries without jitter make outages worse", "documentation rots unless it lives next to the code",
];
export const CAREER_TOPICS = [
  "a promotion case", "moving to the platform team", "mentoring a new hire", "conference speaking", "the on-call load",
  "learning Rust", "a four-day week", "leading the next project", "feedback from the last review", "burnout signs",
  "a raise", "parental leave plans", "the team's hiring plan", "public speaking nerves",
];
export const SYNC_STATUS = [
  "the {part} is about {n} percent done", "the {part} is blocked on a review from security", "latency of the {part} fell to {ms} ms",
  "the {part} passed load testing", "two engineers are out sick so the {part} slips a week", "the {part} needs a design decision",
  "the {part} beta has {n} users", "the {part} rewrite found {k} old bugs", "the {part} is ready for the demo",
];
export const SPEND_CATEGORIES = ["groceries", "rent", "eating out", "transport", "books", "the gym", "streaming services"];
export const RESTAURANTS = ["Casa Verde", "Blue Lantern", "Noodle Bar 88", "The Fig Tree", "Mercado Sol", "Kiln & Co", "Little Saigon"];
export const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
export const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/**
 * Synonym groups: words of one group are interchangeable in the templates' sentences (same
 * inflection). Paraphrase queries swap them; the word-vector model gives every word of a group
 * the same meaning vector, so paraphrases embed close.
 */
export const SYNONYMS = [
  ["decided", "chose", "agreed"], ["migrate", "move", "switch"], ["migrating", "moving", "switching"],
  ["migrated", "moved", "switched"], ["migration", "switchover", "transition"], ["bug", "defect", "glitch"],
  ["bugs", "defects", "glitches"], ["fixed", "repaired", "patched", "resolved"], ["found", "discovered", "spotted"],
  ["database", "datastore", "db"], ["prefers", "favours", "likes"], ["dislikes", "hates", "avoids"],
  ["learned", "realised", "noticed"], ["started", "began"], ["finished", "completed", "wrapped"],
  ["shipped", "released", "launched"], ["release", "launch", "rollout"], ["meeting", "catchup", "chat"],
  ["sync", "standup", "checkin"], ["manager", "boss", "lead"], ["trip", "journey", "holiday"],
  ["flights", "plane", "tickets"], ["booked", "reserved", "bought"], ["apartment", "flat", "home"],
  ["cooked", "made", "prepared"], ["dinner", "supper", "meal"], ["ran", "jogged"], ["running", "jogging"],
  ["slow", "sluggish", "laggy"], ["fast", "quick", "speedy"], ["improved", "dropped", "fell"], ["because", "since", "as"],
  ["problem", "issue", "trouble"], ["team", "group", "squad"], ["planned", "scheduled"],
  ["presented", "demoed", "showed"], ["talked", "spoke", "chatted"], ["wants", "hopes", "plans"],
  ["appointment", "visit", "checkup"], ["doctor", "physician", "gp"], ["reading", "enjoying"],
  ["spent", "paid"], ["cost", "price", "expense"], ["crashes", "fails", "dies"], ["wrote", "drafted", "authored"],
  ["paired", "collaborated", "teamed"], ["joined", "entered"], ["uses", "relies", "runs"], ["lives", "resides", "stays"],
  ["rolled", "reverted"], ["hit", "faced"], ["happy", "glad", "pleased"],
  ["worried", "anxious", "concerned"], ["tired", "exhausted", "drained"], ["weekly", "regular"],
  ["review", "retro", "demo"], ["learning", "studying", "practising"], ["new", "fresh"], ["old", "previous", "former"],
];

/** Lower-cased English stopwords (NLTK's list, the one stage S6 drops). */
export const STOPWORDS = new Set(("i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she " +
  "her hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was " +
  "were be been being have has had having do does did doing a an the and but if or because as until while of at by for with " +
  "about against between into through during before after above below to from up down in out on off over under again further " +
  "then once here there when where why how all any both each few more most other some such no nor not only own same so than " +
  "too very s t can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn " +
  "needn shan shouldn wasn weren won wouldn").split(" "));
