import { Asset, type Keypair } from '@stellar/stellar-sdk';
import type { EntryRow, NewEntry } from '../db/repositories/journal.repository';
import { AccountSubmitter } from './account-submitter';
import { MAX_CHANNELS, channelCreation, channelKeys, channelRemoval } from './channel-accounts';
import type { EntryJob } from './entry-jobs';
import { EnvelopeSender } from './envelope-sender';
import { FeeBumper } from './fee-bumper';
import { FeePolicy } from './fee-policy';
import type { LedgerJournalOptions } from './journal-options';
import type { LedgerWrite, WriteOptions } from './ledger-journal';
import { bootstrapLedger, loadSystemKeys, type SystemKeys } from './system-accounts';

/** The ledger once bootstrapped: its keys, the token and the submitters every write goes through. */
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

/** The journal's one write rule (LedgerJournal.write): commit the entry, then sign, store and send its job. */
export type JournalWrite = (entry: NewEntry, options: WriteOptions, jobOf: (row: EntryRow) => EntryJob) => Promise<LedgerWrite>;

const MAX_OPERATIONS_PER_TX = 100;

/**
 * The accounts the journal writes from and their submitters: the system keys, the fee bumper, the
 * issuer's and the distribution account's submitters (the latter over its channel accounts) and one
 * per user wallet. Built once, lazily: the bootstrap's own ledger writes (the distribution
 * trustline, the channel accounts) go through the journal's write rule like every other.
 */
export class LedgerSubmitters {
  private readyPromise: Promise<ReadyLedger> | undefined;
  private keysPromise: Promise<SystemKeys> | undefined;
  private bumperPromise: Promise<FeeBumper> | undefined;
  private readonly feePolicy: FeePolicy;
  private readonly walletSubmitters = new Map<string, AccountSubmitter>();
  readonly sender: EnvelopeSender;

  constructor(
    private readonly options: LedgerJournalOptions,
    private readonly write: JournalWrite,
  ) {
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

  /** Bootstraps lazily and retries: a ledger down at start makes ledger routes answer 503 until it is back. */
  ready(): Promise<ReadyLedger> {
    this.readyPromise ??= this.bootstrap().catch((err: unknown) => {
      this.readyPromise = undefined;
      throw err;
    });
    return this.readyPromise;
  }

  /** Waits for every submitter to finish what it has in flight (graceful shutdown). */
  async drain(): Promise<void> {
    const ready = await this.readyPromise?.catch(() => undefined);
    const all = [...this.walletSubmitters.values(), ...(ready ? [ready.distribution, ready.issuer, ready.distributionDirect] : [])];
    await Promise.all(all.map((s) => s.drained()));
  }

  /** The submitter of a user's wallet: one per account, so its transfers never race. */
  walletSubmitter(ledger: ReadyLedger, keypair: Keypair): AccountSubmitter {
    let submitter = this.walletSubmitters.get(keypair.publicKey());
    if (!submitter) {
      submitter = this.submitterFor(ledger.bumper, keypair, 1);
      this.walletSubmitters.set(keypair.publicKey(), submitter);
    }
    return submitter;
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
          { kind, fromPublicKey: keys.distribution.publicKey(), toPublicKey: to, amountStroops: 0n, assetCode: kind === 'channel_funding' ? 'XLM' : o.tokenCode },
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
      txTimeoutLedgers: this.options.timing.txTimeoutLedgers,
      leaseMs: this.options.timing.leaseMs,
      retryBaseMs: this.options.timing.retryBaseMs,
    });
  }
}
