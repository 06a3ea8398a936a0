import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, type DatabaseHandle } from '../../src/db/client';
import { postmasterRuns, readPostmasterPid } from '../../src/db/embedded/postmaster';
import { queryRows } from '../helpers/database-state';

/**
 * The embedded database of `npm start` (no DATABASE_URL): a PostgreSQL server per DATA_DIR,
 * shared by every process using that directory, surviving crashes. Each test makes its own
 * DATA_DIR and server.
 */

const REPO = path.resolve(__dirname, '../..');
let dataDir: string;
const opened: DatabaseHandle[] = [];

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wallet-embedded-'));
});
afterEach(async () => {
  for (const handle of opened.splice(0)) await handle.close().catch(() => undefined);
  const info = readPostmasterPid(path.join(dataDir, 'pg'));
  if (info && postmasterRuns(info)) process.kill(info.pid, 'SIGQUIT');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function open(): Promise<DatabaseHandle> {
  const handle = await openDatabase({ dataDir, poolSize: 2 });
  opened.push(handle);
  return handle;
}

const postmaster = () => readPostmasterPid(path.join(dataDir, 'pg'));
const serverRuns = () => {
  const info = postmaster();
  return info !== undefined && postmasterRuns(info);
};

async function usernames(handle: DatabaseHandle): Promise<string[]> {
  return (await queryRows<{ username: string }>(handle, sql`select username from users order by username`)).map((r) => r.username);
}

async function addUser(handle: DatabaseHandle, username: string): Promise<void> {
  await handle.db.execute(sql`insert into users (username, email, password_hash, first_name, last_name) values (${username}, ${`${username}@example.com`}, 'x', 'A', 'B')`);
}

/** A separate process holding the database, as the service does; resolves once it is open. */
function holder(): Promise<{ pid: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'tests/helpers/embedded-holder.ts'), dataDir], { cwd: REPO, env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve({ pid: child.pid! });
    });
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}: ${err}`)));
  });
}

describe('the embedded PostgreSQL server', () => {
  it('is started by the first process, joined by the next, and stopped by the last one out', async () => {
    const first = await open();
    expect(first.kind).toBe('embedded');
    const { pid, port } = postmaster()!;
    expect(fs.statSync(path.join(dataDir, 'pg', 'PG_VERSION')).isFile()).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'))).toHaveProperty('databasePassword');

    const second = await open();
    expect(postmaster()).toMatchObject({ pid, port });
    await addUser(second, 'ada');
    expect(await usernames(first)).toEqual(['ada']);

    await first.close();
    expect(serverRuns()).toBe(true);
    expect(await usernames(second)).toEqual(['ada']);
    await second.close();
    expect(serverRuns()).toBe(false);

    // The data stays in DATA_DIR/pg for the next start.
    expect(await usernames(await open())).toEqual(['ada']);
  });

  it('adopts the server of a process killed with SIGKILL, and the adopter stops it', async () => {
    const killed = await holder();
    const { pid } = postmaster()!;
    process.kill(killed.pid, 'SIGKILL');

    const next = await open();
    expect(postmaster()!.pid).toBe(pid);
    await addUser(next, 'grace');
    await next.close();
    expect(serverRuns()).toBe(false);
  });

  it('starts over a postmaster.pid left by a server killed with it, or naming a process that is not PostgreSQL', async () => {
    const handle = await open();
    await addUser(handle, 'linus');
    const { pid } = postmaster()!;
    process.kill(pid, 'SIGKILL');
    await handle.close(); // its server is gone: closing still succeeds
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(true);

    const restarted = await open();
    expect(postmaster()!.pid).not.toBe(pid);
    expect(await usernames(restarted)).toEqual(['linus']);
    await restarted.close();

    // A pid file whose process id now belongs to another program (here: this test process).
    fs.writeFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), `${process.pid}\n${path.join(dataDir, 'pg')}\n0\n5432\n\n127.0.0.1\n0 0\nready\n`);
    expect(await usernames(await open())).toEqual(['linus']);
  });

  it('carries over a DATA_DIR/pg written by the earlier PGlite version, keeping the old files aside', async () => {
    const pgDir = path.join(dataDir, 'pg');
    const { PGlite } = await import('@electric-sql/pglite');
    const { drizzle } = await import('drizzle-orm/pglite');
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    const pglite = await PGlite.create({ dataDir: pgDir });
    await migrate(drizzle(pglite), { migrationsFolder: path.join(REPO, 'drizzle') });
    await pglite.exec(`insert into users (username, email, password_hash, first_name, last_name) values ('legacy', 'legacy@example.com', 'x', 'L', 'G')`);
    await pglite.close();

    const handle = await open();
    expect(await usernames(handle)).toEqual(['legacy']);
    await addUser(handle, 'new');
    expect(fs.existsSync(path.join(dataDir, 'pg-pglite', 'PG_VERSION'))).toBe(true);
    await handle.close();
    expect(await usernames(await open())).toEqual(['legacy', 'new']);
  });
});
