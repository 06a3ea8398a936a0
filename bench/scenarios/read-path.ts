import { expectStatus } from '../http';
import { runLoad, type LoadFigures } from '../load';
import { loadRow } from '../report';
import { createUsers, insertUserTransactions, onServiceDatabase } from '../seed';
import { ServiceInstance } from '../service';
import type { Scenario, ScenarioContext, ScenarioResult, TargetCheck } from './types';

/**
 * The two reads a signed-in user makes most, against /healthz in the same process with the
 * same load: what the database and the auth check cost over a bare Express round trip.
 */
export const readPath: Scenario = {
  name: 'read-path',
  summary: 'GET /api/users/profile and GET /api/ledger/transactions/:userId (1,000 records) vs GET /healthz',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s = ctx.smoke
      ? { records: 50, connections: 10, durationS: 1, warmupS: 0 }
      : { records: 1000, connections: 50, durationS: 10, warmupS: 2 };
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
        { label: 'GET /healthz (baseline)', path: '/healthz', headers: {} },
        { label: 'GET /api/users/profile', path: '/api/users/profile', headers: auth },
        { label: `GET /api/ledger/transactions/:userId (${s.records} records, page of 100)`, path: `/api/ledger/transactions/${user!.userId}`, headers: auth },
      ];
      const results: LoadFigures[] = [];
      for (const route of routes) {
        if (ctx.signal.aborted) throw new Error('aborted');
        const url = `${svc.baseUrl}${route.path}`;
        // A short unmeasured run first: JIT, connection pools and PostgreSQL's plan cache warm up.
        if (s.warmupS > 0) await runLoad({ label: 'warm-up', url, connections: s.connections, durationS: s.warmupS, headers: route.headers });
        ctx.log(`autocannon ${route.path}: ${s.connections} connections, ${s.durationS} s`);
        results.push(await runLoad({ label: route.label, url, connections: s.connections, durationS: s.durationS, headers: route.headers }));
      }
      const [healthz, profile, transactions] = results as [LoadFigures, LoadFigures, LoadFigures];

      const targets: TargetCheck[] = [];
      for (const f of [profile, transactions]) {
        const ratio = healthz.rps > 0 ? f.rps / healthz.rps : 0;
        targets.push(
          { name: `${f.label}: throughput vs healthz`, goal: '>= 40% of healthz', figure: `${f.rps} req/s = ${(ratio * 100).toFixed(1)}% of ${healthz.rps}`, pass: ratio >= 0.4 },
          { name: `${f.label}: p99`, goal: '<= 25 ms', figure: `${f.p99} ms`, pass: f.p99 <= 25 },
          { name: `${f.label}: non-2xx`, goal: '0', figure: `${f.non2xx + f.errors + f.timeouts}`, pass: f.non2xx + f.errors + f.timeouts === 0 },
        );
      }
      return {
        scenario: 'read-path',
        settings: { ...s, database: svc.bench.databaseUrl ? 'postgres' : 'embedded', ledgerCloseMs: 0, bcryptCost: 4 },
        baseline: { healthz },
        figures: { profile, transactions },
        tables: [{ title: `autocannon, ${s.connections} connections, ${s.durationS} s each (latency ms)`, rows: results.map((f) => loadRow(f)) }],
        targets,
        notes: ['BCRYPT_COST=4 only speeds up the signup that seeds the user; no measured request hashes a password.'],
      };
    } finally {
      await svc.dispose();
    }
  },
};
