import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { Logger } from '../logger';

const INCOMING_ID = /^[A-Za-z0-9._-]{1,64}$/;

declare module 'http' {
  interface IncomingMessage {
    /** The request id (X-Request-Id), set by requestContext. */
    id?: string;
    /** A logger whose lines carry this request's id, method and path. */
    log?: Logger;
  }
}

/** What every line about a request says of it: the path only (query strings can carry reset tokens and payment references). */
interface RequestBinding {
  id: string;
  method: string;
  path: string;
}

/** What requestContext keeps on a request for its lazy `req.log`. */
const CONTEXT = Symbol('requestContext');
interface ContextHolder {
  [CONTEXT]?: { binding: RequestBinding; logger: Logger; child?: Logger };
}

/** Starts a request's context: called by the app's request layer (src/middleware/request-layer.ts), first thing. */
export type StartRequest = (req: IncomingMessage, res: ServerResponse) => void;

/** Told of every answered request (its response finished), from the same listener as the request line: the metrics. */
export type OnAnswered = (req: IncomingMessage, statusCode: number, seconds: number) => void;

/**
 * Gives every request an id (the caller's X-Request-Id when it is sane, else a new UUID), echoes
 * it on the response, and logs one line per request when it ends, in pino-http's shape
 * (`req`, `res.statusCode`, `responseTime`, "request completed" / "request errored" /
 * "request aborted"). Installed on the app because `req.log` is a getter on the app's request
 * prototype: the child logger carrying the request is made only when something logs through it
 * (the error handler), never on the way of an ordinary request. Returns what the request layer
 * calls per request (not a layer of its own).
 *
 * Written here rather than with pino-http, which made a child logger and serialised the whole
 * request (headers included) for every request before a line was even due: with the line itself,
 * ~10% of the CPU of `GET /healthz` under load (`--cpu-prof`, BENCHMARKS.md).
 */
export function installRequestContext(app: Express, logger: Logger, onAnswered?: OnAnswered): StartRequest {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: ContextHolder): Logger | undefined {
      const context = this[CONTEXT];
      if (!context) return undefined;
      return (context.child ??= context.logger.child({ req: context.binding }));
    },
  });
  // The request line has a fixed shape (id, method, path without the query, status, time) that
  // holds no credential, so it skips the redaction pass every other line gets (a third of its cost).
  const lineLogger = logger.child({}, { redact: { paths: [] } });
  return (req, res) => {
    const startedAt = performance.now();
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const binding: RequestBinding = { id, method: req.method ?? '', path: query === -1 ? url : url.slice(0, query) };
    (req as ContextHolder)[CONTEXT] = { binding, logger };
    // A scraper polls /metrics every few seconds: timed, but no line. (The embedded sandboxes never
    // get here: the app serves them ahead of the request layer, as the outside systems they stand for.)
    const line = url !== '/metrics';
    if (!line && !onAnswered) return;
    // One listener for the line and the metrics. 'close' comes once: `on` spares the once-wrapper
    // `once` allocates per request. It also comes for an aborted request, which only the line counts.
    res.on('close', () => {
      const statusCode = res.statusCode;
      const ms = performance.now() - startedAt;
      if (onAnswered && res.writableFinished) onAnswered(req, statusCode, ms / 1000);
      if (!line) return;
      const responseTime = Math.round(ms);
      if (!res.writableFinished) {
        lineLogger.error({ req: binding, res: { statusCode }, err: { type: 'Error', message: 'request aborted' }, responseTime }, 'request aborted');
      } else if (statusCode >= 500) {
        lineLogger.error({ req: binding, res: { statusCode }, err: { type: 'Error', message: `failed with status code ${statusCode}` }, responseTime }, 'request errored');
      } else {
        lineLogger[statusCode >= 400 ? 'warn' : 'info']({ req: binding, res: { statusCode }, responseTime }, 'request completed');
      }
    });
  };
}
