import { PaystackSandboxError } from './errors';
import type { InitializeTransactionBody, ListTransactionsQuery } from './schemas';
import {
  isOpen,
  toPaystackData,
  type NotYetStatus,
  type PaystackTransactionData,
  type SandboxTransaction,
  type TransactionStatus,
} from './transaction';
import type { TransactionStore } from './transaction-store';
import type { WebhookSender } from './webhook-sender';

/** The three buttons of the checkout page. */
export type CheckoutAction = 'pay' | 'decline' | 'cancel';

/** What a sandbox control may put a charge into: any not-yet status, or an end of the payment. */
export type ControlledStatus = NotYetStatus | 'success' | 'failed';

/** Paystack's `meta` of an offset-paginated list. */
export interface ListMeta {
  /** Transactions matching the filters, on every page. */
  total: number;
  /** The sum of their amounts in kobo. */
  total_volume: number;
  /** Matching transactions before this page. */
  skipped: number;
  perPage: number;
  page: number;
  pageCount: number;
}

export interface StatusChangeOptions {
  /** `false` completes the payment without `charge.success`, as when Paystack's webhook is lost. */
  webhook: boolean;
}

/** The rules of the fake gateway: what a charge may become, and who hears about it. */
export class ChargeService {
  constructor(
    private readonly store: TransactionStore,
    private readonly webhooks: WebhookSender,
  ) {}

  /** Opens a charge that stays `abandoned` until the buyer acts on the checkout page. */
  async initialize(input: InitializeTransactionBody): Promise<SandboxTransaction> {
    const transaction = this.store.insert({
      reference: input.reference,
      amountKobo: input.amount,
      email: input.email,
      callbackUrl: input.callback_url ?? null,
      metadata: input.metadata ?? null,
    });
    await this.store.persist();
    return transaction;
  }

  verify(reference: string): PaystackTransactionData {
    const transaction = this.store.findByReference(reference);
    if (!transaction) throw new PaystackSandboxError('reference_not_found', 'Transaction reference not found');
    return this.dataOf(transaction);
  }

  /**
   * One page of the charges matching the filters, newest first, as Paystack's `GET /transaction`.
   * A page past the last is empty. `from` and `to` bound `created_at`, both inclusive.
   */
  list(query: ListTransactionsQuery): { data: PaystackTransactionData[]; meta: ListMeta } {
    const matching = this.store
      .transactions()
      .filter((tx) => matchesFilters(tx, query))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id);
    const skipped = (query.page - 1) * query.perPage;
    return {
      data: matching.slice(skipped, skipped + query.perPage).map((tx) => this.dataOf(tx)),
      meta: {
        total: matching.length,
        total_volume: matching.reduce((sum, tx) => sum + tx.amountKobo, 0),
        skipped,
        perPage: query.perPage,
        page: query.page,
        pageCount: Math.ceil(matching.length / query.perPage),
      },
    };
  }

  findForCheckout(accessCode: string): SandboxTransaction {
    const transaction = this.store.findByAccessCode(accessCode);
    if (!transaction) throw new PaystackSandboxError('access_code_not_found', 'Checkout not found');
    return transaction;
  }

  /**
   * Applies the buyer's choice. Pay and Decline end an open charge (whatever not-yet status a
   * control gave it); Cancel, like closing Paystack's checkout, leaves it as it is. Any action on
   * an ended charge leaves it alone, so a double-clicked Pay cannot pay (or notify) twice.
   */
  async completeCheckout(accessCode: string, action: CheckoutAction): Promise<SandboxTransaction> {
    const transaction = this.findForCheckout(accessCode);
    if (action === 'cancel' || !isOpen(transaction.status)) return transaction;
    await this.moveOpenCharge(transaction, action === 'pay' ? 'success' : 'failed', { webhook: true });
    return transaction;
  }

  /**
   * The sandbox control: puts an open charge into another not-yet status, or ends it as Pay or
   * Decline would. Asking an ended charge for the status it already has changes and sends nothing
   * (a retried control is harmless); asking it for any other status is refused.
   */
  async setStatus(reference: string, status: ControlledStatus, options: StatusChangeOptions): Promise<PaystackTransactionData> {
    const transaction = this.store.findByReference(reference);
    if (!transaction) throw new PaystackSandboxError('transaction_not_found', 'Transaction not found');
    if (!isOpen(transaction.status)) {
      if (transaction.status === status) return this.dataOf(transaction);
      throw new PaystackSandboxError('transaction_not_open', `Transaction is already ${transaction.status}`);
    }
    await this.moveOpenCharge(transaction, status, options);
    return this.dataOf(transaction);
  }

  /**
   * The status changes before the first await, so two racing requests cannot both see an open
   * charge. `charge.success` goes out only on the move to `success`, after the state is saved.
   */
  private async moveOpenCharge(transaction: SandboxTransaction, next: TransactionStatus, options: StatusChangeOptions): Promise<void> {
    if (next === transaction.status) return;
    this.store.setStatus(transaction, next);
    // A paid charge is money the integration can pay out (Paystack settles it to the balance).
    if (next === 'success') this.store.addToBalance(transaction.amountKobo);
    const event = next === 'success' && options.webhook ? { event: 'charge.success' as const, data: this.dataOf(transaction) } : undefined;
    await this.store.persist();
    if (event) this.webhooks.send(event);
  }

  private dataOf(transaction: SandboxTransaction): PaystackTransactionData {
    return toPaystackData(transaction, this.store.customerOf(transaction));
  }
}

function matchesFilters(tx: SandboxTransaction, query: ListTransactionsQuery): boolean {
  const created = Date.parse(tx.createdAt);
  return (
    (query.status === undefined || tx.status === query.status) &&
    (query.customer === undefined || tx.customerId === query.customer) &&
    (query.amount === undefined || tx.amountKobo === query.amount) &&
    (query.from === undefined || created >= query.from.getTime()) &&
    (query.to === undefined || created <= query.to.getTime())
  );
}
