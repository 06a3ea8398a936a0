import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectStatus, sleep } from '../http';
import { summarize, type LoadFigures } from '../load';
import { runOpenLoop, type OpenLoopFigures } from '../open-loop';
import { loadRow, loopCells } from '../report';
import { adminToken, onServiceDatabase, type SeededUser } from '../seed';
import { ServiceInstance, type BenchEnvironment } from '../service';
import { closedLoop, fundedUsers, transfer } from './transfers';
import type { Cell, Scenario, ScenarioContext, ScenarioResult, Table, TargetCheck } from './types';

/** Events written (the default) or not (EVENT_OUTBOX=off, the benchmark's baseline alone): the same tree, the same run. */
type Mode = 'on' | 'off';

interface Settings {
  /** Part 1: funded users transferring in a ring, and for how long. */
  users: number;
  durationS: number;
  /** Parts 2 and 3: users on the delivery service (one stream each), and transfers each makes in the burst. */
  streamUsers: number;
  burstPerUser: number;
  /** /healthz probe: fixed rate (open loop) for this long. */
  probeRate: number;
  probeS: number;
  /** How long to wait for every delivery (and every stream frame) to arrive. */
  settleTimeoutS: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return sorted.length === 0 ? NaN : Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
};

const count = async (svc: ServiceInstance, sql: string, params: unknown[] = []): Promise<number> =>
  onServiceDatabase(svc, async (s) => Number((await s.query<{ n: string | number }>(sql, params))[0]?.n ?? 0));

/** Part 1: 100 users transferring in a ring on instant ledgers, events on or off. */
async function writePart(bench: BenchEnvironment, mode: Mode, s: Settings, ctx: ScenarioContext) {
  const svc = await ServiceInstance.launch(bench, { label: `events-${mode}`, ledgerCloseMs: 0, bcryptCost: 4, extraEnv: { EVENT_OUTBOX: mode } });
  try {
    ctx.log(`EVENT_OUTBOX=${mode}: ${s.users} funded users`);
    const users = await fundedUsers(svc, `ev${mode}`, s.users);
    const eventsBefore = await count(svc, 'select count(*) as n from events');
    ctx.log(`EVENT_OUTBOX=${mode}: ${s.users} users transferring at once for ${s.durationS} s`);
    const result = await closedLoop(svc, users, users, s.durationS, ctx.signal);
    const figures = summarize(`events ${mode}: ${s.users} users at once, each one after another`, result.samples, result.seconds);
    const eventsWritten = (await count(svc, 'select count(*) as n from events')) - eventsBefore;
    return { figures, eventsWritten };
  } finally {
    await svc.dispose();
  }
}

/** What the local receiver saw in one phase: requests, unique webhook-ids, first and last arrival. */
interface Received {
  requests: number;
  ids: Set<string>;
  first?: number;
  last?: number;
  unsigned: number;
}

/** A webhook receiver on 127.0.0.1 in the bench process: answers 204, counts requests and unique webhook-id headers. */
async function startReceiver(): Promise<{ url: string; phase: () => Received; reset(): void; close(): Promise<void> }> {
  let current: Received = { requests: 0, ids: new Set(), unsigned: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const now = performance.now();
      current.requests++;
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') current.ids.add(id);
      if (!req.headers['webhook-signature']) current.unsigned++;
      current.first ??= now;
      current.last = now;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    phase: () => current,
    reset: () => (current = { requests: 0, ids: new Set(), unsigned: 0 }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One open event stream: its status, and the data frames read so far. */
interface OpenStream {
  status: number;
  frames: number;
  close(): void;
}

function openStream(svc: ServiceInstance, user: SeededUser): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${svc.baseUrl}/api/users/events`,
      { agent: false, headers: { accept: 'text/event-stream', authorization: `Bearer ${user.token}` } },
      (res) => {
        const stream: OpenStream = { status: res.statusCode ?? 0, frames: 0, close: () => req.destroy() };
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            if (buffer.slice(0, end).split('\n').some((line) => line.startsWith('data: '))) stream.frames++;
            buffer = buffer.slice(end + 2);
          }
        });
        res.on('error', () => undefined);
        resolve(stream);
      },
    );
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('no answer to the stream request within 30 s')));
  });
}

/** Polls until `done` or the deadline; false when time ran out. */
async function settle(timeoutS: number, signal: AbortSignal, done: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + timeoutS * 1000;
  while (Date.now() < deadline && !signal.aborted) {
    if (await done()) return true;
    await sleep(200);
  }
  return done();
}

/** Parts 2 and 3 on one service with events on: /healthz with 0 and with N open streams, then a burst delivered to a local receiver (streams still open), then a replay of it. */
async function deliveryPart(bench: BenchEnvironment, s: Settings, ctx: ScenarioContext) {
  const svc = await ServiceInstance.launch(bench, { label: 'events-deliver', ledgerCloseMs: 0, bcryptCost: 4 });
  const receiver = await startReceiver();
  const streams: OpenStream[] = [];
  try {
    ctx.log(`events on: ${s.streamUsers} funded users`);
    const users = await fundedUsers(svc, 'evd', s.streamUsers);
    const probe = { url: `${svc.baseUrl}/healthz`, ratePerS: s.probeRate, durationS: s.probeS, loopOf: svc.baseUrl };

    // Part 3: /healthz with no stream, then with one open stream per user.
    ctx.log(`/healthz at ${s.probeRate} req/s for ${s.probeS} s, no stream open`);
    const healthzNone = await runOpenLoop({ ...probe, label: 'GET /healthz, 0 streams open (baseline)' });
    ctx.log(`opening ${s.streamUsers} event streams (one per user, Accept: text/event-stream)`);
    const openStarted = performance.now();
    streams.push(...(await Promise.all(users.map((u) => openStream(svc, u)))));
    const openMs = performance.now() - openStarted;
    const streamsOk = streams.filter((st) => st.status === 200).length;
    // Each stream's first read (its catch-up: the mint's event) before measuring, so the probe sees open, idle streams.
    await settle(30, ctx.signal, async () => streams.every((st) => st.frames >= 1));
    ctx.log(`/healthz at ${s.probeRate} req/s for ${s.probeS} s, ${streamsOk} streams open`);
    const healthzOpen = await runOpenLoop({ ...probe, label: `GET /healthz, ${streamsOk} streams open` });

    // Part 2: a receiver registered, a burst of transfers in a ring (2 wallet events each), every delivery awaited.
    const admin = await adminToken(svc);
    const since = new Date(Date.now() - 1000);
    const eventsBefore = await count(svc, 'select count(*) as n from events');
    const framesBefore = streams.reduce((n, st) => n + st.frames, 0);
    const registered = await expectStatus<{ endpointId: string; secret: string }>(201, 'POST', `${svc.baseUrl}/api/admin/webhook-endpoints`, { token: admin, body: { url: receiver.url } });
    const endpointId = registered.body.endpointId;
    ctx.log(`receiver ${receiver.url} registered (${endpointId}); burst: ${s.streamUsers} users x ${s.burstPerUser} transfers in a ring, ${s.streamUsers} streams open`);
    const burstStarted = performance.now();
    const samples = (
      await Promise.all(
        users.map(async (u, i) => {
          const out = [];
          for (let n = 0; n < s.burstPerUser && !ctx.signal.aborted; n++) out.push(await transfer(svc, u, users[(i + 1) % users.length]!));
          return out;
        }),
      )
    ).flat();
    const burstS = (performance.now() - burstStarted) / 1000;
    const burst = summarize(`burst: ${s.streamUsers} users x ${s.burstPerUser} transfers, ${streamsOk} streams open, endpoint registered`, samples, burstS);
    // Every delivery of this endpoint made (or failed for good), and no more events coming.
    const deliveriesSql = "select count(*) as n from webhook_deliveries where endpoint_id = $1 and status <> 'pending'";
    let deliveries = 0;
    const settled = await settle(s.settleTimeoutS, ctx.signal, async () => {
      deliveries = await count(svc, 'select count(*) as n from webhook_deliveries where endpoint_id = $1', [endpointId]);
      return deliveries >= 2 * burst.ok && deliveries > 0 && (await count(svc, deliveriesSql, [endpointId])) === deliveries && receiver.phase().ids.size >= deliveries;
    });
    const settledAt = performance.now();
    const eventsWritten = (await count(svc, 'select count(*) as n from events')) - eventsBefore;
    const delivered = await count(svc, "select count(*) as n from webhook_deliveries where endpoint_id = $1 and status = 'delivered'", [endpointId]);
    const live = receiver.phase();
    const deliveryIds = await onServiceDatabase(svc, (q) => q.query<{ id: string }>('select event_id::text as id from webhook_deliveries where endpoint_id = $1', [endpointId]));
    const missing = deliveryIds.filter((d) => !live.ids.has(d.id)).length;
    // The streams: every event of the burst reaches its user's stream (one stream per user).
    await settle(Math.min(30, s.settleTimeoutS), ctx.signal, async () => streams.reduce((n, st) => n + st.frames, 0) - framesBefore >= eventsWritten);
    const streamFrames = streams.reduce((n, st) => n + st.frames, 0) - framesBefore;
    const liveWindowS = live.first !== undefined && live.last !== undefined ? (live.last - live.first) / 1000 : 0;

    // The same events again (POST replay): every delivery queued at once, so the rate is the queue's and the sender's alone.
    receiver.reset();
    ctx.log(`replay since ${since.toISOString()}: every event of the burst queued at once`);
    const replayStarted = performance.now();
    const replayed = await expectStatus<{ deliveries: number }>(200, 'POST', `${svc.baseUrl}/api/admin/webhook-endpoints/${endpointId}/replay`, { token: admin, body: { since: since.toISOString() } });
    const replayQueued = replayed.body.deliveries;
    const replaySettled = await settle(s.settleTimeoutS, ctx.signal, async () => receiver.phase().ids.size >= replayQueued && (await count(svc, deliveriesSql.replace("<> 'pending'", "= 'pending'"), [endpointId])) === 0);
    const replay = receiver.phase();
    const replayWindowS = replay.first !== undefined && replay.last !== undefined ? (replay.last - replay.first) / 1000 : 0;

    return {
      healthzNone,
      healthzOpen,
      streamsOpened: streams.length,
      streamsOk,
      openMs,
      burst,
      delivery: {
        eventsWritten,
        transfersOk: burst.ok,
        deliveries,
        delivered,
        requests: live.requests,
        uniqueIds: live.ids.size,
        unsigned: live.unsigned,
        missing,
        settled,
        windowS: liveWindowS,
        perS: liveWindowS > 0 ? live.ids.size / liveWindowS : 0,
        // From the burst's first transfer to the last delivery received: what a client waits end to end.
        endToEndS: live.last !== undefined ? (live.last - burstStarted) / 1000 : 0,
        lastAfterBurstMs: live.last !== undefined ? Math.max(0, live.last - (burstStarted + burstS * 1000)) : 0,
        settleMs: settledAt - (burstStarted + burstS * 1000),
      },
      streamFrames,
      replay: {
        queued: replayQueued,
        requests: replay.requests,
        uniqueIds: replay.ids.size,
        settled: replaySettled,
        windowS: replayWindowS,
        perS: replayWindowS > 0 ? replay.ids.size / replayWindowS : 0,
        firstAfterMs: replay.first !== undefined ? replay.first - replayStarted : 0,
      },
    };
  } finally {
    for (const st of streams) st.close();
    await receiver.close();
    await svc.dispose();
  }
}

function healthzRow(f: OpenLoopFigures): Record<string, string | number> {
  return { ...loadRow(f), 'send lag p99': f.sendLag.p99, ...loopCells(f.loop) };
}

const r1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Events to client apps (issue 49, CONTRACT 13): what writing them costs a transfer (EVENT_OUTBOX
 * off and on, alternating in one run), how fast webhooks reach a receiver, and what open streams
 * cost the event loop (/healthz with none and with one per user).
 */
export const events: Scenario = {
  name: 'events',
  summary: 'events off and on in one run (100 users transferring: transfers/s, p99, the drop); webhooks delivered to a local receiver (deliveries/s, every event id once); /healthz p99 with 0 and 100 open event streams',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s: Settings = ctx.smoke
      ? { users: 5, durationS: 1, streamUsers: 5, burstPerUser: 2, probeRate: 50, probeS: 1, settleTimeoutS: 60 }
      : { users: 100, durationS: 10, streamUsers: 100, burstPerUser: 5, probeRate: 200, probeS: 5, settleTimeoutS: 180 };
    const order: Mode[] = ctx.smoke ? ['off', 'on'] : ['off', 'on', 'off', 'on'];
    const parts: { mode: Mode; figures: LoadFigures; eventsWritten: number }[] = [];
    for (const mode of order) {
      if (ctx.signal.aborted) break;
      parts.push({ mode, ...(await writePart(ctx.bench, mode, s, ctx)) });
    }
    const d = await deliveryPart(ctx.bench, s, ctx);

    const of = (mode: Mode) => parts.filter((p) => p.mode === mode);
    const rate = (mode: Mode) => median(of(mode).map((p) => p.figures.rps));
    const p50 = (mode: Mode) => median(of(mode).map((p) => p.figures.p50));
    const p99 = (mode: Mode) => median(of(mode).map((p) => p.figures.p99));
    const drop = 1 - rate('on') / rate('off');
    const failed = (f: LoadFigures) => f.non2xx + f.errors;
    const allArrived = d.delivery.missing === 0 && d.delivery.uniqueIds === d.delivery.eventsWritten && d.delivery.deliveries === d.delivery.eventsWritten;

    const tables: Table[] = [
      {
        title: `LEDGER_CLOSE_MS=0: transfers (latency ms), EVENT_OUTBOX off and on in turn (each part its own service, ${s.users} funded users in a ring, closed loop)`,
        rows: parts.map((p) => loadRow(p.figures, { 'events written': p.eventsWritten })),
      },
      {
        title: 'Write path, medians of the parts of each mode',
        rows: [
          ...(['off', 'on'] as Mode[]).map((m): Record<string, Cell> => ({ mode: `EVENT_OUTBOX=${m}`, parts: of(m).length, 'transfers/s': r1(rate(m)), p50: r1(p50(m)), p99: r1(p99(m)) })),
          { mode: 'on vs off', parts: parts.length, 'transfers/s': `${(drop * 100).toFixed(1)}% drop`, p50: `${r1(p50('on') - p50('off'))} ms`, p99: `${r1(p99('on') - p99('off'))} ms` },
        ],
      },
      { title: `GET /healthz at ${s.probeRate} req/s for ${s.probeS} s, open loop (latency ms; loop: the service's event loop delay)`, rows: [healthzRow(d.healthzNone), healthzRow(d.healthzOpen)] },
      { title: 'The burst (latency ms)', rows: [loadRow(d.burst)] },
      {
        title: `Webhooks to a local receiver (node:http on 127.0.0.1, 204), WEBHOOK_DELIVERY_CONCURRENCY default`,
        rows: [
          {
            phase: 'live (during and after the burst)',
            'events written': d.delivery.eventsWritten,
            deliveries: d.delivery.deliveries,
            delivered: d.delivery.delivered,
            requests: d.delivery.requests,
            'unique webhook-id': d.delivery.uniqueIds,
            missing: d.delivery.missing,
            'first->last s': Math.round(d.delivery.windowS * 100) / 100,
            'deliveries/s': r1(d.delivery.perS),
            'last after burst ms': Math.round(d.delivery.lastAfterBurstMs),
          },
          {
            phase: 'replay (all queued at once)',
            'events written': '-',
            deliveries: d.replay.queued,
            delivered: '-',
            requests: d.replay.requests,
            'unique webhook-id': d.replay.uniqueIds,
            missing: d.replay.queued - d.replay.uniqueIds,
            'first->last s': Math.round(d.replay.windowS * 100) / 100,
            'deliveries/s': r1(d.replay.perS),
            'last after burst ms': '-',
          },
        ],
      },
      { title: 'Event streams', rows: [{ opened: d.streamsOpened, 'answered 200': d.streamsOk, 'open all ms': Math.round(d.openMs), 'burst frames read': d.streamFrames, 'events written': d.delivery.eventsWritten }] },
    ];
    const targets: TargetCheck[] = [
      {
        name: 'transfers/s with events on',
        goal: 'drops by at most a tenth against EVENT_OUTBOX=off (medians of the alternating parts)',
        figure: `${rate('on').toFixed(1)}/s on (p50 ${p50('on')} ms, p99 ${p99('on')} ms), ${rate('off').toFixed(1)}/s off (p50 ${p50('off')} ms, p99 ${p99('off')} ms): ${(drop * 100).toFixed(1)}% drop`,
        pass: drop <= 0.1,
        measure: { value: Math.round(drop * 1000) / 10, threshold: 10, better: 'lower', unit: '%' },
      },
      {
        name: 'every transfer succeeds (both modes)',
        goal: '0 failed',
        figure: parts.map((p) => `${p.mode}: ${failed(p.figures)} of ${p.figures.requests}`).join(', '),
        pass: parts.every((p) => failed(p.figures) === 0 && p.figures.ok > 0),
      },
      {
        name: 'every event delivered to the receiver once by id',
        goal: 'unique webhook-id = events written = deliveries, none missing',
        figure: `${d.delivery.uniqueIds} unique ids in ${d.delivery.requests} requests, ${d.delivery.eventsWritten} events written, ${d.delivery.deliveries} deliveries (${d.delivery.delivered} delivered), ${d.delivery.missing} missing${d.delivery.settled ? '' : ' (not settled in time)'}`,
        pass: allArrived && d.delivery.eventsWritten > 0,
      },
      {
        name: 'webhook deliveries/s (live, first to last received)',
        goal: 'reported (no target in the issue)',
        figure: `${r1(d.delivery.perS)}/s over ${d.delivery.windowS.toFixed(2)} s; replay of the same ${d.replay.queued}: ${r1(d.replay.perS)}/s over ${d.replay.windowS.toFixed(2)} s`,
        pass: d.delivery.perS > 0,
        measure: { value: r1(d.delivery.perS), threshold: 0, better: 'higher', unit: '/s' },
      },
      {
        name: 'every burst event on its user\'s open stream',
        goal: 'frames read = events written',
        figure: `${d.streamFrames} frames, ${d.delivery.eventsWritten} events, ${d.streamsOk}/${d.streamsOpened} streams answered 200`,
        pass: d.streamFrames === d.delivery.eventsWritten && d.streamsOk === d.streamsOpened,
      },
      {
        name: `GET /healthz p99 with ${d.streamsOk} streams open`,
        goal: 'within 10% (or 1 ms) of none open',
        figure: `p99 ${d.healthzOpen.p99} ms with ${d.streamsOk} open, ${d.healthzNone.p99} ms with none (p50 ${d.healthzOpen.p50} / ${d.healthzNone.p50} ms)`,
        pass: d.healthzOpen.p99 <= Math.max(d.healthzNone.p99 * 1.1, d.healthzNone.p99 + 1),
        measure: { value: d.healthzOpen.p99, threshold: Math.max(d.healthzNone.p99 * 1.1, d.healthzNone.p99 + 1), better: 'lower', unit: 'ms' },
      },
    ];
    return {
      scenario: 'events',
      settings: { ...s, order, bcryptCost: 4, ledgerCloseMs: 0, database: ctx.bench.databaseUrl ? 'postgres' : 'embedded' },
      baseline: { eventsOff: of('off').map((p) => p.figures), healthzNoStreams: d.healthzNone },
      figures: {
        eventsOn: of('on').map((p) => p.figures),
        medians: { on: { rps: rate('on'), p50: p50('on'), p99: p99('on') }, off: { rps: rate('off'), p50: p50('off'), p99: p99('off') }, dropPercent: Math.round(drop * 1000) / 10 },
        healthzStreamsOpen: d.healthzOpen,
        burst: d.burst,
        delivery: d.delivery,
        replay: d.replay,
        streams: { opened: d.streamsOpened, ok: d.streamsOk, openMs: d.openMs, burstFrames: d.streamFrames },
      },
      tables,
      targets,
      notes: [
        `Write path: the same tree started as npm start does, EVENT_OUTBOX=off (no event written: the baseline alone) or on (the default), alternating, each part a fresh service with its own ${s.users} funded users.`,
        'EVENT_OUTBOX=off writes no event and confirms as the tree before events did (one statement per transfer); on, the same statement appends the wallet events (a transaction only while an endpoint hears wallet events): the drop is the whole cost of events on the write path.',
        'Deliveries/s live is bounded by how fast the burst writes events; the replay queues every delivery at once, so its rate is the queue\'s and the sender\'s.',
        '/healthz: a fixed-rate open-loop probe (bench/open-loop), first with no stream, then with one open text/event-stream per user (idle: their catch-up read before the probe).',
      ],
    };
  },
};
