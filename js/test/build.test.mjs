// The package's build steps that rewrite what wasm-bindgen writes (scripts/minify-imports.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { minifyImports } from "../../scripts/minify-imports.mjs";

const pkg = (name) => new URL(`../../pkg/${name}`, import.meta.url);

test("the shipped wasm imports by numbers, and each number is one key of the glue's import object", async () => {
  const module = await WebAssembly.compile(readFileSync(pkg("recallkit_bg.wasm")));
  const imports = WebAssembly.Module.imports(module);
  assert.ok(imports.length > 20);
  const glue = readFileSync(pkg("recallkit.js"), "utf8");
  imports.forEach((entry, i) => {
    assert.equal(entry.name, String(i));
    assert.equal(glue.match(new RegExp(`[{,]${i}:`, "g"))?.length ?? 0, 1, `key ${i}`);
  });
  assert.ok(!/__wbg_[a-z]+_[0-9a-f]{16}\b/.test(glue), "no hashed import name is left in the glue");
});

test("minifyImports renames in both places, and refuses a glue that does not hold the import once", () => {
  // (module (import "./m.js" "__wbg_log_0123456789abcdef" (func)))
  const name = "__wbg_log_0123456789abcdef";
  const wasm = Uint8Array.from([
    0, 97, 115, 109, 1, 0, 0, 0, // magic, version
    1, 4, 1, 0x60, 0, 0, // type section: () -> ()
    2, 5 + 6 + name.length, 1, 6, ...Buffer.from("./m.js"), name.length, ...Buffer.from(name), 0, 0,
  ]);
  const { wasm: out, glue, renamed } = minifyImports(wasm, `const e={__proto__:null,${name}:function(){}};`);
  assert.deepEqual(renamed, [name]);
  assert.equal(glue, "const e={__proto__:null,0:function(){}};");
  assert.deepEqual(WebAssembly.Module.imports(new WebAssembly.Module(out)), [{ module: "./m.js", name: "0", kind: "function" }]);
  assert.throws(() => minifyImports(wasm, "const e={};"), /the glue has 0 keys named __wbg_log_0123456789abcdef, not one/);
  assert.throws(() => minifyImports(wasm, `{${name}:1,${name}:2}`), /has 2 keys/);
});
