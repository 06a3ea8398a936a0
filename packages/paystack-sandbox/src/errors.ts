export type PaystackSandboxErrorCode =
  | 'duplicate_reference'
  | 'reference_not_found'
  | 'access_code_not_found'
  | 'transaction_not_found'
  | 'transaction_not_open'
  | 'transaction_not_paid'
  | 'refund_exceeds_balance'
  | 'refund_not_found'
  | 'dispute_not_found'
  | 'dispute_already_open'
  | 'dispute_not_open'
  | 'account_not_resolved'
  | 'recipient_account_invalid'
  | 'recipient_not_found'
  | 'transfer_reference_used'
  | 'balance_not_enough'
  | 'transfer_not_found'
  | 'transfer_not_awaiting_otp'
  | 'invalid_otp'
  | 'transfer_not_movable';

/**
 * A rule of the fake gateway was broken. The services throw it without knowing about HTTP;
 * each router maps the code to Paystack's status and body (JSON for the API and the sandbox
 * controls, HTML for the checkout page).
 */
export class PaystackSandboxError extends Error {
  constructor(
    readonly code: PaystackSandboxErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PaystackSandboxError';
  }
}
