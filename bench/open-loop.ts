import { spawn } from 'node:child_process';
import path from 'node:path';
import { withLoopDelay } from './event-loop';
import { assertLoopback } from './http';
import type { LoadFigures, RunningLoad } from './load';
import { MEASURING, type OpenLoopConfig, type OpenLoopReport } from './open-loop/protocol';

/**
 * Latency at a fixed rate, as a user sees it: requests arrive at Poisson times whatever the service
 * answers (open loop), each timed from when it was due, sent by a process of its own
 * (open-loop/generator.ts). This replaces autocannon's `overallRate` for fixed-rate probes: that
 * sends each connection's share of a second back to back and then waits, so its "200 req/s" was a
 * burst at full concurrency at the top of every second, and its coordinated-omission correction
 * assumed a 1 ms interval between requests.
 */

export interface OpenLoopOptions {
  label: string;
  url: string;
  ratePerS: number;
  durationS: number;
  headers?: Record<string, string>;
  /** The same seed gives the same arrival times (default 1). */
  seed?: number;
  /** Seconds sent before the measured window and left out of the figures (default 1): the generator's JIT and sockets warm up. */
  warmupS?: number;
  /** Keep-alive sockets at most (default 50). */
  maxConnections?: number;
  /** The service whose event loop delay the run records (its base URL). */
  loopOf?: string;
}

export interface OpenLoopFigures extends LoadFigures {
  /** How late the generator itself sent (ms): the tool's share of the latency. */
  sendLag: { p99: number; max: number };
}

/** A running probe: `measuring` resolves when its warm-up is over (start what it should watch then). */
export interface RunningOpenLoop extends RunningLoad {
  done: Promise<OpenLoopFigures>;
  measuring: Promise<void>;
}

export function startOpenLoop(options: OpenLoopOptions): RunningOpenLoop {
  assertLoopback(options.url);
  const config: OpenLoopConfig = {
    label: options.label,
    url: options.url,
    ratePerS: options.ratePerS,
    durationS: options.durationS,
    headers: options.headers ?? {},
    seed: options.seed ?? 1,
    maxConnections: options.maxConnections ?? 50,
    warmupS: options.warmupS ?? 1,
  };
  // The config goes on stdin: its headers carry a bearer token, which a command line would show to `ps`.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'open-loop', 'generator.ts')], {
    cwd: path.join(__dirname, '..'),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(JSON.stringify(config));
  let stdout = '';
  let stderr = '';
  let measured: () => void = () => undefined;
  const measuring = new Promise<void>((resolve) => (measured = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.includes(`${MEASURING}\n`)) measured();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<OpenLoopFigures>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const last = stdout.trim().split('\n').at(-1);
      // Stopped before its warm-up ended, it never printed `measuring`: nothing waits forever on it.
      measured();
      if (code !== 0 || !last || last === MEASURING) return reject(new Error(`open-loop generator exited ${code ?? signal}: ${stderr.slice(-2000)}`));
      const report = JSON.parse(last) as OpenLoopReport;
      resolve({ ...report.figures, sendLag: report.sendLag });
    });
  });
  return { done, measuring, stop: () => child.kill('SIGTERM') };
}

export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopFigures> {
  const { result, loop } = await withLoopDelay(options.loopOf, () => startOpenLoop(options).done);
  return loop ? { ...result, loop } : result;
}
