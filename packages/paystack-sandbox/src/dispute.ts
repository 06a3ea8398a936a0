import { customerFields, type PaystackTransactionData, type SandboxCustomer } from './transaction';

/**
 * A chargeback as the sandbox remembers it, and the `data` Paystack sends for it in the
 * `charge.dispute.create` / `.remind` / `.resolve` webhooks (and its dispute API answers).
 */

/**
 * Paystack's `resolution` values. `declined`: the merchant contested and the chargeback was turned
 * down, the merchant keeps the money (won). `merchant-accepted` / `auto-accepted` (the merchant
 * did not answer in time): the buyer gets `refund_amount` back (lost).
 */
export const DISPUTE_RESOLUTIONS = ['merchant-accepted', 'auto-accepted', 'declined'] as const;
export type DisputeResolution = (typeof DISPUTE_RESOLUTIONS)[number];

export function buyerGetsMoneyBack(resolution: DisputeResolution): boolean {
  return resolution !== 'declined';
}

/** Paystack has more (`awaiting-bank-feedback`, `pending`, `archived`); the sandbox needs open and closed. */
export type DisputeStatus = 'awaiting-merchant-feedback' | 'resolved';

export interface SandboxDispute {
  id: number;
  transactionReference: string;
  refundAmountKobo: number;
  status: DisputeStatus;
  resolution: DisputeResolution | null;
  createdAt: string;
  updatedAt: string;
  dueAt: string;
  resolvedAt: string | null;
}

const RAISED_BY = 'buyer-bank@paystack.test';

/** `transaction` is the disputed charge as verify shows it now: after a lost dispute it reads `reversed`, as in Paystack's sample. */
export function toPaystackDispute(dispute: SandboxDispute, transaction: PaystackTransactionData, customer: SandboxCustomer) {
  return {
    id: dispute.id,
    refund_amount: dispute.refundAmountKobo,
    currency: 'NGN',
    status: dispute.status,
    resolution: dispute.resolution,
    domain: 'test',
    transaction,
    transaction_reference: null,
    category: 'chargeback',
    customer: { ...customerFields(customer), international_format_phone: null },
    bin: '408408',
    last4: '4081',
    dueAt: dispute.dueAt,
    resolvedAt: dispute.resolvedAt,
    evidence: null,
    attachments: null,
    note: null,
    history: [{ status: 'pending', by: RAISED_BY, createdAt: dispute.createdAt }],
    messages: [{ sender: RAISED_BY, body: 'Customer complained about debit without value', createdAt: dispute.createdAt }],
    created_at: dispute.createdAt,
    updated_at: dispute.updatedAt,
  };
}

export type PaystackDisputeData = ReturnType<typeof toPaystackDispute>;
