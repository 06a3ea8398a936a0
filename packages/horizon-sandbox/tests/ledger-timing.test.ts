import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import { until } from './fault-helpers';
import { balancesOf, buildFrom, buildTransaction, fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';
import { accountWaitsInQueue, chainedWaitsInQueue, manualLedgerCloses } from './test-clocks';

const CLOSE_MS = 300;

describe('with a ledger closing every 300 ms', () => {
  let harness: SandboxHarness;
  // The ledger timer ticks when the test says: what a test sends before a tick is one window,
  // however slowly a busy machine sends it.
  const { closeLedger, closing } = manualLedgerCloses(CLOSE_MS);

  beforeAll(async () => {
    harness = await startSandbox({ ledgerCloseMs: CLOSE_MS });
  });

  afterAll(() => harness.close());

  const funded = () => closing(fundedAccount(harness));

  it('answers only when the ledger closes, and puts submissions of one window in the same ledger', async () => {
    const [alice, bob, carol] = await Promise.all([funded(), funded(), funded()]);
    const fromAlice = await buildTransaction(harness, alice, [
      Operation.payment({ destination: carol.publicKey(), asset: Asset.native(), amount: '1' }),
    ]);
    const fromBob = await buildTransaction(harness, bob, [
      Operation.payment({ destination: carol.publicKey(), asset: Asset.native(), amount: '2' }),
    ]);

    let answered = 0;
    const pending = [harness.horizon.submitTransaction(fromAlice), harness.horizon.submitTransaction(fromBob)].map((submission) =>
      submission.finally(() => answered++),
    );
    await accountWaitsInQueue(harness, fromAlice);
    await accountWaitsInQueue(harness, fromBob);
    // both wait for the ledger: nothing answered, nothing applied
    expect(answered).toBe(0);
    expect(await balancesOf(harness, carol.publicKey())).toEqual({ native: '10000.0000000' });

    closeLedger();
    const [first, second] = await Promise.all(pending);

    expect(first?.ledger).toBe(second?.ledger);
    expect(await balancesOf(harness, carol.publicKey())).toEqual({ native: '10003.0000000' });
  });

  it('applies two consecutive transactions of one account in the same ledger, in arrival order', async () => {
    const [payer, payee] = await Promise.all([funded(), funded()]);
    const account = await harness.horizon.loadAccount(payer.publicKey());
    const pay = (amount: string) => Operation.payment({ destination: payee.publicKey(), asset: Asset.native(), amount });
    const first = buildFrom(account, [pay('1')], harness.passphrase, {}, [payer]);
    const second = buildFrom(account, [pay('2')], harness.passphrase, {}, [payer]);
    expect(BigInt(second.sequence)).toBe(BigInt(first.sequence) + 1n);

    const firstResponse = harness.horizon.submitTransaction(first);
    await accountWaitsInQueue(harness, first);
    const secondResponse = harness.horizon.submitTransaction(second);
    await chainedWaitsInQueue(harness, second);
    closeLedger();
    const [a, b] = await Promise.all([firstResponse, secondResponse]);

    expect(a.successful && b.successful).toBe(true);
    expect(a.ledger).toBe(b.ledger);
    expect((await harness.horizon.loadAccount(payer.publicKey())).sequence).toBe(second.sequence);
  });

  it('answers a malformed envelope at once, without waiting for a ledger', async () => {
    // no ledger closes here unless the test closes one: the answer cannot have waited for it
    const response = await fetch(`${harness.url}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'tx=AAAA',
    });
    expect(response.status).toBe(400);
  });
});

describe('with ledgers closing on submission (ledgerCloseMs 0)', () => {
  let harness: SandboxHarness;

  beforeAll(async () => {
    harness = await startSandbox();
  });

  afterAll(() => harness.close());

  it('gives each transaction its own ledger, and none to a rejected one', async () => {
    const payer = await fundedAccount(harness);
    const payee = Keypair.random();
    const create = await buildTransaction(harness, payer, [
      Operation.createAccount({ destination: payee.publicKey(), startingBalance: '5' }),
    ]);
    const first = await harness.horizon.submitTransaction(create);
    const stale = await buildTransaction(harness, payer, [Operation.setOptions({ homeDomain: 'a.example' })], {
      sequence: (BigInt(create.sequence) - 1n).toString(),
    });
    await expect(harness.horizon.submitTransaction(stale)).rejects.toMatchObject({ response: { status: 400 } });
    const second = await harness.horizon.submitTransaction(
      await buildTransaction(harness, payer, [Operation.setOptions({ homeDomain: 'b.example' })]),
    );
    expect(second.ledger).toBe(first.ledger + 1);
  });
});

describe('an idle network', () => {
  const latestLedger = async (harness: SandboxHarness) => (await harness.horizon.ledgers().order('desc').limit(1).call()).records[0]!;

  it('closes an empty ledger when none closed for idleCloseMs, so time passes on the ledger as on Stellar', async () => {
    const harness = await startSandbox({ idleCloseMs: 400 });
    try {
      await fundedAccount(harness);
      const first = await latestLedger(harness);

      // close times count whole seconds: idle ledgers go on closing until one shows a later one
      const latest = await until(async () => {
        const newest = await latestLedger(harness);
        return Date.parse(newest.closed_at) > Date.parse(first.closed_at) ? newest : undefined;
      }, 'an idle ledger with a later close time');

      expect(latest.sequence).toBeGreaterThan(first.sequence);
      expect(latest.successful_transaction_count).toBe(0);
    } finally {
      await harness.close();
    }
  });

  it('closes none with idleCloseMs 0, while a sandbox beside it closes an idle one', async () => {
    const [quiet, idling] = await Promise.all([startSandbox({ idleCloseMs: 0 }), startSandbox({ idleCloseMs: 400 })]);
    try {
      await Promise.all([fundedAccount(quiet), fundedAccount(idling)]);
      const [quietBefore, idlingBefore] = await Promise.all([latestLedger(quiet), latestLedger(idling)]);

      // the same stretch of time for both, however long a busy machine makes it
      await until(async () => ((await latestLedger(idling)).sequence > idlingBefore.sequence ? true : undefined), 'the idling sandbox to close a ledger');

      expect((await latestLedger(quiet)).sequence).toBe(quietBefore.sequence);
    } finally {
      await Promise.all([quiet.close(), idling.close()]);
    }
  });
});
