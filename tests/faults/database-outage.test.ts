import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import { adminToken, bearer, createUser, userFields, type CreatedUser } from '../helpers/factories';
import { queryRows } from '../helpers/database-state';
import { eventually, within } from '../helpers/eventually';
import { PATIENCE_MS } from '../helpers/patience';
import { shapeProblem } from '../helpers/route-inventory';
import { closeTestDatabase, startTestApp, type TestApp } from '../helpers/test-app';

/**
 * With TEST_DATABASE_URL (a PostgreSQL server on this machine), the server itself is restarted
 * while requests run. The embedded server of `npm test` is shared by every Jest worker of the run,
 * so there the same failure is played inside the engine, in this worker's database only: for a
 * while every wallet insert fails with the error an in-flight query gets from a restarting server
 * (57P01 admin_shutdown), which hits signup in the middle of its transaction, after the user row
 * was written.
 */
const onServer = process.env.TEST_DATABASE_URL !== undefined;

async function restartPostgres(): Promise<void> {
  const version = fs.existsSync('/etc/postgresql') ? fs.readdirSync('/etc/postgresql')[0] : undefined;
  if (!version) throw new Error('TEST_DATABASE_URL is set, but there is no local cluster under /etc/postgresql for pg_ctlcluster to restart');
  await new Promise<void>((resolve, reject) =>
    execFile('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart'], { timeout: PATIENCE_MS }, (err, _out, stderr) =>
      err ? reject(new Error(`pg_ctlcluster failed: ${stderr || err.message}`)) : resolve(),
    ),
  );
}

const FAULT_ON = [
  `create or replace function hardening_db_down() returns trigger language plpgsql as $$
   begin
     raise exception using errcode = 'admin_shutdown', message = 'terminating connection due to administrator command';
   end $$`,
  'drop trigger if exists hardening_db_down on wallets',
  'create trigger hardening_db_down before insert on wallets for each row execute function hardening_db_down()',
];
const FAULT_OFF = ['drop trigger if exists hardening_db_down on wallets', 'drop function if exists hardening_db_down()'];

interface Outcome {
  what: 'signup' | 'login' | 'profile' | 'admin';
  status: number;
  body: unknown;
  username?: string;
  /** Which traffic worker sent it, in which of its rounds, and whether that round began after the recovery was seen. */
  worker: number;
  round: number;
  afterRecovery: boolean;
}

let app: TestApp | undefined;
afterEach(async () => {
  if (!app) return;
  if (!onServer) for (const statement of FAULT_OFF) await app.container.database.db.execute(sql.raw(statement)).catch(() => undefined);
  await app.close();
});

describe(onServer ? 'the PostgreSQL server restarted mid-traffic' : 'the embedded database failing mid-transaction', () => {
  it('answers clean 503s in each group shape, never crashes, leaves no user without a wallet, and recovers by itself', async () => {
    const service = (app = await startTestApp());
    const db = service.container.database;
    const users: CreatedUser[] = [await createUser(service), await createUser(service)];
    const admin = await adminToken(service);
    const outcomes: Outcome[] = [];
    let stop = false;
    let recovered = false;

    const worker = async (id: number) => {
      for (let i = 0; !stop; i++) {
        const round = { worker: id, round: i, afterRecovery: recovered };
        const u = users[(id + i) % users.length]!;
        const fields = userFields();
        const [signup, login, profile, list] = await Promise.all([
          service.http.post('/api/users/signup').send(fields),
          service.http.post('/api/users/login').send({ identifier: u.username, password: u.password }),
          service.http.get('/api/users/profile').set(bearer(u.token)),
          service.http.get('/api/admin/users?limit=5').set(bearer(admin)),
        ]);
        outcomes.push(
          { what: 'signup', status: signup.status, body: signup.body, username: fields.username, ...round },
          { what: 'login', status: login.status, body: login.body, ...round },
          { what: 'profile', status: profile.status, body: profile.body, ...round },
          { what: 'admin', status: list.status, body: list.body, ...round },
        );
      }
    };
    const succeeded = () => outcomes.filter((o) => o.status < 300).length;
    const WORKERS = [0, 1, 2];
    const workers = WORKERS.map(worker);

    // Traffic flows, then the fault strikes while it runs, then the fault ends.
    await eventually(async () => (succeeded() >= 8 ? true : undefined), 'traffic before the fault');
    const beforeFault = outcomes.length;
    if (onServer) {
      await restartPostgres();
    } else {
      for (const statement of FAULT_ON) await db.db.execute(sql.raw(statement));
      await eventually(async () => (outcomes.slice(beforeFault).some((o) => o.status === 503) ? true : undefined), 'a request to meet the fault');
      for (const statement of FAULT_OFF) await db.db.execute(sql.raw(statement));
    }
    // Recovery by itself: the same app, not rebuilt, serves signups again.
    const recoveredAt = outcomes.length;
    await eventually(async () => (outcomes.slice(recoveredAt).some((o) => o.what === 'signup' && o.status === 201) ? true : undefined), 'a signup after the fault');
    recovered = true;
    // Each worker goes on for two rounds begun after that. The last outcomes recorded are not
    // enough: a round begun during the fault may still be running, and on a busy machine it can
    // finish after the others' later rounds.
    const roundsAfterRecovery = (id: number) => new Set(outcomes.filter((o) => o.worker === id && o.afterRecovery).map((o) => o.round)).size;
    await eventually(async () => (WORKERS.every((id) => roundsAfterRecovery(id) >= 2) ? true : undefined), 'traffic after recovery');
    stop = true;
    await Promise.all(workers);

    // Every answer was a success or a clean 503 in its group's shape: no 500, no hang, no crash.
    const failures = outcomes.filter((o) => o.status >= 300);
    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) {
      expect([f.what, f.status]).toEqual([f.what, 503]);
      expect(shapeProblem(f.what === 'admin' ? 'message' : 'error', f.body)).toBeUndefined();
      expect(JSON.stringify(f.body)).toMatch(/temporarily unavailable/);
    }
    expect(new Set(outcomes.filter((o) => o.status < 300).map((o) => o.status))).toEqual(new Set([200, 201]));
    // Each worker's last round, begun after the recovery, succeeded throughout.
    for (const id of WORKERS) {
      const last = Math.max(...outcomes.filter((o) => o.worker === id).map((o) => o.round));
      const lastRound = outcomes.filter((o) => o.worker === id && o.round === last);
      expect(lastRound.map((o) => [o.what, o.afterRecovery, o.status < 300])).toEqual(lastRound.map((o) => [o.what, true, true]));
    }
    expect((await service.http.get('/healthz')).status).toBe(200);
    await eventually(async () => ((await service.http.get('/readyz')).status !== 500 ? true : undefined), 'readiness answers');

    // Nothing half-written: no user without a wallet, and every 201 signup's user is there with one.
    const orphans = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from users u left join wallets w on w.user_id = u.id where w.user_id is null`);
    expect(Number(orphans[0]!.n)).toBe(0);
    const created = outcomes.filter((o) => o.what === 'signup' && o.status === 201).map((o) => o.username!);
    const present = await queryRows<{ username: string }>(db, sql`select u.username from users u join wallets w on w.user_id = u.id`);
    const names = new Set(present.map((r) => r.username));
    expect(created.filter((name) => !names.has(name))).toEqual([]);
    if (!onServer) {
      // In the engine the failure is certain, so so is the outcome: a refused signup left no user at all.
      const refused = outcomes.filter((o) => o.what === 'signup' && o.status === 503).map((o) => o.username!);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.filter((name) => names.has(name))).toEqual([]);
      const all = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from users`);
      expect(Number(all[0]!.n)).toBe(names.size);
    }

    // Every connection the outage touched went back to the pool: the database closes (a connection
    // never released holds the pool's end for ever, and the wait names it).
    await service.close();
    app = undefined;
    await expect(within(closeTestDatabase(), 'a pooled connection was never released')).resolves.toBeUndefined();
  });
});
