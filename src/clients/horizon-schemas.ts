import { z } from 'zod';

// What the service reads of Horizon's answers (HAL resources), as zod schemas: an answer that does
// not match is unreadable, and the Horizon adapter treats it as the ledger being unavailable.

export const balanceSchema = z.looseObject({
  asset_type: z.string(),
  balance: z.string().regex(/^-?\d+\.\d{7}$/),
  asset_code: z.string().optional(),
  asset_issuer: z.string().optional(),
  limit: z.string().optional(),
});
export const accountSchema = z.looseObject({
  id: z.string(),
  sequence: z.string().regex(/^\d+$/),
  balances: z.array(balanceSchema),
  subentry_count: z.number().int().default(0),
  num_sponsoring: z.number().int().default(0),
  num_sponsored: z.number().int().default(0),
  flags: z.looseObject({ auth_revocable: z.boolean().default(false), auth_clawback_enabled: z.boolean().default(false) }).default({ auth_revocable: false, auth_clawback_enabled: false }),
});
export const stroops = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform((v) => BigInt(v));
export const submitSchema = z.looseObject({ hash: z.string(), ledger: z.number(), fee_charged: stroops.default(0n) });
// The SDK's call() turns linked fields into functions and keeps the value as `<name>_attr`.
export const transactionSchema = z.looseObject({
  hash: z.string(),
  ledger_attr: z.number(),
  successful: z.boolean(),
  fee_charged: stroops.default(0n),
  // Looked up by its inner hash, a fee bump is named by that hash; its own is here.
  fee_bump_transaction: z.looseObject({ hash: z.string() }).optional(),
});
export const distributionSchema = z.record(z.string(), stroops);
export const feeStatsSchema = z.looseObject({
  last_ledger: z.coerce.number().int(),
  last_ledger_base_fee: stroops,
  fee_charged: distributionSchema,
});
export const paymentPageSchema = z.looseObject({
  records: z.array(
    z.looseObject({
      id: z.string(),
      paging_token: z.string(),
      type: z.string(),
      transaction_hash: z.string(),
      transaction_successful: z.boolean().optional(),
      from: z.string().optional(),
      to: z.string().optional(),
      amount: z.string().optional(),
      asset_code: z.string().optional(),
      asset_issuer: z.string().optional(),
    }),
  ),
});
export const rootSchema = z.looseObject({
  history_latest_ledger: z.number().int(),
  history_latest_ledger_closed_at: z.iso.datetime({ offset: true }),
  history_elder_ledger: z.number().int().optional(),
});
export const codesSchema = z.looseObject({ transaction: z.string(), operations: z.array(z.string()).optional() });
export const failureSchema = z.looseObject({
  extras: z.looseObject({
    result_xdr: z.string().optional(),
    result_codes: codesSchema.extend({ inner_transaction: codesSchema.optional() }),
  }),
});

/**
 * A page of /operations?join=transactions: each operation's position, and its transaction's XDR
 * (the movements are decoded from it, as from RPC's transactions: src/clients/ledger-history.ts).
 */
export const operationPageSchema = z.looseObject({
  _embedded: z.looseObject({
    records: z.array(
      z.looseObject({
        paging_token: z.string().regex(/^\d+$/),
        transaction_hash: z.string(),
        transaction_successful: z.boolean().default(true),
        transaction: z.looseObject({
          hash: z.string().regex(/^[0-9a-f]{64}$/),
          ledger: z.number().int().positive(),
          created_at: z.string(),
          successful: z.boolean(),
          envelope_xdr: z.string(),
          result_xdr: z.string(),
        }),
      }),
    ),
  }),
});
