import { TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { LedgerRejectedError } from '../clients/ledger-errors';
import type { PaymentRepository } from '../db/repositories/payment.repository';
import type { LedgerRuntime } from '../ledger/ledger-runtime';
import type { Logger } from '../logger';
import type { PaymentService } from './payment.service';

/** Past its time bounds plus this margin, an envelope not on the ledger can never apply. */
const EXPIRY_MARGIN_MS = 10_000;

/**
 * Finishes what a crash or an outage left behind, at start and on an interval. For each stored
 * envelope: on the ledger -> confirm its payments; failed on the ledger or expired unapplied ->
 * dead, and its payments are minted again in a new envelope; otherwise the same envelope is
 * resubmitted. A stored envelope is never rebuilt with a new sequence while it could still apply.
 */
export class MintReconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly payments: PaymentRepository,
    private readonly service: PaymentService,
    private readonly runtime: LedgerRuntime,
    private readonly tokenCode: string,
    private readonly logger: Logger,
    /** A verified payment with no envelope is left to the live path for this long. */
    private readonly idleMs = 60_000,
  ) {}

  start(intervalMs: number): void {
    void this.run();
    this.timer = setInterval(() => void this.run(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  run(): Promise<void> {
    this.running ??= this.reconcile()
      .catch((err: unknown) => this.logger.warn({ reason: err instanceof Error ? err.message : String(err) }, 'reconciliation deferred'))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async reconcile(): Promise<void> {
    const ledger = await this.runtime.ready();
    const unfinished = await this.payments.listUnfinished(this.idleMs);
    const byHash = new Map<string, typeof unfinished>();
    const toMint = [];
    for (const p of unfinished) {
      if (this.service.minting.has(p.reference)) continue;
      if (!p.mintTxHash) toMint.push(p);
      else byHash.set(p.mintTxHash, [...(byHash.get(p.mintTxHash) ?? []), p]);
    }
    const from = ledger.keys.distribution.publicKey();
    for (const hash of byHash.keys()) {
      if (ledger.distribution.isInFlight(hash)) continue;
      const outcome = await this.settleEnvelope(hash);
      if (outcome === 'confirmed') await this.payments.confirmBatch(hash, from, this.tokenCode);
      if (outcome === 'dead') {
        await this.payments.markBatchDead(hash);
        for (const p of byHash.get(hash)!) toMint.push({ ...p, mintTxHash: null, mintBatchId: null });
      }
    }
    if (toMint.length > 0) this.logger.info({ count: toMint.length }, 'reconciler minting verified payments');
    await Promise.all(toMint.map((p) => this.service.mint(p)));
  }

  private async settleEnvelope(hash: string): Promise<'confirmed' | 'dead' | 'pending'> {
    const client = this.runtime.client;
    const found = await client.findTransaction(hash);
    if (found) return found.successful ? 'confirmed' : 'dead';
    const batch = await this.payments.findBatch(hash);
    if (!batch) return 'dead';
    const tx = TransactionBuilder.fromXDR(batch.envelopeXdr, client.networkPassphrase) as Transaction;
    const maxTime = Number(tx.timeBounds?.maxTime ?? 0) * 1000;
    if (maxTime > 0 && Date.now() > maxTime + EXPIRY_MARGIN_MS) return 'dead';
    try {
      await client.submit(tx);
      return 'confirmed';
    } catch (err) {
      if (!(err instanceof LedgerRejectedError)) return 'pending';
      // Refused now: applied earlier (a duplicate), or dead. The hash decides.
      const again = await client.findTransaction(hash);
      if (again?.successful) return 'confirmed';
      return 'dead';
    }
  }
}
