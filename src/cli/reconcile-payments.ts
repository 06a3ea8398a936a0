import http from 'node:http';
import { ConfigError, loadConfig, type Config } from '../config/env';
import { buildContainer } from '../container';
import { countPaymentsByStatus, PAYMENT_STATUSES, type PaymentStatus } from '../metrics/payment-counts';
import { createLogger } from '../logger';

const LEDGER_WAIT_MS = 60_000;

/**
 * `npm run payments:reconcile`: one pass of the mint reconciler, the same one the server runs at
 * start and every 30 s. Paid payments whose tokens were not minted (a crash, a ledger outage) are
 * finished: a stored envelope is confirmed by hash or resubmitted as is, never rebuilt while it
 * could still apply; a payment without an envelope is minted. Prints the payments by status
 * before and after.
 *
 * With the embedded ledger or payment provider (no HORIZON_URL or PAYSTACK_SECRET_KEY), stop the
 * server first: the sandboxes are served on PORT by this process, as by the server. The embedded
 * database is shared: the command connects to the server the service runs, or starts it.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel === 'silent' ? 'silent' : 'warn' });
  const embedded = config.ledger.horizonUrl === undefined || config.payments.paystackSecretKey === undefined;
  // Taking the port first fails fast, before the database is opened, when the server still runs.
  const server = embedded ? await takePort(config) : undefined;
  const container = await buildContainer(config, logger);
  server?.on('request', container.app);
  try {
    const before = await countPaymentsByStatus(container.database.db);
    console.log(`before: ${describe(before)}`);

    await waitForLedger(() => container.ledgerRuntime.ready());
    await container.reconciler.run();

    const after = await countPaymentsByStatus(container.database.db);
    console.log(`after:  ${describe(after)}`);
    const minted = after.minted - before.minted;
    console.log(
      `minted ${minted} payment(s); ${after.verified} paid payment(s) still unfinished` +
        (after.verified > 0
          ? ' (ones verified in the last minute without an envelope are left to the live path; a ledger still down leaves the rest: run again)'
          : ''),
    );
    if (after.verified > 0) process.exitCode = 3;
  } finally {
    await container.close();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function describe(counts: Record<PaymentStatus, number>): string {
  return PAYMENT_STATUSES.map((s) => `${s}=${counts[s]}`).join(' ') + ` (unfinished: verified=${counts.verified})`;
}

async function takePort(config: Config): Promise<http.Server> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(`port ${config.port} is in use: stop the server first (the embedded ledger and payment provider are served on it)`)
          : err,
      ),
    );
    server.listen(config.port, '127.0.0.1', resolve);
  });
  return server;
}

/** The ledger bootstrap, retried while the ledger is unreachable, for up to a minute. */
async function waitForLedger(ready: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + LEDGER_WAIT_MS;
  for (;;) {
    try {
      await ready();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`the ledger is not reachable: ${err instanceof Error ? err.message : String(err)}`);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `payments:reconcile failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
