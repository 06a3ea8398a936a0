export type PaystackSandboxErrorCode =
  | 'duplicate_reference'
  | 'reference_not_found'
  | 'access_code_not_found';

/**
 * A rule of the fake gateway was broken. The charge service throws it without knowing about
 * HTTP; each router maps the code to Paystack's status and body (JSON for the API, HTML for
 * the checkout page).
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
