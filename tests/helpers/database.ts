import { sql } from 'drizzle-orm';
import { openDatabase, type DatabaseHandle } from '../../src/db/client';

/**
 * One database per test file: an in-memory PGlite by default, or the PostgreSQL server named by
 * TEST_DATABASE_URL (run in band, so files never share it at once). Migrations run for real.
 */
export async function openTestDatabase(): Promise<DatabaseHandle> {
  const url = process.env.TEST_DATABASE_URL;
  return openDatabase(url ? { url, poolSize: 20 } : {});
}

/** Empties every table between tests, keeping the migrated schema. */
export async function resetDatabase(handle: DatabaseHandle): Promise<void> {
  const result = await handle.db.execute<{ tablename: string }>(
    sql`select tablename from pg_tables where schemaname = 'public'`,
  );
  const rows = (Array.isArray(result) ? result : (result as { rows: { tablename: string }[] }).rows) as { tablename: string }[];
  if (rows.length === 0) return;
  const names = rows.map((r) => `"${r.tablename}"`).join(', ');
  await handle.db.execute(sql.raw(`truncate table ${names} restart identity cascade`));
}
