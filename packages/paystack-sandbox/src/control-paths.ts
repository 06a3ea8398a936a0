/**
 * Where the sandbox-only controls live, relative to the sandbox's base URL (what the service uses
 * as PAYSTACK_BASE_URL). Under `/sandbox/` so nobody mistakes them for Paystack's API; they take
 * the same Bearer secret. The route table mounts these patterns; tests build URLs with the helpers.
 */
export const CONTROL_ROUTES = {
  transactionStatus: '/sandbox/transactions/:reference/status',
  openDispute: '/sandbox/transactions/:reference/disputes',
  remindDispute: '/sandbox/disputes/:id/remind',
  resolveDispute: '/sandbox/disputes/:id/resolve',
  balance: '/sandbox/balance',
  transferOtp: '/sandbox/transfers/otp',
  nextTransfer: '/sandbox/transfers/next',
  transferFault: '/sandbox/transfers/fault',
  transferStatus: '/sandbox/transfers/:reference/status',
} as const;

export const sandboxControlPaths = {
  transactionStatus: (reference: string) => `/sandbox/transactions/${encodeURIComponent(reference)}/status`,
  openDispute: (reference: string) => `/sandbox/transactions/${encodeURIComponent(reference)}/disputes`,
  remindDispute: (disputeId: number) => `/sandbox/disputes/${disputeId}/remind`,
  resolveDispute: (disputeId: number) => `/sandbox/disputes/${disputeId}/resolve`,
  balance: () => CONTROL_ROUTES.balance,
  transferOtp: () => CONTROL_ROUTES.transferOtp,
  nextTransfer: () => CONTROL_ROUTES.nextTransfer,
  transferFault: () => CONTROL_ROUTES.transferFault,
  transferStatus: (reference: string) => `/sandbox/transfers/${encodeURIComponent(reference)}/status`,
};
