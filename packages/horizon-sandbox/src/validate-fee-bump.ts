import type { FeeBumpTransaction } from '@stellar/stellar-sdk';
import { baseAccountId } from './account-ids';
import { spendableNative } from './ledger-rules';
import type { InnerResult, TransactionResultModel } from './result-xdr';
import { SignatureChecker } from './signature-checker';
import { feeToCharge, validateTransaction, type ValidationContext } from './validate-transaction';
import { envelopeHash } from './envelope-hash';

/**
 * stellar-core's FeeBumpTransactionFrame::checkValid (CAP-15), in its order: the outer fee, the fee
 * source, its signature and balance, unused signatures, and only then the inner transaction, checked
 * as one whose fee is already paid. A refused fee bump reports the base fee for its operations plus
 * one; an invalid inner transaction is wrapped in tx_fee_bump_inner_failed with nothing charged to it.
 */
export function checkFeeBump(feeBump: FeeBumpTransaction, context: ValidationContext): TransactionResultModel | undefined {
  const inner = feeBump.innerTransaction;
  const refusedFee = feeToCharge(inner.operations.length + 1, context.baseFee);
  const outer = (code: InnerResult['code']): TransactionResultModel => ({ code, feeCharged: refusedFee });

  const feeProblem = checkFeeBumpFee(feeBump, context.baseFee);
  if (feeProblem) return feeProblem;
  const feeSource = context.accounts.get(baseAccountId(feeBump.feeSource));
  if (!feeSource) return outer('tx_no_source_account');
  const outerChecker = new SignatureChecker(envelopeHash(feeBump), feeBump.signatures);
  if (!outerChecker.checkAccount(feeSource, 'low')) return outer('tx_bad_auth');
  // the whole outer fee, not what a surge price would charge, must be affordable above the reserve
  if (spendableNative(feeSource) < BigInt(feeBump.fee)) return outer('tx_insufficient_balance');
  if (!outerChecker.allUsed()) return outer('tx_bad_auth_extra');

  const innerHash = envelopeHash(inner);
  const invalidInner = validateTransaction(inner, new SignatureChecker(innerHash, inner.signatures), context, false);
  if (!invalidInner) return undefined;
  return {
    code: 'tx_failed',
    feeCharged: refusedFee,
    feeBump: { code: 'tx_fee_bump_inner_failed', innerHash, inner: { ...invalidInner, feeCharged: 0n } },
  };
}

/**
 * The outer fee must pay the base fee for the inner operations plus one, and must raise the inner
 * transaction's rate per operation: a "bump" that bids less per operation than the envelope it wraps
 * is refused. For the latter core reports, in fee_charged, the fee that would have been enough.
 */
export function checkFeeBumpFee(feeBump: FeeBumpTransaction, baseFee: bigint): TransactionResultModel | undefined {
  const inner = feeBump.innerTransaction;
  const outerFee = BigInt(feeBump.fee);
  const outerMinimum = feeToCharge(inner.operations.length + 1, baseFee);
  if (outerFee < outerMinimum) return { code: 'tx_insufficient_fee', feeCharged: outerMinimum };
  const innerMinimum = feeToCharge(inner.operations.length, baseFee);
  const innerFee = BigInt(inner.fee);
  if (outerFee * innerMinimum < innerFee * outerMinimum) {
    const enough = (innerFee * outerMinimum + innerMinimum - 1n) / innerMinimum;
    return { code: 'tx_insufficient_fee', feeCharged: enough };
  }
  return undefined;
}
