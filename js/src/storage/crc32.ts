/**
 * CRC-32 (IEEE 802.3, the zlib/PNG/gzip polynomial, reflected `0xEDB88320`), used to check log
 * frames and snapshots. Table-driven, eight bytes per step ("slicing-by-8", Intel 2006): eight
 * 256-entry tables where table `k` advances a byte through `k` extra zero bytes, so one step
 * folds a 64-bit chunk with eight lookups. `crc32("123456789") === 0xcbf43926`.
 *
 * {@link crc32Between} gives the CRC of a byte range from two running checksums, so a scan
 * can check many overlapping ranges in one pass: CRC-32 is affine over GF(2), and
 * `crc(A‖B) = crc(A)·x^(8|B|) mod P ⊕ crc(B)` (zlib's `crc32_combine`, whose polynomial
 * arithmetic `multModP` and `xPow8nModP` follow).
 * @module
 */

/** The reflected CRC-32 polynomial (IEEE 802.3). */
const POLYNOMIAL = 0xedb88320;

const TABLES: Uint32Array[] = buildTables();

function buildTables(): Uint32Array[] {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  const first = tables[0]!;
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? POLYNOMIAL ^ (c >>> 1) : c >>> 1;
    first[n] = c >>> 0;
  }
  for (let t = 1; t < 8; t++) {
    const prev = tables[t - 1]!;
    const cur = tables[t]!;
    for (let n = 0; n < 256; n++) cur[n] = (first[prev[n]! & 0xff]! ^ (prev[n]! >>> 8)) >>> 0;
  }
  return tables;
}

/** A platform's own CRC-32 with {@link crc32}'s signature and results (Node's `zlib.crc32`). */
export type NativeCrc32 = (bytes: Uint8Array, crc: number) => number;

let native: NativeCrc32 | undefined;
/** Below this many bytes the call into native code costs more than the table loop saves. */
const NATIVE_FROM_BYTES = 256;

/**
 * Lets {@link crc32} use the platform's own CRC-32 for longer inputs: Node's `zlib.crc32`
 * (Node 20.15 and later) checks about 4.5 GB/s on this project's machine, the table loop
 * about 0.7 GB/s, and an open from a large file store checksums every byte of its log. The
 * function is taken only if it gives the check value and continues a running checksum as
 * {@link crc32} does; otherwise (an older runtime, another platform) nothing changes.
 * `storage/compress.ts` installs Node's.
 */
export function useNativeCrc32(candidate: NativeCrc32 | undefined): boolean {
  if (typeof candidate !== "function") return false;
  const check = new TextEncoder().encode("123456789");
  try {
    if (candidate(check, 0) >>> 0 !== 0xcbf43926) return false;
    if (candidate(check.subarray(4), candidate(check.subarray(0, 4), 0)) >>> 0 !== 0xcbf43926) return false;
  } catch {
    return false;
  }
  native = candidate;
  return true;
}

/**
 * The CRC-32 of `bytes`. Pass the previous result as `crc` to continue a checksum over
 * several pieces: `crc32(b, crc32(a))` equals the CRC of `a` followed by `b`.
 */
export function crc32(bytes: Uint8Array, crc = 0): number {
  if (native !== undefined && bytes.length >= NATIVE_FROM_BYTES) return native(bytes, crc) >>> 0;
  return crc32Tables(bytes, crc);
}

/** {@link crc32} by the tables alone (slicing-by-8), whatever the platform offers. */
export function crc32Tables(bytes: Uint8Array, crc = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [
    Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array,
  ];
  let c = ~crc >>> 0;
  let i = 0;
  const n = bytes.length;
  const fast = n - (n % 8);
  for (; i < fast; i += 8) {
    const lo = (c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    c = t7[lo & 0xff]! ^ t6[(lo >>> 8) & 0xff]! ^ t5[(lo >>> 16) & 0xff]! ^ t4[lo >>> 24]!
      ^ t3[bytes[i + 4]!]! ^ t2[bytes[i + 5]!]! ^ t1[bytes[i + 6]!]! ^ t0[bytes[i + 7]!]!;
  }
  for (; i < n; i++) c = t0[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** `a · b mod P`, polynomials over GF(2) in the reflected representation (bit 31 is x⁰). */
function multModP(a: number, b: number): number {
  let product = 0;
  for (let m = 0x80000000; m !== 0; m >>>= 1) {
    if ((a & m) !== 0) product ^= b;
    b = b & 1 ? (b >>> 1) ^ POLYNOMIAL : b >>> 1;
  }
  return product >>> 0;
}

/** `x^(2^k) mod P` for k = 0..31 (x^1, x^2, x^4, …). */
const X_POW_2K: Uint32Array = (() => {
  const out = new Uint32Array(32);
  out[0] = 0x40000000; // x^1
  for (let k = 1; k < 32; k++) out[k] = multModP(out[k - 1]!, out[k - 1]!);
  return out;
})();

/** `x^(8n) mod P`: what `n` bytes after a range do to its checksum. */
function xPow8nModP(n: number): number {
  let product = 0x80000000; // x^0
  for (let k = 3; n > 0; k++, n = Math.floor(n / 2)) {
    if (n % 2 === 1) product = multModP(X_POW_2K[k % 32]!, product);
  }
  return product;
}

/**
 * The CRC-32 of the `length` bytes between two points of one running checksum: `before` is
 * `crc32` of everything up to the range, `after` of everything up to its end (the same
 * start). `crc32Between(crc32(a), crc32(b, crc32(a)), b.length) === crc32(b)`.
 */
export function crc32Between(before: number, after: number, length: number): number {
  return (after ^ multModP(xPow8nModP(length), before)) >>> 0;
}
