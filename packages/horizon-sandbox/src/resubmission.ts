import type { ResultCodes, StoredTransaction } from './ledger-history';
import { resultCodes, type TransactionResultModel } from './result-xdr';
import { resultXdr } from './transaction-record';
import { feeToCharge } from './validate-transaction';

/**
 * What core answers to an envelope that is already in a ledger: its sequence number is used, so
 * tx_bad_seq; for a fee bump, its inner transaction's tx_bad_seq wrapped in tx_fee_bump_inner_failed.
 */
export function badSequence(record: StoredTransaction): TransactionResultModel {
  return record.inner
    ? {
        code: 'tx_failed',
        feeCharged: BigInt(record.feeCharged),
        feeBump: {
          code: 'tx_fee_bump_inner_failed',
          innerHash: Buffer.from(record.inner.hash, 'hex'),
          inner: { code: 'tx_bad_seq', feeCharged: 0n },
        },
      }
    : { code: 'tx_bad_seq', feeCharged: feeToCharge(record.operationCount) };
}

/** badSequence() as the answers carry it. */
export function resubmissionRefused(record: StoredTransaction): { resultXdr: string; resultCodes: ResultCodes } {
  const refused = badSequence(record);
  return { resultXdr: resultXdr(refused), resultCodes: resultCodes(refused) };
}
