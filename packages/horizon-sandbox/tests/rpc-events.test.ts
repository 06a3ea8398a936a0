import {
  Account,
  Address,
  Asset,
  Keypair,
  Memo,
  MuxedAccount,
  Operation,
  TransactionBuilder,
  rpc,
  scValToNative,
  xdr,
} from '@stellar/stellar-sdk';
import { buildTransaction, fundedAccount, startSandbox, submitExpectingFailure, type SandboxHarness } from './sandbox-harness';

const symbol = (name: string) => xdr.ScVal.scvSymbol(name).toXDR('base64');
const addressTopic = (account: Keypair) => new Address(account.publicKey()).toScVal().toXDR('base64');

/** An event as plain values: symbols and strings as strings, addresses as G..., i128 as bigint. */
function plain(event: rpc.Api.EventResponse) {
  const native = (value: xdr.ScVal): unknown =>
    value.switch().name === 'scvAddress' ? Address.fromScVal(value).toString() : scValToNative(value);
  return { contractId: event.contractId?.contractId(), topic: event.topic.map(native), value: native(event.value) };
}

/** The events of one transaction, read from its own ledger. */
async function eventsOfTransaction(harness: SandboxHarness, hash: string): Promise<rpc.Api.EventResponse[]> {
  const { ledger_attr: ledger } = await harness.horizon.transactions().transaction(hash).call();
  const { events } = await harness.rpc.getEvents({ startLedger: ledger, endLedger: ledger + 1, filters: [] });
  return events.filter((event) => event.txHash === hash);
}

/** Signs and submits through Horizon (a ledger closes for it); the transaction's hash. */
async function submit(harness: SandboxHarness, source: Keypair, operations: xdr.Operation[], memo?: Memo): Promise<string> {
  const builder = new TransactionBuilder(await harness.horizon.loadAccount(source.publicKey()), {
    fee: '100',
    networkPassphrase: harness.passphrase,
  });
  for (const operation of operations) builder.addOperation(operation);
  if (memo) builder.addMemo(memo);
  const tx = builder.setTimeout(300).build();
  tx.sign(source);
  return (await harness.horizon.submitTransaction(tx)).hash;
}

const payment = (destination: string, asset: Asset, amount: string) => Operation.payment({ destination, asset, amount });

/** An issuer of WLT and two holders that trust it, each holding 100 WLT. */
async function issuedAsset(harness: SandboxHarness) {
  const [issuer, first, second] = await Promise.all([fundedAccount(harness), fundedAccount(harness), fundedAccount(harness)]);
  const asset = new Asset('WLT', issuer.publicKey());
  for (const holder of [first, second]) {
    await submit(harness, holder, [Operation.changeTrust({ asset })]);
    await submit(harness, issuer, [payment(holder.publicKey(), asset, '100')]);
  }
  return { issuer, asset, first, second };
}

describe('RPC getEvents: the CAP-67 events of classic operations', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startSandbox();
  });
  afterAll(() => harness.close());

  it('gives a credit payment its fee event and one transfer event of the asset contract', async () => {
    const { asset, first, second } = await issuedAsset(harness);
    const hash = await submit(harness, first, [payment(second.publicKey(), asset, '12.5')]);

    const events = await eventsOfTransaction(harness, hash);
    expect(events.map(plain)).toEqual([
      { contractId: Asset.native().contractId(harness.passphrase), topic: ['fee', first.publicKey()], value: 100n },
      {
        contractId: asset.contractId(harness.passphrase),
        topic: ['transfer', first.publicKey(), second.publicKey(), `WLT:${asset.getIssuer()}`],
        value: 125_000_000n,
      },
    ]);
    const [fee, transfer] = events as [rpc.Api.EventResponse, rpc.Api.EventResponse];
    expect(transfer).toMatchObject({ type: 'contract', inSuccessfulContractCall: true, operationIndex: 0, transactionIndex: 1 });
    expect(fee).toMatchObject({ transactionIndex: 0, operationIndex: 0 });
    expect(transfer.id).toMatch(/^\d{19}-\d{10}$/);
    expect(transfer.ledgerClosedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('reports a payment by the issuer as a mint and one to the issuer as a burn', async () => {
    const { issuer, asset, first } = await issuedAsset(harness);
    const minted = await submit(harness, issuer, [payment(first.publicKey(), asset, '3')]);
    const burned = await submit(harness, first, [payment(issuer.publicKey(), asset, '2')]);
    const assetName = `WLT:${issuer.publicKey()}`;

    expect((await eventsOfTransaction(harness, minted)).slice(1).map(plain)).toEqual([
      { contractId: asset.contractId(harness.passphrase), topic: ['mint', first.publicKey(), assetName], value: 30_000_000n },
    ]);
    expect((await eventsOfTransaction(harness, burned)).slice(1).map(plain)).toEqual([
      { contractId: asset.contractId(harness.passphrase), topic: ['burn', first.publicKey(), assetName], value: 20_000_000n },
    ]);
  });

  it('reports create_account and account_merge as native transfers, and a memo as to_muxed_id', async () => {
    const funder = await fundedAccount(harness);
    const created = Keypair.random();
    const creation = await submit(harness, funder, [Operation.createAccount({ destination: created.publicKey(), startingBalance: '20' })], Memo.id('42'));
    const merge = await submit(harness, created, [Operation.accountMerge({ destination: funder.publicKey() })]);

    expect((await eventsOfTransaction(harness, creation)).slice(1).map(plain)).toEqual([
      {
        contractId: Asset.native().contractId(harness.passphrase),
        topic: ['transfer', funder.publicKey(), created.publicKey(), 'native'],
        value: { amount: 200_000_000n, to_muxed_id: 42n },
      },
    ]);
    // the merged balance: 20 XLM less the merge's own 100 stroop fee
    expect((await eventsOfTransaction(harness, merge)).slice(1).map(plain)).toEqual([
      {
        contractId: Asset.native().contractId(harness.passphrase),
        topic: ['transfer', created.publicKey(), funder.publicKey(), 'native'],
        value: 199_999_900n,
      },
    ]);
  });

  it('gives a muxed destination its id as to_muxed_id and its G account as the topic', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const muxed = new MuxedAccount(new Account(payee.publicKey(), '0'), '7').accountId();
    const hash = await submit(harness, payer, [payment(muxed, Asset.native(), '1')]);

    expect((await eventsOfTransaction(harness, hash)).slice(1).map(plain)).toEqual([
      {
        contractId: Asset.native().contractId(harness.passphrase),
        topic: ['transfer', payer.publicKey(), payee.publicKey(), 'native'],
        value: { amount: 10_000_000n, to_muxed_id: 7n },
      },
    ]);
  });

  it('gives a failed transaction its fee event only', async () => {
    const { asset, first, second } = await issuedAsset(harness);
    const tx = await buildTransaction(harness, first, [payment(second.publicKey(), asset, '1000')]);
    const failure = await submitExpectingFailure(harness, tx);
    expect(failure.data.extras.result_codes.operations).toEqual(['op_underfunded']);

    const events = await eventsOfTransaction(harness, tx.hash().toString('hex'));
    expect(events.map(plain)).toEqual([
      { contractId: Asset.native().contractId(harness.passphrase), topic: ['fee', first.publicKey()], value: 100n },
    ]);
    expect(events[0]?.inSuccessfulContractCall).toBe(false);
  });

  it('filters by contract id, by topic with wildcards, and by type', async () => {
    const { asset, first, second } = await issuedAsset(harness);
    const start = (await harness.rpc.getLatestLedger()).sequence + 1;
    await submit(harness, first, [payment(second.publicKey(), asset, '1'), payment(second.publicKey(), Asset.native(), '1')]);
    await submit(harness, second, [payment(first.publicKey(), asset, '2')]);
    const query = (filters: rpc.Api.EventFilter[]) => harness.rpc.getEvents({ startLedger: start, filters });

    const byContract = await query([{ contractIds: [asset.contractId(harness.passphrase)] }]);
    expect(byContract.events.map((event) => plain(event).value)).toEqual([10_000_000n, 20_000_000n]);

    const toSecond = await query([{ topics: [[symbol('transfer'), '*', addressTopic(second), '*']] }]);
    expect(toSecond.events.map((event) => plain(event).value)).toEqual([10_000_000n, 10_000_000n]);

    const fromSecond = await query([{ topics: [['*', addressTopic(second), '**']] }]);
    expect(fromSecond.events.map((event) => plain(event).topic[0])).toEqual(['fee', 'transfer']);

    // two filters: either matches
    const either = await query([{ topics: [[symbol('fee'), '**']] }, { contractIds: [asset.contractId(harness.passphrase)] }]);
    expect(either.events).toHaveLength(4);

    expect((await query([{ type: 'system' }])).events).toEqual([]);
    expect((await query([{ type: 'contract', topics: [[symbol('transfer'), '*', '*']] }])).events).toEqual([]);
  });

  it('pages with cursors, ending a short page at the end of the ledgers it searched', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const start = (await harness.rpc.getLatestLedger()).sequence + 1;
    for (const amount of ['1', '2', '3']) await submit(harness, payer, [payment(payee.publicKey(), Asset.native(), amount)]);
    const filters = [{ topics: [[symbol('transfer'), addressTopic(payer), '**']] }];

    const first = await harness.rpc.getEvents({ startLedger: start, filters, limit: 2 });
    expect(first.events.map((event) => plain(event).value)).toEqual([10_000_000n, 20_000_000n]);
    expect(first.cursor).toBe(first.events[1]?.id);

    const second = await harness.rpc.getEvents({ cursor: first.cursor, filters, limit: 2 });
    expect(second.events.map((event) => plain(event).value)).toEqual([30_000_000n]);
    const latest = second.latestLedger;
    expect(second.cursor).toBe(`${((BigInt(latest) << 32n) | 0xffffffffn).toString().padStart(19, '0')}-4294967295`);

    const third = await harness.rpc.getEvents({ cursor: second.cursor, filters });
    expect(third.events).toEqual([]);
  });

  it('refuses what stellar-rpc refuses', async () => {
    const latest = (await harness.rpc.getLatestLedger()).sequence;
    await expect(harness.rpc.getEvents({ startLedger: latest + 1, filters: [] })).rejects.toEqual({
      code: -32600,
      message: `startLedger must be within the ledger range: 1 - ${latest}`,
    });
    await expect(harness.rpc.getEvents({ startLedger: 1, filters: [], limit: 10_001 })).rejects.toMatchObject({
      code: -32602,
      message: 'limit must not exceed 10000',
    });
    const sixFilters = Array.from({ length: 6 }, () => ({}));
    await expect(harness.rpc.getEvents({ startLedger: 1, filters: sixFilters })).rejects.toMatchObject({ code: -32602 });
    await expect(harness.rpc.getEvents({ startLedger: 1, filters: [{ topics: [['**', '*']] }] })).rejects.toMatchObject({
      code: -32602,
      message: "filter 1 invalid: topic 1 invalid: segment 1 invalid: wildcard '**' is only allowed as the last segment",
    });
  });
});

describe('RPC getEvents and its windows', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startSandbox({ retentionLedgers: 3 });
  });
  afterAll(() => harness.close());

  it('refuses a startLedger that left the retention window', async () => {
    for (let i = 0; i < 4; i++) await fundedAccount(harness);
    const { oldestLedger, latestLedger } = await harness.rpc.getHealth();
    expect(oldestLedger).toBe(latestLedger - 2);
    await expect(harness.rpc.getEvents({ startLedger: oldestLedger - 1, filters: [] })).rejects.toEqual({
      code: -32600,
      message: `startLedger must be within the ledger range: ${oldestLedger} - ${latestLedger}`,
    });
    const inside = await harness.rpc.getEvents({ startLedger: oldestLedger, filters: [] });
    expect(inside).toMatchObject({ oldestLedger, latestLedger });
    expect(inside.events.length).toBeGreaterThan(0);
  });

  it('hides the events of a ledger the read side has not ingested', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    harness.faults.set({ mode: 'lag', lagMs: 60_000, next: 1 });
    const hash = await submit(harness, payer, [payment(payee.publicKey(), Asset.native(), '1')]);
    const hidden = await harness.rpc.getEvents({ startLedger: (await harness.rpc.getLatestLedger()).sequence, filters: [] });
    expect(hidden.events.filter((event) => event.txHash === hash)).toEqual([]);

    harness.faults.clear();
    const shown = await harness.rpc.getEvents({ startLedger: hidden.latestLedger, filters: [] });
    expect(shown.latestLedger).toBe(hidden.latestLedger + 1);
    expect(shown.events.filter((event) => event.txHash === hash)).toHaveLength(2);
  });
});
