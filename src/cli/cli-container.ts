import { ConfigError, loadConfig, type Config } from '../config/env';
import { buildContainer, type Container } from '../container';
import { createLogger, type Logger } from '../logger';
import { errorReason } from '../errors/loggable-error';

const LEDGER_WAIT_MS = 60_000;

/**
 * The service's container for an operator command. The embedded database and the embedded
 * sandboxes (no STELLAR_RPC_URL/HORIZON_URL or PAYSTACK_SECRET_KEY) are shared with a running
 * service: the command attaches to them as another service process would, server running or not.
 */
export async function openCliContainer(config: Config, logger: Logger): Promise<{ container: Container; close(): Promise<void> }> {
  const container = await buildContainer(config, logger);
  return { container, close: () => container.close() };
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
