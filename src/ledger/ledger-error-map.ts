import { LedgerIndeterminateError, LedgerRejectedError, LedgerUnavailableError } from '../clients/ledger-errors';
import { AppError, RECEIVER_NOT_FOUND } from '../errors/app-error';


/** Turns a ledger failure into the service's error vocabulary; anything else passes through. */
export function fromLedgerError(err: unknown, tokenCode: string): unknown {
  if (err instanceof LedgerUnavailableError) return new AppError('UPSTREAM_UNAVAILABLE', 'Ledger unavailable, try again later');
  if (err instanceof LedgerIndeterminateError) {
    return new AppError('UPSTREAM_UNAVAILABLE', 'The ledger did not confirm the transaction in time; check the transaction list before retrying');
  }
  if (!(err instanceof LedgerRejectedError)) return err;
  // The service pays every fee through a fee bump: a refused fee bump is the service's trouble, not the user's.
  if (err.feeBump) return new AppError('UPSTREAM_UNAVAILABLE', 'The network fee could not be paid right now; try again later');
  switch (err.code) {
    case 'op_underfunded':
      return new AppError('VALIDATION', 'Insufficient balance');
    case 'tx_insufficient_balance':
      return new AppError('VALIDATION', 'Insufficient XLM balance to pay the network fee');
    case 'op_no_trust':
      return new AppError('VALIDATION', `Receiver has no trustline for ${tokenCode}`);
    case 'op_src_no_trust':
      return new AppError('CONFLICT', `Sender has no trustline for ${tokenCode} yet`);
    case 'op_line_full':
      return new AppError('VALIDATION', `Receiver cannot hold that much ${tokenCode}`);
    case 'op_no_destination':
      return new AppError('VALIDATION', 'Receiver account does not exist on the ledger').because(RECEIVER_NOT_FOUND);
    case 'op_not_authorized':
    case 'op_src_not_authorized':
      return new AppError('FORBIDDEN', 'The ledger does not authorize this payment');
    default:
      return new AppError('UPSTREAM_FAILED', `Ledger rejected the transaction (${err.code})`);
  }
}
