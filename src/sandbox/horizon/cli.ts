import express from 'express';
import { parseArgs } from 'node:util';
import { SANDBOX_NETWORK_PASSPHRASE, createHorizonSandbox } from './index';

/**
 * Runs the sandbox ledger on its own, for poking at it with a Stellar client or pointing another
 * service at it:  npm run sandbox:ledger -- --port 8000 [--data-dir DIR] [--close-ms N]
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8000' },
      'data-dir': { type: 'string' },
      'close-ms': { type: 'string', default: '0' },
      passphrase: { type: 'string', default: SANDBOX_NETWORK_PASSPHRASE },
    },
  });
  const port = Number(values.port);
  const ledgerCloseMs = Number(values['close-ms']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port: ${values.port}`);
  if (!Number.isInteger(ledgerCloseMs) || ledgerCloseMs < 0) throw new Error(`--close-ms: not a duration: ${values['close-ms']}`);

  const sandbox = await createHorizonSandbox({
    networkPassphrase: values.passphrase,
    dataDir: values['data-dir'],
    ledgerCloseMs,
  });
  const app = express();
  app.use(sandbox.router);
  const server = app.listen(port, () => {
    const address = server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    console.log(`sandbox ledger (Horizon API) at http://localhost:${actualPort}/`);
    console.log(`network passphrase: ${values.passphrase}`);
    console.log(values['data-dir'] ? `state kept in ${values['data-dir']}` : 'state kept in memory only');
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: closing the sandbox ledger`);
    server.close();
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
