import { Keypair } from '@stellar/stellar-sdk';
import { sql } from 'drizzle-orm';
import { queryRows } from '../helpers/database-state';
import { adminToken, bearer, createUser } from '../helpers/factories';
import { recordRowsOf } from '../helpers/journal-fixtures';
import { fundedUser, ledgerBalance, outsideAccount } from '../helpers/ledger-fixtures';
import { withSandboxes } from '../helpers/with-sandboxes';
import { eventually } from '../helpers/eventually';

const { ledger, app } = withSandboxes();

describe('wallet activation at signup', () => {
  it('creates the account on the ledger with no XLM of its own (reserves sponsored) and the token trustline', async () => {
    const user = await createUser(app);
    const wallet = await app.container.wallets.findByUserId(user.userId);
    expect(wallet?.status).toBe('active');
    const res = await app.http.get(`/api/ledger/check-balance/${user.ledgerPublicKey}`).set(bearer(user.token)).expect(200);
    expect(res.body.balances).toEqual(
      expect.arrayContaining([
        { asset_type: 'native', balance: '0.0000000' },
        { asset_type: 'credit_alphanum4', balance: '0.0000000' },
      ]),
    );
    expect(res.body.balances).toHaveLength(2);
  });
});

describe('finishing an activation', () => {
  it('adds only the trustline when the account already exists (e.g. created before a lost answer)', async () => {
    await ledger.stop();
    const user = await createUser(app); // ledger down: the wallet stays pending
    await ledger.start();
    expect((await app.container.wallets.findByUserId(user.userId))?.status).toBe('pending');
    await fetch(`${ledger.url}/friendbot?addr=${user.ledgerPublicKey}`);
    expect(await app.container.activation.activateUser(user.userId)).toBe(true);
    expect((await app.container.wallets.findByUserId(user.userId))?.status).toBe('active');
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('0.0000000');
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey, 'XLM')).toBe('10000.0000000');
  });
});

describe('a fresh activation whose account already exists', () => {
  it('ends well through op_already_exists: the trustline is added and the wallet is active', async () => {
    await ledger.stop();
    const user = await createUser(app);
    await ledger.start();
    await fetch(`${ledger.url}/friendbot?addr=${user.ledgerPublicKey}`);
    expect(await app.container.activation.activateUser(user.userId, { fresh: true })).toBe(true);
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('0.0000000');
  });
});

describe('a user journey: issue, mint, transfer', () => {
  it('mints 50 to the first user, who transfers 20 to the second; balances and lists agree', async () => {
    const admin = await adminToken(app);
    const alice = await createUser(app);
    const bob = await createUser(app);
    const issued = await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '1000' });
    expect(issued.status).toBe(200);
    expect(issued.headers['content-type']).toMatch(/text\/plain/);
    expect(issued.text).toMatch(/Issued 1000\.0000000 WLT/);

    const mint = await app.http.post('/api/payments/mint-tokens').set(bearer(admin)).send({ userId: alice.userId, amount: 50 });
    expect(mint.status).toBe(200);
    expect(mint.body).toMatchObject({ success: true, message: expect.any(String) });

    const transfer = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 20 });
    expect(transfer.status).toBe(200);
    expect(transfer.body).toEqual({ message: 'Transfer successful', result: expect.objectContaining({ hash: expect.stringMatching(/^[0-9a-f]{64}$/) }) });

    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('30.0000000');
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('20.0000000');

    const mine = await app.http.get(`/api/ledger/transactions/${alice.userId}`).set(bearer(alice.token)).expect(200);
    expect(mine.body.map((t: { assetAmount: number; from: string }) => [t.assetAmount, t.from === alice.ledgerPublicKey])).toEqual([
      [20, true],
      [50, false],
    ]);
    expect(mine.body[0]).toEqual({
      transactionId: expect.any(String),
      ledgerTransactionId: transfer.body.result.hash,
      from: alice.ledgerPublicKey,
      to: bob.ledgerPublicKey,
      assetAmount: 20,
      assetCode: 'WLT',
      userId: alice.userId,
      createdAt: expect.stringMatching(/Z$/),
      status: 'confirmed',
      direction: 'out',
      origin: 'service',
    });
    const all = await app.http.get('/api/admin/transactions').set(bearer(admin)).expect(200);
    expect(all.body).toHaveLength(2);
    expect(all.body[0].user).toEqual({ username: alice.username, email: alice.email });

    const { distribution, issuer } = (await app.container.ledgerModule.bootstrap.ready()).keys;
    const adminView = await app.http.get(`/api/ledger/check-admin-balance/${distribution.publicKey()}`).set(bearer(admin)).expect(200);
    expect(adminView.body.balances).toEqual(
      expect.arrayContaining([
        { asset_code: 'XLM', asset_issuer: '', balance: expect.stringMatching(/^\d+\.\d{7}$/) },
        { asset_code: 'WLT', asset_issuer: issuer.publicKey(), balance: '950.0000000' },
      ]),
    );
  });
});

describe('POST /api/ledger/transfer errors', () => {
  it('answers plain text 400 when the receiver does not exist on the ledger, recording nothing', async () => {
    const alice = await fundedUser(app, 10);
    const res = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: Keypair.random().publicKey(), amount: 1 });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.text).toBe('Receiver account does not exist on the ledger');
    expect((await recordRowsOf(app, alice.userId)).filter((t) => t.kind === 'transfer')).toHaveLength(0);
  });

  it('answers 400 {error} for a receiver without a trustline', async () => {
    const alice = await fundedUser(app, 10);
    const res = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: await outsideAccount(ledger.url), amount: 1 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Receiver has no trustline for WLT' });
  });

  it('answers 400 Insufficient balance and records nothing', async () => {
    const alice = await fundedUser(app, 5);
    const bob = await createUser(app);
    const res = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 5.0000001 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Insufficient balance' });
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('5.0000000');
    expect((await recordRowsOf(app, alice.userId)).length).toBe(1); // the mint only
  });

  it.each([
    ['a zero amount', { amount: 0 }],
    ['a negative amount', { amount: -1 }],
    ['eight decimals', { amount: 0.00000001 }],
    ['a non-numeric string', { amount: 'abc' }],
    ['an amount over the ledger maximum', { amount: 922337203686 }],
    ['an operator object', { amount: { $gt: 0 } }],
    ['an invalid key', { receiverPublicKey: 'GABC' }],
    ['a secret key as receiver', { receiverPublicKey: Keypair.random().secret() }],
    ['an unknown field', { memo: 'hi' }],
  ])('rejects %s with 400 {error, details}', async (_name, patch) => {
    const alice = await createUser(app);
    const bob = await createUser(app);
    const res = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1, ...patch });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid request', details: expect.any(Array) });
  });

  it('refuses an admin token (403) and no token (401)', async () => {
    const bob = await createUser(app);
    const asAdmin = await app.http.post('/api/ledger/transfer').set(bearer(await adminToken(app))).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 });
    expect(asAdmin.status).toBe(403);
    expect((await app.http.post('/api/ledger/transfer').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 })).status).toBe(401);
  });
});

describe('concurrency and retries', () => {
  it('runs 20 concurrent transfers from one wallet: each succeeds or fails cleanly and the sums are exact', async () => {
    const alice = await fundedUser(app, 15);
    const bob = await createUser(app);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(15);
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body).toEqual({ error: 'Insufficient balance' });
    expect(JSON.stringify(results.map((r) => r.body))).not.toContain('tx_bad_seq');
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('0.0000000');
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('15.0000000');
    const transfers = (await recordRowsOf(app, alice.userId)).filter((t) => t.kind === 'transfer');
    expect(countBy(transfers.map((t) => t.status))).toEqual({ confirmed: 15, failed: 5 });
  });

  it("signs a wallet's later transfers with the key its submitter holds: the sealed secret is opened once per process", async () => {
    const alice = await fundedUser(app, 10);
    const bob = await createUser(app);
    const send = () => app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 });
    expect((await send()).status).toBe(200);
    // Were the secret opened again, this ciphertext could not be: the next transfers would fail.
    await app.container.database.db.execute(sql`update wallets set secret_ciphertext = 'v1.unreadable' where public_key = ${alice.ledgerPublicKey}`);
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('3.0000000');
  });

  it('makes five statements on the pool, four of them prepared: the read of both wallets and the held tokens, the entry, storing the envelope, the send and the confirmation with its wallet events', async () => {
    const alice = await fundedUser(app, 10);
    const bob = await createUser(app);
    // Observed, not replaced: each statement the pool runs by itself (a transaction's would go through a client it lends).
    const pool = (app.container.database.db as unknown as { $client: { query: (config: unknown, ...rest: unknown[]) => unknown } }).$client;
    const names: (string | undefined)[] = [];
    const query = pool.query.bind(pool);
    const send = () => app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 }).expect(200);
    // The first transfer of a wallet in a process also opens its sealed secret; later ones sign with the key its submitter holds.
    await send();
    pool.query = (config: unknown, ...rest: unknown[]) => {
      names.push(typeof config === 'object' && config !== null ? ((config as { name?: string }).name ?? (config as { text?: string }).text) : String(config));
      return query(config, ...rest);
    };
    try {
      await send();
    } finally {
      pool.query = query;
    }
    // The auth check's read comes only when the principal's cached answer has expired (2 s): a slow machine may see it.
    expect(names.filter((n) => n !== 'users_credential_times')).toEqual([
      'wallet_transfer_parties',
      'journal_insert_entry_alone',
      // storing the signed envelope with its entry: one statement (not prepared: a batch's size varies its text)
      expect.stringMatching(/^\s*with movable as/),
      'journal_mark_sent',
      // the envelope, its entries and their wallet events (CONTRACT 13): one statement
      expect.stringMatching(/^journal_confirm_alone_/),
    ]);
    // Both sides of each transfer have their event.
    const events = await queryRows<{ user_id: string; type: string }>(app.container.database, sql`select user_id, type from events where data->>'from' = ${alice.ledgerPublicKey} order by user_id, seq`);
    expect(countBy(events.map((e) => `${e.user_id === alice.userId ? 'alice' : 'bob'} ${e.type}`))).toEqual({ 'alice wallet.debited': 2, 'bob wallet.credited': 2 });
  });

  it('replays a transfer retried with the same Idempotency-Key without paying twice; another body is 409', async () => {
    const alice = await fundedUser(app, 10);
    const bob = await createUser(app);
    const body = { receiverPublicKey: bob.ledgerPublicKey, amount: 3 };
    const first = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'phone-retry-1').send(body);
    const again = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'phone-retry-1').send(body);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('3.0000000');
    const other = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'phone-retry-1').send({ ...body, amount: 4 });
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: expect.stringMatching(/different request/) });
  });

  it('answers duplicates sent at once with one key as replays of one transfer: exactly one is not marked replayed, and the tokens move once', async () => {
    const alice = await fundedUser(app, 10);
    const bob = await createUser(app);
    const body = { receiverPublicKey: bob.ledgerPublicKey, amount: 2 };
    // Five at once: some pass the use case's key check before any has committed, so they race
    // inside the journal's commit, where the loser must get the winner's entry, marked replayed.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'double-tap').send(body)),
    );
    for (const a of answers) expect([200, 202]).toContain(a.status);
    expect(new Set(answers.map((a) => a.body.result.transactionId)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(4);
    const first = answers.find((a) => a.headers['idempotent-replayed'] === undefined)!;
    // Once settled, a replay answers the confirmed transfer with the first answer's id and hash.
    const replay = await eventually(async () => {
      const r = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'double-tap').send(body);
      return r.status === 200 ? r : undefined;
    }, 'the transfer to be confirmed');
    expect([replay.headers['idempotent-replayed'], replay.body.result.transactionId, replay.body.result.hash]).toEqual(['true', first.body.result.transactionId, first.body.result.hash]);
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('2.0000000');
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('8.0000000');
    const transfers = (await recordRowsOf(app, alice.userId)).filter((t) => t.kind === 'transfer');
    expect(transfers).toHaveLength(1);
  });

  it("answers 503 without a result code when another client keeps taking the wallet's sequence number, moves nothing, and the same key then transfers once", async () => {
    const alice = await fundedUser(app, 5);
    const bob = await createUser(app);
    const body = { receiverPublicKey: bob.ledgerPublicKey, amount: 1 };
    const send = () => app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'sequence-taken').send(body);
    const before = ledger.faults.stats['bad-seq'];
    // Every envelope refused with tx_bad_seq (the wallet's owner holds its key and used the number
    // first): the service reloads the sequence and tries again until its rounds run out.
    ledger.faults.set({ mode: 'bad-seq' });
    let refused;
    try {
      refused = await send();
    } finally {
      ledger.faults.clear();
    }
    expect(ledger.faults.stats['bad-seq'] - before).toBeGreaterThan(1);
    expect([refused.status, refused.headers['retry-after'], refused.body]).toEqual([503, '5', { error: expect.stringMatching(/nothing was moved, try again/) }]);
    expect(refused.text).not.toMatch(/tx_|seq/);
    expect([await ledgerBalance(ledger.url, alice.ledgerPublicKey), await ledgerBalance(ledger.url, bob.ledgerPublicKey)]).toEqual(['5.0000000', '0.0000000']);
    // The key was freed with the dropped entry: the retry is a new transfer, not a replay.
    const again = await send();
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect([await ledgerBalance(ledger.url, alice.ledgerPublicKey), await ledgerBalance(ledger.url, bob.ledgerPublicKey)]).toEqual(['4.0000000', '1.0000000']);
    const transfers = (await recordRowsOf(app, alice.userId)).filter((t) => t.kind === 'transfer');
    expect(transfers.map((t) => t.status)).toEqual(['confirmed']);
  });

  it('replays a transfer that spent the whole balance: the key is answered before the balance is checked again', async () => {
    const alice = await fundedUser(app, 3);
    const bob = await createUser(app);
    const body = { receiverPublicKey: bob.ledgerPublicKey, amount: 3 };
    const first = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'all-of-it').send(body);
    expect(first.status).toBe(200);
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('0.0000000');
    // Checked again, the balance (now 0) would refuse it with 400: the retry must get the first answer.
    const again = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'all-of-it').send(body);
    expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([200, 'true', first.body]);
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('3.0000000');
  });

  it('mints once for a mint-tokens call retried with the same Idempotency-Key', async () => {
    const admin = await adminToken(app);
    const alice = await fundedUser(app, 0);
    await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '100' }).expect(200);
    const body = { userId: alice.userId, amount: 7 };
    const answers = await Promise.all([1, 2].map(() => app.http.post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', 'mint-1').send(body)));

    // Concurrent duplicates race to bind the key: the winner mints and answers 200; the loser answers
    // the winner's record as it stands then, 200 confirmed or 202 still pending (which of the two is
    // a genuine race). Either way both name one record, and the tokens move once.
    const [winner, loser] = [...answers].sort((a, b) => a.status - b.status);
    // Whichever way the loser lost (the use case's key check, or the journal's commit), it is a replay.
    expect(answers.map((a) => a.headers['idempotent-replayed']).sort()).toEqual(['true', undefined]);
    const hash = winner!.body.hash as string;
    expect([winner!.status, winner!.body]).toEqual([200, { success: true, message: `Minted 7.0000000 WLT (transaction ${hash})`, hash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const mints = (await recordRowsOf(app, alice.userId)).filter((t) => t.kind === 'admin_mint');
    expect(mints.map((t) => [t.ledgerTransactionId, t.status])).toEqual([[hash, 'confirmed']]);
    if (loser!.status === 202) expect(loser!.body.result).toEqual({ transactionId: mints[0]!.id, hash: expect.any(String), status: 'pending' });
    else expect([loser!.status, loser!.body]).toEqual([200, winner!.body]);
    const replay = await app.http.post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', 'mint-1').send(body);
    expect([replay.status, replay.headers['idempotent-replayed'], replay.body]).toEqual([200, 'true', winner!.body]);
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('7.0000000');
  });
});

describe('GET /api/ledger/transactions/:userId', () => {
  it("refuses another user's list with 403 {error}", async () => {
    const alice = await createUser(app);
    const bob = await createUser(app);
    const res = await app.http.get(`/api/ledger/transactions/${bob.userId}`).set(bearer(alice.token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

describe('admin ledger routes', () => {
  it('issues once for a create-asset retried with the same Idempotency-Key; another body under the key is 409', async () => {
    const admin = await adminToken(app);
    const issue = (amount: string) => app.http.post('/api/ledger/create-asset').set(bearer(admin)).set('Idempotency-Key', 'issue-1').send({ assetCode: 'WLT', amount });
    const first = await issue('250');
    expect([first.status, first.text]).toEqual([200, expect.stringMatching(/^Issued 250\.0000000 WLT to the distribution account \(transaction [0-9a-f]{64}\)$/)]);
    const replay = await issue('250');
    expect([replay.status, replay.headers['idempotent-replayed'], replay.text]).toEqual([200, 'true', first.text]);
    const other = await issue('251');
    expect(other.status).toBe(409);
    const distribution = (await app.container.ledgerModule.bootstrap.ready()).keys.distribution.publicKey();
    expect(await ledgerBalance(ledger.url, distribution)).toBe('250.0000000');
  });

  it('create-asset rejects another asset code and a user token', async () => {
    const admin = await adminToken(app);
    const wrong = await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'USD', amount: '10' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'assetCode must be WLT' });
    const user = await createUser(app);
    expect((await app.http.post('/api/ledger/create-asset').set(bearer(user.token)).send({ assetCode: 'WLT', amount: '10' })).status).toBe(403);
    expect((await app.http.get(`/api/ledger/check-admin-balance/${user.ledgerPublicKey}`).set(bearer(user.token))).status).toBe(403);
  });

  it('mint-tokens refuses a user token with 403 in the payments shape and an unknown user with 404', async () => {
    const user = await createUser(app);
    const asUser = await app.http.post('/api/payments/mint-tokens').set(bearer(user.token)).send({ userId: user.userId, amount: 1 });
    expect(asUser.status).toBe(403);
    expect(asUser.body).toEqual({ success: false, message: expect.any(String) });
    const unknown = await app.http.post('/api/payments/mint-tokens').set(bearer(await adminToken(app))).send({ userId: '00000000-0000-4000-8000-000000000000', amount: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ success: false, message: 'User not found' });
  });

  it('check-balance answers 404 {error} for an account not on the ledger', async () => {
    const user = await createUser(app);
    const res = await app.http.get(`/api/ledger/check-balance/${Keypair.random().publicKey()}`).set(bearer(user.token));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Account not found on the ledger' });
  });
});

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
