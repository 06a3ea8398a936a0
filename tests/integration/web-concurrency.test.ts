import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { eventually } from '../helpers/eventually';
import { ADMIN, userFields } from '../helpers/factories';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { startLedgerSandbox, startPaystackSandbox, type RunningLedger, type RunningProvider } from '../helpers/sandboxes';
import { queryDatabase, scratchDatabase, serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../helpers/service-process';

/**
 * WEB_CONCURRENCY=2 as `npm start` runs it: a cluster primary and two worker processes on one
 * port. Which process answered is seen from outside, in /proc: the worker whose descriptors hold
 * the server's end of the connection (the primary hands each accepted connection to one worker
 * and closes its own copy), so nothing about the processes is told to clients. The request log
 * line (each process writes its own, with its pid) says the same.
 */

describe('WEB_CONCURRENCY=2: two service processes on one port', () => {
  let ledger: RunningLedger;
  let provider: RunningProvider;
  let databaseUrl: string;
  let service: ServiceProcess;
  let port: number;
  const AUTH_LIMIT = 4;

  beforeAll(async () => {
    ledger = await startLedgerSandbox({ idleCloseMs: 1000 });
    provider = await startPaystackSandbox();
    databaseUrl = await scratchDatabase(`web_concurrency_${process.pid}`);
    service = await startServiceProcess(
      serviceProcessEnv(databaseUrl, {
        ...ledger.env,
        ...provider.env,
        WEB_CONCURRENCY: '2',
        LOG_LEVEL: 'info',
        AUTH_RATE_LIMIT: String(AUTH_LIMIT),
        // The rate limit test counts as a client of its own (X-Forwarded-For), apart from the others' logins.
        TRUST_PROXY: 'loopback',
      }),
    );
    port = Number(new URL(service.url).port);
    await eventually(async () => (service.stdout.join('').includes('every worker listening') ? true : undefined), 'both workers listening');
  });

  afterAll(async () => {
    await service?.kill('SIGTERM');
    await ledger?.stop();
    await provider?.stop();
  });

  /**
   * The cluster primary's workers: its live children that run the service. Not every child is one:
   * tsx starts an esbuild service process in the primary when a file it loads is not in tsx's
   * cache yet (a fresh checkout, an edited file), and that child never takes a connection.
   */
  function workers(): number[] {
    return childrenOf(service.pid!).filter((pid) => commandLine(pid).includes('src/server.ts'));
  }

  /** A connection to the service that one worker has taken, and that worker's pid. */
  async function connectionTo(wanted?: number): Promise<{ socket: net.Socket; pid: number }> {
    const takenBy = new Set<number>();
    return eventually(
      async () => {
        const socket = await connect(port);
        const pid = await eventually(async () => serverEndHolder(port, socket.localPort!, workers()), `a worker of ${workers().join(', ')} to take the connection`, { intervalMs: 10 });
        if (wanted === undefined || pid === wanted) return { socket, pid };
        takenBy.add(pid);
        socket.destroy();
        return undefined;
      },
      `a connection taken by worker ${wanted ?? 'any'}`,
      { intervalMs: 10 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}: taken by ${[...takenBy].join(', ')} instead; workers now ${workers().join(', ')}\n${service.output.join('').slice(-4000)}`);
    });
  }

  it('answers requests from both worker processes', async () => {
    const pids = workers();
    expect(pids).toHaveLength(2);
    const answeredBy = new Set<number>();
    await eventually(
      async () => {
        const { socket, pid } = await connectionTo();
        const requestId = `which-${pid}-${Math.random().toString(36).slice(2)}`;
        const res = await requestOn(socket, port, { method: 'GET', path: '/healthz', headers: { 'X-Request-Id': requestId } });
        expect(res.status).toBe(200);
        // The process's own request log line says the same pid.
        const logged = await eventually(async () => logLineWith(service, requestId), 'the request log line');
        expect(logged.pid).toBe(pid);
        answeredBy.add(pid);
        return answeredBy.size === 2 ? true : undefined;
      },
      'both workers to answer',
    );
    expect([...answeredBy].sort()).toEqual([...pids].sort());
  });

  it('counts a login rate limit across both processes', async () => {
    const [a, b] = workers();
    const attempt = async (pid: number) => {
      const { socket } = await connectionTo(pid);
      return requestOn(socket, port, {
        method: 'POST',
        path: '/api/admin/login',
        headers: { 'X-Forwarded-For': '203.0.113.9' },
        body: { email: ADMIN.email, password: 'not-the-password' },
      });
    };
    // Two attempts on each: the limit is reached only counting both processes' attempts.
    const allowed = [await attempt(a!), await attempt(b!), await attempt(a!), await attempt(b!)];
    expect(allowed.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    // The fifth is each process's third: refused on either.
    expect((await attempt(a!)).status).toBe(429);
    expect((await attempt(b!)).status).toBe(429);
  });

  it('writes one transfer sent with one Idempotency-Key to both processes at once to the ledger once', async () => {
    const [a, b] = workers();
    const admin = (await requestOn((await connectionTo(a)).socket, port, { method: 'POST', path: '/api/admin/login', body: ADMIN })).body.token as string;
    const alice = await signUp(a!);
    const bob = await signUp(b!);
    const asAdmin = { Authorization: `Bearer ${admin}` };
    await finalOn(a!, { method: 'POST', path: '/api/ledger/create-asset', headers: asAdmin, body: { assetCode: 'WLT', amount: '10000' } });
    await finalOn(b!, { method: 'POST', path: '/api/payments/mint-tokens', headers: { ...asAdmin, 'Idempotency-Key': 'fund-alice' }, body: { userId: alice.userId, amount: 50 } });
    await eventually(async () => ((await ledgerBalance(ledger.url, alice.publicKey)) === '50.0000000' ? true : undefined), "alice's tokens");

    const transfer = {
      method: 'POST',
      path: '/api/ledger/transfer',
      headers: { Authorization: `Bearer ${alice.token}`, 'Idempotency-Key': 'one-transfer-two-processes' },
      body: { receiverPublicKey: bob.publicKey, amount: 7 },
    };
    // Both connections are held by their workers before either request is sent.
    const [onA, onB] = [await connectionTo(a), await connectionTo(b)];
    const first = await Promise.all([requestOn(onA.socket, port, transfer), requestOn(onB.socket, port, transfer)]);
    // Each answers the transfer (200 done, 202 pending) or that the same key is in progress elsewhere (409).
    expect(first.map((r) => [200, 202, 409].includes(r.status))).toEqual([true, true]);
    const answers = await Promise.all([finalOn(a!, transfer), finalOn(b!, transfer)]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(answers[1]!.body).toEqual(answers[0]!.body);

    await eventually(async () => ((await ledgerBalance(ledger.url, bob.publicKey)) === '7.0000000' ? true : undefined), "bob's 7 tokens");
    expect(await ledgerBalance(ledger.url, alice.publicKey)).toBe('43.0000000');
    const onRecord = await queryDatabase<{ n: string }>(databaseUrl, `select count(*) as n from ledger_entries where kind = 'transfer'`);
    expect(Number(onRecord[0]!.n)).toBe(1);
  });

  it('keeps answering when a worker is killed with SIGKILL, and the primary starts a replacement', async () => {
    const [killed, survivor] = workers();
    process.kill(killed!, 'SIGKILL');
    await eventually(async () => (logLines(service).some((l) => l.workerPid === killed && l.msg === 'worker died: starting a replacement') ? true : undefined), 'the primary to see the worker die');
    const replacementListening = () => logLines(service).find((l) => l.msg === 'worker listening' && l.workerPid !== killed && l.workerPid !== survivor)?.workerPid as number | undefined;
    // Every request is answered: by the survivor, or by the replacement once it listens.
    for (let i = 0; i < 6; i++) {
      const { socket, pid } = await connectionTo();
      expect((await requestOn(socket, port, { method: 'GET', path: '/healthz' })).status).toBe(200);
      if (pid !== survivor) expect(await eventually(async () => (replacementListening() === pid ? true : undefined), 'the answering process to be the replacement')).toBe(true);
    }
    const replacement = await eventually(async () => replacementListening(), 'a replacement worker listening');
    expect(workers().sort()).toEqual([survivor!, replacement].sort());
    const { socket } = await connectionTo(replacement);
    expect((await requestOn(socket, port, { method: 'GET', path: '/readyz' })).status).toBe(200);
  });

  it('stops every worker gracefully on SIGTERM to the primary, which then exits 0', async () => {
    const pids = workers();
    expect(pids).toHaveLength(2);
    const end = await service.kill('SIGTERM');
    expect(end).toEqual({ code: 0, signal: null });
    expect(pids.filter(alive)).toEqual([]);
    // Each worker ran its own shutdown.
    const stopped = logLines(service).filter((l) => l.msg === 'stopped').map((l) => l.pid);
    expect(stopped.sort()).toEqual([...pids].sort());
  });

  it('wrote only whole JSON lines on the stdout its processes share', () => {
    const lines = service.stdout.join('').split('\n').filter((l) => l !== '');
    const notJson = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    // Lines from the primary and from at least three workers (two, then a replacement).
    expect(new Set(lines.map((l) => (JSON.parse(l) as { pid: number }).pid)).size).toBeGreaterThanOrEqual(4);
  });

  /** Signs a user up and logs in through one worker; waits for the wallet on the ledger. */
  async function signUp(pid: number) {
    const fields = userFields();
    const signup = await requestOn((await connectionTo(pid)).socket, port, { method: 'POST', path: '/api/users/signup', body: fields });
    expect(signup.status).toBe(201);
    const login = await requestOn((await connectionTo(pid)).socket, port, { method: 'POST', path: '/api/users/login', body: { identifier: fields.username, password: fields.password } });
    const user = { userId: signup.body.userId as string, token: login.body.token as string, publicKey: login.body.profile.ledgerPublicKey as string };
    await eventually(async () => ((await ledgerBalance(ledger.url, user.publicKey).catch(() => undefined)) !== undefined ? true : undefined), 'the wallet on the ledger');
    return user;
  }

  /** Sends through one worker until the answer is final (202, 409 and 5xx are asked again). */
  async function finalOn(pid: number, req: Request): Promise<Answer> {
    return eventually(
      async () => {
        const res = await requestOn((await connectionTo(pid)).socket, port, req).catch(() => undefined);
        return !res || res.status === 202 || res.status === 409 || res.status >= 500 ? undefined : res;
      },
      `${req.path} answered by worker ${pid}`,
      { intervalMs: 100 },
    );
  }
});

interface Request {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** One HTTP request on an open connection (closed after the answer). */
function requestOn(socket: net.Socket, port: number, { method, path, headers = {}, body }: Request): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { ...headers, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) } : {}) },
        createConnection: () => socket,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: kept as text
          }
          socket.destroy();
          resolve({ status: res.statusCode!, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A process's command line, its arguments joined by spaces ('' once it is gone). */
function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Live (not zombie) children of a process, from /proc/PID/stat ("pid (comm) state ppid ..."). */
function childrenOf(parent: number): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(ppid) === parent && state !== 'Z' ? [Number(entry)] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}

/**
 * Which of `candidates` holds the server's end of the TCP connection from `clientPort` to
 * `serverPort`: its inode from /proc/net/tcp{,6}, then the process whose descriptors link to it.
 */
function serverEndHolder(serverPort: number, clientPort: number, candidates: number[]): number | undefined {
  let inode: string | undefined;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const portOf = (address: string) => parseInt(address.split(':').pop()!, 16);
      if (portOf(fields[1]!) === serverPort && portOf(fields[2]!) === clientPort && fields[9] !== '0') inode = fields[9];
    }
  }
  if (!inode) return undefined;
  const link = `socket:[${inode}]`;
  return candidates.find((pid) => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === link;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LogLine = Record<string, any>;

function logLines(service: ServiceProcess): LogLine[] {
  return service.stdout
    .join('')
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });
}

async function logLineWith(service: ServiceProcess, text: string): Promise<LogLine | undefined> {
  return logLines(service).find((l) => JSON.stringify(l).includes(text));
}

describe('WEB_CONCURRENCY=2 when the service cannot start', () => {
  it('starts one worker, and the primary exits 1 saying why instead of forking again', async () => {
    const unreachable = serviceProcessEnv('postgres://wallet@127.0.0.1:1/nothing', { WEB_CONCURRENCY: '2', LOG_LEVEL: 'info' });
    const failure = await startServiceProcess(unreachable).then(
      () => 'it started',
      (err: Error) => err.message,
    );
    expect(failure).toMatch(/did not start \(it exited with 1\)/);
    const lines = failure.split('\n').flatMap((line) => {
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });
    expect(lines.filter((l) => l.msg === 'worker started')).toHaveLength(1);
    expect(lines.find((l) => l.msg === 'a worker could not start: stopping the cluster')).toMatchObject({ code: 1, reason: expect.stringMatching(/ECONNREFUSED/) });
  });
});
