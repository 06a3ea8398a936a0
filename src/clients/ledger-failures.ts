import { LedgerUnavailableError } from './ledger-errors';

// How both ledger adapters read a failed HTTP exchange: whether any byte may have left this
// process (then a submission's outcome is unknown) or none did (then nothing can have happened).

export function httpStatusOf(err: unknown): number | undefined {
  const e = err as { response?: { status?: unknown } };
  return typeof e?.response?.status === 'number' ? e.response.status : undefined;
}

export function responseDataOf(err: unknown): unknown {
  const e = err as { response?: { data?: unknown } };
  return e?.response?.data ?? e?.response;
}

/** Errors that mean no connection was ever opened, so no byte of the request left this process. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export function neverConnected(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return httpStatusOf(err) === undefined && typeof code === 'string' && NEVER_CONNECTED.has(code);
}

export function unavailable(err: unknown): LedgerUnavailableError {
  if (err instanceof LedgerUnavailableError) return err;
  const code = (err as { code?: unknown })?.code;
  return new LedgerUnavailableError(`Ledger unavailable${typeof code === 'string' ? ` (${code})` : ''}`);
}

/** Why an exchange that may have carried a submission failed, for the `unclear` answer's reason. */
export function failureReason(err: unknown): string {
  const status = httpStatusOf(err);
  if (status !== undefined) return `answered ${status}`;
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string') return code;
  return err instanceof Error ? err.message : String(err);
}

/** `work`'s answer, or `late()` once `ms` have passed first; the timer is cleared whichever comes first. */
export async function answerWithin<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
