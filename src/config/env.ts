import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import dotenv from 'dotenv';
import { Networks } from '@stellar/stellar-sdk';
import { z } from 'zod';
import { ConfigError } from './config-error';
import { loadOrCreateDevSecrets } from './dev-secrets';
import { ledgerEndpoint, paymentProviderEndpoint, type LedgerEndpoint, type PaymentProviderEndpoint } from './outside-systems';

/** Booleans in the environment are words, not JavaScript truthiness ("false" must be false). */
const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const optionalUrl = z.url().optional();
/** A decimal amount as text, never parsed to a float. */
const decimalText = z.string().regex(/^\d+(\.\d{1,7})?$/, 'must be a decimal number with at most 7 fractional digits');

/** Service processes on the port: a whole number from 1, or `auto` (one per CPU this process may use). */
const webConcurrency = z
  .string()
  .trim()
  .regex(/^(auto|[1-9]\d*)$/, 'must be a whole number of service processes, 1 or more, or auto (one per CPU)')
  .transform((v) => (v === 'auto' ? os.availableParallelism() : Number(v)))
  .refine((n) => n <= 256, 'must be at most 256 service processes');

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  WEB_CONCURRENCY: webConcurrency.default(1),
  PUBLIC_BASE_URL: optionalUrl,
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string').optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  WALLET_ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  WALLET_ENCRYPTION_KEY_PREVIOUS: z
    .string()
    .refine((v) => v.split(',').every((k) => Buffer.from(k.trim(), 'base64').length === 32), 'must be 32-byte base64 keys')
    .optional(),
  STELLAR_RPC_URL: optionalUrl,
  HORIZON_URL: optionalUrl,
  LEDGER_HISTORY_RETENTION_LEDGERS: z.coerce.number().int().min(1).default(120_960),
  STELLAR_NETWORK_PASSPHRASE: z.string().min(1).optional(),
  FRIENDBOT_URL: optionalUrl,
  TOKEN_CODE: z.string().regex(/^[A-Za-z0-9]{1,4}$/, 'must be 1-4 letters or digits (credit_alphanum4)').default('WLT'),
  ISSUER_SECRET: z.string().regex(/^S[A-Z2-7]{55}$/, 'must be a Stellar secret seed').optional(),
  DISTRIBUTION_SECRET: z.string().regex(/^S[A-Z2-7]{55}$/, 'must be a Stellar secret seed').optional(),
  // Wallets' reserves are sponsored and their fees fee-bumped: XLM given to a wallet is the user's to withdraw.
  WALLET_STARTING_XLM: decimalText.default('0'),
  SIGNUP_WALLETS_PER_HOUR: z.coerce.number().int().min(0).default(1000),
  // At least one stroop per Naira: a rate of 0 would take buyers' money and mint nothing.
  TOKENS_PER_NAIRA: decimalText.refine((v) => /[1-9]/.test(v), 'must be more than 0 (at 0 a payment mints nothing)').default('1'),
  PAYSTACK_SECRET_KEY: z.string().min(1).optional(),
  PAYSTACK_BASE_URL: z.url().default('https://api.paystack.co'),
  PAYSTACK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).default('Wallet <no-reply@localhost>'),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(8).max(72).optional(),
  LEDGER_CLOSE_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  LEDGER_CHANNELS: z.coerce.number().int().min(0).max(50).default(8),
  LEDGER_SUBMIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  LEDGER_READ_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  LEDGER_ANSWER_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(20_000),
  LEDGER_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(15_000),
  LEDGER_TX_TIMEOUT_LEDGERS: z.coerce.number().int().min(2).max(1000).default(24),
  LEDGER_SETTLE_BASE_MS: z.coerce.number().int().min(10).max(10_000).default(250),
  LEDGER_RECHECK_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  LEDGER_RETRY_BASE_MS: z.coerce.number().int().min(1).max(10_000).default(100),
  LEDGER_FEE_PERCENTILE: z.enum(['10', '20', '30', '40', '50', '60', '70', '80', '90', '95', '99'], 'must be one of Horizon\'s fee_stats percentiles: 10, 20, ... 90, 95, 99').default('90'),
  MAX_FEE_STROOPS: z.coerce.number().int().min(100, 'must be at least the base fee, 100').max(100_000_000).default(10_000),
  LEDGER_BUMP_AFTER_LEDGERS: z.coerce.number().int().min(1).max(1000).default(3),
  LEDGER_FEE_STATS_CACHE_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  LEDGER_SANDBOX_MAX_OPS: z.coerce.number().int().min(0).max(100_000).default(1000),
  MIN_SIGNUPS_LEFT: z.coerce.number().int().min(0).default(100),
  RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  // The provider sweep: first question about a new intent, then backoff from the retry delay to 6 h.
  PAYMENT_FIRST_CHECK_MS: z.coerce.number().int().min(0).max(86_400_000).default(120_000),
  PAYMENT_CHECK_RETRY_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  PAYMENT_CHECK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(40),
  MAIL_RETRY_BASE_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  AUTH_RATE_LIMIT: z.coerce.number().int().min(0).default(20),
  CALLBACK_RATE_LIMIT: z.coerce.number().int().min(0).default(60),
  WEBHOOK_RATE_LIMIT: z.coerce.number().int().min(0).default(1000),
  BCRYPT_COST: z.coerce.number().int().min(4).max(15).default(10),
  PASSWORD_HASH_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CORS_ORIGINS: z.string().optional(),
  TRUST_PROXY: z.string().optional(),
  REQUIRE_HTTPS_FOR_SECRETS: flag.optional(),
});

export type Env = z.infer<typeof envSchema>;

/** Variables that must be set in production: each would otherwise fall back to a sandbox or a generated secret. */
const REQUIRED_IN_PRODUCTION = [
  'DATABASE_URL',
  'PAYSTACK_SECRET_KEY',
  'SMTP_URL',
  'JWT_SECRET',
  'WALLET_ENCRYPTION_KEY',
  'ISSUER_SECRET',
  'DISTRIBUTION_SECRET',
] as const;

export { ConfigError };

export function parseEnv(source: Record<string, string | undefined>): Env {
  // Empty strings in .env files mean "not set", as they do for every other tool.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = result.data;
  if (env.NODE_ENV === 'production') {
    const missing: string[] = REQUIRED_IN_PRODUCTION.filter((k) => env[k] === undefined);
    if (env.STELLAR_RPC_URL === undefined && env.HORIZON_URL === undefined) missing.splice(1, 0, 'STELLAR_RPC_URL (or HORIZON_URL)');
    if (missing.length > 0) {
      throw new ConfigError(
        `Invalid configuration: NODE_ENV=production refuses sandboxes and generated secrets; set ${missing.join(', ')}`,
      );
    }
  }
  return env;
}

export interface Config {
  env: Env['NODE_ENV'];
  isProduction: boolean;
  port: number;
  /**
   * Service processes sharing the port (node:cluster); 1 = this process serves, with no cluster
   * primary. Each one has its own database pool, password hashing threads and background workers.
   */
  webConcurrency: number;
  publicBaseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  jwtSecret: string;
  /** Current key first; older keys stay readable until every wallet is re-encrypted. */
  walletKeys: { current: Buffer; previous: Buffer[] };
  ledger: LedgerEndpoint & {
    tokenCode: string;
    issuerSecret: string | undefined;
    distributionSecret: string | undefined;
    walletStartingXlm: string;
    /** New wallets (each funded with walletStartingXlm) per clock hour, all processes together; 0 = no budget. */
    signupWalletsPerHour: number;
    ledgerCloseMs: number;
    channelCount: number;
    submitTimeoutMs: number;
    readTimeoutMs: number;
    /** How long a transfer or mint waits for the ledger before answering 202 pending. */
    answerWaitMs: number;
    /** How long the signing process owns an envelope before another process's reconciler may take it. */
    leaseMs: number;
    /** Ledgers a signed envelope may enter after the ledger read before signing it. */
    txTimeoutLedgers: number;
    /** The fewest ledgers of history a Horizon keeps (RPC says its own window in every answer). */
    historyRetentionLedgers: number;
    settleBaseDelayMs: number;
    recheckMs: number;
    /**
     * First pause before a transaction is built and sent again after the ledger could not be
     * reached or refused it; doubles per round up to 20 times this, 6 rounds, then the request
     * answers 503 (or the entry waits for the reconciler).
     */
    retryBaseMs: number;
    reconcileIntervalMs: number;
    /** fee_stats percentile bid per operation, its cap (stroops per operation), ledgers before a waiting envelope's bid is raised. */
    feePercentile: number;
    maxFeeStroops: bigint;
    bumpAfterLedgers: number;
    /** How long one /fee_stats reading sets the bids. */
    feeStatsCacheMs: number;
    /** The embedded sandbox's per-ledger operation limit (surge pricing beyond it); 0 = none. */
    sandboxMaxOperationsPerLedger: number;
    /** /readyz warns and a metric alerts below this many signups left in the distribution account's XLM. */
    minSignupsLeft: number;
  };
  webhookRetryBaseMs: number;
  /** First delay before a queued e-mail the mail server refused is tried again (doubles, up to 10 min). */
  mailRetryBaseMs: number;
  payments: {
    provider: PaymentProviderEndpoint;
    /** Whole-request deadline of a call to the provider (initialize, verify), connection to last byte. */
    paystackTimeoutMs: number;
    tokensPerNaira: string;
    /** When the provider sweep first asks about a new intent. */
    firstCheckMs: number;
    /** The sweep's first delay between questions (doubles, up to 6 h). */
    checkRetryMs: number;
    /** Questions about one payment before the sweep stops asking (it stays as it is, counted for an operator). */
    checkMaxAttempts: number;
  };
  mail: { smtpUrl: string | undefined; from: string; outboxDir: string };
  bootstrapAdmin: { email: string; password: string } | undefined;
  authRateLimit: number;
  /** Per IP per 15 minutes on GET /api/payments/callback; 0 = off. */
  callbackRateLimit: number;
  /** Per IP per 15 minutes on POST /api/payments/webhook (the provider's own addresses); 0 = off. */
  webhookRateLimit: number;
  bcryptCost: number;
  passwordHashThreads: number | undefined;
  logLevel: Env['LOG_LEVEL'];
  corsOrigins: string[];
  trustProxy: string | undefined;
  requireHttpsForSecrets: boolean;
}

/**
 * Reads `.env` (when present) and the environment, validates them once, and fills the dev
 * secrets from DATA_DIR. Throws ConfigError naming the offending variable.
 */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  if (source === process.env && fs.existsSync('.env')) dotenv.config();
  const env = parseEnv(source);
  const dataDir = path.resolve(env.DATA_DIR);
  const needsGenerated = env.JWT_SECRET === undefined || env.WALLET_ENCRYPTION_KEY === undefined;
  const dev = needsGenerated ? loadOrCreateDevSecrets(dataDir) : undefined;
  const walletKey = env.WALLET_ENCRYPTION_KEY ?? dev!.walletEncryptionKey;
  const jwtSecret = env.JWT_SECRET ?? dev!.jwtSecret;
  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  const ledger = ledgerEndpoint(env, env.PORT);
  refuseTestPaymentsOnPublicNetwork(env, ledger.networkPassphrase);
  return {
    env: env.NODE_ENV,
    isProduction: env.NODE_ENV === 'production',
    port: env.PORT,
    webConcurrency: env.WEB_CONCURRENCY,
    publicBaseUrl,
    dataDir,
    databaseUrl: env.DATABASE_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    jwtSecret,
    walletKeys: {
      current: Buffer.from(walletKey, 'base64'),
      previous: (env.WALLET_ENCRYPTION_KEY_PREVIOUS ?? '')
        .split(',')
        .filter((k) => k.trim() !== '')
        .map((k) => Buffer.from(k.trim(), 'base64')),
    },
    ledger: {
      ...ledger,
      tokenCode: env.TOKEN_CODE,
      issuerSecret: env.ISSUER_SECRET,
      distributionSecret: env.DISTRIBUTION_SECRET,
      walletStartingXlm: env.WALLET_STARTING_XLM,
      signupWalletsPerHour: env.SIGNUP_WALLETS_PER_HOUR,
      ledgerCloseMs: env.LEDGER_CLOSE_MS,
      channelCount: env.LEDGER_CHANNELS,
      submitTimeoutMs: env.LEDGER_SUBMIT_TIMEOUT_MS,
      readTimeoutMs: env.LEDGER_READ_TIMEOUT_MS,
      answerWaitMs: env.LEDGER_ANSWER_WAIT_MS,
      leaseMs: env.LEDGER_LEASE_MS,
      txTimeoutLedgers: env.LEDGER_TX_TIMEOUT_LEDGERS,
      historyRetentionLedgers: env.LEDGER_HISTORY_RETENTION_LEDGERS,
      settleBaseDelayMs: env.LEDGER_SETTLE_BASE_MS,
      recheckMs: env.LEDGER_RECHECK_MS,
      retryBaseMs: env.LEDGER_RETRY_BASE_MS,
      reconcileIntervalMs: env.RECONCILE_INTERVAL_MS,
      feePercentile: Number(env.LEDGER_FEE_PERCENTILE),
      maxFeeStroops: BigInt(env.MAX_FEE_STROOPS),
      bumpAfterLedgers: env.LEDGER_BUMP_AFTER_LEDGERS,
      feeStatsCacheMs: env.LEDGER_FEE_STATS_CACHE_MS,
      sandboxMaxOperationsPerLedger: env.LEDGER_SANDBOX_MAX_OPS,
      minSignupsLeft: env.MIN_SIGNUPS_LEFT,
    },
    payments: {
      provider: paymentProviderEndpoint(env, jwtSecret, publicBaseUrl),
      paystackTimeoutMs: env.PAYSTACK_TIMEOUT_MS,
      tokensPerNaira: env.TOKENS_PER_NAIRA,
      firstCheckMs: env.PAYMENT_FIRST_CHECK_MS,
      checkRetryMs: env.PAYMENT_CHECK_RETRY_MS,
      checkMaxAttempts: env.PAYMENT_CHECK_MAX_ATTEMPTS,
    },
    webhookRetryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
    mailRetryBaseMs: env.MAIL_RETRY_BASE_MS,
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, outboxDir: path.join(dataDir, 'outbox') },
    bootstrapAdmin:
      env.ADMIN_EMAIL && env.ADMIN_PASSWORD ? { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD } : undefined,
    authRateLimit: env.AUTH_RATE_LIMIT,
    callbackRateLimit: env.CALLBACK_RATE_LIMIT,
    webhookRateLimit: env.WEBHOOK_RATE_LIMIT,
    bcryptCost: env.BCRYPT_COST,
    // N processes each with one hashing thread per core would run N threads per core: unset, the cores are shared out.
    passwordHashThreads:
      env.PASSWORD_HASH_THREADS ?? (env.WEB_CONCURRENCY > 1 ? Math.max(1, Math.floor(os.availableParallelism() / env.WEB_CONCURRENCY)) : undefined),
    logLevel: env.LOG_LEVEL,
    corsOrigins: (env.CORS_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    trustProxy: env.TRUST_PROXY,
    requireHttpsForSecrets: env.REQUIRE_HTTPS_FOR_SECRETS ?? env.NODE_ENV === 'production',
  };
}

/** Test cards would mint real tokens: a test-mode provider key never meets Stellar's public network. */
function refuseTestPaymentsOnPublicNetwork(env: Env, networkPassphrase: string): void {
  if (env.PAYSTACK_SECRET_KEY?.startsWith('sk_test_') && networkPassphrase === Networks.PUBLIC) {
    throw new ConfigError(
      "Invalid configuration: PAYSTACK_SECRET_KEY is a test-mode key (sk_test_) and the ledger is Stellar's public network, so test payments would mint real tokens. Use a live key (sk_live_), or testnet",
    );
  }
}
