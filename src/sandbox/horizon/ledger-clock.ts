import type { SandboxLedger, Submission, SubmissionResult } from './sandbox-ledger';

export class LedgerClosedError extends Error {
  constructor() {
    super('the sandbox ledger is closed');
    this.name = 'LedgerClosedError';
  }
}

interface Pending {
  submission: Submission;
  resolve: (result: SubmissionResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Decides when ledgers close. With closeMs 0 every submission closes its own ledger at once; with
 * closeMs N, submissions wait in arrival order and a timer closes a ledger every N ms, answering
 * each caller only then, as Horizon does while a transaction waits for the next ledger.
 */
export class LedgerClock {
  private queue: Pending[] = [];
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly idleTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  /**
   * `idleCloseMs`: when no ledger has closed for this long, an empty one closes, as Stellar closes
   * a ledger every ~5 s whether or not anyone submits. Without it an idle sandbox's time would
   * stand still, and no envelope's maxTime could ever be seen to pass. 0 turns it off.
   */
  constructor(
    private readonly ledger: SandboxLedger,
    private readonly closeMs: number,
    idleCloseMs = 5000,
  ) {
    if (closeMs > 0) {
      this.timer = setInterval(() => this.closeNow(), closeMs);
      // the ledger timer alone must never keep a process (or a test run) alive
      this.timer.unref();
    }
    if (idleCloseMs > 0) {
      this.idleTimer = setInterval(() => {
        const idleMs = Date.now() - this.ledger.state.latest.closedAt * 1000;
        if (this.queue.length === 0 && idleMs >= idleCloseMs) this.ledger.closeLedger([], Date.now(), { allowEmpty: true });
      }, Math.max(100, Math.floor(idleCloseMs / 5)));
      this.idleTimer.unref();
    }
  }

  submit(submission: Submission): Promise<SubmissionResult> {
    if (this.stopped) return Promise.reject(new LedgerClosedError());
    if (this.closeMs <= 0) {
      const [result] = this.ledger.closeLedger([submission]);
      return result ? Promise.resolve(result) : Promise.reject(new Error('ledger returned no result'));
    }
    return new Promise((resolve, reject) => this.queue.push({ submission, resolve, reject }));
  }

  /** Stops the timer; whatever is still waiting goes into one last ledger so that no caller hangs. */
  stop(): void {
    if (this.stopped) return;
    if (this.timer) clearInterval(this.timer);
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.closeNow();
    this.stopped = true;
  }

  private closeNow(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    try {
      const results = this.ledger.closeLedger(batch.map((pending) => pending.submission));
      batch.forEach((pending, index) => {
        const result = results[index];
        if (result) pending.resolve(result);
        else pending.reject(new Error('ledger returned no result'));
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }
}
