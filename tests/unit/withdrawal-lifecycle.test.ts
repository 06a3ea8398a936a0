import { NOTHING_PAID_STATES, SWEPT_STATES, transferMove, WITHDRAWAL_STATES, WITHDRAWAL_TRANSITIONS, type WithdrawalState } from '../../src/domain/withdrawal-lifecycle';

/** The states reachable from `start` through the transition table, never passing a move named in `without`. */
function reachable(start: WithdrawalState, without: string[] = []): Set<WithdrawalState> {
  const seen = new Set<WithdrawalState>([start]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, move] of Object.entries(WITHDRAWAL_TRANSITIONS)) {
      if (without.includes(name) || seen.has(move.to) || !move.from.some((s) => seen.has(s))) continue;
      seen.add(move.to);
      grew = true;
    }
  }
  return seen;
}

describe('the withdrawal lifecycle', () => {
  it('names every move, from and to known states, and reaches every state from requested', () => {
    for (const move of Object.values(WITHDRAWAL_TRANSITIONS)) {
      expect(WITHDRAWAL_STATES).toContain(move.to);
      for (const from of move.from) expect(WITHDRAWAL_STATES).toContain(from);
    }
    expect([...reachable('requested')].sort()).toEqual([...WITHDRAWAL_STATES].sort());
  });

  it('asks the provider to pay only after the ledger confirmed the debit: no transfer state is reached without debitConfirmed', () => {
    const withoutDebit = reachable('requested', ['debitConfirmed']);
    for (const state of ['sending', 'waiting_float', 'processing', 'awaiting_otp', 'paid'] as const) expect(withoutDebit.has(state)).toBe(false);
    expect(WITHDRAWAL_TRANSITIONS.transferStarted.from).toEqual(['debited', 'sending']);
    expect(WITHDRAWAL_TRANSITIONS.floatRetried).toEqual({ from: ['waiting_float'], to: 'waiting_float' });
  });

  it('gives tokens back only through refund_due, once: refunded and debit_failed are final, and a refund is started only from refund_due', () => {
    const froms = (move: { from: readonly WithdrawalState[] }) => move.from;
    for (const [name, move] of Object.entries(WITHDRAWAL_TRANSITIONS)) {
      for (const final of ['refunded', 'debit_failed', 'cancelled'] as const) expect({ name, from: froms(move).includes(final) }).toEqual({ name, from: false });
    }
    expect(WITHDRAWAL_TRANSITIONS.refundStarted).toEqual({ from: ['refund_due'], to: 'refunding' });
    // A paid withdrawal moves only when its money comes back.
    const fromPaid = Object.entries(WITHDRAWAL_TRANSITIONS).filter(([, m]) => froms(m).includes('paid')).map(([name]) => name);
    expect(fromPaid).toEqual(['transferReversed']);
    // An admin's cancel after the debit never reaches a state where a transfer may exist.
    expect(WITHDRAWAL_TRANSITIONS.cancelledAfterDebit.from).toEqual(['debited', 'waiting_float']);
  });

  it('sweeps every state that waits on the service or the provider, and counts against the daily limit only what may pay out', () => {
    expect([...SWEPT_STATES].sort()).toEqual(['awaiting_otp', 'debited', 'processing', 'refund_due', 'requested', 'sending', 'waiting_float']);
    expect([...NOTHING_PAID_STATES].sort()).toEqual(['cancelled', 'debit_failed', 'refund_due', 'refunded', 'refunding']);
  });

  it("reads Paystack's transfer statuses: only the final failures give tokens back; anything unknown is asked again", () => {
    expect(transferMove('success')).toBe('transferSucceeded');
    expect(transferMove('otp')).toBe('transferNeedsOtp');
    expect(transferMove('reversed')).toBe('transferReversed');
    for (const status of ['failed', 'abandoned', 'blocked', 'rejected']) expect(transferMove(status)).toBe('transferFailed');
    for (const status of ['pending', 'received', 'queued', 'a-status-paystack-adds-tomorrow']) expect(transferMove(status)).toBe('transferPending');
  });
});

describe('the events the moves tell the user (CONTRACT 13)', () => {
  it('names an event for every move that ends or advances the payout, and none for the others', () => {
    const told = Object.fromEntries(Object.entries(WITHDRAWAL_TRANSITIONS).flatMap(([name, t]) => ('event' in t ? [[name, t.event]] : [])));
    expect(told).toEqual({
      debitConfirmed: 'withdrawal.debited',
      debitRefused: 'withdrawal.failed',
      cancelled: 'withdrawal.failed',
      transferSucceeded: 'withdrawal.paid',
      transferFailed: 'withdrawal.failed',
      transferReversed: 'withdrawal.failed',
      cancelledAfterDebit: 'withdrawal.failed',
      refundConfirmed: 'withdrawal.refunded',
    });
  });
});
