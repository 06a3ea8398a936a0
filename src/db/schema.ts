import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    username: text('username').notNull(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    /** Any reset token issued before this instant is void: a password change invalidates it. */
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Usernames are unique ignoring case; e-mails are stored lower-case, so a plain unique index serves.
    uniqueIndex('users_username_lower_key').on(sql`lower(${t.username})`),
    uniqueIndex('users_email_key').on(t.email),
    index('users_created_at_idx').on(t.createdAt, t.id),
  ],
);

export const admins = pgTable(
  'admins',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('admins_email_key').on(t.email)],
);

export const wallets = pgTable('wallets', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  publicKey: text('public_key').notNull().unique(),
  /** AES-256-GCM ciphertext of the secret seed; never the seed itself. */
  secretCiphertext: text('secret_ciphertext').notNull(),
  keyId: text('key_id').notNull(),
  /** pending until the account exists on the ledger with its trustline; then active. */
  status: text('status', { enum: ['pending', 'active'] }).notNull().default('pending'),
  activatedAt: timestamp('activated_at', { withTimezone: true }),
  createdAt: createdAt(),
});

/** A deleted user's wallet key is kept here so tokens on the ledger are never made unreachable. */
export const archivedWallets = pgTable('archived_wallets', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull(),
  username: text('username').notNull(),
  email: text('email').notNull(),
  publicKey: text('public_key').notNull(),
  secretCiphertext: text('secret_ciphertext').notNull(),
  keyId: text('key_id').notNull(),
  archivedAt: timestamp('archived_at', { withTimezone: true }).notNull().defaultNow(),
});

export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    /** The JWT's jti: the token itself is never stored. */
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('password_reset_tokens_user_idx').on(t.userId)],
);

/**
 * Ledger movements recorded by the service. No foreign key to users: financial history outlives
 * the account that made it.
 */
export const transactions = pgTable(
  'transactions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ledgerTransactionId: text('ledger_transaction_id').notNull(),
    fromPublicKey: text('from_public_key').notNull(),
    toPublicKey: text('to_public_key').notNull(),
    /** Integer stroops (1 token = 10^7 stroops): exact, never a float. */
    amountStroops: bigint('amount_stroops', { mode: 'bigint' }).notNull(),
    assetCode: text('asset_code').notNull(),
    userId: uuid('user_id').notNull(),
    kind: text('kind', { enum: ['transfer', 'mint'] }).notNull().default('transfer'),
    createdAt: createdAt(),
  },
  (t) => [
    // Ascending on purpose: the lists ORDER BY created_at DESC, id DESC (NULLS FIRST, PostgreSQL's
    // default for DESC), which a backward scan of an ascending index gives. Drizzle's .desc() makes
    // DESC NULLS LAST, an order no scan of which matches, and every list page sorted the whole table.
    index('transactions_user_created_idx').on(t.userId, t.createdAt, t.id),
    index('transactions_created_idx').on(t.createdAt, t.id),
  ],
);

/** The service's own ledger accounts (issuer, distribution) when their secrets are generated, not configured. */
export const systemAccounts = pgTable('system_accounts', {
  name: text('name', { enum: ['issuer', 'distribution'] }).primaryKey(),
  publicKey: text('public_key').notNull(),
  secretCiphertext: text('secret_ciphertext').notNull(),
  keyId: text('key_id').notNull(),
  createdAt: createdAt(),
});

/**
 * Client retry keys for money-moving requests: the first answer is kept and replayed, so a phone
 * retrying a timed-out transfer never pays twice.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    callerId: uuid('caller_id').notNull(),
    key: text('key').notNull(),
    route: text('route').notNull(),
    requestHash: text('request_hash').notNull(),
    /** null while the first request is still running. */
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    responseType: text('response_type'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.callerId, t.route, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);

/** One signed mint transaction, stored before it is submitted so a crash can never lead to a second one. */
export const mintBatches = pgTable(
  'mint_batches',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    txHash: text('tx_hash').notNull().unique(),
    envelopeXdr: text('envelope_xdr').notNull(),
    status: text('status', { enum: ['signed', 'confirmed', 'dead'] }).notNull().default('signed'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('mint_batches_status_idx').on(t.status)],
);

export const payments = pgTable(
  'payments',
  {
    reference: text('reference').primaryKey(),
    userId: uuid('user_id').notNull(),
    amountKobo: bigint('amount_kobo', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull().default('NGN'),
    /** initialized -> verified (reference consumed) -> minted; failed when the provider says so. */
    status: text('status', { enum: ['initialized', 'verified', 'minted', 'failed'] }).notNull().default('initialized'),
    tokensStroops: bigint('tokens_stroops', { mode: 'bigint' }),
    destinationPublicKey: text('destination_public_key'),
    mintBatchId: uuid('mint_batch_id').references(() => mintBatches.id),
    mintTxHash: text('mint_tx_hash'),
    providerPayload: jsonb('provider_payload'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('payments_status_idx').on(t.status), index('payments_user_idx').on(t.userId)],
);
