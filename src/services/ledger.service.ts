import type { Asset } from '@stellar/stellar-sdk';
import type { IdempotencyClaim } from '../db/repositories/idempotency.repository';
import type { AdminActor } from '../domain/admin-log';
import type { ReversalRepository } from '../db/repositories/reversal.repository';
import type { CountedRecordTuple, TransactionRepository } from '../db/repositories/transaction.repository';
import type { WalletRepository, WalletRow } from '../db/repositories/wallet.repository';
import { formatStroops, parseTokenAmount } from '../domain/amounts';
import { AppError, RECEIVER_NOT_FOUND } from '../errors/app-error';
import { adminMintCommand } from '../ledger/kinds/admin-mint';
import { issueCommand } from '../ledger/kinds/issue';
import { transferCommand } from '../ledger/kinds/transfer';
import type { JournalWrites } from '../ledger/ledger-bootstrap';
import { answeredWrite, type AnsweredWrite } from '../ledger/ledger-error-map';
import type { LedgerAccount, TokenReads } from '../ledger/token-reads';

export interface LedgerServiceDeps {
  ledger: TokenReads;
  journal: JournalWrites;
  wallets: WalletRepository;
  transactions: TransactionRepository;
  reversals: ReversalRepository;
  tokenCode: string;
}

/** Balances, transfers, issuing and minting: the ledger use cases behind /api/ledger and mint-tokens. */
export class LedgerService {
  constructor(private readonly deps: LedgerServiceDeps) {}

  /** An account's balances, or NOT_FOUND when it is not on the ledger. */
  async account(publicKey: string): Promise<{ ledger: { asset: Asset }; account: LedgerAccount }> {
    const asset = await this.deps.ledger.asset();
    const account = await this.deps.ledger.account(publicKey, asset);
    if (!account) throw new AppError('NOT_FOUND', 'Account not found on the ledger');
    return { ledger: { asset }, account };
  }

  /** The account's token balance (7-decimal text), undefined when it is unknown or does not trust the token. */
  async tokenBalance(publicKey: string): Promise<string | undefined> {
    const { ledger, account } = await this.account(publicKey);
    return this.deps.ledger.tokenLine(account, ledger.asset)?.balance;
  }

  /**
   * Pays `stroops` of the token from the user's wallet to `receiver`, through the journal: the
   * record exists from the moment the transfer is accepted, and says `pending` until the ledger
   * decides. Both wallets must be active; the receiver must exist (else the spec's plain-text 400)
   * and trust the token. With an Idempotency-Key, the key is bound to the record for good.
   */
  async transfer(userId: string, receiver: string, stroops: bigint, idempotency?: IdempotencyClaim): Promise<AnsweredWrite> {
    const previous = await this.deps.journal.previousWrite(idempotency);
    if (previous) return answeredWrite(previous, this.deps.tokenCode);
    const asset = await this.deps.ledger.asset();
    const sender = await this.activeWallet(userId);
    if (receiver === sender.publicKey) throw new AppError('VALIDATION', 'Receiver is your own wallet');
    const internalReceiver = await this.deps.wallets.findByPublicKey(receiver);
    if (internalReceiver?.status === 'pending') throw new AppError('CONFLICT', "The receiver's wallet is not active on the ledger yet");

    const [receiverAccount, senderAccount] = await Promise.all([this.deps.ledger.account(receiver, asset), this.deps.ledger.account(sender.publicKey, asset)]);
    if (!receiverAccount) {
      throw new AppError('VALIDATION', 'Receiver account does not exist on the ledger').because(RECEIVER_NOT_FOUND);
    }
    if (!this.deps.ledger.tokenLine(receiverAccount, asset)) {
      throw new AppError('VALIDATION', `Receiver has no trustline for ${this.deps.tokenCode}`);
    }
    // Refused here, before anything is written or signed, when the balance plainly does not cover
    // it; the ledger still has the last word for concurrent transfers (op_underfunded).
    const line = senderAccount ? this.deps.ledger.tokenLine(senderAccount, asset) : undefined;
    const balance = line ? (parseTokenAmount(line.balance) ?? 0n) : 0n;
    if (balance < stroops) throw new AppError('VALIDATION', 'Insufficient balance');
    // Tokens of a payment under an open chargeback stay in the wallet but may not leave it.
    const held = await this.deps.reversals.heldFor(userId);
    if (balance - held < stroops) {
      throw new AppError('VALIDATION', `Insufficient balance: ${formatStroops(held)} ${this.deps.tokenCode} are held while a payment of yours is disputed`);
    }
    return answeredWrite(await this.deps.journal.write(transferCommand({ userId, from: sender.publicKey, to: receiver, stroops }), { idempotency }), this.deps.tokenCode);
  }

  /**
   * Issues `stroops` new tokens from the issuing account to the distribution account, adding the
   * distribution account's trustline in the same transaction when it is missing. The admin's log
   * row commits with the issue's journal entry.
   */
  async createAsset(assetCode: string, stroops: bigint, actor: AdminActor, idempotency?: IdempotencyClaim): Promise<AnsweredWrite> {
    const previous = await this.deps.journal.previousWrite(idempotency);
    if (previous) return answeredWrite(previous, this.deps.tokenCode);
    if (assetCode !== this.deps.tokenCode) throw new AppError('VALIDATION', `assetCode must be ${this.deps.tokenCode}`);
    await this.deps.ledger.asset();
    const adminLog = { ...actor, action: 'ledger.issue', details: { assetCode, amount: formatStroops(stroops) } };
    return answeredWrite(await this.deps.journal.write(issueCommand({ stroops }), { idempotency, adminLog }), this.deps.tokenCode);
  }

  /**
   * Mints (pays from the distribution account) `stroops` tokens to a user's active wallet: the
   * admin's manual path (its admin log row commits with the entry). Payments go through
   * PaymentService, which consumes their reference.
   */
  async mintToUser(userId: string, stroops: bigint, actor: AdminActor, idempotency?: IdempotencyClaim): Promise<AnsweredWrite> {
    const previous = await this.deps.journal.previousWrite(idempotency);
    if (previous) return answeredWrite(previous, this.deps.tokenCode);
    await this.deps.ledger.asset();
    const wallet = await this.activeWallet(userId, 'User');
    const adminLog = { ...actor, action: 'ledger.mint', target: userId, details: { amount: formatStroops(stroops) } };
    return answeredWrite(await this.deps.journal.write(adminMintCommand({ userId, to: wallet.publicKey, stroops }), { idempotency, adminLog }), this.deps.tokenCode);
  }

  /** A page of the user's records as GET /api/ledger/transactions/:userId answers them (PostgreSQL's rows, in array mode), with their total. */
  async transactionPage(userId: string, limit: number, offset: number): Promise<{ items: CountedRecordTuple[]; total: number }> {
    const { rows, total } = await this.deps.transactions.userPage(userId, limit, offset);
    return { items: rows, total };
  }

  private async activeWallet(userId: string, whose = 'Your'): Promise<WalletRow> {
    const wallet = await this.deps.wallets.findByUserId(userId);
    if (!wallet) throw new AppError('NOT_FOUND', 'User not found');
    if (wallet.status !== 'active') throw new AppError('CONFLICT', `${whose} wallet is not active on the ledger yet; try again shortly`);
    return wallet;
  }
}
