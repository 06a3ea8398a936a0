import { SANDBOX_INTEGRATION_ID } from './refund';

/**
 * A payout from the sandbox's balance to a bank account, as the sandbox remembers it, and the
 * shapes Paystack shows for it (Transfers API and `transfer.*` webhooks). Amounts are integer kobo.
 */

/**
 * Paystack's transfer statuses. `pending`, `otp` and `received` are not final; the others are,
 * except that `success` may still become `reversed` (the bank sent the money back).
 */
export const PENDING_TRANSFER_STATUSES = ['pending', 'otp', 'received'] as const;
export const FINAL_TRANSFER_STATUSES = ['success', 'failed', 'reversed', 'abandoned', 'blocked', 'rejected'] as const;
export const TRANSFER_STATUSES = [...PENDING_TRANSFER_STATUSES, ...FINAL_TRANSFER_STATUSES] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

export function isPendingTransfer(status: TransferStatus): boolean {
  return (PENDING_TRANSFER_STATUSES as readonly string[]).includes(status);
}

/** The money left the balance for good only on these; every other final status gives it back. */
export function keepsTheMoney(status: TransferStatus): boolean {
  return status === 'success' || isPendingTransfer(status);
}

/** A `nuban` transfer recipient: one per account number and bank, as Paystack keeps it. */
export interface SandboxRecipient {
  id: number;
  recipientCode: string;
  name: string;
  accountNumber: string;
  accountName: string;
  bankCode: string;
  bankName: string;
  createdAt: string;
}

/** What the sandbox does with a transfer once it may go (at creation, or at finalize with OTP). */
export const TRANSFER_OUTCOMES = ['success', 'pending', 'failed', 'reversed'] as const;
export type TransferOutcome = (typeof TRANSFER_OUTCOMES)[number];

export interface SandboxTransfer {
  id: number;
  transferCode: string;
  reference: string;
  amountKobo: number;
  reason: string | null;
  recipientCode: string;
  status: TransferStatus;
  /** Applied when the transfer goes (at once, or once its OTP is given). */
  outcome: TransferOutcome;
  createdAt: string;
  updatedAt: string;
  transferredAt: string | null;
}

function toPaystackRecipientDetails(recipient: SandboxRecipient) {
  return {
    authorization_code: null,
    account_number: recipient.accountNumber,
    account_name: recipient.accountName,
    bank_code: recipient.bankCode,
    bank_name: recipient.bankName,
  };
}

/** Paystack's transfer recipient object. */
export function toPaystackRecipient(recipient: SandboxRecipient) {
  return {
    id: recipient.id,
    active: true,
    createdAt: recipient.createdAt,
    currency: 'NGN',
    domain: 'test',
    integration: SANDBOX_INTEGRATION_ID,
    name: recipient.name,
    recipient_code: recipient.recipientCode,
    type: 'nuban',
    updatedAt: recipient.createdAt,
    is_deleted: false,
    details: toPaystackRecipientDetails(recipient),
  };
}

/**
 * Paystack's transfer object, as verify, the list and the `transfer.*` webhooks show it: the
 * recipient expanded. (Create and finalize answer the same object here; Paystack's create gives
 * the recipient's id only, which nobody should read.)
 */
export function toPaystackTransfer(transfer: SandboxTransfer, recipient: SandboxRecipient) {
  return {
    id: transfer.id,
    domain: 'test',
    integration: SANDBOX_INTEGRATION_ID,
    amount: transfer.amountKobo,
    currency: 'NGN',
    source: 'balance',
    source_details: null,
    reason: transfer.reason,
    reference: transfer.reference,
    transfer_code: transfer.transferCode,
    status: transfer.status,
    failures: null,
    titan_code: null,
    recipient: toPaystackRecipient(recipient),
    transferred_at: transfer.transferredAt,
    createdAt: transfer.createdAt,
    updatedAt: transfer.updatedAt,
  };
}

export type PaystackRecipientData = ReturnType<typeof toPaystackRecipient>;
export type PaystackTransferData = ReturnType<typeof toPaystackTransfer>;
