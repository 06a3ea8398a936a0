import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Asset, AuthImmutableFlag, Keypair, Operation } from '@stellar/stellar-sdk';
import {
  BASE_RESERVE,
  decodedResult,
  expectOperationCode,
  expectRefused,
  nativeStroops,
  operationResultName,
  spendableStroops,
  sponsored,
  sponsoredAccount,
  trustlineOf,
} from './reserve-helpers';
import {
  buildTransaction,
  fundedAccount,
  startSandbox,
  submitExpectingFailure,
  type LedgerClient,
  type SandboxHarness,
} from './sandbox-harness';
import { passWallClock, stoppedWallClock } from './test-clocks';

// account_merge as stellar-core applies it (MergeOpFrame, protocol >= 16): one real signed envelope per
// result code, checked in Horizon's result_codes and in the result_xdr the SDK decodes; then what a
// merge leaves behind: the balance moved to the stroop, reserves back with their sponsors, a 404, a
// payments record, and all of it across a restart.

const merge = (into: Keypair | string, source?: Keypair) =>
  Operation.accountMerge({
    destination: typeof into === 'string' ? into : into.publicKey(),
    ...(source ? { source: source.publicKey() } : {}),
  });

async function accountStatus(client: LedgerClient, account: Keypair): Promise<number> {
  return (await fetch(`${client.url}/accounts/${account.publicKey()}`)).status;
}

describe('account_merge result codes', () => {
  let harness: SandboxHarness;
  let destination: Keypair;
  let issuer: Keypair;

  beforeAll(async () => {
    harness = await startSandbox();
    [destination, issuer] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
  });

  afterAll(() => harness.close());

  const mergeOf = async (leaver: Keypair, into: Keypair | string = destination) =>
    submitExpectingFailure(harness, await buildTransaction(harness, leaver, [merge(into)]));

  it('rejects a merge into itself with op_malformed, before the ledger', async () => {
    const leaver = await fundedAccount(harness);
    expectOperationCode(await mergeOf(leaver, leaver), ['op_malformed'], 'accountMergeMalformed');
    expect(await accountStatus(harness, leaver)).toBe(200);
  });

  it('reports op_no_account for a destination that does not exist', async () => {
    const leaver = await fundedAccount(harness);
    expectOperationCode(await mergeOf(leaver, Keypair.random().publicKey()), ['op_no_account'], 'accountMergeNoAccount');
  });

  it('reports op_immutable_set for an account whose issuing rules are frozen', async () => {
    const leaver = await fundedAccount(harness);
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, leaver, [Operation.setOptions({ setFlags: AuthImmutableFlag })]),
    );
    expectOperationCode(await mergeOf(leaver), ['op_immutable_set'], 'accountMergeImmutableSet');
  });

  it('reports op_has_sub_entries for an account that still holds a trustline', async () => {
    const leaver = await fundedAccount(harness);
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, leaver, [Operation.changeTrust({ asset: new Asset('SUB', issuer.publicKey()) })]),
    );
    expectOperationCode(await mergeOf(leaver), ['op_has_sub_entries'], 'accountMergeHasSubEntries');
  });

  it('reports op_seqnum_too_far for an account created in the same ledger', async () => {
    // its sequence starts at (this ledger << 32): merged and recreated, it would go backwards
    const funder = await fundedAccount(harness);
    const newcomer = Keypair.random();
    const tx = await buildTransaction(
      harness,
      funder,
      [Operation.createAccount({ destination: newcomer.publicKey(), startingBalance: '5' }), merge(funder, newcomer)],
      { signers: [funder, newcomer] },
    );
    await expectRefused(harness, tx, ['op_success', 'op_seqnum_too_far'], 'accountMergeSeqnumTooFar');
  });

  it('reports op_is_sponsor for an account paying reserves of another', async () => {
    const sponsor = await fundedAccount(harness);
    await sponsoredAccount(harness, sponsor);
    expectOperationCode(await mergeOf(sponsor), ['op_is_sponsor'], 'accountMergeIsSponsor');
  });

  it('reports op_is_sponsor for an account that began sponsoring in the same transaction', async () => {
    const leaver = await fundedAccount(harness);
    const tx = await buildTransaction(harness, leaver, [
      Operation.beginSponsoringFutureReserves({ sponsoredId: Keypair.random().publicKey() }),
      merge(destination),
    ]);
    await expectRefused(harness, tx, ['op_success', 'op_is_sponsor'], 'accountMergeIsSponsor');
  });

  it('needs the high threshold: a signature worth only the medium one gets op_bad_auth', async () => {
    const leaver = await fundedAccount(harness);
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, leaver, [Operation.setOptions({ lowThreshold: 1, medThreshold: 1, highThreshold: 2 })]),
    );
    const failure = await mergeOf(leaver);
    expect(failure.data.extras.result_codes).toEqual({ transaction: 'tx_failed', operations: ['op_bad_auth'] });
    expect(decodedResult(failure.data.extras.result_xdr).result().results()[0]?.switch().name).toBe('opBadAuth');
  });
});

describe('a successful merge', () => {
  let harness: SandboxHarness;

  beforeAll(async () => {
    harness = await startSandbox();
  });

  afterEach(() => harness.faults.clear());

  afterAll(() => harness.close());

  it('moves every stroop to the destination, gives the sponsor its two reserves back and deletes the account', async () => {
    const [sponsor, destination, friend] = await Promise.all([
      fundedAccount(harness),
      fundedAccount(harness),
      fundedAccount(harness),
    ]);
    const leaver = await sponsoredAccount(harness, sponsor);
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, friend, [
        Operation.payment({ destination: leaver.publicKey(), asset: Asset.native(), amount: '20' }),
      ]),
    );
    const [sponsorBefore, destinationBefore] = await Promise.all([
      harness.horizon.loadAccount(sponsor.publicKey()),
      harness.horizon.loadAccount(destination.publicKey()),
    ]);
    expect(sponsorBefore.num_sponsoring).toBe(2);

    const merged = await harness.horizon.submitTransaction(await buildTransaction(harness, leaver, [merge(destination)]));
    // 20 XLM less the merge's own 100-stroop fee
    const moved = 200_000_000n - 100n;
    expect(operationResultName(merged.result_xdr, 0)).toBe('accountMergeSuccess');
    const result = decodedResult(merged.result_xdr).result().results()[0]?.tr().accountMergeResult();
    expect(result?.sourceAccountBalance().toString()).toBe(moved.toString());

    const destinationAfter = await harness.horizon.loadAccount(destination.publicKey());
    expect(nativeStroops(destinationAfter)).toBe(nativeStroops(destinationBefore) + moved);
    const sponsorAfter = await harness.horizon.loadAccount(sponsor.publicKey());
    expect(sponsorAfter.num_sponsoring).toBe(sponsorBefore.num_sponsoring - 2);
    expect(nativeStroops(sponsorAfter)).toBe(nativeStroops(sponsorBefore));
    expect(spendableStroops(sponsorAfter) - spendableStroops(sponsorBefore)).toBe(10_000_000n);
    expect(await accountStatus(harness, leaver)).toBe(404);
  });

  it('lists the merge under /payments of both accounts as an account_merge record', async () => {
    const [leaver, destination] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const merged = await harness.horizon.submitTransaction(await buildTransaction(harness, leaver, [merge(destination)]));

    for (const account of [leaver, destination]) {
      const page = await harness.horizon.payments().forAccount(account.publicKey()).order('desc').limit(1).call();
      expect(page.records[0]).toMatchObject({
        type: 'account_merge',
        type_i: 8,
        account: leaver.publicKey(),
        into: destination.publicKey(),
        source_account: leaver.publicKey(),
        transaction_hash: merged.hash,
      });
    }
  });

  it('removes signers with the account and gives a sponsored signer\'s reserve back to its sponsor', async () => {
    const [sponsor, leaver, destination] = await Promise.all([
      fundedAccount(harness),
      fundedAccount(harness),
      fundedAccount(harness),
    ]);
    const cosigner = Keypair.random().publicKey();
    await harness.horizon.submitTransaction(
      await buildTransaction(
        harness,
        sponsor,
        sponsored(sponsor.publicKey(), leaver.publicKey(), [
          Operation.setOptions({ signer: { ed25519PublicKey: cosigner, weight: 1 }, source: leaver.publicKey() }),
        ]),
        { signers: [sponsor, leaver] },
      ),
    );
    const sponsorBefore = await harness.horizon.loadAccount(sponsor.publicKey());
    expect(sponsorBefore.num_sponsoring).toBe(1);

    await harness.horizon.submitTransaction(await buildTransaction(harness, leaver, [merge(destination)]));
    const sponsorAfter = await harness.horizon.loadAccount(sponsor.publicKey());
    expect(sponsorAfter.num_sponsoring).toBe(0);
    expect(spendableStroops(sponsorAfter) - spendableStroops(sponsorBefore)).toBe(BASE_RESERVE);
    expect(await accountStatus(harness, leaver)).toBe(404);
  });
});

describe('a merge the read side has not ingested', () => {
  let harness: SandboxHarness;
  // The wall clock stands still until the test moves it: the lag passes then, not while a busy
  // machine is slow to read.
  stoppedWallClock();

  beforeAll(async () => {
    harness = await startSandbox();
  });

  afterAll(() => harness.close());

  it('keeps showing the merged account until the read side has ingested the merge', async () => {
    const LAG_MS = 1500;
    const [leaver, destination] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const tx = await buildTransaction(harness, leaver, [merge(destination)]);
    harness.faults.set({ mode: 'lag', lagMs: LAG_MS });

    await harness.horizon.submitTransaction(tx);
    expect(await accountStatus(harness, leaver)).toBe(200);

    passWallClock(LAG_MS);
    expect(await accountStatus(harness, leaver)).toBe(404);
  });
});

describe('merges and sponsorships on disk', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sandbox-merge-'));
  });

  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  type StateFile = { accounts: Array<Record<string, unknown> & { id: string; balance: string }> };
  async function editStateFile(edit: (file: StateFile) => void): Promise<void> {
    const file = path.join(dataDir, 'ledger-state.json');
    const state = JSON.parse(await readFile(file, 'utf8')) as StateFile;
    edit(state);
    await writeFile(file, JSON.stringify(state));
  }

  it('keeps sponsorship counts, sponsors and a merged account\'s absence across a restart', async () => {
    const first = await startSandbox({ dataDir });
    const [sponsor, issuer, destination, leaver] = await Promise.all([
      fundedAccount(first),
      fundedAccount(first),
      fundedAccount(first),
      fundedAccount(first),
    ]);
    const holder = await sponsoredAccount(first, sponsor);
    await first.horizon.submitTransaction(
      await buildTransaction(
        first,
        sponsor,
        sponsored(sponsor.publicKey(), holder.publicKey(), [
          Operation.changeTrust({ asset: new Asset('DSK', issuer.publicKey()), source: holder.publicKey() }),
        ]),
        { signers: [sponsor, holder] },
      ),
    );
    await first.horizon.submitTransaction(await buildTransaction(first, leaver, [merge(destination)]));
    const [holderBefore, sponsorBefore] = await Promise.all([
      first.horizon.loadAccount(holder.publicKey()),
      first.horizon.loadAccount(sponsor.publicKey()),
    ]);
    await first.close();

    const second = await startSandbox({ dataDir });
    try {
      const holderAfter = await second.horizon.loadAccount(holder.publicKey());
      expect(holderAfter).toMatchObject({ num_sponsored: 3, num_sponsoring: 0, sponsor: sponsor.publicKey() });
      expect(trustlineOf(holderAfter, 'DSK', issuer.publicKey())?.sponsor).toBe(sponsor.publicKey());
      expect(holderAfter.balances).toEqual(holderBefore.balances);
      expect((await second.horizon.loadAccount(sponsor.publicKey())).num_sponsoring).toBe(sponsorBefore.num_sponsoring);
      expect(await accountStatus(second, leaver)).toBe(404);
      const page = await second.horizon.payments().forAccount(leaver.publicKey()).order('desc').limit(1).call();
      expect(page.records[0]).toMatchObject({ type: 'account_merge', into: destination.publicKey() });
    } finally {
      await second.close();
    }
  });

  it('reads a state file written before sponsorship as accounts sponsoring and sponsored by nobody', async () => {
    const first = await startSandbox({ dataDir });
    const [payer, payee] = await Promise.all([fundedAccount(first), fundedAccount(first)]);
    await first.close();
    await editStateFile((state) => {
      for (const account of state.accounts) {
        delete account.numSponsoring;
        delete account.numSponsored;
      }
    });

    const second = await startSandbox({ dataDir });
    try {
      const loaded = await second.horizon.loadAccount(payer.publicKey());
      expect(loaded).toMatchObject({ num_sponsoring: 0, num_sponsored: 0 });
      expect(loaded.sponsor).toBeUndefined();
      // the minimum balance still works out: everything above two reserves less the fee can go
      const all = spendableStroops(loaded) - 100n;
      const whole = `${all / 10_000_000n}.${(all % 10_000_000n).toString().padStart(7, '0')}`;
      const payAll = Operation.payment({ destination: payee.publicKey(), asset: Asset.native(), amount: whole });
      await second.horizon.submitTransaction(await buildTransaction(second, payer, [payAll]));
      expect(nativeStroops(await second.horizon.loadAccount(payer.publicKey()))).toBe(2n * BASE_RESERVE);
    } finally {
      await second.close();
    }
  });

  it('reports op_dest_full when the destination cannot hold the merged balance', async () => {
    // No real account can get near int64 stroops (all lumens are 10^18), so the destination's
    // balance is set in the state file between two runs; the merge itself is a real signed envelope.
    const first = await startSandbox({ dataDir });
    const [leaver, destination] = await Promise.all([fundedAccount(first), fundedAccount(first)]);
    await first.close();
    const nearlyFull = 2n ** 63n - 1n - 10_000_000n;
    await editStateFile((state) => {
      const account = state.accounts.find((candidate) => candidate.id === destination.publicKey());
      if (!account) throw new Error('destination missing from the state file');
      account.balance = nearlyFull.toString();
    });

    const second = await startSandbox({ dataDir });
    try {
      const tx = await buildTransaction(second, leaver, [merge(destination)]);
      expectOperationCode(await submitExpectingFailure(second, tx), ['op_dest_full'], 'accountMergeDestFull');
      expect(nativeStroops(await second.horizon.loadAccount(destination.publicKey()))).toBe(nearlyFull);
      expect(await accountStatus(second, leaver)).toBe(200);
    } finally {
      await second.close();
    }
  });
});
