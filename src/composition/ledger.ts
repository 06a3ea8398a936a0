import { Asset } from '@stellar/stellar-sdk';
import { HorizonClient } from '../clients/horizon.client';
import type { LedgerApi } from '../clients/ledger-api';
import { RpcClient } from '../clients/rpc.client';
import type { Config } from '../config/env';
import type { DatabaseHandle } from '../db/client';
import type { IdempotencyRepository } from '../db/repositories/idempotency.repository';
import type { JournalRepository } from '../db/repositories/journal.repository';
import { SystemAccountRepository } from '../db/repositories/system-account.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import { LedgerJournal } from '../ledger/ledger-journal';
import type { SendEvents } from '../ledger/envelope-sender';
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
}

/** The ledger API the configuration names: Stellar RPC or Horizon, each over HTTP (the embedded sandbox speaks both). */
export function ledgerClientFromConfig(config: Config): LedgerApi {
  const ledger = config.ledger;
  const common = { networkPassphrase: ledger.networkPassphrase, submitTimeoutMs: ledger.submitTimeoutMs, readTimeoutMs: ledger.readTimeoutMs };
  if (ledger.api === 'rpc') return new RpcClient({ rpcUrl: ledger.url, ...common });
  return new HorizonClient({ horizonUrl: ledger.url, retentionLedgers: ledger.historyRetentionLedgers, ...common });
}

/** The ledger journal as the configuration describes it: the ledger API, the system accounts' secrets, timing and fees. */
export function journalFromConfig(config: Config, parts: JournalParts, events: SendEvents): LedgerJournal {
  const ledger = config.ledger;
  return new LedgerJournal({
    ...parts,
    client: ledgerClientFromConfig(config),
    systemAccounts: new SystemAccountRepository(parts.database.db),
    tokenCode: ledger.tokenCode,
    issuerSecret: ledger.issuerSecret,
    distributionSecret: ledger.distributionSecret,
    friendbotUrl: ledger.friendbotUrl,
    channelCount: ledger.channelCount,
    timing: {
      answerWaitMs: ledger.answerWaitMs,
      leaseMs: ledger.leaseMs,
      txTimeoutLedgers: ledger.txTimeoutLedgers,
      settleAttempts: 6,
      settleBaseDelayMs: ledger.settleBaseDelayMs,
      recheckMs: ledger.recheckMs,
      retryBaseMs: ledger.retryBaseMs,
    },
    fees: { percentile: ledger.feePercentile, maxFeeStroops: ledger.maxFeeStroops, cacheMs: ledger.feeStatsCacheMs, bumpAfterLedgers: ledger.bumpAfterLedgers },
    ...events,
  });
}

/** The distribution account's runway (metrics, /readyz), read through the journal's client and keys. */
export function treasuryFromConfig(config: Config, journal: LedgerJournal): Treasury {
  return new Treasury(
    journal.client,
    async () => {
      const keys = await journal.keys();
      return { publicKey: keys.distribution.publicKey(), asset: new Asset(config.ledger.tokenCode, keys.issuer.publicKey()) };
    },
    { walletStartingXlm: config.ledger.walletStartingXlm, minSignupsLeft: config.ledger.minSignupsLeft, cacheMs: 5000 },
  );
}
