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
  | 'dispute_not_open';

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
