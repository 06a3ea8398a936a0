import { sendPoint } from '../../src/ledger/send-point';

describe('sendPoint: when a lane sends a transaction its queue does not fill', () => {
  const now = 10_000;

  it('waits until a third of the interval before the next close', () => {
    expect(sendPoint(now, { at: now + 900, intervalMs: 1000 }, false)).toBeCloseTo(now + 900 - 1000 / 3, 6);
    expect(sendPoint(now, { at: now + 5000, intervalMs: 6000 }, false)).toBe(now + 3000);
  });

  it('sends at once a transaction the queue fills, or when the pace is not known', () => {
    expect(sendPoint(now, { at: now + 900, intervalMs: 1000 }, true)).toBeUndefined();
    expect(sendPoint(now, undefined, false)).toBeUndefined();
  });

  it('sends at once within the lead of the close, the lead being at least 250 ms (so never on ledgers closing within 750 ms)', () => {
    expect(sendPoint(now, { at: now + 300, intervalMs: 1000 }, false)).toBeUndefined();
    expect(sendPoint(now, { at: now + 260, intervalMs: 600 }, false)).toBe(now + 10);
    expect(sendPoint(now, { at: now + 200, intervalMs: 200 }, false)).toBeUndefined();
  });
});
