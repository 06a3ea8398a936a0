import { sandboxControlPaths } from '../src';
import { initializeCharge, initializePaidCharge, startSandbox, uniqueReference, type RunningSandbox } from './sandbox-harness';

describe('Paystack sandbox GET /transaction', () => {
  let running: RunningSandbox;

  // A sandbox per test: the list shows every charge the sandbox holds.
  beforeEach(async () => {
    running = await startSandbox();
  });

  afterEach(async () => {
    await running.stop();
  });

  const list = (params: Record<string, string | number> = {}) => running.api.get('/transaction', { params });
  const references = (body: { data: { reference: string }[] }) => body.data.map((t) => t.reference);

  /** Charges created one after another, each in a later millisecond (distinct created_at), oldest first. */
  async function chargesInOrder(count: number): Promise<string[]> {
    const made: string[] = [];
    for (let i = 0; i < count; i += 1) {
      made.push((await initializeCharge(running.api, { reference: uniqueReference('list') })).reference);
      const created = Date.now();
      while (Date.now() <= created) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return made;
  }

  it('lists every charge newest first, each in the shape verify gives it, with Paystack\'s meta', async () => {
    const paid = await initializePaidCharge(running.api, { amount: 250_000 });
    const open = await initializeCharge(running.api, { amount: 100_000 });

    const response = await list();
    const verified = await running.api.get(`/transaction/verify/${paid.reference}`);

    expect(response.status).toBe(200);
    expect(response.data).toMatchObject({ status: true, message: 'Transactions retrieved' });
    expect(references(response.data)).toEqual([open.reference, paid.reference]);
    expect(response.data.data[1]).toEqual(verified.data.data);
    expect(response.data.data[0]).toMatchObject({ status: 'abandoned', amount: 100_000, paid_at: null, customer: { email: 'buyer@example.com' } });
    expect(response.data.meta).toEqual({ total: 2, total_volume: 350_000, skipped: 0, perPage: 50, page: 1, pageCount: 1 });
  });

  it('pages with page (from 1) and perPage, and answers a page past the last empty', async () => {
    const made = (await chargesInOrder(5)).reverse();

    const pages = await Promise.all([1, 2, 3, 4].map((page) => list({ page, perPage: 2 })));

    expect(pages.map((p) => references(p.data))).toEqual([made.slice(0, 2), made.slice(2, 4), made.slice(4), []]);
    expect(pages.map((p) => p.data.meta)).toEqual(
      [1, 2, 3, 4].map((page) => ({ total: 5, total_volume: 2_500_000, skipped: (page - 1) * 2, perPage: 2, page, pageCount: 3 })),
    );
  });

  it('filters by status, as the reconciliation that asks only for successes does', async () => {
    const paid = await initializePaidCharge(running.api);
    const declined = await initializeCharge(running.api);
    await running.api.post(sandboxControlPaths.transactionStatus(declined.reference), { status: 'failed' });
    await initializeCharge(running.api);
    const refunded = await initializePaidCharge(running.api);
    await running.api.post('/refund', { transaction: refunded.reference });

    expect(references((await list({ status: 'success' })).data)).toEqual([paid.reference]);
    expect(references((await list({ status: 'failed' })).data)).toEqual([declined.reference]);
    expect(references((await list({ status: 'reversed' })).data)).toEqual([refunded.reference]);
    expect((await list({ status: 'abandoned' })).data.meta.total).toBe(1);
    expect((await list({ status: 'no-such-status' })).data).toMatchObject({ status: true, data: [], meta: { total: 0, pageCount: 0 } });
  });

  it('bounds created_at with from and to, both inclusive', async () => {
    const [first, second, third] = await chargesInOrder(3);
    const createdAt = async (reference: string) => (await running.api.get(`/transaction/verify/${reference}`)).data.data.created_at as string;
    const [, secondAt, thirdAt] = await Promise.all([first!, second!, third!].map(createdAt));

    expect(references((await list({ from: secondAt! })).data)).toEqual([third, second]);
    expect(references((await list({ to: secondAt! })).data)).toEqual([second, first]);
    expect(references((await list({ from: secondAt!, to: secondAt! })).data)).toEqual([second]);
    expect(references((await list({ from: new Date(Date.parse(thirdAt!) + 1).toISOString() })).data)).toEqual([]);
  });

  it('filters by amount in kobo and by customer id', async () => {
    const big = await initializeCharge(running.api, { amount: 900_000, email: 'big@example.com' });
    await initializeCharge(running.api, { amount: 100_000 });
    const customerId = (await running.api.get(`/transaction/verify/${big.reference}`)).data.data.customer.id as number;

    expect(references((await list({ amount: 900_000 })).data)).toEqual([big.reference]);
    expect(references((await list({ customer: customerId })).data)).toEqual([big.reference]);
  });

  it.each([
    ['page 0', { page: 0 }],
    ['a fractional perPage', { perPage: '2.5' }],
    ['perPage 0', { perPage: 0 }],
    ['a date that is not one', { from: 'yesterday' }],
  ])('refuses %s with Paystack\'s 400 {status:false, message}', async (_label, params) => {
    const response = await list(params);

    expect(response.status).toBe(400);
    expect(response.data).toEqual({ status: false, message: expect.any(String) });
  });

  it('answers 401 without the secret key', async () => {
    const response = await running.http.get('/transaction');

    expect(response.status).toBe(401);
    expect(response.data).toEqual({ status: false, message: 'Invalid key' });
  });
});
