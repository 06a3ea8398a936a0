import { Asset, type Keypair } from '@stellar/stellar-sdk';
import { AccountSubmitter } from './account-submitter';
import { channelKeys } from './channel-accounts';
import { EnvelopeLifecycle } from './envelope-lifecycle';
import { EnvelopeSender } from './envelope-sender';
import { FeeBumper } from './fee-bumper';
import { FeePolicy, type FeePolicyOptions } from './fee-policy';
import { WalletSubmitters } from './wallet-submitters';
import { loadSystemKeys, type SystemKeys } from './system-accounts';
import type { EventAppender } from '../db/repositories/event.repository';
import type { LedgerApi } from '../clients/ledger-api';
import type { DatabaseHandle } from '../db/client';
import type { JournalRepository } from '../db/repositories/journal.repository';
import type { SystemAccountRepository } from '../db/repositories/system-account.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import type { Logger } from '../logger';
import type { WalletCipher } from '../security/wallet-cipher';
import type { KindRegistry } from './kinds/registry';

/** What the journal is built with (container.ts): its stores, the ledger client, keys, timing and fees. */
export interface LedgerOptions {
  client: LedgerApi;
  /** Where a settlement's events go, in its transaction (CONTRACT.md section 13). */
  events: EventAppender;
  database: DatabaseHandle;
  journal: JournalRepository;
  /** The kinds of write the journal knows (kinds/registry.ts). */
  kinds: KindRegistry;
  wallets: WalletRepository;
  systemAccounts: SystemAccountRepository;
  cipher: WalletCipher;
  tokenCode: string;
  issuerSecret: string | undefined;
  distributionSecret: string | undefined;
  logger: Logger;
  /** Channel accounts for the distribution account's batches (several transactions per ledger). */
  channelCount: number;
  timing: JournalTiming;
  /** User wallets' submitters kept at most (the least recently used idle ones let go first). */
  walletSubmitterLimit: number;
  fees: FeePolicyOptions & {
    /** Ledgers an envelope may wait with Horizon before its bid is raised. */
    bumpAfterLedgers: number;
  };
}

export interface JournalTiming {
  /** How long a request waits for the ledger before answering that the outcome is pending (202). */
  answerWaitMs: number;
  /** How long the process that signs an envelope owns it before the reconciler may take over. */
  leaseMs: number;
  /** Ledgers an envelope stays valid after the ledger read before signing it (its ledger bounds). */
  txTimeoutLedgers: number;
  settleAttempts: number;
  settleBaseDelayMs: number;
  /** How soon the reconciler looks again at an envelope still open. */
  recheckMs: number;
  /** First pause between a batch's rounds when the ledger could not be reached or refused it. */
  retryBaseMs?: number;
}

/** The accounts the journal writes from: their keys, the token and the submitters every entry goes out through. */
export interface JournalAccounts {
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

const MAX_OPERATIONS_PER_TX = 100;

/**
 * The accounts the journal writes from and their submitters: the system keys, the fee bumper, the
 * issuer's and the distribution account's submitters (the latter over its channel accounts) and one
 * per user wallet. Built once, lazily, without writing anything: what the network must hold first
 * (trustline, channel accounts) is ledger-bootstrap.ts, above the journal.
 */
export class LedgerAccounts {
  private readyPromise: Promise<JournalAccounts> | undefined;
  private built: JournalAccounts | undefined;
  private keysPromise: Promise<SystemKeys> | undefined;
  private bumperPromise: Promise<FeeBumper> | undefined;
  private readonly feePolicy: FeePolicy;
  private readonly walletSubmitters: WalletSubmitters<AccountSubmitter>;
  readonly sender: EnvelopeSender;
  readonly lifecycle: EnvelopeLifecycle;

  constructor(private readonly options: LedgerOptions) {
    this.walletSubmitters = new WalletSubmitters(options.walletSubmitterLimit);
    this.feePolicy = new FeePolicy(options.client, options.fees);
    this.lifecycle = new EnvelopeLifecycle({ db: options.database.db, repository: options.journal, kinds: options.kinds, events: options.events });
    this.sender = new EnvelopeSender({
      client: options.client,
      journal: options.journal,
      lifecycle: this.lifecycle,
      logger: options.logger,
      settleAttempts: options.timing.settleAttempts,
      settleBaseDelayMs: options.timing.settleBaseDelayMs,
      recheckMs: options.timing.recheckMs,
      bumper: () => this.bumper(),
      bumpAfterLedgers: options.fees.bumpAfterLedgers,
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

  /** The keys loaded (or generated once) and the submitters built; retried after a failure. */
  ready(): Promise<JournalAccounts> {
    this.readyPromise ??= this.build().catch((err: unknown) => {
      this.readyPromise = undefined;
      throw err;
    });
    return this.readyPromise;
  }

  /** Jobs queued on the distribution account's submitter (undefined before it is built): a gauge. */
  distributionQueueDepth(): number | undefined {
    return this.built?.distribution.queueDepth;
  }

  /** User wallets' submitters this process keeps (at most LEDGER_WALLET_SUBMITTERS while idle). */
  get walletSubmitterCount(): number {
    return this.walletSubmitters.size;
  }

  /** Waits for every submitter to finish what it has in flight (graceful shutdown). */
  async drain(): Promise<void> {
    const ready = await this.readyPromise?.catch(() => undefined);
    const all = [...this.walletSubmitters.values(), ...(ready ? [ready.distribution, ready.issuer, ready.distributionDirect] : [])];
    await Promise.all(all.map((s) => s.drained()));
  }

  /**
   * The key pair of a wallet whose submitter this process already holds: the submitter keeps it
   * to sign, so opening the sealed secret again would only derive the same key, for a database read
   * and a public-key derivation in JavaScript per transfer (issue 37).
   */
  heldWalletKey(publicKey: string): Keypair | undefined {
    return this.walletSubmitters.peek(publicKey)?.source;
  }

  /** The submitter of a user's wallet: one per account at a time, so its transfers never race. */
  walletSubmitter(ledger: JournalAccounts, keypair: Keypair): AccountSubmitter {
    return this.walletSubmitters.get(keypair.publicKey(), () => this.submitterFor(ledger.bumper, keypair, 1));
  }

  private async build(): Promise<JournalAccounts> {
    const o = this.options;
    const keys = await this.keys();
    const bumper = await this.bumper();
    const asset = new Asset(o.tokenCode, keys.issuer.publicKey());
    this.built = {
      keys,
      bumper,
      asset,
      issuer: this.submitterFor(bumper, keys.issuer, MAX_OPERATIONS_PER_TX),
      distribution: this.submitterFor(bumper, keys.distribution, MAX_OPERATIONS_PER_TX, channelKeys(keys.distribution, o.channelCount)),
      distributionDirect: this.submitterFor(bumper, keys.distribution, MAX_OPERATIONS_PER_TX),
    };
    return this.built;
  }

  private submitterFor(bumper: FeeBumper, source: Keypair, maxOperations: number, channels?: Keypair[]): AccountSubmitter {
    return new AccountSubmitter({
      client: this.options.client,
      journal: this.options.journal,
      lifecycle: this.lifecycle,
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
