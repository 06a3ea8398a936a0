import { runCommand, waitForLedger } from './cli-container';
import { countPaymentsByStatus, PAYMENT_STATUSES, type PaymentStatus } from '../metrics/payment-counts';

/**
 * `npm run payments:reconcile`: the journal's reconciler, the same one the server runs at start and
 * every RECONCILE_INTERVAL_MS, until nothing is due. Paid payments whose tokens were not minted (a
 * crash, a ledger outage) are finished: a stored envelope is settled by ledger evidence or
 * resubmitted as is, never rebuilt while it could still apply. Prints the payments by status
 * before and after.
 *
 * With the embedded ledger or payment provider (no HORIZON_URL or PAYSTACK_SECRET_KEY), stop the
 * server first: the sandboxes are served on PORT by this process, as by the server. The embedded
 * database is shared: the command connects to the server the service runs, or starts it.
 */
runCommand('payments:reconcile', async (container) => {
  const before = await countPaymentsByStatus(container.database.db);
  console.log(`before: ${describe(before)}`);

  await waitForLedger(() => container.journal.ready());
  await container.reconciler.drain();

  const after = await countPaymentsByStatus(container.database.db);
  console.log(`after:  ${describe(after)}`);
  const minted = after.minted - before.minted;
  console.log(
    `minted ${minted} payment(s); ${after.verified} paid payment(s) still unfinished` +
      (after.verified > 0
        ? ' (mints still leased to a running process, LEDGER_LEASE_MS, are left to it; a ledger still down leaves the rest: run again)'
        : ''),
  );
  if (after.verified > 0) process.exitCode = 3;
});

function describe(counts: Record<PaymentStatus, number>): string {
  return PAYMENT_STATUSES.map((s) => `${s}=${counts[s]}`).join(' ') + ` (unfinished: verified=${counts.verified})`;
}
