// The JS tests' one seeded generator (a 32-bit SplitMix variant): reproducible random runs.
// Imported by tests; it defines no test itself.

/** A generator seeded with `seed`: next() in [0, 1), int(n), pick(array), chance(p). */
export function rng(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
  };
  const int = (n) => Math.floor(next() * n);
  return { next, int, pick: (a) => a[int(a.length)], chance: (p) => next() < p };
}
