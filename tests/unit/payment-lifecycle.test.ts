import { PAYMENT_STATES, providerVerdict, TRANSITIONS, UNFINISHED_STATES } from '../../src/domain/payment-lifecycle';

describe('the payment lifecycle', () => {
  it('names every move, from and to known states, and every state is reached or is the start', () => {
    const reached = new Set<string>(['initialized']);
    for (const [name, move] of Object.entries(TRANSITIONS)) {
      expect(PAYMENT_STATES).toContain(move.to);
      for (const from of move.from) expect(PAYMENT_STATES).toContain(from);
      expect(move.from).not.toContain('minted'); // minted is final: nothing leaves it
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

  it("reads Paystack's statuses: only success, failed and reversed are final; anything else is not yet", () => {
    expect(providerVerdict('success')).toEqual({ kind: 'success' });
    expect(providerVerdict('failed')).toEqual({ kind: 'failed' });
    expect(providerVerdict('reversed')).toEqual({ kind: 'reversed' });
    for (const status of ['abandoned', 'ongoing', 'pending', 'processing', 'queued', 'a-status-paystack-adds-tomorrow']) {
      expect(providerVerdict(status)).toEqual({ kind: 'not_yet', status });
    }
  });
});
