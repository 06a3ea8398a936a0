import type { StoredTransaction } from '../ledger-history';

/**
 * stellar-rpc's TransactionDetails of a transaction in a ledger, which getTransaction and
 * getTransactions share (each adds `createdAt` its own way: a string in one, a number in the other).
 * `txHash` is the hash it was applied under (a fee bump's own) unless the caller names another.
 * The sandbox's meta has no events: `events` is empty and there are no diagnostic events.
 */
export function transactionDetails(tx: StoredTransaction, txHash = tx.hash) {
  return {
    status: tx.successful ? 'SUCCESS' : 'FAILED',
    txHash,
    applicationOrder: applicationOrderOf(tx),
    feeBump: tx.feeBump !== undefined,
    envelopeXdr: tx.envelopeXdr,
    resultXdr: tx.resultXdr,
    resultMetaXdr: tx.resultMetaXdr,
    events: { transactionEventsXdr: [], contractEventsXdr: [] },
    ledger: tx.ledger,
  };
}

/** The transaction's 1-based position in its ledger, kept in bits 12..31 of its paging token (a TOID). */
export const applicationOrderOf = (tx: StoredTransaction): number => Number((BigInt(tx.pagingToken) >> 12n) & 0xfffffn);
