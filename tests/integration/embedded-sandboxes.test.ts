import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import { EMBEDDED_LEDGER_PASSPHRASE } from '../../src/config/outside-systems';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Nothing configured for the ledger or the provider: the service loads the sandbox workspaces and
// serves them on its own port, ahead of its middleware, as the outside systems they stand for.
const NOTHING_CONFIGURED = { STELLAR_RPC_URL: '', HORIZON_URL: '', STELLAR_NETWORK_PASSPHRASE: '', PAYSTACK_SECRET_KEY: '' };
const UNKNOWN_ACCOUNT = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';

describe('the embedded sandboxes', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(NOTHING_CONFIGURED, 'info');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('speaks Stellar RPC to the ledger at /sandbox/rpc, serves Horizon beside it at /sandbox/horizon, on the network the service signs for', async () => {
    const horizon = await app.http.get('/sandbox/horizon/').expect(200);
    const rpc = await app.http.post('/sandbox/rpc').send({ jsonrpc: '2.0', id: 1, method: 'getNetwork' }).expect(200);

    expect(app.container.config.ledger).toMatchObject({ api: 'rpc', url: expect.stringMatching(/\/sandbox\/rpc$/) });
    expect(app.container.ledgerModule.client.kind).toBe('rpc');
    expect(horizon.body.network_passphrase).toBe(app.container.config.ledger.networkPassphrase);
    expect(rpc.body.result.passphrase).toBe(app.container.config.ledger.networkPassphrase);
    expect(EMBEDDED_LEDGER_PASSPHRASE).toBe(SANDBOX_NETWORK_PASSPHRASE);
  });

  it('serves the provider at /sandbox/paystack behind the secret the service was given', async () => {
    const { secretKey } = app.container.config.payments.provider;

    const unknown = await app.http.get('/sandbox/paystack/transaction/verify/no-such-ref').set('Authorization', `Bearer ${secretKey}`);
    const unauthorised = await app.http.get('/sandbox/paystack/transaction/verify/no-such-ref');

    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ status: false });
    expect(unauthorised.status).toBe(401);
  });

  it("keeps sandbox requests out of the service's request logs, metrics and headers", async () => {
    const sandboxRequests = [
      await app.http.get('/sandbox/horizon/'),
      await app.http.get(`/sandbox/horizon/accounts/${UNKNOWN_ACCOUNT}`),
      await app.http.get('/sandbox/paystack/transaction/verify/no-such-ref'),
      await app.http.get('/sandbox/paystack/no-such-page'),
    ];
    await app.http.get('/healthz').expect(200);

    expect(sandboxRequests.map((res) => res.status)).toEqual([200, 404, 401, 404]);
    for (const res of sandboxRequests) expect(res.headers['x-request-id']).toBeUndefined();
    const metrics = (await app.http.get('/metrics').expect(200)).text;
    const timedRoutes = metrics
      .split('\n')
      .filter((line) => line.startsWith('http_request_duration_seconds_count'))
      .map((line) => /route="([^"]*)"/.exec(line)?.[1]);
    expect(timedRoutes).toEqual(['/healthz']);
    const requestLines = app.logs.map((line) => JSON.parse(line) as { msg: string; req?: { path: string } }).filter((line) => line.req);
    expect(requestLines.map((line) => line.req?.path)).toContain('/healthz');
    expect(requestLines.filter((line) => line.req?.path.startsWith('/sandbox'))).toEqual([]);
  });
});

describe('with STELLAR_RPC_URL and PAYSTACK_SECRET_KEY set', () => {
  it('serves no sandbox: their paths are the service’s own 404', async () => {
    const app = await startTestApp();
    try {
      for (const path of ['/sandbox/horizon/', '/sandbox/rpc', '/sandbox/paystack/transaction/verify/x']) {
        const res = await app.http.get(path).expect(404);
        expect(res.body).toEqual({ error: 'Not found' });
        expect(res.headers['x-request-id']).toBeDefined();
      }
    } finally {
      await app.close();
    }
  });
});
