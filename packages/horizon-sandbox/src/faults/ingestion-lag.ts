import { CurrentView, ViewAtLedger, type LedgerReadView } from '../ledger-read-view';
import type { AccountEntry, LedgerState } from '../ledger-state';

interface ClosedLedger {
  sequence: number;
  closedAtMs: number;
  /** When the read side may show it; its close time unless held back. */
  ingestAtMs: number;
  priorImages: ReadonlyMap<string, AccountEntry | undefined>;
}

/**
 * Horizon's ingestion behind core. Every closed ledger is noted here; one that holdBack() delays
 * stays invisible to the read routes until its time comes, and so do the ledgers closed after it,
 * because Horizon ingests ledgers in order. With nothing held back, reads go straight to the core
 * state: the normal path copies nothing, and a ledger's note is dropped at the next read or close.
 */
export class IngestionLag {
  private notIngested: ClosedLedger[] = [];
  private readonly current: CurrentView;

  constructor(
    private readonly state: LedgerState,
    private readonly now: () => number = Date.now,
  ) {
    this.current = new CurrentView(state);
  }

  ledgerClosed(sequence: number, priorImages: ReadonlyMap<string, AccountEntry | undefined>): void {
    this.catchUp();
    const now = this.now();
    this.notIngested.push({ sequence, closedAtMs: now, ingestAtMs: now, priorImages });
  }

  /**
   * Keeps a ledger from the read side until lagMs after its close. Called as soon as the submission's
   * result comes back, in the same turn of the event loop as the close (only promise continuations in
   * between), so no read can have seen the ledger yet: a ledger leaves `notIngested` only in a read or
   * a later close. False if it has already left.
   */
  holdBack(sequence: number, lagMs: number): boolean {
    const ledger = this.notIngested.find((closed) => closed.sequence === sequence);
    if (!ledger) return false;
    ledger.ingestAtMs = Math.max(ledger.ingestAtMs, ledger.closedAtMs + lagMs);
    return true;
  }

  /** Ingests everything held back at once. */
  release(): void {
    this.notIngested = [];
  }

  /** Whether a ledger that closed is still held back from this read side at this instant. */
  get behind(): boolean {
    this.catchUp();
    return this.notIngested.length > 0;
  }

  /** The read side at this instant; take one per request. */
  view(): LedgerReadView {
    this.catchUp();
    const oldest = this.notIngested[0];
    return oldest ? new ViewAtLedger(this.state, oldest.sequence - 1, this.notIngested) : this.current;
  }

  private catchUp(): void {
    const now = this.now();
    let ingested = 0;
    while (ingested < this.notIngested.length && (this.notIngested[ingested]?.ingestAtMs ?? Infinity) <= now) ingested++;
    if (ingested > 0) this.notIngested.splice(0, ingested);
  }
}
