import { clearOfRateWindowEdge } from '../helpers/rate-window';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** Two processes of the service on one database, as behind a load balancer. */
let a: TestApp;
let b: TestApp;

const LIMITS = { AUTH_RATE_LIMIT: '3', CALLBACK_RATE_LIMIT: '2', WEBHOOK_RATE_LIMIT: '2' };

beforeEach(async () => {
  a = await startTestApp(LIMITS);
  b = await startTestApp(LIMITS, 'silent', { reset: false });
});
afterEach(async () => {
  await b.close();
  await a.close();
});

describe('rate limits counted in the database, shared by every process', () => {
  beforeEach(() => clearOfRateWindowEdge());
  it('a client spreading logins over two processes gets 429 after the one shared budget', async () => {
    const login = (app: TestApp) => app.http.post('/api/users/login').send({ identifier: 'nobody', password: 'password-1' });
    expect((await login(a)).status).toBe(401);
    expect((await login(b)).status).toBe(401);
    expect((await login(a)).status).toBe(401);
    const limited = await login(b);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Too many requests, try again later' });
    expect(limited.headers.ratelimit).toMatch(/limit=3, remaining=0, reset=\d+/);
    // Another route keeps its own budget.
    expect((await a.http.post('/api/admin/login').send({ email: 'nobody@example.com', password: 'password-1' })).status).toBe(404);
  });

  it('limits the public payment callback (an HTML page) and the webhook ({success:false}) across processes', async () => {
    const callback = (app: TestApp) => app.http.get('/api/payments/callback?reference=wlt-unknown');
    expect((await callback(a)).status).toBe(404);
    expect((await callback(b)).status).toBe(404);
    const page = await callback(a);
    expect(page.status).toBe(429);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toMatch(/Too many requests/);

    const webhook = (app: TestApp) => app.http.post('/api/payments/webhook').set('Content-Type', 'application/json').send('{}');
    expect((await webhook(b)).status).toBe(401);
    expect((await webhook(a)).status).toBe(401);
    const refused = await webhook(b);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, message: 'Too many requests, try again later' });
  });
});
