import { bearer, createUser, type CreatedUser } from '../helpers/factories';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import {
  allEnvelopes,
  expireLeases,
  allPayments,
  chargeSuccess,
  mintRecords,
  paidIntent,
  paymentRow,
  postWebhook,
  signedEvent,
  startPaymentsApp,
  startProviderFront,
  supplyTokens,
  type ProviderFront,
} from '../helpers/payment-fixtures';
import { startLedgerSandbox, startPaystackSandbox, type RunningLedger, type RunningProvider } from '../helpers/sandboxes';
import type { TestApp } from '../helpers/test-app';

let ledger: RunningLedger;
let provider: RunningProvider;
let front: ProviderFront;
let app: TestApp;

beforeAll(async () => {
  ledger = await startLedgerSandbox();
  provider = await startPaystackSandbox();
});
afterAll(async () => {
  await ledger.stop();
  await provider.stop();
});
beforeEach(async () => {
  // The service reaches the provider through a front each test can make fail.
  front = await startProviderFront(provider.url, provider.secretKey);
  app = await startPaymentsApp({ ...ledger.env, ...front.env });
  await supplyTokens(app);
});
afterEach(async () => {
  await front.close();
  await app.close();
});

const verify = (user: CreatedUser, reference: string) =>
  app.http.post('/api/payments/verify-payment').set(bearer(user.token)).send({ reference });

const intentFor = (user: CreatedUser, amount: number) =>
  app.http.post('/api/payments/create-payment-intent').set(bearer(user.token)).send({ amount });

/** The reference was not consumed: the payment still waits for a verification, and nothing was minted. */
async function expectUnconsumed(reference: string, user: CreatedUser): Promise<void> {
  expect(await paymentRow(app, reference)).toMatchObject({ status: 'initialized', mintTxHash: null, tokensStroops: null });
  expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('0.0000000');
  expect(await mintRecords(app, user.userId)).toHaveLength(0);
}

describe('payment provider down', () => {
  it('answers create-payment-intent 503 {success:false, message}, having recorded only the initialized payment', async () => {
    const user = await createUser(app);
    await front.setMode('down');

    const res = await intentFor(user, 25);

    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, message: 'Payment provider unavailable, try again later' });
    expect(res.headers['retry-after']).toBeDefined();
    expect(await allPayments(app)).toEqual([expect.objectContaining({ userId: user.userId, amountKobo: 2500n, status: 'initialized', mintTxHash: null })]);
    expect(await mintRecords(app, user.userId)).toHaveLength(0);
  });

  it('answers verify-payment 503 without consuming a paid reference, which verifies once the provider is back', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await front.setMode('down');

    const res = await verify(user, intent.reference);

    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, message: 'Payment provider unavailable, try again later' });
    await expectUnconsumed(intent.reference, user);

    await front.setMode('forward');
    expect((await verify(user, intent.reference)).body).toMatchObject({ success: true, amount: 25 });
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('25.0000000');
  });

  it('answers the callback with a 503 error page asking to reload, and consumes nothing', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await front.setMode('down');

    const res = await app.http.get('/api/payments/callback').query({ trxref: intent.reference, reference: intent.reference });

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<h1>Payment failed</h1>');
    expect(res.text).toContain('The payment provider could not be reached. Reload this page in a moment.');
    await expectUnconsumed(intent.reference, user);
  });

  it('answers verify-payment 503 when the provider answers 500', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await front.setMode('error');

    const res = await verify(user, intent.reference);

    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, message: expect.any(String) });
    await expectUnconsumed(intent.reference, user);
  });
});

describe('payment provider that never answers', () => {
  // PaystackClient's deadline is 10 s and is not configurable from the environment, so this test
  // takes that long; both calls wait in parallel.
  it('gives up on create-payment-intent and verify-payment after the client deadline with 503, consuming nothing', async () => {
    const user = await createUser(app);
    const paid = await paidIntent(app, user, 25);
    await front.setMode('hang');

    const started = Date.now();
    const [created, verified] = await Promise.all([intentFor(user, 30), verify(user, paid.reference)]);

    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
    expect(created.status).toBe(503);
    expect(created.body).toEqual({ success: false, message: expect.any(String) });
    expect(verified.status).toBe(503);
    expect(verified.body).toEqual({ success: false, message: expect.any(String) });
    await expectUnconsumed(paid.reference, user);
    expect((await allPayments(app)).map((p) => [p.amountKobo, p.status]).sort()).toEqual([
      [2500n, 'initialized'],
      [3000n, 'initialized'],
    ]);
  }, 25_000);

  it('still answers a signed webhook at once: settlement runs after the answer', async () => {
    const user = await createUser(app);
    const paid = await paidIntent(app, user, 25);
    await front.setMode('hang');
    const { body, signature } = signedEvent(chargeSuccess(paid.reference, 2500), provider.secretKey);

    const started = Date.now();
    const res = await postWebhook(app, body, signature);

    expect(res.status).toBe(200);
    // Far below the provider client's 10 s deadline the settlement is now waiting on.
    expect(Date.now() - started).toBeLessThan(5_000);
    await expectUnconsumed(paid.reference, user);
  });
});

describe('payment provider answering malformed JSON', () => {
  it('answers verify-payment 502 {success:false, message} and consumes nothing', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await front.setMode('malformed');

    const res = await verify(user, intent.reference);

    expect(res.status).toBe(502);
    expect(res.body).toEqual({ success: false, message: 'Payment provider error' });
    await expectUnconsumed(intent.reference, user);

    await front.setMode('forward');
    expect((await verify(user, intent.reference)).body).toMatchObject({ success: true, amount: 25 });
  });

  it('answers create-payment-intent 502 {success:false, message}, the payment staying initialized', async () => {
    const user = await createUser(app);
    await front.setMode('malformed');

    const res = await intentFor(user, 25);

    expect(res.status).toBe(502);
    expect(res.body).toEqual({ success: false, message: 'Payment provider error' });
    expect(await allPayments(app)).toEqual([expect.objectContaining({ status: 'initialized' })]);
  });
});

describe('payment provider reporting another amount than was charged', () => {
  it('refuses verify-payment with 400 {success:false, message} and consumes nothing', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await front.setMode('amount-differs');

    const res = await verify(user, intent.reference);

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message: expect.stringMatching(/does not match/) });
    await expectUnconsumed(intent.reference, user);
  });

  it('shows the error page on the callback and consumes nothing', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await front.setMode('amount-differs');

    const res = await app.http.get('/api/payments/callback').query({ reference: intent.reference });

    expect(res.text).toContain('<h1>Payment failed</h1>');
    expect(res.text).toContain('The paid amount does not match the payment.');
    await expectUnconsumed(intent.reference, user);
  });
});

describe('ledger down while a paid reference is verified', () => {
  it('answers success, keeps the reference consumed, and the reconciler mints once when the ledger is back', async () => {
    const alice = await createUser(app);
    const bob = await createUser(app);
    const viaVerify = await paidIntent(app, alice, 25);
    const viaCallback = await paidIntent(app, bob, 40);
    await ledger.stop();

    const [verified, page] = await Promise.all([
      verify(alice, viaVerify.reference),
      app.http.get('/api/payments/callback').query({ reference: viaCallback.reference }),
    ]).finally(() => ledger.start());

    expect(verified.body).toMatchObject({ success: true, amount: 25 });
    expect(page.text).toContain('<h1>Payment successful</h1>');
    expect(page.text).toContain('Your new balance will show in your wallet shortly.');
    for (const reference of [viaVerify.reference, viaCallback.reference]) {
      expect(await paymentRow(app, reference)).toMatchObject({ status: 'verified' });
    }
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('0.0000000');
    expect((await verify(alice, viaVerify.reference)).body).toEqual({ success: false, message: 'Payment already processed' });

    // The mints wait in the journal, leased to the live path for a while: let the lease pass.
    await expireLeases(app);
    await app.container.reconciler.drain();

    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('25.0000000');
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('40.0000000');
    expect(await mintRecords(app, alice.userId)).toHaveLength(1);
    expect(await mintRecords(app, bob.userId)).toHaveLength(1);
    await expireLeases(app);
    await app.container.reconciler.drain();
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('25.0000000');
  });
});

describe('distribution account out of tokens', () => {
  it('owes the tokens of a verified payment and mints them, once, after the admin issues more', async () => {
    const user = await createUser(app);
    // The supply from beforeEach is 1,000,000 tokens.
    const intent = await paidIntent(app, user, 2_000_000);

    const answer = await verify(user, intent.reference);

    expect(answer.body).toMatchObject({ success: true, amount: 2_000_000 });
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'verified', mintTxHash: null });
    // Each envelope was refused (op_underfunded): nothing applied, and the mint waits for a new one.
    expect(new Set((await allEnvelopes(app)).filter((e) => e.failure?.includes('op_underfunded')).map((e) => e.status))).toEqual(new Set(['failed']));
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('0.0000000');

    await supplyTokens(app, '5000000');
    await expireLeases(app);
    await app.container.reconciler.drain();

    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('2000000.0000000');
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'minted' });
    expect(await mintRecords(app, user.userId)).toHaveLength(1);
  });
});
