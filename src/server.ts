import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { exitBecauseStartFailed } from './cluster/start-failure';
import { runPrimary } from './cluster/primary';
import { ConfigError, loadConfig, type Config } from './config/env';
import { buildContainer } from './container';
import { errorReason } from './errors/loggable-error';
import { createLogger, type Logger } from './logger';

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * WEB_CONCURRENCY=1 (the default): this process is the service. More: this process is the
 * cluster primary (src/cluster/primary.ts), which loads the configuration first, so that the dev
 * secrets of a fresh DATA_DIR are made once, and forks the workers, each of which is the service
 * as a single process would be (they come back here with cluster.isPrimary false).
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) return exitBecauseStartFailed(err.message);
    throw err;
  }
  const base = createLogger({ level: config.logLevel });
  if (config.webConcurrency > 1 && cluster.isPrimary) return runPrimary(config.webConcurrency, base);
  await serve(config, cluster.isWorker ? base.child({ worker: cluster.worker!.id }) : base);
}

async function serve(config: Config, logger: Logger): Promise<void> {
  const container = await buildContainer(config, logger);

  if (config.bootstrapAdmin) {
    // Safe with several processes at once: the e-mail is unique, the loser finds it exists.
    const outcome = await container.admins.ensureAdmin(config.bootstrapAdmin.email, config.bootstrapAdmin.password);
    logger.info({ email: config.bootstrapAdmin.email, outcome }, 'bootstrap admin');
  }

  // A port taken or refused: said as any other start failure, not as an uncaught 'error' event.
  // Express 5 calls back with the error too: a taken port must not then say it listens.
  const refused = (err: Error) => exitBecauseStartFailed(`failed to start: ${err.message}`);
  const server: Server = container.app.listen(config.port, (err?: Error) => {
    if (err) return;
    server.off('error', refused);
    logger.info(
      { url: config.publicBaseUrl, database: container.database.kind, dataDir: config.dataDir },
      `wallet service listening on port ${config.port}`,
    );
    // Background work starts once the embedded sandboxes (if any) are reachable on the port.
    container.start();
  });
  server.once('error', refused);

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
    container.endStreams();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  // errorReason: a failed query's cause (the connection refused), never its parameters.
  exitBecauseStartFailed(`failed to start: ${errorReason(err)}`);
});
