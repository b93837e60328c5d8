// Record codec, JSON Lines export format, readLines, snapshot framing and CRC-32.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { crc32 as zlibCrc32 } from "node:zlib";
import {
  CODEC_VERSION, FIELD_NAMES, JSON_LINE_VERSION, decodeRecord, encodeRecord, fromJsonLine, readLines, recordTailBytes, toJsonLine,
} from "../../dist/storage/codec.js";
import { SNAPSHOT_HEADER_BYTES, decodeSnapshot, encodeSnapshot, inspectSnapshot } from "../../dist/storage/snapshot.js";
import { crc32, crc32Between, crc32Tables, useNativeCrc32 } from "../../dist/storage/crc32.js";
import "../../dist/storage/compress.js"; // installs Node's zlib.crc32 where it exists
import { splitmix } from "../support/rng.mjs";
import { throwsWith } from "../support/errors.mjs";

/** The raw 32-bit patterns of a Float32Array. */
const bitsOf = (f32) => [...new Uint32Array(f32.buffer, f32.byteOffset, f32.length)];

/** Float32 values that are easy to lose: signed zeros, denormals, extremes, NaN payloads. */
function trickyFloats() {
  const bits = [
    0x00000000, 0x80000000, // +0, -0
    0x00000001, 0x80000001, 0x007fffff, 0x00400000, // smallest and largest denormals
    0x00800000, 0x7f7fffff, 0xff7fffff, // smallest normal, largest finite
    0x3f800000, 0x3dcccccd, 0xbeaaaaab, // 1, 0.1f, -1/3f
    0x33800000, 0x4b800000, // 2^-24, 2^24
  ];
  return new Float32Array(new Uint32Array(bits).buffer);
}

const sample = () => ({
  kind: "memory",
  data: { id: "m1", text: "naïve café 👋 \u0000 \"quoted\"", tags: ["a", "b"], importance: 0.8, nested: { x: [1, null] } },
  embedding: trickyFloats(),
  signature: Uint8Array.from({ length: 32 }, (_, i) => (i * 37) & 0xff),
});

/** A record in format version 1 (20-byte header, JSON data), as recallkit wrote it before version 2. */
function encodeV1({ kind, data, embedding, signature }) {
  const json = new TextEncoder().encode(JSON.stringify(data));
  const floats = embedding ? new Uint8Array(embedding.buffer, embedding.byteOffset, embedding.byteLength) : new Uint8Array(0);
  const sig = signature ?? new Uint8Array(0);
  const out = new Uint8Array(20 + json.length + floats.length + sig.length);
  const view = new DataView(out.buffer);
  out.set([0x52, 0x4b, 1, ["memory", "note", "entity", "edge", "meta"].indexOf(kind) + 1, (embedding ? 1 : 0) | (signature ? 2 : 0)]);
  view.setUint32(8, json.length, true);
  view.setUint32(12, embedding?.length ?? 0, true);
  view.setUint32(16, sig.length, true);
  out.set(json, 20);
  out.set(floats, 20 + json.length);
  out.set(sig, 20 + json.length + floats.length);
  return out;
}

describe("binary records", () => {
  test("a record round-trips, embedding bit for bit (-0, denormals, extremes, NaN payloads)", () => {
    const record = sample();
    const withNaN = new Float32Array(new Uint32Array([0x7fc00001, 0xffbfffff, 0x7f800000]).buffer); // NaNs with payloads, +inf
    for (const embedding of [record.embedding, withNaN, new Float32Array(0)]) {
      const back = decodeRecord(encodeRecord({ ...record, embedding }));
      assert.equal(back.kind, "memory");
      assert.deepEqual(back.data, record.data);
      assert.ok(back.embedding instanceof Float32Array);
      assert.deepEqual(bitsOf(back.embedding), bitsOf(embedding));
      assert.deepEqual(back.signature, record.signature);
    }
  });

  test("every kind, and optional parts absent, round-trip", () => {
    for (const kind of ["memory", "note", "entity", "edge", "meta"]) {
      const back = decodeRecord(encodeRecord({ kind, data: { k: kind } }));
      assert.deepEqual(back, { kind, data: { k: kind } });
      assert.ok(!("embedding" in back) && !("signature" in back));
    }
  });

  test("random records round-trip (property, seeded)", () => {
    const seed = 99;
    const rand = splitmix(seed);
    for (let i = 0; i < 300; i++) {
      const dims = Math.floor(rand() * 64);
      const raw = new Uint32Array(dims).map(() => Math.floor(rand() * 2 ** 32));
      const embedding = new Float32Array(raw.buffer);
      const record = { kind: "note", data: { i, s: String.fromCodePoint(...Array.from({ length: 8 }, () => Math.floor(rand() * 0xd7ff))) }, embedding };
      const back = decodeRecord(encodeRecord(record));
      assert.deepEqual(bitsOf(back.embedding), [...raw], `seed ${seed} case ${i}`);
      assert.deepEqual(back.data, record.data, `seed ${seed} case ${i}`);
    }
  });

  test("an embedding that is a view into a larger buffer encodes only its own values", () => {
    const big = new Float32Array([9, 1.5, -2.25, 9]);
    const back = decodeRecord(encodeRecord({ kind: "memory", data: {}, embedding: big.subarray(1, 3) }));
    assert.deepEqual([...back.embedding], [1.5, -2.25]);
  });

  test("the header carries the format version; an unknown version is corrupt", () => {
    const bytes = encodeRecord(sample());
    assert.equal(CODEC_VERSION, 2);
    assert.deepEqual([...bytes.subarray(0, 3)], [0x52, 0x4b, CODEC_VERSION]);
    for (const version of [0, 3, 255]) {
      const future = bytes.slice();
      future[2] = version;
      throwsWith(() => decodeRecord(future), "corrupt", new RegExp(`record format version ${version} is not supported`));
    }
  });

  test("garbage, truncation and tampering are corrupt, never a wrong record", () => {
    const good = encodeRecord(sample());
    throwsWith(() => decodeRecord(new Uint8Array(0)), "corrupt", /not a recallkit record/);
    throwsWith(() => decodeRecord(new TextEncoder().encode('{"kind":"memory"}')), "corrupt", /not a recallkit record/);
    throwsWith(() => decodeRecord("RK"), "corrupt");
    for (let cut = 0; cut < good.length; cut++) throwsWith(() => decodeRecord(good.subarray(0, cut)), "corrupt");
    throwsWith(() => decodeRecord(Uint8Array.of(...good, 0)), "corrupt", /do not add up/);
    const badKind = good.slice(); badKind[3] = 9;
    throwsWith(() => decodeRecord(badKind), "corrupt", /unknown record kind 9/);
    const badFlags = good.slice(); badFlags[4] |= 0x80;
    throwsWith(() => decodeRecord(badFlags), "corrupt", /flags/);
    const notObject = encodeRecord({ kind: "meta", data: { a: 1 } });
    notObject[5] = 8; // the data's object tag becomes an array tag
    throwsWith(() => decodeRecord(notObject), "corrupt", /not an object/);
    const badTag = encodeRecord({ kind: "meta", data: { a: 1 } });
    badTag[badTag.length - 2] = 42; // the value tag of field "a"
    throwsWith(() => decodeRecord(badTag), "corrupt", /unknown value tag 42/);
    const badField = encodeRecord({ kind: "meta", data: { id: 1 } });
    badField[7] = 120; // the field index of "id" becomes one past the dictionary
    throwsWith(() => decodeRecord(badField), "corrupt", /unknown field 120/);
    const badUtf8 = encodeRecord({ kind: "meta", data: { a: "é" } });
    badUtf8[badUtf8.indexOf(0xc3)] = 0xff;
    throwsWith(() => decodeRecord(badUtf8), "corrupt", /not UTF-8/);
    const longVarint = Uint8Array.of(0x52, 0x4b, 2, 5, 0, 9, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    throwsWith(() => decodeRecord(longVarint), "corrupt", /varint longer than 8 bytes/);
    const hugeCount = Uint8Array.of(0x52, 0x4b, 2, 5, 0, 9, 0xff, 0xff, 0xff, 0x7f);
    throwsWith(() => decodeRecord(hugeCount), "corrupt", /runs past its end/);
    const rand = splitmix(5);
    for (let i = 0; i < 1000; i++) {
      const junk = Uint8Array.from({ length: Math.floor(rand() * 100) }, () => Math.floor(rand() * 256));
      if (i % 2 === 0 && junk.length >= 3) { junk[0] = 0x52; junk[1] = 0x4b; junk[2] = 1 + (i % 4 === 0); }
      throwsWith(() => decodeRecord(junk), "corrupt");
    }
  });

  test("data round-trips exactly as through JSON (property, seeded)", () => {
    const rand = splitmix(2024);
    const pick = (xs) => xs[Math.floor(rand() * xs.length)];
    const strings = ["", "a", "id", "naïve café 👋", "\u0000\n\"", "x".repeat(127), "é".repeat(100), "y".repeat(5000),
      "lone \ud800 high", "\udc00 lone low", "pair 😀 ok"];
    const numbers = [0, -0, 1, -1, 127, 128, 2 ** 31, -(2 ** 31), 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1e300, -1e-300,
      0.1, 0.8, Math.PI, 1699289764717, NaN, Infinity, -Infinity, 5e-324];
    const keys = ["id", "text", "createdAt", "order", "custom", "__proto__", "constructor", "", "😀", "k\ud800", "0", "10"];
    const gen = (depth) => {
      const r = rand();
      if (depth > 3 || r < 0.35) return pick([...strings, ...numbers, true, false, null, undefined, () => 1, Symbol("s")]);
      if (r < 0.55) return Array.from({ length: Math.floor(rand() * 5) }, () => gen(depth + 1));
      if (r < 0.6) return new Date(Math.floor(rand() * 2 ** 41));
      const o = {};
      for (let i = Math.floor(rand() * 6); i > 0; i--) {
        const k = pick(keys);
        const v = gen(depth + 1);
        if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        else o[k] = v;
      }
      return o;
    };
    for (let i = 0; i < 2000; i++) {
      const data = { i, v: gen(0) };
      const back = decodeRecord(encodeRecord({ kind: "memory", data })).data;
      const expected = JSON.parse(JSON.stringify(data));
      assert.deepEqual(back, expected, `case ${i}: ${JSON.stringify(data)}`);
      assert.equal(JSON.stringify(back), JSON.stringify(expected), `case ${i}: field order`);
      assert.equal(Object.getPrototypeOf(back), Object.prototype);
    }
  });

  test("field names recallkit uses take one byte; integers are varints; text is UTF-8", () => {
    const data = {
      id: "m0", text: "Invoice INV-79045 for 229 USD from Stearer Logistics was approved on 2019-04-27.",
      createdAt: 1699289764717, topic: "finance", tags: ["garden"], updatedAt: 1699289764717, order: 0,
    };
    const bytes = encodeRecord({ kind: "memory", data, signature: new Uint8Array(32) });
    const json = new TextEncoder().encode(JSON.stringify(data)).length;
    assert.ok(bytes.length - 32 <= json - 50, `${bytes.length - 32} bytes of record for ${json} bytes of JSON`);
    assert.ok(!new TextDecoder().decode(bytes).includes("createdAt"), "no field name is spelled out");
    assert.deepEqual(decodeRecord(bytes).data, data);
    assert.ok(FIELD_NAMES.includes("createdAt") && Object.isFrozen(FIELD_NAMES));
  });

  test("a record in a Node Buffer decodes to copies, not views of the Buffer's pool (regression)", () => {
    for (const bytes of [encodeRecord(sample()), encodeV1(sample())]) {
      const pooled = Buffer.concat([Buffer.alloc(7, 1), bytes, Buffer.alloc(9, 2)]).subarray(7, 7 + bytes.length);
      const back = decodeRecord(pooled);
      assert.equal(back.embedding.length, sample().embedding.length, "the embedding is its own values, not the whole buffer");
      assert.equal(back.embedding.buffer.byteLength, back.embedding.byteLength);
      assert.deepEqual(bitsOf(back.embedding), bitsOf(sample().embedding));
      pooled.fill(0);
      assert.deepEqual(back.signature, sample().signature, "the signature does not alias the input");
    }
  });

  test("recordTailBytes names the raw embedding and signature at a record's end, 0 for anything else", () => {
    const record = sample();
    const tail = record.embedding.length * 4 + record.signature.length;
    for (const bytes of [encodeRecord(record), encodeV1(record)]) {
      assert.equal(recordTailBytes(bytes), tail);
      assert.deepEqual(bytes.subarray(bytes.length - record.signature.length), record.signature);
    }
    assert.equal(recordTailBytes(encodeRecord({ kind: "note", data: { a: 1 } })), 0);
    for (const junk of [new Uint8Array(0), Uint8Array.of(0x52, 0x4b, 2, 1, 3, 0xff), Uint8Array.of(0x52, 0x4b, 2, 1, 1, 0x80, 0x80, 0x01, 9, 0), new TextEncoder().encode("hello world")]) {
      assert.equal(recordTailBytes(junk), 0);
    }
  });

  test("version 1 records (a JSON body) still decode", () => {
    for (const record of [sample(), { kind: "edge", data: { from: "a", to: "b" } }, { kind: "meta", data: {} }]) {
      const back = decodeRecord(encodeV1(record));
      assert.deepEqual(back.data, record.data);
      assert.equal(back.kind, record.kind);
      if (record.embedding) assert.deepEqual(bitsOf(back.embedding), bitsOf(record.embedding));
      assert.deepEqual(back.signature, record.signature);
    }
    const v1 = encodeV1(sample());
    for (let cut = 0; cut < v1.length; cut += 7) throwsWith(() => decodeRecord(v1.subarray(0, cut)), "corrupt");
    throwsWith(() => decodeRecord(Uint8Array.of(...v1, 0)), "corrupt", /do not add up/);
    const noJson = encodeV1({ kind: "meta", data: { a: 1 } });
    noJson[20] = 0x5b; // '{' becomes '[': still UTF-8, no longer an object
    throwsWith(() => decodeRecord(noJson), "corrupt");
    const badUtf8 = encodeV1({ kind: "meta", data: { a: "é" } });
    badUtf8[badUtf8.indexOf(0xc3)] = 0xff;
    throwsWith(() => decodeRecord(badUtf8), "corrupt", /UTF-8 JSON/);
    const badFlags = encodeV1(sample()); badFlags[4] |= 0x80;
    throwsWith(() => decodeRecord(badFlags), "corrupt", /flags/);
  });

  test("malformed records are invalid_argument at encode time", () => {
    throwsWith(() => encodeRecord({ kind: "thing", data: {} }), "invalid_argument", /kind/);
    throwsWith(() => encodeRecord({ kind: "memory", data: [] }), "invalid_argument", /data/);
    throwsWith(() => encodeRecord({ kind: "memory", data: {}, embedding: [1, 2] }), "invalid_argument", /Float32Array/);
    throwsWith(() => encodeRecord({ kind: "memory", data: {}, signature: "ab" }), "invalid_argument", /signature/);
    throwsWith(() => encodeRecord({ kind: "memory", data: { n: 1n } }), "invalid_argument", /JSON/);
    const cyclic = {}; cyclic.self = cyclic;
    throwsWith(() => encodeRecord({ kind: "memory", data: cyclic }), "invalid_argument", /JSON/);
  });
});

describe("JSON lines", () => {
  test("a record round-trips through a JSON line, embedding exactly", () => {
    const record = sample();
    const line = toJsonLine(record);
    assert.ok(!line.includes("\n"), "one line");
    assert.match(line, /^\{"v":1,"kind":"memory","data":\{/);
    assert.equal(JSON_LINE_VERSION, 1, "the export format keeps its own version, apart from the binary one");
    assert.match(line, /"embedding":\[0,-0,1\.401298464324817e-45,/);
    assert.match(line, /"signature":"00254a6f/);
    const back = fromJsonLine(line);
    assert.deepEqual(back.data, record.data);
    assert.deepEqual(bitsOf(back.embedding), bitsOf(record.embedding));
    assert.deepEqual(back.signature, record.signature);
    assert.deepEqual(fromJsonLine(toJsonLine({ kind: "edge", data: {} })), { kind: "edge", data: {} });
  });

  test("random float32 embeddings survive the decimal text exactly (property, seeded)", () => {
    const rand = splitmix(11);
    for (let i = 0; i < 200; i++) {
      const raw = new Uint32Array(16).map(() => {
        let bits;
        do bits = Math.floor(rand() * 2 ** 32); while (((bits >>> 23) & 0xff) === 0xff); // finite only
        return bits;
      });
      const embedding = new Float32Array(raw.buffer);
      assert.deepEqual(bitsOf(fromJsonLine(toJsonLine({ kind: "memory", data: {}, embedding })).embedding), [...raw], `case ${i}`);
    }
  });

  test("NaN or infinite embeddings cannot be exported", () => {
    throwsWith(() => toJsonLine({ kind: "memory", data: {}, embedding: new Float32Array([1, Number.NaN]) }), "invalid_embedding", /NaN/);
    throwsWith(() => toJsonLine({ kind: "memory", data: {}, embedding: new Float32Array([Infinity]) }), "invalid_embedding");
  });

  test("lines that are not ours are corrupt with a clear message", () => {
    throwsWith(() => fromJsonLine("not json"), "corrupt", /not a JSON line: "not json"/);
    throwsWith(() => fromJsonLine("[1,2]"), "corrupt", /object/);
    throwsWith(() => fromJsonLine('{"v":2,"kind":"memory","data":{}}'), "corrupt", /format version 2 is not supported/);
    throwsWith(() => fromJsonLine('{"kind":"memory","data":{}}'), "corrupt", /format version undefined/);
    throwsWith(() => fromJsonLine('{"v":1,"kind":"blob","data":{}}'), "corrupt", /unknown record kind "blob"/);
    throwsWith(() => fromJsonLine('{"v":1,"kind":"memory","data":"x"}'), "corrupt", /data must be an object/);
    throwsWith(() => fromJsonLine('{"v":1,"kind":"memory","data":{},"extra":1}'), "corrupt", /unknown field "extra"/);
    throwsWith(() => fromJsonLine('{"v":1,"kind":"memory","data":{},"embedding":[1,"2"]}'), "corrupt", /array of numbers/);
    throwsWith(() => fromJsonLine('{"v":1,"kind":"memory","data":{},"embedding":[1e39]}'), "corrupt", /float32 range/);
    throwsWith(() => fromJsonLine('{"v":1,"kind":"memory","data":{},"signature":"abc"}'), "corrupt", /not hex/);
    throwsWith(() => fromJsonLine('{"v":1,"kind":"memory","data":{},"signature":"zz"}'), "corrupt", /not hex/);
  });
});

describe("readLines", () => {
  const collect = async (source) => {
    const out = [];
    for await (const line of readLines(source)) out.push(line);
    return out;
  };
  const expected = ["first", "", "second é", "third 👋"];

  test("splits strings, string chunks, byte chunks and web streams alike", async () => {
    const text = "\ufefffirst\r\n\nsecond é\nthird 👋\n";
    const utf8 = new TextEncoder().encode(text);
    assert.deepEqual(await collect(text), expected);
    assert.deepEqual(await collect(text.slice(0, -1)), expected, "no final newline");
    // Every split point, including inside multi-byte characters and between \r and \n.
    for (let cut = 0; cut <= utf8.length; cut++) {
      async function* pieces() { yield utf8.subarray(0, cut); yield utf8.subarray(cut); }
      assert.deepEqual(await collect(pieces()), expected, `bytes cut at ${cut}`);
    }
    async function* oneByteAtATime() { for (const b of utf8) yield Uint8Array.of(b); }
    assert.deepEqual(await collect(oneByteAtATime()), expected);
    async function* strings() { yield "fir"; yield "st\r"; yield "\n\nsecond é\nthird"; yield " 👋"; }
    assert.deepEqual(await collect(strings()), expected);
    assert.deepEqual(await collect(Readable.from([Buffer.from(utf8)])), expected, "a Node stream");
    const web = new ReadableStream({ start(c) { c.enqueue(utf8.subarray(0, 9)); c.enqueue(utf8.subarray(9)); c.close(); } });
    assert.deepEqual(await collect(web), expected, "a web ReadableStream");
    assert.deepEqual(await collect(""), []);
  });

  test("stopping early cancels a web stream", async () => {
    let cancelled = false;
    const web = new ReadableStream({
      pull(c) { c.enqueue(new TextEncoder().encode("a line\n")); },
      cancel() { cancelled = true; },
    });
    for await (const line of readLines(web)) {
      assert.equal(line, "a line");
      break;
    }
    assert.ok(cancelled);
  });

  test("holds one line at a time: 200k lines stream through in small chunks", async () => {
    let produced = 0;
    async function* many() {
      for (let i = 0; i < 2000; i++) {
        let chunk = "";
        for (let j = 0; j < 100; j++) chunk += `{"n":${produced++}}\n`;
        yield chunk;
      }
    }
    let count = 0;
    for await (const line of readLines(many())) {
      assert.equal(line, `{"n":${count}}`);
      count++;
      assert.ok(produced - count <= 100, "lines are yielded as their chunk arrives");
    }
    assert.equal(count, 200_000);
  });

  test("invalid UTF-8 is corrupt naming its line, wherever the chunks are cut", async () => {
    const utf8 = Buffer.concat([Buffer.from("a\n\nb é\n"), Buffer.from([0x63, 0xff]), Buffer.from("\nd\n")]);
    for (let cut = 0; cut <= utf8.length; cut++) {
      async function* pieces() { yield utf8.subarray(0, cut); yield utf8.subarray(cut); }
      await assert.rejects(collect(pieces()), (e) => e.code === "corrupt" && e.message === "line 4: the input is not valid UTF-8",
        `bytes cut at ${cut}`);
    }
    async function* truncated() { yield Buffer.concat([Buffer.from("ok\nnot ok "), Buffer.from([0xe2, 0x82])]); }
    async function* cutCharacter() { yield Buffer.from("ok\nnot ok "); yield Buffer.from([0xe2, 0x82]); }
    for (const source of [truncated(), cutCharacter()]) {
      await assert.rejects(collect(source), (e) => e.code === "corrupt" && /^line 2: /.test(e.message));
    }
    async function* numbers() { yield "a\n"; yield 5; }
    await assert.rejects(collect(numbers()), (e) => e.code === "invalid_argument" && /^line 2: a chunk of the input must be a string or a Uint8Array/.test(e.message));
  });

  test("invalid UTF-8 is corrupt; a non-source is invalid_argument", async () => {
    async function* bad() { yield Uint8Array.of(0x61, 0xff, 0x0a); }
    await assert.rejects(collect(bad()), (e) => e.code === "corrupt" && /UTF-8/.test(e.message));
    await assert.rejects(collect(42), (e) => e.code === "invalid_argument");
  });
});

describe("snapshots", () => {
  test("a snapshot round-trips for its version only", () => {
    const payload = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 0xff);
    const snap = encodeSnapshot(3, payload);
    assert.equal(snap.length, SNAPSHOT_HEADER_BYTES + payload.length);
    assert.deepEqual(decodeSnapshot(snap, 3), payload);
    assert.equal(decodeSnapshot(snap, 4), undefined, "another version: ignore and rebuild");
    assert.deepEqual(decodeSnapshot(encodeSnapshot(0, new Uint8Array(0)), 0), new Uint8Array(0));
  });

  test("every truncation and every single-bit flip is detected", () => {
    const payload = Uint8Array.from({ length: 100 }, (_, i) => i);
    const snap = encodeSnapshot(1, payload);
    for (let cut = 0; cut < snap.length; cut++) assert.equal(decodeSnapshot(snap.subarray(0, cut), 1), undefined, `cut ${cut}`);
    assert.equal(decodeSnapshot(Uint8Array.of(...snap, 0), 1), undefined, "trailing byte");
    for (let i = 0; i < snap.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const bad = snap.slice();
        bad[i] ^= 1 << bit;
        assert.equal(decodeSnapshot(bad, 1), undefined, `byte ${i} bit ${bit}`);
      }
    }
  });

  test("inspectSnapshot tells a stale snapshot (another version, rebuilt quietly) from a damaged one (reported)", () => {
    const payload = Uint8Array.from({ length: 100 }, (_, i) => i);
    const snap = encodeSnapshot(1, payload);
    assert.deepEqual(inspectSnapshot(snap, 1), { payload });
    assert.deepEqual(inspectSnapshot(snap, 2), { stale: "payload version 1, not 2" });
    const container = snap.slice();
    container[8] = 2;
    container.set(new Uint8Array(new Uint32Array([zlibCrc32(container.subarray(0, 28))]).buffer), 28);
    assert.deepEqual(inspectSnapshot(container, 1), { stale: "container format 2" });
    for (let i = 0; i < snap.length; i++) {
      const bad = snap.slice();
      bad[i] ^= 0x10;
      assert.ok("damaged" in inspectSnapshot(bad, 1), `a flip in byte ${i} is damage`);
    }
    for (let cut = 0; cut < snap.length; cut++) assert.ok("damaged" in inspectSnapshot(snap.subarray(0, cut), 1), `cut ${cut}`);
    assert.deepEqual(inspectSnapshot("RKSNAP", 1), { damaged: "not a byte array" });
  });

  test("decodeSnapshot never throws on garbage", () => {
    const rand = splitmix(3);
    for (const junk of [undefined, null, "RKSNAP", 42, {}, [1, 2], new ArrayBuffer(40), new Uint8Array(0)]) {
      assert.equal(decodeSnapshot(junk, 1), undefined);
    }
    for (let i = 0; i < 300; i++) {
      const junk = Uint8Array.from({ length: Math.floor(rand() * 80) }, () => Math.floor(rand() * 256));
      if (i % 2 === 0) junk.set(encodeSnapshot(1, new Uint8Array(0)).subarray(0, Math.min(junk.length, 12)));
      assert.equal(decodeSnapshot(junk, 1), undefined);
    }
  });

  test("encodeSnapshot rejects a bad version", () => {
    throwsWith(() => encodeSnapshot(-1, new Uint8Array(1)), "invalid_argument", /version/);
    throwsWith(() => encodeSnapshot(1.5, new Uint8Array(1)), "invalid_argument", /version/);
    throwsWith(() => encodeSnapshot(1, [1]), "invalid_argument", /payload/);
  });
});

describe("crc32", () => {
  test("matches the standard check value and zlib on random inputs of every length mod 8, by the tables and natively", () => {
    assert.equal(crc32Tables(new TextEncoder().encode("123456789")), 0xcbf43926);
    assert.equal(crc32(new Uint8Array(0)), 0);
    const rand = splitmix(8);
    for (let len = 0; len < 600; len++) {
      const data = Uint8Array.from({ length: len }, () => Math.floor(rand() * 256));
      for (const f of [crc32, crc32Tables]) {
        assert.equal(f(data), zlibCrc32(data), `${f.name}, length ${len}`);
        const cut = Math.floor(len / 3);
        assert.equal(f(data.subarray(cut), f(data.subarray(0, cut))), zlibCrc32(data), `${f.name}, incremental, length ${len}`);
      }
    }
  });

  test("a native CRC-32 is taken only when it gives the check value and continues a running checksum", () => {
    assert.equal(useNativeCrc32(undefined), false);
    assert.equal(useNativeCrc32(() => 0), false, "a wrong check value");
    assert.equal(useNativeCrc32((b, c) => (c === 0 ? 0xcbf43926 : 1)), false, "continues wrongly");
    assert.equal(useNativeCrc32(() => { throw new Error("no"); }), false, "throws");
    assert.equal(useNativeCrc32(zlibCrc32), true, "Node's own");
    const data = new Uint8Array(100_000).map((_, i) => (i * 31) % 256);
    assert.equal(crc32(data), crc32Tables(data));
  });

  test("crc32Between gives a range's checksum from two running checksums (seeded, 300 cases)", () => {
    const rand = splitmix(27);
    for (let i = 0; i < 300; i++) {
      const length = i < 5 ? Math.floor(rand() * 3_000_000) : Math.floor(rand() * 2000);
      const data = Uint8Array.from({ length }, () => Math.floor(rand() * 256));
      const [a, b] = [Math.floor(rand() * (length + 1)), Math.floor(rand() * (length + 1))].sort((x, y) => x - y);
      const base = Math.floor(rand() * (a + 1));
      const before = crc32(data.subarray(base, a));
      const after = crc32(data.subarray(a, b), before);
      assert.equal(crc32Between(before, after, b - a), zlibCrc32(data.subarray(a, b)), `case ${i}: [${a}, ${b}) after ${a - base} bytes`);
    }
  });
});
