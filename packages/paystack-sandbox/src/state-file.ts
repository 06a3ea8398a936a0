import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DISPUTE_RESOLUTIONS } from './dispute';
import { TRANSACTION_STATUSES } from './transaction';
import { TRANSFER_OUTCOMES, TRANSFER_STATUSES } from './transfer';

const persistedTransaction = z.object({
  id: z.number().int(),
  reference: z.string(),
  accessCode: z.string(),
  amountKobo: z.number().int(),
  currency: z.literal('NGN'),
  email: z.string(),
  callbackUrl: z.string().nullable(),
  metadata: z.unknown(),
  status: z.enum(TRANSACTION_STATUSES),
  createdAt: z.string(),
  paidAt: z.string().nullable(),
  customerId: z.number().int(),
});

const persistedCustomer = z.object({
  id: z.number().int(),
  email: z.string(),
  customerCode: z.string(),
});

const persistedRefund = z.object({
  id: z.number().int(),
  transactionReference: z.string(),
  amountKobo: z.number().int(),
  status: z.enum(['pending', 'processed']),
  refundReference: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  refundedAt: z.string().nullable(),
});

const persistedDispute = z.object({
  id: z.number().int(),
  transactionReference: z.string(),
  refundAmountKobo: z.number().int(),
  status: z.enum(['awaiting-merchant-feedback', 'resolved']),
  resolution: z.enum(DISPUTE_RESOLUTIONS).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  dueAt: z.string(),
  resolvedAt: z.string().nullable(),
});

const persistedRecipient = z.object({
  id: z.number().int(),
  recipientCode: z.string(),
  name: z.string(),
  accountNumber: z.string(),
  accountName: z.string(),
  bankCode: z.string(),
  bankName: z.string(),
  createdAt: z.string(),
});

const persistedTransfer = z.object({
  id: z.number().int(),
  transferCode: z.string(),
  reference: z.string(),
  amountKobo: z.number().int(),
  reason: z.string().nullable(),
  recipientCode: z.string(),
  status: z.enum(TRANSFER_STATUSES),
  outcome: z.enum(TRANSFER_OUTCOMES),
  createdAt: z.string(),
  updatedAt: z.string(),
  transferredAt: z.string().nullable(),
});

// Refunds, disputes and payouts came later: their defaults let a file written before them load unchanged.
const persistedState = z.object({
  version: z.literal(1),
  nextTransactionId: z.number().int(),
  nextCustomerId: z.number().int(),
  nextRefundId: z.number().int().default(3_000_001),
  nextDisputeId: z.number().int().default(7_000_001),
  nextRecipientId: z.number().int().default(9_000_001),
  nextTransferId: z.number().int().default(8_000_001),
  balanceKobo: z.number().int().default(0),
  recipients: z.array(persistedRecipient).default([]),
  transfers: z.array(persistedTransfer).default([]),
  transactions: z.array(persistedTransaction),
  customers: z.array(persistedCustomer),
  refunds: z.array(persistedRefund).default([]),
  disputes: z.array(persistedDispute).default([]),
});

export type PersistedState = z.infer<typeof persistedState>;

const FILE_NAME = 'paystack-transactions.json';

/**
 * One JSON file holding every charge, refund, dispute, recipient and transfer, and the balance. Writes go to a temporary file that is fsynced and then
 * renamed over the old one, so a crash leaves either the previous state or the new one,
 * never half a file.
 */
export class StateFile {
  private readonly filePath: string;

  constructor(dataDir: string) {
    this.filePath = path.join(dataDir, FILE_NAME);
  }

  /** Returns `undefined` on first start; a file that exists but does not parse is an error, not a reset. */
  async load(): Promise<PersistedState | undefined> {
    let text: string;
    try {
      text = await readFile(this.filePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const parsed = persistedState.safeParse(JSON.parse(text));
    if (!parsed.success) {
      throw new Error(`Paystack sandbox state file ${this.filePath} is not valid: ${parsed.error.message}`);
    }
    return parsed.data;
  }

  async save(state: PersistedState): Promise<void> {
    await mkdir(path.dirname(this.filePath), { recursive: true });
    const tmpPath = `${this.filePath}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await open(tmpPath, 'w');
    try {
      await handle.writeFile(JSON.stringify(state, null, 2));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(tmpPath, this.filePath);
    } catch (error) {
      await rm(tmpPath, { force: true });
      throw error;
    }
  }
}
