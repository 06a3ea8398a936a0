import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Database } from '../../src/db/client';
import { PaymentRepository } from '../../src/db/repositories/payment.repository';
import { ReversalRepository } from '../../src/db/repositories/reversal.repository';
import { paymentReversals, payments } from '../../src/db/schema';
import { resetDatabase } from '../helpers/database';
import { outboxOf } from '../helpers/outbox';
import { testDatabase } from '../helpers/test-app';

// A paid purchase decides once how much of its buyer's debt it settles. A buyer who owes nothing
// is decided in one statement without the debt's lock (recordSettlesNoDebt); any other case must
// be left, untouched, to the locked decision (PaymentService.settleDebtOnce).

let db: Database;
let repo: PaymentRepository;
beforeEach(async () => {
  const database = await testDatabase();
  await resetDatabase(database);
  db = database.db;
  repo = new PaymentRepository(db, outboxOf(database));
});

async function paidPurchase(userId: string, fields: Partial<typeof payments.$inferInsert> = {}): Promise<string> {
  const reference = `wlt-${crypto.randomUUID()}`;
  await db.insert(payments).values({ reference, userId, amountKobo: 50_000n, status: 'paid', ...fields });
  return reference;
}

/** A finished reversal that left `debtStroops` owed. */
async function debtOf(userId: string, debtStroops: bigint): Promise<void> {
  await db.insert(paymentReversals).values({ key: `refund:${crypto.randomUUID()}`, paymentReference: 'wlt-old', userId, cause: 'refund', amountKobo: 50_000n, tokensStroops: debtStroops, debtStroops, status: 'done' });
}

async function decided(reference: string): Promise<bigint | null> {
  const [row] = await db.select().from(payments).where(eq(payments.reference, reference));
  return row!.debtSettledStroops;
}

describe('recordSettlesNoDebt: a buyer who owes nothing, decided in one statement', () => {
  it('decides 0 for a buyer with no debt', async () => {
    const reference = await paidPurchase(crypto.randomUUID());
    expect(await repo.recordSettlesNoDebt(reference)).toBe(true);
    expect(await decided(reference)).toBe(0n);
  });

  it('decides 0 when earlier purchases settled the whole debt, and counts only this buyer’s debt', async () => {
    const buyer = crypto.randomUUID();
    await debtOf(buyer, 3_000_000n);
    await paidPurchase(buyer, { status: 'minted', debtSettledStroops: 3_000_000n });
    await debtOf(crypto.randomUUID(), 9_000_000n);
    const reference = await paidPurchase(buyer);
    expect(await repo.recordSettlesNoDebt(reference)).toBe(true);
    expect(await decided(reference)).toBe(0n);
  });

  it('leaves a buyer who owes anything, one stroop even, to the locked decision: nothing written', async () => {
    const buyer = crypto.randomUUID();
    await debtOf(buyer, 3_000_000n);
    await paidPurchase(buyer, { status: 'minted', debtSettledStroops: 2_999_999n });
    const reference = await paidPurchase(buyer);
    expect(await repo.recordSettlesNoDebt(reference)).toBe(false);
    expect(await decided(reference)).toBeNull();
    expect(await new ReversalRepository(db).owedBy(buyer)).toBe(1n);
  });

  it('never changes a decision already made, nor decides for a payment that is not paid', async () => {
    const buyer = crypto.randomUUID();
    const settled = await paidPurchase(buyer, { debtSettledStroops: 5n });
    const initialized = await paidPurchase(buyer, { status: 'initialized' });
    const minting = await paidPurchase(buyer, { status: 'minting' });
    expect(await repo.recordSettlesNoDebt(settled)).toBe(false);
    expect(await repo.recordSettlesNoDebt(initialized)).toBe(false);
    expect(await repo.recordSettlesNoDebt(minting)).toBe(false);
    expect(await repo.recordSettlesNoDebt('wlt-unknown')).toBe(false);
    expect([await decided(settled), await decided(initialized), await decided(minting)]).toEqual([5n, null, null]);
  });
});
