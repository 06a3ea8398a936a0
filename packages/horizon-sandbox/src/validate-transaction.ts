import type { Transaction, xdr } from '@stellar/stellar-sdk';
import { baseAccountId } from './account-ids';
import { BASE_FEE, spendableNative } from './ledger-rules';
import type { AccountEntry } from './ledger-state';
import { OP_SUCCESS, checkOperation, operationThreshold } from './operations';
import type { InnerResult, OperationOutcome } from './result-xdr';
import type { SignatureChecker } from './signature-checker';

/** Where validation reads accounts: the committed state, or a tentative view of it while a ledger is planned. */
export interface AccountLookup {
  get(id: string): Readonly<AccountEntry> | undefined;
}

export interface ValidationContext {
  accounts: AccountLookup;
  /** The ledger being closed: its sequence and close time are what preconditions compare against. */
  ledgerSequence: number;
  closeTime: number;
  /** The header's base fee, the minimum bid per operation; a surge price changes what is charged, not this. */
  baseFee: bigint;
}

/**
 * The fee stellar-core reports in the result of a transaction it refuses: the base fee per operation
 * (at least one), whatever was bid.
 */
export function feeToCharge(operationCount: number, baseFee = BASE_FEE): bigint {
  return baseFee * BigInt(Math.max(1, operationCount));
}

/** Core's minimum-fee check: a bid below the base fee per operation is never taken. */
export function bidsTooLittle(tx: Transaction, baseFee: bigint): boolean {
  return BigInt(tx.fee) < baseFee * BigInt(tx.operations.length);
}

/**
 * stellar-core's checkValid, in its order. A transaction that fails here never reaches the ledger:
 * no fee, no sequence number consumed. `chargesFee` is false for the inner transaction of a fee
 * bump, whose fee the outer envelope pays.
 */
export function validateTransaction(
  tx: Transaction,
  checker: SignatureChecker,
  context: ValidationContext,
  chargesFee: boolean,
): InnerResult | undefined {
  const operationCount = tx.operations.length;
  const rejectedFee = feeToCharge(operationCount, context.baseFee);
  const reject = (code: InnerResult['code']): InnerResult => ({ code, feeCharged: rejectedFee });

  if (operationCount === 0) return reject('tx_missing_operation');
  const timing = checkPreconditionWindow(tx, context);
  if (timing) return reject(timing);
  if (chargesFee && bidsTooLittle(tx, context.baseFee)) return reject('tx_insufficient_fee');

  const source = context.accounts.get(baseAccountId(tx.source));
  if (!source) return reject('tx_no_source_account');
  if (!isNextSequence(tx, source)) return reject('tx_bad_seq');
  if (isTooSoonAfterLastSequence(tx, source, context)) return reject('tx_bad_min_seq_age_or_gap');
  if (!checker.checkAccount(source, 'low')) return reject('tx_bad_auth');
  // the declared fee, not the charged one, must be affordable above the reserve
  if (chargesFee && spendableNative(source) < BigInt(tx.fee)) return reject('tx_insufficient_balance');
  // extra signers (CAP-21) are accepted by Stellar; the sandbox says clearly that it does not implement them
  if (tx.extraSigners && tx.extraSigners.length > 0) return reject('tx_not_supported');

  const operations = tx.operations.map((op, index): OperationOutcome => {
    const opSource = baseAccountId(op.source ?? tx.source);
    const checked = checkOperation(op, opSource, () => encodedOperation(tx, index));
    if (checked === 'op_not_supported') return { kind: op.type, code: checked };
    const account = context.accounts.get(opSource);
    // An operation source may not exist yet because an earlier operation creates it; then a signature
    // by its key is enough here, and its existence is checked when the operation applies.
    const signed = account ? checker.checkAccount(account, operationThreshold(op)) : checker.checkKeyOnly(opSource);
    return { kind: op.type, code: signed ? checked : 'op_bad_auth' };
  });
  if (operations.some((op) => op.code !== OP_SUCCESS)) {
    return { code: 'tx_failed', feeCharged: rejectedFee, operations };
  }
  if (!checker.allUsed()) return reject('tx_bad_auth_extra');
  return undefined;
}

/** Re-encodes the envelope, so only asked for by the operations that need their raw bits. */
function encodedOperation(tx: Transaction, index: number): xdr.Operation {
  const envelope = tx.toEnvelope();
  const body = envelope.switch().name === 'envelopeTypeTxV0' ? envelope.v0().tx() : envelope.v1().tx();
  const operation = body.operations()[index];
  if (!operation) throw new Error(`the envelope has no operation ${index}`);
  return operation;
}

function checkPreconditionWindow(tx: Transaction, context: ValidationContext): 'tx_too_early' | 'tx_too_late' | undefined {
  const now = BigInt(context.closeTime);
  if (tx.timeBounds) {
    const minTime = BigInt(tx.timeBounds.minTime);
    const maxTime = BigInt(tx.timeBounds.maxTime);
    if (now < minTime) return 'tx_too_early';
    // maxTime 0 means no upper bound
    if (maxTime !== 0n && now > maxTime) return 'tx_too_late';
  }
  if (tx.ledgerBounds) {
    const { minLedger, maxLedger } = tx.ledgerBounds;
    if (context.ledgerSequence < minLedger) return 'tx_too_early';
    // maxLedger is exclusive (CAP-21)
    if (maxLedger !== 0 && context.ledgerSequence >= maxLedger) return 'tx_too_late';
  }
  return undefined;
}

function isNextSequence(tx: Transaction, source: Readonly<AccountEntry>): boolean {
  const sequence = BigInt(tx.sequence);
  if (tx.minAccountSequence !== undefined) {
    // CAP-21: with minSeqNum, any sequence above the account's is fine as long as the account is at least minSeqNum
    return source.sequence >= BigInt(tx.minAccountSequence) && sequence > source.sequence;
  }
  return sequence === source.sequence + 1n;
}

function isTooSoonAfterLastSequence(tx: Transaction, source: Readonly<AccountEntry>, context: ValidationContext): boolean {
  const minAge = BigInt(tx.minAccountSequenceAge ?? 0);
  if (minAge > 0n && BigInt(context.closeTime - source.sequenceTime) < minAge) return true;
  const minGap = tx.minAccountSequenceLedgerGap ?? 0;
  return minGap > 0 && context.ledgerSequence - source.sequenceLedger < minGap;
}
