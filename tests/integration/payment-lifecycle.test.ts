import type { InitializedTransaction } from '../../src/clients/paystack.client';
import { sandboxControlPaths, type ControlledStatus } from '@wallet/paystack-sandbox';
import { Keypair } from '@stellar/stellar-sdk';
import { sql } from 'drizzle-orm';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { chargeSuccess, checkout, createIntent, mintRecords, paidIntent, paymentBecomes, paymentRow, postWebhook, signedEvent, supplyTokens } from '../helpers/payment-fixtures';
import type { TestApp } from '../helpers/test-app';
import { MINT_NOT_YET_LIMIT } from '../../src/domain/payment-lifecycle';
import { withSandboxes } from '../helpers/with-sandboxes';
import { WebhookInboxRepository } from '../../src/db/repositories/webhook-inbox.repository';
import type { Database } from '../../src/db/client';
import { readProviderEvent } from '../../src/http/webhook-event';

/**
 * A purchase's life around its mint (src/domain/payment-lifecycle.ts), against the ledger and
 * provider sandboxes over HTTP: the provider's sweep finishes payments nobody came back for, a
 * checkout left open is only asked about again, a webhook that came before the provider agreed is
 * settled once it does, and a payment for a wallet still being activated waits for it.
 */

// The sweep asks about a new intent at once and again 100 ms later; webhook retries 100 ms apart.
const SWEEP_AT_ONCE = { PAYMENT_FIRST_CHECK_MS: '0', PAYMENT_CHECK_RETRY_MS: '100', WEBHOOK_RETRY_BASE_MS: '100' };
const SHORT_LEDGER_WAITS = { LEDGER_RETRY_BASE_MS: '10', LEDGER_LEASE_MS: '1000', LEDGER_RECHECK_MS: '200' };

const { ledger, provider, startApp } = withSandboxes({ app: false });

/** The provider's own move on a charge, through the sandbox's control (what Paystack does on its side). */
async function providerSets(reference: string, status: ControlledStatus, webhook = true): Promise<void> {
  const res = await fetch(`${provider.url}${sandboxControlPaths.transactionStatus(reference)}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${provider.secretKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ status, webhook }),
  });
  if (res.status !== 200) throw new Error(`status control answered ${res.status}: ${await res.text()}`);
}

/** The provider's verify data for a reference, as a webhook's `data` would carry it. */
async function providerData(reference: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${provider.url}/transaction/verify/${reference}`, { headers: { Authorization: `Bearer ${provider.secretKey}` } });
  return ((await res.json()) as { data: Record<string, unknown> }).data;
}

async function tokenBalance(user: CreatedUser): Promise<string | undefined> {
  return ledgerBalance(ledger.url, user.ledgerPublicKey);
}

/** Provider, database and ledger agree (ledger:audit), once the test's payments reached their end. */
async function expectAuditClean(app: TestApp): Promise<void> {
  expect((await app.container.audit()).discrepancies).toEqual([]);
}

/** Runs the sweep (and the journal's reconciler) until the payment is `status`, as the server's timers would. */
async function sweepUntil(app: TestApp, reference: string, status: string) {
  return eventually(
    async () => {
      await app.container.paymentSweep.run();
      await app.container.reconciler.run();
      const row = await paymentRow(app, reference);
      return row?.status === status ? row : undefined;
    },
    `payment ${reference} to become ${status} through the sweep`,
    { intervalMs: 50 },
  );
}

describe('the provider sweep', () => {
  it('mints a paid reference whose browser never came back and whose webhook never arrived, once', async () => {
    const app = await startApp(SWEEP_AT_ONCE);
    await supplyTokens(app);
    const buyer = await createUser(app);
    const intent = await createIntent(app, buyer, 1500);
    await providerSets(intent.reference, 'success', false);

    const minted = await sweepUntil(app, intent.reference, 'minted');
    expect(minted).toMatchObject({ tokensStroops: 15_000_000_000n, destinationPublicKey: buyer.ledgerPublicKey, failureReason: null });
    expect(await tokenBalance(buyer)).toBe('1500.0000000');

    // More passes, a late verify and a late callback change nothing.
    await app.container.paymentSweep.run();
    await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference }).expect(200, { success: false, message: 'Payment already processed' });
    await app.http.get(`/api/payments/callback?reference=${intent.reference}`).expect(200);
    expect(await mintRecords(app, buyer.userId)).toHaveLength(1);
    expect(await tokenBalance(buyer)).toBe('1500.0000000');
    await expectAuditClean(app);
  });

  it.each<ControlledStatus>(['abandoned', 'ongoing', 'pending', 'processing', 'queued'])('never closes a checkout the provider calls %s; it mints once the buyer pays', async (status) => {
    const app = await startApp(SWEEP_AT_ONCE);
    await supplyTokens(app);
    const buyer = await createUser(app);
    const intent = await createIntent(app, buyer, 200);
    if (status !== 'abandoned') await providerSets(intent.reference, status);

    // Asked about at least three times, with the provider's answer still "not yet".
    await eventually(
      async () => {
        await app.container.paymentSweep.run();
        const row = await paymentRow(app, intent.reference);
        return row && row.checkAttempts >= 3 ? row : undefined;
      },
      'three questions of the sweep',
      { intervalMs: 50 },
    );
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'initialized', failureReason: null });
    expect((await paymentRow(app, intent.reference))?.nextCheckAt).not.toBeNull();

    await checkout(intent, 'pay');
    await sweepUntil(app, intent.reference, 'minted');
    expect(await tokenBalance(buyer)).toBe('200.0000000');
    await expectAuditClean(app);
  });

  it('records a charge the provider declined as failed without a reason, and stops asking about it', async () => {
    const app = await startApp(SWEEP_AT_ONCE);
    const buyer = await createUser(app);
    const intent = await createIntent(app, buyer, 300);
    await checkout(intent, 'decline');
    const failed = await sweepUntil(app, intent.reference, 'failed');
    // no reason: the provider's failure, which a later success for the reference would still consume
    expect(failed).toMatchObject({ failureReason: null, tokensStroops: null });
    const attempts = failed.checkAttempts;
    await app.container.paymentSweep.run();
    expect((await paymentRow(app, intent.reference))?.checkAttempts).toBe(attempts);
    expect(await mintRecords(app, buyer.userId)).toHaveLength(0);
    await expectAuditClean(app);
  });

  it('stops asking after its last attempt and counts the payment for an operator, leaving it initialized', async () => {
    const app = await startApp({ ...SWEEP_AT_ONCE, PAYMENT_CHECK_MAX_ATTEMPTS: '2' });
    const buyer = await createUser(app);
    const intent = await createIntent(app, buyer, 100);
    await eventually(
      async () => {
        await app.container.paymentSweep.run();
        return (await paymentRow(app, intent.reference))?.nextCheckAt === null ? true : undefined;
      },
      'the sweep to stop asking',
      { intervalMs: 50 },
    );
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'initialized', checkAttempts: 2 });
    const metrics = await app.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^payments_unchecked 1$/m);
  });
});

describe('the webhook inbox', () => {
  it('keeps a charge.success open while the provider says "ongoing", and settles it once the provider says success', async () => {
    const app = await startApp(SWEEP_AT_ONCE);
    await supplyTokens(app);
    const buyer = await createUser(app);
    const intent = await createIntent(app, buyer, 700);
    await providerSets(intent.reference, 'ongoing');
    // The webhook arrives before verify agrees (the provider's own systems disagree for a moment).
    const early = signedEvent({ event: 'charge.success', data: { ...(await providerData(intent.reference)), status: 'success' } }, provider.secretKey);
    await postWebhook(app, early.body, early.signature).expect(200);

    await eventually(
      async () => {
        await app.container.webhookInbox.run();
        const [event] = await app.container.webhookEvents.listByReference(intent.reference);
        return event && event.attempts >= 2 ? event : undefined;
      },
      'the event to be tried twice',
      { intervalMs: 50 },
    );
    const [open] = await app.container.webhookEvents.listByReference(intent.reference);
    expect(open).toMatchObject({ status: 'received' });
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'initialized' });

    // The provider now says success, and sends no webhook of its own: the open event settles it.
    await providerSets(intent.reference, 'success', false);
    await eventually(
      async () => {
        await app.container.webhookInbox.run();
        await app.container.reconciler.run();
        return (await paymentRow(app, intent.reference))?.status === 'minted' ? true : undefined;
      },
      'the open event to mint the payment',
      { intervalMs: 50 },
    );
    const [done] = await app.container.webhookEvents.listByReference(intent.reference);
    expect(done).toMatchObject({ status: 'done', outcome: expect.stringMatching(/^(minted|verified)$/) });
    expect(await tokenBalance(buyer)).toBe('700.0000000');
    expect(await mintRecords(app, buyer.userId)).toHaveLength(1);
    await expectAuditClean(app);
  });

  it('answers every correctly signed event 200 and keeps one row per provider event: a redelivery is the same event, a second partial refund is not', async () => {
    const app = await startApp(SWEEP_AT_ONCE);
    await supplyTokens(app);
    const buyer = await createUser(app);
    const intent = await paidIntent(app, buyer, 900);
    await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference }).expect(200);
    await paymentBecomes(app, intent.reference, 'minted');

    // A refund names the payment in data.transaction_reference; two partial refunds are two events.
    const refund = (id: string) => signedEvent({ event: 'refund.processed', data: { id, status: 'processed', transaction_reference: intent.reference, amount: '10000', currency: 'NGN' } }, provider.secretKey);
    const first = refund('9001');
    const second = refund('9002');
    await postWebhook(app, first.body, first.signature).expect(200);
    await postWebhook(app, first.body, first.signature).expect(200); // a redelivery
    await postWebhook(app, second.body, second.signature).expect(200);
    // A dispute names it in data.transaction.reference.
    const dispute = signedEvent({ event: 'charge.dispute.create', data: { id: 77, status: 'awaiting-merchant-feedback', transaction: { reference: intent.reference } } }, provider.secretKey);
    await postWebhook(app, dispute.body, dispute.signature).expect(200);
    // An event about no payment of this service (a transfer) is acknowledged and not kept.
    const other = signedEvent({ event: 'transfer.success', data: { id: 5, reference: 'someone-elses' } }, provider.secretKey);
    await postWebhook(app, other.body, other.signature).expect(200);
    const unsigned = await postWebhook(app, first.body, 'not-a-signature');
    expect(unsigned.status).toBe(401);

    await app.container.webhookInbox.run();
    const events = await queryRows<{ event: string; event_key: string; status: string; outcome: string }>(
      app.container.database,
      sql`select event, event_key, status, outcome from webhook_events where reference = ${intent.reference} and event <> 'charge.success' order by event_key`,
    );
    // Each is worked (src/services/reversal.service.ts): the refunds are recorded as reversals, the
    // dispute holds the tokens (payment-reversals.test.ts follows them to the ledger).
    expect(events).toEqual([
      // held, unless the refunds' reversals (worked at once, in the background) reversed the payment first
      { event: 'charge.dispute.create', event_key: 'charge.dispute.create:77', status: 'done', outcome: expect.stringMatching(/^(held|already_reversed)$/) },
      { event: 'refund.processed', event_key: 'refund.processed:9001', status: 'done', outcome: 'reversal recorded' },
      { event: 'refund.processed', event_key: 'refund.processed:9002', status: 'done', outcome: 'reversal recorded' },
    ]);
    expect((await app.container.reversalRepo.listByReference(intent.reference)).map((r) => r.key).sort()).toEqual(['refund:9001', 'refund:9002']);
    const metrics = await app.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^webhook_events_set_aside 0$/m);
  });
  it('settles an event whose redelivery was being stored while the pass looked: a duplicate delivery locks nothing the pass would skip', async () => {
    const app = await startApp(SWEEP_AT_ONCE);
    await supplyTokens(app);
    const buyer = await createUser(app);
    const intent = await paidIntent(app, buyer, 400);
    const delivered = readProviderEvent(Buffer.from(signedEvent(chargeSuccess(intent.reference, 40_000), provider.secretKey).body))!;
    // The first delivery is stored; its redelivery's store is still in its transaction when a pass claims.
    expect(await app.container.webhookEvents.store(delivered)).toBe(true);
    await app.container.database.db.transaction(async (tx) => {
      expect(await new WebhookInboxRepository(tx as Database).store(delivered)).toBe(false);
      await app.container.webhookInbox.run();
    });

    const [event] = await app.container.webhookEvents.listByReference(intent.reference);
    expect(event).toMatchObject({ status: 'done', attempts: 1, outcome: expect.stringMatching(/^(minted|verified)$/) });
    await app.container.reconciler.run();
    await paymentBecomes(app, intent.reference, 'minted');
    expect(await mintRecords(app, buyer.userId)).toHaveLength(1);
  });

  it('makes one more pass when an event arrives while a pass that already found nothing is finishing', async () => {
    const app = await startApp(SWEEP_AT_ONCE);
    await supplyTokens(app);
    const buyer = await createUser(app);
    const intent = await paidIntent(app, buyer, 300);
    // Holds the next pass open just after its claim found nothing, as a slow database answer would.
    const claimDue = app.container.webhookEvents.claimDue.bind(app.container.webhookEvents);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holdNextEmpty = true;
    const claims = jest.spyOn(app.container.webhookEvents, 'claimDue').mockImplementation(async (limit, leaseMs) => {
      const due = await claimDue(limit, leaseMs);
      if (due.length === 0 && holdNextEmpty) {
        holdNextEmpty = false;
        await held;
      }
      return due;
    });
    const finishing = app.container.webhookInbox.run();
    await eventually(async () => (holdNextEmpty ? undefined : true), 'the pass to find nothing');

    const { body, signature } = signedEvent(chargeSuccess(intent.reference, 30_000), provider.secretKey);
    await postWebhook(app, body, signature).expect(200);
    release();
    await finishing;
    // The call that came during the finishing pass started another, which claims the new event.
    expect(claims).toHaveBeenCalledTimes(2);
    await eventually(
      async () => ((await app.container.webhookEvents.listByReference(intent.reference))[0]?.status === 'done' ? true : undefined),
      'the event to be settled by the next pass',
    );
    claims.mockRestore();
  });
});

describe('a payment for a wallet still being activated', () => {
  it('waits while the wallet is pending and mints once, after the activation, for buyers who signed up while the ledger was down', async () => {
    const app = await startApp({ ...SWEEP_AT_ONCE, ...SHORT_LEDGER_WAITS });
    await supplyTokens(app);
    await ledger.stop();
    const buyers = [await createUser(app), await createUser(app), await createUser(app), await createUser(app)];
    for (const b of buyers) expect((await app.container.wallets.findByUserId(b.userId))?.status).toBe('pending');
    await ledger.start();
    // They pay before their wallets are active, and verify: the payment is consumed and waits.
    const intents: InitializedTransaction[] = [];
    for (const b of buyers) {
      const intent = await paidIntent(app, b, 100);
      intents.push(intent);
      const verified = await app.http.post('/api/payments/verify-payment').set(bearer(b.token)).send({ reference: intent.reference });
      expect(verified.body).toMatchObject({ success: true, amount: 100 });
    }
    for (const [i, intent] of intents.entries()) {
      const row = await paymentRow(app, intent.reference);
      // still pending (paid, waiting) unless its wallet was activated in the meantime by the sweep
      if ((await app.container.wallets.findByUserId(buyers[i]!.userId))?.status === 'pending') expect(row?.status).toBe('paid');
      expect(row?.failureReason).toBeNull();
    }

    // The activation and the payments' sweep race, as the server's timers run them.
    await eventually(
      async () => {
        await Promise.all([app.container.activation.sweep(), app.container.paymentSweep.run(), app.container.reconciler.run()]);
        const rows = await Promise.all(intents.map((i) => paymentRow(app, i.reference)));
        return rows.every((r) => r?.status === 'minted') ? rows : undefined;
      },
      'every payment to be minted after its wallet is activated',
      { intervalMs: 50 },
    );
    for (const b of buyers) {
      expect(await tokenBalance(b)).toBe('100.0000000');
      expect(await mintRecords(app, b.userId)).toHaveLength(1);
    }
    await expectAuditClean(app);
  });

  /**
   * The database says active while the ledger has no such account (a restored backup, an
   * operator's edit): the mint is refused with op_no_destination.
   */
  async function paidForWalletTheLedgerLacks(app: TestApp) {
    await supplyTokens(app);
    await ledger.stop();
    const buyer = await createUser(app);
    await ledger.start();
    await app.container.database.db.execute(sql`update wallets set status = 'active' where user_id = ${buyer.userId}`);
    const intent = await paidIntent(app, buyer, 100);
    await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference }).expect(200);
    return { buyer, intent };
  }

  it('fails the payment with the ledger\'s reason once "not yet" refusals reach the limit', async () => {
    const app = await startApp({ ...SWEEP_AT_ONCE, ...SHORT_LEDGER_WAITS });
    await supplyTokens(app);
    const buyer = await createUser(app);
    // The wallet row names an account the ledger will never have (no activation is on its way):
    // every mint to it is refused with op_no_destination.
    const nowhere = Keypair.random().publicKey();
    await app.container.database.db.execute(sql`update wallets set public_key = ${nowhere} where user_id = ${buyer.userId}`);
    const intent = await paidIntent(app, buyer, 100);
    await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference }).expect(200);
    const failed = await sweepUntil(app, intent.reference, 'failed');
    expect(failed).toMatchObject({ failureReason: 'The ledger refused the mint (op_no_destination)', mintNotYetCount: MINT_NOT_YET_LIMIT - 1 });
    const mints = await queryRows<{ status: string }>(app.container.database, sql`select status from ledger_entries where payment_reference = ${intent.reference}`);
    expect(mints).toHaveLength(MINT_NOT_YET_LIMIT);
    expect(mints.every((m) => m.status === 'failed')).toBe(true);
    await app.container.paymentSweep.run();
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'failed' });
    expect(await tokenBalance(buyer)).toBe('0.0000000'); // the real wallet was never paid either
  });

  it('sends a mint the ledger refuses as "not yet" back to paid, and mints it once the wallet is there', async () => {
    const app = await startApp({ ...SWEEP_AT_ONCE, ...SHORT_LEDGER_WAITS });
    const { buyer, intent } = await paidForWalletTheLedgerLacks(app);
    const back = await eventually(
      async () => {
        const row = await paymentRow(app, intent.reference);
        return row && row.mintNotYetCount >= 1 ? row : undefined;
      },
      'the refused mint to send the payment back',
      { intervalMs: 50 },
    );
    expect(back.failureReason).toBeNull();

    // The wallet really is activated now: the next pass mints it, once.
    await app.container.database.db.execute(sql`update wallets set status = 'pending' where user_id = ${buyer.userId}`);
    await eventually(
      async () => {
        await app.container.activation.sweep();
        await app.container.reconciler.run();
        return (await app.container.wallets.findByUserId(buyer.userId))?.status === 'active' ? true : undefined;
      },
      'the wallet to activate',
      { intervalMs: 50 },
    );
    await sweepUntil(app, intent.reference, 'minted');
    expect(await tokenBalance(buyer)).toBe('100.0000000');
    const mints = await queryRows<{ status: string; failure_code: string | null }>(
      app.container.database,
      sql`select status, failure_code from ledger_entries where payment_reference = ${intent.reference} order by created_at`,
    );
    expect(mints.at(-1)).toEqual({ status: 'confirmed', failure_code: null });
    expect(mints.filter((m) => m.status === 'confirmed')).toHaveLength(1);
    expect(mints.slice(0, -1).every((m) => m.status === 'failed' && m.failure_code === 'op_no_destination')).toBe(true);
  });
});

describe('refusals recorded', () => {
  it('records an amount mismatch as failed with its reason, never mints it, and answers every later attempt the same', async () => {
    const app = await startApp(SWEEP_AT_ONCE);
    await supplyTokens(app);
    const buyer = await createUser(app);
    const intent = await paidIntent(app, buyer, 100);
    // The recorded amount differs from what the provider charged (a tampered intent).
    await app.container.database.db.execute(sql`update payments set amount_kobo = 20000 where reference = ${intent.reference}`);
    const first = await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference });
    expect(first.status).toBe(400);
    expect(await paymentRow(app, intent.reference)).toMatchObject({
      status: 'failed',
      failureReason: 'The provider reports 10000 kobo in NGN; the payment was recorded as 20000 kobo in NGN',
      nextCheckAt: null,
    });
    await app.container.paymentSweep.run();
    const again = await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/recorded as 20000 kobo/);
    expect(await mintRecords(app, buyer.userId)).toHaveLength(0);
    await expectAuditClean(app);
  });
});

describe('GET /api/admin/payments', () => {
  it('lists payments newest first, by state, paged, with money as decimal strings', async () => {
    const app = await startApp(SWEEP_AT_ONCE);
    await supplyTokens(app);
    const buyer = await createUser(app);
    const open = await createIntent(app, buyer, 1500.5);
    const paid = await paidIntent(app, buyer, 20);
    await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: paid.reference }).expect(200);
    await paymentBecomes(app, paid.reference, 'minted');
    const admin = await adminToken(app);

    const all = await app.http.get('/api/admin/payments').set(bearer(admin)).expect(200);
    expect(all.headers['x-total-count']).toBe('2');
    expect(all.body.map((p: { reference: string }) => p.reference)).toEqual([paid.reference, open.reference]);
    expect(all.body[1]).toMatchObject({ reference: open.reference, status: 'initialized', amountNaira: '1500.50', currency: 'NGN', tokens: null, userId: buyer.userId });
    expect(all.body[0]).toMatchObject({ status: 'minted', amountNaira: '20.00', tokens: '20.0000000', destinationPublicKey: buyer.ledgerPublicKey });

    const minted = await app.http.get('/api/admin/payments?status=minted&limit=1').set(bearer(admin)).expect(200);
    expect(minted.body).toHaveLength(1);
    expect(minted.headers['x-total-count']).toBe('1');
    const page2 = await app.http.get('/api/admin/payments?limit=1&offset=1').set(bearer(admin)).expect(200);
    expect(page2.body.map((p: { reference: string }) => p.reference)).toEqual([open.reference]);

    const bad = await app.http.get('/api/admin/payments?status=verified').set(bearer(admin));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ message: expect.any(String) });
    await app.http.get('/api/admin/payments').set(bearer(buyer.token)).expect(403);
  });
});
