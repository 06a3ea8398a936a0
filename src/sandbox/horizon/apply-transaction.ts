import { FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import { baseAccountId } from './account-ids';
import { LedgerDelta } from './ledger-delta';
import { BASE_FEE, spendableNative } from './ledger-rules';
import type { LedgerState } from './ledger-state';
import { ActiveSponsorships, OP_SUCCESS, applyOperation } from './operations';
import type { InnerResult, OperationOutcome, TransactionResultModel } from './result-xdr';
import { SignatureChecker } from './signature-checker';
import { feeToCharge, validateTransaction, type ValidationContext } from './validate-transaction';

export type Envelope = Transaction | FeeBumpTransaction;

export interface LedgerPosition {
  ledgerSequence: number;
  closeTime: number;
}

export interface TransactionOutcome {
  /** In the ledger: fee charged and sequence consumed, whether or not the operations succeeded. */
  included: boolean;
  successful: boolean;
  result: TransactionResultModel;
}

/**
 * Validates one envelope against the current state and, if valid, applies it: fee and sequence
 * first (they stay even if an operation fails), then the operations on a delta that is committed only
 * if every one of them succeeds.
 */
export function processEnvelope(state: LedgerState, envelope: Envelope, position: LedgerPosition): TransactionOutcome {
  return envelope instanceof FeeBumpTransaction
    ? processFeeBump(state, envelope, position)
    : processTransaction(state, envelope, position);
}

function processTransaction(state: LedgerState, tx: Transaction, position: LedgerPosition): TransactionOutcome {
  const context: ValidationContext = { accounts: state.accounts, ...position };
  const checker = new SignatureChecker(tx.hash(), tx.signatures);
  const invalid = validateTransaction(tx, checker, context, true);
  if (invalid) return { included: false, successful: false, result: invalid };

  const feeCharged = feeToCharge(tx.operations.length);
  chargeFeeAndConsumeSequence(state, baseAccountId(tx.source), feeCharged, tx, position);
  const applied = applyOperations(state, tx, position);
  return {
    included: true,
    successful: applied.code === 'tx_success',
    result: { ...applied, feeCharged },
  };
}

/**
 * A fee bump (CAP-15) lets another account pay for an already-signed transaction. The outer
 * envelope is checked for its own fee, fee source and signatures; the inner one as a transaction
 * whose fee is already paid.
 */
function processFeeBump(state: LedgerState, feeBump: FeeBumpTransaction, position: LedgerPosition): TransactionOutcome {
  const inner = feeBump.innerTransaction;
  const feeSourceId = baseAccountId(feeBump.feeSource);
  const operationCount = BigInt(inner.operations.length);
  // the fee bump itself counts as one more operation
  const feeCharged = BASE_FEE * (operationCount + 1n);
  const outerFee = BigInt(feeBump.fee);
  const outer = (code: InnerResult['code']): TransactionOutcome => ({
    included: false,
    successful: false,
    result: { code, feeCharged },
  });

  if (outerFee < feeCharged || outerFee * operationCount < BigInt(inner.fee) * (operationCount + 1n)) {
    return outer('tx_insufficient_fee');
  }
  const feeSource = state.accounts.get(feeSourceId);
  if (!feeSource) return outer('tx_no_source_account');
  const outerChecker = new SignatureChecker(feeBump.hash(), feeBump.signatures);
  if (!outerChecker.checkAccount(feeSource, 'low')) return outer('tx_bad_auth');
  if (spendableNative(feeSource) < outerFee) return outer('tx_insufficient_balance');
  if (!outerChecker.allUsed()) return outer('tx_bad_auth_extra');

  const innerHash = inner.hash();
  const innerChecker = new SignatureChecker(innerHash, inner.signatures);
  const invalidInner = validateTransaction(inner, innerChecker, { accounts: state.accounts, ...position }, false);
  if (invalidInner) {
    return {
      included: false,
      successful: false,
      result: {
        code: 'tx_failed',
        feeCharged,
        feeBump: { code: 'tx_fee_bump_inner_failed', innerHash, inner: { ...invalidInner, feeCharged: 0n } },
      },
    };
  }

  chargeFeeAndConsumeSequence(state, feeSourceId, feeCharged, inner, position);
  const applied = applyOperations(state, inner, position);
  const successful = applied.code === 'tx_success';
  return {
    included: true,
    successful,
    result: {
      code: applied.code,
      feeCharged,
      feeBump: {
        code: successful ? 'tx_fee_bump_inner_success' : 'tx_fee_bump_inner_failed',
        innerHash,
        // the outer envelope paid, so the inner transaction was charged nothing
        inner: { ...applied, feeCharged: 0n },
      },
    },
  };
}

function chargeFeeAndConsumeSequence(
  state: LedgerState,
  feeSourceId: string,
  fee: bigint,
  tx: Transaction,
  position: LedgerPosition,
): void {
  const delta = new LedgerDelta(state.accounts, position.ledgerSequence, position.closeTime);
  const feeSource = delta.write(feeSourceId);
  if (feeSource) feeSource.balance -= fee < feeSource.balance ? fee : feeSource.balance;
  const source = delta.write(baseAccountId(tx.source));
  if (source) {
    source.sequence = BigInt(tx.sequence);
    source.sequenceLedger = position.ledgerSequence;
    source.sequenceTime = position.closeTime;
  }
  delta.commitTo(state.accounts, state.priorImages);
}

/**
 * Protocol >= 14: operations run in order and the first failure stops the transaction; its changes
 * and those of the operations before it are dropped. Operations after the failure keep the default
 * (success) result, which is what stellar-core reports for them. Sponsorships begun in the
 * transaction live only as long as it does: one left without its end fails the whole transaction
 * with tx_bad_sponsorship, which carries no operation results.
 */
function applyOperations(
  state: LedgerState,
  tx: Transaction,
  position: LedgerPosition,
): { code: 'tx_success' | 'tx_failed' | 'tx_bad_sponsorship'; operations?: OperationOutcome[] } {
  const delta = new LedgerDelta(state.accounts, position.ledgerSequence, position.closeTime);
  const sponsorships = new ActiveSponsorships();
  const operations: OperationOutcome[] = tx.operations.map((op) => ({ kind: op.type, code: OP_SUCCESS }));
  for (const [index, op] of tx.operations.entries()) {
    const source = baseAccountId(op.source ?? tx.source);
    const applied = delta.exists(source)
      ? applyOperation(op, { delta, source, sponsorships })
      : { code: 'op_no_source_account' };
    operations[index] = { kind: op.type, ...applied };
    if (applied.code !== OP_SUCCESS) return { code: 'tx_failed', operations };
  }
  if (sponsorships.anyOpen) return { code: 'tx_bad_sponsorship' };
  delta.commitTo(state.accounts, state.priorImages);
  return { code: 'tx_success', operations };
}
