import type { IncomingMessage, ServerResponse } from 'node:http';
import { sql } from 'drizzle-orm';
import { signPaystackPayload } from '@wallet/paystack-sandbox';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { forwardTo, rowsOf, switchableServer, until, type SwitchableServer } from '../helpers/hardening';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { startLedgerSandbox, startPaystackSandbox, type RunningLedger, type RunningProvider } from '../helpers/sandboxes';
import { startTestApp, type TestApp } from '../helpers/test-app';

jest.setTimeout(60_000);

/** Ways the payment provider fails, each played by the stand-in in front of the provider sandbox. */
type Mode = 'forward' | 'error500' | 'garbage' | 'wrongShape' | 'badKey';
const json = (status: number, body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
};

/** Each failure, and the answer it must give: 503 (retry later) or 502 (the provider answered nonsense). */
const FAILURES: { mode: Mode | 'down'; status: number; message: string }[] = [
  { mode: 'down', status: 503, message: 'Payment provider unavailable, try again later' },
  { mode: 'error500', status: 503, message: 'Payment provider unavailable, try again later' },
  { mode: 'garbage', status: 502, message: 'Payment provider error' },
  { mode: 'wrongShape', status: 502, message: 'Payment provider error' },
  { mode: 'badKey', status: 502, message: 'Payment provider error' },
];

let ledger: RunningLedger;
let provider: RunningProvider;
let front: SwitchableServer<Mode>;
let app: TestApp;
let user: CreatedUser;

beforeAll(async () => {
  ledger = await startLedgerSandbox();
  provider = await startPaystackSandbox();
});
afterAll(async () => {
  await ledger.stop();
  await provider.stop();
});
beforeEach(async () => {
  front = await switchableServer<Mode>('forward', {
    forward: forwardTo(provider.url),
    error500: json(500, '{"status":false,"message":"Internal error"}'),
    garbage: json(200, '<html><body>502 Bad Gateway</body></html>'),
    wrongShape: json(200, '{"status":true,"data":{"unexpected":1}}'),
    badKey: json(401, '{"status":false,"message":"Invalid key"}'),
  });
  // Warnings are kept (in memory): a deferred webhook settlement is only visible there.
  app = await startTestApp({ ...ledger.env, PAYSTACK_SECRET_KEY: provider.secretKey, PAYSTACK_BASE_URL: front.url, WEBHOOK_RETRY_BASE_MS: '200' }, 'warn');
  user = await createUser(app);
  await app.http.post('/api/ledger/create-asset').set(bearer(await adminToken(app))).send({ assetCode: 'WLT', amount: '1000' }).expect(200);
});
afterEach(async () => {
  await front.close();
  await app.close();
});

const intent = (amount: number) => app.http.post('/api/payments/create-payment-intent').set(bearer(user.token)).send({ amount });
const verify = (reference: string) => app.http.post('/api/payments/verify-payment').set(bearer(user.token)).send({ reference });
const statuses = async () => (await rowsOf<{ status: string }>(app.container.database, sql`select status from payments order by created_at`)).map((r) => r.status);
const tokens = () => ledgerBalance(ledger.url, user.ledgerPublicKey);
const mintEntries = async () => (await rowsOf<{ n: number }>(app.container.database, sql`select count(*)::int as n from ledger_entries where kind = 'payment_mint'`))[0]!.n;

describe('create-payment-intent when the provider fails', () => {
  it.each(FAILURES)('$mode: answers $status {success:false, message} and opens no checkout; works again when the provider does', async ({ mode, status, message }) => {
    await front.setMode(mode);
    const res = await intent(25);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ success: false, message });
    expect(res.headers['retry-after']).toBe(status === 503 ? '5' : undefined);
    // Only the reference is recorded, as initialized: nothing to verify or mint from it.
    expect(await statuses()).toEqual(['initialized']);
    expect(await mintEntries()).toBe(0);
    expect(await tokens()).toBe('0.0000000');

    await front.setMode('forward');
    const retried = await intent(25);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(expect.objectContaining({ authorization_url: expect.stringMatching(/^http/), reference: expect.stringMatching(/^wlt-/) }));
  });
});

describe('verification when the provider fails after the buyer paid', () => {
  it('refuses verify-payment and the callback cleanly for every failure, consumes nothing, then mints exactly once', async () => {
    const created = await intent(25);
    expect(created.status).toBe(200);
    const reference = created.body.reference as string;
    const paid = await fetch(`${created.body.authorization_url as string}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);

    for (const { mode, status, message } of FAILURES) {
      await front.setMode(mode);
      const res = await verify(reference);
      expect([mode, res.status, res.body]).toEqual([mode, status, { success: false, message }]);
      const page = await app.http.get(`/api/payments/callback?reference=${reference}`);
      expect([mode, page.status, page.headers['content-type']]).toEqual([mode, status, expect.stringMatching(/text\/html/)]);
      expect(page.text).toMatch(/Reload this page in a moment/);
      // Not consumed, nothing minted, no mint in the journal.
      expect(await statuses()).toEqual(['initialized']);
      expect(await mintEntries()).toBe(0);
    }
    expect(await tokens()).toBe('0.0000000');

    await front.setMode('forward');
    const verified = await verify(reference);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ success: true, amount: 25, userId: expect.any(String) });
    await until(async () => ((await tokens()) === '25.0000000' ? true : undefined), 'the mint');
    expect(await verify(reference).then((r) => r.body)).toEqual({ success: false, message: 'Payment already processed' });
    expect((await app.http.get(`/api/payments/callback?reference=${reference}`)).status).toBe(200);
    expect(await statuses()).toEqual(['minted']);
    expect(await tokens()).toBe('25.0000000');
  });

  it('stores a signed webhook while the provider is down, retries it by itself until it mints, once; a redelivery changes nothing', async () => {
    const created = await intent(10);
    const reference = created.body.reference as string;
    expect((await fetch(`${created.body.authorization_url as string}/pay`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const event = JSON.stringify({ event: 'charge.success', data: { reference, status: 'success', amount: 1000, currency: 'NGN' } });
    const deliver = () =>
      app.http.post('/api/payments/webhook').set('Content-Type', 'application/json').set('x-paystack-signature', signPaystackPayload(event, provider.secretKey)).send(event);

    await front.setMode('down');
    expect((await deliver()).status).toBe(200);
    // The event is stored and settled after the answer: wait for the first attempt to fail on the provider.
    await until(async () => (app.logs.some((l) => l.includes('webhook settlement failed, retrying later')) ? true : undefined), 'the failed attempt');
    expect(await statuses()).toEqual(['initialized']);
    expect(await tokens()).toBe('0.0000000');

    // No redelivery: the inbox tries again by itself once the provider is back.
    await front.setMode('forward');
    await until(async () => {
      await app.container.webhookInbox.run();
      return (await tokens()) === '10.0000000' ? true : undefined;
    }, 'the mint after a retry', 20_000);
    expect((await deliver()).status).toBe(200);
    await until(async () => ((await statuses())[0] === 'minted' ? true : undefined), 'the payment to be marked minted');
    expect(await tokens()).toBe('10.0000000');
    expect(await mintEntries()).toBe(1);
  });
});
