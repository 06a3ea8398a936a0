import crypto from 'node:crypto';
import type { EventDraft } from '../../src/domain/events';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { verifies } from '../helpers/webhook-signatures';
import { answer, hang, startFakeServer, type FakeServer, type ReceivedRequest } from '../helpers/fake-server';
import { startTestApp, testDatabase, type TestApp } from '../helpers/test-app';
import { sql } from 'drizzle-orm';

// Webhooks (CONTRACT.md section 13): admins register endpoints; each event is delivered to each
// endpoint that hears its type, signed per Standard Webhooks, through the pg-boss job queue, at
// least once, with the same webhook-id on every retry. The receiver is a real HTTP server here and
// every signature is checked with the `standardwebhooks` library against the raw body received.

let app: TestApp;
let admin: string;
let user: CreatedUser;
let receiver: FakeServer;

beforeAll(async () => {
  app = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_QUEUE_MONITOR_SECONDS: '1' });
  admin = await adminToken(app);
  user = await createUser(app);
  receiver = await startFakeServer(answer(204));
  await app.container.deliverWebhooks();
});

afterAll(async () => {
  await receiver.close();
  await app.close();
});

beforeEach(async () => {
  await receiver.behave(answer(204));
  receiver.requests.length = 0;
  // Every endpoint of an earlier test goes, so each test hears only its own.
  const listed = await app.http.get('/api/admin/webhook-endpoints').set(bearer(admin)).expect(200);
  for (const e of listed.body as { endpointId: string }[]) await app.http.delete(`/api/admin/webhook-endpoints/${e.endpointId}`).set(bearer(admin)).expect(200);
});

async function register(body: Record<string, unknown> = {}): Promise<{ endpointId: string; secret: string }> {
  const res = await app.http.post('/api/admin/webhook-endpoints').set(bearer(admin)).send({ url: `${receiver.url}/hooks`, ...body }).expect(201);
  return res.body;
}

/** An event for the test's user, written through the service's own outbox in a transaction, as every change writes its events. */
async function publish(reference = `ref-${crypto.randomUUID().slice(0, 8)}`, type: 'payment.minted' | 'payment.failed' = 'payment.minted'): Promise<string> {
  const draft: EventDraft = { userId: user.userId, type, data: { reference, amountNaira: '100.00', tokens: type === 'payment.minted' ? '100.0000000' : null, reason: null } };
  const { db } = await testDatabase();
  await db.transaction((tx) => app.container.outbox.append(tx, [draft]));
  return reference;
}

/** The requests received for `reference`, each checked against the secret(s) given: one must verify. */
function deliveriesOf(reference: string): ReceivedRequest[] {
  return receiver.requests.filter((r) => r.body.toString('utf8').includes(`"reference":"${reference}"`));
}

describe('registering an endpoint', () => {
  it('answers the whsec_ secret once; the list never shows it; every action is in the admin log', async () => {
    const created = await register({ url: `${receiver.url}/hooks?token=receiver-token-123`, eventTypes: ['payment.minted'] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const listed = await app.http.get('/api/admin/webhook-endpoints').set(bearer(admin)).expect(200);
    expect(listed.body).toEqual([{ endpointId: created.endpointId, url: `${receiver.url}/hooks?token=receiver-token-123`, eventTypes: ['payment.minted'], createdAt: expect.any(String), failingSince: null }]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    const rotated = await app.http.post(`/api/admin/webhook-endpoints/${created.endpointId}/rotate-secret`).set(bearer(admin)).expect(200);
    expect(rotated.body.secret).not.toEqual(created.secret);
    const log = await queryRows<{ action: string; details: unknown }>(await testDatabase(), sql`select action, details from admin_log where target = ${created.endpointId} order by seq`);
    expect(log.map((l) => l.action)).toEqual(['webhook.endpoint_created', 'webhook.secret_rotated']);
    expect(JSON.stringify(log)).not.toContain('whsec_');
    // A token in the URL's query is the receiver's secret: the log keeps the URL without it.
    expect(JSON.stringify(log)).not.toContain('receiver-token-123');
    expect(log[0]!.details).toEqual({ url: `${receiver.url}/hooks`, eventTypes: ['payment.minted'] });
    const stored = await queryRows<{ secret_ciphertext: string }>(await testDatabase(), sql`select secret_ciphertext from webhook_endpoints where id = ${created.endpointId}`);
    expect(stored[0]!.secret_ciphertext).not.toContain(rotated.body.secret.slice(6));
  });

  it('refuses bad input with a 400 in the admin shape and changes nothing', async () => {
    const bad = [
      { url: 'not a url' },
      { url: 'ftp://127.0.0.1/x' },
      { url: 'http://10.0.0.8/hooks' },
      { url: 'https://169.254.169.254/latest/meta-data' },
      { url: 'http://192.168.1.5/' },
      { url: 'http://user:pw@127.0.0.1/' },
      { url: 'http://example.com/plain-http' },
      { url: `${receiver.url}/x`, eventTypes: ['wallet.stolen'] },
      { url: `${receiver.url}/x`, eventTypes: [] },
      { url: `${receiver.url}/x`, other: 1 },
    ];
    for (const body of bad) {
      const res = await app.http.post('/api/admin/webhook-endpoints').set(bearer(admin)).send(body);
      expect([body, res.status]).toEqual([body, 400]);
      expect(res.body).toEqual(expect.objectContaining({ message: expect.any(String) }));
    }
    expect((await app.http.get('/api/admin/webhook-endpoints').set(bearer(admin)).expect(200)).body).toEqual([]);
    const unknown = crypto.randomUUID();
    await app.http.post(`/api/admin/webhook-endpoints/${unknown}/rotate-secret`).set(bearer(admin)).expect(404);
    await app.http.post(`/api/admin/webhook-endpoints/${unknown}/replay`).set(bearer(admin)).send({ since: new Date().toISOString() }).expect(404);
    await app.http.post(`/api/admin/webhook-endpoints/not-a-uuid/replay`).set(bearer(admin)).send({ since: new Date().toISOString() }).expect(400);
    await app.http.get(`/api/admin/webhook-endpoints/${unknown}/deliveries`).set(bearer(admin)).expect(404);
    await app.http.delete(`/api/admin/webhook-endpoints/${unknown}`).set(bearer(admin)).expect(404);
    await app.http.post('/api/admin/webhook-endpoints').set(bearer(user.token)).send({ url: `${receiver.url}/x` }).expect(403);
  });
});

describe('deliveries', () => {
  it('delivers each event once, signed over the raw body, to the endpoints that hear its type', async () => {
    const all = await register();
    const mintsOnly = await register({ eventTypes: ['payment.minted'] });
    const minted = await publish(undefined, 'payment.minted');
    const failed = await publish(undefined, 'payment.failed');
    await eventually(async () => (deliveriesOf(minted).length >= 2 && deliveriesOf(failed).length >= 1 ? true : undefined), 'the three deliveries');
    // Each endpoint's delivery verifies with that endpoint's secret alone.
    const mintDeliveries = deliveriesOf(minted);
    expect(mintDeliveries).toHaveLength(2);
    expect(mintDeliveries.filter((r) => verifies(r, all.secret))).toHaveLength(1);
    expect(mintDeliveries.filter((r) => verifies(r, mintsOnly.secret))).toHaveLength(1);
    expect(deliveriesOf(failed)).toHaveLength(1);
    expect(verifies(deliveriesOf(failed)[0]!, all.secret)).toBe(true);
    const body = JSON.parse(mintDeliveries[0]!.body.toString('utf8'));
    expect(body).toEqual({ id: mintDeliveries[0]!.headers['webhook-id'], seq: expect.any(Number), type: 'payment.minted', userId: user.userId, timestamp: expect.any(String), data: expect.objectContaining({ reference: minted }) });
    expect(mintDeliveries[0]!.headers['content-type']).toBe('application/json');
    // Each attempt is recorded once its receiver answered: wait for both records.
    const page = await eventually(async () => {
      const res = await app.http.get(`/api/admin/webhook-endpoints/${all.endpointId}/deliveries`).set(bearer(admin)).expect(200);
      return res.body.length === 2 && res.body.every((d: { status: string }) => d.status !== 'pending') ? res : undefined;
    }, 'both deliveries recorded');
    expect(page.headers['x-total-count']).toBe('2');
    expect(page.body.map((d: { status: string; attempts: number; lastStatus: number }) => [d.status, d.attempts, d.lastStatus])).toEqual([
      ['delivered', 1, 204],
      ['delivered', 1, 204],
    ]);
  });

  it('retries an attempt answered 500 with the same webhook-id and a valid signature', async () => {
    const endpoint = await register();
    let calls = 0;
    await receiver.behave((_req, res) => {
      calls += 1;
      res.writeHead(calls === 1 ? 500 : 200).end();
    });
    const reference = await publish();
    await eventually(async () => (deliveriesOf(reference).length >= 2 ? true : undefined), 'the retry after the 500');
    const [first, second] = deliveriesOf(reference);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body.equals(first!.body)).toBe(true);
    expect([verifies(first!, endpoint.secret), verifies(second!, endpoint.secret)]).toEqual([true, true]);
    // The attempt is recorded once the receiver has answered: wait for the record, then read it whole.
    const delivery = await eventually(async () => {
      const [d] = (await app.http.get(`/api/admin/webhook-endpoints/${endpoint.endpointId}/deliveries`).set(bearer(admin)).expect(200)).body;
      return d?.status === 'pending' ? undefined : d;
    }, 'the second attempt recorded');
    expect([delivery.status, delivery.attempts, delivery.lastStatus]).toEqual(['delivered', 2, 200]);
  });

  it('marks a delivery failed once every retry is spent, and the endpoint failing; a replay sends it again and a success clears the mark', async () => {
    const endpoint = await register();
    await receiver.behave(answer(503));
    const reference = await publish();
    // One attempt, then the three retries of WEBHOOK_RETRY_SCHEDULE=1,1,1.
    await eventually(async () => {
      const [d] = (await app.http.get(`/api/admin/webhook-endpoints/${endpoint.endpointId}/deliveries`).set(bearer(admin))).body;
      return d?.status === 'failed' ? d : undefined;
    }, 'the delivery out of retries');
    expect(deliveriesOf(reference)).toHaveLength(4);
    const failing = (await app.http.get('/api/admin/webhook-endpoints').set(bearer(admin)).expect(200)).body[0];
    expect(failing.failingSince).toEqual(expect.any(String));
    const metrics = (await app.http.get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/^webhook_deliveries\{status="failed"\} 1$/m);

    await receiver.behave(answer(200));
    // Since this test's event (the user's earlier events, of earlier tests, stay out of it).
    const [event] = await queryRows<{ since: string }>(
      await testDatabase(),
      sql`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as since from events where data->>'reference' = ${reference}`,
    );
    const since = event!.since;
    const replay = await app.http.post(`/api/admin/webhook-endpoints/${endpoint.endpointId}/replay`).set(bearer(admin)).send({ since }).expect(200);
    expect(replay.body).toEqual({ message: 'Replay queued', deliveries: 1 });
    await eventually(async () => (deliveriesOf(reference).length >= 5 ? true : undefined), 'the replayed delivery');
    const all = deliveriesOf(reference);
    expect(new Set(all.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(verifies(all[4]!, endpoint.secret)).toBe(true);
    await eventually(async () => {
      const [e] = (await app.http.get('/api/admin/webhook-endpoints').set(bearer(admin))).body;
      return e?.failingSince === null ? true : undefined;
    }, 'the failing mark cleared by the success');
  });

  it('signs with the new secret after a rotation (and the old one beside it for the grace period)', async () => {
    const endpoint = await register();
    const rotated = (await app.http.post(`/api/admin/webhook-endpoints/${endpoint.endpointId}/rotate-secret`).set(bearer(admin)).expect(200)).body;
    const reference = await publish();
    await eventually(async () => (deliveriesOf(reference).length >= 1 ? true : undefined), 'the delivery after the rotation');
    const [request] = deliveriesOf(reference);
    expect(verifies(request!, rotated.secret)).toBe(true);
    expect(verifies(request!, endpoint.secret)).toBe(true);
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
  });

  it('lets a receiver that never answers hold no request of the API', async () => {
    await register();
    await receiver.behave(hang);
    const reference = await publish();
    await eventually(async () => (deliveriesOf(reference).length >= 1 ? true : undefined), 'the attempt the receiver holds');
    expect(deliveriesOf(reference)[0]!.fate).toBe('open');
    // While the attempt hangs, the API answers.
    await app.http.get('/healthz').expect(200);
    await app.http.get('/api/users/profile').set(bearer(user.token)).expect(200);
    await app.http.get('/api/admin/webhook-endpoints').set(bearer(admin)).expect(200);
    expect(deliveriesOf(reference)[0]!.fate).toBe('open');
  });

  it('sends nothing to a deleted endpoint', async () => {
    const endpoint = await register();
    await app.http.delete(`/api/admin/webhook-endpoints/${endpoint.endpointId}`).set(bearer(admin)).expect(200);
    const reference = await publish();
    const other = await register();
    const seen = await publish();
    await eventually(async () => (deliveriesOf(seen).length >= 1 ? true : undefined), 'the live endpoint’s delivery');
    expect(deliveriesOf(reference)).toHaveLength(0);
    expect(verifies(deliveriesOf(seen)[0]!, other.secret)).toBe(true);
  });
});
