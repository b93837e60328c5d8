// IndexedDbAdapter behaviour beyond the acceptance suite, on fake-indexeddb: cross-handle
// notifications, versionchange, blocked upgrades, failing transactions, unavailable IndexedDB,
// persistence and storage estimates. Chromium runs the same scenarios for real
// (js/test/browser/storage*.html).
import "fake-indexeddb/auto";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IndexedDbAdapter, IDB_VERSION, toStorageError } from "../../dist/storage/indexeddb.js";
import { rejectsWith } from "../support/errors.mjs";

const bytes = (s) => new TextEncoder().encode(s);
const text = (b) => new TextDecoder().decode(b);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const fresh = (label) => `${label}-${n++}`;

function rawOpen(name, version, onUpgrade) {
  return new Promise((resolve, reject) => {
    const req = version === undefined ? indexedDB.open(name) : indexedDB.open(name, version);
    req.onupgradeneeded = () => onUpgrade?.(req.result);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function waitFor(cond, ms = 2000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await sleep(5);
  }
  return true;
}

describe("notifications between handles", () => {
  test("a write on one handle notifies the others, not itself", async () => {
    const name = fresh("notify");
    const a = await IndexedDbAdapter.open({ name });
    const b = await IndexedDbAdapter.open({ name });
    const seenA = [];
    const seenB = [];
    a.subscribe((keys) => seenA.push(keys));
    const unsubscribe = b.subscribe((keys) => seenB.push(keys));
    await a.write([{ op: "put", key: "x", value: bytes("1") }, { op: "put", key: "y", value: bytes("2") },
      { op: "delete", key: "x" }]);
    assert.ok(await waitFor(() => seenB.length === 1), "b heard a's write");
    assert.deepEqual(seenB[0], ["x", "y"]);
    assert.equal(text(await b.get("y")), "2", "b reads a's write once notified");
    await sleep(30);
    assert.equal(seenA.length, 0, "a does not hear its own write");
    unsubscribe();
    await a.write([{ op: "put", key: "z", value: bytes("3") }]);
    await sleep(30);
    assert.equal(seenB.length, 1, "no notification after unsubscribe");
    await a.close();
    await b.close();
  });

  test("closing while a write is in flight lets it commit and notify", async () => {
    const name = fresh("notify-close");
    const a = await IndexedDbAdapter.open({ name });
    const b = await IndexedDbAdapter.open({ name });
    const seen = [];
    b.subscribe((keys) => seen.push(...keys));
    const pending = a.write([{ op: "put", key: "late", value: bytes("v") }]);
    const closing = a.close();
    await pending;
    await closing;
    assert.ok(await waitFor(() => seen.includes("late")), "b heard the write that raced close()");
    assert.equal(text(await b.get("late")), "v");
    await b.close();
  });

  test("a failed write posts nothing", async () => {
    const name = fresh("notify-fail");
    const a = await IndexedDbAdapter.open({ name });
    const b = await IndexedDbAdapter.open({ name });
    const seen = [];
    b.subscribe((keys) => seen.push(keys));
    const original = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function () { throw new DOMException("simulated", "DataError"); };
    try {
      await rejectsWith(() => a.write([{ op: "put", key: "k", value: bytes("v") }]), "storage_failed", /DataError/);
    } finally {
      IDBObjectStore.prototype.put = original;
    }
    await sleep(30);
    assert.equal(seen.length, 0);
    await a.close();
    await b.close();
  });
});

describe("failing transactions store nothing", () => {
  test("an op throwing mid-batch aborts the whole transaction", async () => {
    const s = await IndexedDbAdapter.open({ name: fresh("abort-sync") });
    await s.write([{ op: "put", key: "keep", value: bytes("old") }]);
    const original = IDBObjectStore.prototype.put;
    let calls = 0;
    IDBObjectStore.prototype.put = function (...args) {
      if (++calls === 3) throw new DOMException("simulated failure", "UnknownError");
      return original.apply(this, args);
    };
    try {
      await rejectsWith(() => s.write([
        { op: "put", key: "keep", value: bytes("new") }, { op: "put", key: "a", value: bytes("1") },
        { op: "put", key: "b", value: bytes("2") },
      ]), "storage_failed", /UnknownError/);
    } finally {
      IDBObjectStore.prototype.put = original;
    }
    assert.equal(text(await s.get("keep")), "old");
    assert.deepEqual(await s.keys(), ["keep"]);
    await s.close();
  });

  test("a request failing asynchronously aborts the transaction and rejects the write", async () => {
    const s = await IndexedDbAdapter.open({ name: fresh("abort-async") });
    await s.write([{ op: "put", key: "dup", value: bytes("old") }]);
    const original = IDBObjectStore.prototype.put;
    // add() of an existing key fails with ConstraintError in the request's error event.
    IDBObjectStore.prototype.put = function (value, key) {
      return key === "dup" ? this.add(value, key) : original.call(this, value, key);
    };
    try {
      await rejectsWith(() => s.write([
        { op: "put", key: "first", value: bytes("1") }, { op: "put", key: "dup", value: bytes("new") },
        { op: "put", key: "last", value: bytes("2") },
      ]), "already_exists", /ConstraintError/); // the code of a key that exists (see `create`)
    } finally {
      IDBObjectStore.prototype.put = original;
    }
    assert.deepEqual(await s.keys(), ["dup"]);
    assert.equal(text(await s.get("dup")), "old");
    await s.close();
  });

  test("QuotaExceededError maps to quota_exceeded; other errors to storage_failed", () => {
    const quota = toStorageError(new DOMException("full", "QuotaExceededError"), "cannot write");
    assert.equal(quota.code, "quota_exceeded");
    assert.match(quota.message, /cannot write: QuotaExceededError: full \(.*nothing in this transaction was stored\)/);
    assert.match(toStorageError(new DOMException("", "QuotaExceededError"), "cannot write").message, /cannot write: QuotaExceededError \(/);
    assert.equal(toStorageError(new DOMException("newer", "VersionError"), "open").code, "corrupt");
    assert.equal(toStorageError(new DOMException("x", "UnknownError"), "open").code, "storage_failed");
    assert.equal(toStorageError("weird", "open").code, "storage_failed");
  });
});

describe("versions, upgrades and blocking", () => {
  test("versionchange closes an open handle so an upgrade proceeds at once", async () => {
    const name = fresh("versionchange");
    const old = await IndexedDbAdapter.open({ name });
    await old.write([{ op: "put", key: "k", value: bytes("v") }]);
    try {
      const started = Date.now();
      const upgraded = await IndexedDbAdapter.open({ name, version: IDB_VERSION + 1, blockedTimeoutMs: 2000 });
      assert.ok(Date.now() - started < 1000, "the upgrade did not wait for the blocked timeout");
      assert.equal(text(await upgraded.get("k")), "v", "the upgrade keeps the records");
      await rejectsWith(() => old.get("k"), "closed", /another connection can upgrade/);
      await rejectsWith(() => old.write([{ op: "put", key: "k", value: bytes("w") }]), "closed");
      await upgraded.close();
    } finally {
      await old.close();
    }
  });

  test("an upgrade blocked by a connection that never closes rejects with blocked, then gives up cleanly", async () => {
    const name = fresh("blocked");
    const holder = await rawOpen(`recallkit:${name}`, 1, (db) => db.createObjectStore("records"));
    holder.onversionchange = () => {}; // an old tab that ignores upgrade requests
    const started = Date.now();
    await rejectsWith(() => IndexedDbAdapter.open({ name, version: 2, blockedTimeoutMs: 200 }), "blocked", /blocked for 200 ms/);
    const waited = Date.now() - started;
    assert.ok(waited >= 190 && waited < 3000, `rejected after ${waited} ms`);
    holder.close();
    await sleep(100);
    const check = await rawOpen(`recallkit:${name}`);
    assert.equal(check.version, 1, "the abandoned upgrade did not run once the blocker closed");
    check.close();
    const later = await IndexedDbAdapter.open({ name, version: 2, blockedTimeoutMs: 200 });
    await later.close();
  });

  test("a database from a newer recallkit is reported as corrupt, not opened", async () => {
    const name = fresh("newer");
    const newer = await IndexedDbAdapter.open({ name, version: IDB_VERSION + 5 });
    await newer.close();
    await rejectsWith(() => IndexedDbAdapter.open({ name }), "corrupt", /newer recallkit/);
  });

  test("a database without the records store is reported as corrupt", async () => {
    const name = fresh("foreign");
    const foreign = await rawOpen(`recallkit:${name}`, 1, (db) => db.createObjectStore("other"));
    foreign.close();
    await rejectsWith(() => IndexedDbAdapter.open({ name }), "corrupt", /no "records" store/);
  });

  test("a readOnly open of a store that does not exist is not_found and creates no database", async () => {
    const name = fresh("never-made");
    await rejectsWith(() => IndexedDbAdapter.open({ name, readOnly: true }), "not_found", /no recallkit store named/);
    const names = (await indexedDB.databases()).map((d) => d.name);
    assert.ok(!names.includes(`recallkit:${name}`), `a database was created: ${names}`);
    const writer = await IndexedDbAdapter.open({ name });
    await writer.write([{ op: "put", key: "k", value: bytes("v") }]);
    await writer.close();
    const reader = await IndexedDbAdapter.open({ name, readOnly: true });
    assert.equal(text(await reader.get("k")), "v");
    await reader.close();
  });

  test("bad open options are invalid_argument", async () => {
    await rejectsWith(() => IndexedDbAdapter.open({ name: "ok", version: 0 }), "invalid_argument", /version/);
    await rejectsWith(() => IndexedDbAdapter.open({ name: "ok", blockedTimeoutMs: Number.NaN }), "invalid_argument", /blockedTimeoutMs/);
    await rejectsWith(() => IndexedDbAdapter.open({ name: "a/b" }), "invalid_argument", /store name/);
  });
});

describe("unavailable IndexedDB", () => {
  async function withFactory(factory, fn) {
    const saved = globalThis.indexedDB;
    globalThis.indexedDB = factory;
    try {
      await fn();
    } finally {
      globalThis.indexedDB = saved;
    }
  }

  test("no indexedDB global gives storage_failed", async () => {
    await withFactory(undefined, () => rejectsWith(() => IndexedDbAdapter.open({ name: "x" }), "storage_failed", /not available/));
  });

  test("open throwing (opaque origin) gives storage_failed", async () => {
    const factory = { open() { throw new DOMException("access denied", "SecurityError"); } };
    await withFactory(factory, () => rejectsWith(() => IndexedDbAdapter.open({ name: "x" }), "storage_failed", /SecurityError/));
  });

  test("an open request that fails (private mode) gives storage_failed", async () => {
    const factory = {
      open() {
        const req = { error: new DOMException("A mutation operation was attempted on a database that did not allow mutations.", "InvalidStateError") };
        setTimeout(() => req.onerror?.({ preventDefault() {} }), 0);
        return req;
      },
    };
    await withFactory(factory, () => rejectsWith(() => IndexedDbAdapter.open({ name: "x" }), "storage_failed", /InvalidStateError/));
  });
});

describe("persistence and storage info", () => {
  test("persist: true asks navigator.storage.persist(); storageInfo reports estimate and persisted", async () => {
    const calls = [];
    const storage = {
      persist: async () => { calls.push("persist"); return true; },
      persisted: async () => true,
      estimate: async () => ({ usage: 1234, quota: 99999 }),
    };
    const saved = Object.getOwnPropertyDescriptor(globalThis, "navigator");
    Object.defineProperty(globalThis, "navigator", { value: { storage }, configurable: true, writable: true });
    try {
      const s = await IndexedDbAdapter.open({ name: fresh("persist"), persist: true });
      assert.deepEqual(calls, ["persist"]);
      assert.deepEqual(await s.storageInfo(), { usage: 1234, quota: 99999, persisted: true });
      await s.close();
      const t = await IndexedDbAdapter.open({ name: fresh("no-persist") });
      assert.deepEqual(calls, ["persist"], "persist is only requested when asked");
      await t.close();
    } finally {
      if (saved) Object.defineProperty(globalThis, "navigator", saved);
      else delete globalThis.navigator;
    }
  });

  test("storageInfo has undefined fields where the API is missing", async () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, "navigator");
    Object.defineProperty(globalThis, "navigator", { value: {}, configurable: true, writable: true });
    try {
      const s = await IndexedDbAdapter.open({ name: fresh("no-api"), persist: true });
      assert.deepEqual(await s.storageInfo(), { usage: undefined, quota: undefined, persisted: undefined });
      await s.close();
    } finally {
      if (saved) Object.defineProperty(globalThis, "navigator", saved);
      else delete globalThis.navigator;
    }
  });
});
