import type { SandboxCustomer, SandboxTransaction } from './transaction';

/**
 * A refund as the sandbox remembers it, and the shapes Paystack shows for it: the API's refund
 * object (create, fetch, list) and the `data` of the `refund.*` webhooks. Those two differ at
 * Paystack and differ here the same way (see `toRefundEventData`).
 */

/**
 * Paystack's refund statuses run pending -> processing -> processed (or failed / needs-attention).
 * The sandbox processes a refund as soon as it is queued, so only the two ends are ever stored.
 */
export type RefundStatus = 'pending' | 'processed';

export interface SandboxRefund {
  id: number;
  transactionReference: string;
  amountKobo: number;
  status: RefundStatus;
  /** The processor's reference, set once the money has moved (Paystack sends `null` before). */
  refundReference: string | null;
  createdAt: string;
  updatedAt: string;
  refundedAt: string | null;
}

/** Paystack's integration id appears in refund objects; the sandbox is one integration. */
export const SANDBOX_INTEGRATION_ID = 100_001;

const REFUNDED_BY = 'sandbox@paystack.test';

/** Paystack's refund object. `expandTransaction` as in the create response; fetch and list give the id only. */
export function toPaystackRefund(refund: SandboxRefund, tx: SandboxTransaction, expandTransaction: boolean) {
  return {
    id: refund.id,
    integration: SANDBOX_INTEGRATION_ID,
    domain: 'test',
    transaction: expandTransaction
      ? { id: tx.id, domain: 'test', reference: tx.reference, amount: tx.amountKobo, paid_at: tx.paidAt, channel: 'card', currency: tx.currency }
      : tx.id,
    dispute: null,
    settlement: null,
    amount: refund.amountKobo,
    deducted_amount: refund.status === 'processed' ? refund.amountKobo : 0,
    fully_deducted: refund.status === 'processed',
    currency: tx.currency,
    channel: 'card',
    status: refund.status,
    refunded_by: REFUNDED_BY,
    refunded_at: refund.refundedAt,
    expected_at: refund.createdAt,
    customer_note: `Refund for transaction ${tx.reference}`,
    merchant_note: `Refund for transaction ${tx.reference} by ${REFUNDED_BY}`,
    createdAt: refund.createdAt,
    updatedAt: refund.updatedAt,
  };
}

/**
 * The `data` of `refund.pending` / `refund.processed`, after Paystack's documented samples: the
 * payment is named by `transaction_reference`, the refund by `refund_reference` (null until
 * processed), and `amount` is a string of kobo digits, as in those samples (a receiver should
 * accept a number too: Paystack's `refund.failed` sample sends one). Paystack's samples carry the
 * refund's own `id` only on `refund.needs-attention`, as a string; the sandbox sends it on every
 * refund event, the same way, so a receiver can tie the event to `GET /refund/:id`.
 */
export function toRefundEventData(refund: SandboxRefund, customer: SandboxCustomer) {
  return {
    status: refund.status,
    transaction_reference: refund.transactionReference,
    refund_reference: refund.refundReference,
    amount: String(refund.amountKobo),
    currency: 'NGN',
    processor: 'sandbox',
    customer: { first_name: null, last_name: null, email: customer.email },
    integration: SANDBOX_INTEGRATION_ID,
    domain: 'test',
    id: String(refund.id),
  };
}

export type PaystackRefundData = ReturnType<typeof toPaystackRefund>;
export type RefundEventData = ReturnType<typeof toRefundEventData>;
