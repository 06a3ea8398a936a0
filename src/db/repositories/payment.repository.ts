import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../client';
import { mintBatches, payments, transactions } from '../schema';

export type PaymentRow = typeof payments.$inferSelect;
export type MintBatchRow = typeof mintBatches.$inferSelect;

/**
 * Payments and the mint transactions that pay them out. Every state change here is one
 * conditional statement (or one database transaction), never check-then-act in memory.
 */
export class PaymentRepository {
  constructor(private readonly db: Database) {}

  async insertInitialized(row: { reference: string; userId: string; amountKobo: bigint }): Promise<void> {
    await this.db.insert(payments).values(row);
  }

  async find(reference: string): Promise<PaymentRow | undefined> {
    const [row] = await this.db.select().from(payments).where(eq(payments.reference, reference));
    return row;
  }

  async markProviderFailed(reference: string, payload: unknown): Promise<void> {
    await this.db
      .update(payments)
      .set({ status: 'failed', providerPayload: payload, updatedAt: new Date() })
      .where(and(eq(payments.reference, reference), eq(payments.status, 'initialized')));
  }

  /**
   * Consumes the reference: the one atomic step that lets a payment mint. Of any number of
   * concurrent callers (verify, callback, webhook, other processes) exactly one gets the row.
   */
  async consume(reference: string, tokensStroops: bigint, destinationPublicKey: string, payload: unknown): Promise<PaymentRow | undefined> {
    const [row] = await this.db
      .update(payments)
      .set({ status: 'verified', tokensStroops, destinationPublicKey, providerPayload: payload, updatedAt: new Date() })
      .where(and(eq(payments.reference, reference), inArray(payments.status, ['initialized', 'failed'])))
      .returning();
    return row;
  }

  /**
   * Stores a signed mint envelope and links the payments it pays, before it is submitted. Returns
   * the references actually linked: a payment already linked to another envelope is not.
   */
  async recordBatch(hash: string, envelopeXdr: string, references: string[]): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const [batch] = await tx.insert(mintBatches).values({ txHash: hash, envelopeXdr }).returning({ id: mintBatches.id });
      if (references.length === 0) return [];
      const linked = await tx
        .update(payments)
        .set({ mintBatchId: batch!.id, mintTxHash: hash, updatedAt: new Date() })
        .where(and(inArray(payments.reference, references), eq(payments.status, 'verified'), isNull(payments.mintTxHash)))
        .returning({ reference: payments.reference });
      return linked.map((l) => l.reference);
    });
  }

  /** An envelope that can never apply: its payments go back to waiting for a new one. */
  async markBatchDead(hash: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.update(mintBatches).set({ status: 'dead', updatedAt: new Date() }).where(and(eq(mintBatches.txHash, hash), eq(mintBatches.status, 'signed')));
      await tx
        .update(payments)
        .set({ mintBatchId: null, mintTxHash: null, updatedAt: new Date() })
        .where(and(eq(payments.mintTxHash, hash), eq(payments.status, 'verified')));
    });
  }

  /**
   * The ledger applied the envelope: its payments become minted and each gets its transaction
   * record, in one database transaction. Idempotent: a second call changes nothing.
   */
  async confirmBatch(hash: string, from: string, assetCode: string): Promise<PaymentRow[]> {
    return this.db.transaction(async (tx) => {
      await tx.update(mintBatches).set({ status: 'confirmed', updatedAt: new Date() }).where(eq(mintBatches.txHash, hash));
      const minted = await tx
        .update(payments)
        .set({ status: 'minted', updatedAt: new Date() })
        .where(and(eq(payments.mintTxHash, hash), eq(payments.status, 'verified')))
        .returning();
      if (minted.length > 0) {
        await tx.insert(transactions).values(
          minted.map((p) => ({
            ledgerTransactionId: hash,
            fromPublicKey: from,
            toPublicKey: p.destinationPublicKey!,
            amountStroops: p.tokensStroops!,
            assetCode,
            userId: p.userId,
            kind: 'mint' as const,
          })),
        );
      }
      return minted;
    });
  }

  async findBatch(hash: string): Promise<MintBatchRow | undefined> {
    const [row] = await this.db.select().from(mintBatches).where(eq(mintBatches.txHash, hash));
    return row;
  }

  /** Verified payments not yet minted; those without an envelope only once idle for `idleMs`. */
  async listUnfinished(idleMs: number, limit = 500): Promise<PaymentRow[]> {
    return this.db
      .select()
      .from(payments)
      .where(
        and(
          eq(payments.status, 'verified'),
          or(sql`${payments.mintTxHash} is not null`, lt(payments.updatedAt, new Date(Date.now() - idleMs))),
        ),
      )
      .limit(limit);
  }
}
