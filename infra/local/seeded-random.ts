// Local stack: a small seedable PRNG (mulberry32, 32-bit state): the same seed gives the same sequence. The fault
// mode draws its probabilities from it (a seed replays a run); the benchmarks generate their data sets with it.
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};
