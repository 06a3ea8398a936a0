import { initializeCharge, startSandbox, uniqueReference, type RunningSandbox } from './sandbox-harness';

describe('Paystack sandbox transaction API', () => {
  let running: RunningSandbox;

  beforeAll(async () => {
    running = await startSandbox();
  });

  afterAll(async () => {
    await running.stop();
  });

  describe('authentication', () => {
    it('rejects initialize and verify without an Authorization header', async () => {
      const initialize = await running.http.post('/transaction/initialize', { email: 'a@example.com', amount: 100 });
      const verify = await running.http.get('/transaction/verify/anything');

      for (const response of [initialize, verify]) {
        expect(response.status).toBe(401);
        expect(response.data).toEqual({ status: false, message: 'Invalid key' });
      }
    });

    it('rejects a wrong secret key', async () => {
      const response = await running.http.post(
        '/transaction/initialize',
        { email: 'a@example.com', amount: 100 },
        { headers: { Authorization: 'Bearer sk_test_not_the_right_one' } },
      );

      expect(response.status).toBe(401);
      expect(response.data).toEqual({ status: false, message: 'Invalid key' });
    });

    it('rejects the right key sent without the Bearer scheme', async () => {
      const response = await running.http.get('/transaction/verify/anything', {
        headers: { Authorization: 'sk_test_sandbox_harness_secret' },
      });

      expect(response.status).toBe(401);
    });
  });

  describe('POST /transaction/initialize', () => {
    it('creates a charge and returns an absolute checkout URL under the mount path', async () => {
      const reference = uniqueReference();

      const response = await running.api.post('/transaction/initialize', {
        email: 'buyer@example.com',
        amount: 250_000,
        reference,
      });

      expect(response.status).toBe(200);
      expect(response.data).toEqual({
        status: true,
        message: 'Authorization URL created',
        data: { authorization_url: expect.any(String), access_code: expect.any(String), reference },
      });
      const { authorization_url: url, access_code: accessCode } = response.data.data;
      expect(url).toBe(`${running.origin}/sandbox/paystack/checkout/${accessCode}`);
      const page = await running.http.get(url);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
    });

    it('builds the checkout URL from whatever prefix the router is mounted under', async () => {
      const elsewhere = await startSandbox({ mountPath: '/somewhere/else' });
      try {
        const charge = await initializeCharge(elsewhere.api);

        expect(charge.authorization_url).toBe(`${elsewhere.origin}/somewhere/else/checkout/${charge.access_code}`);
      } finally {
        await elsewhere.stop();
      }
    });

    it('accepts the amount as a string of digits, like Paystack', async () => {
      const charge = await initializeCharge(running.api, { amount: '150000' });

      const verified = await running.api.get(`/transaction/verify/${charge.reference}`);
      expect(verified.data.data.amount).toBe(150_000);
    });

    it('generates a distinct reference when none is given', async () => {
      const first = await initializeCharge(running.api);
      const second = await initializeCharge(running.api);

      expect(first.reference).toMatch(/^[A-Za-z0-9]{12}$/);
      expect(second.reference).not.toBe(first.reference);
      expect(second.access_code).not.toBe(first.access_code);
    });

    it.each([
      ['a missing email', { amount: 100 }, 'Invalid Email Address Passed'],
      ['an invalid email', { email: 'not-an-email', amount: 100 }, 'Invalid Email Address Passed'],
      ['a missing amount', { email: 'a@example.com' }, 'Invalid Amount Sent'],
      ['a zero amount', { email: 'a@example.com', amount: 0 }, 'Invalid Amount Sent'],
      ['a negative amount', { email: 'a@example.com', amount: -500 }, 'Invalid Amount Sent'],
      ['a fractional amount', { email: 'a@example.com', amount: 100.5 }, 'Invalid Amount Sent'],
      ['a decimal string amount', { email: 'a@example.com', amount: '100.50' }, 'Invalid Amount Sent'],
      ['an unsafe integer amount', { email: 'a@example.com', amount: 2 ** 53 }, 'Invalid Amount Sent'],
      ['a currency other than NGN', { email: 'a@example.com', amount: 100, currency: 'USD' }, 'Currency not supported by merchant'],
      ['a javascript: callback_url', { email: 'a@example.com', amount: 100, callback_url: 'javascript:alert(1)' }, 'Invalid callback_url'],
      [
        'a reference with characters Paystack refuses',
        { email: 'a@example.com', amount: 100, reference: 'has space' },
        'Invalid transaction reference. Only -, ., = and alphanumeric characters allowed.',
      ],
    ])('rejects %s with 400', async (_case, body, message) => {
      const response = await running.api.post('/transaction/initialize', body);

      expect(response.status).toBe(400);
      expect(response.data).toEqual({ status: false, message });
    });

    it('rejects malformed JSON with a Paystack-shaped 400', async () => {
      const response = await running.api.post('/transaction/initialize', '{"email":', {
        headers: { 'content-type': 'application/json' },
      });

      expect(response.status).toBe(400);
      expect(response.data).toEqual({ status: false, message: 'Invalid JSON body' });
    });

    it('rejects a reused reference, even one that was never paid', async () => {
      const reference = uniqueReference('dup');
      await initializeCharge(running.api, { reference });

      const again = await running.api.post('/transaction/initialize', { email: 'other@example.com', amount: 100, reference });

      expect(again.status).toBe(400);
      expect(again.data).toEqual({ status: false, message: 'Duplicate Transaction Reference' });
    });

    it('lets exactly one of many concurrent initializations claim a reference', async () => {
      const reference = uniqueReference('race');

      const responses = await Promise.all(
        Array.from({ length: 10 }, () => running.api.post('/transaction/initialize', { email: 'a@example.com', amount: 100, reference })),
      );

      expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
      expect(responses.filter((r) => r.status === 400)).toHaveLength(9);
    });
  });

  describe('GET /transaction/verify/:reference', () => {
    it('reports a charge nobody has paid yet as abandoned', async () => {
      const metadata = { user_id: 'u-42', custom_fields: [{ display_name: 'Wallet', variable_name: 'wallet', value: 'GABC' }] };
      const charge = await initializeCharge(running.api, { email: 'payer@example.com', amount: 123_456, metadata });

      const response = await running.api.get(`/transaction/verify/${charge.reference}`);

      expect(response.status).toBe(200);
      expect(response.data).toMatchObject({ status: true, message: 'Verification successful' });
      const data = response.data.data;
      expect(data).toMatchObject({
        id: expect.any(Number),
        domain: 'test',
        status: 'abandoned',
        reference: charge.reference,
        amount: 123_456,
        currency: 'NGN',
        paid_at: null,
        channel: 'card',
        gateway_response: 'The transaction was not completed',
        metadata,
        fees: null,
        customer: { id: expect.any(Number), email: 'payer@example.com', first_name: null, last_name: null },
      });
      expect(data.customer.customer_code).toMatch(/^CUS_[a-z0-9]+$/);
      expect(new Date(data.created_at).toISOString()).toBe(data.created_at);
    });

    it('parses metadata sent as a JSON string, as Paystack documents it', async () => {
      const charge = await initializeCharge(running.api, { metadata: JSON.stringify({ order: 7 }) });

      const response = await running.api.get(`/transaction/verify/${charge.reference}`);

      expect(response.data.data.metadata).toEqual({ order: 7 });
    });

    it('keeps one customer per email address across charges', async () => {
      const first = await initializeCharge(running.api, { email: 'same@example.com' });
      const second = await initializeCharge(running.api, { email: 'SAME@example.com' });

      const [a, b] = await Promise.all([first, second].map((c) => running.api.get(`/transaction/verify/${c.reference}`)));

      expect(b?.data.data.customer.id).toBe(a?.data.data.customer.id);
      expect(b?.data.data.id).not.toBe(a?.data.data.id);
    });

    it('answers 400 for a reference it has never seen', async () => {
      const response = await running.api.get('/transaction/verify/never-initialized');

      expect(response.status).toBe(400);
      expect(response.data).toEqual({ status: false, message: 'Transaction reference not found' });
    });
  });
});
