import { runCommand, waitForLedger } from './cli-container';
import { countPaymentsByStatus, PAYMENT_STATUSES, type PaymentStatus } from '../metrics/payment-counts';

/**
 * `npm run payments:reconcile`: one pass of the server's own workers, until nothing is due. The
 * provider sweep asks Paystack about every payment that is due (initialized ones whose first
 * question time has come; paid ones waiting for their wallet), and the journal's reconciler
 * finishes paid payments whose tokens were not minted (a crash, a ledger outage): a stored
 * envelope is settled by ledger evidence or resubmitted as is, never rebuilt while it could still
 * apply. Prints the payments by status before and after, and the webhook events set aside for an
 * operator.
 *
 * With the embedded ledger or payment provider (no HORIZON_URL or PAYSTACK_SECRET_KEY), stop the
 * server first: the sandboxes are served on PORT by this process, as by the server. The embedded
 * database is shared: the command connects to the server the service runs, or starts it.
 */
runCommand('payments:reconcile', async (container) => {
  const before = await countPaymentsByStatus(container.database.db);
  console.log(`before: ${describe(before)}`);

  await waitForLedger(() => container.ledgerModule.bootstrap.ready());
  await container.paymentSweep.run();
  await container.reconciler.drain();

  const after = await countPaymentsByStatus(container.database.db);
  console.log(`after:  ${describe(after)}`);
  const unfinished = after.paid + after.minting;
  console.log(
    `minted ${after.minted - before.minted} payment(s); ${unfinished} paid payment(s) still unfinished` +
      (unfinished > 0
        ? ' (waiting for a wallet to be activated, leased to a running process (LEDGER_LEASE_MS), or a ledger still down: run again)'
        : ''),
  );
  const setAside = await container.webhookEvents.listSetAside(100);
  for (const e of setAside) console.log(`webhook event set aside: ${e.event} ${e.reference} (${e.outcome ?? 'no outcome'})`);
  if (unfinished > 0) process.exitCode = 3;
});

function describe(counts: Record<PaymentStatus, number>): string {
  return PAYMENT_STATUSES.map((s) => `${s}=${counts[s]}`).join(' ') + ` (unfinished: paid=${counts.paid} minting=${counts.minting})`;
}
