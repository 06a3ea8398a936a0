import type { EnvelopeRow, EntryRow, JournalRepository } from '../db/repositories/journal.repository';
import { errorReason } from '../errors/loggable-error';
import type { Logger } from '../logger';
import { BackgroundWorker } from '../workers/background-worker';
import type { EntryJobs } from './entry-jobs';
import { factsOf } from './envelope-fate';
import type { EnvelopeLifecycle } from './envelope-lifecycle';
import type { EnvelopeSender } from './envelope-sender';
import type { JournalAccounts } from './ledger-accounts';

/** What the reconciler works with: the journal's storage, the sender, and how to build an entry's job. */
export interface ReconcilerParts {
  repository: JournalRepository;
  lifecycle: EnvelopeLifecycle;
  sender: EnvelopeSender;
  jobs: EntryJobs;
  networkPassphrase: string;
  /** The accounts, once the network holds what the service needs (LedgerBootstrap.ready). */
  ready(): Promise<JournalAccounts>;
}

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
    private readonly parts: ReconcilerParts,
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
    const ledger = await this.parts.ready();
    const repo = this.parts.repository;
    const envelopes = await repo.claimOpenEnvelopes(this.options.batchSize, this.options.leaseMs);
    await Promise.all(envelopes.map((e) => this.settle(e)));
    const entries = await repo.claimWaitingEntries(this.options.batchSize, this.options.leaseMs);
    if (entries.length > 0) this.logger.info({ count: entries.length }, 'reconciler building new envelopes for waiting entries');
    await Promise.all(entries.map((e) => this.resubmit(ledger, e)));
    return envelopes.length + entries.length > 0;
  }

  private async settle(row: EnvelopeRow): Promise<void> {
    const { sender, networkPassphrase, lifecycle } = this.parts;
    try {
      const facts = { ...factsOf(row.envelopeXdr, networkPassphrase), priorOuterHashes: row.priorOuterHashes };
      const outcome = row.status === 'pending' ? await sender.send(row.id, facts.tx, facts) : await sender.settle(row.id, facts.tx, facts, 1);
      // A first submission refused: recorded as every refusal is; which operations are whose is not
      // known here, so every entry rides again (a new envelope gets a precise answer).
      if (outcome.kind === 'refused') await lifecycle.refused(row.id, outcome.error, undefined);
    } catch (err) {
      this.logger.warn({ hash: row.hash, reason: errorReason(err) }, 'envelope not settled yet');
    }
  }

  /** A new envelope for an entry whose previous one can never apply (or that never had one). */
  private async resubmit(ledger: JournalAccounts, entry: EntryRow): Promise<void> {
    try {
      const { submitter, job } = await this.parts.jobs.jobFor(ledger, entry);
      const outcome = await submitter.submit(job);
      if (outcome.status === 'waiting') await this.parts.repository.releaseEntry(entry.id, this.options.leaseMs);
    } catch (err) {
      this.logger.warn({ entryId: entry.id, kind: entry.kind, reason: errorReason(err) }, 'entry not resubmitted yet');
    }
  }
}
