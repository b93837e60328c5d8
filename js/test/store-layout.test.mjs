// The store layout's pure parts: planReplay (when a snapshot plus the journal gives the
// current store), journal keys, snapshot chunks and the image format.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  journalKey, parseJournalKey, planReplay, snapshotChunks, snapshotKey, SNAPSHOT_CHUNK_BYTES,
} from "../dist/storage/layout.js";
import { encodeImage, inspectImage, openImage } from "../dist/storage/image.js";
import { encodeSnapshot } from "../dist/storage/snapshot.js";

/** journal({ a: { 1: ["m/x"], 2: { keys: ["m/y"], pruned: { z: 4 } } } }) */
function journal(spec) {
  const out = new Map();
  for (const [writer, batches] of Object.entries(spec)) {
    out.set(writer, new Map(Object.entries(batches).map(([n, e]) => [Number(n), Array.isArray(e) ? { keys: e, pruned: {} } : e])));
  }
  return out;
}
const map = (o) => new Map(Object.entries(o));
const sorted = (keys) => (keys === undefined ? undefined : [...keys].sort());

describe("planReplay", () => {
  test("nothing written since the snapshot: nothing to re-read", () => {
    assert.deepEqual(planReplay(map({ a: 3 }), map({ a: 3 }), journal({})), []);
  });

  test("later batches of known and new writers are re-read", () => {
    const j = journal({ a: { 3: ["m/old"], 4: ["m/x"], 5: ["m/y", "n/1"] }, b: { 1: ["g/e"] } });
    assert.deepEqual(sorted(planReplay(map({ a: 3 }), map({ a: 5, b: 1 }), j)), ["g/e", "m/x", "m/y", "n/1"]);
  });

  test("a gap in a writer's journal, or a claim beyond storage, rejects the snapshot", () => {
    assert.equal(planReplay(map({ a: 3 }), map({ a: 5 }), journal({ a: { 5: ["m/y"] } })), undefined);
    assert.equal(planReplay(map({}), map({ b: 2 }), journal({ b: { 2: ["m/y"] } })), undefined);
    assert.equal(planReplay(map({ a: 6 }), map({ a: 5 }), journal({})), undefined);
  });

  test("a claimed writer whose key is gone must have been pruned by a replayed batch", () => {
    assert.equal(planReplay(map({ a: 3 }), map({ u: 1 }), journal({ u: { 1: ["m/x"] } })), undefined);
    const pruned = journal({ u: { 1: { keys: ["m/x"], pruned: { a: 3 } } } });
    assert.deepEqual(planReplay(map({ a: 3 }), map({ u: 1 }), pruned), ["m/x"]);
  });

  test("a pruned writer's batches after the claim must all be in the journal", () => {
    const covered = journal({ a: { 4: ["m/a4"] }, u: { 1: { keys: [], pruned: { a: 4 } } } });
    assert.deepEqual(planReplay(map({ a: 3 }), map({ u: 1 }), covered), ["m/a4"]);
    const gap = journal({ u: { 1: { keys: [], pruned: { a: 4 } } } });
    assert.equal(planReplay(map({ a: 3 }), map({ u: 1 }), gap), undefined);
  });

  test("prunes chain: a pruned writer's own prunes count", () => {
    const j = journal({ v: { 1: { keys: [], pruned: { u: 2 } } }, u: { 1: ["m/u1"], 2: { keys: ["m/u2"], pruned: { a: 3 } } } });
    assert.deepEqual(sorted(planReplay(map({ a: 3 }), map({ v: 1 }), j)), ["m/u1", "m/u2"]);
  });

  test("leftover entries of writers pruned before the snapshot are ignored", () => {
    // w was pruned by u's batch 1, which the snapshot reflects (it claims u: 1).
    const j = journal({ w: { 7: ["m/w7"] }, u: { 1: { keys: [], pruned: { w: 7 } } } });
    assert.deepEqual(planReplay(map({ u: 1 }), map({ u: 1 }), j), []);
  });
});

describe("keys and chunks", () => {
  test("journal keys round-trip; writer ids may contain anything but the last slash part", () => {
    assert.deepEqual(parseJournalKey(journalKey("00ff", 12)), { writer: "00ff", n: 12 });
    assert.equal(parseJournalKey("meta/journal/x/0"), undefined);
    assert.equal(parseJournalKey("meta/seq/x"), undefined);
  });

  test("snapshot chunks are views in key order", () => {
    const bytes = new Uint8Array(SNAPSHOT_CHUNK_BYTES * 2 + 5).map((_, i) => i % 251);
    const chunks = snapshotChunks(bytes);
    assert.deepEqual(chunks.map((c) => c.length), [SNAPSHOT_CHUNK_BYTES, SNAPSHOT_CHUNK_BYTES, 5]);
    assert.ok(chunks.every((c) => c.buffer === bytes.buffer));
    assert.ok(snapshotKey(2) > snapshotKey(1) && snapshotKey(10) > snapshotKey(9));
  });
});

describe("image", () => {
  test("the header and the engine image round-trip; damage is detected; another version is stale", () => {
    const engine = [Uint8Array.from([1, 2, 3]), Uint8Array.from([4, 5])];
    const header = { claims: { a: 2 }, memories: 2, notes: 1, entities: 0, edges: 0, ranks: [0, null] };
    const bytes = encodeImage(header, engine);
    const image = openImage(bytes);
    assert.deepEqual(image.header, header);
    assert.deepEqual(image.engine.flatMap((p) => [...p]), [1, 2, 3, 4, 5]);
    for (const at of [20, bytes.length - 2]) {
      const bad = bytes.slice();
      bad[at] ^= 1;
      assert.equal(openImage(bad), undefined, `damage at ${at}`);
    }
    assert.ok("damaged" in inspectImage(encodeImage({ ...header, ranks: [0] }, engine)), "a rank per memory");
    assert.ok("stale" in inspectImage(encodeSnapshot(1, Uint8Array.from([1, 2, 3, 4]))), "version 1 is stale, not damage");
  });

  test("an image read from its chunks in place equals the whole, wherever they are cut", () => {
    const engine = [new Uint8Array(300).map((_, i) => i % 256)];
    const header = { claims: { a: 2 }, memories: 1, notes: 0, entities: 0, edges: 0, ranks: [7] };
    const bytes = encodeImage(header, engine);
    // Cuts inside the snapshot header, inside the image header's length and JSON, and in the engine bytes.
    for (const cuts of [[1], [31], [33], [34, 35, 36], [40, 41], [bytes.length - 1], [5, 60, 61, 200]]) {
      const parts = [];
      let from = 0;
      for (const at of [...cuts, bytes.length]) {
        parts.push(bytes.subarray(from, at));
        from = at;
      }
      const image = openImage([new Uint8Array(0), ...parts]);
      assert.deepEqual(image?.header, header, `cut at ${cuts}`);
      assert.deepEqual(image.engine.flatMap((p) => [...p]), [...engine[0]], `cut at ${cuts}`);
      const bad = parts.map((p) => p.slice());
      bad.at(-1)[bad.at(-1).length - 1] ^= 1;
      assert.ok("damaged" in inspectImage(bad), `damage found with cuts at ${cuts}`);
    }
    assert.ok("damaged" in inspectImage([bytes.subarray(0, 20)]), "shorter than a header");
  });
});
