import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { LedgerIndeterminateError } from '../../src/clients/ledger-errors';
import { StellarClient } from '../../src/clients/stellar.client';
import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { sql } from 'drizzle-orm';
import { databaseState, delayingProxy, rowsOf, until, type DelayingProxy } from '../helpers/hardening';
import { fundedUser, ledgerBalance } from '../helpers/ledger-fixtures';
import { shapeProblem } from '../helpers/route-inventory';
import { startLedgerSandbox, startPaystackSandbox, type RunningLedger, type RunningProvider } from '../helpers/sandboxes';
import { startTestApp, type TestApp } from '../helpers/test-app';

jest.setTimeout(60_000);

let ledger: RunningLedger;
let provider: RunningProvider;
let app: TestApp | undefined;
let proxy: DelayingProxy | undefined;

beforeAll(async () => {
  ledger = await startLedgerSandbox();
  provider = await startPaystackSandbox();
});
afterAll(async () => {
  await ledger.stop();
  await provider.stop();
});
afterEach(async () => {
  await ledger.start(); // a no-op when it runs
  await proxy?.close();
  proxy = undefined;
  await app?.close();
  app = undefined;
});

async function balancesOf(...keys: string[]): Promise<(string | undefined)[]> {
  return Promise.all(keys.map((k) => ledgerBalance(ledger.url, k)));
}

describe('the ledger unreachable (its server stopped)', () => {
  it('answers 503 with Retry-After in each group shape, writes nothing, keeps the rest of the service up, and recovers by itself', async () => {
    const service = (app = await startTestApp({ ...ledger.env, ...provider.env }));
    const alice = await fundedUser(service, 10);
    const bob = await createUser(service);
    const admin = await adminToken(service);
    await service.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '100' }).expect(200);
    const distribution = (await service.container.journal.ready()).keys.distribution.publicKey();
    const before = await databaseState(service.container.database);
    await ledger.stop();

    const refused = {
      checkBalance: await service.http.get(`/api/ledger/check-balance/${alice.ledgerPublicKey}`).set(bearer(alice.token)),
      transfer: await service.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'outage-transfer').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 }),
      createAsset: await service.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '5' }),
      adminBalance: await service.http.get(`/api/ledger/check-admin-balance/${distribution}`).set(bearer(admin)),
      mint: await service.http.post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', 'outage-mint').send({ userId: bob.userId, amount: 2 }),
    };
    for (const [name, res] of Object.entries(refused)) {
      expect([name, res.status, res.headers['retry-after']]).toEqual([name, 503, '5']);
      expect([name, shapeProblem(name === 'mint' ? 'payments' : 'error', res.body)]).toEqual([name, undefined]);
    }
    expect(refused.transfer.body).toEqual({ error: 'Ledger unavailable, try again later' });
    expect((await service.http.get('/readyz')).status).toBe(503);
    expect((await service.http.get('/healthz')).status).toBe(200);
    // Nothing half-written: no transaction record, and the idempotency keys were released (a 5xx moved
    // nothing). The journal keeps the envelopes it signed for the mint, each failed as never delivered.
    const withoutEnvelopes = (state: Record<string, string>) => Object.fromEntries(Object.entries(state).filter(([table]) => table !== 'ledger_envelopes'));
    expect(withoutEnvelopes(await databaseState(service.container.database))).toEqual(withoutEnvelopes(before));
    const signed = await rowsOf<{ status: string; failure: string }>(service.container.database, sql`select status, failure from ledger_envelopes where created_at > now() - interval '1 minute' and failure = 'not_delivered'`);
    expect(signed.every((e) => e.status === 'failed')).toBe(true);
    // Everything that does not need the ledger still works.
    await service.http.post('/api/users/login').send({ identifier: alice.username, password: alice.password }).expect(200);
    await service.http.get(`/api/ledger/transactions/${alice.userId}`).set(bearer(alice.token)).expect(200);
    await service.http.get('/api/admin/users').set(bearer(admin)).expect(200);
    // A signup is taken with its wallet pending: the user never exists without a wallet.
    const carol = await createUser(service);
    expect((await service.container.wallets.findByUserId(carol.userId))?.status).toBe('pending');

    await ledger.start();
    // The same requests, retried with the same keys, now run for real, once.
    const transfer = await service.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'outage-transfer').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 });
    expect(transfer.status).toBe(200);
    expect(transfer.headers['idempotent-replayed']).toBeUndefined();
    const replay = await service.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'outage-transfer').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await service.http.post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', 'outage-mint').send({ userId: bob.userId, amount: 2 }).expect(200);
    expect(await balancesOf(alice.ledgerPublicKey, bob.ledgerPublicKey)).toEqual(['9.0000000', '3.0000000']);
    await service.http.get(`/api/ledger/check-admin-balance/${distribution}`).set(bearer(admin)).expect(200);
    await until(async () => ((await service.http.get('/readyz')).status === 200 ? true : undefined), 'readiness');
    // The pending wallet is activated by the background jobs (the sweep and the journal's
    // reconciler, once the failed attempt's lease passed), with no restart of the service.
    await until(
      async () => {
        await service.container.activation.sweep();
        await service.container.reconciler.run();
        return (await service.container.wallets.findByUserId(carol.userId))?.status === 'active' ? true : undefined;
      },
      "carol's wallet to activate",
      15_000,
    );
    await service.http.get(`/api/ledger/check-balance/${carol.ledgerPublicKey}`).set(bearer(carol.token)).expect(200);
    const records = await rowsOf<{ kind: string; status: string }>(service.container.database, sql`select kind, status from ledger_entries where kind in ('transfer', 'admin_mint', 'payment_mint') order by created_at`);
    expect(records).toEqual([
      { kind: 'admin_mint', status: 'confirmed' }, // alice's
      { kind: 'transfer', status: 'confirmed' },
      { kind: 'admin_mint', status: 'confirmed' }, // bob's
    ]);
  });
});

describe('the ledger accepting connections but never answering', () => {
  it('fails reads with 503 within the read timeout instead of hanging, submits nothing, and recovers when answers come back', async () => {
    proxy = await delayingProxy(ledger.url);
    const slow = proxy;
    const service = (app = await startTestApp({ ...ledger.env, ...provider.env, HORIZON_URL: slow.url, FRIENDBOT_URL: `${slow.url}/friendbot` }));
    const alice = await fundedUser(service, 10);
    const bob: CreatedUser = await createUser(service);
    const before = await databaseState(service.container.database);

    slow.delay = () => 60_000;
    const hitsBefore = slow.hits.length;
    const started = Date.now();
    const [balance, transfer, ready] = await Promise.all([
      service.http.get(`/api/ledger/check-balance/${alice.ledgerPublicKey}`).set(bearer(alice.token)),
      service.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'hang-1').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 }),
      service.http.get('/readyz'),
    ]);
    const elapsed = Date.now() - started;
    expect([balance.status, transfer.status, ready.status]).toEqual([503, 503, 503]);
    expect(balance.body).toEqual({ error: 'Ledger unavailable, try again later' });
    expect(transfer.body).toEqual({ error: 'Ledger unavailable, try again later' });
    expect(elapsed).toBeGreaterThanOrEqual(9_000); // the 10 s read timeout, not the proxy's 60 s
    expect(elapsed).toBeLessThan(20_000);
    expect(slow.hits.slice(hitsBefore).filter((h) => h.startsWith('POST /transactions'))).toEqual([]);
    expect(await databaseState(service.container.database)).toEqual(before);

    slow.delay = () => 0;
    await service.http.get(`/api/ledger/check-balance/${alice.ledgerPublicKey}`).set(bearer(alice.token)).expect(200);
    await service.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'hang-1').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 }).expect(200);
    expect(await balancesOf(alice.ledgerPublicKey, bob.ledgerPublicKey)).toEqual(['9.0000000', '1.0000000']);
  });
});

describe('a submission whose answer comes after the submit timeout', () => {
  it('is settled by ledger evidence, never rebuilt, and the transfer applies exactly once', async () => {
    proxy = await delayingProxy(ledger.url);
    const slow = proxy;
    const service = (app = await startTestApp({ ...ledger.env, ...provider.env, HORIZON_URL: slow.url, LEDGER_SUBMIT_TIMEOUT_MS: '300', LEDGER_SETTLE_BASE_MS: '50' }));
    const alice = await fundedUser(service, 10);
    const bob = await createUser(service);
    // Submissions reach the ledger at once but their answers take 2 s; lookups answer at once.
    slow.delay = (req) => (req.method === 'POST' && req.url?.startsWith('/transactions') ? 2_000 : 0);
    const postsBefore = slow.hits.filter((h) => h.startsWith('POST /transactions')).length;

    const started = Date.now();
    const res = await service.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 5 });

    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000); // settled by the hash lookup, not the slow answer
    expect(await balancesOf(alice.ledgerPublicKey, bob.ledgerPublicKey)).toEqual(['5.0000000', '5.0000000']);
    expect(slow.hits.filter((h) => h.startsWith('POST /transactions')).length - postsBefore).toBe(1); // never a second envelope
    // The client alone says what it knows: the outcome is unknown, here is the hash to settle by.
    const client = new StellarClient({ horizonUrl: slow.url, networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, submitTimeoutMs: 300 });
    const [source, destination] = [Keypair.random(), Keypair.random()];
    for (const pair of [source, destination]) expect((await fetch(`${ledger.url}/friendbot?addr=${pair.publicKey()}`)).ok).toBe(true);
    await expect(client.submit(await signedPayment(client, source, destination))).rejects.toBeInstanceOf(LedgerIndeterminateError);
  });
});

async function signedPayment(client: StellarClient, source: Keypair, destination: Keypair) {
  const loaded = (await client.loadAccount(source.publicKey()))!;
  const tx = new TransactionBuilder(new Account(source.publicKey(), loaded.sequence), { fee: '100', networkPassphrase: client.networkPassphrase })
    .addOperation(Operation.payment({ destination: destination.publicKey(), asset: Asset.native(), amount: '1' }))
    .setTimeout(60)
    .build();
  tx.sign(source);
  return tx;
}
