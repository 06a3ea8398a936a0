import type { PaymentRepository, PaymentRow } from '../db/repositories/payment.repository';
import type { NewReversal, ReversalRepository, ReversalRow } from '../db/repositories/reversal.repository';
import { parseTokenAmount } from '../domain/amounts';
import { clawbackCommand } from '../ledger/kinds/clawback';
import type { JournalWrites } from '../ledger/ledger-bootstrap';
import type { TokenReads } from '../ledger/token-reads';
import type { Logger } from '../logger';
import { QueueWorker, type LeasedQueue, type RetryPolicy } from '../workers/queue-worker';

export interface ReversalServiceOptions {
  policy: RetryPolicy;
  /** How long a worker waits for a clawback's ledger answer (the journal finishes it anyway). */
  clawbackWaitMs: number;
  /** Tokens a Naira amount bought (PaymentService.tokensFor). */
  tokensFor: (kobo: bigint) => bigint;
}

/**
 * What a chargeback event did to its payment: `already_reversed` when money went back before the
 * chargeback opened (its tokens are being taken back, nothing is left to hold or release).
 */
export type DisputeStep = 'held' | 'released' | 'already_reversed' | 'nothing_minted' | 'not_yet';

export interface ReversalServiceDeps {
  reversals: ReversalRepository;
  payments: PaymentRepository;
  ledger: TokenReads;
  journal: JournalWrites;
  options: ReversalServiceOptions;
  logger: Logger;
}

/**
 * Money that goes back to a buyer after they paid: refunds and chargebacks (src/domain/payment-lifecycle.ts).
 * A chargeback opened holds the payment's tokens (`disputed`: transfers may not spend them); won, it
 * releases them; lost, it is a reversal like a refund. Each reversal is recorded once per provider
 * identity and worked by this queue: a payment never minted is closed without tokens; a minted one
 * moves to `reversed` and its tokens are taken back by one clawback (a journal entry, exactly once
 * like every ledger write); what the wallet no longer holds is the buyer's debt, which their next
 * purchase settles. Claimed in the database, so any number of processes run it.
 */
export class ReversalService extends QueueWorker<ReversalRow> {
  constructor(private readonly deps: ReversalServiceDeps) {
    super(reversalQueue(deps.reversals, deps.options.policy), {
      failureMessage: 'payment reversals deferred',
      batchSize: 20,
      policy: deps.options.policy,
      describe: (r) => ({ reference: r.paymentReference, reversal: r.key }),
      logMessages: {
        retrying: 'payment reversal failed, retrying later',
        setAside: 'payment reversal still open after many attempts: an operator should look (it keeps being retried)',
        notFinal: 'payment reversal waits for its mint to finish',
      },
    }, deps.logger);
  }

  /** Records money that went back (once per key) and works it at once in the background. */
  async record(reversal: NewReversal): Promise<void> {
    const row = await this.deps.reversals.record(reversal, this.deps.options.tokensFor);
    if (row) {
      this.logger.warn({ reference: row.paymentReference, reversal: row.key, amountKobo: String(row.amountKobo) }, 'payment reversed: its tokens are taken back');
      void this.run();
    }
  }

  /** A chargeback opened: the payment's tokens are held until it is decided. */
  async openDispute(reference: string): Promise<DisputeStep> {
    const payment = await this.deps.payments.find(reference);
    if (!payment) return 'nothing_minted';
    const step = mintStage(payment);
    if (step !== 'minted') return step;
    if (payment.status === 'minted' && (await this.deps.payments.moveNow(reference, 'disputeOpened'))) {
      this.logger.warn({ reference }, 'payment disputed: its tokens are held');
    }
    // Read again: a reversal may have moved it meanwhile (the move is made by one caller only).
    return (await this.deps.payments.find(reference))?.status === 'disputed' ? 'held' : 'already_reversed';
  }

  /** The merchant won the chargeback: the held tokens are the buyer's again. */
  async disputeWon(reference: string): Promise<DisputeStep> {
    const payment = await this.deps.payments.find(reference);
    if (!payment) return 'nothing_minted';
    const step = mintStage(payment);
    if (step !== 'minted') return step;
    if (payment.status === 'reversed') return 'already_reversed';
    await this.deps.payments.moveNow(reference, 'disputeWon');
    return 'released';
  }

  protected async handle(reversal: ReversalRow): Promise<void | 'later'> {
    const payment = await this.deps.payments.find(reversal.paymentReference);
    if (!payment) throw new Error(`reversal ${reversal.key} names an unknown payment`);
    switch (mintStage(payment)) {
      case 'not_yet':
        return 'later';
      case 'nothing_minted':
        await this.deps.reversals.endWithoutClawback(reversal.id, { clawedStroops: 0n, debtStroops: 0n, note: 'The payment was never minted' });
        return;
      case 'minted':
        return this.takeBack(reversal, payment);
    }
  }

  /** The payment is `reversed`; its reversal takes back what the wallet still holds of its tokens, and the rest is debt. */
  private async takeBack(reversal: ReversalRow, payment: PaymentRow): Promise<void> {
    await this.deps.payments.moveNow(payment.reference, 'reversed');
    const wallet = payment.destinationPublicKey;
    const held = wallet ? await this.tokenBalance(wallet) : 0n;
    const amount = reversal.tokensStroops < held ? reversal.tokensStroops : held;
    if (amount === 0n) {
      const note = reversal.tokensStroops === 0n ? 'Nothing was left to take back' : 'The wallet holds none of these tokens any more';
      await this.deps.reversals.endWithoutClawback(reversal.id, { clawedStroops: 0n, debtStroops: reversal.tokensStroops, note });
      return;
    }
    // The write takes the reversal (waiting -> clawing) in the transaction that commits the clawback's
    // entry; what the network answers is settled on the reversal by the journal, so nothing here reads it.
    await this.deps.journal.write(
      clawbackCommand({ reversalId: reversal.id, userId: payment.userId, from: wallet!, stroops: amount }),
      { waitMs: this.deps.options.clawbackWaitMs },
    );
  }

  private async tokenBalance(publicKey: string): Promise<bigint> {
    const asset = await this.deps.ledger.asset();
    const account = await this.deps.ledger.account(publicKey, asset);
    const line = account ? this.deps.ledger.tokenLine(account, asset) : undefined;
    return line ? (parseTokenAmount(line.balance) ?? 0n) : 0n;
  }
}

/**
 * Where a payment stands for money going back: its tokens are on the wallet (`minted`), or it was
 * never minted and will not be, or its mint may still happen (`not_yet`: the reversal waits).
 * A payment never minted is closed for good first, so no later success mints it.
 */
function mintStage(payment: PaymentRow): 'minted' | 'nothing_minted' | 'not_yet' {
  switch (payment.status) {
    case 'minted':
    case 'disputed':
    case 'reversed':
      return 'minted';
    case 'failed':
      return payment.failureReason ? 'nothing_minted' : 'not_yet';
    default:
      return 'not_yet';
  }
}

function reversalQueue(repository: ReversalRepository, policy: RetryPolicy): LeasedQueue<ReversalRow> {
  return {
    claimDue: (limit, leaseMs) => repository.claimDue(limit, leaseMs),
    retryLater: (id, delayMs, note) => repository.retryLater(id, delayMs, note),
    // Tokens owed back are never given up on: after the last attempt it is retried at the longest delay.
    setAside: (id, note) => repository.retryLater(id, policy.maxDelayMs, note),
  };
}
