/**
 * What of an error may reach a log (or a stored reason). Drizzle's query errors carry the bound
 * parameters twice, in `params` and in the message ("Failed query: ...\nparams: a,b,..."), and the
 * parameters are user data: a new password's hash, the provider's payload with the buyer's e-mail
 * and the card's authorization_code. Driver errors carry `detail` ("Key (email)=(...) already
 * exists"), `where`, `parameters`. Kept: the error's type, message without parameters, code, stack
 * frames, and of its cause only type, code and message. Found by
 * tests/security/errors-in-logs.test.ts: the payment callback and the webhook inbox logged the
 * provider payload of a failed update.
 */
export function serializeError(input: unknown): Record<string, unknown> {
  // pino-http hands its serializer the standard serializer's output, which keeps the error in `raw`.
  const raw = (input as { raw?: unknown } | null)?.raw;
  const err = isErrorLike(raw) ? raw : input;
  if (!isErrorLike(err)) return { type: typeof err, message: String(err) };
  const cause = (err as { cause?: unknown }).cause;
  return {
    type: err.name ?? (err as { type?: unknown }).type,
    message: withoutParams(err.message),
    code: codeOf(err),
    // The stack's first lines repeat the message, parameters included: keep only the frames.
    stack: err.stack?.split('\n').filter((line) => /^\s+at /.test(line)).join('\n'),
    cause: cause === undefined ? undefined : causeOf(cause),
  };
}

/** A one-line reason for a log field or a stored outcome, under the same rule. */
export function errorReason(err: unknown): string {
  if (!isErrorLike(err)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  if (isQueryError(err) && cause !== undefined) {
    const c = causeOf(cause);
    return `database query failed${c.code ? ` (${String(c.code)})` : ''}: ${String(c.message ?? '')}`;
  }
  return withoutParams(err.message);
}

interface ErrorLike {
  name?: string;
  message: string;
  stack?: string;
}

function isErrorLike(err: unknown): err is ErrorLike {
  return typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string';
}

function isQueryError(err: ErrorLike): boolean {
  return 'params' in err || 'query' in err || /^Failed query:/.test(err.message);
}

function withoutParams(message: string): string {
  return message.replace(/\nparams:[\s\S]*$/, '');
}

function codeOf(err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' || typeof code === 'number' ? code : undefined;
}

function causeOf(cause: unknown): { type?: unknown; code?: unknown; message?: string } {
  if (!isErrorLike(cause)) return { message: typeof cause === 'string' ? withoutParams(cause) : typeof cause };
  return { type: cause.name ?? (cause as { type?: unknown }).type, code: codeOf(cause), message: withoutParams(cause.message) };
}
