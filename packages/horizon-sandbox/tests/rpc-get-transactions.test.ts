import { Asset, FeeBumpTransaction, Operation, rpc, type Keypair, type Transaction } from '@stellar/stellar-sdk';
import { until } from './fault-helpers';
import { feeBump, hashOf, rawRpc } from './rpc-helpers';
import { buildFrom, fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';
import { manualLedgerCloses, stoppedWallClock } from './test-clocks';

const { GetTransactionStatus } = rpc.Api;

/** stellar-rpc's cursor: toid(ledger, application order, operation order 1). */
const cursorOf = (ledger: number, order: number) => ((BigInt(ledger) << 32n) | (BigInt(order) << 12n) | 1n).toString();

/** What a test compares of a listed transaction. */
const summary = (tx: rpc.Api.TransactionInfo) => ({ hash: tx.txHash, ledger: tx.ledger, order: tx.applicationOrder, status: tx.status });

const payment = (harness: SandboxHarness, payer: Keypair, payee: Keypair, amount: string): Promise<Transaction> =>
  harness.horizon.loadAccount(payer.publicKey()).then((account) =>
    buildFrom(account, [Operation.payment({ destination: payee.publicKey(), asset: Asset.native(), amount })], harness.passphrase, {}, [payer]),
  );

/**
 * Ledgers close when the test says (manualLedgerCloses), so that several transactions share a
 * ledger: each is sent through RPC (PENDING, queued) and the next close takes them all, in the order
 * they were sent.
 */
describe('RPC getTransactions', () => {
  let harness: SandboxHarness;
  const { closeLedger, closing } = manualLedgerCloses(1000);

  /** Sends each transaction (one per source account: core queues one per account), then closes one ledger for them all. */
  async function inOneLedger(transactions: (Transaction | FeeBumpTransaction)[]): Promise<number> {
    for (const tx of transactions) expect((await harness.rpc.sendTransaction(tx)).status).toBe('PENDING');
    closeLedger();
    const found = await until(async () => {
      const result = await harness.rpc.getTransaction(hashOf(transactions[0] as Transaction));
      return result.status === GetTransactionStatus.NOT_FOUND ? undefined : result;
    }, 'the ledger holding the transactions');
    return found.ledger;
  }

  let payers: Keypair[];
  let payee: Keypair;
  /** Ledger A: three payments; ledger B: a failed payment, then a fee-bumped one. */
  let ledgerA: number;
  let ledgerB: number;
  let inA: string[];
  let inB: string[];
  let failed: Transaction;
  let bumped: FeeBumpTransaction;

  beforeAll(async () => {
    harness = await startSandbox({ ledgerCloseMs: 1000 });
    const funded = await closing(Promise.all(Array.from({ length: 5 }, () => fundedAccount(harness))));
    [payee, ...payers] = funded as [Keypair, ...Keypair[]];
    const [first, second, third, fourth] = payers as [Keypair, Keypair, Keypair, Keypair];

    const threePayments = await Promise.all([first, second, third].map((payer, index) => payment(harness, payer, payee, String(index + 1))));
    ledgerA = await inOneLedger(threePayments);
    inA = threePayments.map(hashOf);

    // more lumens than it holds: in the ledger, fee charged, op_underfunded
    failed = await payment(harness, fourth, payee, '20000');
    bumped = feeBump(harness, first, await payment(harness, second, payee, '4'), '200');
    ledgerB = await inOneLedger([failed, bumped]);
    inB = [hashOf(failed), hashOf(bumped)];
  });

  afterAll(() => harness.close());

  it('lists every transaction from startLedger on, in application order, failed ones with status FAILED', async () => {
    const page = await harness.rpc.getTransactions({ startLedger: ledgerA });
    expect(page.transactions.map(summary)).toEqual([
      { hash: inA[0], ledger: ledgerA, order: 1, status: 'SUCCESS' },
      { hash: inA[1], ledger: ledgerA, order: 2, status: 'SUCCESS' },
      { hash: inA[2], ledger: ledgerA, order: 3, status: 'SUCCESS' },
      { hash: inB[0], ledger: ledgerB, order: 1, status: 'FAILED' },
      { hash: inB[1], ledger: ledgerB, order: 2, status: 'SUCCESS' },
    ]);
    // a short page ends at the latest ledger, with the order of the last transaction read in it
    expect(page.latestLedger).toBe(ledgerB);
    expect(page.cursor).toBe(cursorOf(ledgerB, 2));
    expect(page.oldestLedger).toBe(1);

    const failure = page.transactions[3] as rpc.Api.TransactionInfo;
    expect(failure.resultXdr.result().switch().name).toBe('txFailed');
    expect(failure.resultXdr.result().results()[0]?.tr().paymentResult().switch().name).toBe('paymentUnderfunded');
    expect(failure.resultXdr.feeCharged().toString()).toBe('100');
    expect(failure.envelopeXdr.toXDR('base64')).toBe(failed.toXDR());
  });

  it('names a fee bump by its own hash, with feeBump and the inner transaction in its envelope', async () => {
    const page = await harness.rpc.getTransactions({ startLedger: ledgerB });
    const listed = page.transactions[1] as rpc.Api.TransactionInfo;
    expect(listed).toMatchObject({ txHash: hashOf(bumped), feeBump: true, status: 'SUCCESS', ledger: ledgerB, applicationOrder: 2 });
    const envelope = new FeeBumpTransaction(listed.envelopeXdr, harness.passphrase);
    expect(hashOf(envelope.innerTransaction)).toBe(hashOf(bumped.innerTransaction));
    expect(listed.resultXdr.result().switch().name).toBe('txFeeBumpInnerSuccess');
  });

  it('answers stellar-rpc\'s exact shape: numbers for close times, the transaction fields it sends', async () => {
    const { json } = await rawRpc(harness, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getTransactions', params: { startLedger: ledgerB, pagination: { limit: 1 } } }));
    const result = (json as { result: Record<string, unknown> & { transactions: Record<string, unknown>[] } }).result;
    expect(Object.keys(result).sort()).toEqual(
      ['cursor', 'latestLedger', 'latestLedgerCloseTimestamp', 'oldestLedger', 'oldestLedgerCloseTimestamp', 'transactions'].sort(),
    );
    expect(result).toMatchObject({
      latestLedger: ledgerB,
      latestLedgerCloseTimestamp: expect.any(Number),
      oldestLedger: 1,
      oldestLedgerCloseTimestamp: expect.any(Number),
      cursor: cursorOf(ledgerB, 1),
    });
    const [listed] = result.transactions;
    expect(Object.keys(listed ?? {}).sort()).toEqual(
      ['applicationOrder', 'createdAt', 'envelopeXdr', 'events', 'feeBump', 'ledger', 'resultMetaXdr', 'resultXdr', 'status', 'txHash'].sort(),
    );
    expect(listed).toMatchObject({ status: 'FAILED', txHash: inB[0], applicationOrder: 1, feeBump: false, ledger: ledgerB, createdAt: expect.any(Number) });
  });

  it('pages with small limits within a ledger and across ledgers, each page going on after the last cursor', async () => {
    const seen: string[] = [];
    const cursors: string[] = [];
    let page = await harness.rpc.getTransactions({ startLedger: ledgerA, pagination: { limit: 2 } });
    for (;;) {
      seen.push(...page.transactions.map((tx) => tx.txHash));
      cursors.push(page.cursor);
      if (page.transactions.length < 2) break;
      page = await harness.rpc.getTransactions({ pagination: { cursor: page.cursor, limit: 2 } });
    }
    expect(seen).toEqual([...inA, ...inB]);
    // a full page stops where its limit fell; the last (short) one at the latest ledger
    expect(cursors).toEqual([cursorOf(ledgerA, 2), cursorOf(ledgerB, 1), cursorOf(ledgerB, 2)]);
  });

  it("keeps stellar-rpc's cursor quirks: a cursor at a ledger's end reads nothing and answers order 0, which reads that ledger again", async () => {
    // nothing after the last transaction of the latest ledger: the cursor names no transaction read
    const atEnd = await harness.rpc.getTransactions({ pagination: { cursor: cursorOf(ledgerB, 2) } });
    expect(atEnd.transactions).toEqual([]);
    expect(atEnd.cursor).toBe(cursorOf(ledgerB, 0));
    // and from that cursor stellar-rpc starts at the ledger's first transaction again
    const again = await harness.rpc.getTransactions({ pagination: { cursor: atEnd.cursor } });
    expect(again.transactions.map((tx) => tx.txHash)).toEqual(inB);

    // a cursor past the latest ledger scans nothing at all: an empty list and cursor "0"
    const beyond = await harness.rpc.getTransactions({ pagination: { cursor: cursorOf(ledgerB + 5, 0) } });
    expect(beyond).toMatchObject({ transactions: [], cursor: '0', latestLedger: ledgerB });

    // a cursor in a ledger before ledger A ends at the ledger holding the limit-th transaction
    const fromBefore = await harness.rpc.getTransactions({ pagination: { cursor: cursorOf(ledgerA - 1, 7), limit: 1 } });
    expect(fromBefore.transactions.map((tx) => tx.txHash)).toEqual([inA[0]]);
    expect(fromBefore.cursor).toBe(cursorOf(ledgerA, 1));
  });

  it("refuses what go-stellar-sdk's GetTransactionsRequest.IsValid refuses (-32600), and bad cursors (-32602)", async () => {
    const call = (params: unknown) => harness.rpc.getTransactions(params as rpc.Api.GetTransactionsRequest);
    await expect(call({ startLedger: ledgerA, pagination: { cursor: cursorOf(ledgerA, 1) } })).rejects.toEqual({
      code: -32600,
      message: `startLedger (${ledgerA}) and cursor (${cursorOf(ledgerA, 1)}) cannot both be set`,
    });
    await expect(call({ startLedger: ledgerB + 1 })).rejects.toEqual({
      code: -32600,
      message: `start ledger (${ledgerB + 1}) must be between the oldest ledger: 1 and the latest ledger: ${ledgerB} for this rpc instance`,
    });
    await expect(call({})).rejects.toMatchObject({ code: -32600, message: expect.stringContaining('start ledger (0) must be between') });
    await expect(call({ startLedger: ledgerA, pagination: { limit: 201 } })).rejects.toEqual({ code: -32600, message: 'limit must not exceed 200' });
    await expect(call({ pagination: { cursor: 'abc' } })).rejects.toEqual({ code: -32602, message: 'strconv.ParseInt: parsing "abc": invalid syntax' });
    // ledger 0 is in no instance's store
    await expect(call({ pagination: { cursor: '1' } })).rejects.toEqual({ code: -32602, message: 'database does not contain metadata for ledger: 0' });
    // a limit of 200 is allowed, and 0 means the default (50)
    await expect(call({ startLedger: ledgerA, pagination: { limit: 200 } })).resolves.toMatchObject({ latestLedger: ledgerB });
    await expect(call({ startLedger: ledgerA, pagination: { limit: 0 } })).resolves.toMatchObject({ latestLedger: ledgerB });
  });
});

describe('RPC getTransactions and the instance it reaches', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startSandbox({ retentionLedgers: 3 });
  });
  afterAll(() => harness.close());

  it('answers from its retention window: a cursor into a ledger it no longer holds is -32602', async () => {
    const [payer, payee] = [await fundedAccount(harness), await fundedAccount(harness)];
    const sent = await harness.horizon.submitTransaction(await payment(harness, payer, payee, '1'));
    for (let i = 0; i < 3; i++) await fundedAccount(harness);
    const health = await harness.rpc.getHealth();
    expect(health.oldestLedger).toBeGreaterThan(sent.ledger);

    await expect(harness.rpc.getTransactions({ pagination: { cursor: cursorOf(sent.ledger, 1) } })).rejects.toEqual({
      code: -32602,
      message: `database does not contain metadata for ledger: ${sent.ledger}`,
    });
    await expect(harness.rpc.getTransactions({ startLedger: sent.ledger })).rejects.toMatchObject({ code: -32600 });
    const inside = await harness.rpc.getTransactions({ startLedger: health.oldestLedger });
    expect(inside).toMatchObject({ oldestLedger: health.oldestLedger, latestLedger: health.latestLedger });
    expect(inside.transactions.map((tx) => tx.ledger)).toEqual([health.oldestLedger, health.oldestLedger + 1, health.oldestLedger + 2]);
  });

  it('is answered -32602 for xdrFormat "json", as getEvents is: the sandbox speaks base64', async () => {
    const latest = (await harness.rpc.getLatestLedger()).sequence;
    const { json } = await rawRpc(harness, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getTransactions', params: { startLedger: latest, xdrFormat: 'json' } }));
    expect(json).toMatchObject({ id: 7, error: { code: -32602 } });
  });
});

describe('RPC getTransactions from a lagging read side', () => {
  let harness: SandboxHarness;
  // the lag passes only when a test moves the clock: however slow the reads, the ledger stays hidden
  stoppedWallClock();
  beforeAll(async () => {
    harness = await startSandbox();
  });
  afterAll(() => harness.close());

  it('hides the ledgers a lagging read side has not ingested, and its range ends at the last one it has', async () => {
    const [payer, payee] = [await fundedAccount(harness), await fundedAccount(harness)];
    const before = (await harness.rpc.getLatestLedger()).sequence;
    harness.faults.set({ mode: 'lag', lagMs: 60_000, next: 1 });
    const sent = await harness.horizon.submitTransaction(await payment(harness, payer, payee, '1'));
    expect(sent.ledger).toBe(before + 1);

    const during = await harness.rpc.getTransactions({ startLedger: before });
    expect(during.latestLedger).toBe(before);
    expect(during.transactions.map((tx) => tx.txHash)).not.toContain(sent.hash);
    // a cursor into the hidden ledger is past this instance's latest: nothing scanned, cursor "0"
    expect(await harness.rpc.getTransactions({ pagination: { cursor: cursorOf(sent.ledger, 0) } })).toMatchObject({ transactions: [], cursor: '0' });

    harness.faults.clear();
    const after = await harness.rpc.getTransactions({ startLedger: before });
    expect(after.latestLedger).toBe(sent.ledger);
    expect(after.transactions.at(-1)).toMatchObject({ txHash: sent.hash, ledger: sent.ledger, status: 'SUCCESS' });
  });
});
