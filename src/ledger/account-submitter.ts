import type { FeeBumpTransaction, Keypair } from '@stellar/stellar-sdk';
import { LedgerRejectedError, LedgerUnavailableError } from '../clients/ledger-errors';
import type { LedgerApi } from '../clients/ledger-api';
import { isUniqueViolation } from '../db/client';
import type { EntryVerdict, JournalRepository } from '../db/repositories/journal.repository';
import type { Logger } from '../logger';
import type { EnvelopeSender } from './envelope-sender';
import { bidNamedBy, bidPerOperation, type FeeBumper } from './fee-bumper';
import { isFinalRefusal } from './entry-verdict';
import { EnvelopeBuilder, type Lane } from './envelope-builder';
import { factsOfTransaction } from './envelope-fate';
import type { JobOutcome, LedgerJob } from './ledger-job';

export interface AccountSubmitterOptions {
  client: LedgerApi;
  journal: JournalRepository;
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

interface QueuedJob {
  job: LedgerJob;
  resolve(outcome: JobOutcome): void;
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
  private readonly builder: EnvelopeBuilder;
  private running = 0;
  private idle: (() => void)[] = [];

  constructor(private readonly options: AccountSubmitterOptions) {
    this.publicKey = options.source.publicKey();
    this.usesChannels = (options.channels?.length ?? 0) > 0;
    this.lanes = (this.usesChannels ? options.channels! : [options.source]).map((keypair) => ({ keypair, account: undefined, busy: false }));
    this.builder = new EnvelopeBuilder(options, this.usesChannels);
  }

  /** Queues a job; resolves (never rejects) with what became of it. */
  submit(job: LedgerJob): Promise<JobOutcome> {
    if (job.operations.length === 0 || job.operations.length > this.options.maxOperations) {
      return Promise.reject(new Error(`a job needs 1..${this.options.maxOperations} operations`));
    }
    return new Promise((resolve) => {
      // The same entry queued twice (its request still waiting for a lane when the reconciler took
      // it up after the lease): one job, both callers told its outcome. Two copies in one batch
      // made the journal refuse the envelope without naming a lost entry, and the batch retried
      // for ever while holding its lane.
      const queued = this.queue.find((q) => q.job.entryId === job.entryId);
      if (queued) {
        const first = queued.resolve;
        queued.resolve = (outcome) => {
          first(outcome);
          resolve(outcome);
        };
        return;
      }
      this.queue.push({ job, resolve });
      this.wake();
    });
  }

  get queueDepth(): number {
    return this.queue.length;
  }

  /** Resolves once nothing is queued or in flight (graceful shutdown). */
  drained(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
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
          else if (this.running === 0) for (const done of this.idle.splice(0)) done();
        });
      }
    });
  }

  private async runLane(lane: Lane): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.takeBatch();
      await this.options
        .withLock(`ledger-account:${lane.keypair.publicKey()}`, () => this.runBatch(lane, batch))
        .catch((err: unknown) => {
          // The lock or the database failed before anything was sent for these jobs.
          lane.account = undefined;
          const error = err instanceof Error ? err : new Error(String(err));
          for (const q of batch) q.resolve({ status: 'waiting', error });
        });
    }
  }

  /** The next jobs that fit one transaction: the operation limit and the 20-signature limit. */
  private takeBatch(): QueuedJob[] {
    const batch: QueuedJob[] = [];
    let ops = 0;
    const signers = new Set<string>([this.publicKey]);
    if (this.usesChannels) signers.add('channel');
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      const extra = (next.job.signers ?? []).map((k) => k.publicKey()).filter((k) => !signers.has(k));
      if (batch.length > 0 && (ops + next.job.operations.length > this.options.maxOperations || signers.size + extra.length > MAX_SIGNATURES)) break;
      batch.push(this.queue.shift()!);
      ops += next.job.operations.length;
      for (const k of extra) signers.add(k);
    }
    return batch;
  }

  private async runBatch(lane: Lane, initial: QueuedJob[]): Promise<void> {
    const { journal, sender } = this.options;
    let pending = initial;
    let lastError: Error = new LedgerUnavailableError();
    // Raised when a full queue refuses a bid (tx_insufficient_fee): recent charges lag behind a surge.
    let bidFloor: bigint | undefined;
    for (let round = 0; round < MAX_ROUNDS && pending.length > 0; round++) {
      if (round > 0) await backoff(round, this.options.retryBaseMs ?? 100);
      let tx: FeeBumpTransaction;
      let bidLedger: number | undefined;
      try {
        ({ envelope: tx, bidLedger } = await this.builder.build(lane, pending.map((q) => q.job), bidFloor));
      } catch (err) {
        lastError = err instanceof Error ? err : new Error(String(err));
        lane.account = undefined;
        if (err instanceof LedgerUnavailableError) continue;
        break;
      }
      const inner = tx.innerTransaction;
      const hash = inner.hash().toString('hex');
      const facts = factsOfTransaction(tx);
      const stored = {
        hash,
        sequence: facts.sequence,
        firstLedger: facts.firstLedger,
        lastLedger: facts.lastLedger,
        sourceAccount: facts.source,
        envelopeXdr: tx.toEnvelope().toXDR('base64'),
        outerHash: tx.hash().toString('hex'),
        bidStroops: BigInt(tx.fee),
        // Waiting is counted from the later of the fee reading (cached) and the ledger read just before signing.
        bidLedger: Math.max(bidLedger ?? 0, facts.firstLedger) || undefined,
      };
      let attached: Awaited<ReturnType<JournalRepository['attach']>>;
      try {
        attached = await journal.attach(stored, pending.map((q) => q.job.entryId), this.options.leaseMs);
      } catch (err) {
        // The journal already holds this very inner transaction (built elsewhere with the same
        // sequence number, operations and ledger bounds): nothing was stored; build a new one.
        if (!isUniqueViolation(err)) throw err;
        lane.account = undefined;
        lastError = new LedgerUnavailableError('an identical envelope is already in the journal');
        continue;
      }
      if ('lost' in attached) {
        // Another process put these entries in an envelope of its own: it answers for them.
        lane.account = undefined;
        const lost = new Set(attached.lost);
        // Never again a round that cannot change anything: without a named loss, count the round.
        if (lost.size === 0) round++;
        for (const q of pending) if (lost.has(q.job.entryId)) q.resolve({ status: 'unknown', hash: '' });
        pending = pending.filter((q) => !lost.has(q.job.entryId));
        round--;
        continue;
      }
      const outcome = await sender.send(attached.envelopeId, tx, facts);
      switch (outcome.kind) {
        case 'applied':
          for (const q of pending) q.resolve({ status: 'confirmed', hash, ledger: outcome.ledger });
          return;
        case 'refused': {
          const { survivors, recorded } = await this.recordRefusal(attached.envelopeId, pending, outcome.error);
          if (!recorded) {
            lane.account = undefined;
            for (const q of pending) q.resolve({ status: 'unknown', hash });
            return;
          }
          if (outcome.error.transactionCode !== 'tx_failed') lane.account = undefined; // sequence not consumed
          if (outcome.error.transactionCode === 'tx_insufficient_fee') {
            // The refusal names the fee the queue would take; without it, twice the refused bid.
            const named = bidNamedBy(outcome.error, tx);
            bidFloor = named !== undefined && named > bidPerOperation(tx) ? named : bidPerOperation(tx) * 2n;
          }
          lastError = outcome.error;
          pending = survivors;
          continue;
        }
        case 'failed':
          lane.account = undefined;
          lastError = outcome.reason === 'not_delivered' ? new LedgerUnavailableError() : new LedgerRejectedError('tx_failed', []);
          continue;
        case 'unknown':
          lane.account = undefined;
          for (const q of pending) q.resolve({ status: 'unknown', hash });
          return;
        case 'elsewhere': {
          lane.account = undefined;
          const now = await journal.findEnvelope(attached.envelopeId);
          if (now?.status === 'confirmed') {
            for (const q of pending) q.resolve({ status: 'confirmed', hash, ledger: now.ledger ?? 0 });
            return;
          }
          if (now?.status !== 'failed') {
            for (const q of pending) q.resolve({ status: 'unknown', hash });
            return;
          }
          continue;
        }
      }
    }
    for (const q of pending) q.resolve({ status: 'waiting', error: lastError });
  }

  /**
   * Records a first submission's refusal: jobs whose own operations the ledger refused for good
   * are answered failed; the others go into the next envelope.
   */
  private async recordRefusal(envelopeId: string, pending: QueuedJob[], error: LedgerRejectedError): Promise<{ survivors: QueuedJob[]; recorded: boolean }> {
    const verdicts: EntryVerdict[] = [];
    const finals = new Map<QueuedJob, LedgerRejectedError>();
    let index = 0;
    for (const q of pending) {
      const own = error.operationCodes.slice(index, index + q.job.operations.length);
      index += q.job.operations.length;
      const final = isFinalRefusal(q.job.kind, error, own);
      const ownError = error.transactionCode === 'tx_failed' ? new LedgerRejectedError('tx_failed', own) : error;
      verdicts.push({ entryId: q.job.entryId, final, code: ownError.code });
      if (final) finals.set(q, ownError);
    }
    const recorded = await this.options.journal.fail(envelopeId, error.message, verdicts, { proven: false });
    if (!recorded) return { survivors: pending, recorded };
    for (const [q, err] of finals) q.resolve({ status: 'failed', error: err });
    return { survivors: pending.filter((q) => !finals.has(q)), recorded };
  }
}

function backoff(round: number, baseMs: number): Promise<void> {
  const base = Math.min(20 * baseMs, baseMs * 2 ** round);
  return new Promise((resolve) => setTimeout(resolve, base / 2 + Math.random() * (base / 2)));
}
