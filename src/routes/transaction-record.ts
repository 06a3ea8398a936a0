import { z } from 'zod';
import type { OwnedRecordTuple, RecordTuple, UserRecordTuple } from '../db/repositories/transaction.repository';
import { stroopsToNumber } from '../domain/amounts';

/** A row that starts with a user's record's columns (a page's rows carry more after them: the total). */
type RowOfUserRecord = readonly [...UserRecordTuple, ...unknown[]];

/** The spec's fields of a record, as both lists answer them. */
const specFields = {
  transactionId: z.uuid(),
  ledgerTransactionId: z.string(),
  from: z.string(),
  to: z.string(),
  assetAmount: z.number(),
  assetCode: z.string(),
  userId: z
    .uuid()
    .describe(
      "The record's owner: a transfer's sender (a transfer received names its sender), a mint's or a refund's recipient; for a movement made elsewhere, " +
        "the user whose wallet it touched (the sender's when both are users)",
    ),
  createdAt: z.string(),
  /** pending until the ledger decides (CONTRACT 8). */
  status: z.enum(['pending', 'confirmed', 'failed']),
};

const originSchema = z
  .enum(['service', 'ledger'])
  .describe(
    '`service`: the service wrote it (a transfer, a mint, a clawback, a withdrawal or its refund). `ledger`: a movement of the wallet made elsewhere ' +
      "(with the wallet's key in another app, or from an outside account), seen on the ledger: always `confirmed`, its `transactionId` the service's id of the movement",
  );

/**
 * A record of a user's list: every movement of the user's wallet, sent or received, made by the
 * service or seen on the ledger (CONTRACT 12). `userId` stays the record's owner (a transfer's
 * sender), so a transfer received names the sender.
 */
export const transactionRecordSchema = z.object({
  ...specFields,
  direction: z.enum(['in', 'out']).describe("From the list's user's side: `out` when their wallet is `from` (sent, withdrawn, clawed back), `in` when it is only `to`"),
  origin: originSchema,
});
export type TransactionRecord = z.infer<typeof transactionRecordSchema>;

/** A record of the admin list: each movement once, with no direction (it has two sides), its owner nested as `user`. */
export const adminTransactionRecordSchema = z.object({
  ...specFields,
  origin: originSchema,
  user: z.object({ username: z.string(), email: z.string() }).nullable(),
});
export type AdminTransactionRecord = z.infer<typeof adminTransactionRecordSchema>;

/**
 * One record of a list page (TransactionRepository.userPage's row) as the API answers it. The one
 * object a record costs: the row is PostgreSQL's array, its timestamp already ISO text.
 */
export function transactionRecordOf(row: RowOfUserRecord): TransactionRecord {
  return { ...specFieldsOf(row), direction: row[10], origin: row[9] };
}

/** The spec's fields of a record, from the columns both lists' rows start with (RecordTuple). */
function specFieldsOf(row: readonly [...RecordTuple, ...unknown[]]) {
  const status = row[8];
  return {
    transactionId: row[0],
    ledgerTransactionId: row[1],
    from: row[2],
    to: row[3],
    assetAmount: stroopsToNumber(BigInt(row[4])),
    assetCode: row[5],
    userId: row[6] ?? '',
    createdAt: row[7],
    status: status === 'submitted' ? ('pending' as const) : status,
  };
}

/** A record of the admin list (TransactionRepository.adminPage's row): the record, its owner nested as `user` (null once deleted). */
export function adminTransactionOf(row: OwnedRecordTuple): AdminTransactionRecord {
  const username = row[10];
  return {
    ...specFieldsOf(row),
    origin: row[9],
    user: username !== null ? { username, email: row[11] ?? '' } : null,
  };
}

/** The body of a page of a user's records, exactly as the route sends it: for callers without Express (the bench's route ceiling). */
export function transactionPageJson(rows: readonly RowOfUserRecord[]): string {
  return JSON.stringify(rows.map(transactionRecordOf));
}
