import { z } from 'zod';

// What the service reads of Paystack's answers, as zod schemas: an answer that does not match is
// unreadable, and PaystackClient reports it as UPSTREAM_FAILED.

/** Kobo as Paystack sends it: a JSON integer. A float or a string is not an amount we can trust. */
const koboAmount = z
  .number()
  .refine((value) => Number.isSafeInteger(value) && value >= 0, { message: 'amount must be a non-negative safe integer' })
  .transform((value) => BigInt(value));

export const initializeResponse = z.looseObject({
  status: z.literal(true),
  data: z.looseObject({
    authorization_url: z.string().min(1),
    access_code: z.string().min(1),
    reference: z.string().min(1),
  }),
});

/** A transaction as verify and the list show it. */
const transactionData = z.looseObject({
  status: z.string().min(1),
  reference: z.string().min(1),
  amount: koboAmount,
  currency: z.string().min(1),
  paid_at: z.string().nullish(),
  customer: z.looseObject({
    id: z.union([z.number().int(), z.string().min(1)]),
    email: z.string(),
  }),
});

export const verifyResponse = z.looseObject({ status: z.literal(true), data: transactionData });

/** A count in the list's meta; taken as a JSON integer or a string of digits. */
const metaCount = z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,15}$/).transform(Number)]);

export const listResponse = z.looseObject({
  status: z.literal(true),
  data: z.array(transactionData),
  meta: z.looseObject({ total: metaCount, page: metaCount, pageCount: metaCount }),
});

/** What Paystack answers for an unknown reference (HTTP 400 or 404), and any refusal. */
export const failureResponse = z.looseObject({ status: z.literal(false) });

export type TransactionData = z.output<typeof transactionData>;

// The Transfers API (payouts to bank accounts).

/** A refusal: HTTP 4xx with Paystack's `{status: false, message}`; the message says which. */
export const refusalResponse = failureResponse.extend({ message: z.string() });

export const bankListResponse = z.looseObject({
  status: z.literal(true),
  data: z.array(z.looseObject({ name: z.string().min(1), code: z.string().min(1), active: z.boolean().optional() })),
});

export const resolveAccountResponse = z.looseObject({
  status: z.literal(true),
  data: z.looseObject({ account_number: z.string().min(1), account_name: z.string().min(1) }),
});

export const recipientResponse = z.looseObject({
  status: z.literal(true),
  data: z.looseObject({
    recipient_code: z.string().min(1),
    details: z.looseObject({
      account_number: z.string().min(1),
      account_name: z.string().nullish(),
      bank_code: z.string().min(1),
      bank_name: z.string().min(1),
    }),
  }),
});

/** A transfer as create, finalize, verify and the `transfer.*` webhooks show it. */
const transferData = z.looseObject({
  reference: z.string().min(1),
  transfer_code: z.string().min(1),
  amount: koboAmount,
  status: z.string().min(1),
  reason: z.string().nullish(),
  // Create answers the recipient's id; verify expands it.
  recipient: z.union([z.number(), z.string(), z.looseObject({ recipient_code: z.string().min(1) })]).optional(),
});

export const transferResponse = z.looseObject({ status: z.literal(true), data: transferData });

/** `GET /transfer`: a page of transfers, newest first, with the list's meta as `GET /transaction`'s. */
export const transferListResponse = z.looseObject({
  status: z.literal(true),
  data: z.array(transferData),
  meta: z.looseObject({ total: metaCount, page: metaCount, pageCount: metaCount }),
});

export const balanceResponse = z.looseObject({
  status: z.literal(true),
  data: z.array(z.looseObject({ currency: z.string().min(1), balance: koboAmount })),
});

export type TransferData = z.output<typeof transferData>;
