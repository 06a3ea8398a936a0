import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

// Columns several tables have, each a function: a column builder belongs to one table.
const id = () => uuid('id').primaryKey().defaultRandom();
const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

/** An account's credentials (users, admins). */
const credentials = () => ({
  email: text('email').notNull(),
  passwordHash: text('password_hash').notNull(),
  /**
   * The last credential change (password reset, or an admin changing a user's e-mail); equal to
   * created_at until then. Access tokens issued in or before its second are refused
   * (src/security/sessions.ts).
   */
  passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A ledger secret key at rest (wallets, archived wallets, system accounts). */
const sealedSecret = () => ({
  /** AES-256-GCM ciphertext of the secret seed; never the seed itself. */
  secretCiphertext: text('secret_ciphertext').notNull(),
  /** Which key sealed it (src/security/wallet-cipher.ts; rotated by `npm run wallet:rotate-key`). */
  keyId: text('key_id').notNull(),
});

export const users = pgTable(
  'users',
  {
    id: id(),
    username: text('username').notNull(),
    ...credentials(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
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
    id: id(),
    ...credentials(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('admins_email_key').on(t.email)],
);

export const wallets = pgTable('wallets', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  publicKey: text('public_key').notNull().unique(),
  ...sealedSecret(),
  /** pending until the account exists on the ledger with its trustline; then active. */
  status: text('status', { enum: ['pending', 'active'] }).notNull().default('pending'),
  activatedAt: timestamp('activated_at', { withTimezone: true }),
  createdAt: createdAt(),
});

/** A deleted user's wallet key is kept here so tokens on the ledger are never made unreachable. */
export const archivedWallets = pgTable('archived_wallets', {
  id: id(),
  userId: uuid('user_id').notNull(),
  username: text('username').notNull(),
  email: text('email').notNull(),
  publicKey: text('public_key').notNull(),
  ...sealedSecret(),
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

/** The service's own ledger accounts (issuer, distribution) when their secrets are generated, not configured. */
export const systemAccounts = pgTable('system_accounts', {
  name: text('name', { enum: ['issuer', 'distribution'] }).primaryKey(),
  publicKey: text('public_key').notNull(),
  ...sealedSecret(),
  createdAt: createdAt(),
});

/**
 * Client retry keys of money-moving requests, each bound to the journal entry it answers (written
 * in the entry's own transaction): a retry answers that entry's state and never moves money again.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    callerId: uuid('caller_id').notNull(),
    key: text('key').notNull(),
    route: text('route').notNull(),
    /** sha256 of the validated body: the same key with another body is refused. */
    requestHash: text('request_hash').notNull(),
    entryId: uuid('entry_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.callerId, t.route, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);

export const payments = pgTable(
  'payments',
  {
    reference: text('reference').primaryKey(),
    userId: uuid('user_id').notNull(),
    amountKobo: bigint('amount_kobo', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull().default('NGN'),
    /**
     * initialized -> verified (reference consumed, its mint entry in the journal) -> minted; failed
     * when the provider says so, or (with failureReason) when the ledger refuses its mint for good.
     */
    status: text('status', { enum: ['initialized', 'verified', 'minted', 'failed'] }).notNull().default('initialized'),
    tokensStroops: bigint('tokens_stroops', { mode: 'bigint' }),
    destinationPublicKey: text('destination_public_key'),
    mintTxHash: text('mint_tx_hash'),
    /** Why a verified payment can never be minted (the ledger refused it for good); null otherwise. */
    failureReason: text('failure_reason'),
    providerPayload: jsonb('provider_payload'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('payments_status_idx').on(t.status), index('payments_user_idx').on(t.userId)],
);

export const ENVELOPE_STATUSES = ['pending', 'submitted', 'confirmed', 'failed'] as const;
export type EnvelopeStatus = (typeof ENVELOPE_STATUSES)[number];

/**
 * The journal's signed envelopes: every transaction the service ever signs is stored here before
 * it is sent. pending (built, never sent) -> submitted (sent at least once, outcome unknown) ->
 * confirmed (found on the ledger) | failed (refused on its first submission, never delivered, or
 * provably never applicable: see src/ledger/dead-envelope.ts). Only these bytes are ever resubmitted.
 */
export const ledgerEnvelopes = pgTable(
  'ledger_envelopes',
  {
    id: id(),
    /** The signed (inner) transaction's hash: the identity every fee bump of it shares. */
    hash: text('hash').notNull().unique(),
    /** The transaction's source account: the lane whose sequence number it consumes. */
    sourceAccount: text('source_account').notNull(),
    sequence: bigint('sequence', { mode: 'bigint' }).notNull(),
    /** Unix seconds after which the network refuses it (tx_too_late). */
    maxTime: bigint('max_time', { mode: 'bigint' }).notNull(),
    /**
     * The envelope to send: a fee bump around the signed inner transaction. `hash` above is the
     * inner transaction's, which every fee bump of it shares and Horizon finds it under: the journal
     * tracks that one, so raising the bid never makes a second transaction.
     */
    envelopeXdr: text('envelope_xdr').notNull(),
    /** The current fee bump's own hash (null for an envelope stored before fee bumps). */
    outerHash: text('outer_hash'),
    /** The current fee bump's whole fee bid, in stroops (what the service accepts to pay at most). */
    bidStroops: bigint('bid_stroops', { mode: 'bigint' }),
    /** The ledger Horizon had closed when the current bid was first seen still waiting: bumps count ledgers from it. */
    bidLedger: integer('bid_ledger'),
    /** How many times the bid was raised. */
    bumps: integer('bumps').notNull().default(0),
    /** What the network charged, once applied (stroops). */
    feeCharged: bigint('fee_charged', { mode: 'bigint' }),
    status: text('status', { enum: ENVELOPE_STATUSES }).notNull().default('pending'),
    /** How many times it was handed to Horizon; a refusal is final only for the first. */
    submitCount: integer('submit_count').notNull().default(0),
    ledger: integer('ledger'),
    /** Result codes or the reason it failed. */
    failure: text('failure'),
    /** Not before this instant does a worker look at it again: a lease while someone works on it. */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('ledger_envelopes_open_idx').on(t.nextCheckAt).where(sql`status in ('pending', 'submitted')`)],
);

export const ENTRY_KINDS = ['transfer', 'payment_mint', 'admin_mint', 'issue', 'activation', 'channel_funding', 'channel_merge', 'trustline'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];
/** The kinds users and admins see as transaction records. */
export const RECORD_KINDS = ['transfer', 'payment_mint', 'admin_mint'] as const satisfies readonly EntryKind[];
export const ENTRY_STATUSES = ['pending', 'submitted', 'confirmed', 'failed'] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];

/**
 * The journal: one row per ledger write the service has promised (a transfer, a payment's mint,
 * an activation...), committed before any envelope carrying it is sent, in the same database
 * transaction that binds its Idempotency-Key or consumes its payment reference. An entry rides in
 * one envelope at a time; it moves to a new one only once its current envelope is failed, so no
 * two envelopes that could both apply ever carry it. The token-moving kinds are the transaction
 * records the API lists. No foreign key to users: financial history outlives the account.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: id(),
    kind: text('kind', { enum: ENTRY_KINDS }).notNull(),
    status: text('status', { enum: ENTRY_STATUSES }).notNull().default('pending'),
    /** The envelope carrying it now (null before the first one is signed). */
    envelopeId: uuid('envelope_id').references(() => ledgerEnvelopes.id),
    /** Its envelope's hash, kept here for the record lists ('' before the first envelope). */
    ledgerTransactionId: text('ledger_transaction_id').notNull().default(''),
    ledger: integer('ledger'),
    /** The account whose operations these are (a wallet, the distribution or the issuing account). */
    fromPublicKey: text('from_public_key').notNull(),
    toPublicKey: text('to_public_key').notNull(),
    /** Integer stroops (1 token = 10^7 stroops): exact, never a float. XLM for activations and channels. */
    amountStroops: bigint('amount_stroops', { mode: 'bigint' }).notNull(),
    assetCode: text('asset_code').notNull(),
    /** The owning user (records); null for the service's own writes. */
    userId: uuid('user_id'),
    paymentReference: text('payment_reference'),
    /** The ledger result code (or reason) of a failed entry; the API maps it to its answer. */
    failureCode: text('failure_code'),
    /** A lease: while it is in the future, the process that created the entry owns its submission. */
    leaseUntil: timestamp('lease_until', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Ascending on purpose: the lists ORDER BY created_at DESC, id DESC, which a backward scan gives
    // (Drizzle's .desc() makes DESC NULLS LAST, an order no scan matches).
    index('ledger_entries_user_records_idx').on(t.userId, t.createdAt, t.id).where(sql`kind in ('transfer', 'payment_mint', 'admin_mint')`),
    index('ledger_entries_records_idx').on(t.createdAt, t.id).where(sql`kind in ('transfer', 'payment_mint', 'admin_mint')`),
    index('ledger_entries_envelope_idx').on(t.envelopeId),
    index('ledger_entries_open_idx').on(t.leaseUntil).where(sql`status in ('pending', 'submitted')`),
    // A payment is minted by exactly one entry; a wallet has one live activation.
    uniqueIndex('ledger_entries_payment_key').on(t.paymentReference).where(sql`kind = 'payment_mint'`),
    uniqueIndex('ledger_entries_activation_key').on(t.userId).where(sql`kind = 'activation' and status <> 'failed'`),
  ],
);

/**
 * The provider's signed webhook events, stored before they are answered: a worker settles each
 * one, with retries, so a buyer who closed the browser is still credited.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: id(),
    event: text('event').notNull(),
    reference: text('reference').notNull(),
    status: text('status', { enum: ['received', 'done', 'failed'] }).notNull().default('received'),
    attempts: integer('attempts').notNull().default(0),
    outcome: text('outcome'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('webhook_events_event_reference_key').on(t.event, t.reference), index('webhook_events_due_idx').on(t.nextAttemptAt).where(sql`status = 'received'`)],
);

/**
 * Mail waiting to be sent (CONTRACT 3): a reset request only queues a row, so the answer is the
 * same, in the same time, whether or not the address is known and whether or not mail works. The
 * message is rendered, and its reset token issued, when it is sent: no credential rests here.
 * Claimed with a lease (FOR UPDATE SKIP LOCKED), so any number of processes run the worker.
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: id(),
    kind: text('kind', { enum: ['password-reset'] }).notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'sent', 'failed'] }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** Due time; while a worker holds the row, the end of its lease. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastError: text('last_error'),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [
    // One pending message per account and kind: repeated requests do not pile up mail.
    uniqueIndex('mail_outbox_pending_key').on(t.userId, t.kind).where(sql`status = 'pending'`),
    index('mail_outbox_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
  ],
);

/**
 * Rate limit counters shared by every process of the service: a fixed window per key (limiter
 * name and client IP), counted by one upsert per request (src/middleware/rate-limit.ts).
 */
export const rateLimitCounters = pgTable('rate_limit_counters', {
  key: text('key').primaryKey(),
  windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
  hits: integer('hits').notNull(),
});
