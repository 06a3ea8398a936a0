import type { Keypair } from '@stellar/stellar-sdk';
import type { LedgerApi } from '../clients/ledger-api';
import type { JournalRepository } from '../db/repositories/journal.repository';
import type { Logger } from '../logger';
import type { EnvelopeLifecycle } from './envelope-lifecycle';
import type { EnvelopeSender } from './envelope-sender';
import type { KindRegistry } from './kinds/registry';
import type { FeeBumper } from './fee-bumper';

/** What an account's submitter is built with (ledger-accounts.ts): its account, lanes, stores and timing. */
export interface AccountSubmitterOptions {
  client: LedgerApi;
  journal: JournalRepository;
  lifecycle: EnvelopeLifecycle;
  /** What each entry's kind makes of a refusal. */
  kinds: KindRegistry;
  sender: EnvelopeSender;
  /** Pays every transaction's fee through a fee bump: no lane account needs XLM. */
  bumper: FeeBumper;
  /** The account whose operations these are (it signs every transaction it has operations in). */
  source: Keypair;
  /**
   * Channel accounts that give their sequence numbers instead of the source (fees come from the fee bump), one transaction
   * each per ledger, so several transactions of the source's operations land in the same ledger.
   * Unset = the source account itself is the only lane.
   */
  channels?: Keypair[];
  /** Cross-process mutual exclusion on a lane account (a PostgreSQL advisory lock). */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Jobs queued while a transaction is in flight go out together, up to this many operations. */
  maxOperations: number;
  logger: Logger;
  /** Ledgers a signed envelope stays valid after the ledger read before signing (its ledger bounds). */
  txTimeoutLedgers: number;
  /** How long this process owns a new envelope before the reconciler may look at it. */
  leaseMs: number;
  /** First pause before a batch's next round (doubles per round, at most 20 times this); default 100 ms. */
  retryBaseMs?: number;
}
