import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { sandboxControlPaths } from '@wallet/paystack-sandbox';
import { sql } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import type { Response } from 'supertest';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { ADMIN, adminToken, bearer, createUser } from '../helpers/factories';
import { fundedUser } from '../helpers/ledger-fixtures';
import { providerControl, relayedProvider } from '../helpers/provider-relay';
import { tableRoutes, type RouteKey } from '../helpers/route-inventory';
import { stellarSeedsIn } from '../helpers/secret-patterns';
import { queryDatabase, runCli, scratchDatabase, serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../helpers/service-process';
import type { TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';
import { addPayoutAccount, FAST_CASH_OUT, setProviderBalance, withdraw, withdrawalBecomes } from '../helpers/withdrawal-fixtures';

/**
 * The tamper-evident admin log (CONTRACT 11, src/domain/admin-log.ts): every admin action leaves
 * exactly one row naming it, in one hash chain across processes, and `npm run audit:verify` names
 * the first row that an edit, a deletion, an insertion or a swap in the database broke.
 */

const relay = relayedProvider();
const { ledger, startApp } = withSandboxes({ app: false });

interface LogRow {
  seq: string;
  admin_id: string | null;
  action: string;
  target: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}

const logRows = (app: TestApp) =>
  queryRows<LogRow>(app.container.database, sql`select seq::text, admin_id, action, target, request_id, details from admin_log order by admin_log.seq`);

/** Reads that answer a secret: they are logged like the routes that change state. */
const SECRET_READS = new Set<RouteKey>(['GET /api/admin/users/:userId/wallet']);

describe('the admin log', () => {
  it('gets exactly one row naming its action from every admin route that changes state or answers a secret, and no row holds a secret', async () => {
    const provider = relay.provider();
    // Money creation above 150 tokens takes a second admin: the approval routes are walked too.
    const app = await startApp({ ...FAST_CASH_OUT, ...provider.env, MINT_APPROVAL_THRESHOLD: '150' });
    relay.deliverTo(app);
    app.container.start();
    await setProviderBalance(provider, 0);
    const admin = await adminToken(app);
    const [me] = await queryRows<{ id: string }>(app.container.database, sql`select id from admins where email = ${ADMIN.email}`);
    const user = await fundedUser(app, 100);
    const doomed = await createUser(app);
    // A second admin asks for two mints above the threshold: one to approve, one to reject.
    const second = { email: 'requester@example.com', password: 'requester-password-1' };
    await app.container.admins.provision(second.email, second.password, { adminId: null });
    const secondToken = (await app.http.post('/api/admin/login').send(second).expect(200)).body.token as string;
    for (let i = 0; i < 2; i += 1) await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '150' }).expect(200);
    const requestMint = async () => (await app.http.post('/api/payments/mint-tokens').set(bearer(secondToken)).send({ userId: user.userId, amount: 151 }).expect(202)).body.approvalId as string;
    const toApprove = await requestMint();
    const toReject = await requestMint();
    const account = await addPayoutAccount(app, user);
    // One withdrawal waits for the float (to cancel); the one to finalize is made when the provider can pay it.
    const toCancel = await withdraw(app, user, { amount: 5, payoutAccountId: account });
    await withdrawalBecomes(app, toCancel.body.withdrawalId, 'waiting_float');
    const awaitingOtp = async () => {
      await setProviderBalance(provider, 100_000_00);
      await providerControl(provider, sandboxControlPaths.transferOtp(), { enabled: true });
      const made = await withdraw(app, user, { amount: 6, payoutAccountId: account });
      await withdrawalBecomes(app, made.body.withdrawalId, 'awaiting_otp');
      await providerControl(provider, sandboxControlPaths.transferOtp(), { enabled: false });
      return made.body.withdrawalId as string;
    };
    let toFinalize = '';
    let authenticator: OTPAuth.TOTP | undefined;
    let recoveryCodes: string[] = [];
    let endpointId = '';

    const as = bearer(admin);
    const calls: Record<string, { action: string; target?: string | ((res: Response) => string); call: () => Promise<Response> }> = {
      // First: the provider cannot pay it yet, so no transfer can exist.
      'POST /api/admin/withdrawals/:id/cancel': {
        action: 'withdrawal.cancel',
        target: toCancel.body.withdrawalId,
        call: () => app.http.post(`/api/admin/withdrawals/${toCancel.body.withdrawalId}/cancel`).set(as).send(),
      },
      'POST /api/admin/login': { action: 'admin.login', call: () => app.http.post('/api/admin/login').send(ADMIN) },
      'POST /api/admin/provision': { action: 'admin.provision', target: (res) => res.body.adminId, call: () => app.http.post('/api/admin/provision').set(as).send({ email: 'second@example.com', password: 'second-admin-password' }) },
      'PUT /api/admin/users/:userId': { action: 'user.update', target: user.userId, call: () => app.http.put(`/api/admin/users/${user.userId}`).set(as).send({ firstName: 'Renamed' }) },
      'DELETE /api/admin/users/:userId': { action: 'user.delete', target: doomed.userId, call: () => app.http.delete(`/api/admin/users/${doomed.userId}`).set(as) },
      'GET /api/admin/users/:userId/wallet': { action: 'wallet.secret_read', target: user.userId, call: () => app.http.get(`/api/admin/users/${user.userId}/wallet`).set(as) },
      'POST /api/ledger/create-asset': { action: 'ledger.issue', call: () => app.http.post('/api/ledger/create-asset').set(as).send({ assetCode: 'WLT', amount: '10' }) },
      'POST /api/payments/mint-tokens': { action: 'ledger.mint', target: user.userId, call: () => app.http.post('/api/payments/mint-tokens').set(as).send({ userId: user.userId, amount: 1 }) },
      'POST /api/admin/withdrawals/:id/finalize': {
        action: 'withdrawal.finalize',
        target: () => toFinalize,
        call: async () => {
          toFinalize = await awaitingOtp();
          return app.http.post(`/api/admin/withdrawals/${toFinalize}/finalize`).set(as).send({ otp: '123456' });
        },
      },
      'POST /api/admin/approvals/:id/approve': { action: 'approval.approve', target: toApprove, call: () => app.http.post(`/api/admin/approvals/${toApprove}/approve`).set(as).send() },
      'POST /api/admin/approvals/:id/reject': { action: 'approval.reject', target: toReject, call: () => app.http.post(`/api/admin/approvals/${toReject}/reject`).set(as).send() },
      // Last: once MFA is on, this admin's logins need a code.
      'POST /api/admin/webhook-endpoints': {
        action: 'webhook.endpoint_created',
        target: (res) => res.body.endpointId,
        call: async () => {
          const res = await app.http.post('/api/admin/webhook-endpoints').set(as).send({ url: 'http://127.0.0.1:9/hooks' });
          endpointId = res.body.endpointId;
          return res;
        },
      },
      'POST /api/admin/webhook-endpoints/:id/rotate-secret': {
        action: 'webhook.secret_rotated',
        target: () => endpointId,
        call: () => app.http.post(`/api/admin/webhook-endpoints/${endpointId}/rotate-secret`).set(as),
      },
      'POST /api/admin/webhook-endpoints/:id/replay': {
        action: 'webhook.replayed',
        target: () => endpointId,
        call: () => app.http.post(`/api/admin/webhook-endpoints/${endpointId}/replay`).set(as).send({ since: new Date().toISOString() }),
      },
      'DELETE /api/admin/webhook-endpoints/:id': {
        action: 'webhook.endpoint_deleted',
        target: () => endpointId,
        call: () => app.http.delete(`/api/admin/webhook-endpoints/${endpointId}`).set(as),
      },
      'POST /api/admin/mfa/setup': {
        action: 'admin.mfa_setup',
        target: me!.id,
        call: async () => {
          const res = await app.http.post('/api/admin/mfa/setup').set(as).send({ password: ADMIN.password });
          authenticator = OTPAuth.URI.parse(res.body.otpauthUri) as OTPAuth.TOTP;
          return res;
        },
      },
      'POST /api/admin/mfa/confirm': {
        action: 'admin.mfa_enabled',
        target: me!.id,
        call: async () => {
          const res = await app.http.post('/api/admin/mfa/confirm').set(as).send({ otp: authenticator!.generate() });
          recoveryCodes = res.body.recoveryCodes;
          return res;
        },
      },
    };
    // The route table decides what must be logged: a new admin route that changes state needs a row here.
    const logged = tableRoutes(app.container.routeGroups)
      .filter(({ key, def }) => (def.access === 'admin' && (def.method !== 'get' || SECRET_READS.has(key))) || key === 'POST /api/admin/login')
      .map(({ key }) => key)
      .sort();
    expect(Object.keys(calls).sort()).toEqual(logged);

    for (const [key, { action, target, call }] of Object.entries(calls)) {
      const before = await logRows(app);
      const res = await call();
      expect({ key, ok: res.status < 300 }).toEqual({ key, ok: true });
      const after = await logRows(app);
      expect({ key, added: after.length - before.length }).toEqual({ key, added: 1 });
      const row = after[after.length - 1]!;
      const expectedTarget = typeof target === 'function' ? target(res) : target;
      expect({ key, action: row.action, adminId: row.admin_id, target: row.target ?? undefined }).toEqual({ key, action, adminId: me!.id, target: expectedTarget });
      expect(row.request_id).toEqual(res.headers['x-request-id']);
    }

    // A decision already made is no new action: rejecting the rejected one again writes no row.
    const rowsBefore = (await logRows(app)).length;
    expect((await app.http.post(`/api/admin/approvals/${toReject}/reject`).set(as).send()).status).toBe(200);
    expect((await logRows(app)).length).toBe(rowsBefore);

    // A failed login is an action too: its row, and no token.
    const failed = await app.http.post('/api/admin/login').send({ email: ADMIN.email, password: 'not-the-password' });
    expect(failed.status).toBe(401);
    expect((await logRows(app)).at(-1)).toMatchObject({ action: 'admin.login_failed', admin_id: me!.id, details: { email: ADMIN.email, reason: 'wrong password' } });

    // Nothing secret in any row: no seed, no password, no token, no OTP.
    const wallet = await app.http.get(`/api/admin/users/${user.userId}/wallet`).set(as).expect(200);
    const all = JSON.stringify(await queryRows(app.container.database, sql`select * from admin_log`));
    expect(stellarSeedsIn(all)).toEqual([]);
    expect(recoveryCodes).toHaveLength(10);
    for (const secret of [wallet.body.ledgerSecretKey, ADMIN.password, second.password, secondToken, 'second-admin-password', 'not-the-password', admin, '123456', authenticator!.secret.base32, ...recoveryCodes]) expect(all).not.toContain(secret);
    expect(all).not.toContain('otpauth://');
    expect(all).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./);

    const page = await app.http.get(`/api/admin/audit-log?action=ledger.mint&adminId=${me!.id}&limit=50`).set(as).expect(200);
    expect(page.body.length).toBeGreaterThanOrEqual(2);
    for (const item of page.body) expect(item).toMatchObject({ action: 'ledger.mint', adminId: me!.id, seq: expect.stringMatching(/^\d+$/), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(Number(page.headers['x-total-count'])).toBe(page.body.length);
    for (const bad of ['?action=DROP%20TABLE', '?adminId=nope', '?limit=0', '?other=1']) {
      const res = await app.http.get(`/api/admin/audit-log${bad}`).set(as);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(expect.objectContaining({ message: expect.any(String) }));
    }
  });

  it('sends a wallet secret only once its row is written: while the log cannot be appended to, the secret waits', async () => {
    const app = await startApp({ ...relay.provider().env });
    const admin = await adminToken(app);
    const user = await createUser(app);
    const waiters = async () => {
      const [row] = await queryRows<{ n: number }>(
        app.container.database,
        sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'`,
      );
      return row!.n;
    };
    let answered = false;
    const read = app.http.get(`/api/admin/users/${user.userId}/wallet`).set(bearer(admin)).then((res) => {
      answered = true;
      return res;
    });
    // The log's lock is held from outside: the read waits to append its row, and nothing is sent meanwhile.
    await app.container.database.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('admin_log'))`);
      await eventually(async () => ((await waiters()) >= 1 ? true : undefined), 'the read to wait for the admin log', { intervalMs: 20 });
      expect(answered).toBe(false);
    });
    const res = await read;
    expect(res.status).toBe(200);
    const [row] = await queryRows<{ action: string; target: string }>(app.container.database, sql`select action, target from admin_log order by seq desc limit 1`);
    expect(row).toEqual({ action: 'wallet.secret_read', target: user.userId });
  });

  describe('written by two service processes at once', () => {
    let processes: ServiceProcess[] = [];
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-verify-'));
    afterAll(async () => {
      await Promise.all(processes.map((p) => p.kill('SIGTERM')));
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('holds as one chain, and audit:verify names the first row an edit, a deletion, an insertion or a swap broke', async () => {
      const databaseUrl = await scratchDatabase(`admin_log_${process.pid}`);
      const env = serviceProcessEnv(databaseUrl, { ...ledger.env, ...relay.provider().env });
      processes = [await startServiceProcess(env), await startServiceProcess(env)];
      // Both processes log in and fail to log in, forty times at once.
      const attempts = processes.flatMap((p, i) =>
        Array.from({ length: 20 }, (_, n) =>
          fetch(`${p.url}/api/admin/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: ADMIN.email, password: (n + i) % 2 === 0 ? ADMIN.password : 'wrong-password-0' }),
          }).then((r) => r.status),
        ),
      );
      expect((await Promise.all(attempts)).sort()).toEqual([...Array(20).fill(200), ...Array(20).fill(401)]);
      const [{ n }] = (await queryDatabase<{ n: string }>(databaseUrl, 'select count(*) as n from admin_log')) as [{ n: string }];
      const verify = () => runCli('audit-verify', { ...env, DATA_DIR: dataDir });

      const clean = await verify();
      expect(clean).toMatchObject({ code: 0 });
      expect(clean.output).toMatch(new RegExp(`${n} rows, the chain holds; head [0-9a-f]{64}`));

      const [row5] = await queryDatabase<Record<string, unknown>>(databaseUrl, 'select * from admin_log where seq = 5');
      const restore = async () => {
        await queryDatabase(databaseUrl, 'delete from admin_log where seq = 5');
        await queryDatabase(databaseUrl, 'insert into admin_log select * from json_populate_record(null::admin_log, $1)', [JSON.stringify(row5)]);
        expect((await verify()).code).toBe(0);
      };

      // An edit: row 5 says another address.
      await queryDatabase(databaseUrl, `update admin_log set details = '{"email": "someone@example.com"}' where seq = 5`);
      expect(await verify()).toMatchObject({ code: 4, output: expect.stringMatching(/broken at row seq 5: its hash does not match its content/) });
      await restore();

      // A deletion: row 5 is gone, row 6 no longer follows.
      await queryDatabase(databaseUrl, 'delete from admin_log where seq = 5');
      expect(await verify()).toMatchObject({ code: 4, output: expect.stringMatching(/broken at row seq 6: seq 6 where 5 was expected/) });
      await restore();

      // An insertion after the head, with a made-up hash.
      const next = Number(n) + 1;
      await queryDatabase(databaseUrl, `insert into admin_log select ${next}, now(), admin_id, 'ledger.mint', target, request_id, ip, details, prev_hash, hash from admin_log where seq = 5`);
      expect(await verify()).toMatchObject({ code: 4, output: expect.stringMatching(new RegExp(`broken at row seq ${next}: its prev_hash is not the previous row's hash`)) });
      await queryDatabase(databaseUrl, `delete from admin_log where seq = ${next}`);

      // A swap: rows 3 and 4 trade places, each with its own hashes.
      await queryDatabase(databaseUrl, 'update admin_log set seq = -seq where seq in (3, 4)');
      await queryDatabase(databaseUrl, 'update admin_log set seq = case seq when -3 then 4 else 3 end where seq in (-3, -4)');
      expect(await verify()).toMatchObject({ code: 4, output: expect.stringMatching(/broken at row seq 3: its prev_hash is not the previous row's hash/) });
    });
  });
});
