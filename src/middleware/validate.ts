import type { RequestHandler } from 'express';
import { z } from 'zod';
import { AppError, type ErrorDetail } from '../errors/app-error';

export interface RequestSchemas {
  body?: z.ZodType;
  params?: z.ZodType;
  query?: z.ZodType;
}

export function zodDetails(error: z.ZodError): ErrorDetail[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
}

/**
 * Parses body, params and query with their zod schemas before the handler runs. The parsed
 * values replace the raw ones, so handlers only ever see validated, typed input.
 */
export function validate(schemas: RequestSchemas): RequestHandler {
  return (req, res, next) => {
    const details: ErrorDetail[] = [];
    const parsed: Record<string, unknown> = {};
    for (const part of ['params', 'query', 'body'] as const) {
      const schema = schemas[part];
      if (!schema) continue;
      const result = schema.safeParse(part === 'body' ? (req.body ?? {}) : req[part]);
      if (result.success) parsed[part] = result.data;
      else details.push(...zodDetails(result.error).map((d) => ({ ...d, path: `${part}.${d.path}` })));
    }
    if (details.length > 0) {
      next(new AppError('VALIDATION', 'Invalid request', details));
      return;
    }
    if ('body' in parsed) req.body = parsed.body;
    if ('params' in parsed) req.params = parsed.params as typeof req.params;
    // Express 5 exposes req.query through a getter; keep the parsed copy where handlers can read it.
    if ('query' in parsed) res.locals.query = parsed.query;
    next();
  };
}

/** The validated query of a request whose route declared a query schema. */
export function validatedQuery<T>(res: { locals: Record<string, unknown> }): T {
  return res.locals.query as T;
}
