import { z } from 'zod';

// Messages follow Paystack's wording where it has one, so the service's error handling
// sees the same strings in tests as in production.
const INVALID_AMOUNT = 'Invalid Amount Sent';
const INVALID_REFERENCE =
  'Invalid transaction reference. Only -, ., = and alphanumeric characters allowed.';

const positiveKobo = z
  .number({ error: INVALID_AMOUNT })
  .int({ error: INVALID_AMOUNT })
  .positive({ error: INVALID_AMOUNT })
  .max(Number.MAX_SAFE_INTEGER, { error: INVALID_AMOUNT });

/** Paystack takes the kobo amount either as a JSON number or as a string of digits. */
export const amountKobo = z.union(
  [positiveKobo, z.string().regex(/^\d+$/, { error: INVALID_AMOUNT }).transform(Number).pipe(positiveKobo)],
  { error: INVALID_AMOUNT },
);

/** Paystack documents metadata as a stringified JSON object, but also accepts the object. */
const metadata = z.unknown().transform((value) => {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
});

export const initializeTransactionBody = z.object(
  {
    email: z.string({ error: 'Invalid Email Address Passed' }).trim().pipe(z.email({ error: 'Invalid Email Address Passed' })),
    amount: amountKobo,
    currency: z.literal('NGN', { error: 'Currency not supported by merchant' }).default('NGN'),
    reference: z
      .string({ error: INVALID_REFERENCE })
      .regex(/^[A-Za-z0-9.=-]{1,100}$/, { error: INVALID_REFERENCE })
      .optional(),
    // Only web URLs: the sandbox redirects a real browser there, so `javascript:` must never pass.
    callback_url: z.url({ protocol: /^https?$/, error: 'Invalid callback_url' }).optional(),
    metadata: metadata.optional(),
  },
  { error: 'Invalid request body' },
);

export type InitializeTransactionBody = z.infer<typeof initializeTransactionBody>;

/** Paystack's 400 body carries one message, so the first issue is the one reported. */
export function firstIssueMessage(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'Invalid request body';
}

/** Paystack's `POST /refund`: `transaction` is a reference or an id (a JSON number is taken too). */
export const createRefundBody = z.object(
  {
    transaction: z.union([z.string().trim().min(1), z.number().int().positive().transform(String)], {
      error: 'Transaction reference or id is required',
    }),
    amount: amountKobo.optional(),
    currency: z.literal('NGN', { error: 'Currency not supported by merchant' }).optional(),
    customer_note: z.string().optional(),
    merchant_note: z.string().optional(),
  },
  { error: 'Invalid request body' },
);

export type CreateRefundBody = z.infer<typeof createRefundBody>;

/** A query value of digits, as `?page=2`: Express hands query values over as strings. */
function queryInteger(name: string, min: number) {
  const message = `${name} must be a whole number of at least ${min}`;
  return z
    .string({ error: message })
    .regex(/^\d{1,15}$/, { error: message })
    .transform(Number)
    .pipe(z.number().int().min(min, { error: message }));
}

function queryDate(name: string) {
  const message = `${name} must be a date, e.g. 2016-09-24T00:00:05.000Z or 2016-09-21`;
  return z
    .string({ error: message })
    .refine((value) => !Number.isNaN(Date.parse(value)), { error: message })
    .transform((value) => new Date(value));
}

/**
 * Paystack's `GET /transaction` query: offset pagination (`page` from 1, `perPage` default 50) and
 * the filters it documents. Other parameters are ignored, as Paystack ignores what it does not know.
 */
export const listTransactionsQuery = z.object({
  perPage: queryInteger('perPage', 1).default(50),
  page: queryInteger('page', 1).default(1),
  status: z.string({ error: 'status must be one value' }).min(1).optional(),
  customer: queryInteger('customer', 1).optional(),
  amount: queryInteger('amount', 1).optional(),
  from: queryDate('from').optional(),
  to: queryDate('to').optional(),
});

export type ListTransactionsQuery = z.infer<typeof listTransactionsQuery>;

// Paystack's Transfers API. Its reference rule: 16 to 50 of lowercase a-z, 0-9, `-` and `_`.
const INVALID_TRANSFER_REFERENCE =
  'Invalid transfer reference. It must be 16 to 50 characters of lowercase a-z, 0-9, - and _.';

export const createRecipientBody = z.object(
  {
    type: z.literal('nuban', { error: 'Invalid recipient type. Only nuban is supported by the sandbox' }),
    name: z.string({ error: 'Name is required' }).trim().min(1, { error: 'Name is required' }),
    account_number: z.union([z.string(), z.number().int().nonnegative().transform(String)], { error: 'Account number is required' }),
    bank_code: z.string({ error: 'Bank code is required' }).min(1, { error: 'Bank code is required' }),
    currency: z.literal('NGN', { error: 'Currency not supported by merchant' }).default('NGN'),
    description: z.string().optional(),
    metadata: metadata.optional(),
  },
  { error: 'Invalid request body' },
);

export type CreateRecipientBody = z.infer<typeof createRecipientBody>;

export const initiateTransferBody = z.object(
  {
    source: z.literal('balance', { error: 'Invalid transfer source. Only balance is supported' }),
    amount: amountKobo,
    recipient: z.string({ error: 'Recipient is required' }).min(1, { error: 'Recipient is required' }),
    reference: z
      .string({ error: INVALID_TRANSFER_REFERENCE })
      .regex(/^[a-z0-9_-]{16,50}$/, { error: INVALID_TRANSFER_REFERENCE })
      .optional(),
    reason: z.string({ error: 'reason must be a string' }).optional(),
    currency: z.literal('NGN', { error: 'Currency not supported by merchant' }).default('NGN'),
  },
  { error: 'Invalid request body' },
);

export type InitiateTransferBody = z.infer<typeof initiateTransferBody>;

export const finalizeTransferBody = z.object(
  {
    transfer_code: z.string({ error: 'Transfer code is required' }).min(1, { error: 'Transfer code is required' }),
    otp: z.union([z.string(), z.number().int().transform(String)], { error: 'OTP is required' }),
  },
  { error: 'Invalid request body' },
);

/** Paystack's `GET /transfer`: offset pagination as the transaction list, optionally one status. */
export const listTransfersQuery = z.object({
  perPage: queryInteger('perPage', 1).default(50),
  page: queryInteger('page', 1).default(1),
  status: z.string({ error: 'status must be one value' }).min(1).optional(),
});

export type ListTransfersQuery = z.infer<typeof listTransfersQuery>;
