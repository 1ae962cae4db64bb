/**
 * mulberry32 (Tommy Ettinger, public domain): a 32-bit state PRNG, fast and good enough for
 * resampling. Fixed seeds make every bootstrap interval reproducible from the same samples;
 * it is not a cryptographic generator and never used for salts or keys.
 */
export const DEFAULT_SEED = 0x9e3779b9;

/** Returns a function giving floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
