import { LedgerRejectedError } from '../../src/clients/ledger-errors';
import { isFinalRefusal } from '../../src/ledger/entry-verdict';
import { NEVER_SUCCEEDS } from '../../src/ledger/kinds/entry-kind';
import { standardKinds } from '../../src/ledger/kinds/registry';

// Which refusals end an entry, kind by kind: the table the journal answered before the kinds moved
// into their own files (entry-verdict.ts switched on the name then), so the move changed nothing.
// F: the entry is over (failed, with its code); A: it rides again in a new envelope.

const kinds = standardKinds();
const ownOperation = (code: string) => new LedgerRejectedError('tx_failed', [code]);

//                        its operation: op_underfunded, op_no_trust, op_already_exists; the transaction: tx_no_source_account
const TABLE: [kind: string, verdicts: string][] = [
  ['transfer', 'FFFF'],
  ['admin_mint', 'FFFF'],
  ['issue', 'FFFF'],
  ['channel_merge', 'FFFF'],
  ['payment_mint', 'AFAA'],
  ['clawback', 'FFFA'],
  ['issuer_flags', 'FFFA'],
  ['activation', 'AFFA'],
  ['channel_funding', 'AFFA'],
  ['trustline', 'AFFA'],
  // Cash-out's two writes (new with them, not in the old switch): the debit is over when its own payment
  // is refused (the wallet spent the tokens: nothing taken); the refund rides again but when hopeless.
  ['withdrawal', 'FFFA'],
  ['withdrawal_refund', 'AFAA'],
];

describe('refusal verdicts by kind', () => {
  // Left to the reconciler (true) or dropped with its key when nothing can send it: the old isMustFinish.
  it.each([
    ['transfer', false],
    ['admin_mint', false],
    ['issue', false],
    ['payment_mint', true],
    ['activation', true],
    ['channel_funding', true],
    ['trustline', true],
    ['clawback', true],
    ['issuer_flags', true],
    ['channel_merge', true],
    ['withdrawal', true],
    ['withdrawal_refund', true],
  ] as const)('%s must finish: %s', (name, mustFinish) => {
    expect(kinds.of(name).mustFinish).toBe(mustFinish);
  });

  it.each([...NEVER_SUCCEEDS])('a mint, a withdrawal refund, an activation and the trustline are over when the ledger answers %s', (code) => {
    for (const name of ['payment_mint', 'withdrawal_refund', 'activation', 'trustline']) expect(isFinalRefusal(kinds.of(name), ownOperation(code), [code])).toBe(true);
  });

  it('covers every kind', () => {
    expect(TABLE.map(([kind]) => kind).sort()).toEqual([...kinds.names].sort());
  });

  it.each(TABLE)('%s: %s', (name, verdicts) => {
    const kind = kinds.of(name);
    const cases = [
      isFinalRefusal(kind, ownOperation('op_underfunded'), ['op_underfunded']),
      isFinalRefusal(kind, ownOperation('op_no_trust'), ['op_no_trust']),
      isFinalRefusal(kind, ownOperation('op_already_exists'), ['op_already_exists']),
      isFinalRefusal(kind, new LedgerRejectedError('tx_no_source_account', []), []),
    ];
    expect(cases.map((final) => (final ? 'F' : 'A')).join('')).toBe(verdicts);
  });

  it.each(TABLE.map(([kind]) => kind))('%s rides again when the envelope, its fee bump or another entry was refused', (name) => {
    const kind = kinds.of(name);
    expect(isFinalRefusal(kind, new LedgerRejectedError('tx_bad_seq', []), [])).toBe(false);
    expect(isFinalRefusal(kind, new LedgerRejectedError('tx_insufficient_fee', []), [])).toBe(false);
    expect(isFinalRefusal(kind, new LedgerRejectedError('tx_insufficient_balance', [], true), [])).toBe(false);
    expect(isFinalRefusal(kind, new LedgerRejectedError('tx_failed', ['op_success', 'op_underfunded']), ['op_success'])).toBe(false);
  });
});
