import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { APPROVAL_ACTIONS, APPROVAL_LIFETIME_HOURS, APPROVAL_STATES } from '../domain/approval-lifecycle';
import { createdAt, id, updatedAt } from './columns';

/**
 * Money creation that waits for a second admin (src/domain/approval-lifecycle.ts): one row per
 * mint-tokens or create-asset request above MINT_APPROVAL_THRESHOLD, holding the request as data.
 * Approved, it is written through the journal once: its entry claims the row (`entry_id`, set in
 * the transaction that commits the entry), and ledger_entries' partial unique index on
 * approval_id allows one live entry per approval.
 */
export const approvals = pgTable(
  'approvals',
  {
    id: id(),
    action: text('action', { enum: APPROVAL_ACTIONS }).notNull(),
    /** The mint's user (null for an issue, which goes to the distribution account). */
    userId: uuid('user_id'),
    /** Integer stroops (1 token = 10^7 stroops): exact, never a float. */
    amountStroops: bigint('amount_stroops', { mode: 'bigint' }).notNull(),
    assetCode: text('asset_code').notNull(),
    /** The admin who asked; never the one who approves. */
    requestedBy: uuid('requested_by').notNull(),
    status: text('status', { enum: APPROVAL_STATES }).notNull().default('pending'),
    decidedBy: uuid('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    /** Created + 24 hours, by the database's clock (the one every expiry is judged by). */
    expiresAt: timestamp('expires_at', { withTimezone: true })
      .notNull()
      .default(sql.raw(`now() + interval '${APPROVAL_LIFETIME_HOURS} hours'`)),
    /**
     * The journal entry that writes it, set in the transaction that commits the entry (no foreign
     * key: the claim is taken before the entry is inserted). An entry dropped unsent is deleted
     * (JournalRepository.abandon): the next approve finds it gone, releases it and writes again.
     */
    entryId: uuid('entry_id'),
    /** The request's Idempotency-Key (its caller is requested_by): a retry answers this approval, another body is 409. */
    idempotencyRoute: text('idempotency_route'),
    idempotencyKey: text('idempotency_key'),
    /** sha256 of the validated body, as the journal's keys hold it. */
    requestHash: text('request_hash'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('approvals_status_idx').on(t.status, t.createdAt),
    uniqueIndex('approvals_entry_key').on(t.entryId),
    uniqueIndex('approvals_idempotency_key').on(t.requestedBy, t.idempotencyRoute, t.idempotencyKey),
  ],
);
