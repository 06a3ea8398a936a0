import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import pinoHttp from 'pino-http';
import { serializeError } from '../errors/loggable-error';
import type { Logger } from '../logger';

const INCOMING_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives every request an id (the caller's X-Request-Id when it is sane, else a new UUID), echoes
 * it on the response, and logs one line per request. The logged URL is the path only: query
 * strings can carry reset tokens and payment references.
 */
export function requestContext(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    // The embedded sandboxes are called by the service itself (their traffic would double every
    // line), and a scraper polls /metrics every few seconds.
    autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/sandbox/') || req.url === '/metrics' },
    genReqId(req, res) {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error';
      if (res.statusCode >= 400) return 'warn';
      return 'info';
    },
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      // pino-http would put the standard error serializer back: keep the redacting one.
      err: serializeError,
    },
  });
}
