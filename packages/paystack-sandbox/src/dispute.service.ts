import { toPaystackDispute, type DisputeResolution, type PaystackDisputeData, type SandboxDispute } from './dispute';
import { PaystackSandboxError } from './errors';
import { refundableKobo, reverseIfFullyReturned } from './returned-money';
import { toPaystackData, type SandboxTransaction } from './transaction';
import type { TransactionStore } from './transaction-store';
import type { WebhookEventName, WebhookSender } from './webhook-sender';

/** Paystack gives the merchant a deadline to answer a chargeback; the sandbox never enforces it. */
const ANSWER_WITHIN_MS = 24 * 60 * 60 * 1000;

/**
 * A buyer's bank disputing a paid charge, driven by sandbox controls: open, remind, resolve.
 * Each step sends its `charge.dispute.*` webhook after the state is saved.
 */
export class DisputeService {
  constructor(
    private readonly store: TransactionStore,
    private readonly webhooks: WebhookSender,
  ) {}

  /**
   * Opens a chargeback on a paid charge for `refundAmountKobo` (default: all the money not yet
   * refunded). One open dispute per charge, so a test's "open" retried cannot open a second one.
   */
  async open(reference: string, refundAmountKobo: number | undefined): Promise<PaystackDisputeData> {
    const transaction = this.store.findByReference(reference);
    if (!transaction) throw new PaystackSandboxError('transaction_not_found', 'Transaction not found');
    if (transaction.status !== 'success') {
      throw new PaystackSandboxError('transaction_not_paid', `Cannot dispute a transaction that is ${transaction.status}`);
    }
    if (this.store.disputesOf(transaction).some((dispute) => dispute.status !== 'resolved')) {
      throw new PaystackSandboxError('dispute_already_open', 'Transaction already has an open dispute');
    }
    const remaining = refundableKobo(this.store, transaction);
    if (refundAmountKobo !== undefined && refundAmountKobo > remaining) {
      throw new PaystackSandboxError('refund_exceeds_balance', 'Dispute amount cannot be more than the amount left to refund');
    }
    const dueAt = new Date(Date.now() + ANSWER_WITHIN_MS).toISOString();
    const dispute = this.store.insertDispute({ transactionReference: reference, refundAmountKobo: refundAmountKobo ?? remaining, dueAt });
    return this.announce('charge.dispute.create', dispute);
  }

  /** Paystack's nudge that a dispute still awaits the merchant. */
  async remind(id: number): Promise<PaystackDisputeData> {
    return this.announce('charge.dispute.remind', this.findOpen(id));
  }

  /**
   * Closes the dispute. Lost (`merchant-accepted`, `auto-accepted`): `refund_amount` goes back to
   * the buyer, and a charge with all its money returned verifies `reversed`, as in Paystack's
   * `charge.dispute.resolve` sample. Won (`declined`): the charge stays `success`.
   */
  async resolve(id: number, resolution: DisputeResolution): Promise<PaystackDisputeData> {
    const dispute = this.findOpen(id);
    const now = new Date().toISOString();
    dispute.status = 'resolved';
    dispute.resolution = resolution;
    dispute.resolvedAt = now;
    dispute.updatedAt = now;
    reverseIfFullyReturned(this.store, this.transactionOf(dispute));
    return this.announce('charge.dispute.resolve', dispute);
  }

  private findOpen(id: number): SandboxDispute {
    const dispute = this.store.findDispute(id);
    if (!dispute) throw new PaystackSandboxError('dispute_not_found', 'Dispute not found');
    if (dispute.status === 'resolved') throw new PaystackSandboxError('dispute_not_open', 'Dispute has already been resolved');
    return dispute;
  }

  private async announce(event: WebhookEventName, dispute: SandboxDispute): Promise<PaystackDisputeData> {
    const data = this.dataOf(dispute);
    await this.store.persist();
    this.webhooks.send({ event, data });
    return data;
  }

  private dataOf(dispute: SandboxDispute): PaystackDisputeData {
    const transaction = this.transactionOf(dispute);
    const customer = this.store.customerOf(transaction);
    return toPaystackDispute(dispute, toPaystackData(transaction, customer), customer);
  }

  private transactionOf(dispute: SandboxDispute): SandboxTransaction {
    const transaction = this.store.findByReference(dispute.transactionReference);
    if (!transaction) throw new Error(`Transaction ${dispute.transactionReference} of dispute ${dispute.id} is missing`);
    return transaction;
  }
}
