import { Router, type RequestHandler } from 'express';
import type { z } from 'zod';
import type { Role } from '../security/tokens';
import { validate, type RequestSchemas } from '../middleware/validate';

/** Who may call a route: nobody needs a token, one role, or any signed-in account. */
export type Access = 'public' | Role | 'any';

/**
 * One row of a route table: what the route is, who may call it, what it accepts and answers.
 * The same rows mount the routers, drive the auth matrix test and produce the OpenAPI document.
 */
export interface RouteDef {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  access: Access;
  summary: string;
  request?: RequestSchemas;
  /** Documented success answer (status and zod schema of the body; omitted for non-JSON bodies). */
  response?: { status: number; schema?: z.ZodType; contentType?: string };
  /** Extra middleware run after auth and before validation (rate limits, HTTPS guards). */
  before?: RequestHandler[];
  /** Middleware run after validation, right before the handler (idempotency keys). */
  after?: RequestHandler[];
  handler: RequestHandler;
}

export interface RouteGuards {
  requireRole(...roles: Role[]): RequestHandler;
}

export function buildRouter(routes: RouteDef[], guards: RouteGuards): Router {
  const router = Router();
  for (const route of routes) {
    const chain: RequestHandler[] = [...(route.before ?? [])];
    if (route.access !== 'public') chain.unshift(guards.requireRole(...(route.access === 'any' ? (['user', 'admin'] as const) : [route.access])));
    if (route.request) chain.push(validate(route.request));
    chain.push(...(route.after ?? []));
    router[route.method](route.path, ...chain, route.handler);
  }
  return router;
}
