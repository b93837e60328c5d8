// The JS tests' seeded generators (a 32-bit SplitMix variant and SplitMix64): reproducible random runs.
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

/**
 * SplitMix64 (Steele, Lea and Flood 2014) on BigInt: a function returning doubles in [0, 1)
 * from the top 53 bits. The storage and scale tests' stream; `rng` is the cheaper 32-bit one.
 */
export function splitmix(seed) {
  let s = BigInt(seed);
  return () => {
    s = (s + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
    return Number((z ^ (z >> 31n)) >> 11n) / 2 ** 53;
  };
}
