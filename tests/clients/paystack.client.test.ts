import axios from 'axios';
import { PaystackClient } from '../../src/clients/paystack.client';
import { AppError, type ErrorCode } from '../../src/errors/app-error';
import { eventually } from '../helpers/eventually';
import { answer, hang, startFakeServer, type FakeServer } from '../helpers/fake-server';
import { SECRET_KEY, startSandbox, uniqueReference, type RunningSandbox } from '@wallet/paystack-sandbox/testing';

const CALLBACK_URL = 'http://merchant.test/api/payments/callback';

/** Awaits the rejection and checks it is the AppError the service maps, with nothing secret in it. */
async function expectAppError(promise: Promise<unknown>, code: ErrorCode, secret = SECRET_KEY): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code).toBe(code);
  expect(appError.message).toBe(code === 'UPSTREAM_UNAVAILABLE' ? 'Payment provider unavailable, try again later' : 'Payment provider error');
  expect(JSON.stringify({ message: appError.message, cause: appError.cause, stack: appError.stack })).not.toContain(secret);
  return appError;
}

const chargeInput = (overrides: Partial<Parameters<PaystackClient['initialize']>[0]> = {}) => ({
  email: 'buyer@example.com',
  amountKobo: 500_000n,
  reference: uniqueReference('client'),
  callbackUrl: CALLBACK_URL,
  ...overrides,
});

describe('PaystackClient against the Paystack sandbox', () => {
  let running: RunningSandbox;
  let client: PaystackClient;

  beforeAll(async () => {
    running = await startSandbox();
    client = new PaystackClient({ baseUrl: running.baseUrl, secretKey: SECRET_KEY });
  });

  afterAll(async () => {
    await running.stop();
  });

  it('initializes a charge, sees it abandoned before payment and successful with the exact amount after Pay', async () => {
    const input = chargeInput({ amountKobo: 123_456_789n, metadata: { userId: 'user-1' } });

    const initialized = await client.initialize(input);

    expect(initialized.reference).toBe(input.reference);
    expect(initialized.access_code).toEqual(expect.any(String));
    expect(initialized.authorization_url).toBe(`${running.baseUrl}/checkout/${initialized.access_code}`);

    const beforePay = await client.verify(input.reference);
    expect(beforePay).toMatchObject({ status: 'abandoned', reference: input.reference, amountKobo: 123_456_789n, paidAt: null });

    // Pay as a browser would: open the checkout page and submit its Pay form.
    const checkout = await axios.get<string>(initialized.authorization_url, { responseType: 'text' });
    const payAction = /<form method="post" action="([^"]+\/pay)">/.exec(checkout.data)?.[1];
    expect(payAction).toBe(`${new URL(initialized.authorization_url).pathname}/pay`);
    const paid = await running.http.post(`${running.origin}${payAction!}`);
    expect(paid.status).toBe(303);
    expect(paid.headers.location).toBe(`${CALLBACK_URL}?trxref=${input.reference}&reference=${input.reference}`);

    const afterPay = await client.verify(input.reference);
    expect(afterPay).toEqual({
      status: 'success',
      reference: input.reference,
      amountKobo: 123_456_789n,
      currency: 'NGN',
      paidAt: expect.any(String),
      customerId: expect.stringMatching(/^\d+$/),
      customerEmail: 'buyer@example.com',
      raw: expect.objectContaining({ amount: 123_456_789, metadata: { userId: 'user-1' }, gateway_response: 'Successful' }),
    });
    expect(Number.isNaN(Date.parse(afterPay!.paidAt!))).toBe(false);
  });

  it('keeps the largest safe kobo amount exact in both directions', async () => {
    const input = chargeInput({ amountKobo: BigInt(Number.MAX_SAFE_INTEGER) });

    await client.initialize(input);

    expect((await client.verify(input.reference))?.amountKobo).toBe(9_007_199_254_740_991n);
  });

  it('refuses an amount a JSON number cannot carry exactly, before calling the provider', async () => {
    const input = chargeInput({ amountKobo: BigInt(Number.MAX_SAFE_INTEGER) + 1n });

    await expect(client.initialize(input)).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await client.verify(input.reference)).toBeUndefined();
  });

  it('answers undefined for a reference the provider does not know', async () => {
    expect(await client.verify(uniqueReference('unknown'))).toBeUndefined();
  });

  it('treats a refused initialize (duplicate reference) as UPSTREAM_FAILED', async () => {
    const input = chargeInput();
    await client.initialize(input);

    await expectAppError(client.initialize(input), 'UPSTREAM_FAILED');
  });

  it('treats a wrong secret key as UPSTREAM_FAILED, without revealing either key', async () => {
    const wrongSecret = 'sk_test_not_the_right_one';
    const misconfigured = new PaystackClient({ baseUrl: running.baseUrl, secretKey: wrongSecret });

    await expectAppError(misconfigured.initialize(chargeInput()), 'UPSTREAM_FAILED', wrongSecret);
    await expectAppError(misconfigured.verify(uniqueReference()), 'UPSTREAM_FAILED', wrongSecret);
  });
});

describe('PaystackClient when the provider misbehaves', () => {
  let fake: FakeServer | undefined;

  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  const clientFor = (baseUrl: string, timeoutMs?: number) => new PaystackClient({ baseUrl, secretKey: SECRET_KEY, timeoutMs });
  /** The one request the server got was closed by the client before any answer: it gave up, nothing else ended it. */
  const clientGaveUp = async (server: FakeServer) => {
    await eventually(async () => (server.requests[0]?.fate !== 'open' ? true : undefined), 'the client to close its request');
    expect(server.requests.map((r) => r.fate)).toEqual(['abandoned']);
  };

  it('sends the Bearer key and URL-encodes the reference in the verify path', async () => {
    fake = await startFakeServer(answer(400, '{"status":false,"message":"Transaction reference not found"}'));

    expect(await clientFor(fake.url).verify('a/b?c=d#e f')).toBeUndefined();

    expect(fake.requests.map((r) => ({ method: r.method, url: r.url, authorization: r.headers.authorization }))).toEqual([
      { method: 'GET', url: '/transaction/verify/a%2Fb%3Fc%3Dd%23e%20f', authorization: `Bearer ${SECRET_KEY}` },
    ]);
  });

  it('reports a refused connection as UPSTREAM_UNAVAILABLE', async () => {
    const closed = await startFakeServer(answer(200, '{}'));
    await closed.close();

    await expectAppError(clientFor(closed.url).verify('ref-1'), 'UPSTREAM_UNAVAILABLE');
    await expectAppError(clientFor(closed.url).initialize(chargeInput()), 'UPSTREAM_UNAVAILABLE');
  });

  it.each([500, 502, 503, 429])('reports HTTP %d as UPSTREAM_UNAVAILABLE', async (status) => {
    fake = await startFakeServer(answer(status, '{"status":false,"message":"Something went wrong"}'));

    await expectAppError(clientFor(fake.url).verify('ref-1'), 'UPSTREAM_UNAVAILABLE');
    await expectAppError(clientFor(fake.url).initialize(chargeInput()), 'UPSTREAM_UNAVAILABLE');
  });

  it('gives up on a provider slower than the timeout with UPSTREAM_UNAVAILABLE', async () => {
    // Never answers; the server is closed (connections included) after the test.
    fake = await startFakeServer(hang);

    await expectAppError(clientFor(fake.url, 200).verify('ref-1'), 'UPSTREAM_UNAVAILABLE');

    // The client's deadline ended it: the server never answered, and the client closed the request.
    await clientGaveUp(fake);
  });

  it('gives up on an answer that keeps trickling in past the timeout', async () => {
    // A byte every 50 ms keeps the socket busy, so only a whole-request deadline can stop it.
    const timers: NodeJS.Timeout[] = [];
    fake = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status": true, ');
      timers.push(setInterval(() => res.write(' '), 50));
    });

    try {
      await expectAppError(clientFor(fake.url, 200).verify('ref-1'), 'UPSTREAM_UNAVAILABLE');
      await clientGaveUp(fake);
    } finally {
      timers.forEach(clearInterval);
    }
  });

  it('reports malformed JSON as UPSTREAM_FAILED', async () => {
    fake = await startFakeServer(answer(200, '{"status": tr'));

    await expectAppError(clientFor(fake.url).verify('ref-1'), 'UPSTREAM_FAILED');
    await expectAppError(clientFor(fake.url).initialize(chargeInput()), 'UPSTREAM_FAILED');
  });

  it('reports an HTML error page as UPSTREAM_FAILED', async () => {
    fake = await startFakeServer(answer(200, '<html><body>Bad gateway config</body></html>', 'text/html'));

    await expectAppError(clientFor(fake.url).verify('ref-1'), 'UPSTREAM_FAILED');
  });

  const verifyBody = (data: Record<string, unknown>) =>
    JSON.stringify({
      status: true,
      message: 'Verification successful',
      data: {
        status: 'success',
        reference: 'ref-1',
        amount: 500_000,
        currency: 'NGN',
        paid_at: '2024-01-01T00:00:00.000Z',
        customer: { id: 7, email: 'buyer@example.com' },
        ...data,
      },
    });

  it('accepts a well-formed verify answer from any server (control for the shape cases below)', async () => {
    fake = await startFakeServer(answer(200, verifyBody({ extra_field: { kept: true } })));

    const verified = await clientFor(fake.url).verify('ref-1');

    expect(verified).toMatchObject({ status: 'success', amountKobo: 500_000n, customerId: '7', raw: { extra_field: { kept: true } } });
  });

  it.each([
    ['amount as a string of letters', { amount: 'abc' }],
    ['amount with a fraction', { amount: 1500.5 }],
    ['amount beyond the safe integers', { amount: 2 ** 60 }],
    ['amount missing', { amount: undefined }],
    ['customer missing', { customer: undefined }],
    ['status not a string', { status: 1 }],
    ['another reference than asked for', { reference: 'ref-2' }],
  ])('reports a verify answer with %s as UPSTREAM_FAILED', async (_label, data) => {
    fake = await startFakeServer(answer(200, verifyBody(data)));

    await expectAppError(clientFor(fake.url).verify('ref-1'), 'UPSTREAM_FAILED');
  });

  it.each([
    ['status:false on HTTP 200', '{"status":false,"message":"Duplicate Transaction Reference"}'],
    ['no authorization_url', '{"status":true,"data":{"access_code":"abc","reference":"ref-1"}}'],
    ['a JSON array', '[]'],
  ])('reports an initialize answer with %s as UPSTREAM_FAILED', async (_label, body) => {
    fake = await startFakeServer(answer(200, body));

    await expectAppError(clientFor(fake.url).initialize(chargeInput({ reference: 'ref-1' })), 'UPSTREAM_FAILED');
  });

  it('reports a 400 verify answer that is not Paystack\'s {status:false} as UPSTREAM_FAILED', async () => {
    fake = await startFakeServer(answer(400, '{"error":"bad request"}'));

    await expectAppError(clientFor(fake.url).verify('ref-1'), 'UPSTREAM_FAILED');
  });

  it('reports a 403 as UPSTREAM_FAILED and does not follow redirects', async () => {
    fake = await startFakeServer(answer(403, '{"status":false,"message":"Forbidden"}'));
    await expectAppError(clientFor(fake.url).verify('ref-1'), 'UPSTREAM_FAILED');
    await fake.close();

    fake = await startFakeServer((_req, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
    });
    await expectAppError(clientFor(fake.url).verify('ref-1'), 'UPSTREAM_FAILED');
    expect(fake.requests).toHaveLength(1);
  });
});
