import crypto from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { IdempotencyBinding } from '../db/repositories/journal.repository';
import type { IdempotencyRepository } from '../db/repositories/idempotency.repository';
import { AppError } from '../errors/app-error';
import { principalOf } from './auth';

const KEY_FORMAT = /^[A-Za-z0-9_.:-]{1,200}$/;

/** Answers a retry whose key is bound to a journal entry: the entry's state now. */
export type EntryReplay = (entryId: string, req: Request, res: Response) => Promise<void>;

/** The key the handler binds to its journal entry, when the request carries one. */
export function idempotencyOf(res: Response): IdempotencyBinding | undefined {
  return res.locals.idempotency as IdempotencyBinding | undefined;
}

/**
 * Honours an optional Idempotency-Key header on a money-moving route. The same key with another
 * body is 409. The key is claimed before the handler runs and bound to the journal entry in the
 * database transaction that commits it: from then on a retry answers the entry's current state
 * (replay) and never builds a second transaction, whatever the first answer was (even a 5xx or no
 * answer at all). Answers given before any entry existed (a 4xx) are stored and replayed; a 5xx
 * before any entry existed frees the key (nothing was signed).
 */
export function idempotent(store: IdempotencyRepository, route: string, replay: EntryReplay): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('Idempotency-Key');
    if (key === undefined) {
      next();
      return;
    }
    if (!KEY_FORMAT.test(key)) throw new AppError('VALIDATION', 'Idempotency-Key must be 1-200 letters, digits or _ . : -');
    const caller = principalOf(res).id;
    // The validated body: amounts are bigints by now, so they hash as their exact text.
    const canonical = JSON.stringify(req.body ?? null, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    const requestHash = crypto.createHash('sha256').update(canonical).digest('hex');
    const claim = await store.claim(caller, route, key, requestHash);
    if (claim !== 'claimed') {
      if (claim.requestHash !== requestHash) throw new AppError('CONFLICT', 'Idempotency-Key was already used with a different request');
      if (claim.entryId) {
        res.setHeader('Idempotent-Replayed', 'true');
        await replay(claim.entryId, req, res);
        return;
      }
      if (claim.responseStatus === null) throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(claim.responseStatus).type(claim.responseType ?? 'application/json').send(claim.responseBody ?? '');
      return;
    }
    res.locals.idempotency = { callerId: caller, route, key } satisfies IdempotencyBinding;
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const status = res.statusCode;
      const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body);
      const type = String(res.getHeader('Content-Type') ?? 'application/json');
      const remember = status >= 500 ? store.releaseUnbound(caller, route, key) : store.complete(caller, route, key, { status, body: text, type });
      remember
        .catch((err: unknown) => req.log?.error({ err }, 'could not store idempotent response'))
        .finally(() => send(body as never));
      return res;
    };
    next();
  };
}
