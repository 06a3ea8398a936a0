import { CachedReading } from '../../src/ledger/cached-reading';

describe('a cached ledger reading', () => {
  it('answers with the last reading while a fresh one hangs, and with the fresh one once it comes', async () => {
    let release: (value: number) => void = () => undefined;
    let loads = 0;
    const reading = new CachedReading<number>(
      () => {
        loads += 1;
        return loads === 1 ? Promise.resolve(1) : new Promise<number>((resolve) => (release = resolve));
      },
      0,
      20,
    );

    expect(await reading.read()).toBe(1);
    expect(await reading.read()).toBe(1); // the second load hangs: the caller gets the last reading
    release(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await reading.read()).toBe(2);
  });

  it('answers undefined, never a rejection, when the ledger cannot be read', async () => {
    const reading = new CachedReading<number>(() => Promise.reject(new Error('ledger down')), 60_000);
    await expect(reading.read()).resolves.toBeUndefined();
  });
});
