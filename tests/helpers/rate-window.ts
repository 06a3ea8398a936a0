import { RATE_LIMIT_WINDOW_MS } from '../../src/middleware/rate-limit';

/**
 * Waits, when the rate limiter's current window ends within `marginMs`, until the next one has
 * begun. A test that counts hits up to a limit must make them all in one window: a boundary crossed
 * mid-test starts the count again (CI once saw a fourth login answered 401, not 429, at 05:45:00).
 */
export async function clearOfRateWindowEdge(marginMs = 60_000): Promise<void> {
  const left = RATE_LIMIT_WINDOW_MS - (Date.now() % RATE_LIMIT_WINDOW_MS);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 500));
}
