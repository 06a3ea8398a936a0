import crypto from 'node:crypto';
import { Networks } from '@stellar/stellar-sdk';
import { ConfigError } from './config-error';

/**
 * The embedded ledger's network: the service creates the sandbox with it, so envelopes signed for
 * it are valid there and nowhere else.
 */
export const EMBEDDED_LEDGER_PASSPHRASE = 'Wallet Sandbox Network ; 2026';

/** Where the ledger is, as the service reaches it: Stellar RPC or Horizon, real or the embedded sandbox. */
export interface LedgerEndpoint {
  /** Neither STELLAR_RPC_URL nor HORIZON_URL: the embedded sandbox ledger, served under /sandbox/ of this service. */
  embedded: boolean;
  /** Which API the service speaks: Stellar RPC (recommended) or Horizon. */
  api: 'rpc' | 'horizon';
  url: string;
  networkPassphrase: string;
  /** Funds the service's own accounts when they do not exist yet (sandbox, testnet); none on the public network. */
  friendbotUrl: string | undefined;
}

/**
 * STELLAR_RPC_URL selects Stellar RPC, HORIZON_URL Horizon, neither the embedded sandbox's RPC. The
 * passphrase: configured, the sandbox's own, or Stellar's for testnet and the well-known Horizon
 * host; a friendbot: configured, the sandbox's, or testnet's when the URL points at testnet.
 */
export function ledgerEndpoint(
  env: { STELLAR_RPC_URL?: string; HORIZON_URL?: string; STELLAR_NETWORK_PASSPHRASE?: string; FRIENDBOT_URL?: string },
  port: number,
): LedgerEndpoint {
  if (env.STELLAR_RPC_URL && env.HORIZON_URL) {
    throw new ConfigError('Invalid configuration:\n  STELLAR_RPC_URL, HORIZON_URL: set one of them (the service speaks one ledger API)');
  }
  const url = env.STELLAR_RPC_URL ?? env.HORIZON_URL;
  if (!url) {
    const sandbox = `http://127.0.0.1:${port}/sandbox`;
    return {
      embedded: true,
      api: 'rpc',
      url: `${sandbox}/rpc`,
      networkPassphrase: env.STELLAR_NETWORK_PASSPHRASE ?? EMBEDDED_LEDGER_PASSPHRASE,
      friendbotUrl: env.FRIENDBOT_URL ?? `${sandbox}/horizon/friendbot`,
    };
  }
  const api = env.STELLAR_RPC_URL ? 'rpc' : 'horizon';
  const testnet = url.includes('testnet');
  let networkPassphrase = env.STELLAR_NETWORK_PASSPHRASE;
  if (!networkPassphrase && testnet) networkPassphrase = Networks.TESTNET;
  if (!networkPassphrase && url.includes('horizon.stellar.org')) networkPassphrase = Networks.PUBLIC;
  if (!networkPassphrase) {
    const variable = api === 'rpc' ? 'STELLAR_RPC_URL' : 'HORIZON_URL';
    throw new ConfigError(`Invalid configuration:\n  STELLAR_NETWORK_PASSPHRASE: required for a ${variable} that is not testnet${api === 'horizon' ? ' nor the public network' : ''}`);
  }
  return { embedded: false, api, url, networkPassphrase, friendbotUrl: env.FRIENDBOT_URL ?? (testnet ? 'https://friendbot.stellar.org' : undefined) };
}

/** Where payments go: Paystack, or the embedded sandbox provider. */
export interface PaymentProviderEndpoint {
  /** No PAYSTACK_SECRET_KEY: the embedded sandbox provider, served under /sandbox/paystack. */
  embedded: boolean;
  baseUrl: string;
  secretKey: string;
}

/**
 * The sandbox provider's secret is derived from JWT_SECRET: stable across restarts (its signed
 * webhooks stay valid) without another secret to generate. Its base URL is the public address,
 * so the checkout URL it hands out opens in the user's browser.
 */
export function paymentProviderEndpoint(
  env: { PAYSTACK_SECRET_KEY?: string; PAYSTACK_BASE_URL: string },
  jwtSecret: string,
  publicBaseUrl: string,
): PaymentProviderEndpoint {
  if (env.PAYSTACK_SECRET_KEY) return { embedded: false, baseUrl: env.PAYSTACK_BASE_URL.replace(/\/+$/, ''), secretKey: env.PAYSTACK_SECRET_KEY };
  const secretKey = `sk_test_sandbox_${crypto.createHash('sha256').update(jwtSecret).digest('hex').slice(0, 24)}`;
  return { embedded: true, baseUrl: `${publicBaseUrl}/sandbox/paystack`, secretKey };
}
