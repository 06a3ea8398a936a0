import express from 'express';
import type { Server } from 'node:http';
import { parseArgs } from 'node:util';
import { createPaystackSandbox } from './index';
import { sandboxLogger } from './logger';

const USAGE =
  'usage: npm run sandbox:paystack -- --port 8100 --secret sk_test_x [--host 127.0.0.1] [--webhook-url URL] [--data-dir DIR]';

function readOptions() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8100' },
      host: { type: 'string', default: '127.0.0.1' },
      secret: { type: 'string' },
      'webhook-url': { type: 'string' },
      'data-dir': { type: 'string' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--port must be 0-65535\n${USAGE}`);
  if (!values.secret) throw new Error(`--secret is required\n${USAGE}`);
  return { port, host: values.host, secretKey: values.secret, webhookUrl: values['webhook-url'], dataDir: values['data-dir'] };
}

function listen(app: express.Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(server)));
  });
}

async function main(): Promise<void> {
  const options = readOptions();
  const sandbox = await createPaystackSandbox({
    secretKey: options.secretKey,
    ...(options.webhookUrl !== undefined && { webhookUrl: options.webhookUrl }),
    ...(options.dataDir !== undefined && { dataDir: options.dataDir }),
  });

  // Mounted at the root so PAYSTACK_BASE_URL is just the printed URL, as with api.paystack.co.
  const app = express();
  app.use(sandbox.router);
  const server = await listen(app, options.port, options.host);
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  console.log(`Paystack sandbox listening on http://${options.host}:${port}`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1); // a second Ctrl-C means "now"
    stopping = true;
    sandboxLogger.info({ signal }, 'stopping paystack sandbox');
    server.close();
    server.closeAllConnections();
    sandbox
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        sandboxLogger.error({ err: error }, 'paystack sandbox did not close cleanly');
        process.exit(1);
      });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
