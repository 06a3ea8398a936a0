import { ConfigError, parseEnv } from '../../src/config/env';
import { countRows } from '../helpers/database-state';
import { adminToken, bearer, createUser } from '../helpers/factories';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function paymentCount(target: TestApp): Promise<number> {
  return countRows(target.container.database, 'payments');
}

describe('strict inputs (CONTRACT 5)', () => {
  it('create-asset refuses a JSON number amount with 400 in the ledger shape, before the ledger', async () => {
    app = await startTestApp();
    const admin = await adminToken(app);
    const res = await app.http
      .post('/api/ledger/create-asset')
      .set(bearer(admin))
      .set('Content-Type', 'application/json')
      .send('{"assetCode":"WLT","amount":1000}');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String), details: [{ path: 'body.amount', message: expect.stringMatching(/decimal string/) }] });
  });

  it.each(['0', '0.0', '0.0000000'])('refuses to start with TOKENS_PER_NAIRA=%s, naming it', (value) => {
    expect(() => parseEnv({ TOKENS_PER_NAIRA: value })).toThrow(ConfigError);
    expect(() => parseEnv({ TOKENS_PER_NAIRA: value })).toThrow(/TOKENS_PER_NAIRA/);
  });

  it('create-payment-intent refuses an amount that would mint 0 stroops, before the provider, keeping nothing', async () => {
    app = await startTestApp({ TOKENS_PER_NAIRA: '0.0000001' });
    const user = await createUser(app);
    const res = await app.http.post('/api/payments/create-payment-intent').set(bearer(user.token)).send({ amount: 0.5 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message: expect.stringMatching(/too small/) });
    expect(await paymentCount(app)).toBe(0);
  });
});
