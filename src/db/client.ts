import path from 'node:path';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { attachEmbeddedServer, type EmbeddedServer } from './embedded/embedded-server';
import * as schema from './schema';

export type Schema = typeof schema;
/** The one database type the repositories see. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle has the same query surface as the database. */
export type Executor = Pick<Database, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export interface DatabaseHandle {
  db: Database;
  /** `embedded`: the server this service runs from DATA_DIR/pg; `server`: DATABASE_URL. Same code path either way. */
  kind: 'embedded' | 'server';
  /**
   * Runs fn while holding a PostgreSQL advisory lock named by key, so that processes sharing the
   * database never act on one ledger account at once.
   */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** The server's postgres:// URL: what opens connections of its own (the job queue, the event listener). */
  url: string;
  close(): Promise<void>;
}

const MIGRATIONS_FOLDER = path.resolve(__dirname, '../../drizzle');

export interface DatabaseOptions {
  /** postgres:// URL of a server; unset = the embedded server of `dataDir`. */
  url?: string;
  /** DATA_DIR: the embedded server keeps its files in DATA_DIR/pg. Required without a URL. */
  dataDir?: string;
  poolSize?: number;
  /** Told what the embedded server did (started, adopted, stale pid removed...). */
  onEvent?: (message: string) => void;
}

/**
 * Opens the database and applies the committed migrations before anything else touches it.
 * Without a URL the embedded server is started (or found running) first; either way the service
 * talks to a PostgreSQL server through one `pg` pool.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.url) return { ...(await openPostgres(options.url, options.poolSize ?? 10, 'wallet')), kind: 'server' };
  if (!options.dataDir) throw new Error('openDatabase: neither a database URL nor a DATA_DIR for the embedded server');
  const server: EmbeddedServer = await attachEmbeddedServer({ dataDir: options.dataDir, onEvent: options.onEvent });
  let handle: Omit<DatabaseHandle, 'kind'>;
  try {
    handle = await openPostgres(server.url(), options.poolSize ?? 10, server.applicationName);
  } catch (err) {
    await server.release().catch(() => undefined);
    throw err;
  }
  return {
    ...handle,
    kind: 'embedded',
    close: async () => {
      await handle.close();
      await server.release();
    },
  };
}

async function openPostgres(url: string, poolSize: number, applicationName: string): Promise<Omit<DatabaseHandle, 'kind'>> {
  const { Pool } = await import('pg');
  const { drizzle, NodePgSession } = await import('drizzle-orm/node-postgres');
  const { PgDialect } = await import('drizzle-orm/pg-core');
  const { migrate } = await import('drizzle-orm/node-postgres/migrator');
  const pool = new Pool({ connectionString: url, max: poolSize, application_name: applicationName });
  // An idle client losing its server (restart, failover) must not crash the process.
  pool.on('error', () => undefined);
  survivesLostConnections(pool);
  const db = drizzle(pool, { schema });
  await migrateAlone(url, applicationName, () => migrate(db, { migrationsFolder: MIGRATIONS_FOLDER }));
  // Found by tests/faults/database-outage.test.ts: drizzle's pool transaction checks a client out
  // and sends BEGIN before its try/finally, so a BEGIN that fails (the server restarting) never
  // releases the client: an outage leaked connections (the pool never drained on close), and
  // enough of them would leave the pool empty with every query waiting forever. Here the client
  // is checked out and always released by us, and the transaction runs on it alone: a session on
  // that client sharing the pool instance's dialect and relational config (building those from the
  // schema per transaction was 7% of the service's CPU under load; BENCHMARKS.md, issue 37).
  const dialect = new PgDialect();
  const relational = { fullSchema: db._.fullSchema, schema: db._.schema!, tableNamesMap: db._.tableNamesMap };
  db.transaction = async (work, config) => {
    const client = await pool.connect();
    try {
      return await new NodePgSession(client, dialect, relational).transaction(work as never, config);
    } finally {
      client.release();
    }
  };
  // Every advisory lock of this process is held by one session: a lock is held across a ledger
  // round trip (a whole ledger close), and one pooled connection per held lock capped how many
  // accounts could have a transaction in flight at once at the pool size (8). A session can hold
  // any number of advisory locks; pg_try_advisory_lock never blocks the shared connection, and the
  // in-process submitter queue already serializes each account, so a retry means another process.
  const { Client } = await import('pg');
  type Session = InstanceType<typeof Client>;
  let lockClient: Promise<Session> | undefined;
  // One connection at a time, reopened after it is lost (the server releases a lost session's locks).
  const lockSession = (): Promise<Session> => {
    if (lockClient) return lockClient;
    const client = new Client({ connectionString: url, application_name: applicationName });
    const opening = client.connect().then(() => client);
    const forget = () => {
      if (lockClient === opening) lockClient = undefined;
    };
    client.on('error', forget);
    opening.catch(forget);
    lockClient = opening;
    return opening;
  };
  // pg 9 drops queuing on a busy client: lock and unlock statements take turns here.
  let sessionTurn: Promise<unknown> = Promise.resolve();
  const onSession = <R extends Record<string, unknown>>(sql: string, params: unknown[]): Promise<R[]> => {
    const run = sessionTurn.then(async () => (await (await lockSession()).query<R>(sql, params)).rows);
    sessionTurn = run.catch(() => undefined);
    return run;
  };
  // Advisory locks are re-entrant within a session: callers of one key in this process queue here first.
  const localTails = new Map<string, Promise<unknown>>();
  const locally = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const previous = localTails.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    localTails.set(key, tail);
    void tail.then(() => {
      if (localTails.get(key) === tail) localTails.delete(key);
    });
    return run;
  };
  return {
    db: db as unknown as Database,
    url,
    withLock: (key, fn) => locally(key, () => withSessionLock(key, fn)),
    close: async () => {
      await (await lockClient?.catch(() => undefined))?.end();
      await pool.end();
    },
  };

  async function withSessionLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + 60_000;
    for (let attempt = 0; ; attempt++) {
      const [row] = await onSession<{ ok: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as ok', [key]);
      if (row?.ok) break;
      if (Date.now() > deadline) throw new Error(`advisory lock ${key} still held elsewhere after 60 s`);
      await new Promise((resolve) => setTimeout(resolve, Math.min(500, 10 * 2 ** attempt)));
    }
    try {
      return await fn();
    } finally {
      await onSession('select pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch(() => undefined);
    }
  }
}

/**
 * Found by tests/faults/database-outage.test.ts: pg-pool listens for errors only on idle clients.
 * A checked-out client (a transaction, an advisory lock) whose server goes away emits 'error'
 * with no listener, and Node turns that into an uncaught exception: a PostgreSQL restart during a
 * signup killed the whole process. The client's queries still fail with the error (the request
 * answers 503) and the pool discards the broken client on release; this listener only keeps the
 * event from crashing the process.
 */
function survivesLostConnections(pool: { on(event: 'connect', listener: (client: { on(event: 'error', l: (err: Error) => void): unknown }) => void): unknown }): void {
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
}

/** PostgreSQL's unique_violation. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = findPgError(err);
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * Whether a failure means the database could not be reached or went away (a restart, failover or
 * network cut), as opposed to a bad query: retryable, answered 503 rather than 500.
 * Found by tests/faults/database-outage.test.ts: during a PostgreSQL restart every request
 * answered 500 "Internal server error" and was logged as an unhandled bug.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const c = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof c.code === 'string' && (UNAVAILABLE_CODES.has(c.code) || c.code.startsWith('08'))) return true;
    if (typeof c.message === 'string' && UNAVAILABLE_MESSAGES.some((m) => (c.message as string).includes(m))) return true;
    current = c.cause;
  }
  return false;
}

/** admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections; socket errors. */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN']);
/** node-postgres reports a dropped connection without a code. */
const UNAVAILABLE_MESSAGES = ['Connection terminated', 'is not queryable', 'timeout exceeded when trying to connect'];

function findPgError(err: unknown): { code?: string; constraint?: string } | undefined {
  // Drizzle wraps driver errors; the PostgreSQL fields live on the cause.
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const c = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (typeof c.code === 'string' && /^[0-9A-Z]{5}$/.test(c.code)) {
      return { code: c.code, constraint: typeof c.constraint === 'string' ? c.constraint : undefined };
    }
    current = c.cause;
  }
  return undefined;
}

/** Any number: the one lock every process of this service takes to migrate. */
const MIGRATION_LOCK = 0x77616c6c6574; // "wallet"

/**
 * Drizzle's migrator reads the last applied migration, then applies the rest, with no lock: two
 * processes starting on an empty database at once (a cluster's workers, two containers) would both
 * apply migration 0000 and one would fail. They take turns on a session advisory lock instead; the
 * second finds nothing left to do. The lock goes with its session: at the end, or if the process dies.
 */
async function migrateAlone(url: string, applicationName: string, run: () => Promise<void>): Promise<void> {
  // A session of its own, beside the pool: a pool of one connection would otherwise wait on itself.
  const { Client } = await import('pg');
  const session = new Client({ connectionString: url, application_name: applicationName });
  await session.connect();
  try {
    await session.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await run();
  } finally {
    await session.end();
  }
}
