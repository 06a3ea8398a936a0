import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { boolean, integer, pgTable, timestamp, uuid } from 'drizzle-orm/pg-core';
import { PgBoss } from 'pg-boss';
import { openDatabase, type DatabaseHandle } from '../../src/db/client';
import { claimDueRows } from '../../src/db/repositories/leased-claims';
import type { Scenario, ScenarioContext, ScenarioResult } from './types';

// Issue 49 asks why the service's older background work (sweeps over payments, withdrawals,
// reversals, the provider's webhook inbox, the mail outbox) stays on its leased claims
// (src/db/repositories/leased-claims.ts) instead of moving onto pg-boss with the webhook
// deliveries. The argument is about truth (the row is the work), docs/events.md; this measures the
// cost side on one database in one run: items worked per second through each, each item's own
// work being nothing (so what is measured is the machinery).

/** A table shaped like the sweeps' rows: due when next_check_at has passed, done when worked. */
const benchClaims = pgTable('bench_claims', {
  id: uuid('id').primaryKey().defaultRandom(),
  nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull().defaultNow(),
  attempts: integer('attempts').notNull().default(0),
  done: boolean('done').notNull().default(false),
});

const BATCH = 100;

/** Leased claims: batches of due rows claimed by one statement each, every row then moved by its own statement (as the sweeps do). */
async function claims(database: DatabaseHandle, items: number): Promise<{ seconds: number; statements: number }> {
  const { db } = database;
  await db.execute(sql`create table bench_claims (id uuid primary key default gen_random_uuid(), next_check_at timestamptz not null default now(), attempts int not null default 0, done boolean not null default false)`);
  await db.execute(sql`create index on bench_claims (next_check_at) where not done`);
  await db.execute(sql`insert into bench_claims (next_check_at) select now() - interval '1 second' from generate_series(1, ${items})`);
  let statements = 0;
  const started = performance.now();
  for (;;) {
    const ids = await claimDueRows(db, benchClaims, { dueAt: benchClaims.nextCheckAt, waiting: sql`not done`, alsoSet: sql`attempts = attempts + 1` }, BATCH, 60_000);
    statements += 1;
    if (ids.length === 0) break;
    for (const id of ids) {
      await db.update(benchClaims).set({ done: true }).where(sql`${benchClaims.id} = ${id}`);
      statements += 1;
    }
  }
  return { seconds: (performance.now() - started) / 1000, statements };
}

/** pg-boss: the same number of jobs inserted, then worked by one worker in batches, fetched again at once while full (as the deliveries are; the queue completes a batch at once). */
async function queue(url: string, items: number): Promise<{ enqueueSeconds: number; seconds: number }> {
  const boss = new PgBoss({ connectionString: url, max: 4, schedule: false, supervise: false });
  boss.on('error', () => undefined);
  await boss.start();
  try {
    await boss.createQueue('bench');
    const enqueueStarted = performance.now();
    for (let i = 0; i < items; i += 1000) {
      await boss.insert('bench', Array.from({ length: Math.min(1000, items - i) }, (_, k) => ({ data: { n: i + k } })));
    }
    const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;
    let worked = 0;
    const started = performance.now();
    await new Promise<void>((resolve) => {
      void boss.work('bench', { batchSize: BATCH, burstWhenBatchFull: true, pollingIntervalSeconds: 0.5 }, async (jobs) => {
        worked += jobs.length;
        if (worked >= items) resolve();
      });
    });
    return { enqueueSeconds, seconds: (performance.now() - started) / 1000 };
  } finally {
    await boss.stop({ graceful: false, timeout: 5000 }).catch(() => undefined);
  }
}

export const queueClaims: Scenario = {
  name: 'queue-claims',
  summary: "Leased claims (the older background work) against pg-boss jobs (the webhook deliveries): items per second on one embedded database, each item's work nothing",
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const items = ctx.smoke ? 300 : 20_000;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-queue-claims-'));
    const database = await openDatabase({ dataDir, poolSize: 4 });
    try {
      ctx.log(`leased claims: ${items} due rows, claimed ${BATCH} at a time, each row moved by its own statement`);
      const claimed = await claims(database, items);
      ctx.log(`pg-boss: ${items} jobs inserted, worked ${BATCH} at a time`);
      const queued = await queue(database.url, items);
      const claimRate = items / claimed.seconds;
      const queueRate = items / queued.seconds;
      return {
        scenario: 'queue-claims',
        settings: { items, batch: BATCH, database: 'embedded PostgreSQL (DATA_DIR in the OS temp directory)' },
        baseline: { claimsPerSecond: Math.round(claimRate) },
        figures: { queueJobsPerSecond: Math.round(queueRate), queueEnqueuePerSecond: Math.round(items / queued.enqueueSeconds), claimStatementsPerItem: (claimed.statements / items).toFixed(2) },
        tables: [
          {
            title: 'Items worked per second (no work per item: the machinery alone)',
            rows: [
              { path: 'leased claims (claim + one update per row)', 'items/s': Math.round(claimRate), seconds: claimed.seconds.toFixed(1) },
              { path: 'pg-boss (jobs inserted beforehand, worked in batches)', 'items/s': Math.round(queueRate), seconds: queued.seconds.toFixed(1) },
            ],
          },
        ],
        targets: [],
        notes: [
          `pg-boss inserted the ${items} jobs at ${Math.round(items / queued.enqueueSeconds)}/s before working them (the claims' rows existed already: the domain rows are the work).`,
          'Neither figure limits the service: its sweeps handle a few items a second at most; what decides is docs/events.md (the row is the work, a job beside it a second record).',
        ],
      };
    } finally {
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
