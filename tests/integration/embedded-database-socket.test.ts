import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { Client } from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/db/client';
import { attachEmbeddedServer, runningEmbeddedServerUrl, type EmbeddedServer } from '../../src/db/embedded/embedded-server';
import { postmasterRuns, readPostmasterPid } from '../../src/db/embedded/postmaster';
import { queryRows } from '../helpers/database-state';

/**
 * The embedded server listens on a Unix-domain socket as well as on 127.0.0.1, and the service
 * connects through the socket (cheaper round trips than loopback TCP). PostgreSQL's
 * inet_server_addr() tells which way a session came in: NULL over a Unix socket, the address
 * over TCP. A socket path is capped at 107 bytes, so a long DATA_DIR puts the socket in a private
 * temp directory, and when even that is too long the service stays on TCP. As root the server
 * runs as the postgres user, who must own the socket's directory while root still connects.
 */

const REPO = path.resolve(__dirname, '../..');
const AS_ROOT = process.getuid?.() === 0;
/** The user the server runs as: postgres as root (run-as-postgres.ts), else this process's. */
const SERVER_UID = AS_ROOT ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })) : process.getuid!();

let base: string;
let dataDir: string;
const opened: Array<DatabaseHandle | EmbeddedServer> = [];
const children: ChildProcess[] = [];

beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'wallet-socket-'));
  // Passable by the postgres user, so that as root DATA_DIR stays where it is (not relocated under /var/lib).
  fs.chmodSync(base, 0o755);
  dataDir = base;
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const held of opened.splice(0)) await ('close' in held ? held.close() : held.release()).catch(() => undefined);
  const info = readPostmasterPid(path.join(dataDir, 'pg'));
  if (info && postmasterRuns(info)) process.kill(info.pid, 'SIGQUIT');
  if (info?.socketDirectory?.startsWith(path.join(os.tmpdir(), 'wpg-'))) fs.rmSync(info.socketDirectory, { recursive: true, force: true });
  fs.rmSync(base, { recursive: true, force: true });
});

/** A DATA_DIR whose `pg/.s.PGSQL.<port>` would be over the 107-byte limit. */
function longDataDir(): string {
  return path.join(base, 'd'.repeat(100));
}

async function attach(): Promise<EmbeddedServer> {
  const server = await attachEmbeddedServer({ dataDir, ephemeral: true });
  opened.push(server);
  return server;
}

async function openService(): Promise<DatabaseHandle> {
  const handle = await openDatabase({ dataDir, poolSize: 2 });
  opened.push(handle);
  return handle;
}

/** The address the session came in on: null over a Unix socket. */
async function serverAddress(url: string): Promise<string | null> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ addr: string | null }>('select inet_server_addr() as addr')).rows[0]!.addr;
  } finally {
    await client.end();
  }
}

function tcpUrl(port: number, database = 'wallet'): string {
  const password = (JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as { databasePassword: string }).databasePassword;
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

describe('the connection to the embedded PostgreSQL server', () => {
  it('goes over a Unix socket in the data directory, while 127.0.0.1 still answers', async () => {
    const server = await attach();
    const pgDir = path.join(dataDir, 'pg');
    expect(server.socketDirectory).toBe(pgDir);
    expect(fs.statSync(path.join(pgDir, `.s.PGSQL.${server.port}`)).isSocket()).toBe(true);
    expect(readPostmasterPid(pgDir)).toMatchObject({ port: server.port, socketDirectory: pgDir });

    // The service's own pool, as `npm start` opens it.
    const service = await openService();
    expect(await queryRows(service, sql`select inet_server_addr() as addr`)).toEqual([{ addr: null }]);
    expect(await serverAddress(server.url())).toBeNull();
    expect(await serverAddress(tcpUrl(server.port))).toBe('127.0.0.1');

    // The URL stays a host:port URL that takes another database in its path (tests/helpers/database.ts, bench/database.ts).
    const other = new URL(server.url());
    expect(other.host).toBe(`127.0.0.1:${server.port}`);
    other.pathname = '/postgres';
    expect(await serverAddress(other.toString())).toBeNull();
    // A tool (or a future process) that drops the parameter lands on the same server over TCP.
    other.search = '';
    expect(await serverAddress(other.toString())).toBe('127.0.0.1');
    expect(await serverAddress(runningEmbeddedServerUrl(dataDir)!)).toBeNull();
  });

  it('goes over a socket in a private temp directory when DATA_DIR is too long, found by the next process, and removed when the server stops', async () => {
    dataDir = longDataDir();
    const first = await attach();
    const socketDir = first.socketDirectory!;
    expect(path.dirname(socketDir)).toBe(os.tmpdir());
    expect(path.basename(socketDir)).toMatch(/^wpg-/);
    const stat = fs.statSync(socketDir);
    expect({ uid: stat.uid, mode: stat.mode & 0o777 }).toEqual({ uid: SERVER_UID, mode: 0o700 });
    expect(await serverAddress(first.url())).toBeNull();

    // A second process of the DATA_DIR finds the socket in postmaster.pid.
    const service = await openService();
    expect(await queryRows(service, sql`select inet_server_addr() as addr`)).toEqual([{ addr: null }]);
    expect(await serverAddress(tcpUrl(first.port))).toBe('127.0.0.1');

    await service.close();
    await first.release();
    expect(readPostmasterPid(path.join(dataDir, 'pg'))).toBeUndefined();
    expect(fs.existsSync(socketDir)).toBe(false);
  });

  it('removes the temp socket directory of a server killed with SIGKILL when it starts the next one', async () => {
    dataDir = longDataDir();
    const killed = await attach();
    const leftBehind = killed.socketDirectory!;
    process.kill(readPostmasterPid(path.join(dataDir, 'pg'))!.pid, 'SIGKILL');
    await killed.release().catch(() => undefined);

    const next = await attach();
    expect(next.startedHere).toBe(true);
    expect(fs.existsSync(leftBehind)).toBe(false);
    expect(next.socketDirectory).not.toBe(leftBehind);
    expect(await serverAddress(next.url())).toBeNull();
  });

  it('stays on TCP when neither DATA_DIR nor the temp directory gives a short enough socket path', async () => {
    dataDir = longDataDir();
    fs.mkdirSync(dataDir);
    // The temp directory is read once per process: a process of its own, as the service would be.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'tests/helpers/embedded-holder.ts'), dataDir], {
      cwd: REPO,
      env: { ...process.env, NODE_OPTIONS: '', TMPDIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`holder exited with ${code}: ${err}`)));
    });

    expect(readPostmasterPid(path.join(dataDir, 'pg'))!.socketDirectory).toBeUndefined();
    expect(fs.readdirSync(dataDir).filter((name) => name.startsWith('wpg-'))).toEqual([]);
    const url = runningEmbeddedServerUrl(dataDir)!;
    expect(new URL(url).search).toBe('');
    expect(await serverAddress(url)).toBe('127.0.0.1');
  });
});
