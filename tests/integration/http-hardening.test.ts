import { userFields } from '../helpers/factories';
import { startLedgerSandbox } from '../helpers/sandboxes';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
afterEach(async () => {
  await app.close();
});

describe('rate limits on credential routes', () => {
  it('answers 429 in the group shape past AUTH_RATE_LIMIT per IP, per route', async () => {
    app = await startTestApp({ AUTH_RATE_LIMIT: '3' });
    const attempt = () => app.http.post('/api/users/login').send({ identifier: 'someone', password: 'password-1' });
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: expect.stringMatching(/too many/i) });
    const adminLimited = [];
    for (let i = 0; i < 4; i++) adminLimited.push((await app.http.post('/api/admin/login').send({ email: 'a@example.com', password: 'x' })).status);
    expect(adminLimited).toEqual([404, 404, 404, 429]);
    // Signup keeps its own budget.
    expect((await app.http.post('/api/users/signup').send(userFields())).status).toBe(201);
  });
});

describe('security headers and CORS', () => {
  it('sends helmet headers and no X-Powered-By', async () => {
    app = await startTestApp();
    const res = await app.http.get('/healthz');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['strict-transport-security']).toBeDefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('allows only the configured origins', async () => {
    app = await startTestApp({ CORS_ORIGINS: 'https://wallet.example' });
    const allowed = await app.http.options('/api/users/login').set('Origin', 'https://wallet.example').set('Access-Control-Request-Method', 'POST');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://wallet.example');
    const denied = await app.http.options('/api/users/login').set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'POST');
    expect(denied.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('health', () => {
  it('reports liveness always, and readiness only while the ledger is reachable', async () => {
    const ledger = await startLedgerSandbox();
    try {
      app = await startTestApp(ledger.env);
      await app.http.get('/healthz').expect(200, { status: 'ok' });
      await app.http.get('/readyz').expect(200, { status: 'ready' });
      await ledger.stop();
      await app.http.get('/healthz').expect(200, { status: 'ok' });
      await app.http.get('/readyz').expect(503, { status: 'unavailable' });
    } finally {
      await ledger.stop();
    }
  });
});
