import crypto from 'node:crypto';
import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import type { StellarClient } from '../clients/stellar.client';
import type { DatabaseHandle } from '../db/client';
import type { SystemAccountRepository } from '../db/repositories/system-account.repository';
import type { Logger } from '../logger';
import type { WalletCipher } from '../security/wallet-cipher';
import { AccountSubmitter, type AccountSubmitterOptions } from './account-submitter';
import { bootstrapLedger, loadSystemKeys, type SystemKeys } from './system-accounts';

export interface LedgerRuntimeOptions {
  client: StellarClient;
  database: DatabaseHandle;
  systemAccounts: SystemAccountRepository;
  cipher: WalletCipher;
  tokenCode: string;
  issuerSecret: string | undefined;
  distributionSecret: string | undefined;
  friendbotUrl: string | undefined;
  logger: Logger;
  /** Channel accounts for the distribution account's batches (several transactions per ledger). */
  channelCount: number;
  onResult?: (code: string) => void;
}

export interface ReadyLedger {
  keys: SystemKeys;
  asset: Asset;
  issuer: AccountSubmitter;
  distribution: AccountSubmitter;
}

const MAX_OPERATIONS_PER_TX = 100;
/** Each channel pays its own fees: at 100 stroops an operation this lasts for many thousand batches. */
const CHANNEL_STARTING_XLM = '20';

/**
 * Channel keys are derived from the distribution secret: nothing more to store or configure, and
 * every process of the service finds the same channels.
 */
export function channelKeys(distribution: Keypair, count: number): Keypair[] {
  return Array.from({ length: count }, (_, i) =>
    Keypair.fromRawEd25519Seed(crypto.createHash('sha256').update(`wallet-channel:${i}:${distribution.secret()}`).digest()),
  );
}

/**
 * The ledger side of the service once it is bootstrapped: system keys, the token asset, and one
 * submitter per source account. Bootstrapping is lazy and retried: a ledger that is down at start
 * makes ledger routes answer 503 until it is back, and nothing else.
 */
export class LedgerRuntime {
  private readyPromise: Promise<ReadyLedger> | undefined;
  private readonly walletSubmitters = new Map<string, AccountSubmitter>();
  /** Set by the payments module: stores a mint envelope before it is submitted. */
  distributionHooks: Pick<AccountSubmitterOptions, 'onSigned' | 'onRejected'> = {};

  constructor(readonly options: LedgerRuntimeOptions) {}

  get client(): StellarClient {
    return this.options.client;
  }

  ready(): Promise<ReadyLedger> {
    this.readyPromise ??= this.bootstrap().catch((err: unknown) => {
      this.readyPromise = undefined;
      throw err;
    });
    return this.readyPromise;
  }

  /** The submitter of a user's wallet: one per account, so its transfers never race. */
  walletSubmitter(keypair: Keypair): AccountSubmitter {
    let submitter = this.walletSubmitters.get(keypair.publicKey());
    if (!submitter) {
      submitter = this.submitterFor(keypair, 1);
      this.walletSubmitters.set(keypair.publicKey(), submitter);
    }
    return submitter;
  }

  private async bootstrap(): Promise<ReadyLedger> {
    const o = this.options;
    const keys = await loadSystemKeys({ issuerSecret: o.issuerSecret, distributionSecret: o.distributionSecret }, o.systemAccounts, o.cipher);
    const asset = new Asset(o.tokenCode, keys.issuer.publicKey());
    const direct = this.submitterFor(keys.distribution, MAX_OPERATIONS_PER_TX);
    const issuer = this.submitterFor(keys.issuer, MAX_OPERATIONS_PER_TX);
    await bootstrapLedger({ client: o.client, keys, asset, friendbotUrl: o.friendbotUrl, distribution: direct, logger: o.logger });
    const channels = channelKeys(keys.distribution, o.channelCount);
    await this.ensureChannels(direct, channels);
    const distribution = this.submitterFor(keys.distribution, MAX_OPERATIONS_PER_TX, this.distributionHooks, channels);
    o.logger.info({ issuer: keys.issuer.publicKey(), distribution: keys.distribution.publicKey(), tokenCode: o.tokenCode }, 'ledger ready');
    return { keys, asset, issuer, distribution };
  }

  /** Creates the channel accounts that do not exist yet, funded from the distribution account. */
  private async ensureChannels(direct: AccountSubmitter, channels: Keypair[]): Promise<void> {
    const missing = [];
    for (const channel of channels) {
      if (!(await this.options.client.loadAccount(channel.publicKey()))) missing.push(channel);
    }
    if (missing.length === 0) return;
    this.options.logger.info({ count: missing.length }, 'creating channel accounts');
    await direct.submit({
      operations: missing.map((c) => Operation.createAccount({ destination: c.publicKey(), startingBalance: CHANNEL_STARTING_XLM })),
    });
  }

  private submitterFor(
    source: Keypair,
    maxOperations: number,
    hooks: Pick<AccountSubmitterOptions, 'onSigned' | 'onRejected'> = {},
    channels?: Keypair[],
  ): AccountSubmitter {
    return new AccountSubmitter({
      client: this.options.client,
      source,
      channels,
      maxOperations,
      withLock: (key, fn) => this.options.database.withLock(key, fn),
      logger: this.options.logger,
      onResult: this.options.onResult,
      // Hooks are read at call time, so the payments module can install them after construction.
      onSigned: (batch) => hooks.onSigned?.(batch) ?? Promise.resolve(),
      onRejected: (hash) => hooks.onRejected?.(hash) ?? Promise.resolve(),
    });
  }
}
