import { Keypair, Operation } from '@stellar/stellar-sdk';
import { StellarClient, type LedgerAccount } from '../clients/stellar.client';
import type { Database } from '../db/client';
import type { TransactionRepository, TransactionRow } from '../db/repositories/transaction.repository';
import type { WalletRepository, WalletRow } from '../db/repositories/wallet.repository';
import { formatStroops } from '../domain/amounts';
import { AppError } from '../errors/app-error';
import { fromLedgerError, RECEIVER_NOT_FOUND } from '../ledger/ledger-error-map';
import type { LedgerRuntime, ReadyLedger } from '../ledger/ledger-runtime';
import type { WalletService } from './wallet.service';

export interface TransferResult {
  record: TransactionRow;
  ledger: number;
}

/** Balances, transfers, issuing and minting: the ledger use cases behind /api/ledger and mint-tokens. */
export class LedgerService {
  constructor(
    private readonly db: Database,
    private readonly runtime: LedgerRuntime,
    private readonly wallets: WalletRepository,
    private readonly walletService: WalletService,
    private readonly transactions: TransactionRepository,
    private readonly tokenCode: string,
  ) {}

  /** An account's balances, or NOT_FOUND when it is not on the ledger. */
  async account(publicKey: string): Promise<{ ledger: ReadyLedger; account: LedgerAccount }> {
    const ledger = await this.ready();
    const account = await this.runtime.client.loadAccount(publicKey).catch((err: unknown) => {
      throw fromLedgerError(err, this.tokenCode);
    });
    if (!account) throw new AppError('NOT_FOUND', 'Account not found on the ledger');
    return { ledger, account };
  }

  /**
   * Pays `stroops` of the token from the user's wallet to `receiver`. A record, with the ledger
   * hash, is saved only for a transaction the ledger applied. Both wallets must be active; the
   * receiver must exist (else the spec's plain-text 400) and trust the token.
   */
  async transfer(userId: string, receiver: string, stroops: bigint): Promise<TransferResult> {
    const ledger = await this.ready();
    const sender = await this.activeWallet(userId);
    if (receiver === sender.publicKey) throw new AppError('VALIDATION', 'Receiver is your own wallet');
    const internalReceiver = await this.wallets.findByPublicKey(receiver);
    if (internalReceiver?.status === 'pending') throw new AppError('CONFLICT', "The receiver's wallet is not active on the ledger yet");

    const receiverAccount = await this.runtime.client.loadAccount(receiver).catch((err: unknown) => {
      throw fromLedgerError(err, this.tokenCode);
    });
    if (!receiverAccount) {
      throw new AppError('VALIDATION', 'Receiver account does not exist on the ledger').because(RECEIVER_NOT_FOUND);
    }
    if (!StellarClient.balanceOf(receiverAccount, ledger.asset)) {
      throw new AppError('VALIDATION', `Receiver has no trustline for ${this.tokenCode}`);
    }

    const keypair = Keypair.fromSecret(this.walletService.revealSecret(sender));
    const result = await this.runtime
      .walletSubmitter(keypair)
      .submit({ operations: [Operation.payment({ destination: receiver, asset: ledger.asset, amount: formatStroops(stroops) })] })
      .catch((err: unknown) => {
        throw fromLedgerError(err, this.tokenCode);
      });
    const record = await this.transactions.insert(this.db, {
      ledgerTransactionId: result.hash,
      fromPublicKey: sender.publicKey,
      toPublicKey: receiver,
      amountStroops: stroops,
      assetCode: this.tokenCode,
      userId,
      kind: 'transfer',
    });
    return { record, ledger: result.ledger };
  }

  /**
   * Issues `stroops` new tokens from the issuing account to the distribution account, adding the
   * distribution account's trustline in the same transaction when it is missing.
   */
  async createAsset(assetCode: string, stroops: bigint): Promise<{ hash: string }> {
    if (assetCode !== this.tokenCode) throw new AppError('VALIDATION', `assetCode must be ${this.tokenCode}`);
    const ledger = await this.ready();
    const distributionKey = ledger.keys.distribution.publicKey();
    const distribution = await this.runtime.client.loadAccount(distributionKey).catch((err: unknown) => {
      throw fromLedgerError(err, this.tokenCode);
    });
    const operations = [];
    const signers = [];
    if (!distribution || !StellarClient.balanceOf(distribution, ledger.asset)) {
      operations.push(Operation.changeTrust({ asset: ledger.asset, source: distributionKey }));
      signers.push(ledger.keys.distribution);
    }
    operations.push(Operation.payment({ destination: distributionKey, asset: ledger.asset, amount: formatStroops(stroops) }));
    const result = await ledger.issuer.submit({ operations, signers }).catch((err: unknown) => {
      throw fromLedgerError(err, this.tokenCode);
    });
    return { hash: result.hash };
  }

  /**
   * Mints (pays from the distribution account) `stroops` tokens to a user's active wallet through
   * the batching submitter, and records it. For payments use PaymentService, which adds the
   * exactly-once bookkeeping; this is the admin's manual path.
   */
  async mintToUser(userId: string, stroops: bigint): Promise<{ hash: string; record: TransactionRow }> {
    const ledger = await this.ready();
    const wallet = await this.activeWallet(userId, 'User');
    const result = await ledger.distribution
      .submit({ operations: [Operation.payment({ destination: wallet.publicKey, asset: ledger.asset, amount: formatStroops(stroops) })] })
      .catch((err: unknown) => {
        throw fromLedgerError(err, this.tokenCode);
      });
    const record = await this.transactions.insert(this.db, {
      ledgerTransactionId: result.hash,
      fromPublicKey: ledger.keys.distribution.publicKey(),
      toPublicKey: wallet.publicKey,
      amountStroops: stroops,
      assetCode: this.tokenCode,
      userId,
      kind: 'mint',
    });
    return { hash: result.hash, record };
  }

  async listForUser(userId: string, limit: number, offset: number) {
    const [items, total] = await Promise.all([
      this.transactions.listForUser(userId, limit, offset),
      this.transactions.countForUser(userId),
    ]);
    return { items, total };
  }

  async ready(): Promise<ReadyLedger> {
    return this.runtime.ready().catch((err: unknown) => {
      throw err instanceof AppError ? err : new AppError('UPSTREAM_UNAVAILABLE', 'Ledger unavailable, try again later');
    });
  }

  private async activeWallet(userId: string, whose = 'Your'): Promise<WalletRow> {
    const wallet = await this.wallets.findByUserId(userId);
    if (!wallet) throw new AppError('NOT_FOUND', 'User not found');
    if (wallet.status !== 'active') throw new AppError('CONFLICT', `${whose} wallet is not active on the ledger yet; try again shortly`);
    return wallet;
  }
}
