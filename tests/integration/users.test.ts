import jwt from 'jsonwebtoken';
import { adminToken, bearer, createUser, userFields } from '../helpers/factories';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeEach(async () => {
  app = await startTestApp();
});
afterEach(async () => {
  await app.close();
});

describe('POST /api/users/signup', () => {
  it('creates the account with a wallet and answers 201 with the userId', async () => {
    const fields = userFields();
    const res = await app.http.post('/api/users/signup').send(fields).expect(201);
    expect(res.body).toEqual({ message: expect.any(String), userId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const wallet = await app.container.wallets.findByUserId(res.body.userId);
    expect(wallet?.publicKey).toMatch(/^G[A-Z2-7]{55}$/);
    expect(wallet?.status).toBe('pending');
  });

  it('rejects a duplicate e-mail (any case) or username with 400 {error}', async () => {
    const first = await createUser(app);
    const sameEmail = await app.http.post('/api/users/signup').send(userFields({ email: first.email.toUpperCase() }));
    expect(sameEmail.status).toBe(400);
    expect(sameEmail.body).toEqual({ error: 'Email or username already exists' });
    const sameName = await app.http.post('/api/users/signup').send(userFields({ username: first.username.toUpperCase() }));
    expect(sameName.status).toBe(400);
    expect(sameName.body.error).toBe('Email or username already exists');
  });

  it('lets exactly one of two concurrent signups with one e-mail succeed', async () => {
    const email = 'race@example.com';
    const results = await Promise.all([
      app.http.post('/api/users/signup').send(userFields({ email })),
      app.http.post('/api/users/signup').send(userFields({ email })),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
    const listing = await app.http.get('/api/admin/users').set(bearer(await adminToken(app)));
    expect(listing.body.filter((u: { email: string }) => u.email === email)).toHaveLength(1);
  });

  it.each([
    ['a missing field', { username: 'bob_1', email: 'bob@example.com', password: 'password123', firstName: 'Bob' }],
    ['a wrong type', { ...userFields(), password: 12345678 }],
    ['an operator object', { ...userFields(), email: { $gt: '' } }],
    ['an unknown field', { ...userFields(), role: 'admin' }],
    ['a too long username', { ...userFields(), username: 'x'.repeat(31) }],
    ['a short password', { ...userFields(), password: 'short' }],
    ['a password over 72 bytes', { ...userFields(), password: 'é'.repeat(37) }],
    ['a bad e-mail', { ...userFields(), email: 'not-an-email' }],
    ['an empty first name', { ...userFields(), firstName: '   ' }],
    ['an array body', [userFields()]],
  ])('rejects %s with 400 {error, details} and creates nothing', async (_case, body) => {
    const res = await app.http.post('/api/users/signup').send(body as object);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid request', details: expect.any(Array) });
    expect((await app.container.admins.listUsers(10, 0)).total).toBe(0);
  });

  it('answers malformed JSON with 400 in the group shape', async () => {
    const res = await app.http.post('/api/users/signup').set('Content-Type', 'application/json').send('{"username": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Malformed JSON body' });
  });

  it('answers a body over 100 kB with 413 in the group shape', async () => {
    const res = await app.http.post('/api/users/signup').send({ ...userFields(), firstName: 'x'.repeat(110_000) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'Request body too large' });
  });
});

describe('POST /api/users/login', () => {
  it('logs in by username or e-mail with a one-hour token and the profile', async () => {
    const user = await createUser(app);
    for (const identifier of [user.username, user.email, user.email.toUpperCase()]) {
      const res = await app.http.post('/api/users/login').send({ identifier, password: user.password }).expect(200);
      expect(res.body.profile).toEqual({
        username: user.username,
        email: user.email,
        firstName: user.firstName,
        lastName: user.lastName,
        ledgerPublicKey: user.ledgerPublicKey,
      });
      const claims = jwt.verify(res.body.token, TEST_JWT_SECRET) as jwt.JwtPayload;
      expect(claims).toMatchObject({ sub: user.userId, role: 'user' });
      expect(claims.exp! - claims.iat!).toBe(3600);
    }
  });

  it('answers a wrong password and an unknown identifier alike: 401 Invalid credentials', async () => {
    const user = await createUser(app);
    const wrong = await app.http.post('/api/users/login').send({ identifier: user.username, password: 'wrong-password' });
    const unknown = await app.http.post('/api/users/login').send({ identifier: 'nobody', password: 'wrong-password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid credentials' });
    expect(unknown.body).toEqual(wrong.body);
  });

  it('rejects an operator object as identifier with 400', async () => {
    const res = await app.http.post('/api/users/login').send({ identifier: { $gt: '' }, password: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid request');
  });
});

describe('GET /api/users/profile', () => {
  it('returns the profile with both wallet keys, never cached', async () => {
    const user = await createUser(app);
    const res = await app.http.get('/api/users/profile').set(bearer(user.token)).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      username: user.username,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      ledgerPublicKey: user.ledgerPublicKey,
      ledgerSecretKey: expect.stringMatching(/^S[A-Z2-7]{55}$/),
    });
    const { Keypair } = await import('@stellar/stellar-sdk');
    expect(Keypair.fromSecret(res.body.ledgerSecretKey).publicKey()).toBe(user.ledgerPublicKey);
  });

  it('refuses the secret over plain HTTP when HTTPS is required, and honours X-Forwarded-Proto behind a trusted proxy', async () => {
    await app.close();
    app = await startTestApp({ REQUIRE_HTTPS_FOR_SECRETS: 'true', TRUST_PROXY: 'loopback' });
    const user = await createUser(app);
    const plain = await app.http.get('/api/users/profile').set(bearer(user.token));
    expect(plain.status).toBe(403);
    expect(plain.body.error).toMatch(/HTTPS/);
    await app.http.get('/api/users/profile').set(bearer(user.token)).set('X-Forwarded-Proto', 'https').expect(200);
  });

  describe('authentication', () => {
    const sign = (claims: object, secret = TEST_JWT_SECRET, options: jwt.SignOptions = {}) =>
      jwt.sign(claims, secret, { algorithm: 'HS256', ...options });

    it('401 without a token, with garbage, a wrong signature, an expired token or alg none', async () => {
      const user = await createUser(app);
      const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
        JSON.stringify({ sub: user.userId, role: 'user', iat: 1, exp: 9999999999 }),
      ).toString('base64url')}.`;
      const cases: Record<string, string | undefined> = {
        none: undefined,
        garbage: 'Bearer not-a-token',
        wrongScheme: `Basic ${user.token}`,
        wrongSignature: `Bearer ${sign({ sub: user.userId, role: 'user' }, 'another-secret-another-secret-another!')}`,
        expired: `Bearer ${sign({ sub: user.userId, role: 'user', iat: 1000, exp: 2000 })}`,
        algNone: `Bearer ${none}`,
      };
      for (const [name, header] of Object.entries(cases)) {
        const req = app.http.get('/api/users/profile');
        const res = header ? await req.set('Authorization', header) : await req;
        expect({ name, status: res.status, hasError: typeof res.body.error }).toEqual({ name, status: 401, hasError: 'string' });
      }
    });

    it('accepts the bearer scheme in any case (RFC 7235)', async () => {
      const user = await createUser(app);
      await app.http.get('/api/users/profile').set('Authorization', `bearer ${user.token}`).expect(200);
    });

    it('403 for an admin token on a user route', async () => {
      const res = await app.http.get('/api/users/profile').set(bearer(await adminToken(app)));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: expect.any(String) });
    });

    it("401 for a deleted user's token", async () => {
      const user = await createUser(app);
      await app.http.delete(`/api/admin/users/${user.userId}`).set(bearer(await adminToken(app))).expect(200);
      const res = await app.http.get('/api/users/profile').set(bearer(user.token));
      expect(res.status).toBe(401);
    });

    it('401 for a password-reset token used as a bearer token', async () => {
      const user = await createUser(app);
      const { token } = app.container.tokens.issueReset(user.userId);
      expect((await app.http.get('/api/users/profile').set(bearer(token))).status).toBe(401);
    });
  });
});

describe('unknown routes', () => {
  it('answer a JSON 404 in the group shape', async () => {
    expect((await app.http.get('/api/users/nothing-here')).body).toEqual({ error: 'Not found' });
    expect((await app.http.get('/api/admin/nothing-here')).body).toEqual({ message: 'Not found' });
    const other = await app.http.get('/elsewhere');
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: 'Not found' });
  });

  it('carry an X-Request-Id, echoing a sane incoming one', async () => {
    const res = await app.http.get('/healthz').set('X-Request-Id', 'abc-123');
    expect(res.headers['x-request-id']).toBe('abc-123');
    const generated = await app.http.get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
