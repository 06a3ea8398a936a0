import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runningEmbeddedServerUrl } from '../src/db/embedded/embedded-server';
import { postmasterRuns, readPostmasterPid } from '../src/db/embedded/postmaster';
import { dropDatabase, recreateDatabase } from './database';
import { request, sleep } from './http';

/**
 * The service under test runs as a child process, exactly as `npm start` runs it, so the bench
 * measures the real server (its event loop, worker threads, database driver) and never shares a
 * process with the load generator.
 */

const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 20_000;
const LOG_TAIL_BYTES = 4_000;

/** Every child still running, so SIGINT and a failed scenario can stop them all. */
const live = new Set<ChildProcess>();
/** Temp directories not yet disposed of, removed by cleanUpAfterInterrupt (unless kept). */
const tempRoots = new Map<string, boolean>();

function makeTempRoot(label: string, keep: boolean): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `wallet-bench-${label}-`));
  // As root, the embedded server runs as the postgres user, who must get through to DATA_DIR/pg.
  fs.chmodSync(root, 0o711);
  tempRoots.set(root, keep);
  return root;
}

function removeTempRoot(root: string): void {
  if (!tempRoots.get(root)) fs.rmSync(root, { recursive: true, force: true });
  tempRoots.delete(root);
}

/** After SIGINT: every child stopped, then the temp directories of instances never disposed of. */
export async function cleanUpAfterInterrupt(graceMs: number): Promise<void> {
  await stopAllChildren(graceMs);
  for (const root of [...tempRoots.keys()]) {
    await stopLeftoverServer(path.join(root, 'data'));
    removeTempRoot(root);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** SIGTERM (the service shuts down gracefully and closes its database), SIGKILL after the grace period. */
async function stopChild(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<void> {
  if (!exited(child)) {
    child.kill('SIGTERM');
    if (!(await waitExit(child, graceMs))) {
      child.kill('SIGKILL');
      await waitExit(child, 5_000);
    }
  }
  live.delete(child);
}

/** Stops every child the bench started (SIGINT, or an aborted run). */
export async function stopAllChildren(graceMs = 10_000): Promise<void> {
  await Promise.all([...live].map((child) => stopChild(child, graceMs)));
}

/**
 * A service that had to be killed (SIGKILL after the grace period) leaves its embedded server
 * running, in its own session: stopped here (fast shutdown) before the temp directory goes.
 */
async function stopLeftoverServer(dataDir: string): Promise<void> {
  const info = readPostmasterPid(path.join(dataDir, 'pg'));
  if (!info || !postmasterRuns(info)) return;
  try {
    process.kill(info.pid, 'SIGINT');
  } catch {
    return; // gone meanwhile
  }
  const deadline = Date.now() + 10_000;
  while (postmasterRuns(info) && Date.now() < deadline) await sleep(100);
}

function tail(file: string): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.slice(-LOG_TAIL_BYTES);
  } catch {
    return '';
  }
}

/** A TypeScript entry point of the repository started with tsx, its output appended to a log file. */
function spawnTs(serviceDir: string, entry: string, args: string[], env: NodeJS.ProcessEnv, logFile: string, nodeArgs: string[] = []): ChildProcess {
  const fd = fs.openSync(logFile, 'a');
  try {
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry, ...args], { cwd: serviceDir, env, stdio: ['ignore', fd, fd] });
    live.add(child);
    child.once('exit', () => live.delete(child));
    return child;
  } finally {
    fs.closeSync(fd);
  }
}

/** A sandbox's CLI in the checkout under test: a workspace now, under src/sandbox/ in older commits. */
function sandboxCli(serviceDir: string, name: 'horizon' | 'paystack'): string {
  const workspace = `packages/${name}-sandbox/src/cli.ts`;
  return fs.existsSync(path.join(serviceDir, workspace)) ? workspace : `src/sandbox/${name}/cli.ts`;
}

export interface ServiceOptions {
  /** Names the temp directory and log lines. */
  label: string;
  ledgerCloseMs: number;
  /** BCRYPT_COST; the service default (10) when unset. */
  bcryptCost?: number;
  /** A payment provider outside the service (the standalone sandbox, which sends no webhooks). */
  paystack?: { baseUrl: string; secretKey: string };
  extraEnv?: Record<string, string>;
  /** The Horizon root of a ledger outside the service (a standalone sandbox); default its embedded one. */
  ledgerHorizonUrl?: string;
}

export interface BenchEnvironment {
  /** Repository whose src/server.ts is started (the repo itself, or a scratch copy for A/B runs). */
  serviceDir: string;
  /** PostgreSQL server database, recreated empty for every instance; unset = the embedded server in DATA_DIR. */
  databaseUrl?: string;
  /** Keep temp directories after the run (for debugging). */
  keepTemp: boolean;
  /** Node flags for every service process, e.g. --cpu-prof when diagnosing a slow route. */
  serviceNodeArgs?: string[];
}

/** One running service: fresh DATA_DIR (and fresh database on a server), free port, default (info) logs. */
export class ServiceInstance {
  readonly adminEmail = 'bench-admin@example.com';
  readonly adminPassword = `bench-${crypto.randomBytes(8).toString('hex')}`;
  readonly dataDir: string;
  readonly logFile: string;
  private child: ChildProcess | undefined;

  private constructor(
    readonly bench: BenchEnvironment,
    readonly options: ServiceOptions,
    readonly root: string,
    readonly port: number,
  ) {
    this.dataDir = path.join(root, 'data');
    this.logFile = path.join(root, 'service.log');
  }

  static async launch(bench: BenchEnvironment, options: ServiceOptions): Promise<ServiceInstance> {
    const root = makeTempRoot(options.label, bench.keepTemp);
    if (bench.databaseUrl) await recreateDatabase(bench.databaseUrl);
    const instance = new ServiceInstance(bench, options, root, await freePort());
    try {
      await instance.start();
    } catch (err) {
      await instance.dispose();
      throw err;
    }
    return instance;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get horizonUrl(): string {
    return this.options.ledgerHorizonUrl ?? `${this.baseUrl}/sandbox/horizon`;
  }

  /** The service's database: the outside server's, or the embedded server the service runs from its DATA_DIR. */
  get databaseUrl(): string {
    const url = this.bench.databaseUrl ?? runningEmbeddedServerUrl(this.dataDir);
    if (!url) throw new Error(`service ${this.options.label}: its embedded database server is not running`);
    return url;
  }

  private env(): NodeJS.ProcessEnv {
    const o = this.options;
    // Every variable that could point the service elsewhere is set, empty meaning "default": an
    // empty value also keeps a developer's .env (dotenv never overrides) out of the measurement.
    return {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(this.port),
      // One service process unless a scenario asks for more (read-path-cores).
      WEB_CONCURRENCY: '',
      PUBLIC_BASE_URL: this.baseUrl,
      DATA_DIR: this.dataDir,
      DATABASE_URL: this.bench.databaseUrl ?? '',
      DATABASE_POOL_SIZE: '',
      JWT_SECRET: '',
      WALLET_ENCRYPTION_KEY: '',
      WALLET_ENCRYPTION_KEY_PREVIOUS: '',
      STELLAR_RPC_URL: '',
      HORIZON_URL: '',
      STELLAR_NETWORK_PASSPHRASE: '',
      FRIENDBOT_URL: '',
      ISSUER_SECRET: '',
      DISTRIBUTION_SECRET: '',
      TOKEN_CODE: 'WLT',
      PAYSTACK_SECRET_KEY: o.paystack?.secretKey ?? '',
      PAYSTACK_BASE_URL: o.paystack?.baseUrl ?? '',
      SMTP_URL: '',
      ADMIN_EMAIL: this.adminEmail,
      ADMIN_PASSWORD: this.adminPassword,
      AUTH_RATE_LIMIT: '0',
      CALLBACK_RATE_LIMIT: '0',
      WEBHOOK_RATE_LIMIT: '0',
      SIGNUP_WALLETS_PER_HOUR: '0',
      // The default level, one line per request: a user runs it so, and it is part of every request's cost.
      LOG_LEVEL: 'info',
      LEDGER_CLOSE_MS: String(o.ledgerCloseMs),
      LEDGER_CHANNELS: '',
      BCRYPT_COST: o.bcryptCost === undefined ? '' : String(o.bcryptCost),
      PASSWORD_HASH_THREADS: '',
      REQUIRE_HTTPS_FOR_SECRETS: '',
      ...o.extraEnv,
    };
  }

  async start(): Promise<void> {
    if (this.child && !exited(this.child)) return;
    const child = spawnTs(this.bench.serviceDir, 'src/server.ts', [], this.env(), this.logFile, this.bench.serviceNodeArgs);
    this.child = child;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (exited(child)) throw new Error(`service ${this.options.label} exited during start (code ${child.exitCode}):\n${tail(this.logFile)}`);
      const ready = await request('GET', `${this.baseUrl}/readyz`, { timeoutMs: 2_000 }).catch(() => undefined);
      if (ready?.status === 200) return;
      await sleep(250);
    }
    await stopChild(child);
    throw new Error(`service ${this.options.label} not ready within ${READY_TIMEOUT_MS} ms:\n${tail(this.logFile)}`);
  }

  async stop(): Promise<void> {
    if (this.child) await stopChild(this.child);
    this.child = undefined;
    await stopLeftoverServer(this.dataDir);
  }

  /** The running service's process id: the soak reads its resident memory from /proc/<pid>/status. */
  get pid(): number | undefined {
    return this.child && !exited(this.child) ? this.child.pid : undefined;
  }

  logTail(): string {
    return tail(this.logFile);
  }

  async dispose(): Promise<void> {
    await this.stop();
    removeTempRoot(this.root);
    if (this.bench.databaseUrl && !this.bench.keepTemp) await dropDatabase(this.bench.databaseUrl);
  }
}

/**
 * The Paystack sandbox on its own (`npm run sandbox:paystack`), started without a webhook URL.
 * The embedded one posts charge.success to the service the moment Pay is pressed, so the mint
 * would start before the measured verify burst; with this one, the verify calls alone settle.
 */
export class PaystackSandboxProcess {
  readonly secretKey = `sk_test_bench_${crypto.randomBytes(12).toString('hex')}`;
  private child: ChildProcess | undefined;

  private constructor(
    readonly root: string,
    readonly port: number,
  ) {}

  static async launch(bench: BenchEnvironment): Promise<PaystackSandboxProcess> {
    const root = makeTempRoot('paystack', bench.keepTemp);
    const sandbox = new PaystackSandboxProcess(root, await freePort());
    const args = ['--port', String(sandbox.port), '--host', '127.0.0.1', '--secret', sandbox.secretKey, '--data-dir', path.join(root, 'data')];
    const child = spawnTs(bench.serviceDir, sandboxCli(bench.serviceDir, 'paystack'), args, { ...process.env, LOG_LEVEL: 'warn' }, path.join(root, 'paystack.log'));
    sandbox.child = child;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (exited(child)) throw new Error(`paystack sandbox exited during start:\n${tail(path.join(root, 'paystack.log'))}`);
      // An unknown reference answers 400: the API is up and the secret is accepted.
      const probe = await request('GET', `${sandbox.baseUrl}/transaction/verify/probe`, { token: sandbox.secretKey, timeoutMs: 2_000 }).catch(() => undefined);
      if (probe?.status === 400) return sandbox;
      await sleep(250);
    }
    await stopChild(child);
    throw new Error('paystack sandbox not ready in time');
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async dispose(): Promise<void> {
    if (this.child) await stopChild(this.child);
    removeTempRoot(this.root);
  }
}

/**
 * The sandbox ledger on its own (`npm run sandbox:ledger`). The embedded one keeps every
 * transaction it ever applied in the service's own heap (it is the ledger's history), so a soak
 * of the service alone runs the ledger beside it, as production runs Horizon elsewhere.
 */
export class LedgerSandboxProcess {
  private child: ChildProcess | undefined;

  private constructor(
    readonly root: string,
    readonly port: number,
  ) {}

  static async launch(bench: BenchEnvironment, closeMs = 0): Promise<LedgerSandboxProcess> {
    const root = makeTempRoot('ledger', bench.keepTemp);
    const sandbox = new LedgerSandboxProcess(root, await freePort());
    const args = ['--port', String(sandbox.port), '--data-dir', path.join(root, 'data'), '--close-ms', String(closeMs)];
    const child = spawnTs(bench.serviceDir, sandboxCli(bench.serviceDir, 'horizon'), args, { ...process.env, LOG_LEVEL: 'warn' }, path.join(root, 'ledger.log'));
    sandbox.child = child;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (exited(child)) throw new Error(`ledger sandbox exited during start:\n${tail(path.join(root, 'ledger.log'))}`);
      const probe = await request('GET', `${sandbox.url}/`, { timeoutMs: 2_000 }).catch(() => undefined);
      if (probe?.status === 200) return sandbox;
      await sleep(250);
    }
    await stopChild(child);
    throw new Error('ledger sandbox not ready in time');
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** What the service needs to use it instead of the embedded ledger, through Horizon. */
  get env(): Record<string, string> {
    return this.envFor('horizon');
  }

  /** The same, through the API named: Stellar RPC (served at /rpc) or Horizon (at the root). */
  envFor(api: 'rpc' | 'horizon'): Record<string, string> {
    return {
      STELLAR_RPC_URL: api === 'rpc' ? `${this.url}/rpc` : '',
      HORIZON_URL: api === 'horizon' ? this.url : '',
      STELLAR_NETWORK_PASSPHRASE: 'Wallet Sandbox Network ; 2026',
      FRIENDBOT_URL: `${this.url}/friendbot`,
    };
  }

  async dispose(): Promise<void> {
    if (this.child) await stopChild(this.child);
    removeTempRoot(this.root);
  }
}

/** The ceilings: {"status":"ok"} from node:http alone or from bare Express, or the transaction list's own (see its file). */
export type CeilingKind = 'bare-http' | 'bare-express' | 'transaction-list';

/**
 * A ceiling for the read path, in its own process, measured in the same run as the service and
 * started only while measured. Each answers GET /healthz (its readiness probe); transaction-list
 * also serves the list with the service's repository and shaping, from the checkout under test
 * when it has the file (an A/B run measures the copy's code), else this one's.
 */
export class CeilingProcess {
  private child: ChildProcess | undefined;

  private constructor(
    readonly root: string,
    readonly port: number,
  ) {}

  static async launch(bench: BenchEnvironment, kind: CeilingKind, args: string[] = []): Promise<CeilingProcess> {
    const root = makeTempRoot(kind, bench.keepTemp);
    const ceiling = new CeilingProcess(root, await freePort());
    const inCheckout = path.join(bench.serviceDir, 'bench', 'ceilings', `${kind}.ts`);
    const entry = fs.existsSync(inCheckout) ? inCheckout : path.join(__dirname, 'ceilings', `${kind}.ts`);
    ceiling.child = spawnTs(bench.serviceDir, entry, [String(ceiling.port), ...args], process.env, path.join(root, `${kind}.log`));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (exited(ceiling.child)) throw new Error(`${kind} exited during start:\n${tail(path.join(root, `${kind}.log`))}`);
      const probe = await request('GET', `${ceiling.baseUrl}/healthz`, { timeoutMs: 2_000 }).catch(() => undefined);
      if (probe?.status === 200) return ceiling;
      await sleep(100);
    }
    await stopChild(ceiling.child);
    throw new Error(`${kind} not ready in time`);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async dispose(): Promise<void> {
    if (this.child) await stopChild(this.child);
    removeTempRoot(this.root);
  }
}

/** The processes a service process started (cluster workers, a sandbox host...): their command lines, from /proc. */
export function childProcesses(pid: number): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The parent's pid is the 2nd field after the command name, which is in parentheses and may hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(1).join(' '));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
