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
 * values replace the raw ones, so handlers only ever see validated input, typed by defineRoute
 * (src/routes/define-route.ts).
 */
export function validate(schemas: RequestSchemas): RequestHandler {
  return (req, _res, next) => {
    const details: ErrorDetail[] = [];
    const parsed: Partial<Record<'params' | 'query' | 'body', unknown>> = {};
    for (const part of ['params', 'query', 'body'] as const) {
      const schema = schemas[part];
      if (!schema) continue;
      const input: unknown = part === 'body' ? (req.body ?? {}) : req[part];
      const badText = unstorableTextPath(input);
      if (badText !== undefined) {
        details.push({ path: `${part}.${badText || '(root)'}`, message: 'must not contain NUL characters or unpaired UTF-16 surrogates' });
        continue;
      }
      const result = schema.safeParse(input);
      if (result.success) parsed[part] = result.data;
      else details.push(...zodDetails(result.error).map((d) => ({ ...d, path: `${part}.${d.path}` })));
    }
    if (details.length > 0) {
      next(new AppError('VALIDATION', 'Invalid request', details));
      return;
    }
    for (const [part, value] of Object.entries(parsed)) {
      // Defined rather than assigned: Express 5's req.query is a getter without a setter.
      Object.defineProperty(req, part, { value, writable: true, enumerable: true, configurable: true });
    }
    next();
  };
}

// Found by the hardening fuzz (tests/security/bad-input.test.ts): PostgreSQL text cannot hold
// U+0000, so a NUL in a login identifier, a name or a payment reference passed zod and came back
// as a 500 from the database; an unpaired surrogate was silently stored as U+FFFD (the user
// saved something other than what they sent). Both are refused here, for every route with a
// schema, before any service sees them.
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (text: string) => text.includes('\u0000') || UNPAIRED_SURROGATE.test(text);

/**
 * The dotted path of the first string (value or key) that cannot be stored as PostgreSQL text,
 * or undefined. Iterative, so a deeply nested body cannot overflow the stack.
 */
export function unstorableTextPath(input: unknown): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: input, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (unstorable(value)) return path;
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const childPath = path ? `${path}.${key}` : key;
        if (unstorable(key)) return childPath;
        stack.push({ value: child, path: childPath });
      }
    }
  }
  return undefined;
}
