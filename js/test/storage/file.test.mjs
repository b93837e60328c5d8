// FileAdapter specifics: the on-disk format, torn and corrupt frames, compaction, the
// single-writer lock (across processes) and read-only sharing. Crash safety under SIGKILL is
// crash.test.mjs.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { inflateRawSync, crc32 as zlibCrc32 } from "node:zlib";
import { COMPACT_FILE, COMPACT_MIN_BYTES, DAMAGED_COPY_PREFIX, FileAdapter, LOCK_FILE, LOG_FILE } from "../../dist/storage/file.js";
import { rejectsWith } from "../support/errors.mjs";
import { tempRoot } from "../support/temp.mjs";

const { fresh: freshDir } = tempRoot("file");
const bytes = (s) => new TextEncoder().encode(s);
const text = (b) => new TextDecoder().decode(b);
const put = (key, value) => ({ op: "put", key, value: typeof value === "string" ? bytes(value) : value });
const fileUrl = new URL("../../dist/storage/file.js", import.meta.url).href;

/** Bytes of a format-3 frame header: magic, length, payload CRC-32, header CRC-32. */
const HEAD = 16;

/** The CRC-32 a format-3 frame header at byte `offset` carries: over the offset (u64), then the header's first 12 bytes. */
function headerCrc(head, offset) {
  const at = Buffer.alloc(8);
  at.writeBigUInt64LE(BigInt(offset));
  return zlibCrc32(head.subarray(0, 12), zlibCrc32(at));
}

/** A format-3 frame around `payload`, for byte `offset` of a log. */
function frameOf(payload, offset) {
  const head = Buffer.alloc(HEAD);
  Buffer.from("RKF\x1a", "latin1").copy(head, 0);
  head.writeUInt32LE(payload.length, 4);
  head.writeUInt32LE(zlibCrc32(payload), 8);
  head.writeUInt32LE(headerCrc(head, offset), 12);
  return Buffer.concat([head, payload]);
}

/** A format-1/2 frame around `payload`: length, CRC-32, payload. */
function frameOfV2(payload) {
  const head = Buffer.alloc(8);
  head.writeUInt32LE(payload.length, 0);
  head.writeUInt32LE(zlibCrc32(payload), 4);
  return Buffer.concat([head, payload]);
}

/** Recomputes both checksums of the format-3 frame at `start` of `file` after its payload was changed: a forgery. */
function reseal(file, start) {
  const length = file.readUInt32LE(start + 4);
  file.writeUInt32LE(zlibCrc32(file.subarray(start + HEAD, start + HEAD + length)), start + 8);
  file.writeUInt32LE(headerCrc(file.subarray(start, start + 12), start), start + 12);
}

/** Writes batches, closes, and returns the log's path and each frame's start offset. */
const dir = (label) => freshDir(label);

/** `n` pseudo-random bytes from `seed` (xorshift32). */
function randomBytes(n, seed) {
  let x = (seed * 2654435761 + 1) >>> 0 || 1;
  return Uint8Array.from({ length: n }, () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x & 0xff;
  });
}

/** `n` characters of pseudo-random hex digits: compresses to about half. */
const hexText = (n, seed) => Array.from(randomBytes(n, seed), (b) => "0123456789abcdef"[b & 15]).join("");

async function writeBatches(dir, batches) {
  const s = await FileAdapter.open({ path: dir });
  const starts = [];
  for (const b of batches) {
    starts.push(s.stats().logBytes);
    await s.write(b);
  }
  starts.push(s.stats().logBytes);
  await s.close();
  return { log: join(dir, LOG_FILE), starts };
}

async function contents(dir) {
  const s = await FileAdapter.open({ path: dir, readOnly: true });
  const out = (await s.entries()).map(([k, v]) => `${k}=${text(v)}`);
  await s.close();
  return out;
}

describe("on-disk format", () => {
  test("the log is a versioned header then [magic][u32 length][u32 crc32][u32 header crc32][payload] per batch; small payloads are stored as is", async () => {
    const dir = freshDir("format");
    const { log } = await writeBatches(dir, [[put("ab", "xyz"), { op: "delete", key: "q" }]]);
    const file = readFileSync(log);
    assert.deepEqual([...file.subarray(0, 8)], [0x52, 0x4b, 0x4c, 0x4f, 0x47, 0x0d, 0x0a, 0x1a], "magic");
    assert.equal(file.readUInt32LE(8), 3, "format version");
    assert.equal(file.readUInt32LE(12), zlibCrc32(file.subarray(0, 12)), "header checksum");
    assert.equal(file.subarray(16, 20).toString("latin1"), "RKF\x1a", "frame magic");
    const length = file.readUInt32LE(20);
    const payload = file.subarray(32, 32 + length);
    assert.equal(file.length, 32 + length, "exactly one frame for one write");
    assert.equal(file.readUInt32LE(24), zlibCrc32(payload), "frame checksum is CRC-32 of the payload");
    assert.equal(file.readUInt32LE(28), headerCrc(file.subarray(16, 28), 16), "the header checksum covers the frame's offset and header");
    const expected = Buffer.concat([
      Buffer.from([0, 13, 13]), // encoding: stored; body length; stored length (varints)
      Buffer.from([2]), // two ops (varint)
      Buffer.from([1, 2]), Buffer.from("ab"), Buffer.from([3, 0]), Buffer.from("xyz"), // put: value length 3, tail length 0
      Buffer.from([2, 1]), Buffer.from("q"), // delete
    ]); // no tail
    assert.deepEqual(payload, expected);
  });

  test("an unknown format version or a foreign file fails with corrupt and a clear message", async () => {
    const dir = freshDir("version");
    const { log } = await writeBatches(dir, [[put("k", "v")]]);
    const file = readFileSync(log);
    file.writeUInt32LE(4, 8);
    file.writeUInt32LE(zlibCrc32(file.subarray(0, 12)), 12);
    writeFileSync(log, file);
    await rejectsWith(() => FileAdapter.open({ path: dir }), "corrupt", /log format version 4.*reads versions 1 and 2 and 3/);
    await rejectsWith(() => FileAdapter.open({ path: dir, readOnly: true }), "corrupt", /log format version 4/);
    await rejectsWith(() => FileAdapter.repair({ path: dir }), "corrupt", /log format version 4/);
    assert.deepEqual(readFileSync(log), file, "repair leaves a newer recallkit's log alone");
    writeFileSync(log, "id,name\n1,alice\n");
    await rejectsWith(() => FileAdapter.open({ path: dir }), "corrupt", /not a recallkit log/);
    assert.ok(!existsSync(join(dir, LOCK_FILE)), "a failed open releases the lock");
  });

  test("a reader open of a missing store is not_found; a writer creates it", async () => {
    const dir = freshDir("missing");
    await rejectsWith(() => FileAdapter.open({ path: dir, readOnly: true }), "not_found", /no recallkit store/);
    const s = await FileAdapter.open({ path: join(dir, "nested") });
    assert.ok(existsSync(join(dir, "nested", LOG_FILE)));
    await s.close();
  });

  test("a writer whose directory cannot be created fails promptly with storage_failed", () => {
    // In a child process with a timeout: Node's recursive mkdir spun forever on these paths,
    // and a hung thread-pool call would keep this test process alive too.
    const dir = freshDir("uncreatable");
    mkdirSync(dir);
    symlinkSync(join(dir, "missing"), join(dir, "dangling"));
    writeFileSync(join(dir, "file"), "x");
    const paths = [join(dir, "dangling", "store"), join(dir, "file", "store")];
    if (existsSync("/proc/self")) paths.push("/proc/self/nope/store", "/proc/nope");
    const code = `
      import { FileAdapter } from ${JSON.stringify(fileUrl)};
      for (const path of ${JSON.stringify(paths)}) {
        try { await FileAdapter.open({ path }); console.log("opened", path); }
        catch (e) { console.log(e.code, e.message); }
      }`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", timeout: 10_000 });
    assert.equal(r.status, 0, `the child ${r.signal ? `was killed (${r.signal}): it hung` : "failed"}: ${r.stderr}`);
    const lines = r.stdout.trim().split("\n");
    assert.equal(lines.length, paths.length);
    paths.forEach((path, i) => assert.match(lines[i], new RegExp(`^storage_failed cannot create store directory ${path}: E(NOENT|NOTDIR)`)));
  });

  test("a file given as a store's directory is storage_failed saying so, and the file is left as it was", async () => {
    const dir = freshDir("a-file");
    mkdirSync(dir);
    const file = join(dir, "store");
    writeFileSync(file, "x");
    await rejectsWith(() => FileAdapter.open({ path: file }), "storage_failed", /store .* exists and is not a directory/);
    assert.equal(readFileSync(file, "utf8"), "x");
  });

  test("a large batch is one deflate-raw frame: smaller, checksummed as written, read back exactly", async () => {
    const dir = freshDir("deflate");
    const batch = Array.from({ length: 500 }, (_, i) => put(`m/m${i}`, `memory ${i}: the backup runs at 02:00 and the invoice INV-${1000 + i} is paid`));
    const raw = batch.reduce((n, op) => n + op.key.length + op.value.length, 0);
    const { log, starts } = await writeBatches(dir, [batch]);
    const file = readFileSync(log);
    const length = file.readUInt32LE(20);
    assert.equal(file[32], 1, "encoding: deflate-raw");
    assert.ok(file.length - starts[0] < raw / 3, `${raw} bytes of keys and values took ${file.length - starts[0]} bytes`);
    assert.equal(file.readUInt32LE(24), zlibCrc32(file.subarray(32, 32 + length)), "the checksum covers the compressed payload");
    let at = 33;
    const varint = () => {
      let n = 0;
      for (let scale = 1; ; scale *= 0x80) {
        n += (file[at] & 0x7f) * scale;
        if (file[at++] < 0x80) return n;
      }
    };
    const bodyLength = varint(); // after the encoding byte
    const packedLength = varint();
    assert.equal(at + packedLength, 32 + length, "no tail: these values are not records");
    const body = inflateRawSync(file.subarray(at, 32 + length));
    assert.equal(body.length, bodyLength, "the varint gives the body's length");
    assert.deepEqual([...body.subarray(0, 2)], [0xf4, 0x03], "the body starts with the op count, 500 as a varint");
    const s = await FileAdapter.open({ path: dir, readOnly: true });
    assert.equal(s.stats().keys, 500);
    assert.deepEqual(text(await s.get("m/m7")), text(batch[7].value));
    await s.close();
  });

  test("large values replayed from the log come back exactly, as copies the caller owns", async () => {
    const dir = freshDir("large-values");
    // Incompressible (stored) and compressible (deflated) values past the size read as views.
    const noise = Uint8Array.from({ length: 300_000 }, (_, i) => (Math.imul(i + 1, 2654435761) >>> 13) & 0xff);
    const text = new TextEncoder().encode("the backup runs at 02:00. ".repeat(12_000));
    const w = await FileAdapter.open({ path: dir });
    await w.write([{ op: "put", key: "snapshot/000000", value: noise }, { op: "put", key: "small", value: Uint8Array.of(1, 2, 3) }]);
    await w.write([{ op: "put", key: "snapshot/000001", value: text }]);
    await w.close();
    const r = await FileAdapter.open({ path: dir, readOnly: true });
    const first = await r.get("snapshot/000000");
    assert.deepEqual(first, noise);
    first.fill(0); // the caller's copy: the store's value is untouched
    assert.deepEqual(await r.get("snapshot/000000"), noise);
    const all = await r.entries("snapshot/");
    assert.deepEqual(all.map(([k]) => k), ["snapshot/000000", "snapshot/000001"]);
    assert.deepEqual(all[1][1], text);
    all[1][1].fill(0);
    assert.deepEqual((await r.entries("snapshot/"))[1][1], text);
    assert.deepEqual(await r.get("small"), Uint8Array.of(1, 2, 3));
    await r.close();
  });

  test("record embeddings and signatures bypass compression in the frame's tail, and come back whole", async () => {
    const { encodeRecord } = await import("../../dist/storage/codec.js");
    const embedding = new Float32Array(Array.from({ length: 64 }, (_, i) => Math.sin(i + 0.5)));
    const signature = Uint8Array.from({ length: 32 }, (_, i) => (i * 73 + 11) & 0xff);
    const batch = Array.from({ length: 40 }, (_, i) => put(`m/${i}`, encodeRecord({
      kind: "memory", data: { id: String(i), text: `the backup runs at 02:00, memory ${i}` }, embedding, signature,
    })));
    const { log } = await writeBatches(dir("tail"), [batch]);
    const file = readFileSync(log);
    assert.equal(file[32], 1, "the body is compressed");
    const raw = Buffer.concat([Buffer.from(embedding.buffer), Buffer.from(signature)]);
    assert.equal(file.subarray(file.length - 40 * raw.length).compare(Buffer.concat(batch.map(() => raw))), 0, "the tail holds them raw, in op order");
    const s = await FileAdapter.open({ path: join(log, ".."), readOnly: true });
    assert.deepEqual(await s.get("m/39"), batch[39].value);
    await s.close();
    const bad = Buffer.from(file);
    bad[bad.length - 1] ^= 1;
    reseal(bad, 16);
    writeFileSync(log, bad);
    const t = await FileAdapter.open({ path: join(log, ".."), readOnly: true });
    assert.notDeepEqual(await t.get("m/39"), batch[39].value, "the checksum was forged: the change comes through, and the record codec would catch a malformed one");
    await t.close();
    writeFileSync(log, Buffer.concat([file.subarray(0, 16), frameOf(Buffer.concat([file.subarray(32), Buffer.from([7])]), 16)]));
    await rejectsWith(() => FileAdapter.open({ path: join(log, ".."), readOnly: true }), "corrupt", /1 tail bytes follow the last op/);
  });

  test("a compressed frame whose checksum holds but which does not inflate is corrupt", async () => {
    const dir = freshDir("bad-deflate");
    const big = Array.from({ length: 50 }, (_, i) => put(`k${i}`, "compressible ".repeat(20)));
    const { log, starts } = await writeBatches(dir, [big, [put("z", "1")]]);
    const file = readFileSync(log);
    const at = starts[0] + HEAD;
    assert.equal(file[at], 1);
    file[at + 10] ^= 0xff; // inside the deflate stream
    reseal(file, starts[0]);
    writeFileSync(log, file);
    await rejectsWith(() => FileAdapter.open({ path: dir, readOnly: true }), "corrupt", new RegExp(`frame at byte ${starts[0]} is damaged: payload (does not inflate|inflates to)`));
  });
});

/** A new store directory whose log is a copy of the fixture log at `fixture`. */
function storeWithLog(label, fixture) {
  const dir = freshDir(label);
  mkdirSync(dir);
  writeFileSync(join(dir, LOG_FILE), readFileSync(fixture));
  return dir;
}

describe("format version 1 logs", () => {
  const fixture = new URL("./fixtures/v1-store.log", import.meta.url);

  /** A store directory holding the version-1 log recallkit wrote before log format 2 (`fixtures/v1-store.log`). */
  const v1Store = (label) => storeWithLog(label, fixture);

  test("a reader reads a version-1 log in place and leaves it untouched", async () => {
    const dir = v1Store("v1-read");
    const s = await FileAdapter.open({ path: dir, readOnly: true });
    assert.equal(s.logFormat, 1);
    assert.deepEqual(await s.keys("m/"), ["m/a", "m/b", "m/c"]);
    await s.close();
    assert.deepEqual(readFileSync(join(dir, LOG_FILE)), readFileSync(fixture));
  });

  test("a writer migrates a version-1 log to the current version on open (migrateLog), keeping every entry", async () => {
    const dir = v1Store("v1-migrate");
    const before = await FileAdapter.open({ path: dir, readOnly: true });
    const entries = await before.entries();
    await before.close();
    const w = await FileAdapter.open({ path: dir });
    assert.equal(w.logFormat, 3);
    assert.equal(w.stats().compactions, 1);
    await w.write([put("after", "migration")]);
    await w.close();
    const file = readFileSync(join(dir, LOG_FILE));
    assert.equal(file.readUInt32LE(8), 3, "the header says version 3");
    assert.ok(!existsSync(join(dir, COMPACT_FILE)));
    const r = await FileAdapter.open({ path: dir, readOnly: true });
    assert.deepEqual(await r.entries(), [["after", bytes("migration")], ...entries].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    await r.close();
  });

  test("a MemoryStore opens a store written entirely in version 1 (log and records) and exports it unchanged", async () => {
    const { MemoryStore } = await import("../../dist/index.js");
    const expected = readFileSync(new URL("./fixtures/v1-store.jsonl", import.meta.url), "utf8");
    const exportOf = async (store) => {
      let out = "";
      for await (const line of store.export()) out += line;
      return out;
    };
    const dir = v1Store("v1-memorystore");
    const store = await MemoryStore.open({ storage: "file", path: dir });
    assert.equal(await exportOf(store), expected);
    assert.equal((await store.recall("backup", { limit: 1, trackRecalls: false })).results[0]?.id, "a", "the indexes are rebuilt from the records");
    await store.close();
    const again = await MemoryStore.open({ storage: "file", path: dir });
    assert.equal(await exportOf(again), expected, "the same after the migration to log format 3");
    await again.close();
    assert.equal(readFileSync(join(dir, LOG_FILE)).readUInt32LE(8), 3);
  });

  test("when the migration cannot write, the writer keeps appending version-1 frames", async () => {
    const dir = v1Store("v1-stuck");
    mkdirSync(join(dir, COMPACT_FILE)); // the compaction's temporary file cannot be created
    const w = await FileAdapter.open({ path: dir });
    assert.equal(w.logFormat, 1);
    await w.write([put("late", "write"), { op: "delete", key: "m/c" }]);
    await w.close();
    const file = readFileSync(join(dir, LOG_FILE));
    assert.equal(file.readUInt32LE(8), 1);
    assert.deepEqual(file.subarray(0, readFileSync(fixture).length), readFileSync(fixture), "appended, not rewritten");
    rmSync(join(dir, COMPACT_FILE), { recursive: true });
    const r = await FileAdapter.open({ path: dir });
    assert.equal(r.logFormat, 3, "migrated once it can write");
    assert.equal(text(await r.get("late")), "write");
    assert.equal(await r.get("m/c"), undefined);
    assert.deepEqual(await r.keys("m/"), ["m/a", "m/b"]);
    await r.close();
  });
});

describe("format version 2 logs", () => {
  const fixture = new URL("./fixtures/v2-store.log", import.meta.url);

  /** A store directory holding the version-2 log recallkit wrote before issue 27 (`fixtures/gen-v2-store.mjs`). */
  const v2Store = (label) => storeWithLog(label, fixture);

  test("a version-2 log written by the previous release is read in place by a reader and opens as a MemoryStore with every record", async () => {
    const { MemoryStore } = await import("../../dist/index.js");
    const expected = readFileSync(new URL("./fixtures/v2-store.jsonl", import.meta.url), "utf8");
    const dir = v2Store("v2-read");
    const r = await FileAdapter.open({ path: dir, readOnly: true });
    assert.equal(r.logFormat, 2);
    await r.close();
    assert.deepEqual(readFileSync(join(dir, LOG_FILE)), readFileSync(fixture), "a reader leaves it untouched");
    const store = await MemoryStore.open({ storage: "file", path: dir });
    let out = "";
    for await (const line of store.export()) out += line;
    await store.close();
    assert.equal(out, expected);
  });

  test("an 8 MiB torn tail of a version-2 log is dropped quietly, in time linear in its size", async () => {
    // Formats 1 and 2 have no header checksum: a length running past the end is torn only if no
    // frame that checks follows it. Checksumming every position whose length fits took 50 s here.
    const dir = v2Store("v2-big-torn");
    const payload = Buffer.concat([Buffer.from([1]), Buffer.from(randomBytes(8 << 20, 27))]);
    const torn = frameOfV2(payload).subarray(0, 8 + payload.length - 1000);
    writeFileSync(join(dir, LOG_FILE), Buffer.concat([readFileSync(fixture), torn]));
    const started = performance.now();
    const r = await FileAdapter.open({ path: dir, readOnly: true });
    const ms = performance.now() - started;
    assert.equal(r.stats().logBytes, readFileSync(fixture).length, "the torn frame is dropped");
    await r.close();
    assert.ok(ms < 10_000, `the open took ${Math.round(ms)} ms`);
  });
});

/** The three batches the damage and repair tests write. */
const batches = [[put("a", "1"), put("b", "2")], [put("c", "3"), { op: "delete", key: "a" }], [put("d", "4"), put("e", "5")]];

/** Writes `batches` to a fresh store, applies `damage(file, starts)` to its log and returns them. */
async function damaged(label, damage) {
  const dir = freshDir(label);
  const { log, starts } = await writeBatches(dir, batches);
  const file = readFileSync(log);
  damage(file, starts);
  writeFileSync(log, file);
  return { dir, log, starts, file };
}

describe("torn and corrupt frames", () => {

  /** Both opens fail with corrupt naming the log and `offset`, and leave the file as it was. */
  async function reportsDamageAt({ dir, log, file }, offset, pattern = /./) {
    const where = new RegExp(`${log.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: the frame at byte ${offset} is damaged`);
    for (const readOnly of [false, true]) {
      await rejectsWith(() => FileAdapter.open({ path: dir, readOnly }), "corrupt", where);
      await rejectsWith(() => FileAdapter.open({ path: dir, readOnly }), "corrupt", pattern);
    }
    assert.deepEqual(readFileSync(log), file, "the log is left as it was");
    assert.ok(!existsSync(join(dir, LOCK_FILE)), "the lock is released");
  }

  test("a torn tail is dropped quietly at every cut point, and cut off by the next write", async () => {
    const dir = freshDir("torn-template");
    const { log, starts } = await writeBatches(dir, batches);
    const whole = readFileSync(log);
    const last = starts[2];
    for (let cut = last + 1; cut < whole.length; cut++) {
      const copy = freshDir("torn");
      mkdirSync(copy);
      writeFileSync(join(copy, LOG_FILE), whole.subarray(0, cut));
      assert.deepEqual(await contents(copy), ["b=2", "c=3"], `cut at ${cut}`);
      const s = await FileAdapter.open({ path: copy });
      assert.equal(s.stats().logBytes, last, `cut at ${cut}: the valid log ends before the torn frame`);
      await s.write([put("f", "6")]);
      await s.close();
      assert.deepEqual(await contents(copy), ["b=2", "c=3", "f=6"], `cut at ${cut}, then a write`);
      const reread = readFileSync(join(copy, LOG_FILE));
      assert.deepEqual(reread.subarray(0, last), whole.subarray(0, last), "the acknowledged frames are untouched");
      assert.equal(reread.readUInt32LE(last + 4) + HEAD + last, reread.length, "the torn bytes are gone: the new frame ends the file");
    }
  });

  test("a flipped bit in the last acknowledged frame is reported as corrupt with its offset", async () => {
    const { starts } = await writeBatches(freshDir("last-template"), batches);
    const length = starts[3] - starts[2];
    // Every byte of the last frame: magic, length, both checksums, payload.
    for (let at = 0; at < length; at++) {
      const log = await damaged("bad-last", (file) => { file[starts[2] + at] ^= 1 << (at % 8); });
      await reportsDamageAt(log, starts[2]);
    }
  });

  test("a flipped bit in a frame's length is reported as corrupt, not taken for a torn tail that hides every later frame", async () => {
    for (const bit of [0, 9, 20, 31]) {
      for (const frame of [0, 2]) {
        const log = await damaged("bad-length", (file, starts) => { file[starts[frame] + 4 + (bit >> 3)] ^= 1 << (bit & 7); });
        await reportsDamageAt(log, log.starts[frame], /its header fails its checksum/);
      }
    }
  });

  test("a zero-filled tail (file grown but never written) is dropped quietly", async () => {
    const dir = freshDir("zeros");
    const { log } = await writeBatches(dir, batches);
    writeFileSync(log, Buffer.concat([readFileSync(log), Buffer.alloc(4096)]));
    assert.deepEqual(await contents(dir), ["b=2", "c=3", "d=4", "e=5"]);
  });

  test("bytes after the last frame that cannot begin a frame are damage; the start of a frame header is a torn tail", async () => {
    const garbage = await damaged("garbage-tail", () => undefined);
    writeFileSync(garbage.log, Buffer.concat([garbage.file, Buffer.from("xyzzy")]));
    garbage.file = readFileSync(garbage.log);
    await reportsDamageAt(garbage, garbage.starts[3], /the last 5 bytes do not start a frame/);
    writeFileSync(garbage.log, Buffer.concat([garbage.file.subarray(0, garbage.starts[3]), Buffer.from("RKF")]));
    assert.deepEqual(await contents(garbage.dir), ["b=2", "c=3", "d=4", "e=5"]);
  });

  test("a bad frame in the middle fails with corrupt and changes nothing on disk", async () => {
    const log = await damaged("bad-middle", (file, starts) => { file[starts[1] + HEAD + 2] ^= 0x01; });
    await reportsDamageAt(log, log.starts[1], /its payload fails its checksum.*refusing to drop acknowledged writes/);
  });

  test("a frame whose checksums hold but whose payload is malformed is corrupt", async () => {
    const log = await damaged("malformed", (file, starts) => {
      file[starts[0] + HEAD + 3] = 5; // claims five ops; the payload holds two
      reseal(file, starts[0]);
    });
    await reportsDamageAt(log, log.starts[0], /op 2 runs past the payload/);
  });
});

describe("repair", () => {

  const copies = (dir) => readdirSync(dir).filter((f) => f.startsWith(DAMAGED_COPY_PREFIX));

  test("repair salvages every checked frame and keeps a copy", async () => {
    const { dir, log, starts, file } = await damaged("repair", (f, s) => { f[s[1] + HEAD + 3] ^= 0x20; });
    const report = await FileAdapter.repair({ path: dir });
    assert.equal(report.repaired, true);
    assert.deepEqual(report.dropped.map(({ offset, bytes }) => ({ offset, bytes })), [{ offset: starts[1], bytes: starts[2] - starts[1] }]);
    assert.match(report.dropped[0].why, /payload fails its checksum/);
    assert.equal(report.framesKept, 2);
    assert.deepEqual(copies(dir).map((f) => join(dir, f)), [report.copy]);
    assert.deepEqual(readFileSync(report.copy), file, "the copy holds the damaged log as it was");
    assert.deepEqual(await contents(dir), ["a=1", "b=2", "d=4", "e=5"], "frames 0 and 2 applied, the damaged frame 1 dropped");
    assert.equal(readFileSync(log).readUInt32LE(8), 3);
    const w = await FileAdapter.open({ path: dir });
    await w.write([put("f", "6")]);
    await w.close();
    assert.deepEqual(await contents(dir), ["a=1", "b=2", "d=4", "e=5", "f=6"]);
  });

  test("repair of an undamaged store changes nothing and says so, a torn tail included", async () => {
    const { dir, log, starts, file } = await damaged("repair-clean", () => undefined);
    const clean = await FileAdapter.repair({ path: dir });
    assert.deepEqual(clean, { path: log, version: 3, repaired: false, framesKept: 3, dropped: [], restored: [], keys: 4 });
    assert.deepEqual(readFileSync(log), file);
    writeFileSync(log, file.subarray(0, starts[3] - 3));
    const torn = await FileAdapter.repair({ path: dir });
    assert.equal(torn.repaired, false);
    assert.deepEqual({ offset: torn.torn.offset, bytes: torn.torn.bytes }, { offset: starts[2], bytes: starts[3] - 3 - starts[2] });
    assert.deepEqual(readFileSync(log), file.subarray(0, starts[3] - 3), "a torn tail is left for the next writer to cut");
    assert.deepEqual(copies(dir), []);
  });

  test("repair keeps a frame whose header has one flipped bit, and resynchronises after a header damaged beyond that", async () => {
    const one = await damaged("repair-one-bit", (f, s) => { f[s[1] + 6] ^= 0x04; });
    const report = await FileAdapter.repair({ path: one.dir });
    assert.deepEqual([report.repaired, report.dropped, report.restored, report.framesKept], [true, [], [one.starts[1]], 3]);
    assert.deepEqual(await contents(one.dir), ["b=2", "c=3", "d=4", "e=5"]);
    const two = await damaged("repair-resync", (f, s) => { f[s[1] + 5] ^= 0x04; f[s[1] + 9] ^= 0x40; });
    const resync = await FileAdapter.repair({ path: two.dir });
    assert.deepEqual(resync.dropped.map(({ offset, bytes }) => [offset, bytes]), [[two.starts[1], two.starts[2] - two.starts[1]]]);
    assert.deepEqual(await contents(two.dir), ["a=1", "b=2", "d=4", "e=5"]);
  });

  test("repair rewrites a damaged log header and keeps every frame", async () => {
    const { dir, file } = await damaged("repair-header", (f) => { f[9] ^= 0x01; f[13] ^= 0x10; });
    await rejectsWith(() => FileAdapter.open({ path: dir }), "corrupt", /damaged header|log format version/);
    const report = await FileAdapter.repair({ path: dir });
    assert.equal(report.repaired, true);
    assert.ok(report.header, "the header damage is reported");
    assert.deepEqual(report.dropped, []);
    assert.deepEqual(readFileSync(report.copy), file);
    assert.deepEqual(await contents(dir), ["b=2", "c=3", "d=4", "e=5"]);
  });

  test("repair leaves alone what is not a recallkit log, a missing store, and a store a writer holds", async () => {
    const dir = freshDir("repair-foreign");
    mkdirSync(dir);
    await rejectsWith(() => FileAdapter.repair({ path: dir }), "not_found", /no recallkit store/);
    writeFileSync(join(dir, LOG_FILE), "id,name\n1,alice\n2,bob\n");
    await rejectsWith(() => FileAdapter.repair({ path: dir }), "corrupt", /not a recallkit log/);
    assert.equal(readFileSync(join(dir, LOG_FILE), "utf8"), "id,name\n1,alice\n2,bob\n");
    const held = freshDir("repair-held");
    const w = await FileAdapter.open({ path: held });
    await rejectsWith(() => FileAdapter.repair({ path: held }), "locked");
    await w.close();
    assert.equal((await FileAdapter.repair({ path: held })).repaired, false);
  });

  test("MemoryStore.repair salvages a file store's log, removes the snapshot the lost frame may disagree with, and the store opens", async () => {
    const { MemoryStore } = await import("../../dist/index.js");
    const dir = freshDir("repair-store");
    const options = { storage: "file", path: dir, snapshots: true };
    let store = await MemoryStore.open(options);
    for (let i = 0; i < 5; i++) await store.remember({ id: `m${i}`, text: `memory ${i} about the garden` }); // one frame each
    await store.close(); // writes the snapshot
    store = await MemoryStore.open(options);
    assert.equal((await store.storageInfo()).openedFrom, "snapshot");
    await store.remember({ id: "m5", text: "memory 5, after the snapshot" });
    await store.close();
    const log = join(dir, LOG_FILE);
    const file = readFileSync(log);
    const starts = [];
    for (let at = 16; at < file.length; at += HEAD + file.readUInt32LE(at + 4)) starts.push(at);
    file[starts[2] + HEAD + 1] ^= 0x80; // the frame of m2
    writeFileSync(log, file);
    await rejectsWith(() => MemoryStore.open(options), "corrupt", new RegExp(`frame at byte ${starts[2]} is damaged`));
    const report = await MemoryStore.repair(options);
    assert.equal(report.repaired, true);
    assert.deepEqual(report.log.dropped.map((r) => [r.offset, r.bytes]), [[starts[2], starts[3] - starts[2]]]);
    assert.deepEqual(report.snapshot, { found: "ok", removed: true, why: "the log lost frames, so it may disagree with the records" });
    assert.equal(report.memories, 5);
    assert.deepEqual(readFileSync(report.log.copy), file);
    store = await MemoryStore.open(options);
    assert.deepEqual(await store.ids(), ["m0", "m1", "m3", "m4", "m5"]);
    assert.equal((await store.storageInfo()).openedFrom, "records", "the snapshot, which still held m2, is not used");
    await store.close();
    const again = await MemoryStore.repair(options);
    assert.equal(again.repaired, false, "a second repair finds nothing");
    await rejectsWith(() => MemoryStore.repair({ storage: "memory" }), "invalid_argument", /keeps nothing/);
    await rejectsWith(() => MemoryStore.repair({ storage: "file", path: freshDir("repair-none") }), "not_found", /no recallkit store/);
  });

  test("a log cut shorter than its header (a truncated copy) fails the open with corrupt, and repair makes it an empty store", async () => {
    const { MemoryStore } = await import("../../dist/index.js");
    for (const length of [0, 3, 15]) {
      const dir = freshDir(`repair-short-${length}`);
      const options = { storage: "file", path: dir };
      const store = await MemoryStore.open(options);
      await store.remember({ text: "a memory the cut loses" });
      await store.close();
      const log = join(dir, LOG_FILE);
      const cut = readFileSync(log).subarray(0, length);
      writeFileSync(log, cut);
      await rejectsWith(() => MemoryStore.open(options), "corrupt", /shorter than a recallkit log header/);
      const report = await MemoryStore.repair(options);
      assert.equal(report.repaired, true, `repaired at ${length} bytes`);
      assert.match(report.log.header, /shorter than a recallkit log header/);
      assert.deepEqual(report.log.dropped.map((r) => [r.offset, r.bytes]), length === 0 ? [] : [[0, length]]);
      assert.deepEqual(readFileSync(report.log.copy), cut);
      const reopened = await MemoryStore.open(options);
      assert.equal(reopened.size, 0);
      await reopened.remember({ text: "written after the repair" });
      await reopened.close();
    }
  });

  test("a flipped bit in a version-2 log (the previous release's) is reported as corrupt; repair rewrites it in version 3 keeping every other frame", async () => {
    const fixture = readFileSync(new URL("./fixtures/v2-store.log", import.meta.url));
    const starts = [];
    for (let at = 16; at < fixture.length; at += 8 + fixture.readUInt32LE(at)) starts.push(at);
    const expected = async (dropped) => {
      // What a reader sees of the fixture without frame `dropped`: replay the others by hand.
      const dir = freshDir("v2-expected");
      mkdirSync(dir);
      const kept = starts.filter((_, i) => i !== dropped).map((at, i, all) => fixture.subarray(at, at + 8 + fixture.readUInt32LE(at)));
      writeFileSync(join(dir, LOG_FILE), Buffer.concat([fixture.subarray(0, 16), ...kept]));
      return contents(dir);
    };
    for (const [frame, at] of [[1, 0], [1, 3], [3, 6], [5, 8], [5, 40]]) {
      const dir = freshDir("v2-flip");
      mkdirSync(dir);
      const file = Buffer.from(fixture);
      file[starts[frame] + at] ^= 0x08;
      writeFileSync(join(dir, LOG_FILE), file);
      await rejectsWith(() => FileAdapter.open({ path: dir, readOnly: true }), "corrupt", new RegExp(`frame at byte ${starts[frame]} is damaged`));
      const report = await FileAdapter.repair({ path: dir });
      assert.equal(report.version, 2);
      assert.equal(readFileSync(join(dir, LOG_FILE)).readUInt32LE(8), 3);
      const after = await contents(dir);
      if (at < 8) assert.deepEqual(after, await expected(-1), `a flip in frame ${frame}'s header loses nothing`);
      else assert.deepEqual(after, await expected(frame), `only frame ${frame} is dropped`);
    }
  });
});

describe("compaction", () => {
  test("overwrites trigger compaction, which keeps the data and shrinks the file", async () => {
    const dir = freshDir("compact");
    const s = await FileAdapter.open({ path: dir });
    const value = (i) => randomBytes(20_000, i); // incompressible, so the log grows by what is written
    let written = 0;
    for (let i = 0; i < 200; i++) {
      await s.write([put(`k${i % 5}`, value(i)), put(`stable${i % 3}`, `s${i}`)]);
      written += 20_000;
    }
    await s.write([]);
    const stats = s.stats();
    assert.ok(stats.compactions >= 1, `compacted ${stats.compactions} times`);
    await s.close();
    const size = statSync(join(dir, LOG_FILE)).size;
    assert.ok(size < written / 2, `log is ${size} bytes after writing ${written}`);
    assert.ok(!existsSync(join(dir, COMPACT_FILE)));
    const again = await FileAdapter.open({ path: dir, readOnly: true });
    for (let j = 0; j < 5; j++) {
      const last = 195 + j;
      assert.deepEqual(await again.get(`k${j}`), value(last), `k${j} holds its last value`);
    }
    assert.deepEqual(await again.keys("stable"), ["stable0", "stable1", "stable2"]);
    assert.equal(text(await again.get("stable1")), "s199");
    await again.close();
  });

  test("overwrites of compressible values trigger compaction too: live sizes count compressed bytes", async () => {
    const dir = freshDir("compact-deflate");
    const s = await FileAdapter.open({ path: dir });
    for (let i = 0; i < 300; i++) await s.write([put(`k${i % 5}`, hexText(20_000, i))]);
    const stats = s.stats();
    assert.ok(stats.compactions >= 1, `compacted ${stats.compactions} times`);
    await s.compact();
    const { logBytes, liveBytes } = s.stats();
    assert.ok(logBytes < 5 * 20_000, `${logBytes} bytes for 5 values of 20,000 hex digits`);
    assert.ok(Math.abs(logBytes - liveBytes) <= HEAD + 4, `${logBytes} on disk, ${liveBytes} estimated`);
    await s.close();
    const again = await FileAdapter.open({ path: dir, readOnly: true });
    assert.equal(text(await again.get("k4")), hexText(20_000, 299));
    await again.close();
  });

  test("compact() rewrites to the live size; a leftover compaction file is ignored and removed", async () => {
    const dir = freshDir("compact-now");
    const s = await FileAdapter.open({ path: dir });
    for (let i = 0; i < 50; i++) await s.write([put("k", `value ${i}`), put(`gone${i}`, "x")]);
    for (let i = 0; i < 50; i++) await s.write([{ op: "delete", key: `gone${i}` }]);
    const before = statSync(join(dir, LOG_FILE)).size;
    await s.compact();
    const after = statSync(join(dir, LOG_FILE)).size;
    assert.ok(after < before / 10, `${before} -> ${after} bytes`);
    assert.equal(after, s.stats().logBytes);
    const { liveBytes } = s.stats();
    assert.ok(Math.abs(after - liveBytes) <= HEAD + 4, `${after} bytes on disk, ${liveBytes} estimated: one frame header, encoding and op count apart`);
    await s.write([put("after", "compaction")]);
    await s.close();
    writeFileSync(join(dir, COMPACT_FILE), "half-written garbage from a crashed compaction");
    assert.deepEqual(await contents(dir), ["after=compaction", "k=value 49"]);
    const w = await FileAdapter.open({ path: dir });
    assert.ok(!existsSync(join(dir, COMPACT_FILE)), "the writer removes the leftover");
    await w.close();
    assert.ok(COMPACT_MIN_BYTES >= 1 << 20);
  });
});

describe("the single-writer lock", () => {
  function runChild(code) {
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", timeout: 20_000 });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  }

  test("a second writer in another process gets locked; after close it can open", async () => {
    const dir = freshDir("lock");
    const s = await FileAdapter.open({ path: dir });
    await s.write([put("k", "v")]);
    const code = `
      import { FileAdapter } from ${JSON.stringify(fileUrl)};
      try { const s = await FileAdapter.open({ path: ${JSON.stringify(dir)} }); console.log("opened", (await s.keys()).join()); await s.close(); }
      catch (e) { console.log(e.code, e.message); }`;
    const out = runChild(code);
    assert.match(out, new RegExp(`^locked .*held by pid ${process.pid} on `));
    await rejectsWith(() => FileAdapter.open({ path: dir }), "locked", /held by this process \(pid \d+: another store object here has it open; close that one first\)/);
    const lock = JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8"));
    assert.equal(lock.pid, process.pid);
    assert.equal(lock.hostname, hostname());
    await s.close();
    assert.ok(!existsSync(join(dir, LOCK_FILE)), "close removes the lock");
    assert.equal(runChild(code), "opened k");
  });

  test("readOnly opens share with a writer, take no lock, never write, and see the log as of open", async () => {
    const dir = freshDir("shared");
    const w = await FileAdapter.open({ path: dir });
    await w.write([put("a", "1")]);
    const lockBefore = readFileSync(join(dir, LOCK_FILE));
    const r1 = await FileAdapter.open({ path: dir, readOnly: true });
    const r2 = await FileAdapter.open({ path: dir, readOnly: true });
    assert.deepEqual(await r1.keys(), ["a"]);
    await rejectsWith(() => r1.write([put("b", "2")]), "invalid_argument", /readOnly/);
    await rejectsWith(() => r1.compact(), "invalid_argument", /readOnly/);
    await w.write([put("b", "2")]);
    assert.deepEqual(await r2.keys(), ["a"], "a reader sees the store as of its open");
    await r1.close();
    await r2.close();
    assert.deepEqual(readFileSync(join(dir, LOCK_FILE)), lockBefore, "readers leave the writer's lock alone");
    const r3 = await FileAdapter.open({ path: dir, readOnly: true });
    assert.deepEqual(await r3.keys(), ["a", "b"]);
    await r3.close();
    await w.write([put("c", "3")]);
    await w.close();
    const out = runChild(`
      import { FileAdapter } from ${JSON.stringify(fileUrl)};
      const s = await FileAdapter.open({ path: ${JSON.stringify(dir)}, readOnly: true });
      console.log((await s.keys()).join()); await s.close();`);
    assert.equal(out, "a,b,c");
  });

  function deadPid() {
    const r = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
    return Number(r.stdout.trim());
  }

  test("a stale lock from a dead process on this host is taken over", async () => {
    const dir = freshDir("stale");
    const first = await FileAdapter.open({ path: dir });
    await first.write([put("k", "v")]);
    await first.close();
    const pid = deadPid();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, hostname: hostname(), createdAt: "2020-01-01T00:00:00Z" }));
    const s = await FileAdapter.open({ path: dir });
    assert.deepEqual(await s.keys(), ["k"]);
    assert.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).pid, process.pid, "the lock now names us");
    await s.close();
  });

  test("a lock file is never seen empty: another process taking and releasing it is watched without a gap", async () => {
    // An empty lock (a writer killed between creating the file and writing its owner) shuts the
    // store for UNREADABLE_LOCK_GRACE_MS; the lock is written under a private name and linked
    // into place, so a reader sees either no lock or a whole one.
    const dir = freshDir("lock-watch");
    mkdirSync(dir, { recursive: true });
    const lockPath = join(dir, LOCK_FILE);
    const done = join(dir, "done");
    const lockUrl = new URL("../../dist/storage/lock.js", import.meta.url).href;
    const child = spawn(process.execPath, ["--input-type=module", "-e", `
      import { acquireLock, releaseLock } from ${JSON.stringify(lockUrl)};
      import { writeFileSync } from "node:fs";
      for (let i = 0; i < 1500; i++) { await acquireLock(${JSON.stringify(lockPath)}); await releaseLock(${JSON.stringify(lockPath)}); }
      writeFileSync(${JSON.stringify(done)}, "");`], { stdio: "ignore" });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    let whole = 0;
    let empty = 0;
    const until = Date.now() + 30_000;
    while (!existsSync(done) && Date.now() < until) {
      let content;
      try {
        content = readFileSync(lockPath, "utf8");
      } catch {
        continue; // no lock at this moment
      }
      if (content === "") empty++;
      else if (JSON.parse(content).pid === child.pid) whole++;
    }
    assert.equal(await exited, 0);
    assert.ok(existsSync(done), "the child finished its cycles");
    assert.equal(empty, 0, `the lock was seen empty ${empty} times (whole ${whole} times)`);
    assert.ok(whole > 0, "the watch saw the lock held");
    assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith(LOCK_FILE)), [], "no lock and no draft is left behind");
  });

  test("a lock held by a live process, another host, or a writer still creating it is respected", async () => {
    const dir = freshDir("live");
    await (await FileAdapter.open({ path: dir })).close();
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
    try {
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: child.pid, hostname: hostname(), createdAt: "x" }));
      await rejectsWith(() => FileAdapter.open({ path: dir }), "locked", new RegExp(`pid ${child.pid}`));
    } finally {
      child.kill("SIGKILL");
    }
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid(), hostname: `not-${hostname()}`, createdAt: "x" }));
    await rejectsWith(() => FileAdapter.open({ path: dir }), "locked", /another host/);
    writeFileSync(join(dir, LOCK_FILE), "");
    await rejectsWith(() => FileAdapter.open({ path: dir }), "locked", /still creating it/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, LOCK_FILE), old, old);
    const s = await FileAdapter.open({ path: dir });
    await s.close();
  });
});
