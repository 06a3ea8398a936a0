import { createHmac } from 'node:crypto';
import { sandboxControlPaths } from '../src';
import { initializeCharge, initializePaidCharge, SECRET_KEY, startSandbox, type RunningSandbox } from './sandbox-harness';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './webhook-receiver';

describe('Paystack sandbox dispute controls', () => {
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

  const openDispute = (reference: string, body: Record<string, unknown> = {}) => running.api.post(sandboxControlPaths.openDispute(reference), body);
  const remind = (id: number) => running.api.post(sandboxControlPaths.remindDispute(id));
  const resolve = (id: number, resolution: string) => running.api.post(sandboxControlPaths.resolveDispute(id), { resolution });
  const verify = async (reference: string) => (await running.api.get(`/transaction/verify/${reference}`)).data.data;
  /** Waits for the n-th webhook overall and returns it; each step below waits before the next. */
  const nthWebhook = async (n: number): Promise<ReceivedWebhook> => (await receiver.waitForCount(n))[n - 1]!;
  const signatureOf = (delivery: ReceivedWebhook) => createHmac('sha512', SECRET_KEY).update(delivery.rawBody).digest('hex');

  it('opens a chargeback on a paid charge and sends a signed charge.dispute.create in Paystack\'s shape', async () => {
    const charge = await initializePaidCharge(running.api, { amount: 500_000, email: 'disputer@example.com' });
    await nthWebhook(1);

    const response = await openDispute(charge.reference);
    const delivery = await nthWebhook(2);

    expect(response.status).toBe(200);
    expect(response.data).toMatchObject({ status: true, message: 'Dispute created' });
    expect(delivery.headers['x-paystack-signature']).toBe(signatureOf(delivery));
    expect(delivery.json).toEqual({ event: 'charge.dispute.create', data: response.data.data });
    expect(delivery.json.data).toMatchObject({
      id: expect.any(Number),
      refund_amount: 500_000,
      currency: 'NGN',
      status: 'awaiting-merchant-feedback',
      resolution: null,
      category: 'chargeback',
      transaction: { reference: charge.reference, status: 'success', amount: 500_000 },
      customer: { email: 'disputer@example.com' },
      dueAt: expect.any(String),
      resolvedAt: null,
    });
  });

  it('reminds about an open dispute with the same dispute id', async () => {
    const charge = await initializePaidCharge(running.api);
    const opened = (await openDispute(charge.reference)).data.data;
    await nthWebhook(2);

    const response = await remind(opened.id);
    const delivery = await nthWebhook(3);

    expect(response.status).toBe(200);
    expect(delivery.json).toMatchObject({ event: 'charge.dispute.remind', data: { id: opened.id, status: 'awaiting-merchant-feedback' } });
  });

  it.each(['merchant-accepted', 'auto-accepted'])('resolves a lost (%s) dispute: the money goes back and verify answers reversed', async (resolution) => {
    const charge = await initializePaidCharge(running.api, { amount: 300_000 });
    const opened = (await openDispute(charge.reference)).data.data;
    await nthWebhook(2);

    const response = await resolve(opened.id, resolution);
    const delivery = await nthWebhook(3);

    expect(response.data).toMatchObject({ status: true, message: 'Dispute successfully resolved' });
    expect(delivery.headers['x-paystack-signature']).toBe(signatureOf(delivery));
    expect(delivery.json).toMatchObject({
      event: 'charge.dispute.resolve',
      data: { id: opened.id, status: 'resolved', resolution, resolvedAt: expect.any(String), transaction: { reference: charge.reference, status: 'reversed' } },
    });
    expect(await verify(charge.reference)).toMatchObject({ status: 'reversed', paid_at: expect.any(String) });
    const refund = await running.api.post('/refund', { transaction: charge.reference });
    expect(refund.status).toBe(400);
  });

  it('resolves a won (declined) dispute: the charge stays success and can still be refunded', async () => {
    const charge = await initializePaidCharge(running.api);
    const opened = (await openDispute(charge.reference)).data.data;

    const response = await resolve(opened.id, 'declined');
    const refund = await running.api.post('/refund', { transaction: charge.reference });

    expect(response.data.data).toMatchObject({ status: 'resolved', resolution: 'declined', transaction: { status: 'success' } });
    expect(refund.status).toBe(200);
  });

  it('keeps a charge success when a lost dispute returns only part of it', async () => {
    const charge = await initializePaidCharge(running.api, { amount: 500_000 });
    await running.api.post('/refund', { transaction: charge.reference, amount: 100_000 });

    const tooMuch = await openDispute(charge.reference, { refund_amount: 400_001 });
    const opened = (await openDispute(charge.reference, { refund_amount: 150_000 })).data.data;
    await resolve(opened.id, 'merchant-accepted');
    const left = await running.api.post('/refund', { transaction: charge.reference });

    expect(tooMuch.status).toBe(400);
    expect(opened.refund_amount).toBe(150_000);
    expect(left.data.data.amount).toBe(250_000);
    expect((await verify(charge.reference)).status).toBe('reversed');
  });

  it('refuses a dispute on a charge nobody paid, and on an unknown reference', async () => {
    const open = await initializeCharge(running.api);

    const unpaid = await openDispute(open.reference);
    const unknown = await openDispute('never-initialized');

    expect(unpaid.status).toBe(400);
    expect(unpaid.data).toEqual({ status: false, message: 'Cannot dispute a transaction that is abandoned' });
    expect(unknown.status).toBe(404);
    expect(unknown.data).toEqual({ status: false, message: 'Transaction not found' });
  });

  it('refuses a second open dispute on the same charge, and any step on a resolved one', async () => {
    const charge = await initializePaidCharge(running.api);
    const opened = (await openDispute(charge.reference)).data.data;

    const second = await openDispute(charge.reference);
    await resolve(opened.id, 'declined');
    const remindResolved = await remind(opened.id);
    const resolveAgain = await resolve(opened.id, 'merchant-accepted');

    expect(second.status).toBe(400);
    expect(second.data).toEqual({ status: false, message: 'Transaction already has an open dispute' });
    for (const refused of [remindResolved, resolveAgain]) {
      expect(refused.status).toBe(400);
      expect(refused.data).toEqual({ status: false, message: 'Dispute has already been resolved' });
    }
    expect((await verify(charge.reference)).status).toBe('success');
  });

  it('answers 404 for an unknown dispute and 400 for an unknown resolution', async () => {
    const charge = await initializePaidCharge(running.api);
    const opened = (await openDispute(charge.reference)).data.data;

    const unknown = await remind(424242);
    const badResolution = await resolve(opened.id, 'won');

    expect(unknown.status).toBe(404);
    expect(unknown.data).toEqual({ status: false, message: 'Dispute not found' });
    expect(badResolution.status).toBe(400);
    expect(badResolution.data.message).toMatch(/^resolution must be one of/);
  });

  it('needs the secret key', async () => {
    const charge = await initializePaidCharge(running.api);

    const response = await running.http.post(sandboxControlPaths.openDispute(charge.reference));

    expect(response.status).toBe(401);
  });
});
