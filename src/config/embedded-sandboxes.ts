import { Router } from 'express';
import type { Config } from './env';
import type { Logger } from '../logger';
import { errorReason } from '../errors/loggable-error';
import { attachSandboxHost, type SandboxHostAttachment } from '../sandbox-host/attach';
import { sandboxProxy } from '../sandbox-host/proxy';

export interface Sandboxes {
  /** Served by the app ahead of its own middleware, by path. */
  apps: Record<string, Router>;
  /** The process running them, when any is embedded. */
  host?: SandboxHostAttachment;
}

/** How long the sandbox host stays up once no service process is attached: a restart finds it. */
const HOST_IDLE_EXIT_MS = 3_000;

/**
 * With STELLAR_RPC_URL and HORIZON_URL, or PAYSTACK_SECRET_KEY, unset (never in production: config
 * refuses it), the embedded stand-ins run, and only then: their code (packages/, npm workspaces) is
 * not part of a production build. They run in a process of their own (src/sandbox-host/), shared
 * by every service process of the DATA_DIR, never on the service's event loop. The service's port
 * still serves them under /sandbox/ (a streaming proxy, ahead of the service's middleware, as the
 * outside systems they stand for): the checkout page opens at PUBLIC_BASE_URL.
 */
export async function embeddedSandboxes(config: Config, logger: Logger): Promise<Sandboxes> {
  const ledger = config.ledger.embedded;
  const paystack = config.payments.provider.embedded;
  if (!ledger && !paystack) return { apps: {} };
  if (ledger) await loadable('STELLAR_RPC_URL', '@wallet/horizon-sandbox');
  if (paystack) await loadable('PAYSTACK_SECRET_KEY', '@wallet/paystack-sandbox');
  const host = await attachSandboxHost(
    {
      dataDir: config.dataDir,
      idleExitMs: HOST_IDLE_EXIT_MS,
      ledger: ledger
        ? { networkPassphrase: config.ledger.networkPassphrase, ledgerCloseMs: config.ledger.ledgerCloseMs, maxOperationsPerLedger: config.ledger.sandboxMaxOperationsPerLedger }
        : undefined,
      paystack: paystack
        ? {
            secretKey: config.payments.provider.secretKey,
            webhookUrl: `http://127.0.0.1:${config.port}/api/payments/webhook`,
            // The checkout page opens in the buyer's browser: at the public address, through this port.
            publicUrl: config.payments.provider.baseUrl,
          }
        : undefined,
    },
    logger,
  );
  return { apps: { '/sandbox': Router().use(sandboxProxy(host.url)) }, host };
}

/**
 * The service reaches the embedded sandboxes at the host's own address, not through its port: their
 * traffic never crosses the service's event loop twice, and an operator command works whether a
 * server runs or not. The checkout URLs the provider hands out still name the public address.
 */
export function withSandboxHost(config: Config, host: SandboxHostAttachment | undefined): Config {
  if (!host) return config;
  const sandbox = `${host.url()}/sandbox`;
  const { ledger, payments } = config;
  return {
    ...config,
    ledger: ledger.embedded ? { ...ledger, url: `${sandbox}/rpc`, friendbotUrl: ledger.friendbotUrl?.replace(/^.*\/sandbox\/horizon/, `${sandbox}/horizon`) } : ledger,
    payments: payments.provider.embedded ? { ...payments, provider: { ...payments.provider, baseUrl: `${sandbox}/paystack` } } : payments,
  };
}

/**
 * The sandboxes are TypeScript workspaces run through tsx (npm start) or ts-jest: a compiled build
 * (dist/, the Docker image) has no loadable copy, so starting one there without the outside
 * system configured stops here, naming the variable to set.
 */
async function loadable(variable: string, workspace: string): Promise<void> {
  try {
    require.resolve(workspace);
    require.resolve('tsx');
  } catch (err) {
    throw new Error(
      `${variable} is unset and the embedded sandbox standing in for it cannot be loaded here (${errorReason(err).split('\n')[0]}): ` +
        `set ${variable}, or run from the source tree with npm start`,
      { cause: err },
    );
  }
}
