import type { RequestHandler } from 'express';
import { rateLimit, type Options, type Store } from 'express-rate-limit';
import type { RateLimitRepository } from '../db/repositories/rate-limit.repository';
import { AppError } from '../errors/app-error';

/** Every limit counts in fixed windows of this length, aligned on the epoch by the database clock. */
export const RATE_LIMIT_WINDOW_MS = 15 * 60 * 1000;
const TOO_MANY = 'Too many requests, try again later';

/** Requests per IP per 15 minutes; 0 turns a limit off (tests, or a gateway that limits instead). */
export interface RateLimitSettings {
  /** Each of signup, user login, admin login and the two reset routes, counted separately. */
  auth: number;
  /** The provider's browser redirect, GET /api/payments/callback (public, verifies with the provider). */
  callback: number;
  /** POST /api/payments/webhook. */
  webhook: number;
}

export interface RateLimits {
  /** A credential route's limit; `name` keeps each route's count apart. */
  auth(name: string): RequestHandler;
  callback(): RequestHandler;
  webhook(): RequestHandler;
}

/**
 * Per-IP limits whose counts live in PostgreSQL (rate_limit_counters), so several processes
 * behind one load balancer share one budget per client: a fixed 15-minute window per key, one
 * upsert per request. A refusal is a RATE_LIMITED error (RateLimit and Retry-After headers already
 * set): the error handler answers 429 in the route group's shape, or the route's own page (the callback).
 * The database down means the request fails as every other would (503), not that it goes unlimited.
 */
export function createRateLimits(counters: RateLimitRepository, settings: RateLimitSettings): RateLimits {
  const limiter = (name: string, limit: number): RequestHandler => {
    if (limit === 0) return (_req, _res, next) => next();
    return rateLimit({
      windowMs: RATE_LIMIT_WINDOW_MS,
      limit,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      store: new PostgresStore(counters, `${name}:`),
      handler: (_req, _res, next) => next(new AppError('RATE_LIMITED', TOO_MANY)),
    });
  };
  return {
    auth: (name) => limiter(name, settings.auth),
    callback: () => limiter('payments.callback', settings.callback),
    webhook: () => limiter('payments.webhook', settings.webhook),
  };
}

/** express-rate-limit's store interface over RateLimitRepository. */
class PostgresStore implements Store {
  readonly localKeys = false;
  private windowMs = RATE_LIMIT_WINDOW_MS;

  constructor(
    private readonly counters: RateLimitRepository,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string) {
    const { hits, windowStart } = await this.counters.hit(this.prefix + key, this.windowMs);
    return { totalHits: hits, resetTime: new Date(windowStart.getTime() + this.windowMs) };
  }

  async decrement(key: string): Promise<void> {
    await this.counters.unhit(this.prefix + key);
  }

  async resetKey(key: string): Promise<void> {
    await this.counters.reset(this.prefix + key);
  }
}
