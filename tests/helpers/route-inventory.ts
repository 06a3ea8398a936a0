import type { Express } from 'express';
import type { Access, RouteDef } from '../../src/routes/route-table';

/** `METHOD /full/path`, e.g. `POST /api/users/login`: the key of every expectation table. */
export type RouteKey = `${'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'} /${string}`;

export interface TableRoute {
  key: RouteKey;
  base: string;
  def: RouteDef;
}

/** Every row of the container's route tables, with its full path. */
export function tableRoutes(groups: Record<string, RouteDef[]>): TableRoute[] {
  return Object.entries(groups).flatMap(([base, defs]) =>
    defs.map((def) => ({ key: `${def.method.toUpperCase()} ${base}${def.path}` as RouteKey, base, def })),
  );
}

interface RouterLike {
  stack?: LayerLike[];
}

interface LayerLike {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: RouterLike;
}

/**
 * Walks the Express 5 application's router, mounted routers included, and lists every route
 * it answers: the route tables, and whatever app.ts adds around them (/healthz, the webhook,
 * pages). Middleware without routes (parsers, CORS, the 404 handler) is not a route.
 */
export function appRoutes(app: Express): RouteKey[] {
  const found = new Set<RouteKey>();
  const walk = (router: RouterLike, prefix: string) => {
    for (const layer of router.stack ?? []) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== '_all') found.add(`${method.toUpperCase()} ${join(prefix, String(path))}` as RouteKey);
          }
        }
        continue;
      }
      if (layer.handle && Array.isArray(layer.handle.stack)) {
        const mount = typeof layer.rawPath === 'string' ? layer.rawPath : '/';
        walk(layer.handle, join(prefix, mount));
      }
    }
  };
  walk((app as unknown as { router: RouterLike }).router, '');
  return [...found].sort();
}

function join(prefix: string, path: string): string {
  const joined = `${prefix}/${path}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

/** Who may call a route, as the expectation tables say it: the table's Access, or a signed webhook. */
export type ExpectedAccess = Access | 'signature';

/** The error body every route group answers with (CONTRACT 4). */
export type ErrorShape = 'error' | 'message' | 'payments';

export function shapeOfGroup(path: string): ErrorShape {
  if (path.startsWith('/api/admin')) return 'message';
  if (path.startsWith('/api/payments')) return 'payments';
  return 'error';
}

/** Checks a JSON error body against its group's shape; returns a reason when it does not fit. */
export function shapeProblem(shape: ErrorShape, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `body is not an object: ${JSON.stringify(body)}`;
  const b = body as Record<string, unknown>;
  const keys = Object.keys(b).filter((k) => k !== 'details');
  if (b.details !== undefined && !Array.isArray(b.details)) return 'details is not an array';
  switch (shape) {
    case 'error':
      return keys.length === 1 && typeof b.error === 'string' && b.error.length > 0 ? undefined : `expected {error}, got ${JSON.stringify(b)}`;
    case 'message':
      return keys.length === 1 && typeof b.message === 'string' && b.message.length > 0 ? undefined : `expected {message}, got ${JSON.stringify(b)}`;
    case 'payments':
      return keys.length === 2 && b.success === false && typeof b.message === 'string' && b.message.length > 0
        ? undefined
        : `expected {success:false, message}, got ${JSON.stringify(b)}`;
  }
}
