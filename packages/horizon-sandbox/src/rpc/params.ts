import { z } from 'zod';
import { invalidParams } from './json-rpc';

/** stellar-rpc's xdrFormat: base64 (the default) is what the sandbox speaks; json it does not. */
export const xdrFormat = z
  .literal('base64', { error: 'the sandbox answers base64 XDR only (xdrFormat "base64" or absent)' })
  .optional();

/**
 * A method's params: an object (null or absent for a method without any). Anything else is -32602
 * with a message naming the field, as stellar-rpc's decoder reports it.
 */
export function parseParams<T extends z.ZodType>(params: unknown, schema: T): z.infer<T> {
  const result = schema.safeParse(params ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.');
  throw invalidParams(`invalid parameters: ${field ? `${field}: ` : ''}${issue?.message ?? 'expected an object'}`);
}

/** For methods that take nothing: null, absent, or an empty object. */
export const noParams = z.union([z.strictObject({}), z.array(z.never()).max(0)]);
