import { Asset } from '@stellar/stellar-sdk';
import { HorizonClient } from '../clients/horizon.client';
import type { LedgerApi } from '../clients/ledger-api';
import { RpcClient } from '../clients/rpc.client';
import type { Config } from '../config/env';
import type { DatabaseHandle } from '../db/client';
import type { IdempotencyRepository } from '../db/repositories/idempotency.repository';
import type { JournalRepository } from '../db/repositories/journal.repository';
import { MovementRepository } from '../db/repositories/movement.repository';
import { SystemAccountRepository } from '../db/repositories/system-account.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import { EntryJobs } from '../ledger/entry-jobs';
import type { KindRegistry } from '../ledger/kinds/registry';
import { Journal } from '../ledger/journal';
import { JournalReconciler } from '../ledger/journal-reconciler';
import type { EventAppender } from '../db/repositories/event.repository';
import { LedgerAccounts, type LedgerOptions } from '../ledger/ledger-accounts';
import { LedgerBootstrap } from '../ledger/ledger-bootstrap';
import { LedgerFollower } from '../ledger/ledger-follower';
import { TokenReads } from '../ledger/token-reads';
import { Treasury } from '../ledger/treasury';
import type { Logger } from '../logger';
import type { WalletCipher } from '../security/wallet-cipher';

export interface JournalParts {
  database: DatabaseHandle;
  journal: JournalRepository;
  idempotency: IdempotencyRepository;
  wallets: WalletRepository;
  cipher: WalletCipher;
  logger: Logger;
  /** The kinds of ledger write (src/ledger/kinds/registry.ts). */
  kinds: KindRegistry;
  /** The outbox: settlements and followed movements write their events through it. */
  events: EventAppender;
}

/** The ledger API the configuration names: Stellar RPC or Horizon, each over HTTP (the embedded sandbox speaks both). */
export function ledgerClientFromConfig(config: Config): LedgerApi {
  const ledger = config.ledger;
  const common = { networkPassphrase: ledger.networkPassphrase, submitTimeoutMs: ledger.submitTimeoutMs, readTimeoutMs: ledger.readTimeoutMs };
  if (ledger.api === 'rpc') return new RpcClient({ rpcUrl: ledger.url, ...common });
  return new HorizonClient({ horizonUrl: ledger.url, retentionLedgers: ledger.historyRetentionLedgers, ...common });
}

/** The ledger module's parts, wired once: each only calls the ones below it (docs/architecture.md). */
export interface LedgerModule {
  client: LedgerApi;
  repository: JournalRepository;
  accounts: LedgerAccounts;
  journal: Journal;
  /** The use cases' door for writes: the journal, once the network holds what the service needs. */
  bootstrap: LedgerBootstrap;
  reads: TokenReads;
  reconciler: JournalReconciler;
  /** Records what moved into and out of the service's accounts by other roads (CONTRACT 12). */
  follower: LedgerFollower;
  movements: MovementRepository;
  kinds: KindRegistry;
}

/** The ledger module as the configuration describes it: the network's API, the system accounts' secrets, timing and fees. */
export function ledgerFromConfig(config: Config, parts: JournalParts): LedgerModule {
  const ledger = config.ledger;
  const client = ledgerClientFromConfig(config);
  const timing = {
    answerWaitMs: ledger.answerWaitMs,
    leaseMs: ledger.leaseMs,
    txTimeoutLedgers: ledger.txTimeoutLedgers,
    settleAttempts: 6,
    settleBaseDelayMs: ledger.settleBaseDelayMs,
    recheckMs: ledger.recheckMs,
    retryBaseMs: ledger.retryBaseMs,
  };
  const options: LedgerOptions = {
    ...parts,
    client,
    systemAccounts: new SystemAccountRepository(parts.database.db),
    tokenCode: ledger.tokenCode,
    issuerSecret: ledger.issuerSecret,
    distributionSecret: ledger.distributionSecret,
    channelCount: ledger.channelCount,
    walletSubmitterLimit: ledger.walletSubmitterLimit,
    timing,
    fees: { percentile: ledger.feePercentile, maxFeeStroops: ledger.maxFeeStroops, cacheMs: ledger.feeStatsCacheMs, bumpAfterLedgers: ledger.bumpAfterLedgers },
  };
  const accounts = new LedgerAccounts(options);
  const jobs = new EntryJobs({ kinds: parts.kinds, client, wallets: parts.wallets, cipher: parts.cipher, accounts });
  const journal = new Journal({ db: parts.database.db, repository: parts.journal, idempotency: parts.idempotency, accounts, kinds: parts.kinds, jobs, timing });
  const bootstrap = new LedgerBootstrap({
    journal,
    accounts,
    repository: parts.journal,
    client,
    friendbotUrl: ledger.friendbotUrl,
    channelCount: ledger.channelCount,
    logger: parts.logger,
  });
  const reconciler = new JournalReconciler(
    { repository: parts.journal, lifecycle: accounts.lifecycle, sender: accounts.sender, jobs, networkPassphrase: client.networkPassphrase, ready: () => bootstrap.ready() },
    { leaseMs: ledger.leaseMs, batchSize: 200 },
    parts.logger,
  );
  const movements = new MovementRepository(parts.database.db, parts.events);
  const follower = new LedgerFollower(
    {
      client,
      movements,
      journal: parts.journal,
      lifecycle: accounts.lifecycle,
      accounts: async () => {
        const keys = await accounts.keys();
        return { token: { code: ledger.tokenCode, issuer: keys.issuer.publicKey() }, systemKeys: [keys.issuer.publicKey(), keys.distribution.publicKey()] };
      },
    },
    // 200: the most one page of getTransactions or /operations holds.
    { pageLimit: 200, leaseMs: Math.max(ledger.leaseMs, 3 * ledger.followIntervalMs), maxPagesPerPass: 50 },
    parts.logger,
  );
  return { client, repository: parts.journal, accounts, journal, bootstrap, reads: new TokenReads(bootstrap, client, ledger.tokenCode), reconciler, follower, movements, kinds: parts.kinds };
}

/** The distribution account's runway (metrics, /readyz), read through the journal's client and keys. */
export function treasuryFromConfig(config: Config, ledger: LedgerModule): Treasury {
  return new Treasury(
    ledger.client,
    async () => {
      const keys = await ledger.accounts.keys();
      return { publicKey: keys.distribution.publicKey(), asset: new Asset(config.ledger.tokenCode, keys.issuer.publicKey()) };
    },
    { walletStartingXlm: config.ledger.walletStartingXlm, minSignupsLeft: config.ledger.minSignupsLeft, cacheMs: 5000 },
  );
}
