import type { NextClose } from '../clients/ledger-close-watch';

/**
 * When a lane sends a transaction its queue does not fill (issue 37: fill the next ledger).
 *
 * A ledger takes every envelope that reaches it before it closes; how early in the period one was
 * sent changes nothing for it. A lane that sends at once carries what was queued at that moment and
 * is then busy until the close applies it, so what is queued later in the period waits for a lane
 * that frees only after the close, and goes into the ledger after it: a burst trickling in (a
 * hundred verify-payment calls a second) spread over eight part-filled transactions a ledger and
 * one more ledger than it needed. A lane that waits until shortly before the close carries all that
 * was queued by then, in the same ledger it would have reached anyway.
 *
 * The lead before the close covers what a lane does before the ledger holds its envelope (the
 * lane's lock, building and signing, storing it in the journal, sendTransaction) on a loaded
 * machine. It is a third of the interval, at least MIN_LEAD_MS: on ledgers closing faster than
 * three times that, a lane always sends at once, as it does when the pace is not known.
 */
const LEAD_FRACTION = 3;
const MIN_LEAD_MS = 250;

/**
 * The time (epoch ms) to wait until before sending a transaction that `fills` or not, or
 * undefined to send now: a full transaction, an unknown pace (instant ledgers, Horizon, a watch
 * that has not read the ledger lately) and a close nearer than the lead all send at once.
 */
export function sendPoint(now: number, next: NextClose | undefined, fills: boolean): number | undefined {
  if (fills || !next) return undefined;
  const at = next.at - Math.max(next.intervalMs / LEAD_FRACTION, MIN_LEAD_MS);
  return at > now ? at : undefined;
}
