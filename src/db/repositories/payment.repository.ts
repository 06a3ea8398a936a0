import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { payments } from '../schema';
import { first } from './rows';

export type PaymentRow = typeof payments.$inferSelect;

/**
 * Payments. Every state change here is one conditional statement, never check-then-act in
 * memory; the mint itself is a journal entry (see LedgerJournal.mintForPayment).
 */
export class PaymentRepository {
  constructor(private readonly db: Database) {}

  async insertInitialized(row: { reference: string; userId: string; amountKobo: bigint }): Promise<void> {
    await this.db.insert(payments).values(row);
  }

  async find(reference: string): Promise<PaymentRow | undefined> {
    return first(this.db.select().from(payments).where(eq(payments.reference, reference)));
  }

  async markProviderFailed(reference: string, payload: unknown): Promise<void> {
    await this.db
      .update(payments)
      .set({ status: 'failed', providerPayload: payload, updatedAt: new Date() })
      .where(and(eq(payments.reference, reference), eq(payments.status, 'initialized')));
  }

  /**
   * Consumes the reference: the one atomic step that lets a payment mint, run in the transaction
   * that commits its mint's journal entry. Of any number of concurrent callers (verify, callback,
   * webhook, other processes) exactly one gets the row. A payment whose mint the ledger refused
   * for good (failureReason) is never consumed again.
   */
  async consume(tx: Executor, reference: string, tokensStroops: bigint, destinationPublicKey: string, payload: unknown): Promise<PaymentRow | undefined> {
    const [row] = await tx
      .update(payments)
      .set({ status: 'verified', tokensStroops, destinationPublicKey, providerPayload: payload, updatedAt: new Date() })
      .where(and(eq(payments.reference, reference), inArray(payments.status, ['initialized', 'failed']), isNull(payments.failureReason)))
      .returning();
    return row;
  }

  async listByStatus(status: PaymentRow['status']): Promise<PaymentRow[]> {
    return this.db.select().from(payments).where(eq(payments.status, status));
  }
}
