import { signPaystackPayload } from '@wallet/paystack-sandbox';
import { sql } from 'drizzle-orm';
import { queryRows } from '../helpers/database-state';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import {
  allPayments,
  chargeSuccess,
  checkout,
  createIntent,
  mintRecords,
  paidIntent,
  paymentBecomes,
  paymentRow,
  postWebhook,
  signedEvent,
  supplyTokens,
} from '../helpers/payment-fixtures';
import { listen } from '../helpers/sandboxes';
import { startAppKeepingData } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';

// 2.5 tokens per Naira, so a test can tell minted tokens from Naira.
const TOKENS_PER_NAIRA = '2.5';
const PUBLIC_BASE_URL = 'http://wallet.test';

const { ledger, provider, app } = withSandboxes({ app: { env: { TOKENS_PER_NAIRA, PUBLIC_BASE_URL } } });
beforeEach(async () => {
  await supplyTokens(app);
});

interface ProviderTransaction {
  amount: number;
  currency: string;
  status: string;
  customer: { id: number };
}

/** What the provider itself says about a reference (its own API, not the service). */
async function providerRecord(reference: string): Promise<ProviderTransaction> {
  const res = await fetch(`${provider.url}/transaction/verify/${encodeURIComponent(reference)}`, { headers: { Authorization: `Bearer ${provider.secretKey}` } });
  return ((await res.json()) as { data: ProviderTransaction }).data;
}

const verify = (user: CreatedUser, reference: string) =>
  app.http.post('/api/payments/verify-payment').set(bearer(user.token)).send({ reference });

const balanceOf = (user: CreatedUser) => ledgerBalance(ledger.url, user.ledgerPublicKey);

/** The callback the provider redirected to, requested as the buyer's browser would. */
const openCallback = (redirect: URL) => app.http.get(`${redirect.pathname}${redirect.search}`);

describe('POST /api/payments/create-payment-intent', () => {
  it('records the payment in exact kobo and answers the provider checkout data', async () => {
    const user = await createUser(app);

    const res = await app.http.post('/api/payments/create-payment-intent').set(bearer(user.token)).send({ amount: 1234.56 });

    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({ authorization_url: expect.any(String), access_code: expect.any(String), reference: expect.any(String) }),
    );
    expect(new URL(res.body.authorization_url).origin).toBe(provider.url);
    const atProvider = await providerRecord(res.body.reference);
    expect(atProvider).toMatchObject({ amount: 123456, currency: 'NGN', status: 'abandoned' });
    expect(await paymentRow(app, res.body.reference)).toMatchObject({ userId: user.userId, amountKobo: 123456n, status: 'initialized', mintTxHash: null });
  });

  it('gives the provider {base_url}/api/payments/callback as the callback address', async () => {
    const user = await createUser(app);
    const intent = await createIntent(app, user, 10);

    const redirect = await checkout(intent, 'pay');

    expect(`${redirect.origin}${redirect.pathname}`).toBe(`${PUBLIC_BASE_URL}/api/payments/callback`);
    expect(redirect.searchParams.get('reference')).toBe(intent.reference);
    expect(redirect.searchParams.get('trxref')).toBe(intent.reference);
  });

  it.each([
    ['zero', { amount: 0 }],
    ['a negative amount', { amount: -1 }],
    ['three decimal places', { amount: 1.234 }],
    ['a non-numeric string', { amount: 'abc' }],
    ['an operator object', { amount: { $gt: 0 } }],
    ['no amount', {}],
  ])('rejects %s with 400 {success:false, message, details} and records nothing', async (_name, body) => {
    const user = await createUser(app);

    const res = await app.http.post('/api/payments/create-payment-intent').set(bearer(user.token)).send(body);

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message: 'Invalid request', details: [expect.objectContaining({ path: 'body.amount' })] });
    expect(await allPayments(app)).toHaveLength(0);
  });

  it('refuses, before charging, an amount whose tokens exceed what one ledger payment can carry', async () => {
    // At 10 tokens per Naira, the largest Naira amount would be 10^12 tokens: over the ledger's 922337203685.4775807.
    const generous = await startAppKeepingData({ ...ledger.env, ...provider.env, TOKENS_PER_NAIRA: '10', PUBLIC_BASE_URL });
    try {
      const user = await createUser(generous);

      const tooMuch = await generous.http.post('/api/payments/create-payment-intent').set(bearer(user.token)).send({ amount: 100_000_000_000 });
      const largest = await generous.http.post('/api/payments/create-payment-intent').set(bearer(user.token)).send({ amount: 92_233_720_368.54 });

      expect(tooMuch.status).toBe(400);
      expect(tooMuch.body).toEqual({ success: false, message: expect.stringMatching(/too large/) });
      expect(largest.status).toBe(200);
      expect((await allPayments(generous)).map((p) => p.amountKobo)).toEqual([9_223_372_036_854n]);
    } finally {
      await generous.close();
    }
  });

  it('answers 401 without a token and 403 to an admin token, in the payments error shape', async () => {
    const noToken = await app.http.post('/api/payments/create-payment-intent').send({ amount: 10 });
    const asAdmin = await app.http.post('/api/payments/create-payment-intent').set(bearer(await adminToken(app))).send({ amount: 10 });

    expect(noToken.status).toBe(401);
    expect(noToken.body).toEqual({ success: false, message: expect.any(String) });
    expect(asAdmin.status).toBe(403);
    expect(asAdmin.body).toEqual({ success: false, message: expect.any(String) });
    expect(await allPayments(app)).toHaveLength(0);
  });
});

describe('POST /api/payments/verify-payment', () => {
  it("verifies a paid reference, answers the Naira amount and the provider's customer id, and mints Naira x TOKENS_PER_NAIRA", async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 1234.56);

    const res = await verify(user, intent.reference);

    const customerId = (await providerRecord(intent.reference)).customer.id;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, amount: 1234.56, userId: String(customerId) });
    expect(await balanceOf(user)).toBe('3086.4000000');
    const row = await paymentRow(app, intent.reference);
    expect(row).toMatchObject({ status: 'minted', tokensStroops: 30_864_000_000n, destinationPublicKey: user.ledgerPublicKey });
    const records = await mintRecords(app, user.userId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ ledgerTransactionId: row!.mintTxHash, toPublicKey: user.ledgerPublicKey, amountStroops: 30_864_000_000n, assetCode: 'WLT' });
  });

  it("makes a verification's reads and writes as named statements on the pool: the transaction is the mint's confirmation alone", async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 100);
    // Observed, not replaced: each statement the pool runs by itself, and each client it lends (a transaction).
    const pool = (app.container.database.db as unknown as { $client: { query: (config: unknown, ...rest: unknown[]) => unknown; connect: (...args: unknown[]) => unknown } }).$client;
    const names: string[] = [];
    let lent = 0;
    const { query, connect } = pool;
    pool.query = (config: unknown, ...rest: unknown[]) => {
      names.push(typeof config === 'object' && config !== null ? ((config as { name?: string }).name ?? (config as { text?: string }).text ?? '') : String(config));
      return query.call(pool, config, ...rest);
    };
    pool.connect = (...args: unknown[]) => {
      lent++;
      return connect.apply(pool, args);
    };
    try {
      const res = await verify(user, intent.reference);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, amount: 100 });
    } finally {
      pool.query = query;
      pool.connect = connect;
    }
    expect(await balanceOf(user)).toBe('250.0000000');
    // The auth check's read comes only when the principal's cached answer has expired (2 s): a slow machine may see it.
    const statements = names.filter((n) => n !== 'users_credential_times');
    expect(statements).toEqual([
      'payments_find',
      // the buyer's wallet comes back with the move
      'payments_record_paid',
      // the buyer owes nothing: decided without the debt's lock
      'payments_settles_no_debt',
      // the reference consumed and the mint's entry inserted together
      'journal_insert_claiming_payment',
      // storing the signed envelope (a batch's size varies its text)
      expect.stringMatching(/^\s*with movable as/),
      'journal_mark_sent',
      // a mint's confirmation moves its payment: tried alone, then in the one transaction
      expect.stringMatching(/^journal_confirm_alone_/),
      'payments_find',
    ]);
    // node-postgres' pool.query lends itself a client per statement: one more is the transaction.
    expect(lent - names.length).toBe(1);
  });

  it('answers 200 {success:false, message} to a second verification and mints nothing more', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 100);
    await verify(user, intent.reference).expect(200);

    const again = await verify(user, intent.reference);

    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: false, message: 'Payment already processed' });
    expect(await balanceOf(user)).toBe('250.0000000');
    expect(await mintRecords(app, user.userId)).toHaveLength(1);
  });

  it('refuses an abandoned (cancelled) payment without consuming the reference; paying afterwards verifies', async () => {
    const user = await createUser(app);
    const intent = await createIntent(app, user, 40);
    await checkout(intent, 'cancel');

    const unpaid = await verify(user, intent.reference);

    expect(unpaid.body).toEqual({ success: false, message: expect.stringContaining('abandoned') });
    expect(await balanceOf(user)).toBe('0.0000000');
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'initialized' });

    await checkout(intent, 'pay');
    const paid = await verify(user, intent.reference);

    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ success: true, amount: 40 });
    expect(await balanceOf(user)).toBe('100.0000000');
  });

  it('refuses a declined payment, records it failed and mints nothing', async () => {
    const user = await createUser(app);
    const intent = await createIntent(app, user, 40);
    await checkout(intent, 'decline');

    const res = await verify(user, intent.reference);

    expect(res.body).toEqual({ success: false, message: expect.stringContaining('failed') });
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'failed', mintTxHash: null });
    expect(await balanceOf(user)).toBe('0.0000000');
    expect(await mintRecords(app, user.userId)).toHaveLength(0);
  });

  it('answers 404 {success:false, message} for an unknown reference', async () => {
    const user = await createUser(app);

    const res = await verify(user, 'wlt-never-issued');

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, message: 'Payment reference not found' });
  });

  it("answers 404 for another user's reference and leaves it for its owner", async () => {
    const alice = await createUser(app);
    const mallory = await createUser(app);
    const intent = await paidIntent(app, alice, 20);

    const stolen = await verify(mallory, intent.reference);

    expect(stolen.status).toBe(404);
    expect(stolen.body).toEqual({ success: false, message: 'Payment reference not found' });
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'initialized' });
    expect(await balanceOf(mallory)).toBe('0.0000000');
    expect((await verify(alice, intent.reference)).body).toMatchObject({ success: true, amount: 20 });
  });

  it('rejects a missing reference with 400 and no token with 401', async () => {
    const user = await createUser(app);

    const missing = await app.http.post('/api/payments/verify-payment').set(bearer(user.token)).send({});
    const anonymous = await app.http.post('/api/payments/verify-payment').send({ reference: 'wlt-x' });

    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ success: false, message: 'Invalid request', details: expect.any(Array) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ success: false, message: expect.any(String) });
  });
});

describe('GET /api/payments/callback', () => {
  it('verifies and mints on the redirect, showing the amount and the new balance', async () => {
    const user = await createUser(app);
    const intent = await createIntent(app, user, 1234.56);
    const redirect = await checkout(intent, 'pay');

    const res = await openCallback(redirect);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('<h1>Payment successful</h1>');
    expect(res.text).toContain('<p class="amount" id="amount">₦1,234.56</p>');
    expect(res.text).toContain('<dd id="balance">3,086.40 WLT</dd>');
    expect(await balanceOf(user)).toBe('3086.4000000');
  });

  it.each(['reference', 'trxref'])('accepts the reference in `%s` alone', async (param) => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 10);

    const res = await app.http.get('/api/payments/callback').query({ [param]: intent.reference });

    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Payment successful</h1>');
    expect(await balanceOf(user)).toBe('25.0000000');
  });

  it('shows the same purchase on a reload and mints nothing more', async () => {
    const user = await createUser(app);
    const intent = await createIntent(app, user, 10);
    const redirect = await checkout(intent, 'pay');
    await openCallback(redirect).expect(200);

    const reload = await openCallback(redirect);

    expect(reload.status).toBe(200);
    expect(reload.text).toContain('<h1>Payment successful</h1>');
    expect(reload.text).toContain('id="settled-earlier"');
    expect(await balanceOf(user)).toBe('25.0000000');
    expect(await mintRecords(app, user.userId)).toHaveLength(1);
  });

  it.each(['cancel', 'decline'] as const)('shows the error page after %s and mints nothing', async (action) => {
    const user = await createUser(app);
    const intent = await createIntent(app, user, 10);
    const redirect = await checkout(intent, action);

    const res = await openCallback(redirect);

    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Payment failed</h1>');
    expect(res.text).toContain(intent.reference);
    expect(await balanceOf(user)).toBe('0.0000000');
  });

  it('answers a 400 error page when the reference is missing', async () => {
    const res = await app.http.get('/api/payments/callback');

    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<h1>Payment failed</h1>');
    expect(res.text).toContain('The payment reference is missing or malformed.');
  });

  it('answers a 400 error page, not a 500, for a reference with a NUL byte or too long', async () => {
    for (const reference of ['wlt-x\u0000y', 'r'.repeat(101)]) {
      const res = await app.http.get('/api/payments/callback').query({ reference });
      expect(res.status).toBe(400);
      expect(res.text).toContain('<h1>Payment failed</h1>');
    }
  });

  it.each([
    ['reference', '<script>alert(1)</script>'],
    ['trxref', '"><img src=x onerror=alert(1)>'],
  ])('never reflects markup sent in `%s` (refused as malformed; the pages escape every value besides)', async (param, payload) => {
    const res = await app.http.get('/api/payments/callback').query({ [param]: payload });

    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).not.toContain(payload);
    expect(res.text).not.toMatch(/<script>|<img/);
  });
});

describe('POST /api/payments/webhook', () => {
  it("mints when the provider's own signed charge.success arrives, with no verify or callback", async () => {
    const server = await listen(app.container.app);
    provider.sandbox.setWebhookUrl(`${server.url}/api/payments/webhook`);
    try {
      const user = await createUser(app);
      const intent = await createIntent(app, user, 30);

      await checkout(intent, 'pay');

      await paymentBecomes(app, intent.reference, 'minted');
      expect(await balanceOf(user)).toBe('75.0000000');
      expect(await mintRecords(app, user.userId)).toHaveLength(1);
    } finally {
      provider.sandbox.setWebhookUrl(undefined);
      await server.close();
    }
  });

  it('acknowledges a validly signed charge.success with 200 and mints through the shared path', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 30);
    const { body, signature } = signedEvent(chargeSuccess(intent.reference, 3000), provider.secretKey);

    const res = await postWebhook(app, body, signature);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Received' });
    // The ledger shows the tokens a moment before the journal records the confirmation: wait for both.
    await paymentBecomes(app, intent.reference, 'minted');
    expect(await balanceOf(user)).toBe('75.0000000');
  });

  it.each([
    ['no signature', (body: string) => ({ body, signature: undefined })],
    ['a signature made with another key', (body: string) => signedEvent(JSON.parse(body), 'sk_test_someone_else')],
    ['a body changed after signing', (body: string) => ({ body: body.replace('"amount":3000', '"amount":3001'), signature: signedEvent(JSON.parse(body), provider.secretKey).signature })],
    ['a signature that is not hex', (body: string) => ({ body, signature: 'not-a-signature' })],
  ])('refuses %s with 401 {success:false, message} and mints nothing', async (_name, forge) => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 30);
    const { body, signature } = forge(JSON.stringify(chargeSuccess(intent.reference, 3000)));

    const res = await postWebhook(app, body, signature);

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: 'Invalid signature' });
    // Refused before any settlement starts, so the state can be read at once.
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'initialized' });
    expect(await balanceOf(user)).toBe('0.0000000');
  });

  it('refuses a body over 100 kB with 413 {success:false, message}', async () => {
    const body = JSON.stringify({ event: 'charge.success', data: { reference: 'wlt-x', padding: 'x'.repeat(110_000) } });

    const res = await postWebhook(app, body, signPaystackPayload(body, provider.secretKey));

    expect(res.status).toBe(413);
    expect(res.body).toEqual({ success: false, message: expect.any(String) });
  });

  it('acknowledges a correctly signed body it cannot read with 200 and keeps nothing (redelivering it could never help)', async () => {
    const body = '{"event":"charge.success","data":{"reference":';
    const res = await postWebhook(app, body, signPaystackPayload(body, provider.secretKey));

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Received' });
    expect(await app.container.webhookEvents.listSetAside(10)).toEqual([]);
    expect(await queryRows(app.container.database, sql`select id from webhook_events`)).toEqual([]);
  });

  it('acknowledges another event type with 200 and ignores it', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 30);
    const { body, signature } = signedEvent({ event: 'transfer.success', data: { reference: intent.reference } }, provider.secretKey);

    const res = await postWebhook(app, body, signature);

    expect(res.status).toBe(200);
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'initialized' });
    expect(await balanceOf(user)).toBe('0.0000000');
  });
});
