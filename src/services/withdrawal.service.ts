import crypto from 'node:crypto';
import type { PaystackClient, ProviderTransfer } from '../clients/paystack.client';
import type { EventTransactions } from '../db/repositories/event.repository';
import { appendAdminLog, type AdminLogRepository } from '../db/repositories/admin-log.repository';
import type { AdminActor } from '../domain/admin-log';
import type { PayoutAccountRepository } from '../db/repositories/payout-account.repository';
import type { ReversalRepository } from '../db/repositories/reversal.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import type { WithdrawalRepository, WithdrawalRow } from '../db/repositories/withdrawal.repository';
import { formatKobo, formatStroops, parseTokenAmount } from '../domain/amounts';
import type { ExchangeRate } from '../domain/exchange-rate';
import { SWEPT_STATES, transferMove, WITHDRAWAL_REFERENCE_PREFIX, type WithdrawalState } from '../domain/withdrawal-lifecycle';
import { AppError } from '../errors/app-error';
import { withdrawalDebitCommand } from '../ledger/kinds/withdrawal';
import { withdrawalRefundCommand } from '../ledger/kinds/withdrawal-refund';
import type { JournalWrites } from '../ledger/ledger-bootstrap';
import type { TokenReads } from '../ledger/token-reads';
import type { Logger } from '../logger';
import { QueueWorker, type LeasedQueue, type RetryPolicy } from '../workers/queue-worker';

export interface WithdrawalOptions {
  rate: ExchangeRate;
  /** The smallest withdrawal, in kobo. */
  minKobo: bigint;
  /** What one user may withdraw in 24 hours, in kobo. */
  dailyLimitKobo: bigint;
  /** How long a request waits for its debit's ledger answer (the journal finishes it anyway). */
  debitWaitMs: number;
  /** When the sweep takes over a request that has not written its debit (its process died). */
  takeOverMs: number;
  policy: RetryPolicy;
  tokenCode: string;
}

export interface WithdrawalDeps {
  /** The admin's cancel, its log row and the user's event commit together. */
  events: EventTransactions;
  log: AdminLogRepository;
  withdrawals: WithdrawalRepository;
  accounts: PayoutAccountRepository;
  wallets: WalletRepository;
  reversals: ReversalRepository;
  reads: TokenReads;
  journal: JournalWrites;
  provider: PaystackClient;
  options: WithdrawalOptions;
  logger: Logger;
}

/** A withdrawal request as the route hands it over: tokens, the account, and the request's Idempotency-Key. */
export interface WithdrawalRequest {
  userId: string;
  amountStroops: bigint;
  payoutAccountId: string;
  idempotencyKey: string;
  requestHash: string;
}

/** After this many moves in one look, the sweep comes back for the rest (a bound, not an expected number). */
const MOVES_PER_LOOK = 4;

/**
 * Tokens out, Naira to the user's bank account, exactly once both ways (src/domain/withdrawal-lifecycle.ts).
 * The request records the withdrawal (its transfer reference fixed with it, under the user's lock
 * that keeps the daily limit) and writes the debit: the tokens leave the wallet through the journal.
 * Only once the ledger confirmed that does anything ask the provider to pay, always under the same
 * reference: an unclear answer is settled by verifying that reference, never by a new one. The
 * provider's final word that no Naira went out (or that they came back) gives the tokens back by
 * one journal entry the withdrawal claims. The request, this sweep (every withdrawal not final,
 * until it is), the webhook inbox and the admins' finalize and cancel all move a withdrawal through
 * `advance` and the repository's conditional moves, so any of them may race in any number of processes.
 */
export class WithdrawalService extends QueueWorker<WithdrawalRow> {
  constructor(private readonly deps: WithdrawalDeps) {
    super(sweepQueue(deps.withdrawals, deps.options.policy), {
      failureMessage: 'withdrawal sweep deferred',
      batchSize: 20,
      policy: deps.options.policy,
      describe: (w) => ({ withdrawal: w.id, reference: w.reference, status: w.status }),
      logMessages: {
        retrying: 'withdrawal step failed, retrying later',
        setAside: 'withdrawal still not final after many looks: an operator should look (it keeps being looked at)',
        notFinal: 'withdrawal waits for the provider or the ledger',
      },
    }, deps.logger);
  }

  /**
   * Records a withdrawal and takes its tokens: answers it as it stands after the debit's wait (the
   * sweep pays it once the debit is confirmed). The same Idempotency-Key and body answer the first
   * request's withdrawal, whatever happened since; the key with another body is a CONFLICT.
   */
  async request(input: WithdrawalRequest): Promise<{ withdrawal: WithdrawalRow; replayed: boolean }> {
    const { options } = this.deps;
    const previous = await this.deps.withdrawals.findByKey(input.userId, input.idempotencyKey);
    if (previous) return { withdrawal: this.replayOf(previous, input), replayed: true };

    const kobo = options.rate.koboFor(input.amountStroops);
    if (kobo === undefined) throw new AppError('VALIDATION', `amount must be worth a whole number of kobo at the rate of ${this.rateText()}`);
    if (kobo < options.minKobo) throw new AppError('VALIDATION', `The smallest withdrawal is ${formatKobo(options.minKobo)} Naira`);
    const account = await this.deps.accounts.findOwn(input.userId, input.payoutAccountId);
    if (!account) throw new AppError('NOT_FOUND', 'Payout account not found');
    const wallet = await this.deps.wallets.findByUserId(input.userId);
    if (!wallet) throw new AppError('NOT_FOUND', 'User not found');
    if (wallet.status !== 'active') throw new AppError('CONFLICT', 'Your wallet is not active on the ledger yet; try again shortly');
    // Refused here, before anything is recorded, when the wallet plainly cannot cover it; the ledger
    // still has the last word for requests racing each other (the debit is refused: debit_failed).
    const spendable = (await this.tokenBalance(wallet.publicKey)) - (await this.deps.reversals.heldFor(input.userId));
    if (spendable < input.amountStroops) throw new AppError('VALIDATION', 'Insufficient balance');
    // Tokens a refund or a lost chargeback could not take back are owed in Naira's worth: none is cashed out first.
    const owed = await this.deps.reversals.owedBy(input.userId);
    if (owed > 0n) throw new AppError('CONFLICT', `You owe ${formatStroops(owed)} ${options.tokenCode} from a reversed payment: buy tokens to settle it before withdrawing`);

    // The transfer's reference is derived from the withdrawal and stored with it, before any call.
    const id = crypto.randomUUID();
    const created = await this.deps.withdrawals.create(
      {
        id,
        userId: input.userId,
        payoutAccountId: account.id,
        recipientCode: account.recipientCode,
        bankName: account.bankName,
        accountNumber: account.accountNumber,
        accountName: account.accountName,
        walletPublicKey: wallet.publicKey,
        amountStroops: input.amountStroops,
        nairaKobo: kobo,
        reference: `${WITHDRAWAL_REFERENCE_PREFIX}${id}`,
        idempotencyKey: input.idempotencyKey,
        requestHash: input.requestHash,
      },
      options.dailyLimitKobo,
      options.takeOverMs,
    );
    if (!created.created) {
      switch (created.reason) {
        case 'key_bound':
          return { withdrawal: created.withdrawal, replayed: true };
        case 'key_reused':
          throw keyReused();
        case 'over_limit':
          throw new AppError(
            'VALIDATION',
            `Over the daily withdrawal limit of ${formatKobo(options.dailyLimitKobo)} Naira: ${formatKobo(created.usedKobo)} Naira withdrawn in the last 24 hours`,
          );
      }
    }
    await this.debit(created.withdrawal);
    const now = (await this.deps.withdrawals.find(created.withdrawal.id)) ?? created.withdrawal;
    if (now.status === 'debited') void this.run();
    return { withdrawal: now, replayed: false };
  }

  findOwn(userId: string, id: string): Promise<WithdrawalRow | undefined> {
    return this.deps.withdrawals.find(id).then((w) => (w?.userId === userId ? w : undefined));
  }

  page(filter: { userId?: string; status?: WithdrawalState; limit: number; offset: number }): Promise<{ items: WithdrawalRow[]; total: number }> {
    return this.deps.withdrawals.page(filter).then(({ rows, total }) => ({ items: rows, total }));
  }

  /** For each waiting state, the age in seconds of its oldest withdrawal (operators' gauges). */
  oldestWaiting(): Promise<{ status: WithdrawalState; seconds: number }[]> {
    return this.deps.withdrawals.oldestWaiting();
  }

  /**
   * An admin gives the OTP a transfer waits for. A refusal (a wrong OTP) is a VALIDATION error and
   * changes nothing; an unclear answer is UPSTREAM_UNAVAILABLE and the sweep verifies what happened.
   */
  async finalize(id: string, otp: string, actor: AdminActor): Promise<WithdrawalRow> {
    const withdrawal = await this.existing(id);
    if (withdrawal.status !== 'awaiting_otp' || !withdrawal.transferCode) {
      throw new AppError('CONFLICT', `Withdrawal is not waiting for an OTP (status: ${withdrawal.status})`);
    }
    const result = await this.deps.provider.finalizeTransfer(withdrawal.transferCode, otp);
    // The provider acted (or may have): logged whatever it answered, never the OTP.
    await this.deps.log.append({ ...actor, action: 'withdrawal.finalize', target: id, details: { outcome: result.outcome } });
    switch (result.outcome) {
      case 'accepted':
        await this.apply(withdrawal, result.transfer);
        return this.existing(id);
      case 'refused':
        throw new AppError('VALIDATION', 'The provider refused the OTP');
      case 'unclear':
        this.logger.warn({ withdrawal: id, reason: result.cause }, 'finalize answer unclear: the sweep verifies the transfer');
        throw new AppError('UPSTREAM_UNAVAILABLE', 'Payment provider unavailable; the transfer is verified later');
    }
  }

  /**
   * An admin's cancel: before the debit nothing moved; after it, only while no transfer can exist
   * (no call made, or every call refused outright), and the tokens go back to the wallet.
   */
  async cancel(id: string, actor: AdminActor): Promise<WithdrawalRow> {
    await this.existing(id);
    const cancelled = await this.deps.events.run(async (tx, events) => {
      const row = await this.deps.withdrawals.cancel(tx, events, id, 'Cancelled by an admin');
      if (row) await appendAdminLog(tx, { ...actor, action: 'withdrawal.cancel', target: id, details: { status: row.status } });
      return row;
    });
    if (!cancelled) throw new AppError('CONFLICT', 'Withdrawal can be cancelled only before a transfer may exist');
    this.logger.warn({ withdrawal: id, status: cancelled.status }, 'withdrawal cancelled by an admin');
    if (cancelled.status === 'refund_due') await this.refund(cancelled);
    return this.existing(id);
  }

  /**
   * A provider event about a transfer (`transfer.success`, `.failed`, `.reversed`): what the
   * provider says of the reference now decides, whatever order events come in. `unknown` when no
   * withdrawal has the reference; `later` when the provider does not show the transfer yet.
   */
  async settleTransfer(reference: string): Promise<string> {
    const withdrawal = await this.deps.withdrawals.findByReference(reference);
    if (!withdrawal) return 'unknown';
    const transfer = await this.deps.provider.verifyTransfer(reference);
    if (!transfer) return 'later';
    const now = await this.apply(withdrawal, transfer);
    return now.status;
  }

  /** Whether a provider reference is one of this service's withdrawals (the webhook inbox keeps only those). */
  async isWithdrawal(reference: string): Promise<boolean> {
    return (await this.deps.withdrawals.findByReference(reference)) !== undefined;
  }

  protected async handle(claimed: WithdrawalRow): Promise<void | 'later'> {
    let current = claimed;
    for (let moves = 0; moves < MOVES_PER_LOOK; moves += 1) {
      await this.advance(current);
      const now = await this.deps.withdrawals.find(current.id);
      if (!now) return;
      const moved = now.status !== current.status;
      current = now;
      // A move to a state this process can act on at once (tokens taken: pay; payout failed: refund) goes on now.
      if (!moved || !['debited', 'refund_due'].includes(now.status)) break;
    }
    return SWEPT_STATES.includes(current.status) ? 'later' : undefined;
  }

  /** Does the one thing the withdrawal's state waits for. */
  private async advance(withdrawal: WithdrawalRow): Promise<void> {
    switch (withdrawal.status) {
      case 'requested':
        return this.debit(withdrawal);
      case 'debited':
      case 'waiting_float':
      case 'sending':
        return this.pay(withdrawal);
      case 'processing':
      case 'awaiting_otp': {
        const transfer = await this.deps.provider.verifyTransfer(withdrawal.reference);
        if (transfer) await this.apply(withdrawal, transfer);
        return;
      }
      case 'refund_due':
        return this.refund(withdrawal);
      default:
        // debiting / refunding: the journal finishes them; the rest are final (paid waits for a reversal event).
        return;
    }
  }

  /** The tokens leave the wallet: one journal entry that takes the withdrawal (requested -> debiting). */
  private async debit(withdrawal: WithdrawalRow): Promise<void> {
    const command = withdrawalDebitCommand({ withdrawalId: withdrawal.id, userId: withdrawal.userId, from: withdrawal.walletPublicKey, stroops: withdrawal.amountStroops });
    await this.deps.journal.write(command, { waitMs: this.deps.options.debitWaitMs });
  }

  /** The tokens come back: one journal entry that takes the withdrawal (refund_due -> refunding). */
  private async refund(withdrawal: WithdrawalRow): Promise<void> {
    this.logger.warn({ withdrawal: withdrawal.id, reason: withdrawal.reason }, 'withdrawal not paid: its tokens go back to the wallet');
    const command = withdrawalRefundCommand({ withdrawalId: withdrawal.id, userId: withdrawal.userId, to: withdrawal.walletPublicKey, stroops: withdrawal.amountStroops });
    await this.deps.journal.write(command, { waitMs: this.deps.options.debitWaitMs });
  }

  /**
   * Asks the provider to pay, under the withdrawal's one reference. After any earlier call, the
   * provider is asked first what became of it: a transfer it shows decides; only one it does not
   * show is asked for again, with the same reference (a duplicate is refused as `reference_used`).
   */
  private async pay(withdrawal: WithdrawalRow): Promise<void> {
    const { provider, withdrawals } = this.deps;
    if (withdrawal.transferCalls > 0) {
      const known = await provider.verifyTransfer(withdrawal.reference);
      if (known) {
        await this.apply(withdrawal, known);
        return;
      }
    }
    const sending = await withdrawals.transferStarted(withdrawal.id);
    if (!sending) return;
    const result = await provider.initiateTransfer({
      amountKobo: sending.nairaKobo,
      recipient: sending.recipientCode,
      reference: sending.reference,
      reason: `Withdrawal of ${formatStroops(sending.amountStroops)} ${this.deps.options.tokenCode}`,
    });
    switch (result.outcome) {
      case 'accepted':
        await this.apply(sending, result.transfer);
        return;
      case 'unclear':
        // It may exist: only verify may say (the next look), never a new reference.
        this.logger.warn({ withdrawal: sending.id, reference: sending.reference, reason: result.cause }, 'transfer answer unclear: verified on the next look');
        return;
      case 'refused':
        return this.refused(sending, result.reason, result.message);
    }
  }

  private async refused(withdrawal: WithdrawalRow, reason: 'reference_used' | 'balance_not_enough' | 'other', message: string): Promise<void> {
    const { provider, withdrawals } = this.deps;
    switch (reason) {
      case 'reference_used': {
        // An earlier call of ours went through: what the provider shows of it decides.
        const known = await provider.verifyTransfer(withdrawal.reference);
        if (known) await this.apply(withdrawal, known);
        return;
      }
      case 'balance_not_enough':
        this.logger.warn({ withdrawal: withdrawal.id, naira: formatKobo(withdrawal.nairaKobo) }, "the provider's balance cannot pay a withdrawal: it waits for the float");
        await withdrawals.refusedOutright(withdrawal.id, 'floatShort', "The provider's balance cannot pay it yet");
        return;
      case 'other': {
        const failed = await withdrawals.refusedOutright(withdrawal.id, 'transferFailed', 'The provider refused the transfer');
        if (failed) return this.refund(failed);
        // An earlier call's answer was unclear, so a transfer may exist: only verify may end it.
        this.logger.error({ withdrawal: withdrawal.id, reference: withdrawal.reference, message }, 'transfer refused after an unclear call: an operator should look');
        return;
      }
    }
  }

  /** What the provider shows of the transfer moves the withdrawal (each move from the states it may come from only). */
  private async apply(withdrawal: WithdrawalRow, transfer: ProviderTransfer): Promise<WithdrawalRow> {
    if (transfer.amountKobo !== withdrawal.nairaKobo) {
      this.logger.error({ withdrawal: withdrawal.id, reference: withdrawal.reference, providerKobo: String(transfer.amountKobo) }, 'the provider shows another amount for the transfer');
    }
    const move = transferMove(transfer.status);
    const moved = await this.deps.withdrawals.move(withdrawal.id, move, {
      transferCode: transfer.transferCode,
      providerStatus: transfer.status,
      ...(move === 'transferSucceeded' ? { paidAt: new Date(), reason: null } : {}),
      ...(move === 'transferFailed' || move === 'transferReversed' ? { reason: `The provider's transfer ended ${transfer.status}` } : {}),
    });
    if (moved?.status === 'refund_due') await this.refund(moved);
    return moved ?? (await this.deps.withdrawals.find(withdrawal.id)) ?? withdrawal;
  }

  private replayOf(previous: WithdrawalRow, input: WithdrawalRequest): WithdrawalRow {
    if (previous.requestHash !== input.requestHash) throw keyReused();
    return previous;
  }

  private async existing(id: string): Promise<WithdrawalRow> {
    const withdrawal = await this.deps.withdrawals.find(id);
    if (!withdrawal) throw new AppError('NOT_FOUND', 'Withdrawal not found');
    return withdrawal;
  }

  private async tokenBalance(publicKey: string): Promise<bigint> {
    const asset = await this.deps.reads.asset();
    const account = await this.deps.reads.account(publicKey, asset);
    const line = account ? this.deps.reads.tokenLine(account, asset) : undefined;
    return line ? (parseTokenAmount(line.balance) ?? 0n) : 0n;
  }

  private rateText(): string {
    return `${formatStroops(this.deps.options.rate.stroopsPerNaira)} ${this.deps.options.tokenCode} per Naira`;
  }
}

function keyReused(): AppError {
  return new AppError('CONFLICT', 'Idempotency-Key was already used with a different request');
}

function sweepQueue(repository: WithdrawalRepository, policy: RetryPolicy): LeasedQueue<WithdrawalRow> {
  return {
    claimDue: (limit, leaseMs) => repository.claimDue(limit, leaseMs),
    retryLater: (id, delayMs) => repository.checkLater(id, delayMs),
    // Money in flight is never given up on: after the last attempt it is looked at at the longest delay.
    setAside: (id) => repository.checkLater(id, policy.maxDelayMs),
  };
}
