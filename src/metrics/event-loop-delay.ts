import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Gauge, Histogram, type MetricType, type Registry } from 'prom-client';

/**
 * How late the event loop was, sampled by Node's own timer (perf_hooks.monitorEventLoopDelay).
 *
 * Node's histogram records the whole gap between two runs of a timer due every `resolution` ms:
 * an idle loop at 10 ms records ~10 ms, not ~0 (prom-client's nodejs_eventloop_lag_p99_seconds
 * reads it so, at 10 ms). Here every sample is that gap minus the resolution, floored at 0: how
 * much later than scheduled the timer ran. A synchronous block of B ms therefore shows as one
 * sample of at least B - RESOLUTION_MS; an idle loop reads a few tenths of a millisecond (libuv's
 * timers have millisecond granularity).
 */

/** 1 ms: fine enough to judge a 5 ms p99 to the millisecond. The timer is native (no JavaScript runs per sample). */
export const RESOLUTION_MS = 1;

/** Seconds. Fine up to 100 ms, where a p99 target (5 ms) and the stalls worth finding (tens of ms) sit. */
export const DELAY_BUCKETS = [
  0.0005, 0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.008, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5, 1, 2.5, 5,
];

/** The longest-delay gauge looks back this far. */
export const RECENT_WINDOW_MS = 10_000;

/** Node's histogram is read into the cumulative counts at least this often (and at every scrape). */
const SLICE_MS = 1_000;

const NS_PER_MS = 1e6;

export interface DelaySnapshot {
  /** Cumulative count of samples whose delay was at most each bound of DELAY_BUCKETS (same order). */
  buckets: number[];
  count: number;
  /** Sum of the delays, seconds (from the histogram's mean: exact to its precision, ~0.1%). */
  sumSeconds: number;
  /**
   * The longest delay in the last RECENT_WINDOW_MS, seconds: exact when it was the longest since
   * the start, else the upper bound of its bucket (never less than the delay).
   */
  recentMaxSeconds: number;
}

/** The parts of Node's histograms the counting reads (an IntervalHistogram, or a RecordableHistogram in tests). */
export type ReadableHistogram = Pick<IntervalHistogram, 'count' | 'max' | 'mean' | 'percentile'>;

/**
 * The loop's delay as cumulative histogram counts, never reset: any number of scrapers see the
 * same series, PromQL's rate() gives any window, and two scrapes subtract to what happened
 * between them (the bench's per-phase figures).
 *
 * Node's histogram is never reset either: its reset() forgets the time of the timer's last run,
 * so the gap that spans a reset (the scrape itself, and a stall right after it) would be lost.
 */
export class EventLoopDelayMonitor {
  private readonly histogram: IntervalHistogram;
  private readonly counts: DelayCounts;
  /** The longest delay of each slice read, with when it was read. */
  private recent: { at: number; maxSeconds: number }[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.histogram.enable();
    this.counts = new DelayCounts(this.histogram);
    this.timer = setInterval(() => this.fold(), SLICE_MS);
    this.timer.unref();
  }

  /** Everything sampled until now, read first (so a scrape right after a stall sees it). */
  snapshot(now = Date.now()): DelaySnapshot {
    this.fold(now);
    this.recent = this.recent.filter((r) => now - r.at <= RECENT_WINDOW_MS);
    return {
      buckets: [...this.counts.buckets],
      count: this.counts.count,
      sumSeconds: this.counts.sumSeconds,
      recentMaxSeconds: this.recent.reduce((max, r) => Math.max(max, r.maxSeconds), 0),
    };
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }

  private fold(now = Date.now()): void {
    const sliceMax = this.counts.update();
    if (sliceMax !== undefined) this.recent.push({ at: now, maxSeconds: sliceMax });
  }
}

/**
 * Cumulative counts per DELAY_BUCKETS bound, brought up to date from a histogram that only grows.
 * Each update searches only among the samples added since the previous one, so its cost follows
 * the new samples, not the process's age.
 */
export class DelayCounts {
  readonly buckets = DELAY_BUCKETS.map(() => 0);
  count = 0;
  sumSeconds = 0;
  private maxNs = 0;

  constructor(private readonly histogram: ReadableHistogram) {}

  /** Reads the samples added since the last call; returns the longest of them (seconds), undefined when none. */
  update(): number | undefined {
    const h = this.histogram;
    const n = h.count;
    const added = n - this.count;
    if (added <= 0) return undefined;
    const resolutionNs = RESOLUTION_MS * NS_PER_MS;
    const before = [...this.buckets];
    for (let i = 0; i < DELAY_BUCKETS.length; i++) {
      this.buckets[i] = countAtMost(h, n, DELAY_BUCKETS[i]! * 1e9 + resolutionNs, before[i]!, Math.min(n, before[i]! + added));
    }
    this.count = n;
    // Kept from going down: a gap a little under the resolution (libuv counts whole milliseconds) lowers the mean.
    this.sumSeconds = Math.max(this.sumSeconds, (Math.max(0, h.mean - resolutionNs) * n) / 1e9);

    const longestNs = h.max;
    const newRecord = longestNs > this.maxNs;
    this.maxNs = Math.max(this.maxNs, longestNs);
    const longest = Math.max(0, longestNs - resolutionNs) / 1e9;
    // A new longest-since-start is exact; otherwise the highest bucket that gained a sample bounds it.
    if (newRecord) return longest;
    for (let i = DELAY_BUCKETS.length; i >= 0; i--) {
      if (inBucket(this.buckets, n, i) > inBucket(before, n - added, i)) return Math.min(DELAY_BUCKETS[i] ?? Infinity, longest);
    }
    return 0;
  }
}

/** Samples in bucket i alone (i = DELAY_BUCKETS.length: above the last bound), from cumulative counts and their total. */
function inBucket(cumulative: number[], total: number, i: number): number {
  return (i === DELAY_BUCKETS.length ? total : cumulative[i]!) - (i === 0 ? 0 : cumulative[i - 1]!);
}

/**
 * How many of the histogram's n samples are at most `ns`, knowing it is at least `lo` and at most
 * `hi`: the largest rank k whose value is. Node's histogram answers values at percentiles only,
 * so a binary search over ranks (about log2(hi - lo) calls of a few µs each).
 */
export function countAtMost(h: ReadableHistogram, n: number, ns: number, lo: number, hi: number): number {
  // The value of rank k (1-based): asked at a quarter rank under k, which HdrHistogram's rounding
  // (to the nearest count) brings to k, never k - 1 or k + 1, whatever the floating error.
  const valueOfRank = (k: number) => h.percentile((100 * (k - 0.25)) / n);
  if (hi <= lo || valueOfRank(hi) <= ns) return hi;
  // rank lo is at most ns (rank 0: nothing); rank hi is above it
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (valueOfRank(mid) <= ns) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The histogram's series as prom-client formats them, from the monitor's counts (never observe()d one by one). */
const DELAY_NAME = 'event_loop_delay_seconds';
const DELAY_HELP = `How late the event loop ran a timer due every ${RESOLUTION_MS} ms (monitorEventLoopDelay's gap minus its resolution), one sample per run; cumulative`;

class DelayHistogram extends Histogram {
  constructor(private readonly monitor: EventLoopDelayMonitor) {
    super({ name: DELAY_NAME, help: DELAY_HELP, buckets: DELAY_BUCKETS, registers: [] });
  }

  override async get() {
    const s = this.monitor.snapshot();
    const name = DELAY_NAME;
    return {
      name,
      help: DELAY_HELP,
      // prom-client declares MetricType a numeric enum; its registry writes the string it holds ('histogram').
      type: 'histogram' as unknown as MetricType,
      aggregator: 'sum' as const,
      collect: () => undefined,
      values: [
        ...DELAY_BUCKETS.map((le, i) => ({ metricName: `${name}_bucket`, labels: { le }, value: s.buckets[i]! })),
        { metricName: `${name}_bucket`, labels: { le: '+Inf' }, value: s.count },
        { metricName: `${name}_sum`, labels: {}, value: s.sumSeconds },
        { metricName: `${name}_count`, labels: {}, value: s.count },
      ],
    };
  }

  /** The registry prefers this one when a metric has it (prom-client's histograms do). */
  getForPromString() {
    return this.get();
  }
}

/**
 * Registers the loop's delay on a process-wide registry (the loop is the process's, not one
 * app's): event_loop_delay_seconds (histogram) and event_loop_delay_recent_max_seconds (gauge).
 */
export function registerEventLoopDelay(registry: Registry): EventLoopDelayMonitor {
  const monitor = new EventLoopDelayMonitor();
  registry.registerMetric(new DelayHistogram(monitor));
  const recentMax: Gauge = new Gauge({
    name: 'event_loop_delay_recent_max_seconds',
    help: `The longest event loop delay (as event_loop_delay_seconds) in the last ${RECENT_WINDOW_MS / 1000} s`,
    registers: [registry],
    aggregator: 'max',
    collect: () => {
      recentMax.set(monitor.snapshot().recentMaxSeconds);
    },
  });
  return monitor;
}
