import { sandboxControlPaths, type DisputeResolution } from '@wallet/paystack-sandbox';
import { AuthClawbackEnabledFlag, AuthRevocableFlag, Horizon, Operation, TransactionBuilder, type AuthFlag } from '@stellar/stellar-sdk';
import { sql } from 'drizzle-orm';
import type { ReversalRow } from '../../src/db/repositories/reversal.repository';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { bearer, createUser, type CreatedUser } from '../helpers/factories';
import { openJournal } from '../helpers/journal-fixtures';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { mintedPurchase, mintRecords, paidIntent, paymentBecomes, paymentRow, postWebhook, refundAtProvider, supplyTokens } from '../helpers/payment-fixtures';
import { providerControl, relayedProvider } from '../helpers/provider-relay';
import type { RunningProvider } from '../helpers/sandboxes';
import type { TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * Money that goes back to a buyer after the mint (src/domain/payment-lifecycle.ts), with the real
 * provider sandbox refunding and disputing charges and sending its signed webhooks over HTTP, and
 * the ledger sandbox applying clawbacks: each reversal takes its tokens back exactly once, what the
 * wallet no longer holds is a debt that the next purchase settles, a chargeback holds the tokens
 * until it is decided, and the audit finds provider, database and ledger in agreement after each.
 */

const FAST = { PAYMENT_FIRST_CHECK_MS: '0', PAYMENT_CHECK_RETRY_MS: '100', WEBHOOK_RETRY_BASE_MS: '100', LEDGER_RECHECK_MS: '200', RECONCILE_INTERVAL_MS: '200' };

const { ledger, startApp } = withSandboxes({ app: false });

// The provider's webhooks go to whichever app the running test started, through a relay on a real port.
const relay = relayedProvider();
let provider: RunningProvider;
beforeAll(() => {
  provider = relay.provider();
});

async function startWithProvider(): Promise<TestApp> {
  const app = await startApp({ ...FAST, ...provider.env });
  relay.deliverTo(app);
  app.container.start();
  await supplyTokens(app);
  return app;
}

const control = (path: string, body: unknown = {}) => providerControl(provider, path, body);

const refund = (reference: string, amountKobo?: number) => refundAtProvider(provider, reference, amountKobo);
const purchase = mintedPurchase;
const openDispute = async (reference: string) => (await control(sandboxControlPaths.openDispute(reference))).id as number;
const resolveDispute = (id: number, resolution: DisputeResolution) => control(sandboxControlPaths.resolveDispute(id), { resolution });

/** A started app, a buyer who bought `naira` of tokens (minted), and a friend to send them to. */
async function buyerWithPurchase(naira: number) {
  const app = await startWithProvider();
  const buyer = await createUser(app);
  const friend = await createUser(app);
  const reference = await purchase(app, buyer, naira);
  return { app, buyer, friend, reference };
}

/** Works the webhook inbox, as the server's timer does, until the payment is `status`. */
async function inboxUntil(app: TestApp, reference: string, status: string): Promise<void> {
  await eventually(async () => {
    await app.container.webhookInbox.run();
    return (await paymentRow(app, reference))?.status === status ? true : undefined;
  }, `the inbox to make payment ${reference} ${status}`);
}

const balance = (user: CreatedUser) => ledgerBalance(ledger.url, user.ledgerPublicKey);
const reversalsOf = (app: TestApp, reference: string) => app.container.reversalRepo.listByReference(reference);

/** Works the queues as the server's timers do, until every reversal of the payment is done. */
async function reversalsDone(app: TestApp, reference: string, count: number): Promise<ReversalRow[]> {
  return eventually(
    async () => {
      await app.container.webhookInbox.run();
      await app.container.reversals.run();
      await app.container.reconciler.run();
      const rows = await reversalsOf(app, reference);
      return rows.length === count && rows.every((r) => r.status === 'done') ? rows : undefined;
    },
    `${count} reversals of ${reference} to be done`,
    { intervalMs: 50 },
  );
}

async function clawbacks(app: TestApp, userId: string) {
  return queryRows<{ status: string; amount_stroops: string }>(
    app.container.database,
    sql`select status, amount_stroops::text from ledger_entries where kind = 'clawback' and user_id = ${userId} order by created_at`,
  );
}

/** Waits until the journal knows the outcome of every write, so the ledger shows all that was sent. */
/** Backends of the app's database waiting for an advisory lock (the buyer's debt). */
async function debtWaiters(app: TestApp): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    app.container.database,
    sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'`,
  );
  return row?.n ?? 0;
}

async function settled(app: TestApp): Promise<void> {
  await eventually(async () => ((await openJournal(app)) === 0 ? true : undefined), 'the journal to settle', { intervalMs: 100 });
}

async function expectAuditClean(app: TestApp) {
  const audit = await app.container.audit();
  expect(audit.discrepancies).toEqual([]);
}

describe('a refund after the mint', () => {
  it('takes the tokens back with one clawback, whatever the webhook is delivered again', async () => {
    const { app, buyer, reference } = await buyerWithPurchase(1000);
    // A second purchase, not refunded: the wallet keeps tokens a second clawback would take.
    await purchase(app, buyer, 500);
    expect(await balance(buyer)).toBe('1500.0000000');

    await refund(reference);
    const [reversal] = await reversalsDone(app, reference, 1);
    expect(reversal).toMatchObject({ cause: 'refund', amountKobo: 100_000n, tokensStroops: 10_000_000_000n, clawedStroops: 10_000_000_000n, debtStroops: 0n });
    expect(await balance(buyer)).toBe('500.0000000');
    expect(await paymentRow(app, reference)).toMatchObject({ status: 'reversed' });

    // Paystack delivers the same event again (its retries): nothing more is taken.
    const [event] = (await app.container.webhookEvents.listByReference(reference)).filter((e) => e.event === 'refund.processed');
    expect(event).toMatchObject({ status: 'done', outcome: 'reversal recorded' });
    const body = JSON.stringify({ event: 'refund.processed', data: event!.payload });
    const { signPaystackPayload } = await import('@wallet/paystack-sandbox');
    await postWebhook(app, body, signPaystackPayload(body, provider.secretKey)).expect(200);
    await app.container.webhookInbox.run();
    await app.container.reversals.run();
    await settled(app);
    expect(await balance(buyer)).toBe('500.0000000');
    expect(await clawbacks(app, buyer.userId)).toEqual([{ status: 'confirmed', amount_stroops: '10000000000' }]);
    expect(await reversalsOf(app, reference)).toHaveLength(1);
    // The buyer's history shows the tokens taken back, out of their wallet (CONTRACT 12).
    const history = await app.http.get(`/api/ledger/transactions/${buyer.userId}`).set(bearer(buyer.token)).expect(200);
    expect(history.body[0]).toMatchObject({ from: buyer.ledgerPublicKey, assetAmount: 1000, status: 'confirmed', direction: 'out', origin: 'service' });
    await expectAuditClean(app);
  });

  it('takes back each partial refund once, and never more than the purchase', async () => {
    const { app, buyer, reference } = await buyerWithPurchase(1000);
    await refund(reference, 30_000);
    await reversalsDone(app, reference, 1);
    await refund(reference, 20_000);
    const done = await reversalsDone(app, reference, 2);
    expect(done.map((r) => r.clawedStroops)).toEqual([3_000_000_000n, 2_000_000_000n]);
    expect(await balance(buyer)).toBe('500.0000000');
    expect(await paymentRow(app, reference)).toMatchObject({ status: 'reversed' });
    await expectAuditClean(app);
  });
});

describe('a refund after the tokens were spent', () => {
  it('takes back what is left, records the rest as debt, and the next purchases settle it before minting', async () => {
    const { app, buyer, friend, reference } = await buyerWithPurchase(1000);
    await app.http.post('/api/ledger/transfer').set(bearer(buyer.token)).send({ receiverPublicKey: friend.ledgerPublicKey, amount: 600 }).expect(200);

    await refund(reference);
    const [reversal] = await reversalsDone(app, reference, 1);
    expect(reversal).toMatchObject({ clawedStroops: 4_000_000_000n, debtStroops: 6_000_000_000n });
    expect(await balance(buyer)).toBe('0.0000000');
    expect(await balance(friend)).toBe('600.0000000');
    expect((await app.http.get('/metrics').expect(200)).text).toMatch(/^payment_debt_stroops 6000000000$/m);

    // 250 Naira of tokens all go to the debt (350 left): nothing is minted, the purchase is done.
    const small = await purchase(app, buyer, 250);
    expect(await paymentRow(app, small)).toMatchObject({ status: 'minted', tokensStroops: 0n, debtSettledStroops: 2_500_000_000n });
    expect(await balance(buyer)).toBe('0.0000000');
    // 1000 more: 350 settle the rest of the debt, 650 are minted.
    const next = await purchase(app, buyer, 1000);
    expect(await paymentRow(app, next)).toMatchObject({ status: 'minted', tokensStroops: 6_500_000_000n, debtSettledStroops: 3_500_000_000n });
    expect(await balance(buyer)).toBe('650.0000000');
    // Debt settled: the purchase after mints in full.
    const last = await purchase(app, buyer, 100);
    expect(await paymentRow(app, last)).toMatchObject({ tokensStroops: 1_000_000_000n, debtSettledStroops: 0n });
    expect(await balance(buyer)).toBe('750.0000000');
    expect(await mintRecords(app, buyer.userId)).toHaveLength(3);
    const metrics = (await app.http.get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/^payment_debt_stroops 0$/m);
    expect(metrics).toMatch(/^payment_reversals_open_oldest_seconds 0$/m);
    await expectAuditClean(app);
  });

  it('two purchases at once settle one debt once', async () => {
    const { app, buyer, friend, reference } = await buyerWithPurchase(500);
    await app.http.post('/api/ledger/transfer').set(bearer(buyer.token)).send({ receiverPublicKey: friend.ledgerPublicKey, amount: 500 }).expect(200);
    await refund(reference);
    await reversalsDone(app, reference, 1);

    // Two purchases settled at once, made to overlap where it matters: the buyer's debt is held from
    // outside while both are paid and verified (the provider's webhook settles them too), until both
    // settlements wait for it. Without the debt's lock they never wait (and both would settle the
    // whole debt): the wait below never comes.
    const verify = (reference: string) => app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference });
    const [a, b] = await app.container.database.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`debt:${buyer.userId}`}))`);
      const intents = await Promise.all([paidIntent(app, buyer, 300), paidIntent(app, buyer, 300)]);
      void Promise.all(intents.map((intent) => verify(intent.reference)));
      await eventually(async () => ((await debtWaiters(app)) >= 2 ? true : undefined), "both settlements to wait for the buyer's debt", { intervalMs: 50 });
      return intents;
    });
    await paymentBecomes(app, a.reference, 'minted');
    await paymentBecomes(app, b.reference, 'minted');
    const rows = [await paymentRow(app, a.reference), await paymentRow(app, b.reference)];
    expect(rows.reduce((sum, r) => sum + r!.debtSettledStroops!, 0n)).toBe(5_000_000_000n);
    expect(rows.reduce((sum, r) => sum + r!.tokensStroops!, 0n)).toBe(1_000_000_000n);
    expect(await balance(buyer)).toBe('100.0000000');
    await expectAuditClean(app);
  });
});

describe('a chargeback', () => {
  it('holds the tokens while open (transfers may not spend them) and releases them when the merchant wins', async () => {
    const { app, buyer, friend, reference } = await buyerWithPurchase(400);
    const id = await openDispute(reference);
    await inboxUntil(app, reference, 'disputed');

    const [opened] = (await app.container.webhookEvents.listByReference(reference)).filter((e) => e.event === 'charge.dispute.create');
    expect(opened).toMatchObject({ status: 'done', outcome: 'held' });
    const held = await app.http.post('/api/ledger/transfer').set(bearer(buyer.token)).send({ receiverPublicKey: friend.ledgerPublicKey, amount: 1 });
    expect(held.status).toBe(400);
    expect(held.body).toEqual({ error: 'Insufficient balance: 400.0000000 WLT are held while a payment of yours is disputed' });
    expect(await balance(buyer)).toBe('400.0000000');

    await resolveDispute(id, 'declined');
    await inboxUntil(app, reference, 'minted');
    await app.http.post('/api/ledger/transfer').set(bearer(buyer.token)).send({ receiverPublicKey: friend.ledgerPublicKey, amount: 1 }).expect(200);
    expect(await reversalsOf(app, reference)).toEqual([]);
    await expectAuditClean(app);
  });

  it('takes the held tokens back once when the merchant loses', async () => {
    const { app, buyer, reference } = await buyerWithPurchase(400);
    const id = await openDispute(reference);
    await inboxUntil(app, reference, 'disputed');
    await resolveDispute(id, 'merchant-accepted');
    const [reversal] = await reversalsDone(app, reference, 1);
    expect(reversal).toMatchObject({ cause: 'chargeback', clawedStroops: 4_000_000_000n, debtStroops: 0n });
    expect(await paymentRow(app, reference)).toMatchObject({ status: 'reversed' });
    expect(await balance(buyer)).toBe('0.0000000');
    await expectAuditClean(app);
  });
});

describe('a chargeback after a partial refund', () => {
  it('holds nothing (the payment is reversed already: only minted ones are held), and says so', async () => {
    const { app, buyer, reference } = await buyerWithPurchase(200);
    await refund(reference, 10_000);
    await reversalsDone(app, reference, 1);
    await openDispute(reference);
    const opened = await eventually(async () => {
      await app.container.webhookInbox.run();
      const [event] = (await app.container.webhookEvents.listByReference(reference)).filter((e) => e.event === 'charge.dispute.create');
      return event?.status === 'done' ? event : undefined;
    }, 'the dispute event to be worked');
    expect(opened.outcome).toBe('already_reversed');
    expect(await paymentRow(app, reference)).toMatchObject({ status: 'reversed' });
    expect(await app.container.reversalRepo.heldFor(buyer.userId)).toBe(0n);
    await expectAuditClean(app);
  });
});

describe('the issuer and clawback', () => {
  it('enables clawback on the issuer; a wallet whose trustline predates it keeps the tokens and owes them as debt', async () => {
    const app = await startWithProvider();
    const { issuer } = await app.container.ledgerModule.accounts.keys();
    const horizon = new Horizon.Server(ledger.url, { allowHttp: true });
    expect((await horizon.loadAccount(issuer.publicKey())).flags).toMatchObject({ auth_revocable: true, auth_clawback_enabled: true });

    // As on a deployment from before clawback: the issuer without the flags while a wallet trusts the token.
    const setIssuerFlags = async (change: 'setFlags' | 'clearFlags') => {
      const account = await horizon.loadAccount(issuer.publicKey());
      const tx = new TransactionBuilder(account, { fee: '1000', networkPassphrase: app.container.ledgerModule.client.networkPassphrase })
        .addOperation(Operation.setOptions({ [change]: (AuthRevocableFlag | AuthClawbackEnabledFlag) as AuthFlag }))
        .setTimeout(60)
        .build();
      tx.sign(issuer);
      await horizon.submitTransaction(tx);
    };
    await setIssuerFlags('clearFlags');
    const old = await createUser(app);
    await setIssuerFlags('setFlags');
    const recent = await createUser(app);

    const oldPurchase = await purchase(app, old, 300);
    const recentPurchase = await purchase(app, recent, 300);
    await refund(oldPurchase);
    await refund(recentPurchase);
    const [oldReversal] = await reversalsDone(app, oldPurchase, 1);
    const [recentReversal] = await reversalsDone(app, recentPurchase, 1);
    expect(oldReversal).toMatchObject({ clawedStroops: 0n, debtStroops: 3_000_000_000n, note: 'The ledger refused the clawback (op_not_clawback_enabled)' });
    expect(await balance(old)).toBe('300.0000000');
    expect(recentReversal).toMatchObject({ clawedStroops: 3_000_000_000n, debtStroops: 0n });
    expect(await balance(recent)).toBe('0.0000000');
    await expectAuditClean(app);
  });
});
