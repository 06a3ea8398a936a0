import { IN_FLIGHT_GRACE_MS } from '../ledger/payment-audit';
import { runCommand, waitForLedger } from './cli-container';

/**
 * `npm run ledger:audit`: compares the payment provider, the database and the ledger (see
 * auditLedger) and prints each discrepancy. Exit code 0 when they agree, 2 when there is any
 * discrepancy. Read-only: run it while the service is stopped or quiet, or expect in-flight writes
 * to show as unsettled. A provider or ledger that cannot be read fails the command (exit 1): the
 * audit never reports agreement on what it could not see.
 *
 * `npm run ledger:audit -- --resolve-gap ID --note TEXT` records an operator's word on a gap in
 * the followed history (what was done about the ledgers the API no longer held), then audits.
 */
runCommand('ledger:audit', async (container) => {
  const args = process.argv.slice(2);
  const gap = args.indexOf('--resolve-gap');
  if (gap >= 0) {
    const id = args[gap + 1] ?? '';
    const note = args[args.indexOf('--note') + 1];
    if (!/^[0-9a-f-]{36}$/.test(id) || args.indexOf('--note') < 0 || !note) throw new Error('usage: npm run ledger:audit -- --resolve-gap <gap id> --note <what was done about it>');
    if (!(await container.ledgerModule.movements.resolveGap(id, note))) throw new Error(`no open gap ${id}`);
    console.log(`gap ${id} resolved: ${note}`);
  }
  await waitForLedger(() => container.ledgerModule.bootstrap.ready());
  const report = await container.audit();
  const c = report.checked;
  console.log(
    `checked ${c.providerTransactions} provider transactions, ${c.providerTransfers} provider transfers, ${c.envelopes} envelopes, ${c.entries} journal entries, ${c.ledgerPayments} ledger payments, ${c.followedMovements} movements made outside the service, ${c.wallets} wallets, ${c.mintedPayments} minted payments, ${c.withdrawals} withdrawals`,
  );
  if (report.beyondRetention.length > 0) {
    console.log(`${report.beyondRetention.length} envelopes are older than the ledger API's history window and were not checked again (an open one is a discrepancy below)`);
  }
  if (report.inFlight.length > 0) {
    const minutes = IN_FLIGHT_GRACE_MS / 60_000;
    console.log(`${report.inFlight.length} payments were paid less than ${minutes} minutes ago and wait for their mint (not discrepancies yet): ${report.inFlight.join(', ')}`);
  }
  if (report.withdrawalsInFlight.length > 0) {
    const minutes = IN_FLIGHT_GRACE_MS / 60_000;
    console.log(`${report.withdrawalsInFlight.length} withdrawals have been in a state that is not final for less than ${minutes} minutes (not discrepancies yet): ${report.withdrawalsInFlight.join(', ')}`);
  }
  for (const line of report.discrepancies) console.log(`DISCREPANCY ${line}`);
  console.log(report.discrepancies.length === 0 ? 'the payment provider, the database and the ledger agree' : `${report.discrepancies.length} discrepancies`);
  if (report.discrepancies.length > 0) process.exitCode = 2;
});
