import { checkoutPath, initializeCharge, startSandbox, type RunningSandbox } from './sandbox-harness';

describe('Paystack sandbox checkout page', () => {
  let running: RunningSandbox;

  beforeAll(async () => {
    running = await startSandbox();
  });

  afterAll(async () => {
    await running.stop();
  });

  const verify = async (reference: string) => (await running.api.get(`/transaction/verify/${reference}`)).data.data;

  describe('GET /checkout/:accessCode', () => {
    it('shows the amount in naira, the email, the reference and the three buttons', async () => {
      const charge = await initializeCharge(running.api, { email: 'shopper@example.com', amount: 123_456_789 });

      const page = await running.http.get(checkoutPath(charge.access_code));

      expect(page.status).toBe(200);
      const html: string = page.data;
      expect(html).toContain('₦1,234,567.89');
      expect(html).toContain('shopper@example.com');
      expect(html).toContain(charge.reference);
      for (const action of ['pay', 'decline', 'cancel']) {
        expect(html).toContain(`action="/sandbox/paystack/checkout/${charge.access_code}/${action}"`);
      }
      expect(html).toMatch(/<button[^>]*>Pay<\/button>/);
      expect(html).toMatch(/<button[^>]*>Decline<\/button>/);
      expect(html).toMatch(/<button[^>]*>Cancel<\/button>/);
    });

    it('loads nothing from outside and forbids scripts', async () => {
      const charge = await initializeCharge(running.api);

      const page = await running.http.get(checkoutPath(charge.access_code));

      expect(page.data).not.toMatch(/<script|<link|src=|https?:\/\//i);
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    });

    it('escapes HTML in the email and in metadata custom fields', async () => {
      const charge = await initializeCharge(running.api, {
        email: "o'brien@example.com",
        metadata: { custom_fields: [{ display_name: '<script>alert(1)</script>', variable_name: 'x', value: '"><img src=x onerror=alert(2)>' }] },
      });

      const html: string = (await running.http.get(checkoutPath(charge.access_code))).data;

      expect(html).not.toContain('<script>alert(1)</script>');
      expect(html).not.toContain('<img src=x');
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
      expect(html).toContain('o&#39;brien@example.com');
    });

    it('answers an unknown access code with a 404 HTML page', async () => {
      const page = await running.http.get(checkoutPath('no-such-code'));

      expect(page.status).toBe(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.data).toContain('Checkout not found');
    });

    it('shows a paid charge without buttons', async () => {
      const charge = await initializeCharge(running.api);
      await running.http.post(checkoutPath(charge.access_code, 'pay'));

      const html: string = (await running.http.get(checkoutPath(charge.access_code))).data;

      expect(html).toContain('This charge has been paid.');
      expect(html).not.toContain('<button');
    });
  });

  describe('Pay, Decline and Cancel', () => {
    it('Pay marks the charge successful and redirects to callback_url with trxref and reference', async () => {
      const charge = await initializeCharge(running.api, { callback_url: 'http://merchant.test/cb', amount: 250_000 });

      const response = await running.http.post(checkoutPath(charge.access_code, 'pay'));

      expect(response.status).toBe(303);
      expect(response.headers.location).toBe(`http://merchant.test/cb?trxref=${charge.reference}&reference=${charge.reference}`);
      const data = await verify(charge.reference);
      expect(data).toMatchObject({ status: 'success', gateway_response: 'Successful', amount: 250_000, fees: 13_750 });
      expect(new Date(data.paid_at).toISOString()).toBe(data.paid_at);
      expect(data.authorization.authorization_code).toMatch(/^AUTH_/);
    });

    it('appends with & when callback_url already has a query string', async () => {
      const charge = await initializeCharge(running.api, { callback_url: 'http://merchant.test/cb?order=7&lang=en' });

      const response = await running.http.post(checkoutPath(charge.access_code, 'pay'));

      expect(response.headers.location).toBe(
        `http://merchant.test/cb?order=7&lang=en&trxref=${charge.reference}&reference=${charge.reference}`,
      );
    });

    it('Decline marks the charge failed and still sends the buyer back', async () => {
      const charge = await initializeCharge(running.api);

      const response = await running.http.post(checkoutPath(charge.access_code, 'decline'));

      expect(response.status).toBe(303);
      expect(response.headers.location).toBe(
        `http://merchant.test/payments/callback?trxref=${charge.reference}&reference=${charge.reference}`,
      );
      expect(await verify(charge.reference)).toMatchObject({ status: 'failed', gateway_response: 'Declined', paid_at: null });
    });

    it('Cancel leaves the charge abandoned, and it can still be paid later', async () => {
      const charge = await initializeCharge(running.api);

      const cancel = await running.http.post(checkoutPath(charge.access_code, 'cancel'));
      const afterCancel = await verify(charge.reference);
      await running.http.post(checkoutPath(charge.access_code, 'pay'));

      expect(cancel.status).toBe(303);
      expect(cancel.headers.location).toContain(`reference=${charge.reference}`);
      expect(afterCancel).toMatchObject({ status: 'abandoned', gateway_response: 'The transaction was not completed' });
      expect((await verify(charge.reference)).status).toBe('success');
    });

    it('never changes a successful charge again, but still redirects', async () => {
      const charge = await initializeCharge(running.api);
      await running.http.post(checkoutPath(charge.access_code, 'pay'));
      const paid = await verify(charge.reference);

      const responses = [];
      for (const action of ['decline', 'cancel', 'pay'] as const) {
        responses.push(await running.http.post(checkoutPath(charge.access_code, action)));
      }

      expect(responses.map((r) => r.status)).toEqual([303, 303, 303]);
      expect(await verify(charge.reference)).toEqual(paid);
    });

    it('never pays a declined charge', async () => {
      const charge = await initializeCharge(running.api);
      await running.http.post(checkoutPath(charge.access_code, 'decline'));

      await running.http.post(checkoutPath(charge.access_code, 'pay'));

      expect(await verify(charge.reference)).toMatchObject({ status: 'failed', paid_at: null });
    });

    it('shows a "payment complete" page when there is no callback_url', async () => {
      const charge = await initializeCharge(running.api, { callback_url: undefined });

      const response = await running.http.post(checkoutPath(charge.access_code, 'pay'));

      expect(response.status).toBe(200);
      expect(response.data).toContain('Payment complete');
      expect(response.data).toContain(charge.reference);
    });

    it('answers a button press on an unknown access code with 404', async () => {
      const response = await running.http.post(checkoutPath('no-such-code', 'pay'));

      expect(response.status).toBe(404);
      expect(response.data).toContain('Checkout not found');
    });
  });
});
