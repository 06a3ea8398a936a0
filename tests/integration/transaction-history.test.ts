import { Keypair } from '@stellar/stellar-sdk';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { fundedUser } from '../helpers/ledger-fixtures';
import { insertJournalRecord, recordSeenMovement } from '../helpers/movement-fixtures';
import type { TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * A wallet's history is its account's (CONTRACT 12): GET /api/ledger/transactions/:userId lists
 * every movement of the user's wallet, from or to it, made by the service (journal entries, their
 * own or another user's) or seen on the ledger (ledger_movements, as the follower records them),
 * each once, with `direction` from the user's side and `origin`; the admin list shows each
 * movement once. Transfers go through the service to the ledger sandbox; movements made
 * elsewhere are written as the follower writes them.
 */

const { app } = withSandboxes();

interface Row {
  transactionId: string;
  ledgerTransactionId: string;
  from: string;
  to: string;
  assetAmount: number;
  assetCode: string;
  userId: string;
  createdAt: string;
  status: string;
  direction?: string;
  origin: string;
  user?: { username: string; email: string } | null;
}

async function listOf(user: CreatedUser, query = 'limit=1000'): Promise<{ rows: Row[]; total: string }> {
  const res = await app.http.get(`/api/ledger/transactions/${user.userId}?${query}`).set(bearer(user.token)).expect(200);
  return { rows: res.body as Row[], total: res.headers['x-total-count'] as string };
}

async function adminList(target: TestApp = app): Promise<{ rows: Row[]; total: string }> {
  const res = await target.http.get('/api/admin/transactions?limit=1000').set(bearer(await adminToken(target))).expect(200);
  return { rows: res.body as Row[], total: res.headers['x-total-count'] as string };
}

const outsideKey = () => Keypair.random().publicKey();
const ids = (rows: Row[]) => rows.map((r) => r.transactionId);

describe("a user's transaction records: every movement of their wallet", () => {
  it("lists a transfer in the receiver's list as in and the sender's as out; the admin list shows it once", async () => {
    const alice = await fundedUser(app, 50);
    const bob = await createUser(app);
    const transfer = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 20 }).expect(200);
    const { transactionId, hash } = transfer.body.result as { transactionId: string; hash: string };

    const received = {
      transactionId,
      ledgerTransactionId: hash,
      from: alice.ledgerPublicKey,
      to: bob.ledgerPublicKey,
      assetAmount: 20,
      assetCode: 'WLT',
      userId: alice.userId, // the record's owner stays its sender
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      status: 'confirmed',
      direction: 'in',
      origin: 'service',
    };
    const bobs = await listOf(bob);
    expect(bobs).toEqual({ rows: [received], total: '1' });

    const alices = await listOf(alice);
    expect(alices.total).toBe('2');
    expect(alices.rows.map((r) => [r.transactionId === transactionId ? 'transfer' : 'mint', r.direction, r.origin, r.userId])).toEqual([
      ['transfer', 'out', 'service', alice.userId],
      ['mint', 'in', 'service', alice.userId],
    ]);
    expect(alices.rows[0]).toEqual({ ...received, direction: 'out' });

    // The admin's per-user list is the user's own, direction from that user's side.
    const admin = await adminToken(app);
    const perUser = await app.http.get(`/api/admin/users/${bob.userId}/transactions`).set(bearer(admin)).expect(200);
    expect([perUser.body, perUser.headers['x-total-count']]).toEqual([[received], '1']);

    const all = await adminList();
    expect(all.rows.filter((r) => r.transactionId === transactionId)).toEqual([
      { ...received, direction: undefined, user: { username: alice.username, email: alice.email } },
    ]);
    expect(all.rows[0]).not.toHaveProperty('direction');
    expect(all.total).toBe(String(all.rows.length));
    expect(all.rows).toHaveLength(2); // the mint and the transfer, once each
  });

  it("lists a movement seen on the ledger in the sender's and the receiver's lists, with origin ledger, and once in the admin list", async () => {
    const alice = await createUser(app);
    const bob = await createUser(app);
    const outside = outsideKey();
    const at = new Date('2026-03-01T10:00:00.123Z');
    // Alice paid Bob with her key in another app; an outside account paid Alice XLM.
    const paid = await recordSeenMovement(app, { from: alice.ledgerPublicKey, to: bob.ledgerPublicKey, fromUserId: alice.userId, toUserId: bob.userId, stroops: 12_345_678_901n, at });
    const gift = await recordSeenMovement(app, { from: outside, to: alice.ledgerPublicKey, toUserId: alice.userId, stroops: 1n, assetCode: 'XLM', at: new Date(at.getTime() + 1000) });

    const payment = {
      transactionId: paid,
      ledgerTransactionId: expect.stringMatching(/^[0-9a-f]{64}$/),
      from: alice.ledgerPublicKey,
      to: bob.ledgerPublicKey,
      assetAmount: 1234.5678901,
      assetCode: 'WLT',
      userId: alice.userId,
      createdAt: '2026-03-01T10:00:00.123Z',
      status: 'confirmed',
      origin: 'ledger',
    };
    expect(await listOf(bob)).toEqual({ rows: [{ ...payment, direction: 'in' }], total: '1' });
    const alices = await listOf(alice);
    expect(alices.total).toBe('2');
    expect(alices.rows).toEqual([
      { ...payment, transactionId: gift, from: outside, to: alice.ledgerPublicKey, assetAmount: 1e-7, assetCode: 'XLM', createdAt: '2026-03-01T10:00:01.123Z', direction: 'in' },
      { ...payment, direction: 'out' },
    ]);

    const all = await adminList();
    expect(all.total).toBe('2');
    expect(all.rows.map((r) => [r.transactionId, r.origin, r.user?.username])).toEqual([
      [gift, 'ledger', alice.username],
      [paid, 'ledger', alice.username],
    ]);
  });

  it('lists a payment to oneself once: a movement seen on the ledger and a journal entry alike', async () => {
    const alice = await createUser(app);
    const key = alice.ledgerPublicKey;
    const seen = await recordSeenMovement(app, { from: key, to: key, fromUserId: alice.userId, toUserId: alice.userId, at: new Date('2026-03-01T00:00:00Z') });
    const entry = await insertJournalRecord(app, { kind: 'transfer', from: key, to: key, userId: alice.userId, at: new Date('2026-03-02T00:00:00Z') });

    const { rows, total } = await listOf(alice);
    expect(rows.map((r) => [r.transactionId, r.direction, r.origin])).toEqual([
      [entry, 'out', 'service'],
      [seen, 'out', 'ledger'],
    ]);
    expect(total).toBe('2');
    const all = await adminList();
    expect([ids(all.rows), all.total]).toEqual([[entry, seen], '2']);
  });

  it('lists a clawback as tokens out of the wallet', async () => {
    const alice = await createUser(app);
    const issuer = (await app.container.ledgerModule.bootstrap.ready()).keys.issuer.publicKey();
    const clawback = await insertJournalRecord(app, { kind: 'clawback', from: alice.ledgerPublicKey, to: issuer, userId: alice.userId, stroops: 30_000_000n });
    const { rows } = await listOf(alice);
    expect(rows.map((r) => [r.transactionId, r.from, r.to, r.assetAmount, r.direction, r.origin])).toEqual([[clawback, alice.ledgerPublicKey, issuer, 3, 'out', 'service']]);
    expect(ids((await adminList()).rows)).toEqual([clawback]);
  });

  it('pages across the four sources newest first, with no duplicate and no hole, and never lists what does not touch the wallet', async () => {
    const [alice, bob, carol, dave] = [await createUser(app), await createUser(app), await createUser(app), await createUser(app)];
    const a = alice.ledgerPublicKey;
    const base = Date.UTC(2026, 4, 1);
    const at = (second: number) => new Date(base + second * 1000);
    // Interleaved in time, each source more than once, and ties: records of different sources at
    // the same instant are ordered by id, as the admin's and every list's order is.
    const expected: { id: string; at: Date }[] = [];
    const keep = async (at: Date, made: Promise<string>) => expected.push({ id: await made, at });
    for (let i = 0; i < 5; i++) {
      await keep(at(4 * i), insertJournalRecord(app, { kind: 'transfer', from: a, to: bob.ledgerPublicKey, userId: alice.userId, at: at(4 * i) }));
      await keep(at(4 * i + 1), insertJournalRecord(app, { kind: 'transfer', from: bob.ledgerPublicKey, to: a, userId: bob.userId, at: at(4 * i + 1) }));
      await keep(at(4 * i + 1), recordSeenMovement(app, { from: a, to: outsideKey(), fromUserId: alice.userId, at: at(4 * i + 1) }));
      await keep(at(4 * i + 3), recordSeenMovement(app, { from: carol.ledgerPublicKey, to: a, fromUserId: carol.userId, toUserId: alice.userId, at: at(4 * i + 3) }));
    }
    await keep(at(30), insertJournalRecord(app, { kind: 'payment_mint', from: outsideKey(), to: a, userId: alice.userId, at: at(30) }));
    await keep(at(31), insertJournalRecord(app, { kind: 'transfer', from: outsideKey(), to: a, at: at(31) })); // nobody's
    // Not Alice's wallet: others' records and movements, at the same instants.
    for (let i = 0; i < 5; i++) {
      await insertJournalRecord(app, { kind: 'transfer', from: carol.ledgerPublicKey, to: bob.ledgerPublicKey, userId: carol.userId, at: at(4 * i + 1) });
      await recordSeenMovement(app, { from: bob.ledgerPublicKey, to: carol.ledgerPublicKey, fromUserId: bob.userId, toUserId: carol.userId, at: at(4 * i + 2) });
      await recordSeenMovement(app, { from: outsideKey(), to: dave.ledgerPublicKey, toUserId: dave.userId, at: at(4 * i + 3) });
    }
    const newestFirst = expected.sort((x, y) => y.at.getTime() - x.at.getTime() || (y.id < x.id ? -1 : y.id > x.id ? 1 : 0)).map((r) => r.id);
    expect(newestFirst).toHaveLength(22);

    const full = await listOf(alice);
    expect([ids(full.rows), full.total]).toEqual([newestFirst, '22']);
    for (const limit of [1, 3, 4, 7]) {
      const pages: string[] = [];
      for (let offset = 0; offset < newestFirst.length; offset += limit) {
        const page = await listOf(alice, `limit=${limit}&offset=${offset}`);
        expect(page.total).toBe('22');
        pages.push(...ids(page.rows));
      }
      expect(pages).toEqual(newestFirst);
    }
    expect(await listOf(alice, 'limit=5&offset=22')).toEqual({ rows: [], total: '22' });

    // Dave sees only what reached his wallet; a bystander, nothing.
    expect((await listOf(dave)).rows.every((r) => r.to === dave.ledgerPublicKey && r.direction === 'in')).toBe(true);
    expect((await listOf(dave)).total).toBe('5');
    const eve = await createUser(app);
    expect(await listOf(eve)).toEqual({ rows: [], total: '0' });

    // The admin list: every record and movement once, newest first.
    const all = await adminList();
    expect(all.total).toBe(String(22 + 15));
    expect(new Set(ids(all.rows)).size).toBe(all.rows.length);
    expect(all.rows).toHaveLength(22 + 15);
    const times = all.rows.map((r) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
  });
});
