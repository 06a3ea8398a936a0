import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { payments, webhookEvents } from '../db/schema';
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
  /** Provider events set aside after their last attempt, or kept for an operator (refunds, disputes). */
  webhookEventsSetAside: number;
}

export async function readPaymentAlerts(db: Database): Promise<PaymentAlerts> {
  const [[oldest], [unchecked], [setAside]] = await Promise.all([
    db
      .select({ seconds: sql<string | null>`extract(epoch from now() - min(${payments.paidAt}))` })
      .from(payments)
      .where(inArray(payments.status, ['paid', 'minting'])),
    db.select({ n: count() }).from(payments).where(and(eq(payments.status, 'initialized'), isNull(payments.nextCheckAt))),
    db.select({ n: count() }).from(webhookEvents).where(eq(webhookEvents.status, 'failed')),
  ]);
  return {
    paidUnmintedOldestSeconds: Math.max(0, Math.floor(Number(oldest?.seconds ?? 0))),
    initializedUnchecked: Number(unchecked?.n ?? 0),
    webhookEventsSetAside: Number(setAside?.n ?? 0),
  };
}
