import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { accountNameFor, SANDBOX_OTP, sandboxControlPaths, signPaystackPayload } from '../src';
import {
  createTransferRecipient,
  initializeCharge,
  initializePaidCharge,
  SECRET_KEY,
  setSandboxBalance,
  startSandbox,
  uniqueTransferReference,
  type RunningSandbox,
} from './sandbox-harness';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './webhook-receiver';

const UNRESOLVED = 'Could not resolve account name. Check parameters or try again.';

describe('Paystack sandbox payouts (Transfers API)', () => {
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

  const balance = async () => {
    const response = await running.api.get('/balance');
    expect(response.data).toMatchObject({ status: true, data: [{ currency: 'NGN', balance: expect.any(Number) }] });
    return (response.data.data as { balance: number }[])[0]!.balance;
  };
  const transfer = (body: Record<string, unknown>) => running.api.post('/transfer', { source: 'balance', reason: 'Cash-out', ...body });
  const verify = (reference: string) => running.api.get(`/transfer/verify/${reference}`);
  const control = (path: string, body: Record<string, unknown>) => running.api.post(path, body);
  const expectSigned = (delivery: ReceivedWebhook | undefined) => {
    expect(delivery?.headers['x-paystack-signature']).toBe(signPaystackPayload(delivery!.rawBody, SECRET_KEY));
  };
  /** A recipient and a balance of ₦10,000. */
  const ready = async () => {
    await setSandboxBalance(running.api, 1_000_000);
    return createTransferRecipient(running.api);
  };

  describe('banks, account names and recipients', () => {
    it('lists Nigerian banks with name, code, slug, currency NGN and type nuban', async () => {
      const response = await running.api.get('/bank', { params: { currency: 'NGN' } });

      expect(response.status).toBe(200);
      expect(response.data.status).toBe(true);
      expect(response.data.data).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'Guaranty Trust Bank', code: '058', slug: 'guaranty-trust-bank', currency: 'NGN', type: 'nuban', active: true }),
          expect.objectContaining({ name: 'Access Bank', code: '044' }),
        ]),
      );
      expect((await running.api.get('/bank', { params: { currency: 'GHS' } })).data.data).toEqual([]);
    });

    it('names a ten-digit account the same way every time, and refuses other numbers or an unknown bank with 422', async () => {
      const resolve = (account_number: string, bank_code: string) => running.api.get('/bank/resolve', { params: { account_number, bank_code } });

      const first = await resolve('0123456789', '058');
      const again = await resolve('0123456789', '058');

      expect(first.status).toBe(200);
      expect(first.data).toEqual({
        status: true,
        message: 'Account number resolved',
        data: { account_number: '0123456789', account_name: accountNameFor('0123456789', '058'), bank_id: 9 },
      });
      expect(first.data.data.account_name).toMatch(/^[A-Z]+ [A-Z]+$/);
      expect(again.data).toEqual(first.data);
      for (const refused of [await resolve('012345678', '058'), await resolve('01234567890', '058'), await resolve('01234abcde', '058'), await resolve('0123456789', '999')]) {
        expect(refused.status).toBe(422);
        expect(refused.data).toEqual({ status: false, message: UNRESOLVED });
      }
    });

    it('creates a nuban recipient with the resolved name, and answers the same recipient for the same account and bank', async () => {
      const body = { type: 'nuban', name: 'Ada', account_number: '0123456789', bank_code: '058', currency: 'NGN' };

      const created = await running.api.post('/transferrecipient', body);
      const again = await running.api.post('/transferrecipient', { ...body, name: 'Ada L.' });
      const otherBank = await running.api.post('/transferrecipient', { ...body, bank_code: '044' });

      expect(created.status).toBe(201);
      expect(created.data).toMatchObject({
        status: true,
        message: 'Transfer recipient created successfully',
        data: {
          type: 'nuban',
          name: 'Ada',
          currency: 'NGN',
          recipient_code: expect.stringMatching(/^RCP_[a-z0-9]+$/),
          details: { account_number: '0123456789', account_name: accountNameFor('0123456789', '058'), bank_code: '058', bank_name: 'Guaranty Trust Bank' },
        },
      });
      expect(again.data.data.recipient_code).toBe(created.data.data.recipient_code);
      expect(otherBank.data.data.recipient_code).not.toBe(created.data.data.recipient_code);
    });

    it('refuses a recipient whose account does not resolve, or of another type', async () => {
      const base = { type: 'nuban', name: 'Ada', account_number: '0123456789', bank_code: '058' };

      const shortNumber = await running.api.post('/transferrecipient', { ...base, account_number: '123' });
      const unknownBank = await running.api.post('/transferrecipient', { ...base, bank_code: '000' });
      const mobileMoney = await running.api.post('/transferrecipient', { ...base, type: 'mobile_money' });

      expect(shortNumber.status).toBe(400);
      expect(shortNumber.data).toEqual({ status: false, message: UNRESOLVED });
      expect(unknownBank.status).toBe(400);
      expect(mobileMoney.status).toBe(400);
      expect(mobileMoney.data).toEqual({ status: false, message: expect.any(String) });
    });
  });

  describe('the balance', () => {
    it('starts at zero, is raised by each successful charge and not by an unpaid one, and is set by the control', async () => {
      const start = await balance();
      await initializePaidCharge(running.api, { amount: 250_000 });
      await initializePaidCharge(running.api, { amount: 1_000 });
      await initializeCharge(running.api, { amount: 777_777 });
      const afterCharges = await balance();
      const set = await control(sandboxControlPaths.balance(), { balance: 42 });

      expect(start).toBe(0);
      expect(afterCharges).toBe(251_000);
      expect(set.data).toEqual({ status: true, message: 'Balance set', data: [{ currency: 'NGN', balance: 42 }] });
      expect(await balance()).toBe(42);
    });

    it('refuses a balance that is not whole kobo', async () => {
      for (const bad of [-1, 1.5, '100']) {
        const response = await control(sandboxControlPaths.balance(), { balance: bad });
        expect(response.status).toBe(400);
        expect(response.data).toEqual({ status: false, message: 'balance must be a whole number of kobo, 0 or more' });
      }
    });
  });

  describe('a transfer with no control', () => {
    it('succeeds at once, lowers the balance, sends a signed transfer.success and is found by verify and the list', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();

      const created = await transfer({ amount: 250_000, recipient, reference });
      const [delivery] = await receiver.waitForCount(1);
      const verified = await verify(reference);
      const listed = await running.api.get('/transfer');

      expect(created.status).toBe(200);
      expect(created.data).toMatchObject({
        status: true,
        message: 'Transfer has been queued',
        data: { reference, amount: 250_000, currency: 'NGN', source: 'balance', reason: 'Cash-out', status: 'success', transfer_code: expect.stringMatching(/^TRF_[a-z0-9]+$/) },
      });
      expect(await balance()).toBe(750_000);
      expect(delivery?.json).toMatchObject({
        event: 'transfer.success',
        data: { reference, transfer_code: created.data.data.transfer_code, amount: 250_000, status: 'success', reason: 'Cash-out', recipient: { recipient_code: recipient } },
      });
      expectSigned(delivery);
      expect(verified.data).toMatchObject({ status: true, message: 'Transfer retrieved', data: { reference, status: 'success', transferred_at: expect.any(String) } });
      expect(verified.data.data).toEqual(delivery?.json.data);
      expect(listed.data).toMatchObject({ status: true, data: [{ reference }], meta: { total: 1, page: 1, pageCount: 1 } });
    });

    it('lists transfers newest first, a page at a time, and by status', async () => {
      const recipient = await ready();
      const references = [uniqueTransferReference(), uniqueTransferReference(), uniqueTransferReference()];
      for (const reference of references) await transfer({ amount: 100, recipient, reference });

      const second = await running.api.get('/transfer', { params: { perPage: 2, page: 2 } });
      const failed = await running.api.get('/transfer', { params: { status: 'failed' } });
      const badPage = await running.api.get('/transfer', { params: { page: 0 } });

      expect(second.data.data.map((t: { reference: string }) => t.reference)).toEqual([references[0]]);
      expect(second.data.meta).toEqual({ total: 3, skipped: 2, perPage: 2, page: 2, pageCount: 2 });
      expect(failed.data.data).toEqual([]);
      expect(badPage.status).toBe(400);
    });

    it('answers 404 Transfer not found for a reference never used', async () => {
      const response = await verify(uniqueTransferReference());

      expect(response.status).toBe(404);
      expect(response.data).toEqual({ status: false, message: 'Transfer not found' });
    });
  });

  describe('refusals', () => {
    it('refuses a reused reference with Paystack\'s words, whatever became of the first, and moves no money', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();
      await transfer({ amount: 1_000, recipient, reference });

      const again = await transfer({ amount: 1_000, recipient, reference });

      expect(again.status).toBe(400);
      expect(again.data).toEqual({ status: false, message: 'This reference has already been used on a prior transfer' });
      expect(await balance()).toBe(999_000);
      expect((await running.api.get('/transfer')).data.meta.total).toBe(1);
    });

    it('refuses a transfer larger than the balance and creates nothing', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();

      const refused = await transfer({ amount: 1_000_001, recipient, reference });

      expect(refused.status).toBe(400);
      expect(refused.data).toEqual({ status: false, message: 'Your balance is not enough to fulfil this request' });
      expect((await verify(reference)).status).toBe(404);
      expect(await balance()).toBe(1_000_000);
      // The whole balance may go.
      expect((await transfer({ amount: 1_000_000, recipient, reference })).data.data.status).toBe('success');
      expect(await balance()).toBe(0);
    });

    it('lets only one of two racing transfers spend a balance that covers one, and only one of two racing for a reference', async () => {
      await setSandboxBalance(running.api, 100_000);
      const recipient = await createTransferRecipient(running.api);
      const shared = uniqueTransferReference();

      const spending = await Promise.all([
        transfer({ amount: 60_000, recipient, reference: uniqueTransferReference() }),
        transfer({ amount: 60_000, recipient, reference: uniqueTransferReference() }),
      ]);
      const sameReference = await Promise.all([transfer({ amount: 1_000, recipient, reference: shared }), transfer({ amount: 1_000, recipient, reference: shared })]);

      expect(spending.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(spending.find((r) => r.status === 400)?.data.message).toBe('Your balance is not enough to fulfil this request');
      expect(sameReference.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(await balance()).toBe(39_000);
    });

    it.each([
      ['too short', 'abc123'],
      ['too long', 'a'.repeat(51)],
      ['with capitals', 'Reference-0000000001'],
      ['with a dot', 'reference.000000001'],
    ])('refuses a reference %s', async (_case, reference) => {
      const recipient = await ready();

      const response = await transfer({ amount: 100, recipient, reference });

      expect(response.status).toBe(400);
      expect(response.data).toEqual({ status: false, message: expect.stringContaining('16 to 50 characters') });
      expect(await balance()).toBe(1_000_000);
    });

    it('refuses an unknown recipient, a bad amount and another source', async () => {
      const recipient = await ready();

      const unknown = await transfer({ amount: 100, recipient: 'RCP_nobody', reference: uniqueTransferReference() });
      const fractional = await transfer({ amount: 10.5, recipient, reference: uniqueTransferReference() });
      const otherSource = await transfer({ source: 'card', amount: 100, recipient, reference: uniqueTransferReference() });

      expect(unknown.status).toBe(400);
      expect(unknown.data).toEqual({ status: false, message: 'Recipient specified is invalid' });
      expect(fractional.data).toEqual({ status: false, message: 'Invalid Amount Sent' });
      expect(otherSource.status).toBe(400);
      expect(await balance()).toBe(1_000_000);
    });

    it('needs the secret key', async () => {
      for (const response of [await running.http.get('/bank'), await running.http.post('/transfer', {}), await running.http.get('/balance')]) {
        expect(response.status).toBe(401);
      }
    });
  });

  describe('the OTP switch', () => {
    it('holds a transfer at otp with its money reserved until finalize gets the right OTP', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();
      await control(sandboxControlPaths.transferOtp(), { enabled: true });

      const created = await transfer({ amount: 300_000, recipient, reference });
      const transfer_code = created.data.data.transfer_code as string;
      const wrong = await running.api.post('/transfer/finalize_transfer', { transfer_code, otp: '000000' });
      const held = await verify(reference);
      const finalized = await running.api.post('/transfer/finalize_transfer', { transfer_code, otp: SANDBOX_OTP });
      const [delivery] = await receiver.waitForCount(1);
      const twice = await running.api.post('/transfer/finalize_transfer', { transfer_code, otp: SANDBOX_OTP });
      const unknown = await running.api.post('/transfer/finalize_transfer', { transfer_code: 'TRF_nothing', otp: SANDBOX_OTP });

      expect(created.data).toMatchObject({ status: true, message: 'Transfer requires OTP to continue', data: { status: 'otp', reference } });
      expect(wrong.status).toBe(400);
      expect(wrong.data).toEqual({ status: false, message: 'Invalid OTP' });
      expect(held.data.data.status).toBe('otp');
      expect(finalized.data).toMatchObject({ status: true, data: { status: 'success', reference, transfer_code } });
      expect(delivery?.json).toMatchObject({ event: 'transfer.success', data: { reference } });
      expectSigned(delivery);
      expect(twice.status).toBe(400);
      expect(unknown.status).toBe(404);
      expect(await balance()).toBe(700_000);
    });

    it('gives the money back when an otp transfer is abandoned, and transfers go at once again once switched off', async () => {
      const recipient = await ready();
      const held = uniqueTransferReference();
      await control(sandboxControlPaths.transferOtp(), { enabled: true });
      await transfer({ amount: 300_000, recipient, reference: held });

      const abandoned = await control(sandboxControlPaths.transferStatus(held), { status: 'abandoned' });
      await control(sandboxControlPaths.transferOtp(), { enabled: false });
      const direct = await transfer({ amount: 100, recipient, reference: uniqueTransferReference() });

      expect(abandoned.data.data.status).toBe('abandoned');
      expect(direct.data.data.status).toBe('success');
      expect(await balance()).toBe(999_900);
    });
  });

  describe('controls for what becomes of a transfer', () => {
    it('keeps the next transfer pending until a control settles it as success, with transfer.success then', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();
      await control(sandboxControlPaths.nextTransfer(), { outcome: 'pending' });

      const created = await transfer({ amount: 100_000, recipient, reference });
      const pendingBalance = await balance();
      const settled = await control(sandboxControlPaths.transferStatus(reference), { status: 'success' });
      const [delivery] = await receiver.waitForCount(1);

      expect(created.data.data.status).toBe('pending');
      expect(pendingBalance).toBe(900_000);
      expect(settled.data).toMatchObject({ status: true, message: 'Transfer status updated', data: { status: 'success' } });
      expect(delivery?.json).toMatchObject({ event: 'transfer.success', data: { reference, status: 'success' } });
      expect(await balance()).toBe(900_000);
    });

    it('settles a pending transfer as failed: transfer.failed, the money back', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();
      await control(sandboxControlPaths.nextTransfer(), { outcome: 'pending' });
      await transfer({ amount: 100_000, recipient, reference });

      await control(sandboxControlPaths.transferStatus(reference), { status: 'failed' });
      const [delivery] = await receiver.waitForCount(1);

      expect(delivery?.json).toMatchObject({ event: 'transfer.failed', data: { reference, status: 'failed', amount: 100_000 } });
      expectSigned(delivery);
      expect((await verify(reference)).data.data.status).toBe('failed');
      expect(await balance()).toBe(1_000_000);
    });

    it('fails the next transfer: it answers failed, sends transfer.failed and gives the money back', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();
      await control(sandboxControlPaths.nextTransfer(), { outcome: 'failed' });

      const created = await transfer({ amount: 100_000, recipient, reference });
      const [delivery] = await receiver.waitForCount(1);
      const following = await transfer({ amount: 1, recipient, reference: uniqueTransferReference() });

      expect(created.data.data.status).toBe('failed');
      expect(delivery?.json).toMatchObject({ event: 'transfer.failed', data: { reference } });
      expect(following.data.data.status).toBe('success');
      expect(await balance()).toBe(999_999);
    });

    it('reverses the next transfer after its success: transfer.success then transfer.reversed, the money back', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();
      await control(sandboxControlPaths.nextTransfer(), { outcome: 'reversed' });

      const created = await transfer({ amount: 100_000, recipient, reference });
      const deliveries = await receiver.waitForCount(2);

      expect(created.data.data.status).toBe('success');
      expect(deliveries.map((d) => [d.json.event, d.json.data.status])).toEqual([
        ['transfer.success', 'success'],
        ['transfer.reversed', 'reversed'],
      ]);
      deliveries.forEach(expectSigned);
      expect((await verify(reference)).data.data.status).toBe('reversed');
      expect(await balance()).toBe(1_000_000);
    });

    it('reverses a successful transfer on a later control call, once, and refuses moves out of a final status', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();
      await transfer({ amount: 100_000, recipient, reference });
      await receiver.waitForCount(1);

      const reversed = await control(sandboxControlPaths.transferStatus(reference), { status: 'reversed' });
      const [, delivery] = await receiver.waitForCount(2);
      const again = await control(sandboxControlPaths.transferStatus(reference), { status: 'reversed' });
      const fail = await control(sandboxControlPaths.transferStatus(reference), { status: 'failed' });

      expect(reversed.data.data.status).toBe('reversed');
      expect(delivery?.json).toMatchObject({ event: 'transfer.reversed', data: { reference, status: 'reversed', amount: 100_000 } });
      expect(again.status).toBe(200);
      expect(fail.status).toBe(400);
      expect(fail.data).toEqual({ status: false, message: 'Transfer is reversed; it cannot become failed' });
      expect(await balance()).toBe(1_000_000);
      expect(receiver.received).toHaveLength(2);
    });

    it('plans the outcome of one transfer by its reference, leaving the others alone', async () => {
      const recipient = await ready();
      const planned = uniqueTransferReference();
      await control(sandboxControlPaths.nextTransfer(), { outcome: 'failed', reference: planned });

      const other = await transfer({ amount: 100, recipient, reference: uniqueTransferReference() });
      const target = await transfer({ amount: 100, recipient, reference: planned });

      expect(other.data.data.status).toBe('success');
      expect(target.data.data.status).toBe('failed');
    });

    it('plans the next few transfers with count', async () => {
      const recipient = await ready();
      await control(sandboxControlPaths.nextTransfer(), { outcome: 'pending', count: 2 });

      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await transfer({ amount: 100, recipient, reference: uniqueTransferReference() })).data.data.status);

      expect(statuses).toEqual(['pending', 'pending', 'success']);
    });

    it('moves a transfer without its webhook when asked to lose it', async () => {
      const recipient = await ready();
      const silent = uniqueTransferReference();
      await control(sandboxControlPaths.nextTransfer(), { outcome: 'pending' });
      await transfer({ amount: 100, recipient, reference: silent });

      await control(sandboxControlPaths.transferStatus(silent), { status: 'success', webhook: false });
      const sentinel = uniqueTransferReference();
      await transfer({ amount: 100, recipient, reference: sentinel });
      await receiver.waitForCount(1);

      expect((await verify(silent)).data.data.status).toBe('success');
      expect(receiver.received.map((d) => d.json.data.reference)).toEqual([sentinel]);
    });

    it('refuses bad control bodies, an unknown transfer, and callers without the key', async () => {
      const badOutcome = await control(sandboxControlPaths.nextTransfer(), { outcome: 'blocked' });
      const badFault = await control(sandboxControlPaths.transferFault(), { fault: 'slow' });
      const badOtp = await control(sandboxControlPaths.transferOtp(), { enabled: 'yes' });
      const unknown = await control(sandboxControlPaths.transferStatus(uniqueTransferReference()), { status: 'success' });
      const noKey = await running.http.post(sandboxControlPaths.balance(), { balance: 1 });

      for (const refused of [badOutcome, badFault, badOtp]) {
        expect(refused.status).toBe(400);
        expect(refused.data).toEqual({ status: false, message: expect.any(String) });
      }
      expect(unknown.status).toBe(404);
      expect(unknown.data).toEqual({ status: false, message: 'Transfer not found' });
      expect(noKey.status).toBe(401);
    });
  });

  describe('faults of POST /transfer', () => {
    const matching = async (reference: string) =>
      ((await running.api.get('/transfer', { params: { perPage: 100 } })).data.data as { reference: string }[]).filter((t) => t.reference === reference);

    it('504 after create: the transfer exists, once; verify finds it and a retry with the reference is refused', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();
      await control(sandboxControlPaths.transferFault(), { fault: '504-after-create' });

      const answered = await transfer({ amount: 100_000, recipient, reference });
      const verified = await verify(reference);
      const retried = await transfer({ amount: 100_000, recipient, reference });
      await receiver.waitForCount(1);

      expect(answered.status).toBe(504);
      expect(verified.data.data).toMatchObject({ reference, status: 'success', amount: 100_000 });
      expect(await matching(reference)).toHaveLength(1);
      expect(retried.data).toEqual({ status: false, message: 'This reference has already been used on a prior transfer' });
      expect(await balance()).toBe(900_000);
    });

    it('reset after create: the connection is destroyed with no answer, yet the transfer exists, once', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();
      await control(sandboxControlPaths.transferFault(), { fault: 'reset-after-create', reference });

      const error = await transfer({ amount: 100_000, recipient, reference }).then(
        () => undefined,
        (rejection: unknown) => rejection as { code?: string },
      );

      expect(error?.code).toBe('ECONNRESET');
      expect((await verify(reference)).data.data).toMatchObject({ reference, status: 'success' });
      expect(await matching(reference)).toHaveLength(1);
      expect(await balance()).toBe(900_000);
    });

    it('500 before: nothing is created or moved, and the same reference then goes through', async () => {
      const recipient = await ready();
      const reference = uniqueTransferReference();
      await control(sandboxControlPaths.transferFault(), { fault: '500-before' });

      const failed = await transfer({ amount: 100_000, recipient, reference });
      const afterFault = await verify(reference);
      const retried = await transfer({ amount: 100_000, recipient, reference });

      expect(failed.status).toBe(500);
      expect(failed.data).toEqual({ status: false, message: 'An error occurred' });
      expect(afterFault.status).toBe(404);
      expect(retried.data.data.status).toBe('success');
      expect(await matching(reference)).toHaveLength(1);
      expect(await balance()).toBe(900_000);
    });
  });
});

describe('Paystack sandbox payouts across a restart', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'paystack-payouts-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the balance, recipients and transfers', async () => {
    const first = await startSandbox({ dataDir });
    await setSandboxBalance(first.api, 5_000);
    const recipient = await createTransferRecipient(first.api);
    const reference = uniqueTransferReference();
    await first.api.post('/transfer', { source: 'balance', amount: 1_000, recipient, reference });
    await first.stop();

    const second = await startSandbox({ dataDir });
    try {
      expect((await second.api.get('/balance')).data.data).toEqual([{ currency: 'NGN', balance: 4_000 }]);
      expect((await second.api.get(`/transfer/verify/${reference}`)).data.data).toMatchObject({ status: 'success', recipient: { recipient_code: recipient } });
      expect(await createTransferRecipient(second.api)).toBe(recipient);
    } finally {
      await second.stop();
    }
  });
});
