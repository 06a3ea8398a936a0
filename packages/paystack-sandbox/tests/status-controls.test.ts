import { NOT_YET_STATUSES, sandboxControlPaths } from '../src';
import { checkoutPath, initializeCharge, startSandbox, type RunningSandbox } from './sandbox-harness';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

describe('Paystack sandbox status control', () => {
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

  const setStatus = (reference: string, body: Record<string, unknown>) =>
    running.api.post(sandboxControlPaths.transactionStatus(reference), body);
  const verify = async (reference: string) => (await running.api.get(`/transaction/verify/${reference}`)).data.data;

  it.each(NOT_YET_STATUSES)('puts an open charge into %s, which verify reports with no payment yet', async (status) => {
    const charge = await initializeCharge(running.api);

    const response = await setStatus(charge.reference, { status });

    expect(response.status).toBe(200);
    expect(response.data).toMatchObject({ status: true, message: 'Transaction status updated', data: { status, reference: charge.reference } });
    expect(await verify(charge.reference)).toMatchObject({ status, paid_at: null, fees: null, authorization: {} });
  });

  it('keeps an ongoing charge payable on the checkout page, and Pay then sends charge.success', async () => {
    const charge = await initializeCharge(running.api);
    await setStatus(charge.reference, { status: 'ongoing' });

    const page = await running.http.get(checkoutPath(charge.access_code));
    await running.http.post(checkoutPath(charge.access_code, 'cancel'));
    const afterCancel = await verify(charge.reference);
    await running.http.post(checkoutPath(charge.access_code, 'pay'));
    const [delivery] = await receiver.waitForCount(1);

    expect(page.data).toContain('>Pay</button>');
    expect(afterCancel.status).toBe('ongoing');
    expect(delivery?.json).toMatchObject({ event: 'charge.success', data: { reference: charge.reference, status: 'success' } });
    expect(await verify(charge.reference)).toMatchObject({ status: 'success', paid_at: expect.any(String) });
  });

  it('completes a pending charge as success and sends charge.success, as Pay would', async () => {
    const charge = await initializeCharge(running.api);
    await setStatus(charge.reference, { status: 'pending' });

    const response = await setStatus(charge.reference, { status: 'success' });
    const [delivery] = await receiver.waitForCount(1);

    expect(response.data.data).toMatchObject({ status: 'success', paid_at: expect.any(String) });
    expect(delivery?.json).toEqual({ event: 'charge.success', data: await verify(charge.reference) });
  });

  it('completes a payment without its webhook when asked to lose it', async () => {
    const silent = await initializeCharge(running.api);
    await setStatus(silent.reference, { status: 'processing' });

    const response = await setStatus(silent.reference, { status: 'success', webhook: false });
    // The sentinel's webhook is queued after the silent payment, so a stray charge.success for it
    // would already have arrived.
    const sentinel = await initializeCharge(running.api);
    await setStatus(sentinel.reference, { status: 'success' });
    await receiver.waitForCount(1);

    expect(response.data.data.status).toBe('success');
    expect(await verify(silent.reference)).toMatchObject({ status: 'success' });
    expect(receiver.received.map((d) => d.json.data.reference)).toEqual([sentinel.reference]);
  });

  it('declines an ongoing charge as failed, without a webhook', async () => {
    const charge = await initializeCharge(running.api);
    await setStatus(charge.reference, { status: 'ongoing' });

    const response = await setStatus(charge.reference, { status: 'failed' });
    const page = await running.http.get(checkoutPath(charge.access_code));

    expect(response.data.data).toMatchObject({ status: 'failed', gateway_response: 'Declined' });
    expect(page.data).not.toContain('>Pay</button>');
    expect(receiver.received).toHaveLength(0);
  });

  it('answers an ended charge asked for the status it has without change or webhook, and refuses any other', async () => {
    const charge = await initializeCharge(running.api);
    await setStatus(charge.reference, { status: 'success' });
    await receiver.waitForCount(1);

    const again = await setStatus(charge.reference, { status: 'success' });
    const reopen = await setStatus(charge.reference, { status: 'ongoing' });
    const decline = await setStatus(charge.reference, { status: 'failed' });
    const sentinel = await initializeCharge(running.api);
    await setStatus(sentinel.reference, { status: 'success' });
    await receiver.waitForCount(2);

    expect(again.status).toBe(200);
    expect(again.data.data.status).toBe('success');
    for (const refused of [reopen, decline]) {
      expect(refused.status).toBe(400);
      expect(refused.data).toEqual({ status: false, message: 'Transaction is already success' });
    }
    expect(receiver.received.map((d) => d.json.data.reference)).toEqual([charge.reference, sentinel.reference]);
  });

  it.each([
    ['an unknown status', { status: 'reversed' }],
    ['a missing status', {}],
    ['a webhook flag that is not a boolean', { status: 'success', webhook: 'no' }],
  ])('rejects %s with a Paystack-shaped 400', async (_case, body) => {
    const charge = await initializeCharge(running.api);

    const response = await setStatus(charge.reference, body);

    expect(response.status).toBe(400);
    expect(response.data).toEqual({ status: false, message: expect.any(String) });
    expect((await verify(charge.reference)).status).toBe('abandoned');
  });

  it('answers 404 for a reference it has never seen', async () => {
    const response = await setStatus('never-initialized', { status: 'ongoing' });

    expect(response.status).toBe(404);
    expect(response.data).toEqual({ status: false, message: 'Transaction not found' });
  });

  it('needs the secret key like the API', async () => {
    const charge = await initializeCharge(running.api);

    const response = await running.http.post(sandboxControlPaths.transactionStatus(charge.reference), { status: 'success' });

    expect(response.status).toBe(401);
    expect(response.data).toEqual({ status: false, message: 'Invalid key' });
    expect((await verify(charge.reference)).status).toBe('abandoned');
  });
});
