import type { RequestHandler } from 'express';
import type { ErrorDetail } from '../errors/app-error';

/** The JSON error bodies of CONTRACT 4: `{error}`, `{message}` or `{success: false, message}`, each with `details?`. */
export type ErrorShape = 'error' | 'message' | 'payments';

/** The spec gives each group's error body by the base path the group is mounted at. */
const SHAPE_BY_BASE: Record<string, ErrorShape> = {
  '/api/users': 'error',
  '/api/admin': 'message',
  '/api/ledger': 'error',
  '/api/payments': 'payments',
};

/** The error shape of the route group mounted at `base` (`{error}` for a base the spec does not name). */
export const errorShapeOf = (base: string): ErrorShape => SHAPE_BY_BASE[base] ?? 'error';

declare module 'express-serve-static-core' {
  interface Locals {
    /** Set where the route group is mounted; requests outside every group answer `{error}`. */
    errorShape?: ErrorShape;
  }
}

/**
 * Tells the error handler which body the group mounted at `base` answers with. Mounted at the
 * base before the body parsers, so the parsers' 400 and 413, a rate limit and the 404 of an
 * unknown path under the group take its shape as well as its routes do.
 */
export function errorShapeForGroup(base: string): RequestHandler {
  const shape = errorShapeOf(base);
  return (_req, res, next) => {
    res.locals.errorShape = shape;
    next();
  };
}

export function errorBody(shape: ErrorShape, message: string, details?: ErrorDetail[]): Record<string, unknown> {
  const extra = details && details.length > 0 ? { details } : {};
  switch (shape) {
    case 'message':
      return { message, ...extra };
    case 'payments':
      return { success: false, message, ...extra };
    case 'error':
      return { error: message, ...extra };
  }
}
