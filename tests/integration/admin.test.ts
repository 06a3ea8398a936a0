import { sql } from 'drizzle-orm';
import jwt from 'jsonwebtoken';
import { ledgerEntries as transactions } from '../../src/db/schema';
import { ADMIN, adminToken, bearer, createUser } from '../helpers/factories';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../helpers/test-app';

let app: TestApp;
let token: string;
beforeEach(async () => {
  app = await startTestApp();
  token = await adminToken(app);
});
afterEach(async () => {
  await app.close();
});

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

describe('POST /api/admin/login', () => {
  it('issues a two-hour admin token', async () => {
    const res = await app.http.post('/api/admin/login').send(ADMIN).expect(200);
    expect(res.body).toEqual({ message: expect.any(String), token: expect.any(String) });
    const claims = jwt.verify(res.body.token, TEST_JWT_SECRET) as jwt.JwtPayload;
    expect(claims.role).toBe('admin');
    expect(claims.exp! - claims.iat!).toBe(7200);
  });

  it('answers an unknown e-mail with 404 {message} and a wrong password with 401 {message}', async () => {
    const unknown = await app.http.post('/api/admin/login').send({ email: 'ghost@example.com', password: 'whatever-1' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Admin not found' });
    const wrong = await app.http.post('/api/admin/login').send({ email: ADMIN.email, password: 'wrong-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: 'Invalid credentials' });
  });

  it('rejects bad input with 400 {message, details}', async () => {
    const res = await app.http.post('/api/admin/login').send({ email: { $ne: null }, password: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Invalid request', details: expect.any(Array) });
  });
});

describe('POST /api/admin/provision', () => {
  it('creates an admin who can log in', async () => {
    const res = await app.http.post('/api/admin/provision').set(bearer(token)).send({ email: 'Second@Example.com', password: 'second-admin-pw' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ message: expect.any(String), adminId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    await app.http.post('/api/admin/login').send({ email: 'second@example.com', password: 'second-admin-pw' }).expect(200);
  });

  it('answers a duplicate with 409 {message}', async () => {
    const res = await app.http.post('/api/admin/provision').set(bearer(token)).send(ADMIN);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: expect.any(String) });
  });

  it('refuses a user token with 403 {message} and no token with 401 {message}', async () => {
    const user = await createUser(app);
    const asUser = await app.http.post('/api/admin/provision').set(bearer(user.token)).send({ email: 'x@example.com', password: 'password-123' });
    expect(asUser.status).toBe(403);
    expect(asUser.body).toEqual({ message: expect.any(String) });
    const anonymous = await app.http.post('/api/admin/provision').send({ email: 'x@example.com', password: 'password-123' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: expect.any(String) });
  });
});

describe('GET /api/admin/users', () => {
  it('lists users without secrets, paginated, with the total in X-Total-Count', async () => {
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await createUser(app));
    const res = await app.http.get('/api/admin/users?limit=2&offset=1').set(bearer(token)).expect(200);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toEqual({
      userId: created[1]!.userId,
      username: created[1]!.username,
      email: created[1]!.email,
      firstName: 'Ada',
      lastName: 'Lovelace',
      ledgerPublicKey: created[1]!.ledgerPublicKey,
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/password|Secret|S[A-Z2-7]{55}/);
  });

  it.each(['limit=0', 'limit=1001', 'offset=-1', 'limit=abc', 'sort=name'])('rejects ?%s with 400', async (query) => {
    const res = await app.http.get(`/api/admin/users?${query}`).set(bearer(token));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid request');
  });
});

describe('PUT /api/admin/users/:userId', () => {
  it('changes only the fields sent', async () => {
    const user = await createUser(app);
    await app.http.put(`/api/admin/users/${user.userId}`).set(bearer(token)).send({ firstName: 'Grace' }).expect(200);
    const [row] = (await app.container.admins.listUsers(10, 0)).items;
    expect(row).toMatchObject({ firstName: 'Grace', lastName: 'Lovelace', username: user.username, email: user.email });
  });

  it('answers a taken username or e-mail with 409 {message}', async () => {
    const a = await createUser(app);
    const b = await createUser(app);
    const res = await app.http.put(`/api/admin/users/${b.userId}`).set(bearer(token)).send({ email: a.email });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: 'Username or email already taken' });
    const name = await app.http.put(`/api/admin/users/${b.userId}`).set(bearer(token)).send({ username: a.username.toUpperCase() });
    expect(name.status).toBe(409);
  });

  it('answers an unknown user with 404 {message}', async () => {
    const res = await app.http.put(`/api/admin/users/${MISSING_ID}`).set(bearer(token)).send({ firstName: 'X' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'User not found' });
  });

  it.each([
    ['an empty body', {}],
    ['a password', { password: 'new-password-1' }],
    ['a wrong type', { firstName: 42 }],
    ['an operator object', { email: { $gt: '' } }],
  ])('rejects %s with 400 and changes nothing', async (_name, body) => {
    const user = await createUser(app);
    const res = await app.http.put(`/api/admin/users/${user.userId}`).set(bearer(token)).send(body);
    expect(res.status).toBe(400);
    const [row] = (await app.container.admins.listUsers(10, 0)).items;
    expect(row).toMatchObject({ firstName: 'Ada', email: user.email });
  });

  it('rejects a malformed user id with 400', async () => {
    const res = await app.http.put('/api/admin/users/not-a-uuid').set(bearer(token)).send({ firstName: 'X' });
    expect(res.status).toBe(400);
  });
});

describe('DELETE /api/admin/users/:userId', () => {
  it('deletes the account, archives the wallet key and keeps the transaction history', async () => {
    const user = await createUser(app);
    await app.container.database.db.insert(transactions).values({
      kind: 'transfer',
      status: 'confirmed',
      ledgerTransactionId: 'a'.repeat(64),
      fromPublicKey: user.ledgerPublicKey,
      toPublicKey: 'GDEST',
      amountStroops: 10_000_000n,
      assetCode: 'WLT',
      userId: user.userId,
    });
    await app.http.delete(`/api/admin/users/${user.userId}`).set(bearer(token)).expect(200, { message: 'User deleted successfully' });
    await app.http.post('/api/users/login').send({ identifier: user.username, password: user.password }).expect(401);
    const archived = await app.container.database.db.execute(sql`select public_key, secret_ciphertext from archived_wallets`);
    const rows = (Array.isArray(archived) ? archived : (archived as { rows: unknown[] }).rows) as { public_key: string; secret_ciphertext: string }[];
    expect(rows).toEqual([{ public_key: user.ledgerPublicKey, secret_ciphertext: expect.stringMatching(/^v1\./) }]);
    const history = await app.http.get(`/api/admin/users/${user.userId}/transactions`).set(bearer(token)).expect(200);
    expect(history.body).toHaveLength(1);
    expect(history.body[0].direction).toBe('out'); // seen from the archived wallet's side
    const all = await app.http.get('/api/admin/transactions').set(bearer(token)).expect(200);
    expect(all.body[0].user).toBeNull();
  });

  it('answers an unknown user with 404 {message}', async () => {
    const res = await app.http.delete(`/api/admin/users/${MISSING_ID}`).set(bearer(token));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'User not found' });
  });
});

describe('GET /api/admin/users/:userId/wallet', () => {
  it("returns the user's keys, never cached", async () => {
    const user = await createUser(app);
    const res = await app.http.get(`/api/admin/users/${user.userId}/wallet`).set(bearer(token)).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ ledgerPublicKey: user.ledgerPublicKey, ledgerSecretKey: expect.stringMatching(/^S[A-Z2-7]{55}$/) });
  });

  it('answers an unknown user with 404 {message}', async () => {
    expect((await app.http.get(`/api/admin/users/${MISSING_ID}/wallet`).set(bearer(token))).status).toBe(404);
  });
});

describe('transaction lists', () => {
  it('list all records newest first with the owner nested as user, and one user\'s records', async () => {
    const a = await createUser(app);
    const b = await createUser(app);
    const db = app.container.database.db;
    const base = Date.UTC(2026, 0, 1);
    for (const [i, owner] of [a, b, a].entries()) {
      await db.insert(transactions).values({
        kind: 'transfer',
        status: 'confirmed',
        ledgerTransactionId: String(i).repeat(64),
        fromPublicKey: owner.ledgerPublicKey,
        toPublicKey: 'GDEST',
        amountStroops: 12_345_678n * BigInt(i + 1),
        assetCode: 'WLT',
        userId: owner.userId,
        createdAt: new Date(base + i * 1000),
      });
    }
    const all = await app.http.get('/api/admin/transactions').set(bearer(token)).expect(200);
    expect(all.headers['x-total-count']).toBe('3');
    expect(all.body.map((t: { ledgerTransactionId: string }) => t.ledgerTransactionId[0])).toEqual(['2', '1', '0']);
    expect(all.body[0]).toEqual({
      transactionId: expect.any(String),
      ledgerTransactionId: '2'.repeat(64),
      from: a.ledgerPublicKey,
      to: 'GDEST',
      assetAmount: 3.7037034,
      assetCode: 'WLT',
      userId: a.userId,
      createdAt: new Date(base + 2000).toISOString(),
      status: 'confirmed',
      origin: 'service',
      user: { username: a.username, email: a.email },
    });
    const mine = await app.http.get(`/api/admin/users/${a.userId}/transactions`).set(bearer(token)).expect(200);
    expect(mine.body.map((t: { assetAmount: number }) => t.assetAmount)).toEqual([3.7037034, 1.2345678]);
    expect(mine.body[0].user).toBeUndefined();
    expect(mine.body.map((t: { direction: string; origin: string }) => [t.direction, t.origin])).toEqual([
      ['out', 'service'],
      ['out', 'service'],
    ]);
  });

  it('answers an unknown user with 404 {message}', async () => {
    const res = await app.http.get(`/api/admin/users/${MISSING_ID}/transactions`).set(bearer(token));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'User not found' });
  });
});
