import { z } from 'zod';
import type { OwnedRecordTuple, RecordTuple } from '../db/repositories/transaction.repository';
import { stroopsToNumber } from '../domain/amounts';

/** A row that starts with a record's columns (a page's rows carry more after them: the total, the owner). */
type RowOfRecord = readonly [...RecordTuple, ...unknown[]];

export const transactionRecordSchema = z.object({
  transactionId: z.uuid(),
  ledgerTransactionId: z.string(),
  from: z.string(),
  to: z.string(),
  assetAmount: z.number(),
  assetCode: z.string(),
  userId: z.uuid(),
  createdAt: z.string(),
  /** pending until the ledger decides (CONTRACT 8). */
  status: z.enum(['pending', 'confirmed', 'failed']),
});
export type TransactionRecord = z.infer<typeof transactionRecordSchema>;

/**
 * One record of a list page (TransactionRepository.userPage's row) as the API answers it. The one
 * object a record costs: the row is PostgreSQL's array, its timestamp already ISO text.
 */
export function transactionRecordOf(row: RowOfRecord): TransactionRecord {
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
    status: status === 'submitted' ? 'pending' : status,
  };
}

/** A record of the admin list (TransactionRepository.adminPage's row): the record, its owner nested as `user` (null once deleted). */
export function adminTransactionOf(row: OwnedRecordTuple): TransactionRecord & { user: { username: string; email: string } | null } {
  const username = row[9];
  return { ...transactionRecordOf(row), user: username !== null ? { username, email: row[10] ?? '' } : null };
}

/** The body of a page of a user's records, exactly as the route sends it: for callers without Express (the bench's route ceiling). */
export function transactionPageJson(rows: readonly RowOfRecord[]): string {
  return JSON.stringify(rows.map(transactionRecordOf));
}
