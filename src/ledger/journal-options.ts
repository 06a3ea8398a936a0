import type { LedgerApi } from '../clients/ledger-api';
import type { DatabaseHandle } from '../db/client';
import type { JournalRepository } from '../db/repositories/journal.repository';
import type { SystemAccountRepository } from '../db/repositories/system-account.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import type { Logger } from '../logger';
import type { WalletCipher } from '../security/wallet-cipher';
import type { FeePolicyOptions } from './fee-policy';
import type { KindRegistry } from './kinds/registry';

/** What the journal is built with (container.ts): its stores, the ledger client, keys, timing and fees. */
export interface LedgerOptions {
  client: LedgerApi;
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
