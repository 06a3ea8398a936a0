import type { EnvelopeRow, EntryRow } from '../db/repositories/journal.repository';
import type { Logger } from '../logger';
import { BackgroundWorker } from '../workers/background-worker';
import { factsOf } from './envelope-fate';
import type { LedgerJournal } from './ledger-journal';
import { errorReason } from '../errors/loggable-error';

export interface ReconcilerOptions {
  /** How long a claim on an envelope or entry lasts (another process may take it after). */
  leaseMs: number;
  /** Envelopes and entries taken per pass. */
  batchSize: number;
}

/**
 * Finishes what requests could not wait for and what crashed processes left behind, at start and
 * on an interval, in any number of processes at once: work is claimed in the database (FOR UPDATE
 * SKIP LOCKED with a lease), never through in-memory sets.
 *
 * - An open envelope: never sent (pending) -> sent now, its first submission; sent (submitted) ->
 *   its fate is looked up by ledger evidence (envelopeFate) and, while open, the same bytes are
 *   resubmitted.
 * - An entry waiting for an envelope (its previous one failed, or its process died before signing
 *   one): a new envelope is built for it.
 */
export class JournalReconciler extends BackgroundWorker {
  constructor(
    private readonly journal: LedgerJournal,
    private readonly options: ReconcilerOptions,
    private readonly logger: Logger,
  ) {
    super(logger, { failureMessage: 'reconciliation deferred' });
  }

  protected pass(): Promise<boolean> {
    return this.reconcile();
  }

  /** Passes until nothing is due (for tests and the CLI). */
  async drain(maxPasses = 50): Promise<void> {
    for (let pass = 0; pass < maxPasses; pass++) {
      const worked = await this.reconcile();
      if (!worked) return;
    }
  }

  private async reconcile(): Promise<boolean> {
    await this.journal.ready();
    const repo = this.journal.repository;
    const envelopes = await repo.claimOpenEnvelopes(this.options.batchSize, this.options.leaseMs);
    await Promise.all(envelopes.map((e) => this.settle(e)));
    const entries = await repo.claimWaitingEntries(this.options.batchSize, this.options.leaseMs);
    if (entries.length > 0) this.logger.info({ count: entries.length }, 'reconciler building new envelopes for waiting entries');
    await Promise.all(entries.map((e) => this.resubmit(e)));
    return envelopes.length + entries.length > 0;
  }

  private async settle(row: EnvelopeRow): Promise<void> {
    const { sender, client, repository } = this.journal;
    try {
      const facts = { ...factsOf(row.envelopeXdr, client.networkPassphrase), priorOuterHashes: row.priorOuterHashes };
      const outcome = row.status === 'pending' ? await sender.send(row.id, facts.tx, facts) : await sender.settle(row.id, facts.tx, facts, 1);
      // A first submission refused: which operation failed is for the live path to weigh; here
      // every entry simply rides again (a new envelope gets a precise answer).
      if (outcome.kind === 'refused') await repository.fail(row.id, outcome.error.message, [], { proven: false });
    } catch (err) {
      this.logger.warn({ hash: row.hash, reason: errorReason(err) }, 'envelope not settled yet');
    }
  }

  private async resubmit(entry: EntryRow): Promise<void> {
    try {
      const outcome = await this.journal.resubmit(entry);
      if (outcome.status === 'waiting') await this.journal.repository.releaseEntry(entry.id, this.options.leaseMs);
    } catch (err) {
      this.logger.warn({ entryId: entry.id, kind: entry.kind, reason: errorReason(err) }, 'entry not resubmitted yet');
    }
  }
}
