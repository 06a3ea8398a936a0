import type { FeeBumpTransaction } from '@stellar/stellar-sdk';
import { LedgerRejectedError, LedgerUnavailableError } from '../clients/ledger-errors';
import type { JournalRepository } from '../db/repositories/journal.repository';
import type { EnvelopeLifecycle } from './envelope-lifecycle';
import type { EnvelopeBuilder, Lane } from './envelope-builder';
import { factsOfTransaction, type EnvelopeFacts } from './envelope-fate';
import type { EnvelopeSender, SendOutcome } from './envelope-sender';
import { bidNamedBy, bidPerOperation } from './fee-bumper';
import type { LedgerJob } from './kinds/entry-kind';
import type { EntryOutcome } from './write-command';

/** A job in a submitter's queue, with the promise of its outcome every caller of it was given. */
export interface QueuedJob {
  job: LedgerJob;
  outcome: Promise<EntryOutcome>;
  /** Settles `outcome`: the first answer is the job's, later ones change nothing. */
  resolve(outcome: EntryOutcome): void;
}

/** What a batch carries from one round to the next. */
export interface Batch {
  /** Jobs not answered yet: they go into the next envelope. */
  pending: QueuedJob[];
  /** What the pending jobs are answered with (`waiting`) when the rounds run out. */
  lastError: Error;
  /** Raised when a full queue refuses a bid (tx_insufficient_fee): recent charges lag behind a surge. */
  bidFloor: bigint | undefined;
  /**
   * How many times the configured ledger window the next envelope gets: doubled after tx_too_late
   * (the ledger outran the window, e.g. a burst on fast ledgers), up to MAX_WINDOW_FACTOR.
   */
  windowFactor: number;
}

/** A window of 24 ledgers grows to 192 at most: an envelope unknown after a crash is proven dead within that. */
const MAX_WINDOW_FACTOR = 8;

/** What a round works with: the journal's storage and the envelope's settlement, the sender, how long a new envelope is this process's. */
export interface BatchRoundsDeps {
  journal: JournalRepository;
  lifecycle: EnvelopeLifecycle;
  sender: EnvelopeSender;
  leaseMs: number;
}

/** How one round of a batch ended, and so what the batch does next. */
export type RoundEnd =
  /** Every pending job has its answer. */
  | { next: 'done' }
  /**
   * The pending jobs go into a new envelope. `error`, when set, is the new last error.
   * `countsAsRound: false` only when entries went to another process: the round changed the batch.
   * `atOnce`: nothing to wait out (the ledgers passed the envelope's bounds while it waited).
   */
  | { next: 'retry'; countsAsRound: boolean; error?: Error; atOnce?: boolean }
  /** No new envelope can do better: the pending jobs wait, with this error. */
  | { next: 'give_up'; error: Error };

/** An envelope built for the pending jobs, with what the journal and the sender need of it. */
interface Built {
  tx: FeeBumpTransaction;
  /** The inner transaction's hash: what the jobs are answered with. */
  hash: string;
  facts: EnvelopeFacts;
  bidLedger: number | undefined;
}

/**
 * The lane's next envelope reloads the account's sequence number. After anything but an applied
 * (or tx_failed) envelope the cached one cannot be trusted: what was sent may or may not have
 * consumed it, and another process may have used the account meanwhile.
 */
export function forgetSequence(lane: Lane): void {
  lane.account = undefined;
}

/**
 * One round of a batch: build an envelope of the pending jobs, attach their entries to it in the
 * journal, send it, and settle what the sender answers. Each step ends the round early with a
 * RoundEnd when it cannot go on.
 */
export class BatchRounds {
  constructor(
    private readonly options: BatchRoundsDeps,
    private readonly builder: EnvelopeBuilder,
  ) {}

  async play(lane: Lane, batch: Batch): Promise<RoundEnd> {
    const built = await this.build(lane, batch);
    if ('next' in built) return built;
    const attached = await this.attach(lane, batch, built);
    if ('next' in attached) return attached;
    const outcome = await this.options.sender.send(attached.envelopeId, built.tx, built.facts);
    return this.settleSend(lane, batch, built, attached.envelopeId, outcome);
  }

  /**
   * The envelope of the pending jobs, or how the round ends without one. A bug thrown while
   * building reaches the submitter's lock edge, which answers the jobs `waiting` with it, as
   * give_up does.
   */
  private async build(lane: Lane, batch: Batch): Promise<Built | RoundEnd> {
    const build = await this.builder.build(lane, batch.pending.map((q) => q.job), batch.bidFloor, batch.windowFactor);
    switch (build.kind) {
      case 'unreachable':
        // Only an unreachable ledger API may answer next round; any other build error would repeat.
        forgetSequence(lane);
        return { next: 'retry', countsAsRound: true, error: build.error };
      case 'unbuildable':
        forgetSequence(lane);
        return { next: 'give_up', error: build.error };
      case 'built': {
        const tx = build.envelope;
        return { tx, hash: tx.innerTransaction.hash().toString('hex'), facts: factsOfTransaction(tx), bidLedger: build.bidLedger };
      }
    }
  }

  /** Stores the envelope with the pending entries attached: nothing is sent that the journal does not hold. */
  private async attach(lane: Lane, batch: Batch, built: Built): Promise<{ envelopeId: string } | RoundEnd> {
    const stored = storedEnvelope(built);
    const attached = await this.options.journal.attach(stored, batch.pending.map((q) => q.job.entryId), this.options.leaseMs);
    if ('duplicate' in attached) {
      // The journal already holds this very inner transaction (built elsewhere with the same
      // sequence number, operations and ledger bounds): nothing was stored; build a new one.
      forgetSequence(lane);
      return { next: 'retry', countsAsRound: true, error: new LedgerUnavailableError('an identical envelope is already in the journal') };
    }
    if (!('lost' in attached)) return attached;
    // Another process put these entries in an envelope of its own: it answers for them.
    forgetSequence(lane);
    const lost = new Set(attached.lost);
    for (const q of batch.pending) if (lost.has(q.job.entryId)) q.resolve({ status: 'pending' });
    batch.pending = batch.pending.filter((q) => !lost.has(q.job.entryId));
    // Never again a round that cannot change anything: without a named loss, count the round.
    return { next: 'retry', countsAsRound: lost.size === 0 };
  }

  private async settleSend(lane: Lane, batch: Batch, built: Built, envelopeId: string, outcome: SendOutcome): Promise<RoundEnd> {
    switch (outcome.kind) {
      case 'applied':
        answerAll(batch, { status: 'confirmed', hash: built.hash, ledger: outcome.ledger });
        return { next: 'done' };
      case 'refused':
        return this.afterRefusal(lane, batch, built, envelopeId, outcome.error);
      case 'failed':
        forgetSequence(lane);
        return { next: 'retry', countsAsRound: true, error: outcome.reason === 'not_delivered' ? new LedgerUnavailableError() : new LedgerRejectedError('tx_failed', []) };
      case 'unknown':
        // Left open for the reconciler: it answers for these entries now.
        forgetSequence(lane);
        answerAll(batch, { status: 'pending' });
        return { next: 'done' };
      case 'elsewhere':
        forgetSequence(lane);
        return this.afterSettledElsewhere(batch, built, envelopeId);
    }
  }

  /** A first submission refused: final refusals are answered failed, the other jobs ride again. */
  private async afterRefusal(lane: Lane, batch: Batch, built: Built, envelopeId: string, error: LedgerRejectedError): Promise<RoundEnd> {
    const { survivors, recorded } = await this.recordRefusal(envelopeId, batch.pending, error);
    if (!recorded) {
      // The envelope was no longer open (settled elsewhere): its outcome is unknown here, not a refusal.
      forgetSequence(lane);
      answerAll(batch, { status: 'pending' });
      return { next: 'done' };
    }
    // Only tx_failed reaches the ledger and consumes the sequence number; any other refusal does not.
    if (error.transactionCode !== 'tx_failed') forgetSequence(lane);
    if (error.transactionCode === 'tx_insufficient_fee') {
      // The refusal names the fee the queue would take; without it, twice the refused bid.
      const named = bidNamedBy(error, built.tx);
      const refused = bidPerOperation(built.tx);
      batch.bidFloor = named !== undefined && named > refused ? named : refused * 2n;
    }
    batch.pending = survivors;
    if (error.transactionCode === 'tx_too_late') {
      // The ledger moved past the envelope's window before it arrived (a burst on fast ledgers): it
      // cannot have applied, and a new envelope with a wider window has nothing to wait for.
      batch.windowFactor = Math.min(MAX_WINDOW_FACTOR, batch.windowFactor * 2);
      return { next: 'retry', countsAsRound: true, error, atOnce: true };
    }
    return { next: 'retry', countsAsRound: true, error };
  }

  /** Another process settled the envelope first: the journal says what became of it. */
  private async afterSettledElsewhere(batch: Batch, built: Built, envelopeId: string): Promise<RoundEnd> {
    const now = await this.options.journal.findEnvelope(envelopeId);
    if (now?.status === 'confirmed') {
      answerAll(batch, { status: 'confirmed', hash: built.hash, ledger: now.ledger ?? 0 });
      return { next: 'done' };
    }
    if (now?.status !== 'failed') {
      answerAll(batch, { status: 'pending' });
      return { next: 'done' };
    }
    // Failed for good: its entries are free to ride again; the last error stands.
    return { next: 'retry', countsAsRound: true };
  }

  /**
   * Records a first submission's refusal: jobs whose own operations the ledger refused for good
   * are answered failed; the others go into the next envelope.
   */
  private async recordRefusal(envelopeId: string, pending: QueuedJob[], error: LedgerRejectedError): Promise<{ survivors: QueuedJob[]; recorded: boolean }> {
    const carried = pending.map((q) => ({ entryId: q.job.entryId, kind: q.job.kind, operations: q.job.operations.length }));
    const finals = await this.options.lifecycle.refused(envelopeId, error, carried);
    if (!finals) return { survivors: pending, recorded: false };
    for (const q of pending) {
      const own = finals.get(q.job.entryId);
      if (own) q.resolve({ status: 'failed', error: own });
    }
    return { survivors: pending.filter((q) => !finals.has(q.job.entryId)), recorded: true };
  }
}

function answerAll(batch: Batch, outcome: EntryOutcome): void {
  for (const q of batch.pending) q.resolve(outcome);
}

/** The journal row of a built envelope. */
function storedEnvelope({ tx, hash, facts, bidLedger }: Built): Parameters<JournalRepository['attach']>[0] {
  return {
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
}
