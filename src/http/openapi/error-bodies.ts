import { z } from 'zod';
import { errorBody, type ErrorShape } from '../error-shapes';

/** The error bodies of CONTRACT 4, one per route group, as errorBody() writes them. */
const details = z
  .array(z.object({ path: z.string(), message: z.string() }))
  .meta({ description: 'One entry per invalid field (validation errors only)' });

export const errorSchema = z.object({ error: z.string(), details: details.optional() }).meta({ id: 'ErrorBody', description: 'Error body of /api/users and /api/ledger' });
export const adminErrorSchema = z.object({ message: z.string(), details: details.optional() }).meta({ id: 'AdminErrorBody', description: 'Error body of /api/admin' });
export const paymentsErrorSchema = z
  .object({ success: z.literal(false), message: z.string(), details: details.optional() })
  .meta({ id: 'PaymentsErrorBody', description: 'Error body of /api/payments' });

/** The schema of an error shape (each is a named component of the document). */
export function errorSchemaOf(shape: ErrorShape): z.ZodType {
  switch (shape) {
    case 'message':
      return adminErrorSchema;
    case 'payments':
      return paymentsErrorSchema;
    case 'error':
      return errorSchema;
  }
}

export const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing, expired or invalid credentials',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Request body over 100 kB',
  429: 'Rate limited (per IP, 15 minutes)',
  502: 'An outside system answered something unusable',
  503: 'An outside system is unreachable; retry after the Retry-After seconds',
};

/** The message each status carries when the route adds nothing more specific. */
export const GENERIC_MESSAGE: Record<number, string> = {
  400: 'Invalid request',
  401: 'Authentication required',
  403: 'Not allowed for this account',
  413: 'Request body too large',
  429: 'Too many requests, try again later',
};

/** An error body exactly as the error handler would send it in this shape. */
export function exampleErrorBody(shape: ErrorShape, message: string, withDetails?: { path: string; message: string }): Record<string, unknown> {
  return errorBody(shape, message, withDetails ? [withDetails] : undefined);
}
