// Runs the StorageAdapter acceptance suite in Node against every adapter: memory, file (real
// temporary directories) and IndexedDB (fake-indexeddb), and checks openAdapter's choices.
import "fake-indexeddb/auto";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { runAdapterSuite } from "./acceptance.mjs";
import { MemoryAdapter } from "../../dist/storage/memory.js";
import { FileAdapter } from "../../dist/storage/file.js";
import { IndexedDbAdapter } from "../../dist/storage/indexeddb.js";
import { defaultStorageKind, openAdapter } from "../../dist/storage/adapter.js";
import { rejectsWith } from "../support/errors.mjs";
import { tempRoot } from "../support/temp.mjs";

const { root } = tempRoot("adapters");

describe("MemoryAdapter", () => {
  runAdapterSuite("memory", async () => new MemoryAdapter(), { reopen: false, test, assert });
});

describe("FileAdapter", () => {
  runAdapterSuite("file", (name) => FileAdapter.open({ path: join(root, name) }), { reopen: true, test, assert });
});

describe("IndexedDbAdapter on fake-indexeddb", () => {
  runAdapterSuite("indexeddb", (name) => IndexedDbAdapter.open({ name }), { reopen: true, test, assert });
});

describe("openAdapter", () => {
  test("each kind opens its adapter", async () => {
    const m = await openAdapter("memory", { name: "m" });
    assert.ok(m instanceof MemoryAdapter);
    await m.close();
    const f = await openAdapter("file", { name: "f", path: join(root, "open-file") });
    assert.ok(f instanceof FileAdapter);
    await f.close();
    const i = await openAdapter("indexeddb", { name: "i" });
    assert.ok(i instanceof IndexedDbAdapter);
    await i.close();
  });

  test("the default kind is indexeddb where indexedDB exists, file in Node without it", async () => {
    assert.equal(defaultStorageKind(), "indexeddb");
    const saved = globalThis.indexedDB;
    try {
      globalThis.indexedDB = undefined;
      assert.equal(defaultStorageKind(), "file");
      const cwd = process.cwd();
      process.chdir(root);
      try {
        const a = await openAdapter(undefined, { name: "default-path" });
        assert.ok(a instanceof FileAdapter);
        await a.write([{ op: "put", key: "k", value: new Uint8Array([1]) }]);
        await a.close();
        const again = await FileAdapter.open({ path: join(root, "recallkit-data", "default-path") });
        assert.deepEqual(await again.keys(), ["k"]);
        await again.close();
      } finally {
        process.chdir(cwd);
      }
    } finally {
      globalThis.indexedDB = saved;
    }
  });

  test("readOnly adapters reject writes", async () => {
    const m = await openAdapter("memory", { name: "m", readOnly: true });
    await rejectsWith(() => m.write([{ op: "put", key: "k", value: new Uint8Array(1) }]), "invalid_argument", /readOnly/);
    await (await openAdapter("indexeddb", { name: "ro" })).close(); // a reader opens an existing store
    const i = await openAdapter("indexeddb", { name: "ro", readOnly: true });
    await rejectsWith(() => i.write([{ op: "put", key: "k", value: new Uint8Array(1) }]), "invalid_argument", /readOnly/);
    await i.close();
  });

  test("bad options are rejected with invalid_argument", async () => {
    await rejectsWith(() => openAdapter("memory", { name: "" }), "invalid_argument", /store name/);
    await rejectsWith(() => openAdapter("memory", { name: "../escape" }), "invalid_argument", /store name/);
    await rejectsWith(() => openAdapter("memory", { name: "x".repeat(129) }), "invalid_argument", /store name/);
    await rejectsWith(() => openAdapter("memory", { name: "ok", colour: "red" }), "invalid_argument", /colour/);
    await rejectsWith(() => openAdapter("memory", { name: "ok", readOnly: "yes" }), "invalid_argument", /readOnly/);
    await rejectsWith(() => openAdapter("memory", { name: "ok", blockedTimeoutMs: -1 }), "invalid_argument", /blockedTimeoutMs/);
    await rejectsWith(() => openAdapter("cloud", { name: "ok" }), "invalid_argument", /storage kind/);
    await rejectsWith(() => openAdapter("memory", null), "invalid_argument", /options/);
  });

  test("a Node Buffer value is stored as a plain copy, not as a view of Node's pool", async () => {
    for (const kind of ["memory", "file", "indexeddb"]) {
      const a = await openAdapter(kind, { name: `buffer-${kind}`, path: join(root, `buffer-${kind}`) });
      const b = Buffer.from("pooled");
      await a.write([{ op: "put", key: "k", value: b }]);
      b.write("XXXXXX");
      const v = await a.get("k");
      assert.equal(Buffer.from(v).toString(), "pooled", kind);
      assert.equal(v.byteLength, v.buffer.byteLength, `${kind}: the value owns its buffer`);
      await a.close();
    }
  });
});
