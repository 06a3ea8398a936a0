import axios from 'axios';
import { PaystackClient } from '../../src/clients/paystack.client';
import { AppError, type ErrorCode } from '../../src/errors/app-error';
import { eventually } from '../helpers/eventually';
import { answer, hang, startFakeServer, type FakeServer } from '../helpers/fake-server';
import { accountNameFor, SANDBOX_OTP, sandboxControlPaths } from '@wallet/paystack-sandbox';
import {
  createTransferRecipient,
  initializeCharge,
  initializePaidCharge,
  SECRET_KEY,
  setSandboxBalance,
  startSandbox,
  uniqueReference,
  uniqueTransferReference,
  type RunningSandbox,
} from '@wallet/paystack-sandbox/testing';

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

describe('PaystackClient listing the provider\'s transactions, against the Paystack sandbox', () => {
  let running: RunningSandbox;
  let client: PaystackClient;

  // A sandbox per test: the list shows every charge it holds.
  beforeEach(async () => {
    running = await startSandbox();
    client = new PaystackClient({ baseUrl: running.baseUrl, secretKey: SECRET_KEY });
  });

  afterEach(async () => {
    await running.stop();
  });

  const collect = async (iterator: AsyncIterable<{ reference: string }>) => {
    const references: string[] = [];
    for await (const transaction of iterator) references.push(transaction.reference);
    return references;
  };

  it('lists a page newest first, each transaction as verify gives it, amounts as bigint kobo', async () => {
    const paid = await initializePaidCharge(running.api, { amount: 9_007_199_254_740_991 });
    const open = await initializeCharge(running.api, { amount: 150_000 });

    const page = await client.listTransactions();

    expect(page).toMatchObject({ page: 1, pageCount: 1, total: 2 });
    expect(page.transactions.map((t) => t.reference)).toEqual([open.reference, paid.reference]);
    expect(page.transactions[1]).toEqual(await client.verify(paid.reference));
    expect(page.transactions[1]).toMatchObject({ status: 'success', amountKobo: 9_007_199_254_740_991n, currency: 'NGN', paidAt: expect.any(String) });
    expect(page.transactions[0]).toMatchObject({ status: 'abandoned', amountKobo: 150_000n, paidAt: null });
  });

  it('asks for one page at a time, with the status and creation window given', async () => {
    const first = await initializePaidCharge(running.api);
    const declined = await initializeCharge(running.api);
    await running.api.post(sandboxControlPaths.transactionStatus(declined.reference), { status: 'failed' });
    const second = await initializePaidCharge(running.api);

    const successes = await client.listTransactions({ status: 'success', perPage: 1, page: 2 });
    const all = await client.listTransactions({ from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 60_000) });
    const later = await client.listTransactions({ from: new Date(Date.now() + 60_000) });

    expect(successes).toMatchObject({ page: 2, pageCount: 2, total: 2 });
    expect(successes.transactions.map((t) => t.reference)).toEqual([first.reference]);
    expect(all.total).toBe(3);
    expect(later).toEqual({ transactions: [], page: 1, pageCount: 0, total: 0 });
    expect(await collect(client.allTransactions({ status: 'success' }))).toEqual([second.reference, first.reference]);
  });

  it('walks every page once, page after page', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i += 1) made.push((await initializeCharge(running.api)).reference);

    const seen = await collect(client.allTransactions({ perPage: 3 }));

    expect([...seen].sort()).toEqual([...made].sort());
    expect(seen).toHaveLength(7);
  });

  it('treats a wrong secret key as UPSTREAM_FAILED', async () => {
    const misconfigured = new PaystackClient({ baseUrl: running.baseUrl, secretKey: 'sk_test_not_the_right_one' });

    await expectAppError(misconfigured.listTransactions(), 'UPSTREAM_FAILED', 'sk_test_not_the_right_one');
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

  const listBody = (references: string[], meta: Record<string, unknown>) =>
    JSON.stringify({
      status: true,
      message: 'Transactions retrieved',
      data: references.map((reference) => JSON.parse(verifyBody({ reference })).data as unknown),
      meta: { total: references.length, skipped: 0, perPage: 50, page: 1, pageCount: 1, ...meta },
    });

  it('sends page, perPage, status and the window as query parameters of GET /transaction', async () => {
    fake = await startFakeServer(answer(200, listBody([], { total: 0, pageCount: 0 })));

    await clientFor(fake.url).listTransactions({ page: 3, perPage: 20, status: 'success', from: new Date('2024-01-01T00:00:00Z'), to: new Date('2024-02-01T00:00:00Z') });

    const url = new URL(fake.requests[0]!.url, fake.url);
    expect([fake.requests[0]!.method, url.pathname, Object.fromEntries(url.searchParams)]).toEqual([
      'GET',
      '/transaction',
      { page: '3', perPage: '20', status: 'success', from: '2024-01-01T00:00:00.000Z', to: '2024-02-01T00:00:00.000Z' },
    ]);
  });

  it('takes meta counts sent as strings of digits', async () => {
    fake = await startFakeServer(answer(200, listBody(['ref-1'], { total: '1', page: '1', pageCount: '1' })));

    expect(await clientFor(fake.url).listTransactions()).toMatchObject({ total: 1, page: 1, pageCount: 1, transactions: [{ reference: 'ref-1' }] });
  });

  it('gives a transaction pushed onto the next page by a newer one only once', async () => {
    // Between the two pages a new transaction arrived at the front: ref-2 moved from page 1 to page 2.
    fake = await startFakeServer((req, res) => {
      const page = new URL(req.url ?? '/', 'http://fake').searchParams.get('page');
      const body = page === '1' ? listBody(['ref-3', 'ref-2'], { total: 3, pageCount: 2 }) : listBody(['ref-2', 'ref-1'], { total: 4, page: 2, pageCount: 2 });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });

    const seen: string[] = [];
    for await (const transaction of clientFor(fake.url).allTransactions({ perPage: 2 })) seen.push(transaction.reference);

    expect(seen).toEqual(['ref-3', 'ref-2', 'ref-1']);
  });

  it('ends the walk with the error of a page that failed, never as if the list were complete', async () => {
    fake = await startFakeServer((req, res) => {
      const page = new URL(req.url ?? '/', 'http://fake').searchParams.get('page');
      if (page === '1') res.writeHead(200, { 'content-type': 'application/json' }).end(listBody(['ref-2'], { total: 2, perPage: 1, pageCount: 2 }));
      else res.writeHead(503).end();
    });

    const walk = async () => {
      for await (const transaction of clientFor(fake!.url).allTransactions({ perPage: 1 })) expect(transaction.reference).toBe('ref-2');
    };
    await expectAppError(walk(), 'UPSTREAM_UNAVAILABLE');
  });

  it.each([
    ['data not an array', JSON.stringify({ status: true, data: {}, meta: { total: 0, page: 1, pageCount: 0 } })],
    ['no meta', JSON.stringify({ status: true, data: [] })],
    ['a transaction with a fractional amount', listBody(['ref-1'], {}).replace('"amount":500000', '"amount":5000.5')],
    ['a negative pageCount', listBody([], { pageCount: -1 })],
  ])('reports a list answer with %s as UPSTREAM_FAILED', async (_label, body) => {
    fake = await startFakeServer(answer(200, body));

    await expectAppError(clientFor(fake.url).listTransactions(), 'UPSTREAM_FAILED');
  });

  it.each([
    [400, 'UPSTREAM_FAILED'],
    [503, 'UPSTREAM_UNAVAILABLE'],
    [429, 'UPSTREAM_UNAVAILABLE'],
  ] as const)('reports a list answered HTTP %d as %s', async (status, code) => {
    fake = await startFakeServer(answer(status, '{"status":false,"message":"No"}'));

    await expectAppError(clientFor(fake.url).listTransactions(), code);
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

describe('PaystackClient paying out, against the Paystack sandbox', () => {
  let running: RunningSandbox;
  let client: PaystackClient;
  let recipient: string;

  // A sandbox per test: each starts from a known balance of ₦10,000.
  beforeEach(async () => {
    running = await startSandbox();
    client = new PaystackClient({ baseUrl: running.baseUrl, secretKey: SECRET_KEY });
    await setSandboxBalance(running.api, 1_000_000);
    recipient = await createTransferRecipient(running.api);
  });

  afterEach(async () => {
    await running.stop();
  });

  const transferInput = (overrides: Partial<Parameters<PaystackClient['initiateTransfer']>[0]> = {}) => ({
    amountKobo: 250_000n,
    recipient,
    reference: uniqueTransferReference('client'),
    reason: 'Cash-out',
    ...overrides,
  });
  const control = (path: string, body: Record<string, unknown>) => running.api.post(path, body);

  it('lists the banks, resolves an account\'s name and creates its recipient once', async () => {
    const banks = await client.listBanks();
    const resolved = await client.resolveAccount('0123456789', '058');
    const created = await client.createRecipient({ name: 'Ada', accountNumber: '0123456789', bankCode: '058' });
    const again = await client.createRecipient({ name: 'Ada', accountNumber: '0123456789', bankCode: '058' });

    expect(banks).toContainEqual({ name: 'Guaranty Trust Bank', code: '058' });
    expect(resolved).toEqual({ accountNumber: '0123456789', accountName: accountNameFor('0123456789', '058') });
    expect(created).toEqual({
      recipientCode: recipient,
      accountNumber: '0123456789',
      accountName: accountNameFor('0123456789', '058'),
      bankCode: '058',
      bankName: 'Guaranty Trust Bank',
    });
    expect(again).toEqual(created);
  });

  it('answers undefined for an account the provider cannot resolve', async () => {
    expect(await client.resolveAccount('012345678', '058')).toBeUndefined();
    expect(await client.resolveAccount('0123456789', '999')).toBeUndefined();
  });

  it('treats a refused recipient as UPSTREAM_FAILED', async () => {
    await expectAppError(client.createRecipient({ name: 'Ada', accountNumber: '12', bankCode: '058' }), 'UPSTREAM_FAILED');
  });

  it('pays: accepted with its status and transfer code, the balance lowered, verify agreeing, amounts in bigint kobo', async () => {
    const input = transferInput();

    const result = await client.initiateTransfer(input);
    const verified = await client.verifyTransfer(input.reference);

    expect(result).toEqual({
      outcome: 'accepted',
      transfer: {
        reference: input.reference,
        transferCode: expect.stringMatching(/^TRF_/),
        amountKobo: 250_000n,
        status: 'success',
        reason: 'Cash-out',
        raw: expect.objectContaining({ amount: 250_000, reference: input.reference }),
      },
    });
    expect(verified).toMatchObject({ reference: input.reference, status: 'success', amountKobo: 250_000n });
    expect(verified?.transferCode).toBe(result.outcome === 'accepted' ? result.transfer.transferCode : undefined);
    expect(await client.balance()).toBe(750_000n);
  });

  it('answers undefined for a transfer reference the provider does not know', async () => {
    expect(await client.verifyTransfer(uniqueTransferReference('unknown'))).toBeUndefined();
  });

  it('tells a reused reference and a balance too low apart, with the provider\'s message', async () => {
    const input = transferInput();
    await client.initiateTransfer(input);

    const reused = await client.initiateTransfer(input);
    const tooMuch = await client.initiateTransfer(transferInput({ amountKobo: 750_001n }));
    const badRecipient = await client.initiateTransfer(transferInput({ recipient: 'RCP_nobody' }));

    expect(reused).toEqual({ outcome: 'refused', reason: 'reference_used', message: 'This reference has already been used on a prior transfer' });
    expect(tooMuch).toEqual({ outcome: 'refused', reason: 'balance_not_enough', message: 'Your balance is not enough to fulfil this request' });
    expect(badRecipient).toEqual({ outcome: 'refused', reason: 'other', message: 'Recipient specified is invalid' });
    expect(await client.balance()).toBe(750_000n);
  });

  it.each(['504-after-create', 'reset-after-create'])(
    'answers unclear when the provider %s, and verify then finds the one transfer',
    async (fault) => {
      const input = transferInput();
      await control(sandboxControlPaths.transferFault(), { fault, reference: input.reference });

      const result = await client.initiateTransfer(input);
      const verified = await client.verifyTransfer(input.reference);
      const retried = await client.initiateTransfer(input);

      expect(result).toEqual({ outcome: 'unclear', cause: expect.any(String) });
      expect(verified).toMatchObject({ reference: input.reference, status: 'success', amountKobo: 250_000n });
      expect(retried).toMatchObject({ outcome: 'refused', reason: 'reference_used' });
      expect(await client.balance()).toBe(750_000n);
    },
  );

  it('answers unclear on a 500 before the transfer exists; verify finds none and the same reference then pays', async () => {
    const input = transferInput();
    await control(sandboxControlPaths.transferFault(), { fault: '500-before' });

    const result = await client.initiateTransfer(input);
    const verified = await client.verifyTransfer(input.reference);
    const retried = await client.initiateTransfer(input);

    expect(result).toEqual({ outcome: 'unclear', cause: 'HTTP 500' });
    expect(verified).toBeUndefined();
    expect(retried).toMatchObject({ outcome: 'accepted', transfer: { status: 'success' } });
  });

  it('reports pending, failed and reversed transfers as the provider has them', async () => {
    const pending = transferInput();
    const failing = transferInput();
    await control(sandboxControlPaths.nextTransfer(), { outcome: 'pending', reference: pending.reference });
    await control(sandboxControlPaths.nextTransfer(), { outcome: 'failed', reference: failing.reference });

    expect(await client.initiateTransfer(pending)).toMatchObject({ outcome: 'accepted', transfer: { status: 'pending' } });
    expect(await client.initiateTransfer(failing)).toMatchObject({ outcome: 'accepted', transfer: { status: 'failed' } });
    await control(sandboxControlPaths.transferStatus(pending.reference), { status: 'success' });
    await control(sandboxControlPaths.transferStatus(pending.reference), { status: 'reversed' });

    expect(await client.verifyTransfer(pending.reference)).toMatchObject({ status: 'reversed' });
    expect(await client.verifyTransfer(failing.reference)).toMatchObject({ status: 'failed' });
    expect(await client.balance()).toBe(1_000_000n);
  });

  it('finalizes an otp transfer with the right OTP; a wrong one is refused', async () => {
    await control(sandboxControlPaths.transferOtp(), { enabled: true });
    const input = transferInput();

    const created = await client.initiateTransfer(input);
    const transferCode = created.outcome === 'accepted' ? created.transfer.transferCode : '';
    const wrong = await client.finalizeTransfer(transferCode, '000000');
    const right = await client.finalizeTransfer(transferCode, SANDBOX_OTP);

    expect(created).toMatchObject({ outcome: 'accepted', transfer: { status: 'otp' } });
    expect(wrong).toEqual({ outcome: 'refused', reason: 'other', message: 'Invalid OTP' });
    expect(right).toMatchObject({ outcome: 'accepted', transfer: { reference: input.reference, status: 'success' } });
  });

  it('refuses an amount a JSON number cannot carry exactly, before calling the provider', async () => {
    const input = transferInput({ amountKobo: BigInt(Number.MAX_SAFE_INTEGER) + 1n });

    await expect(client.initiateTransfer(input)).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(await client.verifyTransfer(input.reference)).toBeUndefined();
  });

  it('treats a wrong secret key as UPSTREAM_FAILED, not as a refusal', async () => {
    const misconfigured = new PaystackClient({ baseUrl: running.baseUrl, secretKey: 'sk_test_not_the_right_one' });

    await expectAppError(misconfigured.initiateTransfer(transferInput()), 'UPSTREAM_FAILED', 'sk_test_not_the_right_one');
    await expectAppError(misconfigured.balance(), 'UPSTREAM_FAILED', 'sk_test_not_the_right_one');
    await expectAppError(misconfigured.listTransfers(), 'UPSTREAM_FAILED', 'sk_test_not_the_right_one');
  });

  /** Pays `amountKobo` under a new reference, `outcome` as the sandbox's next-transfer control plans it; answers the reference. */
  const pay = async (amountKobo: bigint, outcome: 'success' | 'pending' | 'failed' = 'success') => {
    const input = transferInput({ amountKobo });
    if (outcome !== 'success') await control(sandboxControlPaths.nextTransfer(), { outcome, reference: input.reference });
    expect(await client.initiateTransfer(input)).toMatchObject({ outcome: 'accepted', transfer: { status: outcome } });
    return input.reference;
  };

  const collect = async (iterator: AsyncIterable<{ reference: string }>) => {
    const references: string[] = [];
    for await (const transfer of iterator) references.push(transfer.reference);
    return references;
  };

  it('lists the transfers newest first, each as verifyTransfer gives it, amounts as bigint kobo', async () => {
    const paid = await pay(100_000n);
    const failed = await pay(200_000n, 'failed');
    const pending = await pay(300_000n, 'pending');

    const page = await client.listTransfers();

    expect(page).toMatchObject({ page: 1, pageCount: 1, total: 3 });
    expect(page.transfers.map((t) => t.reference)).toEqual([pending, failed, paid]);
    expect(page.transfers.map((t) => [t.status, t.amountKobo])).toEqual([
      ['pending', 300_000n],
      ['failed', 200_000n],
      ['success', 100_000n],
    ]);
    expect(page.transfers[2]).toEqual(await client.verifyTransfer(paid));
    expect(page.transfers[2]).toMatchObject({ transferCode: expect.stringMatching(/^TRF_/), reason: 'Cash-out', raw: expect.objectContaining({ amount: 100_000, createdAt: expect.any(String) }) });
  });

  it('asks for one page at a time, with the status given, and answers a page past the last empty', async () => {
    const first = await pay(100_000n);
    const failed = await pay(100_000n, 'failed');
    const second = await pay(100_000n);

    const successes = await client.listTransfers({ status: 'success', perPage: 1, page: 2 });
    const middle = await client.listTransfers({ perPage: 1, page: 2 });
    const past = await client.listTransfers({ perPage: 1, page: 4 });

    expect(successes).toMatchObject({ page: 2, pageCount: 2, total: 2 });
    expect(successes.transfers.map((t) => t.reference)).toEqual([first]);
    expect(middle.transfers.map((t) => t.reference)).toEqual([failed]);
    expect(past).toEqual({ transfers: [], page: 4, pageCount: 3, total: 3 });
    expect(await collect(client.allTransfers({ status: 'success' }))).toEqual([second, first]);
  });

  it('walks every transfer once, page after page', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i += 1) made.push(await pay(10_000n));

    const seen = await collect(client.allTransfers({ perPage: 3 }));

    expect([...seen].sort()).toEqual([...made].sort());
    expect(seen).toHaveLength(7);
  });
});

describe('PaystackClient paying out when the provider misbehaves', () => {
  let fake: FakeServer | undefined;

  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  const input = () => ({ amountKobo: 100n, recipient: 'RCP_x', reference: uniqueTransferReference('fake'), reason: 'Cash-out' });

  it('answers unclear when the provider does not answer within the timeout', async () => {
    fake = await startFakeServer(hang);

    const result = await new PaystackClient({ baseUrl: fake.url, secretKey: SECRET_KEY, timeoutMs: 200 }).initiateTransfer(input());

    expect(result).toEqual({ outcome: 'unclear', cause: expect.stringContaining('no complete answer') });
  });

  it.each([
    ['an HTML error page from a proxy', 404, '<html>Not Found</html>', 'text/html'],
    ['a 200 it cannot read', 200, '{"status":true,"data":{}}', 'application/json'],
    ['a 429', 429, '{"status":false,"message":"Too many requests"}', 'application/json'],
  ])('answers unclear for %s: only verify can say whether the transfer exists', async (_case, status, body, contentType) => {
    fake = await startFakeServer(answer(status, body, contentType));

    const result = await new PaystackClient({ baseUrl: fake.url, secretKey: SECRET_KEY }).initiateTransfer(input());

    expect(result).toMatchObject({ outcome: 'unclear' });
  });

  // Paystack says "not found" as a 400 on /transaction/verify; a transfer verify answered the same
  // way must show the transfer absent (else a never-created one could never be tried again), and a
  // proxy's 404 page must not.
  it('takes a transfer verify answered 400 in Paystack\'s shape as not found, and a proxy\'s 404 page as a failure', async () => {
    fake = await startFakeServer(answer(400, '{"status":false,"message":"Transfer not found"}', 'application/json'));
    expect(await new PaystackClient({ baseUrl: fake.url, secretKey: SECRET_KEY }).verifyTransfer('trf-unknown-reference-1')).toBeUndefined();
    await fake.close();
    fake = await startFakeServer(answer(404, '<html>Not Found</html>', 'text/html'));
    await expect(new PaystackClient({ baseUrl: fake.url, secretKey: SECRET_KEY }).verifyTransfer('trf-unknown-reference-1')).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  });

  const transferListBody = (transfers: { reference: string; code: string; amount?: unknown }[], meta: Record<string, unknown>) =>
    JSON.stringify({
      status: true,
      message: 'Transfers retrieved',
      data: transfers.map((t) => ({ reference: t.reference, transfer_code: t.code, amount: t.amount ?? 100, status: 'success', reason: 'Cash-out', recipient: { recipient_code: 'RCP_x' } })),
      meta: { total: transfers.length, skipped: 0, perPage: 50, page: 1, pageCount: 1, ...meta },
    });

  it('sends page, perPage and status as query parameters of GET /transfer', async () => {
    fake = await startFakeServer(answer(200, transferListBody([], { total: 0, pageCount: 0 })));

    await new PaystackClient({ baseUrl: fake.url, secretKey: SECRET_KEY }).listTransfers({ page: 3, perPage: 20, status: 'reversed' });

    const url = new URL(fake.requests[0]!.url, fake.url);
    expect([fake.requests[0]!.method, url.pathname, Object.fromEntries(url.searchParams)]).toEqual(['GET', '/transfer', { page: '3', perPage: '20', status: 'reversed' }]);
  });

  it('gives a transfer pushed onto the next page once, and two transfers under one reference both', async () => {
    // Between the two pages a new transfer arrived at the front: TRF_2 moved from page 1 to page 2.
    // TRF_1 and TRF_0 share a reference, which the provider should never allow: the audit must see both.
    fake = await startFakeServer((req, res) => {
      const page = new URL(req.url ?? '/', 'http://fake').searchParams.get('page');
      const body =
        page === '1'
          ? transferListBody([{ reference: 'wdl-3', code: 'TRF_3' }, { reference: 'wdl-2', code: 'TRF_2' }], { total: 4, pageCount: 2 })
          : transferListBody([{ reference: 'wdl-2', code: 'TRF_2' }, { reference: 'wdl-1', code: 'TRF_1' }, { reference: 'wdl-1', code: 'TRF_0' }], { total: 5, page: 2, pageCount: 2 });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });

    const seen: string[] = [];
    for await (const t of new PaystackClient({ baseUrl: fake.url, secretKey: SECRET_KEY }).allTransfers({ perPage: 2 })) seen.push(`${t.reference} ${t.transferCode}`);

    expect(seen).toEqual(['wdl-3 TRF_3', 'wdl-2 TRF_2', 'wdl-1 TRF_1', 'wdl-1 TRF_0']);
  });

  it('ends the walk of transfers with the error of a page that failed, never as if the list were complete', async () => {
    fake = await startFakeServer((req, res) => {
      const page = new URL(req.url ?? '/', 'http://fake').searchParams.get('page');
      if (page === '1') res.writeHead(200, { 'content-type': 'application/json' }).end(transferListBody([{ reference: 'wdl-2', code: 'TRF_2' }], { total: 2, perPage: 1, pageCount: 2 }));
      else res.writeHead(503).end();
    });

    const walk = async () => {
      for await (const t of new PaystackClient({ baseUrl: fake!.url, secretKey: SECRET_KEY }).allTransfers({ perPage: 1 })) expect(t.reference).toBe('wdl-2');
    };
    await expectAppError(walk(), 'UPSTREAM_UNAVAILABLE');
  });

  it.each([
    ['a transfer with a fractional amount', transferListBody([{ reference: 'wdl-1', code: 'TRF_1', amount: 100.5 }], {})],
    ['a transfer without its transfer code', transferListBody([{ reference: 'wdl-1', code: '' }], {})],
    ['no meta', JSON.stringify({ status: true, data: [] })],
  ])('reports a transfer list answer with %s as UPSTREAM_FAILED', async (_label, body) => {
    fake = await startFakeServer(answer(200, body));

    await expectAppError(new PaystackClient({ baseUrl: fake.url, secretKey: SECRET_KEY }).listTransfers(), 'UPSTREAM_FAILED');
  });
});
