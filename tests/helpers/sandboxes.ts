import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { createHorizonSandbox, SANDBOX_NETWORK_PASSPHRASE, type HorizonSandbox, type HorizonSandboxOptions, type SandboxFaults } from '@wallet/horizon-sandbox';
import { createPaystackSandbox, type PaystackSandbox } from '@wallet/paystack-sandbox';

/** The two APIs the sandbox ledger speaks, and the service's two adapters. */
export type LedgerApiKind = 'rpc' | 'horizon';
export const LEDGER_APIS: readonly LedgerApiKind[] = ['rpc', 'horizon'];

export interface LedgerSandboxOptions extends Omit<HorizonSandboxOptions, 'dataDir'> {
  /** Which API the service is pointed at through `env` (default rpc, as `npm start`). */
  api?: LedgerApiKind;
}

export interface RunningLedger {
  /** Horizon's root (the sandbox's friendbot and the tests' own Horizon reads live here). */
  url: string;
  /** Stellar RPC's endpoint: `${url}/rpc`. */
  rpcUrl: string;
  api: LedgerApiKind;
  /** The service's configuration for this ledger, through `api` (the other API's variable empty, so unset). */
  env: Record<string, string>;
  /** Stops the HTTP server: the ledger becomes unreachable, its state stays on disk. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same state. */
  start(): Promise<void>;
  /** Its fault layer: answers as Horizon does on a bad day (see packages/horizon-sandbox/src/faults). */
  readonly faults: SandboxFaults;
}

async function listenOn(app: express.Express, port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '127.0.0.1', () => resolve(server));
    server.on('error', reject);
  });
}

/** The sandbox ledger as its own HTTP server, reached by the service over the network like Horizon. */
export async function startLedgerSandbox({ api = 'rpc', ...options }: LedgerSandboxOptions = {}): Promise<RunningLedger> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-sandbox-'));
  let sandbox: HorizonSandbox | undefined;
  let server: Server | undefined;
  let port = 0;
  const start = async () => {
    if (server) return; // already running
    sandbox = await createHorizonSandbox({ ...options, dataDir, ledgerCloseMs: options.ledgerCloseMs ?? 0 });
    const app = express();
    app.use('/rpc', sandbox.rpcRouter);
    app.use(sandbox.router);
    server = await listenOn(app, port);
    port = (server.address() as AddressInfo).port;
  };
  await start();
  const url = `http://127.0.0.1:${port}`;
  const rpcUrl = `${url}/rpc`;
  return {
    url,
    rpcUrl,
    api,
    env: {
      STELLAR_RPC_URL: api === 'rpc' ? rpcUrl : '',
      HORIZON_URL: api === 'horizon' ? url : '',
      STELLAR_NETWORK_PASSPHRASE: SANDBOX_NETWORK_PASSPHRASE,
      FRIENDBOT_URL: `${url}/friendbot`,
    },
    async stop() {
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await sandbox?.close();
      server = undefined;
    },
    start,
    get faults() {
      return sandbox!.faults;
    },
  };
}

export interface RunningProvider {
  url: string;
  secretKey: string;
  sandbox: PaystackSandbox;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startPaystackSandbox(webhookUrl?: string): Promise<RunningProvider> {
  const secretKey = 'sk_test_wallet_suite';
  const sandbox = await createPaystackSandbox({ secretKey, webhookUrl });
  const app = express();
  app.use(sandbox.router);
  const server = await listenOn(app);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    secretKey,
    sandbox,
    env: { PAYSTACK_SECRET_KEY: secretKey, PAYSTACK_BASE_URL: url },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sandbox.close();
    },
  };
}

/** Starts an app on a real port (for callers that must reach it over HTTP, like webhooks and browsers). */
export async function listen(app: express.Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = await listenOn(app);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
