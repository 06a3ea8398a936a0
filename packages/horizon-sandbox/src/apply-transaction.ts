import { FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import { baseAccountId } from './account-ids';
import { chargedFee, feeBidOf } from './fee-bid';
import { LedgerDelta } from './ledger-delta';
import { BASE_FEE } from './ledger-rules';
import type { LedgerState } from './ledger-state';
import { ActiveSponsorships, OP_SUCCESS, applyOperation } from './operations';
import type { OperationOutcome, TransactionResultModel } from './result-xdr';
import { SignatureChecker } from './signature-checker';
import { checkFeeBump } from './validate-fee-bump';
import { validateTransaction, type ValidationContext } from './validate-transaction';
import { envelopeHash } from './envelope-hash';

export type Envelope = Transaction | FeeBumpTransaction;

export interface LedgerPosition {
  ledgerSequence: number;
  closeTime: number;
}

/** The two fees of a ledger: one that every bid is checked against, one that is charged. */
export interface LedgerFees {
  /** The header's base fee: the minimum bid per operation. */
  baseFee: bigint;
  /** What each operation pays in this ledger: the base fee, or the surge price when the ledger was full. */
  chargedPerOperation: bigint;
}

export const UNCONTESTED_FEES: LedgerFees = { baseFee: BASE_FEE, chargedPerOperation: BASE_FEE };

export interface TransactionOutcome {
  /** In the ledger: fee charged and sequence consumed, whether or not the operations succeeded. */
  included: boolean;
  successful: boolean;
  result: TransactionResultModel;
}

/** stellar-core's checkValid for either kind of envelope: the result it would be refused with, if any. */
export function checkEnvelope(envelope: Envelope, context: ValidationContext): TransactionResultModel | undefined {
  if (envelope instanceof FeeBumpTransaction) return checkFeeBump(envelope, context);
  return validateTransaction(envelope, new SignatureChecker(envelopeHash(envelope), envelope.signatures), context, true);
}

/**
 * Validates one envelope against the current state and, if valid, applies it: fee and sequence
 * first (they stay even if an operation fails), then the operations on a delta that is committed only
 * if every one of them succeeds.
 */
export function processEnvelope(
  state: LedgerState,
  envelope: Envelope,
  position: LedgerPosition,
  fees: LedgerFees = UNCONTESTED_FEES,
): TransactionOutcome {
  return envelope instanceof FeeBumpTransaction
    ? processFeeBump(state, envelope, position, fees)
    : processTransaction(state, envelope, position, fees);
}

function processTransaction(state: LedgerState, tx: Transaction, position: LedgerPosition, fees: LedgerFees): TransactionOutcome {
  const invalid = checkEnvelope(tx, { accounts: state.accounts, ...position, baseFee: fees.baseFee });
  if (invalid) return { included: false, successful: false, result: invalid };

  // the ledger's price per operation, never more than the transaction bid
  const feeCharged = chargedFee(feeBidOf(tx), fees.chargedPerOperation);
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
 * whose fee is already paid. The fee source pays for the inner operations plus one.
 */
function processFeeBump(state: LedgerState, feeBump: FeeBumpTransaction, position: LedgerPosition, fees: LedgerFees): TransactionOutcome {
  const invalid = checkFeeBump(feeBump, { accounts: state.accounts, ...position, baseFee: fees.baseFee });
  if (invalid) return { included: false, successful: false, result: invalid };

  const inner = feeBump.innerTransaction;
  const feeCharged = chargedFee(feeBidOf(feeBump), fees.chargedPerOperation);
  chargeFeeAndConsumeSequence(state, baseAccountId(feeBump.feeSource), feeCharged, inner, position);
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
        innerHash: envelopeHash(inner),
        // Before protocol 25 core reports, as the inner result's fee, what the inner transaction would
        // have been charged on its own at this ledger's price; the outer fee source paid it all the same.
        inner: { ...applied, feeCharged: chargedFee(feeBidOf(inner), fees.chargedPerOperation) },
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
