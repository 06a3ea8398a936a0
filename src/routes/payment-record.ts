import { z } from 'zod';
import type { PaymentRow } from '../db/repositories/payment.repository';
import { formatKobo, formatStroops } from '../domain/amounts';
import { PAYMENT_STATES } from '../domain/payment-lifecycle';
import { paginationQuery } from '../http/schemas';

/** GET /api/admin/payments' query: a page, and optionally one state. */
export const paymentListQuery = paginationQuery.extend({ status: z.enum(PAYMENT_STATES).optional() }).strict();

/** A purchase as operators see it: money as decimal strings, never floats. */
export const adminPaymentItem = z.object({
  reference: z.string(),
  userId: z.uuid(),
  status: z.enum(PAYMENT_STATES),
  amountNaira: z.string().describe('Naira, as a decimal string (kobo exact)'),
  currency: z.string(),
  tokens: z.string().nullable().describe('Tokens minted or being minted, as a decimal string; null until the mint is in the journal'),
  destinationPublicKey: z.string().nullable(),
  mintTxHash: z.string().nullable(),
  failureReason: z.string().nullable(),
  paidAt: z.string().nullable(),
  nextCheckAt: z.string().nullable().describe('When the provider sweep next looks at it; null once it stopped'),
  checkAttempts: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export function toAdminPayment(p: PaymentRow): z.output<typeof adminPaymentItem> {
  return {
    reference: p.reference,
    userId: p.userId,
    status: p.status,
    amountNaira: formatKobo(p.amountKobo),
    currency: p.currency,
    tokens: p.tokensStroops === null ? null : formatStroops(p.tokensStroops),
    destinationPublicKey: p.destinationPublicKey,
    mintTxHash: p.mintTxHash,
    failureReason: p.failureReason,
    paidAt: p.paidAt?.toISOString() ?? null,
    nextCheckAt: p.nextCheckAt?.toISOString() ?? null,
    checkAttempts: p.checkAttempts,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
