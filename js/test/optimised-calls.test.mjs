// Engine calls made from optimised JavaScript survive a deoptimisation in the middle of the
// call. Node 20's V8 (11.3) inlines a call to a WebAssembly export into the optimised code of
// its JavaScript caller; when that caller is deoptimised lazily while the export runs (a
// garbage collection that changes an allocation site's decision is enough), the deoptimiser
// rebuilds the frame of the call's return, and for an export returning one `externref` it
// reaches an unreachable case and aborts the process ("Fatal error … unreachable code" in
// Deoptimizer::DoComputeBuiltinContinuation). `rememberMany` of 10,000 memories after a few
// small writes died this way in about one run in five: the store reads each new memory's
// signature through such an export. These tests keep every export off that shape and replay
// the crash deterministically.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const EXTERNREF = 0x6f;

/** Each exported function of a WebAssembly binary with its parameter and result value types. */
function exportedSignatures(bytes) {
  let at = 8; // magic and version
  const u32 = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return value >>> 0;
  };
  const valueType = () => {
    const type = bytes[at++];
    if (type === 0x63 || type === 0x64) u32(); // (ref null? ht): the heap type follows
    return type;
  };
  const limits = () => {
    const flags = bytes[at++];
    u32();
    if (flags & 1) u32();
  };
  const types = [];
  const functions = [];
  const exports = [];
  let importedFunctions = 0;
  while (at < bytes.length) {
    const section = bytes[at++];
    const size = u32();
    const end = at + size;
    if (section === 1) {
      for (let n = u32(); n > 0; n--) {
        assert.equal(bytes[at++], 0x60, "a function type");
        const params = Array.from({ length: u32() }, valueType);
        const results = Array.from({ length: u32() }, valueType);
        types.push({ params, results });
      }
    } else if (section === 2) {
      for (let n = u32(); n > 0; n--) {
        for (const _ of ["module", "name"]) {
          const length = u32(); // read before `at` is: `at += u32()` would add to the old `at`
          at += length;
        }
        const kind = bytes[at++];
        if (kind === 0) {
          u32();
          importedFunctions++;
        } else if (kind === 1) {
          valueType();
          limits();
        } else if (kind === 2) {
          limits();
        } else {
          valueType();
          at++; // mutability
        }
      }
    } else if (section === 3) {
      for (let n = u32(); n > 0; n--) functions.push(u32());
    } else if (section === 7) {
      for (let n = u32(); n > 0; n--) {
        const length = u32();
        const name = new TextDecoder().decode(bytes.subarray(at, at + length));
        at += length;
        const kind = bytes[at++];
        const index = u32();
        if (kind === 0) exports.push({ name, ...types[functions[index - importedFunctions]] });
      }
    }
    at = end;
  }
  return exports;
}

test("no export of the engine returns a lone externref, the result Node 20 cannot deoptimise", () => {
  const exports = exportedSignatures(readFileSync(join(ROOT, "pkg", "recallkit_bg.wasm")));
  // The reader works: the engine's methods are there, with the shapes wasm-bindgen gives them.
  assert.ok(exports.length > 40, `read ${exports.length} exports`);
  const I32 = 0x7f;
  assert.deepEqual(exports.find((e) => e.name === "engine_size"), { name: "engine_size", params: [I32], results: [I32] });
  // The engine pointer and the id's pointer and length in; a Vec's pointer and length out.
  assert.deepEqual(exports.find((e) => e.name === "engine_signature"), { name: "engine_signature", params: [I32, I32, I32], results: [I32, I32] });
  const lone = exports.filter((e) => e.results.length === 1 && e.results[0] === EXTERNREF).map((e) => e.name);
  assert.deepEqual(lone, [], "exports returning one externref (return a Vec, or a Result, instead)");
});

test("a lazy deoptimisation while an inlined signature or embedding read runs does not crash the process", () => {
  // A caller optimised with the engine call inlined; the typed-array constructors the glue
  // calls from inside WebAssembly deoptimise that caller. Before the fix the child aborted
  // with SIGTRAP here, every time.
  const script = `
    import { Engine } from ${JSON.stringify(pathToFileURL(join(ROOT, "js", "dist", "engine.js")).href)};
    await (await import(${JSON.stringify(pathToFileURL(join(ROOT, "js", "dist", "index.js")).href)})).init();
    const engine = new Engine({ dimensions: 3 });
    engine.insert({ id: "m", text: "the orchard and the mill", createdAt: 1, updatedAt: 1 }, new Float32Array([1, 2, 3]));
    const readSignature = (e, id) => e.signature(id);
    const readEmbedding = (e, id) => e.embedding(id);
    let victim;
    for (const name of ["Uint8Array", "Float32Array"]) {
      const Real = globalThis[name];
      globalThis[name] = new Proxy(Real, {
        construct(target, args) {
          if (victim !== undefined) { %DeoptimizeFunction(victim); victim = undefined; }
          return Reflect.construct(target, args);
        },
      });
    }
    const out = {};
    for (const [name, read] of [["signature", readSignature], ["embedding", readEmbedding]]) {
      %PrepareFunctionForOptimization(read);
      for (let i = 0; i < 500; i++) read(engine, "m");
      %OptimizeFunctionOnNextCall(read);
      read(engine, "m");
      victim = read;
      out[name] = Array.from(read(engine, "m"));
    }
    console.log(JSON.stringify(out));
  `;
  const stdout = execFileSync(process.execPath, ["--allow-natives-syntax", "--input-type=module", "-e", script], { encoding: "utf8" });
  const out = JSON.parse(stdout);
  assert.equal(out.signature.length, 32);
  assert.deepEqual(out.embedding, [1, 2, 3]);
});
