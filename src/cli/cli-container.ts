import http from 'node:http';
import type { Config } from '../config/env';
import { buildContainer, type Container } from '../container';
import type { Logger } from '../logger';

const LEDGER_WAIT_MS = 60_000;

/**
 * The service's container for an operator command. The embedded database is shared with a running
 * service; the embedded ledger and payment provider (no HORIZON_URL or PAYSTACK_SECRET_KEY) are
 * not: the command serves them on PORT as the server would, so the server must be stopped first
 * (taking the port fails fast, before the database is opened).
 */
export async function openCliContainer(config: Config, logger: Logger): Promise<{ container: Container; close(): Promise<void> }> {
  const embedded = config.ledger.embedded || config.payments.provider.embedded;
  const server = embedded ? await takePort(config) : undefined;
  const container = await buildContainer(config, logger);
  server?.on('request', container.app);
  return {
    container,
    async close() {
      await container.close();
      if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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
export async function waitForLedger(ready: () => Promise<unknown>): Promise<void> {
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
