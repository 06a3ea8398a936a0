import http from 'node:http';
import { quantileOf, round, summarize, type Sample } from '../load';
import { poissonArrivals } from './arrivals';
import { MEASURING, type OpenLoopConfig, type OpenLoopReport } from './protocol';

/**
 * The open-loop probe's own process (bench/open-loop.ts starts it): it sends requests at their
 * scheduled times whatever the service answers, and times each from its *scheduled* time to the
 * end of its body, so a request the service (or this process) held up counts in full. Running in
 * a process of its own, its timers never wait behind the bench's work. It reads its config from
 * stdin (the headers carry a bearer token, which a command line would show to `ps`), prints
 * `measuring` when the warm-up is over, and on SIGTERM stops scheduling, waits for what is in
 * flight, and reports. The report is the last stdout line.
 */

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
  setTimeout(() => process.stdout.write(`${MEASURING}\n`), measuredFrom - performance.now());

  const send = (scheduled: number) => {
    inFlight++;
    const measured = scheduled >= measuredFrom;
    if (measured) lags.push(performance.now() - scheduled);
    let answered = false;
    // A timeout or a reset can end a request through both the request and its response: count it once.
    const done = (status: number | 'error') => {
      if (answered) return;
      answered = true;
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
    const at = (q: number) => round(quantileOf(sortedLags, q), 1);
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

let input = '';
process.stdin.setEncoding('utf8').on('data', (chunk: string) => (input += chunk));
process.stdin.on('end', () => main(JSON.parse(input) as OpenLoopConfig));
