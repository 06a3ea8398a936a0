import { pageStatements } from '../../src/db/repositories/transaction.repository';
import { standardKinds } from '../../src/ledger/kinds/registry';
import type { SqlSession } from '../database';
import { runLoad, round, type LoadFigures } from '../load';
import { loadRow } from '../report';
import { adminToken, countTransactions, createUsers, insertBulkTransactions, insertBulkUsers, insertUserTransactions, onServiceDatabase, vacuumAnalyze } from '../seed';
import { ServiceInstance } from '../service';
import type { Cell, Scenario, ScenarioContext, ScenarioResult, TargetCheck } from './types';

/**
 * The SQL the two list routes run, for EXPLAIN ANALYZE at each size: the pages are the
 * repository's own statements (first page of 100; a user's page counts the user's records in the
 * same statement), the admin total's count as the repository writes it.
 */
const PAGE_STATEMENTS = pageStatements(standardKinds().recordKinds);
const QUERIES: Record<string, { sql: string; params: (userId: string) => unknown[] }> = {
  userList: { sql: PAGE_STATEMENTS.user.text, params: (userId) => [userId, 100, 0] },
  adminList: { sql: PAGE_STATEMENTS.admin.text, params: () => [100, 0] },
  adminCount: { sql: PAGE_STATEMENTS.total.text, params: () => [] },
};

interface Explained {
  plan: string[];
  executionMs: number;
}

async function explainAll(db: SqlSession, userId: string): Promise<Record<string, Explained>> {
  const out: Record<string, Explained> = {};
  for (const [name, q] of Object.entries(QUERIES)) {
    const rows = await db.query<Record<string, string>>(`explain (analyze, buffers) ${q.sql}`, q.params(userId));
    const plan = rows.map((r) => Object.values(r)[0] ?? '');
    const time = plan.map((l) => /Execution Time: ([\d.]+) ms/.exec(l)).find(Boolean);
    out[name] = { plan, executionMs: time ? Number(time[1]) : NaN };
  }
  return out;
}

/**
 * The two list pages as history grows: one user's page (their 1,000 records among everyone's)
 * and the admin's first page of all records, at 10k, 100k (and 1M on a PostgreSQL server).
 */
export const growth: Scenario = {
  name: 'growth',
  summary: "a user's transaction page and the admin's list page at 10k, 100k (and 1M on PostgreSQL) records",
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const onServer = Boolean(ctx.bench.databaseUrl);
    const s = ctx.smoke
      ? { stages: [1_000, 2_000], userRecords: 100, bulkUsers: 50, connections: 5, durationS: 1, warmupS: 0 }
      : { stages: onServer ? [10_000, 100_000, 1_000_000] : [10_000, 100_000], userRecords: 1_000, bulkUsers: 1_000, connections: 10, durationS: 5, warmupS: 1 };
    const svc = await ServiceInstance.launch(ctx.bench, { label: 'growth', ledgerCloseMs: 0, bcryptCost: 4 });
    try {
      const admin = await adminToken(svc);
      const [user] = await createUsers(svc, 'gr', 1);
      const routes = [
        { key: 'healthz', label: 'GET /healthz (baseline)', path: '/healthz', token: undefined },
        { key: 'userList', label: "GET /api/ledger/transactions/:userId (a user's page)", path: `/api/ledger/transactions/${user!.userId}`, token: user!.token },
        { key: 'adminList', label: 'GET /api/admin/transactions (first page)', path: '/api/admin/transactions', token: admin },
      ];
      let indexes: Record<string, unknown>[] = [];
      let nextBulk = 1;
      const curve: { stage: number; rows: number; seedSeconds: number; explain: Record<string, Explained>; load: Record<string, LoadFigures> }[] = [];
      for (const [i, stage] of s.stages.entries()) {
        if (ctx.signal.aborted) throw new Error('aborted');
        ctx.log(`growing the history to ${stage.toLocaleString('en')} records`);
        const started = performance.now();
        const seeded = await onServiceDatabase(svc, async (db) => {
          if (i === 0) {
            await insertBulkUsers(db, s.bulkUsers);
            await insertUserTransactions(db, user!.userId, user!.publicKey, s.userRecords);
            indexes = await db.query("select tablename, indexname, indexdef from pg_indexes where tablename in ('ledger_entries', 'users') order by tablename, indexname");
          }
          const missing = stage - (await countTransactions(db));
          await insertBulkTransactions(db, nextBulk, nextBulk + missing - 1, s.bulkUsers);
          nextBulk += Math.max(0, missing);
          await vacuumAnalyze(db);
          return { rows: await countTransactions(db), explain: await explainAll(db, user!.userId) };
        });
        const seedSeconds = round((performance.now() - started) / 1000, 1);
        ctx.log(`${seeded.rows.toLocaleString('en')} records (${seedSeconds} s to seed); autocannon ${s.connections} connections, ${s.durationS} s per route`);
        const load: Record<string, LoadFigures> = {};
        for (const r of routes) {
          const url = `${svc.baseUrl}${r.path}`;
          const headers: Record<string, string> = r.token ? { authorization: `Bearer ${r.token}` } : {};
          if (s.warmupS > 0) await runLoad({ label: 'warm-up', url, connections: s.connections, durationS: s.warmupS, headers });
          load[r.key] = await runLoad({ label: r.label, url, connections: s.connections, durationS: s.durationS, headers, loopOf: svc.baseUrl });
        }
        curve.push({ stage, rows: seeded.rows, seedSeconds, explain: seeded.explain, load });
      }

      const targets: TargetCheck[] = [];
      const loadRows: Record<string, Cell>[] = [];
      const planRows: Record<string, Cell>[] = [];
      for (const c of curve) {
        const size = c.rows.toLocaleString('en');
        for (const r of routes) loadRows.push(loadRow(c.load[r.key]!, { records: size }));
        planRows.push({ records: size, ...Object.fromEntries(Object.entries(c.explain).map(([k, e]) => [`${k} ms`, e.executionMs])) });
        for (const key of ['userList', 'adminList']) {
          const f = c.load[key]!;
          targets.push({ name: `${f.label} at ${size} records: p99`, goal: '< 30 ms', figure: `${f.p99} ms (${f.rps} req/s, healthz ${c.load.healthz!.rps} req/s)`, pass: f.p99 < 30 && f.non2xx + f.errors === 0 });
        }
      }
      return {
        scenario: 'growth',
        settings: { ...s, database: onServer ? 'postgres' : 'embedded', ledgerCloseMs: 0, bcryptCost: 4, queries: Object.fromEntries(Object.entries(QUERIES).map(([k, q]) => [k, q.sql])) },
        baseline: { healthz: Object.fromEntries(curve.map((c) => [c.rows, c.load.healthz])) },
        figures: { curve: curve.map((c) => ({ records: c.rows, seedSeconds: c.seedSeconds, load: c.load, explain: c.explain })), indexes },
        tables: [
          { title: `autocannon, ${s.connections} connections, ${s.durationS} s per route (latency ms)`, rows: loadRows },
          { title: 'EXPLAIN ANALYZE execution time of the SQL behind each route (ms, bench process; full plans in the JSON)', rows: planRows },
          { title: 'indexes', rows: indexes.map((x) => ({ index: String(x.indexname), definition: String(x.indexdef) })) },
        ],
        targets,
        notes: [
          `The user owns ${s.userRecords} records; the rest belong to ${s.bulkUsers} users seeded in SQL. Both routes answer their default page (100) and the total in X-Total-Count (a second query).`,
          'After each seeding step: VACUUM ANALYZE, as autovacuum would leave a table in steady state.',
          'Seeding and EXPLAIN run on a separate connection while the service idles.',
        ],
      };
    } finally {
      await svc.dispose();
    }
  },
};
