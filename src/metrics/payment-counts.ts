import { count } from 'drizzle-orm';
import type { Database } from '../db/client';
import { payments } from '../db/schema';

export type PaymentStatus = (typeof payments.status.enumValues)[number];
export const PAYMENT_STATUSES: readonly PaymentStatus[] = payments.status.enumValues;

/**
 * Payment records per status, every status present (0 when none). `verified` ones are paid and
 * not yet minted: the reconciler's work list.
 */
export async function countPaymentsByStatus(db: Database): Promise<Record<PaymentStatus, number>> {
  const rows = await db.select({ status: payments.status, n: count() }).from(payments).groupBy(payments.status);
  const counts = Object.fromEntries(PAYMENT_STATUSES.map((s) => [s, 0])) as Record<PaymentStatus, number>;
  for (const row of rows) counts[row.status] = Number(row.n);
  return counts;
}
