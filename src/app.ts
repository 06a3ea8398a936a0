import express, { type ErrorRequestHandler, type Express, type RequestHandler, type Router } from 'express';
import { errorShapeForGroup } from './http/error-shapes';
import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics/metrics';
import { errorHandler, notFound } from './middleware/error-handler';
import { requestLayer } from './middleware/request-layer';
import { docsRouter } from './routes/docs.routes';
import { buildRouter, type RouteDef, type RouteGuards } from './routes/route-table';
import { pagesRouter } from './routes/pages.routes';

export interface AppDeps {
  logger: Logger;
  guards: RouteGuards;
  /** Route tables by base path, e.g. { '/api/users': usersRoutes(...) }. */
  routeGroups: Record<string, RouteDef[]>;
  /**
   * Outside systems served on this port (the embedded sandboxes), by path: mounted first, ahead of
   * every middleware of the service, so their traffic is not in its request logs, metrics or
   * headers. Each answers everything under its path; nothing falls through to the service.
   */
  outsideApps?: Record<string, Router>;
  /** Raw-body routes (webhooks) that must see the exact bytes: mounted before the JSON parser. */
  rawMounts?: Record<string, Router>;
  corsOrigins: string[];
  /** Where clients reach the service (PUBLIC_BASE_URL): the server the OpenAPI document names. */
  publicBaseUrl: string;
  trustProxy?: string;
  /** Readiness probe: resolves when the service can do its work. */
  /** For /readyz: 503 unless ready; warnings (still serving, but an operator should act) are listed. */
  ready?: () => Promise<Readiness>;
  /** Prometheus metrics: times every request and answers GET /metrics (public; restrict it at the proxy). */
  metrics?: ServiceMetrics;
}

/** What /readyz reports. */
export interface Readiness {
  ready: boolean;
  warnings?: string[];
}

/** Builds the HTTP application. It never listens: server.ts and the tests do that. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // No ETag: Express hashed every body (sha1 of a 40 kB list page) for conditional requests no
  // client of this API makes (the spec has no ETag or If-None-Match; answers are per-user and mostly no-store).
  app.set('etag', false);
  if (deps.trustProxy !== undefined) app.set('trust proxy', parseTrustProxy(deps.trustProxy));
  for (const [path, router] of Object.entries(deps.outsideApps ?? {})) app.use(path, router, outsideNotFound, outsideError);
  // Request id and line, metrics, security headers and CORS: one layer (src/middleware/request-layer.ts).
  app.use(requestLayer(app, { logger: deps.logger, metrics: deps.metrics, corsOrigins: deps.corsOrigins }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const readiness: Readiness = deps.ready ? await deps.ready().catch(() => ({ ready: false })) : { ready: true };
    const warnings = readiness.warnings?.length ? { warnings: readiness.warnings } : {};
    res.status(readiness.ready ? 200 : 503).json({ status: readiness.ready ? 'ready' : 'unavailable', ...warnings });
  });
  if (deps.metrics) app.get('/metrics', deps.metrics.handler);
  // GET /openapi.json and Swagger UI at /docs, generated from the same route tables mounted below.
  app.use(docsRouter(deps.routeGroups, deps.publicBaseUrl));

  // Before the parsers and the raw mounts: their failures under a group are answered in its shape too.
  for (const base of Object.keys(deps.routeGroups)) app.use(base, errorShapeForGroup(base));
  for (const [path, router] of Object.entries(deps.rawMounts ?? {})) app.use(path, router);
  app.use(express.json({ limit: '100kb', strict: true }));

  app.use(pagesRouter());
  for (const [base, routes] of Object.entries(deps.routeGroups)) app.use(base, buildRouter(routes, deps.guards));

  app.use(notFound);
  app.use(errorHandler);
  return app;
}

// What an outside app leaves unanswered ends here, in a bare body: not the service's logs or error shapes.
const outsideNotFound: RequestHandler = (_req, res) => {
  res.status(404).json({ error: 'Not found' });
};
const outsideError: ErrorRequestHandler = (_err, _req, res, _next) => {
  if (res.headersSent) res.destroy();
  else res.status(500).json({ error: 'Internal error' });
};

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return /^\d+$/.test(value) ? Number(value) : value;
}
