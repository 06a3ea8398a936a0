import crypto from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { IdempotencyClaim } from '../db/repositories/idempotency.repository';
import { AppError } from '../errors/app-error';
import { principalOf } from './auth';

const KEY_FORMAT = /^[A-Za-z0-9_.:-]{1,200}$/;

/** The key the handler's journal write binds, when the request carries one. */
export function idempotencyOf(res: Response): IdempotencyClaim | undefined {
  return res.locals.idempotency as IdempotencyClaim | undefined;
}

/**
 * Reads an optional Idempotency-Key header on a money-moving route into the claim the journal's
 * write binds (who sent it, to which route, a hash of the validated body). The rule itself is the
 * journal's (Journal.write and previousWrite): a retry with the same key and body answers the first
 * request's entry as it stands now, whatever the first answer was, and never builds a second
 * transaction; the same key with another body is 409; a request that wrote nothing leaves no key.
 */
export function idempotent(route: string): RequestHandler {
  return (req, res, next) => {
    const key = req.get('Idempotency-Key');
    if (key !== undefined) {
      if (!KEY_FORMAT.test(key)) throw new AppError('VALIDATION', 'Idempotency-Key must be 1-200 letters, digits or _ . : -');
      res.locals.idempotency = { callerId: principalOf(res).id, route, key, requestHash: requestHashOf(req) } satisfies IdempotencyClaim;
    }
    next();
  };
}

/** Tells the caller the answer is the first request's (the key was bound to it). */
export function markReplayed(res: Response, replayed: boolean | undefined): void {
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
}

/** The validated body: amounts are bigints by now, so they hash as their exact text. */
function requestHashOf(req: Request): string {
  const canonical = JSON.stringify(req.body ?? null, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return crypto.createHash('sha256').update(canonical).digest('hex');
}
