import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { paymentReversals, payments, webhookEvents } from '../db/schema';
import { rowsOf } from '../db/repositories/rows';
import { PAYMENT_STATES, type PaymentState } from '../domain/payment-lifecycle';

export type PaymentStatus = PaymentState;
export const PAYMENT_STATUSES: readonly PaymentStatus[] = PAYMENT_STATES;

/**
 * Payment records per status, every status present (0 when none). `paid` and `minting` ones are
 * paid and not yet minted: the sweep's and the reconciler's work.
 */
export async function countPaymentsByStatus(db: Database): Promise<Record<PaymentStatus, number>> {
  const rows = await db.select({ status: payments.status, n: count() }).from(payments).groupBy(payments.status);
  const counts = Object.fromEntries(PAYMENT_STATUSES.map((s) => [s, 0])) as Record<PaymentStatus, number>;
  for (const row of rows) counts[row.status] = Number(row.n);
  return counts;
}

/** What an operator is alerted on (README: "Payment alerts"). */
export interface PaymentAlerts {
  /** Age of the oldest payment paid and not yet minted (0 when none). */
  paidUnmintedOldestSeconds: number;
  /** Intents the sweep stopped asking about without a final answer from the provider. */
  initializedUnchecked: number;
  /** Provider events set aside after their last attempt. */
  webhookEventsSetAside: number;
  /** Age of the oldest reversal whose tokens are not taken back (or owed) yet (0 when none). */
  reversalOpenOldestSeconds: number;
  /** Tokens buyers owe (reversals their wallets could not give back, less what purchases settled), in stroops. */
  debtStroops: number;
}

export async function readPaymentAlerts(db: Database): Promise<PaymentAlerts> {
  const [[oldest], [unchecked], [setAside], [reversal], [debt]] = await Promise.all([
    db
      .select({ seconds: sql<string | null>`extract(epoch from now() - min(${payments.paidAt}))` })
      .from(payments)
      .where(inArray(payments.status, ['paid', 'minting'])),
    db.select({ n: count() }).from(payments).where(and(eq(payments.status, 'initialized'), isNull(payments.nextCheckAt))),
    db.select({ n: count() }).from(webhookEvents).where(eq(webhookEvents.status, 'failed')),
    db
      .select({ seconds: sql<string | null>`extract(epoch from now() - min(${paymentReversals.createdAt}))` })
      .from(paymentReversals)
      .where(inArray(paymentReversals.status, ['waiting', 'clawing'])),
    db
      .execute(sql`select (select coalesce(sum(debt_stroops), 0) from payment_reversals where status = 'done') - (select coalesce(sum(debt_settled_stroops), 0) from payments) as stroops`)
      .then((result) => rowsOf<{ stroops: string | number }>(result)),
  ]);
  return {
    paidUnmintedOldestSeconds: Math.max(0, Math.floor(Number(oldest?.seconds ?? 0))),
    initializedUnchecked: Number(unchecked?.n ?? 0),
    webhookEventsSetAside: Number(setAside?.n ?? 0),
    reversalOpenOldestSeconds: Math.max(0, Math.floor(Number(reversal?.seconds ?? 0))),
    // A gauge is a double: exact up to 2^53 stroops (900 million tokens), far past any debt here.
    debtStroops: Number(debt?.stroops ?? 0),
  };
}
