import type { ErrorRequestHandler } from 'express';
import type { z } from 'zod';
import { PaystackSandboxError, type PaystackSandboxErrorCode } from './errors';
import { sandboxLogger } from './logger';
import { firstIssueMessage } from './schemas';

// Paystack answers 400 even for an unknown reference on verify, and the service's client expects
// it. Unknown refunds, disputes and (on the refund API and the controls) transactions answer 404.
const STATUS_BY_CODE: Record<PaystackSandboxErrorCode, number> = {
  duplicate_reference: 400,
  reference_not_found: 400,
  access_code_not_found: 404,
  transaction_not_found: 404,
  transaction_not_open: 400,
  transaction_not_paid: 400,
  refund_exceeds_balance: 400,
  refund_not_found: 404,
  dispute_not_found: 404,
  dispute_already_open: 400,
  dispute_not_open: 400,
  // Paystack's resolve answers 422 for an account it cannot name; creating a recipient for one is a 400.
  account_not_resolved: 422,
  recipient_account_invalid: 400,
  recipient_not_found: 400,
  transfer_reference_used: 400,
  balance_not_enough: 400,
  transfer_not_found: 404,
  transfer_not_awaiting_otp: 400,
  invalid_otp: 400,
  transfer_not_movable: 400,
};

/** Parses a body, or stops the request with Paystack's 400 `{status:false, message}`. */
export function parseOrReject<T>(
  schema: z.ZodType<T>,
  value: unknown,
  res: { status(code: number): { json(body: unknown): unknown } },
): T | undefined {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  res.status(400).json({ status: false, message: firstIssueMessage(parsed.error) });
  return undefined;
}

/** Every failure leaves as Paystack's `{status:false, message}`, never as an HTML error page. */
export const apiErrorHandler: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  if (error instanceof PaystackSandboxError) {
    res.status(STATUS_BY_CODE[error.code]).json({ status: false, message: error.message });
    return;
  }
  // body-parser marks client mistakes (bad JSON, body too large) as safe to expose.
  const clientError = error as { expose?: boolean; status?: number; type?: string; message?: string };
  if (clientError.expose === true && typeof clientError.status === 'number') {
    const message = clientError.type === 'entity.parse.failed' ? 'Invalid JSON body' : (clientError.message ?? 'Bad request');
    res.status(clientError.status).json({ status: false, message });
    return;
  }
  sandboxLogger.error({ err: error }, 'paystack sandbox API request failed');
  res.status(500).json({ status: false, message: 'Internal sandbox error' });
};
