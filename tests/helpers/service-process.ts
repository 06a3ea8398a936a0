import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { eventually } from './eventually';
import { freePort } from './ports';
import { ADMIN } from './factories';
import { TEST_JWT_SECRET, TEST_WALLET_KEY } from './test-app';

const ROOT = path.resolve(__dirname, '../..');
/**
 * `node --import tsx FILE`: the process is the program itself. Not the `tsx` command, which runs the
 * program in a child of its own: a SIGKILL then killed only that wrapper, and the service went on
 * serving (found when its orphans outlived the test run: the kill test never killed anything).
 */
const runTs = (file: string, env: NodeJS.ProcessEnv) => spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });

/** The service as its own operating-system process (`node --import tsx src/server.ts`), as it runs in production. */
export interface ServiceProcess {
  url: string;
  /** Everything it printed, for a failing test to show. */
  output: string[];
  /** What it printed on stdout alone (its log lines; with WEB_CONCURRENCY > 1, its workers' too). */
  stdout: string[];
  /** The running process's id (with WEB_CONCURRENCY > 1, the cluster primary's); undefined once it has exited. */
  readonly pid: number | undefined;
  /** Starts it (again) on the same port, data directory and environment; resolves once /healthz answers. */
  start(): Promise<void>;
  /** Kills it with `signal` (SIGKILL: no shutdown code runs) and waits for it to be gone; how it ended. */
  kill(signal: NodeJS.Signals): Promise<ProcessEnd>;
}

/**
 * What every service process of the suite runs with: its database, the suite's secrets and admin,
 * no auth rate limit and cheap hashing; `extra` (the sandboxes, deadlines) on top.
 */
export function serviceProcessEnv(databaseUrl: string, extra: Record<string, string>): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    JWT_SECRET: TEST_JWT_SECRET,
    WALLET_ENCRYPTION_KEY: TEST_WALLET_KEY,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    AUTH_RATE_LIMIT: '0',
    BCRYPT_COST: '4',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** How a process ended: its exit code, or the signal that ended it. */
export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wallet-process-'));
  const output: string[] = [];
  const stdout: string[] = [];
  let child: ChildProcess | undefined;
  const url = `http://127.0.0.1:${port}`;
  const answers = () => fetch(`${url}/healthz`).then((r) => r.ok, () => false);
  const start = async () => {
    // Whatever answers now is not the process about to start: a kill that left the service running
    // would otherwise pass for a restart.
    if (await answers()) throw new Error(`something still answers on ${url}: the previous service process is not gone`);
    child = runTs('src/server.ts', { ...inheritedEnv(), NODE_ENV: 'test', PORT: String(port), PUBLIC_BASE_URL: url, DATA_DIR: dataDir, ...env });
    child.stdout!.on('data', (d: Buffer) => {
      output.push(d.toString());
      stdout.push(d.toString());
    });
    child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    const started = child;
    await eventually(
      async () => {
        if (started.exitCode !== null) throw new Error(`it exited with ${started.exitCode}`);
        return (await answers()) ? true : undefined;
      },
      'the service process to answer /healthz',
      { intervalMs: 100 },
    ).catch((err: Error) => {
      throw new Error(`the service process did not start (${err.message}):\n${output.join('').slice(-3000)}`);
    });
  };
  await start();
  return {
    url,
    output,
    stdout,
    get pid() {
      return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    start,
    async kill(signal) {
      const running = child;
      // A process killed by a signal has no exit code, only its signal: it is gone all the same.
      if (!running || running.exitCode !== null || running.signalCode !== null) return { code: running?.exitCode ?? null, signal: running?.signalCode ?? null };
      const gone = new Promise<ProcessEnd>((resolve) => running.once('exit', (code, endSignal) => resolve({ code, signal: endSignal })));
      running.kill(signal);
      // A graceful stop has 20 s; then it is killed, so a test's teardown never hangs (a test that
      // asserts a graceful stop then sees the SIGKILL in what this returns).
      const late = setTimeout(() => running.kill('SIGKILL'), 20_000);
      const end = await gone;
      clearTimeout(late);
      return end;
    },
  };
}

/**
 * A new, empty database on the run's PostgreSQL server (the embedded one, or TEST_DATABASE_URL's),
 * for service processes of their own: they migrate it at start like any deployment.
 */
export async function scratchDatabase(name: string): Promise<string> {
  const server = process.env.TEST_DATABASE_URL ?? process.env.WALLET_TEST_PG_URL;
  if (!server) throw new Error('no PostgreSQL server for service processes: run through jest (its global setup starts one) or set TEST_DATABASE_URL');
  const admin = new Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

/** One query on a database, with its own connection. */
export async function queryDatabase<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Runs one of the service's operator commands (`src/cli/NAME.ts`) as a process; its exit code and output. */
export async function runCli(name: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = runTs(`src/cli/${name}.ts`, { ...inheritedEnv(), NODE_ENV: 'test', ...env });
  const chunks: string[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push(d.toString()));
  child.stderr.on('data', (d: Buffer) => chunks.push(d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output: chunks.join('') };
}

/** This process's environment without Jest's module flags, which must not reach the service. */
function inheritedEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
}

/** Waits until no envelope or entry of the database is open, then runs `npm run ledger:audit` as its own process: it must come out clean. */
export async function settledAndAudited(databaseUrl: string, env: Record<string, string>): Promise<void> {
  await eventually(
    async () => {
      const [row] = await queryDatabase<{ n: string }>(
        databaseUrl,
        `select (select count(*) from ledger_envelopes where status in ('pending', 'submitted')) + (select count(*) from ledger_entries where status in ('pending', 'submitted')) as n`,
      );
      return Number(row!.n) === 0 ? true : undefined;
    },
    'the journal to settle',
    { intervalMs: 250 },
  );
  const audit = await runCli('ledger-audit', env);
  expect({ code: audit.code, output: audit.output }).toEqual({ code: 0, output: expect.stringContaining('the database and the ledger agree') });
}

/**
 * Sends until the answer is final, as a phone does: 202, 409, 5xx and a dead connection are asked
 * again. A money-moving request must carry an Idempotency-Key, or asking again moves money again.
 */
export function untilFinal<T extends { status: number }>(send: () => Promise<T>, what: string): Promise<T> {
  return eventually(
    async () => {
      const res = await send().catch(() => undefined);
      return !res || res.status === 202 || res.status === 409 || res.status >= 500 ? undefined : res;
    },
    what,
    { intervalMs: 100 },
  );
}
