/**
 * The fuzzer's randomness: a small seeded PRNG, so that a sequence is a pure function of (run seed, index) and can be
 * replayed from its seed alone.
 */

export interface Rng {
  /** [0, 1) */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  bytes(n: number): Buffer;
  /** A new array, shuffled (Fisher-Yates). */
  shuffled<T>(items: readonly T[]): T[];
}

/** mulberry32 (Tommy Ettinger, public domain): 32 bits of state, good enough to pick packets, and replayable. */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    bytes: (n) => Buffer.from(Array.from({ length: n }, () => int(0, 255))),
    shuffled(items) {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i);
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
}

/** The seed of sequence `index` of a run: murmur3's finaliser over both, so neighbouring indexes look unrelated. */
export function sequenceSeed(runSeed: number, index: number): number {
  let h = (runSeed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
