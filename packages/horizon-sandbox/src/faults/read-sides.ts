import type { LedgerReadView } from '../ledger-read-view';
import type { AccountEntry, LedgerState } from '../ledger-state';
import type { FaultPlan } from './fault-plan';
import { IngestionLag } from './ingestion-lag';

/**
 * The instances behind one URL, as far as the sandbox tells them apart. `reads` answers every read;
 * `lookups` answers only the transaction lookups by hash (Horizon's GET /transactions/:hash, RPC's
 * getTransaction). They see the same ledgers unless a `split` fault holds one back from `lookups`
 * alone: then a lookup reaches an instance that has not ingested the submission's ledger yet, while
 * every other read reaches an up-to-date one. Each is an IngestionLag, so each answer stays
 * consistent with itself.
 */
export class ReadSides {
  private readonly reads: IngestionLag;
  private readonly lookups: IngestionLag;

  constructor(state: LedgerState) {
    this.reads = new IngestionLag(state);
    this.lookups = new IngestionLag(state);
  }

  ledgerClosed(sequence: number, priorImages: ReadonlyMap<string, AccountEntry | undefined>): void {
    this.reads.ledgerClosed(sequence, priorImages);
    this.lookups.ledgerClosed(sequence, priorImages);
  }

  /**
   * What a fault does to the read sides once its transaction's ledger closed: a lag hides the ledger
   * from both (the whole API lags), a split from the lookups only. Call it in the same turn of the
   * event loop as the close (see IngestionLag.holdBack).
   */
  applied(ledger: number, fault: FaultPlan | undefined): void {
    if (fault?.lagMs === undefined) return;
    if (fault.mode === 'lag' || fault.mode === 'lag-then-504') this.reads.holdBack(ledger, fault.lagMs);
    this.lookups.holdBack(ledger, fault.lagMs);
  }

  /** Ingests everything held back, on both sides. */
  release(): void {
    this.reads.release();
    this.lookups.release();
  }

  /** The read side for everything but lookups by hash; take one per answer. */
  view(): LedgerReadView {
    return this.reads.view();
  }

  /** The read side a transaction lookup by hash reaches; take one per answer. */
  lookupView(): LedgerReadView {
    return this.lookups.view();
  }
}
