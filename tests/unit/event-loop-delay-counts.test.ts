import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { countAtMost, DELAY_BUCKETS, DelayCounts, EventLoopDelayMonitor, RESOLUTION_MS } from '../../src/metrics/event-loop-delay';

const MS = 1e6; // ns

/** What DelayCounts must find: for each bound, how many recorded gaps minus the resolution are at most it. */
function exactCounts(gapsNs: number[]): number[] {
  return DELAY_BUCKETS.map((le) => gapsNs.filter((g) => g - RESOLUTION_MS * MS <= le * 1e9).length);
}

/** Gaps well inside HdrHistogram's buckets' precision (3 significant digits) of every bound. */
function gapsAround(seed: number, count: number): number[] {
  const gaps: number[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const bound = DELAY_BUCKETS[x % DELAY_BUCKETS.length]!;
    // 10% under or over a bound, or the idle loop's 1 ms gap
    const delayNs = x % 3 === 0 ? bound * 1e9 * 0.9 : x % 3 === 1 ? bound * 1e9 * 1.1 : 0;
    gaps.push(Math.round(delayNs + RESOLUTION_MS * MS));
  }
  return gaps;
}

function record(h: RecordableHistogram, gaps: number[]): void {
  for (const g of gaps) h.record(g);
}

describe('DelayCounts', () => {
  it('counts every sample under each bound exactly, from a histogram that only grows, read in slices', () => {
    const h = createHistogram();
    const counts = new DelayCounts(h);
    const all: number[] = [];
    for (const [seed, size] of [[1, 500], [2, 1], [3, 20_000], [4, 0], [5, 3]] as const) {
      const gaps = gapsAround(seed, size);
      record(h, gaps);
      all.push(...gaps);
      counts.update();
      expect(counts.count).toBe(all.length);
      expect(counts.buckets).toEqual(exactCounts(all));
    }
  });

  it('finds the rank that splits the samples exactly, whatever their number (HdrHistogram rounds a percentile to a count)', () => {
    // 100,000 gaps of 9 ms, then 5 ms gaps one by one: after each, exactly that many are under 7 ms.
    // Asked at half a rank under, about one check in eight came back a rank short.
    const h = createHistogram();
    for (let i = 0; i < 100_000; i++) h.record(9 * MS);
    const wrong: number[] = [];
    for (let under = 1; under <= 5_000; under++) {
      h.record(5 * MS);
      if (countAtMost(h, h.count, 7 * MS, 0, h.count) !== under) wrong.push(under);
    }
    expect(wrong).toEqual([]);
  });

  it('gives a slice’s longest delay: exact when it is the longest yet, else bounded by its bucket', () => {
    const h = createHistogram();
    const counts = new DelayCounts(h);
    record(h, [RESOLUTION_MS * MS + 200 * MS]);
    expect(counts.update()).toBeCloseTo(0.2, 3);
    // 70 ms, under the 200 ms already seen: the 0.08 bucket's bound, not 0.2
    record(h, [RESOLUTION_MS * MS, RESOLUTION_MS * MS + 70 * MS]);
    expect(counts.update()).toBe(0.08);
    expect(counts.update()).toBeUndefined();
    // The sum only grows, even when a gap just under the resolution lowers the mean
    const sum = counts.sumSeconds;
    record(h, [RESOLUTION_MS * MS * 0.5]);
    counts.update();
    expect(counts.sumSeconds).toBeGreaterThanOrEqual(sum);
  });
});

describe('EventLoopDelayMonitor', () => {
  function blockLoop(ms: number): void {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // spin
    }
  }
  const turn = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('keeps a stall that starts in the same turn as a scrape (Node’s reset() would forget it)', async () => {
    const monitor = new EventLoopDelayMonitor();
    try {
      await turn(20);
      const before = monitor.snapshot();
      blockLoop(80); // no timer can run between the scrape and the stall
      await turn(20);
      const after = monitor.snapshot();
      const above60 = (s: typeof before) => s.count - s.buckets[DELAY_BUCKETS.indexOf(0.06)]!;
      expect(above60(after)).toBeGreaterThan(above60(before));
      expect(after.recentMaxSeconds).toBeGreaterThanOrEqual((80 - RESOLUTION_MS) / 1000);
    } finally {
      monitor.stop();
    }
  });
});
