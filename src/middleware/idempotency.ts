import crypto from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { IdempotencyClaim, IdempotencyRepository } from '../db/repositories/idempotency.repository';
import { AppError } from '../errors/app-error';
import { principalOf } from './auth';

const KEY_FORMAT = /^[A-Za-z0-9_.:-]{1,200}$/;

/** Answers a retry whose key is bound to a journal entry: the entry's state now. */
export type EntryReplay = (entryId: string, req: Request, res: Response) => Promise<void>;

/** The key the handler's journal entry binds, when the request carries one. */
export function idempotencyOf(res: Response): IdempotencyClaim | undefined {
  return res.locals.idempotency as IdempotencyClaim | undefined;
}

/**
 * Honours an optional Idempotency-Key header on a money-moving route. A key is bound to the
 * journal entry the request creates, in the entry's own database transaction: from then on a
 * retry with the same key and body answers that entry's current state (replay: 200, 202 or its
 * refusal), whatever the first answer was (even none at all), and never builds a second
 * transaction; the same key with another body is 409. A request that created no entry (a 4xx
 * before anything was written, a 503 before anything could be sent) leaves no key, so a retry runs
 * for real. Concurrent requests with one key race to bind it; the loser answers the winner's entry.
 */
export function idempotent(store: IdempotencyRepository, route: string, replay: EntryReplay): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('Idempotency-Key');
    if (key === undefined) {
      next();
      return;
    }
    if (!KEY_FORMAT.test(key)) throw new AppError('VALIDATION', 'Idempotency-Key must be 1-200 letters, digits or _ . : -');
    const claim: IdempotencyClaim = { callerId: principalOf(res).id, route, key, requestHash: requestHashOf(req) };
    const bound = await store.find(claim.callerId, route, key);
    if (bound) {
      if (bound.requestHash !== claim.requestHash) throw new AppError('CONFLICT', 'Idempotency-Key was already used with a different request');
      res.setHeader('Idempotent-Replayed', 'true');
      await replay(bound.entryId, req, res);
      return;
    }
    res.locals.idempotency = claim;
    next();
  };
}

/** The validated body: amounts are bigints by now, so they hash as their exact text. */
function requestHashOf(req: Request): string {
  const canonical = JSON.stringify(req.body ?? null, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return crypto.createHash('sha256').update(canonical).digest('hex');
}
