import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import type { IdempotencyRepository } from '../db/repositories/idempotency.repository';
import { AppError } from '../errors/app-error';
import { principalOf } from './auth';

const KEY_FORMAT = /^[A-Za-z0-9_.:-]{1,200}$/;

/**
 * Honours an optional Idempotency-Key header on a money-moving route. The same key with the same
 * body from the same caller replays the first answer without running the handler again; the same
 * key with another body is 409. The answer is stored before it is sent, so a retry can never slip
 * between the money moving and the key remembering it. A 5xx frees the key (nothing moved).
 */
export function idempotent(store: IdempotencyRepository, route: string): RequestHandler {
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
      if (claim.responseStatus === null) throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(claim.responseStatus).type(claim.responseType ?? 'application/json').send(claim.responseBody ?? '');
      return;
    }
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const status = res.statusCode;
      const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body);
      const type = String(res.getHeader('Content-Type') ?? 'application/json');
      const remember = status >= 500 ? store.release(caller, route, key) : store.complete(caller, route, key, { status, body: text, type });
      remember
        .catch((err: unknown) => req.log?.error({ err }, 'could not store idempotent response'))
        .finally(() => send(body as never));
      return res;
    };
    next();
  };
}
