import { sql } from 'drizzle-orm';
import { Client } from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/db/client';
import { rowsOf } from '../../src/db/repositories/rows';

/**
 * The test file's database. By default, on the run's embedded server (started by Jest's global
 * setup): one database per Jest worker, `w_<worker id>`, copied from the migrated template on
 * first use, so workers run in parallel without sharing tables. With TEST_DATABASE_URL, that
 * server's database (run in band, so files never share it at once). Either way through the same
 * pool code as the service, with migrations run for real, and emptied before the file starts.
 */
export async function openTestDatabase(): Promise<DatabaseHandle> {
  const handle = await openDatabase({ url: process.env.TEST_DATABASE_URL ?? (await workerDatabaseUrl()), poolSize: 20 });
  await resetDatabase(handle);
  return handle;
}

let workerDatabase: Promise<string> | undefined;

/** The URL openTestDatabase opens: for a second handle on the same database (a second process's). */
export function testDatabaseUrl(): Promise<string> {
  return process.env.TEST_DATABASE_URL ? Promise.resolve(process.env.TEST_DATABASE_URL) : workerDatabaseUrl();
}

function workerDatabaseUrl(): Promise<string> {
  workerDatabase ??= createWorkerDatabase();
  return workerDatabase;
}

async function createWorkerDatabase(): Promise<string> {
  const serverUrl = process.env.WALLET_TEST_PG_URL;
  if (!serverUrl) throw new Error('no test database: run the tests through jest (its global setup starts the embedded server), or set TEST_DATABASE_URL');
  const name = `w_${Number(process.env.JEST_WORKER_ID ?? '1')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template wallet_template`);
  } catch (err) {
    // Already made by an earlier file of this worker (module state does not survive Jest's per-file sandbox).
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Empties every table between tests, keeping the migrated schema. */
export async function resetDatabase(handle: DatabaseHandle): Promise<void> {
  const rows = rowsOf<{ tablename: string }>(await handle.db.execute(sql`select tablename from pg_tables where schemaname = 'public'`));
  if (rows.length === 0) return;
  const names = rows.map((r) => `"${r.tablename}"`).join(', ');
  await handle.db.execute(sql.raw(`truncate table ${names} restart identity cascade`));
}
