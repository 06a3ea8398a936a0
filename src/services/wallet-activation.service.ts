import type { WalletRepository, WalletRow } from '../db/repositories/wallet.repository';
import { activation, activationCommand } from '../ledger/kinds/activation';
import type { JournalWrites } from '../ledger/ledger-bootstrap';
import type { Logger } from '../logger';
import { BackgroundWorker } from '../workers/background-worker';
import type { WalletActivator } from './wallet.service';
import { errorReason } from '../errors/loggable-error';

export interface WalletActivationOptions {
  startingXlm: string;
  /** How long signup waits for the ledger before answering with the wallet still pending. */
  signupWaitMs: number;
}

/**
 * Puts new wallets on the ledger: create_account from the distribution account plus the token
 * trustline with the wallet as source, signed by both, as one journal entry through the batching
 * submitter (so a burst of signups takes a few ledgers). A wallet the ledger could not take yet
 * stays pending: the journal's reconciler finishes its entry, and the sweep gives a new entry to
 * any pending wallet that has none (its process died before writing one, or the ledger refused it).
 */
export class WalletActivationService extends BackgroundWorker implements WalletActivator {
  constructor(
    private readonly journal: JournalWrites,
    private readonly wallets: WalletRepository,
    private readonly options: WalletActivationOptions,
    private readonly logger: Logger,
  ) {
    super(logger, { failureMessage: 'wallet activation sweep failed' });
  }

  /** Gives every pending wallet without a live journal entry a new one. */
  protected async pass(): Promise<void> {
    const pending = await this.wallets.listPendingUnjournaled(500, activation.name);
    await Promise.all(pending.map((w) => this.activateOne(w, false, 0)));
  }

  /** Signup's call: the key pair was just generated, so the ledger lookup is skipped. Never throws. */
  async activate(wallet: { userId: string; publicKey: string }): Promise<void> {
    const row = await this.wallets.findByUserId(wallet.userId);
    if (row) await this.activateOne(row, true, this.options.signupWaitMs);
  }

  /**
   * Activates one user's wallet and waits for the ledger (up to `waitMs`); true once it is active.
   * `fresh` skips the ledger lookup, for a key pair that cannot be on the ledger yet.
   */
  async activateUser(userId: string, options: { fresh?: boolean; waitMs?: number } = {}): Promise<boolean> {
    const row = await this.wallets.findByUserId(userId);
    if (!row) return false;
    if (row.status === 'active') return true;
    await this.activateOne(row, options.fresh ?? false, options.waitMs ?? 30_000);
    return (await this.wallets.findByUserId(userId))?.status === 'active';
  }

  /** Gives every pending wallet without a live journal entry a new one; runs at start and on an interval. */
  sweep(): Promise<void> {
    return this.run();
  }

  private async activateOne(wallet: WalletRow, fresh: boolean, waitMs: number): Promise<void> {
    try {
      const command = activationCommand({ userId: wallet.userId, wallet: wallet.publicKey, fresh, startingXlm: this.options.startingXlm });
      const result = await this.journal.write(command, { waitMs });
      // The network already holds the wallet whole: nothing to write, it is simply active.
      if (!result.written && result.reason === 'nothing_to_do') await this.wallets.markActive(wallet.userId);
      if (result.written && result.outcome.status === 'failed') throw result.outcome.error;
    } catch (err) {
      // A fresh key pair's account already on the ledger (op_already_exists: someone funded the
      // address, or an earlier answer was lost): look at the ledger and add what is missing.
      if (fresh) return this.activateOne(wallet, false, waitMs);
      this.logger.warn({ userId: wallet.userId, reason: errorReason(err) }, 'wallet activation deferred');
    }
  }
}
