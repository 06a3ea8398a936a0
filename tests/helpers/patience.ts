/**
 * The suite's patience: how long a test waits for what it needs (a ledger close, a background job,
 * a process starting) before it gives up and names what never came. It is long on purpose: on a
 * starved machine a test is slower, never failed; a real hang still ends, in minutes.
 *
 * Set once, in jest.config.ts, which hands it to every test process (its `globals`) and sets the
 * test timeout just above it, so a wait that gives up does so before Jest's own timeout and the
 * failure says what was awaited. No test sets a shorter deadline of its own unless that deadline is
 * what it tests (and then it says why it cannot trip on a slow machine).
 */
export const PATIENCE_MS: number = fromJestConfig();

function fromJestConfig(): number {
  const value = (globalThis as { PATIENCE_MS?: unknown }).PATIENCE_MS;
  if (typeof value !== 'number' || !(value > 0)) throw new Error('PATIENCE_MS is not set: run the tests through jest.config.ts (npm test), whose globals set it');
  return value;
}
