import { PATIENCE_MS } from './patience';

export interface EventuallyOptions {
  /** Pause between probes (default 50 ms): how often to look, never how long to wait. */
  intervalMs?: number;
}

/**
 * Polls `probe` until it returns something other than undefined, and returns that. Waits as long
 * as the suite does (PATIENCE_MS), then fails naming `what`: a test waits for a state, never against
 * a clock of its own, so a slow machine makes it slower, not red. The probe runs once more after
 * the deadline, so a condition that did come true is never failed.
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, { intervalMs = 50 }: EventuallyOptions = {}): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${PATIENCE_MS} ms (the suite's patience) waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Resolves with `promise`'s value, or rejects naming `what` if it has not settled within the
 * suite's patience: for a wait that would otherwise hang with nothing to say (a pool that never
 * drains), so the failure names the cause instead of Jest's bare timeout.
 */
export async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} (not settled after ${PATIENCE_MS} ms)`)), PATIENCE_MS)))]);
  } finally {
    clearTimeout(timer);
  }
}
