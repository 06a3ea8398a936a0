import { sql } from 'drizzle-orm';
import { adminToken, bearer, createUser } from '../helpers/factories';
import { closeTestDatabase, startTestApp, testDatabase, type TestApp } from '../helpers/test-app';

// The list routes read their rows in array mode with PostgreSQL formatting the timestamps
// (TransactionRepository.userPage/adminPage). Their bodies must be byte for byte what the
// previous code answered: Drizzle-style rows (timestamptz text -> Date, int8 -> BigInt) shaped as
// below, copied from the code before the change as the oracle, with the two fields CONTRACT 12
// added after the spec's: a user's list says each record's `direction` from the user's side and
// its `origin`; the admin's list its `origin` only.

const STROOPS_PER_UNIT = 10_000_000n;
function previousAmount(stroops: bigint): number {
  const negative = stroops < 0n;
  const abs = negative ? -stroops : stroops;
  const text = `${abs / STROOPS_PER_UNIT}.${(abs % STROOPS_PER_UNIT).toString().padStart(7, '0')}`;
  return Number(negative ? `-${text}` : text);
}

interface PreviousRow {
  id: string;
  ledger_transaction_id: string;
  from_public_key: string;
  to_public_key: string;
  amount_stroops: string;
  asset_code: string;
  user_id: string | null;
  created_at: string;
  status: string;
  username: string | null;
  email: string | null;
}

function previousRecord(raw: PreviousRow) {
  return {
    transactionId: raw.id,
    ledgerTransactionId: raw.ledger_transaction_id,
    from: raw.from_public_key,
    to: raw.to_public_key,
    assetAmount: previousAmount(BigInt(raw.amount_stroops)),
    assetCode: raw.asset_code,
    userId: raw.user_id ?? '',
    createdAt: new Date(raw.created_at).toISOString(),
    status: raw.status === 'submitted' ? 'pending' : raw.status,
  };
}

/** A journal entry in the list of the user whose wallet is `wallet`. */
function previousUserRecord(wallet: string) {
  return (raw: PreviousRow) => ({ ...previousRecord(raw), direction: raw.from_public_key === wallet ? 'out' : 'in', origin: 'service' });
}

function previousAdminRecord(raw: PreviousRow) {
  const owner = raw.username !== null ? { username: raw.username, email: raw.email ?? '' } : null;
  return { ...previousRecord(raw), origin: 'service', user: owner };
}

/** The rows as the previous code read them: every column as the driver's text, through Drizzle's pool. */
async function previousRows(where: string): Promise<PreviousRow[]> {
  const { db } = await testDatabase();
  const result = (await db.execute(
    sql.raw(`select e.id, e.ledger_transaction_id, e.from_public_key, e.to_public_key, e.amount_stroops, e.asset_code, e.user_id, e.created_at, e.status, u.username, u.email
      from ledger_entries e left join users u on u.id = e.user_id
      where ${where} and e.kind in ('transfer', 'payment_mint', 'admin_mint')
      order by e.created_at desc, e.id desc limit 100`),
  )) as unknown as { rows: PreviousRow[] };
  return result.rows;
}

/** Amounts at the edges of the double conversion, timestamps whose microseconds must be truncated, every status. */
const CASES: [stroops: string, createdAt: string, status: string, ledgerTransactionId: string][] = [
  ['1', '2026-01-01 00:00:00.999999+00', 'pending', ''],
  ['3', '2026-01-02 23:59:59.123999+00', 'submitted', 'ab'.repeat(32)],
  ['10', '2026-01-03 12:00:00.000500+00', 'confirmed', 'cd'.repeat(32)],
  ['70000000', '2026-01-04 00:00:00+00', 'failed', 'ef'.repeat(32)],
  ['100000000', '1999-12-31 23:59:59.5+00', 'confirmed', '01'.repeat(32)],
  ['12345678901', '2026-06-30 13:14:15.16+02', 'confirmed', '02'.repeat(32)],
  ['1000000001', '2026-02-28 08:09:10.011+00', 'confirmed', '03'.repeat(32)],
  ['9007199254740991', '2026-03-01 00:00:00.001+00', 'confirmed', '04'.repeat(32)],
  ['9007199254740993', '2026-03-02 00:00:00.002+00', 'confirmed', '05'.repeat(32)],
  ['9223372036854775807', '2026-03-03 00:00:00.003+00', 'confirmed', '06'.repeat(32)],
  ['-25000000', '2026-03-04 00:00:00.004+00', 'confirmed', '07'.repeat(32)],
];

async function insertRecords(userId: string | null, kind = 'transfer', from = 'G' + 'A'.repeat(55)): Promise<void> {
  const { db } = await testDatabase();
  for (const [stroops, createdAt, status, hash] of CASES) {
    await db.execute(sql`
      insert into ledger_entries (kind, status, ledger_transaction_id, from_public_key, to_public_key, amount_stroops, asset_code, user_id, created_at)
      values (${kind}, ${status}, ${hash}, ${from}, ${'G' + 'B'.repeat(55)}, ${stroops}::int8, 'WLT', ${userId}, ${createdAt}::timestamptz)`);
  }
}

let app: TestApp;
beforeEach(async () => {
  app = await startTestApp();
});
afterEach(async () => {
  await app.close();
});
afterAll(closeTestDatabase);

describe('transaction lists answer the same bytes as before array mode', () => {
  it("a user's page (GET /api/ledger/transactions/:userId and the admin's per-user list)", async () => {
    const user = await createUser(app);
    await insertRecords(user.userId, 'transfer', user.ledgerPublicKey);
    await insertRecords(user.userId, 'payment_mint');
    const expected = JSON.stringify((await previousRows(`e.user_id = '${user.userId}'`)).map(previousUserRecord(user.ledgerPublicKey)));
    expect(expected).toContain('"direction":"out"');
    expect(expected).toContain('"direction":"in"');
    expect(JSON.parse(expected)).toHaveLength(2 * CASES.length);

    const own = await app.http.get(`/api/ledger/transactions/${user.userId}?limit=100`).set(bearer(user.token)).expect(200);
    expect(own.text).toBe(expected);
    expect(own.headers['x-total-count']).toBe(String(2 * CASES.length));
    const admin = await adminToken(app);
    const perUser = await app.http.get(`/api/admin/users/${user.userId}/transactions?limit=100`).set(bearer(admin)).expect(200);
    expect(perUser.text).toBe(expected);
  });

  it("pages a user's records with their total in every answer: a middle page, a page past the end, and a user with none", async () => {
    const user = await createUser(app);
    const other = await createUser(app);
    await insertRecords(user.userId);
    await insertRecords(other.userId);
    const all = (await previousRows(`e.user_id = '${user.userId}'`)).map(previousUserRecord(user.ledgerPublicKey));
    const admin = await adminToken(app);
    const pageOf = async (query: string) => {
      const own = await app.http.get(`/api/ledger/transactions/${user.userId}?${query}`).set(bearer(user.token)).expect(200);
      const perUser = await app.http.get(`/api/admin/users/${user.userId}/transactions?${query}`).set(bearer(admin)).expect(200);
      expect(perUser.text).toBe(own.text);
      expect(perUser.headers['x-total-count']).toBe(own.headers['x-total-count']);
      return { body: own.body as unknown[], total: own.headers['x-total-count'] };
    };

    expect(await pageOf('limit=4&offset=3')).toEqual({ body: all.slice(3, 7), total: String(CASES.length) });
    expect(await pageOf(`limit=4&offset=${CASES.length - 1}`)).toEqual({ body: all.slice(-1), total: String(CASES.length) });
    expect(await pageOf(`limit=4&offset=${CASES.length}`)).toEqual({ body: [], total: String(CASES.length) });
    expect(await pageOf('limit=4&offset=500')).toEqual({ body: [], total: String(CASES.length) });

    const none = await createUser(app);
    const empty = await app.http.get(`/api/ledger/transactions/${none.userId}`).set(bearer(none.token)).expect(200);
    expect([empty.body, empty.headers['x-total-count']]).toEqual([[], '0']);
  });

  it('every field keeps its exact form: ISO UTC milliseconds truncated, amounts as numbers, submitted shown as pending', async () => {
    const user = await createUser(app);
    await insertRecords(user.userId);
    const res = await app.http.get(`/api/ledger/transactions/${user.userId}?limit=100`).set(bearer(user.token)).expect(200);
    const byHash = new Map((res.body as { ledgerTransactionId: string; createdAt: string; assetAmount: number; status: string }[]).map((r) => [r.ledgerTransactionId, r]));
    expect(byHash.get('')).toMatchObject({ createdAt: '2026-01-01T00:00:00.999Z', assetAmount: 1e-7, status: 'pending' });
    expect(byHash.get('ab'.repeat(32))).toMatchObject({ createdAt: '2026-01-02T23:59:59.123Z', assetAmount: 3e-7, status: 'pending' });
    expect(byHash.get('02'.repeat(32))).toMatchObject({ createdAt: '2026-06-30T11:14:15.160Z', assetAmount: 1234.5678901 });
    expect(byHash.get('07'.repeat(32))).toMatchObject({ assetAmount: -2.5 });
    expect(res.text).toContain('"assetAmount":1e-7,');
    expect(res.text).toContain('"assetAmount":922337203685.4775,'); // int8's maximum: the nearest double, as before
  });

  it("the admin's list of every record: owners nested, null once deleted or never a user's", async () => {
    const kept = await createUser(app);
    const gone = await createUser(app);
    await insertRecords(kept.userId);
    await insertRecords(gone.userId, 'admin_mint');
    await insertRecords(null);
    const admin = await adminToken(app);
    await app.http.delete(`/api/admin/users/${gone.userId}`).set(bearer(admin)).expect(200);
    const expected = JSON.stringify((await previousRows('true')).map(previousAdminRecord));
    const res = await app.http.get('/api/admin/transactions?limit=100').set(bearer(admin)).expect(200);
    expect(res.text).toBe(expected);
    const users = (res.body as { userId: string; user: unknown }[]).map((r) => [r.userId, r.user]);
    expect(users.filter(([, user]) => user === null)).toHaveLength(2 * CASES.length);
    expect(users.filter(([userId]) => userId === '')).toHaveLength(CASES.length);
  });
});
