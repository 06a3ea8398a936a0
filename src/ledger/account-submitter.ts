import { LedgerUnavailableError } from '../clients/ledger-errors';
import { reach } from './edge-failure';
import { EnvelopeBuilder, type Lane } from './envelope-builder';
import { BatchRounds, forgetSequence, type Batch, type QueuedJob } from './batch-rounds';
import { sendPoint } from './send-point';
import type { LedgerJob } from './kinds/entry-kind';
import type { EntryOutcome } from './write-command';
import type { Keypair } from '@stellar/stellar-sdk';
import type { LedgerApi } from '../clients/ledger-api';
import type { JournalRepository } from '../db/repositories/journal.repository';
import type { Logger } from '../logger';
import type { EnvelopeLifecycle } from './envelope-lifecycle';
import type { EnvelopeSender } from './envelope-sender';
import type { FeeBumper } from './fee-bumper';

/** What an account's submitter is built with (ledger-accounts.ts): its account, lanes, stores and timing. */
export interface AccountSubmitterOptions {
  client: LedgerApi;
  journal: JournalRepository;
  lifecycle: EnvelopeLifecycle;
  sender: EnvelopeSender;
  /** Pays every transaction's fee through a fee bump: no lane account needs XLM. */
  bumper: FeeBumper;
  /** The account whose operations these are (it signs every transaction it has operations in). */
  source: Keypair;
  /**
   * Channel accounts that give their sequence numbers instead of the source (fees come from the fee bump), one transaction
   * each per ledger, so several transactions of the source's operations land in the same ledger.
   * Unset = the source account itself is the only lane.
   */
  channels?: Keypair[];
  /** Cross-process mutual exclusion on a lane account (a PostgreSQL advisory lock). */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Jobs queued while a transaction is in flight go out together, up to this many operations. */
  maxOperations: number;
  logger: Logger;
  /** Ledgers a signed envelope stays valid after the ledger read before signing (its ledger bounds). */
  txTimeoutLedgers: number;
  /** How long this process owns a new envelope before the reconciler may look at it. */
  leaseMs: number;
  /** First pause before a batch's next round (doubles per round, at most 20 times this); default 100 ms. */
  retryBaseMs?: number;
}

/** Envelopes built for one batch before its jobs are handed back as waiting. */
const MAX_ROUNDS = 6;
/** Stellar accepts at most 20 signatures on a transaction envelope. */
const MAX_SIGNATURES = 20;

/**
 * The one submitter for a source account. Its transactions never race each other's sequence
 * numbers: in this process they go through one queue, across processes through an advisory lock
 * per lane. Jobs that arrive while a transaction is in flight are batched into the next one.
 *
 * Every envelope is stored in the journal, with its entries attached, before it is sent; an entry
 * moves to a new envelope only when its previous one has failed (see JournalRepository.attach).
 * Which sequence number a new envelope takes only matters for speed: two envelopes with the same
 * sequence number can never both apply.
 */
export class AccountSubmitter {
  readonly publicKey: string;
  private readonly queue: QueuedJob[] = [];
  private waking = false;
  private readonly lanes: Lane[];
  private readonly usesChannels: boolean;
  private readonly rounds: BatchRounds;
  private running = 0;
  private idleWaiters: (() => void)[] = [];
  /** Lanes waiting for their send point (send-point.ts): each is woken early when the queue fills a transaction. */
  private readonly gathering = new Set<() => void>();

  constructor(private readonly options: AccountSubmitterOptions) {
    this.publicKey = options.source.publicKey();
    this.usesChannels = (options.channels?.length ?? 0) > 0;
    this.lanes = (this.usesChannels ? options.channels! : [options.source]).map((keypair) => ({ keypair, account: undefined, busy: false }));
    this.rounds = new BatchRounds(options, new EnvelopeBuilder(options, this.usesChannels));
  }

  /**
   * Queues a job; resolves (never rejects) with what became of it. The same entry queued twice
   * (its request still waiting for a lane when the reconciler took it up after the lease) is one
   * job, and both callers get its one outcome: two copies in one batch made the journal refuse the
   * envelope without naming a lost entry, and the batch retried for ever while holding its lane.
   */
  submit(job: LedgerJob): Promise<EntryOutcome> {
    if (job.operations.length === 0 || job.operations.length > this.options.maxOperations) {
      return Promise.reject(new Error(`a job needs 1..${this.options.maxOperations} operations`));
    }
    const queued = this.queue.find((q) => q.job.entryId === job.entryId);
    if (queued) return queued.outcome;
    const fresh = queuedJob(job);
    this.queue.push(fresh);
    this.wake();
    if (this.gathering.size > 0 && this.nextBatch().fills) for (const go of [...this.gathering]) go();
    return fresh.outcome;
  }

  /** The key pair of the account whose operations these are. */
  get source(): Keypair {
    return this.options.source;
  }

  /** Nothing queued, about to be taken or in flight: the registry may let it go (wallet-submitters.ts). */
  get idle(): boolean {
    return this.running === 0 && this.queue.length === 0 && !this.waking;
  }

  get queueDepth(): number {
    return this.queue.length;
  }

  /** Resolves once nothing is queued or in flight (graceful shutdown). */
  drained(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Sets idle lanes to work on the queue. Deferred by a tick so the current burst of callers is
   * queued before the first transaction is built.
   */
  private wake(): void {
    if (this.waking) return;
    this.waking = true;
    setImmediate(() => {
      this.waking = false;
      for (const lane of this.lanes) {
        if (lane.busy || this.queue.length === 0) continue;
        lane.busy = true;
        this.running++;
        void this.runLane(lane).finally(() => {
          lane.busy = false;
          this.running--;
          if (this.queue.length > 0) this.wake();
          else if (this.running === 0) for (const done of this.idleWaiters.splice(0)) done();
        });
      }
    });
  }

  private async runLane(lane: Lane): Promise<void> {
    while (this.queue.length > 0) {
      await this.untilSendPoint();
      // Another lane took what was queued meanwhile.
      if (this.queue.length === 0) break;
      const batch = this.takeBatch();
      const ran = await reach(() => this.options.withLock(`ledger-account:${lane.keypair.publicKey()}`, () => this.runBatch(lane, batch)));
      if (ran.reached) continue;
      // The advisory lock or the database failed under the batch (a bug thrown by a round arrives
      // here too): its jobs not answered yet wait. An envelope already sent stays in the journal
      // as it stands; an entry riding an open one is never dropped, and the reconciler settles it.
      forgetSequence(lane);
      for (const q of batch) q.resolve({ status: 'waiting', error: ran.error });
    }
  }

  /**
   * With channel accounts on a ledger whose pace the client knows, a lane whose transaction the
   * queue does not fill waits until its send point (send-point.ts), or until the queue fills one.
   * Only when it sends changes; what it sends, and every outcome, are as without the wait.
   */
  private async untilSendPoint(): Promise<void> {
    if (!this.usesChannels) return;
    // Nothing left to wait with once another lane took the queue.
    while (this.queue.length > 0) {
      const until = sendPoint(Date.now(), this.options.client.nextClose?.(), this.nextBatch().fills);
      if (until === undefined) return;
      const filled = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => settle(false), until - Date.now());
        const go = () => settle(true);
        const settle = (byFill: boolean) => {
          clearTimeout(timer);
          this.gathering.delete(go);
          resolve(byFill);
        };
        this.gathering.add(go);
      });
      // At the send point the lane sends: asked again after a late timer, the watch would name the close after.
      if (!filled) return;
      // Woken because the queue fills a transaction: another lane may have taken it first.
    }
  }

  /** How many jobs from the head of the queue fit one transaction (the operation and 20-signature limits), and whether they fill it. */
  private nextBatch(): { count: number; fills: boolean } {
    let ops = 0;
    let count = 0;
    const signers = new Set<string>([this.publicKey]);
    if (this.usesChannels) signers.add('channel');
    for (const next of this.queue) {
      const extra = (next.job.signers ?? []).map((k) => k.publicKey()).filter((k) => !signers.has(k));
      if (count > 0 && (ops + next.job.operations.length > this.options.maxOperations || signers.size + extra.length > MAX_SIGNATURES)) return { count, fills: true };
      count++;
      ops += next.job.operations.length;
      for (const k of extra) signers.add(k);
    }
    return { count, fills: ops >= this.options.maxOperations };
  }

  /** The next jobs that fit one transaction. */
  private takeBatch(): QueuedJob[] {
    return this.queue.splice(0, this.nextBatch().count);
  }

  /**
   * Rounds of envelopes until every job is answered. A round that fails leaves the jobs for the
   * next (after a backoff); one whose entries went to another process does not count. When the
   * rounds run out (or a build error no round can mend), the jobs are answered `waiting` with the
   * last error: none of their envelopes can apply, so the entries wait for a new one.
   */
  private async runBatch(lane: Lane, jobs: QueuedJob[]): Promise<void> {
    const batch: Batch = { pending: jobs, lastError: new LedgerUnavailableError(), bidFloor: undefined, windowFactor: 1 };
    let round = 0;
    let atOnce = false;
    while (round < MAX_ROUNDS && batch.pending.length > 0) {
      if (round > 0 && !atOnce) await backoff(round, this.options.retryBaseMs ?? 100);
      const end = await this.rounds.play(lane, batch);
      if (end.next === 'done') return;
      if (end.error) batch.lastError = end.error;
      if (end.next === 'give_up') break;
      if (end.countsAsRound) round++;
      atOnce = end.atOnce === true;
    }
    for (const q of batch.pending) q.resolve({ status: 'waiting', error: batch.lastError });
  }
}

function queuedJob(job: LedgerJob): QueuedJob {
  let resolve!: (outcome: EntryOutcome) => void;
  const outcome = new Promise<EntryOutcome>((settle) => (resolve = settle));
  return { job, outcome, resolve };
}

function backoff(round: number, baseMs: number): Promise<void> {
  const base = Math.min(20 * baseMs, baseMs * 2 ** round);
  return new Promise((resolve) => setTimeout(resolve, base / 2 + Math.random() * (base / 2)));
}
