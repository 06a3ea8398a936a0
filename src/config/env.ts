import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import dotenv from 'dotenv';
import { Networks } from '@stellar/stellar-sdk';
import { parseLedgerAmount } from '../domain/amounts';
import { ConfigError } from './config-error';
import { loadOrCreateDevSecrets } from './dev-secrets';
import { parseEnv, type Env } from './env-schema';
import { ledgerEndpoint, paymentProviderEndpoint, type LedgerEndpoint, type PaymentProviderEndpoint } from './outside-systems';

// The service's importers read all of config from here (cli/, server.ts, tests).
export { ConfigError, parseEnv, type Env };

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
    /** User wallets' submitters (each holding its key pair) a process keeps at most. */
    walletSubmitterLimit: number;
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
    /** How often the ledger follower reads the history for movements into and out of the service's accounts; 0: not followed. */
    followIntervalMs: number;
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
  /**
   * MINT_APPROVAL_THRESHOLD in stroops: a mint-tokens or create-asset of more waits for a second
   * admin (0: every one). Undefined: none does.
   */
  mintApprovalThresholdStroops: bigint | undefined;
  events: {
    /** False only for the benchmark's baseline (EVENT_OUTBOX=off): no event is written. */
    enabled: boolean;
    /** Events older than this are deleted (webhook replay and the stream reach back this far). */
    retentionDays: number;
  };
  webhooks: {
    /** After the first attempt fails, the waits before each retry (ms); when they are spent the delivery is `failed`. */
    retryScheduleMs: number[];
    /** An endpoint that has not answered within this is a failed attempt. */
    timeoutMs: number;
    /** Deliveries one process makes at once. */
    concurrency: number;
    /** Endpoints on loopback addresses (and over http) are allowed: never in production. */
    allowLoopback: boolean;
    /** A delivery job whose process stopped beating this long is run by another. */
    jobHeartbeatSeconds: number;
    /** How often the queue looks for such jobs. */
    queueMonitorSeconds: number;
  };
  withdrawals: {
    /** The smallest withdrawal, in kobo. */
    minKobo: bigint;
    /** What one user may withdraw in 24 hours, in kobo. */
    dailyLimitKobo: bigint;
    /** The sweep's first delay before looking at a withdrawal not final again (doubles, up to 10 min). */
    checkRetryMs: number;
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
  /**
   * ADMIN_MFA_REQUIRED: an admin without MFA on logs in to a token that can only set it up
   * (POST /api/admin/mfa/setup and /confirm). Default true in production, false otherwise.
   */
  adminMfaRequired: boolean;
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
  if (env.NODE_ENV === 'production' && env.EVENT_OUTBOX === 'off') {
    throw new ConfigError('Invalid configuration: EVENT_OUTBOX=off is for the benchmark only: without events, client apps never hear money move');
  }
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
      walletSubmitterLimit: env.LEDGER_WALLET_SUBMITTERS,
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
      followIntervalMs: env.LEDGER_FOLLOW_INTERVAL_MS,
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
    mintApprovalThresholdStroops: env.MINT_APPROVAL_THRESHOLD === undefined ? undefined : parseLedgerAmount(env.MINT_APPROVAL_THRESHOLD),
    withdrawals: { minKobo: env.WITHDRAWAL_MIN_NAIRA, dailyLimitKobo: env.WITHDRAWAL_DAILY_LIMIT_NAIRA, checkRetryMs: env.WITHDRAWAL_CHECK_RETRY_MS },
    events: { enabled: env.EVENT_OUTBOX === 'on', retentionDays: env.EVENT_RETENTION_DAYS },
    webhooks: {
      retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE.split(',').map((seconds) => Number(seconds) * 1000),
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      concurrency: env.WEBHOOK_DELIVERY_CONCURRENCY,
      allowLoopback: env.NODE_ENV !== 'production',
      jobHeartbeatSeconds: env.WEBHOOK_JOB_HEARTBEAT_SECONDS,
      queueMonitorSeconds: env.WEBHOOK_QUEUE_MONITOR_SECONDS,
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
    adminMfaRequired: env.ADMIN_MFA_REQUIRED ?? env.NODE_ENV === 'production',
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
