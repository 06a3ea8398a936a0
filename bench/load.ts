import autocannon from 'autocannon';
import { withLoopDelay, type LoopDelay } from './event-loop';
import { assertLoopback } from './http';

/** What the report keeps of one load run, whichever tool produced it. Latencies in ms. */
export interface LoadFigures {
  label: string;
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
  /** Successful responses per second over the whole run. */
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  statusCodes: Record<string, number>;
  /** The service's event loop delay during the run (runLoad with `loopOf`). */
  loop?: LoopDelay;
}

export interface LoadOptions {
  label: string;
  url: string;
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  durationS?: number;
  /** Stop after this many responses. */
  amount?: number;
  /** Hard stop, seconds, whatever else happens (an `amount` run against a stuck server). */
  maxSeconds?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: autocannon.Request[];
  /** The service whose event loop delay the run records (its base URL; /metrics is read before and after). */
  loopOf?: string;
}

/** A running autocannon: `stop()` ends it early (a probe running beside another load). */
export interface RunningLoad {
  done: Promise<LoadFigures>;
  stop(): void;
}

export function startLoad(options: LoadOptions): RunningLoad {
  assertLoopback(options.url);
  let instance: autocannon.Instance | undefined;
  const hardStopS = options.maxSeconds ?? (options.durationS ?? 10) + 60;
  const done = new Promise<LoadFigures>((resolve, reject) => {
    const opts: autocannon.Options = {
      url: options.url,
      connections: options.connections,
      timeout: 30,
      title: options.label,
      ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.durationS ?? 10 }),
    };
    // autocannon reads an explicit undefined as a value (e.g. "undefined HTTP method"): set only what is given.
    if (options.method) opts.method = options.method;
    if (options.headers) opts.headers = options.headers;
    if (options.body !== undefined) opts.body = options.body;
    if (options.requests) opts.requests = options.requests;
    instance = autocannon(
      opts,
      (err, result) => {
        clearTimeout(hardStop);
        if (err) reject(err);
        else resolve(figuresOf(options.label, result));
      },
    );
  });
  const hardStop = setTimeout(() => instance?.stop(), hardStopS * 1000);
  return { done, stop: () => instance?.stop() };
}

export async function runLoad(options: LoadOptions): Promise<LoadFigures> {
  const { result, loop } = await withLoopDelay(options.loopOf, () => startLoad(options).done);
  return loop ? { ...result, loop } : result;
}

function figuresOf(label: string, r: autocannon.Result): LoadFigures {
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = Number(count);
  const ok = r['2xx'];
  const seconds = r.duration;
  return {
    label,
    requests: ok + r.non2xx,
    ok,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    seconds: round(seconds, 2),
    rps: round(seconds > 0 ? ok / seconds : 0, 1),
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    mean: round(r.latency.mean, 2),
    statusCodes,
  };
}

/** One request of a custom loop: its time, and its status or 'error' (network error, timeout). */
export interface Sample {
  ms: number;
  status: number | 'error';
}

/** The q-quantile (0..1] of ascending values, by the nearest rank; 0 when there are none. */
export function quantileOf(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Figures of a custom request loop (bursts the bench drives with fetch); latency over every answered request. */
export function summarize(label: string, samples: Sample[], seconds: number): LoadFigures {
  const statusCodes: Record<string, number> = {};
  for (const s of samples) statusCodes[String(s.status)] = (statusCodes[String(s.status)] ?? 0) + 1;
  const answered = samples.filter((s) => s.status !== 'error');
  const sorted = answered.map((s) => s.ms).sort((a, b) => a - b);
  const at = (q: number) => round(quantileOf(sorted, q), 1);
  const ok = answered.filter((s) => typeof s.status === 'number' && s.status >= 200 && s.status < 300).length;
  return {
    label,
    requests: samples.length,
    ok,
    non2xx: answered.length - ok,
    errors: samples.length - answered.length,
    timeouts: 0,
    seconds: round(seconds, 2),
    rps: round(seconds > 0 ? ok / seconds : 0, 1),
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: at(1),
    mean: sorted.length === 0 ? 0 : round(sorted.reduce((a, b) => a + b, 0) / sorted.length, 1),
    statusCodes,
  };
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
