import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import jwt from 'jsonwebtoken';
import type { DatabaseHandle } from '../../src/db/client';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './test-app';

/** Rows of a raw query (node-postgres returns them in `rows`). */
export async function rowsOf<T>(database: DatabaseHandle, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = await database.db.execute(query);
  return (Array.isArray(result) ? result : (result as unknown as { rows: T[] }).rows) as T[];
}

/** The service's own tables (public schema), sorted. */
export async function tableNames(database: DatabaseHandle): Promise<string[]> {
  const rows = await rowsOf<{ tablename: string }>(database, sql`select tablename from pg_tables where schemaname = 'public' order by tablename`);
  return rows.map((r) => r.tablename);
}

/**
 * Row count and a digest of the full contents of every table, in one round trip: any insert,
 * update or delete anywhere changes it.
 */
export async function databaseState(database: DatabaseHandle): Promise<Record<string, string>> {
  const names = await tableNames(database);
  const parts = names.map(
    (name) => `select '${name}' as t, count(*)::int as n, coalesce(md5(string_agg(x::text, '|' order by x::text)), '-') as d from "${name}" x`,
  );
  const rows = await rowsOf<{ t: string; n: number; d: string }>(database, sql.raw(parts.join(' union all ')));
  return Object.fromEntries(rows.map((r) => [r.t, `${r.n} rows ${r.d}`]));
}

/** Row count of one table. */
export async function countRows(database: DatabaseHandle, table: string): Promise<number> {
  const rows = await rowsOf<{ n: number }>(database, sql.raw(`select count(*)::int as n from "${table}"`));
  return Number(rows[0]!.n);
}

export interface ForgedTokens {
  garbage: string;
  wrongSignature: string;
  algNone: string;
  expired: string;
  otherAlgorithm: string;
  tamperedRole: string;
  resetToken: string;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Tokens an attacker can make for `subject`: none passes. `validUserToken` is a real user token,
 * whose payload is re-encoded with the admin role under its original signature.
 */
export function forgeTokens(subject: string, validUserToken: string, resetToken: string): ForgedTokens {
  const now = Math.floor(Date.now() / 1000);
  const [header, , signature] = validUserToken.split('.');
  return {
    garbage: 'not-a-jwt',
    wrongSignature: jwt.sign({ role: 'admin' }, 'another-secret-that-is-long-enough-for-hs256!', { algorithm: 'HS256', subject, expiresIn: 3600 }),
    algNone: `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: subject, role: 'admin', iat: now, exp: now + 3600 })}.`,
    expired: jwt.sign({ role: 'admin', iat: now - 7200, exp: now - 3600 }, TEST_JWT_SECRET, { algorithm: 'HS256', subject }),
    otherAlgorithm: jwt.sign({ role: 'admin' }, TEST_JWT_SECRET, { algorithm: 'HS512', subject, expiresIn: 3600 }),
    tamperedRole: `${header}.${b64url({ sub: subject, role: 'admin', iat: now, exp: now + 3600 })}.${signature}`,
    resetToken,
  };
}

/**
 * The real application on the file's database as it is (no reset): a second process of the
 * service, or the same one restarted with other configuration.
 */
export function startAppKeepingData(env: Record<string, string> = {}, logLevel = 'silent'): Promise<TestApp> {
  return startTestApp(env, logLevel, { reset: false });
}

/** Polls `probe` until it returns something other than undefined; fails after `timeoutMs`. */
export async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface TinyServer {
  url: string;
  port: number;
  /** Requests received, by method and path. */
  hits: string[];
  close(): Promise<void>;
}

/** A real HTTP server on a free local port, answering with `handler`. */
export async function tinyServer(handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<TinyServer> {
  const hits: string[] = [];
  const server: Server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push(`${req.method} ${req.url}`);
      handler(req, res, Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A local port nothing listens on (taken from the OS, then released). */
export async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface DelayingProxy extends TinyServer {
  /** How long to hold back the answer to a request (0 = at once); can be changed at any time. */
  delay: (req: IncomingMessage) => number;
}

/**
 * A slow network in front of `upstream`: each request is forwarded at once (so the upstream acts
 * on it) and its answer is held back by `delay(req)` milliseconds.
 */
export async function delayingProxy(upstream: string): Promise<DelayingProxy> {
  const timers = new Set<NodeJS.Timeout>();
  const proxy: DelayingProxy = {
    delay: () => 0,
    ...(await tinyServer((req, res, body) => {
      const holdFor = proxy.delay(req);
      fetch(`${upstream}${req.url}`, {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json', accept: req.headers.accept ?? '*/*' },
        body: body.length > 0 ? body : undefined,
      })
        .then(async (answer) => {
          const bytes = Buffer.from(await answer.arrayBuffer());
          const send = () => {
            if (!res.destroyed) res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(bytes);
          };
          if (holdFor <= 0) return send();
          const timer = setTimeout(() => {
            timers.delete(timer);
            send();
          }, holdFor);
          timers.add(timer);
        })
        .catch(() => {
          if (!res.destroyed) res.writeHead(502).end();
        });
    })),
  };
  const closeServer = proxy.close;
  proxy.close = async () => {
    for (const t of timers) clearTimeout(t);
    await closeServer();
  };
  return proxy;
}

export interface SwitchableServer<Mode extends string> {
  url: string;
  port: number;
  /** Switches behaviour; 'down' closes the port (connection refused) until another mode opens it again. */
  setMode(mode: Mode | 'down'): Promise<void>;
  close(): Promise<void>;
}

/**
 * A stand-in for an outside HTTP service on a fixed local port whose behaviour a test switches:
 * each mode is a handler, and 'down' really closes the port. Leaving a mode drops whatever it
 * held open.
 */
export async function switchableServer<Mode extends string>(
  initial: Mode,
  handlers: Record<Mode, (req: IncomingMessage, res: ServerResponse, body: Buffer) => void>,
): Promise<SwitchableServer<Mode>> {
  let mode: Mode | 'down' = initial;
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (mode !== 'down') handlers[mode](req, res, Buffer.concat(chunks));
    });
  };
  let server: Server | undefined;
  const open = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = http.createServer(listener);
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        server = s;
        resolve((s.address() as AddressInfo).port);
      });
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      if (!s) return resolve();
      s.closeAllConnections();
      s.close(() => resolve());
    });
  const port = await open(0);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async setMode(next) {
      await shut();
      mode = next;
      if (next !== 'down') await open(port);
    },
    close: shut,
  };
}

/** Answers like a forwarding proxy to `upstream` (method, path, body, auth and content type kept). */
export function forwardTo(upstream: string) {
  return (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    fetch(`${upstream}${req.url}`, {
      method: req.method,
      headers: { authorization: req.headers.authorization ?? '', 'content-type': req.headers['content-type'] ?? 'application/json' },
      body: body.length > 0 ? body : undefined,
    })
      .then(async (answer) => {
        const bytes = Buffer.from(await answer.arrayBuffer());
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(bytes);
      })
      .catch(() => res.writeHead(502).end());
  };
}

/** Resolves with `promise`'s value, or rejects with `what` when it takes longer than `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} (after ${ms} ms)`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
