import { buyerGetsMoneyBack } from './dispute';
import type { SandboxTransaction } from './transaction';
import type { TransactionStore } from './transaction-store';

/**
 * How much of a paid charge has gone back to the buyer: its refunds (queued or processed) and
 * the `refund_amount` of every dispute the merchant lost. Refunds and disputes draw on the same
 * money, so neither may take more than the other left.
 */
export function returnedToBuyerKobo(store: TransactionStore, transaction: SandboxTransaction): number {
  const refunded = store.refundsOf(transaction).reduce((sum, refund) => sum + refund.amountKobo, 0);
  const chargedBack = store
    .disputesOf(transaction)
    .filter((dispute) => dispute.resolution !== null && buyerGetsMoneyBack(dispute.resolution))
    .reduce((sum, dispute) => sum + dispute.refundAmountKobo, 0);
  return refunded + chargedBack;
}

export function refundableKobo(store: TransactionStore, transaction: SandboxTransaction): number {
  return Math.max(0, transaction.amountKobo - returnedToBuyerKobo(store, transaction));
}

/**
 * Verify answers `reversed` once all the money is back with the buyer, by refund or chargeback
 * (Paystack's guide: "the transaction was refunded, or a chargeback was successfully logged").
 * A partial return leaves `success`: Paystack's documented statuses have no "partially refunded"
 * and nothing found in its docs says a partial refund reverses the charge.
 */
export function reverseIfFullyReturned(store: TransactionStore, transaction: SandboxTransaction): void {
  if (transaction.status === 'success' && refundableKobo(store, transaction) === 0) store.setStatus(transaction, 'reversed');
}
