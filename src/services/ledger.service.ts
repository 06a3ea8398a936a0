import type { Asset } from '@stellar/stellar-sdk';
import type { ApprovalRepository, ApprovalRow, NewApproval } from '../db/repositories/approval.repository';
import type { IdempotencyClaim } from '../db/repositories/idempotency.repository';
import type { Database } from '../db/client';
import { appendAdminLog } from '../db/repositories/admin-log.repository';
import type { AdminActor, AdminLogEntry } from '../domain/admin-log';
import type { ReversalRepository } from '../db/repositories/reversal.repository';
import type { CountedRecordTuple, TransactionRepository } from '../db/repositories/transaction.repository';
import type { WalletRepository, WalletRow } from '../db/repositories/wallet.repository';
import { formatStroops, parseTokenAmount } from '../domain/amounts';
import { APPROVAL_ACTION, needsApproval } from '../domain/approval-lifecycle';
import { AppError, RECEIVER_NOT_FOUND } from '../errors/app-error';
import { adminMintCommand } from '../ledger/kinds/admin-mint';
import { issueCommand } from '../ledger/kinds/issue';
import { transferCommand } from '../ledger/kinds/transfer';
import type { JournalWrites } from '../ledger/ledger-bootstrap';
import { answeredWrite, type AnsweredWrite } from '../ledger/ledger-error-map';
import type { LedgerAccount, TokenReads } from '../ledger/token-reads';
import type { WriteResult } from '../ledger/write-command';

export interface LedgerServiceDeps {
  ledger: TokenReads;
  journal: JournalWrites;
  wallets: WalletRepository;
  transactions: TransactionRepository;
  reversals: ReversalRepository;
  approvals: ApprovalRepository;
  /** A mint or issue that waits for approval is recorded with its admin log row in one transaction (the writes log with their entries). */
  db: Database;
  tokenCode: string;
  /** MINT_APPROVAL_THRESHOLD in stroops: a mint or issue of more waits for a second admin; undefined: none does. */
  approvalThresholdStroops: bigint | undefined;
}

/** How a mint or an issue is written: the request's key, the approval that claims it, the admin's log row. */
interface CreationOptions {
  idempotency?: IdempotencyClaim;
  approvalId?: string;
  adminLog?: AdminLogEntry;
}

/** A mint or issue above MINT_APPROVAL_THRESHOLD: recorded for a second admin, nothing moved (`replayed`: its Idempotency-Key's earlier approval). */
export interface AwaitingApproval {
  written: false;
  approval: ApprovalRow;
  replayed: boolean;
}

/** What an admin's mint or issue request became: written through the journal, or waiting for a second admin. */
export type MoneyCreation = AnsweredWrite | AwaitingApproval;

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
    // A ledger not ready answers first (503). Then one statement reads both wallets and the
    // sender's held tokens, and one ledger call both accounts (issue 37: round trips cost CPU).
    const asset = await this.deps.ledger.asset();
    const parties = await this.deps.wallets.transferParties(userId, receiver);
    const sender = activeWallet(parties.sender);
    if (receiver === sender.publicKey) throw new AppError('VALIDATION', 'Receiver is your own wallet');
    if (parties.receiver?.status === 'pending') throw new AppError('CONFLICT', "The receiver's wallet is not active on the ledger yet");

    const [receiverAccount, senderAccount] = await this.deps.ledger.accounts([receiver, sender.publicKey], asset);
    const held = parties.heldStroops;
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
    if (balance - held < stroops) {
      throw new AppError('VALIDATION', `Insufficient balance: ${formatStroops(held)} ${this.deps.tokenCode} are held while a payment of yours is disputed`);
    }
    return answeredWrite(await this.deps.journal.write(transferCommand({ userId, from: sender.publicKey, to: receiver, stroops }), { idempotency }), this.deps.tokenCode);
  }

  /**
   * Issues `stroops` new tokens from the issuing account to the distribution account, adding the
   * distribution account's trustline in the same transaction when it is missing; the admin's log
   * row commits with the issue's journal entry. Above MINT_APPROVAL_THRESHOLD nothing is issued:
   * the request waits for a second admin (ApprovalService).
   */
  async createAsset(actor: AdminActor, assetCode: string, stroops: bigint, idempotency?: IdempotencyClaim): Promise<MoneyCreation> {
    const previous = await this.previousCreation(idempotency);
    if (previous) return previous;
    if (assetCode !== this.deps.tokenCode) throw new AppError('VALIDATION', `assetCode must be ${this.deps.tokenCode}`);
    const details = { assetCode, amount: formatStroops(stroops) };
    if (needsApproval(stroops, this.deps.approvalThresholdStroops)) {
      return this.awaitApproval({ action: APPROVAL_ACTION.issue, amountStroops: stroops, assetCode, requestedBy: actor.adminId! }, idempotency, { ...actor, action: 'ledger.issue_requested', details });
    }
    return answeredWrite(await this.issue(stroops, { idempotency, adminLog: { ...actor, action: 'ledger.issue', details } }), this.deps.tokenCode);
  }

  /**
   * Mints (pays from the distribution account) `stroops` tokens to a user's active wallet: the
   * admin's manual path (its admin log row commits with the entry). Payments go through
   * PaymentService, which consumes their reference. Above MINT_APPROVAL_THRESHOLD nothing is
   * minted: the request waits for a second admin (ApprovalService).
   */
  async mintToUser(actor: AdminActor, userId: string, stroops: bigint, idempotency?: IdempotencyClaim): Promise<MoneyCreation> {
    const previous = await this.previousCreation(idempotency);
    if (previous) return previous;
    const details = { amount: formatStroops(stroops) };
    if (needsApproval(stroops, this.deps.approvalThresholdStroops)) {
      // Refused now rather than approved later: the second admin approves a mint that can be written.
      await this.activeWallet(userId, 'User');
      const request = { action: APPROVAL_ACTION.mint, userId, amountStroops: stroops, assetCode: this.deps.tokenCode, requestedBy: actor.adminId! };
      return this.awaitApproval(request, idempotency, { ...actor, action: 'ledger.mint_requested', target: userId, details });
    }
    return answeredWrite(await this.mint(userId, stroops, { idempotency, adminLog: { ...actor, action: 'ledger.mint', target: userId, details } }), this.deps.tokenCode);
  }

  /**
   * Writes an approved request (a mint or an issue) through the journal, claimed by its approval:
   * once, whatever retries and races; the approver's admin log row (`approval.approve`) commits with
   * its entry. An approval already written, or written meanwhile by another approver, is answered
   * its entry as it stands now (200 confirmed, 202 pending, or its refusal), exactly as a retried
   * Idempotency-Key is; nothing is written twice.
   */
  async writeApproved(approval: ApprovalRow, actor: AdminActor): Promise<AnsweredWrite> {
    if (approval.entryId) {
      const previous = await this.deps.journal.writtenEntry(approval.entryId);
      if (previous) return answeredWrite(previous, this.deps.tokenCode);
      // Its entry was dropped unsent (nothing moved): it is written again, claimed again.
      await this.deps.approvals.released(approval.id, approval.entryId);
    }
    const adminLog = {
      ...actor,
      action: 'approval.approve',
      target: approval.id,
      details: { action: approval.action, amount: formatStroops(approval.amountStroops), userId: approval.userId, requestedBy: approval.requestedBy },
    };
    const options = { approvalId: approval.id, adminLog };
    const result =
      approval.action === APPROVAL_ACTION.mint ? await this.mint(approval.userId!, approval.amountStroops, options) : await this.issue(approval.amountStroops, options);
    if (result.written || result.reason !== 'claimed') return answeredWrite(result, this.deps.tokenCode);
    // Another approver's entry took the approval first (committed by now): that entry is the answer.
    const claimedBy = (await this.deps.approvals.find(approval.id))?.entryId;
    const written = claimedBy ? await this.deps.journal.writtenEntry(claimedBy) : undefined;
    if (!written) throw new AppError('CONFLICT', 'The approval is being written by another request; ask again for its state');
    return answeredWrite(written, this.deps.tokenCode);
  }

  /** A page of the user's records as GET /api/ledger/transactions/:userId answers them (PostgreSQL's rows, in array mode), with their total. */
  async transactionPage(userId: string, limit: number, offset: number): Promise<{ items: CountedRecordTuple[]; total: number }> {
    const { rows, total } = await this.deps.transactions.userPage(userId, limit, offset);
    return { items: rows, total };
  }

  /** The mint itself: the user's wallet must be active. */
  private async mint(userId: string, stroops: bigint, options: CreationOptions): Promise<WriteResult> {
    await this.deps.ledger.asset();
    const wallet = await this.activeWallet(userId, 'User');
    return this.deps.journal.write(adminMintCommand({ userId, to: wallet.publicKey, stroops, approvalId: options.approvalId }), { idempotency: options.idempotency, adminLog: options.adminLog });
  }

  /** The issue itself. */
  private async issue(stroops: bigint, options: CreationOptions): Promise<WriteResult> {
    await this.deps.ledger.asset();
    return this.deps.journal.write(issueCommand({ stroops, approvalId: options.approvalId }), { idempotency: options.idempotency, adminLog: options.adminLog });
  }

  /**
   * What a mint or issue with this Idempotency-Key was already answered: the journal's entry bound
   * to it, or the approval it is bound to (the same body: that approval again; another body: 409).
   * Undefined when the key is free.
   */
  private async previousCreation(idempotency: IdempotencyClaim | undefined): Promise<MoneyCreation | undefined> {
    const previous = await this.deps.journal.previousWrite(idempotency);
    if (previous) return answeredWrite(previous, this.deps.tokenCode);
    const bound = idempotency ? await this.deps.approvals.findByKey(idempotency) : undefined;
    if (!bound) return undefined;
    if (bound.requestHash !== idempotency!.requestHash) throw new AppError('CONFLICT', 'Idempotency-Key was already used with a different request');
    return { written: false, approval: bound, replayed: true };
  }

  /** Records the request for a second admin; nothing moves. */
  private async awaitApproval(request: NewApproval, idempotency: IdempotencyClaim | undefined, adminLog: AdminLogEntry): Promise<AwaitingApproval> {
    // The request and its admin log row commit together (a replayed key records neither).
    const recorded = await this.deps.db.transaction(async (tx) => {
      const result = await this.deps.approvals.request(request, idempotency, tx);
      if (result.recorded) await appendAdminLog(tx, { ...adminLog, details: { ...adminLog.details, approvalId: result.approval.id } });
      return result;
    });
    if (recorded.recorded) return { written: false, approval: recorded.approval, replayed: false };
    if (recorded.reason === 'key_reused') throw new AppError('CONFLICT', 'Idempotency-Key was already used with a different request');
    return { written: false, approval: recorded.approval, replayed: true };
  }

  private async activeWallet(userId: string, whose = 'Your'): Promise<WalletRow> {
    return activeWallet(await this.deps.wallets.findByUserId(userId), whose);
  }
}

/** The wallet, refused when there is none (404) or it is not active on the ledger yet (409). */
function activeWallet(wallet: WalletRow | undefined, whose = 'Your'): WalletRow {
  if (!wallet) throw new AppError('NOT_FOUND', 'User not found');
  if (wallet.status !== 'active') throw new AppError('CONFLICT', `${whose} wallet is not active on the ledger yet; try again shortly`);
  return wallet;
}
