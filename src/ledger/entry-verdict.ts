import type { LedgerRejectedError } from '../clients/ledger-errors';
import type { EntryKind } from './kinds/entry-kind';

/** Refusals about the envelope, not about what it carries: its operations ride again in a new one. */
const ENVELOPE_CODES = new Set(['tx_bad_seq', 'tx_too_late', 'tx_too_early', 'tx_insufficient_fee', 'tx_internal_error']);

/** A refusal of the envelope itself (its sequence number, time bounds, fee), not of what it carries: a new envelope may pass. */
export function isEnvelopeRefusal(error: LedgerRejectedError): boolean {
  return ENVELOPE_CODES.has(error.transactionCode) || (error.transactionCode === 'tx_failed' && error.operationCodes.length === 0);
}

/**
 * Whether an entry whose envelope was refused on its first submission is over (failed, with a
 * code the API answers) or rides again. `ownCodes` are the result codes of the entry's own
 * operations (empty when the refusal was about the whole transaction). What is about the envelope
 * is decided here, the same for every kind; what is about the entry, by its kind.
 */
export function isFinalRefusal(kind: EntryKind, error: LedgerRejectedError, ownCodes: string[]): boolean {
  // the fee bump was refused (its fee source's balance, its bid): nothing is wrong with the entry
  if (error.feeBump) return false;
  if (error.transactionCode === 'tx_failed') {
    const own = ownCodes.find((c) => c !== 'op_success');
    if (!own) return false; // another entry's operation failed the batch
    return kind.refusal(own) === 'final';
  }
  if (ENVELOPE_CODES.has(error.transactionCode)) return false;
  return kind.refusal(undefined) === 'final';
}
