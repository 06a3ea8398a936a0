import crypto from 'node:crypto';
import { withSql, type SqlSession } from './database';
import { expectStatus, mapLimit } from './http';
import type { ServiceInstance } from './service';

/**
 * Seeding. Users, wallets, tokens and payments go through the API, so they are exactly what the
 * service would have made. Bulk history (transaction records) goes in with one generate_series
 * INSERT: a million records through the transfer route would take hours and measure the ledger,
 * not the read path.
 */

export const USER_PASSWORD = 'bench-password-1';
/** Issued to the distribution account once per instance: far more than any scenario mints. */
const TOKEN_SUPPLY = '1000000000';

export interface SeededUser {
  userId: string;
  username: string;
  token: string;
  publicKey: string;
}

/** A short id per process run so usernames never collide with an earlier run's on a kept database. */
const RUN_ID = crypto.randomBytes(3).toString('hex');

export function username(prefix: string, index: number): string {
  return `${prefix}${RUN_ID}_${index}`;
}

export async function adminToken(svc: ServiceInstance): Promise<string> {
  const res = await expectStatus<{ token: string }>(200, 'POST', `${svc.baseUrl}/api/admin/login`, {
    body: { email: svc.adminEmail, password: svc.adminPassword },
  });
  return res.body.token;
}

export function signupBody(name: string) {
  return { username: name, email: `${name}@bench.example`, password: USER_PASSWORD, firstName: 'Bench', lastName: 'User' };
}

export async function signup(svc: ServiceInstance, name: string): Promise<string> {
  const res = await expectStatus<{ userId: string }>(201, 'POST', `${svc.baseUrl}/api/users/signup`, { body: signupBody(name), timeoutMs: 60_000 });
  return res.body.userId;
}

export async function login(svc: ServiceInstance, name: string): Promise<{ token: string; publicKey: string }> {
  const res = await expectStatus<{ token: string; profile: { ledgerPublicKey: string } }>(200, 'POST', `${svc.baseUrl}/api/users/login`, {
    body: { identifier: name, password: USER_PASSWORD },
  });
  return { token: res.body.token, publicKey: res.body.profile.ledgerPublicKey };
}

/** Signs up and logs in `count` users, `concurrency` at a time. */
export async function createUsers(svc: ServiceInstance, prefix: string, count: number, concurrency = 10): Promise<SeededUser[]> {
  const names = Array.from({ length: count }, (_, i) => username(prefix, i));
  return mapLimit(names, concurrency, async (name) => {
    const userId = await signup(svc, name);
    const { token, publicKey } = await login(svc, name);
    return { userId, username: name, token, publicKey };
  });
}

/**
 * Issues the token supply to the distribution account. The first ledger call waits for the
 * ledger bootstrap (system accounts, trustline, channels), so it also tells when minting can start.
 */
export async function issueSupply(svc: ServiceInstance, admin: string): Promise<void> {
  await expectStatus(200, 'POST', `${svc.baseUrl}/api/ledger/create-asset`, { token: admin, body: { assetCode: 'WLT', amount: TOKEN_SUPPLY }, timeoutMs: 120_000 });
}

export async function mintTo(svc: ServiceInstance, admin: string, userId: string, amount: number): Promise<void> {
  await expectStatus(200, 'POST', `${svc.baseUrl}/api/payments/mint-tokens`, { token: admin, body: { userId, amount }, timeoutMs: 60_000 });
}

/** The token balance of an account, read from the sandbox ledger (no auth, no service code in between). */
export async function tokenBalance(svc: ServiceInstance, publicKey: string): Promise<number | undefined> {
  const res = await expectStatus<{ balances: { asset_code?: string; balance: string }[] }>(200, 'GET', `${svc.horizonUrl}/accounts/${publicKey}`);
  const line = res.body.balances.find((b) => b.asset_code === 'WLT');
  return line ? Number(line.balance) : undefined;
}

/** Runs fn on the service's database (its outside server or its embedded one), on a separate connection while it runs. */
export async function onServiceDatabase<T>(svc: ServiceInstance, fn: (session: SqlSession) => Promise<T>): Promise<T> {
  return withSql(svc.databaseUrl, fn);
}

const TRANSACTION_COLUMNS = 'ledger_transaction_id, from_public_key, to_public_key, amount_stroops, asset_code, user_id, kind, status, created_at';

/**
 * Rows that look like real records: a 64-hex hash, 56-character keys, one mint in ten, and
 * created_at one second apart going back in time, so "newest first" walks a real index range.
 * Row g of the whole seeded history gets created_at = now() - g seconds.
 */
function transactionRow(userIdExpr: string): string {
  return `md5('h' || g) || md5('i' || g), $FROM, 'G' || upper(substr(md5('k' || g) || md5('l' || g), 1, 55)),
    (g % 1000 + 1)::bigint * 10000000, 'WLT', ${userIdExpr}, case when g % 10 = 0 then 'payment_mint' else 'transfer' end, 'confirmed', now() - make_interval(secs => g)`;
}

/** `count` records owned by one user (the one whose list is measured). */
export async function insertUserTransactions(session: SqlSession, userId: string, publicKey: string, count: number): Promise<void> {
  if (count <= 0) return;
  await session.query(
    `insert into ledger_entries (${TRANSACTION_COLUMNS})
     select ${transactionRow('$1::uuid').replace('$FROM', '$2')} from generate_series(1, $3::int) g`,
    [userId, publicKey, count],
  );
}

export const BULK_USER_PREFIX = 'bulk-';

/** Users that own the bulk history (made in SQL: their signup cost is not what is measured). */
export async function insertBulkUsers(session: SqlSession, count: number): Promise<void> {
  await session.query(
    `insert into users (username, email, password_hash, first_name, last_name)
     select '${BULK_USER_PREFIX}' || g, '${BULK_USER_PREFIX}' || g || '@bench.example', '$2a$04$' || md5('x' || g) || 'aaaaaaaaaaaaaaaaaaaaa', 'Bulk', 'User'
     from generate_series(1, $1::int) g`,
    [count],
  );
}

/**
 * Records numbered [from, to] of the bulk history, spread round-robin over the `owners` bulk
 * users (the count is a parameter so the join is a hash join on the owner's number).
 */
export async function insertBulkTransactions(session: SqlSession, from: number, to: number, owners: number): Promise<void> {
  if (to < from) return;
  await session.query(
    `with owners as (
       select id, (row_number() over (order by id)) - 1 as n from users where username like '${BULK_USER_PREFIX}%'
     )
     insert into ledger_entries (${TRANSACTION_COLUMNS})
     select ${transactionRow('owners.id').replace('$FROM', "'GBULK' || owners.n")}
     from generate_series($1::int, $2::int) g join owners on owners.n = g % $3::int`,
    [from, to, owners],
  );
}

/** Statistics and the visibility map as autovacuum would leave them, so plans are the steady state's. */
export async function vacuumAnalyze(session: SqlSession): Promise<void> {
  await session.query('vacuum analyze ledger_entries');
  await session.query('vacuum analyze users');
}

export async function countTransactions(session: SqlSession): Promise<number> {
  const [row] = await session.query<{ n: string | number }>('select count(*) as n from ledger_entries');
  return Number(row?.n ?? 0);
}
