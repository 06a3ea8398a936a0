import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { EventDraft, EventType } from '../../src/domain/events';
import { queryRows } from '../helpers/database-state';
import { testDatabaseUrl } from '../helpers/database';
import { eventually } from '../helpers/eventually';
import { verifies } from '../helpers/webhook-signatures';
import { adminToken, bearer, createUser } from '../helpers/factories';
import { answer, hang, startFakeServer, type Behaviour, type FakeServer, type ReceivedRequest } from '../helpers/fake-server';
import { fundedUser } from '../helpers/ledger-fixtures';
import { checkout, createIntent, paymentBecomes, supplyTokens } from '../helpers/payment-fixtures';
import { relayedProvider } from '../helpers/provider-relay';
import { serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../helpers/service-process';
import { startAppKeepingData, startTestApp, testDatabase, type TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';
import { FAST_CASH_OUT, paidWithdrawal } from '../helpers/withdrawal-fixtures';

/**
 * Webhooks across processes (CONTRACT.md section 13, src/events/delivery-queue.ts): the events of
 * real flows (a transfer received, a verified purchase, a paid withdrawal) reach a registered
 * endpoint once each; two service processes on one database share the deliveries and make each
 * once; a process killed with SIGKILL while its attempt is open leaves the job to the queue, and
 * another process delivers it again under the same webhook-id, so an event is never lost. The
 * receiver is a real HTTP server and every signature is checked with `standardwebhooks` against
 * the raw body received.
 */

const relay = relayedProvider();
const { ledger, provider, startApp } = withSandboxes({ app: false });

/**
 * Every app of the file: a job whose heartbeat stops is given to another process after 10 s (the
 * least pg-boss takes), looked for every second; failed attempts retried after a second.
 */
const QUEUE_ENV = { WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_QUEUE_MONITOR_SECONDS: '1', WEBHOOK_JOB_HEARTBEAT_SECONDS: '10' };
const HEARD: EventType[] = ['wallet.credited', 'payment.minted', 'withdrawal.paid'];

let receiver: FakeServer;
let ownApps: TestApp[] = [];
let processes: ServiceProcess[] = [];

beforeAll(async () => {
  receiver = await startFakeServer(answer(204));
});

afterAll(async () => {
  await receiver.close();
});

afterEach(async () => {
  await Promise.all(processes.map((p) => p.kill('SIGKILL')));
  processes = [];
  await Promise.all(ownApps.map((a) => a.close()));
  ownApps = [];
  await receiver.behave(answer(204));
  receiver.requests.length = 0;
});

interface Endpoint {
  endpointId: string;
  secret: string;
}

interface StoredEvent {
  id: string;
  type: EventType;
  user_id: string;
  data: Record<string, unknown>;
}

interface Delivery {
  eventId: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
}

async function register(app: TestApp, admin: string, eventTypes?: EventType[]): Promise<Endpoint> {
  const res = await app.http.post('/api/admin/webhook-endpoints').set(bearer(admin)).send({ url: `${receiver.url}/hooks`, ...(eventTypes ? { eventTypes } : {}) }).expect(201);
  return res.body as Endpoint;
}

async function deliveriesPage(app: TestApp, admin: string, endpointId: string): Promise<Delivery[]> {
  return (await app.http.get(`/api/admin/webhook-endpoints/${endpointId}/deliveries?limit=1000`).set(bearer(admin)).expect(200)).body as Delivery[];
}

/** Every event of the database, oldest first (a transaction's events by each user's seq), straight from the table. */
async function storedEvents(): Promise<StoredEvent[]> {
  return queryRows<StoredEvent>(await testDatabase(), sql`select id::text as id, type, user_id::text as user_id, data from events order by created_at, user_id, seq`);
}

/** Waits until the endpoint's deliveries page shows one delivery per event in `expected`, each delivered; returns the page. */
async function allDelivered(app: TestApp, admin: string, endpointId: string, expected: readonly string[]): Promise<Delivery[]> {
  return eventually(async () => {
    const page = await deliveriesPage(app, admin, endpointId);
    const ids = page.map((d) => d.eventId).sort();
    const done = page.every((d) => d.status === 'delivered') && JSON.stringify(ids) === JSON.stringify([...expected].sort());
    return done ? page : undefined;
  }, `the ${expected.length} deliveries of endpoint ${endpointId} to be delivered`);
}

const webhookIdOf = (request: ReceivedRequest) => String(request.headers['webhook-id']);
const requestsFor = (eventId: string) => receiver.requests.filter((r) => webhookIdOf(r) === eventId);

/**
 * After a real flow: every event of a type the endpoint hears arrived once, signed, with that
 * event as its body; no event of another type arrived; and nothing else did. Returns the heard events.
 */
async function expectEachHeardEventOnce(app: TestApp, admin: string, endpoint: Endpoint): Promise<StoredEvent[]> {
  const events = await storedEvents();
  const heard = events.filter((e) => HEARD.includes(e.type));
  await allDelivered(app, admin, endpoint.endpointId, heard.map((e) => e.id));
  for (const event of heard) {
    const received = requestsFor(event.id);
    expect({ event: event.id, type: event.type, requests: received.length }).toEqual({ event: event.id, type: event.type, requests: 1 });
    expect(verifies(received[0]!, endpoint.secret)).toBe(true);
    expect(JSON.parse(received[0]!.body.toString('utf8'))).toEqual({ id: event.id, seq: expect.any(Number), type: event.type, userId: event.user_id, timestamp: expect.any(String), data: event.data });
  }
  for (const unheard of events.filter((e) => !HEARD.includes(e.type))) expect({ event: unheard.id, type: unheard.type, requests: requestsFor(unheard.id).length }).toEqual({ event: unheard.id, type: unheard.type, requests: 0 });
  expect(receiver.requests).toHaveLength(heard.length);
  return heard;
}

describe('the events of real flows, delivered to an endpoint that hears wallet.credited, payment.minted and withdrawal.paid', () => {
  it('delivers the credit of a transfer received once, signed over the raw body; the sender’s debit is not heard', async () => {
    const app = await startApp(QUEUE_ENV);
    const admin = await adminToken(app);
    const endpoint = await register(app, admin, HEARD);
    await app.container.deliverWebhooks();
    const alice = await fundedUser(app, 50);
    const bob = await createUser(app);

    await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', crypto.randomUUID()).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 12.5 }).expect(200);

    const heard = await expectEachHeardEventOnce(app, admin, endpoint);
    // Alice's mint and Bob's transfer received; Alice's debit was written and never sent.
    expect(heard.map((e) => [e.type, e.user_id])).toEqual([
      ['wallet.credited', alice.userId],
      ['wallet.credited', bob.userId],
    ]);
    expect(heard[1]!.data).toMatchObject({ from: alice.ledgerPublicKey, to: bob.ledgerPublicKey, amount: '12.5000000' });
    expect((await storedEvents()).filter((e) => e.type === 'wallet.debited').map((e) => e.user_id)).toEqual([alice.userId]);
  });

  it('delivers the payment.minted of a verified purchase once, and its wallet.credited once', async () => {
    const app = await startApp(QUEUE_ENV);
    const admin = await adminToken(app);
    const endpoint = await register(app, admin, HEARD);
    await app.container.deliverWebhooks();
    await supplyTokens(app);
    const buyer = await createUser(app);
    const intent = await createIntent(app, buyer, 30);
    await checkout(intent, 'pay');

    await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference }).expect(200);
    await paymentBecomes(app, intent.reference, 'minted');

    const heard = await expectEachHeardEventOnce(app, admin, endpoint);
    expect(heard.filter((e) => e.user_id === buyer.userId).map((e) => e.type)).toEqual(['payment.minted', 'wallet.credited']);
    expect(heard.find((e) => e.type === 'payment.minted')!.data).toMatchObject({ reference: intent.reference, amountNaira: '30.00' });
  });

  it('delivers the withdrawal.paid of a paid withdrawal once; its withdrawal.debited and wallet.debited are not heard', async () => {
    const cashier = relay.provider();
    const app = await startApp({ ...QUEUE_ENV, ...FAST_CASH_OUT, ...cashier.env });
    relay.deliverTo(app);
    const admin = await adminToken(app);
    const endpoint = await register(app, admin, HEARD);
    // The background work a withdrawal needs, deliveries among it.
    app.container.start();
    const { id } = await paidWithdrawal(app, cashier);

    const heard = await expectEachHeardEventOnce(app, admin, endpoint);
    expect(heard.map((e) => e.type)).toEqual(['wallet.credited', 'withdrawal.paid']);
    expect(heard[1]!.data).toMatchObject({ withdrawalId: id, amountNaira: '250.50', status: 'paid' });
    const unheard = (await storedEvents()).filter((e) => !HEARD.includes(e.type)).map((e) => e.type);
    expect(unheard.sort()).toEqual(['wallet.debited', 'withdrawal.debited']);
  });
});

/** `count` payment.minted events of as many users, appended in one transaction through the service's outbox, as a change appends them. */
async function publish(app: TestApp, count: number): Promise<void> {
  const drafts: EventDraft[] = Array.from({ length: count }, (_, i) => ({
    userId: crypto.randomUUID(),
    type: 'payment.minted',
    data: { reference: `across-${i}-${crypto.randomUUID().slice(0, 8)}`, amountNaira: '100.00', tokens: '100.0000000', reason: null },
  }));
  const { db } = await testDatabase();
  await db.transaction((tx) => app.container.outbox.append(tx, drafts));
}

/** The event ids an app logged as delivered ('webhook delivered', at info). */
function deliveredBy(app: TestApp): string[] {
  return app.logs
    .join('')
    .split('\n')
    .filter((line) => line.includes('"webhook delivered"'))
    .map((line) => (JSON.parse(line) as { event: string }).event);
}

/**
 * Holds the first request open until a second one is open beside it, then answers both, and every
 * later one at once. With one delivery at a time per process, two open at once are two processes'.
 */
function answeredOnceTwoAreOpen(): Behaviour {
  const held: ((status: number) => void)[] = [];
  let open = false;
  return (_req, res) => {
    if (open) return void res.writeHead(200).end();
    held.push((status) => res.writeHead(status).end());
    if (held.length < 2) return;
    open = true;
    for (const release of held.splice(0)) release(200);
  };
}

describe('two service processes on one database', () => {
  it('deliver each of 30 events once to the endpoint, and both take some', async () => {
    // One delivery at a time each, and an attempt that waits out the held first request.
    const env = { ...QUEUE_ENV, WEBHOOK_DELIVERY_CONCURRENCY: '1', WEBHOOK_TIMEOUT_MS: '60000' };
    const first = await startTestApp(env, 'info');
    ownApps.push(first);
    const second = await startAppKeepingData(env, 'info');
    ownApps.push(second);
    const admin = await adminToken(first);
    const endpoint = await register(first, admin, ['payment.minted']);
    await receiver.behave(answeredOnceTwoAreOpen());
    await first.container.deliverWebhooks();
    await second.container.deliverWebhooks();

    await publish(first, 30);

    const events = await storedEvents();
    expect(events).toHaveLength(30);
    const page = await allDelivered(second, admin, endpoint.endpointId, events.map((e) => e.id));
    expect(page.map((d) => [d.attempts, d.lastStatus])).toEqual(events.map(() => [1, 200]));
    for (const event of events) expect({ event: event.id, requests: requestsFor(event.id).length }).toEqual({ event: event.id, requests: 1 });
    expect(receiver.requests).toHaveLength(30);
    expect(receiver.requests.every((r) => verifies(r, endpoint.secret))).toBe(true);
    // Each delivery recorded by the one process that made it, and both made some.
    const byFirst = deliveredBy(first);
    const bySecond = deliveredBy(second);
    expect(byFirst.length).toBeGreaterThan(0);
    expect(bySecond.length).toBeGreaterThan(0);
    expect([...byFirst, ...bySecond].sort()).toEqual(events.map((e) => e.id).sort());
  });
});

describe('a service process killed with SIGKILL while its attempt is open', () => {
  it('leaves the delivery to another process, which sends the same webhook-id again and records it delivered', async () => {
    // This app registers and publishes; it takes no delivery until the service process is dead.
    const app = await startApp(QUEUE_ENV);
    const admin = await adminToken(app);
    const endpoint = await register(app, admin, ['payment.minted']);
    await receiver.behave(hang);
    // The attempt's own deadline outlasts the test's wait: only the kill ends it.
    const service = await startServiceProcess(serviceProcessEnv(await testDatabaseUrl(), { ...ledger.env, ...provider.env, ...QUEUE_ENV, WEBHOOK_TIMEOUT_MS: '60000' }));
    processes.push(service);

    await publish(app, 1);
    const [event] = await storedEvents();
    const held = await eventually(async () => requestsFor(event!.id)[0], 'the service process to post the delivery');
    expect(held.fate).toBe('open');
    expect(verifies(held, endpoint.secret)).toBe(true);
    const end = await service.kill('SIGKILL');
    expect(end.signal).toBe('SIGKILL');
    // The process died holding the request, and recorded nothing of it.
    await eventually(async () => (held.fate === 'abandoned' ? true : undefined), 'the open request to be given up by the dead process');
    expect((await deliveriesPage(app, admin, endpoint.endpointId)).map((d) => [d.eventId, d.status, d.attempts])).toEqual([[event!.id, 'pending', 0]]);

    await receiver.behave(answer(200));
    await app.container.deliverWebhooks();

    const [delivery] = await allDelivered(app, admin, endpoint.endpointId, [event!.id]);
    expect([delivery!.status, delivery!.lastStatus]).toEqual(['delivered', 200]);
    const received = requestsFor(event!.id);
    expect(received.length).toBeGreaterThanOrEqual(2);
    expect(received[0]).toBe(held);
    const last = received.at(-1)!;
    expect(last.fate).toBe('answered');
    expect(last.body.equals(held.body)).toBe(true);
    expect(verifies(last, endpoint.secret)).toBe(true);
    expect(receiver.requests.every((r) => webhookIdOf(r) === event!.id)).toBe(true);
  });
});
