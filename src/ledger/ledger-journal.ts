// Over 300 lines on purpose: the use cases' write methods, the one write rule they share (commit the
// entry, then sign, store and send) and the rebuilding of an entry's job for the reconciler are one
// story, read together when checking "exactly once"; what each entry puts on the ledger lives in
// entry-operations.ts, how envelopes are built and sent in account-submitter.ts and envelope-sender.ts.
import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import { LedgerRejectedError } from '../clients/ledger-errors';
import { StellarClient } from '../clients/stellar.client';
import { isUniqueViolation, type DatabaseHandle, type Executor } from '../db/client';
import type { IdempotencyClaim, IdempotencyRepository, IdempotencyRow } from '../db/repositories/idempotency.repository';
import type { EntryRow, JournalRepository, NewEntry } from '../db/repositories/journal.repository';
import type { SystemAccountRepository } from '../db/repositories/system-account.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import { formatStroops, parseTokenAmount } from '../domain/amounts';
import { AppError } from '../errors/app-error';
import type { Logger } from '../logger';
import type { WalletCipher } from '../security/wallet-cipher';
import { AccountSubmitter } from './account-submitter';
import type { JobOutcome, LedgerJob } from './ledger-job';
import { EnvelopeSender } from './envelope-sender';
import { FeeBumper } from './fee-bumper';
import { FeePolicy, type FeePolicyOptions } from './fee-policy';
import { activationOperations, issueOperations, tokenPayment, type WalletOnLedger } from './entry-operations';
import { MAX_CHANNELS, channelCreation, channelKeyOf, channelKeys, channelRemoval } from './channel-accounts';
import { fromLedgerError } from './ledger-error-map';
import { bootstrapLedger, loadSystemKeys, type SystemKeys } from './system-accounts';
export { channelKeys } from './channel-accounts';

export interface LedgerJournalOptions {
  client: StellarClient;
  database: DatabaseHandle;
  journal: JournalRepository;
  idempotency: IdempotencyRepository;
  wallets: WalletRepository;
  systemAccounts: SystemAccountRepository;
  cipher: WalletCipher;
  tokenCode: string;
  issuerSecret: string | undefined;
  distributionSecret: string | undefined;
  friendbotUrl: string | undefined;
  logger: Logger;
  /** Channel accounts for the distribution account's batches (several transactions per ledger). */
  channelCount: number;
  timing: JournalTiming;
  fees: FeePolicyOptions & {
    /** Ledgers an envelope may wait with Horizon before its bid is raised. */
    bumpAfterLedgers: number;
  };
  onResult?: (code: string) => void;
  onFeePaid?: (stroops: bigint) => void;
  onBump?: () => void;
}

export interface JournalTiming {
  /** How long a request waits for the ledger before answering that the outcome is pending (202). */
  answerWaitMs: number;
  /** How long the process that signs an envelope owns it before the reconciler may take over. */
  leaseMs: number;
  /** Seconds an envelope stays valid (its maxTime). */
  txTimeoutSeconds: number;
  settleAttempts: number;
  settleBaseDelayMs: number;
  /** How soon the reconciler looks again at an envelope still open. */
  recheckMs: number;
  /** First pause between a batch's rounds when the ledger could not be reached or refused it. */
  retryBaseMs?: number;
}

export interface ReadyLedger {
  keys: SystemKeys;
  /** Pays every fee (the distribution account, through fee bumps). */
  bumper: FeeBumper;
  asset: Asset;
  issuer: AccountSubmitter;
  /** The distribution account's batches, spread over its channel accounts. */
  distribution: AccountSubmitter;
  /** The distribution account as its own lane: bootstrap writes (channels, its trustline). */
  distributionDirect: AccountSubmitter;
}

/** A journal write as the API answers it: done, or accepted with the outcome still unknown. */
export interface LedgerWrite {
  entry: EntryRow;
  state: 'confirmed' | 'pending';
}

const MAX_OPERATIONS_PER_TX = 100;
/**
 * The one home of "every ledger write exactly once". Use cases call transfer, mint,
 * mintForPayment, issue and activate; each commits a journal entry (binding the request's
 * Idempotency-Key or consuming its payment reference in the same database transaction), then the
 * account's submitter signs, stores and sends an envelope for it, and the reconciler settles
 * whatever a request could not wait for. Nothing else signs or submits.
 */
export class LedgerJournal {
  private readyPromise: Promise<ReadyLedger> | undefined;
  private keysPromise: Promise<SystemKeys> | undefined;
  private bumperPromise: Promise<FeeBumper> | undefined;
  readonly feePolicy: FeePolicy;
  private readonly walletSubmitters = new Map<string, AccountSubmitter>();
  readonly sender: EnvelopeSender;

  constructor(readonly options: LedgerJournalOptions) {
    this.feePolicy = new FeePolicy(options.client, options.fees);
    this.sender = new EnvelopeSender({
      client: options.client,
      journal: options.journal,
      logger: options.logger,
      settleAttempts: options.timing.settleAttempts,
      settleBaseDelayMs: options.timing.settleBaseDelayMs,
      recheckMs: options.timing.recheckMs,
      bumper: () => this.bumper(),
      bumpAfterLedgers: options.fees.bumpAfterLedgers,
      onResult: options.onResult,
      onFeePaid: options.onFeePaid,
      onBump: options.onBump,
    });
  }

  /** The issuing and distribution keys (loaded or generated once, before any ledger work). */
  keys(): Promise<SystemKeys> {
    const o = this.options;
    this.keysPromise ??= loadSystemKeys({ issuerSecret: o.issuerSecret, distributionSecret: o.distributionSecret }, o.systemAccounts, o.cipher).catch(
      (err: unknown) => {
        this.keysPromise = undefined;
        throw err;
      },
    );
    return this.keysPromise;
  }

  /** The distribution account pays every fee, through fee bumps. */
  private bumper(): Promise<FeeBumper> {
    this.bumperPromise ??= this.keys().then((keys) => new FeeBumper(keys.distribution, this.feePolicy, this.options.client.networkPassphrase));
    this.bumperPromise.catch(() => {
      this.bumperPromise = undefined;
    });
    return this.bumperPromise;
  }

  get client(): StellarClient {
    return this.options.client;
  }

  get repository(): JournalRepository {
    return this.options.journal;
  }

  /** Bootstraps lazily and retries: a ledger down at start makes ledger routes answer 503 until it is back. */
  ready(): Promise<ReadyLedger> {
    this.readyPromise ??= this.bootstrap().catch((err: unknown) => {
      this.readyPromise = undefined;
      throw err;
    });
    return this.readyPromise;
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
    return this.write(entry, { idempotency: input.idempotency }, (row) => ({
      submitter: this.walletSubmitter(ledger, input.wallet),
      job: { entryId: row.id, kind: row.kind, operations: [tokenPayment(ledger.asset, row.toPublicKey, row.amountStroops)] },
    }));
  }

  /** An admin's mint to a user's wallet, from the distribution account. */
  async mint(input: { userId: string; to: string; stroops: bigint; idempotency?: IdempotencyClaim }): Promise<LedgerWrite> {
    const ledger = await this.ready();
    const entry = this.mintEntry(ledger, 'admin_mint', input);
    return this.write(entry, { idempotency: input.idempotency }, (row) => this.distributionJob(ledger, row));
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
      return await this.write(entry, { consume, waitMs: input.waitMs, mustFinish: true }, (row) => this.distributionJob(ledger, row));
    } catch (err) {
      // The unique index on the reference is the last guard, should a consume ever race past.
      if (err instanceof NotConsumed || isUniqueViolation(err)) return undefined;
      throw err;
    }
  }

  /** Issues new tokens from the issuing account to the distribution account (trusting it first if needed). */
  async issue(stroops: bigint): Promise<LedgerWrite> {
    const ledger = await this.ready();
    const entry: NewEntry = {
      kind: 'issue',
      fromPublicKey: ledger.keys.issuer.publicKey(),
      toPublicKey: ledger.keys.distribution.publicKey(),
      amountStroops: stroops,
      assetCode: this.options.tokenCode,
    };
    const job = await this.issueJob(ledger, stroops).catch((err: unknown) => {
      throw fromLedgerError(err, this.options.tokenCode);
    });
    return this.write(entry, {}, (row) => ({ submitter: ledger.issuer, job: { ...job, entryId: row.id } }));
  }

  /**
   * Puts a new wallet on the ledger: create_account plus its token trustline, signed by both.
   * `fresh`: the key pair was just generated, so the account cannot exist and the ledger lookup is
   * skipped (a burst of signups queues in one tick). Never throws for the ledger.
   */
  async activate(input: { userId: string; wallet: Keypair; fresh: boolean; startingXlm: string; waitMs: number }): Promise<LedgerWrite | undefined> {
    const ledger = await this.ready();
    const state = input.fresh ? 'missing' : await this.walletOnLedger(ledger, input.wallet.publicKey());
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
    const { submitter, job } = await this.jobFor(ledger, entry);
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

  /**
   * Makes the ledger's channel accounts match LEDGER_CHANNELS: the ready ledger has created the
   * missing ones; channels past the count that exist are merged into the distribution account
   * (their reserve returns to it). A channel with an envelope still open is left for a later run.
   * Lower LEDGER_CHANNELS on every running process before removing: a process still using a
   * merged channel sees tx_no_source_account and its entries ride again on its other lanes.
   */
  async removeChannelsBeyond(count: number): Promise<{ removed: string[]; busy: string[] }> {
    const ledger = await this.ready();
    const removed: string[] = [];
    const busy: string[] = [];
    for (const channel of channelKeys(ledger.keys.distribution, MAX_CHANNELS).slice(count)) {
      if (!(await this.options.client.loadAccount(channel.publicKey()))) continue;
      if (await this.options.journal.hasOpenEnvelopeFrom(channel.publicKey())) {
        busy.push(channel.publicKey());
        continue;
      }
      const entry: NewEntry = { kind: 'channel_merge', fromPublicKey: channel.publicKey(), toPublicKey: channel.publicKey(), amountStroops: 0n, assetCode: 'XLM' };
      const write = await this.write(entry, { mustFinish: true }, (row) => ({
        submitter: ledger.distributionDirect,
        job: { entryId: row.id, kind: row.kind, operations: channelRemoval(ledger.keys, channel), signers: [channel] },
      }));
      (write.state === 'confirmed' ? removed : busy).push(channel.publicKey());
    }
    return { removed, busy };
  }

  /** Waits for every submitter to finish what it has in flight (graceful shutdown). */
  async drain(): Promise<void> {
    const ready = await this.readyPromise?.catch(() => undefined);
    const all = [...this.walletSubmitters.values(), ...(ready ? [ready.distribution, ready.issuer, ready.distributionDirect] : [])];
    await Promise.all(all.map((s) => s.drained()));
  }

  /** The submitter of a user's wallet: one per account, so its transfers never race. */
  private walletSubmitter(ledger: ReadyLedger, keypair: Keypair): AccountSubmitter {
    let submitter = this.walletSubmitters.get(keypair.publicKey());
    if (!submitter) {
      submitter = this.submitterFor(ledger.bumper, keypair, 1);
      this.walletSubmitters.set(keypair.publicKey(), submitter);
    }
    return submitter;
  }

  /**
   * Commits the entry, submits its job and waits up to the answer deadline. A ledger refusal for
   * good throws its AppError. An entry that could not be sent is dropped with its
   * Idempotency-Key (503: nothing happened, ask again) unless it must finish, in which case the
   * reconciler takes it.
   */
  private async write(
    entry: NewEntry,
    options: { idempotency?: IdempotencyClaim; consume?: (tx: Executor) => Promise<boolean>; waitMs?: number; mustFinish?: boolean },
    jobOf: (row: EntryRow) => { submitter: AccountSubmitter; job: LedgerJob },
  ): Promise<LedgerWrite> {
    const { journal, timing } = this.options;
    let row: EntryRow;
    try {
      row = await journal.createEntry(entry, timing.leaseMs, async (tx, entryId) => {
        const taken = options.idempotency && (await this.options.idempotency.bind(tx, options.idempotency, entryId));
        if (taken) throw new KeyTaken(taken);
        if (options.consume && !(await options.consume(tx))) throw new NotConsumed();
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

  private distributionJob(ledger: ReadyLedger, row: EntryRow): { submitter: AccountSubmitter; job: LedgerJob } {
    return { submitter: ledger.distribution, job: { entryId: row.id, kind: row.kind, operations: [tokenPayment(ledger.asset, row.toPublicKey, row.amountStroops)] } };
  }

  private async issueJob(ledger: ReadyLedger, stroops: bigint): Promise<Omit<LedgerJob, 'entryId'>> {
    const distribution = await this.options.client.loadAccount(ledger.keys.distribution.publicKey());
    const trusts = distribution !== undefined && StellarClient.balanceOf(distribution, ledger.asset) !== undefined;
    return { kind: 'issue', ...issueOperations(ledger.asset, ledger.keys.distribution, stroops, trusts) };
  }

  private async walletOnLedger(ledger: ReadyLedger, wallet: string): Promise<WalletOnLedger> {
    const account = await this.options.client.loadAccount(wallet);
    if (!account) return 'missing';
    return StellarClient.balanceOf(account, ledger.asset) ? 'ready' : 'untrusting';
  }

  /** The operations of an entry, rebuilt from what the journal holds. */
  private async jobFor(ledger: ReadyLedger, entry: EntryRow): Promise<{ submitter: AccountSubmitter; job: LedgerJob }> {
    switch (entry.kind) {
      case 'transfer': {
        const wallet = await this.walletKey(entry.fromPublicKey);
        return {
          submitter: this.walletSubmitter(ledger, wallet),
          job: { entryId: entry.id, kind: entry.kind, operations: [tokenPayment(ledger.asset, entry.toPublicKey, entry.amountStroops)] },
        };
      }
      case 'payment_mint':
      case 'admin_mint':
        return this.distributionJob(ledger, entry);
      case 'issue':
        return { submitter: ledger.issuer, job: { ...(await this.issueJob(ledger, entry.amountStroops)), entryId: entry.id } };
      case 'activation': {
        const wallet = await this.walletKey(entry.toPublicKey);
        const sponsor = ledger.keys.distribution.publicKey();
        const state = await this.walletOnLedger(ledger, wallet.publicKey());
        // An activation found done on the ledger still needs an envelope to settle its entry: the trustline is re-asserted.
        const operations = activationOperations(ledger.asset, sponsor, wallet.publicKey(), state === 'ready' ? 'untrusting' : state, formatStroops(entry.amountStroops));
        return { submitter: ledger.distribution, job: { entryId: entry.id, kind: entry.kind, operations, signers: [wallet] } };
      }
      case 'channel_funding':
      case 'channel_merge': {
        const channel = channelKeyOf(ledger.keys.distribution, entry.toPublicKey);
        if (!channel) throw new Error(`${entry.toPublicKey} is not one of the distribution account's channels`);
        const operations = entry.kind === 'channel_funding' ? channelCreation(ledger.keys, channel) : channelRemoval(ledger.keys, channel);
        return { submitter: ledger.distributionDirect, job: { entryId: entry.id, kind: entry.kind, operations, signers: [channel] } };
      }
      case 'trustline':
        return { submitter: ledger.distributionDirect, job: { entryId: entry.id, kind: entry.kind, operations: [Operation.changeTrust({ asset: ledger.asset })] } };
    }
  }

  /** A wallet's key pair, opened from its sealed secret. */
  private async walletKey(publicKey: string): Promise<Keypair> {
    const sealed = await this.options.wallets.findSealedKey(publicKey);
    if (!sealed) throw new Error(`no key for wallet ${publicKey}`);
    return Keypair.fromSecret(this.options.cipher.open({ ciphertext: sealed.secretCiphertext, keyId: sealed.keyId }, sealed.publicKey));
  }

  private async bootstrap(): Promise<ReadyLedger> {
    const o = this.options;
    const keys = await this.keys();
    const bumper = await this.bumper();
    const asset = new Asset(o.tokenCode, keys.issuer.publicKey());
    const distributionDirect = this.submitterFor(bumper, keys.distribution, MAX_OPERATIONS_PER_TX);
    const issuer = this.submitterFor(bumper, keys.issuer, MAX_OPERATIONS_PER_TX);
    const channels = channelKeys(keys.distribution, o.channelCount);
    const distribution = this.submitterFor(bumper, keys.distribution, MAX_OPERATIONS_PER_TX, channels);
    const ready: ReadyLedger = { keys, bumper, asset, issuer, distribution, distributionDirect };
    await bootstrapLedger({
      client: o.client,
      keys,
      asset,
      friendbotUrl: o.friendbotUrl,
      logger: o.logger,
      write: (kind, to, operations, signers) =>
        this.write(
          { kind, fromPublicKey: keys.distribution.publicKey(), toPublicKey: to, amountStroops: 0n, assetCode: kind === 'trustline' ? o.tokenCode : 'XLM' },
          { mustFinish: true },
          (row) => ({ submitter: distributionDirect, job: { entryId: row.id, kind, operations, signers } }),
        ),
      channels,
      channelCreation: (channel) => channelCreation(keys, channel),
    });
    o.logger.info({ issuer: keys.issuer.publicKey(), distribution: keys.distribution.publicKey(), tokenCode: o.tokenCode }, 'ledger ready');
    return ready;
  }

  private submitterFor(bumper: FeeBumper, source: Keypair, maxOperations: number, channels?: Keypair[]): AccountSubmitter {
    return new AccountSubmitter({
      client: this.options.client,
      journal: this.options.journal,
      sender: this.sender,
      bumper,
      source,
      channels,
      maxOperations,
      withLock: (key, fn) => this.options.database.withLock(key, fn),
      logger: this.options.logger,
      txTimeoutSeconds: this.options.timing.txTimeoutSeconds,
      leaseMs: this.options.timing.leaseMs,
      retryBaseMs: this.options.timing.retryBaseMs,
    });
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
