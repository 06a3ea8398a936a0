import { and, eq, inArray, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { paymentReversals, payments } from '../schema';
import { claimDueRows, msFromNow } from './leased-claims';
import { rowsOf } from './rows';

export type ReversalRow = typeof paymentReversals.$inferSelect;

/**
 * Tokens of a user's payments under an open chargeback (disputed): they stay in the wallet but
 * may not leave it. `userId` is a value or a prepared statement's placeholder.
 */
export function heldStroopsOf(userId: string | Placeholder): SQL<string> {
  return sql<string>`(select coalesce(sum(${payments.tokensStroops}), 0) from ${payments} where ${payments.userId} = ${userId} and ${payments.status} = 'disputed')`;
}

/**
 * What a buyer owes, as SQL: tokens their reversals could not take back, less what their purchases
 * settled. `userId` may be a value, a placeholder or an outer row's column (the subqueries name
 * their own tables apart, so an outer `payments` row is not shadowed).
 */
export function owedStroopsOf(userId: SQL): SQL<string> {
  return sql<string>`((select coalesce(sum(owed.debt_stroops), 0) from payment_reversals owed where owed.user_id = ${userId} and owed.status = 'done')
    - (select coalesce(sum(settled.debt_settled_stroops), 0) from payments settled where settled.user_id = ${userId}))`;
}

export interface NewReversal {
  key: string;
  paymentReference: string;
  cause: ReversalRow['cause'];
  amountKobo: bigint;
}

/** How a reversal ended: what came back from the wallet, what the buyer owes, and why. */
export interface ReversalEnd {
  clawedStroops: bigint;
  debtStroops: bigint;
  note?: string;
}

/**
 * Reversals of paid payments (src/domain/payment-lifecycle.ts) and the debts they leave. Every
 * change is one conditional statement, so concurrent workers, webhooks and processes each make a
 * given change at most once: a reversal is recorded once per provider identity, moves to
 * `clawing` with exactly one journal entry, and ends once.
 */
export class ReversalRepository {
  constructor(private readonly db: Database) {}

  /**
   * Records a reversal once per key, worth `tokensFor(amountKobo)` tokens but never more than what
   * the payment's earlier reversals left of it (two partial refunds cannot take back more than the
   * purchase). The payment's row is locked meanwhile, so concurrent reversals of one payment are
   * capped one after the other. Undefined when the key was recorded already, or the payment is unknown.
   */
  async record(reversal: NewReversal, tokensFor: (kobo: bigint) => bigint): Promise<ReversalRow | undefined> {
    return this.db.transaction(async (tx) => {
      const [payment] = await tx.select().from(payments).where(eq(payments.reference, reversal.paymentReference)).for('update');
      if (!payment) return undefined;
      const [taken] = await tx
        .select({ tokens: sql<string>`coalesce(sum(${paymentReversals.tokensStroops}), 0)` })
        .from(paymentReversals)
        .where(eq(paymentReversals.paymentReference, reversal.paymentReference));
      const left = tokensFor(payment.amountKobo) - BigInt(taken?.tokens ?? '0');
      const wanted = tokensFor(reversal.amountKobo);
      const tokensStroops = wanted < left ? wanted : left > 0n ? left : 0n;
      const [row] = await tx
        .insert(paymentReversals)
        .values({ ...reversal, userId: payment.userId, tokensStroops })
        .onConflictDoNothing({ target: paymentReversals.key })
        .returning();
      return row;
    });
  }

  async listByReference(reference: string): Promise<ReversalRow[]> {
    return this.db.select().from(paymentReversals).where(eq(paymentReversals.paymentReference, reference)).orderBy(paymentReversals.createdAt);
  }

  async all(): Promise<ReversalRow[]> {
    return this.db.select().from(paymentReversals).orderBy(paymentReversals.createdAt);
  }

  /** Waiting reversals that are due, leased to the caller (SKIP LOCKED: one process per reversal at a time). */
  async claimDue(limit: number, leaseMs: number): Promise<ReversalRow[]> {
    const claim = { dueAt: paymentReversals.nextCheckAt, waiting: eq(paymentReversals.status, 'waiting'), alsoSet: sql`attempts = attempts + 1, updated_at = now()` };
    const ids = await claimDueRows(this.db, paymentReversals, claim, limit, leaseMs);
    if (ids.length === 0) return [];
    return this.db.select().from(paymentReversals).where(inArray(paymentReversals.id, ids));
  }

  async retryLater(id: string, delayMs: number, note: string): Promise<void> {
    await this.db
      .update(paymentReversals)
      .set({ note, nextCheckAt: msFromNow(delayMs), updatedAt: new Date() })
      .where(and(eq(paymentReversals.id, id), eq(paymentReversals.status, 'waiting')));
  }


  /** Ends a waiting reversal without a clawback (nothing was minted, or the wallet holds none of it). */
  async endWithoutClawback(id: string, end: ReversalEnd): Promise<boolean> {
    const rows = await this.db
      .update(paymentReversals)
      .set({ status: 'done', ...end, updatedAt: new Date() })
      .where(and(eq(paymentReversals.id, id), eq(paymentReversals.status, 'waiting')))
      .returning({ id: paymentReversals.id });
    return rows.length > 0;
  }

  /**
   * Takes the buyer's debt lock until the caller's transaction ends: two purchases settling at once
   * queue here, so they never settle the same debt twice.
   */
  async lockDebtOf(tx: Executor, userId: string): Promise<void> {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`debt:${userId}`}))`);
  }

  /** What the buyer owes: tokens their reversals could not take back, less what their purchases settled. */
  async debtOf(executor: Executor, userId: string): Promise<bigint> {
    const result = await executor.execute(sql`select ${owedStroopsOf(sql`${userId}`)} as debt`);
    const [row] = rowsOf<{ debt: string | number }>(result);
    return BigInt(row?.debt ?? 0);
  }

  /** What the user owes now (debtOf, outside any transaction): a withdrawal may not cash out tokens while any are owed. */
  owedBy(userId: string): Promise<bigint> {
    return this.debtOf(this.db, userId);
  }

  /** Tokens a user's wallet holds but may not spend: those of their payments under an open chargeback. */
  async heldFor(userId: string): Promise<bigint> {
    const [row] = await this.db.select({ held: heldStroopsOf(userId) }).from(sql`(select 1) as one`);
    return BigInt(row?.held ?? '0');
  }
}

// The journal's settlement of clawback entries: each runs in the transaction that settles the
// clawback's envelope (src/ledger/envelope-lifecycle.ts, through the clawback kind).

/** The ledger applied these clawbacks: their reversals are done, and what did not come back is debt. */
export async function clawbacksConfirmed(tx: Executor, entries: { reversalId: string | null; entryId: string; amountStroops: bigint }[]): Promise<void> {
  for (const e of entries) {
    if (!e.reversalId) continue;
    await tx
      .update(paymentReversals)
      .set({ status: 'done', clawedStroops: e.amountStroops, debtStroops: sql`greatest(${paymentReversals.tokensStroops} - ${e.amountStroops}, 0)`, updatedAt: new Date() })
      .where(and(eq(paymentReversals.id, e.reversalId), eq(paymentReversals.status, 'clawing'), eq(paymentReversals.entryId, e.entryId)));
  }
}

/**
 * The ledger refused a clawback. `op_underfunded`: the wallet spent some of the tokens after they
 * were counted, so the reversal waits again and takes what is there now. Anything else (the
 * trustline predates clawback: `op_not_clawback_enabled`; no trustline) means nothing can come
 * back: all of it becomes the buyer's debt.
 */
export async function clawbackRefused(tx: Executor, reversalId: string, entryId: string, code: string): Promise<void> {
  const mine = and(eq(paymentReversals.id, reversalId), eq(paymentReversals.status, 'clawing'), eq(paymentReversals.entryId, entryId));
  if (code === 'op_underfunded') {
    await tx.update(paymentReversals).set({ status: 'waiting', entryId: null, nextCheckAt: new Date(), note: `The ledger refused the clawback (${code})`, updatedAt: new Date() }).where(mine);
    return;
  }
  await tx
    .update(paymentReversals)
    .set({ status: 'done', clawedStroops: 0n, debtStroops: sql`${paymentReversals.tokensStroops}`, note: `The ledger refused the clawback (${code})`, updatedAt: new Date() })
    .where(mine);
}

/**
 * Takes a waiting reversal for its clawback (waiting -> clawing, with the clawback's entry), in the
 * transaction that commits that entry (src/ledger/entry-commit.ts). False when another caller did first.
 */
export async function reversalClawbackStarted(tx: Executor, reversalId: string, entryId: string): Promise<boolean> {
  const rows = await tx
    .update(paymentReversals)
    .set({ status: 'clawing', entryId, updatedAt: new Date() })
    .where(and(eq(paymentReversals.id, reversalId), eq(paymentReversals.status, 'waiting')))
    .returning({ id: paymentReversals.id });
  return rows.length > 0;
}
