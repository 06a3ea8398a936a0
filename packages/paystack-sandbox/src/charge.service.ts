import { PaystackSandboxError } from './errors';
import type { InitializeTransactionBody } from './schemas';
import { toPaystackData, type PaystackTransactionData, type SandboxTransaction, type TransactionStatus } from './transaction';
import type { TransactionStore } from './transaction-store';
import type { WebhookSender } from './webhook-sender';

/** The three buttons of the checkout page. */
export type CheckoutAction = 'pay' | 'decline' | 'cancel';

const STATUS_AFTER: Record<CheckoutAction, TransactionStatus> = {
  pay: 'success',
  decline: 'failed',
  // Closing Paystack's checkout leaves the charge open: the buyer may come back and pay.
  cancel: 'abandoned',
};

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

  findForCheckout(accessCode: string): SandboxTransaction {
    const transaction = this.store.findByAccessCode(accessCode);
    if (!transaction) throw new PaystackSandboxError('access_code_not_found', 'Checkout not found');
    return transaction;
  }

  /**
   * Applies the buyer's choice. `success` and `failed` are final: any later action leaves the
   * charge as it is, so a double-clicked Pay cannot pay (or notify) twice. The status change
   * happens before the first await, so two racing requests cannot both see an open charge.
   * The `charge.success` webhook goes out only on the transition, after the state is saved.
   */
  async completeCheckout(accessCode: string, action: CheckoutAction): Promise<SandboxTransaction> {
    const transaction = this.findForCheckout(accessCode);
    const next = STATUS_AFTER[action];
    if (transaction.status !== 'abandoned' || next === transaction.status) return transaction;

    this.store.setStatus(transaction, next);
    const event = next === 'success' ? { event: 'charge.success' as const, data: this.dataOf(transaction) } : undefined;
    await this.store.persist();
    if (event) this.webhooks.send(event);
    return transaction;
  }

  private dataOf(transaction: SandboxTransaction): PaystackTransactionData {
    return toPaystackData(transaction, this.store.customerOf(transaction));
  }
}
