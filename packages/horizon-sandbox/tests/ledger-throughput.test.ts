import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import { buildFrom, fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';
import { handedIn, manualLedgerCloses } from './test-clocks';

// The service activates accounts in bursts; the sandbox must take hundreds of submissions in one
// ledger and 100-operation batches without slowing to a crawl.

describe('throughput', () => {
  let harness: SandboxHarness;
  // The ledger closes when the test says: all 300 requests are in before it does, however long a
  // busy machine takes to send them (a 4 s window was this test's bet before).
  const { closeLedger, closing } = manualLedgerCloses(4000);

  beforeAll(async () => {
    harness = await startSandbox({ ledgerCloseMs: 4000 });
  });

  afterAll(() => harness.close());

  it('closes one ledger holding 300 concurrent submissions, each answered', async () => {
    const keypairs = Array.from({ length: 300 }, () => Keypair.random());
    const requestsBefore = harness.requestsIn();

    const answers = keypairs.map(async (keypair) => {
      const response = await fetch(`${harness.url}/friendbot?addr=${keypair.publicKey()}`);
      return { status: response.status, body: (await response.json()) as { ledger: number } };
    });
    await handedIn(harness, requestsBefore + keypairs.length);
    closeLedger();
    const responses = await Promise.all(answers);

    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(new Set(responses.map((response) => response.body.ledger)).size).toBe(1);
    const ledger = await harness.horizon.ledgers().ledger(responses[0]?.body.ledger ?? 0).call();
    expect(ledger).toMatchObject({ successful_transaction_count: 300 });
  });

  it('applies 300 two-operation activations packed into 100-operation transactions', async () => {
    const funder = await closing(fundedAccount(harness));
    const account = await harness.horizon.loadAccount(funder.publicKey());
    const newcomers = Array.from({ length: 300 }, () => Keypair.random());
    // An envelope carries at most 20 signatures, so a 100-operation batch keeps one signer: the funder
    // creates each account and tops it up.
    const batches = [];
    for (let start = 0; start < newcomers.length; start += 50) {
      const operations = newcomers.slice(start, start + 50).flatMap((keypair) => [
        Operation.createAccount({ destination: keypair.publicKey(), startingBalance: '2.5' }),
        Operation.payment({ destination: keypair.publicKey(), asset: Asset.native(), amount: '0.5' }),
      ]);
      batches.push(buildFrom(account, operations, harness.passphrase, {}, [funder]));
    }

    // consecutive sequences from one account all land in the same ledger, in arrival order
    const requestsBefore = harness.requestsIn();
    const results = [];
    for (const batch of batches) results.push(harness.horizon.submitTransaction(batch, { skipMemoRequiredCheck: true }));
    await handedIn(harness, requestsBefore + batches.length);
    closeLedger();
    const responses = await Promise.all(results);

    expect(responses.every((response) => response.successful)).toBe(true);
    expect(new Set(responses.map((response) => response.ledger)).size).toBe(1);
    const sample = await harness.horizon.loadAccount(newcomers[299]?.publicKey() ?? '');
    expect(sample.balances[0]?.balance).toBe('3.0000000');
  });
});
