import { balancesOf, startSandbox, type SandboxHarness } from './sandbox-harness';
import {
  TIMEOUT_PROBLEM,
  getJson,
  preparedPayment,
  submissionError,
  transactionStatus,
  until,
} from './fault-helpers';

let harness: SandboxHarness;

beforeAll(async () => {
  harness = await startSandbox();
});

afterEach(() => harness.faults.clear());

afterAll(() => harness.close());

describe('apply-then-504', () => {
  it('applies the transaction and answers with Horizon\'s timeout problem; the same envelope then gets its stored result', async () => {
    const { payee, tx, hash } = await preparedPayment(harness);
    const drawn = harness.faults.stats['apply-then-504'];
    harness.faults.set({ mode: 'apply-then-504' });

    const error = await submissionError(harness, tx);

    expect(error.response?.status).toBe(504);
    expect(error.response?.headers['content-type']).toContain('application/problem+json');
    expect(error.response?.data).toEqual(TIMEOUT_PROBLEM);
    expect(harness.faults.stats['apply-then-504']).toBe(drawn + 1);
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: '10005.0000000' });
    const record = await harness.horizon.transactions().transaction(hash).call();
    expect(record.successful).toBe(true);

    // what a careful client does next: resubmit exactly the same envelope
    harness.faults.clear();
    const resubmitted = await harness.horizon.submitTransaction(tx);
    expect(resubmitted).toMatchObject({ hash, ledger: record.ledger_attr, successful: true });
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: '10005.0000000' });
  });
});

describe('apply-then-reset', () => {
  it('applies the transaction and drops the connection without an answer', async () => {
    const { payee, tx, hash } = await preparedPayment(harness);
    harness.faults.set({ mode: 'apply-then-reset' });

    const error = await submissionError(harness, tx);

    expect(error.response).toBeUndefined();
    expect(error.code).toBe('ECONNRESET');
    expect(await transactionStatus(harness, hash)).toBe(200);
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: '10005.0000000' });
  });
});

describe('apply-then-502', () => {
  it('applies the transaction and answers with a proxy\'s HTML error page', async () => {
    const { payee, tx, hash } = await preparedPayment(harness);
    harness.faults.set({ mode: 'apply-then-502' });

    const error = await submissionError(harness, tx);

    expect(error.response?.status).toBe(502);
    expect(error.response?.headers['content-type']).toContain('text/html');
    expect(error.response?.data).toEqual(expect.stringContaining('<title>502 Bad Gateway</title>'));
    expect(await transactionStatus(harness, hash)).toBe(200);
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: '10005.0000000' });
  });
});

describe('refuse-503', () => {
  it('answers 503 without applying: sequence, balances and history unchanged, and the envelope stays valid', async () => {
    const { payer, payee, tx, hash } = await preparedPayment(harness);
    const sequenceBefore = (await harness.horizon.loadAccount(payer.publicKey())).sequence;
    const latestBefore = (await getJson(harness, '/')).body.history_latest_ledger;
    harness.faults.set({ mode: 'refuse-503' });

    const error = await submissionError(harness, tx);

    expect(error.response?.status).toBe(503);
    expect(error.response?.headers['content-type']).toContain('application/problem+json');
    expect(error.response?.data).toMatchObject({
      type: 'https://stellar.org/horizon-errors/service_unavailable',
      title: 'Service Unavailable',
      status: 503,
      detail: expect.stringContaining('historical database is too far behind'),
    });
    expect((await harness.horizon.loadAccount(payer.publicKey())).sequence).toBe(sequenceBefore);
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: '10000.0000000' });
    expect(await transactionStatus(harness, hash)).toBe(404);
    expect((await getJson(harness, '/')).body.history_latest_ledger).toBe(latestBefore);

    harness.faults.clear();
    await expect(harness.horizon.submitTransaction(tx)).resolves.toMatchObject({ hash, successful: true });
  });
});

describe('slow', () => {
  it('applies at once and holds the answer back: the transaction is on the ledger while its submitter waits', async () => {
    const { payee, tx, hash } = await preparedPayment(harness);
    // Held for a minute, far longer than the lookups below take on any machine; once they have seen
    // the transaction the submitter stops waiting (the sandbox's timer runs out on its own).
    harness.faults.set({ mode: 'slow', slowMs: 60_000, next: 1 });
    const submitter = new AbortController();
    let answered = false;
    const submission = fetch(`${harness.url}/transactions`, { method: 'POST', body: new URLSearchParams({ tx: tx.toXDR() }), signal: submitter.signal }).then(
      () => (answered = true),
      () => undefined,
    );

    await until(async () => ((await transactionStatus(harness, hash)) === 200 ? true : undefined), 'the transaction to apply');

    expect(answered).toBe(false);
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: '10005.0000000' });
    submitter.abort();
    await submission;
  });

  it('answers with the usual success, late', async () => {
    const { tx, hash } = await preparedPayment(harness);
    const drawn = harness.faults.stats.slow;
    harness.faults.set({ mode: 'slow', slowMs: 50, next: 1 });

    await expect(harness.horizon.submitTransaction(tx)).resolves.toMatchObject({ hash, successful: true });
    expect(harness.faults.stats.slow).toBe(drawn + 1);
  });
});
