// Helper of deno.test.mjs (not a Node test by itself): run under Deno as
//   deno run [permissions] js/test/storage/deno-permissions.mjs STORE_DIR
// Opens a file store in STORE_DIR with MemoryStore (taking over the lock file there if its
// owner is dead), remembers, closes, reopens and recalls. Prints "ok file store" or
// "error <code> <message>".
const inDeno = typeof globalThis.Deno?.version?.deno === "string";

if (inDeno && Deno.args[0]) {
  const path = Deno.args[0];
  try {
    const { MemoryStore } = await import("../../dist/index.js");
    const a = await MemoryStore.open({ path });
    await a.remember({ id: "deno", text: "Deno keeps the file store too" });
    await a.close();
    const b = await MemoryStore.open({ path });
    const { results } = await b.recall("which runtime keeps the file store?");
    await b.close();
    if (results[0]?.id !== "deno") throw new Error(`recall after reopen returned ${JSON.stringify(results.map((r) => r.id))}`);
    console.log("ok file store");
  } catch (e) {
    console.log(`error ${e?.code ?? "none"} ${e?.message ?? e}`);
  }
}
