import crypto from 'node:crypto';
import type { InitializedTransaction } from '../../src/clients/paystack.client';
import type { PaymentRow } from '../../src/db/repositories/payment.repository';
import { payments } from '../../src/db/schema';
import { signPaystackPayload } from '@wallet/paystack-sandbox';
import { eventually } from './eventually';
import { adminToken, bearer, type CreatedUser } from './factories';
import { recordRowsOf } from './journal-fixtures';
import type { TestApp } from './test-app';

/**
 * Gives the distribution account token supply (the admin's create-asset), so payments can be paid
 * out. Asked as an admin's client would, with one Idempotency-Key until it answers 200: a busy
 * machine can make the issue outlast the suite's short ledger deadlines (202: under way, asked
 * again it answers the same entry; 503: nothing was moved, asked again it runs for real).
 */
export async function supplyTokens(app: TestApp, tokens = '1000000'): Promise<void> {
  const admin = await adminToken(app);
  const key = `supply-${crypto.randomUUID()}`;
  const issued = await eventually(
    async () => {
      const res = await app.http.post('/api/ledger/create-asset').set(bearer(admin)).set('Idempotency-Key', key).send({ assetCode: 'WLT', amount: tokens });
      if (res.status === 202 || res.status === 503) return undefined;
      return res;
    },
    'the supply to be issued',
    { intervalMs: 150 },
  );
  expect(issued.status).toBe(200);
}

/** create-payment-intent as the user; fails the test unless it answers 200. */
export async function createIntent(app: TestApp, user: CreatedUser, amount: number): Promise<InitializedTransaction> {
  const res = await app.http.post('/api/payments/create-payment-intent').set(bearer(user.token)).send({ amount });
  if (res.status !== 200) throw new Error(`create-payment-intent answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as InitializedTransaction;
}

export type CheckoutAction = 'pay' | 'decline' | 'cancel';

/** Presses a button of the provider's checkout page, as the buyer's browser would; returns where it redirects. */
export async function checkout(intent: InitializedTransaction, action: CheckoutAction): Promise<URL> {
  const res = await fetch(`${intent.authorization_url}/${action}`, { method: 'POST', redirect: 'manual' });
  if (res.status !== 303) throw new Error(`checkout ${action} answered ${res.status}`);
  await res.body?.cancel();
  return new URL(res.headers.get('location')!);
}

/** An intent the buyer has paid at the provider; nothing is verified yet. */
export async function paidIntent(app: TestApp, user: CreatedUser, amount: number): Promise<InitializedTransaction> {
  const intent = await createIntent(app, user, amount);
  await checkout(intent, 'pay');
  return intent;
}

export async function paymentRow(app: TestApp, reference: string): Promise<PaymentRow | undefined> {
  return app.container.payments.find(reference);
}

/** The user's transaction records of a mint (a payment's or an admin's). */
export async function mintRecords(app: TestApp, userId: string) {
  return (await recordRowsOf(app, userId)).filter((t) => t.kind === 'payment_mint' || t.kind === 'admin_mint');
}

/** Waits until the payment reaches `status`. */
export async function paymentBecomes(app: TestApp, reference: string, status: PaymentRow['status']): Promise<PaymentRow> {
  return eventually(async () => {
    const row = await paymentRow(app, reference);
    return row?.status === status ? row : undefined;
  }, `payment ${reference} to become ${status}`);
}

/** A Paystack event as the provider would post it: the exact body bytes and their signature. */
export function signedEvent(event: unknown, secretKey: string): { body: string; signature: string } {
  const body = JSON.stringify(event);
  return { body, signature: signPaystackPayload(body, secretKey) };
}

/** The `charge.success` event for a reference, in the provider's shape (only what the service reads). */
export function chargeSuccess(reference: string, amountKobo: number): unknown {
  return { event: 'charge.success', data: { status: 'success', reference, amount: amountKobo, currency: 'NGN' } };
}

/** Posts raw bytes to the webhook, as the provider does. */
export function postWebhook(app: TestApp, body: string, signature?: string) {
  const req = app.http.post('/api/payments/webhook').set('Content-Type', 'application/json');
  if (signature !== undefined) req.set('x-paystack-signature', signature);
  return req.send(body);
}

/** Every payment row, straight from the database. */
export async function allPayments(app: TestApp): Promise<PaymentRow[]> {
  return app.container.database.db.select().from(payments);
}

/** A purchase paid at the provider and verified as the buyer's browser does, waited for until minted; its reference. */
export async function mintedPurchase(app: TestApp, buyer: CreatedUser, naira: number): Promise<string> {
  const intent = await createIntent(app, buyer, naira);
  await checkout(intent, 'pay');
  await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference }).expect(200);
  await paymentBecomes(app, intent.reference, 'minted');
  return intent.reference;
}

/** The merchant refunds a charge (all of it, or `amountKobo`) through the provider's API, as from its dashboard; the refund's data. */
export async function refundAtProvider(provider: { url: string; secretKey: string }, reference: string, amountKobo?: number): Promise<Record<string, unknown>> {
  const res = await fetch(`${provider.url}/refund`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${provider.secretKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ transaction: reference, ...(amountKobo === undefined ? {} : { amount: amountKobo }) }),
  });
  const json = (await res.json()) as { data: Record<string, unknown> };
  if (!res.ok) throw new Error(`refund answered ${res.status}: ${JSON.stringify(json)}`);
  return json.data;
}
