import { rpc } from '@stellar/stellar-sdk';
import { TIMEOUT_PROBLEM, preparedPayment, submissionError, transactionStatus, type Payment } from './fault-helpers';
import { startSandbox, type SandboxHarness } from './sandbox-harness';
import { stoppedWallClock } from './test-clocks';
import { feeToCharge } from '../src/validate-transaction';

const { GetTransactionStatus } = rpc.Api;
/** A held-back ledger stays hidden for the whole test (the wall clock stands still here); faults.clear() releases it. */
const HELD = 60_000;

/** What rpc.Server's sendTransaction rejected with (an AxiosError), or fails the test if it answered. */
async function sendError(harness: SandboxHarness, payment: Payment): Promise<{ code?: string; response?: { status: number; data: unknown } }> {
  try {
    await harness.rpc.sendTransaction(payment.tx);
  } catch (error) {
    return error as { code?: string; response?: { status: number; data: unknown } };
  }
  throw new Error('sendTransaction was expected to fail');
}

describe('faults on Stellar RPC, drawn from the same fault plan as Horizon', () => {
  let harness: SandboxHarness;
  stoppedWallClock();
  beforeEach(async () => {
    harness = await startSandbox();
  });
  afterEach(() => harness.close());

  const statusOf = async (hash: string) => (await harness.rpc.getTransaction(hash)).status;

  it.each([
    ['apply-then-504', 504],
    ['apply-then-502', 502],
  ] as const)('%s: the proxy answers %d, and the transaction applied', async (mode, status) => {
    const payment = await preparedPayment(harness);
    harness.faults.set({ mode, next: 1 });
    expect((await sendError(harness, payment)).response?.status).toBe(status);
    expect(await statusOf(payment.hash)).toBe(GetTransactionStatus.SUCCESS);
  });

  it('apply-then-reset: the connection resets, and the transaction applied', async () => {
    const payment = await preparedPayment(harness);
    harness.faults.set({ mode: 'apply-then-reset', next: 1 });
    expect((await sendError(harness, payment)).code).toBe('ECONNRESET');
    expect(await statusOf(payment.hash)).toBe(GetTransactionStatus.SUCCESS);
  });

  it('refuse-503: the proxy answers 503, and nothing applied', async () => {
    const payment = await preparedPayment(harness);
    const before = await harness.rpc.getAccount(payment.payer.publicKey());
    harness.faults.set({ mode: 'refuse-503', next: 1 });
    expect((await sendError(harness, payment)).response?.status).toBe(503);
    expect(await statusOf(payment.hash)).toBe(GetTransactionStatus.NOT_FOUND);
    expect((await harness.rpc.getAccount(payment.payer.publicKey())).sequenceNumber()).toBe(before.sequenceNumber());
  });

  it('try-again-later: RPC answers TRY_AGAIN_LATER and nothing applied; resent, it is PENDING', async () => {
    const payment = await preparedPayment(harness);
    harness.faults.set({ mode: 'try-again-later', next: 1 });
    expect((await harness.rpc.sendTransaction(payment.tx)).status).toBe('TRY_AGAIN_LATER');
    expect(await statusOf(payment.hash)).toBe(GetTransactionStatus.NOT_FOUND);
    expect((await harness.rpc.sendTransaction(payment.tx)).status).toBe('PENDING');
    expect(harness.faults.stats['try-again-later']).toBe(1);
  });

  it('try-again-later on Horizon: the 504 timeout of a submission that never shows up, nothing applied', async () => {
    const payment = await preparedPayment(harness);
    harness.faults.set({ mode: 'try-again-later', next: 1 });
    expect((await submissionError(harness, payment.tx)).response?.data).toEqual(TIMEOUT_PROBLEM);
    expect(await transactionStatus(harness, payment.hash)).toBe(404);
  });

  it('bad-seq: core refuses the envelope with tx_bad_seq on both APIs, nothing applied; cleared, it applies', async () => {
    const payment = await preparedPayment(harness);
    const before = await harness.rpc.getAccount(payment.payer.publicKey());
    harness.faults.set({ mode: 'bad-seq', next: 2 });
    const sent = await harness.rpc.sendTransaction(payment.tx);
    expect(sent.status).toBe('ERROR');
    // Core reports the base fee per operation in a refusal's result, whatever was bid: here one operation's.
    expect([sent.errorResult?.result().switch().name, sent.errorResult?.feeCharged().toString()]).toEqual(['txBadSeq', feeToCharge(1).toString()]);
    const refused = (await submissionError(harness, payment.tx)).response;
    expect(refused?.status).toBe(400);
    expect(refused?.data).toMatchObject({ status: 400, extras: { result_codes: { transaction: 'tx_bad_seq' } } });
    expect(harness.faults.stats['bad-seq']).toBe(2);
    expect(await statusOf(payment.hash)).toBe(GetTransactionStatus.NOT_FOUND);
    expect((await harness.rpc.getAccount(payment.payer.publicKey())).sequenceNumber()).toBe(before.sequenceNumber());
    expect((await harness.rpc.sendTransaction(payment.tx)).status).toBe('PENDING');
  });

  it('slow: the usual PENDING answer, late', async () => {
    const payment = await preparedPayment(harness);
    harness.faults.set({ mode: 'slow', slowMs: 50, next: 1 });
    expect((await harness.rpc.sendTransaction(payment.tx)).status).toBe('PENDING');
    expect(harness.faults.stats.slow).toBe(1);
  });

  it.each(['lag', 'lag-then-504'] as const)('%s: every RPC read shows the state before the ledger until the lag ends', async (mode) => {
    const payment = await preparedPayment(harness);
    const before = await harness.rpc.getAccount(payment.payer.publicKey());
    const ledgerBefore = (await harness.rpc.getLatestLedger()).sequence;
    harness.faults.set({ mode, lagMs: HELD, next: 1 });
    if (mode === 'lag') expect((await harness.rpc.sendTransaction(payment.tx)).status).toBe('PENDING');
    else expect((await sendError(harness, payment)).response?.status).toBe(504);

    const hidden = await harness.rpc.getTransaction(payment.hash);
    expect(hidden).toMatchObject({ status: GetTransactionStatus.NOT_FOUND, latestLedger: ledgerBefore });
    expect((await harness.rpc.getLatestLedger()).sequence).toBe(ledgerBefore);
    expect((await harness.rpc.getHealth()).latestLedger).toBe(ledgerBefore);
    expect((await harness.rpc.getAccount(payment.payer.publicKey())).sequenceNumber()).toBe(before.sequenceNumber());

    harness.faults.clear();
    expect(await statusOf(payment.hash)).toBe(GetTransactionStatus.SUCCESS);
    expect((await harness.rpc.getLatestLedger()).sequence).toBe(ledgerBefore + 1);
  });

  it('split: getTransaction reaches an instance a ledger behind, while the other reads show the transaction applied', async () => {
    const payment = await preparedPayment(harness);
    const before = await harness.rpc.getAccount(payment.payer.publicKey());
    harness.faults.set({ mode: 'split', lagMs: HELD, next: 1 });
    expect((await harness.rpc.sendTransaction(payment.tx)).status).toBe('PENDING');

    const applied = (await harness.rpc.getLatestLedger()).sequence;
    const lookup = await harness.rpc.getTransaction(payment.hash);
    expect(lookup).toMatchObject({ status: GetTransactionStatus.NOT_FOUND, latestLedger: applied - 1 });
    expect((await harness.rpc.getHealth()).latestLedger).toBe(applied);
    const after = await harness.rpc.getAccount(payment.payer.publicKey());
    expect(BigInt(after.sequenceNumber())).toBe(BigInt(before.sequenceNumber()) + 1n);
    // Horizon's lookup by hash reaches the same lagging instance; its other reads do not
    const missing = await fetch(`${harness.url}/transactions/${payment.hash}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('latest-ledger')).toBe(String(applied - 1));
    expect((await harness.horizon.loadAccount(payment.payer.publicKey())).sequence).toBe(after.sequenceNumber());

    harness.faults.clear();
    const found = await harness.rpc.getTransaction(payment.hash);
    expect(found.status).toBe(GetTransactionStatus.SUCCESS);
    if (found.status === GetTransactionStatus.SUCCESS) expect(found.ledger).toBe(applied);
  });

  it('split on Horizon: the submission succeeds; the lookup by hash then 404s from an instance a ledger behind', async () => {
    const payment = await preparedPayment(harness);
    harness.faults.set({ mode: 'split', lagMs: HELD, next: 1 });
    const submitted = await harness.horizon.submitTransaction(payment.tx);
    const missing = await fetch(`${harness.url}/transactions/${payment.hash}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('latest-ledger')).toBe(String(submitted.ledger - 1));
    const root = (await (await fetch(`${harness.url}/`)).json()) as { history_latest_ledger: number };
    expect(root.history_latest_ledger).toBe(submitted.ledger);
    expect(harness.faults.stats.split).toBe(1);
  });

  it('split-then-504: applied, a 504 on either API, and the lookup instance behind', async () => {
    const [first, second] = [await preparedPayment(harness), await preparedPayment(harness)];
    harness.faults.set({ mode: 'split-then-504', lagMs: HELD, next: 2 });
    expect((await submissionError(harness, first.tx)).response?.data).toEqual(TIMEOUT_PROBLEM);
    expect((await sendError(harness, second)).response?.status).toBe(504);
    expect(await transactionStatus(harness, first.hash)).toBe(404);
    expect(await statusOf(second.hash)).toBe(GetTransactionStatus.NOT_FOUND);
    expect((await harness.horizon.loadAccount(second.payer.publicKey())).sequence).toBe(second.tx.sequence);
    harness.faults.clear();
    expect(await transactionStatus(harness, first.hash)).toBe(200);
    expect(await statusOf(second.hash)).toBe(GetTransactionStatus.SUCCESS);
    expect(harness.faults.stats['split-then-504']).toBe(2);
  });
});
