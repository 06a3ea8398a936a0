/**
 * This workspace's patience: how long a test waits for what it needs before it gives up naming it.
 * Long on purpose: on a starved machine a test is slower, never failed; a real hang still ends.
 * Set once, in this workspace's jest.config.ts (its `globals`, and a test timeout just above it);
 * the same as the service's (tests/helpers/patience.ts there), which a workspace does not import.
 *
 * Read when asked, not when this module loads: the Chromium helpers (chromium.ts) are loaded by the
 * service's global setup too, outside any test, where no patience is set.
 */
export function patienceMs(): number {
  const value = (globalThis as { PATIENCE_MS?: unknown }).PATIENCE_MS;
  if (typeof value !== 'number' || !(value > 0)) throw new Error('PATIENCE_MS is not set: run the tests through a jest.config.ts, whose globals set it');
  return value;
}
