import type { LedgerRejectedError } from '../clients/ledger-errors';
import type { EntryKind } from '../db/schema';

/** Refusals about the envelope, not about what it carries: its operations ride again in a new one. */
const ENVELOPE_CODES = new Set(['tx_bad_seq', 'tx_too_late', 'tx_too_early', 'tx_insufficient_fee', 'tx_internal_error']);

/** A refusal of the envelope itself (its sequence number, time bounds, fee), not of what it carries: a new envelope may pass. */
export function isEnvelopeRefusal(error: LedgerRejectedError): boolean {
  return ENVELOPE_CODES.has(error.transactionCode) || (error.transactionCode === 'tx_failed' && error.operationCodes.length === 0);
}

/** A mint the ledger refuses for one of these reasons never succeeds by trying again. */
const MINT_NEVER_SUCCEEDS = new Set(['op_no_trust', 'op_line_full', 'op_no_destination', 'op_not_authorized', 'op_malformed', 'op_no_issuer']);

/** Kinds the service must finish by itself (a paid purchase, a signup's wallet): retried unless hopeless. */
const MUST_FINISH = new Set<EntryKind>(['payment_mint', 'activation', 'channel_funding', 'trustline', 'clawback', 'issuer_flags']);

/**
 * Whether an entry whose envelope was refused on its first submission is over (failed, with a
 * code the API answers) or rides again. `ownCodes` are the result codes of the entry's own
 * operations (empty when the refusal was about the whole transaction).
 */
export function isFinalRefusal(kind: EntryKind, error: LedgerRejectedError, ownCodes: string[]): boolean {
  // the fee bump was refused (its fee source's balance, its bid): nothing is wrong with the entry
  if (error.feeBump) return false;
  if (error.transactionCode === 'tx_failed') {
    const own = ownCodes.find((c) => c !== 'op_success');
    if (!own) return false; // another entry's operation failed the batch
    if (kind === 'payment_mint') return MINT_NEVER_SUCCEEDS.has(own);
    // Every refusal of a clawback is an answer (the wallet spent the tokens, or its trustline
    // predates clawback): its reversal decides what comes next, a smaller clawback or a debt.
    if (kind === 'clawback' || kind === 'issuer_flags') return true;
    // An account that already exists is done (or someone else's); the activation sweep takes it from there.
    if (MUST_FINISH.has(kind)) return own === 'op_already_exists' || MINT_NEVER_SUCCEEDS.has(own);
    return true;
  }
  if (ENVELOPE_CODES.has(error.transactionCode)) return false;
  return !MUST_FINISH.has(kind);
}

/**
 * Whether a write that nothing can send right now is left to the reconciler (true) or dropped with
 * its Idempotency-Key so the caller asks again: the kinds the service finishes by itself, and the
 * bootstrap's channel merges.
 */
export function isMustFinish(kind: EntryKind): boolean {
  return MUST_FINISH.has(kind) || kind === 'channel_merge';
}
