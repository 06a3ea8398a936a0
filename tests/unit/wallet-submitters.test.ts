import { WalletSubmitters } from '../../src/ledger/wallet-submitters';

class FakeSubmitter {
  constructor(
    readonly name: string,
    public idle = true,
  ) {}
}

function registry(limit: number) {
  const built: string[] = [];
  const submitters = new WalletSubmitters<FakeSubmitter>(limit);
  const get = (key: string) =>
    submitters.get(key, () => {
      built.push(key);
      return new FakeSubmitter(key);
    });
  return { submitters, built, get };
}

/** The end of the current turn: submitters are let go only then. */
const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('WalletSubmitters', () => {
  it('builds one submitter per wallet and hands the same one back while it is kept', async () => {
    const { built, get } = registry(3);
    const a = get('A');
    expect(get('A')).toBe(a);
    get('B');
    await endOfTurn();
    expect(get('A')).toBe(a);
    expect(built).toEqual(['A', 'B']);
  });

  it('keeps at most the limit, letting go of the least recently used idle one first', async () => {
    const { submitters, built, get } = registry(2);
    get('A');
    get('B');
    await endOfTurn();
    get('A'); // A is now the most recently used
    get('C'); // B goes, at the end of the turn
    await endOfTurn();
    expect(submitters.size).toBe(2);
    expect(submitters.peek('B')).toBeUndefined();
    expect(submitters.peek('A')).toBeDefined();
    get('B'); // built again
    expect(built).toEqual(['A', 'B', 'C', 'B']);
  });

  it('never lets go of a busy submitter, even over the limit: a second one for the wallet would race it', async () => {
    const { submitters, get } = registry(2);
    const a = get('A');
    const b = get('B');
    a.idle = false;
    b.idle = false;
    get('C');
    await endOfTurn();
    expect(submitters.size).toBe(2); // C (idle) went; the busy two stay
    expect(get('A')).toBe(a);
    expect(get('B')).toBe(b);
    // Once A is idle again and is the least recently used, a new wallet takes its place.
    a.idle = true;
    get('B');
    get('D');
    await endOfTurn();
    expect(submitters.peek('A')).toBeUndefined();
    expect(submitters.peek('B')).toBe(b);
  });

  it('does not let go of a submitter handed out in this turn before it is given its job', async () => {
    // The journal gets a wallet's submitter, then submits to it a few microtasks later; another
    // wallet's request in between must not drop it meanwhile (it would be idle at that moment).
    const { submitters, get } = registry(1);
    const a = get('A');
    const b = get('B');
    await Promise.resolve();
    a.idle = false; // A's job queued, still in this turn
    b.idle = false;
    await endOfTurn();
    expect(submitters.peek('A')).toBe(a);
    expect(submitters.peek('B')).toBe(b);
  });

  it('does not mark a wallet used when only looking', async () => {
    const { submitters, get } = registry(2);
    get('A');
    get('B');
    submitters.peek('A');
    get('C');
    await endOfTurn();
    expect(submitters.peek('A')).toBeUndefined();
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new WalletSubmitters(0)).toThrow(/positive integer/);
    expect(() => new WalletSubmitters(1.5)).toThrow(/positive integer/);
  });
});
