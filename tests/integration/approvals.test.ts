import { sql } from 'drizzle-orm';
import type { Response } from 'supertest';
import { BAD_DAYS, FAST_JOURNAL } from '../helpers/bad-days';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { ADMIN, adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { openJournal } from '../helpers/journal-fixtures';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import type { TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * Two people for money creation (CONTRACT 11, src/domain/approval-lifecycle.ts), on the real
 * ledger sandbox: above MINT_APPROVAL_THRESHOLD, mint-tokens and create-asset move nothing until a
 * second admin approves, and an approved request is written once whatever races and retries.
 * Each money test ends with the exact balance on the ledger and the journal's entries.
 */

const THRESHOLD = '100';
const { ledger, app, startApp } = withSandboxes({ app: { env: { MINT_APPROVAL_THRESHOLD: THRESHOLD } } });

interface Admin {
  id: string;
  token: string;
}

/** The bootstrap admin (A, the requester in these tests) and two more it provisions (B and C, approvers). */
async function admins(on: TestApp = app): Promise<[Admin, Admin, Admin]> {
  const rootToken = await adminToken(on);
  const [root] = await queryRows<{ id: string }>(on.container.database, sql`select id from admins where email = ${ADMIN.email}`);
  const another = async (name: string): Promise<Admin> => {
    const email = `${name}-${Date.now()}@example.com`;
    const password = `${name}-admin-password`;
    const created = await on.http.post('/api/admin/provision').set(bearer(rootToken)).send({ email, password }).expect(201);
    const login = await on.http.post('/api/admin/login').send({ email, password }).expect(200);
    return { id: created.body.adminId as string, token: login.body.token as string };
  };
  return [{ id: root!.id, token: rootToken }, await another('second'), await another('third')];
}

/**
 * Supply for mints: create-asset of exactly the threshold, which is not above it (answered as
 * before, 200). Tests supply enough for every racing mint to apply, so a second mint would show in
 * the balance rather than be refused by the ledger for want of supply.
 */
async function supply(admin: Admin, batches: number, on: TestApp = app): Promise<void> {
  for (let i = 0; i < batches; i++) {
    await on.http.post('/api/ledger/create-asset').set(bearer(admin.token)).send({ assetCode: 'WLT', amount: THRESHOLD }).expect(200);
  }
}

const mint = (admin: Admin, user: CreatedUser, amount: string | number, key?: string, on: TestApp = app) => {
  const call = on.http.post('/api/payments/mint-tokens').set(bearer(admin.token));
  return (key ? call.set('Idempotency-Key', key) : call).send({ userId: user.userId, amount });
};
const approve = (admin: Admin, id: string, on: TestApp = app) => on.http.post(`/api/admin/approvals/${id}/approve`).set(bearer(admin.token));
const reject = (admin: Admin, id: string) => app.http.post(`/api/admin/approvals/${id}/reject`).set(bearer(admin.token));

const balanceOf = (user: CreatedUser) => ledgerBalance(ledger.url, user.ledgerPublicKey);

/** The journal's entries written for approvals (any kind), or for this one. */
async function approvedEntries(on: TestApp, approvalId?: string) {
  return queryRows<{ kind: string; status: string; amount_stroops: string; approval_id: string; id: string }>(
    on.container.database,
    sql`select kind, status, amount_stroops::text, approval_id, id from ledger_entries where approval_id is not null and (${approvalId ?? null}::uuid is null or approval_id = ${approvalId ?? null}::uuid) order by created_at`,
  );
}

/** Entries of one kind, whoever they were for. */
async function entriesOfKind(on: TestApp, kind: string) {
  return queryRows<{ status: string; amount_stroops: string }>(on.container.database, sql`select status, amount_stroops::text from ledger_entries where kind = ${kind} order by created_at`);
}

async function approvalRow(on: TestApp, id: string) {
  const [row] = await queryRows<{ status: string; requested_by: string; decided_by: string | null; entry_id: string | null }>(
    on.container.database,
    sql`select status, requested_by, decided_by, entry_id from approvals where id = ${id}`,
  );
  return row;
}

async function journalSettled(on: TestApp): Promise<void> {
  await eventually(async () => ((await openJournal(on)) === 0 ? true : undefined), 'the journal to settle', { intervalMs: 100 });
}

/** A mint request above the threshold by `admin`: its approval's id (202, nothing moved). */
async function mintAwaitingApproval(admin: Admin, user: CreatedUser, amount: string): Promise<string> {
  const res = await mint(admin, user, amount);
  expect(res.status).toBe(202);
  return res.body.approvalId as string;
}

describe('two people for money creation', () => {
  it("moves nothing on admin A's mint above the threshold until admin B approves it; then exactly the amount, once", async () => {
    const [a, b] = await admins();
    const user = await createUser(app);
    await supply(a, 4);

    const asked = await mint(a, user, '150.5');
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ success: true, message: expect.stringContaining("needs a second admin's approval"), approvalId: expect.any(String) });
    expect(asked.headers['approval-id']).toBe(asked.body.approvalId);
    const id = asked.body.approvalId as string;
    expect(await balanceOf(user)).toBe('0.0000000');
    expect(await approvedEntries(app)).toEqual([]);
    expect(await entriesOfKind(app, 'admin_mint')).toEqual([]);

    const listed = await app.http.get('/api/admin/approvals?status=pending').set(bearer(b.token)).expect(200);
    expect(listed.headers['x-total-count']).toBe('1');
    expect(listed.body).toEqual([
      expect.objectContaining({ approvalId: id, action: 'mint', status: 'pending', userId: user.userId, amount: '150.5000000', assetCode: 'WLT', requestedBy: a.id, decidedBy: null, transactionId: null }),
    ]);

    const approved = await approve(b, id);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({ success: true, message: expect.stringMatching(/^Minted 150\.5000000 WLT \(transaction [0-9a-f]{64}\)$/), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await balanceOf(user)).toBe('150.5000000');
    const [entry] = await approvedEntries(app, id);
    expect(await approvedEntries(app)).toEqual([{ kind: 'admin_mint', status: 'confirmed', amount_stroops: '1505000000', approval_id: id, id: entry!.id }]);
    expect(await approvalRow(app, id)).toEqual({ status: 'approved', requested_by: a.id, decided_by: b.id, entry_id: entry!.id });

    // Approving it again writes nothing: the answer is its entry as it stands now.
    const again = await approve(b, id);
    expect(again.status).toBe(200);
    expect(again.body.hash).toBe(approved.body.hash);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await balanceOf(user)).toBe('150.5000000');
    expect(await approvedEntries(app)).toHaveLength(1);
  });

  it('mints at the threshold itself at once: only strictly more waits', async () => {
    const [a] = await admins();
    const user = await createUser(app);
    await supply(a, 1);
    const res = await mint(a, user, THRESHOLD);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.stringContaining('Minted 100.0000000 WLT'), hash: expect.any(String) });
    expect(await balanceOf(user)).toBe('100.0000000');
    expect(await queryRows(app.container.database, sql`select id from approvals`)).toEqual([]);
  });

  it('refuses the requester approving their own request (403), and nothing moves', async () => {
    const [a, b] = await admins();
    const user = await createUser(app);
    await supply(a, 2);
    const id = await mintAwaitingApproval(a, user, '150');

    const own = await approve(a, id);
    expect(own.status).toBe(403);
    expect(own.body).toEqual({ message: 'You cannot approve your own request: another admin must' });
    expect(await approvalRow(app, id)).toMatchObject({ status: 'pending', decided_by: null, entry_id: null });
    expect(await balanceOf(user)).toBe('0.0000000');
    expect(await approvedEntries(app)).toEqual([]);

    // Still there for another admin.
    expect((await approve(b, id)).status).toBe(200);
    expect(await balanceOf(user)).toBe('150.0000000');
  });

  it('mints once when several admins approve at once', async () => {
    const [a, b, c] = await admins();
    const user = await createUser(app);
    await supply(a, 6);
    const id = await mintAwaitingApproval(a, user, '150');

    const answers = await Promise.all([approve(b, id), approve(c, id), approve(b, id), approve(c, id)]);

    // Each is the one entry's answer: confirmed (200), or still pending on the ledger (202) for a loser that read it early.
    await journalSettled(app);
    const entries = await approvedEntries(app, id);
    expect(entries).toEqual([expect.objectContaining({ kind: 'admin_mint', status: 'confirmed', amount_stroops: '1500000000' })]);
    expect(await balanceOf(user)).toBe('150.0000000');
    const settled = await approve(c, id);
    expect(settled.status).toBe(200);
    for (const answer of answers) {
      if (answer.status === 202) expect(answer.body.result).toMatchObject({ transactionId: entries[0]!.id, status: 'pending' });
      else expect({ status: answer.status, hash: answer.body.hash }).toEqual({ status: 200, hash: settled.body.hash });
    }
  });

  it('rejects: a rejected approval never mints, and approving it is 409', async () => {
    const [a, b] = await admins();
    const user = await createUser(app);
    await supply(a, 2);
    const id = await mintAwaitingApproval(a, user, '150');

    const rejected = await reject(b, id);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual({ message: 'Approval rejected', status: 'rejected' });
    const late = await approve(b, id);
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ message: 'Approval is rejected: it never executes' });
    expect((await reject(a, id)).status).toBe(200);

    expect(await approvalRow(app, id)).toMatchObject({ status: 'rejected', decided_by: b.id, entry_id: null });
    expect(await balanceOf(user)).toBe('0.0000000');
    expect(await approvedEntries(app)).toEqual([]);
    const listed = await app.http.get('/api/admin/approvals?status=rejected').set(bearer(b.token)).expect(200);
    expect(listed.body.map((x: { approvalId: string }) => x.approvalId)).toEqual([id]);
  });

  it('lets the requester withdraw their own request by rejecting it', async () => {
    const [a, b] = await admins();
    const user = await createUser(app);
    const id = await mintAwaitingApproval(a, user, '150');
    expect((await reject(a, id)).body).toEqual({ message: 'Approval rejected', status: 'rejected' });
    expect((await approve(b, id)).status).toBe(409);
    expect(await approvedEntries(app)).toEqual([]);
  });

  it('expires: an approval past its 24 hours never mints (409), and reads expired', async () => {
    const [a, b] = await admins();
    const user = await createUser(app);
    await supply(a, 2);
    const id = await mintAwaitingApproval(a, user, '150');
    const other = await mintAwaitingApproval(a, user, '120');
    // Arranged, not acted: its 24 hours (by the database's clock) are over.
    await app.container.database.db.execute(sql`update approvals set expires_at = now() - interval '1 second'`);

    const late = await approve(b, id);
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ message: 'Approval is expired: it never executes' });
    expect(await approvalRow(app, id)).toMatchObject({ status: 'expired', decided_by: null, entry_id: null });
    expect((await reject(b, other)).status).toBe(409);
    // The list shows the other one expired too, though nobody asked about it.
    const listed = await app.http.get('/api/admin/approvals?status=expired').set(bearer(b.token)).expect(200);
    expect(listed.body.map((x: { approvalId: string }) => x.approvalId).sort()).toEqual([id, other].sort());
    expect(await balanceOf(user)).toBe('0.0000000');
    expect(await approvedEntries(app)).toEqual([]);
  });

  it('binds an Idempotency-Key to the approval: the same request answers it again, another body is 409', async () => {
    const [a, b] = await admins();
    const user = await createUser(app);
    await supply(a, 2);

    const first = await mint(a, user, '150', 'mint-approval-1');
    expect(first.status).toBe(202);
    const again = await mint(a, user, 150, 'mint-approval-1');
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.approvalId).toBe(first.body.approvalId);
    for (const other of ['151', '50']) {
      const reused = await mint(a, user, other, 'mint-approval-1');
      expect(reused.status).toBe(409);
      expect(reused.body).toEqual({ success: false, message: 'Idempotency-Key was already used with a different request' });
    }
    expect(await queryRows(app.container.database, sql`select id from approvals`)).toHaveLength(1);
    expect(await entriesOfKind(app, 'admin_mint')).toEqual([]);

    // Approved, the key still answers its approval (never a second mint), now saying it was approved.
    expect((await approve(b, first.body.approvalId)).status).toBe(200);
    const after = await mint(a, user, '150', 'mint-approval-1');
    expect(after.status).toBe(202);
    expect(after.body).toEqual({ success: true, message: expect.stringContaining('was approved'), approvalId: first.body.approvalId });
    expect(await balanceOf(user)).toBe('150.0000000');
    expect(await entriesOfKind(app, 'admin_mint')).toHaveLength(1);
  });

  it('holds create-asset above the threshold the same way: nothing issued until another admin approves, then once', async () => {
    const [a, b] = await admins();
    const distribution = (await app.container.ledgerModule.bootstrap.ready()).keys.distribution.publicKey();
    await supply(a, 1);
    const before = await ledgerBalance(ledger.url, distribution);

    const asked = await app.http.post('/api/ledger/create-asset').set(bearer(a.token)).send({ assetCode: 'WLT', amount: '1000' });
    expect(asked.status).toBe(202);
    expect(asked.headers['content-type']).toMatch(/^text\/plain/);
    const id = asked.headers['approval-id'] as string;
    expect(asked.text).toBe(`Issuing 1000.0000000 WLT needs a second admin's approval: nothing moves until another admin approves it (POST /api/admin/approvals/${id}/approve)`);
    expect(await ledgerBalance(ledger.url, distribution)).toBe(before);
    expect(await approvedEntries(app)).toEqual([]);

    expect((await approve(a, id)).status).toBe(403);
    const approved = await approve(b, id);
    expect(approved.status).toBe(200);
    expect(approved.headers['content-type']).toMatch(/^text\/plain/);
    expect(approved.text).toMatch(/^Issued 1000\.0000000 WLT to the distribution account \(transaction [0-9a-f]{64}\)$/);
    expect(await ledgerBalance(ledger.url, distribution)).toBe('1100.0000000');
    expect(await approvedEntries(app, id)).toEqual([expect.objectContaining({ kind: 'issue', status: 'confirmed', amount_stroops: '10000000000' })]);
    expect((await approve(b, id)).text).toBe(approved.text);
    expect(await ledgerBalance(ledger.url, distribution)).toBe('1100.0000000');
  });

  it('answers bad input in the admin group shape, never a 500', async () => {
    const [a, b] = await admins();
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const path of ['/api/admin/approvals/not-a-uuid/approve', '/api/admin/approvals/not-a-uuid/reject', "/api/admin/approvals/1'%20or%201=1/approve"]) {
      const res = await app.http.post(path).set(bearer(b.token));
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body).toEqual({ message: expect.any(String), details: [expect.objectContaining({ path: 'params.id' })] });
    }
    for (const res of [await approve(b, unknown), await reject(b, unknown)]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Approval not found' });
    }
    for (const query of ['status=bogus', 'status=', 'limit=0', 'offset=-1', 'status=pending&extra=1', 'status[]=pending']) {
      const res = await app.http.get(`/api/admin/approvals?${query}`).set(bearer(a.token));
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.body).toEqual({ message: expect.any(String), details: expect.any(Array) });
    }
    const empty = await app.http.get('/api/admin/approvals').set(bearer(a.token)).expect(200);
    expect(empty.body).toEqual([]);
    expect(empty.headers['x-total-count']).toBe('0');
  });
});

describe('with MINT_APPROVAL_THRESHOLD unset', () => {
  it('mints and issues any amount at once, answering as before', async () => {
    const unset = await startApp({ MINT_APPROVAL_THRESHOLD: '' });
    const [a] = await admins(unset);
    const user = await createUser(unset);

    const issued = await unset.http.post('/api/ledger/create-asset').set(bearer(a.token)).send({ assetCode: 'WLT', amount: '1000000' });
    expect(issued.status).toBe(200);
    expect(issued.text).toMatch(/^Issued 1000000\.0000000 WLT to the distribution account/);
    const minted = await mint(a, user, 500000, undefined, unset);
    expect(minted.status).toBe(200);
    expect(minted.body).toEqual({ success: true, message: expect.stringContaining('Minted 500000.0000000 WLT'), hash: expect.any(String) });
    expect(minted.headers['approval-id']).toBeUndefined();
    expect(await balanceOf(user)).toBe('500000.0000000');
    expect(await queryRows(unset.container.database, sql`select id from approvals`)).toEqual([]);
  });
});

describe('an approval retried while the ledger answers 504 after applying', () => {
  // The second day keeps the applied transaction out of the ledger API's reads for a while, so the
  // write stays unclear (pending) across several retries of every approver, whatever the timing.
  const days = BAD_DAYS.filter((d) => d.name === '504 after applying' || d.name === '504 while ingestion lags');

  it.each(days)('mints once ($name)', async (badDay) => {
    const [a, b, c] = await admins();
    const user = await createUser(app);
    await supply(a, 6);
    const id = await mintAwaitingApproval(a, user, '150');
    // The service restarted with no wait for the ledger's answer: every approve answers 202 while
    // the entry is out and unclear, so the approvers below retry it then.
    const faulty = await startApp({ ...FAST_JOURNAL, LEDGER_ANSWER_WAIT_MS: '0' }, { reset: false });
    faulty.container.start();

    // The bad day falls on the approved mint's envelope: applied, then answered 504.
    const { accounts, repository } = faulty.container.ledgerModule;
    const send = accounts.sender.send.bind(accounts.sender);
    let armedAt: number | undefined;
    accounts.sender.send = async (envelopeId, tx, facts) => {
      const entries = await repository.entriesOf(envelopeId);
      if (armedAt === undefined && entries.some((e) => e.approvalId === id)) {
        armedAt = ledger.faults.stats[badDay.plan.mode];
        ledger.faults.set(badDay.plan);
      }
      return send(envelopeId, tx, facts);
    };
    try {
      // Approvers who retry as phones do: a 202 or a 5xx is asked again until final.
      const seen: number[] = [];
      const answers = await Promise.all(
        [b, c, b].map((admin) =>
          untilFinal(async () => {
            const res = await approve(admin, id, faulty);
            seen.push(res.status);
            // Never more than one entry for the approval, at any moment (fails at once, not at the patience's end).
            expect((await approvedEntries(faulty, id)).length).toBeLessThanOrEqual(1);
            return res;
          }),
        ),
      );
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(new Set(answers.map(hashOf)).size).toBe(1);
      // They did ask while the write was out and unclear (more often than once each while it lagged), and nothing else went wrong meanwhile.
      expect(seen.filter((status) => status === 202).length).toBeGreaterThan(badDay.plan.mode === 'lag-then-504' ? 3 : 0);
      expect(seen.filter((status) => status !== 200 && status !== 202)).toEqual([]);
    } finally {
      accounts.sender.send = send;
      ledger.faults.clear();
    }
    // The bad day really happened to this write.
    expect(armedAt).toEqual(expect.any(Number));
    expect(ledger.faults.stats[badDay.plan.mode]).toBeGreaterThan(armedAt!);
    await journalSettled(faulty);
    expect(await balanceOf(user)).toBe('150.0000000');
    expect(await approvedEntries(faulty, id)).toEqual([expect.objectContaining({ kind: 'admin_mint', status: 'confirmed', amount_stroops: '1500000000' })]);
    expect((await faulty.container.audit()).discrepancies).toEqual([]);
  });
});

/** Sends until the answer is final, as a client does: 202 and 502-504 are asked again; a 500 is a bug, failed at once. */
async function untilFinal(send: () => PromiseLike<Response>): Promise<Response> {
  return eventually(
    async () => {
      const res = await send();
      expect({ status: res.status, body: res.body as unknown }).not.toEqual({ status: 500, body: expect.anything() });
      return res.status === 202 || res.status >= 500 ? undefined : res;
    },
    'a final answer',
    { intervalMs: 150 },
  );
}

/** The ledger transaction an approve answered: the 200's hash or the 202's pending record's. */
function hashOf(res: Response): string {
  const body = res.body as { hash?: string; result?: { hash: string } };
  return body.hash ?? body.result?.hash ?? '';
}
