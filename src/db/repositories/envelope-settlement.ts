import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../client';
import { ledgerEntries, ledgerEnvelopes } from '../schema';
import { paymentMintRefused, paymentMintsConfirmed } from './payment.repository';
import { clawbackRefused, clawbacksConfirmed } from './reversal.repository';
import { walletsActivated } from './wallet.repository';

// Settling an envelope: the two statements of the journal that end an envelope, and with it decide
// what its entries stand for (a payment minted, a wallet active, a reversal's tokens taken back). Each runs in the caller's transaction (JournalRepository.confirm/fail).

/** What becomes of an entry whose envelope failed: it rides again in a new one, or it is over. */
export interface EntryVerdict {
  entryId: string;
  final: boolean;
  code: string;
}

export const OPEN_ENVELOPE = ['pending', 'submitted'] as const;

/** How the ledger applied an envelope: at which ledger, the fee charged, the fee bump's hash. */
export interface AppliedEnvelope {
  ledger: number;
  feeCharged?: bigint;
  hash?: string;
}

export interface FailOptions {
  /** A proof that the envelope never applies (otherwise only a refusal of its one send counts). */
  proven: boolean;
  ledger?: number;
}

/**
 * The ledger applied the envelope: it and its entries are confirmed, and what each kind of
 * entry stands for follows in the same transaction (a payment becomes minted, a wallet active).
 * Idempotent. Returns false when the envelope was not open (already settled).
 */
export async function confirmEnvelope(tx: Executor, envelopeId: string, hash: string, applied: AppliedEnvelope): Promise<boolean> {
  const { ledger } = applied;
  const [env] = await tx
    .update(ledgerEnvelopes)
    // the fee bump that applied, which the ledger's payment records name
    .set({ status: 'confirmed', ledger, feeCharged: applied.feeCharged, outerHash: applied.hash, updatedAt: new Date() })
    .where(and(eq(ledgerEnvelopes.id, envelopeId), inArray(ledgerEnvelopes.status, OPEN_ENVELOPE)))
    .returning({ id: ledgerEnvelopes.id });
  if (!env) return false;
  const entries = await tx
    .update(ledgerEntries)
    .set({ status: 'confirmed', ledger, updatedAt: new Date() })
    .where(and(eq(ledgerEntries.envelopeId, envelopeId), inArray(ledgerEntries.status, ['pending', 'submitted'])))
    .returning({
      id: ledgerEntries.id,
      kind: ledgerEntries.kind,
      userId: ledgerEntries.userId,
      paymentReference: ledgerEntries.paymentReference,
      reversalId: ledgerEntries.reversalId,
      amountStroops: ledgerEntries.amountStroops,
    });
  const references = entries.filter((e) => e.kind === 'payment_mint' && e.paymentReference).map((e) => e.paymentReference!);
  await paymentMintsConfirmed(tx, references, hash);
  await clawbacksConfirmed(tx, entries.filter((e) => e.kind === 'clawback').map((e) => ({ reversalId: e.reversalId, entryId: e.id, amountStroops: e.amountStroops })));
  await walletsActivated(tx, entries.filter((e) => e.kind === 'activation' && e.userId).map((e) => e.userId!));
  return true;
}

/**
 * The envelope failed: `failure` says why (result codes, not_delivered, never_applies). Allowed
 * only while it is open and, unless `proven`, only if it was sent exactly once (a refusal of a
 * resubmission proves nothing: the first send may have applied). Each entry is then either
 * final (failed, with its code) or free to ride in a new envelope. Returns false when the
 * envelope was not in that state: nothing changed, its outcome is still unknown.
 */
export async function failEnvelope(tx: Executor, envelopeId: string, failure: string, verdicts: EntryVerdict[], options: FailOptions): Promise<boolean> {
  const [env] = await tx
    .update(ledgerEnvelopes)
    .set({ status: 'failed', failure, ledger: options.ledger ?? null, updatedAt: new Date() })
    .where(
      and(
        eq(ledgerEnvelopes.id, envelopeId),
        options.proven ? inArray(ledgerEnvelopes.status, OPEN_ENVELOPE) : and(eq(ledgerEnvelopes.status, 'submitted'), eq(ledgerEnvelopes.submitCount, 1)),
      ),
    )
    .returning({ id: ledgerEnvelopes.id });
  if (!env) return false;
  const finals = verdicts.filter((v) => v.final);
  for (const v of finals) {
    await tx
      .update(ledgerEntries)
      .set({ status: 'failed', failureCode: v.code, updatedAt: new Date() })
      .where(and(eq(ledgerEntries.id, v.entryId), eq(ledgerEntries.envelopeId, envelopeId)));
  }
  // Everything else in the envelope waits for a new one.
  await tx
    .update(ledgerEntries)
    .set({ status: 'pending', updatedAt: new Date() })
    .where(and(eq(ledgerEntries.envelopeId, envelopeId), inArray(ledgerEntries.status, ['pending', 'submitted'])));
  const failedMints = await tx
    .select({ reference: ledgerEntries.paymentReference, code: ledgerEntries.failureCode })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.envelopeId, envelopeId), eq(ledgerEntries.status, 'failed'), eq(ledgerEntries.kind, 'payment_mint')));
  for (const m of failedMints) await paymentMintRefused(tx, m.reference!, m.code ?? 'unknown');
  const failedClawbacks = await tx
    .select({ id: ledgerEntries.id, reversalId: ledgerEntries.reversalId, code: ledgerEntries.failureCode })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.envelopeId, envelopeId), eq(ledgerEntries.status, 'failed'), eq(ledgerEntries.kind, 'clawback')));
  for (const c of failedClawbacks) if (c.reversalId) await clawbackRefused(tx, c.reversalId, c.id, c.code ?? 'unknown');
  return true;
}
