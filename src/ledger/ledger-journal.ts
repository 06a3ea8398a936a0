// Start here for "every ledger write exactly once". This file holds the use cases' writes and the one
// rule they share (write(): commit the entry, binding its Idempotency-Key or consuming its payment
// reference, then sign, store and send). Around it: entry-jobs.ts says which account's submitter
// carries an entry and rebuilds its job for the reconciler; ledger-submitters.ts bootstraps the ledger
// and owns the submitters and channel accounts; account-submitter.ts batches an account's jobs into
// envelopes (built by envelope-builder.ts) and stores each before envelope-sender.ts sends it;
// journal-reconciler.ts finishes what a request could not wait for. What confirming or failing an
// envelope changes (its entries, their payments and wallets) is db/repositories/envelope-settlement.ts.
import type { Keypair } from '@stellar/stellar-sdk';
import { LedgerRejectedError } from '../clients/ledger-errors';
import type { LedgerApi } from '../clients/ledger-api';
import { isUniqueViolation, type Executor } from '../db/client';
import type { IdempotencyClaim, IdempotencyRow } from '../db/repositories/idempotency.repository';
import type { EntryRow, JournalRepository, NewEntry } from '../db/repositories/journal.repository';
import { parseTokenAmount } from '../domain/amounts';
import { AppError } from '../errors/app-error';
import { EntryJobs, type EntryJob } from './entry-jobs';
import { activationOperations } from './entry-operations';
import type { EnvelopeSender } from './envelope-sender';
import type { LedgerJournalOptions } from './journal-options';
import { fromLedgerError } from './ledger-error-map';
import type { JobOutcome } from './ledger-job';
import { LedgerSubmitters, type ReadyLedger } from './ledger-submitters';
import type { SystemKeys } from './system-accounts';
export { channelKeys } from './channel-accounts';
export type { ReadyLedger } from './ledger-submitters';

/** A journal write as the API answers it: done, or accepted with the outcome still unknown. */
export interface LedgerWrite {
  entry: EntryRow;
  state: 'confirmed' | 'pending';
}

/** How LedgerJournal.write commits an entry and answers for it. */
export interface WriteOptions {
  /** The request's Idempotency-Key, bound to the entry in the transaction that commits it. */
  idempotency?: IdempotencyClaim;
  /** Runs in that transaction; false commits nothing (the payment reference or the reversal was taken by another). */
  consume?: (tx: Executor, entryId: string) => Promise<boolean>;
  /** How long the caller waits for the ledger (default: timing.answerWaitMs). */
  waitMs?: number;
  /** An entry that could not be sent is left to the reconciler rather than dropped with its key. */
  mustFinish?: boolean;
}

/**
 * The one home of "every ledger write exactly once". Use cases call transfer, mint,
 * mintForPayment, issue and activate; each commits a journal entry (binding the request's
 * Idempotency-Key or consuming its payment reference in the same database transaction), then the
 * account's submitter signs, stores and sends an envelope for it, and the reconciler settles
 * whatever a request could not wait for. Nothing else signs or submits.
 */
export class LedgerJournal {
  private readonly submitters: LedgerSubmitters;
  private readonly jobs: EntryJobs;
  readonly sender: EnvelopeSender;

  constructor(readonly options: LedgerJournalOptions) {
    this.submitters = new LedgerSubmitters(options, (entry, writeOptions, jobOf) => this.write(entry, writeOptions, jobOf));
    this.jobs = new EntryJobs(options, this.submitters);
    this.sender = this.submitters.sender;
  }

  /** The issuing and distribution keys (loaded or generated once, before any ledger work). */
  keys(): Promise<SystemKeys> {
    return this.submitters.keys();
  }

  get client(): LedgerApi {
    return this.options.client;
  }

  get repository(): JournalRepository {
    return this.options.journal;
  }

  /** Bootstraps lazily and retries: a ledger down at start makes ledger routes answer 503 until it is back. */
  ready(): Promise<ReadyLedger> {
    return this.submitters.ready();
  }

  /** Pays tokens from a user's wallet. The entry is the user's transaction record. */
  async transfer(input: { userId: string; wallet: Keypair; to: string; stroops: bigint; idempotency?: IdempotencyClaim }): Promise<LedgerWrite> {
    const ledger = await this.ready();
    const entry: NewEntry = {
      kind: 'transfer',
      userId: input.userId,
      fromPublicKey: input.wallet.publicKey(),
      toPublicKey: input.to,
      amountStroops: input.stroops,
      assetCode: this.options.tokenCode,
    };
    return this.write(entry, { idempotency: input.idempotency }, (row) => this.jobs.transferJob(ledger, input.wallet, row));
  }

  /** An admin's mint to a user's wallet, from the distribution account. */
  async mint(input: { userId: string; to: string; stroops: bigint; idempotency?: IdempotencyClaim }): Promise<LedgerWrite> {
    const ledger = await this.ready();
    const entry = this.mintEntry(ledger, 'admin_mint', input);
    return this.write(entry, { idempotency: input.idempotency }, (row) => this.jobs.distributionJob(ledger, row));
  }

  /**
   * A verified payment's mint. `consume` runs in the transaction that commits the entry and must
   * return true only for the one caller that consumed the reference; otherwise nothing is written
   * and undefined is returned. Never throws for the ledger: a mint not done in `waitMs` is
   * finished by the reconciler.
   */
  async mintForPayment(
    input: { reference: string; userId: string; to: string; stroops: bigint; waitMs: number },
    consume: (tx: Executor) => Promise<boolean>,
  ): Promise<LedgerWrite | undefined> {
    const ledger = await this.ready();
    const entry = { ...this.mintEntry(ledger, 'payment_mint', input), paymentReference: input.reference };
    try {
      return await this.write(entry, { consume, waitMs: input.waitMs, mustFinish: true }, (row) => this.jobs.distributionJob(ledger, row));
    } catch (err) {
      // The unique index on the reference is the last guard, should a consume ever race past.
      if (err instanceof NotConsumed || isUniqueViolation(err)) return undefined;
      throw err;
    }
  }

  /**
   * Takes a reversed payment's tokens back from the buyer's wallet (the issuer's clawback).
   * `claim` runs in the transaction that commits the entry and returns true only for the one
   * caller that moved the reversal to `clawing` with this entry; otherwise nothing is written and
   * undefined is returned. What the ledger answers is settled on the reversal by the journal
   * (envelope-settlement.ts), so a refusal is not thrown: the reversal's state tells.
   */
  async clawback(
    input: { reversalId: string; userId: string; from: string; stroops: bigint; waitMs: number },
    claim: (tx: Executor, entryId: string) => Promise<boolean>,
  ): Promise<LedgerWrite | undefined> {
    const ledger = await this.ready();
    const entry: NewEntry = {
      kind: 'clawback',
      userId: input.userId,
      fromPublicKey: input.from,
      toPublicKey: ledger.keys.issuer.publicKey(),
      amountStroops: input.stroops,
      assetCode: this.options.tokenCode,
      reversalId: input.reversalId,
    };
    try {
      return await this.write(entry, { consume: claim, waitMs: input.waitMs, mustFinish: true }, (row) => this.jobs.clawbackJob(ledger, row));
    } catch (err) {
      if (err instanceof NotConsumed || isUniqueViolation(err)) return undefined;
      if (err instanceof AppError) return undefined;
      throw err;
    }
  }

  /** Issues new tokens from the issuing account to the distribution account (trusting it first if needed). */
  async issue(stroops: bigint, idempotency?: IdempotencyClaim): Promise<LedgerWrite> {
    const ledger = await this.ready();
    const entry: NewEntry = {
      kind: 'issue',
      fromPublicKey: ledger.keys.issuer.publicKey(),
      toPublicKey: ledger.keys.distribution.publicKey(),
      amountStroops: stroops,
      assetCode: this.options.tokenCode,
    };
    const job = await this.jobs.issueJob(ledger, stroops).catch((err: unknown) => {
      throw fromLedgerError(err, this.options.tokenCode);
    });
    return this.write(entry, { idempotency }, (row) => ({ submitter: ledger.issuer, job: { ...job, entryId: row.id } }));
  }

  /**
   * Puts a new wallet on the ledger: create_account plus its token trustline, signed by both.
   * `fresh`: the key pair was just generated, so the account cannot exist and the ledger lookup is
   * skipped (a burst of signups queues in one tick). Never throws for the ledger.
   */
  async activate(input: { userId: string; wallet: Keypair; fresh: boolean; startingXlm: string; waitMs: number }): Promise<LedgerWrite | undefined> {
    const ledger = await this.ready();
    const state = input.fresh ? 'missing' : await this.jobs.walletOnLedger(ledger, input.wallet.publicKey());
    const operations = activationOperations(ledger.asset, ledger.keys.distribution.publicKey(), input.wallet.publicKey(), state, input.startingXlm);
    if (operations.length === 0) {
      await this.options.wallets.markActive(input.userId);
      return undefined;
    }
    const entry: NewEntry = {
      kind: 'activation',
      userId: input.userId,
      fromPublicKey: ledger.keys.distribution.publicKey(),
      toPublicKey: input.wallet.publicKey(),
      amountStroops: parseTokenAmount(input.startingXlm) ?? 0n,
      assetCode: 'XLM',
    };
    try {
      return await this.write(entry, { waitMs: input.waitMs, mustFinish: true }, (row) => ({
        submitter: ledger.distribution,
        job: { entryId: row.id, kind: row.kind, operations, signers: [input.wallet] },
      }));
    } catch (err) {
      // Another activation of this wallet is live (the partial unique index): it finishes the job.
      if (isUniqueViolation(err)) return undefined;
      throw err;
    }
  }

  /**
   * Builds a new envelope for an entry whose previous one can never apply (or that never had
   * one): what the reconciler does for an entry its process left behind.
   */
  async resubmit(entry: EntryRow): Promise<JobOutcome> {
    const ledger = await this.ready();
    const { submitter, job } = await this.jobs.jobFor(ledger, entry);
    return submitter.submit(job);
  }

  /**
   * An entry as a retried request should see it now: confirmed or pending, or the refusal the
   * ledger gave (thrown as the same AppError the first answer was) when it failed.
   */
  async current(entryId: string): Promise<LedgerWrite> {
    const entry = await this.options.journal.findEntry(entryId);
    if (!entry) throw new AppError('CONFLICT', 'The transaction for this Idempotency-Key is gone; use a new key');
    if (entry.status === 'confirmed') return { entry, state: 'confirmed' };
    if (entry.status !== 'failed') return { entry, state: 'pending' };
    const code = entry.failureCode ?? 'tx_failed';
    throw fromLedgerError(code.startsWith('op_') ? new LedgerRejectedError('tx_failed', [code]) : new LedgerRejectedError(code, []), this.options.tokenCode);
  }

  /** Merges the channel accounts past `count` into the distribution account (LedgerSubmitters.removeChannelsBeyond). */
  removeChannelsBeyond(count: number): Promise<{ removed: string[]; busy: string[] }> {
    return this.submitters.removeChannelsBeyond(count);
  }

  /** Waits for every submitter to finish what it has in flight (graceful shutdown). */
  drain(): Promise<void> {
    return this.submitters.drain();
  }

  /**
   * Commits the entry, submits its job and waits up to the answer deadline. A ledger refusal for
   * good throws its AppError. An entry that could not be sent is dropped with its
   * Idempotency-Key (503: nothing happened, ask again) unless it must finish, in which case the
   * reconciler takes it.
   */
  private async write(entry: NewEntry, options: WriteOptions, jobOf: (row: EntryRow) => EntryJob): Promise<LedgerWrite> {
    const { journal, timing } = this.options;
    let row: EntryRow;
    try {
      row = await journal.createEntry(entry, timing.leaseMs, async (tx, entryId) => {
        const taken = options.idempotency && (await this.options.idempotency.bind(tx, options.idempotency, entryId));
        if (taken) throw new KeyTaken(taken);
        if (options.consume && !(await options.consume(tx, entryId))) throw new NotConsumed();
      });
    } catch (err) {
      // A concurrent request with the same key committed its entry first: answer that one.
      if (!(err instanceof KeyTaken)) throw err;
      if (err.key.requestHash !== options.idempotency?.requestHash) throw new AppError('CONFLICT', 'Idempotency-Key was already used with a different request');
      return this.current(err.key.entryId);
    }
    const { submitter, job } = jobOf(row);
    const outcome = submitter.submit(job);
    const settled = await within(outcome, options.waitMs ?? timing.answerWaitMs);
    if (!settled) {
      void outcome.then((late) => this.afterLateOutcome(row, late));
      return { entry: (await journal.findEntry(row.id)) ?? row, state: 'pending' };
    }
    switch (settled.status) {
      case 'confirmed':
        return { entry: { ...row, status: 'confirmed', ledgerTransactionId: settled.hash, ledger: settled.ledger }, state: 'confirmed' };
      case 'failed':
        throw fromLedgerError(settled.error, this.options.tokenCode);
      case 'unknown':
        return { entry: (await journal.findEntry(row.id)) ?? row, state: 'pending' };
      case 'waiting':
        if (!options.mustFinish && (await journal.abandon(row.id))) throw fromLedgerError(settled.error, this.options.tokenCode);
        await journal.releaseEntry(row.id, timing.recheckMs);
        return { entry: (await journal.findEntry(row.id)) ?? row, state: 'pending' };
    }
  }

  /** The request already answered 202: an entry that could not be sent is left to the reconciler. */
  private async afterLateOutcome(row: EntryRow, outcome: JobOutcome): Promise<void> {
    if (outcome.status !== 'waiting') return;
    await this.options.journal.releaseEntry(row.id, this.options.timing.recheckMs).catch(() => undefined);
  }

  private mintEntry(ledger: ReadyLedger, kind: 'admin_mint' | 'payment_mint', input: { userId: string; to: string; stroops: bigint }): NewEntry {
    return {
      kind,
      userId: input.userId,
      fromPublicKey: ledger.keys.distribution.publicKey(),
      toPublicKey: input.to,
      amountStroops: input.stroops,
      assetCode: this.options.tokenCode,
    };
  }
}

class KeyTaken extends Error {
  constructor(readonly key: IdempotencyRow) {
    super('Idempotency-Key already bound');
  }
}

class NotConsumed extends Error {
  constructor() {
    super('payment reference already consumed');
  }
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
