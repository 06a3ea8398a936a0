/**
 * When an open-loop probe sends its requests: Poisson arrivals (exponential gaps) at a mean rate,
 * as independent users arrive, from a seeded generator so that every run, and the trees compared
 * in one bench, see the same arrival times. An even spacing would flatter the service (no two
 * requests ever meet); autocannon's `overallRate` is the other extreme (each connection sends its
 * share of the second back to back, then waits for the next second: a burst at full concurrency).
 */

/** mulberry32: a small, fast, well-distributed 32-bit generator; numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Send times in ms from the start, ascending, all before durationS. */
export function poissonArrivals(ratePerS: number, durationS: number, seed: number): number[] {
  if (!(ratePerS > 0) || !(durationS > 0)) throw new Error(`poissonArrivals: rate and duration must be positive (got ${ratePerS}/s, ${durationS} s)`);
  const random = seededRandom(seed);
  const meanGapMs = 1000 / ratePerS;
  const endMs = durationS * 1000;
  const times: number[] = [];
  // 1 - random() is in (0, 1], so the logarithm is finite.
  for (let t = -Math.log(1 - random()) * meanGapMs; t < endMs; t += -Math.log(1 - random()) * meanGapMs) times.push(t);
  return times;
}
