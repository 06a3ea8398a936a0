import crypto from 'node:crypto';
import { sandboxControlPaths } from '@wallet/paystack-sandbox';
import { sql } from 'drizzle-orm';
import { queryRows } from '../helpers/database-state';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { eventually } from '../helpers/eventually';
import { checkout, createIntent, paidIntent, paymentRow, postWebhook, signedEvent, supplyTokens } from '../helpers/payment-fixtures';
import { withSandboxes } from '../helpers/with-sandboxes';

// The audit's third party: what the provider says was paid, against the payments and their mints.
// The app runs no workers here (no sweep) and the provider sends no webhooks, so a reference paid
// at the provider stays unconsumed until a test verifies it.

// 2.5 tokens per Naira: 30 Naira mint 75 tokens.
const { provider, app } = withSandboxes({ app: { env: { TOKENS_PER_NAIRA: '2.5' } } });
beforeEach(async () => {
  await supplyTokens(app);
});

const verify = (user: CreatedUser, reference: string) => app.http.post('/api/payments/verify-payment').set(bearer(user.token)).send({ reference }).expect(200);

/** Paid at the provider and verified: minted. */
async function purchase(user: CreatedUser, naira: number): Promise<string> {
  const intent = await paidIntent(app, user, naira);
  await verify(user, intent.reference);
  expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'minted' });
  return intent.reference;
}

/** The provider's own API, as another integration on the same account (or the sandbox's controls) would call it. */
const providerApi = (method: 'GET' | 'POST', path: string, body?: unknown) =>
  fetch(`${provider.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${provider.secretKey}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (res) => {
    if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}`);
    return (await res.json()) as { data: Record<string, unknown> };
  });

const tamper = (query: ReturnType<typeof sql>) => app.container.database.db.execute(query);

it('agrees after purchases, an abandoned and a declined checkout, and a refund, counting the provider transactions it compared', async () => {
  const [ada, bola] = [await createUser(app), await createUser(app)];
  await purchase(ada, 30);
  const refunded = await purchase(bola, 12.5);
  await createIntent(app, ada, 7);
  const declined = await createIntent(app, bola, 9);
  await checkout(declined, 'decline');
  await app.http.post('/api/payments/verify-payment').set(bearer(bola.token)).send({ reference: declined.reference });
  expect(await paymentRow(app, declined.reference)).toMatchObject({ status: 'failed', failureReason: null });
  // Refunded after the mint: the provider shows it reversed; until the service hears of it, its tokens are unaccounted for.
  const refund = (await providerApi('POST', '/refund', { transaction: refunded })).data;
  expect((await app.container.audit()).discrepancies).toEqual([expect.stringMatching(new RegExp(`^payment ${refunded}: the provider says reversed, its tokens were minted, and no reversal is recorded`))]);

  // The refund's webhook arrives: the reversal takes the tokens back.
  const event = signedEvent({ event: 'refund.processed', data: { id: String(refund.id), status: 'processed', transaction_reference: refunded, amount: String(refund.amount), currency: 'NGN' } }, provider.secretKey);
  await postWebhook(app, event.body, event.signature).expect(200);
  await eventually(async () => {
    await app.container.webhookInbox.run();
    await app.container.reversals.run();
    await app.container.reconciler.run();
    const [reversal] = await app.container.reversalRepo.listByReference(refunded);
    return reversal?.status === 'done' ? reversal : undefined;
  }, 'the refund to be taken back');
  const audit = await app.container.audit();

  expect(audit.discrepancies).toEqual([]);
  expect(audit.inFlight).toEqual([]);
  // The provider is the file's: earlier tests' transactions may be listed too.
  expect(audit.checked.providerTransactions).toBeGreaterThanOrEqual(4);
  expect(audit.checked.mintedPayments).toBe(1);
});

it('names a reference paid at the provider that the database never consumed, until it is verified', async () => {
  const buyer = await createUser(app);
  const intent = await createIntent(app, buyer, 30);
  // Paid, and the webhook lost: nobody told the service.
  await providerApi('POST', sandboxControlPaths.transactionStatus(intent.reference), { status: 'success', webhook: false });

  const before = await app.container.audit();
  await verify(buyer, intent.reference);
  const after = await app.container.audit();

  expect(before.discrepancies).toEqual([
    `payment ${intent.reference}: paid at the provider, never consumed (provider: success, 30.00 NGN; database: initialized, 30.00 NGN; ledger: no mint)`,
  ]);
  expect(after.discrepancies).toEqual([]);
});

it("names a paid reference with the service's prefix that the database does not have, and ignores another integration's", async () => {
  const buyer = await createUser(app);
  const intent = await paidIntent(app, buyer, 30);
  await tamper(sql`delete from payments where reference = ${intent.reference}`);
  // Another integration on the same provider account: its references are not ours to explain.
  const theirs = await providerApi('POST', '/transaction/initialize', { email: 'shop@example.com', amount: 5000, reference: `shop-${crypto.randomUUID()}` });
  await providerApi('POST', sandboxControlPaths.transactionStatus(String(theirs.data.reference)), { status: 'success' });

  const audit = await app.container.audit();

  expect(audit.discrepancies).toEqual([
    `payment ${intent.reference}: paid at the provider, and the database never issued it (provider: success, 30.00 NGN; database: no such payment; ledger: no mint)`,
  ]);
});

it('names a payment marked minted whose provider transaction was declined', async () => {
  const buyer = await createUser(app);
  const paid = await purchase(buyer, 30);
  const declined = await createIntent(app, buyer, 30);
  await checkout(declined, 'decline');
  // The database credits the first payment's mint to the declined one, and sets the first aside.
  await tamper(sql`
    update payments set (status, tokens_stroops, destination_public_key, mint_tx_hash, paid_at) =
      (select status, tokens_stroops, destination_public_key, mint_tx_hash, paid_at from payments where reference = ${paid})
    where reference = ${declined.reference}`);
  await tamper(sql`update ledger_entries set payment_reference = ${declined.reference} where payment_reference = ${paid}`);
  await tamper(sql`update payments set status = 'failed', failure_reason = 'set aside by the test', mint_tx_hash = null where reference = ${paid}`);
  const hash = (await paymentRow(app, declined.reference))!.mintTxHash!;

  const audit = await app.container.audit();

  expect(audit.discrepancies).toEqual([
    `payment ${declined.reference}: consumed, but the provider says failed (provider: failed, 30.00 NGN; database: minted, 30.00 NGN; ledger: minted 75.0000000 in ${hash})`,
  ]);
});

it('names a minted payment the provider was paid another amount for', async () => {
  const buyer = await createUser(app);
  const reference = await purchase(buyer, 30);
  await tamper(sql`update payments set amount_kobo = 300000 where reference = ${reference}`);

  const audit = await app.container.audit();

  expect(audit.discrepancies).toEqual([expect.stringMatching(new RegExp(`^payment ${reference}: consumed, but the provider was paid another amount \\(provider: success, 30\\.00 NGN; database: minted, 3000\\.00 NGN; `))]);
});

it('names a mint whose reference the provider never saw paid', async () => {
  const buyer = await createUser(app);
  const admin = await adminToken(app);
  const minted = await app.http.post('/api/payments/mint-tokens').set(bearer(admin)).send({ userId: buyer.userId, amount: 75 }).expect(200);
  const hash = (minted.body as { hash: string }).hash;
  // The database dresses the admin's mint as a purchase's: a payment row and a payment_mint entry.
  const reference = `wlt-${crypto.randomUUID()}`;
  await tamper(sql`update ledger_entries set kind = 'payment_mint', payment_reference = ${reference} where kind = 'admin_mint' and ledger_transaction_id = ${hash}`);
  await tamper(sql`
    insert into payments (reference, user_id, amount_kobo, status, tokens_stroops, destination_public_key, mint_tx_hash, paid_at)
    values (${reference}, ${buyer.userId}, 3000, 'minted', 750000000, ${buyer.ledgerPublicKey}, ${hash}, now())`);
  expect(await queryRows(app.container.database, sql`select kind from ledger_entries where payment_reference = ${reference}`)).toEqual([{ kind: 'payment_mint' }]);

  const audit = await app.container.audit();

  expect(audit.discrepancies).toEqual([
    `payment ${reference}: consumed, but the provider does not know the reference (provider: no such reference; database: minted, 30.00 NGN; ledger: minted 75.0000000 in ${hash})`,
  ]);
});

it('calls a consumed payment without its mint in flight at first, and a discrepancy once it has waited past the grace', async () => {
  const buyer = await createUser(app);
  const intent = await paidIntent(app, buyer, 30);
  // Consumed, its mint not written (as while the buyer's wallet is being activated).
  await tamper(sql`update payments set status = 'paid', paid_at = now() where reference = ${intent.reference}`);

  const fresh = await app.container.audit();
  await tamper(sql`update payments set paid_at = now() - interval '1 hour' where reference = ${intent.reference}`);
  const stale = await app.container.audit();

  expect([fresh.inFlight, fresh.discrepancies]).toEqual([[intent.reference], []]);
  expect(stale.inFlight).toEqual([]);
  expect(stale.discrepancies).toEqual([expect.stringMatching(new RegExp(`^payment ${intent.reference}: consumed at \\S+, still not minted \\(provider: success, 30\\.00 NGN; database: paid, 30\\.00 NGN; ledger: no mint\\)$`))]);
});
