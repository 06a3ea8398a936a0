// Start here for "every ledger write exactly once". Journal.write is the whole rule: the command's
// kind (kinds/) makes its entry, which is committed in one database transaction with what it claims
// (the request's Idempotency-Key, its kind's claim: a payment reference, a reversal, an approval; entry-commit.ts),
// then its account's submitter signs, stores and sends it, and the caller is answered within its
// wait. Below it: account-submitter.ts (batches, envelopes stored before they are sent),
// envelope-sender.ts (the send and its settling by evidence), envelope-lifecycle.ts (an envelope's
// settlement and what it means for its entries). Beside it: journal-reconciler.ts finishes what no
// caller waited for. Above it: ledger-bootstrap.ts (what the network must hold first).
import type { xdr } from '@stellar/stellar-sdk';
import { LedgerRejectedError } from '../clients/ledger-errors';
import type { Database } from '../db/client';
import { appendAdminLog } from '../db/repositories/admin-log.repository';
import type { AdminLogEntry } from '../domain/admin-log';
import type { IdempotencyClaim, IdempotencyRepository } from '../db/repositories/idempotency.repository';
import type { EntryRow, JournalRepository } from '../db/repositories/journal.repository';
import { commitEntry } from './entry-commit';
import type { EntryJobs } from './entry-jobs';
import { reach } from './edge-failure';
import type { EntryKind } from './kinds/entry-kind';
import type { KindRegistry } from './kinds/registry';
import type { JournalAccounts, JournalTiming, LedgerAccounts } from './ledger-accounts';
import type { EntryOutcome, WriteCommand, WriteOptions, WriteResult, WrittenOutcome } from './write-command';

export interface JournalParts {
  db: Database;
  repository: JournalRepository;
  idempotency: IdempotencyRepository;
  accounts: LedgerAccounts;
  kinds: KindRegistry;
  jobs: EntryJobs;
  timing: JournalTiming;
}

/**
 * Every write to the network, exactly once. A write commits a journal entry (with its claim, in
 * one transaction), then the entry's account submitter signs, stores and sends an envelope for it,
 * and the caller gets the entry's outcome, or `pending` when it takes longer than its wait: the
 * reconciler finishes it. Nothing else signs or submits.
 */
export class Journal {
  constructor(private readonly parts: JournalParts) {}

  /** Commits the command's entry and answers its outcome (WriteResult says every case). */
  async write(command: WriteCommand, options: WriteOptions = {}): Promise<WriteResult> {
    const ledger = await this.parts.accounts.ready();
    const kind = this.parts.kinds.of(command.kind);
    const prepared = await kind.prepare(command, this.parts.jobs.context(ledger));
    if (!prepared) return { written: false, reason: 'nothing_to_do' };
    const committed = await commitEntry({ db: this.parts.db, repository: this.parts.repository, leaseMs: this.parts.timing.leaseMs }, kind, prepared.entry, options.idempotency, options.adminLog);
    if (!committed.committed) {
      if (committed.reason !== 'key_taken') return { written: false, reason: committed.reason };
      // A concurrent request with the same key committed its entry first: answer that one.
      return this.answerForKey(committed.key, options.idempotency!);
    }
    return this.send(ledger, kind, committed.entry, prepared.operations, options);
  }

  /**
   * What a request with this Idempotency-Key was already answered, checked before the use case
   * runs again: the first request's entry as it stands now, `key_reused` for another body, or
   * undefined when the key is free (the request runs for real).
   */
  async previousWrite(claim: IdempotencyClaim | undefined): Promise<WriteResult | undefined> {
    if (!claim) return undefined;
    const bound = await this.parts.idempotency.find(claim.callerId, claim.route, claim.key);
    return bound ? this.answerForKey(bound, claim) : undefined;
  }

  /**
   * An entry committed earlier, as it stands now: what a request that wrote it is answered when
   * asked again (a bound Idempotency-Key, an approval approved again). Undefined when it no longer
   * exists (dropped unsent with its claim: the request may be made again).
   */
  async writtenEntry(entryId: string): Promise<WriteResult | undefined> {
    const entry = await this.parts.repository.findEntry(entryId);
    return entry ? { written: true, entry, outcome: outcomeOf(entry), replayed: true } : undefined;
  }

  /** Sends a committed entry and waits up to `waitMs` for its outcome. */
  private async send(ledger: JournalAccounts, kind: EntryKind, entry: EntryRow, operations: xdr.Operation[] | undefined, options: WriteOptions): Promise<WriteResult> {
    const { repository, timing } = this.parts;
    const outcome = this.jobOutcome(ledger, entry, operations);
    const settled = await within(outcome, options.waitMs ?? timing.answerWaitMs);
    if (!settled) {
      // The caller stops waiting; an entry that turns out unsendable is left to the reconciler.
      void outcome.then((late) => (late.status === 'waiting' ? repository.releaseEntry(entry.id, timing.recheckMs) : undefined)).catch(() => undefined);
      return this.pending(entry);
    }
    switch (settled.status) {
      case 'confirmed':
        return { written: true, entry: { ...entry, status: 'confirmed', ledgerTransactionId: settled.hash, ledger: settled.ledger }, outcome: settled };
      case 'failed':
        return { written: true, entry: { ...entry, status: 'failed', failureCode: settled.error.code }, outcome: settled };
      case 'pending':
        return this.pending(entry);
      case 'waiting':
        // Nothing carries it now. A write that need not finish is dropped with its key (ask again);
        // one that must (a paid purchase, a signup's wallet) is left to the reconciler.
        if (!kind.mustFinish && (await this.abandon(entry, options.adminLog))) return { written: false, reason: 'dropped', error: settled.error };
        await repository.releaseEntry(entry.id, timing.recheckMs);
        return this.pending(entry);
    }
  }

  /**
   * Drops an entry nothing can send, with its key. An admin's write committed its admin log row
   * with the entry; taken back, it says so in the same transaction (`<action>_dropped`), so the
   * log never shows a mint or an issue that the journal no longer holds without saying why.
   */
  private abandon(entry: EntryRow, adminLog: AdminLogEntry | undefined): Promise<boolean> {
    return this.parts.db.transaction(async (tx) => {
      if (!(await this.parts.repository.abandon(tx, entry.id))) return false;
      if (adminLog) await appendAdminLog(tx, { ...adminLog, action: `${adminLog.action}_dropped`, details: { ...adminLog.details, entryId: entry.id } });
      return true;
    });
  }

  /**
   * The job's outcome, as its submitter answers it. Building the job reads the network (an
   * account, a trustline) or a wallet's key: when that fails (the ledger API unreachable), nothing
   * was sent and the entry waits like one no envelope could carry.
   */
  private async jobOutcome(ledger: JournalAccounts, entry: EntryRow, operations: xdr.Operation[] | undefined): Promise<EntryOutcome> {
    const built = await reach(() => this.parts.jobs.jobFor(ledger, entry, operations));
    if (!built.reached) return { status: 'waiting', error: built.error };
    return built.value.submitter.submit(built.value.job);
  }

  private async pending(entry: EntryRow): Promise<WriteResult> {
    return { written: true, entry: (await this.parts.repository.findEntry(entry.id)) ?? entry, outcome: { status: 'pending' } };
  }

  /** The one rule for a bound key: the same request gets its entry as it stands now; another request is refused. */
  private async answerForKey(bound: { requestHash: string; entryId: string }, claim: IdempotencyClaim): Promise<WriteResult> {
    if (bound.requestHash !== claim.requestHash) return { written: false, reason: 'key_reused' };
    return (await this.writtenEntry(bound.entryId)) ?? { written: false, reason: 'key_reused' };
  }
}

/** An entry's outcome as the journal holds it now (a retried request's answer). */
function outcomeOf(entry: EntryRow): WrittenOutcome {
  if (entry.status === 'confirmed') return { status: 'confirmed', hash: entry.ledgerTransactionId ?? '', ledger: entry.ledger ?? 0 };
  if (entry.status !== 'failed') return { status: 'pending' };
  const code = entry.failureCode ?? 'tx_failed';
  return { status: 'failed', error: code.startsWith('op_') ? new LedgerRejectedError('tx_failed', [code]) : new LedgerRejectedError(code, []) };
}

/** The promise's value, or undefined when it takes longer than ms. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
