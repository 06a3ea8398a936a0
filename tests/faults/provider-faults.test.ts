import { sql } from 'drizzle-orm';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { bearer, createUser, type CreatedUser } from '../helpers/factories';
import { answer, forwardTo, hang, startFakeServer, type Behaviour, type FakeServer } from '../helpers/fake-server';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { allPayments, chargeSuccess, mintRecords, paidIntent, paymentRow, postWebhook, signedEvent, supplyTokens } from '../helpers/payment-fixtures';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * The payment provider failing under the service. The service reaches the provider sandbox through
 * a fake server in front of it, which each test makes fail one way: a closed port, a 500, an answer
 * that is not the provider's, silence, or another amount than was charged.
 */

let front: FakeServer;
// Warnings are kept (in memory): a deferred webhook settlement is only visible there. The provider
// client keeps its default deadline (PAYSTACK_TIMEOUT_MS, 10 s), except where a test is about it.
const { ledger, provider, app, startApp } = withSandboxes({
  app: { env: () => ({ PAYSTACK_BASE_URL: front.url, WEBHOOK_RETRY_BASE_MS: '200' }), logLevel: 'warn' },
});
beforeAll(async () => {
  front = await startFakeServer(forwardTo(provider.url));
});
afterAll(async () => {
  await front.close();
});
beforeEach(async () => {
  await front.behave(forwardTo(provider.url));
  await supplyTokens(app);
});

/** Ways the provider fails by answering, each an answer the real one could give on a bad day. */
const ANSWERS = {
  error500: answer(500, '{"status":false,"message":"Internal error"}'),
  garbage: answer(200, '<html><body>502 Bad Gateway</body></html>'),
  malformed: answer(200, '{"status": true, "data": {"reference": '),
  wrongShape: answer(200, '{"status":true,"data":{"unexpected":1}}'),
  badKey: answer(401, '{"status":false,"message":"Invalid key"}'),
};

/** The provider as it is, except that its verify answers carry one kobo less than was charged. */
const amountDiffers = (): Behaviour =>
  forwardTo(provider.url, {
    rewrite: (req, body) => {
      if (!req.url?.startsWith('/transaction/verify/')) return body;
      const json = JSON.parse(body.toString('utf8')) as { data: { amount: number } };
      json.data.amount -= 1;
      return Buffer.from(JSON.stringify(json));
    },
  });

/** Each failure, and the answer it must give: 503 (retry later) or 502 (the provider answered nonsense). */
const FAILURES: { mode: keyof typeof ANSWERS | 'down'; status: number; message: string }[] = [
  { mode: 'down', status: 503, message: 'Payment provider unavailable, try again later' },
  { mode: 'error500', status: 503, message: 'Payment provider unavailable, try again later' },
  { mode: 'garbage', status: 502, message: 'Payment provider error' },
  { mode: 'wrongShape', status: 502, message: 'Payment provider error' },
  { mode: 'badKey', status: 502, message: 'Payment provider error' },
];
const failing = (mode: keyof typeof ANSWERS | 'down') => front.behave(mode === 'down' ? 'down' : ANSWERS[mode]);

const verify = (user: CreatedUser, reference: string) => app.http.post('/api/payments/verify-payment').set(bearer(user.token)).send({ reference });
const intentFor = (user: CreatedUser, amount: number) => app.http.post('/api/payments/create-payment-intent').set(bearer(user.token)).send({ amount });
const statuses = async () => (await queryRows<{ status: string }>(app.container.database, sql`select status from payments order by created_at`)).map((r) => r.status);
const tokensOf = (user: CreatedUser) => ledgerBalance(ledger.url, user.ledgerPublicKey);
const mintEntries = async () => (await queryRows<{ n: number }>(app.container.database, sql`select count(*)::int as n from ledger_entries where kind = 'payment_mint'`))[0]!.n;

/** The reference was not consumed: the payment still waits for a verification, and nothing was minted. */
async function expectUnconsumed(reference: string, user: CreatedUser): Promise<void> {
  expect(await paymentRow(app, reference)).toMatchObject({ status: 'initialized', mintTxHash: null, tokensStroops: null });
  expect(await tokensOf(user)).toBe('0.0000000');
  expect(await mintRecords(app, user.userId)).toHaveLength(0);
}

describe('payment provider down', () => {
  it('answers create-payment-intent 503 {success:false, message}, having recorded only the initialized payment', async () => {
    const user = await createUser(app);
    await failing('down');

    const res = await intentFor(user, 25);

    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, message: 'Payment provider unavailable, try again later' });
    expect(res.headers['retry-after']).toBe('5');
    expect(await allPayments(app)).toEqual([expect.objectContaining({ userId: user.userId, amountKobo: 2500n, status: 'initialized', mintTxHash: null })]);
    expect(await mintRecords(app, user.userId)).toHaveLength(0);
  });

  it('answers verify-payment 503 without consuming a paid reference, which verifies once the provider is back', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await failing('down');

    const res = await verify(user, intent.reference);

    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, message: 'Payment provider unavailable, try again later' });
    await expectUnconsumed(intent.reference, user);

    await front.behave(forwardTo(provider.url));
    expect((await verify(user, intent.reference)).body).toMatchObject({ success: true, amount: 25 });
    expect(await tokensOf(user)).toBe('25.0000000');
  });

  it('answers the callback with a 503 error page asking to reload, and consumes nothing', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await failing('down');

    const res = await app.http.get('/api/payments/callback').query({ trxref: intent.reference, reference: intent.reference });

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<h1>Payment failed</h1>');
    expect(res.text).toContain('The payment provider could not be reached. Reload this page in a moment.');
    await expectUnconsumed(intent.reference, user);
  });

  it('answers verify-payment 503 when the provider answers 500', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await failing('error500');

    const res = await verify(user, intent.reference);

    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, message: 'Payment provider unavailable, try again later' });
    await expectUnconsumed(intent.reference, user);
  });
});

describe('create-payment-intent when the provider fails', () => {
  it.each(FAILURES)('$mode: answers $status {success:false, message} and opens no checkout; works again when the provider does', async ({ mode, status, message }) => {
    const user = await createUser(app);
    await failing(mode);
    const res = await intentFor(user, 25);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ success: false, message });
    expect(res.headers['retry-after']).toBe(status === 503 ? '5' : undefined);
    // Only the reference is recorded, as initialized: nothing to verify or mint from it.
    expect(await statuses()).toEqual(['initialized']);
    expect(await mintEntries()).toBe(0);
    expect(await tokensOf(user)).toBe('0.0000000');

    await front.behave(forwardTo(provider.url));
    const retried = await intentFor(user, 25);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(expect.objectContaining({ authorization_url: expect.stringMatching(/^http/), reference: expect.stringMatching(/^wlt-/) }));
  });
});

describe('verification when the provider fails after the buyer paid', () => {
  it('refuses verify-payment and the callback cleanly for every failure, consumes nothing, then mints exactly once', async () => {
    const user = await createUser(app);
    const { reference } = await paidIntent(app, user, 25);

    for (const { mode, status, message } of FAILURES) {
      await failing(mode);
      const res = await verify(user, reference);
      expect([mode, res.status, res.body]).toEqual([mode, status, { success: false, message }]);
      const page = await app.http.get(`/api/payments/callback?reference=${reference}`);
      expect([mode, page.status, page.headers['content-type']]).toEqual([mode, status, expect.stringMatching(/text\/html/)]);
      expect(page.text).toMatch(/Reload this page in a moment/);
      // Not consumed, nothing minted, no mint in the journal.
      expect(await statuses()).toEqual(['initialized']);
      expect(await mintEntries()).toBe(0);
    }
    expect(await tokensOf(user)).toBe('0.0000000');

    await front.behave(forwardTo(provider.url));
    const verified = await verify(user, reference);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ success: true, amount: 25, userId: expect.any(String) });
    await eventually(async () => ((await tokensOf(user)) === '25.0000000' ? true : undefined), 'the mint');
    expect(await verify(user, reference).then((r) => r.body)).toEqual({ success: false, message: 'Payment already processed' });
    expect((await app.http.get(`/api/payments/callback?reference=${reference}`)).status).toBe(200);
    expect(await statuses()).toEqual(['minted']);
    expect(await tokensOf(user)).toBe('25.0000000');
  });

  it('stores a signed webhook while the provider is down, retries it by itself until it mints, once; a redelivery changes nothing', async () => {
    const user = await createUser(app);
    const { reference } = await paidIntent(app, user, 10);
    const { body, signature } = signedEvent(chargeSuccess(reference, 1000), provider.secretKey);

    await failing('down');
    expect((await postWebhook(app, body, signature)).status).toBe(200);
    // The event is stored and settled after the answer: wait for the first attempt to fail on the provider.
    await eventually(async () => (app.logs.some((l) => l.includes('webhook settlement failed, retrying later')) ? true : undefined), 'the failed attempt');
    expect(await statuses()).toEqual(['initialized']);
    expect(await tokensOf(user)).toBe('0.0000000');

    // No redelivery: the inbox tries again by itself once the provider is back.
    await front.behave(forwardTo(provider.url));
    await eventually(
      async () => {
        await app.container.webhookInbox.run();
        return (await tokensOf(user)) === '10.0000000' ? true : undefined;
      },
      'the mint after a retry',
    );
    // The provider delivers the event again. The inbox settles after answering, so it is worked here
    // before anything is read: a second settlement would have landed by the assertions below.
    expect((await postWebhook(app, body, signature)).status).toBe(200);
    await app.container.webhookInbox.run();
    expect(await statuses()).toEqual(['minted']);
    expect(await tokensOf(user)).toBe('10.0000000');
    expect(await mintEntries()).toBe(1);
    expect(await mintRecords(app, user.userId)).toHaveLength(1);
  });
});

describe('payment provider that never answers', () => {
  /** The provider calls made from request number `from` on, and what became of each. */
  const callsSince = (from: number) => front.requests.slice(from);

  it('gives up on create-payment-intent and verify-payment by the client deadline with 503, consuming nothing', async () => {
    const user = await createUser(app);
    const paid = await paidIntent(app, user, 25);
    // The service again on the same data, with a short provider deadline: the deadline under test.
    // The provider below never answers, so only that deadline can end a call, however slow the machine.
    await startApp({ PAYSTACK_TIMEOUT_MS: '2000' }, { reset: false });
    await front.behave(hang);
    const callsBefore = front.requests.length;

    const [created, verified] = await Promise.all([intentFor(user, 30), verify(user, paid.reference)]);

    expect(created.status).toBe(503);
    expect(created.body).toEqual({ success: false, message: 'Payment provider unavailable, try again later' });
    expect(verified.status).toBe(503);
    expect(verified.body).toEqual({ success: false, message: 'Payment provider unavailable, try again later' });
    // The provider got both calls and answered neither: the client waited for it and then gave up
    // on each (closed it), rather than failing without asking.
    const calls = await eventually(async () => {
      const made = callsSince(callsBefore);
      return made.length === 2 && made.every((c) => c.fate !== 'open') ? made : undefined;
    }, 'the service to close both provider calls');
    expect(calls.map((c) => [c.method, c.fate]).sort()).toEqual([
      ['GET', 'abandoned'],
      ['POST', 'abandoned'],
    ]);
    await expectUnconsumed(paid.reference, user);
    expect((await allPayments(app)).map((p) => [p.amountKobo, p.status]).sort()).toEqual([
      [2500n, 'initialized'],
      [3000n, 'initialized'],
    ]);
  });

  it('still answers a signed webhook at once: settlement runs after the answer', async () => {
    const user = await createUser(app);
    const paid = await paidIntent(app, user, 25);
    // The provider deadline at its longest (2 minutes), so the settlement's call to the silent
    // provider outlasts the answer on any machine: had the answer waited for it, that call would
    // have ended (given up) before the answer came.
    await startApp({ PAYSTACK_TIMEOUT_MS: '120000' }, { reset: false });
    await front.behave(hang);
    const { body, signature } = signedEvent(chargeSuccess(paid.reference, 2500), provider.secretKey);
    const callsBefore = front.requests.length;
    try {
      const res = await postWebhook(app, body, signature);
      const endedAtAnswer = callsSince(callsBefore).filter((c) => c.fate !== 'open');

      expect(res.status).toBe(200);
      expect(endedAtAnswer).toEqual([]);
      // The settlement does run, after the answer: it asks the provider, which never answers.
      await eventually(async () => (callsSince(callsBefore).some((c) => c.url.startsWith('/transaction/verify/')) ? true : undefined), "the settlement's call to the provider");
      await expectUnconsumed(paid.reference, user);
    } finally {
      // Drops the call still waiting, so the settlement ends now and the app closes at once.
      await front.behave(forwardTo(provider.url));
    }
  });
});

describe('payment provider answering malformed JSON', () => {
  it('answers verify-payment 502 {success:false, message} and consumes nothing', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await failing('malformed');

    const res = await verify(user, intent.reference);

    expect(res.status).toBe(502);
    expect(res.body).toEqual({ success: false, message: 'Payment provider error' });
    await expectUnconsumed(intent.reference, user);

    await front.behave(forwardTo(provider.url));
    expect((await verify(user, intent.reference)).body).toMatchObject({ success: true, amount: 25 });
  });

  it('answers create-payment-intent 502 {success:false, message}, the payment staying initialized', async () => {
    const user = await createUser(app);
    await failing('malformed');

    const res = await intentFor(user, 25);

    expect(res.status).toBe(502);
    expect(res.body).toEqual({ success: false, message: 'Payment provider error' });
    expect(await allPayments(app)).toEqual([expect.objectContaining({ status: 'initialized' })]);
  });
});

/** A mismatch is recorded (failed, with what each side says) and never minted: no later answer consumes it. */
async function expectRefused(reference: string, user: CreatedUser): Promise<void> {
  expect(await paymentRow(app, reference)).toMatchObject({
    status: 'failed',
    failureReason: expect.stringMatching(/^The provider reports \d+ kobo in NGN; the payment was recorded as 2500 kobo in NGN$/),
    mintTxHash: null,
    tokensStroops: null,
  });
  expect(await tokensOf(user)).toBe('0.0000000');
  expect(await mintRecords(app, user.userId)).toHaveLength(0);
}

describe('payment provider reporting another amount than was charged', () => {
  it('refuses verify-payment with 400 {success:false, message}, records the payment failed with the reason, and mints nothing', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await front.behave(amountDiffers());

    const res = await verify(user, intent.reference);

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message: expect.stringMatching(/does not match/) });
    await expectRefused(intent.reference, user);
    // The provider's answer corrected later changes nothing: a refused payment is never minted.
    await front.behave(forwardTo(provider.url));
    const again = await verify(user, intent.reference);
    expect([again.status, again.body.message]).toEqual([409, expect.stringMatching(/recorded as 2500 kobo/)]);
    await expectRefused(intent.reference, user);
  });

  it('shows the error page on the callback, records the payment failed with the reason, and mints nothing', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 25);
    await front.behave(amountDiffers());

    const res = await app.http.get('/api/payments/callback').query({ reference: intent.reference });

    expect(res.text).toContain('<h1>Payment failed</h1>');
    expect(res.text).toContain('The paid amount does not match the payment.');
    await expectRefused(intent.reference, user);
  });
});
