import type { Request } from 'express';
import type { ErrorCode, ErrorDetail } from '../errors/app-error';

/** A failure as the error handler decided it, before it is written in the route's or the group's form. */
export interface Failure {
  status: number;
  message: string;
  details?: ErrorDetail[];
  /** An expected failure's code and reason; both undefined for an outage or a bug. */
  code?: ErrorCode;
  reason?: string;
  /** Worth retrying in a few seconds (the answer carries Retry-After). */
  retryAfter?: boolean;
}

/**
 * The spec's exceptions to a group's JSON error body, declared on the route they belong to and
 * applied by the one error handler (src/middleware/error-handler.ts) to every failure of that
 * route, from its auth guard to its handler.
 */
export interface RouteErrors {
  /** Statuses the spec gives instead of the code's usual one (a duplicate signup is 400, not 409). */
  status?: Partial<Record<ErrorCode, number>>;
  /** Failures of these reasons (AppError.because) answer their message as text/plain. */
  plainText?: string[];
  /** Every failure answers an HTML page: the route is where a browser lands. */
  page?: (failure: Failure, req: Request) => { status: number; html: string };
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** Set when a route that declares error answers matches. */
    routeErrors?: RouteErrors;
  }
}
