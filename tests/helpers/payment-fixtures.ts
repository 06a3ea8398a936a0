import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InitializedTransaction } from '../../src/clients/paystack.client';
import type { Container } from '../../src/container';
import type { DatabaseHandle } from '../../src/db/client';
import type { PaymentRow } from '../../src/db/repositories/payment.repository';
import { sql } from 'drizzle-orm';
import { ledgerEnvelopes, payments } from '../../src/db/schema';
import { signPaystackPayload } from '@wallet/paystack-sandbox';
import { adminToken, bearer, type CreatedUser } from './factories';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app';

export type PaymentsAppOptions = TestAppOptions;

/**
 * Like startTestApp, but reaches the container options the environment cannot set, and can build
 * an app on the database as another process left it (no reset), as after a restart.
 */
export function startPaymentsApp(env: Record<string, string> = {}, options: PaymentsAppOptions = {}): Promise<TestApp> {
  return startTestApp(env, 'silent', options);
}

/** Gives the distribution account token supply (the admin's create-asset), so payments can be paid out. */
export async function supplyTokens(app: TestApp, tokens = '1000000'): Promise<void> {
  const admin = await adminToken(app);
  await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: tokens }).expect(200);
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
  const { items } = await app.container.ledger.listForUser(userId, 1000, 0);
  return items.filter((t) => t.kind === 'payment_mint' || t.kind === 'admin_mint');
}

/** Waits (bounded) until the payment reaches `status`. */
export async function paymentBecomes(app: TestApp, reference: string, status: PaymentRow['status'], timeoutMs = 10_000): Promise<PaymentRow> {
  return eventually(async () => {
    const row = await paymentRow(app, reference);
    return row?.status === status ? row : undefined;
  }, `payment ${reference} to become ${status}`, timeoutMs);
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

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** An envelope as a process that died around its submission left it in the journal. */
export interface CrashedEnvelope {
  envelopeId: string;
  hash: string;
  envelopeXdr: string;
}

/**
 * Simulates a process that dies right after storing a mint envelope in the journal: `before-send`
 * never hands it to Horizon (it stays pending); `after-send` submits it (the ledger applies it)
 * and dies before hearing the answer (it stays submitted). Envelopes of other kinds pass untouched.
 */
export function crashAroundSending(container: Container, when: 'before-send' | 'after-send'): { crashed: CrashedEnvelope[]; restore(): void } {
  const sender = container.journal.sender;
  const send = sender.send.bind(sender);
  const crashed: CrashedEnvelope[] = [];
  sender.send = async (envelopeId, tx, facts) => {
    const entries = await container.journal.repository.entriesOf(envelopeId);
    if (!entries.some((e) => e.kind === 'payment_mint')) return send(envelopeId, tx, facts);
    crashed.push({ envelopeId, hash: facts.hash, envelopeXdr: tx.toEnvelope().toXDR('base64') });
    if (when === 'after-send') {
      await container.journal.repository.markSubmitted(envelopeId);
      await container.journal.client.submit(tx);
    }
    throw new Error(`simulated crash ${when}`);
  };
  return {
    crashed,
    restore: () => {
      sender.send = send;
    },
  };
}

/** Ends every lease at once: what the passing of LEDGER_LEASE_MS after a crash looks like to the reconciler. */
export async function expireLeases(app: TestApp | DatabaseHandle): Promise<void> {
  const db = 'container' in app ? app.container.database.db : app.db;
  await db.execute(sql`update ledger_envelopes set next_check_at = now() where status in ('pending', 'submitted')`);
  await db.execute(sql`update ledger_entries set lease_until = now() where status in ('pending', 'submitted')`);
}

export type ProviderFrontMode = 'forward' | 'down' | 'hang' | 'malformed' | 'error' | 'amount-differs';

export interface ProviderFront {
  url: string;
  env: Record<string, string>;
  /**
   * forward: a transparent proxy; down: the port is closed; hang: never answers; malformed: 200 with
   * broken JSON; error: 500; amount-differs: verify answers carry one kobo less than was charged.
   */
  setMode(mode: ProviderFrontMode): Promise<void>;
  close(): Promise<void>;
}

/**
 * A switchable front for the provider sandbox: the service's PAYSTACK_BASE_URL points here, and
 * each mode plays one way the real provider fails. The checkout links the sandbox hands out point
 * at the sandbox itself (the proxy sends the upstream Host), so the buyer's side is unaffected.
 */
export async function startProviderFront(upstreamUrl: string, secretKey: string): Promise<ProviderFront> {
  let mode: ProviderFrontMode = 'forward';
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (mode === 'hang') return;
    if (mode === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status": true, "data": {"reference": ');
      return;
    }
    if (mode === 'error') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"status":false,"message":"Internal error"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${upstreamUrl}${req.url}`, {
        method: req.method,
        headers: { authorization: req.headers.authorization ?? '', 'content-type': req.headers['content-type'] ?? 'application/json' },
        body,
      })
        .then(async (upstream) => {
          let answer = Buffer.from(await upstream.arrayBuffer());
          if (mode === 'amount-differs' && req.url?.startsWith('/transaction/verify/')) {
            const json = JSON.parse(answer.toString('utf8')) as { data: { amount: number } };
            json.data.amount -= 1;
            answer = Buffer.from(JSON.stringify(json));
          }
          res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
          res.end(answer);
        })
        .catch(() => res.writeHead(502).end());
    });
  };
  let server: Server = http.createServer(handler);
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    env: { PAYSTACK_SECRET_KEY: secretKey, PAYSTACK_BASE_URL: url },
    async setMode(next) {
      // Leaving a mode drops whatever it held open (hung requests, a closed port).
      await stop();
      mode = next;
      if (next !== 'down') {
        server = http.createServer(handler);
        await listen(port);
      }
    },
    close: stop,
  };
}

/** Every payment row, straight from the database. */
export async function allPayments(app: TestApp): Promise<PaymentRow[]> {
  return app.container.database.db.select().from(payments);
}

/** Every envelope in the journal, straight from the database. */
export async function allEnvelopes(app: TestApp) {
  return app.container.database.db.select().from(ledgerEnvelopes);
}
