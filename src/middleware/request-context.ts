import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
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

/**
 * Gives every request an id (the caller's X-Request-Id when it is sane, else a new UUID), echoes
 * it on the response, and logs one line per request when it ends, in pino-http's shape
 * (`req`, `res.statusCode`, `responseTime`, "request completed" / "request errored" /
 * "request aborted").
 *
 * Written here rather than with pino-http, which made a child logger and serialised the whole
 * request (headers included) for every request before a line was even due: with the line itself,
 * 10% of the CPU of `GET /healthz` under load (`--cpu-prof`, BENCHMARKS.md). The child logger
 * for `req.log` is now made only when something logs through it (the error handler).
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const startedAt = Date.now();
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    const url = req.url ?? '';
    const binding: RequestBinding = { id, method: req.method ?? '', path: url.split('?')[0]! };
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      enumerable: false,
      get: () => (child ??= logger.child({ req: binding })),
    });
    // The embedded sandboxes are called by the service itself (their traffic would double every
    // line), and a scraper polls /metrics every few seconds.
    if (!url.startsWith('/sandbox/') && url !== '/metrics') {
      res.once('close', () => {
        const statusCode = res.statusCode;
        const responseTime = Date.now() - startedAt;
        if (!res.writableFinished) {
          logger.error({ req: binding, res: { statusCode }, err: { type: 'Error', message: 'request aborted' }, responseTime }, 'request aborted');
        } else if (statusCode >= 500) {
          logger.error({ req: binding, res: { statusCode }, err: { type: 'Error', message: `failed with status code ${statusCode}` }, responseTime }, 'request errored');
        } else {
          logger[statusCode >= 400 ? 'warn' : 'info']({ req: binding, res: { statusCode }, responseTime }, 'request completed');
        }
      });
    }
    next();
  };
}
