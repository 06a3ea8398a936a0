import { expectStatus, sleep } from './http';

/**
 * Watches the sandbox ledger close (LEDGER_CLOSE_MS > 0) through its Horizon API: the root's
 * history_latest_ledger, then each new ledger's counts. The sandbox closes a ledger only when
 * something was submitted, so sequence numbers count busy closes; the time each was first seen
 * also gives closes by the clock (idle ticks included).
 */

export interface ClosedLedger {
  sequence: number;
  /** Date.now() of the poll that first saw it (at most pollMs late). */
  seenAt: number;
  transactions: number;
  failedTransactions: number;
  operations: number;
}

/** What a burst took, counted both ways. */
export interface CloseCount {
  /** Sequence of the last ledger the burst needed minus the latest one when it started. */
  bySequence: number;
  /** Ledger periods between the burst's start and the poll that saw its last ledger, rounded up. */
  byClock: number;
  /** The larger of the two: what targets are judged on. */
  closes: number;
  startSequence: number;
  lastSequence: number;
  operations: number;
  ledgers: ClosedLedger[];
}

interface RootResource {
  history_latest_ledger: number;
}

interface LedgerResource {
  sequence: number;
  successful_transaction_count: number;
  failed_transaction_count: number;
  operation_count: number;
}

/** At most this many ledger detail reads per poll, so a fast ledger never makes a poll unbounded. */
const MAX_READS_PER_POLL = 50;

export class LedgerWatch {
  private latestSeq = 0;
  private readonly seen = new Map<number, ClosedLedger>();
  private running = true;
  private loop: Promise<void> | undefined;

  private constructor(
    private readonly horizonUrl: string,
    private readonly pollMs: number,
    private readonly maxRunMs: number,
  ) {}

  /** Starts polling; stops by itself after maxRunMs even if never stopped. */
  static async start(horizonUrl: string, pollMs = 50, maxRunMs = 15 * 60_000): Promise<LedgerWatch> {
    const watch = new LedgerWatch(horizonUrl, pollMs, maxRunMs);
    watch.latestSeq = await watch.readLatest();
    watch.loop = watch.run();
    return watch;
  }

  latest(): number {
    return this.latestSeq;
  }

  private async readLatest(): Promise<number> {
    const res = await expectStatus<RootResource>(200, 'GET', `${this.horizonUrl}/`, { timeoutMs: 10_000 });
    return res.body.history_latest_ledger;
  }

  private async run(): Promise<void> {
    const deadline = Date.now() + this.maxRunMs;
    while (this.running && Date.now() < deadline) {
      try {
        const latest = await this.readLatest();
        const seenAt = Date.now();
        let reads = 0;
        for (let seq = this.latestSeq + 1; seq <= latest && reads < MAX_READS_PER_POLL; seq++, reads++) {
          const res = await expectStatus<LedgerResource>(200, 'GET', `${this.horizonUrl}/ledgers/${seq}`, { timeoutMs: 10_000 });
          this.seen.set(seq, {
            sequence: seq,
            seenAt,
            transactions: res.body.successful_transaction_count,
            failedTransactions: res.body.failed_transaction_count,
            operations: res.body.operation_count,
          });
          this.latestSeq = seq;
        }
      } catch {
        // A missed poll only delays what is seen; the next one catches up.
      }
      await sleep(this.pollMs);
    }
    this.running = false;
  }

  /**
   * Waits until the ledgers closed after `startSequence` hold `operations` successful operations
   * (the burst's), then counts the closes it took from `startedAt`. Rejects at the timeout.
   */
  async waitForOperations(startSequence: number, startedAt: number, operations: number, closeMs: number, timeoutMs: number): Promise<CloseCount> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ledgers = [...this.seen.values()].filter((l) => l.sequence > startSequence).sort((a, b) => a.sequence - b.sequence);
      let total = 0;
      for (const [i, ledger] of ledgers.entries()) {
        total += ledger.operations;
        if (total >= operations) {
          const upTo = ledgers.slice(0, i + 1);
          const bySequence = ledger.sequence - startSequence;
          const byClock = Math.ceil((ledger.seenAt - startedAt) / closeMs);
          return { bySequence, byClock, closes: Math.max(bySequence, byClock), startSequence, lastSequence: ledger.sequence, operations: total, ledgers: upTo };
        }
      }
      if (Date.now() > deadline || !this.running) {
        throw new Error(`only ${total} of ${operations} operations reached the ledger within ${timeoutMs} ms (ledgers ${startSequence + 1}..${this.latestSeq})`);
      }
      await sleep(this.pollMs);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
