import { FeeBumpTransaction } from '@stellar/stellar-sdk';
import type { Envelope } from './apply-transaction';
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

/**
 * What core answers at admission when another client already used the envelope's sequence number:
 * tx_bad_seq, wrapped in tx_fee_bump_inner_failed for a fee bump; nothing applied, no fee charged.
 */
export function sequenceTaken(envelope: Envelope): TransactionResultModel {
  if (!(envelope instanceof FeeBumpTransaction)) return { code: 'tx_bad_seq', feeCharged: 0n };
  return {
    code: 'tx_failed',
    feeCharged: 0n,
    feeBump: { code: 'tx_fee_bump_inner_failed', innerHash: envelope.innerTransaction.hash(), inner: { code: 'tx_bad_seq', feeCharged: 0n } },
  };
}

/** sequenceTaken() as Horizon's 400 carries it. */
export function sequenceTakenRefusal(envelope: Envelope): { resultXdr: string; resultCodes: ResultCodes } {
  const refused = sequenceTaken(envelope);
  return { resultXdr: resultXdr(refused), resultCodes: resultCodes(refused) };
}
