// Start here for "every ledger write exactly once". Journal.write is the whole rule: commit the
// entry in one database transaction with what it claims (the request's Idempotency-Key, the
// payment reference, the reversal), then have its account's submitter sign, store and send it, and
// answer within the caller's wait. Below it: entry-jobs.ts (which submitter, which operations),
// account-submitter.ts (batches, envelopes stored before they are sent), envelope-sender.ts (the
// send and its settling by evidence). Beside it: journal-reconciler.ts finishes what no caller
// waited for. Above it: ledger-bootstrap.ts (what the network must hold first).
import { LedgerRejectedError } from '../clients/ledger-errors';
import type { IdempotencyClaim, IdempotencyRepository } from '../db/repositories/idempotency.repository';
import type { EntryClaim, EntryRow, JournalRepository, NewEntry } from '../db/repositories/journal.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import { parseTokenAmount } from '../domain/amounts';
import { isMustFinish } from './entry-verdict';
import { activationOperations, type EntryJobs, type KnownForJob } from './entry-jobs';
import type { JournalTiming } from './journal-options';
import type { LedgerAccounts, JournalAccounts } from './ledger-accounts';
import type { EntryOutcome, WriteCommand, WriteOptions, WriteResult, WrittenOutcome } from './write-command';

export interface JournalParts {
  repository: JournalRepository;
  idempotency: IdempotencyRepository;
  wallets: WalletRepository;
  accounts: LedgerAccounts;
  jobs: EntryJobs;
  timing: JournalTiming;
  tokenCode: string;
}

/** A command turned into the entry it commits, what that entry claims, and what its job can reuse. */
interface Prepared {
  entry: NewEntry;
  claim?: EntryClaim;
  known?: KnownForJob;
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
    const prepared = await this.prepare(ledger, command, options.idempotency);
    if (!prepared) return { written: false, reason: 'nothing_to_do' };
    const { repository, timing } = this.parts;
    const committed = await repository.commit(prepared.entry, prepared.claim, timing.leaseMs);
    if (!committed.committed) {
      if (committed.reason !== 'key_taken') return { written: false, reason: committed.reason };
      // A concurrent request with the same key committed its entry first: answer that one.
      return this.answerForKey(committed.key, options.idempotency!);
    }
    return this.send(ledger, committed.entry, prepared.known, options.waitMs ?? timing.answerWaitMs);
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

  /** Sends a committed entry and waits up to `waitMs` for its outcome. */
  private async send(ledger: JournalAccounts, entry: EntryRow, known: KnownForJob | undefined, waitMs: number): Promise<WriteResult> {
    const { repository, timing } = this.parts;
    const outcome = this.jobOutcome(ledger, entry, known);
    const settled = await within(outcome, waitMs);
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
        if (!isMustFinish(entry.kind) && (await repository.abandon(entry.id))) return { written: false, reason: 'dropped', error: settled.error };
        await repository.releaseEntry(entry.id, timing.recheckMs);
        return this.pending(entry);
    }
  }

  /** The job's outcome; a job that cannot even be built (its account unreadable) waits like one that could not be sent. */
  private async jobOutcome(ledger: JournalAccounts, entry: EntryRow, known: KnownForJob | undefined): Promise<EntryOutcome> {
    try {
      const { submitter, job } = await this.parts.jobs.jobFor(ledger, entry, known);
      return await submitter.submit(job);
    } catch (err) {
      return { status: 'waiting', error: err instanceof Error ? err : new Error(String(err)) };
    }
  }

  private async pending(entry: EntryRow): Promise<WriteResult> {
    return { written: true, entry: (await this.parts.repository.findEntry(entry.id)) ?? entry, outcome: { status: 'pending' } };
  }

  /** The one rule for a bound key: the same request gets its entry as it stands now; another request is refused. */
  private async answerForKey(bound: { requestHash: string; entryId: string }, claim: IdempotencyClaim): Promise<WriteResult> {
    if (bound.requestHash !== claim.requestHash) return { written: false, reason: 'key_reused' };
    const entry = await this.parts.repository.findEntry(bound.entryId);
    if (!entry) return { written: false, reason: 'key_reused' };
    return { written: true, entry, outcome: outcomeOf(entry), replayed: true };
  }

  /** The entry a command commits and what it claims; undefined when the network already holds what it asks. */
  private async prepare(ledger: JournalAccounts, command: WriteCommand, idempotency: IdempotencyClaim | undefined): Promise<Prepared | undefined> {
    const token = this.parts.tokenCode;
    const distribution = ledger.keys.distribution.publicKey();
    const keyClaim: EntryClaim | undefined = idempotency && { kind: 'key', key: idempotency };
    switch (command.kind) {
      case 'transfer':
        return { entry: { kind: command.kind, userId: command.userId, fromPublicKey: command.from, toPublicKey: command.to, amountStroops: command.stroops, assetCode: token }, claim: keyClaim };
      case 'admin_mint':
        return { entry: { kind: command.kind, userId: command.userId, fromPublicKey: distribution, toPublicKey: command.to, amountStroops: command.stroops, assetCode: token }, claim: keyClaim };
      case 'payment_mint': {
        const entry = { kind: command.kind, userId: command.userId, fromPublicKey: distribution, toPublicKey: command.to, amountStroops: command.stroops, assetCode: token, paymentReference: command.reference };
        return { entry, claim: { kind: 'payment', reference: command.reference } };
      }
      case 'clawback': {
        const issuer = ledger.keys.issuer.publicKey();
        const entry = { kind: command.kind, userId: command.userId, fromPublicKey: command.from, toPublicKey: issuer, amountStroops: command.stroops, assetCode: token, reversalId: command.reversalId };
        return { entry, claim: { kind: 'reversal', reversalId: command.reversalId } };
      }
      case 'issue':
        return { entry: { kind: command.kind, fromPublicKey: ledger.keys.issuer.publicKey(), toPublicKey: distribution, amountStroops: command.stroops, assetCode: token }, claim: keyClaim };
      case 'activation':
        return this.prepareActivation(ledger, command);
      case 'trustline':
        return { entry: { kind: command.kind, fromPublicKey: distribution, toPublicKey: distribution, amountStroops: 0n, assetCode: token } };
      case 'issuer_flags':
        return { entry: { kind: command.kind, fromPublicKey: distribution, toPublicKey: ledger.keys.issuer.publicKey(), amountStroops: 0n, assetCode: token } };
      case 'channel_funding':
        return { entry: { kind: command.kind, fromPublicKey: distribution, toPublicKey: command.channel, amountStroops: 0n, assetCode: 'XLM' } };
      case 'channel_merge':
        return { entry: { kind: command.kind, fromPublicKey: command.channel, toPublicKey: command.channel, amountStroops: 0n, assetCode: 'XLM' } };
    }
  }

  /**
   * A wallet's account and trustline, as far as the network lacks them (a fresh key pair cannot be
   * on it, so it is not asked). A wallet the network already holds whole is simply marked active.
   */
  private async prepareActivation(ledger: JournalAccounts, command: Extract<WriteCommand, { kind: 'activation' }>): Promise<Prepared | undefined> {
    const state = command.fresh ? 'missing' : await this.parts.jobs.walletOnLedger(ledger, command.wallet);
    const operations = activationOperations(ledger.asset, ledger.keys.distribution.publicKey(), command.wallet, state, command.startingXlm);
    if (operations.length === 0) {
      await this.parts.wallets.markActive(command.userId);
      return undefined;
    }
    const entry: NewEntry = {
      kind: 'activation',
      userId: command.userId,
      fromPublicKey: ledger.keys.distribution.publicKey(),
      toPublicKey: command.wallet,
      amountStroops: parseTokenAmount(command.startingXlm) ?? 0n,
      assetCode: 'XLM',
    };
    return { entry, known: { operations } };
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
