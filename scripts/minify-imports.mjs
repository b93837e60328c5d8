// Short names for the wasm's imports. wasm-bindgen names each import after the JavaScript it
// calls plus a hash (`__wbg_set_e4b9a833d288759a`), and every name stands twice in the package:
// in the wasm's import section and as a key of the glue's import object. scripts/build.mjs
// renames them to decimal numbers in both places, which saves 2.4 KB gzipped. Each name must
// appear exactly once as a key of the glue's import object (`{…,name:function…`); anything
// else fails the build rather than shipping a glue and a wasm that disagree.

/** Reads an unsigned LEB128 at `at`; returns the value and the offset after it. */
function readU32(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    if (byte === undefined) throw new Error("minify-imports: the wasm ends inside a number");
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

/** Unsigned LEB128 bytes of `value`. */
function u32(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return out;
}

/** Offset just past an import's description (its kind byte at `at`). */
function skipImportDescription(bytes, at) {
  const kind = bytes[at++];
  const limits = (p) => {
    const flags = bytes[p++];
    [, p] = readU32(bytes, p);
    if (flags & 1) [, p] = readU32(bytes, p);
    return p;
  };
  switch (kind) {
    case 0: return readU32(bytes, at)[1]; // function: type index
    case 1: return limits(at + 1); // table: element type, limits
    case 2: return limits(at); // memory: limits
    case 3: return at + 2; // global: value type, mutability
    case 4: return readU32(bytes, at + 1)[1]; // tag: attribute, type index
    default: throw new Error(`minify-imports: unknown import kind ${kind}`);
  }
}

/**
 * Renames every import of `wasm` to a decimal number, in the wasm's import section and in
 * `glue`'s import object. Returns both, and the names it replaced.
 * @param {Uint8Array} wasm
 * @param {string} glue
 * @returns {{ wasm: Uint8Array, glue: string, renamed: string[] }}
 */
export function minifyImports(wasm, glue) {
  const text = new TextDecoder();
  const utf8 = new TextEncoder();
  const parts = [wasm.subarray(0, 8)];
  const renamed = [];
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at];
    const [size, start] = readU32(wasm, at + 1);
    const end = start + size;
    if (id !== 2) {
      parts.push(wasm.subarray(at, end));
      at = end;
      continue;
    }
    let [count, p] = readU32(wasm, start);
    const section = u32(count);
    for (let i = 0; i < count; i++) {
      let length;
      [length, p] = readU32(wasm, p);
      const module = wasm.subarray(p, p + length);
      p += length;
      [length, p] = readU32(wasm, p);
      const name = text.decode(wasm.subarray(p, p + length));
      p += length;
      const description = p;
      p = skipImportDescription(wasm, p);
      const short = String(i);
      const key = new RegExp(`(?<=[{,])${name.replace(/\$/g, "\\$")}(?=:)`, "g");
      const found = glue.match(key)?.length ?? 0;
      if (found !== 1) throw new Error(`minify-imports: the glue has ${found} keys named ${name}, not one`);
      glue = glue.replace(key, short);
      renamed.push(name);
      section.push(...u32(module.length), ...module, ...u32(short.length), ...utf8.encode(short));
      section.push(...wasm.subarray(description, p));
    }
    if (p !== end) throw new Error("minify-imports: the import section has bytes after its imports");
    parts.push(Uint8Array.from([2, ...u32(section.length), ...section]));
    at = end;
  }
  const bytes = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return { wasm: bytes, glue, renamed };
}
