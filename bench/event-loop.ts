import { request } from './http';

/**
 * The service's event loop delay over one phase of a scenario: /metrics is read right before and
 * right after the phase, and the service's cumulative histogram event_loop_delay_seconds
 * (src/metrics/event-loop-delay.ts) subtracts to the phase's own samples. Each sample is how late
 * the loop ran a timer due every 1 ms. The scrapes run outside the phase, never during it (a
 * scrape reads the database and the ledger).
 */

export interface LoopDelay {
  /** Timer runs sampled during the phase (~1,000 a second while the loop keeps up). */
  samples: number;
  /** ms, interpolated within the histogram's bucket as PromQL's histogram_quantile does. */
  p50: number;
  p99: number;
  /** ms: the upper bound of the bucket of the longest sample (the true maximum is at most this). */
  max: number;
}

interface Scrape {
  /** [bound in seconds, cumulative count], ascending, +Inf last. */
  buckets: [number, number][];
}

/** The service's histogram now, or undefined when its /metrics has none (an older commit under --service-dir). */
export async function scrapeLoopDelay(baseUrl: string): Promise<Scrape | undefined> {
  const res = await request<string>('GET', `${baseUrl}/metrics`, { timeoutMs: 30_000 }).catch(() => undefined);
  if (!res || res.status !== 200 || typeof res.body !== 'string') return undefined;
  const buckets: [number, number][] = [];
  for (const line of res.body.split('\n')) {
    const m = /^event_loop_delay_seconds_bucket\{le="([^"]+)"\} (\S+)$/.exec(line);
    if (m) buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  }
  return buckets.length > 0 ? { buckets } : undefined;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The samples taken between two scrapes of the same process. */
export function loopDelayBetween(before: Scrape | undefined, after: Scrape | undefined): LoopDelay | undefined {
  if (!before || !after || before.buckets.length !== after.buckets.length) return undefined;
  const cumulative = after.buckets.map(([le, n], i) => [le, n - before.buckets[i]![1]] as [number, number]);
  const total = cumulative.at(-1)![1];
  // Fewer than before: a different process answered (a restart, or one of several cluster workers).
  if (total <= 0 || cumulative.some(([, n]) => n < 0)) return undefined;
  const quantile = (q: number): number => {
    const rank = q * total;
    let lower = 0;
    let below = 0;
    for (const [le, n] of cumulative) {
      if (n >= rank) {
        // The last finite bound when the rank lies in +Inf (as histogram_quantile does).
        if (!Number.isFinite(le)) return lower * 1000;
        return (lower + ((le - lower) * (rank - below)) / Math.max(1, n - below)) * 1000;
      }
      lower = le;
      below = n;
    }
    return lower * 1000;
  };
  let max = 0;
  for (let i = 0; i < cumulative.length; i++) {
    const inBucket = cumulative[i]![1] - (i > 0 ? cumulative[i - 1]![1] : 0);
    if (inBucket > 0) max = cumulative[i]![0];
  }
  const lastFinite = cumulative.at(-2)?.[0] ?? 0;
  return {
    samples: total,
    p50: round(quantile(0.5), 2),
    p99: round(quantile(0.99), 2),
    max: Number.isFinite(max) ? round(max * 1000, 1) : round(lastFinite * 1000, 1),
  };
}

/** Runs one phase between two scrapes of the service at `baseUrl`: what it returns, and the loop's delay meanwhile. */
export async function withLoopDelay<T>(baseUrl: string | undefined, phase: () => Promise<T>): Promise<{ result: T; loop: LoopDelay | undefined }> {
  if (!baseUrl) return { result: await phase(), loop: undefined };
  const before = await scrapeLoopDelay(baseUrl);
  const result = await phase();
  const after = await scrapeLoopDelay(baseUrl);
  return { result, loop: loopDelayBetween(before, after) };
}

/** "p99 1.2 ms, max <= 15 ms (9,873 samples)", or why there is no figure. */
export function describeLoop(loop: LoopDelay | undefined): string {
  return loop ? `p99 ${loop.p99} ms, max <= ${loop.max} ms (${loop.samples} samples)` : 'not measured (no event_loop_delay_seconds in /metrics)';
}
