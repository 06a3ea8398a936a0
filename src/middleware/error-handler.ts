import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { isDatabaseUnavailable } from '../db/client';
import { AppError, type ErrorCode } from '../errors/app-error';
import { errorBody } from '../http/error-shapes';
import type { Failure } from '../http/route-errors';

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

/**
 * The one place an error becomes an answer: it decides the status and message, then writes them
 * in the form the matched route declared (src/http/route-errors.ts) or else in the body of the
 * route group the request is under (src/http/error-shapes.ts). Logs through the logger's `err`
 * serializer, which drops query parameters (src/errors/loggable-error.ts).
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) {
    req.log?.error({ err }, 'error after response started');
    res.end();
    return;
  }
  const appError = err instanceof AppError ? err : fromBodyParser(err);
  if (!appError && isDatabaseUnavailable(err)) {
    // A database restart or network cut is an outage, not a bug: retryable 503 (tests/faults).
    req.log?.warn({ err }, 'database unavailable');
    answer(req, res, { status: 503, message: 'Service temporarily unavailable, try again later', retryAfter: true });
    return;
  }
  if (!appError || !appError.isOperational) {
    // Unknown failures get a generic answer: no stack, no internals; the request id ties it to the log.
    req.log?.error({ err }, 'unhandled error');
    answer(req, res, { status: 500, message: 'Internal server error' });
    return;
  }
  const { code, message, details, reason } = appError;
  const status = res.locals.routeErrors?.status?.[code] ?? STATUS_BY_CODE[code];
  answer(req, res, { status, message, details, code, reason, retryAfter: code === 'UPSTREAM_UNAVAILABLE' });
};

/** No route answered: 404 in the body of the group the path is under. */
export const notFound: RequestHandler = (_req, _res, next) => {
  next(new AppError('NOT_FOUND', 'Not found'));
};

/** Writes a failure in the form its route declared, or else in its group's JSON body. */
function answer(req: Request, res: Response, failure: Failure): void {
  if (failure.retryAfter) res.setHeader('Retry-After', '5');
  const declared = res.locals.routeErrors;
  if (declared?.page) {
    const page = declared.page(failure, req);
    res.status(page.status).type('html').send(page.html);
  } else if (failure.reason !== undefined && declared?.plainText?.includes(failure.reason)) {
    res.status(failure.status).type('text/plain').send(failure.message);
  } else {
    res.status(failure.status).json(errorBody(res.locals.errorShape ?? 'error', failure.message, failure.details));
  }
}
