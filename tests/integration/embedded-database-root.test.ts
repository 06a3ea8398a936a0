import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { locateDataDirectory, relocatedDirectory } from '../../src/db/embedded/data-location';
import { postmasterRuns, readPostmasterPid } from '../../src/db/embedded/postmaster';
import { postgresUserIfRoot } from '../../src/db/embedded/run-as-postgres';
import { eventually } from '../helpers/eventually';
import { freePort } from '../helpers/ports';

/**
 * `npm install && npm start` in a checkout under a home directory only its owner can enter: root
 * in /root on a fresh VPS or a container image. As root the embedded server runs as the postgres
 * user, who cannot pass that home directory: its files go under /var/lib/wallet-service instead,
 * one directory per checkout, found again on every start. As any other user the server runs as
 * that user and its files stay in DATA_DIR/pg. CI runs as root, so both branches run somewhere.
 */

const REPO = path.resolve(__dirname, '../..');
const AS_ROOT = process.getuid?.() === 0;
/** What a checkout needs to `npm start`; the rest of the repository plays no part. */
const CHECKOUT_FILES = ['package.json', 'tsconfig.json', 'src', 'packages', 'node_modules'];

let home: string;
const running: ChildProcess[] = [];
const relocated: string[] = [];

beforeEach(() => {
  // mkdtemp makes it 0700: only its owner (root, in CI) can pass it, as with /root.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'wallet-home-'));
});
afterEach(async () => {
  for (const child of running.splice(0)) await stop(child, 'SIGKILL');
  for (const dir of [...relocated.splice(0), ...fs.readdirSync(home).map((name) => path.join(home, name, '.data', 'pg'))]) {
    const info = readPostmasterPid(dir);
    if (info && postmasterRuns(info)) process.kill(info.pid, 'SIGQUIT');
  }
  for (const name of fs.readdirSync(home)) fs.rmSync(relocatedDirectory(path.join(home, name, '.data')), { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

function checkout(name: string): string {
  const dir = path.join(home, name);
  fs.mkdirSync(dir);
  for (const file of CHECKOUT_FILES) fs.symlinkSync(path.join(REPO, file), path.join(dir, file));
  relocated.push(relocatedDirectory(path.join(dir, '.data')));
  return dir;
}

/** `npm start` in `dir`, configured with nothing but the port; resolves once it says it listens and /healthz answers. */
async function npmStart(dir: string, port: number): Promise<{ child: ChildProcess; output: string[]; url: string }> {
  const output: string[] = [];
  const env = { PATH: process.env.PATH ?? '', HOME: home, PORT: String(port), LOG_LEVEL: 'info' };
  // In a process group of its own, as a terminal runs it: npm does not pass SIGTERM on to the
  // service, so stop() signals the group (npm and the service), as Ctrl-C does.
  const child = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.push(child);
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output.join('')}`);
    // Its own line first: the port came free from the probe, and another test's server may have
    // taken it meanwhile (Node 24 CI: /healthz answered before this service had its database).
    if (!output.join('').includes(`wallet service listening on port ${port}`)) return undefined;
    return (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) || undefined;
  }, 'the service to answer /healthz').catch((err: Error) => {
    throw new Error(`${err.message}; it printed:\n${output.join('').slice(-3000)}`);
  });
  return { child, output, url };
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.stdout!.closed && child.stderr!.closed) return;
  // 'close': every process holding its output is gone (the service too, not only npm); a service
  // left running would keep the port, and the next start would find it taken.
  const gone = new Promise((resolve) => child.once('close', resolve));
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // the group is gone already
  }
  await gone;
  running.splice(running.indexOf(child), 1);
}

async function signup(url: string, username: string): Promise<string> {
  const response = await fetch(`${url}/api/users/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, email: `${username}@example.com`, password: 'correct horse battery staple', firstName: 'Ada', lastName: 'Lovelace' }),
  });
  return `${response.status} ${await response.text()}`;
}

describe('the embedded database of a checkout under a home directory only its owner can enter', () => {
  it('starts with `npm start`, keeps its data across a restart, and a second checkout gets a database of its own', async () => {
    const first = checkout('wallet');
    const port = await freePort();
    let service = await npmStart(first, port);
    const pgDir = path.join(first, '.data', 'pg');
    if (AS_ROOT) {
      const target = relocatedDirectory(path.join(first, '.data'));
      expect(fs.lstatSync(pgDir).isSymbolicLink()).toBe(true);
      expect(fs.realpathSync(pgDir)).toBe(target);
      expect(fs.existsSync(path.join(target, 'PG_VERSION'))).toBe(true);
      // Said in its first lines, where an operator looks for it.
      expect(service.output.join('')).toContain(`embedded PostgreSQL files in ${target}`);
    } else {
      expect(fs.lstatSync(pgDir).isDirectory()).toBe(true);
      expect(fs.existsSync(path.join(pgDir, 'PG_VERSION'))).toBe(true);
    }
    expect(await signup(service.url, 'ada')).toMatch(/^201 /);

    await stop(service.child, 'SIGTERM');
    service = await npmStart(first, port);
    // The same database: the username is taken.
    expect(await signup(service.url, 'ada')).toMatch(/^400 .*already exists/);
    await stop(service.child, 'SIGTERM');

    const second = checkout('wallet-2');
    const other = await npmStart(second, await freePort());
    expect(fs.realpathSync(path.join(second, '.data', 'pg'))).not.toBe(fs.realpathSync(pgDir));
    expect(await signup(other.url, 'ada')).toMatch(/^201 /);
    await stop(other.child, 'SIGTERM');
  });
});

describe('a data directory the server cannot reach', () => {
  // As root the server's user is postgres; as anyone else it is the user itself, whom a 0000
  // directory stops too. Either way the way to DATA_DIR is blocked by `blocker`.
  const runAs = () => {
    const user = AS_ROOT ? 'postgres' : String(process.getuid!());
    return { uid: Number(execFileSync('id', ['-u', user], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', user], { encoding: 'utf8' })) };
  };

  it('is refused with the directory that blocks and the command that opens it, when its files exist already', () => {
    fs.chmodSync(home, 0o755);
    const blocker = path.join(home, 'locked');
    const dataDir = path.join(blocker, 'wallet', '.data');
    fs.mkdirSync(path.join(dataDir, 'pg'), { recursive: true });
    fs.chmodSync(blocker, 0o000);
    try {
      expect(() => locateDataDirectory(dataDir, runAs())).toThrow(`${blocker} lets only its owner through. Open it with \`chmod o+x ${blocker}\``);
    } finally {
      fs.chmodSync(blocker, 0o700);
    }
    // Nothing was moved or linked.
    expect(fs.lstatSync(path.join(dataDir, 'pg')).isDirectory()).toBe(true);
  });

  it('is left alone when the server can reach it', () => {
    const dataDir = path.join(home, 'open', '.data');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.chmodSync(home, 0o755);
    expect(locateDataDirectory(dataDir, runAs())).toEqual({ pgDir: path.join(dataDir, 'pg') });
  });
});

describe('the user the server runs as', () => {
  // The machine's own `postgres` user runs its PostgreSQL server, so the missing user is another name.
  const user = `wallet-pg-${process.pid}`;
  afterEach(() => {
    if (AS_ROOT) execFileSync('userdel', [user], { stdio: 'ignore' });
  });

  it('is, as root, a system user added when the image has none; as anyone else, oneself', () => {
    const said: string[] = [];
    const runAs = postgresUserIfRoot((message) => said.push(message), user);
    if (!AS_ROOT) {
      expect(runAs).toBeUndefined();
      return;
    }
    expect(runAs).toEqual({ uid: Number(execFileSync('id', ['-u', user], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', user], { encoding: 'utf8' })) });
    expect(runAs!.uid).not.toBe(0);
    expect(said).toEqual([expect.stringContaining(`system user "${user}" added`)]);
    // Found, not added, the next time.
    expect(postgresUserIfRoot((message) => said.push(message), user)).toEqual(runAs);
    expect(said).toHaveLength(1);
  });
});
