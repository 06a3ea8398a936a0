import { PaystackSandboxError } from './errors';
import { toPaystackRefund, toRefundEventData, type PaystackRefundData, type SandboxRefund } from './refund';
import { refundableKobo, reverseIfFullyReturned } from './returned-money';
import type { SandboxTransaction } from './transaction';
import type { TransactionStore } from './transaction-store';
import type { WebhookSender } from './webhook-sender';

export interface CreateRefundInput {
  /** A transaction reference or id, as Paystack's API takes it. */
  transaction: string;
  /** Kobo; absent means "everything not yet returned", as Paystack's full refund. */
  amount?: number | undefined;
}

/** Paystack's refund API: the money of a paid charge going back to the buyer, in one or more parts. */
export class RefundService {
  constructor(
    private readonly store: TransactionStore,
    private readonly webhooks: WebhookSender,
  ) {}

  /**
   * Queues a refund and processes it at once (Paystack takes from minutes to days; a test wants
   * the end state). Answers the refund as queued, as Paystack's create does; fetch shows it
   * processed. Checks and writes happen before the first await, so two racing refunds cannot both
   * spend the same balance. `refund.processed` goes out after the state is saved.
   */
  async create(input: CreateRefundInput): Promise<PaystackRefundData> {
    const transaction = this.store.findByReferenceOrId(input.transaction);
    if (!transaction) throw new PaystackSandboxError('transaction_not_found', 'Transaction not found');
    const amountKobo = this.checkRefundable(transaction, input.amount);

    const refund = this.store.insertRefund({ transactionReference: transaction.reference, amountKobo });
    const queued = toPaystackRefund(refund, transaction, true);
    this.store.markRefundProcessed(refund);
    reverseIfFullyReturned(this.store, transaction);
    const event = { event: 'refund.processed' as const, data: toRefundEventData(refund, this.store.customerOf(transaction)) };
    await this.store.persist();
    this.webhooks.send(event);
    return queued;
  }

  fetch(id: number): PaystackRefundData {
    const refund = this.store.findRefund(id);
    if (!refund) throw new PaystackSandboxError('refund_not_found', 'Refund not found');
    return this.dataOf(refund);
  }

  /** Every refund of one transaction (by reference or id), oldest first. */
  listFor(referenceOrId: string): PaystackRefundData[] {
    const transaction = this.store.findByReferenceOrId(referenceOrId);
    if (!transaction) throw new PaystackSandboxError('transaction_not_found', 'Transaction not found');
    return this.store.refundsOf(transaction).map((refund) => this.dataOf(refund));
  }

  private checkRefundable(transaction: SandboxTransaction, requestedKobo: number | undefined): number {
    if (transaction.status !== 'success' && transaction.status !== 'reversed') {
      throw new PaystackSandboxError('transaction_not_paid', 'Cannot refund a transaction that was not successful');
    }
    const remaining = refundableKobo(this.store, transaction);
    if (remaining === 0) throw new PaystackSandboxError('refund_exceeds_balance', 'Transaction has been fully reversed');
    if (requestedKobo !== undefined && requestedKobo > remaining) {
      throw new PaystackSandboxError('refund_exceeds_balance', 'Refund amount cannot be more than the amount left to refund');
    }
    return requestedKobo ?? remaining;
  }

  private dataOf(refund: SandboxRefund): PaystackRefundData {
    const transaction = this.store.findByReference(refund.transactionReference);
    if (!transaction) throw new Error(`Transaction ${refund.transactionReference} of refund ${refund.id} is missing`);
    return toPaystackRefund(refund, transaction, false);
  }
}
