import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPaystackSandbox, sandboxControlPaths } from '../src';
import { checkoutPath, initializeCharge, initializePaidCharge, SECRET_KEY, startSandbox, uniqueReference } from './sandbox-harness';

describe('Paystack sandbox persistence', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'paystack-sandbox-'));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('remembers charges, their status and their references after being re-created on the same dataDir', async () => {
    const first = await startSandbox({ dataDir });
    const paid = await initializeCharge(first.api, { reference: uniqueReference('paid'), email: 'keep@example.com' });
    const open = await initializeCharge(first.api, { metadata: { note: 'still open' } });
    await first.http.post(checkoutPath(paid.access_code, 'pay'));
    const paidBefore = (await first.api.get(`/transaction/verify/${paid.reference}`)).data.data;
    await first.stop();

    const second = await startSandbox({ dataDir });
    try {
      const paidAfter = (await second.api.get(`/transaction/verify/${paid.reference}`)).data.data;
      const openAfter = (await second.api.get(`/transaction/verify/${open.reference}`)).data.data;
      const duplicate = await second.api.post('/transaction/initialize', { email: 'x@example.com', amount: 100, reference: paid.reference });
      const next = await initializeCharge(second.api, { email: 'keep@example.com' });
      const nextData = (await second.api.get(`/transaction/verify/${next.reference}`)).data.data;
      const page = await second.http.get(checkoutPath(open.access_code));

      expect(paidAfter).toEqual(paidBefore);
      expect(openAfter).toMatchObject({ status: 'abandoned', metadata: { note: 'still open' } });
      expect(duplicate.data).toEqual({ status: false, message: 'Duplicate Transaction Reference' });
      expect(nextData.id).toBeGreaterThan(Math.max(paidAfter.id, openAfter.id));
      expect(nextData.customer.id).toBe(paidAfter.customer.id);
      expect(page.status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('remembers refunds, disputes and not-yet statuses after a restart, and keeps counting ids from there', async () => {
    const first = await startSandbox({ dataDir });
    const refunded = await initializePaidCharge(first.api, { amount: 500_000 });
    const disputed = await initializePaidCharge(first.api);
    const ongoing = await initializeCharge(first.api);
    const refund = (await first.api.post('/refund', { transaction: refunded.reference, amount: 200_000 })).data.data;
    const dispute = (await first.api.post(sandboxControlPaths.openDispute(disputed.reference))).data.data;
    await first.api.post(sandboxControlPaths.transactionStatus(ongoing.reference), { status: 'ongoing' });
    const refundBefore = (await first.api.get(`/refund/${refund.id}`)).data.data;
    await first.stop();

    const second = await startSandbox({ dataDir });
    try {
      const refundAfter = (await second.api.get(`/refund/${refund.id}`)).data.data;
      const overRefund = await second.api.post('/refund', { transaction: refunded.reference, amount: 300_001 });
      const nextRefund = (await second.api.post('/refund', { transaction: refunded.reference })).data.data;
      const secondDispute = await second.api.post(sandboxControlPaths.openDispute(disputed.reference));
      const resolved = await second.api.post(sandboxControlPaths.resolveDispute(dispute.id), { resolution: 'merchant-accepted' });
      const verifyOf = async (reference: string) => (await second.api.get(`/transaction/verify/${reference}`)).data.data.status;

      expect(refundAfter).toEqual(refundBefore);
      expect(overRefund.status).toBe(400);
      expect(nextRefund).toMatchObject({ amount: 300_000 });
      expect(nextRefund.id).toBeGreaterThan(refund.id);
      expect(secondDispute.data).toEqual({ status: false, message: 'Transaction already has an open dispute' });
      expect(resolved.data.data).toMatchObject({ id: dispute.id, status: 'resolved' });
      expect(await verifyOf(refunded.reference)).toBe('reversed');
      expect(await verifyOf(disputed.reference)).toBe('reversed');
      expect(await verifyOf(ongoing.reference)).toBe('ongoing');
    } finally {
      await second.stop();
    }
  });

  it('loads a state file written before refunds and disputes existed', async () => {
    await writeFile(
      path.join(dataDir, 'paystack-transactions.json'),
      JSON.stringify({ version: 1, nextTransactionId: 1_000_001, nextCustomerId: 5_000_001, transactions: [], customers: [] }),
    );

    const running = await startSandbox({ dataDir });
    try {
      const charge = await initializePaidCharge(running.api);
      const refund = await running.api.post('/refund', { transaction: charge.reference });

      expect(refund.status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('leaves no temporary files behind after writing', async () => {
    const running = await startSandbox({ dataDir });
    await Promise.all([1, 2, 3, 4, 5].map(() => initializeCharge(running.api)));
    await running.stop();

    expect(await readdir(dataDir)).toEqual(['paystack-transactions.json']);
  });

  it('forgets everything without a dataDir', async () => {
    const first = await startSandbox();
    const charge = await initializeCharge(first.api);
    await first.stop();

    const second = await startSandbox();
    try {
      const response = await second.api.get(`/transaction/verify/${charge.reference}`);

      expect(response.status).toBe(400);
    } finally {
      await second.stop();
    }
  });

  it('refuses to start on a corrupt state file instead of silently starting empty', async () => {
    await writeFile(path.join(dataDir, 'paystack-transactions.json'), JSON.stringify({ version: 1, transactions: 'oops' }));

    await expect(createPaystackSandbox({ secretKey: SECRET_KEY, dataDir })).rejects.toThrow(/not valid/);
  });
});
