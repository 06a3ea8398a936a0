import { LedgerCloseWatch } from '../../src/clients/ledger-close-watch';

/**
 * The watch against a simulated ledger on a virtual clock: closes happen at known virtual times, so
 * the test can say, in the ledger's own terms, which close each answer came after and how many reads
 * of the tip it took. Virtual time is state here, not a measured duration.
 */
class SimulatedLedger {
  now = 0;
  reads = 0;
  /** Virtual times of the closes, ascending. */
  private readonly closes: number[];
  failing = false;

  constructor(closes: number[]) {
    this.closes = closes;
  }

  tip(): number {
    return 1 + this.closes.filter((t) => t <= this.now).length;
  }

  /** The virtual time ledger `sequence` closed. */
  closedAt(sequence: number): number {
    return this.closes[sequence - 2]!;
  }

  watch(): LedgerCloseWatch {
    return new LedgerCloseWatch({
      now: () => this.now,
      // Virtual sleep: time jumps, and the microtask queue lets the sleeper go on.
      sleep: async (ms) => {
        this.now += ms;
        if (this.now > 10_000_000) throw new Error(`virtual time ran away (tip ${this.tip()}, reads ${this.reads})`);
      },
      readTip: async () => {
        this.reads++;
        if (this.failing) throw new Error('unavailable');
        return this.tip();
      },
    });
  }
}

/** Closes every `interval` ms from `first`, `count` of them, each late by jitter(i) ms. */
function everyInterval(first: number, interval: number, count: number, jitter: (i: number) => number = () => 0): number[] {
  return Array.from({ length: count }, (_, i) => first + i * interval + jitter(i));
}

/** Waits for one close after the current tip and says when (virtual) the answer came, and the reads it took. */
async function waitOneClose(ledger: SimulatedLedger, watch: LedgerCloseWatch) {
  const before = ledger.tip();
  const readsBefore = ledger.reads;
  const tip = await watch.closedAfter(before, Infinity);
  return { tip: tip!, answeredAt: ledger.now, reads: ledger.reads - readsBefore, closedAt: ledger.closedAt(before + 1) };
}

describe('LedgerCloseWatch', () => {
  it('learns a 1 s ledger from its first closes, then answers within a twentieth of a close after each, reading the tip a few times per close', async () => {
    const ledger = new SimulatedLedger(everyInterval(730, 1000, 40));
    const watch = ledger.watch();
    // Learning: the first closes are found by reading every 100 ms.
    for (let i = 0; i < 3; i++) await waitOneClose(ledger, watch);
    expect(watch.intervalMs).toBeGreaterThanOrEqual(1000);
    expect(watch.intervalMs).toBeLessThanOrEqual(1100);

    for (let i = 0; i < 20; i++) {
      const seen = await waitOneClose(ledger, watch);
      expect(seen.tip).toBe(ledger.tip());
      // After the close, before a twentieth of the interval had passed (one step), well before the next.
      expect(seen.answeredAt).toBeGreaterThanOrEqual(seen.closedAt);
      expect(seen.answeredAt - seen.closedAt).toBeLessThanOrEqual(110);
      // One read when the wait begins, then from a step before the predicted close, a step apart.
      expect(seen.reads).toBeLessThanOrEqual(5);
    }
  });

  it('follows a network whose closes come 5 to 6 s apart: answers within a step of each, a handful of reads per close', async () => {
    // Stellar's closes drift: 5 s apart at best, up to a second later.
    const ledger = new SimulatedLedger(everyInterval(2_000, 5_000, 30, (i) => (i * 370) % 1000));
    const watch = ledger.watch();
    // Learning takes longer: a prediction found late is read earlier the next time, until it is not.
    for (let i = 0; i < 8; i++) await waitOneClose(ledger, watch);

    for (let i = 0; i < 15; i++) {
      const seen = await waitOneClose(ledger, watch);
      expect(seen.answeredAt).toBeGreaterThanOrEqual(seen.closedAt);
      expect(seen.answeredAt - seen.closedAt).toBeLessThanOrEqual(250);
      // A drift of up to a second past the prediction costs reads a step (250 ms) apart: at most ~6.
      expect(seen.reads).toBeLessThanOrEqual(8);
    }
  });

  it('finds the next close after idle ticks were skipped (a sandbox closes only with something queued)', async () => {
    // A 1 s grid; only some ticks close a ledger.
    const ticks = [1000, 2000, 3000, 4000, 9000, 10_000, 17_000, 18_000, 19_000];
    const ledger = new SimulatedLedger(ticks);
    const watch = ledger.watch();
    for (let i = 0; i < 4; i++) await waitOneClose(ledger, watch);
    for (let i = 0; i < 5; i++) {
      const seen = await waitOneClose(ledger, watch);
      expect(seen.answeredAt).toBeGreaterThanOrEqual(seen.closedAt);
      expect(seen.answeredAt - seen.closedAt).toBeLessThanOrEqual(60);
    }
    // The shortest gap is the interval; the idle ones were not taken for it.
    expect(watch.intervalMs).toBeLessThanOrEqual(1100);
  });

  it('tells every waiter whose ledger closed at once, from one read, and waiters for later ledgers only after theirs', async () => {
    const ledger = new SimulatedLedger(everyInterval(500, 1000, 10));
    const watch = ledger.watch();
    const order: string[] = [];
    const first = Array.from({ length: 50 }, (_, i) => watch.closedAfter(1, Infinity).then((tip) => order.push(`a${i}:${tip}`)));
    const later = watch.closedAfter(2, Infinity).then((tip) => order.push(`b:${tip}`));
    await Promise.all([...first, later]);
    expect(order.slice(0, 50).every((o) => o.startsWith('a') && o.endsWith(':2'))).toBe(true);
    expect(order[50]).toBe('b:3');
  });

  it('answers a sequence already passed at once, without reading', async () => {
    const ledger = new SimulatedLedger(everyInterval(500, 1000, 10));
    const watch = ledger.watch();
    watch.observe(7);
    await expect(watch.closedAfter(6, Infinity)).resolves.toBe(7);
    expect(ledger.reads).toBe(0);
  });

  it('answers undefined at the deadline when no ledger closes, and keeps reading through failed reads', async () => {
    const ledger = new SimulatedLedger([]);
    const watch = ledger.watch();
    await expect(watch.closedAfter(1, 2_000)).resolves.toBeUndefined();
    expect(ledger.now).toBeGreaterThanOrEqual(2_000);

    const later = new SimulatedLedger(everyInterval(3_000, 1000, 5));
    const flaky = later.watch();
    later.failing = true;
    const waiting = flaky.closedAfter(1, Infinity);
    while (later.now < 3_500) await Promise.resolve();
    later.failing = false;
    await expect(waiting).resolves.toBe(2);
  });

  it('offers the tip an answer reported as recent only within a quarter of a close, once the pace is known, and never an older one', async () => {
    const ledger = new SimulatedLedger(everyInterval(500, 1000, 10));
    const watch = ledger.watch();
    watch.observe(ledger.tip());
    // The pace is not known yet (instant ledgers stay so): the caller must read the tip itself.
    expect(watch.recentTip()).toBeUndefined();
    await waitOneClose(ledger, watch);
    await waitOneClose(ledger, watch);
    await waitOneClose(ledger, watch);
    expect(watch.intervalMs).toBe(1000);

    const tip = ledger.tip();
    watch.observe(tip);
    expect(watch.recentTip()).toBe(tip);
    // An instance behind the others reports an older ledger: it neither lowers the tip nor makes it recent.
    ledger.now += 200;
    watch.observe(tip - 1);
    expect(watch.recentTip()).toBe(tip);
    ledger.now += 51;
    expect(watch.recentTip()).toBeUndefined();
    watch.observe(tip - 1);
    expect(watch.recentTip()).toBeUndefined();
    // A failed getTransaction reports nothing (0): not a sighting either.
    watch.observe(0);
    expect(watch.recentTip()).toBeUndefined();
    watch.observe(tip);
    expect(watch.recentTip()).toBe(tip);
  });

  it('predicts the next close on the grid of the closes it saw, and none before the pace is known or once its last close is old', async () => {
    const ledger = new SimulatedLedger(everyInterval(500, 1000, 20));
    const watch = ledger.watch();
    expect(watch.nextClose()).toBeUndefined();
    await waitOneClose(ledger, watch);
    await waitOneClose(ledger, watch);
    await waitOneClose(ledger, watch);
    const lastClose = ledger.closedAt(ledger.tip());
    // Just after a close, the next is a whole interval after it; later in the period, still that one.
    expect(watch.nextClose()).toEqual({ at: lastClose + 1000, intervalMs: 1000 });
    ledger.now = lastClose + 700;
    expect(watch.nextClose()).toEqual({ at: lastClose + 1000, intervalMs: 1000 });
    // Unread closes since (nobody waited): the grid goes on for three intervals, then says nothing.
    ledger.now = lastClose + 2_500;
    expect(watch.nextClose()).toEqual({ at: lastClose + 3000, intervalMs: 1000 });
    ledger.now = lastClose + 3_001;
    expect(watch.nextClose()).toBeUndefined();
  });
});
