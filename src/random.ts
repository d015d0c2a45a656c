/**
 * The one seeded random generator (mulberry32): the sim's market, the sim's and the stub clouds'
 * faults, and the chaos harness all draw from it, so that a run with the same seed is the same run.
 */

/**
 * One step over an explicit state, so that a caller can store the state (the sim cloud keeps it
 * in its Durable Object) and resume the same sequence later.
 */
export function nextRandom(state: number): [value: number, next: number] {
  const a = (state + 0x6d2b79f5) >>> 0;
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return [((t ^ (t >>> 14)) >>> 0) / 4294967296, a];
}

/** The same sequence as a closure, for callers that draw within one run. Values are in [0, 1). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    const [value, next] = nextRandom(state);
    state = next;
    return value;
  };
}
