import { createHmac } from 'node:crypto';
import { sandboxControlPaths } from '../src';
import { initializeCharge, initializePaidCharge, SECRET_KEY, startSandbox, type RunningSandbox } from './sandbox-harness';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

describe('Paystack sandbox refund API', () => {
  let running: RunningSandbox;
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    running = await startSandbox({ webhookUrl: receiver.url });
  });

  afterEach(async () => {
    await running.stop();
    await receiver.stop();
  });

  const refund = (body: Record<string, unknown>) => running.api.post('/refund', body);
  const verify = async (reference: string) => (await running.api.get(`/transaction/verify/${reference}`)).data.data;
  /** The paid charge's own charge.success comes first; refund events follow it. */
  const refundEvents = () => receiver.received.filter((d) => d.json.event.startsWith('refund.'));

  it('queues a full refund in Paystack\'s shape and, once processed, verify answers reversed', async () => {
    const charge = await initializePaidCharge(running.api, { amount: 500_000 });

    const response = await refund({ transaction: charge.reference });
    const fetched = await running.api.get(`/refund/${response.data.data.id}`);

    expect(response.status).toBe(200);
    expect(response.data).toMatchObject({
      status: true,
      message: 'Refund has been queued for processing',
      data: { id: expect.any(Number), status: 'pending', amount: 500_000, currency: 'NGN', transaction: { reference: charge.reference, amount: 500_000 } },
    });
    expect(fetched.data).toMatchObject({ status: true, message: 'Refund retrieved', data: { id: response.data.data.id, status: 'processed', amount: 500_000, refunded_at: expect.any(String) } });
    expect(await verify(charge.reference)).toMatchObject({ status: 'reversed', amount: 500_000, paid_at: expect.any(String) });
  });

  it('keeps a partly refunded charge success, refunds the rest by id, and then verify answers reversed', async () => {
    const charge = await initializePaidCharge(running.api, { amount: 500_000 });
    const { id: transactionId } = await verify(charge.reference);

    const first = await refund({ transaction: charge.reference, amount: 200_000 });
    const afterFirst = await verify(charge.reference);
    const second = await refund({ transaction: transactionId, amount: '300000' });
    const listed = await running.api.get('/refund', { params: { transaction: charge.reference } });

    expect(first.data.data).toMatchObject({ amount: 200_000 });
    expect(afterFirst.status).toBe('success');
    expect(second.status).toBe(200);
    expect(second.data.data.id).not.toBe(first.data.data.id);
    expect(listed.data.data.map((r: { id: number; amount: number; transaction: number }) => [r.id, r.amount, r.transaction])).toEqual([
      [first.data.data.id, 200_000, transactionId],
      [second.data.data.id, 300_000, transactionId],
    ]);
    expect((await verify(charge.reference)).status).toBe('reversed');
  });

  it('refuses to refund more than is left, and anything once fully refunded', async () => {
    const charge = await initializePaidCharge(running.api, { amount: 500_000 });
    await refund({ transaction: charge.reference, amount: 400_000 });

    const tooMuch = await refund({ transaction: charge.reference, amount: 100_001 });
    const rest = await refund({ transaction: charge.reference });
    const afterFull = await refund({ transaction: charge.reference, amount: 1 });

    expect(tooMuch.status).toBe(400);
    expect(tooMuch.data).toEqual({ status: false, message: 'Refund amount cannot be more than the amount left to refund' });
    expect(rest.data.data.amount).toBe(100_000);
    expect(afterFull.status).toBe(400);
    expect(afterFull.data).toEqual({ status: false, message: 'Transaction has been fully reversed' });
  });

  it('lets only as many concurrent refunds through as the charge can pay', async () => {
    const charge = await initializePaidCharge(running.api, { amount: 500_000 });

    const responses = await Promise.all(Array.from({ length: 8 }, () => refund({ transaction: charge.reference, amount: 100_000 })));

    expect(responses.filter((r) => r.status === 200)).toHaveLength(5);
    expect(responses.filter((r) => r.status === 400)).toHaveLength(3);
  });

  it('refuses a charge nobody has paid, or that was declined', async () => {
    const open = await initializeCharge(running.api);
    const declined = await initializeCharge(running.api);
    await running.api.post(sandboxControlPaths.transactionStatus(declined.reference), { status: 'failed' });

    for (const charge of [open, declined]) {
      const response = await refund({ transaction: charge.reference });

      expect(response.status).toBe(400);
      expect(response.data).toEqual({ status: false, message: 'Cannot refund a transaction that was not successful' });
    }
  });

  it.each([
    ['an unknown transaction', { transaction: 'never-initialized' }, 404, 'Transaction not found'],
    ['a missing transaction', { amount: 100 }, 400, 'Transaction reference or id is required'],
    ['a zero amount', { transaction: 'x', amount: 0 }, 400, 'Invalid Amount Sent'],
    ['a fractional amount', { transaction: 'x', amount: 10.5 }, 400, 'Invalid Amount Sent'],
  ])('answers %s with a Paystack-shaped error', async (_case, body, status, message) => {
    const response = await refund(body);

    expect(response.status).toBe(status);
    expect(response.data).toEqual({ status: false, message });
  });

  it('answers 404 for a refund it does not know, and 400 for a listing without a transaction', async () => {
    const unknown = await running.api.get('/refund/999');
    const unnamed = await running.api.get('/refund');

    expect(unknown.status).toBe(404);
    expect(unknown.data).toEqual({ status: false, message: 'Refund not found' });
    expect(unnamed.status).toBe(400);
  });

  it('needs the secret key', async () => {
    const response = await running.http.post('/refund', { transaction: 'anything' });

    expect(response.status).toBe(401);
  });

  it('sends a signed refund.processed per refund in the shape of Paystack\'s documented sample', async () => {
    const charge = await initializePaidCharge(running.api, { amount: 500_000, email: 'refund-me@example.com' });
    await receiver.waitForCount(1);

    const created = await refund({ transaction: charge.reference, amount: 150_000 });
    await receiver.waitForCount(2);
    const [delivery] = refundEvents();
    const fetched = (await running.api.get(`/refund/${created.data.data.id}`)).data.data;

    expect(delivery?.headers['x-paystack-signature']).toBe(createHmac('sha512', SECRET_KEY).update(delivery!.rawBody).digest('hex'));
    expect(delivery?.json).toEqual({
      event: 'refund.processed',
      data: {
        status: 'processed',
        transaction_reference: charge.reference,
        refund_reference: expect.stringMatching(/^TRF_/),
        amount: '150000',
        currency: 'NGN',
        processor: 'sandbox',
        customer: { first_name: null, last_name: null, email: 'refund-me@example.com' },
        integration: expect.any(Number),
        domain: 'test',
        id: String(fetched.id),
      },
    });
  });

  it('gives each refund of a charge its own identity in its webhook', async () => {
    const charge = await initializePaidCharge(running.api, { amount: 500_000 });

    await refund({ transaction: charge.reference, amount: 100_000 });
    await refund({ transaction: charge.reference, amount: 100_000 });
    await receiver.waitForCount(3);

    const ids = refundEvents().map((d) => d.json.data.id);
    const references = refundEvents().map((d) => d.json.data.refund_reference);
    expect(new Set(ids).size).toBe(2);
    expect(new Set(references).size).toBe(2);
  });

  it('redelivers a refund.processed the receiver refused with the same signed bytes', async () => {
    const charge = await initializePaidCharge(running.api, { amount: 500_000 });
    const flaky = await startWebhookReceiver((n) => (n === 1 ? 500 : 200));
    running.sandbox.setWebhookUrl(flaky.url);
    try {
      await refund({ transaction: charge.reference, amount: 100_000 });
      const [first, second] = await flaky.waitForCount(2);

      expect(first?.json.event).toBe('refund.processed');
      expect(second?.rawBody.equals(first!.rawBody)).toBe(true);
      expect(second?.headers['x-paystack-signature']).toBe(first?.headers['x-paystack-signature']);
    } finally {
      await flaky.stop();
    }
  });
});
