import { PAYMENT_STATES, providerVerdict, TRANSITIONS, UNFINISHED_STATES } from '../../src/domain/payment-lifecycle';

describe('the payment lifecycle', () => {
  it('names every move, from and to known states, and every state is reached or is the start', () => {
    const reached = new Set<string>(['initialized']);
    for (const [name, move] of Object.entries(TRANSITIONS)) {
      expect(PAYMENT_STATES).toContain(move.to);
      for (const from of move.from) expect(PAYMENT_STATES).toContain(from);
      // Once minted, only money going back moves a payment: a chargeback, a reversal.
      if (move.from.some((s) => ['minted', 'disputed', 'reversed'].includes(s))) expect(['disputeOpened', 'disputeWon', 'reversed']).toContain(name);
      reached.add(move.to);
      expect(name).toMatch(/^[a-z][A-Za-z]+$/);
    }
    expect([...reached].sort()).toEqual([...PAYMENT_STATES].sort());
  });

  it('consumes a reference only from initialized or a provider failure, and mints only what was paid', () => {
    expect(TRANSITIONS.paid.from).toEqual(['initialized', 'failed']);
    expect(TRANSITIONS.mintStarted.from).toEqual(['paid']);
    expect(TRANSITIONS.mintConfirmed.from).toEqual(['minting']);
    expect(TRANSITIONS.mintNotYet).toEqual({ from: ['minting'], to: 'paid' });
    expect(UNFINISHED_STATES).toEqual(['initialized', 'paid']);
  });

  it('takes tokens back only from minted payments, and releases a chargeback only to minted', () => {
    expect(TRANSITIONS.reversed).toEqual({ from: ['minted', 'disputed', 'reversed'], to: 'reversed', event: 'payment.reversed' });
    expect(TRANSITIONS.disputeOpened).toEqual({ from: ['minted'], to: 'disputed' });
    expect(TRANSITIONS.disputeWon).toEqual({ from: ['disputed'], to: 'minted' });
    expect(TRANSITIONS.mintCoveredByDebt).toEqual({ from: ['paid'], to: 'minted', event: 'payment.minted' });
  });

  it("reads Paystack's statuses: only success, failed and reversed are final; anything else is not yet", () => {
    expect(providerVerdict('success')).toEqual({ kind: 'success' });
    expect(providerVerdict('failed')).toEqual({ kind: 'failed' });
    expect(providerVerdict('reversed')).toEqual({ kind: 'reversed' });
    for (const status of ['abandoned', 'ongoing', 'pending', 'processing', 'queued', 'a-status-paystack-adds-tomorrow']) {
      expect(providerVerdict(status)).toEqual({ kind: 'not_yet', status });
    }
  });
});

describe('the events the moves tell the buyer (CONTRACT 13)', () => {
  it('names an event for every move a buyer hears of, and none for the others', () => {
    const told = Object.fromEntries(Object.entries(TRANSITIONS).flatMap(([name, t]) => ('event' in t ? [[name, t.event]] : [])));
    expect(told).toEqual({
      providerFailed: 'payment.failed',
      refused: 'payment.failed',
      mintConfirmed: 'payment.minted',
      mintRefused: 'payment.failed',
      mintCoveredByDebt: 'payment.minted',
      reversed: 'payment.reversed',
    });
  });
});
