import { adminToken, bearer, createUser, userFields } from '../helpers/factories';
import { clearOfRateWindowEdge } from '../helpers/rate-window';
import { shapeProblem, type ErrorShape } from '../helpers/route-inventory';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** The JSON body parser's limit (100 kB = 102400 bytes). */
const LIMIT = 100 * 1024;

/** A JSON body of exactly `bytes` bytes: {"pad":"xxx..."}. */
const bodyOf = (bytes: number) => `{"pad":"${'x'.repeat(bytes - 10)}"}`;

/**
 * One body-taking route per group, plus the raw webhook; `read` is the answer to a body at the limit,
 * which only comes once the body was read: the login routes validate it (400), the others ask for
 * the token or the signature (401).
 */
const GROUP_ROUTES: { path: string; shape: ErrorShape; read: number }[] = [
  { path: '/api/users/login', shape: 'error', read: 400 },
  { path: '/api/admin/login', shape: 'message', read: 400 },
  { path: '/api/ledger/transfer', shape: 'error', read: 401 },
  { path: '/api/payments/verify-payment', shape: 'payments', read: 401 },
  { path: '/api/payments/webhook', shape: 'payments', read: 401 },
];

let app: TestApp;
afterEach(async () => {
  await app.close();
});

describe('request bodies', () => {
  beforeEach(async () => {
    app = await startTestApp();
  });

  it.each(GROUP_ROUTES)('$path: one byte over 100 kB is 413 in the group shape, before any token is looked at; 100 kB is read', async ({ path, shape, read }) => {
    expect(Buffer.byteLength(bodyOf(LIMIT))).toBe(LIMIT);
    const over = await app.http.post(path).set('Content-Type', 'application/json').send(bodyOf(LIMIT + 1));
    expect(over.status).toBe(413);
    expect(shapeProblem(shape, over.body)).toBeUndefined();
    expect(JSON.stringify(over.body)).toMatch(/too large/i);
    const at = await app.http.post(path).set('Content-Type', 'application/json').send(bodyOf(LIMIT));
    expect(at.status).toBe(read);
  });

  it.each(GROUP_ROUTES.filter((r) => !r.path.endsWith('/webhook')))('$path: malformed JSON, unsupported charsets and encodings are 400 in the group shape', async ({ path, shape }) => {
    const cases: [string, Record<string, string>][] = [
      ['{"identifier": "a", ', { 'Content-Type': 'application/json' }],
      ['{"a":1}garbage', { 'Content-Type': 'application/json' }],
      ["{'single': 'quotes'}", { 'Content-Type': 'application/json' }],
      ['"a bare string"', { 'Content-Type': 'application/json' }], // strict: only objects and arrays
      ['{"a":1}', { 'Content-Type': 'application/json; charset=latin1' }],
      ['{"a":1}', { 'Content-Type': 'application/json', 'Content-Encoding': 'compress' }],
      ['not gzip at all', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }],
    ];
    for (const [body, headers] of cases) {
      const res = await app.http.post(path).set(headers).send(body);
      expect([body, headers, res.status]).toEqual([body, headers, 400]);
      expect(shapeProblem(shape, res.body)).toBeUndefined();
    }
  });

  it('answers a route that does not exist with 404 in its group shape, and elsewhere {error}', async () => {
    const cases: [string, string, ErrorShape][] = [
      ['patch', '/api/users/profile', 'error'],
      ['get', '/api/admin/nothing-here', 'message'],
      ['delete', '/api/ledger/transfer', 'error'],
      ['get', '/api/payments/nothing-here', 'payments'],
      ['get', '/nothing-here', 'error'],
    ];
    for (const [method, path, shape] of cases) {
      const res = await (app.http as unknown as Record<string, (p: string) => Promise<{ status: number; body: unknown }>>)[method]!(path);
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(shapeProblem(shape, res.body)).toBeUndefined();
    }
  });
});

describe('rate limits on credential routes', () => {
  beforeEach(() => clearOfRateWindowEdge());
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

describe('rate limits on every credential route', () => {
  beforeEach(() => clearOfRateWindowEdge());
  const LIMITED: { path: string; body: () => object; shape: ErrorShape }[] = [
    { path: '/api/users/signup', body: () => userFields(), shape: 'error' },
    { path: '/api/users/login', body: () => ({ identifier: 'nobody', password: 'password-1' }), shape: 'error' },
    { path: '/api/admin/login', body: () => ({ email: 'nobody@example.com', password: 'password-1' }), shape: 'message' },
    { path: '/api/users/send-reset-password-email', body: () => ({ email: 'nobody@example.com' }), shape: 'error' },
    { path: '/api/users/reset-password', body: () => ({ token: 'a.b.c', newPassword: 'password-1' }), shape: 'error' },
  ];

  it('answers 429 in the group shape past AUTH_RATE_LIMIT, with standard headers; each route counts alone', async () => {
    app = await startTestApp({ AUTH_RATE_LIMIT: '2' });
    for (const { path, body, shape } of LIMITED) {
      const answers: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await app.http.post(path).send(body());
        answers.push(res.status);
        if (i < 2) continue;
        expect(shapeProblem(shape, res.body)).toBeUndefined();
        expect(JSON.stringify(res.body)).toMatch(/too many requests/i);
        expect(res.headers['ratelimit-policy']).toBe('2;w=900');
        expect(res.headers.ratelimit).toMatch(/limit=2, remaining=0, reset=\d+/);
      }
      // Each route had its own fresh budget of 2, whatever the routes before it used.
      expect([path, answers[0] !== 429, answers[1] !== 429, answers[2]]).toEqual([path, true, true, 429]);
    }
  });

  it('does not limit other routes, and a spoofed X-Forwarded-For does not buy a new budget', async () => {
    app = await startTestApp({ AUTH_RATE_LIMIT: '2' });
    const user = await createUser(app); // signup 1, login 1
    for (let i = 0; i < 5; i++) await app.http.get('/api/users/profile').set(bearer(user.token)).expect(200);
    expect((await app.http.post('/api/users/login').send({ identifier: user.username, password: user.password })).status).toBe(200);
    const spoofed = await app.http.post('/api/users/login').set('X-Forwarded-For', '203.0.113.7').send({ identifier: user.username, password: user.password });
    expect(spoofed.status).toBe(429);
  });

  it('behind a trusted proxy (TRUST_PROXY), counts per client address', async () => {
    app = await startTestApp({ AUTH_RATE_LIMIT: '1', TRUST_PROXY: '1' });
    const attempt = (ip: string) => app.http.post('/api/admin/login').set('X-Forwarded-For', ip).send({ email: 'nobody@example.com', password: 'password-1' });
    expect((await attempt('203.0.113.1')).status).toBe(404);
    expect((await attempt('203.0.113.1')).status).toBe(429);
    expect((await attempt('203.0.113.2')).status).toBe(404);
  });
});

describe('CORS', () => {
  it('allows only the configured origins', async () => {
    app = await startTestApp({ CORS_ORIGINS: 'https://wallet.example' });
    const allowed = await app.http.options('/api/users/login').set('Origin', 'https://wallet.example').set('Access-Control-Request-Method', 'POST');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://wallet.example');
    const denied = await app.http.options('/api/users/login').set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'POST');
    expect(denied.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('grants nothing to a disallowed origin, on preflight or request, and exactly the configured origin otherwise', async () => {
    app = await startTestApp({ CORS_ORIGINS: 'https://wallet.example' });
    for (const origin of ['https://evil.example', 'https://wallet.example.evil.com', 'http://wallet.example', 'null']) {
      const preflight = await app.http
        .options('/api/ledger/transfer')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type,idempotency-key');
      expect([origin, preflight.headers['access-control-allow-origin']]).toEqual([origin, undefined]);
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
      const request = await app.http.post('/api/users/login').set('Origin', origin).send({ identifier: 'x', password: 'y' });
      expect(request.headers['access-control-allow-origin']).toBeUndefined();
    }
    const allowed = await app.http
      .options('/api/ledger/transfer')
      .set('Origin', 'https://wallet.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,content-type,idempotency-key');
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://wallet.example');
    expect(allowed.headers.vary).toMatch(/Origin/);
    expect(allowed.headers['access-control-allow-headers']).toMatch(/authorization/i);
    const actual = await app.http.get('/healthz').set('Origin', 'https://wallet.example');
    expect(actual.headers['access-control-expose-headers']).toBe('X-Request-Id,X-Total-Count');
  });

  it('grants no origin at all when CORS_ORIGINS is unset', async () => {
    app = await startTestApp();
    const preflight = await app.http.options('/api/users/login').set('Origin', 'http://localhost:3000').set('Access-Control-Request-Method', 'POST');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
  });
});

describe('security headers', () => {
  it('sends helmet headers and no X-Powered-By', async () => {
    app = await startTestApp();
    const res = await app.http.get('/healthz');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('are on every kind of answer: JSON, errors, HTML pages, scripts; secrets and payment pages are never cached', async () => {
    app = await startTestApp();
    const user = await createUser(app);
    const admin = await adminToken(app);
    const answers = {
      json: await app.http.get('/healthz'),
      error: await app.http.post('/api/users/login').send({}),
      unauthorized: await app.http.get('/api/admin/users'),
      profile: await app.http.get('/api/users/profile').set(bearer(user.token)),
      wallet: await app.http.get(`/api/admin/users/${user.userId}/wallet`).set(bearer(admin)),
      callback: await app.http.get('/api/payments/callback'),
      resetPage: await app.http.get('/reset-password'),
      script: await app.http.get('/assets/reset-password.js'),
      notFound: await app.http.get('/nothing'),
    };
    for (const [name, res] of Object.entries(answers)) {
      const h = res.headers;
      const seen = {
        nosniff: h['x-content-type-options'],
        csp: /default-src 'self'/.test(h['content-security-policy'] ?? '') && /frame-ancestors 'self'/.test(h['content-security-policy'] ?? ''),
        hsts: /max-age=\d+/.test(h['strict-transport-security'] ?? ''),
        frame: h['x-frame-options'],
        referrer: h['referrer-policy'],
        poweredBy: h['x-powered-by'],
        requestId: /^[0-9a-f-]{36}$/.test(h['x-request-id'] ?? ''),
      };
      expect([name, seen]).toEqual([name, { nosniff: 'nosniff', csp: true, hsts: true, frame: 'SAMEORIGIN', referrer: 'no-referrer', poweredBy: undefined, requestId: true }]);
    }
    for (const name of ['profile', 'wallet', 'callback', 'resetPage'] as const) {
      expect([name, answers[name].headers['cache-control']]).toEqual([name, 'no-store']);
    }
  });

  it('echoes a sane X-Request-Id and replaces anything else', async () => {
    app = await startTestApp();
    expect((await app.http.get('/healthz').set('X-Request-Id', 'trace-123.abc_DEF')).headers['x-request-id']).toBe('trace-123.abc_DEF');
    for (const hostile of ['a'.repeat(65), 'has space', '<script>', 'x;y', '../../x%0d%0a']) {
      const id = (await app.http.get('/healthz').set('X-Request-Id', hostile)).headers['x-request-id'];
      expect([hostile, /^[0-9a-f-]{36}$/.test(id ?? '')]).toEqual([hostile, true]);
    }
  });
});
