#!/usr/bin/env node
// recallkit command-line interface: remember, recall, context, observe, forget, notes, relations, import, export,
// stats and repair on a store kept in a directory (--db, default ./recallkit-data/default: the
// store MemoryStore.open() opens in Node). Plain Node ESM,
// no dependencies beyond the package itself. `recallkit --help` lists everything.
//
// Errors print as `recallkit: code: message` (a RecallError's stable code), with the stack
// only under --debug. Exit codes: 0 success, 1 failure (missing store, unknown id,
// unreachable embedder while storing, a bad import file, I/O), 2 bad arguments or bad
// environment variables, 130 / 143 an import stopped by SIGINT / SIGTERM.
import { inspect } from "node:util";
import { createReadStream, existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { mkdir, readFile, rename, rmdir, unlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryStore, RecallError, describeQuery, formatContext } from "../js/dist/index.js";
import { ollamaEmbedder, openaiEmbedder } from "../js/dist/embedders.js";
import { readLines } from "../js/dist/storage/codec.js";
import { DAMAGED_COPY_PREFIX, LOCK_FILE } from "../js/dist/storage/file.js";

const VERSION = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")).version;
const DAY_MS = 86_400_000;
/** The store `MemoryStore.open()` opens in Node and Deno (`./recallkit-data/<name>`, name "default"). */
const DEFAULT_DB = "./recallkit-data/default";
/** Where the CLI kept its store before it opened the library's default one. */
const EARLIER_DEFAULT_DB = "./recallkit-data";
const STORE_NAME = "recallkit";
const IMPORT_BATCH = 500;
/** How long an embedder has to answer one request, and the store to get its vectors (embedTimeoutMs). */
const EMBED_REQUEST_TIMEOUT_MS = 30_000;
/** How long a command waits for another process that has the store open. */
const LOCK_WAIT_MS = 10_000;

const USAGE = `recallkit ${VERSION} — local-first memory recall

Usage: recallkit [--db PATH] <command> [options]

Commands:
  recall ["query"]        recall memories, notes and relations (no query: the most important recent)
      --topic T --tier T --user ID (only that user's memories) --limit N (default 10; above 100
      reads as 100) --since DATE --until DATE
      --mode hybrid|lexical|semantic --json (print the whole result object) --no-track
      --ranking recallkit|abmind|rrf|composite|weighted (default recallkit) --min-score X (0..1)
      --tags a,b --tag-mode any|all --tag-match prefix|exact --exclude-tags x,y
      --time "last week" (time words) --sort score|time_desc|time_asc|updated_desc|updated_asc
      --query Q (another query; repeatable) --auto-decompose --priority ID (repeatable)
      --expand-relations --expand-entities --expansion-limit N --relation-limit N
      --context-tags a,b --context-types t,u --language L --active-path PATH
      --translated (abmind's flag: the query is already English; accepted, recallkit searches
      the English text and the original either way and never translates)
      --no-skip-trivial (search "ok", "thanks" or a lone emoji instead of answering nothing)
  context "query"         recall, then print the block for a prompt: lines grouped by memory type,
                          quoted, cited, within the token budget (its size goes to stderr)
      --budget N (tokens, default 1000) --limit N (1-100, default 20) --topic T --tier T
      --group type|none (default type) --no-citations --mode … --ranking … --json --user ID
      --no-track (do not count the recall) --no-skip-trivial (search "ok", "thanks" or a lone
      emoji; by default they get no block, and stderr says why, as for any empty block)
  observe "message"       store the message if it is worth remembering ("Save: …", "I am …",
                          "I prefer …", "We decided …") and the poisoning guard passes it;
                          prints the id and kind, "not saved" or "refused: <rule>"
      --topic T --tags a,b --type T --user ID --json --no-embed
  remember "text"         store a memory and print its id
      --topic T --tags a,b --type T --tier T --emotion N (-5..5) --importance X (0..1)
      --user ID (the memory's owner: only recalls with --user ID see it) --id ID --date DATE
      --text-en "…" (the English text, searched first, when "text" is in another language)
      --no-embed (store it without a vector, even in a store that holds embeddings)
  forget ID               delete a memory
  note add "text"         add a consolidation note (searched by stage S6)
      --period daily|weekly|quarterly (default daily) --start DATE (default today)
  relate FROM RELATION TO link two entities (searched by stage S8)
      --strength N (0..1, default 0.5)
  import FILE             import JSON Lines: a recallkit export (- reads one from stdin), or one
                          memory object per line ({"text": …, "topic": …}), in atomic batches;
                          on an error or Ctrl-C the stored batches stay and it says which lines
      --on-conflict error|skip|replace   a record's or plain memory's id the store already holds:
                                         fail (default), keep the stored one, or overwrite it
      --no-embed                         store plain memories without vectors
  export                  print the store as JSON Lines
  stats                   counts and sizes (--json for JSON); the damaged-log copies repair kept
                          are listed apart, not counted as the store
  repair                  salvage a damaged store: keep every log frame that checks, report what
                          was dropped (byte offsets) and keep a copy of the damaged log beside it
                          (data.log.damaged-<time>); an undamaged store is left as it is (--json)

Options:
  --db PATH               the store's directory (default ${DEFAULT_DB})
  --embed-url URL         embedder: Ollama (http://localhost:11434 or …/api/embed) or an
                          OpenAI-compatible endpoint (…/v1 or …/embeddings); it has 30 s to answer
  --embed-api ollama|openai   say which, when the URL does not: Ollama posts to …/api/embed;
                          OpenAI to the URL if it ends in /embeddings, else URL/embeddings
                          (a bare host: /v1/embeddings)
  --embed-model NAME      model (default $EMBEDDING_MODEL, else nomic-embed-text for Ollama,
                          text-embedding-3-small for OpenAI-compatible)
  --embed-key KEY         bearer key for OpenAI-compatible endpoints (default $OPENAI_API_KEY)
  --progress              show the import progress bar even when stderr is not a terminal
  --debug                 print the stack trace of an error
  -h, --help              this help;  --version  the version

DATE: 2026-11-14 (UTC), an ISO time (2026-11-14T09:30, 2026-11-14T09:30:00+01:00; without
a zone it is UTC), now, today, yesterday (UTC days), or 7d / 2w / 3m / 1y (ago: a month is
30 days, a year 365).

Environment (as abmind's recall CLI reads it):
  MEMORY_SEARCH_MODE=hybrid|lexical|semantic   default search mode (--mode wins)
  EMBEDDING_ENABLED=true|false                 use Ollama at http://localhost:11434 without --embed-url
  EMBEDDING_MODEL=nomic-embed-text             embedding model
  EMBEDDING_SIMILARITY_THRESHOLD=0.5           minimum cosine for stage Se
  RECALL_DECAY_DAYS=365  RECALL_DECAY_FLOOR=0.3  RECALL_EMOTION_BOOST=0.1
  SIGNATURE_BITS=256                           only 256 is supported

An unreachable embedder never stops recall (stage Se is skipped, with a warning on stderr),
but remember, observe and import fail with exit 1 and store nothing more. A store that holds
embeddings refuses memories without one (exit 2): give the embedder, or --no-embed.`;

// ── errors and output ─────────────────────────────────────────────────────────────────────

/** A {@link RecallError} of the CLI, with its exit code: 2 for bad arguments or environment values, 1 otherwise. */
class CliError extends RecallError {
  constructor(code, message, { exitCode = 1, cause } = {}) {
    super(code, message, cause === undefined ? undefined : { cause });
    this.exitCode = exitCode;
  }
}
const usageError = (message) => new CliError("invalid_argument", `${message}\nRun "recallkit --help" for usage.`, { exitCode: 2 });
const envError = (message) => new CliError("invalid_argument", message, { exitCode: 2 });

/** The first error of each output stream that failed. */
const outputErrors = new Map();

/**
 * Records that `stream` failed and reports it once: EPIPE (its reader, such as `head`, has
 * gone) quietly, anything else (a full disk) as one line on stderr and exit 1. Called by the
 * failed write's callback and by the stream's 'error' event, whichever comes first.
 */
function outputFailed(stream, e) {
  if (outputErrors.has(stream)) return;
  outputErrors.set(stream, e);
  if (e?.code === "EPIPE") return;
  process.exitCode = 1;
  if (stream !== process.stderr && !failed(process.stderr)) {
    process.stderr.write(`recallkit: storage_failed: cannot write the output: ${e?.message ?? e}\n`);
  }
}

/**
 * Whether `stream` failed. Node 20 writes stdout redirected to a file synchronously
 * (SyncWriteStream), which tells of a failed write only in the write's callback and one
 * 'error' event, and never sets writableErrored or destroyed: so the callbacks record it.
 */
const failed = (stream) => outputErrors.has(stream) || stream.writableErrored != null || stream.destroyed;

/** Writes `text` to stdout; resolves, once it is written, false if stdout has failed. */
function write(text) {
  if (failed(process.stdout)) return Promise.resolve(false);
  return new Promise((resolve) => {
    process.stdout.write(text, (e) => {
      if (e) outputFailed(process.stdout, e);
      resolve(!failed(process.stdout));
    });
  });
}

/** C0 controls but tab and newline, DEL, and C1 controls (ESC, BEL, CR, CSI…). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` safe for a terminal: each control character written as a `\u001b` escape, so stored
 * text cannot move the cursor, clear the screen, retitle the window or ring the bell. In
 * JSON output the characters it escapes only occur inside strings (JSON.stringify escapes C0
 * but leaves DEL and C1 raw), so the JSON stays equivalent. `export` writes its lines exactly.
 */
function printable(text) {
  return String(text).replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const out = (text) => {
  if (!failed(process.stdout)) process.stdout.write(`${printable(text)}\n`, (e) => { if (e) outputFailed(process.stdout, e); });
};
const warn = (text) => { if (!failed(process.stderr)) process.stderr.write(`recallkit: warning: ${printable(text)}\n`); };

// ── arguments ─────────────────────────────────────────────────────────────────────────────

const GLOBAL_VALUE = ["db", "embed-url", "embed-api", "embed-model", "embed-key"];
const GLOBAL_FLAGS = ["progress", "debug", "help", "version"];
/** Value options that may be given several times: their values are collected in order. */
const REPEATABLE = ["query", "priority"];
const COMMANDS = {
  recall: {
    values: [
      "topic", "tier", "limit", "since", "until", "mode", "ranking", "min-score", "tags", "tag-mode", "tag-match",
      "exclude-tags", "time", "sort", "query", "priority", "expansion-limit", "relation-limit", "context-tags",
      "context-types", "language", "active-path", "user",
    ],
    flags: ["json", "no-track", "expand-relations", "expand-entities", "auto-decompose", "translated", "no-skip-trivial"],
    args: [0, 1, '"query"'],
  },
  context: { values: ["budget", "limit", "topic", "tier", "group", "mode", "ranking", "user"], flags: ["json", "no-citations", "no-track", "no-skip-trivial"], args: [1, 1, '"query"'] },
  observe: { values: ["topic", "tags", "type", "user"], flags: ["json", "no-embed"], args: [1, 1, '"message"'] },
  remember: { values: ["topic", "tags", "type", "tier", "emotion", "importance", "id", "date", "text-en", "user"], flags: ["no-embed"], args: [1, 1, '"text"'] },
  forget: { values: [], flags: [], args: [1, 1, "ID"] },
  note: { values: ["period", "start"], flags: [], args: [2, 2, 'add "text"'] },
  relate: { values: ["strength"], flags: [], args: [3, 3, "FROM RELATION TO"] },
  import: { values: ["on-conflict"], flags: ["no-embed"], args: [1, 1, "FILE"] },
  export: { values: [], flags: [], args: [0, 0, ""] },
  stats: { values: [], flags: ["json"], args: [0, 0, ""] },
  repair: { values: [], flags: ["json"], args: [0, 0, ""] },
};

/** Splits argv into { command, args, opts }; throws usage errors (exit 2). */
export function parseArgs(argv) {
  const opts = {};
  const positional = [];
  let command;
  let onlyPositional = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (onlyPositional || !arg.startsWith("-") || arg === "-" || /^-\d/.test(arg)) {
      if (command === undefined && !onlyPositional) command = arg;
      else positional.push(arg);
      continue;
    }
    if (arg === "--") {
      onlyPositional = true;
      continue;
    }
    if (arg === "-h") {
      opts.help = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq > 0 ? eq : undefined);
    if (!arg.startsWith("--") || name === "") throw usageError(`unknown option ${arg}`);
    const spec = command === undefined ? undefined : COMMANDS[command];
    const isValue = GLOBAL_VALUE.includes(name) || spec?.values.includes(name);
    const isFlag = GLOBAL_FLAGS.includes(name) || spec?.flags.includes(name);
    if (!isValue && !isFlag) {
      const known = Object.entries(COMMANDS).filter(([, s]) => s.values.includes(name) || s.flags.includes(name)).map(([c]) => c);
      throw usageError(known.length && command === undefined ? `option --${name} must come after the command (${known.join(", ")})`
        : known.length ? `option --${name} does not apply to ${command}` : `unknown option --${name}`);
    }
    if (isFlag) {
      if (eq > 0) throw usageError(`option --${name} takes no value`);
      opts[name] = true;
      continue;
    }
    let value;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw usageError(`option --${name} needs a value`);
      // `--topic --json` forgot the topic: the next option is no value (a negative number is).
      if (argv[i + 1].startsWith("--")) {
        throw usageError(`option --${name} needs a value, got the option ${argv[i + 1]} (write --${name}=${argv[i + 1]} for a value that starts with "--")`);
      }
      value = argv[++i];
    }
    opts[name] = REPEATABLE.includes(name) ? [...(opts[name] ?? []), value] : value;
  }
  if (command !== undefined && !(command in COMMANDS) && !opts.help) {
    throw usageError(`unknown command ${JSON.stringify(command)}`);
  }
  if (command !== undefined && !opts.help) {
    const [min, max, shape] = COMMANDS[command].args;
    if (positional.length < min || positional.length > max) {
      throw usageError(`${command} takes ${shape ? shape : "no arguments"}${positional.length > max ? `, got extra ${JSON.stringify(positional.slice(max).join(" "))}` : ""}`);
    }
    if (command === "note" && positional[0] !== "add") throw usageError(`unknown note command ${JSON.stringify(positional[0])} (only "note add")`);
  }
  return { command, args: positional, opts };
}

function parseNumber(text, what, min, max, integer = false) {
  const n = Number(text);
  if (text === undefined || String(text).trim() === "" || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw usageError(`${what} must be ${integer ? "a whole number" : "a number"} from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return n;
}

/** An ISO date, or date and time (seconds, fraction and zone optional; "T" or a space between). */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO date or time (see {@link ISO_DATE_TIME}) as ms, or undefined when it names no real
 * instant (2026-02-30, 25:00). A time without a zone is UTC, as a bare date is.
 */
function parseIso(t) {
  const m = ISO_DATE_TIME.exec(t);
  if (m === null) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((x) => (x === undefined ? undefined : Number(x)));
  const ms = Date.UTC(year, month - 1, day, hour, minute, second) + Math.round(Number(m[7] ?? 0) * 1000);
  const back = new Date(ms);
  // Date.UTC rolls over (February 30 is March 2): a field out of range does not come back.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day
    || back.getUTCHours() !== hour || back.getUTCMinutes() !== minute || back.getUTCSeconds() !== second) return undefined;
  const zone = /^([+-])(\d{2}):?(\d{2})$/.exec(m[8] ?? "");
  if (zone === null) return ms;
  if (Number(zone[2]) > 23 || Number(zone[3]) > 59) return undefined;
  return ms - (zone[1] === "-" ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3])) * 60_000;
}

/** A DATE argument as ms; `endOfDay` turns a bare date into its last millisecond (for --until). */
export function parseDate(text, what, now, endOfDay = false) {
  const t = String(text).trim().toLowerCase();
  const startOfToday = Math.floor(now / DAY_MS) * DAY_MS;
  if (t === "now") return now;
  if (t === "today") return endOfDay ? startOfToday + DAY_MS - 1 : startOfToday;
  if (t === "yesterday") return endOfDay ? startOfToday - 1 : startOfToday - DAY_MS;
  const rel = /^(\d+)\s*(d|w|m|y)(?:\s+ago)?$/.exec(t);
  if (rel) {
    const days = Number(rel[1]) * { d: 1, w: 7, m: 30, y: 365 }[rel[2]];
    return now - days * DAY_MS;
  }
  const ms = parseIso(t);
  if (ms !== undefined) return endOfDay && !t.includes(":") ? ms + DAY_MS - 1 : ms;
  throw usageError(`${what} must be a date (2026-11-14, an ISO time such as 2026-11-14T09:30 or 2026-11-14T09:30+01:00, now, today, yesterday, 7d, 2w, 3m or 1y), got ${JSON.stringify(text)}`);
}

// ── environment ───────────────────────────────────────────────────────────────────────────

const MODES = ["hybrid", "lexical", "semantic"];
const RANKINGS = ["recallkit", "abmind", "rrf", "composite", "weighted"];

/** abmind's environment variables as store options; bad values are usage errors (exit 2). */
export function readEnv(env) {
  const config = {};
  const num = (name, min, max) => {
    const v = env[name];
    if (v === undefined || v === "") return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max || (name === "SIGNATURE_BITS" && !Number.isInteger(n))) {
      throw envError(`${name} must be a number from ${min} to ${max}, got ${JSON.stringify(v)}`);
    }
    return n;
  };
  const mode = env.MEMORY_SEARCH_MODE;
  if (mode !== undefined && mode !== "") {
    if (!MODES.includes(mode.toLowerCase())) throw envError(`MEMORY_SEARCH_MODE must be hybrid, lexical or semantic, got ${JSON.stringify(mode)}`);
    config.searchMode = mode.toLowerCase();
  }
  const enabled = env.EMBEDDING_ENABLED;
  if (enabled !== undefined && enabled !== "") {
    if (!/^(true|false|1|0|yes|no)$/i.test(enabled)) throw envError(`EMBEDDING_ENABLED must be true or false, got ${JSON.stringify(enabled)}`);
    config.embeddingEnabled = /^(true|1|yes)$/i.test(enabled);
  }
  if (env.EMBEDDING_MODEL) config.embeddingModel = env.EMBEDDING_MODEL;
  config.similarityThreshold = num("EMBEDDING_SIMILARITY_THRESHOLD", 0, 1);
  config.decayDays = num("RECALL_DECAY_DAYS", 1e-9, 1e9);
  config.decayFloor = num("RECALL_DECAY_FLOOR", 0, 1);
  config.emotionBoost = num("RECALL_EMOTION_BOOST", 0, 1e9);
  const bits = num("SIGNATURE_BITS", 1, 1e9);
  if (bits !== undefined && bits !== 256) {
    throw envError(`SIGNATURE_BITS=${bits} is not supported: recallkit's Ss signatures are always 256 bits (unset it or set 256)`);
  }
  return config;
}

// ── embedder ──────────────────────────────────────────────────────────────────────────────

/** Which API and endpoint a --embed-url names (see --help). */
export function resolveEmbedder(url, api) {
  let parsed;
  try {
    parsed = new URL(url);
    if (!/^https?:$/.test(parsed.protocol)) throw new Error("not http");
  } catch {
    throw usageError(`--embed-url must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
  if (api !== undefined && api !== "ollama" && api !== "openai") throw usageError(`--embed-api must be ollama or openai, got ${JSON.stringify(api)}`);
  const base = url.replace(/\/+$/, "");
  const path = parsed.pathname.replace(/\/+$/, "");
  if (path.endsWith("/api/embed") || path.endsWith("/api/embeddings")) {
    if (api === "openai") throw usageError(`--embed-api openai with Ollama's own endpoint ${path}: give the OpenAI-compatible one (Ollama serves it at /v1)`);
    return { api: "ollama", endpoint: base.replace(/\/api\/embeddings$/, "/api/embed") };
  }
  if (path.endsWith("/embeddings")) {
    if (api === "ollama") throw usageError(`--embed-api ollama with an OpenAI-style endpoint ${path}: give Ollama's host or …/api/embed`);
    return { api: "openai", endpoint: base };
  }
  const kind = api ?? (/\/v\d+(\/|$)/.test(path) ? "openai" : "ollama");
  if (kind === "ollama") return { api: kind, endpoint: `${base}/api/embed` };
  // A bare host gets the usual /v1/embeddings; any other path is the API's root.
  return { api: kind, endpoint: `${base}${path === "" ? "/v1" : ""}/embeddings` };
}

/**
 * The host `embed` function for the options: undefined when embeddings are off. Remembers
 * its last outcome (`embed.last`) and aborts requests still running when the command ends.
 */
function makeEmbed(opts, env) {
  if (opts["no-embed"] && opts["embed-url"] !== undefined) throw usageError("--no-embed and --embed-url contradict each other: give one");
  const url = opts["no-embed"] ? undefined : opts["embed-url"] ?? (env.embeddingEnabled ? "http://localhost:11434" : undefined);
  if (url === undefined) {
    if (opts["embed-api"] || opts["embed-model"] || opts["embed-key"]) {
      throw usageError(opts["no-embed"] ? "--embed-api, --embed-model and --embed-key contradict --no-embed"
        : "--embed-api, --embed-model and --embed-key need --embed-url (or EMBEDDING_ENABLED=true)");
    }
    return undefined;
  }
  const { api, endpoint } = resolveEmbedder(url, opts["embed-api"]);
  const model = opts["embed-model"] ?? env.embeddingModel ?? (api === "ollama" ? "nomic-embed-text" : "text-embedding-3-small");
  const key = opts["embed-key"] ?? process.env.OPENAI_API_KEY;
  // The package's embedders (recallkit/embedders) do the requests; this tracks the outcome.
  const controller = new AbortController();
  const options = { url: endpoint, model, timeoutMs: EMBED_REQUEST_TIMEOUT_MS, signal: controller.signal };
  const base = api === "ollama" ? ollamaEmbedder(options) : openaiEmbedder({ ...options, apiKey: key || undefined });
  const embed = async (texts) => {
    try {
      const vectors = await base(texts);
      embed.last = { ok: true, dims: vectors[0]?.length };
      return vectors;
    } catch (e) {
      embed.last = { ok: false, error: e instanceof Error ? e.message : String(e) };
      throw e;
    }
  };
  embed.describe = `${api === "ollama" ? "Ollama" : "OpenAI-compatible"} embedder at ${endpoint} (${model})`;
  embed.abortAll = () => controller.abort(new Error("command finished"));
  return embed;
}

// ── the store ─────────────────────────────────────────────────────────────────────────────

/**
 * The store without `--db`: the library's default one, or, when only the CLI's earlier default
 * holds a store, that one (with a warning saying how to move it).
 */
function defaultDb() {
  if (!storeExists(DEFAULT_DB) && storeExists(EARLIER_DEFAULT_DB)) {
    warn(`using the store in ${EARLIER_DEFAULT_DB}, where earlier versions kept it; the default is now ${DEFAULT_DB} (the store MemoryStore.open() opens): move its files there, or pass --db ${EARLIER_DEFAULT_DB}`);
    return EARLIER_DEFAULT_DB;
  }
  return DEFAULT_DB;
}

/** Why `db`, where {@link storeExists} found no store, is none: " (…)", or "" when nothing is there. */
function whyNoStore(db) {
  let kind;
  try {
    kind = statSync(db);
  } catch {
    return "";
  }
  return kind.isDirectory() ? " (the directory holds no recallkit store)" : " (it is a file, not a store directory)";
}

/**
 * The library's `locked` message worded for the command line: its advice to open the store
 * with `readOnly: true` (an API option) becomes what the CLI does, which reads such a store as
 * a reader by itself.
 */
const cliLockMessage = (message) => message.includes("readOnly: true")
  ? `${message.replace(/,? open it with readOnly: true to read it meanwhile,?/, ",")}; recall, context, export and stats read it meanwhile`
  : message;

/** Does `db` hold a store? (a file store's log) */
function storeExists(db) {
  try {
    return statSync(db).isDirectory() && existsSync(join(db, "data.log"));
  } catch {
    return false;
  }
}

/**
 * What opening a writer on `db` creates, where it holds no store: the log, and the directories
 * that are missing, deepest first. {@link removeCreated} takes them away again.
 */
function toBeCreated(db) {
  if (storeExists(db)) return undefined;
  const dirs = [];
  for (let dir = resolve(db); !existsSync(dir); dir = dirname(dir)) {
    dirs.push(dir);
    if (dirname(dir) === dir) break;
  }
  return { log: join(db, "data.log"), dirs };
}

/**
 * Removes a store a command created and stored nothing in (its first write failed, or observe
 * saved nothing): the log while the store still holds its lock, so no other process is in it,
 * then, once it is closed, the directories it created, each only while empty.
 */
async function removeCreated(store, created) {
  const [notes, entities, edges] = await Promise.all([store.notes(), store.entities(), store.edges()]);
  if (store.size + notes.length + entities.length + edges.length > 0) return store.close();
  await unlink(created.log).catch(() => undefined);
  await store.close();
  for (const dir of created.dirs) await rmdir(dir).catch(() => undefined);
}

/**
 * Opens the file store in directory `db` (created by writers when missing). A store has one
 * writer at a time, so another recallkit process holding it is waited for, up to
 * {@link LOCK_WAIT_MS}.
 */
async function openStore(db, storeOptions, reads) {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let told = false;
  for (;;) {
    try {
      return await MemoryStore.open({ ...storeOptions, name: STORE_NAME, storage: "file", path: db });
    } catch (e) {
      if (e?.code !== "locked") throw e;
      if (reads) {
        // A command that only reads opens the store as a reader: no lock, no waiting.
        warn(`the store ${db} is in use by another process: reading it as it is now (recalls are not tracked)`);
        return MemoryStore.open({ ...storeOptions, name: STORE_NAME, storage: "file", path: db, readOnly: true });
      }
      if (!told) {
        // A file store has one writer at a time: say why the command waits.
        warn(`the store ${db} is in use by another process; waiting up to ${LOCK_WAIT_MS / 1000} s for it to close it`);
        told = true;
      }
      if (Date.now() >= deadline) {
        throw new CliError("locked", `the store ${db} is still in use by another process after ${LOCK_WAIT_MS / 1000} s (${cliLockMessage(e.message)})`, { cause: e });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

// ── plain memories (import of lines that are not recallkit records) ──────────────────────

const ENGINE_FIELDS = ["recallCount", "lastRecalledAt", "recallTimestamps", "signature"];

/** A line of a plain-memory file as MemoryInput. */
function plainMemory(line, where) {
  let value;
  try {
    value = JSON.parse(line);
  } catch (e) {
    throw new CliError("corrupt", `${where}: not JSON (${e.message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || typeof value.text !== "string") {
    throw new CliError("invalid_argument", `${where}: expected a memory object with "text" (or a recallkit export)`);
  }
  if ("kind" in value && "data" in value) throw new CliError("invalid_argument", `${where}: a recallkit record in a file of plain memories`);
  for (const key of ENGINE_FIELDS) delete value[key];
  return value;
}

/**
 * Runs `f` (a rememberMany or an import of `lineNos.length` memories), its errors naming the
 * line of the file (`lineNos[i]`) instead of "item i" or the import's "line i + 1".
 */
async function naming(lineNos, f) {
  try {
    return await f();
  } catch (e) {
    const item = e instanceof RecallError ? /^(item|line) (\d+): (.*)$/s.exec(e.message) : null;
    if (item === null) throw e;
    const index = Number(item[2]) - (item[1] === "line" ? 1 : 0);
    throw new CliError(e.code, `line ${lineNos[index]}: ${item[3]}`, { cause: e });
  }
}

/**
 * Stores a batch of plain memories in one atomic write; resolves to { stored, skipped, replaced }.
 * A memory whose id the store holds is `already_exists` (onConflict "error", rememberMany's
 * error), left as the store holds it ("skip") or overwritten ("replace"). rememberMany cannot
 * overwrite, so a batch that does is made into records by an in-memory store (remember's
 * defaults, the same embedder and dimension), which store.import then stores as one batch.
 */
async function rememberLines(store, memories, lineNos, onConflict, scratchOptions) {
  const held = new Set();
  if (onConflict !== "error") {
    for (const [i, m] of memories.entries()) {
      // A bad id is left for rememberMany to report with its line.
      if (typeof m.id === "string" && (await store.get(m.id).catch(() => undefined)) !== undefined) held.add(i);
    }
  }
  if (onConflict === "skip" && held.size > 0) {
    const keep = memories.flatMap((_, i) => (held.has(i) ? [] : [i]));
    if (keep.length > 0) await naming(keep.map((i) => lineNos[i]), () => store.rememberMany(keep.map((i) => memories[i])));
    return { stored: keep.length, skipped: held.size, replaced: 0 };
  }
  if (onConflict !== "replace" || held.size === 0) {
    await naming(lineNos, () => store.rememberMany(memories));
    return { stored: memories.length, skipped: 0, replaced: 0 };
  }
  const dims = store.dimensions;
  const scratch = await MemoryStore.open({ ...scratchOptions, storage: "memory", ...(dims === undefined ? {} : { dimensions: dims }) });
  try {
    await naming(lineNos, () => scratch.rememberMany(memories));
    const records = [];
    for await (const line of scratch.export()) if (JSON.parse(line).kind === "memory") records.push(line);
    await naming(lineNos, () => store.import(records, { onConflict: "replace", batchSize: records.length }));
  } finally {
    await scratch.close();
  }
  return { stored: memories.length, skipped: 0, replaced: held.size };
}

/**
 * Reads the start of `chunks` until its first non-blank line is complete and tells whether it
 * is a recallkit record (`{"v":…,"kind":…,"data":…}`). Resolves to `{ records, chunks }`, where
 * `chunks` yields everything again from the start.
 */
async function peekFormat(chunks) {
  const iterator = chunks[Symbol.asyncIterator]();
  const head = [];
  let text = "";
  for (;;) {
    const { done, value } = await iterator.next();
    if (done) break;
    head.push(value);
    text += Buffer.from(value).toString("utf8");
    const first = text.replace(/^\uFEFF/, "").split(/\r?\n/).find((l) => l.trim() !== "");
    if (first !== undefined && (text.includes("\n") || first.length > 4096)) break;
  }
  const first = text.replace(/^\uFEFF/, "").trimStart();
  const records = /^\{\s*"(v|kind)"\s*:/.test(first);
  async function* replay() {
    yield* head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { records, chunks: replay() };
}

async function census(store) {
  const [notes, entities, edges] = await Promise.all([store.notes(), store.entities(), store.edges()]);
  return { memories: store.size, notes: notes.length, entities: entities.length, edges: edges.length };
}

// ── progress bar ──────────────────────────────────────────────────────────────────────────

/**
 * A one-line progress line on stderr: a bar of the bytes read of `totalBytes`, or, when the
 * total is unknown (0: stdin), the bytes read so far; and the records stored so far.
 */
function progressBar(enabled, label, totalBytes) {
  if (!enabled) return { update() {}, records() {}, finish() {} };
  let last = 0;
  let stored = 0;
  const draw = (done) => {
    const count = stored ? ` ${stored.toLocaleString("en")} records` : "";
    if (totalBytes <= 0) {
      process.stderr.write(`\r${printable(label)}: ${done.toLocaleString("en")} bytes read${count && `,${count}`}`);
      return;
    }
    const fraction = Math.min(1, done / totalBytes);
    const width = 30;
    const filled = Math.round(fraction * width);
    process.stderr.write(`\r${printable(label)} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}%${count}`);
  };
  return {
    update(done) {
      const t = Date.now();
      if (t - last < 100) return;
      last = t;
      draw(done);
    },
    /** `n` records are stored (a batch landed), with `done` bytes read: drawn at once. */
    records(n, done) {
      stored = n;
      last = Date.now();
      draw(done);
    },
    finish(done) {
      draw(done);
      process.stderr.write("\n");
    },
  };
}

// ── commands ──────────────────────────────────────────────────────────────────────────────

const SKIP_WORDS = {
  short_circuit: "Sf filled limit",
  not_ranked: "the ranking does not use it",
  semantic_evidence: "Se gave meaning",
  lexical_mode: "search mode is lexical",
  semantic_mode: "search mode is semantic",
  no_embedder: "no embedder; set --embed-url or EMBEDDING_ENABLED=true",
  embed_failed: "the embedder failed",
  embed_timeout: "the embedder did not answer in time",
  no_query: "no query: the most important recent memories",
};

const fmtMs = (ms) => (ms < 10 ? `${ms.toFixed(1)}ms` : `${Math.round(ms)}ms`);
const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);

/** abmind's recall print-out: each stage, then the ranked results. */
export function formatRecall(query, result, limit) {
  const lines = [`Query: ${JSON.stringify(query)}`];
  // What the question became (time words, pronouns), before the stages that searched it.
  const resolved = describeQuery(result);
  if (resolved !== undefined) lines.push(`query: ${resolved}`);
  if (result.trivial) {
    lines.push("A trivial message (an acknowledgement, a greeting, a lone emoji or letter): nothing was searched; --no-skip-trivial searches it.");
    return lines.join("\n");
  }
  let candidates = 0;
  for (const s of result.stages) {
    if (s.skipped) {
      lines.push(`Stage ${s.name}: skipped (${s.reason}: ${SKIP_WORDS[s.reason] ?? "skipped"})`);
    } else {
      candidates += s.hits;
      lines.push(`Stage ${s.name}: ${s.hits} ${s.hits === 1 ? "hit" : "hits"} (${fmtMs(s.ms)})`);
    }
  }
  lines.push(`→ ${candidates} candidates → ranked → top ${result.results.length} returned${result.results.length < limit ? "" : ` (limit ${limit})`}`);
  const summary = recallSummary(result);
  if (summary) lines.push(summary);
  if (result.results.length) lines.push("");
  result.results.forEach((r, i) => {
    const n = `${i + 1}.`.padStart(4);
    lines.push(`${n} [${r.stage} ${r.score.toFixed(3)}] ${r.text.replace(/\s*\n\s*/g, " ")}`);
    const m = r.memory;
    const meta = r.kind === "memory" && m
      ? [`id ${r.id}`, m.topic, m.type, m.tier, isoDay(m.createdAt), m.emotion ? `emotion ${m.emotion > 0 ? "+" : ""}${m.emotion}` : undefined]
      : r.kind === "note" && r.note ? [`${r.note.period} note ${r.note.id}`, isoDay(r.note.start)]
        : [`relation ${r.id}`];
    const how = [
      r.matchType, r.memory?.tags?.length ? `tags ${r.memory.tags.join(",")}` : undefined,
      r.relations?.length ? `relations=${r.relations.length}` : undefined,
      r.expandedFromEntity ? `via entity: ${r.expandedFromEntity}` : undefined,
      r.expandedFrom ? `via relation ${r.expandedFrom.edge} from ${r.expandedFrom.id}` : undefined,
      r.dedupedFrom ? `(deduped x${r.dedupedFrom.length})` : undefined,
    ];
    lines.push(`     ${[...meta, ...how].filter(Boolean).join(" · ")}`);
    if (r.warning) lines.push(`     ${r.warning}${r.conflicts?.length ? ` (${r.conflicts.join(", ")})` : ""}`);
  });
  return lines.join("\n");
}

/**
 * AutoMem's summary line: "(3 duplicates removed; 5 via entity expansion (Rachel, Platform
 * team); 2 via relation expansion)", or nothing when there is nothing to say.
 */
export function recallSummary(result) {
  const parts = [];
  if (result.dedupRemoved > 0) parts.push(`${result.dedupRemoved} duplicate${result.dedupRemoved === 1 ? "" : "s"} removed`);
  const ee = result.entityExpansion;
  if (ee?.expandedCount > 0) parts.push(`${ee.expandedCount} via entity expansion (${ee.entitiesFound.join(", ")})`);
  if (result.expansion?.expandedCount > 0) parts.push(`${result.expansion.expandedCount} via relation expansion`);
  if (result.timeWindow) {
    // No start, or a `before` window's (-8.64e15, the earliest Date): open, as describeQuery shows it.
    const { start, end } = result.timeWindow;
    parts.push(`time ${start === undefined || start <= -8.64e15 ? "…" : isoDay(start)} to ${isoDay(end ?? Date.now())}`);
  }
  return parts.length ? `(${parts.join("; ")})` : "";
}

/** `--limit`: a whole number of at least 1; larger than 100 reads as 100, as the API clamps it. */
function parseLimit(text) {
  const n = Number(text);
  if (String(text).trim() === "" || !Number.isInteger(n) || n < 1) {
    throw usageError(`--limit must be a whole number of at least 1 (above 100 reads as 100), got ${JSON.stringify(text)}`);
  }
  return Math.min(n, 100);
}

/** `--mode` and `--ranking` into recall options, checked. */
function modeAndRanking(opts, options) {
  if (opts.mode !== undefined) {
    if (!MODES.includes(opts.mode)) throw usageError(`--mode must be hybrid, lexical or semantic, got ${JSON.stringify(opts.mode)}`);
    options.searchMode = opts.mode;
  }
  if (opts.ranking !== undefined) {
    if (!RANKINGS.includes(opts.ranking)) throw usageError(`--ranking must be ${RANKINGS.join(", ")}, got ${JSON.stringify(opts.ranking)}`);
    options.ranking = opts.ranking;
  }
}

/** A comma-separated list option (`--tags a,b`). */
const list = (text) => String(text).split(",").map((s) => s.trim()).filter((s) => s !== "");

/** Recall options the library checks, and the flags that set them. */
const FLAG_OF_OPTION = { tagMode: "--tag-mode", tagMatch: "--tag-match", sort: "--sort", timeQuery: "--time" };

async function cmdRecall(ctx) {
  const { opts, args } = ctx;
  const now = Date.now();
  const options = { limit: opts.limit === undefined ? 10 : parseLimit(opts.limit) };
  if (opts.tags !== undefined) options.tags = list(opts.tags);
  if (opts["exclude-tags"] !== undefined) options.excludeTags = list(opts["exclude-tags"]);
  if (opts["tag-mode"] !== undefined) options.tagMode = opts["tag-mode"];
  if (opts["tag-match"] !== undefined) options.tagMatch = opts["tag-match"];
  if (opts.time !== undefined) options.timeQuery = opts.time;
  if (opts.sort !== undefined) options.sort = opts.sort;
  if (opts.query !== undefined) options.queries = opts.query;
  if (opts.priority !== undefined) options.priorityIds = opts.priority;
  if (opts["auto-decompose"]) options.autoDecompose = true;
  if (opts["expand-relations"]) options.expandRelations = true;
  if (opts["expand-entities"]) options.expandEntities = true;
  if (opts["expansion-limit"] !== undefined) options.expansionLimit = parseNumber(opts["expansion-limit"], "--expansion-limit", 1, 500, true);
  if (opts["relation-limit"] !== undefined) options.relationLimit = parseNumber(opts["relation-limit"], "--relation-limit", 1, 200, true);
  const context = {};
  if (opts["context-tags"] !== undefined) context.tags = list(opts["context-tags"]);
  if (opts["context-types"] !== undefined) context.types = list(opts["context-types"]);
  if (opts.language !== undefined) context.language = opts.language;
  if (opts["active-path"] !== undefined) context.activePath = opts["active-path"];
  if (Object.keys(context).length > 0) options.context = context;
  modeAndRanking(opts, options);
  if (opts["min-score"] !== undefined) options.minScore = parseNumber(opts["min-score"], "--min-score", 0, 1);
  if (opts.topic !== undefined) options.topic = opts.topic;
  if (opts.tier !== undefined) options.tier = opts.tier;
  if (opts.user !== undefined) options.userId = opts.user;
  if (opts.since !== undefined) options.start = parseDate(opts.since, "--since", now);
  if (opts.until !== undefined) options.end = parseDate(opts.until, "--until", now, true);
  if (options.start !== undefined && options.end !== undefined && options.start > options.end) throw usageError("--since is after --until");
  options.trackRecalls = !opts["no-track"];
  if (opts["no-skip-trivial"]) options.skipTrivial = false;
  const store = await ctx.open({ mustExist: true, reads: true });
  const query = args[0] ?? "";
  let result;
  try {
    result = await store.recall(query, options);
  } catch (e) {
    // The library checks these options; its message names the option, the user gave the flag.
    const named = e instanceof RecallError && e.code === "invalid_argument" ? /^(tagMode|tagMatch|sort|timeQuery)\b(.*)$/s.exec(e.message) : null;
    if (named) throw usageError(`${FLAG_OF_OPTION[named[1]]}${named[2]}`);
    throw e;
  }
  const se = result.stages.find((s) => s.name === "Se");
  if (se?.skipped && (se.reason === "embed_failed" || se.reason === "embed_timeout") && ctx.embed) {
    const last = ctx.embed.last;
    const stored = store.dimensions;
    const why = last?.ok && stored !== undefined && last.dims !== stored
      ? `it returns ${last.dims}-dimension vectors but the store holds ${stored}-dimension vectors`
      : se.reason === "embed_timeout" ? "it did not answer in time" : last?.error ?? "it failed";
    warn(`${ctx.embed.describe}: ${why}; stage Se was skipped, the other stages answered`);
  }
  out(opts.json ? JSON.stringify(result, null, 2) : formatRecall(query, result, options.limit));
}

/** Why `context` gives no block for `query` (`result`: its recall), for stderr. */
export function noContextReason(query, result) {
  if (result.trivial) {
    return `no context: ${JSON.stringify(query)} is a trivial message (an acknowledgement, a greeting, a lone emoji or letter), so nothing was searched; --no-skip-trivial searches it`;
  }
  return `no context: nothing in the store is relevant to ${JSON.stringify(query)}`;
}

async function cmdContext(ctx) {
  const { opts, args } = ctx;
  // The block's options (store.context splits them the same way: CONTEXT_OPTION_NAMES).
  const format = {
    budgetTokens: opts.budget === undefined ? 1000 : parseNumber(opts.budget, "--budget", 1, 1_000_000, true),
    citations: !opts["no-citations"],
  };
  if (opts.group !== undefined) {
    if (opts.group !== "type" && opts.group !== "none") throw usageError(`--group must be type or none, got ${JSON.stringify(opts.group)}`);
    format.groupBy = opts.group;
  }
  const options = { limit: opts.limit === undefined ? 20 : parseNumber(opts.limit, "--limit", 1, 100, true) };
  modeAndRanking(opts, options);
  if (opts.topic !== undefined) options.topic = opts.topic;
  if (opts.tier !== undefined) options.tier = opts.tier;
  if (opts.user !== undefined) options.userId = opts.user;
  if (opts["no-track"]) options.trackRecalls = false;
  if (opts["no-skip-trivial"]) options.skipTrivial = false;
  const store = await ctx.open({ mustExist: true, reads: true });
  // store.context, with the recall kept: an empty block says why on stderr (stdout stays the block).
  const result = await store.recall(args[0], options);
  const block = formatContext(result, format);
  if (opts.json) out(JSON.stringify(block, null, 2));
  else if (block.text !== "") out(block.text);
  if (failed(process.stderr)) return;
  if (block.included.length === 0) process.stderr.write(`recallkit: ${printable(noContextReason(args[0], result))}\n`);
  else if (!opts.json) process.stderr.write(`recallkit: ${block.tokens} tokens of ${format.budgetTokens}, ${block.included.length} included, ${block.omitted} omitted\n`);
}

/**
 * An error from storing with the embedder, worded for the command line: it names the embedder
 * and says what was not stored (`nothing`). Other errors are returned as they are.
 */
function embedderError(e, embed, what, nothing = "Nothing was stored") {
  if (embed === undefined || !(e instanceof RecallError)) return e;
  if (e.code === "embed_failed" || e.code === "embed_timeout") {
    return new CliError(e.code, `cannot embed ${what} with the ${embed.describe}: ${e.message}. ${nothing}; fix the embedder and run the command again (--no-embed stores without a vector, which stage Se never finds)`, { cause: e });
  }
  // A vector the embedder returned (host.ts names it "embed() vector i"), not one the input gave.
  if (e.code === "dimension_mismatch" && /\bembed\(\) vector/.test(e.message)) {
    return new CliError(e.code, `the ${embed.describe} returns vectors of another dimension than the store's (${e.message}). ${nothing}; use the store's embedder or a new --db`, { cause: e });
  }
  return e;
}

/**
 * Refuses to store memories without a vector in a store that holds embeddings, unless
 * `--no-embed` asks for it: the store would mix embedded and unembedded memories without
 * saying so, and stage Se would never find the new ones.
 */
function checkEmbedder(ctx, store, what) {
  if (ctx.embed !== undefined || ctx.opts["no-embed"] || store.dimensions === undefined) return;
  throw new CliError("invalid_argument", `the store ${ctx.db} holds embedded memories (${store.dimensions} dimensions) and no embedder is configured: pass --embed-url URL (or set EMBEDDING_ENABLED=true) to embed ${what}, or --no-embed to store ${what} without a vector`, { exitCode: 2 });
}

async function cmdObserve(ctx) {
  const { opts, args } = ctx;
  const fields = {};
  if (opts.topic !== undefined) fields.topic = opts.topic;
  if (opts.tags !== undefined) fields.tags = opts.tags.split(",").map((t) => t.trim()).filter(Boolean);
  if (opts.type !== undefined) fields.type = opts.type;
  if (opts.user !== undefined) fields.userId = opts.user;
  const store = await ctx.open({ mustExist: false });
  checkEmbedder(ctx, store, "the message");
  let result;
  try {
    result = await store.observe(args[0], fields);
  } catch (e) {
    throw embedderError(e, ctx.embed, "the message");
  }
  ctx.storedNothing = result.id === null;
  if (opts.json) out(JSON.stringify(result));
  else if (result.id !== null) out(`saved ${result.id} (${result.kind})`);
  else if (result.refused !== undefined) out(`refused: ${result.refused} (the poisoning guard refused this ${result.kind} message)`);
  else out("not saved: not a message worth remembering");
}

async function cmdRemember(ctx) {
  const { opts, args } = ctx;
  if (args[0].trim() === "") throw usageError("remember needs some text");
  const memory = { text: args[0] };
  if (opts["text-en"] !== undefined) {
    if (opts["text-en"].trim() === "") throw usageError("--text-en needs some text");
    memory.textEn = opts["text-en"];
  }
  if (opts.topic !== undefined) memory.topic = opts.topic;
  if (opts.tags !== undefined) memory.tags = opts.tags.split(",").map((t) => t.trim()).filter(Boolean);
  if (opts.type !== undefined) memory.type = opts.type;
  if (opts.tier !== undefined) memory.tier = opts.tier;
  if (opts.emotion !== undefined) memory.emotion = parseNumber(opts.emotion, "--emotion", -5, 5);
  if (opts.importance !== undefined) memory.importance = parseNumber(opts.importance, "--importance", 0, 1);
  if (opts.user !== undefined) memory.userId = opts.user;
  if (opts.id !== undefined) memory.id = opts.id;
  if (opts.date !== undefined) memory.createdAt = parseDate(opts.date, "--date", Date.now());
  const store = await ctx.open({ mustExist: false });
  checkEmbedder(ctx, store, "the memory");
  let id;
  try {
    id = await store.remember(memory);
  } catch (e) {
    throw embedderError(e, ctx.embed, "the memory");
  }
  out(id);
}

async function cmdForget(ctx) {
  const store = await ctx.open({ mustExist: true });
  const id = ctx.args[0];
  if ((await store.get(id)) === undefined) throw new CliError("not_found", `no memory with id ${JSON.stringify(id)}`);
  const memory = await store.forget(id);
  out(`forgot ${id}: ${memory.text}`);
}

async function cmdNote(ctx) {
  const { opts, args } = ctx;
  const text = args[1];
  if (text.trim() === "") throw usageError("note add needs some text");
  const period = opts.period ?? "daily";
  if (!["daily", "weekly", "quarterly"].includes(period)) throw usageError(`--period must be daily, weekly or quarterly, got ${JSON.stringify(period)}`);
  const start = opts.start === undefined ? Math.floor(Date.now() / DAY_MS) * DAY_MS : parseDate(opts.start, "--start", Date.now());
  const store = await ctx.open({ mustExist: false });
  const id = await store.addNote({ period, start, text });
  out(id);
}

async function cmdRelate(ctx) {
  const [from, relation, to] = ctx.args;
  for (const [name, value] of [["FROM", from], ["RELATION", relation], ["TO", to]]) {
    if (value.trim() === "") throw usageError(`relate: ${name} must not be empty`);
  }
  const strength = ctx.opts.strength === undefined ? undefined : parseNumber(ctx.opts.strength, "--strength", 0, 1);
  const store = await ctx.open({ mustExist: false });
  const edge = await store.relate({ from, relation, to, ...(strength === undefined ? {} : { strength }) });
  out(`${edge.from} —[${edge.relation}]→ ${edge.to} (strength ${edge.strength})`);
}

/**
 * The chunks of `input` (a file's stream or stdin), reporting the bytes read so far. Once
 * `stop()` returns an error (a signal came), it throws that error instead of reading on; the
 * signal handler destroys `input`, so a read waiting on an idle stdin ends too.
 */
async function* readChunks(input, onBytes, stop) {
  let bytes = 0;
  try {
    for await (const chunk of input) {
      if (stop()) break;
      bytes += chunk.length;
      onBytes(bytes);
      yield chunk;
    }
  } catch (e) {
    if (!stop()) throw e;
  }
  if (stop()) throw stop();
}

/** Exit codes of a command stopped by a signal (128 + its number). */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 };

/**
 * What an import stored before it stopped, for its error: batches are atomic, so the lines
 * up to the last stored batch's are in the store and none after it.
 */
function importedSoFar({ stored, lines, withIds }, records) {
  if (stored === 0 && lines === 0) return "nothing was imported";
  const what = `${stored} ${records ? "records" : "memories"}`;
  const rest = records || withIds ? "import the file again with --on-conflict skip to add the rest"
    : `to add the rest, import only the lines after ${lines} (the whole file again would store lines 1–${lines} twice)`;
  return `lines 1–${lines} were imported (${what}) and stay in the store, nothing after line ${lines} was; ${rest}`;
}

/** Codes of errors an import file's content causes (the rest come from storage or the embedder). */
const INPUT_CODES = new Set(["invalid_argument", "corrupt", "already_exists", "too_large", "dimension_mismatch", "invalid_embedding"]);

async function cmdImport(ctx) {
  const file = ctx.args[0];
  const onConflict = ctx.opts["on-conflict"] ?? "error";
  if (!["error", "skip", "replace"].includes(onConflict)) throw usageError(`--on-conflict must be error, skip or replace, got ${JSON.stringify(onConflict)}`);
  let total = 0;
  if (file !== "-") {
    if (!existsSync(file)) throw new CliError("not_found", `no such file: ${file}`);
    const kind = statSync(file);
    if (!kind.isFile()) throw new CliError("invalid_argument", `${file} is ${kind.isDirectory() ? "a directory" : "not a regular file"}, not a file to import`);
    total = kind.size;
  }
  const bar = progressBar(ctx.opts.progress || process.stderr.isTTY, `importing ${file === "-" ? "stdin" : file}`, total);
  const store = await ctx.open({ mustExist: false });
  const before = await census(store);
  // SIGINT or SIGTERM: stop reading, let the batch being stored land, report and exit 128 + n.
  // A second SIGINT (or SIGTERM) finds no handler and ends the process at once.
  const input = file === "-" ? process.stdin : createReadStream(file);
  let stopped;
  const onSignal = (signal) => {
    stopped ??= new CliError("interrupted", `${signal}: the import stopped`, { exitCode: SIGNAL_EXIT[signal] });
    if (!failed(process.stderr)) process.stderr.write(`\nrecallkit: ${signal}: stopping after the batch being stored (again to stop at once)\n`);
    input.destroy();
  };
  for (const signal of Object.keys(SIGNAL_EXIT)) process.once(signal, onSignal);
  /** What is stored so far (see importedSoFar). */
  const progress = { stored: 0, lines: 0, withIds: true };
  let bytesRead = 0;
  let records = false;
  let skipped = 0;
  let replaced = 0;
  try {
    const peeked = await peekFormat(readChunks(input, (b) => {
      bytesRead = b;
      bar.update(b);
    }, () => stopped));
    records = peeked.records;
    // A recallkit export brings its own vectors (or none); only plain memories are embedded here.
    if (!records) checkEmbedder(ctx, store, "its memories");
    if (records) {
      const result = await store.import(peeked.chunks, {
        onConflict,
        onProgress: (p) => {
          Object.assign(progress, { stored: p.records, lines: p.lines });
          bar.records(p.records, bytesRead);
          // Called once a batch is durable: stopping here stores nothing more.
          if (stopped) throw stopped;
        },
      });
      skipped = result.skipped;
    } else {
      // The lines as store.import reads them (one splitter: invalid UTF-8 names its line too).
      let batch = [];
      let lineNos = [];
      let lineNo = 0;
      const flush = async () => {
        const done = await rememberLines(store, batch, lineNos, onConflict, ctx.scratchOptions);
        skipped += done.skipped;
        replaced += done.replaced;
        progress.stored += done.stored;
        progress.lines = lineNo;
        progress.withIds &&= batch.every((m) => typeof m.id === "string");
        bar.records(progress.stored, bytesRead);
        batch = [];
        lineNos = [];
      };
      for await (const line of readLines(peeked.chunks)) {
        if (stopped) throw stopped;
        lineNo += 1;
        if (line.trim() === "") continue;
        batch.push(plainMemory(line, `line ${lineNo}`));
        lineNos.push(lineNo);
        if (batch.length >= IMPORT_BATCH) await flush();
      }
      if (batch.length) await flush();
    }
  } catch (caught) {
    bar.finish(bytesRead);
    // A usage error (checkEmbedder's) is about the command, not the file, and comes first.
    if (caught?.exitCode === 2) throw caught;
    throw importError(caught, ctx.embed, file === "-" ? "stdin" : file, importedSoFar(progress, records));
  } finally {
    for (const signal of Object.keys(SIGNAL_EXIT)) process.off(signal, onSignal);
    // Left unread after an error, stdin would keep the process waiting for its writer.
    input.destroy();
  }
  bar.finish(total || bytesRead);
  const after = await census(store);
  const parts = Object.keys(after).map((k) => `${after[k] - before[k]} ${k}`);
  const notes = [skipped ? `${skipped} skipped as already stored` : "", replaced ? `${replaced} replaced` : ""].filter(Boolean);
  out(`imported ${parts.join(", ")}${notes.length ? ` (${notes.join(", ")})` : ""}`);
}

/**
 * An import's error with what it stored before (`soFar`): errors the file's content causes
 * name the file, an embedder's name the embedder; the exit code is 1, or 128 + n for a signal.
 */
function importError(caught, embed, file, soFar) {
  let e = embedderError(caught, embed, "the file's memories", "The failing batch was not stored");
  if (!(e instanceof RecallError)) e = new CliError("internal", e instanceof Error ? e.message : String(e), { cause: e });
  let message = e.message;
  // The file's content is at fault: name the file (exit 1: the arguments were fine).
  if (e === caught && INPUT_CODES.has(e.code)) {
    message = `${file}: ${message}${e.code === "already_exists" ? " (use --on-conflict skip or replace)" : ""}`;
  }
  return new CliError(e.code, `${message}; ${soFar}`, { cause: e, exitCode: e.exitCode ?? 1 });
}

/** How much of an export is written at once: each write waits for its callback. */
const EXPORT_CHUNK_CHARS = 65_536;

async function cmdExport(ctx) {
  const store = await ctx.open({ mustExist: true, reads: true });
  let chunk = "";
  for await (const line of store.export()) {
    chunk += line;
    if (chunk.length < EXPORT_CHUNK_CHARS) continue;
    // The output failed (`| head` has gone, a full disk): stop; main closes the store.
    if (!(await write(chunk))) return;
    chunk = "";
  }
  if (chunk !== "") await write(chunk);
}

async function cmdStats(ctx) {
  const store = await ctx.open({ mustExist: true, reads: true });
  const [notes, entities, edges, engine] = await Promise.all([store.notes(), store.entities(), store.edges(), store.stats()]);
  let withEmbedding = 0;
  for (const id of await store.ids()) if ((await store.getEmbedding(id)) !== undefined) withEmbedding += 1;
  // The store's files; the copies repair keeps of a damaged log are not the store (never read).
  let diskBytes = 0;
  const damagedCopies = [];
  for (const file of readdirSync(ctx.db).sort()) {
    const bytes = statSync(join(ctx.db, file)).size;
    if (file.startsWith(DAMAGED_COPY_PREFIX)) damagedCopies.push({ file, bytes });
    else if (file !== LOCK_FILE) diskBytes += bytes;
  }
  const info = await store.storageInfo();
  const stats = {
    path: resolve(ctx.db), memories: store.size, notes: notes.length, entities: entities.length, edges: edges.length,
    embeddings: withEmbedding, dimensions: store.dimensions ?? null, porterTerms: engine.porterTerms, fuzzyTerms: engine.fuzzyTerms,
    diskBytes, openedFrom: info.openedFrom, damagedCopies,
  };
  if (ctx.opts.json) {
    out(JSON.stringify(stats, null, 2));
    return;
  }
  out([
    `store       ${stats.path}`,
    `memories    ${stats.memories} (${stats.embeddings} with embeddings${stats.dimensions ? `, ${stats.dimensions} dimensions` : ""})`,
    `notes       ${stats.notes}`,
    `entities    ${stats.entities}`,
    `relations   ${stats.edges}`,
    `terms       ${stats.porterTerms} stemmed, ${stats.fuzzyTerms} in the trigram vocabulary`,
    `on disk     ${stats.diskBytes} bytes (opened from the ${info.openedFrom})`,
    ...(damagedCopies.length === 0 ? [] : [
      `kept aside  ${damagedCopies.length} damaged log ${damagedCopies.length === 1 ? "copy" : "copies"} repair kept, ` +
        `${damagedCopies.reduce((n, c) => n + c.bytes, 0)} bytes, not part of the store (delete when done): ${damagedCopies.map((c) => c.file).join(", ")}`,
    ]),
  ].join("\n"));
}

/** `repair`'s report (MemoryStore.repair's RepairReport) as lines. */
export function formatRepair(report) {
  const lines = [];
  const log = report.log;
  if (log?.header) lines.push(`${log.path}: ${log.header}; the header is rewritten`);
  for (const d of log?.dropped ?? []) {
    lines.push(`dropped bytes ${d.offset}-${d.offset + d.bytes - 1} of ${log.path} (${d.bytes} bytes): ${d.why}`);
  }
  for (const at of log?.restored ?? []) lines.push(`kept the frame at byte ${at}: one damaged bit of its header was restored`);
  if (log?.torn) {
    lines.push(`a torn tail of ${log.torn.bytes} bytes at byte ${log.torn.offset} (an append that never completed, not damage): ${log.repaired ? "dropped" : "left for the next write to cut off"}`);
  }
  if (log?.repaired) lines.push(`kept ${log.framesKept} frames (${log.keys} keys); the damaged log is copied to ${log.copy}`);
  else if (log) lines.push(`${log.path}: every frame checks (${log.framesKept} frames)`);
  const snap = report.snapshot;
  lines.push(`snapshot: ${snap.found}${snap.why ? ` (${snap.why})` : ""}${snap.removed ? "; removed" : ""}`);
  lines.push(`${report.repaired ? "repaired" : "nothing to repair"}: the store opens with ${report.memories} memories, ${report.notes} notes, ${report.entities} entities and ${report.edges} relations`);
  return lines.join("\n");
}

async function cmdRepair(ctx) {
  if (!storeExists(ctx.db)) throw new CliError("not_found", `no store at ${ctx.db}${whyNoStore(ctx.db)}`);
  let report;
  try {
    report = await MemoryStore.repair({ name: STORE_NAME, storage: "file", path: ctx.db });
  } catch (e) {
    if (e?.code === "locked") {
      throw new CliError("locked", `the store ${ctx.db} is in use by another process; close that process before repairing (${cliLockMessage(e.message)})`, { cause: e });
    }
    throw e;
  }
  out(ctx.opts.json ? JSON.stringify(report, null, 2) : formatRepair(report));
}

const HANDLERS = { recall: cmdRecall, context: cmdContext, observe: cmdObserve, remember: cmdRemember, forget: cmdForget, note: cmdNote, relate: cmdRelate, import: cmdImport, export: cmdExport, stats: cmdStats, repair: cmdRepair };

// ── main ──────────────────────────────────────────────────────────────────────────────────

async function main(argv) {
  const { command, args, opts } = parseArgs(argv);
  if (opts.help) {
    out(USAGE);
    return;
  }
  if (opts.version) {
    out(VERSION);
    return;
  }
  if (command === undefined) throw usageError("no command given");
  const env = readEnv(process.env);
  const embed = makeEmbed(opts, env);
  const db = opts.db ?? defaultDb();
  if (db === "") throw usageError("--db must not be empty");
  const storeOptions = {};
  for (const key of ["decayDays", "decayFloor", "emotionBoost", "similarityThreshold", "searchMode"]) {
    if (env[key] !== undefined) storeOptions[key] = env[key];
  }
  if (embed) {
    storeOptions.embed = embed;
    // The store's own limit on an embed call (5 s by default) would cut the request short.
    storeOptions.embedTimeoutMs = EMBED_REQUEST_TIMEOUT_MS;
  }
  let opened;
  /** What opening the store created ({@link toBeCreated}), for a writer on a new store. */
  let created;
  const ctx = {
    args, opts, db, embed,
    /** Options for an in-memory store that makes records as this one would (import's replace). */
    scratchOptions: embed ? { embed, embedTimeoutMs: EMBED_REQUEST_TIMEOUT_MS } : {},
    async open({ mustExist, reads = false }) {
      if (mustExist && !storeExists(db)) {
        const why = whyNoStore(db);
        const hint = why.includes("a file") ? "--db names the store's directory"
          : `create one with "recallkit --db ${db} remember …" or "recallkit --db ${db} import FILE"`;
        throw new CliError("not_found", `no store at ${db}${why}; ${hint}`);
      }
      if (!mustExist && !reads) created = toBeCreated(db);
      opened = await openStore(db, storeOptions, reads);
      return opened;
    },
    /** The command stored nothing (observe): a store it created goes away again. */
    storedNothing: false,
  };
  let failed = true;
  try {
    await HANDLERS[command](ctx);
    failed = false;
  } finally {
    embed?.abortAll();
    // A rejected write changes nothing: nor does it leave a new, empty store behind.
    if (opened !== undefined && created !== undefined && (failed || ctx.storedNothing)) await removeCreated(opened, created).catch(() => opened.close());
    else await opened?.close();
  }
}

function isMain() {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/**
 * Prints an error as `recallkit: code: message` (anything that is not a RecallError is a bug:
 * `internal`), its stack and causes only with `--debug`, and sets the exit code.
 */
function reportError(e, debug) {
  const err = e instanceof RecallError ? e : new RecallError("internal", e instanceof Error ? e.message : String(e), { cause: e });
  process.stderr.write(`recallkit: ${err.code}: ${printable(err.message)}\n`);
  if (debug) process.stderr.write(`${printable(inspect(e))}\n`);
  process.exitCode = err.exitCode ?? (err.code === "invalid_argument" ? 2 : 1);
}

if (isMain()) {
  // A reader that stops early (`| head`) is no error: output stops quietly (write, out and
  // warn check failed()), the command finishes and closes the store, and the exit code is
  // the command's. Any other output error is reported once (outputFailed).
  for (const stream of [process.stdout, process.stderr]) stream.on("error", (e) => outputFailed(stream, e));
  const argv = process.argv.slice(2);
  main(argv).catch((e) => reportError(e, argv.includes("--debug")));
}
