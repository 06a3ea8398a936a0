import http from 'node:http';
import { ConfigError, loadConfig, type Config } from '../config/env';
import { buildContainer, type Container } from '../container';
import { createLogger, type Logger } from '../logger';
import { errorReason } from '../errors/loggable-error';

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

/**
 * Runs an operator command on the service's container: configuration from the environment, logs
 * at warn, the container closed afterwards, a configuration error printed as it is and any other
 * failure as `<name> failed: <reason>` with exit code 1. `body` sets process.exitCode itself.
 */
export function runCommand(name: string, body: (container: Container, config: Config) => Promise<void>): void {
  const run = async () => {
    const config = loadConfig();
    const logger = createLogger({ level: config.logLevel === 'silent' ? 'silent' : 'warn' });
    const { container, close } = await openCliContainer(config, logger);
    try {
      await body(container, config);
    } finally {
      await close();
    }
  };
  run().catch((err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : `${name} failed: ${errorReason(err)}`);
    process.exit(1);
  });
}
