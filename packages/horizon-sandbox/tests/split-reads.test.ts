import { rpc } from '@stellar/stellar-sdk';
import { preparedPayment, type Payment } from './fault-helpers';
import { startSandbox, type SandboxHarness } from './sandbox-harness';
import { passWallClock, stoppedWallClock } from './test-clocks';

const { GetTransactionStatus } = rpc.Api;

// The wall clock stands still (stoppedWallClock): the split lasts until a test moves the clock.
const LAG_MS = 1500;

/** stellar-rpc's cursor: toid(ledger, application order, operation order 1). */
const cursorOf = (ledger: number, order: number) => ((BigInt(ledger) << 32n) | (BigInt(order) << 12n) | 1n).toString();

type OperationsPage = { _embedded: { records: { transaction_hash: string; paging_token: string }[] } };

describe('split-reads: two instances behind a load balancer, one of them lagging', () => {
  let harness: SandboxHarness;
  stoppedWallClock();
  beforeEach(async () => {
    harness = await startSandbox();
  });
  afterEach(() => harness.close());

  /** Submits through RPC under split-reads; the ledger it applied in, as the lookup by hash (not split) finds it. */
  async function sentThroughRpc(payment: Payment): Promise<number> {
    harness.faults.set({ mode: 'split-reads', lagMs: LAG_MS, next: 1 });
    expect((await harness.rpc.sendTransaction(payment.tx)).status).toBe('PENDING');
    const found = await harness.rpc.getTransaction(payment.hash);
    if (found.status !== GetTransactionStatus.SUCCESS) throw new Error(`the lookup by hash answered ${found.status}`);
    return found.ledger;
  }

  /**
   * POST /transactions over plain fetch: the SDK's submitTransaction first loads the destination
   * (SEP-29's memo check), a read that would take a turn of its own.
   */
  async function posted(payment: Payment): Promise<{ ledger: number; latestLedger: number }> {
    const response = await fetch(`${harness.url}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tx: payment.tx.toXDR() }).toString(),
    });
    const { ledger } = (await response.json()) as { ledger: number };
    return { ledger, latestLedger: Number(response.headers.get('latest-ledger')) };
  }

  /** One GET /operations answer: its Latest-Ledger and the transactions its records belong to. */
  async function operationsPage(): Promise<{ latestLedger: number; hashes: string[] }> {
    const response = await fetch(`${harness.url}/operations?order=desc&limit=10`);
    const page = (await response.json()) as OperationsPage;
    return { latestLedger: Number(response.headers.get('latest-ledger')), hashes: page._embedded.records.map((record) => record.transaction_hash) };
  }

  it('answers consecutive getTransactions from the up-to-date instance and the lagging one in turn, each answer whole', async () => {
    const payment = await preparedPayment(harness);
    const applied = await sentThroughRpc(payment);
    const before = applied - 1;

    const answers = [];
    for (let read = 0; read < 4; read++) answers.push(await harness.rpc.getTransactions({ startLedger: before }));

    const upToDate = {
      latestLedger: applied,
      oldestLedger: 1,
      cursor: cursorOf(applied, 1),
      hashes: [expect.any(String), payment.hash],
    };
    // the lagging instance's range, cursor and list all stop at the ledger before the submission's
    const lagging = { latestLedger: before, oldestLedger: 1, cursor: cursorOf(before, 1), hashes: [expect.any(String)] };
    const seen = answers.map(({ latestLedger, oldestLedger, cursor, transactions }) => ({
      latestLedger,
      oldestLedger,
      cursor,
      hashes: transactions.map((tx) => tx.txHash),
    }));
    expect(seen).toEqual([upToDate, lagging, upToDate, lagging]);
    expect(answers[1]?.transactions.map((tx) => tx.ledger)).toEqual([before]);
  });

  it('takes turns across every RPC read but the lookup by hash: getHealth, getLatestLedger, getTransactions', async () => {
    const payment = await preparedPayment(harness);
    const applied = await sentThroughRpc(payment);

    const health = (await harness.rpc.getHealth()).latestLedger;
    const lookup = await harness.rpc.getTransaction(payment.hash);
    const latest = (await harness.rpc.getLatestLedger()).sequence;
    const listed = (await harness.rpc.getTransactions({ startLedger: applied - 1 })).latestLedger;
    const latestAgain = (await harness.rpc.getLatestLedger()).sequence;

    expect([health, latest, listed, latestAgain]).toEqual([applied, applied - 1, applied, applied - 1]);
    // the lookup took no turn and reached its own, up-to-date instance
    expect(lookup).toMatchObject({ status: GetTransactionStatus.SUCCESS, latestLedger: applied });
  });

  it('answers consecutive GET /operations and GET / in turn, records and Latest-Ledger from one instance', async () => {
    const payment = await preparedPayment(harness);
    harness.faults.set({ mode: 'split-reads', lagMs: LAG_MS, next: 1 });
    // the submission's own answer takes the first turn: the up-to-date instance, which has its ledger
    const { ledger: applied, latestLedger } = await posted(payment);
    expect(latestLedger).toBe(applied);

    const pages = [await operationsPage(), await operationsPage(), await operationsPage()];
    expect(pages.map((page) => page.latestLedger)).toEqual([applied - 1, applied, applied - 1]);
    expect(pages.map((page) => page.hashes.includes(payment.hash))).toEqual([false, true, false]);
    expect(pages[1]?.hashes[0]).toBe(payment.hash);

    // an answer that reads nothing (a 404) names the instance whose turn is next, and takes no turn
    expect((await fetch(`${harness.url}/no/such/route`)).headers.get('latest-ledger')).toBe(String(applied));
    const roots = [];
    for (let read = 0; read < 2; read++) {
      const response = await fetch(`${harness.url}/`);
      const body = (await response.json()) as { history_latest_ledger: number; core_latest_ledger: number };
      roots.push({ header: Number(response.headers.get('latest-ledger')), history: body.history_latest_ledger, core: body.core_latest_ledger });
    }
    expect(roots).toEqual([
      { header: applied, history: applied, core: applied },
      { header: applied - 1, history: applied - 1, core: applied },
    ]);
    expect(harness.faults.stats['split-reads']).toBe(1);
  });

  it('hides the ledgers closed after the held one from the lagging instance too', async () => {
    const [held, later] = [await preparedPayment(harness), await preparedPayment(harness)];
    const applied = await sentThroughRpc(held);
    const { ledger: next, latestLedger } = await posted(later);

    const answers = [await harness.rpc.getTransactions({ startLedger: applied - 1 }), await harness.rpc.getTransactions({ startLedger: applied - 1 })];
    const seen = answers.map((answer) => ({ latestLedger: answer.latestLedger, hashes: answer.transactions.map((tx) => tx.txHash) }));
    // Horizon's answer to the later submission took the first turn, the up-to-date one
    expect([next, latestLedger]).toEqual([applied + 1, applied + 1]);
    expect(seen).toEqual([
      { latestLedger: applied - 1, hashes: [expect.any(String)] },
      { latestLedger: next, hashes: [expect.any(String), held.hash, later.hash] },
    ]);
  });

  it('answers every read from an up-to-date instance once lagMs have passed', async () => {
    const payment = await preparedPayment(harness);
    const applied = await sentThroughRpc(payment);

    passWallClock(LAG_MS - 1);
    const [first, second] = [await harness.rpc.getTransactions({ startLedger: applied - 1 }), await harness.rpc.getTransactions({ startLedger: applied - 1 })];
    expect([first.latestLedger, second.latestLedger]).toEqual([applied, applied - 1]);

    passWallClock(1);
    const listed = [];
    for (let read = 0; read < 3; read++) listed.push((await harness.rpc.getTransactions({ startLedger: applied - 1 })).latestLedger);
    expect(listed).toEqual([applied, applied, applied]);
    const pages = [await operationsPage(), await operationsPage()];
    expect(pages).toEqual([
      { latestLedger: applied, hashes: expect.arrayContaining([payment.hash]) },
      { latestLedger: applied, hashes: expect.arrayContaining([payment.hash]) },
    ]);
  });

  it('answers every read from an up-to-date instance once the faults are cleared', async () => {
    const payment = await preparedPayment(harness);
    const applied = await sentThroughRpc(payment);
    expect((await harness.rpc.getLatestLedger()).sequence).toBe(applied);

    harness.faults.clear();
    const latest = [(await harness.rpc.getLatestLedger()).sequence, (await harness.rpc.getLatestLedger()).sequence];
    expect(latest).toEqual([applied, applied]);
    expect((await operationsPage()).latestLedger).toBe(applied);
  });

  it('leaves the lookups by hash alone: each finds the transaction at once, on both APIs', async () => {
    const payment = await preparedPayment(harness);
    const applied = await sentThroughRpc(payment);

    for (let read = 0; read < 3; read++) {
      const horizon = await fetch(`${harness.url}/transactions/${payment.hash}`);
      expect([horizon.status, horizon.headers.get('latest-ledger')]).toEqual([200, String(applied)]);
      expect(await harness.rpc.getTransaction(payment.hash)).toMatchObject({ status: GetTransactionStatus.SUCCESS, ledger: applied, latestLedger: applied });
    }
  });

  it('needs lagMs, and takes share or next like the other faults', () => {
    expect(() => harness.faults.set({ mode: 'split-reads' })).toThrow('lagMs: required for split-reads');
    expect(() => harness.faults.set({ mode: 'split-reads', lagMs: LAG_MS, share: 0.5 })).not.toThrow();
    expect(() => harness.faults.set({ mode: 'split-reads', lagMs: LAG_MS, share: 0.5, next: 1 })).toThrow('next: give share or next, not both');
  });
});
