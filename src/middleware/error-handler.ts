import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isDatabaseUnavailable } from '../db/client';
import { AppError, type ErrorCode } from '../errors/app-error';
import { sendError } from '../http/error-shapes';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  TOKEN_EXPIRED: 401,
  TOKEN_INVALID: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  UPSTREAM_FAILED: 502,
  UPSTREAM_UNAVAILABLE: 503,
  CAPACITY_EXHAUSTED: 503,
  INTERNAL: 500,
};

/** body-parser's own errors: bad input, never a 500. */
function fromBodyParser(err: { type?: unknown; status?: unknown }): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError('VALIDATION', 'Malformed JSON body');
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new AppError('VALIDATION', 'Unreadable request body');
    default:
      return typeof err.status === 'number' && err.status >= 400 && err.status < 500
        ? new AppError('VALIDATION', 'Bad request')
        : undefined;
  }
}

/** Logs through the logger's `err` serializer, which drops query parameters (src/errors/loggable-error.ts). */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const appError = err instanceof AppError ? err : fromBodyParser(err as { type?: unknown; status?: unknown });
  if (res.headersSent) {
    req.log?.error({ err }, 'error after response started');
    res.end();
    return;
  }
  if (!appError && isDatabaseUnavailable(err)) {
    // A database restart or network cut is an outage, not a bug: retryable 503 (tests/faults).
    req.log?.warn({ err }, 'database unavailable');
    res.setHeader('Retry-After', '5');
    sendError(res, 503, 'Service temporarily unavailable, try again later');
    return;
  }
  if (!appError || !appError.isOperational) {
    // Unknown failures get a generic answer: no stack, no internals; the request id ties it to the log.
    req.log?.error({ err }, 'unhandled error');
    sendError(res, 500, 'Internal server error');
    return;
  }
  const status = appError.statusOverride ?? STATUS_BY_CODE[appError.code];
  if (appError.code === 'UPSTREAM_UNAVAILABLE') res.setHeader('Retry-After', '5');
  sendError(res, status, appError.message, appError.details);
};

export const notFound: RequestHandler = (req, res) => {
  if (/^\/api\//.test(req.originalUrl)) sendError(res, 404, 'Not found');
  else res.status(404).json({ error: 'Not found' });
};
