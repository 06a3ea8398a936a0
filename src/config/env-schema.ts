import os from 'node:os';
import { z } from 'zod';
import { parseLedgerAmount } from '../domain/amounts';
import { ConfigError } from './config-error';

// The environment as the service accepts it: one zod schema, every variable's type, range and
// default, and the variables production refuses to run without. env.ts turns it into Config.

/** Booleans in the environment are words, not JavaScript truthiness ("false" must be false). */
const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const optionalUrl = z.url().optional();
/** A decimal amount as text, never parsed to a float. */
const decimalText = z.string().regex(/^\d+(\.\d{1,7})?$/, 'must be a decimal number with at most 7 fractional digits');

/** A Naira amount as text (at most 2 decimals), turned into kobo: never a float. */
const nairaText = z
  .string()
  .regex(/^\d{1,13}(\.\d{1,2})?$/, 'must be a Naira amount with at most 2 decimal places')
  .transform((v) => {
    const [whole, fraction = ''] = v.split('.');
    return BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
  });

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
  // Two people for money creation (CONTRACT 11): a mint-tokens or create-asset of more tokens than
  // this waits for a second admin's approval (0: every one does). Unset, none does (the spec's answers).
  MINT_APPROVAL_THRESHOLD: decimalText.refine((v) => parseLedgerAmount(v) !== undefined, 'must be at most 922337203685.4775807 tokens').optional(),
  PAYSTACK_SECRET_KEY: z.string().min(1).optional(),
  PAYSTACK_BASE_URL: z.url().default('https://api.paystack.co'),
  PAYSTACK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).default('Wallet <no-reply@localhost>'),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(8).max(72).optional(),
  LEDGER_CLOSE_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  LEDGER_CHANNELS: z.coerce.number().int().min(0).max(50).default(8),
  LEDGER_WALLET_SUBMITTERS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
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
  // The ledger follower (CONTRACT 12): how often it reads the history; 0 turns it off (the bench compares).
  LEDGER_FOLLOW_INTERVAL_MS: z.coerce.number().int().refine((v) => v === 0 || (v >= 100 && v <= 600_000), 'must be 0 (off) or 100-600000').default(1_000),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  // The provider sweep: first question about a new intent, then backoff from the retry delay to 6 h.
  PAYMENT_FIRST_CHECK_MS: z.coerce.number().int().min(0).max(86_400_000).default(120_000),
  PAYMENT_CHECK_RETRY_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  PAYMENT_CHECK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(40),
  // Cash-out: Naira amounts (at most 2 decimals), and how often a withdrawal not final is looked at (doubling to 10 min).
  WITHDRAWAL_MIN_NAIRA: nairaText.prefault('100'),
  WITHDRAWAL_DAILY_LIMIT_NAIRA: nairaText.prefault('1000000'),
  WITHDRAWAL_CHECK_RETRY_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  // Events to client apps (CONTRACT 13): how long events are kept, and the webhook deliveries'
  // retry schedule (seconds after each failed attempt), timeout and parallelism.
  // off: no events are written (the benchmark's baseline for what events cost); refused in production.
  EVENT_OUTBOX: z.enum(['on', 'off']).default('on'),
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be seconds separated by commas')
    .default('5,300,1800,7200,18000,36000,36000'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  WEBHOOK_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(10),
  // A delivery job whose process stopped beating this long goes to another process (pg-boss: at least 10).
  WEBHOOK_JOB_HEARTBEAT_SECONDS: z.coerce.number().int().min(10).max(3600).default(30),
  WEBHOOK_QUEUE_MONITOR_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
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
  // Unset: true in production, false otherwise (admins then choose to enrol).
  ADMIN_MFA_REQUIRED: flag.optional(),
});

export type Env = z.infer<typeof envSchema>;

/**
 * Variables that must be set in production: each would otherwise fall back to a sandbox or a
 * generated secret, or (MINT_APPROVAL_THRESHOLD) let one admin's password create any amount of money.
 */
const REQUIRED_IN_PRODUCTION = [
  'DATABASE_URL',
  'PAYSTACK_SECRET_KEY',
  'SMTP_URL',
  'JWT_SECRET',
  'WALLET_ENCRYPTION_KEY',
  'ISSUER_SECRET',
  'DISTRIBUTION_SECRET',
  'MINT_APPROVAL_THRESHOLD',
] as const;

/** The environment checked against the schema; throws ConfigError naming every offending variable. */
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
        `Invalid configuration: NODE_ENV=production refuses sandboxes, generated secrets and money created by one admin alone; set ${missing.join(', ')}`,
      );
    }
  }
  return env;
}
