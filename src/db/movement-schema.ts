import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { MOVEMENT_OPERATIONS } from '../domain/ledger-movement';
export type { MovementOperation } from '../domain/ledger-movement';
import { createdAt, id, updatedAt } from './columns';

// What the ledger follower keeps (src/ledger/ledger-follower.ts, CONTRACT.md section 12): the
// movements into and out of the service's wallets that someone else made, where it has read to,
// and the ledgers it could no longer read.

/**
 * A movement seen on the ledger that is not the service's own write (those are journal entries,
 * src/db/journal-schema.ts): a payment to a user from an outside account, what a user sent with
 * their key in another wallet. One row per operation, unique by (transaction, operation index): a
 * page read twice, by two processes or after a crash, records it once. No foreign key to users:
 * financial history outlives the account.
 */
export const ledgerMovements = pgTable(
  'ledger_movements',
  {
    id: id(),
    /** The hash of the transaction as it applied (a fee bump's own hash when it was one). */
    ledgerTransactionId: text('ledger_transaction_id').notNull(),
    /** Its index among the transaction's operations, from 0. */
    operationIndex: integer('operation_index').notNull(),
    operationType: text('operation_type', { enum: MOVEMENT_OPERATIONS }).notNull(),
    ledger: integer('ledger').notNull(),
    fromPublicKey: text('from_public_key').notNull(),
    toPublicKey: text('to_public_key').notNull(),
    /** What reached `to`, in integer stroops; `XLM` for the native asset. */
    amountStroops: bigint('amount_stroops', { mode: 'bigint' }).notNull(),
    assetCode: text('asset_code').notNull(),
    /** What left `from`, when a path payment sent another amount than arrived (null: the same). */
    sentStroops: bigint('sent_stroops', { mode: 'bigint' }),
    sentAssetCode: text('sent_asset_code'),
    /** The users whose wallets sent and received it (null: not a user's wallet). */
    fromUserId: uuid('from_user_id'),
    toUserId: uuid('to_user_id'),
    /** The record's owner as transaction records name one: the sender's user when both are users. */
    userId: uuid('user_id'),
    /** When its ledger closed: a movement happened then, whenever the service read it. */
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('ledger_movements_operation_key').on(t.ledgerTransactionId, t.operationIndex),
    // Ascending on purpose, as the journal's record indexes (journal-schema.ts says why).
    index('ledger_movements_from_user_idx').on(t.fromUserId, t.createdAt, t.id).where(sql`from_user_id is not null`),
    index('ledger_movements_to_user_idx').on(t.toUserId, t.createdAt, t.id).where(sql`to_user_id is not null`),
    index('ledger_movements_created_idx').on(t.createdAt, t.id),
  ],
);

/**
 * Where the follower has read to: one row, taken by one process at a time through its lease.
 * `cursor` is the ledger API's own paging position (a TOID); `ledger` the last ledger wholly read.
 */
export const ledgerFollowCursor = pgTable('ledger_follow_cursor', {
  name: text('name').primaryKey(),
  cursor: text('cursor'),
  ledger: integer('ledger').notNull(),
  /** The process that follows now, and until when nobody else may. */
  leaseOwner: text('lease_owner'),
  leaseUntil: timestamp('lease_until', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: updatedAt(),
});

/**
 * Ledgers the follower could not read: the ledger API no longer held them (the service was down
 * longer than its history window). Movements in them may be missing from the records; each gap is
 * reported (ledger:audit, /metrics) until an operator resolves it.
 */
export const ledgerFollowGaps = pgTable(
  'ledger_follow_gaps',
  {
    id: id(),
    firstLedger: integer('first_ledger').notNull(),
    lastLedger: integer('last_ledger').notNull(),
    createdAt: createdAt(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    /** What the operator did about it (a reconciliation against another history source, say). */
    resolution: text('resolution'),
  },
  (t) => [uniqueIndex('ledger_follow_gaps_first_key').on(t.firstLedger)],
);
