import { z } from 'zod';
import type { RecordRow } from '../db/repositories/transaction.repository';
import { stroopsToNumber } from '../domain/amounts';

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

export function toTransactionRecord(row: RecordRow): TransactionRecord {
  return {
    transactionId: row.id,
    ledgerTransactionId: row.ledgerTransactionId,
    from: row.fromPublicKey,
    to: row.toPublicKey,
    assetAmount: stroopsToNumber(row.amountStroops),
    assetCode: row.assetCode,
    userId: row.userId ?? '',
    createdAt: row.createdAt.toISOString(),
    status: row.status === 'submitted' ? 'pending' : row.status,
  };
}

export function toAdminTransaction(item: { record: RecordRow; owner: { username: string | null; email: string | null } | null }) {
  const owner = item.owner && item.owner.username !== null ? { username: item.owner.username, email: item.owner.email ?? '' } : null;
  return { ...toTransactionRecord(item.record), user: owner };
}
