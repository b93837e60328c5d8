// The StorageAdapter acceptance suite: every adapter runs it, in Node (memory, file,
// fake-indexeddb) and in Chromium (real IndexedDB). It imports nothing, so browsers load it
// as is; the host passes its test function and assertions.
//
//   runAdapterSuite("file", (name) => FileAdapter.open({ path: join(root, name) }),
//                   { reopen: true, test, assert });
//
// makeAdapter(name) opens the store called `name` (a fresh name per test); with reopen: true,
// opening the same name again after close must show everything written before.
// `assert` needs equal(actual, expected, message), deepEqual (arrays of strings and numbers)
// and ok(value, message).

const enc = new TextEncoder();
const dec = new TextDecoder();
const bytes = (s) => enc.encode(s);
const text = (b) => dec.decode(b);

/** Whether two byte arrays hold the same bytes (a and b must both be Uint8Arrays). */
export function sameBytes(a, b) {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Deterministic pseudo-random bytes (xorshift32), so large values are not trivially patterned. */
export function patternBytes(length, seed) {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

async function expectCode(promiseOrFn, code, what) {
  try {
    await (typeof promiseOrFn === "function" ? promiseOrFn() : promiseOrFn);
  } catch (e) {
    if (e?.code === code) return e;
    throw new Error(`${what}: expected a RecallError with code ${code}, got ${e?.code ?? ""} ${e?.message ?? e}`);
  }
  throw new Error(`${what}: expected a RecallError with code ${code}, but it succeeded`);
}

// Keys that sort differently by code point and by UTF-16 code unit (the astral emoji is a
// surrogate pair, 0xD83D..., below U+FFFF), plus the empty key and \uffff at prefix ends.
const ORDER_KEYS = ["", "a", "a/", "a/b", "a/c", "a\uffff", "a\uffffb", "ab", "b", "é", "\u{1F600}", "\uffff", "\uffffz", "Z"];
const jsOrder = (keys) => [...keys].sort();

let counter = 0;
const freshName = (suite) => `${suite.replace(/[^A-Za-z0-9._-]/g, "-")}-${Date.now().toString(36)}-${counter++}`;

/**
 * Registers the acceptance tests for one adapter.
 * @param {string} name label of the adapter under test
 * @param {(storeName: string) => Promise<object>} makeAdapter opens a store by name
 * @param {{ reopen?: boolean, test: (title: string, fn: () => Promise<void>) => unknown,
 *           assert: { equal: Function, deepEqual: Function, ok: Function } }} options
 */
export function runAdapterSuite(name, makeAdapter, { reopen = false, test, assert }) {
  const t = (title, fn) => test(`${name}: ${title}`, async () => {
    const storeName = freshName(name);
    const adapters = [];
    const open = async () => {
      const a = await makeAdapter(storeName);
      adapters.push(a);
      return a;
    };
    try {
      await fn(open);
    } finally {
      for (const a of adapters) await a.close();
    }
  });
  const reopenTest = (title, fn) => {
    if (reopen) t(title, fn);
  };

  t("get of a missing key is undefined; put then get returns the bytes", async (open) => {
    const s = await open();
    assert.equal(await s.get("nope"), undefined);
    await s.write([{ op: "put", key: "k", value: bytes("hello") }]);
    const v = await s.get("k");
    assert.ok(v instanceof Uint8Array, "get returns a Uint8Array");
    assert.equal(text(v), "hello");
    await s.write([{ op: "put", key: "k", value: bytes("replaced") }]);
    assert.equal(text(await s.get("k")), "replaced");
    await s.write([{ op: "put", key: "empty", value: new Uint8Array(0) }]);
    const empty = await s.get("empty");
    assert.ok(empty instanceof Uint8Array && empty.length === 0, "an empty value is stored, not dropped");
  });

  t("delete removes a key; deleting a missing key is harmless", async (open) => {
    const s = await open();
    await s.write([{ op: "put", key: "a", value: bytes("1") }, { op: "put", key: "b", value: bytes("2") }]);
    await s.write([{ op: "delete", key: "a" }, { op: "delete", key: "never-there" }]);
    assert.equal(await s.get("a"), undefined);
    assert.deepEqual(await s.keys(), ["b"]);
  });

  t("keys and entries come in ascending UTF-16 order and honour prefixes", async (open) => {
    const s = await open();
    // Written in reverse so insertion order cannot pass for sorted order.
    await s.write([...ORDER_KEYS].reverse().map((k, i) => ({ op: "put", key: k, value: bytes(`v${k}`) })));
    assert.deepEqual(await s.keys(), jsOrder(ORDER_KEYS));
    assert.deepEqual(await s.keys(""), jsOrder(ORDER_KEYS));
    for (const prefix of ["a", "a/", "a\uffff", "\uffff", "\u{1F600}", "é", "zz", "a/b/"]) {
      const expected = jsOrder(ORDER_KEYS.filter((k) => k.startsWith(prefix)));
      assert.deepEqual(await s.keys(prefix), expected, `keys(${JSON.stringify(prefix)})`);
      const entries = await s.entries(prefix);
      assert.deepEqual(entries.map(([k]) => k), expected, `entries(${JSON.stringify(prefix)}) keys`);
      for (const [k, v] of entries) assert.equal(text(v), `v${k}`, `entries value of ${JSON.stringify(k)}`);
    }
  });

  t("ops in a batch apply in order: the last op on a key wins", async (open) => {
    const s = await open();
    await s.write([
      { op: "put", key: "k", value: bytes("1") }, { op: "delete", key: "k" }, { op: "put", key: "k", value: bytes("2") },
      { op: "put", key: "j", value: bytes("x") }, { op: "delete", key: "j" },
    ]);
    assert.equal(text(await s.get("k")), "2");
    assert.equal(await s.get("j"), undefined);
    assert.deepEqual(await s.keys(), ["k"]);
  });

  t("a batch with an invalid op stores nothing", async (open) => {
    const s = await open();
    await s.write([{ op: "put", key: "keep", value: bytes("old") }]);
    const bad = [
      [{ op: "put", key: "keep", value: bytes("new") }, { op: "put", key: "x", value: "not bytes" }],
      [{ op: "put", key: "keep", value: bytes("new") }, { op: "put", key: 7, value: bytes("x") }],
      [{ op: "put", key: "keep", value: bytes("new") }, { op: "upsert", key: "x", value: bytes("x") }],
      [{ op: "delete", key: "keep" }, { op: "put", key: "lone\ud800", value: bytes("x") }],
      [{ op: "delete", key: "keep" }, null],
    ];
    for (const ops of bad) await expectCode(() => s.write(ops), "invalid_argument", JSON.stringify(ops[1]));
    await expectCode(() => s.write("nope"), "invalid_argument", "write of a non-array");
    assert.equal(text(await s.get("keep")), "old");
    assert.deepEqual(await s.keys(), ["keep"]);
    await expectCode(() => s.get(42), "invalid_argument", "get of a number");
    await expectCode(() => s.keys("\udc00"), "invalid_argument", "keys of a lone surrogate");
  });

  t("create puts an absent key and fails the whole batch with already_exists when the key exists", async (open) => {
    const s = await open();
    await s.write([{ op: "create", key: "a", value: bytes("1") }]);
    assert.equal(text(await s.get("a")), "1");
    await expectCode(() => s.write([
      { op: "put", key: "b", value: bytes("2") }, { op: "create", key: "a", value: bytes("again") },
    ]), "already_exists", "create of an existing key");
    assert.equal(text(await s.get("a")), "1");
    assert.equal(await s.get("b"), undefined, "nothing of the failed batch is stored");
    // A key the batch deletes first may be created; one it creates cannot be created twice.
    await s.write([{ op: "delete", key: "a" }, { op: "create", key: "a", value: bytes("3") }]);
    assert.equal(text(await s.get("a")), "3");
    await expectCode(() => s.write([
      { op: "create", key: "c", value: bytes("x") }, { op: "create", key: "c", value: bytes("y") },
    ]), "already_exists", "two creates of one key");
    assert.deepEqual(await s.keys(), ["a"]);
  });

  t("an empty batch resolves and changes nothing", async (open) => {
    const s = await open();
    await s.write([]);
    assert.deepEqual(await s.keys(), []);
  });

  t("values are copied in and out", async (open) => {
    const s = await open();
    const input = bytes("abc");
    const pending = s.write([{ op: "put", key: "k", value: input }]);
    input[0] = 0x7a; // mutated before the write even resolved
    await pending;
    input[1] = 0x7a;
    assert.equal(text(await s.get("k")), "abc");
    const out = await s.get("k");
    out[0] = 0x7a;
    assert.equal(text(await s.get("k")), "abc");
    const [[, entryValue]] = await s.entries();
    entryValue[0] = 0x7a;
    assert.equal(text(await s.get("k")), "abc");
    // A view into a larger buffer stores only the view's bytes.
    const big = bytes("0123456789");
    await s.write([{ op: "put", key: "view", value: big.subarray(3, 6) }]);
    const view = await s.get("view");
    assert.equal(view.length, 3);
    assert.equal(text(view), "345");
  });

  t("concurrent writes all land, in call order", async (open) => {
    const s = await open();
    const writes = [];
    for (let i = 0; i < 50; i++) {
      writes.push(s.write([{ op: "put", key: "same", value: bytes(String(i)) }, { op: "put", key: `k/${String(i).padStart(2, "0")}`, value: bytes("x") }]));
    }
    await Promise.all(writes);
    assert.equal(text(await s.get("same")), "49");
    assert.equal((await s.keys("k/")).length, 50);
  });

  t("large values (8 MiB) round-trip", async (open) => {
    const s = await open();
    const big = patternBytes(8 << 20, 42);
    await s.write([{ op: "put", key: "big", value: big }, { op: "put", key: "small", value: bytes("s") }]);
    assert.ok(sameBytes(await s.get("big"), big), "8 MiB value read back");
    const [[k, v]] = await s.entries("bi");
    assert.equal(k, "big");
    assert.ok(sameBytes(v, big), "8 MiB value via entries");
    if (reopen) {
      await s.close();
      const again = await open();
      assert.ok(sameBytes(await again.get("big"), big), "8 MiB value after reopen");
      assert.equal(text(await again.get("small")), "s");
    }
  });

  t("many keys (20k) in one batch, listed in order, then half deleted", async (open) => {
    const s = await open();
    const n = 20_000;
    const ops = [];
    for (let i = n - 1; i >= 0; i--) ops.push({ op: "put", key: `m/${String(i).padStart(6, "0")}`, value: bytes(String(i)) });
    await s.write(ops);
    const keys = await s.keys("m/");
    assert.equal(keys.length, n);
    assert.ok(keys.every((k, i) => k === `m/${String(i).padStart(6, "0")}`), "20k keys in ascending order");
    const some = await s.entries("m/00123");
    assert.deepEqual(some.map(([, v]) => text(v)), Array.from({ length: 10 }, (_, i) => String(1230 + i)));
    const deletes = [];
    for (let i = 0; i < n; i += 2) deletes.push({ op: "delete", key: `m/${String(i).padStart(6, "0")}` });
    await s.write(deletes);
    assert.equal((await s.keys()).length, n / 2);
    if (reopen) {
      await s.close();
      const again = await open();
      const after = await again.entries();
      assert.equal(after.length, n / 2);
      assert.ok(after.every(([k, v], i) => k === `m/${String(2 * i + 1).padStart(6, "0")}` && text(v) === String(2 * i + 1)),
        "the odd keys survive a reopen with their values");
    }
  });

  reopenTest("reopen sees every acknowledged write and delete", async (open) => {
    const s = await open();
    await s.write([{ op: "put", key: "a", value: bytes("1") }, { op: "put", key: "b", value: bytes("2") }]);
    await s.write([{ op: "delete", key: "a" }, { op: "put", key: "c", value: bytes("3") }]);
    await s.write([{ op: "put", key: "b", value: bytes("22") }]);
    await s.close();
    const again = await open();
    assert.deepEqual(await again.keys(), ["b", "c"]);
    assert.equal(text(await again.get("b")), "22");
    await again.write([{ op: "put", key: "d", value: bytes("4") }]);
    await again.close();
    const third = await open();
    assert.deepEqual((await third.entries()).map(([k, v]) => `${k}=${text(v)}`), ["b=22", "c=3", "d=4"]);
  });

  t("after close every call fails with closed; closing twice is harmless", async (open) => {
    const s = await open();
    await s.write([{ op: "put", key: "k", value: bytes("v") }]);
    await s.close();
    await s.close();
    await expectCode(() => s.get("k"), "closed", "get after close");
    await expectCode(() => s.keys(), "closed", "keys after close");
    await expectCode(() => s.entries(), "closed", "entries after close");
    await expectCode(() => s.write([{ op: "put", key: "k", value: bytes("w") }]), "closed", "write after close");
  });
}
