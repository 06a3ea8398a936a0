import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../helpers/eventually';
import { userFields } from '../helpers/factories';
import { runCli, scratchDatabase, serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../helpers/service-process';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * With nothing configured, the embedded ledger and payment provider run in a process of their own
 * (src/sandbox-host/), never on the service's event loop, and exactly one such process owns a
 * DATA_DIR whatever the number of service processes using it, across restarts and kills.
 */
const NOTHING_CONFIGURED = { STELLAR_RPC_URL: '', HORIZON_URL: '', STELLAR_NETWORK_PASSPHRASE: '', PAYSTACK_SECRET_KEY: '', FRIENDBOT_URL: '' };

interface HostState {
  pid: number;
  port: number;
}
const hostState = (dataDir: string): HostState | undefined => {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'sandbox-host.json'), 'utf8')) as HostState;
  } catch {
    return undefined;
  }
};

/** Every sandbox host process running for this DATA_DIR, from the process table. */
function hostsOf(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    if (argv.some((arg) => arg.endsWith('host-main.ts')) && argv.includes(dataDir)) pids.push(Number(entry));
  }
  return pids;
}

const stopped = new Set<number>();
afterEach(() => {
  // A failing test must not leave a process frozen for ever.
  for (const pid of stopped) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // gone
    }
  }
  stopped.clear();
});

describe('the embedded sandboxes run outside the service', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(NOTHING_CONFIGURED);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers /healthz while the sandbox host is held on a latch, and the sandbox answers once released', async () => {
    const host = hostState(app.dataDir)!;
    expect(host.pid).not.toBe(process.pid);
    await app.http.get('/sandbox/horizon/').expect(200);

    process.kill(host.pid, 'SIGSTOP');
    stopped.add(host.pid);
    const order: string[] = [];
    const sandboxCall = app.http.get('/sandbox/horizon/').then((res) => {
      order.push('sandbox');
      return res;
    });
    const health = await app.http.get('/healthz');
    order.push('healthz');
    // Its ledger readings (treasury, history window) wait for the frozen ledger only so long.
    const metrics = await app.http.get('/metrics');
    order.push('metrics');
    process.kill(host.pid, 'SIGCONT');
    stopped.delete(host.pid);
    const sandbox = await sandboxCall;

    expect(health.status).toBe(200);
    expect(metrics.status).toBe(200);
    expect(sandbox.status).toBe(200);
    expect(order).toEqual(['healthz', 'metrics', 'sandbox']);
  });

  it('reaches the ledger at the host’s own address, not through its own port', () => {
    const host = hostState(app.dataDir)!;
    expect(app.container.config.ledger.url).toBe(`http://127.0.0.1:${host.port}/sandbox/rpc`);
    expect(app.container.config.ledger.friendbotUrl).toBe(`http://127.0.0.1:${host.port}/sandbox/horizon/friendbot`);
  });
});

describe('one sandbox host per DATA_DIR', () => {
  let processes: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
    processes = [];
  });

  const latestLedger = async (service: ServiceProcess) => {
    const res = await fetch(`${service.url}/sandbox/horizon/`);
    return ((await res.json()) as { history_latest_ledger: number }).history_latest_ledger;
  };
  const ready = (service: ServiceProcess) =>
    eventually(async () => ((await fetch(`${service.url}/readyz`)).status === 200 ? true : undefined), 'the service to be ready (ledger bootstrapped)');

  it('is shared by service processes started at once, survives their SIGKILL, and keeps its ledger across its own', async () => {
    const dataDir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'wallet-host-'));
    const env = serviceProcessEnv(await scratchDatabase('sandbox_host_owner'), { ...NOTHING_CONFIGURED, DATA_DIR: dataDir, LEDGER_CLOSE_MS: '0' });

    processes = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    await Promise.all(processes.map(ready));
    const first = hostState(dataDir)!;
    expect(hostsOf(dataDir)).toEqual([first.pid]);
    const before = await latestLedger(processes[0]!);
    expect(await latestLedger(processes[1]!)).toBeGreaterThanOrEqual(before);

    // Both service processes die without a word: the host outlives them only for its idle time, and a
    // restart finds it (or, on a slow machine, the one that replaced it): never two.
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    await processes[0]!.start();
    await ready(processes[0]!);
    expect(hostsOf(dataDir)).toHaveLength(1);
    expect(await latestLedger(processes[0]!)).toBeGreaterThanOrEqual(before);

    // The host itself is killed: the service attaches to a new one, on the same port, same ledger.
    const current = hostState(dataDir)!;
    process.kill(current.pid, 'SIGKILL');
    const replaced = await eventually(async () => {
      const next = hostState(dataDir);
      return next && next.pid !== current.pid && hostsOf(dataDir).length === 1 ? next : undefined;
    }, 'a new sandbox host');
    expect(replaced.port).toBe(current.port);
    expect(hostsOf(dataDir)).toEqual([replaced.pid]);
    await ready(processes[0]!);
    expect(await latestLedger(processes[0]!)).toBeGreaterThanOrEqual(before);
    expect(processes[0]!.output.join('')).not.toContain('could not take the old port');
  });

  it('is one host for a cluster of two workers (WEB_CONCURRENCY=2), each worker attached to it', async () => {
    const dataDir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'wallet-host-'));
    const env = serviceProcessEnv(await scratchDatabase('sandbox_host_cluster'), { ...NOTHING_CONFIGURED, DATA_DIR: dataDir, WEB_CONCURRENCY: '2', LOG_LEVEL: 'info' });

    const cluster = await startServiceProcess(env);
    processes = [cluster];
    await eventually(async () => (cluster.output.join('').includes('every worker listening') ? true : undefined), 'both workers listening');
    await ready(cluster);

    const host = hostState(dataDir)!;
    expect(hostsOf(dataDir)).toEqual([host.pid]);
    const health = (await (await fetch(`http://127.0.0.1:${host.port}/_host/health`)).json()) as { attached: number };
    expect(health.attached).toBe(2);
  });

  it('hands out checkout pages at the public address, and serves an operator command while the server runs', async () => {
    const dataDir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'wallet-host-'));
    const env = serviceProcessEnv(await scratchDatabase('sandbox_host_cli'), { ...NOTHING_CONFIGURED, DATA_DIR: dataDir });
    const service = await startServiceProcess(env);
    processes = [service];
    await ready(service);
    const post = (route: string, body: unknown, token?: string) =>
      fetch(`${service.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const fields = userFields();
    expect((await post('/api/users/signup', fields)).status).toBe(201);
    const { token } = (await (await post('/api/users/login', { identifier: fields.username, password: fields.password })).json()) as { token: string };

    const intent = await post('/api/payments/create-payment-intent', { amount: 1500 }, token);
    const { authorization_url: checkoutUrl } = (await intent.json()) as { authorization_url: string };
    const page = await fetch(checkoutUrl);
    // The same DATA_DIR, PORT and PUBLIC_BASE_URL as the running server: it attaches beside it.
    const audit = await runCli('ledger-audit', { ...env, PORT: new URL(service.url).port, PUBLIC_BASE_URL: service.url });

    expect(intent.status).toBe(200);
    expect(checkoutUrl.startsWith(`${service.url}/sandbox/paystack/checkout/`)).toBe(true);
    expect(page.status).toBe(200);
    expect(audit.output).not.toContain('in use');
    expect(audit.code).toBe(0);
    expect(hostsOf(dataDir)).toHaveLength(1);
  });

  it('stops a host that runs but does not answer before another starts: still one owner, on the same port', async () => {
    const dataDir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'wallet-host-'));
    const env = serviceProcessEnv(await scratchDatabase('sandbox_host_frozen'), { ...NOTHING_CONFIGURED, DATA_DIR: dataDir, LEDGER_CLOSE_MS: '0' });
    const first = await startServiceProcess(env);
    processes = [first];
    await ready(first);
    const frozen = hostState(dataDir)!;

    process.kill(frozen.pid, 'SIGSTOP');
    stopped.add(frozen.pid);
    const second = await startServiceProcess(env);
    processes.push(second);
    stopped.delete(frozen.pid);

    const replaced = hostState(dataDir)!;
    expect(replaced.pid).not.toBe(frozen.pid);
    expect(replaced.port).toBe(frozen.port);
    expect(hostsOf(dataDir)).toEqual([replaced.pid]);
    // The first process lost its host with the kill and attached to the new one: both serve.
    await ready(first);
    await ready(second);
    expect(await latestLedger(first)).toBeGreaterThan(0);
    expect(await latestLedger(second)).toBeGreaterThan(0);
  });
});
