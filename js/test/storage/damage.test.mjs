// Damage to a file store's log, at random: a flipped bit, two flipped bits, a cut at any byte.
// An open must either give exactly the acknowledged records (only a torn tail was lost) or fail
// with corrupt naming the damaged frame's offset, never silently lose an acknowledged record;
// a repair afterwards must keep every frame the damage did not touch. The oracle replays the
// batches in JavaScript. Reproduce a failure with DAMAGE_SEED=<seed printed in the failure>.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileAdapter, LOG_FILE } from "../../dist/storage/file.js";
import { RecallError } from "../../dist/errors.js";
import { splitmix } from "../support/rng.mjs";
import { tempRoot } from "../support/temp.mjs";

const SEED = Number(process.env.DAMAGE_SEED ?? 20260627);
const CASES = 200;
const V2_CASES = 40;
const BATCHES = 12;
const { fresh } = tempRoot("damage");
const freshDir = () => {
  const dir = fresh("case");
  mkdirSync(dir);
  return dir;
};

/** The batches: overwrites, deletes, compressible text (deflated frames) and random bytes (stored ones). */
function makeBatches(rand) {
  const bytes = (length) => Uint8Array.from({ length }, () => Math.floor(rand() * 256));
  const text = (i) => new TextEncoder().encode(`batch ${i}: the backup runs at 02:00 and the invoice is paid. `.repeat(1 + (i % 4)));
  return Array.from({ length: BATCHES }, (_, i) => {
    const ops = [{ op: "put", key: `k${i % 4}`, value: text(i) }, { op: "put", key: `r${i}`, value: bytes(20 + Math.floor(rand() * 300)) }];
    if (i % 3 === 2) ops.push({ op: "delete", key: `r${i - 1}` });
    return ops;
  });
}

/** The oracle: the live entries after applying the batches at `kept` indexes, in order. */
function replay(batches, kept) {
  const live = new Map();
  for (const i of kept) {
    for (const op of batches[i]) {
      if (op.op === "put") live.set(op.key, Buffer.from(op.value).toString("hex"));
      else live.delete(op.key);
    }
  }
  return [...live].sort(([a], [b]) => (a < b ? -1 : 1));
}

async function contents(dir) {
  const s = await FileAdapter.open({ path: dir, readOnly: true });
  try {
    return (await s.entries()).map(([k, v]) => [k, Buffer.from(v).toString("hex")]);
  } finally {
    await s.close();
  }
}

/** The open's outcome: the entries, or the RecallError (anything else is thrown). */
async function openOutcome(dir) {
  try {
    return { entries: await contents(dir) };
  } catch (e) {
    if (!(e instanceof RecallError)) throw e;
    return { error: e };
  }
}

const range = (from, to) => Array.from({ length: to - from }, (_, i) => from + i);

/** The index of the frame holding byte `at` (-1: the log header). */
const frameOf = (starts, at) => (at < 16 ? -1 : starts.findIndex((s, i) => at >= s && at < starts[i + 1]));

test(`random bit flips and cuts (${CASES} cases, seed ${SEED}): open gives every acknowledged record or fails with corrupt; repair keeps every untouched frame`, async (t) => {
  const rand = splitmix(SEED);
  const batches = makeBatches(rand);
  const template = freshDir();
  const s = await FileAdapter.open({ path: template });
  const starts = [];
  for (const batch of batches) {
    starts.push(s.stats().logBytes);
    await s.write(batch);
  }
  starts.push(s.stats().logBytes);
  await s.close();
  const log = readFileSync(join(template, LOG_FILE));
  assert.equal(log.length, starts[BATCHES]);
  const all = range(0, BATCHES);
  const tally = { flip: 0, twoFlips: 0, cut: 0, restored: 0, dropped: 0 };
  for (let c = 0; c < CASES; c++) {
    const roll = rand();
    const mode = roll < 0.45 ? "flip" : roll < 0.65 ? "twoFlips" : "cut";
    tally[mode]++;
    const file = Buffer.from(log);
    const touched = new Set();
    let cut = file.length;
    if (mode === "cut") {
      cut = Math.floor(rand() * (file.length + 1));
    } else {
      for (let k = mode === "flip" ? 1 : 2; k > 0; k--) {
        const at = Math.floor(rand() * file.length);
        file[at] ^= 1 << Math.floor(rand() * 8);
        touched.add(frameOf(starts, at));
      }
    }
    const dir = freshDir();
    const damaged = file.subarray(0, cut);
    writeFileSync(join(dir, LOG_FILE), damaged);
    const what = mode === "cut" ? `cut at byte ${cut}` : `${mode} in frames ${[...touched].join(", ")} (-1: log header)`;
    try {
      const opened = await openOutcome(dir);
      if (mode === "cut") {
        if (cut < 16) {
          assert.equal(opened.error?.code, "corrupt", "a log shorter than its header is damage");
          continue;
        }
        // A cut is a torn tail: every frame wholly before it, nothing else, and never an error.
        assert.ok(opened.entries, `the open failed: ${opened.error?.message}`);
        assert.deepEqual(opened.entries, replay(batches, all.filter((i) => starts[i + 1] <= cut)));
        const report = await FileAdapter.repair({ path: dir });
        assert.equal(report.repaired, false, "a torn tail is not damage: repair changes nothing");
        assert.deepEqual(readFileSync(join(dir, LOG_FILE)), damaged);
        continue;
      }
      if (touched.size === 1 && file.equals(log)) continue; // two flips of one bit cancelled out
      // Every byte of a format-3 log is under a checksum: a flip is always reported, at the first touched frame.
      assert.equal(opened.error?.code, "corrupt", `the open did not fail: ${opened.entries?.length} entries`);
      const first = Math.min(...touched);
      if (first >= 0) assert.match(opened.error.message, new RegExp(`data\\.log: the frame at byte ${starts[first]} is damaged`));
      const report = await FileAdapter.repair({ path: dir });
      assert.equal(report.repaired, true);
      assert.deepEqual(readFileSync(report.copy), damaged, "the copy holds the damaged log");
      const droppedFrames = report.dropped.map((r) => starts.indexOf(r.offset));
      for (const [i, frame] of droppedFrames.entries()) {
        assert.ok(touched.has(frame), `dropped a range at byte ${report.dropped[i].offset}, not a touched frame's start`);
        assert.equal(report.dropped[i].bytes, starts[frame + 1] - starts[frame], "the dropped range is exactly that frame");
      }
      for (const offset of report.restored) assert.ok(touched.has(starts.indexOf(offset)), "restored a touched frame");
      assert.equal(report.framesKept, BATCHES - droppedFrames.length);
      assert.deepEqual(await contents(dir), replay(batches, all.filter((i) => !droppedFrames.includes(i))), "every untouched frame is kept");
      tally.restored += report.restored.length + (report.header ? 1 : 0);
      tally.dropped += droppedFrames.length;
    } catch (e) {
      e.message = `case ${c} (seed ${SEED}, ${what}): ${e.message}`;
      throw e;
    }
  }
  t.diagnostic(`${JSON.stringify(tally)} over a log of ${log.length} bytes in ${BATCHES} frames`);
});

test(`random bit flips in a version-2 log (${V2_CASES} cases, seed ${SEED}): always reported; repair keeps every untouched frame`, async () => {
  const rand = splitmix(SEED + 1);
  const fixture = readFileSync(new URL("./fixtures/v2-store.log", import.meta.url));
  const starts = [];
  for (let at = 16; at < fixture.length; at += 8 + fixture.readUInt32LE(at)) starts.push(at);
  starts.push(fixture.length);
  const frames = starts.length - 1;
  /** What the fixture holds without the frames in `dropped`: its other frames, read by an intact log. */
  const without = async (dropped) => {
    const dir = freshDir();
    const kept = range(0, frames).filter((i) => !dropped.includes(i)).map((i) => fixture.subarray(starts[i], starts[i + 1]));
    writeFileSync(join(dir, LOG_FILE), Buffer.concat([fixture.subarray(0, 16), ...kept]));
    return contents(dir);
  };
  for (let c = 0; c < V2_CASES; c++) {
    const file = Buffer.from(fixture);
    const at = Math.floor(rand() * file.length);
    file[at] ^= 1 << Math.floor(rand() * 8);
    const frame = frameOf(starts, at);
    const dir = freshDir();
    writeFileSync(join(dir, LOG_FILE), file);
    try {
      const opened = await openOutcome(dir);
      assert.equal(opened.error?.code, "corrupt", "a flip in a version-2 log is reported");
      if (frame >= 0) assert.match(opened.error.message, new RegExp(`the frame at byte ${starts[frame]} is damaged`));
      const report = await FileAdapter.repair({ path: dir });
      assert.equal(report.repaired, true);
      assert.deepEqual(report.dropped.map((r) => r.offset).filter((o) => o !== starts[frame]), [], "only the touched frame is dropped");
      assert.deepEqual(await contents(dir), await without(report.dropped.length > 0 ? [frame] : []));
    } catch (e) {
      e.message = `case ${c} (seed ${SEED + 1}, bit flip at byte ${at}, frame ${frame}): ${e.message}`;
      throw e;
    }
  }
});
