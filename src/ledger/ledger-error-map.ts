import { LedgerRejectedError, LedgerUnavailableError } from '../clients/ledger-errors';
import { isEnvelopeRefusal } from './entry-verdict';
import type { WriteResult } from './write-command';
import { AppError, RECEIVER_NOT_FOUND } from '../errors/app-error';

/** A refusal's answer; a function, so every answer is a new error and may name the token. */
type Refusal = (tokenCode: string) => AppError;

const NOT_AUTHORIZED: Refusal = () => new AppError('FORBIDDEN', 'The ledger does not authorize this payment');

/** The ledger's refusals the service words for the user, by result code; any other is UPSTREAM_FAILED. */
const REFUSALS = new Map<string, Refusal>([
  ['op_underfunded', () => new AppError('VALIDATION', 'Insufficient balance')],
  ['tx_insufficient_balance', () => new AppError('VALIDATION', 'Insufficient XLM balance to pay the network fee')],
  ['op_no_trust', (tokenCode) => new AppError('VALIDATION', `Receiver has no trustline for ${tokenCode}`)],
  ['op_src_no_trust', (tokenCode) => new AppError('CONFLICT', `Sender has no trustline for ${tokenCode} yet`)],
  ['op_line_full', (tokenCode) => new AppError('VALIDATION', `Receiver cannot hold that much ${tokenCode}`)],
  ['op_no_destination', () => new AppError('VALIDATION', 'Receiver account does not exist on the ledger').because(RECEIVER_NOT_FOUND)],
  ['op_not_authorized', NOT_AUTHORIZED],
  ['op_src_not_authorized', NOT_AUTHORIZED],
]);

/** Turns a ledger failure into the service's error vocabulary; anything else passes through. */
export function fromLedgerError(err: unknown, tokenCode: string): unknown {
  if (err instanceof LedgerUnavailableError) return new AppError('UPSTREAM_UNAVAILABLE', 'Ledger unavailable, try again later');
  if (!(err instanceof LedgerRejectedError)) return err;
  // The service pays every fee through a fee bump: a refused fee bump is the service's trouble, not the user's.
  if (err.feeBump) return new AppError('UPSTREAM_UNAVAILABLE', 'The network fee could not be paid right now; try again later');
  const refusal = REFUSALS.get(err.code);
  return refusal ? refusal(tokenCode) : new AppError('UPSTREAM_FAILED', `Ledger rejected the transaction (${err.code})`);
}

/**
 * A write dropped with its key after its batch ran out of rounds: nothing moved and the key is
 * free. When the rounds were refused for the envelope (its sequence number, time bounds, fee: a
 * new envelope may pass), that is the retryable 503, whatever the last code was: CONTRACT 4,
 * tx_bad_seq (another client used the account's sequence number) is retried inside, never shown.
 * An unreachable ledger is its own 503, and anything else (the account gone from the ledger) is
 * answered as any refusal.
 */
function droppedWrite(error: Error, tokenCode: string): unknown {
  // The codes of the refused rounds are counted by ledger_submissions_total; the caller needs none of them.
  if (error instanceof LedgerRejectedError && isEnvelopeRefusal(error)) {
    return new AppError('UPSTREAM_UNAVAILABLE', 'The ledger did not take the transaction this time; nothing was moved, try again');
  }
  return fromLedgerError(error, tokenCode);
}

/** A write's result as the API answers it: the entry, confirmed or pending; anything else is the AppError it is answered with. */
export type AnsweredWrite = Extract<WriteResult, { written: true }> & { outcome: { status: 'confirmed' | 'pending' } };

/** The AppError a write that was not made (or was refused) is answered with, or the written result itself. */
export function answeredWrite(result: WriteResult, tokenCode: string): AnsweredWrite {
  if (!result.written) {
    switch (result.reason) {
      case 'key_reused':
        throw new AppError('CONFLICT', 'Idempotency-Key was already used with a different request');
      case 'dropped':
        throw droppedWrite(result.error, tokenCode);
      default:
        throw new Error(`a write answered to a request was not made (${result.reason})`);
    }
  }
  const { outcome } = result;
  if (outcome.status === 'failed') throw fromLedgerError(outcome.error, tokenCode);
  return { ...result, outcome };
}
