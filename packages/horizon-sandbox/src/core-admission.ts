import { FeeBumpTransaction } from '@stellar/stellar-sdk';
import { baseAccountId } from './account-ids';
import { checkEnvelope, type Envelope } from './apply-transaction';
import { BASE_FEE } from './ledger-rules';
import type { LedgerState } from './ledger-state';
import { badSequence } from './resubmission';
import type { TransactionResultModel } from './result-xdr';
import type { SubmissionResult } from './sandbox-ledger';
import { resultXdr } from './transaction-record';
import type { QueuedTransaction } from './transaction-queue';
import { feeToCharge } from './validate-transaction';
import { envelopeHashHex } from './envelope-hash';

/**
 * stellar-core's answer to a submission, given at once, before any ledger closes: what RPC's
 * sendTransaction relays. PENDING carries the outcome that comes when its ledger closes (it never
 * rejects: a transaction lost with a stopping ledger is `dropped`).
 */
export type Acceptance =
  | { status: 'PENDING'; outcome: Promise<SubmissionResult> }
  | { status: 'DUPLICATE' }
  | { status: 'TRY_AGAIN_LATER' }
  | { status: 'ERROR'; errorResultXdr: string };

export const refusal = (result: TransactionResultModel): Acceptance => ({ status: 'ERROR', errorResultXdr: resultXdr(result) });

/**
 * Core's tryAdd before its queue's own rules (TransactionQueue.admit: fee floor, replace-by-fee,
 * room): an envelope already in a ledger is a used sequence number; the same transaction waiting is
 * a DUPLICATE; an account holds one transaction in the queue at a time, so another one of a later
 * sequence must TRY_AGAIN_LATER and an earlier one is a bad sequence; then checkValid against the
 * last closed ledger, which refuses what can never apply (signatures, sequence, time bounds, fees).
 */
export function refusedAtAdmission(
  state: LedgerState,
  waiting: readonly QueuedTransaction[],
  envelope: Envelope,
  nowMs: number,
): Acceptance | undefined {
  const hash = envelopeHashHex(envelope);
  const known = state.history.transaction(hash);
  if (known?.hash === hash) return refusal(badSequence(known));
  if (waiting.some((entry) => entry.hash === hash || entry.innerHash === hash)) return { status: 'DUPLICATE' };

  const tx = envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
  const occupant = waiting.find((entry) => entry.chain === baseAccountId(tx.source));
  const occupantSequence = occupant?.slot === undefined ? undefined : BigInt(occupant.slot.split(':')[1] ?? '0');
  if (occupantSequence !== undefined) {
    const sequence = BigInt(tx.sequence);
    if (sequence < occupantSequence) return refusal({ code: 'tx_bad_seq', feeCharged: feeToCharge(tx.operations.length) });
    if (sequence > occupantSequence) return { status: 'TRY_AGAIN_LATER' };
  }

  const invalid = checkEnvelope(envelope, {
    accounts: state.accounts,
    ledgerSequence: state.latest.sequence + 1,
    closeTime: Math.max(Math.floor(nowMs / 1000), state.latest.closedAt),
    baseFee: BASE_FEE,
  });
  return invalid ? refusal(invalid) : undefined;
}

/** What an immediate ledger (closeMs 0) did with the submission, as core's answer to it. */
export function acceptanceOf(outcome: SubmissionResult | { status: 'waiting' } | undefined): Acceptance {
  if (outcome?.status === 'rejected') return { status: 'ERROR', errorResultXdr: outcome.resultXdr };
  if (outcome?.status === 'included') return { status: 'PENDING', outcome: Promise.resolve(outcome) };
  return { status: 'TRY_AGAIN_LATER' };
}
