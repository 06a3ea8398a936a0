import http from 'node:http';
import { summarize, type Sample } from '../load';
import { poissonArrivals } from './arrivals';

/**
 * The open-loop probe's own process (bench/open-loop.ts starts it): it sends requests at their
 * scheduled times whatever the service answers, and times each from its *scheduled* time to the
 * end of its body, so a request the service (or this process) held up counts in full. Running in
 * a process of its own, its timers never wait behind the bench's work. On SIGTERM it stops
 * scheduling, waits for what is in flight, and reports. The report is the last stdout line.
 */

export interface OpenLoopConfig {
  label: string;
  url: string;
  ratePerS: number;
  durationS: number;
  headers: Record<string, string>;
  seed: number;
  /** Keep-alive sockets at most; a request beyond waits for one, and its wait counts. */
  maxConnections: number;
  /** Sent first and left out of the figures: this process's JIT and sockets warm up on them. */
  warmupS: number;
}

export interface OpenLoopReport {
  figures: ReturnType<typeof summarize>;
  /** How late this process sent requests against their schedule (ms): its own share of any latency. */
  sendLag: { p99: number; max: number };
}

const TIMEOUT_MS = 30_000;

function main(config: OpenLoopConfig): void {
  const arrivals = poissonArrivals(config.ratePerS, config.warmupS + config.durationS, config.seed);
  const warmupMs = config.warmupS * 1000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: config.maxConnections });
  const samples: Sample[] = [];
  const lags: number[] = [];
  let inFlight = 0;
  let next = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // A moment to set up before the first arrival, so the first requests are not late by construction.
  const start = performance.now() + 20;
  const measuredFrom = start + warmupMs;

  const send = (scheduled: number) => {
    inFlight++;
    const measured = scheduled >= start + warmupMs;
    if (measured) lags.push(performance.now() - scheduled);
    const done = (status: number | 'error') => {
      if (measured) samples.push({ ms: performance.now() - scheduled, status });
      inFlight--;
      if (stopped && inFlight === 0) report();
    };
    const req = http.get(config.url, { agent, headers: config.headers, timeout: TIMEOUT_MS }, (res) => {
      res.on('data', () => {});
      res.on('end', () => done(res.statusCode ?? 'error'));
      res.on('error', () => done('error'));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => done('error'));
  };

  const tick = () => {
    const now = performance.now();
    while (next < arrivals.length && start + arrivals[next]! <= now) send(start + arrivals[next++]!);
    if (next < arrivals.length && !stopped) timer = setTimeout(tick, start + arrivals[next]! - performance.now());
    else stop();
  };

  let reported = false;
  const report = () => {
    if (reported) return;
    reported = true;
    const sortedLags = lags.sort((a, b) => a - b);
    const at = (q: number) => Math.round((sortedLags[Math.min(sortedLags.length - 1, Math.ceil(q * sortedLags.length) - 1)] ?? 0) * 10) / 10;
    const out: OpenLoopReport = { figures: summarize(config.label, samples, Math.max(0, performance.now() - measuredFrom) / 1000), sendLag: { p99: at(0.99), max: at(1) } };
    agent.destroy();
    process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0));
  };

  function stop() {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (inFlight === 0) report();
  }

  process.on('SIGTERM', stop);
  timer = setTimeout(tick, start - performance.now());
}

main(JSON.parse(process.argv[2]!) as OpenLoopConfig);
