import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../src/db/client';
import { rowsOf } from '../../src/db/repositories/rows';

/** The rows of a raw query, straight from the database. */
export async function queryRows<T>(database: DatabaseHandle, query: ReturnType<typeof sql>): Promise<T[]> {
  return rowsOf<T>(await database.db.execute(query));
}

/** The service's own tables (public schema), sorted. */
export async function tableNames(database: DatabaseHandle): Promise<string[]> {
  const rows = await queryRows<{ tablename: string }>(database, sql`select tablename from pg_tables where schemaname = 'public' order by tablename`);
  return rows.map((r) => r.tablename);
}

/**
 * Row count and a digest of the full contents of every table, in one round trip: any insert,
 * update or delete anywhere changes it.
 */
export async function databaseState(database: DatabaseHandle): Promise<Record<string, string>> {
  const names = await tableNames(database);
  const parts = names.map(
    (name) => `select '${name}' as t, count(*)::int as n, coalesce(md5(string_agg(x::text, '|' order by x::text)), '-') as d from "${name}" x`,
  );
  const rows = await queryRows<{ t: string; n: number; d: string }>(database, sql.raw(parts.join(' union all ')));
  return Object.fromEntries(rows.map((r) => [r.t, `${r.n} rows ${r.d}`]));
}

/** Row count of one table. */
export async function countRows(database: DatabaseHandle, table: string): Promise<number> {
  const rows = await queryRows<{ n: number }>(database, sql.raw(`select count(*)::int as n from "${table}"`));
  return Number(rows[0]!.n);
}
