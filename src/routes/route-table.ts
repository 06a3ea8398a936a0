import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { Router, type RequestHandler } from 'express';
import type { z } from 'zod';
import type { RouteErrors } from '../http/route-errors';
import type { Role, TokenScope } from '../security/tokens';
import { validate, type RequestSchemas } from '../middleware/validate';

/** Who may call a route: nobody needs a token, one role, or any signed-in account. */
export type Access = 'public' | Role | 'any';

/**
 * One row of a route table: what the route is, who may call it, what it accepts and answers.
 * The same rows mount the routers, drive the auth matrix test and produce the OpenAPI document.
 * Rows are written with defineRoute (./define-route.ts), which types the handler's input, or with
 * the builder of a kind that recurs (./route-kinds.ts: paged lists, message answers, credential routes).
 */
export interface RouteDef {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  access: Access;
  /**
   * A limited token this route takes besides its role's full tokens (src/security/tokens.ts
   * TokenScope); every route without it answers a limited token 403.
   */
  acceptsScope?: TokenScope;
  summary: string;
  request?: RequestSchemas;
  /** Documented success answer: status, zod schema of the body (omitted for non-JSON bodies), headers it sets. */
  response?: { status: number; schema?: z.ZodType; contentType?: string; headers?: ResponseConfig['headers'] };
  /** Where the route's failures differ from its group's JSON error body (the spec's exceptions). */
  errors?: RouteErrors;
  /** A per-client rate limit, run right after auth: refusals answer 429 (documented from this row). */
  rateLimit?: RequestHandler;
  /** Extra middleware run after the rate limit and before validation (HTTPS guards). */
  before?: RequestHandler[];
  /** Middleware run after validation, right before the handler (idempotency keys). */
  after?: RequestHandler[];
  handler: RouteHandler;
}

/**
 * A handler as a table row holds it. Each row's handler reads input typed by the row's own
 * schemas (defineRoute), which a table of many rows cannot name: input typed `never` is what every
 * such handler accepts, so any of them fits here without a cast, and the router takes it as is.
 */
export type RouteHandler = RequestHandler<never, unknown, never, never>;

export interface RouteGuards {
  requireRole(roles: readonly Role[], acceptsScope?: TokenScope): RequestHandler;
}

export function buildRouter(routes: RouteDef[], guards: RouteGuards): Router {
  const router = Router();
  for (const route of routes) router[route.method](route.path, ...middlewareOf(route, guards), route.handler);
  return router;
}

/** What runs before a route's handler, in order: its error answers, auth, rate limit, `before`, validation, `after`. */
function middlewareOf(route: RouteDef, guards: RouteGuards): RequestHandler[] {
  const chain: RequestHandler[] = [];
  const { errors } = route;
  if (errors) {
    // First, so that every failure of the route (a refused token, a rate limit) is answered its way.
    chain.push((_req, res, next) => {
      res.locals.routeErrors = errors;
      next();
    });
  }
  if (route.access !== 'public') chain.push(guards.requireRole(route.access === 'any' ? ['user', 'admin'] : [route.access], route.acceptsScope));
  if (route.rateLimit) chain.push(route.rateLimit);
  chain.push(...(route.before ?? []));
  if (route.request) chain.push(validate(route.request));
  chain.push(...(route.after ?? []));
  return chain;
}
