import crypto from 'node:crypto';
import { adminToken, bearer, createUser } from '../helpers/factories';
import { fundedUser, userAwaitingActivation } from '../helpers/ledger-fixtures';
import { checkout, createIntent, supplyTokens } from '../helpers/payment-fixtures';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';

const { app } = withSandboxes({
  // Ledger closes every 200 ms, so submissions are in flight long enough to see a queue.
  ledger: { ledgerCloseMs: 200 },
  // One lane (no channel accounts): jobs queue behind the transaction in flight.
  app: { env: { LEDGER_CHANNELS: '0' } },
});

/** The value of one series in Prometheus text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(target: TestApp = app): Promise<string> {
  const res = await target.http.get('/metrics').expect(200);
  return res.text;
}

describe('GET /metrics', () => {
  it('answers the Prometheus text format with the process metrics and this app’s metrics', async () => {
    const res = await app.http.get('/metrics').expect(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    for (const name of ['process_cpu_user_seconds_total', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(sample(res.text, name)).toBeGreaterThanOrEqual(0);
    }
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(res.text).toContain('# TYPE ledger_submissions_total counter');
    expect(res.text).toContain('# TYPE payments_by_status gauge');
    expect(res.text).toContain('# TYPE ledger_submitter_queue_depth gauge');
  });

  it('times requests by route pattern, never by the raw URL, including errors and unmatched paths', async () => {
    const user = await createUser(app);
    await app.http.get(`/api/ledger/transactions/${user.userId}`).set(bearer(user.token)).expect(200);
    // Answered by the app-level error handler, after Express has left the router.
    await app.http.get(`/api/ledger/transactions/${crypto.randomUUID()}`).set(bearer(user.token)).expect(403);
    await app.http.get(`/api/no-such-route/${user.userId}`).expect(404);
    await app.http.get('/healthz').expect(200);

    const text = await scrape();
    const count = (route: string, status: string, method = 'GET') => sample(text, 'http_request_duration_seconds_count', { method, route, status });
    expect(count('/api/ledger/transactions/:userId', '200')).toBe(1);
    expect(count('/api/ledger/transactions/:userId', '403')).toBe(1);
    expect(count('/api/users/signup', '201', 'POST')).toBe(1);
    expect(count('(unmatched)', '404')).toBe(1);
    expect(count('/healthz', '200')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: '/healthz', le: '+Inf' })).toBe(1);
    expect(text).not.toContain(user.userId);
  });

  it('counts ledger submissions by result code', async () => {
    const alice = await fundedUser(app, 5);
    const bob = await createUser(app);
    // Both pass the balance check before anything is written; the ledger refuses the second.
    const answers = await Promise.all([3, 3].map((amount) => app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);

    const text = await scrape();
    // Bootstrap, two activations, create-asset, the mint and a transfer landed; the ledger refused the other.
    expect(sample(text, 'ledger_submissions_total', { result: 'tx_success' })).toBeGreaterThanOrEqual(5);
    expect(sample(text, 'ledger_submissions_total', { result: 'op_underfunded' })).toBe(1);
  });

  it('reports payments by status from the payments table', async () => {
    const idle = await scrape();
    for (const status of ['initialized', 'paid', 'minting', 'minted', 'failed']) expect(sample(idle, 'payments_by_status', { status })).toBe(0);

    await supplyTokens(app);
    const buyer = await createUser(app);
    const paid = await createIntent(app, buyer, 100);
    await createIntent(app, buyer, 50);
    expect(sample(await scrape(), 'payments_by_status', { status: 'initialized' })).toBe(2);

    await checkout(paid, 'pay');
    const verify = await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: paid.reference });
    expect(verify.body).toMatchObject({ success: true, amount: 100 });
    const text = await scrape();
    expect(sample(text, 'payments_by_status', { status: 'initialized' })).toBe(1);
    expect(sample(text, 'payments_by_status', { status: 'minted' })).toBe(1);
  });

  it("shows the distribution submitter's queue depth while jobs wait, and 0 once they are done", async () => {
    await createUser(app); // the ledger is bootstrapped and a submission has landed
    expect(sample(await scrape(), 'ledger_submitter_queue_depth')).toBe(0);

    // 300 fresh wallets activated at once: an envelope carries at most 20 signatures (18
    // activations) and the 8 channel lanes take one envelope each, so about half of them wait in the
    // queue until a lane's first transaction is back. The gauge is sampled until all are done.
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) ids.push(await userAwaitingActivation(app));
    let settled = false;
    const activations = Promise.all(ids.map((id) => app.container.activation.activateUser(id, { fresh: true }))).finally(() => {
      settled = true;
    });
    let during = 0;
    while (!settled) {
      during = Math.max(during, sample(await scrape(), 'ledger_submitter_queue_depth') ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await activations).toEqual(ids.map(() => true));

    expect(during).toBeGreaterThan(0);
    expect(sample(await scrape(), 'ledger_submitter_queue_depth')).toBe(0);
  });

  it('keeps one registry per app: another app does not see these requests', async () => {
    await app.http.get('/readyz');
    const other = await startTestApp();
    try {
      expect(sample(await scrape(other), 'http_request_duration_seconds_count', { route: '/readyz' })).toBeUndefined();
      expect(sample(await scrape(app), 'http_request_duration_seconds_count', { route: '/readyz' })).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('is public: no token needed', async () => {
    await app.http.get('/metrics').expect(200);
    const admin = await adminToken(app);
    await app.http.get('/metrics').set(bearer(admin)).expect(200);
  });
});
