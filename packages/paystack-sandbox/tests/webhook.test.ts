import { createHmac } from 'node:crypto';
import { signPaystackPayload } from '../src/signature';
import { checkoutPath, initializeCharge, SECRET_KEY, startSandbox, type RunningSandbox } from './sandbox-harness';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

/** Recomputed independently of the sandbox's helper, straight from the raw bytes received. */
function expectedSignature(rawBody: Buffer): string {
  return createHmac('sha512', SECRET_KEY).update(rawBody).digest('hex');
}

describe('Paystack sandbox charge.success webhook', () => {
  let running: RunningSandbox;
  let receiver: WebhookReceiver | undefined;

  beforeEach(async () => {
    running = await startSandbox();
  });

  afterEach(async () => {
    await running.stop();
    await receiver?.stop();
    receiver = undefined;
  });

  it('posts a charge.success event signed with HMAC-SHA512 of the raw body', async () => {
    receiver = await startWebhookReceiver();
    running.sandbox.setWebhookUrl(receiver.url);
    const charge = await initializeCharge(running.api, { amount: 700_000, metadata: { user_id: 'u-1' } });

    await running.http.post(checkoutPath(charge.access_code, 'pay'));
    const [delivery] = await receiver.waitForCount(1);

    expect(delivery?.headers['content-type']).toBe('application/json');
    expect(delivery?.headers['x-paystack-signature']).toBe(expectedSignature(delivery!.rawBody));
    const verified = (await running.api.get(`/transaction/verify/${charge.reference}`)).data.data;
    expect(delivery?.json).toEqual({ event: 'charge.success', data: verified });
    expect(verified).toMatchObject({ status: 'success', amount: 700_000, metadata: { user_id: 'u-1' } });
  });

  it('uses the URL given at construction time', async () => {
    receiver = await startWebhookReceiver();
    const configured = await startSandbox({ webhookUrl: receiver.url });
    try {
      const charge = await initializeCharge(configured.api);

      await configured.http.post(checkoutPath(charge.access_code, 'pay'));
      const [delivery] = await receiver.waitForCount(1);

      expect(delivery?.json.data.reference).toBe(charge.reference);
    } finally {
      await configured.stop();
    }
  });

  it('retries with the same signed bytes after the receiver answers 500', async () => {
    receiver = await startWebhookReceiver((n) => (n === 1 ? 500 : 200));
    running.sandbox.setWebhookUrl(receiver.url);
    const charge = await initializeCharge(running.api);

    await running.http.post(checkoutPath(charge.access_code, 'pay'));
    const [first, second] = await receiver.waitForCount(2);

    expect(second?.rawBody.equals(first!.rawBody)).toBe(true);
    expect(second?.headers['x-paystack-signature']).toBe(expectedSignature(second!.rawBody));
    expect(second?.json.data.reference).toBe(charge.reference);
  });

  it('notifies only successful charges, and only once however often Pay is pressed', async () => {
    receiver = await startWebhookReceiver();
    running.sandbox.setWebhookUrl(receiver.url);
    const declined = await initializeCharge(running.api);
    const cancelled = await initializeCharge(running.api);
    const paid = await initializeCharge(running.api);

    await running.http.post(checkoutPath(declined.access_code, 'decline'));
    await running.http.post(checkoutPath(cancelled.access_code, 'cancel'));
    await Promise.all([1, 2, 3].map(() => running.http.post(checkoutPath(paid.access_code, 'pay'))));
    // The sentinel's webhook is queued after everything above, so once it arrives any stray
    // event from the earlier presses would already have been sent.
    const sentinel = await initializeCharge(running.api);
    await running.http.post(checkoutPath(sentinel.access_code, 'pay'));
    await receiver.waitForCount(2);

    expect(receiver.received.map((d) => d.json.data.reference).sort()).toEqual([paid.reference, sentinel.reference].sort());
  });

  it('sends nothing while no webhook URL is set', async () => {
    receiver = await startWebhookReceiver();
    const unnotified = await initializeCharge(running.api);
    await running.http.post(checkoutPath(unnotified.access_code, 'pay'));

    running.sandbox.setWebhookUrl(receiver.url);
    const notified = await initializeCharge(running.api);
    await running.http.post(checkoutPath(notified.access_code, 'pay'));
    await receiver.waitForCount(1);

    expect(receiver.received.map((d) => d.json.data.reference)).toEqual([notified.reference]);
  });

  it('redirects the buyer without waiting for a slow receiver', async () => {
    let answerWebhook: (status: number) => void = () => undefined;
    receiver = await startWebhookReceiver(() => new Promise<number>((resolve) => (answerWebhook = resolve)));
    running.sandbox.setWebhookUrl(receiver.url);
    const charge = await initializeCharge(running.api);

    // The receiver holds its answer until the end of the test, so a sandbox that waited for it would
    // never redirect: the redirect comes while the receiver has not answered.
    const redirect = await running.http.post(checkoutPath(charge.access_code, 'pay'));
    await receiver.waitForCount(1);

    expect(redirect.status).toBe(303);
    answerWebhook(200);
  });

  it('keeps serving when the receiver is unreachable', async () => {
    receiver = await startWebhookReceiver();
    const deadUrl = receiver.url;
    await receiver.stop();
    receiver = undefined;
    running.sandbox.setWebhookUrl(deadUrl);
    const charge = await initializeCharge(running.api);

    const redirect = await running.http.post(checkoutPath(charge.access_code, 'pay'));
    const verified = await running.api.get(`/transaction/verify/${charge.reference}`);

    expect(redirect.status).toBe(303);
    expect(verified.data.data.status).toBe('success');
  });
});

describe('signPaystackPayload', () => {
  it('is the hex HMAC-SHA512 of the bytes under the secret key', () => {
    const body = Buffer.from('{"event":"charge.success","data":{"amount":100}}');

    expect(signPaystackPayload(body, 'sk_test_a')).toBe(createHmac('sha512', 'sk_test_a').update(body).digest('hex'));
    expect(signPaystackPayload(body.toString('utf8'), 'sk_test_a')).toBe(signPaystackPayload(body, 'sk_test_a'));
    expect(signPaystackPayload(body, 'sk_test_b')).not.toBe(signPaystackPayload(body, 'sk_test_a'));
  });
});
