import { setTimeout as sleep } from 'node:timers/promises';
import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import { balancesOf, buildFrom, buildTransaction, fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';

const CLOSE_MS = 300;

describe('with a ledger closing every 300 ms', () => {
  let harness: SandboxHarness;

  beforeAll(async () => {
    harness = await startSandbox({ ledgerCloseMs: CLOSE_MS });
  });

  afterAll(() => harness.close());

  // Funding resolves right after a ledger closes, so what is submitted next falls in a fresh window.
  const startOfWindow = () => fundedAccount(harness);

  it('answers only when the ledger closes, and puts submissions of one window in the same ledger', async () => {
    const [alice, bob, carol] = await Promise.all([fundedAccount(harness), fundedAccount(harness), fundedAccount(harness)]);
    const fromAlice = await buildTransaction(harness, alice, [
      Operation.payment({ destination: carol.publicKey(), asset: Asset.native(), amount: '1' }),
    ]);
    const fromBob = await buildTransaction(harness, bob, [
      Operation.payment({ destination: carol.publicKey(), asset: Asset.native(), amount: '2' }),
    ]);
    await startOfWindow();

    const started = Date.now();
    const pending = [harness.horizon.submitTransaction(fromAlice), harness.horizon.submitTransaction(fromBob)];
    await sleep(50);
    // nothing is applied before the ledger closes
    expect(await balancesOf(harness, carol.publicKey())).toEqual({ native: '10000.0000000' });
    const [first, second] = await Promise.all(pending);

    expect(Date.now() - started).toBeGreaterThanOrEqual(CLOSE_MS / 2);
    expect(first?.ledger).toBe(second?.ledger);
    expect(await balancesOf(harness, carol.publicKey())).toEqual({ native: '10003.0000000' });
  });

  it('applies two consecutive transactions of one account in the same ledger, in arrival order', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const account = await harness.horizon.loadAccount(payer.publicKey());
    const pay = (amount: string) => Operation.payment({ destination: payee.publicKey(), asset: Asset.native(), amount });
    const first = buildFrom(account, [pay('1')], harness.passphrase, {}, [payer]);
    const second = buildFrom(account, [pay('2')], harness.passphrase, {}, [payer]);
    expect(BigInt(second.sequence)).toBe(BigInt(first.sequence) + 1n);
    await startOfWindow();

    const firstResponse = harness.horizon.submitTransaction(first);
    await sleep(30);
    const secondResponse = harness.horizon.submitTransaction(second);
    const [a, b] = await Promise.all([firstResponse, secondResponse]);

    expect(a.successful && b.successful).toBe(true);
    expect(a.ledger).toBe(b.ledger);
    expect((await harness.horizon.loadAccount(payer.publicKey())).sequence).toBe(second.sequence);
  });

  it('answers a malformed envelope at once, without waiting for a ledger', async () => {
    await startOfWindow();
    const started = Date.now();
    const response = await fetch(`${harness.url}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'tx=AAAA',
    });
    expect(response.status).toBe(400);
    expect(Date.now() - started).toBeLessThan(CLOSE_MS / 2);
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
  it('closes an empty ledger when none closed for idleCloseMs, so time passes on the ledger as on Stellar', async () => {
    const harness = await startSandbox({ idleCloseMs: 400 });
    try {
      await fundedAccount(harness);
      const before = await harness.horizon.ledgers().order('desc').limit(1).call();
      const first = before.records[0]!;

      await sleep(1300);

      const after = await harness.horizon.ledgers().order('desc').limit(1).call();
      const latest = after.records[0]!;
      expect(latest.sequence).toBeGreaterThan(first.sequence);
      expect(latest.successful_transaction_count).toBe(0);
      expect(Date.parse(latest.closed_at)).toBeGreaterThan(Date.parse(first.closed_at));
    } finally {
      await harness.close();
    }
  });

  it('closes none with idleCloseMs 0', async () => {
    const harness = await startSandbox({ idleCloseMs: 0 });
    try {
      await fundedAccount(harness);
      const before = (await harness.horizon.ledgers().order('desc').limit(1).call()).records[0]!;
      await sleep(600);
      const after = (await harness.horizon.ledgers().order('desc').limit(1).call()).records[0]!;
      expect(after.sequence).toBe(before.sequence);
    } finally {
      await harness.close();
    }
  });
});
