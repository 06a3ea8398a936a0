import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../src/db/client';
import { EventRepository, type EventRow } from '../../src/db/repositories/event.repository';
import { formatStroops } from '../../src/domain/amounts';
import type { EventDraft } from '../../src/domain/events';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { bearer, createUser } from '../helpers/factories';
import { fundedUser } from '../helpers/ledger-fixtures';
import { outsider, payTokens } from '../helpers/outside-world';
import { chargeSuccess, createIntent, checkout, paymentBecomes, paymentRow, postWebhook, signedEvent, supplyTokens } from '../helpers/payment-fixtures';
import { relayedProvider } from '../helpers/provider-relay';
import type { TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';
import { FAST_CASH_OUT, paidWithdrawal } from '../helpers/withdrawal-fixtures';

/**
 * The events outbox (CONTRACT.md section 13): every change of money a user cares about is an
 * `events` row written in the transaction of the change, numbered per user 1, 2, 3... without a
 * gap or a repeat. Driven over HTTP through the real app on the ledger and provider sandboxes;
 * the events are read straight from the database.
 */

const relay = relayedProvider();
const { ledger, provider, startApp } = withSandboxes({ app: false });

/** A user's events, oldest first. */
async function eventsOf(app: TestApp, userId: string): Promise<EventRow[]> {
  return new EventRepository(app.container.database.db).userPage(userId, 0, 1000);
}

const typesOf = (rows: EventRow[]) => rows.map((e) => e.type);

/**
 * Every user's events are numbered exactly 1..n (no gap, no repeat), and their sequence row
 * holds n: the next event gets n + 1.
 */
async function expectGaplessSeqs(database: DatabaseHandle): Promise<void> {
  const numbered = await queryRows<{ user_id: string; seqs: string[]; last_seq: string | null }>(
    database,
    sql`select e.user_id, array_agg(e.seq::text order by e.seq) as seqs, s.last_seq::text as last_seq
        from events e left join event_sequences s on s.user_id = e.user_id
        group by e.user_id, s.last_seq`,
  );
  for (const { user_id, seqs, last_seq } of numbered) {
    const expected = seqs.map((_, i) => String(i + 1));
    expect({ user_id, seqs }).toEqual({ user_id, seqs: expected });
    expect({ user_id, last_seq }).toEqual({ user_id, last_seq: String(seqs.length) });
  }
  // A sequence row without events would be a number taken and never written.
  const orphans = await queryRows<{ user_id: string }>(database, sql`select s.user_id from event_sequences s where not exists (select 1 from events e where e.user_id = s.user_id)`);
  expect(orphans).toEqual([]);
}

/** One pass of the follower (test apps run no background work of their own). */
const follow = (app: TestApp) => app.container.ledgerModule.follower.run();

describe('the events outbox over HTTP', () => {
  it('tells a transfer once: one wallet.debited for the sender, one wallet.credited for the receiver; the same Idempotency-Key adds nothing', async () => {
    const app = await startApp();
    const alice = await fundedUser(app, 50);
    const bob = await createUser(app);
    const alicesBefore = await eventsOf(app, alice.userId);
    // The admin's mint is a record entry too: Alice heard it.
    expect(typesOf(alicesBefore)).toEqual(['wallet.credited']);
    expect(await eventsOf(app, bob.userId)).toEqual([]);

    const send = () =>
      app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'events-transfer-1').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 12.5 });
    const sent = await send().expect(200);
    const { transactionId, hash } = sent.body.result as { transactionId: string; hash: string };

    const movement = { transactionId, ledgerTransactionId: hash, from: alice.ledgerPublicKey, to: bob.ledgerPublicKey, amount: '12.5000000', assetCode: 'WLT', origin: 'service' };
    const alices = await eventsOf(app, alice.userId);
    expect(alices.map((e) => [e.seq, e.type])).toEqual([
      [1, 'wallet.credited'],
      [2, 'wallet.debited'],
    ]);
    expect(alices[1]!.data).toEqual(movement);
    const bobs = await eventsOf(app, bob.userId);
    expect(bobs.map((e) => [e.seq, e.type, e.data])).toEqual([[1, 'wallet.credited', movement]]);

    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.result).toMatchObject({ transactionId, hash });
    expect(await eventsOf(app, alice.userId)).toEqual(alices);
    expect(await eventsOf(app, bob.userId)).toEqual(bobs);
    await expectGaplessSeqs(app.container.database);
  });

  it('tells a purchase verified twice and delivered by webhook once: one payment.minted and one wallet.credited for the buyer', async () => {
    const app = await startApp();
    await supplyTokens(app);
    const buyer = await createUser(app);
    const intent = await createIntent(app, buyer, 30);
    await checkout(intent, 'pay');

    const verify = () => app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference });
    expect((await verify()).status).toBe(200);
    const minted = await paymentBecomes(app, intent.reference, 'minted');
    expect((await verify()).status).toBe(200);
    const { body, signature } = signedEvent(chargeSuccess(intent.reference, 3000), provider.secretKey);
    expect((await postWebhook(app, body, signature)).status).toBe(200);
    // The inbox settles the event in the background after its 200: wait until it is done with it.
    const settled = await eventually(async () => {
      const rows = await app.container.webhookEvents.listByReference(intent.reference);
      return rows.length > 0 && rows.every((r) => r.status === 'done') ? rows : undefined;
    }, 'the webhook event to be settled');
    expect(settled).toHaveLength(1);
    expect((await paymentRow(app, intent.reference))?.status).toBe('minted');

    const tokens = formatStroops(minted.tokensStroops!);
    const events = await eventsOf(app, buyer.userId);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'payment.minted'],
      [2, 'wallet.credited'],
    ]);
    expect(events[0]!.data).toEqual({ reference: intent.reference, amountNaira: '30.00', tokens, reason: null });
    expect(events[1]!.data).toMatchObject({ ledgerTransactionId: minted.mintTxHash, to: buyer.ledgerPublicKey, amount: tokens, assetCode: 'WLT', origin: 'service' });
    const all = await new EventRepository(app.container.database.db).all();
    expect(all.filter((e) => e.type === 'payment.minted')).toHaveLength(1);
    await expectGaplessSeqs(app.container.database);
  });

  it('tells a paid withdrawal as withdrawal.debited, wallet.debited and withdrawal.paid, in that order of seq', async () => {
    const cashier = relay.provider();
    const app = await startApp({ ...FAST_CASH_OUT, ...cashier.env });
    relay.deliverTo(app);
    app.container.start();
    const { user, id, paid } = await paidWithdrawal(app, cashier);

    const events = await eventsOf(app, user.userId);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'wallet.credited'],
      [2, 'withdrawal.debited'],
      [3, 'wallet.debited'],
      [4, 'withdrawal.paid'],
    ]);
    const told = { withdrawalId: id, reference: paid.reference, amountNaira: '250.50', tokens: '250.5000000', reason: null };
    expect(events[1]!.data).toEqual({ ...told, status: 'debited' });
    expect(events[2]!.data).toMatchObject({ from: user.ledgerPublicKey, amount: '250.5000000', assetCode: 'WLT', origin: 'service' });
    expect(events[3]!.data).toEqual({ ...told, status: 'paid' });
    await expectGaplessSeqs(app.container.database);
  });

  it('tells a payment from an outside account once, as wallet.credited with origin ledger, however often the follower reads', async () => {
    const app = await startApp();
    const alice = await fundedUser(app, 20);
    const bob = await createUser(app);
    const outside = await outsider(app, ledger.url);
    await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: outside.publicKey(), amount: 10 }).expect(200);

    const hash = await payTokens(app, ledger.url, outside, bob.ledgerPublicKey, '4');
    const bobs = await eventually(async () => {
      await follow(app);
      const rows = await eventsOf(app, bob.userId);
      return rows.length > 0 ? rows : undefined;
    }, 'the follower to tell Bob of the payment');
    const [movement] = (await app.container.ledgerModule.movements.all()).filter((m) => m.ledgerTransactionId === hash);
    expect(bobs.map((e) => [e.seq, e.type, e.data])).toEqual([
      [1, 'wallet.credited', { transactionId: movement!.id, ledgerTransactionId: hash, from: outside.publicKey(), to: bob.ledgerPublicKey, amount: '4.0000000', assetCode: 'WLT', origin: 'ledger' }],
    ]);

    const everything = await new EventRepository(app.container.database.db).all();
    await follow(app);
    await follow(app);
    expect(await new EventRepository(app.container.database.db).all()).toEqual(everything);
    // The outsider is nobody's user: no event names it as its owner, and Alice heard only her own transfer out.
    expect(typesOf(await eventsOf(app, alice.userId))).toEqual(['wallet.credited', 'wallet.debited']);
    await expectGaplessSeqs(app.container.database);
  });
});

describe('EventRepository.append', () => {
  /** A draft of a payment event for `userId` (no foreign key: any user id numbers its own events). */
  const draft = (userId: string, reference: string): EventDraft => ({ userId, type: 'payment.failed', data: { reference, amountNaira: '1.00', tokens: null, reason: 'test' } });

  it('numbers 20 concurrent appends for one user 1..20', async () => {
    const app = await startApp();
    const { db } = app.container.database;
    const events = new EventRepository(db);
    const userId = crypto.randomUUID();

    await Promise.all(Array.from({ length: 20 }, (_, i) => db.transaction((tx) => events.append(tx, [draft(userId, `ref-${i}`)]))));

    const rows = await events.userPage(userId, 0, 100);
    expect(rows.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(rows.map((e) => (e.data as { reference: string }).reference)).size).toBe(20);
    await expectGaplessSeqs(app.container.database);
  });

  it('leaves no event and takes no number when the transaction that appended rolls back', async () => {
    const app = await startApp();
    const { db } = app.container.database;
    const events = new EventRepository(db);
    const userId = crypto.randomUUID();
    await db.transaction((tx) => events.append(tx, [draft(userId, 'first')]));

    await expect(
      db.transaction(async (tx) => {
        await events.append(tx, [draft(userId, 'rolled-back-1'), draft(userId, 'rolled-back-2')]);
        throw new Error('the change fails after its events');
      }),
    ).rejects.toThrow('the change fails after its events');
    expect((await events.userPage(userId, 0, 100)).map((e) => [e.seq, (e.data as { reference: string }).reference])).toEqual([[1, 'first']]);

    await db.transaction((tx) => events.append(tx, [draft(userId, 'next')]));
    expect((await events.userPage(userId, 0, 100)).map((e) => [e.seq, (e.data as { reference: string }).reference])).toEqual([
      [1, 'first'],
      [2, 'next'],
    ]);
    await expectGaplessSeqs(app.container.database);
  });
});

