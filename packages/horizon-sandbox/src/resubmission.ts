import { FeeBumpTransaction } from '@stellar/stellar-sdk';
import type { Envelope } from './apply-transaction';
import type { ResultCodes, StoredTransaction } from './ledger-history';
import { resultCodes, type TransactionResultModel } from './result-xdr';
import { resultXdr } from './transaction-record';
import { feeToCharge } from './validate-transaction';
import { envelopeHash } from './envelope-hash';

/**
 * tx_bad_seq as core words it: for a fee bump (`innerHash` given), the inner transaction's
 * tx_bad_seq wrapped in tx_fee_bump_inner_failed.
 */
function badSequenceResult(feeCharged: bigint, innerHash?: Buffer): TransactionResultModel {
  return innerHash
    ? { code: 'tx_failed', feeCharged, feeBump: { code: 'tx_fee_bump_inner_failed', innerHash, inner: { code: 'tx_bad_seq', feeCharged: 0n } } }
    : { code: 'tx_bad_seq', feeCharged };
}

/** What core answers to an envelope that is already in a ledger: its sequence number is used. */
export function badSequence(record: StoredTransaction): TransactionResultModel {
  return record.inner ? badSequenceResult(BigInt(record.feeCharged), Buffer.from(record.inner.hash, 'hex')) : badSequenceResult(feeToCharge(record.operationCount));
}

/** What core answers at admission when another client already used the envelope's sequence number (nothing applied). */
export function sequenceTaken(envelope: Envelope): TransactionResultModel {
  if (!(envelope instanceof FeeBumpTransaction)) return badSequenceResult(feeToCharge(envelope.operations.length));
  // a fee bump is charged for one operation more than its inner transaction carries
  return badSequenceResult(feeToCharge(envelope.innerTransaction.operations.length + 1), envelopeHash(envelope.innerTransaction));
}

/** A refusal as Horizon's 400 carries it: the TransactionResult XDR and its result codes. */
export function refusalAnswer(refused: TransactionResultModel): { resultXdr: string; resultCodes: ResultCodes } {
  return { resultXdr: resultXdr(refused), resultCodes: resultCodes(refused) };
}
