import { Keypair, Operation } from '@stellar/stellar-sdk';
import { LedgerRejectedError } from '../clients/ledger-errors';
import { StellarClient } from '../clients/stellar.client';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import type { LedgerRuntime } from '../ledger/ledger-runtime';
import type { Logger } from '../logger';
import type { WalletActivator, WalletService } from './wallet.service';

export interface WalletActivationOptions {
  startingXlm: string;
  /** How long signup waits for the ledger before answering with the wallet still pending. */
  signupWaitMs: number;
  retryIntervalMs: number;
}

/**
 * Puts new wallets on the ledger: create_account from the distribution account plus the token
 * trustline with the wallet as source, signed by both, through the batching submitter (so a burst
 * of signups takes a few ledgers). A wallet the ledger could not take stays pending and a
 * background job finishes it.
 */
export class WalletActivationService implements WalletActivator {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private readonly inProgress = new Map<string, Promise<boolean>>();

  constructor(
    private readonly runtime: LedgerRuntime,
    private readonly wallets: WalletRepository,
    private readonly walletService: WalletService,
    private readonly options: WalletActivationOptions,
    private readonly logger: Logger,
  ) {}

  async activate(wallet: { userId: string; publicKey: string }): Promise<void> {
    const attempt = this.activateOne(wallet.userId, { fresh: true });
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.signupWaitMs);
    });
    await Promise.race([attempt.then(() => undefined), waited]);
    clearTimeout(timer);
  }

  /**
   * Activates one wallet; true when it is active. Never throws: failures leave it pending.
   * `fresh`: the key pair was just generated, so the account cannot exist yet and the ledger lookup
   * is skipped (a burst of signups queues its activations in one tick); an earlier attempt whose
   * answer was lost still ends well through op_already_exists.
   */
  activateOne(userId: string, options: { fresh?: boolean } = {}): Promise<boolean> {
    let running = this.inProgress.get(userId);
    if (!running) {
      running = this.tryActivate(userId, options.fresh ?? false).finally(() => this.inProgress.delete(userId));
      this.inProgress.set(userId, running);
    }
    return running;
  }

  /** Retries every pending wallet; runs at start and on an interval. */
  sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        for (;;) {
          const pending = await this.wallets.listPending(500);
          if (pending.length === 0) return;
          const results = await Promise.all(pending.map((w) => this.activateOne(w.userId)));
          if (!results.some(Boolean)) return; // the ledger is still not taking them: wait for the next tick
        }
      } catch (err) {
        this.logger.warn({ err }, 'wallet activation sweep failed');
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }

  start(): void {
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.options.retryIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  private async tryActivate(userId: string, fresh: boolean): Promise<boolean> {
    try {
      const ledger = await this.runtime.ready();
      const wallet = await this.wallets.findByUserId(userId);
      if (!wallet) return false;
      if (wallet.status === 'active') return true;
      const user = Keypair.fromSecret(this.walletService.revealSecret(wallet));
      const existing = fresh ? undefined : await this.runtime.client.loadAccount(wallet.publicKey);
      const trust = Operation.changeTrust({ asset: ledger.asset, source: wallet.publicKey });
      if (!existing) {
        const create = Operation.createAccount({ destination: wallet.publicKey, startingBalance: this.options.startingXlm });
        await ledger.distribution.submit({ operations: [create, trust], signers: [user] }).catch(async (err: unknown) => {
          // Created by an earlier attempt whose answer was lost: finish with the trustline below.
          if (!(err instanceof LedgerRejectedError && err.operationCodes[0] === 'op_already_exists')) throw err;
          await this.ensureTrust(userId);
        });
      } else if (!StellarClient.balanceOf(existing, ledger.asset)) {
        await ledger.distribution.submit({ operations: [trust], signers: [user] });
      }
      await this.wallets.markActive(userId);
      return true;
    } catch (err) {
      this.logger.warn({ userId, reason: err instanceof Error ? err.message : String(err) }, 'wallet activation deferred');
      return false;
    }
  }

  private async ensureTrust(userId: string): Promise<void> {
    const ledger = await this.runtime.ready();
    const wallet = (await this.wallets.findByUserId(userId))!;
    const account = await this.runtime.client.loadAccount(wallet.publicKey);
    if (account && StellarClient.balanceOf(account, ledger.asset)) return;
    const user = Keypair.fromSecret(this.walletService.revealSecret(wallet));
    await ledger.distribution.submit({ operations: [Operation.changeTrust({ asset: ledger.asset, source: wallet.publicKey })], signers: [user] });
  }
}
