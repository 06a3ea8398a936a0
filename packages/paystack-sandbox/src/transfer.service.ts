import { accountNameFor, findBank, isNuban, SANDBOX_BANKS, toPaystackBank } from './banks';
import type { ControlledTransferStatus, TransferFault } from './control.schemas';
import type { ListMeta } from './charge.service';
import { PaystackSandboxError } from './errors';
import type { CreateRecipientBody, InitiateTransferBody, ListTransfersQuery } from './schemas';
import {
  isPendingTransfer,
  keepsTheMoney,
  toPaystackRecipient,
  toPaystackTransfer,
  type PaystackRecipientData,
  type PaystackTransferData,
  type SandboxTransfer,
  type TransferOutcome,
  type TransferStatus,
} from './transfer';
import type { TransactionStore } from './transaction-store';
import type { WebhookSender } from './webhook-sender';

/** The OTP the sandbox accepts when the OTP switch is on. */
export const SANDBOX_OTP = '123456';

const UNRESOLVED = 'Could not resolve account name. Check parameters or try again.';

/**
 * Plans the tests set for transfers yet to come: one by its reference, or the next few in order.
 * A plan by reference wins over the queue, and is used once.
 */
class Plans<T> {
  private readonly byReference = new Map<string, T>();
  private readonly queue: T[] = [];

  add(value: T, target: { reference?: string | undefined; count: number }): void {
    if (target.reference !== undefined) this.byReference.set(target.reference, value);
    else for (let i = 0; i < target.count; i += 1) this.queue.push(value);
  }

  take(reference: string | undefined): T | undefined {
    if (reference !== undefined && this.byReference.has(reference)) {
      const value = this.byReference.get(reference);
      this.byReference.delete(reference);
      return value;
    }
    return this.queue.shift();
  }
}

export interface TransferStatusOptions {
  /** `false` moves the transfer without its webhook, as when Paystack's is lost. */
  webhook: boolean;
}

/**
 * Paystack's Transfers API against the sandbox's balance: banks, account names, recipients,
 * transfers with their OTP and their fates. The money is reserved when a transfer is created
 * and given back when it ends `failed`, `reversed` or `abandoned`. Checks and writes happen before
 * the first await, so two racing transfers cannot both spend the same balance or reference.
 */
export class TransferService {
  private otpRequired = false;
  private readonly outcomes = new Plans<TransferOutcome>();
  private readonly faults = new Plans<TransferFault>();

  constructor(
    private readonly store: TransactionStore,
    private readonly webhooks: WebhookSender,
  ) {}

  banks() {
    return SANDBOX_BANKS.map(toPaystackBank);
  }

  resolveAccount(accountNumber: string, bankCode: string): { account_number: string; account_name: string; bank_id: number } {
    const bank = findBank(bankCode);
    if (!bank || !isNuban(accountNumber)) throw new PaystackSandboxError('account_not_resolved', UNRESOLVED);
    return { account_number: accountNumber, account_name: accountNameFor(accountNumber, bankCode), bank_id: bank.id };
  }

  async createRecipient(input: CreateRecipientBody): Promise<PaystackRecipientData> {
    const bank = findBank(input.bank_code);
    if (!bank || !isNuban(input.account_number)) throw new PaystackSandboxError('recipient_account_invalid', UNRESOLVED);
    const recipient = this.store.recipientFor({
      name: input.name,
      accountNumber: input.account_number,
      accountName: accountNameFor(input.account_number, bank.code),
      bankCode: bank.code,
      bankName: bank.name,
    });
    await this.store.persist();
    return toPaystackRecipient(recipient);
  }

  /**
   * Creates the transfer and reserves its amount; then, unless the OTP switch holds it at `otp`,
   * lets it go as planned (default: `success` at once with `transfer.success`). Refuses a reused
   * reference (whatever became of the first) and a balance too low, creating nothing.
   */
  async initiate(input: InitiateTransferBody): Promise<PaystackTransferData> {
    if (input.reference !== undefined && this.store.findTransfer(input.reference)) {
      throw new PaystackSandboxError('transfer_reference_used', 'This reference has already been used on a prior transfer');
    }
    const recipient = this.store.findRecipient(input.recipient);
    if (!recipient) throw new PaystackSandboxError('recipient_not_found', 'Recipient specified is invalid');
    if (input.amount > this.store.balanceKobo()) {
      throw new PaystackSandboxError('balance_not_enough', 'Your balance is not enough to fulfil this request');
    }
    const transfer = this.store.insertTransfer({
      reference: input.reference,
      amountKobo: input.amount,
      reason: input.reason ?? null,
      recipientCode: recipient.recipientCode,
      outcome: this.outcomes.take(input.reference) ?? 'success',
    });
    this.store.addToBalance(-transfer.amountKobo);
    if (this.otpRequired) {
      this.store.setTransferStatus(transfer, 'otp');
      await this.store.persist();
      return this.dataOf(transfer);
    }
    return this.release(transfer);
  }

  /** With the right OTP an `otp` transfer goes as planned; anything else is refused and changes nothing. */
  async finalize(transferCode: string, otp: string): Promise<PaystackTransferData> {
    const transfer = this.store.findTransferByCode(transferCode);
    if (!transfer) throw new PaystackSandboxError('transfer_not_found', 'Transfer not found');
    if (transfer.status !== 'otp') {
      throw new PaystackSandboxError('transfer_not_awaiting_otp', `Transfer is not currently awaiting OTP (it is ${transfer.status})`);
    }
    if (otp !== SANDBOX_OTP) throw new PaystackSandboxError('invalid_otp', 'Invalid OTP');
    return this.release(transfer);
  }

  verify(reference: string): PaystackTransferData {
    const transfer = this.store.findTransfer(reference);
    if (!transfer) throw new PaystackSandboxError('transfer_not_found', 'Transfer not found');
    return this.dataOf(transfer);
  }

  /** Newest first, offset-paginated as `GET /transaction`. */
  list(query: ListTransfersQuery): { data: PaystackTransferData[]; meta: Omit<ListMeta, 'total_volume'> } {
    const matching = this.store
      .transfers()
      .filter((transfer) => query.status === undefined || transfer.status === query.status)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id);
    const skipped = (query.page - 1) * query.perPage;
    return {
      data: matching.slice(skipped, skipped + query.perPage).map((transfer) => this.dataOf(transfer)),
      meta: { total: matching.length, skipped, perPage: query.perPage, page: query.page, pageCount: Math.ceil(matching.length / query.perPage) },
    };
  }

  balance(): { currency: 'NGN'; balance: number }[] {
    return [{ currency: 'NGN', balance: this.store.balanceKobo() }];
  }

  // --- the sandbox controls ---

  async setBalance(kobo: number): Promise<{ currency: 'NGN'; balance: number }[]> {
    this.store.setBalance(kobo);
    await this.store.persist();
    return this.balance();
  }

  setOtpRequired(enabled: boolean): { otp_required: boolean } {
    this.otpRequired = enabled;
    return { otp_required: enabled };
  }

  planOutcome(outcome: TransferOutcome, target: { reference?: string | undefined; count: number }): void {
    this.outcomes.add(outcome, target);
  }

  planFault(fault: TransferFault, target: { reference?: string | undefined; count: number }): void {
    this.faults.add(fault, target);
  }

  /** The fault planned for this `POST /transfer`, used up by asking. */
  takeFault(reference: string | undefined): TransferFault | undefined {
    return this.faults.take(reference);
  }

  /**
   * Settles a not-final transfer (`success`, `failed`, `abandoned`), or reverses a `success` one.
   * Asking a transfer for the status it has changes and sends nothing; any other move of a final
   * transfer is refused.
   */
  async setStatus(reference: string, status: ControlledTransferStatus, options: TransferStatusOptions): Promise<PaystackTransferData> {
    const transfer = this.store.findTransfer(reference);
    if (!transfer) throw new PaystackSandboxError('transfer_not_found', 'Transfer not found');
    if (transfer.status === status) return this.dataOf(transfer);
    const allowed = status === 'reversed' ? transfer.status === 'success' : isPendingTransfer(transfer.status);
    if (!allowed) throw new PaystackSandboxError('transfer_not_movable', `Transfer is ${transfer.status}; it cannot become ${status}`);
    const events = [this.move(transfer, status)];
    await this.store.persist();
    if (options.webhook) this.sendAll(events);
    return this.dataOf(transfer);
  }

  /**
   * The transfer leaves: its planned outcome applies. `reversed` means success first (as the bank
   * accepted it) and the reversal right after; the answer shows it as it was at success.
   */
  private async release(transfer: SandboxTransfer): Promise<PaystackTransferData> {
    if (transfer.outcome === 'pending') {
      this.store.setTransferStatus(transfer, 'pending');
      await this.store.persist();
      return this.dataOf(transfer);
    }
    const events = [this.move(transfer, transfer.outcome === 'failed' ? 'failed' : 'success')];
    const answer = this.dataOf(transfer);
    if (transfer.outcome === 'reversed') events.push(this.move(transfer, 'reversed'));
    await this.store.persist();
    this.sendAll(events);
    return answer;
  }

  /** Moves the status and the money; answers the webhook the move sends, if any. */
  private move(transfer: SandboxTransfer, status: TransferStatus) {
    const keptBefore = keepsTheMoney(transfer.status);
    this.store.setTransferStatus(transfer, status);
    if (keptBefore && !keepsTheMoney(status)) this.store.addToBalance(transfer.amountKobo);
    const event = status === 'success' || status === 'failed' || status === 'reversed' ? (`transfer.${status}` as const) : undefined;
    return event === undefined ? undefined : { event, data: this.dataOf(transfer) };
  }

  private sendAll(events: ({ event: 'transfer.success' | 'transfer.failed' | 'transfer.reversed'; data: PaystackTransferData } | undefined)[]): void {
    for (const event of events) if (event) this.webhooks.send(event);
  }

  private dataOf(transfer: SandboxTransfer): PaystackTransferData {
    const recipient = this.store.findRecipient(transfer.recipientCode);
    if (!recipient) throw new Error(`Recipient ${transfer.recipientCode} of transfer ${transfer.reference} is missing`);
    return toPaystackTransfer(transfer, recipient);
  }
}
