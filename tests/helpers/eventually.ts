/**
 * Polls `probe` until it returns something other than undefined, and returns that; fails naming
 * `what` after `timeoutMs`. The probe runs at least once more after the deadline, so a slow
 * machine never fails a condition that did come true.
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Resolves with `promise`'s value, or rejects with `what` when it takes longer than `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} (after ${ms} ms)`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
