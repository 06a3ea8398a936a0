/**
 * The one error type services throw. It names what went wrong in domain terms; the HTTP layer
 * alone decides the status and the body shape.
 */
export type ErrorCode =
  | 'VALIDATION' // the request is malformed or breaks a data rule
  | 'UNAUTHENTICATED' // no identity, or a bad one
  | 'FORBIDDEN' // a known identity that may not do this
  | 'NOT_FOUND'
  | 'CONFLICT' // the request clashes with existing state (duplicate, pending wallet, idempotency key reuse)
  | 'TOKEN_EXPIRED'
  | 'TOKEN_INVALID'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'UPSTREAM_UNAVAILABLE' // a dependency is down or timed out: retryable
  | 'CAPACITY_EXHAUSTED' // a service-wide budget is spent for now (the signup faucet): retry later
  | 'UPSTREAM_FAILED' // a dependency answered something unusable
  | 'INTERNAL';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** The reason a transfer's receiver is missing from the ledger: the spec answers it in plain text. */
export const RECEIVER_NOT_FOUND = 'RECEIVER_NOT_FOUND';

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Expected failures are answered and logged quietly; others are bugs. */
    readonly isOperational = true,
  ) {
    super(message);
    this.name = 'AppError';
  }

  /** A finer reason a route may answer specially (e.g. the spec's plain-text missing receiver). */
  reason: string | undefined;

  because(reason: string): this {
    this.reason = reason;
    return this;
  }
}

export const isAppError = (err: unknown, code?: ErrorCode): err is AppError =>
  err instanceof AppError && (code === undefined || err.code === code);
