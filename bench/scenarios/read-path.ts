import { describeLoop, withLoopDelay, type LoopDelay } from '../event-loop';
import { expectStatus, sleep } from '../http';
import { runLoad, type LoadFigures } from '../load';
import { runOpenLoop } from '../open-loop';
import { loadRow, loopCells } from '../report';
import { createUsers, insertUserTransactions, onServiceDatabase, type SeededUser } from '../seed';
import { CeilingProcess, ServiceInstance, type BenchEnvironment } from '../service';
import type { Scenario, ScenarioContext, ScenarioResult, TargetCheck } from './types';

/** The service's DATABASE_POOL_SIZE default (src/config/env.ts; the bench leaves it unset): the route ceiling's pool. */
const SERVICE_POOL_SIZE = 10;

export interface ReadPathSizes {
  records: number;
  connections: number;
  durationS: number;
  warmupS: number;
  fixedRate: number;
}

export function readPathSizes(smoke: boolean): ReadPathSizes {
  return smoke
    ? { records: 50, connections: 10, durationS: 1, warmupS: 0, fixedRate: 50 }
    : { records: 1000, connections: 50, durationS: 10, warmupS: 2, fixedRate: 200 };
}

/** The route's default page: 100 records (~40 KB of JSON) whenever the user has that many. */
export const pageOf = (s: ReadPathSizes) => Math.min(100, s.records);

export interface ReadRoute {
  key: string;
  label: string;
  path: string;
  headers: Record<string, string>;
}

/** A service with one user owning `records` transaction records, and the three routes read-path measures. */
export async function launchSeeded(
  ctx: ScenarioContext,
  s: ReadPathSizes,
  label: string,
  extraEnv: Record<string, string> = {},
): Promise<{ svc: ServiceInstance; user: SeededUser; routes: ReadRoute[] }> {
  const svc = await ServiceInstance.launch(ctx.bench, { label, ledgerCloseMs: 0, bcryptCost: 4, extraEnv });
  try {
    const [user] = await createUsers(svc, 'rp', 1);
    ctx.log(`${label}: seeding ${s.records} transaction records for one user`);
    await onServiceDatabase(svc, (db) => insertUserTransactions(db, user!.userId, user!.publicKey, s.records));
    const check = await expectStatus(200, 'GET', `${svc.baseUrl}/api/ledger/transactions/${user!.userId}?limit=1`, { token: user!.token });
    const total = Number(check.headers.get('x-total-count'));
    if (total !== s.records) throw new Error(`expected ${s.records} records for the user, the API counts ${total}`);
    const auth = { authorization: `Bearer ${user!.token}` };
    const routes = [
      { key: 'healthz', label: 'GET /healthz', path: '/healthz', headers: {} },
      { key: 'profile', label: 'GET /api/users/profile', path: '/api/users/profile', headers: auth },
      { key: 'transactions', label: `GET /api/ledger/transactions/:userId (${s.records} records, page of ${pageOf(s)})`, path: `/api/ledger/transactions/${user!.userId}`, headers: auth },
    ];
    return { svc, user: user!, routes };
  } catch (err) {
    await svc.dispose();
    throw err;
  }
}

/** A short unmeasured run first: JIT, connection pools and PostgreSQL's plan cache warm up. */
export async function warmUp(s: ReadPathSizes, url: string, headers: Record<string, string> = {}): Promise<void> {
  if (s.warmupS > 0) await runLoad({ label: 'warm-up', url, connections: s.connections, durationS: s.warmupS, headers });
}

/** A ceiling in its own process, started only while measured (it would take CPU from the rest). */
async function measureCeiling(bench: BenchEnvironment, s: ReadPathSizes, kind: 'bare-http' | 'bare-express', log: (m: string) => void): Promise<LoadFigures> {
  const ceiling = await CeilingProcess.launch(bench, kind);
  try {
    const url = `${ceiling.baseUrl}/healthz`;
    await warmUp(s, url);
    log(`autocannon ${kind}: ${s.connections} connections, ${s.durationS} s`);
    return await runLoad({ label: `ceiling: ${kind} {"status":"ok"}`, url, connections: s.connections, durationS: s.durationS });
  } finally {
    await ceiling.dispose();
  }
}

/**
 * The route's own ceiling (issue 22 item 5): node:http serving the same page with the service's
 * repository and shaping on the service's database. Its answer must be the service's, byte for
 * byte (body and X-Total-Count), or the comparison would be of two different things.
 */
async function measureRouteCeiling(ctx: ScenarioContext, s: ReadPathSizes, svc: ServiceInstance, user: SeededUser): Promise<{ figures: LoadFigures; bytes: number }> {
  const ceiling = await CeilingProcess.launch(ctx.bench, 'transaction-list', [svc.databaseUrl, String(SERVICE_POOL_SIZE)]);
  try {
    const path = `/api/ledger/transactions/${user.userId}`;
    const [mine, theirs] = await Promise.all([
      fetch(`${svc.baseUrl}${path}`, { headers: { authorization: `Bearer ${user.token}` } }),
      fetch(`${ceiling.baseUrl}${path}`),
    ]);
    const [a, b] = [Buffer.from(await mine.arrayBuffer()), Buffer.from(await theirs.arrayBuffer())];
    if (mine.status !== 200 || theirs.status !== 200 || !a.equals(b) || mine.headers.get('x-total-count') !== theirs.headers.get('x-total-count')) {
      throw new Error(
        `the route ceiling does not answer what the service answers for ${path}: service ${mine.status} ${a.length} bytes (X-Total-Count ${mine.headers.get('x-total-count')}), ceiling ${theirs.status} ${b.length} bytes (X-Total-Count ${theirs.headers.get('x-total-count')})`,
      );
    }
    const url = `${ceiling.baseUrl}${path}`;
    await warmUp(s, url);
    ctx.log(`autocannon transaction-list ceiling: ${s.connections} connections, ${s.durationS} s (${a.length} bytes, equal to the service's)`);
    const figures = await runLoad({ label: `ceiling: node:http + the route's repository and shaping (page of ${pageOf(s)})`, url, connections: s.connections, durationS: s.durationS });
    return { figures, bytes: a.length };
  } finally {
    await ceiling.dispose();
  }
}

const ratio = (a: LoadFigures, b: LoadFigures) => (b.rps > 0 ? a.rps / b.rps : 0);
const share = (a: LoadFigures, b: LoadFigures) => `${a.rps} req/s = ${ratio(a, b).toFixed(2)} x ${b.rps}`;
const bad = (f: LoadFigures) => f.non2xx + f.errors + f.timeouts;

/** A throughput goal: `a` as a share of its same-run baseline `b`. */
function shareTarget(name: string, a: LoadFigures, b: LoadFigures, threshold: number): TargetCheck {
  const value = Math.round(ratio(a, b) * 100) / 100;
  return { name, goal: `>= ${threshold}`, figure: share(a, b), pass: value >= threshold, measure: { value, threshold, better: 'higher' } };
}

function atMostTarget(name: string, value: number, threshold: number, figure: string, unit = 'ms'): TargetCheck {
  return { name, goal: `<= ${threshold}${unit ? ` ${unit}` : ''}`, figure, pass: value <= threshold, measure: { value, threshold, better: 'lower', unit } };
}

/**
 * The two reads a signed-in user makes most, against /healthz in the same process with the
 * same load (what the database and the auth check cost), /healthz against two ceilings measured
 * in the same run, each in its own process: node:http alone and the project's Express with
 * nothing on it (what the middleware stack costs), and the transaction list against its own
 * ceiling (node:http running the route's queries and shaping). Then the reads at a fixed
 * 200 req/s, for the latency a user sees at an ordinary rate. The service's event loop delay is
 * recorded for every phase of the service (and while idle).
 */
export const readPath: Scenario = {
  name: 'read-path',
  summary: 'GET /api/users/profile and GET /api/ledger/transactions/:userId (1,000 records) vs GET /healthz vs bare node:http and bare Express, the list vs its own node:http ceiling, event loop delay per phase',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s = readPathSizes(ctx.smoke);
    const page = pageOf(s);
    const { svc, user, routes } = await launchSeeded(ctx, s, 'read-path');
    try {
      const figures: Record<string, LoadFigures> = {};
      const aborted = () => {
        if (ctx.signal.aborted) throw new Error('aborted');
      };
      for (const kind of ['bare-http', 'bare-express'] as const) {
        aborted();
        figures[kind] = await measureCeiling(ctx.bench, s, kind, ctx.log);
      }
      aborted();
      const routeCeiling = await measureRouteCeiling(ctx, s, svc, user);
      figures['route-ceiling'] = routeCeiling.figures;

      // The loop with no traffic at all: the floor every loaded figure sits on.
      aborted();
      ctx.log(`idle: no requests for ${s.durationS} s`);
      const idle = (await withLoopDelay(svc.baseUrl, () => sleep(s.durationS * 1000))).loop;

      for (const route of routes) {
        aborted();
        const url = `${svc.baseUrl}${route.path}`;
        await warmUp(s, url, route.headers);
        ctx.log(`autocannon ${route.path}: ${s.connections} connections, ${s.durationS} s`);
        figures[route.key] = await runLoad({ label: route.label, url, connections: s.connections, durationS: s.durationS, headers: route.headers, loopOf: svc.baseUrl });
      }
      // Latency as a user sees it at an ordinary rate: open loop, Poisson arrivals at a mean rate,
      // each request timed from when it was due. /healthz at the same rate is the reference: the
      // tail the machine adds to any request.
      const sendLags: string[] = [];
      for (const route of routes) {
        aborted();
        ctx.log(`open loop ${route.path}: ${s.fixedRate} req/s (Poisson), ${s.durationS} s`);
        const probe = await runOpenLoop({
          label: `${route.label} at ${s.fixedRate} req/s`,
          url: `${svc.baseUrl}${route.path}`,
          ratePerS: s.fixedRate,
          durationS: s.durationS,
          headers: route.headers,
          loopOf: svc.baseUrl,
        });
        figures[`${route.key}@rate`] = probe;
        sendLags.push(`${route.path}: p99 ${probe.sendLag.p99} ms, max ${probe.sendLag.max} ms`);
      }
      const healthz = figures.healthz!;
      const transactions = figures.transactions!;
      const atRate = ['healthz@rate', 'profile@rate', 'transactions@rate'].map((k) => figures[k]!);
      // The worst of the three fixed-rate phases: the goal holds while serving any of them.
      const loopAtRate = atRate.reduce<LoadFigures | undefined>((worst, f) => (f.loop && (!worst?.loop || f.loop.p99 > worst.loop.p99) ? f : worst), undefined);

      const targets: TargetCheck[] = [
        shareTarget('GET /healthz vs the bare Express app', healthz, figures['bare-express']!, 0.8),
        shareTarget('GET /api/users/profile vs /healthz', figures.profile!, healthz, 0.6),
        shareTarget(`GET /api/ledger/transactions/:userId (page of ${page}) vs /healthz`, transactions, healthz, 0.4),
        shareTarget(`GET /api/ledger/transactions/:userId (page of ${page}) vs its route ceiling (same queries and JSON on node:http)`, transactions, routeCeiling.figures, 0.7),
      ];
      // Baseline of a tail: /healthz at the same rate (what the machine adds to any request); of the loop: the loop idle.
      const healthzAtRate = figures['healthz@rate']!;
      for (const f of [figures['profile@rate']!, figures['transactions@rate']!]) {
        targets.push(atMostTarget(`${f.label}: p99`, f.p99, 10, `${f.p99} ms (${f.rps} req/s answered; /healthz at the same rate: p99 ${healthzAtRate.p99} ms)`));
      }
      if (loopAtRate?.loop) {
        const idleText = idle ? `; idle: p99 ${idle.p99} ms, max <= ${idle.max} ms` : '';
        targets.push(atMostTarget(`event loop delay p99 while serving ${s.fixedRate} req/s (worst of the three fixed-rate phases)`, loopAtRate.loop.p99, 5, `${loopAtRate.loop.p99} ms during ${loopAtRate.label}; max <= ${loopAtRate.loop.max} ms${idleText}`));
      } else {
        targets.push({ name: `event loop delay p99 while serving ${s.fixedRate} req/s`, goal: '<= 5 ms', figure: 'not measured (the service has no event_loop_delay_seconds)', pass: false });
      }
      for (const f of Object.values(figures)) {
        targets.push({ name: `${f.label}: non-2xx and errors`, goal: '0', figure: `${bad(f)}`, pass: bad(f) === 0, measure: { value: bad(f), threshold: 0, better: 'lower', unit: '' } });
      }
      const loopRow = (what: string, loop: LoopDelay | undefined) => ({ what, samples: loop?.samples ?? '-', 'loop p50': loop?.p50 ?? '-', ...loopCells(loop) });
      return {
        scenario: 'read-path',
        settings: { ...s, page, database: svc.bench.databaseUrl ? 'postgres' : 'embedded', ledgerCloseMs: 0, bcryptCost: 4, routeCeilingPool: SERVICE_POOL_SIZE },
        baseline: { bareHttp: figures['bare-http'], bareExpress: figures['bare-express'], routeCeiling: routeCeiling.figures, routeCeilingBytes: routeCeiling.bytes, healthz },
        figures: {
          profile: figures.profile,
          transactions,
          healthzAtRate: figures['healthz@rate'],
          profileAtRate: figures['profile@rate'],
          transactionsAtRate: figures['transactions@rate'],
          loopIdle: idle,
        },
        tables: [
          {
            title: `autocannon, ${s.connections} connections (fixed-rate rows: an open-loop generator in its own process, Poisson arrivals), ${s.durationS} s each (latency ms; loop: the service's event loop delay during the row, ms)`,
            rows: Object.values(figures).map((f) => loadRow(f)),
          },
          {
            title: `the service's event loop delay per phase (ms; each sample: how late a timer due every 1 ms ran; max: the bound of the longest sample's histogram bucket)`,
            rows: [loopRow(`idle, ${s.durationS} s`, idle), ...routes.flatMap((r) => [loopRow(figures[r.key]!.label, figures[r.key]!.loop), loopRow(figures[`${r.key}@rate`]!.label, figures[`${r.key}@rate`]!.loop)])],
          },
        ],
        targets,
        notes: [
          'BCRYPT_COST=4 only speeds up the signup that seeds the user; no measured request hashes a password.',
          `The route ceiling answers the same ${routeCeiling.bytes} bytes as the service for the same URL (checked before it is measured), with the service's repository and record shaping, pool of ${SERVICE_POOL_SIZE}, no auth.`,
          `Idle loop: ${describeLoop(idle)}.`,
          `Fixed-rate rows: each request is timed from when it was due (Poisson arrivals, seed 1, the same every run), so the generator's own lateness counts against the service; how late it sent: ${sendLags.join('; ')}.`,
          'The 500-payment goal (<= 8 closes at 1 s ledgers) is judged by the minting scenario.',
        ],
      };
    } finally {
      await svc.dispose();
    }
  },
};
