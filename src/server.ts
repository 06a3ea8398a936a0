import type { Server } from 'node:http';
import { ConfigError, loadConfig } from './config/env';
import { buildContainer } from './container';
import { createLogger } from './logger';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel });
  const container = await buildContainer(config, logger);

  if (config.bootstrapAdmin) {
    const outcome = await container.admins.ensureAdmin(config.bootstrapAdmin.email, config.bootstrapAdmin.password);
    logger.info({ email: config.bootstrapAdmin.email, outcome }, 'bootstrap admin');
  }

  const server: Server = container.app.listen(config.port, () => {
    logger.info(
      { url: config.publicBaseUrl, database: container.database.kind, dataDir: config.dataDir },
      `wallet service listening on port ${config.port}`,
    );
    // Background work starts once the embedded sandboxes (if any) are reachable on the port.
    container.start();
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing requests');
    const force = setTimeout(() => {
      logger.warn('shutdown grace period over, closing remaining connections');
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      container
        .close()
        .then(() => {
          logger.info('stopped');
          process.exit(0);
        })
        .catch((err: unknown) => {
          logger.error({ err }, 'error while closing');
          process.exit(1);
        });
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  console.error('failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
