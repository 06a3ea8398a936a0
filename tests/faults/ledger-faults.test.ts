import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { sql } from 'drizzle-orm';
import { HorizonClient } from '../../src/clients/horizon.client';
import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import { countRows, databaseState, queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { forwardTo, startFakeServer, type FakeServer } from '../helpers/fake-server';
import { allEnvelopes, expireLeases, recordRowsOf } from '../helpers/journal-fixtures';
import { fundedUser, ledgerBalance } from '../helpers/ledger-fixtures';
import { PATIENCE_MS } from '../helpers/patience';
import { mintRecords, paidIntent, paymentRow, supplyTokens } from '../helpers/payment-fixtures';
import { shapeProblem } from '../helpers/route-inventory';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * The ledger failing under the service: stopped (connection refused), accepting connections but
 * silent, answering a submission too late, or refusing a mint for want of tokens. Each test starts
 * its app, some behind a fake server in front of the ledger sandbox.
 */

const { ledger, app, startApp } = withSandboxes({ app: false });
let front: FakeServer | undefined;

afterEach(async () => {
  await front?.close();
  front = undefined;
});

/**
 * For a test that stops the ledger: rounds 10 ms apart before a write gives up, a lease that passes
 * in a second and a recheck soon after (instead of 100 ms doubling to 2 s, 15 s and 5 s), so it waits
 * for none of the defaults.
 */
const SHORT_LEDGER_WAITS = { LEDGER_RETRY_BASE_MS: '10', LEDGER_LEASE_MS: '1000', LEDGER_RECHECK_MS: '200' };

async function balancesOf(...keys: string[]): Promise<(string | undefined)[]> {
  return Promise.all(keys.map((k) => ledgerBalance(ledger.url, k)));
}

describe('the ledger unreachable (its server stopped)', () => {
  it('answers 503 with Retry-After in each group shape, writes nothing, keeps the rest of the service up, and recovers by itself', async () => {
    const service = await startApp(SHORT_LEDGER_WAITS);
    const alice = await fundedUser(service, 10);
    const bob = await createUser(service);
    const admin = await adminToken(service);
    await service.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '100' }).expect(200);
    const distribution = (await service.container.ledgerModule.bootstrap.ready()).keys.distribution.publicKey();
    const before = await databaseState(service.container.database);
    const loggedBefore = await countRows(service.container.database, 'admin_log');
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
    // nothing).
    const withoutEnvelopes = (state: Record<string, string>) => Object.fromEntries(Object.entries(state).filter(([table]) => table !== 'ledger_envelopes' && table !== 'admin_log'));
    expect(withoutEnvelopes(await databaseState(service.container.database))).toEqual(withoutEnvelopes(before));
    // The admin log keeps what the admin asked and that the journal took it back: each write, then its drop.
    const logged = await queryRows<{ action: string }>(service.container.database, sql`select action from admin_log order by seq offset ${loggedBefore}`);
    expect(logged.map((r) => r.action)).toEqual(['ledger.issue', 'ledger.issue_dropped', 'ledger.mint', 'ledger.mint_dropped']);
    // No envelope of the mint can still apply: its ledger bounds are read from the ledger before
    // signing, so with the ledger down none is signed (one that was is failed as never delivered).
    const open = await queryRows<{ status: string }>(service.container.database, sql`select status from ledger_envelopes where created_at > now() - interval '1 minute' and status in ('pending', 'submitted')`);
    expect(open).toEqual([]);
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
    await eventually(async () => ((await service.http.get('/readyz')).status === 200 ? true : undefined), 'readiness');
    // The pending wallet is activated by the background jobs (the sweep and the journal's
    // reconciler, once the failed attempt's lease passed), with no restart of the service.
    await eventually(
      async () => {
        await service.container.activation.sweep();
        await service.container.reconciler.run();
        return (await service.container.wallets.findByUserId(carol.userId))?.status === 'active' ? true : undefined;
      },
      "carol's wallet to activate",
    );
    await service.http.get(`/api/ledger/check-balance/${carol.ledgerPublicKey}`).set(bearer(carol.token)).expect(200);
    const records = await queryRows<{ kind: string; status: string }>(service.container.database, sql`select kind, status from ledger_entries where kind in ('transfer', 'admin_mint', 'payment_mint') order by created_at`);
    expect(records).toEqual([
      { kind: 'admin_mint', status: 'confirmed' }, // alice's
      { kind: 'transfer', status: 'confirmed' },
      { kind: 'admin_mint', status: 'confirmed' }, // bob's
    ]);
  });

  it('answers 503 in each group shape, records nothing, and recovers when the ledger returns', async () => {
    await startApp(SHORT_LEDGER_WAITS);
    const alice = await fundedUser(app, 10);
    const bob = await createUser(app);
    const admin = await adminToken(app);
    await ledger.stop();

    const transfer = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 });
    expect(transfer.status).toBe(503);
    expect(transfer.body).toEqual({ error: 'Ledger unavailable, try again later' });
    expect(transfer.headers['retry-after']).toBe('5');
    const balance = await app.http.get(`/api/ledger/check-balance/${alice.ledgerPublicKey}`).set(bearer(alice.token));
    expect(balance.status).toBe(503);
    const mint = await app.http.post('/api/payments/mint-tokens').set(bearer(admin)).send({ userId: alice.userId, amount: 1 });
    expect(mint.status).toBe(503);
    expect(mint.body).toEqual({ success: false, message: 'Ledger unavailable, try again later' });
    expect((await recordRowsOf(app, alice.userId)).length).toBe(1); // the earlier mint only
    expect((await app.http.get('/readyz')).status).toBe(503);

    await ledger.start();
    await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 }).expect(200);
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('1.0000000');
    expect((await app.http.get('/readyz')).status).toBe(200);
  });

  it('still signs users up with the wallet pending; a pending wallet gets 409; the background job activates it later', async () => {
    await startApp(SHORT_LEDGER_WAITS);
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
    await eventually(
      async () => {
        await app.container.activation.sweep();
        await app.container.reconciler.run();
        return (await app.container.wallets.findByUserId(carol.userId))?.status === 'active' ? true : undefined;
      },
      "carol's wallet to activate",
      { intervalMs: 100 },
    );
    await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: carol.ledgerPublicKey, amount: 1 }).expect(200);
    expect(await ledgerBalance(ledger.url, carol.ledgerPublicKey)).toBe('1.0000000');
  });

  it('reports liveness always, and readiness only while the ledger is reachable', async () => {
    await startApp();
    await app.http.get('/healthz').expect(200, { status: 'ok' });
    await app.http.get('/readyz').expect(200, { status: 'ready' });
    await ledger.stop();
    await app.http.get('/healthz').expect(200, { status: 'ok' });
    await app.http.get('/readyz').expect(503, { status: 'unavailable' });
  });
});

/** Submissions the fake server in front of the ledger passed on so far. */
const submissionsSeen = () => front!.requests.filter((r) => r.method === 'POST' && r.url.startsWith('/transactions')).length;

/** Requests to the ledger the fake server in front of it took since `from`, and what became of them. */
const ledgerRequestsSince = (from: number) => front!.requests.slice(from);

describe('the ledger accepting connections but never answering', () => {
  it('fails reads with 503 by the read timeout instead of hanging, submits nothing, and recovers when answers come back', async () => {
    let holdAnswersMs = 0;
    front = await startFakeServer(forwardTo(ledger.url, { holdAnswerMs: () => holdAnswersMs }));
    const throughFront = { STELLAR_RPC_URL: '', HORIZON_URL: front.url, FRIENDBOT_URL: `${front.url}/friendbot` };
    // The setup runs with the default read timeout, so a slow machine cannot fail it.
    const setup = await startApp(throughFront);
    const alice = await fundedUser(setup, 10);
    const bob: CreatedUser = await createUser(setup);
    // The same service restarted with a short read timeout, the deadline under test. While the answers
    // are held past the end of the test only that deadline can end a read, and afterwards the test
    // waits for a 200 as a client would, so a slow machine cannot fail it either.
    const service = await startApp({ ...throughFront, LEDGER_READ_TIMEOUT_MS: '1500' }, { reset: false });
    const before = await databaseState(service.container.database);

    holdAnswersMs = PATIENCE_MS;
    const submissionsBefore = submissionsSeen();
    const requestsBefore = front.requests.length;
    const [balance, transfer, ready] = await Promise.all([
      service.http.get(`/api/ledger/check-balance/${alice.ledgerPublicKey}`).set(bearer(alice.token)),
      service.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'hang-1').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 }),
      service.http.get('/readyz'),
    ]);
    expect([balance.status, transfer.status, ready.status]).toEqual([503, 503, 503]);
    expect(balance.body).toEqual({ error: 'Ledger unavailable, try again later' });
    expect(transfer.body).toEqual({ error: 'Ledger unavailable, try again later' });
    // The service asked the ledger, which never answered: each 503 is the service giving up on an
    // unanswered read (LEDGER_READ_TIMEOUT_MS), not the ledger's answer, which would come only after
    // the test. Every read it sent is closed by the service, none answered.
    const reads = await eventually(async () => {
      const sent = ledgerRequestsSince(requestsBefore);
      return sent.length > 0 && sent.every((r) => r.fate !== 'open') ? sent : undefined;
    }, 'the service to close every read it sent');
    expect(reads.map((r) => [r.method, r.fate])).toEqual(reads.map((r) => [r.method, 'abandoned']));
    expect(submissionsSeen()).toBe(submissionsBefore);
    expect(await databaseState(service.container.database)).toEqual(before);

    holdAnswersMs = 0;
    await eventually(async () => ((await service.http.get(`/api/ledger/check-balance/${alice.ledgerPublicKey}`).set(bearer(alice.token))).status === 200 ? true : undefined), 'a balance read to succeed');
    await eventually(
      async () => ((await service.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'hang-1').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 })).status === 200 ? true : undefined),
      'the transfer, retried with its key, to succeed',
    );
    expect(await balancesOf(alice.ledgerPublicKey, bob.ledgerPublicKey)).toEqual(['9.0000000', '1.0000000']);
  });
});

describe('a submission whose answer comes after the submit timeout', () => {
  it('is settled by ledger evidence, never rebuilt, and the transfer applies exactly once', async () => {
    let submissionAnswerMs = 0;
    front = await startFakeServer(forwardTo(ledger.url, { holdAnswerMs: (req) => (req.method === 'POST' && req.url?.startsWith('/transactions') ? submissionAnswerMs : 0) }));
    const service = await startApp({ STELLAR_RPC_URL: '', HORIZON_URL: front.url, LEDGER_SUBMIT_TIMEOUT_MS: '300', LEDGER_SETTLE_BASE_MS: '50' });
    const alice = await fundedUser(service, 10);
    const bob = await createUser(service);
    // Submissions reach the ledger at once, but their answers are held past the end of the test;
    // lookups answer at once.
    submissionAnswerMs = PATIENCE_MS;
    const submissionsBefore = submissionsSeen();
    const requestsBefore = front.requests.length;

    const res = await service.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 5 });

    expect(res.status).toBe(200);
    // Settled by the hash lookup: the submission's own answer never came.
    const submissions = ledgerRequestsSince(requestsBefore).filter((r) => r.method === 'POST' && r.url.startsWith('/transactions'));
    expect(submissions.map((r) => r.fate === 'answered')).toEqual([false]);
    expect(await balancesOf(alice.ledgerPublicKey, bob.ledgerPublicKey)).toEqual(['5.0000000', '5.0000000']);
    expect(submissionsSeen() - submissionsBefore).toBe(1); // never a second envelope
    // The client alone says what it knows: the outcome is unclear, the hash settles it.
    const client = new HorizonClient({ horizonUrl: front.url, networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, submitTimeoutMs: 300, retentionLedgers: 120_960 });
    const [source, destination] = [Keypair.random(), Keypair.random()];
    for (const pair of [source, destination]) expect((await fetch(`${ledger.url}/friendbot?addr=${pair.publicKey()}`)).ok).toBe(true);
    await expect(client.submit(await signedPayment(client, source, destination))).resolves.toEqual({ kind: 'unclear', reason: expect.any(String) });
  });
});

describe('an envelope that reaches the ledger after its last ledger passed', () => {
  it('is refused tx_too_late and its transfer rides at once in a new envelope with a wider window, not after a backoff', async () => {
    // Bounds of two ledgers; a backoff (10-20 s at round 1) far longer than the answer's wait.
    const service = await startApp({ LEDGER_TX_TIMEOUT_LEDGERS: '2', LEDGER_RETRY_BASE_MS: '10000', LEDGER_ANSWER_WAIT_MS: '9000' });
    const alice = await fundedUser(service, 10);
    const bob = await createUser(service);
    // On its way, the first envelope is overtaken by three ledgers (a burst of other submissions on
    // fast ledgers): each friendbot funding closes one.
    const client = service.container.ledgerModule.client;
    const submit = client.submit.bind(client);
    let overtaken = 0;
    client.submit = async (tx) => {
      if (overtaken++ === 0) for (let i = 0; i < 3; i++) expect((await fetch(`${ledger.url}/friendbot?addr=${Keypair.random().publicKey()}`)).ok).toBe(true);
      return submit(tx);
    };

    const res = await service.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 4 });

    // Answered within the wait: the new envelope did not wait out a backoff.
    expect(res.status).toBe(200);
    const envelopes = (await allEnvelopes(service)).filter((e) => e.sourceAccount === alice.ledgerPublicKey).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    expect(envelopes.map((e) => ({ status: e.status, failure: e.failure }))).toEqual([
      { status: 'failed', failure: expect.stringContaining('tx_too_late') },
      { status: 'confirmed', failure: null },
    ]);
    // The new envelope may enter twice as many ledgers after the one it was built at as the one the
    // ledger outran (first_ledger: the latest closed when it was built; last_ledger: the last it may enter).
    const windowOf = (e: (typeof envelopes)[number]) => e.lastLedger! - e.firstLedger!;
    expect([windowOf(envelopes[0]!), windowOf(envelopes[1]!)]).toEqual([2, 4]);
    expect(await balancesOf(alice.ledgerPublicKey, bob.ledgerPublicKey)).toEqual(['6.0000000', '4.0000000']);
  });
});

describe('the ledger down while a paid reference is verified', () => {
  it('answers success, keeps the reference consumed, and the reconciler mints once when the ledger is back', async () => {
    await startApp(SHORT_LEDGER_WAITS);
    await supplyTokens(app);
    const alice = await createUser(app);
    const bob = await createUser(app);
    const viaVerify = await paidIntent(app, alice, 25);
    const viaCallback = await paidIntent(app, bob, 40);
    await ledger.stop();

    const [verified, page] = await Promise.all([
      verify(alice, viaVerify.reference),
      app.http.get('/api/payments/callback').query({ reference: viaCallback.reference }),
    ]).finally(() => ledger.start());

    expect(verified.body).toMatchObject({ success: true, amount: 25 });
    expect(page.text).toContain('<h1>Payment successful</h1>');
    expect(page.text).toContain('Your new balance will show in your wallet shortly.');
    for (const reference of [viaVerify.reference, viaCallback.reference]) {
      expect(await paymentRow(app, reference)).toMatchObject({ status: 'minting' });
    }
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('0.0000000');
    expect((await verify(alice, viaVerify.reference)).body).toEqual({ success: false, message: 'Payment already processed' });

    // The mints wait in the journal, leased to the live path for a while: let the lease pass.
    await expireLeases(app);
    await app.container.reconciler.drain();

    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('25.0000000');
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('40.0000000');
    expect(await mintRecords(app, alice.userId)).toHaveLength(1);
    expect(await mintRecords(app, bob.userId)).toHaveLength(1);
    await expireLeases(app);
    await app.container.reconciler.drain();
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('25.0000000');
  });
});

describe('the distribution account out of tokens', () => {
  it('owes the tokens of a verified payment and mints them, once, after the admin issues more', async () => {
    await startApp(SHORT_LEDGER_WAITS);
    await supplyTokens(app, '1000000');
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 2_000_000);

    const answer = await verify(user, intent.reference);

    expect(answer.body).toMatchObject({ success: true, amount: 2_000_000 });
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'minting', mintTxHash: null });
    // Each envelope was refused (op_underfunded): nothing applied, and the mint waits for a new one.
    expect(new Set((await allEnvelopes(app)).filter((e) => e.failure?.includes('op_underfunded')).map((e) => e.status))).toEqual(new Set(['failed']));
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('0.0000000');

    await supplyTokens(app, '5000000');
    await expireLeases(app);
    await app.container.reconciler.drain();

    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('2000000.0000000');
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'minted' });
    expect(await mintRecords(app, user.userId)).toHaveLength(1);
  });
});

const verify = (user: CreatedUser, reference: string) => app.http.post('/api/payments/verify-payment').set(bearer(user.token)).send({ reference });

async function signedPayment(client: HorizonClient, source: Keypair, destination: Keypair) {
  const loaded = (await client.loadAccount(source.publicKey()))!;
  const tx = new TransactionBuilder(new Account(source.publicKey(), loaded.sequence), { fee: '100', networkPassphrase: client.networkPassphrase })
    .addOperation(Operation.payment({ destination: destination.publicKey(), asset: Asset.native(), amount: '1' }))
    .setTimeout(60)
    .build();
  tx.sign(source);
  return tx;
}
