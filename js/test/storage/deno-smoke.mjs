// Helper of deno.test.mjs (not a Node test by itself): run under Deno with
//   deno run --allow-read --allow-write js/test/storage/deno-smoke.mjs
// It opens the file adapter in Deno, writes, reopens and reads back, checks the writer lock,
// then loads recallkit's package and remembers and recalls a memory. Prints "ok <step>" per
// step; exits non-zero on failure.
const inDeno = typeof globalThis.Deno?.version?.deno === "string";

async function main() {
  const { FileAdapter } = await import("../../dist/storage/file.js");
  const { openAdapter } = await import("../../dist/storage/adapter.js");
  const fail = (message) => { throw new Error(message); };
  const dir = await Deno.makeTempDir({ prefix: "recallkit-deno-" });
  try {
    const path = `${dir}/store`;
    const a = await openAdapter(undefined, { name: "deno-smoke", path });
    if (!(a instanceof FileAdapter)) fail("the default adapter in Deno is not the file adapter");
    const big = new Uint8Array(1 << 20).map((_, i) => (i * 13) & 0xff);
    await a.write([{ op: "put", key: "k/1", value: new TextEncoder().encode("one") }, { op: "put", key: "k/2", value: big }]);
    await a.write([{ op: "delete", key: "k/1" }, { op: "put", key: "k/3", value: new TextEncoder().encode("three") }]);
    let code = "";
    try {
      await FileAdapter.open({ path });
    } catch (e) {
      code = e.code;
    }
    if (code !== "locked") fail(`a second writer got ${code || "no error"} instead of locked`);
    console.log("ok second writer locked");
    await a.close();
    const b = await FileAdapter.open({ path });
    const keys = await b.keys("k/");
    if (keys.join() !== "k/2,k/3") fail(`reopened keys are ${keys.join()}`);
    const back = await b.get("k/2");
    if (back.length !== big.length || back.some((x, i) => x !== big[i])) fail("the 1 MiB value changed");
    if (new TextDecoder().decode(await b.get("k/3")) !== "three") fail("k/3 changed");
    await b.close();
    console.log("ok file adapter write, reopen, read");

    const { MemoryStore } = await import("../../dist/index.js");
    const store = await MemoryStore.open({ storage: "memory" });
    await store.remember({ id: "db", text: "We migrated the project database to SQLite with FTS5" });
    await store.remember({ id: "cat", text: "My cat Miso likes sleeping on the keyboard" });
    const { results } = await store.recall("what database does the project use?");
    if (results[0]?.id !== "db") fail(`recall returned ${JSON.stringify(results.map((r) => r.id))}`);
    await store.close();
    console.log("ok MemoryStore remember and recall");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (inDeno) {
  try {
    await main();
  } catch (e) {
    console.error(`deno smoke failed: ${e?.stack ?? e}`);
    Deno.exit(1);
  }
}
