import { randomInt } from 'node:crypto';
import type { SandboxDispute } from './dispute';
import { PaystackSandboxError } from './errors';
import type { SandboxRefund } from './refund';
import { StateFile, type PersistedState } from './state-file';
import type { SandboxCustomer, SandboxTransaction, TransactionStatus } from './transaction';
import type { SandboxRecipient, SandboxTransfer, TransferOutcome } from './transfer';

export interface NewRecipient {
  name: string;
  accountNumber: string;
  accountName: string;
  bankCode: string;
  bankName: string;
}

export interface NewTransfer {
  reference?: string | undefined;
  amountKobo: number;
  reason: string | null;
  recipientCode: string;
  outcome: TransferOutcome;
}

export interface NewTransaction {
  reference?: string | undefined;
  amountKobo: number;
  email: string;
  callbackUrl: string | null;
  metadata: unknown;
}

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LOWER_ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomToken(alphabet: string, length: number): string {
  let token = '';
  for (let i = 0; i < length; i += 1) token += alphabet.charAt(randomInt(alphabet.length));
  return token;
}

/**
 * Every charge, customer, refund, dispute, transfer recipient and transfer the sandbox knows, and
 * its balance, in memory, optionally mirrored to a JSON file.
 * Mutations are synchronous, so "is this reference taken?" and "take it" can never interleave
 * with another request; the file write that follows is queued so writes land in order.
 */
export class TransactionStore {
  private readonly byReference = new Map<string, SandboxTransaction>();
  private readonly referenceByAccessCode = new Map<string, string>();
  private readonly customersById = new Map<number, SandboxCustomer>();
  private readonly customerIdByEmail = new Map<string, number>();
  private readonly referenceById = new Map<number, string>();
  private readonly refundsById = new Map<number, SandboxRefund>();
  private readonly disputesById = new Map<number, SandboxDispute>();
  private readonly recipientsByCode = new Map<string, SandboxRecipient>();
  private readonly transfersByReference = new Map<string, SandboxTransfer>();
  private readonly referenceByTransferCode = new Map<string, string>();
  /** What the integration can pay out, in kobo. */
  private balance = 0;
  private nextTransactionId = 1_000_001;
  private nextRecipientId = 9_000_001;
  private nextTransferId = 8_000_001;
  private nextCustomerId = 5_000_001;
  private nextRefundId = 3_000_001;
  private nextDisputeId = 7_000_001;
  private pendingWrites: Promise<void> = Promise.resolve();

  private constructor(private readonly file: StateFile | undefined) {}

  /** Without a `dataDir` the store lives in memory only and is lost on restart. */
  static async open(dataDir: string | undefined): Promise<TransactionStore> {
    const store = new TransactionStore(dataDir === undefined ? undefined : new StateFile(dataDir));
    const saved = await store.file?.load();
    if (saved) store.restore(saved);
    return store;
  }

  /** Throws `duplicate_reference` if the reference was ever used, whatever its status. */
  insert(input: NewTransaction): SandboxTransaction {
    const reference = input.reference ?? this.unusedReference();
    if (this.byReference.has(reference)) {
      throw new PaystackSandboxError('duplicate_reference', 'Duplicate Transaction Reference');
    }
    const transaction: SandboxTransaction = {
      id: this.nextTransactionId++,
      reference,
      accessCode: this.unusedAccessCode(),
      amountKobo: input.amountKobo,
      currency: 'NGN',
      email: input.email,
      callbackUrl: input.callbackUrl,
      metadata: input.metadata,
      status: 'abandoned',
      createdAt: new Date().toISOString(),
      paidAt: null,
      customerId: this.customerFor(input.email).id,
    };
    this.index(transaction);
    return transaction;
  }

  findByReference(reference: string): SandboxTransaction | undefined {
    return this.byReference.get(reference);
  }

  /** Every charge, in no particular order. */
  transactions(): SandboxTransaction[] {
    return [...this.byReference.values()];
  }

  /** Paystack's refund API takes "a transaction reference or id": the reference is tried first. */
  findByReferenceOrId(referenceOrId: string): SandboxTransaction | undefined {
    const byReference = this.byReference.get(referenceOrId);
    if (byReference || !/^\d+$/.test(referenceOrId)) return byReference;
    const reference = this.referenceById.get(Number(referenceOrId));
    return reference === undefined ? undefined : this.byReference.get(reference);
  }

  findByAccessCode(accessCode: string): SandboxTransaction | undefined {
    const reference = this.referenceByAccessCode.get(accessCode);
    return reference === undefined ? undefined : this.byReference.get(reference);
  }

  customerOf(transaction: SandboxTransaction): SandboxCustomer {
    const customer = this.customersById.get(transaction.customerId);
    if (!customer) throw new Error(`Customer ${transaction.customerId} of ${transaction.reference} is missing`);
    return customer;
  }

  /**
   * Records a move of the charge; the caller decides whether it is allowed. A reversed charge was
   * paid all the same, so it keeps its `paidAt`.
   */
  setStatus(transaction: SandboxTransaction, status: TransactionStatus): void {
    transaction.status = status;
    if (status === 'success') transaction.paidAt = new Date().toISOString();
    else if (status !== 'reversed') transaction.paidAt = null;
  }

  insertRefund(input: Pick<SandboxRefund, 'transactionReference' | 'amountKobo'>): SandboxRefund {
    const now = new Date().toISOString();
    const refund: SandboxRefund = {
      id: this.nextRefundId++,
      ...input,
      status: 'pending',
      refundReference: null,
      createdAt: now,
      updatedAt: now,
      refundedAt: null,
    };
    this.refundsById.set(refund.id, refund);
    return refund;
  }

  /** The money has reached the buyer: the refund gets the processor's reference. */
  markRefundProcessed(refund: SandboxRefund): void {
    const now = new Date().toISOString();
    refund.status = 'processed';
    refund.refundReference = `TRF_${randomToken(LOWER_ALPHANUMERIC, 15)}`;
    refund.refundedAt = now;
    refund.updatedAt = now;
  }

  findRefund(id: number): SandboxRefund | undefined {
    return this.refundsById.get(id);
  }

  refundsOf(transaction: SandboxTransaction): SandboxRefund[] {
    return [...this.refundsById.values()].filter((refund) => refund.transactionReference === transaction.reference);
  }

  insertDispute(input: Pick<SandboxDispute, 'transactionReference' | 'refundAmountKobo' | 'dueAt'>): SandboxDispute {
    const now = new Date().toISOString();
    const dispute: SandboxDispute = {
      id: this.nextDisputeId++,
      ...input,
      status: 'awaiting-merchant-feedback',
      resolution: null,
      createdAt: now,
      updatedAt: now,
      resolvedAt: null,
    };
    this.disputesById.set(dispute.id, dispute);
    return dispute;
  }

  findDispute(id: number): SandboxDispute | undefined {
    return this.disputesById.get(id);
  }

  disputesOf(transaction: SandboxTransaction): SandboxDispute[] {
    return [...this.disputesById.values()].filter((dispute) => dispute.transactionReference === transaction.reference);
  }

  balanceKobo(): number {
    return this.balance;
  }

  setBalance(kobo: number): void {
    this.balance = kobo;
  }

  /** Money in (a paid charge, a payout given back) or out (a payout), in kobo. */
  addToBalance(kobo: number): void {
    this.balance += kobo;
  }

  /** Paystack keeps one recipient per account number and bank: asking again answers the first. */
  recipientFor(input: NewRecipient): SandboxRecipient {
    const existing = [...this.recipientsByCode.values()].find(
      (recipient) => recipient.accountNumber === input.accountNumber && recipient.bankCode === input.bankCode,
    );
    if (existing) return existing;
    const recipient: SandboxRecipient = {
      id: this.nextRecipientId++,
      recipientCode: this.unusedCode('RCP_', this.recipientsByCode),
      ...input,
      createdAt: new Date().toISOString(),
    };
    this.recipientsByCode.set(recipient.recipientCode, recipient);
    return recipient;
  }

  findRecipient(recipientCode: string): SandboxRecipient | undefined {
    return this.recipientsByCode.get(recipientCode);
  }

  /** The caller has checked that the reference is unused. */
  insertTransfer(input: NewTransfer): SandboxTransfer {
    const now = new Date().toISOString();
    const transfer: SandboxTransfer = {
      id: this.nextTransferId++,
      transferCode: this.unusedCode('TRF_', this.referenceByTransferCode),
      reference: input.reference ?? this.unusedTransferReference(),
      amountKobo: input.amountKobo,
      reason: input.reason,
      recipientCode: input.recipientCode,
      status: 'pending',
      outcome: input.outcome,
      createdAt: now,
      updatedAt: now,
      transferredAt: null,
    };
    this.indexTransfer(transfer);
    return transfer;
  }

  findTransfer(reference: string): SandboxTransfer | undefined {
    return this.transfersByReference.get(reference);
  }

  findTransferByCode(transferCode: string): SandboxTransfer | undefined {
    const reference = this.referenceByTransferCode.get(transferCode);
    return reference === undefined ? undefined : this.transfersByReference.get(reference);
  }

  transfers(): SandboxTransfer[] {
    return [...this.transfersByReference.values()];
  }

  /** Records a move of the transfer; the caller decides whether it is allowed and moves the money. */
  setTransferStatus(transfer: SandboxTransfer, status: SandboxTransfer['status']): void {
    const now = new Date().toISOString();
    transfer.status = status;
    transfer.updatedAt = now;
    if (status === 'success') transfer.transferredAt = now;
  }

  /**
   * Queues a write of the state as it is now. The snapshot is taken immediately, so later
   * mutations cannot leak into an earlier write, and writes land in call order.
   */
  persist(): Promise<void> {
    if (!this.file) return Promise.resolve();
    const file = this.file;
    const snapshot = this.snapshot();
    const write = this.pendingWrites.then(() => file.save(snapshot));
    // A failed write is reported to its own caller; the queue itself must keep going.
    this.pendingWrites = write.catch(() => undefined);
    return write;
  }

  /** Resolves once every queued write has finished (successfully or not). */
  flush(): Promise<void> {
    return this.pendingWrites;
  }

  private customerFor(email: string): SandboxCustomer {
    // Paystack keeps one customer per email address, whatever its letter case.
    const key = email.toLowerCase();
    const existingId = this.customerIdByEmail.get(key);
    const existing = existingId === undefined ? undefined : this.customersById.get(existingId);
    if (existing) return existing;
    const customer: SandboxCustomer = {
      id: this.nextCustomerId++,
      email,
      customerCode: `CUS_${randomToken(LOWER_ALPHANUMERIC, 15)}`,
    };
    this.customersById.set(customer.id, customer);
    this.customerIdByEmail.set(key, customer.id);
    return customer;
  }

  private unusedReference(): string {
    let reference: string;
    do reference = randomToken(ALPHANUMERIC, 12);
    while (this.byReference.has(reference));
    return reference;
  }

  private unusedTransferReference(): string {
    let reference: string;
    do reference = randomToken(LOWER_ALPHANUMERIC, 20);
    while (this.transfersByReference.has(reference));
    return reference;
  }

  private unusedCode(prefix: string, taken: Map<string, unknown>): string {
    let code: string;
    do code = `${prefix}${randomToken(LOWER_ALPHANUMERIC, 15)}`;
    while (taken.has(code));
    return code;
  }

  private indexTransfer(transfer: SandboxTransfer): void {
    this.transfersByReference.set(transfer.reference, transfer);
    this.referenceByTransferCode.set(transfer.transferCode, transfer.reference);
  }

  private unusedAccessCode(): string {
    let accessCode: string;
    do accessCode = randomToken(LOWER_ALPHANUMERIC, 15);
    while (this.referenceByAccessCode.has(accessCode));
    return accessCode;
  }

  private index(transaction: SandboxTransaction): void {
    this.byReference.set(transaction.reference, transaction);
    this.referenceById.set(transaction.id, transaction.reference);
    this.referenceByAccessCode.set(transaction.accessCode, transaction.reference);
  }

  private snapshot(): PersistedState {
    return structuredClone({
      version: 1 as const,
      nextTransactionId: this.nextTransactionId,
      nextCustomerId: this.nextCustomerId,
      nextRefundId: this.nextRefundId,
      nextDisputeId: this.nextDisputeId,
      nextRecipientId: this.nextRecipientId,
      nextTransferId: this.nextTransferId,
      balanceKobo: this.balance,
      recipients: [...this.recipientsByCode.values()],
      transfers: [...this.transfersByReference.values()],
      transactions: [...this.byReference.values()],
      customers: [...this.customersById.values()],
      refunds: [...this.refundsById.values()],
      disputes: [...this.disputesById.values()],
    });
  }

  private restore(saved: PersistedState): void {
    this.nextTransactionId = saved.nextTransactionId;
    this.nextCustomerId = saved.nextCustomerId;
    this.nextRefundId = saved.nextRefundId;
    this.nextDisputeId = saved.nextDisputeId;
    this.nextRecipientId = saved.nextRecipientId;
    this.nextTransferId = saved.nextTransferId;
    this.balance = saved.balanceKobo;
    for (const recipient of saved.recipients) this.recipientsByCode.set(recipient.recipientCode, recipient);
    for (const transfer of saved.transfers) this.indexTransfer(transfer);
    for (const refund of saved.refunds) this.refundsById.set(refund.id, refund);
    for (const dispute of saved.disputes) this.disputesById.set(dispute.id, dispute);
    for (const customer of saved.customers) {
      this.customersById.set(customer.id, customer);
      this.customerIdByEmail.set(customer.email.toLowerCase(), customer.id);
    }
    for (const transaction of saved.transactions) this.index(transaction);
  }
}
