import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { WITHDRAWAL_STATES } from '../domain/withdrawal-lifecycle';
import { createdAt, id, updatedAt } from './columns';

// Cash-out's two tables: where a user's Naira go, and each withdrawal's life (its states and moves
// are src/domain/withdrawal-lifecycle.ts).

/**
 * A user's bank accounts for payouts, resolved by the provider (the name is the bank's) and
 * registered with it as a transfer recipient. Deleting one keeps the row (`deletedAt`): a
 * withdrawal in flight names it, and its recipient stays what the provider pays.
 */
export const payoutAccounts = pgTable(
  'payout_accounts',
  {
    id: id(),
    userId: uuid('user_id').notNull(),
    bankCode: text('bank_code').notNull(),
    bankName: text('bank_name').notNull(),
    accountNumber: text('account_number').notNull(),
    /** The name the bank holds for the account, as the provider resolved it. */
    accountName: text('account_name').notNull(),
    /** The provider's `RCP_...` for the account: what a transfer pays to. */
    recipientCode: text('recipient_code').notNull(),
    createdAt: createdAt(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('payout_accounts_live_key').on(t.userId, t.bankCode, t.accountNumber).where(sql`deleted_at is null`)],
);

/**
 * Tokens sold back for Naira paid to a bank account. One row per request (its Idempotency-Key is
 * unique per user), one provider transfer reference per row, fixed at creation and stored before
 * any call, and at most one live debit and one live refund journal entry (ledger_entries'
 * partial unique indexes on withdrawal_id).
 */
export const withdrawals = pgTable(
  'withdrawals',
  {
    id: id(),
    userId: uuid('user_id').notNull(),
    payoutAccountId: uuid('payout_account_id').notNull(),
    /** The account as it was when the withdrawal was made (the provider pays this recipient). */
    recipientCode: text('recipient_code').notNull(),
    bankName: text('bank_name').notNull(),
    accountNumber: text('account_number').notNull(),
    accountName: text('account_name').notNull(),
    /** The wallet the tokens leave and come back to. */
    walletPublicKey: text('wallet_public_key').notNull(),
    /** Tokens taken from the wallet, in stroops. */
    amountStroops: bigint('amount_stroops', { mode: 'bigint' }).notNull(),
    /** Naira paid for them, in kobo: amountStroops / TOKENS_PER_NAIRA exactly. */
    nairaKobo: bigint('naira_kobo', { mode: 'bigint' }).notNull(),
    /** The provider transfer's reference: derived from the withdrawal, the one reference it is ever paid under. */
    reference: text('reference').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** The validated request's hash: the same key with another body is refused. */
    requestHash: text('request_hash').notNull(),
    status: text('status', { enum: WITHDRAWAL_STATES }).notNull().default('requested'),
    /** The provider's `TRF_...` once a transfer is known (finalize takes it). */
    transferCode: text('transfer_code'),
    /** The provider's last known status of the transfer. */
    providerStatus: text('provider_status'),
    /** POST /transfer calls made (counted before each goes out). */
    transferCalls: integer('transfer_calls').notNull().default(0),
    /** Of those, the ones the provider refused outright, creating nothing. A transfer may exist while calls exceed these. */
    cleanRefusals: integer('clean_refusals').notNull().default(0),
    /** Why the tokens came back or never left (the provider's status, a refusal, an admin's cancel). */
    reason: text('reason'),
    /** When it entered its current status (a move to the status it has already keeps it): the operators' gauges read its age. */
    statusSince: timestamp('status_since', { withTimezone: true }).notNull().defaultNow(),
    /** When the sweep next looks at it (a lease while one does). */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    /** When the provider first reported the transfer successful. */
    paidAt: timestamp('paid_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('withdrawals_reference_key').on(t.reference),
    uniqueIndex('withdrawals_idempotency_key').on(t.userId, t.idempotencyKey),
    index('withdrawals_user_idx').on(t.userId, t.createdAt),
    index('withdrawals_status_idx').on(t.status, t.createdAt),
    index('withdrawals_due_idx')
      .on(t.nextCheckAt)
      .where(sql`status in ('requested', 'debited', 'sending', 'waiting_float', 'processing', 'awaiting_otp', 'refund_due')`),
  ],
);
