import type { Envelope } from './apply-transaction';
import { acceptanceOf, refusedAtAdmission, type Acceptance } from './core-admission';
import type { SandboxLedger, Submission, SubmissionResult } from './sandbox-ledger';
import { TransactionQueue, pendingSubmission, type QueuedTransaction } from './transaction-queue';

export class LedgerClosedError extends Error {
  constructor() {
    super('the sandbox ledger is closed');
    this.name = 'LedgerClosedError';
  }
}

export interface LedgerClockOptions {
  /** 0: every submission closes its own ledger at once; N: a ledger closes every N ms. */
  closeMs: number;
  /**
   * When no ledger has closed for this long, an empty one closes, as Stellar closes a ledger every
   * ~5 s whether or not anyone submits. Without it an idle sandbox's time would stand still, and no
   * envelope's maxTime could ever be seen to pass. 0 turns it off.
   */
  idleCloseMs: number;
  /** Operations one ledger takes (0: no limit); with closeMs 0 it is not enforced. */
  maxOperationsPerLedger: number;
  /** Ledgers a transaction may wait for room before core drops it; the queue holds this many ledgers' worth. */
  pendingDepthLedgers: number;
}

const DROPPED: SubmissionResult = { status: 'dropped' };

/**
 * Decides when ledgers close. With closeMs 0 every submission closes its own ledger at once; with
 * closeMs N, submissions wait in core's queue and a timer closes a ledger every N ms, answering each
 * caller only when its transaction is applied, refused, or dropped from the queue, as Horizon does
 * while a transaction waits for a ledger.
 */
export class LedgerClock {
  private readonly queue: TransactionQueue;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly idleTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly ledger: SandboxLedger,
    private readonly options: LedgerClockOptions,
  ) {
    this.queue = new TransactionQueue(options.pendingDepthLedgers * options.maxOperationsPerLedger);
    if (options.closeMs > 0) {
      this.timer = setInterval(() => this.closeNow(), options.closeMs);
      // the ledger timer alone must never keep a process (or a test run) alive
      this.timer.unref();
    }
    const { idleCloseMs } = options;
    if (idleCloseMs > 0) {
      this.idleTimer = setInterval(() => {
        const idleMs = Date.now() - this.ledger.state.latest.closedAt * 1000;
        if (this.queue.size === 0 && idleMs >= idleCloseMs) this.ledger.closeLedger([], Date.now(), { allowEmpty: true });
      }, Math.max(100, Math.floor(idleCloseMs / 5)));
      this.idleTimer.unref();
    }
  }

  submit(submission: Submission): Promise<SubmissionResult> {
    if (this.stopped) return Promise.reject(new LedgerClosedError());
    if (this.options.closeMs <= 0) {
      const [outcome] = this.ledger.closeLedger([pendingSubmission(submission)]);
      return outcome && outcome.status !== 'waiting'
        ? Promise.resolve(outcome)
        : Promise.reject(new Error('ledger returned no result'));
    }
    const admission = this.queue.admit(submission);
    if (admission.kind === 'refused') return Promise.resolve(admission.result);
    if (admission.kind === 'queued') for (const dropped of admission.dropped) answer(dropped, DROPPED);
    return new Promise((resolve, reject) => admission.entry.waiters.push({ resolve, reject }));
  }

  /**
   * Core's answer to a submitter that does not wait for the ledger (RPC's sendTransaction): refused,
   * a duplicate, try again later, or PENDING with the outcome to come when its ledger closes. With
   * closeMs 0 that ledger closes before this returns. Shares the queue, and its rules, with submit().
   */
  accept(envelope: Envelope): Acceptance {
    if (this.stopped) throw new LedgerClosedError();
    const refused = refusedAtAdmission(this.ledger.state, this.queue.list(), envelope, Date.now());
    if (refused) return refused;
    if (this.options.closeMs <= 0) return acceptanceOf(this.ledger.closeLedger([pendingSubmission(envelope)])[0]);

    const admission = this.queue.admit(envelope);
    if (admission.kind === 'refused') {
      const { result } = admission;
      return result.status === 'rejected' ? { status: 'ERROR', errorResultXdr: result.resultXdr } : { status: 'TRY_AGAIN_LATER' };
    }
    if (admission.kind === 'joined') return { status: 'DUPLICATE' };
    for (const dropped of admission.dropped) answer(dropped, DROPPED);
    // nobody may be listening: a ledger that stops drops the transaction instead of rejecting a promise
    const outcome = new Promise<SubmissionResult>((resolve) =>
      admission.entry.waiters.push({ resolve, reject: () => resolve(DROPPED) }),
    );
    return { status: 'PENDING', outcome };
  }

  /** Stops the timer; whatever is still waiting goes into one last ledger, and what has no room there is refused. */
  stop(): void {
    if (this.stopped) return;
    if (this.timer) clearInterval(this.timer);
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.closeNow();
    this.stopped = true;
    for (const entry of this.queue.clear()) fail(entry, new LedgerClosedError());
  }

  private closeNow(): void {
    const batch = this.queue.list();
    if (batch.length === 0) return;
    let outcomes;
    try {
      outcomes = this.ledger.closeLedger(batch, Date.now(), { maxOperations: this.options.maxOperationsPerLedger });
    } catch (error) {
      for (const entry of this.queue.clear()) fail(entry, error);
      return;
    }
    batch.forEach((entry, index) => {
      const outcome = outcomes[index];
      if (outcome?.status === 'waiting') return;
      this.queue.settle(entry);
      if (outcome) answer(entry, outcome);
      else fail(entry, new Error('ledger returned no result'));
    });
    for (const expired of this.queue.ageOneLedger(this.options.pendingDepthLedgers)) answer(expired, DROPPED);
  }
}

function answer(entry: QueuedTransaction, result: SubmissionResult): void {
  for (const waiter of entry.waiters) waiter.resolve(result);
}

function fail(entry: QueuedTransaction, error: unknown): void {
  for (const waiter of entry.waiters) waiter.reject(error);
}
