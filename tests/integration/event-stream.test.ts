import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { openDatabase, type DatabaseHandle } from '../../src/db/client';
import { EventRepository } from '../../src/db/repositories/event.repository';
import type { EventDraft } from '../../src/domain/events';
import { bearer, createUser, type CreatedUser } from '../helpers/factories';
import { eventually } from '../helpers/eventually';
import { testDatabaseUrl } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/test-app';

// GET /api/users/events (CONTRACT.md section 13): a user's own events as a JSON page and as a live
// stream; new events reach an open stream through PostgreSQL's NOTIFY at commit, whichever process
// (here: another connection pool, as another process would) wrote them.

let app: TestApp;
let server: http.Server;
let base: string;
/** A second handle on the database: the writes of another process of the service. */
let other: DatabaseHandle;
let alice: CreatedUser;
let bob: CreatedUser;

beforeAll(async () => {
  app = await startTestApp();
  server = app.container.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  other = await openDatabase({ url: await testDatabaseUrl(), poolSize: 2 });
  alice = await createUser(app);
  bob = await createUser(app);
});

afterAll(async () => {
  app.container.endStreams();
  await new Promise((resolve) => server.close(resolve));
  await other.close();
  await app.close();
});

/** A payment event for `userId`, appended in its own transaction by the other process. */
async function publish(userId: string, reference: string): Promise<void> {
  const draft: EventDraft = { userId, type: 'payment.minted', data: { reference, amountNaira: '100.00', tokens: '100.0000000', reason: null } };
  await other.db.transaction((tx) => new EventRepository(other.db).append(tx, [draft]));
}

/** An open stream: the frames read so far, parsed. */
interface Reader {
  frames: { id: number; event: string; data: { seq: number; userId: string; data: { reference: string } } }[];
  close(): void;
}

function openStream(user: CreatedUser, headers: Record<string, string> = {}, query = ''): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/api/users/events${query}`, { headers: { ...bearer(user.token), Accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      const reader: Reader = { frames: [], close: () => req.destroy() };
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':') && l.includes(': ')).map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]));
          if (fields.data) reader.frames.push({ id: Number(fields.id), event: fields.event!, data: JSON.parse(fields.data) });
        }
      });
      res.on('error', () => undefined);
      resolve(reader);
    });
    req.on('error', () => undefined);
  });
}

const seqs = (r: Reader) => r.frames.map((f) => f.id);

describe('the live stream', () => {
  it('sends what was there, then each new event as it commits in another process, once each and in order; resuming with Last-Event-ID gives every later event once', async () => {
    await publish(alice.userId, 'a-1');
    await publish(alice.userId, 'a-2');
    const first = await openStream(alice);
    await eventually(async () => (first.frames.length === 2 ? true : undefined), 'the two events already written');
    await publish(alice.userId, 'a-3');
    await publish(bob.userId, 'b-1');
    await publish(alice.userId, 'a-4');
    await eventually(async () => (first.frames.length >= 4 ? true : undefined), 'the events written while the stream was open');
    expect(seqs(first)).toEqual([1, 2, 3, 4]);
    expect(first.frames.map((f) => f.data.data.reference)).toEqual(['a-1', 'a-2', 'a-3', 'a-4']);
    expect(first.frames.every((f) => f.event === 'payment.minted' && f.data.userId === alice.userId)).toBe(true);
    first.close();

    // The reader went away after seq 2 reached it (say): it comes back with the last id it read.
    await publish(alice.userId, 'a-5');
    const resumed = await openStream(alice, { 'Last-Event-ID': '2' });
    await eventually(async () => (resumed.frames.length >= 3 ? true : undefined), 'the events after seq 2');
    await publish(alice.userId, 'a-6');
    await eventually(async () => (resumed.frames.length >= 4 ? true : undefined), 'the event written after the resume');
    expect(seqs(resumed)).toEqual([3, 4, 5, 6]);
    resumed.close();

    const byQuery = await openStream(alice, {}, '?after=5');
    await eventually(async () => (byQuery.frames.length >= 1 ? true : undefined), 'the event after seq 5');
    expect(seqs(byQuery)).toEqual([6]);
    byQuery.close();
    // Every reader gone: no subscription is left behind (the gauge counts this process's streams).
    await eventually(async () => (/^event_streams_open 0$/m.test((await app.http.get('/metrics')).text) ? true : undefined), 'the closed streams to be let go');
  });

  it("never shows a user another user's events, on the stream or the page", async () => {
    const bobs = await openStream(bob);
    await publish(alice.userId, 'only-alice');
    await publish(bob.userId, 'b-2');
    await eventually(async () => (bobs.frames.some((f) => f.data.data.reference === 'b-2') ? true : undefined), "bob's own new event");
    expect(bobs.frames.every((f) => f.data.userId === bob.userId)).toBe(true);
    bobs.close();
    const page = await app.http.get('/api/users/events').set(bearer(bob.token)).set('Accept', 'application/json').expect(200);
    expect(page.body.events.length).toBeGreaterThan(0);
    expect(page.body.events.every((e: { userId: string }) => e.userId === bob.userId)).toBe(true);
  });
});

describe('the JSON page', () => {
  it('answers the events after `after`, oldest first, at most `limit`', async () => {
    const all = await app.http.get('/api/users/events').set(bearer(alice.token)).set('Accept', 'application/json').expect(200);
    const allSeqs = all.body.events.map((e: { seq: number }) => e.seq);
    expect(allSeqs).toEqual(Array.from({ length: allSeqs.length }, (_, i) => i + 1));
    const page = await app.http.get('/api/users/events?after=2&limit=2').set(bearer(alice.token)).set('Accept', 'application/json').expect(200);
    expect(page.body.events.map((e: { seq: number }) => e.seq)).toEqual([3, 4]);
    expect(page.body.events[0]).toEqual(expect.objectContaining({ type: 'payment.minted', userId: alice.userId, id: expect.any(String), timestamp: expect.any(String) }));
  });

  it('refuses bad input with a 400 in the users group shape, and no token with a 401', async () => {
    for (const query of ['?after=-1', '?after=x', '?limit=0', '?limit=1001', '?other=1']) {
      const res = await app.http.get(`/api/users/events${query}`).set(bearer(alice.token)).set('Accept', 'application/json');
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body).toEqual(expect.objectContaining({ error: 'Invalid request', details: expect.any(Array) }));
    }
    const badId = await app.http.get('/api/users/events').set(bearer(alice.token)).set('Last-Event-ID', 'abc');
    expect([badId.status, badId.body.error]).toEqual([400, 'Last-Event-ID must be the seq of an event']);
    await app.http.get('/api/users/events').set('Accept', 'application/json').expect(401);
  });
});
