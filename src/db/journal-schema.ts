import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { ENVELOPE_STATES } from '../domain/envelope-lifecycle';
import { createdAt, id, updatedAt } from './columns';

// The ledger journal's two tables (src/ledger/journal.ts tells the story they keep).


/**
 * The journal's signed envelopes: every transaction the service ever signs is stored here before
 * it is sent; its states and moves are src/domain/envelope-lifecycle.ts. Only these bytes are ever
 * resubmitted.
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
    /**
     * The first and last ledgers it can enter (its ledgerBounds; the first was read from the ledger
     * API before signing). Null for an envelope signed before envelopes were ledger-bounded.
     */
    firstLedger: integer('first_ledger'),
    lastLedger: integer('last_ledger'),
    /**
     * The envelope to send: a fee bump around the signed inner transaction. `hash` above is the
     * inner transaction's, which every fee bump of it shares and Horizon finds it under: the journal
     * tracks that one, so raising the bid never makes a second transaction.
     */
    envelopeXdr: text('envelope_xdr').notNull(),
    /** The current fee bump's own hash (null for an envelope stored before fee bumps). */
    outerHash: text('outer_hash'),
    /** The hashes of the fee bumps it had before the current one: any of them may be the one that applies. */
    priorOuterHashes: text('prior_outer_hashes').array().notNull().default(sql`'{}'::text[]`),
    /** The current fee bump's whole fee bid, in stroops (what the service accepts to pay at most). */
    bidStroops: bigint('bid_stroops', { mode: 'bigint' }),
    /** The ledger Horizon had closed when the current bid was first seen still waiting: bumps count ledgers from it. */
    bidLedger: integer('bid_ledger'),
    /** How many times the bid was raised. */
    bumps: integer('bumps').notNull().default(0),
    /** What the network charged, once applied (stroops). */
    feeCharged: bigint('fee_charged', { mode: 'bigint' }),
    status: text('status', { enum: ENVELOPE_STATES }).notNull().default('pending'),
    /** How many times it was handed to Horizon; a refusal is final only for the first. */
    submitCount: integer('submit_count').notNull().default(0),
    ledger: integer('ledger'),
    /** Result codes or the reason it failed. */
    failure: text('failure'),
    /** Not before this instant does a worker look at it again: a lease while someone works on it. */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('ledger_envelopes_open_idx').on(t.nextCheckAt).where(sql`status in ('pending', 'submitted')`)],
);

/** The kinds of ledger write, one file each under src/ledger/kinds/ (what each means is there, not here). */
export const ENTRY_KINDS = ['transfer', 'payment_mint', 'admin_mint', 'issue', 'activation', 'channel_funding', 'channel_merge', 'trustline', 'clawback', 'issuer_flags', 'withdrawal', 'withdrawal_refund'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];
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
    /** A clawback's reversal (payment_reversals.id). */
    reversalId: uuid('reversal_id'),
    /** A withdrawal's debit or refund (withdrawals.id). */
    withdrawalId: uuid('withdrawal_id'),
    /** The approval an admin mint or issue above MINT_APPROVAL_THRESHOLD was written for (approvals.id). */
    approvalId: uuid('approval_id'),
    /** The ledger result code (or reason) of a failed entry; the API maps it to its answer. */
    failureCode: text('failure_code'),
    /** A lease: while it is in the future, the process that created the entry owns its submission. */
    leaseUntil: timestamp('lease_until', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // The record kinds (KindRegistry.recordKinds: tests/unit/entry-kinds.test.ts holds the three equal).
    // Ascending on purpose: the lists ORDER BY created_at DESC, id DESC, which a backward scan gives
    // (Drizzle's .desc() makes DESC NULLS LAST, an order no scan matches).
    index('ledger_entries_user_records_idx').on(t.userId, t.createdAt, t.id).where(sql`kind in ('transfer', 'payment_mint', 'admin_mint', 'clawback', 'withdrawal', 'withdrawal_refund')`),
    index('ledger_entries_records_idx').on(t.createdAt, t.id).where(sql`kind in ('transfer', 'payment_mint', 'admin_mint', 'clawback', 'withdrawal', 'withdrawal_refund')`),
    // What reached a wallet, for its owner's list (a transfer another user sent them): user_id last,
    // so the list's count of those (the owner's own records are counted by user_id) reads the index only.
    index('ledger_entries_to_records_idx').on(t.toPublicKey, t.createdAt, t.id, t.userId).where(sql`kind in ('transfer', 'payment_mint', 'admin_mint', 'clawback', 'withdrawal', 'withdrawal_refund')`),
    index('ledger_entries_envelope_idx').on(t.envelopeId),
    index('ledger_entries_open_idx').on(t.leaseUntil).where(sql`status in ('pending', 'submitted')`),
    // A payment is minted by exactly one entry; a wallet has one live activation.
    // One live mint per payment; a mint the ledger refused as "not yet" (failed) lets the next one in.
    uniqueIndex('ledger_entries_payment_key').on(t.paymentReference).where(sql`kind = 'payment_mint' and status <> 'failed'`),
    // One live clawback per reversal; a clawback refused (the wallet spent the tokens meanwhile) lets the next one in.
    uniqueIndex('ledger_entries_reversal_key').on(t.reversalId).where(sql`kind = 'clawback' and status <> 'failed'`),
    // One live debit and one live refund per withdrawal: its tokens leave once and come back at most once.
    uniqueIndex('ledger_entries_withdrawal_key').on(t.withdrawalId).where(sql`kind = 'withdrawal' and status <> 'failed'`),
    uniqueIndex('ledger_entries_withdrawal_refund_key').on(t.withdrawalId).where(sql`kind = 'withdrawal_refund' and status <> 'failed'`),
    // One live entry per approval, behind its claim (approvals.entry_id): an approved mint or issue is written once.
    uniqueIndex('ledger_entries_approval_key').on(t.approvalId).where(sql`approval_id is not null and status <> 'failed'`),
    uniqueIndex('ledger_entries_activation_key').on(t.userId).where(sql`kind = 'activation' and status <> 'failed'`),
  ],
);
