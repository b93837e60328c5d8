// The memory field list, held together across the places that must agree on it (HACKING.md
// "Adding a memory field"). Each language has one list, in wire order:
//   Rust: MEMORY_FIELDS in src/wire/batch.rs (read here as text: no export returns it), which
//         the batch reader indexes; MemoryRecord in src/wasm.rs's TYPES section declares the
//         same fields for pkg/recallkit.d.ts; the serde path names them in MEMORY, the table
//         memory_from reads (src/wire/inputs.rs), and in MemoryOut (src/wire/outputs.rs);
//   TS:   RECORD_KEY_NAMES in js/src/wire.ts, which the record encoder writes.
// The rest must follow them: validate.ts's table of input kinds (MEMORY_FIELD_NAMES, the
// input fields, so the wire's without the ones the engine keeps, plus `embedding`, which
// travels apart) and blankRecord; the public `Memory` type (through the MEMORY table of
// js/test/types/boundary.ts, which tsc holds to `Memory` in types.test.mjs); and the storage
// codec, which must store every memory field and key each in one byte (FIELD_NAMES).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { RECORD_KEY_NAMES } from "../dist/wire.js";
import { MEMORY_FIELD_NAMES, blankRecord, toRecord } from "../dist/validate.js";
import { FIELD_NAMES, decodeRecord, encodeRecord, fromJsonLine, toJsonLine } from "../dist/storage/codec.js";

const source = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

/** The fields the engine keeps and a host never sets: last in the wire order. */
const KEPT = ["recallCount", "lastRecalledAt", "recallTimestamps"];

/** Memory fields a stored record spells out by name rather than by a one-byte key (see the codec test). */
const STORED_BY_NAME = [];

/** The names in the Rust array `pub const <name>: [&str; N] = [...]`, checking N. */
function rustStrings(text, name) {
  const m = new RegExp(`pub const ${name}: \\[&str; (\\d+)\\] = \\[([^\\]]*)\\];`).exec(text);
  assert.ok(m, `${name} is not declared as \`pub const ${name}: [&str; N] = [...];\``);
  const names = [...m[2].matchAll(/"(\w+)"/g)].map((s) => s[1]);
  assert.equal(names.length, Number(m[1]), `${name} declares ${m[1]} fields and lists ${names.length}`);
  return names;
}

/** The field names of a TS object literal or interface body `{ a: ..., b?: ... }` that starts at `head`. */
function tsKeys(text, head) {
  const start = text.indexOf(head);
  assert.ok(start >= 0, `no \`${head}\``);
  const body = text.slice(start + head.length, text.indexOf("}", start));
  return [...body.matchAll(/(?:^|[{;,\s])(\w+)\??:/g)].map((k) => k[1]);
}

test("Rust's MEMORY_FIELDS and the TS wire list are the same fields in the same order", () => {
  assert.deepEqual([...RECORD_KEY_NAMES], rustStrings(source("src/wire/batch.rs"), "MEMORY_FIELDS"));
});

/** The text of the Rust item that starts at `head`, to the first line that is just `}`. */
function rustItem(text, head) {
  const start = text.indexOf(head);
  assert.ok(start >= 0, `no \`${head}\``);
  return text.slice(start, text.indexOf("\n}\n", start));
}

test("the serde path reads and writes exactly those fields, in that order", () => {
  const read = rustItem(source("src/wire/inputs.rs"), "const MEMORY: [");
  assert.deepEqual([...read.matchAll(/^\s*\("(\w+)", \w+\),$/gm)].map((m) => m[1]), [...RECORD_KEY_NAMES], "memory_from's fields");
  const written = rustItem(source("src/wire/outputs.rs"), "impl Serialize for MemoryOut");
  assert.deepEqual([...written.matchAll(/(?:serialize_field\(|opt\(&mut o, )"(\w+)"/g)].map((m) => m[1]), [...RECORD_KEY_NAMES], "MemoryOut's fields");
});

test("the Rust side's MemoryRecord declares exactly those fields", () => {
  assert.deepEqual(tsKeys(source("src/wasm.rs"), "export interface MemoryRecord {"), [...RECORD_KEY_NAMES]);
});

test("the validation table and blankRecord are the wire's input fields, then embedding", () => {
  assert.deepEqual(RECORD_KEY_NAMES.slice(-KEPT.length), KEPT, "the fields the engine keeps come last");
  const input = RECORD_KEY_NAMES.slice(0, -KEPT.length);
  assert.deepEqual(MEMORY_FIELD_NAMES, [...input, "embedding"]);
  assert.deepEqual(Object.keys(blankRecord()), MEMORY_FIELD_NAMES);
});

test("the public Memory type has exactly the wire's fields", () => {
  const table = tsKeys(source("js/test/types/boundary.ts"), "export const MEMORY: Fields<Memory> = {");
  assert.deepEqual(table, [...RECORD_KEY_NAMES]);
});

test("the storage codec keys every memory field in one byte and keeps a full memory whole", () => {
  for (const name of RECORD_KEY_NAMES) {
    assert.ok(
      FIELD_NAMES.includes(name) || STORED_BY_NAME.includes(name),
      `${name} has no one-byte key: append it to FIELD_NAMES (js/src/storage/values.ts) with a new CODEC_VERSION, or list it in STORED_BY_NAME`,
    );
  }
  // Every field set, kept ones too, through the binary record and the JSON line.
  const input = Object.fromEntries(MEMORY_FIELD_NAMES.filter((k) => k !== "embedding").map((k) => [k, sample(k)]));
  const { embedding: _unset, ...fields } = toRecord(input, 5, () => "id").record;
  const data = { ...fields, recallCount: 2, lastRecalledAt: 9, recallTimestamps: [8, 9] };
  for (const k of RECORD_KEY_NAMES) assert.notEqual(data[k], undefined, `the sample sets ${k}`);
  const bytes = encodeRecord({ kind: "memory", data });
  assert.deepEqual(decodeRecord(bytes), { kind: "memory", data });
  assert.deepEqual(fromJsonLine(toJsonLine({ kind: "memory", data })), { kind: "memory", data });
  // One-byte keys: no field name is spelled out in the bytes (the values are numbers and
  // strings that name no field).
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  for (const name of RECORD_KEY_NAMES.filter((n) => !STORED_BY_NAME.includes(n))) {
    assert.ok(!text.includes(name), `${name} is spelled out in a stored record`);
  }
});

/** A valid value for memory field `k` of validate.ts's table (its kind decides the shape). */
function sample(k) {
  switch (k) {
    case "id": return "m-1";
    case "keywords": case "tags": case "emotionTags": case "entities": return ["v-1"];
    case "credibility": case "classification": return 1;
    case "emotion": case "importance": case "confidence": case "trust": case "relevance": return 0.5;
    case "createdAt": case "updatedAt": case "validFrom": case "expiresAt": return 1_700_000_000_000;
    case "validTo": return 1_700_000_000_001; // after validFrom
    default: return "v-2";
  }
}
