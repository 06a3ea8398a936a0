import { expectStatus } from '../http';
import { runLoad, type LoadFigures } from '../load';
import { loadRow } from '../report';
import { createUsers, insertUserTransactions, onServiceDatabase } from '../seed';
import { CeilingProcess, ServiceInstance } from '../service';
import type { Scenario, ScenarioContext, ScenarioResult, TargetCheck } from './types';

/**
 * The two reads a signed-in user makes most, against /healthz in the same process with the
 * same load (what the database and the auth check cost), and /healthz against two ceilings
 * measured in the same run, each in its own process: node:http alone and the project's Express
 * with nothing on it (what the middleware stack costs). Then both reads at a fixed 200 req/s,
 * for the latency a user sees at an ordinary rate.
 */
export const readPath: Scenario = {
  name: 'read-path',
  summary: 'GET /api/users/profile and GET /api/ledger/transactions/:userId (1,000 records) vs GET /healthz vs bare node:http and bare Express',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s = ctx.smoke
      ? { records: 50, connections: 10, durationS: 1, warmupS: 0, fixedRate: 50 }
      : { records: 1000, connections: 50, durationS: 10, warmupS: 2, fixedRate: 200 };
    // The route's default page: 100 records (~40 KB of JSON) whenever the user has that many.
    const page = Math.min(100, s.records);
    const svc = await ServiceInstance.launch(ctx.bench, { label: 'read-path', ledgerCloseMs: 0, bcryptCost: 4 });
    try {
      const [user] = await createUsers(svc, 'rp', 1);
      ctx.log(`seeding ${s.records} transaction records for one user`);
      await onServiceDatabase(svc, (db) => insertUserTransactions(db, user!.userId, user!.publicKey, s.records));
      const check = await expectStatus(200, 'GET', `${svc.baseUrl}/api/ledger/transactions/${user!.userId}?limit=1`, { token: user!.token });
      const total = Number(check.headers.get('x-total-count'));
      if (total !== s.records) throw new Error(`expected ${s.records} records for the user, the API counts ${total}`);

      const auth = { authorization: `Bearer ${user!.token}` };
      const routes = [
        { key: 'healthz', label: 'GET /healthz', path: '/healthz', headers: {} },
        { key: 'profile', label: 'GET /api/users/profile', path: '/api/users/profile', headers: auth },
        { key: 'transactions', label: `GET /api/ledger/transactions/:userId (${s.records} records, page of ${page})`, path: `/api/ledger/transactions/${user!.userId}`, headers: auth },
      ];
      const figures: Record<string, LoadFigures> = {};
      const warmUp = (url: string, headers: Record<string, string> = {}) =>
        s.warmupS > 0 ? runLoad({ label: 'warm-up', url, connections: s.connections, durationS: s.warmupS, headers }) : undefined;

      // The two ceilings, each in its own process, started only while measured (they would take CPU from the rest).
      for (const kind of ['bare-http', 'bare-express'] as const) {
        if (ctx.signal.aborted) throw new Error('aborted');
        const ceiling = await CeilingProcess.launch(ctx.bench, kind);
        try {
          const url = `${ceiling.baseUrl}/healthz`;
          await warmUp(url);
          ctx.log(`autocannon ${kind}: ${s.connections} connections, ${s.durationS} s`);
          figures[kind] = await runLoad({ label: `ceiling: ${kind} {"status":"ok"}`, url, connections: s.connections, durationS: s.durationS });
        } finally {
          await ceiling.dispose();
        }
      }
      for (const route of routes) {
        if (ctx.signal.aborted) throw new Error('aborted');
        const url = `${svc.baseUrl}${route.path}`;
        // A short unmeasured run first: JIT, connection pools and PostgreSQL's plan cache warm up.
        await warmUp(url, route.headers);
        ctx.log(`autocannon ${route.path}: ${s.connections} connections, ${s.durationS} s`);
        figures[route.key] = await runLoad({ label: route.label, url, connections: s.connections, durationS: s.durationS, headers: route.headers });
      }
      // Latency as a user sees it at an ordinary rate: open loop, a fixed number of requests per second.
      // /healthz at the same rate is the reference: the tail the machine adds to any request.
      for (const route of routes) {
        if (ctx.signal.aborted) throw new Error('aborted');
        ctx.log(`autocannon ${route.path}: ${s.fixedRate} req/s, ${s.durationS} s`);
        figures[`${route.key}@rate`] = await runLoad({
          label: `${route.label} at ${s.fixedRate} req/s`,
          url: `${svc.baseUrl}${route.path}`,
          connections: 10,
          durationS: s.durationS,
          headers: route.headers,
          overallRate: s.fixedRate,
        });
      }
      const bareHttp = figures['bare-http']!;
      const bareExpress = figures['bare-express']!;
      const healthz = figures.healthz!;
      const profile = figures.profile!;
      const transactions = figures.transactions!;
      const ratio = (a: LoadFigures, b: LoadFigures) => (b.rps > 0 ? a.rps / b.rps : 0);
      const share = (a: LoadFigures, b: LoadFigures) => `${a.rps} req/s = ${ratio(a, b).toFixed(2)} x ${b.rps}`;
      const bad = (f: LoadFigures) => f.non2xx + f.errors + f.timeouts;

      const targets: TargetCheck[] = [
        { name: 'GET /healthz vs the bare Express app', goal: '>= 0.8', figure: share(healthz, bareExpress), pass: ratio(healthz, bareExpress) >= 0.8 },
        { name: 'GET /api/users/profile vs /healthz', goal: '>= 0.6', figure: share(profile, healthz), pass: ratio(profile, healthz) >= 0.6 },
        { name: `GET /api/ledger/transactions/:userId (page of ${page}) vs /healthz`, goal: '>= 0.4', figure: share(transactions, healthz), pass: ratio(transactions, healthz) >= 0.4 },
      ];
      for (const key of ['profile@rate', 'transactions@rate']) {
        const f = figures[key]!;
        targets.push({ name: `${f.label}: p99`, goal: '<= 10 ms', figure: `${f.p99} ms (${f.rps} req/s answered)`, pass: f.p99 <= 10 });
      }
      for (const f of Object.values(figures)) {
        targets.push({ name: `${f.label}: non-2xx and errors`, goal: '0', figure: `${bad(f)}`, pass: bad(f) === 0 });
      }
      return {
        scenario: 'read-path',
        settings: { ...s, database: svc.bench.databaseUrl ? 'postgres' : 'embedded', ledgerCloseMs: 0, bcryptCost: 4 },
        baseline: { bareHttp, bareExpress, healthz },
        figures: { profile, transactions, profileAtRate: figures['profile@rate'], transactionsAtRate: figures['transactions@rate'] },
        tables: [
          {
            title: `autocannon, ${s.connections} connections (fixed-rate rows: 10 connections, open loop), ${s.durationS} s each (latency ms)`,
            rows: Object.values(figures).map((f) => loadRow(f)),
          },
        ],
        targets,
        notes: ['BCRYPT_COST=4 only speeds up the signup that seeds the user; no measured request hashes a password.'],
      };
    } finally {
      await svc.dispose();
    }
  },
};
