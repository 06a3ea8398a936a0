import crypto from 'node:crypto';
import { Networks } from '@stellar/stellar-sdk';
import { ConfigError } from './config-error';

/**
 * The embedded ledger's network: the service creates the sandbox with it, so envelopes signed for
 * it are valid there and nowhere else.
 */
export const EMBEDDED_LEDGER_PASSPHRASE = 'Wallet Sandbox Network ; 2026';

/** Where the ledger is, as the service reaches it: a real Horizon, or the embedded sandbox. */
export interface LedgerEndpoint {
  /** No HORIZON_URL: the embedded sandbox ledger, served under /sandbox/horizon of this service. */
  embedded: boolean;
  horizonUrl: string;
  networkPassphrase: string;
  /** Funds the service's own accounts when they do not exist yet (sandbox, testnet); none on the public network. */
  friendbotUrl: string | undefined;
}

/**
 * The passphrase: configured, the sandbox's own, or Stellar's for the well-known Horizon hosts; a
 * friendbot: configured, the sandbox's, or testnet's. Any other Horizon must name its network.
 */
export function ledgerEndpoint(
  env: { HORIZON_URL?: string; STELLAR_NETWORK_PASSPHRASE?: string; FRIENDBOT_URL?: string },
  port: number,
): LedgerEndpoint {
  if (!env.HORIZON_URL) {
    const horizonUrl = `http://127.0.0.1:${port}/sandbox/horizon`;
    return {
      embedded: true,
      horizonUrl,
      networkPassphrase: env.STELLAR_NETWORK_PASSPHRASE ?? EMBEDDED_LEDGER_PASSPHRASE,
      friendbotUrl: env.FRIENDBOT_URL ?? `${horizonUrl}/friendbot`,
    };
  }
  const url = env.HORIZON_URL;
  const testnet = url.includes('testnet');
  let networkPassphrase = env.STELLAR_NETWORK_PASSPHRASE;
  if (!networkPassphrase && testnet) networkPassphrase = Networks.TESTNET;
  if (!networkPassphrase && url.includes('horizon.stellar.org')) networkPassphrase = Networks.PUBLIC;
  if (!networkPassphrase) {
    throw new ConfigError('Invalid configuration:\n  STELLAR_NETWORK_PASSPHRASE: required for a HORIZON_URL that is neither testnet nor the public network');
  }
  return { embedded: false, horizonUrl: url, networkPassphrase, friendbotUrl: env.FRIENDBOT_URL ?? (testnet ? 'https://friendbot.stellar.org' : undefined) };
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
