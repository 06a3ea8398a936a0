import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { sendError } from '../http/error-shapes';

const WINDOW_MS = 15 * 60 * 1000;

/**
 * Per-IP limit for one credential route (login, signup, reset), answered in the route group's
 * error shape. Each call makes its own counter, so the routes don't share a budget.
 * A limit of 0 turns limiting off (tests, or a gateway that limits instead).
 */
export function authRateLimit(limit: number): RequestHandler {
  if (limit === 0) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: (_req, res) => sendError(res, 429, 'Too many requests, try again later'),
  });
}
