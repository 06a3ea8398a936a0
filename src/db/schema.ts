import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { PAYMENT_STATES } from '../domain/payment-lifecycle';
import { createdAt, credentials, id, sealedSecret, updatedAt } from './columns';

export * from './admin-mfa-schema';
export * from './approval-schema';
export * from './journal-schema';
export * from './withdrawal-schema';
export * from './admin-log-schema';
export * from './movement-schema';
export * from './event-schema';

export const users = pgTable(
  'users',
  {
    id: id(),
    username: text('username').notNull(),
    ...credentials(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
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
    /** See src/domain/payment-lifecycle.ts for the states and the moves between them. */
    status: text('status', { enum: PAYMENT_STATES }).notNull().default('initialized'),
    tokensStroops: bigint('tokens_stroops', { mode: 'bigint' }),
    destinationPublicKey: text('destination_public_key'),
    mintTxHash: text('mint_tx_hash'),
    /** Why a payment is never minted (a mismatch, the ledger's refusal...); null otherwise. */
    failureReason: text('failure_reason'),
    providerPayload: jsonb('provider_payload'),
    /** When the provider sweep next asks about (or finishes) this payment; null once it stops. */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }),
    /** How many times the sweep has looked at it. */
    checkAttempts: integer('check_attempts').notNull().default(0),
    /** Mints the ledger refused as "not yet" (the wallet was not there); see MINT_NOT_YET_LIMIT. */
    mintNotYetCount: integer('mint_not_yet_count').notNull().default(0),
    /** When the provider's success was recorded (the reference consumed). */
    paidAt: timestamp('paid_at', { withTimezone: true }),
    /**
     * How much of the buyer's debt (tokens a reversal could not take back) this purchase settled
     * instead of minting them: decided once, under the buyer's lock, before its mint is written;
     * null until then. `tokensStroops` is what was minted to the wallet after it.
     */
    debtSettledStroops: bigint('debt_settled_stroops', { mode: 'bigint' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('payments_status_idx').on(t.status),
    index('payments_user_idx').on(t.userId),
    index('payments_due_check_idx').on(t.nextCheckAt).where(sql`status in ('initialized', 'paid')`),
  ],
);

export const REVERSAL_STATUSES = ['waiting', 'clawing', 'done'] as const;
export type ReversalStatus = (typeof REVERSAL_STATUSES)[number];

/**
 * Money that went back to a buyer after their payment (a processed refund, a lost chargeback): one
 * row per reversal, keyed by the provider's identity for it, so a redelivered event never takes
 * tokens back twice and a second partial refund does. waiting (for the mint to finish, or for a
 * clawback to be written) -> clawing (its clawback is a journal entry) -> done: `clawedStroops`
 * came back from the wallet, `debtStroops` (what the wallet no longer held, or all of it when its
 * trustline predates clawback) is owed by the buyer.
 */
export const paymentReversals = pgTable(
  'payment_reversals',
  {
    id: id(),
    /** `refund:<provider refund id>` or `dispute:<provider dispute id>`. */
    key: text('key').notNull(),
    paymentReference: text('payment_reference').notNull(),
    userId: uuid('user_id').notNull(),
    cause: text('cause', { enum: ['refund', 'chargeback'] }).notNull(),
    /** The Naira that went back, in kobo. */
    amountKobo: bigint('amount_kobo', { mode: 'bigint' }).notNull(),
    /** The tokens that money bought, to take back (fixed when the reversal is recorded). */
    tokensStroops: bigint('tokens_stroops', { mode: 'bigint' }).notNull(),
    status: text('status', { enum: REVERSAL_STATUSES }).notNull().default('waiting'),
    /** The clawback's journal entry while clawing (and the one that settled it). */
    entryId: uuid('entry_id'),
    clawedStroops: bigint('clawed_stroops', { mode: 'bigint' }),
    debtStroops: bigint('debt_stroops', { mode: 'bigint' }),
    /** Why nothing (or not all) came back, when the ledger said so. */
    note: text('note'),
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('payment_reversals_key').on(t.key),
    index('payment_reversals_reference_idx').on(t.paymentReference),
    index('payment_reversals_user_idx').on(t.userId),
    index('payment_reversals_due_idx').on(t.nextCheckAt).where(sql`status = 'waiting'`),
  ],
);

/**
 * The provider's signed webhook events, stored before they are answered: a worker settles each
 * one, with retries, until its outcome is final, so a buyer who closed the browser is still
 * credited. One row per provider event (`eventKey`: the event's name and the id of the object it
 * is about), so a redelivery is recognised and a second refund of one payment is not.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: id(),
    event: text('event').notNull(),
    /** `<event>:<data.id>`, or the body's SHA-256 when the event names no object id. */
    eventKey: text('event_key').notNull(),
    reference: text('reference').notNull(),
    /** received (open) -> done (final outcome) | failed (set aside after its last attempt; a redelivery reopens it). */
    status: text('status', { enum: ['received', 'done', 'failed'] }).notNull().default('received'),
    attempts: integer('attempts').notNull().default(0),
    outcome: text('outcome'),
    /** The event's `data`, as the provider signed it. */
    payload: jsonb('payload'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('webhook_events_event_key').on(t.eventKey),
    index('webhook_events_reference_idx').on(t.reference),
    index('webhook_events_due_idx').on(t.nextAttemptAt).where(sql`status = 'received'`),
  ],
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
    /**
     * Set by a request that finds the message pending, cleared when a worker claims it. Still set
     * when the message is done, a request came after its link was written: it gets a message of its own.
     */
    requestedAgain: boolean('requested_again').notNull().default(false),
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
