import type { LoadFigures } from '../load';

/** What bench/open-loop.ts and its generator process (generator.ts) say to each other. */

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
  figures: LoadFigures;
  /** How late this process sent requests against their schedule (ms): its own share of any latency. */
  sendLag: { p99: number; max: number };
}

/** The stdout line the generator prints when the measured window begins (the warm-up is over). */
export const MEASURING = 'measuring';
