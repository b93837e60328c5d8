// A seeded fuzzer of the public API against a model: random calls with random arguments
// (valid, half-valid and hostile values: holes, lone surrogates, NaN, huge numbers, wrong
// types, unknown fields, Maps, functions) to every MemoryStore method. Every call must resolve
// or reject with a RecallError carrying a documented code, never anything else, and the
// store's memories must equal the model's after every call, and after reopening.
//
// RECALLKIT_FUZZ_CALLS sets the number of calls per seed (default 1,500; `npm run fuzz` runs
// more), RECALLKIT_FUZZ_SEEDS the number of seeds (default 2).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { rng } from "./support/rng.mjs";
import { MemoryStore, RecallError } from "../dist/index.js";
import { tempRoot } from "./support/temp.mjs";

const CALLS = Number(process.env.RECALLKIT_FUZZ_CALLS ?? 1500);
const SEEDS = Number(process.env.RECALLKIT_FUZZ_SEEDS ?? 2);
const CODES = new Set([
  "invalid_argument", "not_found", "already_exists", "too_large", "dimension_mismatch", "invalid_embedding",
  "embed_failed", "embed_timeout", "corrupt", "locked", "blocked", "quota_exceeded", "storage_failed", "closed",
  "not_initialized", "internal",
]);
const { root } = tempRoot("fuzz");


const IDS = ["a", "b", "c", "d", "e", "x\ud800y", "", "🦀", "a".repeat(300)];
const STRINGS = ["", "garden", "the", "invoice paris", "x\ud800", "\u001b[2J", "🦀 crab", "a".repeat(5000), " ", "NaN"];
const NUMBERS = [0, -0, 1, -1, 0.5, 3, 4096, 4097, 1e300, -1e300, NaN, Infinity, -Infinity, 2 ** 53 + 2, 1.8e12];
const FIELDS = ["id", "text", "textEn", "keywords", "userId", "topic", "tags", "type", "tier", "emotion", "importance",
  "confidence", "trust", "credibility", "relevance", "classification", "createdAt", "updatedAt", "expiresAt",
  "embedding", "limit", "searchMode", "ranking", "minScore", "mmrLambda", "weights", "now", "trackRecalls",
  "period", "start", "end", "name", "aliases", "from", "relation", "to", "memoryIds", "unknownField"];

/** A random JS value, hostile more often than not. */
function anything(r, depth = 0) {
  switch (r.int(depth > 1 ? 8 : 12)) {
    case 0: return undefined;
    case 1: return null;
    case 2: return r.pick(NUMBERS);
    case 3: case 4: return r.pick(STRINGS);
    case 5: return r.chance(0.5);
    case 6: return r.pick([() => 1, Symbol("s"), 10n, new Date(NaN), new Date(0), new Map(), Promise.resolve(1)]);
    case 7: return r.pick(IDS);
    case 8: { const a = Array.from({ length: r.int(4) }, () => anything(r, depth + 1)); if (r.chance(0.2)) a.length += 2; return a; }
    case 9: return r.pick([[1, 0, 0], new Float32Array([1, 2, 3]), [1, 0], [0, 0, 0], [NaN, 1, 1]]);
    default: return object(r, depth + 1);
  }
}

function object(r, depth) {
  const o = {};
  for (let i = r.int(5); i > 0; i--) o[r.pick(FIELDS)] = anything(r, depth);
  return o;
}

/** A memory input that is valid more often than not. */
function memoryInput(r) {
  const m = { text: r.chance(0.9) ? r.pick(STRINGS.slice(1, 4)) : anything(r) };
  if (r.chance(0.6)) m.id = r.pick(IDS.slice(0, 5));
  if (r.chance(0.3)) m.embedding = r.pick([[1, 0, 0], [0, 1, 0.5], [1, 0], [0, 0, 0]]);
  if (r.chance(0.3)) m.userId = r.pick(["u1", "u2", "u\ud800"]);
  if (r.chance(0.2)) Object.assign(m, object(r, 1));
  return m;
}

async function outcome(call) {
  try {
    return { ok: true, value: await call() };
  } catch (e) {
    return { ok: false, error: e };
  }
}

for (let seed = 1; seed <= SEEDS; seed++) {
  test(`seed ${seed}: ${CALLS} random calls; every failure is a RecallError with a documented code; memories match the model`, async () => {
    const r = rng(seed * 7919);
    const path = join(root, `s${seed}`);
    let store = await MemoryStore.open({ storage: "file", path, clock: () => 1.8e12 });
    /** id → text of every memory the store must hold. */
    const model = new Map();
    const tally = new Map();
    for (let i = 0; i < CALLS; i++) {
      const what = r.int(13);
      let res;
      switch (what) {
        case 0: case 1: {
          const input = r.chance(0.85) ? memoryInput(r) : anything(r);
          res = await outcome(() => store.remember(input));
          if (res.ok) model.set(res.value, (await store.get(res.value)).text);
          break;
        }
        case 2: {
          const items = r.chance(0.8) ? Array.from({ length: r.int(4) }, () => memoryInput(r)) : anything(r);
          if (Array.isArray(items) && r.chance(0.1)) items.length += 1; // a hole
          res = await outcome(() => store.rememberMany(items));
          if (res.ok) for (const id of res.value) model.set(id, (await store.get(id)).text);
          break;
        }
        case 3: res = await outcome(() => store.get(r.chance(0.8) ? r.pick(IDS) : anything(r))); break;
        case 4: {
          const id = r.chance(0.8) ? r.pick(IDS) : anything(r);
          const patch = r.chance(0.5) ? { text: r.pick(STRINGS) } : anything(r);
          res = await outcome(() => store.update(id, patch));
          if (res.ok) model.set(id, res.value.text);
          break;
        }
        case 5: {
          const id = r.chance(0.8) ? r.pick(IDS) : anything(r);
          res = await outcome(() => store.forget(id));
          if (res.ok) model.delete(id);
          break;
        }
        case 6: case 7: {
          const q = r.chance(0.8) ? r.pick(STRINGS) : anything(r);
          const o = r.chance(0.5) ? { limit: r.int(5) + 1, trackRecalls: r.chance(0.5) } : anything(r);
          res = await outcome(() => store.recall(q, o));
          if (res.ok) {
            for (const hit of res.value.results) {
              assert.ok(hit.kind !== "memory" || model.has(hit.id), `call ${i}: recall returned ${hit.id}, which the model lacks`);
            }
          }
          break;
        }
        case 8: res = await outcome(() => store.addNote(r.chance(0.5) ? { period: "daily", start: 1.8e12, text: r.pick(STRINGS) } : anything(r))); break;
        case 9: res = await outcome(() => store.relate(r.chance(0.5) ? { from: "Ana", relation: "knows", to: r.pick(STRINGS) } : anything(r))); break;
        case 10: res = await outcome(() => store.addEntity(r.chance(0.5) ? { name: r.pick(STRINGS), aliases: [r.pick(STRINGS)] } : anything(r))); break;
        case 11: {
          const lines = r.pick(["", "{}\n", "null\n", "garbage\n", '{"v":1,"kind":"memory","data":{"id":"z","text":5}}\n',
            '{"v":1,"kind":"meta","data":{"format":1,"signatureSeed":"0000000000000001","dimensions":5000}}\n', anything(r)]);
          res = await outcome(() => store.import(lines));
          if (res.ok) assert.equal(res.value.records, 0, `call ${i}: a garbage import stored records`);
          break;
        }
        default: res = await outcome(() => store.getEmbedding(r.chance(0.8) ? r.pick(IDS) : anything(r)));
      }
      const t = tally.get(what) ?? { ok: 0, failed: 0 };
      t[res.ok ? "ok" : "failed"]++;
      tally.set(what, t);
      if (!res.ok) {
        assert.ok(res.error instanceof RecallError, `call ${i} (${what}) threw a non-RecallError: ${res.error?.stack ?? res.error}`);
        assert.ok(CODES.has(res.error.code), `call ${i}: unknown code ${res.error.code}`);
        assert.notEqual(res.error.code, "internal", `call ${i} (${what}): internal error ${res.error.message}`);
      }
      if (i % 50 === 0 || !res.ok) {
        assert.deepEqual((await store.ids()).sort(), [...model.keys()].sort(), `call ${i} (${what}): ids`);
      }
    }
    // The run must have exercised both outcomes of the writes, or it tested nothing.
    for (const op of [0, 2, 4, 5]) {
      const t = tally.get(op) ?? { ok: 0, failed: 0 };
      assert.ok(t.ok > 0 && t.failed > 0, `op ${op}: ${JSON.stringify(t)}`);
    }
    for (const [id, text] of model) assert.equal((await store.get(id)).text, text, id);
    await store.close();
    store = await MemoryStore.open({ storage: "file", path });
    assert.deepEqual((await store.ids()).sort(), [...model.keys()].sort(), "after reopening");
    await store.close();
  });
}
