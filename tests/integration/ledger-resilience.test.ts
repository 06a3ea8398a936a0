import { adminToken, bearer, createUser } from '../helpers/factories';
import { fundedUser, ledgerBalance } from '../helpers/ledger-fixtures';
import { startLedgerSandbox, startPaystackSandbox, type RunningLedger, type RunningProvider } from '../helpers/sandboxes';
import { startTestApp, type TestApp } from '../helpers/test-app';

let ledger: RunningLedger;
let provider: RunningProvider;
let app: TestApp;

beforeAll(async () => {
  ledger = await startLedgerSandbox();
  provider = await startPaystackSandbox();
});
afterAll(async () => {
  await ledger.stop();
  await provider.stop();
});
beforeEach(async () => {
  app = await startTestApp({ ...ledger.env, ...provider.env });
});
afterEach(async () => {
  await ledger.start().catch(() => undefined); // already running is fine
  await app.close();
});

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('when the ledger is unreachable', () => {
  it('answers 503 in each group shape, records nothing, and recovers when the ledger returns', async () => {
    const alice = await fundedUser(app, 10);
    const bob = await createUser(app);
    const admin = await adminToken(app);
    await ledger.stop();

    const transfer = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 });
    expect(transfer.status).toBe(503);
    expect(transfer.body).toEqual({ error: 'Ledger unavailable, try again later' });
    expect(transfer.headers['retry-after']).toBeDefined();
    const balance = await app.http.get(`/api/ledger/check-balance/${alice.ledgerPublicKey}`).set(bearer(alice.token));
    expect(balance.status).toBe(503);
    const mint = await app.http.post('/api/payments/mint-tokens').set(bearer(admin)).send({ userId: alice.userId, amount: 1 });
    expect(mint.status).toBe(503);
    expect(mint.body).toEqual({ success: false, message: 'Ledger unavailable, try again later' });
    expect((await app.container.ledger.listForUser(alice.userId, 10, 0)).total).toBe(1); // the earlier mint only
    expect((await app.http.get('/readyz')).status).toBe(503);

    await ledger.start();
    await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 }).expect(200);
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('1.0000000');
    expect((await app.http.get('/readyz')).status).toBe(200);
  });

  it('still signs users up with the wallet pending; a pending wallet gets 409; the background job activates it later', async () => {
    const alice = await fundedUser(app, 10);
    await ledger.stop();
    const carol = await createUser(app);
    expect((await app.container.wallets.findByUserId(carol.userId))?.status).toBe('pending');
    await ledger.start();

    const toPending = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: carol.ledgerPublicKey, amount: 1 });
    expect(toPending.status).toBe(409);
    expect(toPending.body).toEqual({ error: expect.stringMatching(/not active/) });
    const fromPending = await app.http.post('/api/ledger/transfer').set(bearer(carol.token)).send({ receiverPublicKey: alice.ledgerPublicKey, amount: 1 });
    expect(fromPending.status).toBe(409);

    // The background jobs (started by the server): the journal's reconciler finishes the activation
    // that could not be sent, once the lease of the process that tried it has passed.
    await until(async () => {
      await app.container.activation.sweep();
      await app.container.reconciler.run();
      return (await app.container.wallets.findByUserId(carol.userId))?.status === 'active';
    }, 15_000);
    await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: carol.ledgerPublicKey, amount: 1 }).expect(200);
    expect(await ledgerBalance(ledger.url, carol.ledgerPublicKey)).toBe('1.0000000');
  });
});
