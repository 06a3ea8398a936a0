import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Account, Asset, Operation } from '@stellar/stellar-sdk';
import { balancesOf, buildFrom, startSandbox, type SandboxHarness } from './sandbox-harness';
import {
  TIMEOUT_PROBLEM,
  getJson,
  preparedPayment,
  submissionError,
  transactionStatus,
  type Payment,
} from './fault-helpers';
import { passWallClock, stoppedWallClock } from './test-clocks';

// The wall clock stands still in these tests (stoppedWallClock): a lag passes only when a test
// moves the clock, so the reads made during it may take as long as a busy machine needs.
const LAG_MS = 1500;

type Json = Record<string, unknown>;

/** Everything the read side shows about a payment and the network, taken in one go. */
async function readSide(harness: SandboxHarness, { payer, payee, hash }: Payment) {
  const [root, newest, account, payeeBalances, payments, feeStats, transaction] = await Promise.all([
    getJson(harness, '/'),
    getJson<{ _embedded: { records: Json[] } }>(harness, '/ledgers?order=desc&limit=1'),
    harness.horizon.loadAccount(payer.publicKey()),
    balancesOf(harness, payee.publicKey()),
    harness.horizon.payments().forAccount(payee.publicKey()).order('desc').call(),
    getJson(harness, '/fee_stats'),
    transactionStatus(harness, hash),
  ]);
  return {
    historyLatest: root.body.history_latest_ledger,
    historyClosedAt: root.body.history_latest_ledger_closed_at,
    ingestLatest: root.body.ingest_latest_ledger,
    coreLatest: root.body.core_latest_ledger,
    newestLedger: newest.body._embedded.records[0]?.sequence,
    payerSequence: account.sequence,
    payerNative: account.balances.find((line) => line.asset_type === 'native')?.balance,
    payeeBalances,
    payeePayments: payments.records.map((record) => record.id),
    feeStatsLastLedger: feeStats.body.last_ledger,
    transaction,
  };
}

/** Lets lagMs pass on the stopped clock: the held-back ledger's time to show has come. */
const passLag = () => passWallClock(LAG_MS);

const payOnce = (harness: SandboxHarness, payment: Payment) => harness.horizon.submitTransaction(payment.tx);

describe('lag', () => {
  let harness: SandboxHarness;
  stoppedWallClock();

  beforeAll(async () => {
    harness = await startSandbox();
  });

  afterEach(() => harness.faults.clear());

  afterAll(() => harness.close());

  it('answers success, but the read side shows the state before that ledger until lagMs have passed', async () => {
    const payment = await preparedPayment(harness);
    const before = await readSide(harness, payment);
    harness.faults.set({ mode: 'lag', lagMs: LAG_MS });

    const applied = await payOnce(harness, payment);
    const during = await readSide(harness, payment);
    const ledgerDuring = await getJson(harness, `/ledgers/${applied.ledger}`);

    expect(applied).toMatchObject({ hash: payment.hash, successful: true });
    expect(during).toEqual({ ...before, coreLatest: applied.ledger });
    expect(during.transaction).toBe(404);
    expect(ledgerDuring.status).toBe(404);

    // still hidden a millisecond before lagMs have passed, shown once they have
    passWallClock(LAG_MS - 1);
    expect(await transactionStatus(harness, payment.hash)).toBe(404);
    passWallClock(1);
    const after = await readSide(harness, payment);
    expect(after).toMatchObject({
      historyLatest: applied.ledger,
      ingestLatest: applied.ledger,
      coreLatest: applied.ledger,
      newestLedger: applied.ledger,
      payerSequence: payment.tx.sequence,
      payeeBalances: { native: '10005.0000000' },
      feeStatsLastLedger: String(applied.ledger),
      transaction: 200,
    });
    expect(after.payeePayments).toHaveLength(before.payeePayments.length + 1);
    const ledger = await getJson(harness, `/ledgers/${applied.ledger}`);
    expect(after.historyClosedAt).toBe(ledger.body.closed_at);
  });

  it('answers a resubmission with tx_bad_seq while its ledger is not ingested, and with the stored result after', async () => {
    const payment = await preparedPayment(harness);
    harness.faults.set({ mode: 'lag', lagMs: LAG_MS });
    const applied = await payOnce(harness, payment);

    const during = await submissionError(harness, payment.tx);
    expect(during.response?.status).toBe(400);
    expect(during.response?.data).toMatchObject({
      type: 'https://stellar.org/horizon-errors/transaction_failed',
      extras: { result_codes: { transaction: 'tx_bad_seq' } },
    });

    passLag();
    const after = await harness.horizon.submitTransaction(payment.tx);
    expect(after).toMatchObject({ hash: payment.hash, ledger: applied.ledger, successful: true });
    // applied once, whatever was resubmitted
    expect(await balancesOf(harness, payment.payee.publicKey())).toEqual({ native: '10005.0000000' });
  });

  it('ingests in order: a ledger closed after a lagging one waits for it; core applies against its real state', async () => {
    const first = await preparedPayment(harness);
    const second = await preparedPayment(harness);
    harness.faults.set({ mode: 'lag', lagMs: LAG_MS, next: 1 });
    const lagging = await payOnce(harness, first);

    // not faulted itself, but later than the lagging ledger
    const following = await payOnce(harness, second);
    // the payer's next sequence is applied by core although the read side still shows the old one
    const next = buildFrom(
      new Account(first.payer.publicKey(), first.tx.sequence),
      [Operation.payment({ destination: first.payee.publicKey(), asset: Asset.native(), amount: '1' })],
      harness.passphrase,
      {},
      [first.payer],
    );
    const chained = await harness.horizon.submitTransaction(next);
    const root = await getJson(harness, '/');
    const statuses = await Promise.all([first.hash, second.hash, chained.hash].map((hash) => transactionStatus(harness, hash)));

    expect([following.ledger, chained.ledger]).toEqual([lagging.ledger + 1, lagging.ledger + 2]);
    expect(root.body).toMatchObject({ history_latest_ledger: lagging.ledger - 1, core_latest_ledger: lagging.ledger + 2 });
    expect(statuses).toEqual([404, 404, 404]);

    passLag();
    expect((await getJson(harness, '/')).body.history_latest_ledger).toBe(lagging.ledger + 2);
    expect(await balancesOf(harness, first.payee.publicKey())).toEqual({ native: '10006.0000000' });
  });

  it('catches up at once when the faults are cleared', async () => {
    const payment = await preparedPayment(harness);
    harness.faults.set({ mode: 'lag', lagMs: 60_000 });
    await payOnce(harness, payment);
    expect(await transactionStatus(harness, payment.hash)).toBe(404);

    harness.faults.clear();

    expect(await transactionStatus(harness, payment.hash)).toBe(200);
    expect(await balancesOf(harness, payment.payee.publicKey())).toEqual({ native: '10005.0000000' });
  });
});

describe('lag-then-504', () => {
  let harness: SandboxHarness;
  stoppedWallClock();

  beforeAll(async () => {
    harness = await startSandbox();
  });

  afterEach(() => harness.faults.clear());

  afterAll(() => harness.close());

  it('answers the lagging submission with the timeout problem; the ledger shows after lagMs; resubmissions as with lag', async () => {
    const payment = await preparedPayment(harness);
    const before = await readSide(harness, payment);
    harness.faults.set({ mode: 'lag-then-504', lagMs: LAG_MS, next: 1 });

    const error = await submissionError(harness, payment.tx);
    const during = await readSide(harness, payment);
    const resubmitted = await submissionError(harness, payment.tx);

    expect(error.response?.status).toBe(504);
    expect(error.response?.data).toEqual(TIMEOUT_PROBLEM);
    expect(during).toEqual({ ...before, coreLatest: Number(before.coreLatest) + 1 });
    expect(resubmitted.response?.status).toBe(400);
    expect(resubmitted.response?.data).toMatchObject({ extras: { result_codes: { transaction: 'tx_bad_seq' } } });

    passLag();
    const after = await readSide(harness, payment);
    expect(after).toMatchObject({
      historyLatest: Number(before.historyLatest) + 1,
      payerSequence: payment.tx.sequence,
      payeeBalances: { native: '10005.0000000' },
      transaction: 200,
    });
    await expect(harness.horizon.submitTransaction(payment.tx)).resolves.toMatchObject({ hash: payment.hash, successful: true });
  });
});

describe('lag with a ledger closing every 300 ms', () => {
  let harness: SandboxHarness;
  stoppedWallClock();

  beforeAll(async () => {
    harness = await startSandbox({ ledgerCloseMs: 300 });
  });

  afterAll(() => harness.close());

  it('answers when the ledger closes, and holds that ledger back from the read side for lagMs', async () => {
    const payment = await preparedPayment(harness);
    harness.faults.set({ mode: 'lag', lagMs: LAG_MS, next: 1 });

    const applied = await payOnce(harness, payment);
    const root = (await getJson(harness, '/')).body;
    const status = await transactionStatus(harness, payment.hash);

    expect(root).toMatchObject({ history_latest_ledger: applied.ledger - 1, core_latest_ledger: applied.ledger });
    expect(status).toBe(404);
    passLag();
    expect(await transactionStatus(harness, payment.hash)).toBe(200);
  });
});

describe('lag and a data directory', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sandbox-lag-'));
  });

  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('keeps what core applied: after a restart the held-back ledger is there', async () => {
    const first = await startSandbox({ dataDir });
    const payment = await preparedPayment(first);
    first.faults.set({ mode: 'lag', lagMs: 60_000 });
    const applied = await payOnce(first, payment);
    expect(await transactionStatus(first, payment.hash)).toBe(404);
    await first.close();

    const second = await startSandbox({ dataDir });
    try {
      expect(await transactionStatus(second, payment.hash)).toBe(200);
      expect((await getJson(second, '/')).body.history_latest_ledger).toBe(applied.ledger);
      expect(await balancesOf(second, payment.payee.publicKey())).toEqual({ native: '10005.0000000' });
    } finally {
      await second.close();
    }
  });
});
