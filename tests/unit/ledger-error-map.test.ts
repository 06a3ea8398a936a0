import { LedgerRejectedError, LedgerUnavailableError } from '../../src/clients/ledger-errors';
import { AppError } from '../../src/errors/app-error';
import { answeredWrite } from '../../src/ledger/ledger-error-map';

/** What the API answers for a write dropped with its key after its batch ran out of rounds (src/ledger/ledger-error-map.ts). */
function answerForDropped(error: Error): unknown {
  try {
    answeredWrite({ written: false, reason: 'dropped', error }, 'WLT');
  } catch (err) {
    return err;
  }
  throw new Error('a dropped write was answered as written');
}

const shape = (err: unknown) => (err instanceof AppError ? { code: err.code, message: err.message } : err);
const RETRY = { code: 'UPSTREAM_UNAVAILABLE', message: 'The ledger did not take the transaction this time; nothing was moved, try again' };

describe('a dropped write', () => {
  it.each([
    ['tx_bad_seq (another client used the sequence number)', new LedgerRejectedError('tx_bad_seq', [])],
    ['tx_too_late', new LedgerRejectedError('tx_too_late', [])],
    ['tx_insufficient_fee', new LedgerRejectedError('tx_insufficient_fee', [])],
    ['tx_failed by another entry of its batch', new LedgerRejectedError('tx_failed', [])],
  ])('refused for its envelope, %s, is the retryable 503 naming no code', (_what, error) => {
    expect(shape(answerForDropped(error))).toEqual(RETRY);
  });

  it('lost to an unreachable ledger is the 503 of an unreachable ledger', () => {
    expect(shape(answerForDropped(new LedgerUnavailableError()))).toEqual({ code: 'UPSTREAM_UNAVAILABLE', message: 'Ledger unavailable, try again later' });
  });

  it('refused for its account (gone from the ledger) is answered as that refusal, as before', () => {
    expect(shape(answerForDropped(new LedgerRejectedError('tx_no_source_account', [])))).toEqual({ code: 'UPSTREAM_FAILED', message: 'Ledger rejected the transaction (tx_no_source_account)' });
  });

  it('an error that is not the ledger’s passes through unchanged (a bug, answered 500)', () => {
    const bug = new TypeError('cannot read the sealed key');
    expect(answerForDropped(bug)).toBe(bug);
  });
});
