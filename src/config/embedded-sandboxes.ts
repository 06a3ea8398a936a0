import path from 'node:path';
import type { Router } from 'express';
import type { HorizonSandbox } from '@wallet/horizon-sandbox';
import type { PaystackSandbox } from '@wallet/paystack-sandbox';
import type { Config } from './env';
import { errorReason } from '../errors/loggable-error';

export interface Sandboxes {
  /** Served by the app ahead of its own middleware, by path. */
  apps: Record<string, Router>;
  horizon?: HorizonSandbox;
  paystack?: PaystackSandbox;
}

/**
 * With STELLAR_RPC_URL and HORIZON_URL, or PAYSTACK_SECRET_KEY, unset (never in production: config refuses it), the
 * embedded stand-in is loaded, and only then: its code (packages/, npm workspaces) is not part of
 * a production build. The app serves it on the service's port, ahead of the service's middleware,
 * as the outside system it stands for; the service reaches it over HTTP like the real one, at the
 * endpoint config/outside-systems.ts derived.
 */
export async function embeddedSandboxes(config: Config): Promise<Sandboxes> {
  const sandboxes: Sandboxes = { apps: {} };
  if (config.ledger.embedded) {
    const { createHorizonSandbox } = await loadSandbox('STELLAR_RPC_URL', () => import('@wallet/horizon-sandbox'));
    sandboxes.horizon = await createHorizonSandbox({
      networkPassphrase: config.ledger.networkPassphrase,
      dataDir: path.join(config.dataDir, 'ledger'),
      ledgerCloseMs: config.ledger.ledgerCloseMs,
      maxOperationsPerLedger: config.ledger.sandboxMaxOperationsPerLedger,
    });
    sandboxes.apps['/sandbox/horizon'] = sandboxes.horizon.router;
    sandboxes.apps['/sandbox/rpc'] = sandboxes.horizon.rpcRouter;
  }
  if (config.payments.provider.embedded) {
    const { createPaystackSandbox } = await loadSandbox('PAYSTACK_SECRET_KEY', () => import('@wallet/paystack-sandbox'));
    sandboxes.paystack = await createPaystackSandbox({
      secretKey: config.payments.provider.secretKey,
      webhookUrl: `http://127.0.0.1:${config.port}/api/payments/webhook`,
      dataDir: path.join(config.dataDir, 'paystack'),
    });
    sandboxes.apps['/sandbox/paystack'] = sandboxes.paystack.router;
  }
  return sandboxes;
}

/**
 * The sandboxes are TypeScript workspaces run through tsx (npm start) or ts-jest: a compiled build
 * (dist/, the Docker image) has no loadable copy, so starting one there without the outside
 * system configured stops here, naming the variable to set.
 */
async function loadSandbox<T>(variable: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw new Error(
      `${variable} is unset and the embedded sandbox standing in for it cannot be loaded here (${errorReason(err).split('\n')[0]}): ` +
        `set ${variable}, or run from the source tree with npm start`,
      { cause: err },
    );
  }
}

