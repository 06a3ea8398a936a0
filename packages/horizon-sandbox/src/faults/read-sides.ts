import type { LedgerReadView } from '../ledger-read-view';
import type { AccountEntry, LedgerState } from '../ledger-state';
import { isLagMode, type FaultPlan, type LagMode } from './fault-plan';
import { IngestionLag } from './ingestion-lag';

type SideName = 'reads' | 'laggingReads' | 'lookups';

/**
 * The read sides each lagging mode hides the submission's ledger from (and, as ingestion goes in
 * order, every ledger closed after it). lag: the whole API lags. split: a lookup by hash reaches an
 * instance that has not ingested the ledger yet, while every other read reaches an up-to-date one.
 * split-reads: one of the two instances that the other reads reach lags, and the load balancer sends
 * those reads to each in turn (see view()); lookups by hash are not affected.
 */
const HELD_BACK_FROM = {
  lag: ['reads', 'laggingReads', 'lookups'],
  'lag-then-504': ['reads', 'laggingReads', 'lookups'],
  split: ['lookups'],
  'split-then-504': ['lookups'],
  'split-reads': ['laggingReads'],
} as const satisfies Record<LagMode, readonly SideName[]>;

/**
 * The instances behind one URL, as far as the sandbox tells them apart. `reads` and `laggingReads`
 * answer every read but the lookups by hash, as two instances behind one load balancer; `lookups`
 * answers only the transaction lookups by hash (Horizon's GET /transactions/:hash, RPC's
 * getTransaction). They see the same ledgers unless a fault holds one back from some of them
 * (HELD_BACK_FROM). Each is an IngestionLag, so each answer stays consistent with itself.
 */
export class ReadSides {
  private readonly sides: Record<SideName, IngestionLag>;
  /** While laggingReads is behind: whether the balancer sends the next answer there. */
  private laggingAnswersNext = false;

  constructor(state: LedgerState) {
    this.sides = { reads: new IngestionLag(state), laggingReads: new IngestionLag(state), lookups: new IngestionLag(state) };
  }

  ledgerClosed(sequence: number, priorImages: ReadonlyMap<string, AccountEntry | undefined>): void {
    for (const side of Object.values(this.sides)) side.ledgerClosed(sequence, priorImages);
  }

  /**
   * What a fault does to the read sides once its transaction's ledger closed (HELD_BACK_FROM). Call
   * it in the same turn of the event loop as the close (see IngestionLag.holdBack).
   */
  applied(ledger: number, fault: FaultPlan | undefined): void {
    if (fault?.lagMs === undefined || !isLagMode(fault.mode)) return;
    for (const side of HELD_BACK_FROM[fault.mode]) this.sides[side].holdBack(ledger, fault.lagMs);
  }

  /** Ingests everything held back, on every side. */
  release(): void {
    for (const side of Object.values(this.sides)) side.release();
  }

  /**
   * The read side one answer reaches, for everything but lookups by hash: take one per answer, as
   * each take is the load balancer's pick. While laggingReads is behind (split-reads), the picks
   * alternate strictly between the up-to-date side and the lagging one, starting with the up-to-date
   * one; once it has caught up, every answer is up to date again.
   */
  view(): LedgerReadView {
    const balancing = this.balancing();
    const side = this.nextSide();
    if (balancing) this.laggingAnswersNext = !this.laggingAnswersNext;
    return side.view();
  }

  /**
   * The view the next answer will get, without taking its turn: for naming a latest ledger before
   * the answer takes its view, or in an answer that reads nothing (Horizon's Latest-Ledger on a 404).
   */
  peekView(): LedgerReadView {
    this.balancing();
    return this.nextSide().view();
  }

  /** The read side a transaction lookup by hash reaches; take one per answer. */
  lookupView(): LedgerReadView {
    return this.sides.lookups.view();
  }

  /** Whether the lagging instance is behind, so the balancer's pick matters; a later split starts afresh. */
  private balancing(): boolean {
    if (this.sides.laggingReads.behind) return true;
    this.laggingAnswersNext = false;
    return false;
  }

  private nextSide(): IngestionLag {
    return this.laggingAnswersNext ? this.sides.laggingReads : this.sides.reads;
  }
}
