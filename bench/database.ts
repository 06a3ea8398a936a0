import { assertLoopback } from './http';

/**
 * Direct SQL for the bench: recreating the PostgreSQL database between runs, bulk seeding with
 * generate_series, and EXPLAIN ANALYZE, through `pg` on a separate connection while the service
 * runs: on the outside server (--database-url) or on the service's embedded one (see seed.ts).
 */

export interface SqlSession {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** Bulk inserts of a million rows take tens of seconds on a busy 2-core machine; nothing should take longer. */
const STATEMENT_TIMEOUT = '300s';

/** The bench may only drop a database on this machine, and only one it can name safely. */
export function parseDatabaseUrl(url: string): { url: URL; name: string } {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error(`--database-url must be a postgres:// URL, got ${url}`);
  const parsed = new URL(url);
  assertLoopback(`http://${parsed.host}/`);
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new Error(`--database-url: database name "${name}" must be a plain identifier`);
  if (['postgres', 'template0', 'template1'].includes(name)) throw new Error(`--database-url: refusing to drop the "${name}" database`);
  return { url: parsed, name };
}

/** Runs statements on the server's maintenance database (where the bench database can be dropped). */
async function onMaintenanceDatabase(databaseUrl: string, statements: (name: string) => string[]): Promise<void> {
  const { url, name } = parseDatabaseUrl(databaseUrl);
  const admin = new URL(url.toString());
  admin.pathname = '/postgres';
  const { Client } = await import('pg');
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    for (const sql of statements(name)) await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Drops and creates the bench database, so every service instance starts on an empty one. */
export function recreateDatabase(databaseUrl: string): Promise<void> {
  // WITH (FORCE) ends sessions a previous, interrupted run may have left (PostgreSQL 13+).
  return onMaintenanceDatabase(databaseUrl, (name) => [`drop database if exists "${name}" with (force)`, `create database "${name}"`]);
}

/** Drops the bench database after an instance, so a million seeded rows do not linger on the server. */
export function dropDatabase(databaseUrl: string): Promise<void> {
  return onMaintenanceDatabase(databaseUrl, (name) => [`drop database if exists "${name}" with (force)`]);
}

export async function withSql<T>(databaseUrl: string, fn: (session: SqlSession) => Promise<T>): Promise<T> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000, application_name: 'wallet-bench' });
  await client.connect();
  try {
    await client.query(`set statement_timeout = '${STATEMENT_TIMEOUT}'`);
    return await fn({ query: async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[] });
  } finally {
    await client.end();
  }
}
